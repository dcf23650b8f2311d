"""The terminal's compact screen: one decision drawn to fit the terminal (80x24 and up).

Pure functions of text, no game state: :func:`terminal_safe` (control characters shown
escaped), :func:`typed_number` (ASCII digits only), :func:`wrap` (at word boundaries),
:func:`fit_news` (the most recent lines that fit, with ``(N earlier: type log)``),
:func:`label_board` (the ``ansi`` board with row and column numbers and the reachable squares
marked), :func:`fold_board` (the same board in half the rows: its north half beside its south
half), :func:`beside` (two columns) and :func:`compose` (a :class:`Panel`: header, news, hand,
pending suggestion, choices and a footer, cut to the rows available).
:class:`~clue_env.play.terminal.TerminalUI` fills them from what the deciding seat
may know (R31).
"""

from __future__ import annotations

import shutil
import textwrap
import unicodedata
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
#: the most digits a typed number keeps (a longer one is out of every range)
MAX_DIGITS = 9
#: the bidirectional-text controls: they reorder what the terminal shows after them
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def terminal_safe(text: str, newlines: bool = False) -> str:
    """``text`` with every control character (C0 such as ESC, BEL and carriage return, DEL, the
    C1 controls), bidirectional control and line or paragraph separator written as its escape
    (``\\x1b``, ``\\u202e``): text that came from a file cannot move the cursor, clear, retitle
    or recolour the terminal, write its clipboard or fake a line. ``newlines``: keep ``\\n`` (a
    text of several lines made here; each of its lines is made safe)."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch == "\n" and newlines:
            out.append(ch)
        elif ch in BIDI_CONTROLS or unicodedata.category(ch) in ("Cc", "Zl", "Zp"):
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def typed_number(text: str) -> int | None:
    """A number typed at a prompt or in a command: ASCII digits only (not ``²`` nor ``٣``),
    whitespace around it ignored; one longer than :data:`MAX_DIGITS` is ``10**MAX_DIGITS``, out of
    every range; ``None`` when it is no number."""
    t = text.strip()
    if not (t.isascii() and t.isdigit()):
        return None
    return int(t) if len(t) <= MAX_DIGITS else 10**MAX_DIGITS


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


def _board_rows(text: str, rows: int, cols: int, marks: Iterable[tuple[int, int]]) -> tuple[str, list[str], list[str], list[str]]:
    """The ``ansi`` board ``text`` split into its header, its ``rows`` numbered board rows (each
    square in ``marks`` drawn as :data:`MARK`), the text beside each row, and the lines after."""
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
    return head, grid, side, rest


def _column_numbers(cols: int) -> tuple[str, str]:
    """The column numbers above a numbered board row: tens, then units."""
    tens = "   " + "".join(str(c // 10) if c % 10 == 0 else " " for c in range(cols))
    units = "   " + "".join(str(c % 10) for c in range(cols))
    return tens.rstrip(), units


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
    head, grid, side, rest = _board_rows(text, rows, cols, marks)
    tens, units = _column_numbers(cols)
    widest = max((len(g) + len(s) for g, s in zip(grid, side)), default=0)
    if width is None or widest <= width:
        rows_out = [(g + s).rstrip() for g, s in zip(grid, side)]
    else:
        rows_out = grid + [s.strip() for s in side if s.strip()]
    return [head, tens, units, *rows_out, *rest]


def fold_width(cols: int, gap: int = 3) -> int:
    """The width of a board of ``cols`` columns folded by :func:`fold_board` (without its key)."""
    return 2 * (3 + cols) + gap


def fold_board(
    text: str,
    rows: int,
    cols: int,
    marks: Iterable[tuple[int, int]] = (),
    key: Sequence[str] = (),
    width: int = FALLBACK[0] - 1,
    gap: int = 3,
) -> list[str]:
    """The ``ansi`` board ``text`` in about half the rows, for a short terminal: the header, then
    the north half of the board (rows ``0..h-1``) beside its south half, every row numbered and
    the columns numbered above both halves (squares in ``marks`` drawn as :data:`MARK`), then
    the lines that follow the board in ``text``, wrapped to ``width``. The text beside the rows
    (the render's legend) is left out; ``key``, a few short lines, stands beside the halves
    when it fits ``width`` (else it is left out too)."""
    head, grid, _side, rest = _board_rows(text, rows, cols, marks)
    tens, units = _column_numbers(cols)
    half = (len(grid) + 1) // 2
    north, south = grid[:half], grid[half:]
    left = [tens, units, *north]
    right = [tens, units, *south]
    column = 3 + cols
    body = [a.ljust(column) + " " * gap + (right[i] if i < len(right) else "") for i, a in enumerate(left)]
    room = width - fold_width(cols, gap) - gap
    if key and len(key) <= len(body) and max(len(k) for k in key) <= room:
        body = [line.ljust(fold_width(cols, gap) + gap) + k if k else line for line, k in zip(body, [*key, *[""] * len(body)])]
    lines = wrap(head, width, hang="  ")
    lines += [line.rstrip() for line in body]
    for line in rest:
        lines += wrap(line, width, hang="  ")
    return lines


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
    "BIDI_CONTROLS",
    "FOOTER",
    "MARK",
    "MAX_DIGITS",
    "SLACK",
    "WIDE",
    "Panel",
    "beside",
    "compose",
    "fit_news",
    "fold_board",
    "fold_width",
    "label_board",
    "terminal_safe",
    "terminal_size",
    "typed_number",
    "wrap",
]
