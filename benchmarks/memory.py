"""Steady-state memory: resident set size along a long run of random games.

Plays ``--games`` never-accusing random games through ``clue_env.raw_env`` (default: 6 players,
2023 rules, ``max_turns=60`` so a game is ~200 decisions) and prints the process's RSS every
``--every`` games, with the sizes of the engine's memo caches. A bounded run flattens out.

    python benchmarks/memory.py [--games 10000] [--players 6] [--rules edition2023]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def rss_mb() -> float:
    with open("/proc/self/status", encoding="utf-8") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--players", type=int, default=6)
    ap.add_argument("--rules", default="edition2023")
    ap.add_argument("--max-turns", type=int, default=60)
    ap.add_argument("--every", type=int, default=1000)
    args = ap.parse_args(argv)
    import clue_env

    e = clue_env.raw_env(num_players=args.players, rules=args.rules, max_turns=args.max_turns)
    rng = np.random.default_rng(0)
    t0 = time.time()
    print(f"start: RSS {rss_mb():.0f} MB")
    for g in range(1, args.games + 1):
        e.reset(seed=g)
        while not e.game.over:
            legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
            quiet = legal[legal < e.codec.ACCUSE]
            e.step(int(rng.choice(quiet if len(quiet) else legal)))
        if g % args.every == 0:
            print(f"{g:>6} games  RSS {rss_mb():6.0f} MB  move cache {len(e.board._cache):>6}  "
                  f"mask cache {len(e.codec._mask_cache):>6}  {time.time() - t0:5.0f} s", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
