"""Fast belief marginals (``belief_features=True``, the policy's features) and their caching.

``approx_marginals`` was rewritten for speed; it must compute exactly what the plain
implementation below computes (the shipped policy was trained on those numbers). The caches
key on :meth:`Knowledge.fingerprint`, so evidence that teaches nothing new must keep it and
new evidence must change it, and a cached vector must equal a fresh one.
"""

from __future__ import annotations

import numpy as np
import pytest

import clue_env
from clue_env.beliefs import BeliefFeatures
from clue_env.engine.knowledge import Contradiction, Knowledge
from clue_env.engine.marginals import approx_marginals, only_own_hand, opening_marginals


def _reference_marginals(k: Knowledge, iterations: int = 12) -> np.ndarray:
    """The original, plainly written iterative proportional fitting."""
    k.propagate()
    H, C = k.H, k.C
    nk = len(k.kind_sizes)
    poss = ((np.array(k.poss, dtype=np.int64)[:, None] >> np.arange(H + 1)) & 1).astype(np.float64)
    M = np.zeros((C, H + nk))
    M[:, :H] = poss[:, :H]
    for j, cards in enumerate(k.kind_cards):
        M[cards, H + j] = poss[cards, H]
    target = np.array(list(k.caps) + [1.0] * nk)
    clauses = [(h, [c for c in range(C) if (m >> c) & 1]) for h, m in k.clauses]
    clauses = [(h, cs) for h, cs in clauses if not any(k.poss[c] == 1 << h for c in cs)]
    P = M.copy()
    for _ in range(iterations):
        rs = P.sum(axis=1, keepdims=True)
        if (rs <= 0).any():
            raise Contradiction("a card has no possible location")
        P /= rs
        cs = P.sum(axis=0)
        scale = np.divide(target, cs, out=np.zeros_like(cs), where=cs > 0)
        P *= scale
        for h, cards in clauses:
            s = P[cards, h].sum()
            if 0 < s < 1:
                P[cards, h] /= s
    P /= P.sum(axis=1, keepdims=True)
    out = np.zeros((C, H + 1))
    out[:, :H] = P[:, :H]
    out[:, H] = P[:, H:].sum(axis=1)
    return out


def _knowledge_states(games: int, players: int, rules: str = "classic") -> list[Knowledge]:
    """Copies of every seat's knowledge along random never-accusing games."""
    env = clue_env.env(num_players=players, rules=rules, belief_features=True)
    raw = env.unwrapped
    no_acc = np.ones(raw.codec.n, dtype=np.int8)
    no_acc[raw.codec.accuse_slice] = 0
    rng = np.random.default_rng(0)
    out: list[Knowledge] = []
    for g in range(games):
        env.reset(seed=g)
        for moves, _agent in enumerate(env.agent_iter(max_iter=600)):
            obs, _r, term, trunc, _i = env.last()
            if moves % 7 == 0:
                out.extend(w.knowledge.copy() for w in raw.beliefs.witnesses)
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"] & no_acc))))
    return out


@pytest.mark.parametrize(("players", "rules"), [(3, "classic"), (4, "classic"), (6, "classic"), (2, "edition2023")])
def test_approx_marginals_is_the_reference_computation_bit_for_bit(players, rules):
    states = _knowledge_states(3, players, rules)
    with_clauses = 0
    for k in states:
        with_clauses += bool(k.clauses)
        np.testing.assert_array_equal(approx_marginals(k.copy()), _reference_marginals(k.copy()))
    assert len(states) > 100
    assert with_clauses > 10 or players == 2  # the clause path was exercised (2 players see every refutation)


def test_approx_marginals_are_distributions_that_respect_hand_sizes():
    for k in _knowledge_states(2, 4)[::5]:
        m = approx_marginals(k.copy())
        np.testing.assert_allclose(m.sum(axis=1), 1.0, atol=1e-9)  # every card is somewhere
        assert (m >= 0).all()
        for h in range(k.H):
            assert m[:, h].sum() == pytest.approx(k.caps[h], abs=0.5)  # soft clauses pull it off by up to ~0.3
        for cards in k.kind_cards:  # one envelope card per kind
            assert m[cards, k.ENV].sum() == pytest.approx(1.0, abs=0.2)  # up to ~0.12 seen


def test_approx_marginals_raises_on_a_contradiction():
    k = Knowledge([6, 6, 6])
    for c in range(3):  # all three remaining-capacity holders and the envelope ruled out for card 0
        k.lacks(c, [0])
    k.poss[0] &= ~(1 << k.ENV)
    with pytest.raises(Contradiction):
        approx_marginals(k)


def test_opening_marginals_are_exact_in_closed_form():
    k = Knowledge([6, 6, 6])
    for c in (0, 7, 13, 14, 15, 20):
        k.holds(0, c)
    k.propagate()  # seat 0's hand is full: nobody else holds those cards, seat 0 holds no other
    assert only_own_hand(k, 0)
    m = opening_marginals(k, 0)
    assert m[0, 0] == 1.0 and m[1, k.ENV] == pytest.approx(1 / 5)  # 5 unseen suspects
    assert m[1, 1] == pytest.approx((1 - 1 / 5) / 2)  # the rest split between the two others
    np.testing.assert_allclose(m, approx_marginals(k.copy()), atol=1e-6)


def test_fingerprint_keeps_still_for_redundant_evidence_and_moves_for_new():
    k = Knowledge([6, 6, 6])
    k.holds(0, 0)
    fp = k.fingerprint()
    k.lacks(1, [0])  # already implied: card 0 is seat 0's
    assert k.version > 0 and k.fingerprint() == fp
    k.lacks(1, [1])
    assert k.fingerprint() != fp
    fp = k.fingerprint()
    k.has_one_of(2, [0, 5])  # seat 2 cannot hold card 0, so it holds 5: a new fact
    assert k.fingerprint() != fp
    fp = k.fingerprint()
    k.not_solution((1, 6, 12))
    assert k.fingerprint() != fp


def test_cached_belief_vectors_equal_fresh_ones():
    """The env's cache (keyed on the fingerprint) never serves a stale vector."""
    env = clue_env.env(num_players=4, belief_features=True)
    raw = env.unwrapped
    rng = np.random.default_rng(1)
    no_acc = np.ones(raw.codec.n, dtype=np.int8)
    no_acc[raw.codec.accuse_slice] = 0
    env.reset(seed=5)
    checked = 0
    for _agent in env.agent_iter(max_iter=400):
        obs, _r, term, trunc, _i = env.last()
        seat = raw.possible_agents.index(env.agent_selection)
        fresh = BeliefFeatures()
        fresh.reset(raw.game, np.random.default_rng(0))
        vec = fresh.features(seat, raw.encoder.views[seat])
        np.testing.assert_array_equal(obs["observation"][-BeliefFeatures.size :], vec)
        checked += 1
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"] & no_acc))))
    assert checked > 100
