"""The text board (``ansi`` / ``human``): the board as characters, the seats, the rooms' contents,
the status and the last public log lines."""

from __future__ import annotations

from ..engine.cards import CARDS, N_ROOMS, ROOMS, SUSPECTS, WEAPONS
from ..engine.game import Game, Phase
from ..engine.wording import OVER_REASONS
from .status import dice_text, public_line, status_lines

#: one character per suspect token on the text board (suspects in card order)
TOKEN_CHARS = "123456"
ROOM_LETTERS = "KBCDRLOHS"
_LOG_LINES = 8


# ---------------------------------------------------------------------- text
def _seat_label(game: Game, suspect: int) -> str:
    seat = game.suspect_seat[suspect]
    if seat < 0:
        return "(no player)"
    label = f"player_{seat}  {len(game.hands[seat])} cards"
    if game.eliminated[seat]:
        label += "  OUT"
    if game.over and seat == game.winner:
        label += "  WINNER"
    if not game.over and seat == game.acting:
        label += "  <- to act"
    elif not game.over and seat == game.current:
        label += "  <- turn"
    return label


def render_text(game: Game, log_lines: int = _LOG_LINES) -> str:
    """The board with tokens (digits 1-6 = suspects in card order), room contents and the log.

    The first line is the header; the next ``board.rows`` lines start with the board row
    (``board.cols`` characters), so square ``r,c`` is character ``c`` of line ``r + 1``.
    """
    board = game.board
    d = game.cfg.display
    grid = [list(row.replace("X", "#").replace(" ", "#")) for row in board.grid]
    for r, row in enumerate(grid):
        for c, ch in enumerate(row):
            if ch in TOKEN_CHARS:
                grid[r][c] = "."
    for s, node in enumerate(game.loc):
        if node >= N_ROOMS:
            r, c = board.node_rc[node]
            grid[r][c] = TOKEN_CHARS[s]
    lines = ["".join(row) for row in grid]

    width = max(len(d(s)) for s in SUSPECTS)
    side = [f"{TOKEN_CHARS[s]} {d(SUSPECTS[s]):<{width}} {_seat_label(game, s)}" for s in range(len(SUSPECTS))]
    if game.cfg.victim:
        side.append(f"  victim: {game.cfg.victim}")
    side.append("")
    side.append("rooms (lowercase letter = door):")
    for r in range(N_ROOMS):
        toks = [TOKEN_CHARS[s] for s, node in enumerate(game.loc) if node == r]
        weps = [WEAPONS[w] for w, room in enumerate(game.weapon_loc) if room == r]
        text = f"{ROOM_LETTERS[r]} {ROOMS[r]:<13}"
        if toks:
            text += " " + " ".join(toks)
        if weps:
            text += " | " + " ".join(weps)
        if r in game.board_cards:  # R30: which room holds a card is public, the card is not
            text += f"  [face-down card: {d(CARDS[game.board_cards[r]])}]" if game.over else "  [face-down card]"
        side.append(text.rstrip())
    passages = sorted({tuple(sorted((r, p))) for r, p in enumerate(board.passage) if p >= 0})
    if passages:
        side.append("passages: " + ", ".join(f"{ROOMS[a]}<->{ROOMS[b]}" for a, b in passages))
    for i, text in enumerate(side[: len(lines)]):
        lines[i] += "   " + text

    head = f"Clue ({game.cfg.name})  turn {game.turn}/{game.cfg.max_turns}  phase {game.phase.name}"
    if game.over:
        head += "  winner: " + (game.seat_name(game.winner) if game.winner >= 0 else "nobody")
        reason = OVER_REASONS.get(game.over_reason, game.over_reason)
        if reason:
            head += f" ({reason})"
    else:
        head += f"  to act: {game.seat_name(game.acting)}"
        if game.phase == Phase.REFUTE:
            head += " (refutes)"
        if game.dice:
            head += "  " + dice_text(game)
    elim = [f"player_{i}" for i in range(game.n) if game.eliminated[i]]
    if elim:
        head += "  eliminated (OUT): " + ", ".join(elim)
    tail = [public_line(game, ev) for ev in game.log[-log_lines:]] if log_lines > 0 else []
    return "\n".join([head, *lines, *status_lines(game), "-- log --", *tail])
