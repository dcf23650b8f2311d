"""``notebook``: a careful beginner with a detective notebook (R3).

Marks its own cards and every card shown to it, and notes when nobody could refute its own
suggestion (then the named cards it does not hold are in the envelope); heads for the nearest room whose card it has
not seen; suggests a suspect and a weapon it has not seen; accuses only when exactly one
candidate of each kind remains; refutes with a random matching card.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from clue_env.codec import default_codec
from clue_env.engine.board import classic_board
from clue_env.engine.cards import N_CARDS, N_ROOMS, N_SUSPECTS, N_WEAPONS, ROOM_BASE, WEAPON_BASE
from clue_env.engine.events import HIDDEN, NOBODY, NoRefute, Peek, Reveal, Suggest
from clue_env.engine.game import Phase
from clue_env.seat_view import SeatView

from . import register_agent
from .base import Agent

CODEC = default_codec()
#: take the secret passage to a wanted room when every other wanted room is farther than this
PASSAGE_IF_FARTHER = 6
BOARD = classic_board()


class NotebookAgent(Agent):
    def reset(self) -> None:
        self._seen_events = 0
        self._last_suggestion: tuple[int, int, int] | None = None
        self.in_envelope: set[int] = set()
        self.noted: set[int] = set()  # revealed to all (R25) or seen on the board (R30)
        self.nobody_holds: set[int] = set()
        self.peeked_rooms: set[int] = set()

    def _read_log(self, events: Any) -> None:
        for ev in events[self._seen_events :]:
            match ev:
                case Suggest(seat=seat, suspect=sus, weapon=w, room=r) if seat == self.seat:
                    self._last_suggestion = (sus, WEAPON_BASE + w, ROOM_BASE + r)
                case NoRefute(suggester=seat) if seat == self.seat and self._last_suggestion:
                    # nobody else holds them; with cards on the board (R30) they may lie there instead
                    if not self._board_game:
                        self.in_envelope.update(self._last_suggestion)
                case Reveal(card=card, holder=holder):
                    if holder != NOBODY:
                        self.noted.add(card)
                    else:
                        self.nobody_holds.add(card)
                case Peek(seat=seat, room=room, card=card) if seat == self.seat and card != HIDDEN:
                    self.noted.add(card)
                    self.peeked_rooms.add(room)
        self._seen_events = len(events)
        for c in self.nobody_holds:
            if c not in self.noted and not self._board_game:
                self.in_envelope.add(c)  # R25: nobody holds it and no card lies on the board

    def candidates(self, view: SeatView) -> list[list[int]]:
        seen = np.zeros(N_CARDS, dtype=bool)
        seen[list(view.hand)] = True
        seen[[card for card, _by in view.shown_to_me]] = True
        seen[list(self.noted)] = True
        out = []
        for lo, size in ((0, N_SUSPECTS), (WEAPON_BASE, N_WEAPONS), (ROOM_BASE, N_ROOMS)):
            cand = [c for c in range(lo, lo + size) if not seen[c]]
            known = [c for c in cand if c in self.in_envelope]
            out.append(known[:1] or cand)
        return out

    def envelope_candidates(self, view: SeatView) -> list[list[int]]:
        """Per kind, the cards its notebook still leaves possible for the envelope (the ones it
        would accuse with once each list has one card), from its own ``view`` (R31). Reads the
        log as :meth:`act` does and chooses nothing, so diagnostics may read it too."""
        self._board_game = bool(view.board_card_rooms)
        self._read_log(view.events)
        return self.candidates(view)

    def _pick(self, items: list[int]) -> int:
        return items[int(self.rng.integers(len(items)))]

    def _suggest(self, sus: list[int], wep: list[int]) -> int:
        """A suspect and a weapon it has not seen (any, once all of a kind are seen)."""
        s = self._pick(sus or list(range(N_SUSPECTS)))
        w = self._pick(wep or list(range(WEAPON_BASE, WEAPON_BASE + N_WEAPONS))) - WEAPON_BASE
        return CODEC.suggest(s, w)

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        view: SeatView = info["seat_view"]
        mask = observation["action_mask"]
        phase = view.phase
        if phase == Phase.REFUTE:
            cards = [c for c in range(N_CARDS) if mask[CODEC.show(c)]]
            return CODEC.show(self._pick(cards))
        sus, wep, rms = self.envelope_candidates(view)
        if mask[CODEC.ACCUSE] or mask[CODEC.accuse_slice].any():
            if len(sus) == 1 and len(wep) == 1 and len(rms) == 1:
                s, w, r = sus[0], wep[0] - WEAPON_BASE, rms[0] - ROOM_BASE
                return CODEC.accuse(s, w, r)
        targets = [c - ROOM_BASE for c in rms]
        # R30: rooms where a face-down card still waits to be looked at
        targets += [r for r in view.board_card_rooms if r not in self.peeked_rooms]
        targets = sorted(set(targets))
        me = view.my_node
        solved = len(sus) == 1 and len(wep) == 1 and len(rms) == 1
        if self.rules.roll_first:
            return self._act_2023(view, mask, phase, targets, me, sus, wep, solved)
        if phase == Phase.START:
            here = me if 0 <= me < N_ROOMS else -1
            if mask[CODEC.STAY] and here in targets:
                return CODEC.STAY
            if mask[CODEC.PASSAGE] and BOARD.passage[here] in targets:
                nearest = min(BOARD.dist_to_room[me][r] for r in targets if r != here) if len(targets) > 1 else 99
                if nearest > PASSAGE_IF_FARTHER:
                    return CODEC.PASSAGE
            return CODEC.ROLL
        if phase == Phase.MOVE:
            options = [r for r in targets if r != me] or targets
            goal = min(options, key=lambda r: (BOARD.dist_to_room[me][r], r))
            return CODEC.toward(goal)
        if phase == Phase.SUGGEST:
            return self._suggest(sus, wep)
        return CODEC.END

    def _act_2023(self, view, mask, phase, targets, me, sus, wep, solved) -> int:
        """R12: roll first; then stay, take the passage, enter or head for a room, or end."""
        here = me if 0 <= me < N_ROOMS else -1
        if phase == Phase.START:
            return CODEC.ROLL
        if phase == Phase.MOVE:
            if solved:
                targets = list(range(N_ROOMS))  # R28: accuse from any room
            # stay to suggest again, but not in the room of its previous, fruitless suggestion
            repeat = self._last_suggestion is not None and self._last_suggestion[2] - ROOM_BASE == here
            if mask[CODEC.STAY] and here in targets and (solved or not repeat):
                return CODEC.STAY
            if repeat:
                targets = [r for r in targets if r != here] or targets
            enter = [r for r in targets if mask[CODEC.enter(r)] and r != here]
            if enter:
                return CODEC.enter(min(enter, key=lambda r: (BOARD.dist_to_room[me][r], r)))
            if mask[CODEC.PASSAGE] and BOARD.passage[here] in targets:
                return CODEC.PASSAGE
            options = [r for r in targets if r != here]
            if options and mask[CODEC.TOWARD]:
                return CODEC.toward(min(options, key=lambda r: (BOARD.dist_to_room[me][r], r)))
            if mask[CODEC.STAY]:
                return CODEC.STAY
            return CODEC.END
        if phase == Phase.SUGGEST:
            return self._suggest(sus, wep)
        return CODEC.END


register_agent("notebook", NotebookAgent)
