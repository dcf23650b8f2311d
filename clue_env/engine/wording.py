"""Public wording: how cards, rooms, dice and results read, in the ruleset's display names.

Used by the events' :meth:`~clue_env.engine.events.Event.wording` and by the renderer. Names
come from ``game.cfg.display`` (R1: "Mrs. White" classic, "Chef White" under ``edition2023``)
and seats read ``player_0 (Miss Scarlet)`` (``game.seat_name``). Only what is given is worded:
callers pass public facts (R31).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from .cards import CARDS, N_ROOMS, ROOM_BASE, ROOMS, WEAPON_BASE

if TYPE_CHECKING:
    from .board import Board
    from .config import RulesConfig


class GameFacts(Protocol):
    """What the wording (and an event's :meth:`~clue_env.engine.events.Event.wording`) reads of a
    game: a :class:`clue_env.engine.game.Game` is one. A protocol, so that this module and the events
    need not import the game module that imports them."""

    @property
    def cfg(self) -> RulesConfig: ...

    @property
    def board(self) -> Board: ...

    @property
    def winner(self) -> int: ...

    @property
    def over_reason(self) -> str: ...

    def seat_name(self, seat: int) -> str: ...


#: how a game ended, as a reader would say it (``game.over_reason``)
OVER_REASONS = {
    "accusation": "correct accusation",
    "last_player_standing": "last player standing",
    "all_eliminated": "every player accused wrongly: the murderer escapes",
    "max_turns": "turn limit reached",
}


def card_name(game: GameFacts, card: int, article: bool = True) -> str:
    """Display name of card ``card`` (flat index); with ``article``, "the Rope", "the Kitchen card"."""
    name = game.cfg.display(CARDS[card])
    if not article or card < WEAPON_BASE:
        return name
    return f"the {name} card" if card >= ROOM_BASE else f"the {name}"


def room_name(game: GameFacts, room: int) -> str:
    return game.cfg.display(ROOMS[room])


def nearest_room(board: Board, node: int) -> tuple[int, int]:
    """The room nearest hallway square ``node`` (a tie: the first in card order) and how many
    squares away it is."""
    dist = board.dist_to_room[node]
    room = min(range(N_ROOMS), key=lambda r: (dist[r], r))
    return room, dist[room]


def corridor_text(board: Board, node: int, room: Callable[[int], str]) -> str:
    """Where a token on hallway square ``node`` stands, as a reader finds it:
    ``along the corridor, 3 squares from the Dining Room`` ("corridor": never confused with the
    Hall; ``room``: a room's display name)."""
    near, d = nearest_room(board, node)
    steps = "1 square" if d == 1 else f"{d} squares"
    return f"along the corridor, {steps} from the {room(near)}"


def is_glass(game: GameFacts, face: int) -> bool:
    """Whether a die face shows the magnifying glass (R23: face 1 under the 2023 rules)."""
    return bool(game.cfg.magnifying_glass) and face == 1


def faces_text(game: GameFacts, dice: tuple[int, ...]) -> str:
    """``[glass, 5] = 6``; one plain die: ``4``."""
    if len(dice) == 1 and not is_glass(game, dice[0]):
        return str(dice[0])
    faces = ["glass" if is_glass(game, f) else str(f) for f in dice]
    return f"[{', '.join(faces)}] = {sum(dice)}"


def result_text(game: GameFacts, winner: int | None = None, reason: str | None = None) -> str:
    """``player_0 (Miss Scarlet) wins (correct accusation)`` or ``nobody wins (...)``."""
    winner = game.winner if winner is None else winner
    reason = game.over_reason if reason is None else reason
    who = f"{game.seat_name(winner)} wins" if winner >= 0 else "nobody wins"
    why = OVER_REASONS.get(reason, reason)
    return f"{who} ({why})" if why else who


def clue_effect_text(game: GameFacts, effect: str, card: int) -> str:
    if effect == "reveal" and card >= 0:
        return f"the holder of {card_name(game, card)} must reveal it"
    return effect if card < 0 else f"{effect} {card_name(game, card, article=False)}"


def reveal_text(game: GameFacts, card: int, holder: int) -> str:
    if holder >= 0:
        return f"{game.seat_name(holder)} reveals {card_name(game, card)} to everyone"
    return f"nobody holds {card_name(game, card)}"


__all__ = [
    "OVER_REASONS",
    "GameFacts",
    "card_name",
    "clue_effect_text",
    "faces_text",
    "corridor_text",
    "is_glass",
    "nearest_room",
    "result_text",
    "reveal_text",
    "room_name",
]
