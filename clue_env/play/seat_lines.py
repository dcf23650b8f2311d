"""What happened, in short words for one seat: character names instead of ``player_k (Name)``,
``you`` for the seat itself, and the seat's private facts spelled out (``Mrs. White shows you
the Rope card``, ``you show Mr. Green the Miss Scarlet card``, ``you look at the card in the
Hall: the Rope card``). A token on a hallway square is placed by the room nearest to it, as the browser
says it (``Colonel Mustard moves along the corridor, 3 squares from the Dining Room``).

The events given must already be redacted for that seat (its :class:`~clue_env.seat_view.SeatView`
history): a card shown between two other seats is hidden there and never named here (R31).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..engine.cards import N_ROOMS, SUSPECTS
from ..engine.events import HIDDEN, EndTurn, Event, Move, Peek, Show, Turn
from ..engine.game import Game
from ..engine.wording import card_name, corridor_text, room_name

_SEAT = re.compile(r"player_(\d+) \(([^()]+)\)")
#: third person -> second person, for a line that starts with "you"
_VERBS = {
    "is": "are",
    "has": "have",
    "rolls": "roll",
    "moves": "move",
    "enters": "enter",
    "takes": "take",
    "leaves": "leave",
    "stays": "stay",
    "suggests": "suggest",
    "accuses": "accuse",
    "shows": "show",
    "ends": "end",
    "draws": "draw",
    "looks": "look",
    "reveals": "reveal",
}


def _you(text: str) -> str:
    """``you rolls 6`` -> ``you roll 6`` (only the verb right after a leading ``you``)."""
    head, _, rest = text.partition(" ")
    if head != "you":
        return text
    verb, sep, tail = rest.partition(" ")
    return f"you {_VERBS.get(verb, verb)}{sep}{tail}"


def short_line(game: Game, seat: int, ev: Event) -> str:
    """One event as ``seat`` reads it, in short words (see the module docstring)."""
    d = game.cfg.display

    def name(s: int) -> str:
        return "you" if s == seat else d(SUSPECTS[game.seat_suspect[s]])

    if isinstance(ev, Show) and ev.card != HIDDEN and seat in (ev.refuter, ev.suggester):
        card = a_card(game, ev.card)
        if seat == ev.suggester:
            return f"{name(ev.refuter)} shows you {card}"
        return f"you show {name(ev.suggester)} {card}"
    if isinstance(ev, Peek) and ev.card != HIDDEN and ev.seat == seat:
        return f"you look at the card in the {room_name(game, ev.room)}: {a_card(game, ev.card)}"
    if isinstance(ev, Move) and ev.node >= N_ROOMS:
        where = corridor_text(game.board, ev.node, lambda r: room_name(game, r))
        who = "you" if ev.suspect == game.seat_suspect[seat] else d(SUSPECTS[ev.suspect])
        return _you(f"{who} moves {where}")
    text = ev.wording(game)
    if isinstance(ev, Move) and ev.suspect == game.seat_suspect[seat]:
        own = d(SUSPECTS[ev.suspect])
        if text.startswith(own + " "):
            text = "you" + text[len(own) :]
    text = _SEAT.sub(lambda m: name(int(m[1])), text)
    return _you(text)


def a_card(game: Game, card: int) -> str:
    """A card as the object of a sentence, the same for every kind, as the browser writes it:
    "the Rope card", "the Kitchen card", "the Miss Scarlet card" (a suspect as a card never
    reads as a person: "you show Mr. Green the Miss Scarlet card")."""
    return f"the {card_name(game, card, article=False)} card"


def short_lines(game: Game, seat: int, events: Sequence[Event], *, turns: bool = False) -> list[str]:
    """``events`` (redacted for ``seat``) in short words; ``turns``: keep the ``turn N: ...`` and
    ``... ends the turn`` lines (the whole log), else leave them out (the news since last time)."""
    out: list[str] = []
    for ev in events:
        if not turns and isinstance(ev, (Turn, EndTurn)):
            continue
        out.append(short_line(game, seat, ev))
    return out


__all__ = ["a_card", "short_line", "short_lines"]
