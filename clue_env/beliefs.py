"""Belief features: each seat's deduction-engine marginals, appended to its observation.

Enabled with ``clue_env.env(..., belief_features=True)``. For seat v the piece ``belief`` holds,
for every card, the posterior probability that it is held by each rel seat (v first), that it
is in the envelope and that it lies face down on the board (2023 two-player game), under a
uniform prior over the deals consistent with everything v has
witnessed (R31: v's hand, cards shown to v, passes, refutations, hand sizes, wrong accusations).
Two methods: ``belief_features=True`` (or ``"fast"``) fits the propagation engine's
possibility table to the hand sizes and refutations (:mod:`clue_env.engine.marginals`: exact at
the opening, a fraction of a millisecond after); ``"sampled"`` counts the posterior exactly when
that is cheap and otherwise estimates it by importance sampling with a generator seeded from the
env's seed (same seed, same features), slower but closer to the true posterior.
Either is recomputed only when what the seat can conclude changes (:meth:`Knowledge.fingerprint
<clue_env.engine.knowledge.Knowledge.fingerprint>`), and only for the seats observed.
"""

from __future__ import annotations

import numpy as np

from .engine.cards import N_CARDS
from .engine.game import Game
from .engine.knowledge import Contradiction
from .engine.marginals import approx_marginals, only_own_hand, opening_marginals
from .engine.witness import Witness
from .observation import MAX_SEATS, SeatLog


class BeliefFeatures:
    """Per-seat belief vectors, computed lazily on ``observe``."""

    size = N_CARDS * (MAX_SEATS + 2)

    def __init__(self, exact_budget: int = 20_000, samples: int = 128, method: str = "fast") -> None:
        if method not in ("fast", "sampled"):
            raise ValueError(f"method must be 'fast' or 'sampled', got {method!r}")
        self.method = method
        self.exact_budget = exact_budget
        self.samples = samples

    def reset(self, game: Game, rng: np.random.Generator) -> None:
        n = game.n
        sizes = [len(h) for h in game.hands]
        self.n = n
        self.witnesses = [Witness(v, game.hands[v], sizes) for v in range(n)]
        self.rngs = rng.spawn(n)
        self.cache: list[np.ndarray | None] = [None] * n
        self.version = [-1] * n
        self.fingerprint: list[tuple | None] = [None] * n

    def features(self, seat: int, view: SeatLog) -> np.ndarray:
        w = self.witnesses[seat]
        w.feed(view)
        k = w.knowledge
        vec = self.cache[seat]
        if vec is not None and self.version[seat] == k.version:
            return vec
        try:
            fp: tuple | None = k.fingerprint()
        except Contradiction:  # cannot happen with a consistent log
            fp = None
        if vec is None or fp is None or fp != self.fingerprint[seat]:
            # evidence that taught the seat nothing new (fingerprint unchanged) keeps the vector
            self.fingerprint[seat] = fp
            vec = np.zeros((N_CARDS, MAX_SEATS + 2), dtype=np.float32)
            try:
                if self.method == "fast":
                    m = opening_marginals(k, seat) if only_own_hand(k, seat) else approx_marginals(k)
                else:
                    post = k.exact_posterior(self.exact_budget)
                    if post is None:
                        post = k.importance_posterior(self.rngs[seat], samples=self.samples)
                    m = post.marginals
                for s in range(self.n):
                    vec[:, (s - seat) % self.n] = m[:, s]
                vec[:, MAX_SEATS] = m[:, k.ENV]
                if k.H > self.n:  # R30: the board is the extra holder
                    vec[:, MAX_SEATS + 1] = m[:, self.n]
            except Contradiction:  # cannot happen with a consistent log; keep zeros
                pass
            vec = vec.reshape(-1)
            self.cache[seat] = vec
        self.version[seat] = k.version
        return vec
