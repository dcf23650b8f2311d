"""The public record of a game (R31) as JSON-serialisable data (SPEC ``public_state()``)."""

from __future__ import annotations

from typing import Any

from .engine.board import OFF_BOARD
from .engine.cards import CARDS, N_ROOMS, ROOMS, SUSPECTS, WEAPONS
from .engine.game import Event, Game


def location(game: Game, node: int) -> str | list[int] | None:
    """A room id, ``[row, col]``, or ``None`` (off the board)."""
    if node == OFF_BOARD:
        return None
    if node < N_ROOMS:
        return ROOMS[node]
    r, c = game.board.node_rc[node]
    return [r, c]


def public_event(game: Game, ev: Event) -> dict[str, Any]:
    """An event as everyone may see it: the card of a ``show`` is never included."""
    t = ev[0]
    p = lambda seat: f"player_{seat}" if seat >= 0 else None  # noqa: E731
    if t == "turn":
        return {"type": t, "player": p(ev[1]), "turn": ev[2]}
    if t == "roll":
        return {"type": t, "player": p(ev[1]), "total": ev[2], "dice": list(ev[3])}
    if t == "move":
        return {"type": t, "player": p(ev[1]), "suspect": SUSPECTS[ev[2]], "to": location(game, ev[3]), "cause": ev[4]}
    if t in ("forfeit", "stay", "end_turn"):
        return {"type": t, "player": p(ev[1])}
    if t == "weapon":
        return {"type": t, "player": p(ev[1]), "weapon": WEAPONS[ev[2]], "to": ROOMS[ev[3]]}
    if t == "suggest":
        return {
            "type": t,
            "player": p(ev[1]),
            "suspect": SUSPECTS[ev[2]],
            "weapon": WEAPONS[ev[3]],
            "room": ROOMS[ev[4]],
        }
    if t == "pass":
        return {"type": t, "player": p(ev[1]), "suggester": p(ev[2])}
    if t == "show":
        return {"type": t, "player": p(ev[1]), "to": p(ev[2])}
    if t == "no_refute":
        return {"type": t, "suggester": p(ev[1])}
    if t == "accuse":
        return {
            "type": t,
            "player": p(ev[1]),
            "suspect": SUSPECTS[ev[2]],
            "weapon": WEAPONS[ev[3]],
            "room": ROOMS[ev[4]],
            "correct": bool(ev[5]),
        }
    if t == "clue_card":
        return {"type": t, "player": p(ev[1]), "effect": ev[2], "card": CARDS[ev[3]] if ev[3] >= 0 else None}
    if t == "reveal":  # R25: revealed to all
        return {"type": t, "player": p(ev[1]), "card": CARDS[ev[2]], "holder": p(ev[3])}
    if t == "peek":  # R30: which card is private to the player who looked
        return {"type": t, "player": p(ev[1]), "room": ROOMS[ev[2]]}
    if t == "game_over":
        return {"type": t, "winner": p(ev[1]), "reason": ev[2]}
    raise ValueError(f"unknown event type {t!r}")


def public_state(game: Game) -> dict[str, Any]:
    """What every seat may know (R31): positions, phase, turn, eliminations and the public log."""
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
        "log": [public_event(game, ev) for ev in game.log],
        "over": over,
        "winner": f"player_{game.winner}" if game.winner >= 0 else None,
    }
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
