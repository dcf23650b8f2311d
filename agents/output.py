"""Presenting tournament results: the tables, the charts, and writing result files
(``evaluate.py --json/--chart``) without harming what is at the path.

Files are written by :func:`clue_env.fileio.write_output`: a regular file, or a path that does not
exist yet, is replaced atomically (temp file in the same directory, then rename), so a reader
never sees half a file. Anything else that already exists (a symlink, ``/dev/stdout``,
``/dev/null``, a FIFO) is written straight through and left what it is: renaming over it would
replace a device node or a link with a plain file.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

import numpy as np

from clue_env import fileio

if TYPE_CHECKING:
    from matplotlib.figure import Figure


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
    """Write ``data`` to ``path`` with :func:`clue_env.fileio.write_output`: atomically for a
    regular file or a new one (temp file ``.evaluate.*.tmp`` + rename, the umask's mode),
    straight through for anything else (``/dev/stdout``, a pipe, a symlink's target)."""
    fileio.write_output(path, data, prefix=".evaluate.")


def write_json(path: str, data: object) -> None:
    """``data`` as indented JSON, written by :func:`write_output`."""
    write_output(path, (json.dumps(data, indent=2) + "\n").encode("utf-8"))


def write_figure(fig: Figure, path: str, dpi: int = 110) -> None:
    """Render a matplotlib figure to PNG bytes in memory, close it, and write them with
    :func:`write_output` (never a ``PATH.tmp.png`` beside a special file)."""
    write_output(path, fileio.figure_png(fig, dpi=dpi))


def seating_note(summary: dict[str, Any], block: int) -> str | None:
    """A line for the table when the games end in a partial seating cycle, else ``None``."""
    games, cycle = summary["games"], summary.get("seating_cycle", 1)
    if cycle <= 1 or games % cycle == 0:
        return None
    if games % block == 0:
        return (f"note: {games} games is not a multiple of the {cycle}-game seating cycle: every seat is still shared "
                f"equally, but who sits beside whom is slightly unbalanced (use a multiple of {cycle})")  # fmt: skip
    return (f"note: {games} games is not a multiple of the {cycle}-game seating cycle: the last, partial cycle leaves "
            f"seats and neighbours slightly unbalanced (use a multiple of {cycle}"
            + (f", or at least of {block}, which balances the seats" if block < cycle else "") + ")")  # fmt: skip


def seating_header(summary: dict[str, Any]) -> str:
    cycle, orders = summary.get("seating_cycle", 1), summary.get("circular_orders", 1)
    if cycle <= 1:
        return "the same agent in every seat"
    return f"seats balanced over {orders} circular order{'s' if orders != 1 else ''} ({cycle}-game cycle)"


def _points(x: float) -> str:
    return f"{100 * x:+.1f}"


def format_table(summary: dict[str, Any]) -> str:
    p = summary["num_players"]
    lines = [
        f"{summary['games']} games, {p} players, rules {summary['rules']}, {seating_header(summary)} (fair share {1 / p:.1%})",
        f"{'agent':<28} {'seat-games':>10} {'wins':>6} {'win rate':>9} {'95% CI':>17} {'turns/win':>9} {'wrong acc.':>10}",
    ]
    for spec, row in summary["results"].items():
        lo, hi = row["ci95"]
        mt = row["mean_turns_to_win"]
        lines.append(
            f"{spec:<28} {row['games']:>10} {row['wins']:>6} {row['win_rate']:>9.1%} "
            f"{f'[{lo:.1%}, {hi:.1%}]':>17} {(f'{mt:.1f}' if mt else '-'):>9} {row['wrong_accusations']:>10}"
        )
    c = summary.get("control")
    if c:
        lo, hi = c["ci95"]
        dlo, dhi = c["difference_ci95"]
        lines.append(
            f"control: {c['spec']} in {c['candidate']}'s seats, same deals: {c['win_rate']:.1%} [{lo:.1%}, {hi:.1%}] "
            f"vs {c['candidate_win_rate']:.1%}; difference {_points(c['difference'])} points "
            f"[{_points(dlo)}, {_points(dhi)}] (paired, {c['games']} games)"
        )
    note = seating_note(summary, p)
    if note:
        lines.append(note)
    lines.append(
        f"truncated: {summary['truncated']}  nobody won: {summary['nobody_won']}  mean turns: {summary['mean_turns']:.1f}  "
        f"games/s/core: {summary['games_per_s_per_core']:.1f}  ms/decision: {1000 * summary['seconds_per_decision']:.3f}"
    )
    if summary.get("agent_seed") is not None:
        lines.append(f"seeds: --seed {summary.get('seed')} --agent-seed {summary['agent_seed']} (replays these games exactly)")
    return "\n".join(lines)


def plot(summary: dict[str, Any], path: str) -> None:
    """Win rates with 95% intervals and the fair share, as a PNG (see :func:`agents.output.write_output`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    specs = list(summary["results"])
    fig, ax = plt.subplots(figsize=(7, 0.6 * len(specs) + 1.6))
    win_rate_panel(ax, summary)
    ax.set_title(f"{summary['games']} games, {summary['num_players']} players, {summary['rules']} rules")
    fig.tight_layout()
    write_figure(fig, path)


def win_rate_panel(ax: Any, summary: dict[str, Any], order: list[str] | None = None) -> None:
    """Horizontal bars of the win rates with their Wilson intervals and the fair share."""
    specs = order or list(summary["results"])
    rates = [summary["results"][s]["win_rate"] for s in specs]
    lo = [max(0.0, r - summary["results"][s]["ci95"][0]) for s, r in zip(specs, rates)]
    hi = [max(0.0, summary["results"][s]["ci95"][1] - r) for s, r in zip(specs, rates)]
    y = np.arange(len(specs))
    ax.barh(y, rates, xerr=[lo, hi], color="#4a7fb5", capsize=4)
    ax.axvline(1 / summary["num_players"], color="#c0392b", linestyle="--", label="fair share")
    ax.set_yticks(y, specs)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("win rate (95% Wilson interval)")
    ax.legend(loc="lower right")
