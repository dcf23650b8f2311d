"""Presenting tournament results: the tables, the charts, and writing result files
(``evaluate.py --json/--chart``) without harming what is at the path.

The paths a user names (``--json``, ``--chart``) are written by
:func:`clue_env.fileio.write_output`: a regular file, or a path that does not exist yet, is
replaced atomically (temp file in the same directory, then rename), so a reader never sees half a
file. Anything else that already exists (a symlink, ``/dev/stdout``, ``/dev/null``, a FIFO) is
written straight through and left what it is: renaming over it would replace a device node or a
link with a plain file.

The files the program names itself inside a directory the user gave (``--replays DIR``) are
written by :func:`write_new_file`, which never follows or opens what is already at the name: a
symlink or FIFO planted there is replaced, not written through.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
import stat
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


def check_replays_dir(path: str, what: str = "--replays") -> str | None:
    """Why ``path`` cannot take replay files (checked before any game is played), or ``None``:
    it is made when missing (parents too), and a file is created in it and removed, so a directory
    where nothing can be created (read-only, or not for this user) is refused up front."""
    if not path:
        return f"{what} needs a directory"
    if os.path.exists(path) and not os.path.isdir(path):
        return f"{what} {path!r} exists and is not a directory: give a directory for the replay files"
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        return f"{what} {path!r}: cannot make it: {e.strerror or e}"
    try:
        fd, probe = _create_exclusive(path, ".evaluate.probe.")
    except OSError as e:
        return f"{what} {path!r}: cannot create files in it: {e.strerror or e}"
    os.close(fd)
    os.unlink(probe)
    return None


def _create_exclusive(directory: str, prefix: str) -> tuple[int, str]:
    """A new file of a random name ``PREFIX*.tmp`` in ``directory``, opened for writing with
    ``O_CREAT | O_EXCL | O_NOFOLLOW`` (never an existing file, FIFO or link) and the umask's mode."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        path = os.path.join(directory, f"{prefix}{secrets.token_hex(8)}.tmp")
        try:
            return os.open(path, flags, 0o666), path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", directory)


def write_new_file(directory: str, name: str, data: bytes, prefix: str = ".evaluate.") -> None:
    """Write ``data`` as the file ``name`` in ``directory`` without following or opening anything
    already at that name. The bytes go to a fresh temp file (``PREFIX*.tmp`` in ``directory``,
    created exclusively, never through a link), which is then renamed to ``name``: the rename
    replaces a planted symlink or FIFO entry itself, so no file outside ``directory`` is written and
    nothing blocks, and a reader never sees half a file. A directory at ``name`` is refused with
    :class:`IsADirectoryError` ("a directory has that name") and left as it is; on any failure the
    temp file is removed. ``name`` is a bare file name (``ValueError`` otherwise)."""
    if not name or name in (".", "..") or os.sep in name or (os.altsep and os.altsep in name):
        raise ValueError(f"{name!r} is not a file name")
    path = os.path.join(directory, name)
    fd, tmp = _create_exclusive(directory, prefix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            pass
        else:
            if stat.S_ISDIR(st.st_mode):
                raise IsADirectoryError(errno.EISDIR, "a directory has that name", path)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


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
