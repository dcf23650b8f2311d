"""Public wording: how cards, rooms, dice and results read, in the ruleset's display names.

Used by the events' :meth:`~clue_env.engine.events.Event.wording` and by the renderer. Names
come from ``game.cfg.display`` (R1: "Mrs. White" classic, "Chef White" under ``edition2023``)
and seats read ``player_0 (Miss Scarlet)`` (``game.seat_name``). Only what is given is worded:
callers pass public facts (R31).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import CARDS, ROOM_BASE, ROOMS, WEAPON_BASE

if TYPE_CHECKING:
    from .game import Game

#: how a game ended, as a reader would say it (``game.over_reason``)
OVER_REASONS = {
    "accusation": "correct accusation",
    "last_player_standing": "last player standing",
    "all_eliminated": "every player accused wrongly: the murderer escapes",
    "max_turns": "turn limit reached",
}


def card_name(game: Game, card: int, article: bool = True) -> str:
    """Display name of card ``card`` (flat index); with ``article``, "the Rope", "the Kitchen card"."""
    name = game.cfg.display(CARDS[card])
    if not article or card < WEAPON_BASE:
        return name
    return f"the {name} card" if card >= ROOM_BASE else f"the {name}"


def room_name(game: Game, room: int) -> str:
    return game.cfg.display(ROOMS[room])


def is_glass(game: Game, face: int) -> bool:
    """Whether a die face shows the magnifying glass (R23: face 1 under the 2023 rules)."""
    return bool(game.cfg.magnifying_glass) and face == 1


def faces_text(game: Game, dice: tuple[int, ...]) -> str:
    """``[glass, 5] = 6``; one plain die: ``4``."""
    if len(dice) == 1 and not is_glass(game, dice[0]):
        return str(dice[0])
    faces = ["glass" if is_glass(game, f) else str(f) for f in dice]
    return f"[{', '.join(faces)}] = {sum(dice)}"


def result_text(game: Game, winner: int | None = None, reason: str | None = None) -> str:
    """``player_0 (Miss Scarlet) wins (correct accusation)`` or ``nobody wins (...)``."""
    winner = game.winner if winner is None else winner
    reason = game.over_reason if reason is None else reason
    who = f"{game.seat_name(winner)} wins" if winner >= 0 else "nobody wins"
    why = OVER_REASONS.get(reason, reason)
    return f"{who} ({why})" if why else who


def clue_effect_text(game: Game, effect: str, card: int) -> str:
    if effect == "reveal" and card >= 0:
        return f"the holder of {card_name(game, card)} must reveal it"
    return effect if card < 0 else f"{effect} {card_name(game, card, article=False)}"


def reveal_text(game: Game, card: int, holder: int) -> str:
    if holder >= 0:
        return f"{game.seat_name(holder)} reveals {card_name(game, card)} to everyone"
    return f"nobody holds {card_name(game, card)}"


__all__ = [
    "OVER_REASONS",
    "card_name",
    "clue_effect_text",
    "faces_text",
    "is_glass",
    "result_text",
    "reveal_text",
    "room_name",
]
