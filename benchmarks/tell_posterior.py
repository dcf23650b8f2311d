"""How well a posterior that reads the opponents' suggestions predicts the envelope (issue 15).

At every accusation opportunity of a ``--spec`` seat that has not proved the solution, against
``--opponent`` (the seat alternates between games), this computes the seat's plain posterior over
the envelope (every consistent deal counted the same) and, for each ``--lr``, the tell posterior of
accusation feature set 6 (each deal weighs ``lr`` per suspect or weapon an opponent named while the
deal gives it that card, R26; :func:`clue_env.policy.accusation.weighted_tell_posterior`). Only
positions where both are counted exactly are kept. It reports the mean log probability of the true
envelope, how often the likeliest triple is the envelope, the mean probability of the likeliest
triple (calibration: it should match the hit rate), and the hit rate by that probability. The seat
reads only its own knowledge and redacted log (R31); the true envelope is read after the game::

    python benchmarks/tell_posterior.py [--players 2] [--rules edition2023] [--opponent deduction]
        [--games 300] [--seed 14000000] [--agent-seed 1] [--lr 0.1,0.35] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import clue_env  # noqa: E402
from agents import make_agent  # noqa: E402
from clue_env.codec import default_codec  # noqa: E402
from clue_env.engine.cards import ROOM_BASE, WEAPON_BASE  # noqa: E402
from clue_env.policy.accusation import RaceTracker, triple_posterior, weighted_tell_posterior  # noqa: E402
from clue_env.policy.features import SeatFeatures  # noqa: E402
from clue_env.training.accusation_fit import _SOLVED  # noqa: E402

CODEC = default_codec()
#: bins of the likeliest triple's probability for the calibration table
BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0001)


def _summary(logp: list[float], hit: list[bool], best: list[float]) -> dict[str, Any]:
    a, h, b = np.array(logp), np.array(hit, dtype=float), np.array(best)
    bins = []
    for lo, hi in zip(BINS, BINS[1:]):
        sel = (b >= lo) & (b < hi)
        rate = float(h[sel].mean()) if sel.any() else None
        bins.append({"from": lo, "to": min(hi, 1.0), "positions": int(sel.sum()), "hit_rate": rate})
    return {"mean_log_p_true": float(a.mean()), "best_is_envelope": float(h.mean()), "mean_best_p": float(b.mean()), "bins": bins}


def tell_posterior(
    spec: str, opponent: str, players: int, rules: str, games: int, seed: int, agent_seed: int, lrs: list[float]
) -> dict[str, Any]:
    """The plain posterior's and each tell posterior's summary over the positions described above."""
    rows: list[tuple[float, bool, float, list[tuple[float, bool, float]]]] = []
    for g in range(games):
        me = g % players
        env = clue_env.raw_env(num_players=players, rules=rules)
        specs = [opponent] * players
        specs[me] = spec
        agents = [
            make_agent(s, seat=i, num_players=players, rules=env.rules, seed=agent_seed * 100003 + 7 * g + i)
            for i, s in enumerate(specs)
        ]
        for a in agents:
            a.reset()
        env.reset(seed=seed + g)
        game = env.game
        names = env.possible_agents
        feats = SeatFeatures(me, players)
        race: RaceTracker | None = None
        found: list[tuple[dict[tuple[int, ...], float], list[dict[tuple[int, ...], float]]]] = []
        rng = np.random.default_rng(seed + g)
        while not game.over:
            seat = game.acting
            obs, info = env.observe(names[seat]), env.infos[names[seat]]
            if seat == me and obs["action_mask"][CODEC.accuse_slice].any():
                view = info["seat_view"]
                f = feats.update(obs["observation"], view.events)
                k = feats.knowledge
                if k is not None and f[_SOLVED] == 0:
                    race = race or RaceTracker(players, me, view.hand)
                    race.feed(view.events)
                    post, how = triple_posterior(k, rng)
                    if how is True:
                        tells = [weighted_tell_posterior(k, race, me, lr) for lr in lrs]
                        if all(t[1] is not None for t in tells):
                            found.append((post, [t[0] for t in tells]))
            env.step(agents[seat].act(obs, info))
        s, w, r = game.envelope
        truth = tuple(sorted((int(s), WEAPON_BASE + int(w), ROOM_BASE + int(r))))

        def read(p: dict[tuple[int, ...], float], truth: tuple[int, ...] = truth) -> tuple[float, bool, float]:
            q = {tuple(sorted(t)): v for t, v in p.items()}
            best = max(q, key=lambda t: q[t])
            return math.log(max(q.get(truth, 0.0), 1e-9)), best == truth, q[best]

        rows += [(*read(post), [read(t) for t in tells]) for post, tells in found]
    out: dict[str, Any] = {
        "spec": spec, "opponent": opponent, "players": players, "rules": rules, "games": games, "seed": seed,
        "agent_seed": agent_seed, "positions": len(rows),
        "plain": _summary([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]),
        "tells": {},
    }  # fmt: skip
    for i, lr in enumerate(lrs):
        out["tells"][str(lr)] = _summary([r[3][i][0] for r in rows], [r[3][i][1] for r in rows], [r[3][i][2] for r in rows])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--spec", default="deduction", help="the seat whose posterior is read (default deduction)")
    ap.add_argument("--opponent", default="deduction")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--rules", default="edition2023")
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--seed", type=int, default=14000000)
    ap.add_argument("--agent-seed", type=int, default=1)
    ap.add_argument("--lr", default="0.35", help="comma-separated weights per naming, each in (0, 1]")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error(f"--games must be at least 1, got {args.games}")
    try:
        lrs = [float(x) for x in args.lr.split(",")]
    except ValueError:
        ap.error(f"--lr must be numbers separated by commas, got {args.lr!r}")
    if not all(0.0 < x <= 1.0 for x in lrs):
        ap.error(f"every --lr must be in (0, 1], got {args.lr!r}")
    rep = tell_posterior(args.spec, args.opponent, args.players, args.rules, args.games, args.seed, args.agent_seed, lrs)
    who = f"{args.spec} against {args.opponent}, {args.players} players, {args.rules}"
    print(f"{rep['positions']} positions in {args.games} games ({who})")
    print(f"{'posterior':>12s} {'mean log p(true)':>17s} {'best is envelope':>17s} {'mean best p':>12s}")
    for name, s in [("plain", rep["plain"])] + [(f"tells {lr}", s) for lr, s in rep["tells"].items()]:
        print(f"{name:>12s} {s['mean_log_p_true']:17.3f} {s['best_is_envelope']:17.1%} {s['mean_best_p']:12.1%}")
    if args.json:
        args.json.write_text(json.dumps(rep, indent=2))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
