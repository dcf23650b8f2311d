"""Deduction over everything one seat has witnessed (R3's detective notebook, done exactly).

A :class:`Knowledge` holds the evidence a seat has (R31):

* its own hand and every card shown to it (``holds``);
* passes: the seat holds none of the named cards (``lacks``);
* refutations between other seats: the refuter holds at least one of the named cards
  (``has_one_of``, a *clause*);
* hand sizes (public), one card of each kind in the envelope (R5);
* wrong accusations: that triple is not the solution (``not_solution``);
* cards revealed to all / held by nobody (2023, R25/R30) via ``holds`` / ``nobody_holds``.

From it, it derives

* **certain facts** by constraint propagation (sound, fast): :meth:`propagate`,
  :meth:`location`, :meth:`envelope_certain`; and a complete test of whether the solution is
  certain (:meth:`solution_if_certain`), which proves every other envelope impossible by search;
* the **posterior** under a uniform prior over deals consistent with the evidence: the
  probability of every card's location and of every envelope triple. :meth:`posterior` counts
  the consistent deals exactly (a dynamic programme over holders with a work budget), which is
  always feasible on reduced decks and late in full-deck games; otherwise it estimates them from
  a Markov chain over consistent deals (swap moves with a uniform stationary distribution), whose
  error against exact counts is measured in the test suite.

Locations are holder indices: seats ``0..n-1``, then any extra holders (e.g. the 2023
two-player game's board, R30), then the envelope (``self.ENV``). Decks may be reduced (e.g. 3
suspects x 3 weapons x 3 rooms) for testing against brute force.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np


class Contradiction(ValueError):
    """The evidence admits no deal."""


class BudgetExceeded(Exception):
    pass


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


@dataclass
class Posterior:
    """Probabilities under a uniform prior over consistent deals."""

    #: marginals[c, loc] = P(card c is at location loc); columns: holders..., envelope
    marginals: np.ndarray
    #: P(envelope == triple) for every triple with non-zero probability (cards as flat indices)
    triples: dict[tuple[int, int, int], float]
    #: True when counted exactly; False when estimated from samples
    exact: bool
    #: number of consistent deals (exact) or of samples (estimate)
    count: float


class Knowledge:
    """What one seat knows about the deal (see module docstring)."""

    def __init__(
        self,
        hand_sizes: Sequence[int],
        kind_sizes: Sequence[int] = (6, 6, 9),
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
    def copy(self) -> Knowledge:
        k = Knowledge.__new__(Knowledge)
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
                for c in _bits(mask):
                    if poss[c] == bit:
                        sat = True
                        break
                    if poss[c] & bit:
                        live |= 1 << c
                if sat:
                    continue
                if live == 0:
                    raise Contradiction(f"holder {h} must hold one of cards {_bits(mask)} but can hold none")
                only = _bits(live)
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
        return _bits(self.poss[card])

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
            cand = [c for c in _bits(unknown & ~envelope_mask) if poss[c] & bit]
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
                for c in _bits(m):
                    deal[c] = h
            return deal
        return None

    # ------------------------------------------------------------------ exact posterior
    def _count_tables(self, budget: int) -> list[tuple]:
        """Per feasible envelope triple: (triple, unknown cards outside it, holders, count, n).

        ``count(k, mask)`` is the number of ways to give the cards in ``mask`` to holders
        ``k..`` (memoised). Raises :class:`BudgetExceeded` past ``budget`` steps.
        """
        self.propagate()
        unknown = self._unknown_mask()
        work = [0]
        tables = []
        # cheap bound first: enumerating the holders' candidate hands alone must fit the budget
        enum = 0
        for h in range(self.H):
            bit = 1 << h
            need = self.caps[h] - sum(1 for c in range(self.C) if self.poss[c] == bit)
            cand = sum(1 for c in _bits(unknown) if self.poss[c] & bit)
            enum += math.comb(cand, need) if need > 0 else 0
        if 4 * enum > budget:
            raise BudgetExceeded
        hands_all = self._holder_hands(unknown, 0)
        for t, emask in self._envelope_options():
            rest = unknown & ~emask
            holders = [(h, need, [m for m in hands if m & emask == 0]) for h, need, hands in hands_all]
            holders.sort(key=lambda x: len(x[2]))
            memo: dict[tuple[int, int], int] = {}
            last = len(holders) - 1

            def count(k: int, mask: int, holders=holders, memo=memo, last=last) -> int:
                if k > last:
                    return 1 if mask == 0 else 0
                key = (k, mask)
                v = memo.get(key)
                if v is not None:
                    return v
                s = 0
                for m in holders[k][2]:
                    work[0] += 1
                    if m & ~mask == 0:
                        s += count(k + 1, mask ^ m)
                if work[0] > budget:
                    raise BudgetExceeded
                memo[key] = s
                return s

            n_t = count(0, rest)
            if n_t:
                tables.append((tuple(t), rest, holders, count, n_t))
        return tables

    def exact_posterior(self, budget: int = 300_000) -> Posterior | None:
        """Count every consistent deal; ``None`` when that takes more than ``budget`` steps."""
        try:
            tables = self._count_tables(budget)
        except BudgetExceeded:
            return None
        marg = np.zeros((self.C, self.H + 1))
        triples: dict[tuple[int, int, int], float] = {}
        total = 0
        work = 0
        fixed_loc = [p.bit_length() - 1 if p & (p - 1) == 0 else -1 for p in self.poss]
        for t, rest, holders, count, n_t in tables:
            total += n_t
            triples[t] = n_t
            # forward pass: weight of reaching each state, then card marginals
            fwd: dict[int, int] = {rest: 1}
            for k, (h, _need, hands) in enumerate(holders):
                nxt: dict[int, int] = {}
                for mask, w in fwd.items():
                    for m in hands:
                        work += 1
                        if m & ~mask == 0:
                            sub = count(k + 1, mask ^ m)
                            if sub:
                                contrib = w * sub
                                for c in _bits(m):
                                    marg[c, h] += contrib
                                nxt[mask ^ m] = nxt.get(mask ^ m, 0) + w
                fwd = nxt
                if work > budget:
                    return None
            for c in t:
                marg[c, self.ENV] += n_t
            for c in range(self.C):
                if fixed_loc[c] >= 0 and c not in t:
                    marg[c, fixed_loc[c]] += n_t
        if total == 0:
            raise Contradiction("no deal is consistent with the evidence")
        return Posterior(marg / total, {k: v / total for k, v in triples.items()}, True, float(total))

    def exact_samples(self, n: int, rng: np.random.Generator, budget: int = 50_000) -> np.ndarray | None:
        """``n`` independent deals drawn exactly uniformly from the consistent ones (``None``
        when counting them takes more than ``budget`` steps)."""
        try:
            tables = self._count_tables(budget)
        except BudgetExceeded:
            return None
        if not tables:
            raise Contradiction("no deal is consistent with the evidence")
        weights = np.array([tb[4] for tb in tables], dtype=float)
        which = rng.choice(len(tables), size=n, p=weights / weights.sum())
        base = [p.bit_length() - 1 if p & (p - 1) == 0 else -1 for p in self.poss]
        out = np.empty((n, self.C), dtype=np.int64)
        for i, ti in enumerate(which):
            t, mask, holders, count, _ = tables[ti]
            deal = list(base)
            for c in t:
                deal[c] = self.ENV
            for k, (h, _need, hands) in enumerate(holders):
                options = [(m, count(k + 1, mask ^ m)) for m in hands if m & ~mask == 0]
                ws = np.array([w for _, w in options], dtype=float)
                m = options[int(rng.choice(len(options), p=ws / ws.sum()))][0]
                for c in _bits(m):
                    deal[c] = h
                mask ^= m
            out[i] = deal
        return out

    # ------------------------------------------------------------------ sampling
    def sample_deals(
        self, n: int, rng: np.random.Generator, sweeps: int = 4, burn_in: int = 40, exact_budget: int = 20_000
    ) -> np.ndarray:
        """``n`` deals, uniform over the consistent ones. Returns an ``(n, C)`` array of locations.

        When the consistent deals can be counted within ``exact_budget`` steps they are drawn
        exactly (:meth:`exact_samples`). Otherwise they come from a Markov chain whose stationary
        law is uniform: moves swap the locations of two cards or rotate three, and are taken
        whenever the result is consistent, and every 64th move re-splits the cards of two
        locations uniformly (a Gibbs step); ``sweeps`` moves per unknown card separate samples.
        (Constrained positions, where such a chain can mix badly, are the ones small enough to
        count.)
        """
        self.propagate()
        exact = self.exact_samples(n, rng, budget=exact_budget) if exact_budget > 0 else None
        if exact is not None:
            return exact
        state = self._chain
        if state is None or not self.is_consistent(state):
            state = self.find_deal(rng=rng)
            if state is None:
                raise Contradiction("no deal is consistent with the evidence")
            steps = burn_in * max(1, len(_bits(self._unknown_mask())))
            self._mcmc(state, steps, rng)
        unknown = _bits(self._unknown_mask())
        out = np.empty((n, self.C), dtype=np.int64)
        per = max(1, sweeps * len(unknown))
        for i in range(n):
            self._mcmc(state, per, rng)
            out[i] = state
        self._chain = state
        return out

    def is_consistent(self, deal: Sequence[int]) -> bool:
        poss = self.poss
        counts = [0] * (self.H + 1)
        for c, loc in enumerate(deal):
            if loc < 0 or not poss[c] >> loc & 1:
                return False
            counts[loc] += 1
        if counts[: self.H] != self.caps:
            return False
        env = [c for c in range(self.C) if deal[c] == self.ENV]
        if [self.kind_of[c] for c in env] != list(range(len(self.kind_cards))):
            return False
        if tuple(env) in self.excluded:
            return False
        for h, mask in self.clauses:
            if not any(deal[c] == h for c in _bits(mask)):
                return False
        return True

    def _mcmc(self, deal: list[int], steps: int, rng: np.random.Generator) -> None:
        unknown = _bits(self._unknown_mask())
        if len(unknown) < 2:
            return
        poss = self.poss
        ENV = self.ENV
        kind_of = self.kind_of
        by_holder: dict[int, list[int]] = {}
        for h, mask in self.clauses:
            by_holder.setdefault(h, []).append(mask)
        excluded = self.excluded
        u = len(unknown)
        picks = rng.integers(0, u, size=(steps, 3))
        threes = rng.random(steps) < 0.2

        def clauses_ok(h: int) -> bool:
            for mask in by_holder.get(h, ()):
                m = mask
                ok = False
                while m:
                    low = m & -m
                    if deal[low.bit_length() - 1] == h:
                        ok = True
                        break
                    m ^= low
                if not ok:
                    return False
            return True

        def env_ok() -> bool:
            if not excluded:
                return True
            return tuple(c for c in range(self.C) if deal[c] == ENV) not in excluded

        locs_all = list(range(self.H + 1))
        for i in range(steps):
            if i % 64 == 63:
                self._block_move(deal, unknown, locs_all, rng, clauses_ok, env_ok)
                continue
            a, b, c3 = unknown[picks[i, 0]], unknown[picks[i, 1]], unknown[picks[i, 2]]
            la, lb = deal[a], deal[b]
            if threes[i]:
                lc = deal[c3]
                if len({la, lb, lc}) < 3:
                    continue
                # rotate a->lb, b->lc, c->la
                if not (poss[a] >> lb & 1 and poss[b] >> lc & 1 and poss[c3] >> la & 1):
                    continue
                # the envelope keeps one card of each kind: what enters it replaces its own kind
                if (la == ENV and kind_of[c3] != kind_of[a]) or (lb == ENV and kind_of[a] != kind_of[b]):
                    continue
                if lc == ENV and kind_of[b] != kind_of[c3]:
                    continue
                deal[a], deal[b], deal[c3] = lb, lc, la
                if all(loc == ENV or clauses_ok(loc) for loc in (la, lb, lc)) and (ENV not in (la, lb, lc) or env_ok()):
                    continue
                deal[a], deal[b], deal[c3] = la, lb, lc
                continue
            if la == lb or not (poss[a] >> lb & 1 and poss[b] >> la & 1):
                continue
            if (la == ENV or lb == ENV) and kind_of[a] != kind_of[b]:
                continue
            deal[a], deal[b] = lb, la
            ok = (la == ENV or clauses_ok(la)) and (lb == ENV or clauses_ok(lb))
            if ok and (la == ENV or lb == ENV):
                ok = env_ok()
            if not ok:
                deal[a], deal[b] = la, lb

    def _block_move(self, deal, unknown, locs_all, rng, clauses_ok, env_ok) -> None:
        """Gibbs update of two locations: re-split their unknown cards uniformly among the valid
        splits (keeps the uniform law; connects positions that single swaps cannot)."""
        la, lb = (int(x) for x in rng.choice(len(locs_all), size=2, replace=False))
        pool = [c for c in unknown if deal[c] in (la, lb)]
        size_a = sum(1 for c in pool if deal[c] == la)
        if not pool or size_a == 0 or size_a == len(pool) or len(pool) > 9:
            return
        ENV = self.ENV
        env_kinds = sorted(self.kind_of[c] for c in pool if deal[c] == ENV)
        poss = self.poss
        valid = []
        original = [deal[c] for c in pool]
        for combo in itertools.combinations(range(len(pool)), size_a):
            chosen = set(combo)
            ok = True
            for j, c in enumerate(pool):
                loc = la if j in chosen else lb
                if not poss[c] >> loc & 1:
                    ok = False
                    break
            if not ok:
                continue
            if ENV in (la, lb):
                in_env = [self.kind_of[c] for j, c in enumerate(pool) if (la if j in chosen else lb) == ENV]
                if sorted(in_env) != env_kinds:
                    continue
            for j, c in enumerate(pool):
                deal[c] = la if j in chosen else lb
            if (la == ENV or clauses_ok(la)) and (lb == ENV or clauses_ok(lb)) and (ENV not in (la, lb) or env_ok()):
                valid.append(combo)
        pick = valid[int(rng.integers(len(valid)))] if valid else None
        for j, c in enumerate(pool):
            deal[c] = original[j] if pick is None else (la if j in pick else lb)

    def importance_posterior(self, rng: np.random.Generator, samples: int = 400) -> Posterior:
        """Estimate the posterior by importance sampling (self-normalised, consistent).

        Each draw picks a feasible envelope uniformly, then each holder's hand uniformly among
        its valid hands within the cards left, and is weighted by the inverse of the
        probability of having drawn it (dead ends weigh 0). Draws are independent, so unlike a
        local Markov chain nothing can get stuck; ``count`` is the effective sample size.
        """
        self.propagate()
        unknown = self._unknown_mask()
        options = self._envelope_options()
        if not options:
            raise Contradiction("no envelope is consistent with the evidence")
        holders = self._holder_hands(unknown, 0)
        holders.sort(key=lambda x: len(x[2]))
        arrays = [(h, np.array(hands, dtype=np.int64)) for h, _need, hands in holders]
        base = [p.bit_length() - 1 if p & (p - 1) == 0 else -1 for p in self.poss]
        locs = self.H + 1
        marg = np.zeros((self.C, locs))
        triples: dict[tuple[int, int, int], float] = {}
        weights = []
        log_opts = math.log(len(options))
        picks = rng.integers(0, len(options), size=samples)
        for i in range(samples):
            t, emask = options[int(picks[i])]
            rest = unknown & ~emask
            logq = -log_opts
            deal = list(base)
            ok = True
            for h, hands in arrays:
                valid = hands[(hands & ~rest) == 0] if len(hands) else hands
                if len(valid) == 0:
                    ok = False
                    break
                m = int(valid[int(rng.integers(len(valid)))])
                logq -= math.log(len(valid))
                rest ^= m
                for c in _bits(m):
                    deal[c] = h
            if not ok or rest:
                continue
            w = math.exp(-logq)
            for c in t:
                deal[c] = self.ENV
            weights.append(w)
            marg[np.arange(self.C), deal] += w
            triples[t] = triples.get(t, 0.0) + w  # type: ignore[index, arg-type]
        total = sum(weights)
        if total == 0:
            raise Contradiction("no consistent deal was drawn (the evidence may be contradictory)")
        ess = total * total / sum(w * w for w in weights)
        return Posterior(marg / total, {k: v / total for k, v in triples.items()}, False, float(ess))

    def estimate_posterior(self, rng: np.random.Generator, samples: int = 400, exact_budget: int = 0) -> Posterior:
        """Marginals from ``samples`` deals (the Markov chain unless ``exact_budget`` allows counting)."""
        deals = self.sample_deals(samples, rng, exact_budget=exact_budget)
        locs = self.H + 1
        marg = np.zeros((self.C, locs))
        for loc in range(locs):
            marg[:, loc] = (deals == loc).mean(axis=0)
        triples: dict[tuple[int, int, int], float] = {}
        env_rows = [tuple(int(c) for c in np.flatnonzero(row == self.ENV)) for row in deals]
        for t in env_rows:
            triples[t] = triples.get(t, 0.0) + 1.0 / samples  # type: ignore[index, arg-type]
        return Posterior(marg, triples, False, float(samples))

    def posterior(self, rng: np.random.Generator | None = None, budget: int = 300_000, samples: int = 400) -> Posterior:
        """Exact when the count fits in ``budget`` steps, else estimated by importance sampling."""
        exact = self.exact_posterior(budget)
        if exact is not None:
            return exact
        return self.importance_posterior(rng if rng is not None else np.random.default_rng(0), samples)
