"""benchmarks/accusation_bound.py: how much accusing before proof (R28) could gain at most, with
perfect foresight or a rule that reads every opponent's own state (issue 15: can accusation timing
alone reach the open lines?). A diagnostic; the notebook's ``envelope_candidates`` it reads changes
nothing in play."""

from __future__ import annotations

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
import accusation_bound  # noqa: E402

# envelope (suspect 1, weapon 2, room 3) as card ids: 1, 6 + 2, 12 + 3 (cards.py's bases)
RIGHT = [1, 8, 15]
WRONG = [1, 8, 16]


def _game(won: bool, records: list, winner: str | None = "deduction", proof: int = -1) -> dict:
    return {"won": won, "winner": None if won else winner, "proof_turn": proof, "envelope": [1, 2, 3], "records": records}


def test_is_right_reads_card_ids_against_kind_indices():
    from clue_env.engine.cards import ROOM_BASE, WEAPON_BASE

    assert RIGHT == [1, WEAPON_BASE + 2, ROOM_BASE + 3]
    assert accusation_bound.is_right(_game(True, []), RIGHT)
    assert not accusation_bound.is_right(_game(True, []), WRONG)


def test_foresight_wins_a_lost_game_only_when_the_last_chance_was_right_r28():
    lost_right = _game(False, [[5, 0.2, WRONG, [4]], [9, 0.4, RIGHT, [2]]])
    lost_wrong = _game(False, [[5, 0.2, RIGHT, [4]], [9, 0.4, WRONG, [2]]])
    proved_then_lost = _game(False, [[5, 0.2, RIGHT, [4]]], proof=7)
    nobody_won = _game(False, [[5, 0.2, RIGHT, [4]]], winner=None)
    assert accusation_bound.foresight(lost_right)
    assert not accusation_bound.foresight(lost_wrong)
    assert not accusation_bound.foresight(proved_then_lost)  # the bound is about accusing before proof
    assert not accusation_bound.foresight(nobody_won)  # the game hit its turn limit: no race to win
    assert accusation_bound.foresight(_game(True, [[5, 0.2, WRONG, [4]]]))  # a win stays a win


def _close_and_far_games() -> list[dict]:
    # 10 games lost while an opponent was 1 envelope from proof, where accusing was right 8 times;
    # 10 games won while every opponent was far (12 and 20), where accusing was right 3 times
    close = [_game(False, [[10, 0.35, RIGHT if i < 8 else WRONG, [1], 3]]) for i in range(10)]
    far = [_game(True, [[10, 0.35, RIGHT if i < 3 else WRONG, [12, 20], 3]]) for i in range(10)]
    return close + far


def test_a_threshold_rule_accuses_only_once_the_closest_opponent_is_that_close():
    close, far = [1, 0.4, RIGHT, [1, 9], 3], [1, 0.4, RIGHT, [3, 9], 3]
    assert accusation_bound.threshold_rule(2, 0.3)(close) and not accusation_bound.threshold_rule(2, 0.3)(far)
    assert not accusation_bound.threshold_rule(2, 0.5)(close)  # the probability is under t
    assert not accusation_bound.threshold_rule(9, 0.0)([1, 0.4, RIGHT, [], 3])  # no opponent left


def test_the_best_threshold_rule_accuses_where_accusing_beat_waiting():
    games = _close_and_far_games()
    best, rate = accusation_bound.best_threshold(games)
    assert best[0] == 1 and rate == pytest.approx((8 + 10) / 20)
    report = accusation_bound.analyse(games)
    assert report["win_rate"] == 0.5
    assert report["foresight"]["gain"] == pytest.approx(0.4)  # the 8 lost games whose last chance was right
    assert report["thresholds"]["best_gain"] == pytest.approx(0.4)
    assert report["lost_in_an_unrefuted_turn"] == 0.0  # no game says its winner went unrefuted
    games[0]["winner_unrefuted"] = True
    assert accusation_bound.analyse(games)["lost_in_an_unrefuted_turn"] == pytest.approx(0.1)
    last = report["closest_opponent_at_last_chance"]
    assert last["games"] == 10 and last["median"] == 1 and last["share_at_most_2"] == 1.0


def test_cross_fitting_plays_each_half_by_the_rule_best_on_the_other():
    games = _close_and_far_games()
    # halves: the 10 close games, then the 10 far ones. On the close half alone every K >= 1 with
    # t <= 0.35 wins the most (the grid's first such key is K1_t0.0), which accuses nowhere in the far
    # half; on the far half nothing beats waiting, so the first key (K1_t0.0) also plays the close half
    report = accusation_bound.analyse(games)
    th = report["thresholds"]
    assert th["cross_fitted_gain"] == pytest.approx(0.4)
    lo, hi = th["cross_fitted_ci95"]
    assert lo < 0.4 < hi


def test_games_play_out_on_balanced_seats_deterministically_r31():
    games = list(range(100, 112))
    args = ("deduction", ("deduction", "notebook", "random"), "classic", games, 5)
    a = accusation_bound._chunk(args)
    assert a == accusation_bound._chunk(args)
    # 4 seats x 6 circular orders: the candidate sits in every seat of the first 12 games' rotations
    assert {g["seat"] for g in a} == {0, 1, 2, 3}
    for g in a:
        assert not g["won"] or 0 <= g["proof_turn"] <= g["turns"]  # `deduction` wins only after proof
        assert g["won"] or g["winner"] in {"deduction", "notebook", "random", None}
        assert not (g["won"] and g["winner_unrefuted"])
        for turn, p, triple, counts, possible in g["records"]:
            assert 0 < p < 1 and len(triple) == 3 and turn <= g["turns"] and possible >= 2
            assert counts == sorted(counts) and all(c >= 1 for c in counts) and len(counts) <= 3


def test_reading_a_notebook_changes_nothing_it_does():
    """The notebook's log, read early by the benchmark, leaves its play as it was."""
    import clue_env
    from agents import make_agent

    def play(read: bool) -> list[int]:
        env = clue_env.raw_env(num_players=3, rules="classic")
        env.reset(seed=3)
        agents = [make_agent("notebook", seat=i, num_players=3, rules="classic", seed=i) for i in range(3)]
        for a in agents:
            a.reset()
        actions = []
        while not env.game.over:
            seat = env.game.acting
            name = env.possible_agents[seat]
            if read:
                for j, a in enumerate(agents):
                    a.envelope_candidates(env.infos[env.possible_agents[j]]["seat_view"])
            act = agents[seat].act(env.observe(name), env.infos[name])
            actions.append(act)
            env.step(act)
        return actions

    assert play(True) == play(False)


def test_the_script_writes_its_figures_and_refuses_bad_flags(tmp_path, capsys):
    out = tmp_path / "bound.json"
    rc = accusation_bound.main(
        ["--opponents", "notebook,random", "--games", "3", "--seed", "40", "--workers", "1", "--json", str(out)]
    )
    assert rc == 0
    report = json.loads(out.read_text())
    assert report["games"] == 3 and len(report["records"]) == 3 and report["opponents"] == ["notebook", "random"]
    assert report["foresight"]["gain"] >= 0.0
    assert "perfect foresight" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        accusation_bound.main(["--opponents", "", "--games", "3"])
    with pytest.raises(SystemExit):
        accusation_bound.main(["--opponents", "nobody_such", "--games", "3"])
    with pytest.raises(SystemExit):
        accusation_bound.main(["--games", "1"])
