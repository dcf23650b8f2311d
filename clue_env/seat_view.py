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
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .engine.cards import CARDS, ROOMS, SUSPECTS, WEAPONS
from .engine.events import NOBODY, Event, Peek, Reveal, Show, location, player
from .engine.game import Game, Phase
from .engine.types import Card, Node, Room, Seat, Suspect, Weapon


class History(Sequence[Event]):
    """An immutable sequence of events (a seat's redacted history), shared, never copied whole.

    Stored as frozen blocks of :data:`BLOCK` events plus a short frozen tail, so that taking a
    snapshot after every step costs a copy of the tail, not of the whole game. ``copy.copy``
    gives the same object; ``copy.deepcopy`` and ``pickle`` rebuild one from the frozen parts (so
    a reset env, and a seat view, can be deep-copied and pickled).
    """

    __slots__ = ("_blocks", "_len", "_tail")
    _blocks: tuple[tuple[Event, ...], ...]
    _tail: tuple[Event, ...]
    _len: int

    def __init__(self, events: Iterable[Event] = ()) -> None:
        ev = tuple(events)
        k = len(ev) - len(ev) % BLOCK
        blocks = tuple(ev[i : i + BLOCK] for i in range(0, k, BLOCK))
        History._set(self, blocks, ev[k:])

    @staticmethod
    def _set(h: History, blocks: tuple[tuple[Event, ...], ...], tail: tuple[Event, ...]) -> History:
        object.__setattr__(h, "_blocks", blocks)
        object.__setattr__(h, "_tail", tail)
        object.__setattr__(h, "_len", len(blocks) * BLOCK + len(tail))
        return h

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a History is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("a History is immutable")

    # Copying and pickling build a new History from the frozen parts (the default protocol would
    # set the slots one by one, which __setattr__ refuses).
    def __reduce__(self) -> tuple[Any, ...]:
        return (_history, (self._blocks, self._tail))

    def __copy__(self) -> History:
        return self  # immutable: a copy may be the same object, as for a tuple

    def __deepcopy__(self, memo: dict[int, Any]) -> History:
        return History._set(object.__new__(History), copy.deepcopy(self._blocks, memo), copy.deepcopy(self._tail, memo))

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            start, stop, step = i.indices(self._len)
            if step != 1:
                return tuple(self)[i]
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
            return tuple(out)
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError("history index out of range")
        b, r = divmod(i, BLOCK)
        return self._blocks[b][r] if b < len(self._blocks) else self._tail[r]

    def __iter__(self) -> Iterator[Event]:
        for block in self._blocks:
            yield from block
        yield from self._tail

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


def _history(blocks: tuple[tuple[Event, ...], ...], tail: tuple[Event, ...]) -> History:
    """A History from its frozen parts (how a pickled one is rebuilt)."""
    if not all(len(b) == BLOCK for b in blocks) or len(tail) >= BLOCK:
        raise ValueError(f"a History's blocks hold {BLOCK} events each and its tail fewer")
    return History._set(object.__new__(History), tuple(tuple(b) for b in blocks), tuple(tail))


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


class SeatHistory:
    """The env's per-seat redacted copy of the log, extended as the game goes (append-only),
    with the seat's private facts gathered on the way (cards shown to and by it, revealed to all,
    looked at) and the parts of a view that do not change during a game. :meth:`sync` folds in
    new events; only immutable snapshots leave the env.
    """

    __slots__ = ("_blocks", "_seen", "_snapshot", "_static", "_tail", "facts", "seat")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self._blocks: tuple[tuple[Event, ...], ...] = ()
        self._tail: list[Event] = []
        #: shown_to_me, shown_by_me, revealed, peeked (tuples, replaced when they grow)
        self.facts: list[tuple[tuple[int, int], ...]] = [(), (), (), ()]
        self._seen = 0
        self._snapshot: History = History()
        self._static: dict[str, Any] | None = None

    def sync(self, log: list[Event]) -> History:
        """Fold in the events not seen yet; the current history snapshot."""
        if self._seen >= len(log):
            return self._snapshot
        seat = self.seat
        facts = self.facts
        for ev in log[self._seen :]:
            ev = ev.redacted(seat)
            self._tail.append(ev)
            if len(self._tail) == BLOCK:
                self._blocks = (*self._blocks, tuple(self._tail))
                self._tail = []
            if isinstance(ev, Show):
                if ev.suggester == seat and ev.card >= 0:
                    facts[0] = (*facts[0], (ev.card, ev.refuter))
                elif ev.refuter == seat:
                    facts[1] = (*facts[1], (ev.card, ev.suggester))
            elif isinstance(ev, Reveal):
                fact = (ev.card, ev.holder if ev.holder >= 0 else NOBODY)
                if fact not in facts[2]:  # the deck cycles (R24): a second reveal tells nothing new
                    facts[2] = (*facts[2], fact)
            elif isinstance(ev, Peek) and ev.seat == seat and ev.card >= 0:
                fact = (ev.room, ev.card)
                if fact not in facts[3]:  # looked again: nothing new
                    facts[3] = (*facts[3], fact)
        self._seen = len(log)
        self._snapshot = History._set(object.__new__(History), self._blocks, tuple(self._tail))
        return self._snapshot


def build_seat_view(game: Game, seat: int, history: SeatHistory, legal: tuple[int, ...]) -> SeatView:
    """Seat ``seat``'s :class:`SeatView` of ``game`` (``legal``: its legal action indices, or ``()``)."""
    events = history.sync(game.log)
    static = history._static
    if static is None:  # what does not change during a game
        static = history._static = {
            "seat": seat,
            "num_players": game.n,
            "rules": game.cfg.name,
            "characters": tuple(game.seat_suspect),
            "hand": tuple(sorted(game.hands[seat])),
            "hand_sizes": tuple(len(h) for h in game.hands),
            "max_turns": game.cfg.max_turns,
            "board_card_rooms": tuple(sorted(game.board_cards)),
        }
    over = game.over
    facts = history.facts
    view = object.__new__(SeatView)  # a frozen dataclass, filled without its field-by-field __init__
    d = view.__dict__
    d.update(static)
    d.update(
        phase=game.phase,
        acting=game.acting,
        current=game.current,
        turn=game.turn,
        tokens=tuple(game.loc),
        weapons=tuple(game.weapon_loc),
        eliminated=tuple(game.eliminated),
        pending=tuple(game.pending) if game.pending is not None else None,
        dice=tuple(game.dice),
        roll_total=game.roll_total,
        shown_to_me=facts[0],
        shown_by_me=facts[1],
        revealed=facts[2],
        peeked=facts[3],
        events=events,
        legal=legal,
        over=over,
        winner=game.winner,
        over_reason=game.over_reason if over else None,
        solution=tuple(game.envelope) if over else None,
    )
    return view


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


__all__ = ["BLOCK", "History", "SeatHistory", "SeatInfos", "SeatView", "build_seat_view"]
