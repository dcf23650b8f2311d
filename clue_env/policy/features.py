"""What the learned policy observes: the env's observation plus cheap deduction features.

The policy's input is the seat's own observation vector (:data:`clue_env.observation.LAYOUT`)
followed by the pieces of :data:`POLICY_PIECES`, all computed from what R31 lets the seat know:
its observation and its own event history (``info["seat_view"].events``), fed into a
:class:`~clue_env.engine.witness.Witness`. The same code runs in training (the adapter computes
it for the learning seat only) and in play (the ``ppo`` agent computes it for its own seat), so
the two can never drift apart.

``belief`` here is a fast approximation of the posterior marginals: iterative proportional
fitting of the propagation engine's possibility table to the hand sizes and the one-card-per-kind
envelope, with every refutation clause (a seat showed one of three cards) scaled up to hold at
least one card. It costs tens of microseconds, is recomputed only when the seat's evidence
changes, and is exact at the opening (closed form there). ``solution`` is the engine's complete
proof: the triple, once every other envelope is impossible.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..codec import default_codec
from ..engine.cards import N_CARDS, N_ROOMS, N_SUSPECTS, N_WEAPONS
from ..engine.knowledge import Contradiction, Knowledge
from ..engine.marginals import approx_marginals, only_own_hand, opening_marginals
from ..engine.witness import Witness
from ..observation import HAND_SCALE, LAYOUT, MAX_SEATS, PIECES, Layout

_KINDS = ((0, N_SUSPECTS), (N_SUSPECTS, N_WEAPONS), (N_SUSPECTS + N_WEAPONS, N_ROOMS))

#: (name, shape, meaning) appended to the env's observation for the policy.
POLICY_PIECES: tuple[tuple[str, tuple[int, ...], str], ...] = (
    (
        "belief",
        (N_CARDS, MAX_SEATS + 2),
        "approx. P(card c held by rel seat k); then P(c in envelope), P(c face down on the board)",
    ),
    ("solution", (N_CARDS + 1,), "the envelope triple once proved (complete search); last: proved"),
    ("env_candidates", (3,), "cards of each kind that may be in the envelope / kind size"),
    ("env_top", (3,), "largest P(c in envelope) of each kind"),
    ("top_joint", (1,), "product of env_top: rough P(the most likely triple is the solution)"),
)


#: the env's pieces followed by :data:`POLICY_PIECES`
POLICY_LAYOUT = Layout(pieces=PIECES + POLICY_PIECES)
BASE_SIZE = LAYOUT.size


def layout_hash() -> str:
    """A short hash of the observation pieces and the action segments a policy depends on."""
    codec = default_codec()
    text = repr(
        (
            [(n, s) for n, s, _ in POLICY_LAYOUT.pieces],
            [(name, size) for name, _kind, size, _doc in codec.segments],
        )
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class SeatFeatures:
    """The policy pieces for one seat, updated from its observation and event log."""

    size = POLICY_LAYOUT.size - BASE_SIZE

    def __init__(self, seat: int, num_players: int) -> None:
        self.seat = seat
        self.n = num_players
        self.witness: Witness | None = None
        self._version = -1
        self._fingerprint: tuple | None = None
        self._vec = np.zeros(self.size, dtype=np.float32)

    def reset(self) -> None:
        self.witness = None
        self._version = -1
        self._fingerprint = None

    @property
    def knowledge(self) -> Knowledge | None:
        return self.witness.knowledge if self.witness is not None else None

    def _start(self, obs: np.ndarray) -> Witness:
        hand = [int(c) for c in np.flatnonzero(LAYOUT.view(obs, "hand"))]
        rel = np.rint(LAYOUT.view(obs, "hand_size") * HAND_SCALE).astype(int)
        sizes = [0] * self.n
        for j in range(self.n):
            sizes[(self.seat + j) % self.n] = int(rel[j])
        return Witness(self.seat, hand, sizes)

    def update(self, obs: np.ndarray, events: Sequence[Any]) -> np.ndarray:
        """The policy pieces (a float32 vector of :attr:`size`) after feeding new events."""
        if self.witness is None:
            self.witness = self._start(obs)
        w = self.witness
        w.feed(events)
        k = w.knowledge
        if k.version != self._version:
            try:
                fp: tuple | None = k.fingerprint()
            except Contradiction:  # impossible with a consistent log
                fp = None
            if fp is None or fp != self._fingerprint:  # evidence that taught nothing new keeps the vector
                self._vec = self._compute(k)
                self._fingerprint = fp
            self._version = k.version
        return self._vec

    def _compute(self, k: Knowledge) -> np.ndarray:
        n, me = self.n, self.seat
        vec = np.zeros(self.size, dtype=np.float32)
        belief = vec[: N_CARDS * (MAX_SEATS + 2)].reshape(N_CARDS, MAX_SEATS + 2)
        try:
            if only_own_hand(k, me):
                m = opening_marginals(k, me)
            else:
                m = approx_marginals(k)
            sol = k.solution_if_certain(max_candidates=8)
        except Contradiction:  # impossible with a consistent log; leave zeros
            return vec
        for s in range(n):
            belief[:, (s - me) % n] = m[:, s]
        belief[:, MAX_SEATS] = m[:, k.ENV]
        if k.H > n:  # R30: the board is the extra holder
            belief[:, MAX_SEATS + 1] = m[:, n]
        o = N_CARDS * (MAX_SEATS + 2)
        if sol is not None:
            vec[o + np.array(sol)] = 1.0
            vec[o + N_CARDS] = 1.0
        o += N_CARDS + 1
        cand = k.envelope_candidates()
        env = m[:, k.ENV]
        top = 1.0
        for j, (lo, size) in enumerate(_KINDS):
            vec[o + j] = len(cand[j]) / size
            t = float(env[lo : lo + size].max())
            vec[o + 3 + j] = t
            top *= t
        vec[o + 6] = top
        return vec


def policy_observation(obs: np.ndarray, features: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Concatenate the env's observation and the policy pieces."""
    if out is None:
        out = np.empty(POLICY_LAYOUT.size, dtype=np.float32)
    out[:BASE_SIZE] = obs
    out[BASE_SIZE:] = features
    return out


__all__ = [
    "POLICY_LAYOUT",
    "POLICY_PIECES",
    "SeatFeatures",
    "layout_hash",
    "policy_observation",
]
