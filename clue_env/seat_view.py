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

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .engine.cards import CARDS, ROOMS, SUSPECTS, WEAPONS
from .engine.events import NOBODY, Event, Peek, Reveal, Show, location, player
from .engine.game import Game, Phase


@dataclass(frozen=True)
class SeatView:
    """What seat :attr:`seat` may know now (see the module docstring)."""

    seat: int
    num_players: int
    rules: str
    #: the suspect each seat plays
    characters: tuple[int, ...]
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    phase: Phase
    #: the seat that must decide now (-1 once the game is over)
    acting: int
    #: the seat whose turn it is
    current: int
    turn: int
    max_turns: int
    #: board node of every suspect's token (rooms are nodes 0-8, ``OFF_BOARD`` = -1)
    tokens: tuple[int, ...]
    #: room of every weapon
    weapons: tuple[int, ...]
    eliminated: tuple[bool, ...]
    #: (suggester, suspect, weapon, room) while a suggestion awaits its refutation
    pending: tuple[int, int, int, int] | None
    dice: tuple[int, ...]
    roll_total: int
    #: (card, the seat that showed it to me), in order
    shown_to_me: tuple[tuple[int, int], ...]
    #: (card, the seat I showed it to), in order
    shown_by_me: tuple[tuple[int, int], ...]
    #: (card, holder or -1 for nobody) revealed to everyone (R25), each once
    revealed: tuple[tuple[int, int], ...]
    #: (room, card) face-down cards I looked at (R30), each once
    peeked: tuple[tuple[int, int], ...]
    #: rooms holding a face-down card (R30; which card is private)
    board_card_rooms: tuple[int, ...]
    #: my redacted event history, oldest first
    events: tuple[Event, ...]
    #: legal action indices (empty unless I must act now)
    legal: tuple[int, ...]
    over: bool
    winner: int
    over_reason: str | None
    #: the envelope (suspect, weapon, room), once the game is over
    solution: tuple[int, int, int] | None

    @property
    def agent(self) -> str:
        return f"player_{self.seat}"

    @property
    def my_suspect(self) -> int:
        return self.characters[self.seat]

    @property
    def my_node(self) -> int:
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

    def to_json(self) -> dict[str, Any]:
        """The view as JSON: card, room and suspect ids, ``player_k`` seats, nodes as room ids or ``[row, col]``."""
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
            "events": [_event_json(ev, self.seat, board) for ev in self.events],
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
    looked at). :meth:`sync` folds in new events; the lists never leave the env (views get tuples).
    """

    __slots__ = ("_seen", "events", "peeked", "revealed", "seat", "shown_by_me", "shown_to_me")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.events: list[Event] = []
        self.shown_to_me: list[tuple[int, int]] = []
        self.shown_by_me: list[tuple[int, int]] = []
        self.revealed: list[tuple[int, int]] = []
        self.peeked: list[tuple[int, int]] = []
        self._seen = 0

    def sync(self, log: list[Event]) -> None:
        if self._seen >= len(log):
            return
        seat = self.seat
        for ev in log[self._seen :]:
            ev = ev.redacted(seat)
            self.events.append(ev)
            t = type(ev)
            if t is Show:
                if ev.suggester == seat and ev.card >= 0:  # type: ignore[attr-defined]
                    self.shown_to_me.append((ev.card, ev.refuter))  # type: ignore[attr-defined]
                elif ev.refuter == seat:  # type: ignore[attr-defined]
                    self.shown_by_me.append((ev.card, ev.suggester))  # type: ignore[attr-defined]
            elif t is Reveal:
                fact = (ev.card, ev.holder if ev.holder >= 0 else NOBODY)  # type: ignore[attr-defined]
                if fact not in self.revealed:  # the deck cycles (R24): a second reveal tells nothing new
                    self.revealed.append(fact)
            elif t is Peek and ev.seat == seat and ev.card >= 0:  # type: ignore[attr-defined]
                if (ev.room, ev.card) not in self.peeked:  # type: ignore[attr-defined]  # looked again: nothing new
                    self.peeked.append((ev.room, ev.card))  # type: ignore[attr-defined]
        self._seen = len(log)


def build_seat_view(game: Game, seat: int, history: SeatHistory, legal: tuple[int, ...]) -> SeatView:
    """Seat ``seat``'s :class:`SeatView` of ``game`` (``legal``: its legal action indices, or ``()``)."""
    history.sync(game.log)
    over = game.over
    return SeatView(
        seat=seat,
        num_players=game.n,
        rules=game.cfg.name,
        characters=tuple(game.seat_suspect),
        hand=tuple(sorted(game.hands[seat])),
        hand_sizes=tuple(len(h) for h in game.hands),
        phase=game.phase,
        acting=game.acting,
        current=game.current,
        turn=game.turn,
        max_turns=game.cfg.max_turns,
        tokens=tuple(game.loc),
        weapons=tuple(game.weapon_loc),
        eliminated=tuple(bool(e) for e in game.eliminated),
        pending=tuple(game.pending) if game.pending is not None else None,  # type: ignore[arg-type]
        dice=tuple(game.dice),
        roll_total=game.roll_total,
        shown_to_me=tuple(history.shown_to_me),
        shown_by_me=tuple(history.shown_by_me),
        revealed=tuple(history.revealed),
        peeked=tuple(history.peeked),
        board_card_rooms=tuple(sorted(game.board_cards)),
        events=tuple(history.events),
        legal=legal,
        over=over,
        winner=game.winner,
        over_reason=game.over_reason if over else None,
        solution=tuple(game.envelope) if over else None,  # type: ignore[arg-type]
    )


__all__ = ["SeatHistory", "SeatView", "build_seat_view"]
