"""benchmarks/accusation_features.py: feature set 1 read out of a set-2 recording (issue 15), so the
two heads are compared on the very same games."""

from __future__ import annotations

import os
import sys

import numpy as np

from clue_env.engine.events import Show, Suggest, Turn
from clue_env.policy.accusation import STOP_FEATURES, STOP_FEATURES_V2, RaceTracker, stop_features
from clue_env.policy.features import SeatFeatures
from clue_env.training.accusation_fit import Trajectory

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
import accusation_features  # noqa: E402


def test_set1_columns_of_a_set2_vector_are_the_set1_vector():
    rng = np.random.default_rng(0)
    race = RaceTracker(5, 2, [0, 8, 20])
    race.feed([Turn(2, 1), Suggest(3, 0, 1, 2), Show(2, 3, 0), Turn(3, 2), Suggest(4, 0, 2, 3), Show(1, 4, -1)])
    policy = rng.random(SeatFeatures.size).astype(np.float32)  # any seat features
    args = (0.37, True, 12)
    v1 = stop_features(policy, *args, race.per_seat(2, 3, 1), 30, False, 5)
    v2 = stop_features(policy, *args, race.per_seat(2, 3, 2), 30, False, 5)
    assert v1.shape == (STOP_FEATURES,) and v2.shape == (STOP_FEATURES_V2,)
    cols = accusation_features.set1_columns()
    assert np.array_equal(v2[cols], v1)
    assert sorted(set(range(STOP_FEATURES_V2)) - set(cols.tolist())) != []  # the new inputs are left out
    t = Trajectory(
        7, 2, np.stack([v2, v2]), np.array([0, 1], np.float32), np.zeros((2, 8, 2), np.float32), np.array([-1, 0]), 1.0
    )
    (p,) = accusation_features.as_set1([t])
    assert p.x.shape == (2, STOP_FEATURES) and np.array_equal(p.x[0], v1) and (p.game, p.seat, p.won) == (7, 2, 1.0)


def test_set1_columns_of_a_set3_vector_are_the_set1_vector():
    from clue_env.engine.knowledge import Knowledge
    from clue_env.policy.accusation import STOP_FEATURES_V3

    race = RaceTracker(4, 0, [1])
    race.feed([Turn(1, 1), Suggest(1, 3, 4, 5), Show(1, 0, 1)])
    k = Knowledge([5, 5, 4, 4])
    k.holds(0, 1)
    k.holds(1, 3)
    policy = np.random.default_rng(1).random(SeatFeatures.size).astype(np.float32)
    v1 = stop_features(policy, 0.2, False, 30, race.per_seat(0, 1, 1), 10, True, 4)
    v3 = stop_features(policy, 0.2, False, 30, race.per_seat(0, 1, 3, k), 10, True, 4)
    assert v3.shape == (STOP_FEATURES_V3,)
    assert np.array_equal(v3[accusation_features.set1_columns(3)], v1)
    t = Trajectory(1, 0, v3[None], np.zeros(1, np.float32), np.zeros((1, 8, 2), np.float32), np.array([-1]), 0.0)
    assert np.array_equal(accusation_features.as_set1([t])[0].x[0], v1)


def test_set3_columns_of_a_set5_recording_are_its_set3_inputs_and_other_pairs_are_refused():
    """A set-5 recording holds set 3's inputs first (head_inputs appends the opponents' simulated
    progress): the comparison reads them back, and a pair of sets it cannot nest is refused."""
    import pytest

    from clue_env.policy.accusation import STOP_FEATURES_V3, STOP_FEATURES_V5

    x = np.random.default_rng(2).random((3, STOP_FEATURES_V5)).astype(np.float32)
    t = Trajectory(4, 1, x, np.zeros(3, np.float32), np.zeros((3, 8, 2), np.float32), np.array([-1, 0, 1]), 0.0)
    (b,) = accusation_features.as_baseline([t], 3)
    assert b.x.shape == (3, STOP_FEATURES_V3) and np.array_equal(b.x, x[:, :STOP_FEATURES_V3])
    with pytest.raises(SystemExit, match="set 5 against 3"):
        accusation_features.baseline_columns(5, 1)
    with pytest.raises(SystemExit, match="cannot compare"):
        accusation_features.baseline_columns(3, 3)


def test_opponent_tells_script_separates_deduction_from_notebook(tmp_path):
    """benchmarks/opponent_tells.py: a few games; deduction opponents are caught naming their own
    cards, notebook ones (which never name a card they hold) almost never."""
    import json

    import opponent_tells

    out = tmp_path / "tells.json"
    assert opponent_tells.main(["--games", "12", "--seed", "5", "--json", str(out)]) == 0
    data = json.loads(out.read_text())["by_opponent"]
    assert data["deduction"]["opponent_games"] + data["notebook"]["opponent_games"] == 36
    assert data["deduction"]["opponents_caught_by_the_end"] > 0.3
    assert data["notebook"]["opponents_caught_by_the_end"] < data["deduction"]["opponents_caught_by_the_end"]


def test_set5_columns_of_a_set6_recording_are_its_set5_inputs_and_two_triple_columns():
    """A set-6 recording holds set 5's inputs first and a third column per candidate triple (its tell
    probability): the set-5 baseline reads the first columns of both back."""
    from clue_env.policy.accusation import STOP_FEATURES_V5, STOP_FEATURES_V6

    rng = np.random.default_rng(3)
    x = rng.random((2, STOP_FEATURES_V6)).astype(np.float32)
    tr = rng.random((2, 8, 3)).astype(np.float32)
    t = Trajectory(5, 0, x, np.zeros(2, np.float32), tr, np.array([0, -1]), 1.0)
    (b,) = accusation_features.as_baseline([t], 5)
    assert b.x.shape == (2, STOP_FEATURES_V5) and np.array_equal(b.x, x[:, :STOP_FEATURES_V5])
    assert b.triples.shape == (2, 8, 2) and np.array_equal(b.triples, tr[..., :2])
    import pytest

    with pytest.raises(SystemExit, match="set 6 against 5"):
        accusation_features.baseline_columns(6, 3)
