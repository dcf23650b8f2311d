"""The single-learner adapter: checkers, reward accounting (R28/R29), refuting out of turn (R27)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from agents import SpecFactory  # noqa: E402
from clue_env import IllegalMoveError  # noqa: E402
from clue_env.codec import default_codec  # noqa: E402
from clue_env.policy.features import POLICY_LAYOUT  # noqa: E402
from clue_env.training.adapter import SingleLearnerEnv  # noqa: E402

CODEC = default_codec()
DEAL = {
    "envelope": ["plum", "rope", "hall"],
    "hands": {
        "player_0": ["scarlet", "mustard", "candlestick", "kitchen", "ballroom"],
        "player_1": ["white", "green", "dagger", "conservatory", "dining_room"],
        "player_2": ["peacock", "lead_pipe", "revolver", "billiard_room"],
        "player_3": ["wrench", "library", "lounge", "study"],
    },
}
RIGHT = CODEC.from_text("accuse plum rope hall")
WRONG = CODEC.from_text("accuse white rope hall")


class Scripted:
    """Accuses ``accusation`` at its first chance; otherwise plays its first legal non-accusation."""

    def __init__(self, accusation: int | None = None) -> None:
        self.accusation = accusation

    def act(self, observation, info) -> int:
        mask = observation["action_mask"]
        if self.accusation is not None and mask[self.accusation]:
            return self.accusation
        legal = np.flatnonzero(mask)
        return int(legal[legal < CODEC.ACCUSE][0]) if (legal < CODEC.ACCUSE).any() else int(legal[0])


def factory(accusation: int | None = None):
    return lambda seat, n, rules, seed: Scripted(accusation)


def passive(mask: np.ndarray) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[legal < CODEC.ACCUSE][0])


def play_out(e, choose) -> tuple[float, bool, bool, dict]:
    """Step until the episode ends; (total reward, terminated, truncated, last info)."""
    total, done = 0.0, False
    while not done:
        _, r, term, trunc, info = e.step(choose(e.action_masks()))
        total += r
        done = term or trunc
    return total, term, trunc, info


def test_gymnasium_and_sb3_checkers():
    from gymnasium.utils.env_checker import check_env

    check_env(SingleLearnerEnv([SpecFactory("notebook")], num_players=4), skip_render_check=True)
    sb3 = pytest.importorskip("stable_baselines3.common.env_checker")
    sb3.check_env(SingleLearnerEnv([SpecFactory("notebook")], num_players=4))


def test_observation_is_the_learners_own_and_in_space():
    e = SingleLearnerEnv([SpecFactory("random")], num_players=[3, 4, 5, 6])
    for ep in range(6):
        obs, info = e.reset(seed=ep)
        assert obs.shape == (POLICY_LAYOUT.size,) and e.observation_space.contains(obs)
        # the hand in the observation is the learner's own hand
        seat = int(info["seat"].split("_")[1])
        hand = np.flatnonzero(POLICY_LAYOUT.view(obs, "hand"))
        assert sorted(hand) == sorted(e.env.game.hands[seat])


def test_R28_final_reward_reaches_learner_when_an_opponent_wins():
    e = SingleLearnerEnv([factory(RIGHT)], num_players=4, learner_seat=0)
    e.reset(seed=1, options=DEAL)
    total, term, trunc, info = play_out(e, passive)
    assert term and not trunc
    assert total == -1.0 and info["won"] is False and info["wrong_accusation"] is False


def test_R28_learner_eliminated_gets_minus_one_and_episode_ends():
    e = SingleLearnerEnv([factory()], num_players=4, learner_seat=0)
    e.reset(seed=2, options=DEAL)
    assert e.action_masks()[WRONG]
    _, r, term, trunc, info = e.step(WRONG)
    assert (r, term, trunc) == (-1.0, True, False) and info["wrong_accusation"] is True
    assert not e.action_masks().any()
    with pytest.raises(RuntimeError):
        e.step(0)


def test_R28_learner_wins_plus_one():
    e = SingleLearnerEnv([factory()], num_players=4, learner_seat=0)
    e.reset(seed=3, options=DEAL)
    _, r, term, _, info = e.step(RIGHT)
    assert r == 1.0 and term and info["won"] is True


def test_R29_last_player_standing_rewards_the_learner():
    # every opponent accuses wrongly: the learner is the last one standing and wins (classic R29)
    e = SingleLearnerEnv([factory(WRONG)], num_players=3, learner_seat=0)
    deal = {"envelope": DEAL["envelope"], "hands": {
        "player_0": ["scarlet", "mustard", "candlestick", "kitchen", "ballroom", "wrench"],
        "player_1": ["white", "green", "dagger", "conservatory", "dining_room", "library"],
        "player_2": ["peacock", "lead_pipe", "revolver", "billiard_room", "lounge", "study"]}}  # fmt: skip
    e.reset(seed=4, options=deal)
    total, term, trunc, info = play_out(e, passive)
    assert total == 1.0 and info["won"] is True


def test_R27_learner_is_asked_to_refute_out_of_turn():
    e = SingleLearnerEnv([SpecFactory("notebook")], num_players=3, learner_seat=2)
    refuted = False
    for ep in range(20):
        obs, _ = e.reset(seed=ep)
        done = False
        while not done:
            mask = e.action_masks()
            shows = mask[CODEC.SHOW : CODEC.SHOW + 21]
            if shows.any():
                refuted = True
                assert POLICY_LAYOUT.view(obs, "phase")[3] == 1  # REFUTE
                assert all(POLICY_LAYOUT.view(obs, "hand")[np.flatnonzero(shows)] == 1)
            obs, _, term, trunc, _ = e.step(passive(mask))
            done = term or trunc
        if refuted:
            break
    assert refuted


def test_episode_rewards_sum_to_the_game_outcome():
    e = SingleLearnerEnv([SpecFactory("notebook"), SpecFactory("random")], num_players=4, opponent_draw="seat")
    rng = np.random.default_rng(0)
    for ep in range(8):
        e.reset(seed=100 + ep)
        total, term, trunc, info = play_out(e, lambda m: int(rng.choice(np.flatnonzero(m))))
        seat = int(info["seat"].split("_")[1])
        g = e.env.game
        if info["wrong_accusation"]:
            assert total == -1.0
        elif g.winner == seat:
            assert total == 1.0
        elif g.winner >= 0:
            assert total == -1.0
        else:
            assert total == 0.0 and trunc


def test_illegal_action_loses_or_raises_without_change():
    e = SingleLearnerEnv([SpecFactory("random")], num_players=4, learner_seat=0)
    e.reset(seed=5)
    illegal = int(np.flatnonzero(~e.action_masks())[0])
    _, r, term, _, info = e.step(illegal)
    assert (r, term, info.get("illegal_action")) == (-1.0, True, True)
    e2 = SingleLearnerEnv([SpecFactory("random")], num_players=4, learner_seat=0, illegal="raise")
    e2.reset(seed=5)
    before = e2.env.public_state()
    with pytest.raises(IllegalMoveError):
        e2.step(illegal)
    assert e2.env.public_state() == before
    with pytest.raises(ValueError, match="illegal"):
        SingleLearnerEnv([SpecFactory("random")], illegal="ignore")


def test_same_seed_same_episode():
    def run(seed: int) -> list:
        e = SingleLearnerEnv([SpecFactory("notebook")], num_players=[3, 4])
        out = []
        for ep in range(3):
            obs, _ = e.reset(seed=seed if ep == 0 else None)
            rng = np.random.default_rng(ep)
            done = False
            while not done:
                a = int(
                    rng.choice(
                        np.flatnonzero(e.action_masks()[: CODEC.ACCUSE])
                        if e.action_masks()[: CODEC.ACCUSE].any()
                        else np.flatnonzero(e.action_masks())
                    )
                )
                obs, r, term, trunc, _ = e.step(a)
                out.append((a, r, float(obs.sum())))
                done = term or trunc
        return out

    assert run(7) == run(7)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="opponent_weights"):
        SingleLearnerEnv([SpecFactory("random")], opponent_weights=[1, 2])
    with pytest.raises(ValueError, match="learner_seat"):
        SingleLearnerEnv([SpecFactory("random")], num_players=3, learner_seat=5)
    with pytest.raises(ValueError, match="opponent"):
        SingleLearnerEnv([])


class Tagged(Scripted):
    def __init__(self, k: int) -> None:
        super().__init__()
        self.k = k


def tagged(k: int):
    return lambda seat, n, rules, seed: Tagged(k)


def test_opponent_draw_lineup_seats_every_opponent_once_in_every_order():
    e = SingleLearnerEnv([tagged(0), tagged(1), tagged(2)], num_players=4, opponent_draw="lineup")
    orders, seats = set(), set()
    e.reset(seed=11)
    for _ in range(80):
        seat = int(e.learner.split("_")[1])
        seats.add(seat)
        assert e._opp[seat] is None
        kinds = [a.k for a in e._opp if a is not None]
        assert sorted(kinds) == [0, 1, 2] and tuple(kinds) == e.episode_opponents
        orders.add(tuple(e._opp[(seat + i) % 4].k for i in range(1, 4)))  # clockwise from the learner
        e.reset()
    assert seats == {0, 1, 2, 3}
    assert len(orders) == 6  # every circular order of the three opponents around the learner


def test_opponent_draw_game_and_seat():
    one = SingleLearnerEnv([tagged(0), tagged(1)], num_players=4)  # "game": one kind per game
    per_seat = SingleLearnerEnv([tagged(0), tagged(1)], num_players=4, opponent_draw="seat")
    one.reset(seed=3)
    per_seat.reset(seed=3)
    mixed = False
    for _ in range(30):
        assert len(set(one.episode_opponents)) == 1
        mixed |= len(set(per_seat.episode_opponents)) > 1
        one.reset()
        per_seat.reset()
    assert mixed


def test_opponent_draw_lineup_is_deterministic():
    def orders(seed: int) -> list:
        e = SingleLearnerEnv([tagged(0), tagged(1)], num_players=3, opponent_draw="lineup")
        out = []
        for ep in range(10):
            e.reset(seed=seed if ep == 0 else None)
            out.append((e.learner, e.episode_opponents))
        return out

    assert orders(5) == orders(5)
    assert orders(5) != orders(6)


def test_opponent_draw_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="opponent_draw must be one of game, seat, lineup"):
        SingleLearnerEnv([SpecFactory("random")], opponent_draw="pool")
    with pytest.raises(ValueError, match="every player count must be 3"):
        SingleLearnerEnv([SpecFactory("random"), SpecFactory("notebook")], num_players=[3, 4], opponent_draw="lineup")
    with pytest.raises(ValueError, match="opponent_weights has no meaning"):
        SingleLearnerEnv(
            [SpecFactory("random"), SpecFactory("notebook")], num_players=3, opponent_draw="lineup", opponent_weights=[1, 1]
        )
