"""The public status lines drawn by both renderers: dice, the log in words, the Clue card drawn
this turn, the pending suggestion, and the result once the game is over (R31: public facts only)."""

from __future__ import annotations

from ..engine.cards import SUSPECTS, WEAPONS
from ..engine.events import ClueCard, Event, Reveal, Turn
from ..engine.game import Game
from ..engine.wording import card_name, clue_effect_text, faces_text, is_glass, result_text, room_name

# ---------------------------------------------------------------------- public wording


def dice_text(game: Game, dice: tuple[int, ...] | None = None) -> str:
    """``dice [glass, 5] = 6`` (a magnifying glass counts one, R23); ``roll 4`` for one plain die."""
    dice = game.dice if dice is None else tuple(dice)
    if not dice:
        return ""
    if len(dice) == 1 and not is_glass(game, dice[0]):
        return f"roll {dice[0]}"
    return f"dice {faces_text(game, dice)}"


def public_line(game: Game, ev: Event) -> str:
    """An event as everyone may read it (R31), with display names: a shown card is never named,
    nor the card a player looks at in a room (R30). (:meth:`~clue_env.engine.events.Event.wording`.)"""
    return ev.wording(game)


def _this_turn(game: Game) -> list[Event]:
    """The events since the last ``turn`` event."""
    log = game.log
    for i in range(len(log) - 1, -1, -1):
        if isinstance(log[i], Turn):
            return log[i + 1 :]
    return list(log)


def clue_card_lines(game: Game) -> list[str]:
    """The Clue card drawn this turn and its public result (R24-R25), e.g. ``Clue card drawn by
    player_0 (Miss Scarlet): the holder of the Rope must reveal it: player_1 (...) reveals it``."""
    out = []
    events = _this_turn(game)
    for i, ev in enumerate(events):
        if not isinstance(ev, ClueCard):
            continue
        text = f"Clue card drawn by {game.seat_name(ev.seat)}: {clue_effect_text(game, ev.effect, ev.card)}"
        nxt = events[i + 1] if i + 1 < len(events) else None
        if isinstance(nxt, Reveal) and nxt.card == ev.card:
            text += f": {game.seat_name(nxt.holder)} reveals it" if nxt.holder >= 0 else ": nobody holds it"
        out.append(text)
    return out


def status_lines(game: Game) -> list[str]:
    """Public status: the Clue card drawn this turn, the pending suggestion, and the result,
    the solution and the face-down cards once the game is over."""
    out = clue_card_lines(game)
    if game.pending is not None:
        sug, s, w, r = game.pending
        out.append(
            f"suggestion by {game.seat_name(sug)}: {game.cfg.display(SUSPECTS[s])}, "
            f"{game.cfg.display(WEAPONS[w])}, {room_name(game, r)}"
        )
    if game.over:
        s, w, r = game.envelope  # public once the game is over (R31)
        out.append(f"game over: {result_text(game)}")
        out.append(f"solution: {game.cfg.display(SUSPECTS[s])}, {game.cfg.display(WEAPONS[w])}, {room_name(game, r)}")
        if game.board_cards:
            cards = ", ".join(
                f"{room_name(game, rm)}: {card_name(game, c, article=False)}" for rm, c in sorted(game.board_cards.items())
            )
            out.append(f"face-down cards: {cards}")
    return out
