"""Feed one seat's view of the game log into a :class:`~clue_env.engine.knowledge.Knowledge`.

The seat's view is exactly what R31 lets it know: its hand, the public hand sizes, and the log
with other seats' shown cards redacted (:data:`~clue_env.engine.events.HIDDEN`). Used by the ``deduction`` agent and by the env's
optional belief features.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import N_CARDS, ROOM_BASE, WEAPON_BASE
from .events import HIDDEN, NOBODY, Accuse, Event, Pass, Peek, Reveal, Show, Suggest
from .knowledge import Knowledge


class Witness:
    """Tracks seat ``me``'s knowledge from its event stream (call :meth:`feed` with new events)."""

    def __init__(self, me: int, hand: Sequence[int], hand_sizes: Sequence[int]) -> None:
        self.me = me
        self.n = len(hand_sizes)
        # R30: cards neither dealt nor in the envelope lie face down on the board (one holder)
        on_board = N_CARDS - 3 - sum(hand_sizes)
        self.board = self.n if on_board > 0 else -1
        self.knowledge = Knowledge(hand_sizes, extra_holders=(on_board,) if on_board > 0 else ())
        k = self.knowledge
        for c in hand:
            k.holds(me, c)
        # a seat knows its whole hand: it holds no other card
        others = [c for c in range(k.C) if c not in set(hand)]
        k.lacks(me, others)
        self.seen = 0
        self._triple: tuple[int, int, int] | None = None
        #: cards I showed, and to whom: {card: set(seats)}
        self.shown_by_me: dict[int, set[int]] = {}
        #: cards shown to me: {card: seat}
        self.shown_to_me: dict[int, int] = {}
        #: rooms whose face-down card I have looked at (R30)
        self.peeked_rooms: set[int] = set()

    def feed(self, events: Sequence[Event]) -> bool:
        """Consume the events not seen yet (``events`` is the seat's whole log); True if any."""
        start = self.seen
        if start >= len(events):
            return False
        k = self.knowledge
        me = self.me
        for ev in events[start:]:
            match ev:
                case Suggest(suspect=sus, weapon=w, room=r):
                    self._triple = (sus, WEAPON_BASE + w, ROOM_BASE + r)
                case Pass(seat=j):
                    if self._triple is not None and j != me:
                        k.lacks(j, self._triple)
                case Show(refuter=refuter, suggester=suggester, card=card):
                    if refuter == me:
                        self.shown_by_me.setdefault(card, set()).add(suggester)
                    elif suggester == me and card != HIDDEN:
                        k.holds(refuter, card)
                        self.shown_to_me[card] = refuter
                    elif self._triple is not None:
                        k.has_one_of(refuter, self._triple)
                case Accuse(suspect=sus, weapon=w, room=r, correct=correct) if not correct:
                    k.not_solution((sus, WEAPON_BASE + w, ROOM_BASE + r))
                case Reveal(card=card, holder=holder):  # 2023 (R25)
                    if holder != NOBODY:
                        k.holds(holder, card)
                    else:
                        k.nobody_holds(card)
                case Peek(seat=seat, room=room, card=card):  # R30: the card is HIDDEN unless I looked
                    if seat == me and card != HIDDEN and self.board >= 0:
                        k.holds(self.board, card)
                        self.peeked_rooms.add(room)
        self.seen = len(events)
        return True
