"""The public record of a game (R31) as JSON-serialisable data (SPEC ``public_state()``)."""

from __future__ import annotations

from typing import Any

from .engine.cards import CARDS, ROOMS, SUSPECTS, WEAPONS
from .engine.events import Event, location
from .engine.game import Game

__all__ = ["location", "public_event", "public_state"]


def public_event(game: Game, ev: Event) -> dict[str, Any]:
    """An event as everyone may see it (its :meth:`~clue_env.engine.events.Event.to_json`): the
    card of a ``show`` or a ``peek`` is never included."""
    return ev.to_json(game)


def public_state(game: Game, *, log: bool = True) -> dict[str, Any]:
    """What every seat may know (R31): positions, phase, turn, eliminations and the public log
    (``log=False``: without the ``log`` key, whose length grows with the game)."""
    over = game.over
    state: dict[str, Any] = {
        "num_players": game.n,
        "rules": game.cfg.name,
        "acting": f"player_{game.acting}" if game.acting >= 0 else None,
        "current": f"player_{game.current}",
        "phase": game.phase.name.lower(),
        "turn": game.turn,
        "max_turns": game.cfg.max_turns,
        "roll": game.roll_total or None,
        "dice": list(game.dice),
        "characters": {f"player_{i}": SUSPECTS[s] for i, s in enumerate(game.seat_suspect)},
        "hand_sizes": {f"player_{i}": len(h) for i, h in enumerate(game.hands)},
        "tokens": {SUSPECTS[s]: location(game, node) for s, node in enumerate(game.loc)},
        "weapons": {WEAPONS[w]: ROOMS[r] for w, r in enumerate(game.weapon_loc)},
        "eliminated": [f"player_{i}" for i in range(game.n) if game.eliminated[i]],
        "board_card_rooms": sorted(ROOMS[r] for r in game.board_cards),  # R30: face down, identity private
        "log": [public_event(game, ev) for ev in game.log] if log else None,
        "over": over,
        "winner": f"player_{game.winner}" if game.winner >= 0 else None,
    }
    if not log:
        del state["log"]
    if game.pending is not None:
        sug, s, w, r = game.pending
        state["pending_suggestion"] = {
            "player": f"player_{sug}",
            "suspect": SUSPECTS[s],
            "weapon": WEAPONS[w],
            "room": ROOMS[r],
        }
    if over:  # the envelope is opened at the end of the game
        s, w, r = game.envelope
        state["solution"] = [SUSPECTS[s], WEAPONS[w], ROOMS[r]]
        state["board_cards"] = {ROOMS[r]: CARDS[c] for r, c in sorted(game.board_cards.items())}
        state["reason"] = game.over_reason
    return state
