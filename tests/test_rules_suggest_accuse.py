"""Classic rules, suggesting and accusing: R26-R29 (see /work/shared/RULES.md)."""

from __future__ import annotations

import pytest
from conftest import HANDS4, core, do, events, finish_refutation, legal, make_env, pass_turn, roll, where

from clue_env import IllegalMoveError
from clue_env.engine.cards import CARDS
from clue_env.engine.events import Show

WRONG = "accuse scarlet rope kitchen"  # the envelope is plum wrench study
RIGHT = "accuse plum wrench study"


def enter_ballroom(e):
    """Scarlet (to act, on the Ballroom door square (8,9)) rolls a 1 and enters."""
    roll(e, 1)
    do(e, "enter ballroom")


def shows(e, agent):
    return {t[5:] for t in legal(e, agent) if t.startswith("show ")}


# ---------------------------------------------------------------- R26
def test_R26_suggest_only_in_a_room():
    e = make_env(hands=HANDS4)
    assert not any(t.startswith("suggest ") for t in legal(e))  # start, hallway
    roll(e, 2)
    do(e, "move 22,7")
    assert not any(t.startswith("suggest ") for t in legal(e))
    with pytest.raises(IllegalMoveError):
        do(e, "suggest plum rope")


def test_R26_no_suggestion_at_the_start_of_a_turn_in_a_room():
    e = make_env(hands=HANDS4, tokens={"scarlet": "hall"})
    assert not any(t.startswith("suggest ") for t in legal(e))


def test_R26_suspect_and_weapon_move_into_the_room():
    e = make_env(hands=HANDS4, tokens={"scarlet": "8,9"}, weapons={"revolver": "kitchen"})
    enter_ballroom(e)
    assert len([t for t in legal(e) if t.startswith("suggest ")]) == 36
    n = len(events(e))
    do(e, "suggest green revolver")
    assert where(e, "green") == "ballroom"
    assert e.public_state()["weapons"]["revolver"] == "ballroom"
    new = events(e, n)
    assert new[0] == {"type": "suggest", "player": "player_0", "suspect": "green", "weapon": "revolver", "room": "ballroom"}
    assert {"type": "move", "player": "player_0", "suspect": "green", "to": "ballroom", "cause": "suggest"} in new
    assert {"type": "weapon", "player": "player_0", "weapon": "revolver", "to": "ballroom"} in new


def test_R26_tokens_stay_where_the_suggestion_put_them():
    e = make_env(hands=HANDS4, tokens={"scarlet": "8,9"})
    enter_ballroom(e)
    do(e, "suggest green revolver")
    finish_refutation(e)
    do(e, "end")
    pass_turn(e)  # mustard
    pass_turn(e)  # white
    assert e.agent_selection == "player_3"
    assert where(e, "green") == "ballroom"
    assert e.public_state()["weapons"]["revolver"] == "ballroom"


def test_R26_may_name_own_cards():
    # player_0 holds scarlet, candlestick and ballroom: a pure bluff nobody can refute
    e = make_env(hands=HANDS4, tokens={"scarlet": "8,9"})
    enter_ballroom(e)
    n = len(events(e))
    do(e, "suggest scarlet candlestick")
    types = [ev["type"] for ev in events(e, n)]
    assert types[0] == "suggest" and types[-1] == "no_refute"
    assert where(e, "scarlet") == "ballroom"


def test_R26_unplayed_suspect_may_be_named_and_moves_in():
    e = make_env(3, tokens_on_board="players_only", tokens={"scarlet": "8,9"})
    assert where(e, "plum") is None
    enter_ballroom(e)
    do(e, "suggest plum rope")
    assert where(e, "plum") == "ballroom"


# ---------------------------------------------------------------- R27
def test_R27_first_holder_clockwise_is_asked_and_passes_are_recorded():
    # ballroom / white / rope: player_1 holds none, player_2 holds white, player_3 holds rope
    e = make_env(hands=HANDS4, tokens={"scarlet": "8,9"})
    enter_ballroom(e)
    n = len(events(e))
    do(e, "suggest white rope")
    assert [ev["type"] for ev in events(e, n) if ev["type"] in ("pass", "show", "no_refute")] == ["pass"]
    assert [ev["player"] for ev in events(e, n) if ev["type"] == "pass"] == ["player_1"]
    assert e.agent_selection == "player_2"
    assert e.public_state()["acting"] == "player_2"
    for agent in ("player_0", "player_1", "player_3"):
        assert legal(e, agent) == set()
    do(e, "show white")
    assert e.agent_selection == "player_0"
    new = events(e, n)
    assert [ev["type"] for ev in new if ev["type"] in ("pass", "show", "no_refute")] == ["pass", "show"]
    assert new[-1] == {"type": "show", "player": "player_2", "to": "player_0"}  # public: not which card
    assert e.game.log[-1] == Show(2, 0, CARDS.index("white"))  # privately: which card
    assert "player_3" not in [ev.get("player") for ev in new if ev["type"] == "pass"]


def test_R27_refuter_chooses_card():
    # dining_room / mustard / dagger: player_1 holds all three, player_2 and player_3 hold none
    e = make_env(hands=HANDS4, tokens={"scarlet": "12,8"})
    roll(e, 1)
    do(e, "enter dining_room")
    do(e, "suggest mustard dagger")
    assert e.agent_selection == "player_1"
    assert legal(e) == {"show mustard", "show dagger", "show dining_room"}
    with pytest.raises(IllegalMoveError):
        do(e, "show library")  # held, but not named
    with pytest.raises(IllegalMoveError):
        do(e, "show white")  # named nowhere, held by someone else
    do(e, "show dagger")
    assert e.game.log[-1] == Show(1, 0, CARDS.index("dagger"))


def test_R27_refuter_only_offered_matching_cards():
    # ballroom / green / rope: player_1 and player_2 hold none; player_3 holds green and rope
    e = make_env(hands=HANDS4, tokens={"scarlet": "8,9"})
    enter_ballroom(e)
    do(e, "suggest green rope")
    assert e.agent_selection == "player_3"
    assert shows(e, "player_3") == {"green", "rope"}
    assert core(e) == {"show green", "show rope"}
    passes = [ev["player"] for ev in events(e) if ev["type"] == "pass"]
    assert passes == ["player_1", "player_2"]


def test_R27_refuter_with_a_single_card_is_still_asked():
    # ballroom / peacock / lead_pipe: player_1 none, player_2 lead_pipe only
    e = make_env(hands=HANDS4, tokens={"scarlet": "8,9"})
    enter_ballroom(e)
    do(e, "suggest peacock lead_pipe")
    assert e.agent_selection == "player_2"
    assert legal(e) == {"show lead_pipe"}


def test_R27_nobody_refutes():
    e = make_env(hands=HANDS4, tokens={"scarlet": "8,9"})
    enter_ballroom(e)
    n = len(events(e))
    do(e, "suggest plum wrench")  # envelope suspect and weapon, own room card
    new = [ev for ev in events(e, n) if ev["type"] in ("pass", "show", "no_refute")]
    assert new == [
        {"type": "pass", "player": "player_1", "suggester": "player_0"},
        {"type": "pass", "player": "player_2", "suggester": "player_0"},
        {"type": "pass", "player": "player_3", "suggester": "player_0"},
        {"type": "no_refute", "suggester": "player_0"},
    ]
    assert e.agent_selection == "player_0"
    assert core(e) == {"end"}


def test_R27_refutation_goes_clockwise_from_the_suggester_and_wraps():
    # player_2 (white) suggests in the Hall: player_3 holds none of plum/candlestick/hall?
    # player_3: green peacock revolver rope -> passes; player_0 holds candlestick -> shows.
    e = make_env(hands=HANDS4, tokens={"white": "17,11"})
    pass_turn(e)
    pass_turn(e)
    assert e.agent_selection == "player_2"
    roll(e, 1)
    do(e, "enter hall")
    n = len(events(e))
    do(e, "suggest plum candlestick")
    assert [ev["player"] for ev in events(e, n) if ev["type"] == "pass"] == ["player_3"]
    assert e.agent_selection == "player_0"
    assert legal(e) == {"show candlestick"}
    do(e, "show candlestick")
    assert e.agent_selection == "player_2"


def test_R27_eliminated_players_still_refute():
    e = make_env(hands=HANDS4, tokens={"mustard": "8,9"})
    do(e, WRONG)  # player_0 is out
    assert e.agent_selection == "player_1"
    roll(e, 1)
    do(e, "enter ballroom")
    n = len(events(e))
    do(e, "suggest plum candlestick")  # player_2, player_3 hold none; player_0 holds candlestick, ballroom
    assert [ev["player"] for ev in events(e, n) if ev["type"] == "pass"] == ["player_2", "player_3"]
    assert e.agent_selection == "player_0"
    assert legal(e) == {"show candlestick", "show ballroom"}
    do(e, "show ballroom")
    assert e.agent_selection == "player_1"
    assert events(e)[-1] == {"type": "show", "player": "player_0", "to": "player_1"}


# ---------------------------------------------------------------- R28
def test_R28_correct_accusation_wins():
    e = make_env(hands=HANDS4)
    do(e, RIGHT)
    assert all(e.terminations.values()) and not any(e.truncations.values())
    assert e.rewards == {"player_0": 1.0, "player_1": -1.0, "player_2": -1.0, "player_3": -1.0}
    assert e._cumulative_rewards == e.rewards
    assert e.public_state()["winner"] == "player_0"
    assert all(info["winner"] == "player_0" for info in e.infos.values())
    assert events(e)[-2]["type"] == "accuse" and events(e)[-2]["correct"] is True


def test_R28_win_gives_minus_one_only_to_seats_still_in():
    e = make_env(hands=HANDS4)
    do(e, WRONG)  # player_0 out, -1 at once
    assert e.rewards["player_0"] == -1.0
    assert e._cumulative_rewards["player_0"] == -1.0
    do(e, RIGHT)  # player_1 wins
    assert e.rewards == {"player_0": 0.0, "player_1": 1.0, "player_2": -1.0, "player_3": -1.0}
    assert all(e.terminations.values())


def test_R28_wrong_accusation_eliminates():
    e = make_env(hands=HANDS4)
    do(e, WRONG)
    assert e.rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0, "player_3": 0.0}
    assert e.public_state()["eliminated"] == ["player_0"]
    assert not any(e.terminations.values())
    acc = [ev for ev in events(e) if ev["type"] == "accuse"]
    assert acc == [
        {"type": "accuse", "player": "player_0", "suspect": "scarlet", "weapon": "rope", "room": "kitchen", "correct": False}
    ]
    assert e.agent_selection == "player_1"
    for _ in range(8):  # two rounds: player_0 never acts again
        assert e.agent_selection != "player_0"
        pass_turn(e)
    assert "player_0" not in [ev["player"] for ev in events(e) if ev["type"] == "turn"][1:]


def test_R28_eliminated_token_on_a_door_square_moves_into_the_room():
    e = make_env(hands=HANDS4, tokens={"scarlet": "7,4"})
    do(e, WRONG)
    assert where(e, "scarlet") == "kitchen"
    # a token that blocks no door stays where it is
    e = make_env(hands=HANDS4, tokens={"scarlet": "8,4"})
    do(e, WRONG)
    assert where(e, "scarlet") == (8, 4)


def test_R28_eliminated_token_leaves_the_door_free():
    # Scarlet, out, no longer blocks the Kitchen door for Mustard
    e = make_env(hands=HANDS4, tokens={"scarlet": "7,4", "mustard": "7,5"})
    do(e, WRONG)
    roll(e, 2)
    assert "enter kitchen" in legal(e)


def test_R28_accuse_anywhere_false_forbids_the_hallway():
    e = make_env(hands=HANDS4, accuse_anywhere=False)
    assert not any(t.startswith("accuse ") for t in legal(e))
    with pytest.raises(IllegalMoveError):
        do(e, RIGHT)
    roll(e, 2)
    do(e, "move 22,7")
    assert legal(e) == {"end"}


def test_R28_accuse_anywhere_false_allows_any_room():
    e = make_env(hands=HANDS4, accuse_anywhere=False, tokens={"scarlet": "hall"})
    assert RIGHT in legal(e)  # accusing the Study from the Hall
    do(e, RIGHT)
    assert e.public_state()["winner"] == "player_0"


def test_R28_accuse_anywhere_true_allows_the_hallway():
    e = make_env(hands=HANDS4)
    assert where(e, "scarlet") == (24, 7)
    assert len([t for t in legal(e) if t.startswith("accuse ")]) == 324


# ---------------------------------------------------------------- R29
def test_R29_last_player_standing_wins():
    e = make_env(3)
    do(e, WRONG)  # player_0
    assert not any(e.terminations.values())
    do(e, WRONG)  # player_1: only player_2 is left
    assert all(e.terminations.values())
    assert e.public_state()["winner"] == "player_2"
    assert e.rewards == {"player_0": 0.0, "player_1": -1.0, "player_2": 1.0}
    assert events(e)[-1] == {"type": "game_over", "winner": "player_2", "reason": "last_player_standing"}


def test_R29_last_player_standing_false_plays_on_and_nobody_wins():
    e = make_env(3, last_player_standing=False)
    do(e, WRONG)
    do(e, WRONG)
    assert not any(e.terminations.values())
    assert e.agent_selection == "player_2"
    pass_turn(e)
    assert e.agent_selection == "player_2"  # the only player left plays on
    do(e, WRONG)
    assert all(e.terminations.values())
    assert e.public_state()["winner"] is None
    assert all(info["winner"] is None for info in e.infos.values())
    assert e.rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": -1.0}


def test_R29_last_player_standing_false_the_survivor_can_still_win():
    e = make_env(3, last_player_standing=False)
    do(e, WRONG)
    do(e, WRONG)
    do(e, RIGHT)
    assert e.public_state()["winner"] == "player_2"
    assert e.rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 1.0}
