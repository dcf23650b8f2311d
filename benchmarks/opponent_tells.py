"""How well feature set 3's tell separates a `deduction` opponent from a `notebook` one (issue 15).

`notebook` never names a card it holds; `deduction` probes with its own cards. One seat's engine
proves over a game which cards each opponent holds (mostly the cards shown to it), so "one of this
opponent's suggestions named a card it is now proved to hold" is a one-sided sign of a prober.
This plays 4-player classic games with `deduction` in seat 0 and each other seat `deduction` or
`notebook` at random, and counts, from seat 0's view only (R31): per suggestion, whether it named
a card seat 0 had by then proved the suggester holds; per opponent and game, whether any of its
suggestions named a card proved its own by the game's end (what the head's input
`RaceTracker.held_named` reads at the last opportunity)::

    python benchmarks/opponent_tells.py [--games 80] [--seed 77000] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import clue_env  # noqa: E402
from agents import make_agent  # noqa: E402
from clue_env.engine.cards import ROOM_BASE, WEAPON_BASE  # noqa: E402
from clue_env.engine.events import Suggest  # noqa: E402
from clue_env.engine.witness import Witness  # noqa: E402
from clue_env.policy.accusation import RaceTracker  # noqa: E402

KINDS = ("deduction", "notebook")


def play(seed: int, types: list[str]) -> dict[str, list[tuple[int, int, int]]]:
    """One game; per opponent type: (suggestions, caught at the time, caught by the end) per opponent."""
    p = len(types)
    env = clue_env.raw_env(num_players=p)
    agents = [make_agent(t, seat=i, num_players=p, seed=seed * 10 + i) for i, t in enumerate(types)]
    for a in agents:
        a.reset()
    env.reset(seed=seed)
    g, names = env.game, env.possible_agents
    while not g.over:
        s = g.acting
        env.step(agents[s].act(env.observe(names[s]), env.infos[names[s]]))
    view = env.infos[names[0]]["seat_view"]
    events = view.events
    w = Witness(0, list(view.hand), [len(h) for h in g.hands])
    now = [0] * p
    for i, ev in enumerate(events):
        if isinstance(ev, Suggest) and ev.seat != 0:
            named = (ev.suspect, WEAPON_BASE + ev.weapon, ROOM_BASE + ev.room)
            now[ev.seat] += any(w.knowledge.location(c) == ev.seat for c in named)
        w.feed(events[: i + 1])
    race = RaceTracker(p, 0, view.hand)  # the head's own count (feature set 3) at the game's end
    race.feed(events)
    out: dict[str, list[tuple[int, int, int]]] = {t: [] for t in KINDS}
    for s in range(1, p):
        out[types[s]].append((len(race.named[s]), now[s], race.held_named(s, w.knowledge)[0]))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--games", type=int, default=80)
    ap.add_argument("--seed", type=int, default=77000)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    rows: dict[str, list[tuple[int, int, int]]] = {t: [] for t in KINDS}
    for i in range(args.games):
        types = ["deduction"] + [KINDS[int(rng.integers(2))] for _ in range(3)]
        for t, r in play(args.seed + i, types).items():
            rows[t] += r
    summary = {}
    print(f"{args.games} games, 4-player classic, seen from seat 0 (deduction)")
    print(f"{'opponent':10s} {'opp-games':>9s} {'suggestions':>11s} {'caught at the time':>19s} {'caught by the end':>18s}")
    for t in KINDS:
        r = np.array(rows[t]).reshape(-1, 3)
        sug = int(r[:, 0].sum())
        at_time = float(r[:, 1].sum() / max(sug, 1))
        by_end = float((r[:, 2] > 0).mean()) if len(r) else 0.0
        summary[t] = {"opponent_games": len(r), "suggestions": sug, "suggestions_caught_at_the_time": at_time,
                      "opponents_caught_by_the_end": by_end}  # fmt: skip
        print(f"{t:10s} {len(r):9d} {sug:11d} {at_time:18.1%} {by_end:17.1%}")
    if args.json:
        args.json.write_text(json.dumps({"games": args.games, "seed": args.seed, "by_opponent": summary}, indent=2))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
