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


def check_output(path: str, what: str) -> str | None:
    """Why ``path`` cannot be written (checked before any game is played), or ``None``."""
    if os.path.isdir(path):
        return f"{what} {path!r} is a directory; give a file name"
    if os.path.exists(path):
        if not os.access(path, os.W_OK):
            return f"{what} {path!r} is not writable"
        return None
    d = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(d):  # it will be created: the nearest existing parent must be writable
        d = os.path.dirname(d)
    if not os.path.isdir(d) or not os.access(d, os.W_OK | os.X_OK):
        return f"{what} {path!r}: cannot create it in {d!r} (not a writable directory)"
    return None


def write_output(path: str, data: bytes) -> None:
    """Write ``data`` to ``path``: atomically (temp file + rename, the umask's mode) for a regular
    file or a new one; straight through for anything else (``/dev/stdout``, a pipe, a symlink's
    target), so that those work and a write error is reported."""
    if os.path.exists(path) and (os.path.islink(path) or not os.path.isfile(path)):
        with open(path, "wb") as f:
            f.write(data)
            f.flush()
        return
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".evaluate.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_json_atomic(path: str, data: object) -> None:
    write_output(path, (json.dumps(data, indent=2) + "\n").encode("utf-8"))


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
    for path, what in ((args.json, "--json"), (args.chart, "--chart")):
        problem = check_output(path, what) if path else None
        if problem:
            ap.error(problem)
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
    except KeyboardInterrupt as e:
        done = getattr(e, "games_done", None)
        print(f"\nevaluate.py: interrupted{f' after {done} finished games' if done is not None else ''}; nothing written",
              file=sys.stderr)  # fmt: skip
        return 130
    print(format_table(summary))
    try:
        if args.json:
            write_json_atomic(args.json, summary)
            print(f"wrote {args.json}")
    except OSError as e:
        print(f"evaluate.py: error: cannot write --json {args.json!r}: {e.strerror or e}", file=sys.stderr)
        return 1
    try:
        if args.chart:
            plot(summary, args.chart)
            print(f"wrote {args.chart}")
    except OSError as e:
        print(f"evaluate.py: error: cannot write --chart {args.chart!r}: {e.strerror or e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
