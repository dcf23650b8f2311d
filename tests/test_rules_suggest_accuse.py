"""Suggesting and accusing, both rulesets: R26-R29 (rules stated in docs/rules.md)."""

from __future__ import annotations

import pytest
from helpers import (
    HANDS3,
    HANDS4,
    RIGHT,
    WRONG,
    core,
    do,
    events,
    finish_refutation,
    legal,
    make2,
    make23,
    make_env,
    n_accusations,
    pass23,
    pass_turn,
    piece,
    roll,
    roll2,
    where,
)

from clue_env import IllegalMoveError
from clue_env.engine.cards import CARDS, ROOMS
from clue_env.engine.events import Show


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


# ---------------------------------------------------------------- edition2023
def test_R28_2023_no_accusation_in_the_hallway():
    e = make23(3, hands=HANDS3)
    assert n_accusations(e) == 0
    roll2(e, 3, 4)
    assert n_accusations(e) == 0
    with pytest.raises(IllegalMoveError):
        do(e, RIGHT)
    do(e, "move 20,7")
    assert legal(e) == {"end"}
    with pytest.raises(IllegalMoveError):
        do(e, RIGHT)
    assert e.public_state()["winner"] is None and not any(e.terminations.values())


@pytest.mark.parametrize("room", ROOMS)
def test_R28_2023_accusation_from_any_room(room):
    e = make23(3, hands=HANDS3, tokens={"scarlet": room})
    roll2(e, 2, 3)
    assert n_accusations(e) == 324
    do(e, RIGHT)  # names the Study, whatever room the token is in
    assert e.public_state()["winner"] == "player_0"
    assert e.rewards == {"player_0": 1.0, "player_1": -1.0, "player_2": -1.0}


def test_R28_2023_accusation_after_entering_a_room():
    e = make23(3, hands=HANDS3, tokens={"scarlet": "16,6"})
    roll2(e, 2, 3)
    do(e, "enter dining_room")
    assert n_accusations(e) == 324
    do(e, WRONG)
    assert e.public_state()["eliminated"] == ["player_0"]


def test_R28_2023_wrong_accusation_eliminates():
    e = make23(3, hands=HANDS3, tokens={"scarlet": "hall"})
    roll2(e, 2, 3)
    do(e, WRONG)
    assert e.rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0}
    assert e.public_state()["eliminated"] == ["player_0"]
    assert events(e)[-3] == {
        "type": "accuse",
        "player": "player_0",
        "suspect": "scarlet",
        "weapon": "rope",
        "room": "kitchen",
        "correct": False,
    }
    assert not any(e.terminations.values())
    for _ in range(6):
        assert e.agent_selection != "player_0"
        pass23(e)
    assert [ev["player"] for ev in events(e) if ev["type"] == "turn"][1:] == ["player_1", "player_2"] * 3 + ["player_1"]
    for agent in e.possible_agents:
        assert piece(e, agent, "eliminated")[(0 - int(agent[-1])) % 3] == 1


def test_R28_2023_eliminated_player_still_refutes_and_answers_clue_cards():
    e = make23(3, hands=HANDS3, tokens={"scarlet": "hall", "mustard": "8,9"}, clue_deck=["reveal:kitchen"])
    roll2(e, 2, 3)
    do(e, WRONG)  # player_0 out
    assert e.agent_selection == "player_1"
    roll2(e, 1, 4)  # the Clue card: player_0, out, still reveals the Kitchen
    assert events(e)[-1] == {"type": "reveal", "player": "player_1", "card": "kitchen", "holder": "player_0"}
    do(e, "enter ballroom")
    n = len(events(e))
    do(e, "suggest plum candlestick")  # player_2 holds none; player_0 holds candlestick and ballroom
    assert [ev["player"] for ev in events(e, n) if ev["type"] == "pass"] == ["player_2"]
    assert e.agent_selection == "player_0"
    assert legal(e) == {"show candlestick", "show ballroom"}
    do(e, "show candlestick")
    assert e.agent_selection == "player_1"


def test_R29_2023_all_wrong_nobody_wins():
    e = make23(3, hands=HANDS3, tokens={"scarlet": "hall", "mustard": "lounge", "white": "kitchen"})
    for k in range(3):
        assert e.agent_selection == f"player_{k}"
        roll2(e, 2, 3)
        do(e, WRONG)
        if k < 2:  # last_player_standing false: the last one left is not declared the winner
            assert not any(e.terminations.values())
            assert e.public_state()["winner"] is None
    assert all(e.terminations.values()) and not any(e.truncations.values())
    st = e.public_state()
    assert st["winner"] is None and st["reason"] == "all_eliminated"
    assert events(e)[-1] == {"type": "game_over", "winner": None, "reason": "all_eliminated"}
    assert all(info["winner"] is None for info in e.infos.values())
    assert e.rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": -1.0}


def test_R29_2023_survivor_keeps_playing_and_can_win():
    e = make23(3, hands=HANDS3, tokens={"scarlet": "hall", "mustard": "lounge", "white": "kitchen"})
    for _ in range(2):
        roll2(e, 2, 3)
        do(e, WRONG)
    for _ in range(3):
        assert e.agent_selection == "player_2"
        pass23(e)
    roll2(e, 2, 3)
    do(e, RIGHT)
    assert e.public_state()["winner"] == "player_2"
    assert e.rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 1.0}


def test_R29_2023_two_players_one_wrong_accusation_the_other_plays_alone_and_wins():
    e = make2(tokens={"scarlet": "lounge", "mustard": "18,8"})
    roll2(e, 2, 3)
    do(e, WRONG)
    assert e.public_state()["eliminated"] == ["player_0"] and not any(e.terminations.values())
    steps = [(17, 8), (17, 7), (17, 6)]  # Mustard walks toward the Dining Room door (16,6)
    for sq in steps:
        assert e.agent_selection == "player_1" and legal(e) == {"roll"}
        roll2(e, 2, 2)
        do(e, f"move {sq[0]},{sq[1]}")
        do(e, "end")
    turns = [ev["player"] for ev in events(e) if ev["type"] == "turn"]
    assert turns == ["player_0"] + ["player_1"] * 4
    roll2(e, 2, 2)
    do(e, "enter dining_room")
    do(e, RIGHT)
    assert all(e.terminations.values())
    assert e.public_state()["winner"] == "player_1"
    assert e.rewards == {"player_0": 0.0, "player_1": 1.0}


def test_R29_2023_two_players_lone_player_until_max_turns():
    e = make2(tokens={"scarlet": "lounge"}, max_turns=6)
    roll2(e, 2, 3)
    do(e, WRONG)
    for _ in range(5):  # turns 2..6
        assert e.agent_selection == "player_1"
        pass23(e)
    assert all(e.truncations.values()) and not any(e.terminations.values())
    assert e.public_state()["reason"] == "max_turns"
    assert e.rewards == {"player_0": 0.0, "player_1": 0.0}
