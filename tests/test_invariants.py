"""Random playouts with every invariant checked after every step (3-6 players, many seeds).

The full 10,000-game run is ``python benchmarks/random_games.py``; this is its fast sample.
"""

from __future__ import annotations

import numpy as np
import pytest

import clue_env
from clue_env.testing import InvariantError, PlayoutStats, check_invariants, play_random_game


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_random_games_keep_every_invariant(n):
    env = clue_env.raw_env(num_players=n)
    stats = PlayoutStats()
    for seed in range(12):
        play_random_game(env, seed, accuse_prob=0.02, stats=stats)
    assert stats.games == 12


@pytest.mark.parametrize("n", [3, 6])
def test_never_accusing_games_end_at_max_turns(n):
    env = clue_env.raw_env(num_players=n, max_turns=60)
    stats = PlayoutStats()
    for seed in range(3):
        play_random_game(env, seed, accuse_prob=0.0, stats=stats)
    assert stats.truncated == 3
    assert env.game.turn == 60
    assert all(env.truncations.values()) and not any(env.terminations.values())


def test_variants_keep_every_invariant():
    for kw in (
        {"tokens_on_board": "players_only"},
        {"full_roll": False},
        {"accuse_anywhere": False},
        {"last_player_standing": False},
        {"repeat_suggestion": "stay"},
    ):
        env = clue_env.raw_env(num_players=4, **kw)
        for seed in range(4):
            play_random_game(env, seed, accuse_prob=0.05)


def test_invariant_checker_catches_a_broken_position():
    env = clue_env.raw_env(num_players=4)
    env.reset(seed=0)
    check_invariants(env)
    g = env.game
    g.hands[0].append(g.hands[1][0])  # a card in two hands
    with pytest.raises(InvariantError, match="exactly one place|owner"):
        check_invariants(env)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_random_2023_games_keep_every_invariant(n):
    env = clue_env.raw_env(num_players=n, rules="edition2023")
    for seed in range(6):
        play_random_game(env, seed, accuse_prob=0.02)


def test_invariant_checker_catches_a_wrong_mask():
    env = clue_env.raw_env(num_players=4)
    env.reset(seed=0)
    env._mask = np.zeros(env.codec.n, dtype=np.int8)
    env._mask[env.codec.base["end"]] = 1
    with pytest.raises(InvariantError, match="mask"):
        check_invariants(env)
