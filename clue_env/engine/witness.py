"""Feed one seat's view of the game log into a :class:`~clue_env.engine.knowledge.Knowledge`.

The seat's view is exactly what R31 lets it know: its hand, the public hand sizes, and the log
with other seats' shown cards redacted (``-1``). Used by the ``deduction`` agent and by the env's
optional belief features.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import N_CARDS, ROOM_BASE, WEAPON_BASE
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

    def feed(self, events: Sequence[tuple]) -> bool:
        """Consume the events not seen yet (``events`` is the seat's whole log); True if any."""
        start = self.seen
        if start >= len(events):
            return False
        k = self.knowledge
        me = self.me
        for ev in events[start:]:
            t = ev[0]
            if t == "suggest":
                self._triple = (ev[2], WEAPON_BASE + ev[3], ROOM_BASE + ev[4])
            elif t == "pass":
                if self._triple is not None and ev[1] != me:
                    k.lacks(ev[1], self._triple)
            elif t == "show":
                refuter, suggester, card = ev[1], ev[2], ev[3]
                if refuter == me:
                    self.shown_by_me.setdefault(card, set()).add(suggester)
                elif suggester == me and card >= 0:
                    k.holds(refuter, card)
                    self.shown_to_me[card] = refuter
                elif self._triple is not None:
                    k.has_one_of(refuter, self._triple)
            elif t == "accuse":
                if not ev[5]:
                    k.not_solution((ev[2], WEAPON_BASE + ev[3], ROOM_BASE + ev[4]))
            elif t == "reveal":  # 2023 (R25): ("reveal", seat, card, holder or -1)
                card, holder = ev[2], ev[3]
                if holder >= 0:
                    k.holds(holder, card)
                else:
                    k.nobody_holds(card)
            elif t == "peek":  # R30: ("peek", seat, room, card); card -1 unless it was me
                if ev[1] == me and ev[3] >= 0 and self.board >= 0:
                    k.holds(self.board, ev[3])
                    self.peeked_rooms.add(ev[2])
        self.seen = len(events)
        return True
