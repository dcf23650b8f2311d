"""A turn, both rulesets: R11, R13-R15 (rules stated in docs/rules.md)."""

from __future__ import annotations

import pytest
from helpers import (
    HANDS3,
    HANDS4,
    RIGHT,
    WRONG,
    core,
    dests,
    do,
    events,
    finish_refutation,
    legal,
    make23,
    make_env,
    n_accusations,
    pass_turn,
    roll,
    roll2,
    where,
)

from clue_env import IllegalMoveError


# ---------------------------------------------------------------- R11
def test_R11_turn_starts_with_roll_only_in_the_hallway():
    e = make_env()
    assert core(e) == {"roll"}
    assert "end" not in legal(e)
    assert not any(t.startswith(("suggest ", "move ", "enter ", "show ")) for t in legal(e))


@pytest.mark.parametrize("room", ["kitchen", "conservatory", "lounge", "study"])
def test_R11_corner_room_offers_passage(room):
    e = make_env(tokens={"scarlet": room})
    assert core(e) == {"roll", "passage"}


@pytest.mark.parametrize("room", ["ballroom", "dining_room", "billiard_room", "library", "hall"])
def test_R11_other_rooms_offer_no_passage_and_no_stay(room):
    e = make_env(tokens={"scarlet": room})
    assert core(e) == {"roll"}


def test_R11_no_stay_for_a_token_that_was_not_pulled():
    e = make_env(hands=HANDS4, tokens={"mustard": "ballroom"})
    pass_turn(e)  # scarlet
    assert e.agent_selection == "player_1"
    assert core(e) == {"roll"}


def test_R11_stay_after_being_pulled_by_a_suggestion():
    e = make_env(hands=HANDS4, tokens={"scarlet": "8,9"})
    roll(e, 1)
    do(e, "enter ballroom")
    do(e, "suggest mustard candlestick")
    finish_refutation(e)
    do(e, "end")
    assert e.agent_selection == "player_1"
    assert where(e, "mustard") == "ballroom"
    assert core(e) == {"roll", "stay"}


def test_R11_refusing_to_act_is_illegal():
    e = make_env()
    before = e.public_state()
    with pytest.raises(IllegalMoveError):
        do(e, "end")
    with pytest.raises(IllegalMoveError):
        do(e, "stay")
    with pytest.raises(IllegalMoveError):
        do(e, "passage")
    assert e.public_state() == before


# ---------------------------------------------------------------- R13
def test_R13_after_a_refuted_suggestion_accuse_or_end():
    e = make_env(hands=HANDS4, tokens={"scarlet": "8,9"})
    roll(e, 1)
    do(e, "enter ballroom")
    do(e, "suggest white rope")  # player_1 has neither, player_2 holds white
    assert e.agent_selection == "player_2"
    do(e, "show white")
    assert e.agent_selection == "player_0"
    lg = legal(e)
    assert core(e) == {"end"}
    assert WRONG in lg and len([t for t in lg if t.startswith("accuse ")]) == 324
    assert not any(t.startswith("suggest ") for t in lg)


def test_R13_after_an_unrefuted_suggestion_accuse_or_end():
    e = make_env(hands=HANDS4, tokens={"scarlet": "8,9"})
    roll(e, 1)
    do(e, "enter ballroom")
    do(e, "suggest plum wrench")  # envelope suspect and weapon, and player_0's own ballroom
    assert events(e)[-1]["type"] == "no_refute"
    assert e.agent_selection == "player_0"
    assert core(e) == {"end"}
    assert "accuse plum wrench study" in legal(e)


def test_R13_accusation_at_the_start_instead_of_moving():
    e = make_env(hands=HANDS4)
    assert "accuse plum wrench study" in legal(e)
    do(e, "accuse plum wrench study")
    assert e.game.over and e.game.winner == 0
    assert not [ev for ev in events(e) if ev["type"] == "roll"]


def test_R13_accusation_after_moving_ends_the_turn():
    e = make_env(hands=HANDS4)
    roll(e, 2)
    do(e, "move 22,7")
    assert core(e) == {"end"}
    assert WRONG in legal(e)
    do(e, WRONG)
    assert e.agent_selection == "player_1"
    assert e.public_state()["phase"] == "start"
    assert e.public_state()["eliminated"] == ["player_0"]


def test_R13_only_the_player_whose_turn_it_is_may_accuse():
    e = make_env(hands=HANDS4)
    for agent in ("player_1", "player_2", "player_3"):
        assert legal(e, agent) == set()
        assert not e.observe(agent)["action_mask"].any()


# ---------------------------------------------------------------- R14
def test_R14_play_passes_clockwise():
    e = make_env(5)
    order = []
    for _ in range(11):
        order.append(e.agent_selection)
        pass_turn(e)
    assert order == [f"player_{i % 5}" for i in range(11)]


def test_R14_eliminated_players_are_skipped():
    e = make_env(hands=HANDS4)
    pass_turn(e)  # player_0
    assert e.agent_selection == "player_1"
    do(e, WRONG)  # player_1 is out
    order = []
    for _ in range(6):
        order.append(e.agent_selection)
        pass_turn(e)
    assert order == ["player_2", "player_3", "player_0", "player_2", "player_3", "player_0"]
    turns = [ev["player"] for ev in events(e) if ev["type"] == "turn"]
    assert turns.count("player_1") == 1


def test_R14_two_eliminated_players_are_skipped():
    e = make_env(5)
    do(e, WRONG)  # player_0 out
    pass_turn(e)  # player_1
    do(e, WRONG)  # player_2 out
    order = []
    for _ in range(6):
        order.append(e.agent_selection)
        pass_turn(e)
    assert order == ["player_3", "player_4", "player_1", "player_3", "player_4", "player_1"]


# ---------------------------------------------------------------- R15
def test_R15_truncation_after_max_turns():
    e = make_env(3, max_turns=4)
    for _ in range(3):
        pass_turn(e)
    assert not any(e.truncations.values()) and not any(e.terminations.values())
    assert e.agent_selection == "player_0"  # turn 4
    pass_turn(e)
    assert all(e.truncations.values())
    assert not any(e.terminations.values())
    assert e.rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 0.0}
    assert e._cumulative_rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 0.0}
    assert e.public_state()["winner"] is None
    assert all(info.get("winner") is None for info in e.infos.values())
    turns = [ev["turn"] for ev in events(e) if ev["type"] == "turn"]
    assert turns == [1, 2, 3, 4]


def test_R15_truncation_gives_zero_even_after_an_earlier_wrong_accusation():
    e = make_env(4, max_turns=3)
    do(e, WRONG)  # player_0: -1 now
    assert e.rewards["player_0"] == -1.0
    pass_turn(e)  # turn 2
    assert not any(e.truncations.values())
    pass_turn(e)  # turn 3
    assert all(e.truncations.values())
    assert set(e.rewards.values()) == {0.0}


# ---------------------------------------------------------------- edition2023
def test_R12_2023_turn_starts_with_roll_only():
    e = make23(3)
    assert legal(e) == {"roll"}
    before = e.public_state()
    for text in ("end", "stay", "passage", "move 23,7", WRONG):
        with pytest.raises(IllegalMoveError):
            do(e, text)
    assert e.public_state() == before


@pytest.mark.parametrize("room", ["kitchen", "hall", "lounge"])
def test_R12_2023_turn_starts_with_roll_only_even_in_a_room(room):
    e = make23(3, tokens={"scarlet": room})
    assert legal(e) == {"roll"}  # no passage, stay or accusation before the roll
    with pytest.raises(IllegalMoveError):
        do(e, "passage" if room != "hall" else "stay")


def test_R12_2023_after_the_roll_in_the_hallway():
    e = make23(3)
    roll2(e, 3, 4)
    lg = legal(e)
    assert e.public_state()["phase"] == "move"
    assert {t for t in core(e) if not t.startswith("move ")} == {"end"}
    assert "toward lounge" in lg and "toward kitchen" in lg
    assert not any(t.startswith(("accuse ", "suggest ", "show ")) for t in lg)
    assert "stay" not in lg and "passage" not in lg and "roll" not in lg


def test_R12_2023_after_the_roll_in_a_corner_room():
    e = make23(3, tokens={"scarlet": "lounge"})
    roll2(e, 2, 2)
    lg = legal(e)
    assert {t for t in core(e) if not t.startswith(("move ", "enter "))} == {"end", "stay", "passage"}
    assert dests(e)[1] == {"dining_room"}
    assert "toward hall" in lg
    assert n_accusations(e) == 324
    assert not any(t.startswith(("suggest ", "show ")) for t in lg) and "roll" not in lg


def test_R12_2023_after_the_roll_in_a_room_without_passage():
    e = make23(3, tokens={"scarlet": "hall"})
    roll2(e, 2, 2)
    assert {t for t in core(e) if not t.startswith(("move ", "enter "))} == {"end", "stay"}
    assert n_accusations(e) == 324


def test_R12_2023_ending_the_turn_without_moving():
    e = make23(3)
    roll2(e, 3, 4)
    do(e, "end")
    assert where(e, "scarlet") == (24, 7)
    assert e.agent_selection == "player_1"
    assert legal(e) == {"roll"}


def test_R12_2023_move_then_suggest_then_accuse():
    e = make23(3, hands=HANDS3, tokens={"scarlet": "8,9"})
    roll2(e, 2, 3)
    do(e, "enter ballroom")
    assert {t for t in core(e)} == {"end"}
    assert any(t.startswith("suggest ") for t in legal(e)) and n_accusations(e) == 324
    do(e, "suggest white rope")
    finish_refutation(e)
    assert core(e) == {"end"} and n_accusations(e) == 324
    do(e, RIGHT)
    assert e.public_state()["winner"] == "player_0"
