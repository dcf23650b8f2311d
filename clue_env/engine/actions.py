"""Actions as small value types with a text form that round-trips (SPEC "Actions as text").

An :class:`Action` is ``(kind, a, b, c)``: ``MOVE`` a=hallway node; ``ENTER``/``TOWARD`` a=room;
``SUGGEST`` a=suspect, b=weapon; ``SHOW`` a=card; ``ACCUSE`` a=suspect, b=weapon, c=room
(suspect/weapon/room *indices within their kind*, card = flat card index).
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from .board import Board
from .cards import CARDS, ROOMS, SUSPECTS, WEAPONS
from .errors import InvalidActionTextError


class Kind(IntEnum):
    ROLL = 0
    PASSAGE = 1
    STAY = 2
    END = 3
    MOVE = 4
    ENTER = 5
    TOWARD = 6
    SUGGEST = 7
    SHOW = 8
    ACCUSE = 9


class Action(NamedTuple):
    kind: Kind
    a: int = -1
    b: int = -1
    c: int = -1

    def to_text(self, board: Board) -> str:
        k = self.kind
        if k == Kind.MOVE:
            r, c = board.node_rc[self.a]
            return f"move {r},{c}"
        if k == Kind.ENTER:
            return f"enter {ROOMS[self.a]}"
        if k == Kind.TOWARD:
            return f"toward {ROOMS[self.a]}"
        if k == Kind.SUGGEST:
            return f"suggest {SUSPECTS[self.a]} {WEAPONS[self.b]}"
        if k == Kind.SHOW:
            return f"show {CARDS[self.a]}"
        if k == Kind.ACCUSE:
            return f"accuse {SUSPECTS[self.a]} {WEAPONS[self.b]} {ROOMS[self.c]}"
        return k.name.lower()


ROLL = Action(Kind.ROLL)
PASSAGE = Action(Kind.PASSAGE)
STAY = Action(Kind.STAY)
END = Action(Kind.END)

TEXT_FORMS = (
    "roll",
    "passage",
    "stay",
    "end",
    "move R,C",
    "enter ROOM",
    "toward ROOM",
    "suggest SUSPECT WEAPON",
    "show CARD",
    "accuse SUSPECT WEAPON ROOM",
)


def _bad(text: str, why: str) -> InvalidActionTextError:
    return InvalidActionTextError(f"bad action text {text!r}: {why}. Accepted forms: {'; '.join(TEXT_FORMS)}")


def _lookup(text: str, name: str, table: tuple[str, ...], what: str) -> int:
    try:
        return table.index(name)
    except ValueError:
        raise _bad(text, f"unknown {what} {name!r} (one of: {', '.join(table)})") from None


def parse_action(text: str, board: Board) -> Action:
    """Parse one SPEC text form into an :class:`Action` (case and extra spaces are forgiven)."""
    if not isinstance(text, str):
        raise _bad(repr(text), "action text must be a string")
    words = text.strip().lower().split()
    if not words:
        raise _bad(text, "empty text")
    verb, args = words[0], words[1:]
    simple = {"roll": ROLL, "passage": PASSAGE, "stay": STAY, "end": END}
    arity = {"move": 1, "enter": 1, "toward": 1, "suggest": 2, "show": 1, "accuse": 3}
    if verb in simple:
        if args:
            raise _bad(text, f"{verb!r} takes no arguments")
        return simple[verb]
    if verb not in arity:
        raise _bad(text, f"unknown verb {verb!r}")
    if verb == "move":
        spec = "".join(args)
        parts = spec.split(",")
        if len(parts) != 2 or not all(p.strip().lstrip("-").isdigit() and len(p.strip()) <= 6 for p in parts):
            raise _bad(text, "a square is written R,C (row,col), with a row and a column of the board")
        r, c = int(parts[0]), int(parts[1])
        node = board.rc_node.get((r, c))
        if node is None:
            raise _bad(text, f"{r},{c} is not a hallway square")
        return Action(Kind.MOVE, node)
    if len(args) != arity[verb]:
        raise _bad(text, f"{verb!r} takes {arity[verb]} argument(s), got {len(args)}")
    if verb == "enter":
        return Action(Kind.ENTER, _lookup(text, args[0], ROOMS, "room"))
    if verb == "toward":
        return Action(Kind.TOWARD, _lookup(text, args[0], ROOMS, "room"))
    if verb == "suggest":
        return Action(Kind.SUGGEST, _lookup(text, args[0], SUSPECTS, "suspect"), _lookup(text, args[1], WEAPONS, "weapon"))
    if verb == "show":
        return Action(Kind.SHOW, _lookup(text, args[0], CARDS, "card"))
    return Action(
        Kind.ACCUSE,
        _lookup(text, args[0], SUSPECTS, "suspect"),
        _lookup(text, args[1], WEAPONS, "weapon"),
        _lookup(text, args[2], ROOMS, "room"),
    )
