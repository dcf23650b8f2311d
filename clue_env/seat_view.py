"""One seat's view of the game: everything R31 lets that seat know, as a frozen snapshot.

``env.unwrapped.seat_view(agent)`` builds one, and every agent receives its own as
``info["seat_view"]`` from ``env.last()``. Scripted agents, the play session and the web front
end decide and draw from it, never from the game. It holds no reference to the game or the env:
only numbers, strings, tuples and the seat's redacted events (:mod:`clue_env.engine.events`),
all immutable, so an agent can neither read hidden state through it nor change the game.

What it holds (absolute seat indices, ``0..n-1``; cards as flat indices, see
:mod:`clue_env.engine.cards`): the seat's hand, every hand size, who plays which character,
the phase, who acts and whose turn it is, every token's board node and every weapon's room,
who is eliminated, the pending suggestion, the dice, the cards shown to and by the seat, the
cards revealed to all (R25), the face-down cards it looked at (R30), the rooms holding a
face-down card, the seat's redacted event history, and its legal actions with their text forms
(none unless the seat must act now). Once the game is over: the winner, the reason and the
envelope. :meth:`SeatView.to_json` gives the same as JSON with card, room and seat names.
"""

from __future__ import annotations

import copy
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .engine.cards import CARDS, ROOMS, SUSPECTS, WEAPONS
from .engine.events import NOBODY, Event, Peek, Reveal, Show, location, player
from .engine.game import Game, Legal, Phase
from .engine.types import Card, Node, Room, Seat, Suspect, Weapon

_OVER = Phase.OVER  # a global: the enum class attribute costs ~70 ns per read, and this is read per step


class History(Sequence[Event]):
    """An immutable sequence of events (a seat's redacted history), shared, never copied whole.

    Stored as frozen blocks of :data:`BLOCK` events plus a short frozen tail, so that taking a
    snapshot after every step costs a copy of the tail, not of the whole game. The blocks and the
    tail the env hands out hold every event as everyone may see it (shown and peeked cards
    hidden) and are shared by all seats; a seat's own versions of the events it may see more of
    (the cards shown to or by it, the card it looked at) are a short frozen overlay, ``(index,
    event)`` pairs, held by that seat's histories only. ``copy.copy`` gives the same object;
    ``copy.deepcopy`` and ``pickle`` rebuild one from the frozen parts (so a reset env, and a
    seat view, can be deep-copied and pickled).
    """

    __slots__ = ("_blocks", "_len", "_over", "_over_at", "_tail")
    _blocks: tuple[tuple[Event, ...], ...]
    _tail: tuple[Event, ...]
    _len: int
    #: indices of the overlaid events (ascending) and the events themselves
    _over_at: tuple[int, ...]
    _over: tuple[Event, ...]

    def __init__(self, events: Iterable[Event] = ()) -> None:
        ev = tuple(events)
        k = len(ev) - len(ev) % BLOCK
        blocks = tuple(ev[i : i + BLOCK] for i in range(0, k, BLOCK))
        History._set(self, blocks, ev[k:])

    @staticmethod
    def _set(
        h: History,
        blocks: tuple[tuple[Event, ...], ...],
        tail: tuple[Event, ...],
        over_at: tuple[int, ...] = (),
        over: tuple[Event, ...] = (),
    ) -> History:
        _H_BLOCKS(h, blocks)  # the slots' own setters (__setattr__ refuses)
        _H_TAIL(h, tail)
        _H_LEN(h, len(blocks) * BLOCK + len(tail))
        _H_OVER_AT(h, over_at)
        _H_OVER(h, over)
        return h

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a History is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("a History is immutable")

    # Copying and pickling build a new History from the frozen parts (the default protocol would
    # set the slots one by one, which __setattr__ refuses).
    def __reduce__(self) -> tuple[Any, ...]:
        if self._over_at:
            return (_history, (self._blocks, self._tail, self._over_at, self._over))
        return (_history, (self._blocks, self._tail))

    def __copy__(self) -> History:
        return self  # immutable: a copy may be the same object, as for a tuple

    def __deepcopy__(self, memo: dict[int, Any]) -> History:
        d = copy.deepcopy
        return History._set(
            object.__new__(History), d(self._blocks, memo), d(self._tail, memo), self._over_at, d(self._over, memo)
        )

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            start, stop, step = i.indices(self._len)
            if step != 1:
                return tuple(self)[i]
            first = start
            out: list[Event] = []
            b = start // BLOCK
            blocks = self._blocks
            while start < stop:  # only the blocks the slice touches
                if b < len(blocks):
                    part, base = blocks[b], b * BLOCK
                else:
                    part, base = self._tail, len(blocks) * BLOCK
                out.extend(part[start - base : stop - base])
                start = base + len(part)
                b += 1
            for at, ev in zip(self._over_at, self._over):
                if first <= at < stop:
                    out[at - first] = ev
            return tuple(out)
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError("history index out of range")
        over_at = self._over_at
        if over_at:
            k = bisect_left(over_at, i)
            if k < len(over_at) and over_at[k] == i:
                return self._over[k]
        b, r = divmod(i, BLOCK)
        return self._blocks[b][r] if b < len(self._blocks) else self._tail[r]

    def __iter__(self) -> Iterator[Event]:
        if self._over_at:
            yield from self._merged()
            return
        for block in self._blocks:
            yield from block
        yield from self._tail

    def _merged(self) -> list[Event]:
        out = [ev for block in self._blocks for ev in block]
        out.extend(self._tail)
        for at, ev in zip(self._over_at, self._over):
            out[at] = ev
        return out

    def __eq__(self, other: object) -> bool:
        if isinstance(other, History):
            return self._len == other._len and tuple(self) == tuple(other)
        if isinstance(other, (list, tuple)):
            return self._len == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"History({self._len} events)"


#: events per frozen block of a :class:`History`
BLOCK = 64
_H_BLOCKS = History._blocks.__set__  # type: ignore[attr-defined]
_H_TAIL = History._tail.__set__  # type: ignore[attr-defined]
_H_LEN = History._len.__set__  # type: ignore[attr-defined]
_H_OVER_AT = History._over_at.__set__  # type: ignore[attr-defined]
_H_OVER = History._over.__set__  # type: ignore[attr-defined]
#: where a view built by the env keeps what it was built from until a field is first read
_CAPTURE = "_capture"


def _history(
    blocks: tuple[tuple[Event, ...], ...],
    tail: tuple[Event, ...],
    over_at: tuple[int, ...] = (),
    over: tuple[Event, ...] = (),
) -> History:
    """A History from its frozen parts (how a pickled one is rebuilt)."""
    if not all(len(b) == BLOCK for b in blocks) or len(tail) >= BLOCK:
        raise ValueError(f"a History's blocks hold {BLOCK} events each and its tail fewer")
    n = len(blocks) * BLOCK + len(tail)
    over_at = tuple(int(i) for i in over_at)
    if len(over_at) != len(over) or list(over_at) != sorted(set(over_at)) or any(not 0 <= i < n for i in over_at):
        raise ValueError("a History's overlay is ascending distinct indices into it, one event each")
    return History._set(object.__new__(History), tuple(tuple(b) for b in blocks), tuple(tail), over_at, tuple(over))


@dataclass(frozen=True)
class SeatView:
    """What seat :attr:`seat` may know now (see the module docstring)."""

    seat: Seat
    num_players: int
    rules: str
    #: the suspect each seat plays
    characters: tuple[Suspect, ...]
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    phase: Phase
    #: the seat that must decide now (-1 once the game is over)
    acting: Seat
    #: the seat whose turn it is
    current: Seat
    turn: int
    max_turns: int
    #: board node of every suspect's token (rooms are nodes 0-8, ``OFF_BOARD`` = -1)
    tokens: tuple[Node, ...]
    #: room of every weapon
    weapons: tuple[Room, ...]
    eliminated: tuple[bool, ...]
    #: (suggester, suspect, weapon, room) while a suggestion awaits its refutation
    pending: tuple[Seat, Suspect, Weapon, Room] | None
    dice: tuple[int, ...]
    roll_total: int
    #: (card, the seat that showed it to me), in order
    shown_to_me: tuple[tuple[Card, Seat], ...]
    #: (card, the seat I showed it to), in order
    shown_by_me: tuple[tuple[Card, Seat], ...]
    #: (card, holder or -1 for nobody) revealed to everyone (R25), each once
    revealed: tuple[tuple[Card, Seat], ...]
    #: (room, card) face-down cards I looked at (R30), each once
    peeked: tuple[tuple[Room, Card], ...]
    #: rooms holding a face-down card (R30; which card is private)
    board_card_rooms: tuple[Room, ...]
    #: my redacted event history, oldest first (an immutable sequence)
    events: History
    #: legal action indices (empty unless I must act now)
    legal: tuple[int, ...]
    over: bool
    winner: Seat
    over_reason: str | None
    #: the envelope (suspect, weapon, room), once the game is over
    solution: tuple[Suspect, Weapon, Room] | None

    def __getattr__(self, name: str) -> Any:
        # Only for attributes not set. A view the env hands out holds, until any field is first
        # read, one immutable tuple of what it was built from (:func:`build_seat_view`); the
        # fields are filled from it then (the legal indices decoded), and the tuple dropped.
        d = self.__dict__
        cap = d.get(_CAPTURE)
        if cap is None or name.startswith("__"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        _fill(d, cap)
        return object.__getattribute__(self, name)

    @property
    def agent(self) -> str:
        return f"player_{self.seat}"

    @property
    def my_suspect(self) -> Suspect:
        return self.characters[self.seat]

    @property
    def my_node(self) -> Node:
        """The board node of my token."""
        return self.tokens[self.my_suspect]

    @property
    def must_act(self) -> bool:
        return self.acting == self.seat and not self.over

    @cached_property
    def legal_text(self) -> tuple[str, ...]:
        """The text form of every legal action (SPEC "Actions as text"), in index order."""
        from .codec import default_codec

        texts = default_codec().texts
        return tuple(texts[i] for i in self.legal)

    def to_json(self, events: bool = True) -> dict[str, Any]:
        """The view as JSON: card, room and suspect ids, ``player_k`` seats, nodes as room ids or ``[row, col]``
        (``events=False``: without the event history, which grows with the game)."""
        from .engine.board import classic_board

        board = classic_board()

        def node(n: int) -> str | list[int] | None:
            return location(_BoardOnly(board), n)

        out: dict[str, Any] = {
            "seat": self.agent,
            "num_players": self.num_players,
            "rules": self.rules,
            "characters": {player(i): SUSPECTS[s] for i, s in enumerate(self.characters)},
            "hand": [CARDS[c] for c in self.hand],
            "hand_sizes": {player(i): k for i, k in enumerate(self.hand_sizes)},
            "phase": self.phase.name.lower(),
            "acting": player(self.acting),
            "current": player(self.current),
            "turn": self.turn,
            "max_turns": self.max_turns,
            "tokens": {SUSPECTS[s]: node(n) for s, n in enumerate(self.tokens)},
            "weapons": {WEAPONS[w]: ROOMS[r] for w, r in enumerate(self.weapons)},
            "eliminated": [player(i) for i, e in enumerate(self.eliminated) if e],
            "pending_suggestion": None,
            "dice": list(self.dice),
            "roll": self.roll_total or None,
            "shown_to_me": [{"card": CARDS[c], "by": player(s)} for c, s in self.shown_to_me],
            "shown_by_me": [{"card": CARDS[c], "to": player(s)} for c, s in self.shown_by_me],
            "revealed": [{"card": CARDS[c], "holder": player(h)} for c, h in self.revealed],
            "peeked": [{"room": ROOMS[r], "card": CARDS[c]} for r, c in self.peeked],
            "board_card_rooms": [ROOMS[r] for r in self.board_card_rooms],
            "events": [_event_json(ev, self.seat, board) for ev in self.events] if events else None,
            "legal": list(self.legal_text),
            "over": self.over,
            "winner": player(self.winner) if self.over else None,
            "reason": self.over_reason,
            "solution": [SUSPECTS[self.solution[0]], WEAPONS[self.solution[1]], ROOMS[self.solution[2]]]
            if self.solution is not None
            else None,
        }
        if self.pending is not None:
            sug, s, w, r = self.pending
            out["pending_suggestion"] = {"player": player(sug), "suspect": SUSPECTS[s], "weapon": WEAPONS[w], "room": ROOMS[r]}
        return out


class _BoardOnly:
    """The part of a game that :func:`~clue_env.engine.events.location` reads."""

    __slots__ = ("board",)

    def __init__(self, board: Any) -> None:
        self.board = board


def _event_json(ev: Event, seat: int, board: Any) -> dict[str, Any]:
    """An event of my history as JSON: the public form, plus the card when I may see it."""
    out = ev.to_json(_BoardOnly(board))  # type: ignore[arg-type]
    if isinstance(ev, (Show, Peek)) and ev.card >= 0:
        out["card"] = CARDS[ev.card]  # already redacted: present only for the seats that saw it
    return out


#: the viewer an event is redacted for to give everyone's version of it (no seat is this)
_EVERYONE = -(1 << 30)


def _is_private(kind: type) -> bool:
    """Whether events of this type may read differently to different seats (they redact)."""
    return getattr(kind, "redacted", None) is not Event.redacted


class SharedLog:
    """The env's redacted copy of the log, folded once for all seats (append-only).

    Every event is stored once as everyone may see it (:meth:`Event.redacted` for no seat); an
    event that reads differently to some seat (a shown or peeked card, to the seats that saw
    it) is also kept, in that seat's version, in the seat's overlay. The seat's private facts
    (cards shown to and by it, looked at) and the cards revealed to all are gathered on the way.
    Nothing here is handed out: only immutable snapshots (tuples, :class:`History`) leave it.
    """

    __slots__ = ("_blocks", "_private", "_seen", "_snap", "_tail", "facts", "n", "over", "over_at", "revealed")

    def __init__(self, n: int) -> None:
        self.n = n
        self._blocks: tuple[tuple[Event, ...], ...] = ()
        self._tail: list[Event] = []
        self._snap: tuple[Event, ...] | None = ()
        self._seen = 0
        #: per seat: the overlay's indices and events (tuples, replaced when they grow)
        self.over_at: list[tuple[int, ...]] = [()] * n
        self.over: list[tuple[Event, ...]] = [()] * n
        #: per seat: shown_to_me, shown_by_me, peeked (tuples, replaced when they grow)
        self.facts: list[list[tuple[tuple[int, int], ...]]] = [[(), (), ()] for _ in range(n)]
        #: (card, holder or NOBODY) revealed to everyone (R25), each once
        self.revealed: tuple[tuple[int, int], ...] = ()
        self._private: dict[type, bool] = {}

    def fold(self, log: list[Event]) -> None:
        """Fold in the events not seen yet."""
        seen = self._seen
        if seen >= len(log):
            return
        private = self._private
        tail = self._tail
        for i in range(seen, len(log)):
            ev = log[i]
            kind = type(ev)
            p = private.get(kind)
            if p is None:
                p = private[kind] = _is_private(kind) or issubclass(kind, Reveal)
            if p:  # an event some seat reads differently, or a fact for everyone
                ev = self._fold_one(i, ev)
            tail.append(ev)
            if len(tail) == BLOCK:
                self._blocks = (*self._blocks, tuple(tail))
                tail.clear()
        self._seen = len(log)
        self._snap = None

    def _fold_one(self, i: int, ev: Event) -> Event:
        """Event ``i`` as everyone may see it, after the overlays and facts it makes."""
        if not _is_private(type(ev)):
            if isinstance(ev, Reveal):
                fact = (ev.card, ev.holder if ev.holder >= 0 else NOBODY)
                if fact not in self.revealed:  # the deck cycles (R24): a second reveal tells nothing new
                    self.revealed = (*self.revealed, fact)
            return ev
        pub = ev.redacted(_EVERYONE)
        for seat in range(self.n):
            mine = ev.redacted(seat)
            if mine is not pub and mine != pub:
                self.over_at[seat] = (*self.over_at[seat], i)
                self.over[seat] = (*self.over[seat], mine)
            self._fact(seat, mine)
        return pub

    def _fact(self, seat: int, ev: Event) -> None:
        facts = self.facts[seat]
        if isinstance(ev, Show):
            if ev.suggester == seat and ev.card >= 0:
                facts[0] = (*facts[0], (ev.card, ev.refuter))
            elif ev.refuter == seat:
                facts[1] = (*facts[1], (ev.card, ev.suggester))
        elif isinstance(ev, Peek) and ev.seat == seat and ev.card >= 0:
            fact = (ev.room, ev.card)
            if fact not in facts[2]:  # looked again: nothing new
                facts[2] = (*facts[2], fact)

    def snapshot(self, seat: int) -> History:
        """Seat ``seat``'s history as folded so far (frozen; shares the blocks and the tail)."""
        tail = self._snap
        if tail is None:
            tail = self._snap = tuple(self._tail)
        return History._set(_new(History), self._blocks, tail, self.over_at[seat], self.over[seat])


class SeatHistory:
    """One seat's handle on the env's :class:`SharedLog` (its redacted history, its private
    facts) and the parts of its view that do not change during a game. :meth:`sync` folds in
    new events; only immutable snapshots leave the env.
    """

    __slots__ = ("_static", "seat", "shared")

    def __init__(self, seat: int, shared: SharedLog | None = None) -> None:
        self.seat = seat
        self.shared = shared if shared is not None else SharedLog(seat + 1)
        self._static: tuple[Any, ...] | None = None

    @property
    def facts(self) -> tuple[tuple[tuple[int, int], ...], ...]:
        """shown_to_me, shown_by_me, revealed, peeked."""
        mine = self.shared.facts[self.seat]
        return (mine[0], mine[1], self.shared.revealed, mine[2])

    def sync(self, log: list[Event]) -> History:
        """Fold in the events not seen yet; the current history snapshot."""
        shared = self.shared
        if shared._seen < len(log):
            shared.fold(log)
        return shared.snapshot(self.seat)


def build_seat_view(game: Game, seat: int, history: SeatHistory, legal: tuple[int, ...] | Legal) -> SeatView:
    """Seat ``seat``'s :class:`SeatView` of ``game`` (``legal``: its legal action indices, or
    ``()``, or the engine's :class:`~clue_env.engine.game.Legal` set).

    The view costs almost nothing until it is read: it keeps one immutable tuple of what it is
    made of (small tuples, numbers, the seat's frozen history, the immutable legal set; nothing
    of the game's and nothing another seat may not see) and fills its fields from it when any of
    them is first read, decoding the legal indices then."""
    events = history.sync(game.log)
    static = history._static
    if static is None:  # what does not change during a game, in _STATIC order
        static = history._static = (
            seat,
            game.n,
            game.cfg.name,
            tuple(game.seat_suspect),
            tuple(sorted(game.hands[seat])),
            tuple(len(h) for h in game.hands),
            game.cfg.max_turns,
            tuple(sorted(game.board_cards)),
        )
    over = game.phase == _OVER
    shared = history.shared
    mine = shared.facts[seat]
    pending = game.pending
    cap = (
        static,
        game.phase,
        game.acting,
        game.current,
        game.turn,
        tuple(game.loc),
        tuple(game.weapon_loc),
        tuple(game.eliminated),
        tuple(pending) if pending is not None else None,
        game.dice,  # a tuple (the engine replaces it, never changes it)
        game.roll_total,
        mine[0],
        mine[1],
        shared.revealed,
        mine[2],
        events,
        legal if type(legal) is Legal else tuple(legal),  # a Legal is an immutable tuple of flags and the seat's own options
        over,
        game.winner,
        game.over_reason if over else None,
        tuple(game.envelope) if over else None,
    )
    view = _new(SeatView)  # a frozen dataclass, filled without its field-by-field __init__
    _set_dict(view, "__dict__", {_CAPTURE: cap})
    return view


#: the fields that do not change during a game, in the order build_seat_view keeps them
_STATIC = ("seat", "num_players", "rules", "characters", "hand", "hand_sizes", "max_turns", "board_card_rooms")
#: the other fields, in the order of build_seat_view's tuple (after the static part)
_DYNAMIC = (
    "phase", "acting", "current", "turn", "tokens", "weapons", "eliminated", "pending", "dice", "roll_total",
    "shown_to_me", "shown_by_me", "revealed", "peeked", "events", "legal", "over", "winner", "over_reason", "solution",
)  # fmt: skip
_LEGAL_AT = _DYNAMIC.index("legal") + 1


def _fill(d: dict[str, Any], cap: tuple[Any, ...]) -> None:
    """Fill a view's fields from what :func:`build_seat_view` kept (idempotent)."""
    legal = cap[_LEGAL_AT]
    if type(legal) is Legal:
        from .codec import default_codec

        legal = default_codec().indices(legal)
    d.update(zip(_STATIC, cap[0]))
    d.update(zip(_DYNAMIC, cap[1:]))
    d["legal"] = legal
    d.pop(_CAPTURE, None)


_new = object.__new__
_set_dict = object.__setattr__


class SeatInfos(dict):
    """``env.infos``: each agent's info, ``{"seat_view": SeatView}`` (and ``"winner"`` once the
    game is over), built when read and kept until the game moves on. The agent's info dict holds
    only the frozen snapshot; this mapping (the env's) is never handed to an agent."""

    def __init__(self, agents: Iterable[str], build: Any) -> None:
        super().__init__(dict.fromkeys(agents))
        self._build = build

    def __getitem__(self, agent: str) -> dict[str, Any]:
        if not dict.__contains__(self, agent):
            raise KeyError(agent)
        return dict(self._build(agent))  # a fresh dict: what one caller writes, no other sees

    def get(self, agent: str, default: Any = None) -> Any:
        return self[agent] if dict.__contains__(self, agent) else default

    def values(self) -> list[dict[str, Any]]:  # type: ignore[override]
        return [self[a] for a in self]

    def items(self) -> list[tuple[str, dict[str, Any]]]:  # type: ignore[override]
        return [(a, self[a]) for a in self]

    def copy(self) -> dict[str, dict[str, Any]]:
        return {a: self[a] for a in self}

    def __repr__(self) -> str:
        return f"SeatInfos({list(self)})"


__all__ = ["BLOCK", "History", "SeatHistory", "SeatInfos", "SeatView", "SharedLog", "build_seat_view"]
