"""Speed of clue_env next to PettingZoo classic envs, measured in the same process.

Random legal games through ``clue_env.env()`` (the wrapped env) and ``clue_env.raw_env()``:

* ``never-accuse``: uniformly random among the legal actions other than accusations: rolls,
  moves, suggestions, refutations, games ending at ``max_turns`` (the training workload);
* ``uniform``: uniformly random among all legal actions (games end within a few moves, since
  nearly every turn start offers 324 accusations);

next to uniformly random ``connect_four_v3`` and ``texas_holdem_v4`` through their ``env()``.
Every env runs the same loop (``last()``, pick from the mask, ``step()``), interleaved in
rounds so that machine noise hits them alike. Prints moves/s, games/s and ratios to
connect_four (over all rounds, and the median of each round's own ratio with its range: on a
shared host, many short rounds and the median read steadier than a few long ones); ``--json``
also writes them. ``--clock cpu`` times with this process's CPU time
instead of the wall clock: on a machine other jobs are loading, the time the process waits for a
core then counts for nobody, and the figures (ratios included) vary far less.

    python benchmarks/env_speed.py [--seconds 3] [--rounds 3] [--players 4] [--clock wall|cpu] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable

import numpy as np


def _run(
    make: Callable[[], object],
    seconds: float,
    forbid: np.ndarray | None,
    seed: int,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[int, int, float]:
    env = make()
    rng = np.random.default_rng(seed)
    moves = games = 0
    t0 = clock()
    deadline = t0 + seconds
    while clock() < deadline:
        env.reset(seed=seed + games)
        for _agent in env.agent_iter():
            obs, _r, term, trunc, _info = env.last()
            if term or trunc:
                action = None
            else:
                mask = obs["action_mask"]
                if forbid is not None:
                    mask = mask & forbid
                legal = np.flatnonzero(mask)
                action = int(legal[int(rng.integers(len(legal)))])
                moves += 1
            env.step(action)
        games += 1
    return moves, games, clock() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="seconds per env per round")
    ap.add_argument("--rounds", type=int, default=3, help="rounds (envs interleaved)")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall", help="wall clock or this process's CPU time")
    ap.add_argument("--json", help="also write the figures to this JSON file")
    args = ap.parse_args(argv)

    from pettingzoo.classic import connect_four_v3, texas_holdem_v4

    import clue_env
    from clue_env.env import stock_wrapped_env

    raw = clue_env.raw_env(num_players=args.players)
    no_accuse = np.ones(raw.codec.n, dtype=np.int8)
    no_accuse[raw.codec.accuse_slice] = 0
    p = args.players
    cases: list[tuple[str, Callable[[], object], np.ndarray | None]] = [
        ("connect_four_v3 env() uniform", connect_four_v3.env, None),
        ("texas_holdem_v4 env() uniform", texas_holdem_v4.env, None),
        (f"clue env() {p}p never-accuse", lambda: clue_env.env(num_players=p), no_accuse),
        (f"clue env() {p}p never-accuse, stock", lambda: stock_wrapped_env(num_players=p), no_accuse),
        (f"clue raw_env {p}p never-accuse", lambda: clue_env.raw_env(num_players=p), no_accuse),
        (f"clue env() {p}p uniform", lambda: clue_env.env(num_players=p), None),
    ]
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    totals = {name: [0, 0, 0.0] for name, _, _ in cases}
    per_round: dict[str, list[float]] = {name: [] for name, _, _ in cases}
    for rnd in range(args.rounds):
        for name, make, forbid in cases:
            m, g, dt = _run(make, args.seconds, forbid, seed=1000 * rnd, clock=clock)
            t = totals[name]
            t[0] += m
            t[1] += g
            t[2] += dt
            per_round[name].append(m / dt)
    c4 = cases[0][0]
    base = totals[c4][0] / totals[c4][2]
    rows = {}
    print(f"{'env':<40} {'moves/s':>10} {'games/s':>9} {'moves/game':>10} {'x connect4':>10}   per round: median [min, max]")
    for name, _, _ in cases:
        m, g, dt = totals[name]
        rate = m / dt
        # each round's ratio to that round's connect_four: a burst of load on the host then
        # moves one round, and the median of the rounds hardly at all
        ratios = [r / b for r, b in zip(per_round[name], per_round[c4])]
        med = float(np.median(ratios))
        rows[name] = {
            "moves_per_s": rate,
            "games_per_s": g / dt,
            "moves_per_game": m / max(g, 1),
            "ratio": rate / base,
            "ratio_median": med,
            "ratio_rounds": ratios,
        }
        print(
            f"{name:<40} {rate:>10.0f} {g / dt:>9.1f} {m / max(g, 1):>10.1f} {rate / base:>10.2f}"
            f"   {med:.2f} [{min(ratios):.2f}, {max(ratios):.2f}]"
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
