"""Random games with every invariant checked after every step (issue acceptance: 10,000 games).

    python benchmarks/random_games.py [--games 10000] [--players 3,4,5,6] [--accuse-prob 0.02]
                                      [--rules classic] [--workers 2] [--no-check]

Each game: ``reset(seed)``, then uniformly random legal non-accusations, with an accusation
(uniform over the 324) taken with probability ``--accuse-prob`` whenever one is legal.
Prints invariant violations (must be 0), deadlocks (0), how games ended and the truncation
rate under the ruleset's default ``max_turns``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from tqdm import tqdm


def _chunk(args: tuple[str, int, list[int], float, bool]) -> dict:
    import clue_env
    from clue_env.testing import InvariantError, PlayoutStats, play_random_game

    rules, players, seeds, accuse_prob, check = args
    env = clue_env.raw_env(num_players=players, rules=rules)
    st = PlayoutStats()
    failures = []
    for seed in seeds:
        try:
            play_random_game(env, seed, accuse_prob=accuse_prob, check=check, stats=st)
        except InvariantError as e:
            failures.append(f"{players}p seed {seed}: {e}")
    return {"players": players, "stats": st.__dict__, "failures": failures}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--players", default="3,4,5,6")
    ap.add_argument("--rules", default="classic")
    ap.add_argument("--accuse-prob", type=float, default=0.02)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-check", action="store_true", help="skip the per-step invariant checks")
    ap.add_argument("--json", help="write the summary here")
    args = ap.parse_args(argv)
    counts = [int(p) for p in args.players.split(",")]
    per = [args.games // len(counts) + (1 if i < args.games % len(counts) else 0) for i in range(len(counts))]
    jobs = []
    for p, k in zip(counts, per):
        seeds = list(range(args.seed, args.seed + k))
        for i in range(0, k, 50):
            jobs.append((args.rules, p, seeds[i : i + 50], args.accuse_prob, not args.no_check))
    t0 = time.perf_counter()
    total = {"games": 0, "steps": 0, "truncated": 0, "wins": 0, "nobody": 0}
    reasons: dict[str, int] = {}
    failures: list[str] = []
    by_players: dict[int, dict[str, int]] = {}
    with ProcessPoolExecutor(max_workers=args.workers) as pool, tqdm(total=args.games, unit="game") as bar:
        for res in pool.map(_chunk, jobs):
            st = res["stats"]
            for k in total:
                total[k] += st[k]
            bp = by_players.setdefault(res["players"], {"games": 0, "truncated": 0, "steps": 0})
            bp["games"] += st["games"]
            bp["truncated"] += st["truncated"]
            bp["steps"] += st["steps"]
            for k, v in st["reasons"].items():
                reasons[k] = reasons.get(k, 0) + v
            failures += res["failures"]
            bar.update(len(res["failures"]) + st["games"])
    dt = time.perf_counter() - t0
    summary = {
        "rules": args.rules,
        "games": total["games"] + len(failures),
        "invariant_violations": len(failures),
        "steps": total["steps"],
        "truncation_rate": total["truncated"] / max(total["games"], 1),
        "end_reasons": reasons,
        "by_players": {
            str(p): {**v, "truncation_rate": v["truncated"] / max(v["games"], 1), "mean_steps": v["steps"] / max(v["games"], 1)}
            for p, v in sorted(by_players.items())
        },
        "seconds": dt,
    }
    for f in failures[:20]:
        print("FAIL", f)
    print(json.dumps(summary, indent=2))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(summary, fh, indent=2)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
