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


def test_the_fitted_rule_accuses_where_accusing_beat_waiting():
    # bucket (1, 9, 3): opponent one envelope from proof; accusing there was right in 8 of 10 games
    # the candidate lost; bucket (9, 9, 3): accusing was right in 3 of 10 games it won anyway
    close = [[10, 0.35, RIGHT if i < 8 else WRONG, [1]] for i in range(10)]
    far = [[10, 0.35, RIGHT if i < 3 else WRONG, [12, 20]] for i in range(10)]
    games = [_game(False, [r]) for r in close] + [_game(True, [r]) for r in far]
    rule = accusation_bound.fit_rule(games)
    assert rule == {(1, 9, 3)}
    outcomes = [accusation_bound.play_rule(g, lambda r: accusation_bound.bucket(r) in rule) for g in games]
    assert sum(outcomes) == 8 + 10
    report = accusation_bound.analyse(games)
    assert report["win_rate"] == 0.5
    assert report["opponent_state_rule"]["in_sample_gain"] == pytest.approx(0.4)
    assert report["foresight"]["gain"] == pytest.approx(0.4)
    # every threshold rule at K=1 accuses exactly the close games: the same 0.4
    assert report["thresholds"]["best_gain"] == pytest.approx(0.4)


def test_a_bucket_needs_enough_decisions_to_accuse():
    few = [_game(False, [[10, 0.35, RIGHT, [1]]]) for _ in range(accusation_bound.MIN_BUCKET - 1)]
    assert accusation_bound.fit_rule(few) == set()


def test_bucket_caps_counts_and_reads_the_decile():
    assert accusation_bound.bucket([0, 0.999, RIGHT, []]) == (9, 9, 9)
    assert accusation_bound.bucket([0, 0.5, RIGHT, [3, 40, 2]]) == (3, 9, 5)


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
        for turn, p, triple, counts in g["records"]:
            assert 0 < p < 1 and len(triple) == 3 and turn <= g["turns"]
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
