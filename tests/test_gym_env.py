"""clue_env/Clue-v0: one learning seat as a registered Gymnasium env (SPEC "Gymnasium: one learning seat")."""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from helpers import ENVELOPE, HANDS4, RIGHT

import clue_env
from clue_env import IllegalMoveError
from clue_env.codec import default_codec
from clue_env.single_seat import ClueSeatEnv

CODEC = default_codec()
ID = "clue_env/Clue-v0"
DEAL = {"envelope": ENVELOPE, "hands": HANDS4}


def passive(obs: dict) -> int:
    """The first legal action that is not an accusation."""
    legal = np.flatnonzero(obs["action_mask"])
    return int(legal[legal < CODEC.ACCUSE][0])


def play(env: gym.Env, seed: int, choose) -> list:
    """One episode; the (action, reward, terminated, truncated) of every step."""
    obs, _ = env.reset(seed=seed)
    trace, done = [], False
    while not done:
        a = choose(obs)
        obs, r, term, trunc, _ = env.step(a)
        trace.append((a, r, term, trunc))
        done = term or trunc
    return trace


def sampler(seed: int):
    rng = np.random.default_rng(seed)

    def choose(obs: dict) -> int:
        legal = np.flatnonzero(obs["action_mask"])
        non = legal[legal < CODEC.ACCUSE]
        return int(rng.choice(non if len(non) else legal))

    return choose


class Recorder:
    """An opponent that plays passively and records the seats it is asked for."""

    def __init__(self, tag: int, seat: int, log: list) -> None:
        self.tag, self.seat, self.log = tag, seat, log

    def act(self, observation, info) -> int:
        assert info["seat_view"].seat == self.seat  # only its own seat's view
        self.log.append((self.tag, self.seat))
        return passive(observation)


def test_registered_with_its_version_and_clue_env_does_not_import_agents():
    assert gym.spec(ID).entry_point == "agents.gym_env:make_env"
    assert clue_env.ENV_VERSION == 0 and clue_env.raw_env.metadata["name"] == "clue_v0"
    code = "import sys, clue_env, gymnasium, pettingzoo; assert 'clue_env/Clue-v0' in gymnasium.registry; "
    code += "assert 'agents' not in sys.modules, 'clue_env imported agents'; pettingzoo.make('aec', 'clue/clue-v0')"
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("features", [False, True])
def test_spaces_and_check_env(features):
    env = gym.make(ID, opponents="random", num_players=4, features=features)
    size = 1256 if features else 1059
    assert env.observation_space["observation"].shape == (size,)
    assert env.observation_space["action_mask"].shape == (591,) and env.action_space.n == 591
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and set(info) == {"seat", "num_players"}
    assert (env.unwrapped.action_masks() == obs["action_mask"].astype(bool)).all()
    check_env(env.unwrapped, skip_render_check=True)


@pytest.mark.filterwarnings("ignore:.*different from the unwrapped version")
def test_check_env_through_make_and_render():
    env = gym.make(ID, opponents=["random", "notebook"], rules="classic", render_mode="ansi")
    assert env.unwrapped.num_players == 3
    check_env(env, skip_render_check=True)
    env.reset(seed=1)
    assert "Scarlet" in env.render() or "scarlet" in env.render().lower()


@pytest.mark.parametrize("vector", [gym.vector.SyncVectorEnv, gym.vector.AsyncVectorEnv])
def test_vector_envs(vector):
    envs = vector([lambda: gym.make(ID, opponents="random", num_players=3) for _ in range(2)])
    try:
        obs, _ = envs.reset(seed=3)
        rng = np.random.default_rng(0)
        for _ in range(30):
            actions = [int(rng.choice(np.flatnonzero(m[: CODEC.ACCUSE]))) for m in obs["action_mask"]]
            obs, reward, term, trunc, info = envs.step(np.array(actions))
            assert obs["observation"].shape == (2, 1059) and reward.shape == (2,)
    finally:
        envs.close()


def test_reset_seed_reproduces_the_episode_whatever_ran_before():
    env = gym.make(ID, opponents="random", num_players=4)
    first = play(env, 7, sampler(1))
    play(env, 8, sampler(2))
    assert play(env, 7, sampler(1)) == first
    assert play(gym.make(ID, opponents="random", num_players=4), 7, sampler(1)) == first


def test_learner_seat_drawn_or_fixed():
    env = gym.make(ID, opponents="random", num_players=4)
    seats = {env.reset(seed=s)[1]["seat"] for s in range(12)}
    assert len(seats) > 1
    fixed = gym.make(ID, opponents="random", num_players=4, learner_seat=2)
    assert {fixed.reset(seed=s)[1]["seat"] for s in range(4)} == {"player_2"}


def test_a_list_seats_its_opponents_clockwise_from_the_learners_left():
    log: list = []
    factories = [lambda seat, n, rules, seed, t=t: Recorder(t, seat, log) for t in range(3)]
    env = gym.make(ID, opponents=factories, learner_seat=1)
    play(env, 0, passive_until(40))
    assert set(log) == {(0, 2), (1, 3), (2, 0)}


def passive_until(steps: int):
    count = iter(range(10**9))

    def choose(obs: dict) -> int:
        if next(count) >= steps:  # end the episode: a wrong accusation
            legal = np.flatnonzero(obs["action_mask"])
            if (legal >= CODEC.ACCUSE).any():
                return int(legal[legal >= CODEC.ACCUSE][0])
        return passive(obs)

    return choose


def test_agent_objects_and_factories_play():
    log: list = []
    env = gym.make(
        ID, opponents=[Recorder(0, 1, log), "random", lambda seat, n, rules, seed: Recorder(2, seat, log)], learner_seat=0
    )
    play(env, 0, passive_until(30))
    assert {t for t, _ in log} == {0, 2}
    with pytest.raises(ValueError, match="one agent object cannot play several seats"):
        gym.make(ID, opponents=Recorder(0, 1, log))
    drawn = gym.make(ID, opponents=[Recorder(0, 1, log), "random", "random"])
    with pytest.raises(ValueError, match="was built for seat 1"):
        for s in range(10):
            drawn.reset(seed=s)


def test_bad_opponents_are_refused_with_a_clear_error():
    with pytest.raises(ValueError, match="lists 2 opponents but a 4-player game has 3 other seats"):
        gym.make(ID, opponents=["random", "random"], num_players=4)
    with pytest.raises(ValueError, match="unknown agent 'randon'"):
        gym.make(ID, opponents="randon")
    with pytest.raises(ValueError, match="bad parameters for agent 'deduction'"):
        gym.make(ID, opponents="deduction:nonsense=1")
    with pytest.raises(TypeError, match="an opponent is an agent spec"):
        gym.make(ID, opponents=[3, "random", "random"])
    with pytest.raises(ValueError, match="learner_seat"):
        gym.make(ID, opponents="random", num_players=3, learner_seat=3)
    with pytest.raises(ValueError, match="features"):
        gym.make(ID, opponents="random", features="yes")


def test_an_untrained_policy_accuses_at_once():
    """Uniform over the legal actions (a fresh masked policy): the first step is an accusation,
    nearly always wrong, so the episode ends at once with -1."""
    env = gym.make(ID, opponents="random", num_players=4)
    rng = np.random.default_rng(0)
    at_once = 0
    for seed in range(20):
        obs, _ = env.reset(seed=seed)
        _, r, term, _, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        at_once += term and r == -1.0 and info["wrong_accusation"]
    assert at_once >= 18


def test_rewards_reach_the_learner_when_an_opponent_wins():
    right = CODEC.from_text(RIGHT)

    class Accuser:
        def act(self, observation, info) -> int:
            return right if observation["action_mask"][right] else passive(observation)

    env = ClueSeatEnv(lambda seat, n, rules, seed: Accuser(), num_players=4, learner_seat=0)
    obs, _ = env.reset(seed=0, options=DEAL)
    obs, r, term, trunc, info = env.step(passive(obs))
    while not (term or trunc):
        obs, r, term, trunc, info = env.step(passive(obs))
    assert (r, term, info["won"], info["wrong_accusation"]) == (-1.0, True, False, False)
    assert not obs["action_mask"].any() and set(info) == {"seat", "num_players", "won", "wrong_accusation"}


def test_truncation_follows_max_turns_and_illegal_actions():
    env = gym.make(ID, opponents="random", num_players=3, max_turns=6)
    trace = play(env, 0, passive)
    assert trace[-1][1:] == (0.0, False, True)
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, r, term, _, info = env.step(illegal)
    assert (r, term, info["illegal_action"]) == (-1.0, True, True)
    strict = gym.make(ID, opponents="random", illegal="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalMoveError):
        strict.step(illegal)


def test_seat_info_is_what_the_learners_seat_would_get():
    env = gym.make(ID, opponents="random", learner_seat=3)
    env.reset(seed=0)
    assert env.unwrapped.seat_info()["seat_view"].seat == 3
