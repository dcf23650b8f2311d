"""How large a win-rate gap a league needs to rank one agent first with its rating interval clear of
the next one's.

Simulates 4-player leagues of fixed agents ``a``, ``b``, ``c``, ``d`` in which ``a`` and ``b`` share
all the wins but ``--third``'s (``c``; ``d`` never wins), ``a`` ahead of ``b`` by each ``--gaps``
win-rate difference, games independent; rates each with :func:`agents.league.rate_games` (as
``evaluate.py --league`` does) and prints the gap between ``a``'s and ``b``'s ``mu`` next to the
gap their 95% intervals need to be clear of each other (``1.96 * (sigma_a + sigma_b)``), averaged
over ``--repeats`` simulated leagues::

    python benchmarks/league_gap.py [--games 1920,7680] [--gaps 0.04,0.08,0.12,0.16] [--third 0.05]
                                    [--repeats 3] [--seed 0] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agents.league import rate_games  # noqa: E402
from agents.tournament import GameResult  # noqa: E402

SEATS = ["a", "b", "c", "d"]


def simulate(games: int, gap: float, third: float, rng: np.random.Generator) -> dict[str, float]:
    """One league of ``games`` independent games: the win rates drawn, the ratings' ``mu`` gap
    (``a`` minus ``b``) and the gap the verdict needs."""
    share = (1.0 - third) / 2
    winners = rng.choice(4, size=games, p=[share + gap / 2, share - gap / 2, third, 0.0])
    results = [GameResult(g, SEATS, int(w), 0, False, [0] * 4, 0, 0.0) for g, w in enumerate(winners)]
    r = rate_games(SEATS, results)
    return {
        "win_rate_a": float((winners == 0).mean()),
        "win_rate_b": float((winners == 1).mean()),
        "mu_gap": r["a"].mu - r["b"].mu,
        "needed": 1.96 * (r["a"].sigma + r["b"].sigma),
    }


def measure(games: list[int], gaps: list[float], third: float, repeats: int, seed: int) -> list[dict[str, Any]]:
    rows = []
    for n in games:
        for gap in gaps:
            rng = np.random.default_rng([seed, n, round(gap * 1e6)])
            runs = [simulate(n, gap, third, rng) for _ in range(repeats)]
            row: dict[str, Any] = {"games": n, "gap": gap}
            for key in runs[0]:
                row[key] = float(np.mean([run[key] for run in runs]))
            row["clear"] = sum(run["mu_gap"] > run["needed"] for run in runs)
            rows.append(row)
    return rows


def _list(text: str, kind: type) -> list[Any]:
    try:
        values = [kind(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated {kind.__name__}s, got {text!r}") from None
    if not values:
        raise argparse.ArgumentTypeError("expected at least one value")
    return values


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=lambda t: _list(t, int), default=[1920, 7680], help="league sizes (comma-separated)")
    ap.add_argument("--gaps", type=lambda t: _list(t, float), default=[0.04, 0.08, 0.12, 0.16], help="a's win rate minus b's")
    ap.add_argument("--third", type=float, default=0.05, help="c's win rate (the rest is a's and b's)")
    ap.add_argument("--repeats", type=int, default=3, help="simulated leagues per cell")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None, help="write the rows here")
    args = ap.parse_args(argv)
    if any(n < 1 for n in args.games) or args.repeats < 1:
        ap.error("--games and --repeats must be positive")
    if not 0.0 <= args.third < 1.0 or any(not 0.0 <= g <= 1.0 - args.third for g in args.gaps):
        ap.error("--third must be in [0, 1) and every gap in [0, 1 - third]")
    rows = measure(args.games, args.gaps, args.third, args.repeats, args.seed)
    print(f"{'games':>6} {'gap':>5} {'win a':>6} {'win b':>6} {'mu gap':>7} {'needed':>7} {'clear':>6}")
    for r in rows:
        print(
            f"{r['games']:>6} {r['gap']:>5.2f} {r['win_rate_a']:>6.1%} {r['win_rate_b']:>6.1%} {r['mu_gap']:>7.2f} "
            f"{r['needed']:>7.2f} {r['clear']:>3}/{args.repeats}"
        )
    if args.json:
        from clue_env.fileio import write_output

        write_output(args.json, json.dumps({"third": args.third, "repeats": args.repeats, "rows": rows}, indent=1).encode())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
