"""GroupedSubprocVecEnv: several environments per worker process, masks sent with observations."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

from agents import SpecFactory  # noqa: E402
from clue_env.training.adapter import SingleLearnerEnv  # noqa: E402
from clue_env.training.vec_env import GroupedSubprocVecEnv  # noqa: E402


def _make() -> SingleLearnerEnv:
    return SingleLearnerEnv([SpecFactory("random")], num_players=3)


def _actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


@pytest.mark.parametrize(("n_envs", "workers"), [(3, 2), (4, 1)])
def test_grouped_vec_env_equals_dummy_vec_env(n_envs, workers):
    """Same seeds, same actions: same observations, rewards, dones, terminal observations, masks."""
    grouped = GroupedSubprocVecEnv([_make] * n_envs, n_workers=workers)
    dummy = DummyVecEnv([_make] * n_envs)
    try:
        assert grouped.groups == [list(g) for g in np.array_split(np.arange(n_envs), workers)]
        for v in (grouped, dummy):
            v.seed(7)
        obs_g, obs_d = grouped.reset(), dummy.reset()
        np.testing.assert_array_equal(obs_g, obs_d)
        rng = np.random.default_rng(0)
        episodes = 0
        for _ in range(300):
            m_g = np.stack(grouped.env_method("action_masks"))
            np.testing.assert_array_equal(m_g, np.stack(dummy.env_method("action_masks")))
            a = _actions(m_g, rng)
            og, rg, dg, ig = grouped.step(a)
            od, rd, dd, idd = dummy.step(a)
            np.testing.assert_array_equal(og, od)
            np.testing.assert_array_equal(rg, rd)
            np.testing.assert_array_equal(dg, dd)
            for x, y in zip(ig, idd):
                assert x.keys() == y.keys()
                if "terminal_observation" in x:
                    np.testing.assert_array_equal(x["terminal_observation"], y["terminal_observation"])
                    assert x["TimeLimit.truncated"] == y["TimeLimit.truncated"]
            episodes += int(dg.sum())
        assert episodes > 0  # auto-reset was exercised
        assert grouped.env_method("action_masks", indices=[n_envs - 1])[0].shape == (grouped.action_space.n,)
        assert grouped.get_attr("illegal_reward") == dummy.get_attr("illegal_reward") == [-1.0] * n_envs
        grouped.set_attr("illegal", "raise", indices=[0])
        assert grouped.get_attr("illegal") == ["raise"] + ["lose"] * (n_envs - 1)
        assert grouped.has_attr("action_masks") and not grouped.has_attr("no_such_thing")
    finally:
        grouped.close()
        dummy.close()
    grouped.close()  # closing twice is harmless


class _Boom(gym.Env):
    observation_space = gym.spaces.Box(0, 1, (2,), np.float32)
    action_space = gym.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return np.zeros(2, np.float32), {}

    def step(self, action):
        raise ValueError("boom: this env cannot step")


def test_a_worker_error_is_raised_with_its_traceback():
    v = GroupedSubprocVecEnv([_Boom, _Boom], n_workers=2)
    try:
        v.reset()
        with pytest.raises(RuntimeError, match=r"(?s)worker 0 \(envs \[0\]\) raised.*boom: this env cannot step"):
            v.step(np.array([0, 1]))
    finally:
        v.close()


def test_a_failing_env_function_is_reported():
    def bad() -> gym.Env:
        raise OSError("no such board file")

    with pytest.raises(RuntimeError, match="no such board file"):
        GroupedSubprocVecEnv([bad], n_workers=1)
