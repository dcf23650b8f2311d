"""Exact counting of the deals consistent with the evidence (a dynamic programme over holders
with a work budget): the exact posterior and exact samples."""

from __future__ import annotations

import math

import numpy as np

from .base import BudgetExceeded, Contradiction, Posterior, bits
from .evidence import Evidence


class ExactCounting(Evidence):
    """:class:`Evidence` plus exact counting."""

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
            cand = sum(1 for c in bits(unknown) if self.poss[c] & bit)
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
                                for c in bits(m):
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

    def weighted_triples(self, weight: np.ndarray, budget: int = 100_000) -> tuple[dict[tuple[int, ...], float], float, int]:
        """The envelope posterior when the consistent deals are not equally likely: a deal weighs
        the product of ``weight[h, c]`` over every card ``c`` whose holder the evidence leaves open
        and the deal gives to holder ``h`` (cards in the envelope, or whose holder is proved, weigh
        1). Returns ({triple: posterior}, the deals' total weight, their number); raises
        :class:`BudgetExceeded` past ``budget`` counting steps (as :meth:`exact_posterior` would give
        ``None``) and :class:`Contradiction` when no deal is consistent.

        ``weight`` is (holders, cards), positive. With every weight 1 this is the exact posterior's
        triples. An opponent model that makes some hands likelier (R26: what a player names says
        something about what it holds) is a weight per (holder, card)."""
        weight = np.asarray(weight, dtype=float)
        if weight.shape != (self.H, self.C) or not (weight > 0).all():
            raise ValueError(f"weight must be ({self.H}, {self.C}) positive numbers, got shape {weight.shape}")
        tables = self._count_tables(budget)
        if not tables:
            raise Contradiction("no deal is consistent with the evidence")
        hand_weight: list[dict[int, float]] = [{} for _ in range(self.H)]

        def of(h: int, m: int) -> float:
            w = hand_weight[h].get(m)
            if w is None:
                w = float(np.prod(weight[h, bits(m)])) if m else 1.0
                hand_weight[h][m] = w
            return w

        work = 0
        out: dict[tuple[int, ...], float] = {}
        number = 0
        for t, rest, holders, _count, n_t in tables:
            number += n_t
            memo: dict[tuple[int, int], float] = {}
            last = len(holders) - 1

            def wcount(k: int, mask: int, holders: list = holders, memo: dict = memo, last: int = last) -> float:
                nonlocal work
                if k > last:
                    return 1.0 if mask == 0 else 0.0
                v = memo.get((k, mask))
                if v is not None:
                    return v
                h, _need, hands = holders[k]
                s = 0.0
                for m in hands:
                    work += 1
                    if m & ~mask == 0:
                        s += of(h, m) * wcount(k + 1, mask ^ m)
                if work > budget:
                    raise BudgetExceeded
                memo[(k, mask)] = s
                return s

            out[t] = wcount(0, rest)
        total = sum(out.values())
        return {t: w / total for t, w in out.items()}, total, number

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
                for c in bits(m):
                    deal[c] = h
                mask ^= m
            out[i] = deal
        return out
