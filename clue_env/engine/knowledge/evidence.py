"""A seat's evidence about the deal, sound propagation to a fixed point, certain facts, and the
search for a deal consistent with everything (R27, R28, R31)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import TypeVar

import numpy as np

from ..cards import N_ROOMS, N_SUSPECTS, N_WEAPONS
from .base import Contradiction, bits

_K = TypeVar("_K", bound="Evidence")


class Evidence:
    """Evidence, propagation, certain facts and the search for one consistent deal (see the package docstring)."""

    def __init__(
        self,
        hand_sizes: Sequence[int],
        kind_sizes: Sequence[int] = (N_SUSPECTS, N_WEAPONS, N_ROOMS),
        extra_holders: Sequence[int] = (),
    ) -> None:
        self.n = len(hand_sizes)
        self.caps = [int(x) for x in hand_sizes] + [int(x) for x in extra_holders]
        self.H = len(self.caps)  # number of holders; envelope index
        self.ENV = self.H
        self.kind_sizes = tuple(kind_sizes)
        self.C = sum(kind_sizes)
        starts = np.cumsum((0,) + self.kind_sizes)
        self.kind_cards: list[list[int]] = [list(range(starts[k], starts[k + 1])) for k in range(len(kind_sizes))]
        self.kind_of = [k for k, cards in enumerate(self.kind_cards) for _ in cards]
        if sum(self.caps) + len(kind_sizes) != self.C:
            raise ValueError(
                f"hand sizes {list(hand_sizes)} + extra {list(extra_holders)} + envelope do not add up to {self.C} cards"
            )
        self.full = (1 << (self.H + 1)) - 1
        self.poss = [self.full] * self.C
        self.clauses: list[tuple[int, int]] = []  # (holder, card mask): holder holds >= 1 of them
        self.excluded: set[tuple[int, int, int]] = set()
        self._version = 0
        self._prop_version = -1
        self._fp: tuple | None = None
        self._fp_version = -1
        self._chain: list[int] | None = None  # MCMC state: location of every card

    # ------------------------------------------------------------------ evidence
    def copy(self: _K) -> _K:
        k = type(self).__new__(type(self))
        k.__dict__.update(self.__dict__)
        k.poss = list(self.poss)
        k.clauses = list(self.clauses)
        k.excluded = set(self.excluded)
        k._chain = list(self._chain) if self._chain is not None else None
        return k

    def _changed(self) -> None:
        self._version += 1

    @property
    def version(self) -> int:
        """A counter that grows with every piece of evidence added (cache key for derived facts)."""
        return self._version

    def fingerprint(self) -> tuple:
        """A hashable summary of the propagated state: the possibility table, the live refutation
        clauses (in order) and the excluded triples. Everything this class derives (certain facts,
        posteriors, :func:`~clue_env.engine.marginals.approx_marginals`) is a function of it (and
        of the fixed hand sizes and deck), so evidence that taught nothing new keeps the
        fingerprint, and callers can keep what they computed. Raises :class:`Contradiction`.
        """
        self.propagate()
        if self._fp_version != self._version or self._fp is None:
            self._fp = (tuple(self.poss), tuple(self.clauses), frozenset(self.excluded))
            self._fp_version = self._version
        return self._fp

    def holds(self, holder: int, card: int) -> None:
        """``holder`` (a seat or extra holder index) holds ``card``."""
        self.poss[card] &= 1 << holder
        self._changed()

    def in_envelope(self, card: int) -> None:
        self.poss[card] &= 1 << self.ENV
        self._changed()

    def nobody_holds(self, card: int) -> None:
        """No seat holds ``card`` (it is in the envelope or with an extra holder)."""
        self.poss[card] &= ~((1 << self.n) - 1)
        self._changed()

    def lacks(self, holder: int, cards: Iterable[int]) -> None:
        """``holder`` holds none of ``cards`` (a pass, R27)."""
        for c in cards:
            self.poss[c] &= ~(1 << holder)
        self._changed()

    def has_one_of(self, holder: int, cards: Iterable[int]) -> None:
        """``holder`` holds at least one of ``cards`` (an unseen refutation, R27)."""
        mask = 0
        for c in cards:
            mask |= 1 << c
        self.clauses.append((holder, mask))
        self._changed()

    def not_solution(self, triple: Sequence[int]) -> None:
        """The envelope is not ``triple`` (a wrong accusation, R28)."""
        s, w, r = (int(c) for c in triple)
        self.excluded.add((s, w, r))
        self._changed()

    # ------------------------------------------------------------------ propagation
    def propagate(self) -> None:
        """Apply the sound rules to a fixed point; raises :class:`Contradiction`."""
        if self._prop_version == self._version:
            return
        poss = self.poss
        H, ENV = self.H, self.ENV
        changed = True
        while changed:
            changed = False
            for c in range(self.C):
                if poss[c] == 0:
                    raise Contradiction(f"card {c} can be nowhere")
            # holders' capacities
            for h in range(H):
                bit = 1 << h
                fixed = sum(1 for c in range(self.C) if poss[c] == bit)
                possible = [c for c in range(self.C) if poss[c] & bit]
                if fixed > self.caps[h] or len(possible) < self.caps[h]:
                    raise Contradiction(f"holder {h} cannot hold {self.caps[h]} cards")
                if fixed == self.caps[h] and len(possible) > fixed:
                    for c in possible:
                        if poss[c] != bit:
                            poss[c] &= ~bit
                            changed = True
                elif len(possible) == self.caps[h] and fixed < self.caps[h]:
                    for c in possible:
                        if poss[c] != bit:
                            poss[c] = bit
                            changed = True
            # envelope: exactly one card of each kind
            ebit = 1 << ENV
            for cards in self.kind_cards:
                in_env = [c for c in cards if poss[c] == ebit]
                possible = [c for c in cards if poss[c] & ebit]
                if len(in_env) > 1 or not possible:
                    raise Contradiction("the envelope needs exactly one card of each kind")
                if in_env:
                    for c in possible:
                        if c != in_env[0]:
                            poss[c] &= ~ebit
                            changed = True
                elif len(possible) == 1:
                    poss[possible[0]] = ebit
                    changed = True
            # clauses
            keep = []
            for h, mask in self.clauses:
                bit = 1 << h
                live = 0
                sat = False
                for c in bits(mask):
                    if poss[c] == bit:
                        sat = True
                        break
                    if poss[c] & bit:
                        live |= 1 << c
                if sat:
                    continue
                if live == 0:
                    raise Contradiction(f"holder {h} must hold one of cards {bits(mask)} but can hold none")
                only = bits(live)
                if len(only) == 1:
                    poss[only[0]] = bit
                    changed = True
                    continue
                keep.append((h, live))
            self.clauses = keep
            # excluded triples with two kinds certain
            if self.excluded and len(self.kind_cards) == 3:
                env = [[c for c in cards if poss[c] & ebit] for cards in self.kind_cards]
                for k in range(3):
                    others = [env[j] for j in range(3) if j != k]
                    if all(len(o) == 1 for o in others):
                        for c in env[k]:
                            t = [0, 0, 0]
                            t[k] = c
                            j2 = [j for j in range(3) if j != k]
                            t[j2[0]], t[j2[1]] = others[0][0], others[1][0]
                            if tuple(t) in self.excluded:
                                poss[c] &= ~ebit
                                changed = True
        self._prop_version = self._version

    # ------------------------------------------------------------------ certain facts
    def location(self, card: int) -> int | None:
        """The certain location of ``card`` (by propagation), or ``None``."""
        self.propagate()
        p = self.poss[card]
        return p.bit_length() - 1 if p and p & (p - 1) == 0 else None

    def possible_locations(self, card: int) -> list[int]:
        self.propagate()
        return bits(self.poss[card])

    def envelope_candidates(self) -> list[list[int]]:
        """Per kind, the cards that may (by propagation) be in the envelope."""
        self.propagate()
        ebit = 1 << self.ENV
        return [[c for c in cards if self.poss[c] & ebit] for cards in self.kind_cards]

    def envelope_certain(self) -> tuple[int, ...] | None:
        """The solution if propagation alone proves it."""
        cand = self.envelope_candidates()
        if all(len(x) == 1 for x in cand):
            return tuple(x[0] for x in cand)
        return None

    def solution_if_certain(self, max_candidates: int = 64) -> tuple[int, ...] | None:
        """The solution if every other envelope is impossible (complete check by search).

        Candidate triples come from propagation; each is tested for a consistent deal. Returns
        ``None`` when more than one is feasible (or there are more than ``max_candidates``
        candidates, when the solution cannot be certain in practice).
        """
        sure = self.envelope_certain()
        if sure is not None:
            return sure if sure not in self.excluded else None
        cand = [t for t in itertools.product(*self.envelope_candidates()) if t not in self.excluded]
        if len(cand) > max_candidates:
            return None
        feasible = None
        for t in cand:
            if self.find_deal(envelope=t) is not None:
                if feasible is not None:
                    return None
                feasible = t
        return feasible

    # ------------------------------------------------------------------ search
    def _holder_hands(self, unknown: int, envelope_mask: int) -> list[tuple[int, int, list[int]]]:
        """(holder, need, valid hands) for holders with cards still to place."""
        poss = self.poss
        out = []
        for h in range(self.H):
            bit = 1 << h
            fixed = sum(1 for c in range(self.C) if poss[c] == bit)
            need = self.caps[h] - fixed
            if need == 0:
                continue
            cand = [c for c in bits(unknown & ~envelope_mask) if poss[c] & bit]
            clauses = [m for hh, m in self.clauses if hh == h]
            hands = []
            for combo in itertools.combinations(cand, need):
                m = 0
                for c in combo:
                    m |= 1 << c
                if all(m & cm for cm in clauses):
                    hands.append(m)
            out.append((h, need, hands))
        return out

    def _unknown_mask(self) -> int:
        m = 0
        for c in range(self.C):
            p = self.poss[c]
            if p & (p - 1):
                m |= 1 << c
        return m

    def _envelope_options(self) -> list[tuple[tuple[int, ...], int]]:
        """Feasible envelope triples (by propagation and exclusions) with their unknown-card mask."""
        cand = self.envelope_candidates()
        out = []
        for t in itertools.product(*cand):
            if t in self.excluded:
                continue
            m = 0
            for c in t:
                if self.poss[c] != 1 << self.ENV:
                    m |= 1 << c
            out.append((t, m))
        return out

    def find_deal(self, envelope: Sequence[int] | None = None, rng: np.random.Generator | None = None) -> list[int] | None:
        """A consistent deal (location of every card), or ``None`` if there is none."""
        try:
            self.propagate()
        except Contradiction:
            return None
        unknown = self._unknown_mask()
        options = self._envelope_options()
        if envelope is not None:
            options = [o for o in options if o[0] == tuple(envelope)]
        if rng is not None:
            options = [options[i] for i in rng.permutation(len(options))]
        for t, emask in options:
            rest = unknown & ~emask
            holders = self._holder_hands(unknown, emask)
            if rng is not None:
                holders = [(h, need, [hands[i] for i in rng.permutation(len(hands))]) for h, need, hands in holders]
            holders.sort(key=lambda x: len(x[2]))
            if any(not hands for _, _, hands in holders):
                continue
            # every unknown card outside the envelope must be placeable
            coverable = 0
            for _, _, hands in holders:
                for m in hands:
                    coverable |= m
            if rest & ~coverable:
                continue
            failed: set[tuple[int, int]] = set()

            def dfs(k: int, mask: int, chosen: list[int]) -> list[int] | None:
                if k == len(holders):
                    return chosen if mask == 0 else None
                if (k, mask) in failed:
                    return None
                for m in holders[k][2]:
                    if m & ~mask == 0:
                        res = dfs(k + 1, mask ^ m, chosen + [m])
                        if res is not None:
                            return res
                failed.add((k, mask))
                return None

            res = dfs(0, rest, [])
            if res is None:
                continue
            deal = [p.bit_length() - 1 if p & (p - 1) == 0 else -1 for p in self.poss]
            for c in t:
                deal[c] = self.ENV
            for (h, _, _), m in zip(holders, res):
                for c in bits(m):
                    deal[c] = h
            return deal
        return None
