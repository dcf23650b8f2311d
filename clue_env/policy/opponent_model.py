"""How close each opponent is to proving the solution, simulated from one seat's knowledge.

The accusation head's race inputs (:class:`~clue_env.policy.accusation.RaceTracker`) count
public signs of an opponent's progress. This module estimates that progress directly (feature set
5): draw deals consistent with the seat's evidence, and in each one rebuild every opponent's own
evidence as that opponent saw it, then ask the deduction engine how many envelopes that opponent
still has to tell apart and whether it has proved the solution.

Everything an opponent saw is either public (suggestions, passes, who showed whom, accusations,
Clue-card reveals, which rooms it looked into) or fixed by the drawn deal: its hand; the card it
was shown by this seat (in this seat's log); the card another seat showed it (one of that
refuter's matching cards in the drawn deal, chosen at random); the face-down card in a room it
looked into (R30: known where this seat looked there too, else one of the drawn board cards). So
in the two-player game, where every card an opponent was shown came from this seat, an opponent's
evidence is exactly determined by the drawn deal, up to the face-down cards it saw.

It reads only what R31 lets the seat know (its own knowledge and redacted event log); the drawn
deals are the seat's own hypotheses, never the game's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..engine.cards import N_ROOMS, N_SUSPECTS, N_WEAPONS, ROOM_BASE, WEAPON_BASE
from ..engine.events import HIDDEN, Accuse, Peek, Show, Suggest
from ..engine.knowledge import Contradiction, Knowledge
from ..engine.witness import Witness
from ..observation import MAX_SEATS

#: deals drawn per estimate
OPPONENT_SAMPLES = 16
#: per opponent row: P(proved), mean log(possible envelopes) / log(all), P(at most 4 possible envelopes)
PER_OPPONENT = 3
#: the rows (relative seat 0 = this seat, left zero), then P(some opponent has proved), then whether computed
OPPONENT_FEATURES = MAX_SEATS * PER_OPPONENT + 2
#: opponent knowledge with at most this many possible envelopes is searched for a proof (as ``deduction`` does)
PROOF_CANDIDATES = 8
_LOG_ALL = math.log(N_SUSPECTS * N_WEAPONS * N_ROOMS)


def _room_cards(events: Sequence[Any], me: int) -> dict[int, int]:
    """{room: its face-down card} for the rooms this seat looked into (R30)."""
    return {ev.room: ev.card for ev in events if isinstance(ev, Peek) and ev.seat == me and ev.card != HIDDEN}


def opponent_evidence(
    events: Sequence[Any],
    me: int,
    opponent: int,
    deal: np.ndarray,
    board: int,
    room_cards: dict[int, int],
    rng: np.random.Generator,
) -> list[Any]:
    """``opponent``'s event log as it would read in the drawn ``deal`` (card -> holder), built from
    seat ``me``'s log: the hidden cards shown to it and the face-down cards it looked at are filled
    in from the deal. ``room_cards`` ({room: card}) is extended in place with the face-down cards
    drawn for rooms nobody known looked into, so that one deal places each card once."""
    out: list[Any] = []
    triple: tuple[int, int, int] | None = None
    for ev in events:
        if isinstance(ev, Suggest):
            triple = (ev.suspect, WEAPON_BASE + ev.weapon, ROOM_BASE + ev.room)
        elif isinstance(ev, Show) and ev.suggester == opponent and ev.card == HIDDEN and triple is not None:
            held = [c for c in triple if deal[c] == ev.refuter]
            if held:
                ev = ev._replace(card=int(held[int(rng.integers(len(held)))]))
        elif isinstance(ev, Peek) and ev.seat == opponent and board >= 0:
            card = room_cards.get(ev.room)
            if card is None:
                free = [c for c in np.flatnonzero(deal == board) if int(c) not in room_cards.values()]
                if not free:
                    continue
                card = room_cards[ev.room] = int(free[int(rng.integers(len(free)))])
            ev = ev._replace(card=card)
        out.append(ev)
    return out


def _progress(k: Knowledge) -> tuple[float, float, float]:
    """(proved, log(possible envelopes) / log(all), at most 4 possible) for one opponent's knowledge."""
    cand = k.envelope_candidates()
    sets = [set(c) for c in cand]
    excluded = sum(1 for t in k.excluded if all(c in ks for c, ks in zip(t, sets)))
    count = max(len(cand[0]) * len(cand[1]) * len(cand[2]) - excluded, 1)
    proved = 0.0
    if count <= PROOF_CANDIDATES:
        proved = float(k.solution_if_certain(max_candidates=PROOF_CANDIDATES) is not None)
    return proved, math.log(count) / _LOG_ALL, float(count <= 4)


def opponent_features(
    k: Knowledge,
    events: Sequence[Any],
    me: int,
    num_players: int,
    rng: np.random.Generator,
    samples: int = OPPONENT_SAMPLES,
) -> np.ndarray:
    """Feature set 5's :data:`OPPONENT_FEATURES` inputs for seat ``me`` (evidence ``k``, redacted
    log ``events``): per opponent row (relative seat k, 0 = this seat, zero), the share of drawn
    deals in which it has proved the solution, its mean log number of possible envelopes (scaled
    to [0, 1]), and the share in which it has at most 4 left; then the share of deals in which some
    opponent has proved; then 1 (computed). Eliminated opponents' rows stay zero. All zeros when no
    deal can be drawn."""
    n = num_players
    out = np.zeros(OPPONENT_FEATURES, dtype=np.float32)
    try:
        deals = k.sample_deals(samples, rng, sweeps=1, burn_in=20)
    except Contradiction:
        return out
    out_of = {ev.seat for ev in events if isinstance(ev, Accuse) and not ev.correct}
    sizes = [k.caps[s] for s in range(n)]
    board = n if k.H > n else -1
    mine = _room_cards(events, me)
    rows = out[: MAX_SEATS * PER_OPPONENT].reshape(MAX_SEATS, PER_OPPONENT)
    any_proved = 0.0
    for deal in deals:
        room_cards = dict(mine)
        proved_here = False
        for rel in range(1, n):
            j = (me + rel) % n
            if j in out_of:
                continue
            hand = [int(c) for c in np.flatnonzero(deal == j)]
            w = Witness(j, hand, sizes)
            try:
                w.feed(opponent_evidence(events, me, j, deal, board, room_cards, rng))
                p = _progress(w.knowledge)
            except Contradiction:  # a drawn refuter choice the opponent's log cannot hold: count it as no proof
                continue
            rows[rel] += p
            proved_here = proved_here or p[0] > 0
        any_proved += proved_here
    rows /= len(deals)
    out[MAX_SEATS * PER_OPPONENT] = any_proved / len(deals)
    out[MAX_SEATS * PER_OPPONENT + 1] = 1.0
    return out


__all__ = ["OPPONENT_FEATURES", "OPPONENT_SAMPLES", "PER_OPPONENT", "opponent_evidence", "opponent_features"]
