"""The deduction engine against brute-force enumeration on reduced decks (issue 3)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from clue_env.engine.knowledge import Contradiction, Knowledge


def _all_deals(kind_sizes, hand_sizes):
    """Every (envelope, hands) deal of a reduced deck, as location lists (envelope = n)."""
    n = len(hand_sizes)
    starts = np.cumsum((0,) + tuple(kind_sizes))
    kinds = [range(starts[k], starts[k + 1]) for k in range(3)]
    C = int(starts[-1])
    for env in itertools.product(*kinds):
        rest = [c for c in range(C) if c not in env]

        def place(i, counts, deal):
            if i == len(rest):
                yield list(deal)
                return
            for h in range(n):
                if counts[h] < hand_sizes[h]:
                    counts[h] += 1
                    deal[rest[i]] = h
                    yield from place(i + 1, counts, deal)
                    counts[h] -= 1
            deal[rest[i]] = -1

        deal = [-1] * C
        for c in env:
            deal[c] = n
        yield from place(0, [0] * n, deal)


def _random_evidence(rng, kind_sizes, hand_sizes, viewer):
    """A true deal and the evidence ``viewer`` gathers from random suggestions (R27, R28)."""
    n = len(hand_sizes)
    deals = list(_all_deals(kind_sizes, hand_sizes))
    truth = deals[rng.integers(len(deals))]
    k = Knowledge(hand_sizes, kind_sizes)
    for c, loc in enumerate(truth):
        if loc == viewer:
            k.holds(viewer, c)
    starts = np.cumsum((0,) + tuple(kind_sizes))
    for _ in range(rng.integers(0, 7)):
        sug = int(rng.integers(n))
        triple = [int(rng.integers(starts[i], starts[i + 1])) for i in range(3)]
        for step in range(1, n):
            j = (sug + step) % n
            held = [c for c in triple if truth[c] == j]
            if not held:
                k.lacks(j, triple)
                continue
            shown = held[rng.integers(len(held))]
            if viewer in (sug, j):
                if sug == viewer:
                    k.holds(j, shown)
            else:
                k.has_one_of(j, triple)
            break
    if rng.random() < 0.5:
        env = tuple(c for c in range(len(truth)) if truth[c] == n)
        wrong = tuple(int(rng.integers(starts[i], starts[i + 1])) for i in range(3))
        if wrong != env:
            k.not_solution(wrong)
    return truth, k


def _brute(k, kind_sizes, hand_sizes):
    n = len(hand_sizes)
    C = sum(kind_sizes)
    marg = np.zeros((C, n + 1))
    triples = {}
    total = 0
    for deal in _all_deals(kind_sizes, hand_sizes):
        if not all(k.poss_initial[c] >> deal[c] & 1 for c in range(C)):
            continue
        env = tuple(c for c in range(C) if deal[c] == n)
        if env in k.excluded_initial:
            continue
        if not all(any(deal[c] == h for c in cards) for h, cards in k.clauses_initial):
            continue
        total += 1
        for c in range(C):
            marg[c, deal[c]] += 1
        triples[env] = triples.get(env, 0) + 1
    return total, marg / max(total, 1), {t: v / total for t, v in triples.items()}


def _snapshot(k):
    k.poss_initial = list(k.poss)
    k.excluded_initial = set(k.excluded)
    k.clauses_initial = [(h, [c for c in range(k.C) if m >> c & 1]) for h, m in k.clauses]


@pytest.mark.parametrize("hand_sizes", [(3, 3), (2, 2, 2), (2, 2, 1, 1)])
def test_exact_posterior_matches_brute_force_on_reduced_decks(hand_sizes):
    rng = np.random.default_rng(sum(hand_sizes) * 7 + len(hand_sizes))
    kind_sizes = (3, 3, 3)
    cases = 0
    for _ in range(70):
        viewer = int(rng.integers(len(hand_sizes)))
        truth, k = _random_evidence(rng, kind_sizes, hand_sizes, viewer)
        _snapshot(k)
        total, marg, triples = _brute(k, kind_sizes, hand_sizes)
        assert total >= 1  # the truth is always consistent
        post = k.posterior(budget=10**9)
        assert post.exact
        assert post.count == total
        np.testing.assert_allclose(post.marginals, marg, atol=1e-12)
        assert set(post.triples) == set(triples)
        for t, p in triples.items():
            assert post.triples[t] == pytest.approx(p, abs=1e-12)
        # certain facts agree with probabilities 0/1
        for c in range(k.C):
            loc = k.location(c)
            if loc is not None:
                assert marg[c, loc] == pytest.approx(1.0)
        sol = k.solution_if_certain()
        envs = [t for t, p in triples.items() if p > 0]
        assert sol == (envs[0] if len(envs) == 1 else None)
        # the deal found by search is consistent; the truth is too
        assert k.is_consistent(truth)
        assert k.is_consistent(k.find_deal(rng=rng))
        cases += 1
    assert cases == 70


def test_mcmc_estimate_is_close_to_exact_on_reduced_deck():
    rng = np.random.default_rng(3)
    worst = 0.0
    for _ in range(10):
        truth, k = _random_evidence(rng, (3, 3, 3), (2, 2, 2), 0)
        exact = k.exact_posterior(budget=10**9)
        est = k.estimate_posterior(rng, samples=3000)
        worst = max(worst, float(np.abs(exact.marginals - est.marginals).max()))
    assert worst < 0.06


def test_contradiction_is_detected():
    k = Knowledge((3, 3), (3, 3, 3))
    k.holds(0, 0)
    k.holds(1, 0)
    with pytest.raises(Contradiction):
        k.propagate()


def test_importance_estimate_converges_to_exact_on_reduced_decks():
    rng = np.random.default_rng(11)
    worst = 0.0
    for _ in range(12):
        _, k = _random_evidence(rng, (3, 3, 3), (2, 2, 2), 1)
        exact = k.exact_posterior(budget=10**9)
        est = k.importance_posterior(rng, samples=6000)
        assert not est.exact and est.count > 100
        worst = max(worst, float(np.abs(exact.marginals - est.marginals).max()))
    assert worst < 0.06


def test_importance_estimate_is_unbiased_across_runs():
    """Averaged over independent runs the estimate approaches the exact value."""
    rng = np.random.default_rng(5)
    _, k = _random_evidence(rng, (3, 3, 3), (2, 2, 1, 1), 0)
    exact = k.exact_posterior(budget=10**9)
    runs = [k.importance_posterior(np.random.default_rng(s), samples=300).marginals for s in range(60)]
    mean = np.mean(runs, axis=0)
    assert np.abs(mean - exact.marginals).max() < 0.03


@pytest.mark.parametrize("hand_sizes", [(3, 3), (2, 2, 2), (2, 2, 1, 1)])
def test_weighted_triples_match_a_brute_force_weighted_count(hand_sizes):
    """R26 (a player's suggestions say something about its hand): with a weight per (holder,
    card), each consistent deal weighs the product over the open cards it deals; the weighted
    posterior equals a brute-force sum over every consistent deal, and with unit weights it is
    the exact posterior."""
    rng = np.random.default_rng(41 + sum(hand_sizes))
    kind_sizes = (3, 3, 3)
    n = len(hand_sizes)
    for _ in range(40):
        viewer = int(rng.integers(n))
        _truth, k = _random_evidence(rng, kind_sizes, hand_sizes, viewer)
        _snapshot(k)
        plain = k.exact_posterior(budget=10**9)
        ones, total1, number1 = k.weighted_triples(np.ones((k.H, k.C)), budget=10**9)
        assert number1 == plain.count and total1 == pytest.approx(plain.count)
        assert set(ones) == set(plain.triples)
        for t, p in plain.triples.items():
            assert ones[t] == pytest.approx(p, abs=1e-12)
        weight = rng.uniform(0.05, 1.0, size=(k.H, k.C))
        post, total, number = k.weighted_triples(weight, budget=10**9)
        # open after propagation (a card it places sits there in every consistent deal: a constant factor)
        open_cards = [c for c in range(k.C) if k.poss[c] & (k.poss[c] - 1)]
        brute: dict[tuple[int, ...], float] = {}
        count = 0
        for deal in _all_deals(kind_sizes, hand_sizes):
            if not all(k.poss_initial[c] >> deal[c] & 1 for c in range(k.C)):
                continue
            env = tuple(c for c in range(k.C) if deal[c] == n)
            if env in k.excluded_initial or not all(any(deal[c] == h for c in cards) for h, cards in k.clauses_initial):
                continue
            count += 1
            w = float(np.prod([weight[deal[c], c] for c in open_cards if deal[c] < n]))
            brute[env] = brute.get(env, 0.0) + w
        assert number == count
        assert total == pytest.approx(sum(brute.values()), rel=1e-9)
        assert set(post) == set(brute)
        for t, w in brute.items():
            assert post[t] == pytest.approx(w / total, rel=1e-9)


def test_weighted_triples_refuse_bad_weights():
    k = Knowledge((3, 3), (3, 3, 3))
    with pytest.raises(ValueError, match="positive"):
        k.weighted_triples(np.zeros((k.H, k.C)))
    with pytest.raises(ValueError, match="shape"):
        k.weighted_triples(np.ones((k.H + 1, k.C)))
