"""Play a tournament and report win rates with 95% confidence intervals (SPEC "Scripts").

    python evaluate.py --seats SPEC,SPEC,... --games N [--seed S] [--rules classic] [--json PATH]
                       [--chart PATH] [--workers W] [--control SPEC] [--replays DIR]
    python evaluate.py --league SPEC,SPEC,... [--players P] --games N ...

With no arguments it runs the shipped policy (``ppo``) against the scripted baselines, and says
under the table which file ``ppo`` played. Seats are balanced (every arrangement of the line-up in
turn); ``--control`` replays the same games with a replacement for the first spec (a paired
comparison); ``--league`` rates several agents in mixed line-ups. See docs/api.md.

An earlier result is never lost unsaid: the default outputs (``results/evaluate.json`` and
``results/evaluate.png``) move together to the first free ``results/evaluate-N.*`` when either
exists, and the line that reports the file says so; a path given with ``--json`` or ``--chart`` is
the user's choice and is replaced, also said.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from typing import Any

from agents import split_specs
from agents.output import check_output, check_replays_dir, format_table, plot, write_json, write_output
from agents.tournament import MAX_DEFAULT_WORKERS, default_workers

#: what `python evaluate.py` plays with no arguments: the shipped policy against the baselines
DEFAULT_SEATS = "ppo,deduction,notebook,random"
DEFAULT_GAMES = 480  # a whole number of 24-game seating cycles for the four default agents
DEFAULT_JSON = "results/evaluate.json"
DEFAULT_CHART = "results/evaluate.png"
#: the agent specs ``--help`` lists: (spec, what plays); every name of :func:`agents.agent_names` is one
AGENT_SPECS = (
    ("random", "a random legal action, accusing only when nothing else is legal"),
    ("uniform", "a random legal action, accusations too (it accuses, wrongly, on its first turn)"),
    ("notebook", "a careful beginner with a detective notebook"),
    ("deduction[:k=v,...]", "the deduction engine's player; k: threshold, samples, exact_budget, pull,"),
    ("", "pull_tol, plan, deny, tells, shows, moves (agents/deduction.py)"),
    ("ppo", "the shipped policy (models/manifest.yaml names its file per rules and players)"),
    ("ppo_accuse", "the shipped network with its accusation head fitted against deduction only"),
    ("ppo:PATH", "a policy file, e.g. runs/NAME/policy.pt written by train.py"),
    ("human", "you, at this terminal (use --workers 1)"),
)

write_json_atomic = write_json  # another name for write_json, for callers that import it from here
__all__ = ["check_output", "main", "write_json_atomic", "write_output"]


def _specs(text: str) -> list[str]:
    """``--seats`` / ``--league``: specs separated by commas; a spec's own ``key=value`` parameters
    stay with it (``deduction:tells=0.35,pull=far,random`` is two specs, :func:`agents.split_specs`)."""
    return [s for s in split_specs(text) if s]


def numbered(path: str, n: int) -> str:
    """``results/evaluate.json`` -> ``results/evaluate-N.json``."""
    root, ext = os.path.splitext(path)
    return f"{root}-{n}{ext}"


def free_names(paths: dict[str, str]) -> dict[str, str]:
    """``paths`` (default output paths by flag) as they are when none exists, else all moved to the
    first number ``N >= 2`` at which none exists (:func:`numbered`): a default never replaces a file."""
    if not any(os.path.lexists(p) for p in paths.values()):
        return dict(paths)
    n = 2
    while any(os.path.lexists(numbered(p, n)) for p in paths.values()):
        n += 1
    return {flag: numbered(p, n) for flag, p in paths.items()}


def _wrote(path: str, default: str | None, replaced: bool, flag: str) -> str:
    """The line that reports writing ``path``; says when an earlier file was kept or replaced."""
    if default is not None and path != default:
        return f"wrote {path} ({default} exists and is kept; {flag} PATH chooses the name)"
    return f"wrote {path}{' (replacing the file that was there)' if replaced else ''}"


def _specs_epilog() -> str:
    width = max(len(spec) for spec, _ in AGENT_SPECS)
    return "agent specs (--seats, --league, --control):\n" + "\n".join(f"  {spec:<{width}}  {what}" for spec, what in AGENT_SPECS)


def _notes(summary: dict[str, Any], rules: str) -> list[str]:
    """Under the table: which file each shipped-policy spec played, and why it may accuse wrongly."""
    specs = list(summary.get("results", {}))
    control = summary.get("control")
    if control:
        specs.append(control["spec"])
    if not {"ppo", "ppo_accuse"} & set(specs):
        return []
    from agents.ppo_agent import shipped_note

    notes = []
    for spec in dict.fromkeys(specs):
        try:
            note = shipped_note(spec, summary["num_players"], rules)
        except (ValueError, OSError):  # it played, so its file was fine; a note is not worth failing for
            note = None
        if note:
            notes.append(note)
    return notes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Play Clue tournaments between agents (balanced seating) and report win rates with 95% intervals.",
        epilog=_specs_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    who = ap.add_mutually_exclusive_group()
    who.add_argument("--seats", default=None, help=f"comma-separated agent specs, one per seat (default {DEFAULT_SEATS})")
    who.add_argument(
        "--league",
        default=None,
        metavar="SPEC,SPEC,...",
        help="play balanced mixed line-ups of these agents and rate them (OpenSkill Plackett-Luce) next to their win rates",
    )
    ap.add_argument(
        "--players",
        type=int,
        default=None,
        help="with --league: seats per game (default: the number of specs if the rules allow it, else 4)",
    )
    ap.add_argument(
        "--control",
        default=None,
        metavar="SPEC",
        help="replay the same games with the first-listed spec's seats played by SPEC; report the paired difference",
    )
    ap.add_argument("--games", type=int, default=DEFAULT_GAMES, help=f"number of games (default {DEFAULT_GAMES})")
    ap.add_argument("--seed", type=int, default=0, help="base seed: game g is reset with seed+g")
    ap.add_argument(
        "--agent-seed",
        type=int,
        default=None,
        help="entropy of the agents' seeds (default: fresh; the JSON records it, pass it back to replay exactly)",
    )
    ap.add_argument("--rules", default="classic", help="classic | edition2023 | path to a rules YAML")
    keeps = "or the first free -N name when it exists: an earlier result is kept"
    ap.add_argument(
        "--json",
        default=None,
        help=f"write the JSON summary here, replacing a file there (default {DEFAULT_JSON}, {keeps}; '' to skip)",
    )
    ap.add_argument(
        "--chart",
        default=None,
        help=f"write a PNG chart here, replacing a file there (default {DEFAULT_CHART}, {keeps}; '' to skip; needs matplotlib)",
    )
    ap.add_argument(
        "--workers",
        type=int,
        default=None,
        help=f"processes (default: one per core, at most {MAX_DEFAULT_WORKERS}; {default_workers()} on this machine)",
    )
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    ap.add_argument(
        "--replays",
        default=None,
        metavar="DIR",
        help="write one replay file per game in DIR (made if missing; see docs/replays.md): python play.py --replay FILE",
    )
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games must be at least 1")
    if args.workers is not None and args.workers < 1:
        ap.error(f"--workers must be at least 1 (default: one per core, at most {MAX_DEFAULT_WORKERS})")
    if args.league is not None and args.control is not None:
        ap.error("--control compares a line-up's first spec with a replacement; it does not go with --league")
    if args.players is not None and args.league is None:
        ap.error("--players goes with --league (with --seats, the line-up gives one seat per spec)")
    if args.players is not None and not 2 <= args.players <= 6:
        ap.error("--players must be 2-6")
    chart = DEFAULT_CHART if args.chart is None else args.chart
    if chart and importlib.util.find_spec("matplotlib") is None:
        if args.chart is not None:
            ap.error(f"--chart {chart!r} needs matplotlib, which is not installed (pip install matplotlib, or the dev extra)")
        print("evaluate.py: matplotlib is not installed: skipping the chart (install the dev extra to get it)", file=sys.stderr)
        chart = ""
    json_path = DEFAULT_JSON if args.json is None else args.json
    defaults = {flag: path for flag, path, given in (("--json", json_path, args.json), ("--chart", chart, args.chart))
                if path and given is None}  # fmt: skip
    out = {"--json": json_path, "--chart": chart, **free_names(defaults)}
    for what, path in out.items():
        problem = check_output(path, what) if path else None
        if problem:
            ap.error(problem)
    if args.replays is not None:
        problem = check_replays_dir(args.replays)  # made when missing; a file must be creatable in it
        if problem:
            ap.error(problem)
    common: dict[str, Any] = dict(
        rules=args.rules, seed=args.seed, workers=args.workers, progress=not args.quiet, agent_seed=args.agent_seed
    )
    if args.replays is not None:
        common["replays"] = args.replays
    try:
        if args.league is not None:
            from agents.league import format_league, plot_league, run_league

            summary = run_league(_specs(args.league), args.games, players=args.players, **common)
            table, draw = format_league(summary), plot_league
        else:
            from agents.tournament import run_tournament

            specs = _specs(DEFAULT_SEATS if args.seats is None else args.seats)
            summary = run_tournament(specs, args.games, control=args.control, **common)
            table, draw = format_table(summary), plot
    except ValueError as e:
        print(f"evaluate.py: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        if args.replays is None:
            raise
        print(f"evaluate.py: error: cannot write a replay in {args.replays!r}: {e.strerror or e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as e:
        done = getattr(e, "games_done", None)
        kept = f" but the replays of finished games in {args.replays}" if args.replays is not None else ""
        print(f"\nevaluate.py: interrupted{f' after {done} finished games' if done is not None else ''}; nothing written{kept}",
              file=sys.stderr)  # fmt: skip
        return 130
    print(table)
    for note in _notes(summary, args.rules):
        print(note)
    rc = 0
    out.update(free_names(defaults))  # again: another run may have written the name chosen before the games
    writers = (("--json", lambda path: write_json(path, summary)), ("--chart", lambda path: draw(summary, path)))
    for flag, write in writers:
        path = out[flag]
        if not path:
            continue
        replaced = os.path.isfile(path)
        try:
            write(path)
        except OSError as e:
            print(f"evaluate.py: error: cannot write {flag} {path!r}: {e.strerror or e}", file=sys.stderr)
            rc = 1
            continue
        print(_wrote(path, defaults.get(flag), replaced, flag))
    lost = summary.get("replay_errors")
    if lost:  # those games still count: the table and the JSON above hold them
        more = f"; and {len(lost) - 3} more" if len(lost) > 3 else ""
        print(f"evaluate.py: error: {len(lost)} replay file{'s' if len(lost) != 1 else ''} not written in "
              f"{args.replays!r}: {'; '.join(lost[:3])}{more}", file=sys.stderr)  # fmt: skip
        rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
