"""What happens in a game, as typed events: who may see what (R31), the JSON form, the wording.

The engine appends one immutable event per thing that happens to :attr:`Game.log
<clue_env.engine.game.Game.log>`. Each event type knows, in one place:

* :meth:`Event.redacted` — the event as a given seat may see it. Only two events hold private
  content: the card in a :class:`Show` (seen by the refuter and the suggester only, R27) and
  the card in a :class:`Peek` (seen by the player who looked, R30). Everyone else gets the event
  with the card replaced by :data:`HIDDEN`.
* :meth:`Event.to_json` — its public JSON form (``public_state()["log"]``, SPEC): never a
  shown or peeked card.
* :meth:`Event.wording` — its public wording with the ruleset's display names ("player_1
  (Colonel Mustard) suggests Professor Plum with the Rope in the Hall").

Fields are indices: seats ``0..n-1``; ``suspect`` 0-5, ``weapon`` 0-5 and ``room`` 0-8 as in
:mod:`clue_env.engine.cards` (a weapon *card* is ``WEAPON_BASE + weapon``); ``card`` a flat card
index 0-20; ``node`` a board node (rooms first, then hallway squares, ``OFF_BOARD`` = -1).
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple, Protocol

from .board import OFF_BOARD, Board
from .cards import CARDS, N_ROOMS, ROOMS, SUSPECTS, WEAPONS
from .types import Card, Node, Room, Seat, Suspect, Weapon
from .wording import GameFacts, clue_effect_text, faces_text, result_text, reveal_text, room_name

#: the card of a :class:`Show` or :class:`Peek` as the seats who may not see it get it
HIDDEN = -1
#: ``holder`` of a :class:`Reveal` when no seat holds the card (envelope or face down, R25)
NOBODY = -1

#: why a token moved (:attr:`Move.cause`)
MOVE_CAUSES = ("move", "passage", "suggest", "eliminated")
#: why a game ended (:attr:`GameOver.reason`)
OVER_REASONS = ("accusation", "last_player_standing", "all_eliminated", "max_turns")


def player(seat: Seat) -> str | None:
    """``player_3``, or ``None`` for -1 (nobody)."""
    return f"player_{seat}" if seat >= 0 else None


class HasBoard(Protocol):
    """What :func:`location` reads of a game: its board."""

    @property
    def board(self) -> Board: ...


def location(game: HasBoard, node: Node) -> str | list[int] | None:
    """A node as JSON: a room id, ``[row, col]``, or ``None`` (off the board)."""
    if node == OFF_BOARD:
        return None
    if node < N_ROOMS:
        return ROOMS[node]
    r, c = game.board.node_rc[node]
    return [r, c]


class Event:
    """Base of every event type (see the module docstring).

    Each event type is an immutable named tuple of its fields (cheap to create: the engine makes
    one or two per action); equality also compares the type, so ``Show(0, 1, 5) != Peek(0, 1, 5)``.
    """

    __slots__ = ()
    #: the type's name in JSON (``{"type": ...}``)
    kind: ClassVar[str] = ""

    def redacted(self, viewer: int) -> Event:
        """This event as seat ``viewer`` may see it (R31); public events are returned as they are."""
        return self

    def to_json(self, game: GameFacts) -> dict[str, Any]:
        """The public JSON form (every event type defines it)."""
        raise NotImplementedError(f"{type(self).__name__} does not define to_json")

    def wording(self, game: GameFacts) -> str:
        """The public wording, in the ruleset's display names (every event type defines it)."""
        raise NotImplementedError(f"{type(self).__name__} does not define wording")

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and tuple.__eq__(self, other)  # type: ignore[operator]

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return tuple.__hash__(self)  # type: ignore[arg-type]


class _TurnFields(NamedTuple):
    seat: Seat
    turn: int


class Turn(Event, _TurnFields):
    """Seat ``seat`` begins turn number ``turn`` (R11)."""

    __slots__ = ()
    kind: ClassVar[str] = "turn"

    def to_json(self, game: GameFacts) -> dict[str, Any]:
        return {"type": self.kind, "player": player(self.seat), "turn": self.turn}

    def wording(self, game: GameFacts) -> str:
        return f"turn {self.turn}: {game.seat_name(self.seat)}"


class _RollFields(NamedTuple):
    seat: Seat
    total: int
    dice: tuple[int, ...]


class Roll(Event, _RollFields):
    """Seat ``seat`` rolls ``dice`` (faces) for ``total`` squares (R12, R23)."""

    __slots__ = ()
    kind: ClassVar[str] = "roll"

    def to_json(self, game: GameFacts) -> dict[str, Any]:
        return {"type": self.kind, "player": player(self.seat), "total": self.total, "dice": list(self.dice)}

    def wording(self, game: GameFacts) -> str:
        what = faces_text(game, self.dice) if self.dice else str(self.total)
        return f"{game.seat_name(self.seat)} rolls {what}"


class _MoveFields(NamedTuple):
    seat: Seat
    suspect: Suspect
    node: Node
    cause: str


class Move(Event, _MoveFields):
    """Token ``suspect`` moves to ``node`` on seat ``seat``'s action; ``cause`` in :data:`MOVE_CAUSES`."""

    __slots__ = ()
    kind: ClassVar[str] = "move"

    def to_json(self, game: GameFacts) -> dict[str, Any]:
        return {"type": self.kind, "player": player(self.seat), "suspect": SUSPECTS[self.suspect],
                "to": location(game, self.node), "cause": self.cause}  # fmt: skip

    def wording(self, game: GameFacts) -> str:
        who = game.cfg.display(SUSPECTS[self.suspect])
        if self.node < 0:
            return f"{who} leaves the board"
        if self.node >= N_ROOMS:
            return f"{who} moves to square {game.board.describe(self.node)}"
        room = room_name(game, self.node)
        return {
            "passage": f"{who} takes the secret passage to the {room}",
            "suggest": f"{who} is called into the {room}",
            "eliminated": f"{who} is moved off the door into the {room}",
        }.get(self.cause, f"{who} enters the {room}")


class _ForfeitFields(NamedTuple):
    seat: Seat


class Forfeit(Event, _ForfeitFields):
    """Seat ``seat``'s roll reaches no legal destination (R16)."""

    __slots__ = ()
    kind: ClassVar[str] = "forfeit"

    def to_json(self, game: GameFacts) -> dict[str, Any]:
        return {"type": self.kind, "player": player(self.seat)}

    def wording(self, game: GameFacts) -> str:
        return f"{game.seat_name(self.seat)} has no legal move"


class _StayFields(NamedTuple):
    seat: Seat


class Stay(Event, _StayFields):
    """Seat ``seat`` stays in its room to suggest (R21; 2023 R22)."""

    __slots__ = ()
    kind: ClassVar[str] = "stay"

    def to_json(self, game: GameFacts) -> dict[str, Any]:
        return {"type": self.kind, "player": player(self.seat)}

    def wording(self, game: GameFacts) -> str:
        return f"{game.seat_name(self.seat)} stays in the room"


class _WeaponMovedFields(NamedTuple):
    seat: Seat
    weapon: Weapon
    room: Room


class WeaponMoved(Event, _WeaponMovedFields):
    """Seat ``seat``'s suggestion moves weapon ``weapon`` into room ``room`` (R26)."""

    __slots__ = ()
    kind: ClassVar[str] = "weapon"

    def to_json(self, game: GameFacts) -> dict[str, Any]:
        return {"type": self.kind, "player": player(self.seat), "weapon": WEAPONS[self.weapon], "to": ROOMS[self.room]}

    def wording(self, game: GameFacts) -> str:
        return f"the {game.cfg.display(WEAPONS[self.weapon])} is moved to the {room_name(game, self.room)}"


class _SuggestFields(NamedTuple):
    seat: Seat
    suspect: Suspect
    weapon: Weapon
    room: Room


class Suggest(Event, _SuggestFields):
    """Seat ``seat`` suggests ``suspect`` with ``weapon`` in ``room`` (R26)."""

    __slots__ = ()
    kind: ClassVar[str] = "suggest"

    def to_json(self, game: GameFacts) -> dict[str, Any]:
        return {"type": self.kind, "player": player(self.seat), "suspect": SUSPECTS[self.suspect],
                "weapon": WEAPONS[self.weapon], "room": ROOMS[self.room]}  # fmt: skip

    def wording(self, game: GameFacts) -> str:
        d = game.cfg.display
        return (f"{game.seat_name(self.seat)} suggests {d(SUSPECTS[self.suspect])} with the "
                f"{d(WEAPONS[self.weapon])} in the {room_name(game, self.room)}")  # fmt: skip


class _PassFields(NamedTuple):
    seat: Seat
    suggester: Seat


class Pass(Event, _PassFields):
    """Seat ``seat`` holds none of the cards ``suggester`` named (R27)."""

    __slots__ = ()
    kind: ClassVar[str] = "pass"

    def to_json(self, game: GameFacts) -> dict[str, Any]:
        return {"type": self.kind, "player": player(self.seat), "suggester": player(self.suggester)}

    def wording(self, game: GameFacts) -> str:
        return f"{game.seat_name(self.seat)} cannot refute"


class _ShowFields(NamedTuple):
    refuter: Seat
    suggester: Seat
    card: Card


class Show(Event, _ShowFields):
    """Seat ``refuter`` shows ``card`` to ``suggester`` (R27). Private: only those two see the card."""

    __slots__ = ()
    kind: ClassVar[str] = "show"

    def redacted(self, viewer: int) -> Event:
        if viewer == self.refuter or viewer == self.suggester or self.card == HIDDEN:
            return self
        return self._replace(card=HIDDEN)

    def to_json(self, game: GameFacts) -> dict[str, Any]:
        return {"type": self.kind, "player": player(self.refuter), "to": player(self.suggester)}

    def wording(self, game: GameFacts) -> str:
        return f"{game.seat_name(self.refuter)} shows a card to {game.seat_name(self.suggester)}"


class _NoRefuteFields(NamedTuple):
    suggester: Seat


class NoRefute(Event, _NoRefuteFields):
    """Nobody can refute ``suggester``'s suggestion (R27)."""

    __slots__ = ()
    kind: ClassVar[str] = "no_refute"

    def to_json(self, game: GameFacts) -> dict[str, Any]:
        return {"type": self.kind, "suggester": player(self.suggester)}

    def wording(self, game: GameFacts) -> str:
        return "nobody can refute"


class _AccuseFields(NamedTuple):
    seat: Seat
    suspect: Suspect
    weapon: Weapon
    room: Room
    correct: bool


class Accuse(Event, _AccuseFields):
    """Seat ``seat`` accuses ``suspect``, ``weapon``, ``room``; ``correct`` is public (R28)."""

    __slots__ = ()
    kind: ClassVar[str] = "accuse"

    def to_json(self, game: GameFacts) -> dict[str, Any]:
        return {"type": self.kind, "player": player(self.seat), "suspect": SUSPECTS[self.suspect],
                "weapon": WEAPONS[self.weapon], "room": ROOMS[self.room], "correct": bool(self.correct)}  # fmt: skip

    def wording(self, game: GameFacts) -> str:
        d = game.cfg.display
        verdict = "correct" if self.correct else "wrong"
        return (f"{game.seat_name(self.seat)} accuses {d(SUSPECTS[self.suspect])} with the "
                f"{d(WEAPONS[self.weapon])} in the {room_name(game, self.room)}: {verdict}")  # fmt: skip


class _EndTurnFields(NamedTuple):
    seat: Seat


class EndTurn(Event, _EndTurnFields):
    """Seat ``seat`` ends its turn."""

    __slots__ = ()
    kind: ClassVar[str] = "end_turn"

    def to_json(self, game: GameFacts) -> dict[str, Any]:
        return {"type": self.kind, "player": player(self.seat)}

    def wording(self, game: GameFacts) -> str:
        return f"{game.seat_name(self.seat)} ends the turn"


class _ClueCardFields(NamedTuple):
    seat: Seat
    effect: str
    card: Card


class ClueCard(Event, _ClueCardFields):
    """Seat ``seat`` draws a Clue card (R24): ``effect`` (``"reveal"``) about ``card`` (-1: none)."""

    __slots__ = ()
    kind: ClassVar[str] = "clue_card"

    def to_json(self, game: GameFacts) -> dict[str, Any]:
        return {"type": self.kind, "player": player(self.seat), "effect": self.effect,
                "card": CARDS[self.card] if self.card >= 0 else None}  # fmt: skip

    def wording(self, game: GameFacts) -> str:
        return f"{game.seat_name(self.seat)} draws a Clue card: {clue_effect_text(game, self.effect, self.card)}"


class _RevealFields(NamedTuple):
    seat: Seat
    card: Card
    holder: Seat


class Reveal(Event, _RevealFields):
    """``holder`` shows ``card`` to everyone (R25), after seat ``seat`` drew the Clue card;
    ``holder`` is :data:`NOBODY` when no seat holds it."""

    __slots__ = ()
    kind: ClassVar[str] = "reveal"

    def to_json(self, game: GameFacts) -> dict[str, Any]:
        return {"type": self.kind, "player": player(self.seat), "card": CARDS[self.card], "holder": player(self.holder)}

    def wording(self, game: GameFacts) -> str:
        return reveal_text(game, self.card, self.holder)


class _PeekFields(NamedTuple):
    seat: Seat
    room: Room
    card: Card


class Peek(Event, _PeekFields):
    """Seat ``seat`` looks at the face-down ``card`` in ``room`` (R30). Private to ``seat``."""

    __slots__ = ()
    kind: ClassVar[str] = "peek"

    def redacted(self, viewer: int) -> Event:
        if viewer == self.seat or self.card == HIDDEN:
            return self
        return self._replace(card=HIDDEN)

    def to_json(self, game: GameFacts) -> dict[str, Any]:
        return {"type": self.kind, "player": player(self.seat), "room": ROOMS[self.room]}

    def wording(self, game: GameFacts) -> str:
        return f"{game.seat_name(self.seat)} looks at the card in the {room_name(game, self.room)}"


class _GameOverFields(NamedTuple):
    winner: Seat
    reason: str


class GameOver(Event, _GameOverFields):
    """The game ends: ``winner`` (-1: nobody) for ``reason`` in :data:`OVER_REASONS` (R28, R29, R15)."""

    __slots__ = ()
    kind: ClassVar[str] = "game_over"

    def to_json(self, game: GameFacts) -> dict[str, Any]:
        return {"type": self.kind, "winner": player(self.winner), "reason": self.reason}

    def wording(self, game: GameFacts) -> str:
        return "game over: " + result_text(game, self.winner, self.reason)


#: every event type, by its JSON ``type``
EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (
        Turn,
        Roll,
        Move,
        Forfeit,
        Stay,
        WeaponMoved,
        Suggest,
        Pass,
        Show,
        NoRefute,
        Accuse,
        EndTurn,
        ClueCard,
        Reveal,
        Peek,
        GameOver,
    )  # fmt: skip
}

__all__ = [
    "EVENT_TYPES",
    "HIDDEN",
    "MOVE_CAUSES",
    "NOBODY",
    "OVER_REASONS",
    "Accuse",
    "ClueCard",
    "EndTurn",
    "Event",
    "Forfeit",
    "GameOver",
    "Move",
    "NoRefute",
    "Pass",
    "Peek",
    "Reveal",
    "Roll",
    "Show",
    "Stay",
    "Suggest",
    "Turn",
    "WeaponMoved",
    "location",
    "player",
]
