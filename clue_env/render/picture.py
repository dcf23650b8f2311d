"""The picture (``rgb_array``): rooms, doors, tokens, weapons, face-down cards and a side panel."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..engine.board import Board
from ..engine.cards import CARDS, N_ROOMS, ROOMS, SUSPECTS, WEAPONS
from ..engine.game import Game, Phase
from ..engine.wording import OVER_REASONS, is_glass
from .status import clue_card_lines, public_line, status_lines
from .text import ROOM_LETTERS, TOKEN_CHARS

# ---------------------------------------------------------------------- picture
CELL = 28
_CELL = CELL  # backwards-compatible name
MARGIN = 12
PANEL_WIDTH = 360

_BG = (36, 52, 44)
HALL = (238, 224, 182)
_GRID = (206, 188, 142)
_CENTRE = (72, 72, 72)
_WALL = (58, 40, 28)
_DOOR = (230, 130, 20)
_TEXT = (28, 28, 28)
_PANEL = (246, 242, 232)
_MUTED = (110, 100, 90)
_ROOM_COLORS = [
    (214, 176, 170),  # kitchen
    (178, 178, 222),  # ballroom
    (170, 214, 170),  # conservatory
    (222, 198, 150),  # dining room
    (150, 198, 176),  # billiard room
    (196, 176, 210),  # library
    (222, 164, 164),  # lounge
    (190, 190, 150),  # hall
    (170, 196, 220),  # study
]
TOKEN_COLORS = [(200, 20, 40), (228, 182, 0), (250, 250, 250), (20, 140, 40), (30, 80, 200), (120, 40, 140)]
_TOKEN_TEXT = [(255, 255, 255), (0, 0, 0), (0, 0, 0), (255, 255, 255), (255, 255, 255), (255, 255, 255)]


@lru_cache(maxsize=16)
def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except (TypeError, ValueError, OSError, ImportError):  # no FreeType: the small bitmap font
        return ImageFont.load_default()


def _text(draw, xy: tuple[int, int], text: str, fill, font, anchor: str = "la") -> None:
    """``draw.text`` with an anchor, also for the bitmap fallback font (which has no anchors)."""
    from PIL import ImageFont

    if isinstance(font, ImageFont.FreeTypeFont):
        draw.text(xy, text, fill=fill, font=font, anchor=anchor)
        return
    x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=font)
    x = xy[0] - {"l": x0, "m": (x0 + x1) // 2, "r": x1}[anchor[0]]
    y = xy[1] - {"a": y0, "t": y0, "m": (y0 + y1) // 2, "b": y1, "d": y1}[anchor[1]]
    draw.text((x, y), text, fill=fill, font=font)


def square_box(r: int, c: int, cell: int = CELL) -> tuple[int, int, int, int]:
    """Pixel box ``(x0, y0, x1, y1)`` (inclusive) of board square ``r,c`` in the picture."""
    x0, y0 = MARGIN + c * cell, MARGIN + r * cell
    return x0, y0, x0 + cell - 1, y0 + cell - 1


def square_center(r: int, c: int, cell: int = CELL) -> tuple[int, int]:
    """Pixel ``(x, y)`` of the centre of board square ``r,c`` in the picture."""
    x0, y0, _, _ = square_box(r, c, cell)
    return x0 + cell // 2, y0 + cell // 2


def _room_of_char(ch: str) -> int:
    i = ROOM_LETTERS.find(ch.upper()) if ch.strip() else -1
    return i


def _inner_rect(cells: tuple[tuple[int, int], ...]) -> tuple[int, int, int, int]:
    """The largest rectangle ``(r0, c0, r1, c1)`` of room squares (for placing labels)."""
    have = set(cells)
    rows = sorted({p[0] for p in cells})
    cols = sorted({p[1] for p in cells})
    best, best_key = (rows[0], cols[0], rows[0], cols[0]), (0, 0)
    for r0 in rows:
        for r1 in (r for r in rows if r >= r0):
            for c0 in cols:
                for c1 in (c for c in cols if c >= c0):
                    if all((r, c) in have for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)):
                        key = ((r1 - r0 + 1) * (c1 - c0 + 1), c1 - c0)
                        if key > best_key:
                            best, best_key = (r0, c0, r1, c1), key
    return best


_INNER: dict[int, tuple[tuple[int, int, int, int], ...]] = {}


def _inner_rects(board: Board) -> tuple[tuple[int, int, int, int], ...]:
    key = id(board)
    if key not in _INNER:
        _INNER[key] = tuple(_inner_rect(cells) for cells in board.room_cells)
    return _INNER[key]


def _disc(draw, cx: int, cy: int, diameter: int, suspect: int, highlight: bool = False) -> None:
    rad = diameter // 2
    if highlight:
        draw.ellipse((cx - rad - 3, cy - rad - 3, cx + rad + 3, cy + rad + 3), fill=(255, 140, 0))
    draw.ellipse((cx - rad, cy - rad, cx + rad, cy + rad), fill=TOKEN_COLORS[suspect], outline=(0, 0, 0), width=2)
    font = _font(max(9, diameter * 3 // 5))
    _text(draw, (cx, cy), TOKEN_CHARS[suspect], _TOKEN_TEXT[suspect], font, "mm")


def _chip(draw, x: int, y: int, text: str, font) -> None:
    w = int(draw.textlength(text, font=font)) + 8
    draw.rounded_rectangle((x, y, x + w, y + 15), radius=4, fill=(252, 250, 244), outline=(90, 70, 50))
    _text(draw, (x + 4, y + 8), text, (40, 30, 20), font, "lm")


CARD_BACK = (150, 28, 44)
_CARD_EDGE = (250, 236, 200)


def card_back_box(game: Game, room: int, cell: int = CELL) -> tuple[int, int, int, int]:
    """Pixel box ``(x0, y0, x1, y1)`` of the card-back marker of ``room`` (top right of the room)."""
    r0, c0, r1, c1 = _inner_rects(game.board)[room]
    w, h = max(12, cell * 3 // 5), max(16, cell * 6 // 7)
    x1 = MARGIN + (c1 + 1) * cell - 5
    y0 = MARGIN + r0 * cell + 4
    return x1 - w, y0, x1, y0 + h


def _card_back(draw, box: tuple[int, int, int, int]) -> None:
    """A face-down card: dark red back, light edge, a diamond in the middle."""
    x0, y0, x1, y1 = box
    draw.rounded_rectangle(box, radius=3, fill=CARD_BACK, outline=(40, 10, 10), width=1)
    draw.rounded_rectangle((x0 + 2, y0 + 2, x1 - 2, y1 - 2), radius=2, outline=_CARD_EDGE, width=1)
    cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
    rx, ry = max(2, (x1 - x0) // 4), max(3, (y1 - y0) // 4)
    draw.polygon([(cx, cy - ry), (cx + rx, cy), (cx, cy + ry), (cx - rx, cy)], fill=_CARD_EDGE)


def _die(draw, x: int, y: int, size: int, face: int, glass: bool) -> None:
    """One die at ``x, y``: pips, or a magnifying glass (R23) when ``glass``."""
    draw.rounded_rectangle((x, y, x + size, y + size), radius=max(3, size // 6), fill=(252, 252, 248), outline=(0, 0, 0), width=2)
    if glass:
        rad = size * 9 // 40
        cx, cy = x + size * 2 // 5 + 1, y + size * 2 // 5 + 1
        hx, hy = cx + rad * 7 // 10, cy + rad * 7 // 10
        draw.line((hx, hy, x + size * 5 // 6, y + size * 5 // 6), fill=(90, 55, 20), width=max(3, size // 8))
        draw.ellipse((cx - rad, cy - rad, cx + rad, cy + rad), fill=(190, 225, 250), outline=(20, 20, 20), width=2)
        return
    q = size // 4
    spots = {
        1: [(2, 2)],
        2: [(1, 1), (3, 3)],
        3: [(1, 1), (2, 2), (3, 3)],
        4: [(1, 1), (3, 1), (1, 3), (3, 3)],
        5: [(1, 1), (3, 1), (2, 2), (1, 3), (3, 3)],
        6: [(1, 1), (3, 1), (1, 2), (3, 2), (1, 3), (3, 3)],
    }.get(face)
    if spots is None:  # a die with more faces: the number
        _text(draw, (x + size // 2, y + size // 2), str(face), (0, 0, 0), _font(max(9, size // 2)), "mm")
        return
    pr = max(2, size // 12)
    for i, j in spots:
        draw.ellipse((x + i * q - pr, y + j * q - pr, x + i * q + pr, y + j * q + pr), fill=(0, 0, 0))


def _flow(widths: list[int], width: int, gap: int) -> list[list[int]]:
    """Indices of ``widths`` broken into lines no wider than ``width``."""
    lines: list[list[int]] = []
    cur: list[int] = []
    used = 0
    for i, w in enumerate(widths):
        if cur and used + gap + w > width:
            lines.append(cur)
            cur, used = [], 0
        used += (gap if cur else 0) + w
        cur.append(i)
    if cur:
        lines.append(cur)
    return lines


def render_rgb(game: Game, cell: int = CELL) -> np.ndarray:
    """An ``H x W x 3`` uint8 picture of the board (tokens, weapons, doors) and a public side panel."""
    from PIL import Image, ImageDraw

    board = game.board
    bw, bh = board.cols * cell, board.rows * cell
    img = Image.new("RGB", (bw + 2 * MARGIN + PANEL_WIDTH, bh + 2 * MARGIN), _BG)
    draw = ImageDraw.Draw(img)
    acting_suspect = game.seat_suspect[game.acting] if not game.over else -1

    # squares
    for r, row in enumerate(board.grid):
        for c, ch in enumerate(row):
            box = square_box(r, c, cell)
            if ch in ".123456":
                draw.rectangle(box, fill=HALL, outline=_GRID)
            elif ch == "X":
                draw.rectangle(box, fill=_CENTRE)
            elif _room_of_char(ch) >= 0:
                draw.rectangle(box, fill=_ROOM_COLORS[_room_of_char(ch)])
    # start squares: ringed in the suspect's colour
    for s, node in enumerate(board.start_node):
        x0, y0, x1, y1 = square_box(*board.node_rc[node], cell)
        draw.rectangle((x0 + 2, y0 + 2, x1 - 2, y1 - 2), outline=TOKEN_COLORS[s] if s != 2 else (150, 150, 150), width=3)
    # walls around rooms and the centre, with gaps for doors
    doors = {frozenset(pair) for pair in board.door_cells}
    grid = board.grid

    def region(r: int, c: int) -> str:
        if 0 <= r < board.rows and 0 <= c < board.cols:
            ch = grid[r][c]
            return "X" if ch == "X" else (ROOM_LETTERS[_room_of_char(ch)] if _room_of_char(ch) >= 0 else "")
        return ""

    for r in range(board.rows):
        for c in range(board.cols):
            reg = region(r, c)
            if not reg:
                continue
            x0, y0 = MARGIN + c * cell, MARGIN + r * cell
            x1, y1 = x0 + cell, y0 + cell
            for dr, dc, seg in (
                (-1, 0, (x0, y0, x1, y0)),
                (1, 0, (x0, y1, x1, y1)),
                (0, -1, (x0, y0, x0, y1)),
                (0, 1, (x1, y0, x1, y1)),
            ):
                if region(r + dr, c + dc) == reg:
                    continue
                if frozenset(((r, c), (r + dr, c + dc))) in doors:
                    continue
                draw.line(seg, fill=_WALL, width=3)
    for (rr, rc), (hr, hc) in board.door_cells:
        if rr == hr:  # door in a vertical wall
            x = MARGIN + max(rc, hc) * cell
            y = MARGIN + rr * cell
            draw.rectangle((x - 3, y + 4, x + 3, y + cell - 4), fill=_DOOR, outline=_WALL)
        else:
            y = MARGIN + max(rr, hr) * cell
            x = MARGIN + rc * cell
            draw.rectangle((x + 4, y - 3, x + cell - 4, y + 3), fill=_DOOR, outline=_WALL)
    # centre
    xs = [c for r, row in enumerate(grid) for c, ch in enumerate(row) if ch == "X"]
    ys = [r for r, row in enumerate(grid) for c, ch in enumerate(row) if ch == "X"]
    if xs:
        cx = MARGIN + (min(xs) + max(xs) + 1) * cell // 2
        cy = MARGIN + (min(ys) + max(ys) + 1) * cell // 2
        _text(draw, (cx, cy), "CLUE", (232, 200, 90), _font(cell), "mm")

    # rooms: name, tokens, weapons, secret passage
    inner = _inner_rects(board)
    name_font, chip_font, small = _font(max(10, cell // 2)), _font(max(9, cell * 2 // 5)), _font(max(8, cell * 5 // 14))
    tok = cell - 6
    for room in range(N_ROOMS):
        r0, c0, r1, c1 = inner[room]
        left, top = MARGIN + c0 * cell + 4, MARGIN + r0 * cell + 4
        right = MARGIN + (c1 + 1) * cell - 4
        width = right - left
        mid = (left + right) // 2
        if board.passage[room] >= 0:  # on the room's bottom row, under anything drawn later
            cells = board.room_cells[room]
            last = max(p[0] for p in cells)
            cols = [p[1] for p in cells if p[0] == last]
            px = MARGIN + (min(cols) + max(cols) + 1) * cell // 2
            text = "passage to " + game.cfg.display(ROOMS[board.passage[room]])
            _text(draw, (px, MARGIN + last * cell + cell // 2), text, (70, 45, 30), small, "mm")
        face_down = game.board_cards.get(room)
        if face_down is not None and not game.over:  # R30: a card back, never the card
            bx0, _, _, _ = box = card_back_box(game, room, cell)
            _card_back(draw, box)
            name = game.cfg.display(ROOMS[room])
            half = int(draw.textlength(name, font=name_font)) // 2
            name_mid = max(left + half, min(mid, bx0 - 4 - half))  # left of the card back if it fits
            _text(draw, (name_mid, top + 4), name, _TEXT, name_font, "mt")
        else:
            _text(draw, (mid, top + 4), game.cfg.display(ROOMS[room]), _TEXT, name_font, "mt")
        y = top + cell * 2 // 3 + 6
        toks = [s for s, node in enumerate(game.loc) if node == room]
        for line in _flow([tok] * len(toks), width, 3):
            x = mid - (len(line) * (tok + 3) - 3) // 2
            for i in line:
                _disc(draw, x + tok // 2, y + tok // 2, tok, toks[i], toks[i] == acting_suspect)
                x += tok + 3
            y += tok + 4
        weps = [game.cfg.display(WEAPONS[w]) for w, rm in enumerate(game.weapon_loc) if rm == room]
        widths = [int(draw.textlength(t, font=chip_font)) + 8 for t in weps]
        for line in _flow(widths, width, 4):
            x = mid - (sum(widths[i] for i in line) + 4 * (len(line) - 1)) // 2
            for i in line:
                _chip(draw, x, y, weps[i], chip_font)
                x += widths[i] + 4
            y += 18
        if face_down is not None and game.over:  # the game is over: the card is turned face up
            label = "card: " + game.cfg.display(CARDS[face_down])
            cw = int(draw.textlength(label, font=chip_font)) + 8
            x = mid - cw // 2
            draw.rounded_rectangle((x, y, x + cw, y + 15), radius=4, fill=(255, 246, 214), outline=CARD_BACK, width=2)
            _text(draw, (x + 4, y + 8), label, CARD_BACK, chip_font, "lm")
    # tokens on hallway squares
    for s, node in enumerate(game.loc):
        if node >= N_ROOMS:
            cx, cy = square_center(*board.node_rc[node], cell)
            _disc(draw, cx, cy, tok, s, s == acting_suspect)

    _panel(game, draw, MARGIN + bw + MARGIN, img.height)
    return np.asarray(img, dtype=np.uint8)


_public_line = public_line  # backwards-compatible name


def _wrap(draw, text: str, font, width: int) -> list[str]:
    words, lines, cur = text.split(), [], ""
    for word in words:
        trial = f"{cur} {word}" if cur else word
        if cur and draw.textlength(trial, font=font) > width:
            lines.append(cur)
            cur = "  " + word
        else:
            cur = trial
    if cur:
        lines.append(cur)
    return lines


def _panel(game: Game, draw, x0: int, height: int) -> None:
    """The side panel: ruleset, turn and phase, the dice, the seats, the status and the log."""
    draw.rectangle((x0, 0, x0 + PANEL_WIDTH, height), fill=_PANEL)
    big, font, small = _font(18), _font(14), _font(12)
    acting_suspect = game.seat_suspect[game.acting] if not game.over else -1
    x, w = x0 + 12, PANEL_WIDTH - 24
    y = 10
    draw.text((x, y), f"Clue ({game.cfg.name})", fill=_TEXT, font=big)
    if game.cfg.victim:
        _text(draw, (x0 + PANEL_WIDTH - 12, y + 4), f"victim: {game.cfg.victim}", _MUTED, small, "ra")
    y += 26
    turn = f"Turn {game.turn} / {game.cfg.max_turns}"
    if not game.over:
        turn += f": {game.seat_name(game.current)}"
    draw.text((x, y), turn, fill=_TEXT, font=font)
    y += 20
    draw.text((x, y), f"Phase: {game.phase.name.lower()}", fill=_TEXT, font=font)
    y += 20
    if game.over:
        who = game.seat_name(game.winner) if game.winner >= 0 else "nobody"
        draw.text((x, y), f"Winner: {who}", fill=(150, 30, 30), font=font)
        reason = OVER_REASONS.get(game.over_reason, game.over_reason)
        for part in _wrap(draw, reason, small, w):
            y += 16
            draw.text((x, y + 2), part, fill=(150, 30, 30), font=small)
    else:
        act = f"To act: {game.seat_name(game.acting)}"
        if game.phase == Phase.REFUTE:
            act += " (refutes)"
        draw.text((x, y), act, fill=_TEXT, font=font)
        if game.dice:  # the dice of this turn (R23: face 1 is a magnifying glass under 2023)
            y += 22
            _text(draw, (x, y + 13), "Roll:", _TEXT, font, "lm")
            dx = x + int(draw.textlength("Roll: ", font=font)) + 2
            for face in game.dice:
                _die(draw, dx, y, 26, face, is_glass(game, face))
                dx += 32
            total = f"= {sum(game.dice)}"
            if any(is_glass(game, f) for f in game.dice):
                total += "   (glass = 1: Clue card)" if game.cfg.clue_cards else "   (glass = 1)"
            _text(draw, (dx + 2, y + 13), total, _TEXT, font if len(total) < 8 else small, "lm")
            y += 8
    y += 26
    for s in range(len(SUSPECTS)):
        if game.loc[s] < 0 and game.suspect_seat[s] < 0:
            continue  # not on the board and nobody plays it
        _disc(draw, x + 10, y + 10, 20, s, s == acting_suspect)
        seat = game.suspect_seat[s]
        name = game.cfg.display(SUSPECTS[s])
        if seat >= 0:
            label = f"player_{seat}  {name}  ({len(game.hands[seat])} cards)"
            color = _MUTED if game.eliminated[seat] else _TEXT
            _text(draw, (x + 28, y + 10), label, color, small, "lm")
            tag = "OUT" if game.eliminated[seat] else "WINNER" if game.over and seat == game.winner else ""
            if tag:
                tx = x + 28 + int(draw.textlength(label, font=small)) + 8
                tw = int(draw.textlength(tag, font=small)) + 8
                fill = (150, 30, 30) if tag == "OUT" else (30, 120, 50)
                draw.rounded_rectangle((tx, y + 3, tx + tw, y + 17), radius=3, fill=fill)
                _text(draw, (tx + 4, y + 10), tag, (255, 255, 255), small, "lm")
        else:
            _text(draw, (x + 28, y + 10), f"{name}  (no player)", _MUTED, small, "lm")
        y += 25
    if game.board_cards and not game.over:  # legend of the card backs on the board (R30)
        _card_back(draw, (x + 3, y, x + 17, y + 19))
        n = len(game.board_cards)
        _text(draw, (x + 28, y + 10), f"face-down card ({n} on the board, unseen)", _TEXT, small, "lm")
        y += 25
    y += 4
    clue = clue_card_lines(game)
    for line in clue:  # the Clue card drawn this turn, on a tinted card (R24-R25)
        parts = _wrap(draw, line, small, w - 12)
        draw.rounded_rectangle((x, y, x + w, y + 16 * len(parts) + 8), radius=5, fill=(255, 240, 200), outline=(190, 130, 30))
        for i, part in enumerate(parts):
            draw.text((x + 6, y + 4 + 16 * i), part, fill=(110, 60, 0), font=small)
        y += 16 * len(parts) + 14
    for line in status_lines(game)[len(clue) :]:
        for part in _wrap(draw, line, small, w):
            draw.text((x, y), part, fill=(20, 60, 120), font=small)
            y += 16
    y += 6
    draw.line((x, y, x + w, y), fill=_MUTED, width=1)
    y += 6
    draw.text((x, y), "Public log", fill=_TEXT, font=font)
    y += 20
    # newest last; as many as fit
    rows: list[str] = []
    for ev in reversed(game.log):
        wrapped = _wrap(draw, public_line(game, ev), small, w)
        if (len(rows) + len(wrapped)) * 16 > height - y - 10:
            break
        rows = wrapped + rows
    for part in rows:
        draw.text((x, y), part, fill=_TEXT, font=small)
        y += 16
