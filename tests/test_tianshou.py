"""Tianshou's stock PettingZooEnv and Collector collect from clue_env.env() unchanged.

The info each agent gets is fixed in shape (one frozen seat view), so Tianshou's replay buffer
can stack it; a growing event list there used to fail with "shape mismatch".
"""

from __future__ import annotations

import pytest

pytest.importorskip("tianshou")

from tianshou.algorithm.multiagent.marl import MultiAgentPolicy  # noqa: E402
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm  # noqa: E402
from tianshou.data import Collector, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv, PettingZooEnv  # noqa: E402

import clue_env  # noqa: E402
from clue_env.seat_view import SeatView  # noqa: E402


@pytest.mark.parametrize(("players", "rules"), [(3, "classic"), (4, "classic"), (2, "edition2023")])
def test_tianshou_stock_collector_collects_from_the_env(players, rules):
    def make() -> PettingZooEnv:
        return PettingZooEnv(clue_env.env(num_players=players, rules=rules))

    env = make()
    random_policy = MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space).policy
    policy = MultiAgentPolicy({a: random_policy for a in env.agents})
    collector = Collector(policy, DummyVectorEnv([make, make]), VectorReplayBuffer(4000, 2))
    collector.reset()
    result = collector.collect(n_step=600)
    assert result.n_collected_steps == 600 and result.n_collected_episodes > 0
    buf = collector.buffer
    views = buf.info.seat_view[buf.sample_indices(0)]  # every stored step
    assert len(views) == 600
    assert all(isinstance(v, SeatView) for v in views)
    assert {f"player_{v.seat}" for v in views} <= set(env.agents)
