"""Exact counting of the deals consistent with the evidence (a dynamic programme over holders
with a work budget): the exact posterior and exact samples."""

from __future__ import annotations

import math

import numpy as np

from .base import BudgetExceeded, Contradiction, Posterior, _bits
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
