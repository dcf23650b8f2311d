"""The terminal's compact screen: one decision drawn to fit the terminal (80x24 and up).

Pure functions of text, no game state: :func:`wrap` (at word boundaries), :func:`fit_news` (the
most recent lines that fit, with ``(N earlier: type log)``), :func:`label_board` (the ``ansi``
board with row and column numbers and the reachable squares marked), :func:`beside` (two
columns) and :func:`compose` (a :class:`Panel`: header, news, hand, pending suggestion, choices
and a footer, cut to the rows available). :class:`~clue_env.play.terminal.TerminalUI` fills them
from what the deciding seat may know (R31).
"""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

#: the size assumed when the terminal cannot say
FALLBACK = (80, 24)
#: from this many columns on, the board is drawn beside the panel (when it fits the rows)
WIDE = 140
#: rows kept free below the panel: the prompt line itself and two more (a typed line, an answer)
SLACK = 3
#: the mark of a square the seat can move to after its roll
MARK = "*"
FOOTER = "more: board | notes | log | legal | help"


def terminal_size(fallback: tuple[int, int] = FALLBACK) -> tuple[int, int]:
    """``(columns, rows)`` of the terminal (``shutil.get_terminal_size``; ``fallback`` when unknown),
    at least 40x12."""
    size = shutil.get_terminal_size(fallback)
    return max(40, size.columns), max(12, size.lines)


def wrap(text: str, width: int, indent: str = "", hang: str | None = None) -> list[str]:
    """``text`` broken at word boundaries into lines of at most ``width`` characters (a word
    longer than a line is cut). ``indent`` starts the first line, ``hang`` the others (default:
    ``indent``). An empty text is one empty line."""
    if not text.strip():
        return [""]
    lines = textwrap.wrap(
        text,
        width=max(8, width),
        initial_indent=indent,
        subsequent_indent=indent if hang is None else hang,
        break_on_hyphens=False,
    )
    return lines or [""]


def fit_news(lines: Sequence[str], rows: int, width: int, indent: str = "  ") -> list[str]:
    """The most recent of ``lines``, each wrapped to ``width``, in at most ``rows`` screen lines;
    when some do not fit, the first screen line says how many were left out and that ``log``
    shows them."""
    wrapped = [wrap(text, width, indent, indent + "  ") for text in lines]
    total = sum(len(w) for w in wrapped)
    if total <= rows:
        return [line for w in wrapped for line in w]
    if rows <= 0:
        return []
    room = rows - 1  # one line for the note
    kept: list[list[str]] = []
    for w in reversed(wrapped):
        if len(w) > room:
            break
        kept.append(w)
        room -= len(w)
    kept.reverse()
    left_out = len(lines) - len(kept)
    return [f"{indent}({left_out} earlier: type log)", *(line for w in kept for line in w)]


def label_board(
    text: str,
    rows: int,
    cols: int,
    marks: Iterable[tuple[int, int]] = (),
    width: int | None = None,
) -> list[str]:
    """The ``ansi`` board ``text`` (a header line, then ``rows`` lines that start with the
    ``cols`` squares of a board row, then status lines) with the row number before each row,
    the column numbers above (tens, then units) and each square in ``marks`` drawn as
    :data:`MARK`. The text beside the rows stays beside them when the lines fit ``width``; else
    it follows the board."""
    src = text.split("\n")
    head, body, rest = src[0], src[1 : rows + 1], src[rows + 1 :]
    marked = set(marks)
    grid: list[str] = []
    side: list[str] = []
    for r, line in enumerate(body):
        squares = list(line[:cols])
        for c in range(len(squares)):
            if (r, c) in marked:
                squares[c] = MARK
        grid.append(f"{r:>2} " + "".join(squares))
        side.append(line[cols:])
    tens = "   " + "".join(str(c // 10) if c % 10 == 0 else " " for c in range(cols))
    units = "   " + "".join(str(c % 10) for c in range(cols))
    widest = max((len(g) + len(s) for g, s in zip(grid, side)), default=0)
    if width is None or widest <= width:
        rows_out = [(g + s).rstrip() for g, s in zip(grid, side)]
    else:
        rows_out = grid + [s.strip() for s in side if s.strip()]
    return [head, tens.rstrip(), units, *rows_out, *rest]


def beside(left: Sequence[str], right: Sequence[str], width: int, gap: int = 2) -> list[str]:
    """``left`` and ``right`` as two columns in ``width`` characters: ``right`` starts at the top,
    ``left`` ends at the bottom (so its last lines, the hand and the choices, stay next to the
    prompt)."""
    right_width = max((len(line) for line in right), default=0)
    left_width = max(8, width - right_width - gap)
    height = max(len(left), len(right))
    pad_left = [""] * (height - len(left)) + list(left)
    pad_right = list(right) + [""] * (height - len(right))
    return [(a[:left_width].ljust(left_width) + " " * gap + b).rstrip() for a, b in zip(pad_left, pad_right)]


@dataclass(frozen=True)
class Panel:
    """What one decision shows, as text: ``header`` (who, turn, where, dice), ``news`` (what
    happened since the seat last looked, one event a line), ``hand`` (``your hand: ...``),
    ``pending`` (the suggestion to refute, or ``None``), ``choices`` (a title, then one line a
    choice), ``notes`` (extra lines above the choices, such as the board's legend)."""

    header: str
    hand: str
    news: tuple[str, ...] = ()
    pending: str | None = None
    choices: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)
    footer: str = FOOTER
    news_title: str = "since you last looked:"


def compose(panel: Panel, width: int, rows: int) -> list[str]:
    """``panel`` in at most ``rows`` lines of at most ``width`` characters (the news gets the rows
    the rest leaves, its oldest lines left out first); the hand, the pending suggestion and the
    choices come last, next to the prompt."""
    top = wrap(panel.header, width)
    bottom: list[str] = []
    for line in panel.notes:
        bottom += wrap(line, width, hang="  ")
    bottom += wrap(panel.hand, width, hang="           ")
    if panel.pending:
        bottom += wrap(panel.pending, width, hang="  ")
    for i, line in enumerate(panel.choices):
        if i == 0:
            bottom += wrap(line, width)
        else:
            lead = len(line) - len(line.lstrip())
            bottom += wrap(line.strip(), width, " " * lead, " " * (lead + 5))
    bottom += wrap(panel.footer, width)
    room = rows - len(top) - len(bottom)
    news: list[str] = []
    if panel.news and room >= 2:
        news = [panel.news_title, *fit_news(panel.news, room - 1, width)]
    return [*top, *news, *bottom][-rows:] if rows > 0 else []


__all__ = [
    "FALLBACK",
    "FOOTER",
    "MARK",
    "SLACK",
    "WIDE",
    "Panel",
    "beside",
    "compose",
    "fit_news",
    "label_board",
    "terminal_size",
    "wrap",
]
