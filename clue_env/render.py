"""Drawing a game: the board as text (``ansi``/``human``) and as a picture (``rgb_array``).

Only public information is drawn (R31): positions, the turn, the public log. Never a hand.
"""

from __future__ import annotations

import numpy as np

from .engine.cards import N_ROOMS, ROOMS, SUSPECTS, WEAPONS
from .engine.game import Game

#: one character per suspect token on the text board
TOKEN_CHARS = "123456"
ROOM_LETTERS = "KBCDRLOHS"
_LOG_LINES = 8


def render_text(game: Game, log_lines: int = _LOG_LINES) -> str:
    """The board with tokens (digits 1-6 = suspects in card order), room contents and the log."""
    board = game.board
    grid = [list(row.replace("X", "#")) for row in board.grid]
    for r, row in enumerate(grid):
        for c, ch in enumerate(row):
            if ch in "123456":
                grid[r][c] = "."
            elif ch.isalpha() and ch.islower():
                grid[r][c] = ch.upper()
    for s, node in enumerate(game.loc):
        if node >= N_ROOMS:
            r, c = board.node_rc[node]
            grid[r][c] = TOKEN_CHARS[s]
    lines = ["".join(row) for row in grid]
    legend = [f"{TOKEN_CHARS[s]} {game.cfg.display(SUSPECTS[s])}" for s in range(len(SUSPECTS))]
    for i, text in enumerate(legend):
        lines[i] += "   " + text
    rooms_in = []
    for r in range(N_ROOMS):
        toks = [TOKEN_CHARS[s] for s, node in enumerate(game.loc) if node == r]
        weps = [WEAPONS[w] for w, room in enumerate(game.weapon_loc) if room == r]
        if toks or weps:
            rooms_in.append(f"{ROOM_LETTERS[r]} {ROOMS[r]}: " + " ".join(toks + weps))
    for i, text in enumerate(rooms_in):
        lines[len(legend) + 1 + i] += "   " + text
    head = f"turn {game.turn}/{game.cfg.max_turns}  phase {game.phase.name}"
    if game.over:
        head += "  winner: " + (game.seat_name(game.winner) if game.winner >= 0 else "nobody")
    else:
        head += f"  to act: {game.seat_name(game.acting)}"
        if game.roll_total:
            head += f"  roll {game.roll_total}"
    elim = [f"player_{i}" for i in range(game.n) if game.eliminated[i]]
    if elim:
        head += "  eliminated: " + ", ".join(elim)
    tail = [game.describe_event(ev, viewer=-1) for ev in game.log[-log_lines:]]
    return "\n".join([head, *lines, "-- log --", *tail])


# ---------------------------------------------------------------------- picture
_CELL = 24
_COLORS = {
    "out": (40, 40, 40),
    "hall": (235, 214, 160),
    "centre": (90, 90, 90),
    "grid": (200, 180, 130),
    "door": (120, 60, 20),
}
_ROOM_COLORS = [
    (200, 170, 170),
    (170, 170, 210),
    (170, 210, 170),
    (210, 190, 150),
    (150, 190, 170),
    (190, 170, 200),
    (210, 160, 160),
    (180, 180, 150),
    (170, 190, 210),
]
_TOKEN_COLORS = [(200, 20, 40), (230, 190, 20), (245, 245, 245), (20, 140, 40), (30, 80, 200), (120, 40, 140)]


def render_rgb(game: Game, cell: int = _CELL) -> np.ndarray:
    """An ``H x W x 3`` uint8 picture of the board with tokens (discs) and weapons (labels)."""
    from PIL import Image, ImageDraw

    board = game.board
    h, w = board.rows * cell, board.cols * cell
    img = Image.new("RGB", (w, h), _COLORS["out"])
    draw = ImageDraw.Draw(img)
    letter_room = {ch: i for i, ch in enumerate(ROOM_LETTERS)}
    for r, row in enumerate(board.grid):
        for c, ch in enumerate(row):
            box = (c * cell, r * cell, (c + 1) * cell - 1, (r + 1) * cell - 1)
            if ch in ".123456":
                draw.rectangle(box, fill=_COLORS["hall"], outline=_COLORS["grid"])
            elif ch == "X":
                draw.rectangle(box, fill=_COLORS["centre"])
            elif ch.upper() in letter_room:
                draw.rectangle(box, fill=_ROOM_COLORS[letter_room[ch.upper()]])
    for (rr, rc), (hr, hc) in board.door_cells:
        x0, y0 = min(rc, hc) * cell, min(rr, hr) * cell
        if rr == hr:  # door on a vertical wall
            x = max(rc, hc) * cell
            draw.rectangle((x - 2, y0 + 4, x + 2, y0 + cell - 4), fill=_COLORS["door"])
        else:
            y = max(rr, hr) * cell
            draw.rectangle((x0 + 4, y - 2, x0 + cell - 4, y + 2), fill=_COLORS["door"])
    for room in range(N_ROOMS):
        cells = board.room_cells[room]
        top = min(p[0] for p in cells)
        left = min(p[1] for p in cells)
        draw.text((left * cell + 3, top * cell + 2), game.cfg.display(ROOMS[room]), fill=(0, 0, 0))
        weps = [WEAPONS[wi] for wi, rm in enumerate(game.weapon_loc) if rm == room]
        for k, name in enumerate(weps):
            draw.text((left * cell + 3, (top + 1 + k) * cell - 8), name, fill=(60, 30, 0))
        toks = [s for s, node in enumerate(game.loc) if node == room]
        for k, s in enumerate(toks):
            cy = (max(p[0] for p in cells)) * cell + cell // 2
            cx = left * cell + cell // 2 + k * cell
            _disc(draw, cx, cy, cell, s)
    for s, node in enumerate(game.loc):
        if node >= N_ROOMS:
            r, c = board.node_rc[node]
            _disc(draw, c * cell + cell // 2, r * cell + cell // 2, cell, s)
    return np.asarray(img, dtype=np.uint8)


def _disc(draw, cx: int, cy: int, cell: int, suspect: int) -> None:
    rad = cell // 2 - 3
    draw.ellipse((cx - rad, cy - rad, cx + rad, cy + rad), fill=_TOKEN_COLORS[suspect], outline=(0, 0, 0))
