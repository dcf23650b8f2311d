"""Approximate posteriors when counting is too costly: a Markov chain over consistent deals and
importance sampling; and the front door, :meth:`Knowledge.posterior`."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from .base import Contradiction, Posterior, bits
from .exact import ExactCounting


class Knowledge(ExactCounting):
    """What one seat knows about the deal (see the package docstring)."""

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
            steps = burn_in * max(1, len(bits(self._unknown_mask())))
            self._mcmc(state, steps, rng)
        unknown = bits(self._unknown_mask())
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
            if not any(deal[c] == h for c in bits(mask)):
                return False
        return True

    def _mcmc(self, deal: list[int], steps: int, rng: np.random.Generator) -> None:
        unknown = bits(self._unknown_mask())
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
                for c in bits(m):
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
