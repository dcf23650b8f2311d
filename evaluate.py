"""Play a tournament and report win rates with 95% confidence intervals (SPEC "Scripts").

    python evaluate.py --seats SPEC,SPEC,... --games N [--seed S] [--rules classic] [--json PATH]
                       [--chart PATH] [--workers W]

With no arguments it runs the shipped policy (``ppo``) against the scripted baselines.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

from agents.tournament import format_table, plot, run_tournament

#: what `python evaluate.py` plays with no arguments: the shipped policy against the baselines
DEFAULT_SEATS = "ppo,deduction,notebook,random"
DEFAULT_GAMES = 400


def write_json_atomic(path: str, data: object) -> None:
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Play Clue tournaments between agents (seats rotated).")
    ap.add_argument("--seats", default=DEFAULT_SEATS, help=f"comma-separated agent specs, one per seat (default {DEFAULT_SEATS})")
    ap.add_argument("--games", type=int, default=DEFAULT_GAMES, help=f"number of games (default {DEFAULT_GAMES})")
    ap.add_argument("--seed", type=int, default=0, help="base seed: game g is reset with seed+g")
    ap.add_argument(
        "--agent-seed",
        type=int,
        default=None,
        help="entropy of the agents' seeds (default: fresh; the JSON records it, pass it back to replay exactly)",
    )
    ap.add_argument("--rules", default="classic", help="classic | edition2023 | path to a rules YAML")
    ap.add_argument("--json", default="results/evaluate.json", help="write the JSON summary here")
    ap.add_argument("--chart", default="results/evaluate.png", help="write a PNG chart here ('' to skip)")
    ap.add_argument("--workers", type=int, default=None, help="processes (default: 2, both cores)")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    specs = [s.strip() for s in args.seats.split(",") if s.strip()]
    if args.games < 1:
        ap.error("--games must be at least 1")
    if args.workers is not None and args.workers < 1:
        ap.error("--workers must be at least 1 (default: one per core, at most 2)")
    try:
        summary = run_tournament(
            specs,
            args.games,
            rules=args.rules,
            seed=args.seed,
            workers=args.workers,
            progress=not args.quiet,
            agent_seed=args.agent_seed,
        )
    except ValueError as e:
        print(f"evaluate.py: error: {e}", file=sys.stderr)
        return 2
    print(format_table(summary))
    if args.json:
        write_json_atomic(args.json, summary)
        print(f"wrote {args.json}")
    if args.chart:
        plot(summary, args.chart)
        print(f"wrote {args.chart}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
