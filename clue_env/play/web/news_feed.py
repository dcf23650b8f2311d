"""What happened, worded for one seat of a web game: its news since it last played, its log, and
every piece's last move (``news``, ``log`` and ``last_moves`` of the seat's view).

Built from that seat's :class:`~clue_env.seat_view.SeatView` only (its redacted events, R31), the
ruleset (display names) and the board (static, public). A private fact appears only where the
seat's own events hold it: the card shown to it or by it (R27), the card it looked at (R30).
Everyone else's events read as the public record does ("Mrs. White showed a card to Mr. Green").

Names are the characters' display names ("Mrs. White", "Chef White"), and "you" for the seat
itself; never ``player_k``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

from ...engine.board import OFF_BOARD, Board
from ...engine.cards import CARDS, N_ROOMS, ROOMS, SUSPECTS, WEAPONS
from ...engine.config import RulesConfig
from ...engine.events import (
    HIDDEN,
    Accuse,
    ClueCard,
    EndTurn,
    Event,
    Forfeit,
    GameOver,
    Move,
    NoRefute,
    Pass,
    Peek,
    Reveal,
    Roll,
    Show,
    Stay,
    Suggest,
    Turn,
    WeaponMoved,
    player,
)
from ...engine.wording import OVER_REASONS, corridor_text, nearest_room
from ...seat_view import SeatView


class Namer:
    """Names as the seat reads them: characters' display names, "you" for the seat itself."""

    def __init__(self, view: SeatView, cfg: RulesConfig) -> None:
        self.me = view.seat
        self.cfg = cfg
        self.characters = view.characters

    def seat(self, seat: int, capital: bool = False) -> str:
        if seat == self.me:
            return "You" if capital else "you"
        if not 0 <= seat < len(self.characters):
            return "nobody"
        return self.cfg.display(SUSPECTS[self.characters[seat]])

    def suspect(self, suspect: int, capital: bool = False) -> str:
        """A token by its character ("you" when it is the seat's own)."""
        if 0 <= self.me < len(self.characters) and self.characters[self.me] == suspect:
            return "You" if capital else "you"
        return self.cfg.display(SUSPECTS[suspect])

    def card(self, card: int, article: bool = True) -> str:
        """A card in a sentence, the same for every kind: "the Rope card", "the Lounge card", "the
        Mr. Green card" (so a suspect as a card never reads as a person: "You showed the Mrs. White
        card to Mrs. White"); without ``article``, the bare name."""
        name = self.cfg.display(CARDS[card])
        return f"the {name} card" if article else name

    def room(self, room: int) -> str:
        return self.cfg.display(ROOMS[room])


def _verb(subject: str, third: str, second: str) -> str:
    return f"{subject} {second if subject in ('you', 'You') else third}"


def _faces(cfg: RulesConfig, dice: Sequence[int]) -> list[str]:
    return ["the magnifying glass" if cfg.magnifying_glass and f == 1 else str(f) for f in dice]


def event_entry(ev: Event, names: Namer, board: Board) -> dict[str, Any] | None:
    """One event as a news entry ``{"type", "text", "private", "card"?, ...}``, worded for the
    seat (``None`` for a turn's start, which heads its group instead)."""
    me = names.me
    who = names.seat
    cfg = names.cfg
    entry: dict[str, Any] = {"type": ev.kind, "private": False}
    if isinstance(ev, Turn):
        return None
    if isinstance(ev, Roll):
        dice = list(ev.dice)
        if dice and (len(dice) > 1 or (cfg.magnifying_glass and dice[0] == 1)):
            what = f"{' and '.join(_faces(cfg, dice))}: {ev.total} squares"
        else:
            what = str(ev.total)
        text = _verb(who(ev.seat, True), "rolls", "roll") + f" {what}"
        entry.update(dice=dice, glass=[bool(cfg.magnifying_glass and f == 1) for f in dice], total=ev.total)
    elif isinstance(ev, Move):
        token = names.suspect(ev.suspect, True)
        entry.update(suspect=SUSPECTS[ev.suspect], cause=ev.cause)
        if ev.node == OFF_BOARD:
            text = _verb(token, "leaves", "leave") + " the board"
        elif ev.node >= N_ROOMS:
            # the terminal's words too (engine.wording.corridor_text): "along the corridor, 3 squares from the Hall"
            text = _verb(token, "moves", "move") + " " + corridor_text(board, ev.node, names.room)
            entry["near"] = ROOMS[nearest_room(board, ev.node)[0]]
        else:
            room = names.room(ev.node)
            entry["room"] = ROOMS[ev.node]
            if ev.cause == "passage":
                text = _verb(token, "takes", "take") + f" the secret passage to the {room}"
            elif ev.cause == "suggest":
                text = _verb(token, "is", "are") + f" called into the {room} by {who(ev.seat)}"
            elif ev.cause == "eliminated":
                text = _verb(token, "is", "are") + f" moved off the door into the {room}"
            else:
                text = _verb(token, "enters", "enter") + f" the {room}"
    elif isinstance(ev, Forfeit):
        text = _verb(who(ev.seat, True), "has", "have") + " no legal move"
    elif isinstance(ev, Stay):
        text = _verb(who(ev.seat, True), "stays", "stay") + " in the room to suggest"
    elif isinstance(ev, WeaponMoved):
        text = f"The {cfg.display(WEAPONS[ev.weapon])} is moved to the {names.room(ev.room)}"
        entry.update(weapon=WEAPONS[ev.weapon], room=ROOMS[ev.room])
    elif isinstance(ev, Suggest):
        text = _verb(who(ev.seat, True), "suggests", "suggest") + (
            f" {cfg.display(SUSPECTS[ev.suspect])} with the {cfg.display(WEAPONS[ev.weapon])} in the {names.room(ev.room)}"
        )
        entry.update(suspect=SUSPECTS[ev.suspect], weapon=WEAPONS[ev.weapon], room=ROOMS[ev.room])
    elif isinstance(ev, Pass):
        text = f"{who(ev.seat, True)} cannot refute"
    elif isinstance(ev, Show):
        if ev.card != HIDDEN and ev.refuter == me:
            text = f"You showed {names.card(ev.card)} to {who(ev.suggester)}"
            entry.update(private=True, card=CARDS[ev.card])
        elif ev.card != HIDDEN and ev.suggester == me:
            text = f"{who(ev.refuter, True)} showed you {names.card(ev.card)}"
            entry.update(private=True, card=CARDS[ev.card])
        else:
            text = f"{who(ev.refuter, True)} showed a card to {who(ev.suggester)}"
        entry.update(by=player(ev.refuter), to=player(ev.suggester))
    elif isinstance(ev, NoRefute):
        text = "Nobody can refute " + ("your suggestion" if ev.suggester == me else f"{who(ev.suggester)}'s suggestion")
    elif isinstance(ev, Accuse):
        subject = who(ev.seat, True)
        claim = f" {cfg.display(SUSPECTS[ev.suspect])} with the {cfg.display(WEAPONS[ev.weapon])} in the {names.room(ev.room)}"
        if ev.correct:
            verdict = ": correct"
        elif ev.seat == me:
            verdict = ": wrong. You are out of the game (you still show cards when asked)"
        else:
            verdict = f": wrong. {subject} is out of the game"
        text = _verb(subject, "accuses", "accuse") + claim + verdict
        entry.update(
            suspect=SUSPECTS[ev.suspect],
            weapon=WEAPONS[ev.weapon],
            room=ROOMS[ev.room],
            correct=bool(ev.correct),
            by=player(ev.seat),
        )
    elif isinstance(ev, EndTurn):
        text = _verb(who(ev.seat, True), "ends", "end") + (" your turn" if ev.seat == me else " the turn")
    elif isinstance(ev, ClueCard):
        if ev.effect == "reveal" and ev.card >= 0:
            effect = f"the holder of {names.card(ev.card)} must reveal it"
        else:
            effect = ev.effect if ev.card < 0 else f"{ev.effect} {names.card(ev.card, article=False)}"
        text = _verb(who(ev.seat, True), "draws", "draw") + f" a Clue card: {effect}"
        entry.update(effect=ev.effect, card=CARDS[ev.card] if ev.card >= 0 else None)
    elif isinstance(ev, Reveal):
        if ev.holder >= 0:
            text = _verb(who(ev.holder, True), "reveals", "reveal") + f" {names.card(ev.card)} to everyone"
        else:
            text = f"Nobody holds {names.card(ev.card)}"
        entry.update(card=CARDS[ev.card], holder=player(ev.holder))
    elif isinstance(ev, Peek):
        where = f"the card in the {names.room(ev.room)}"
        if ev.seat == me and ev.card != HIDDEN:
            text = f"You look at {where}: {names.card(ev.card)}"
            entry.update(private=True, card=CARDS[ev.card])
        else:
            text = _verb(who(ev.seat, True), "looks", "look") + f" at {where}"
        entry["room"] = ROOMS[ev.room]
    elif isinstance(ev, GameOver):
        text = "Game over: " + over_words(ev.winner, ev.reason, names)
        entry.update(winner=player(ev.winner), reason=ev.reason)
    else:  # an event type added later: its name only (no content, so nothing private)
        text = type(ev).__name__
    entry["text"] = text
    return entry


#: how a winner won, after "X wins"
WIN_HOW = {"accusation": "with a correct accusation", "last_player_standing": "as the last player standing"}
#: why nobody won, after "nobody wins; "
NOBODY_WHY = {
    "all_eliminated": "every player accused wrongly and the murderer escapes",
    "max_turns": "the turn limit was reached",
}


def over_words(winner: int, reason: str, names: Namer) -> str:
    """The end of a game as a sentence naming the character: "Mrs. White wins with a correct
    accusation", "you win as the last player standing", "nobody wins; the turn limit was reached"."""
    if winner >= 0:
        how = WIN_HOW.get(reason, "")
        return _verb(names.seat(winner), "wins", "win") + (f" {how}" if how else "")
    why = NOBODY_WHY.get(reason) or OVER_REASONS.get(reason, reason)
    return f"nobody wins; {why}" if why else "nobody wins"


def seat_words(view: SeatView, cfg: RulesConfig, board: Board, events: Sequence[Event]) -> list[str]:
    """``events`` of the seat's history worded for it, one line each (a turn's start reads
    "Turn 8: Mrs. White" / "Turn 9: your turn")."""
    names = Namer(view, cfg)
    out = []
    for ev in events:
        if isinstance(ev, Turn):
            out.append(f"Turn {ev.turn}: " + ("your turn" if ev.seat == view.seat else names.seat(ev.seat)))
            continue
        entry = event_entry(ev, names, board)
        out.append(entry["text"] if entry else "")
    return out


def news_start(view: SeatView) -> int:
    """Where the seat's news begins (an index into its events): after its last turn ended; for a
    seat out of the game, at the start of the turn it accused in; at most the last
    ``num_players + 1`` turns back."""
    me = view.seat
    start = 0
    turns: list[int] = []  # indices of Turn events
    accused_turn = -1
    for i, ev in enumerate(view.events):
        if isinstance(ev, Turn):
            turns.append(i)
        elif isinstance(ev, EndTurn) and ev.seat == me:
            start = i + 1
        elif isinstance(ev, Accuse) and ev.seat == me and not ev.correct:
            accused_turn = turns[-1] if turns else 0
    if view.eliminated[me] and accused_turn >= 0:
        start = accused_turn
    cap = turns[-(view.num_players + 1)] if len(turns) > view.num_players else 0
    return max(start, cap)


def news(view: SeatView, cfg: RulesConfig, board: Board) -> dict[str, Any]:
    """The seat's news: ``{"from": index, "turns": [{"turn", "seat", "name", "you", "entries"}]}``,
    entries oldest first, grouped by the turn they happened in."""
    names = Namer(view, cfg)
    start = news_start(view)
    groups: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    turn: int | None = None
    mover = view.current
    for ev in view.events[:start]:  # the turn the window starts in
        if isinstance(ev, Turn):
            turn, mover = ev.turn, ev.seat
    for ev in view.events[start:]:
        if isinstance(ev, Turn):
            turn, mover, current = ev.turn, ev.seat, None
        entry = event_entry(ev, names, board)
        if entry is None:
            if current is None:
                current = _group(groups, names, turn, mover)
            continue
        if current is None:
            current = _group(groups, names, turn, mover)
        current["entries"].append(entry)
    return {"from": start, "turns": groups}


def _group(groups: list[dict[str, Any]], names: Namer, turn: int | None, seat: int) -> dict[str, Any]:
    g: dict[str, Any] = {
        "turn": turn,
        "seat": player(seat),
        "name": names.seat(seat, True),
        "you": seat == names.me,
        "entries": [],
    }
    groups.append(g)
    return g


def _centre(board: Board, node: int) -> list[int]:
    r, c = board.node_rc[node]
    return [r, c]


def route(board: Board, a: int, b: int) -> list[list[int]]:
    """A shortest way along the hallway from node ``a`` to node ``b`` as ``[row, col]`` squares
    (rooms: their centre square), ignoring the other tokens. The engine records where a token
    went, not the squares it walked: this is one of the shortest ways there."""
    if a == OFF_BOARD or b == OFF_BOARD:
        return []
    if a == b:
        return [_centre(board, a)]
    starts = list(board.room_doors[a]) if a < N_ROOMS else [a]
    goals = set(board.room_doors[b]) if b < N_ROOMS else {b}
    prev: dict[int, int] = {}
    seen = set(starts)
    queue = deque(starts)
    end = -1
    while queue:
        n = queue.popleft()
        if n in goals:
            end = n
            break
        for nb in board.square_nbrs[n]:
            if nb not in seen and nb >= N_ROOMS:
                seen.add(nb)
                prev[nb] = n
                queue.append(nb)
    if end < 0:
        return [_centre(board, a), _centre(board, b)]
    path = [end]
    while path[-1] in prev:
        path.append(prev[path[-1]])
    path.reverse()
    out = [_centre(board, n) for n in path]
    if a < N_ROOMS:
        out.insert(0, _centre(board, a))
    if b < N_ROOMS:
        out.append(_centre(board, b))
    return out


def _where(board: Board, node: int) -> str | list[int] | None:
    if node == OFF_BOARD:
        return None
    return ROOMS[node] if node < N_ROOMS else _centre(board, node)


def last_moves(view: SeatView, board: Board, start_tokens: Sequence[int], start_weapons: Sequence[int]) -> dict[str, Any]:
    """Every token's and weapon's last move from the public record: ``{"tokens": {suspect:
    {"from", "to", "cause", "seat", "turn", "route"}}, "weapons": {weapon: {"from", "to",
    "seat", "turn"}}}`` (only those that have moved). ``start_*``: where the pieces began (public)."""
    loc = list(start_tokens)
    wloc = list(start_weapons)
    turn = 0
    tokens: dict[str, Any] = {}
    weapons: dict[str, Any] = {}
    for ev in view.events:
        if isinstance(ev, Turn):
            turn = ev.turn
        elif isinstance(ev, Move):
            a, b = loc[ev.suspect], ev.node
            if ev.cause == "move":
                way = route(board, a, b)
            else:  # a passage, a suggestion: straight from one room (or square) to the other
                way = [_centre(board, p) for p in (a, b) if p != OFF_BOARD]
            tokens[SUSPECTS[ev.suspect]] = {
                "from": _where(board, a),
                "to": _where(board, b),
                "cause": ev.cause,
                "seat": player(ev.seat),
                "turn": turn,
                "route": way,
            }
            loc[ev.suspect] = b
        elif isinstance(ev, WeaponMoved):
            weapons[WEAPONS[ev.weapon]] = {
                "from": ROOMS[wloc[ev.weapon]],
                "to": ROOMS[ev.room],
                "seat": player(ev.seat),
                "turn": turn,
            }
            wloc[ev.weapon] = ev.room
    return {"tokens": tokens, "weapons": weapons}


__all__ = ["Namer", "event_entry", "last_moves", "news", "news_start", "over_words", "route", "seat_words"]
