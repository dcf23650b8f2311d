"""The two-player game (2023): R30, cards face down on the board (rules stated in docs/rules.md)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import BOARD2, ENVELOPE, HANDS2, RIGHT, RULES, C, do, events, legal, make2, piece, roll2, seat_events, types, where

import clue_env
from clue_env.engine.cards import CARDS, ROOMS
from clue_env.engine.events import HIDDEN, Peek


# ---------------------------------------------------------------- edition2023
def test_R30_2023_four_board_cards_in_distinct_rooms_seven_per_hand():
    rooms_seen = set()
    for seed in range(12):
        e = clue_env.raw_env(num_players=2, rules=RULES)
        e.reset(seed=seed)
        g = e.game
        st = e.public_state()
        assert len(g.board_cards) == 4 and len(set(g.board_cards.values())) == 4
        assert len(st["board_card_rooms"]) == 4 and len(set(st["board_card_rooms"])) == 4
        assert sorted(st["board_card_rooms"]) == sorted(ROOMS[r] for r in g.board_cards)
        assert st["hand_sizes"] == {"player_0": 7, "player_1": 7}
        envelope = {g.envelope[0], 6 + g.envelope[1], 12 + g.envelope[2]}
        board = set(g.board_cards.values())
        h0, h1 = set(g.hands[0]), set(g.hands[1])
        assert len(envelope | board | h0 | h1) == 21  # a partition of the 21 cards
        assert all(g.owner[c] == -2 for c in board)
        for agent in e.possible_agents:
            assert sorted(np.flatnonzero(piece(e, agent, "board_rooms"))) == sorted(g.board_cards)
        rooms_seen |= set(st["board_card_rooms"])
    assert len(rooms_seen) > 4, "board rooms are not random"


@pytest.mark.parametrize("n", [3, 4, 6])
def test_R30_2023_no_board_cards_with_more_players(n):
    e = clue_env.raw_env(num_players=n, rules=RULES)
    e.reset(seed=0)
    assert e.public_state()["board_card_rooms"] == [] and e.game.board_cards == {}
    assert sum(e.public_state()["hand_sizes"].values()) == 18


def test_R30_2023_fixed_board_cards():
    e = make2()
    assert {ROOMS[r]: CARDS[c] for r, c in e.game.board_cards.items()} == BOARD2
    assert e.public_state()["board_card_rooms"] == sorted(BOARD2)
    assert "board_cards" not in e.public_state()


def test_R30_2023_nobody_can_show_a_board_card():
    e = make2(tokens={"scarlet": "8,9"})
    roll2(e, 2, 3)
    do(e, "enter ballroom")
    n = len(events(e))
    do(e, "suggest green rope")  # both on the board; the Ballroom is player_0's own card
    assert types(events(e, n)) == ["suggest", "move", "weapon", "pass", "no_refute"]
    assert e.agent_selection == "player_0"


def test_R30_2023_refuter_offered_only_cards_in_hand():
    e = make2(tokens={"scarlet": "8,9"})
    roll2(e, 2, 3)
    do(e, "enter ballroom")
    do(e, "suggest peacock rope")  # rope on the board, peacock in player_1's hand
    assert e.agent_selection == "player_1"
    assert legal(e) == {"show peacock"}


def test_R30_2023_peek_on_entering_is_private():
    e = make2(tokens={"scarlet": "8,9"})
    roll2(e, 2, 3)
    do(e, "enter ballroom")
    assert Peek(0, ROOMS.index("ballroom"), C["green"]) in e.game.log
    assert Peek(0, ROOMS.index("ballroom"), C["green"]) in seat_events(e, "player_0")
    p1 = [ev for ev in seat_events(e, "player_1") if isinstance(ev, Peek)]
    assert p1 == [Peek(0, ROOMS.index("ballroom"), HIDDEN)]
    st = e.public_state()
    assert [ev for ev in st["log"] if ev["type"] == "peek"] == [{"type": "peek", "player": "player_0", "room": "ballroom"}]
    assert "board_cards" not in st
    seen0 = piece(e, "player_0", "board_seen")
    assert seen0[C["green"]] == 1 and seen0.sum() == 1
    assert not piece(e, "player_1", "board_seen").any()
    # nothing in player_1's view names the card lying in the Ballroom
    assert not any(getattr(ev, "card", None) == C["green"] for ev in seat_events(e, "player_1"))


def test_R30_2023_peek_after_a_passage():
    e = make2(tokens={"scarlet": "study"})
    roll2(e, 2, 3)
    do(e, "passage")
    assert where(e, "scarlet") == "kitchen"
    assert [ev for ev in e.game.log if isinstance(ev, Peek)] == [Peek(0, ROOMS.index("kitchen"), C["rope"])]
    assert piece(e, "player_0", "board_seen")[C["rope"]] == 1
    assert not piece(e, "player_1", "board_seen").any()


def test_R30_2023_no_peek_in_a_room_without_a_board_card():
    e = make2(tokens={"scarlet": "16,6"})
    roll2(e, 2, 3)
    do(e, "enter dining_room")
    assert not [ev for ev in e.game.log if isinstance(ev, Peek)]
    assert not piece(e, "player_0", "board_seen").any()


def test_R30_2023_opponent_peeks_privately_too():
    e = make2(first=1, tokens={"mustard": "13,20"})  # in front of the Library's north door
    roll2(e, 2, 3)
    do(e, "enter library")
    assert Peek(1, ROOMS.index("library"), C["revolver"]) in seat_events(e, "player_1")
    assert Peek(1, ROOMS.index("library"), HIDDEN) in seat_events(e, "player_0")
    assert piece(e, "player_1", "board_seen")[C["revolver"]] == 1
    assert not piece(e, "player_0", "board_seen").any()


def test_R30_2023_board_cards_shown_when_the_game_is_over():
    e = make2(tokens={"scarlet": "hall"})
    roll2(e, 2, 3)
    do(e, RIGHT)
    assert e.public_state()["board_cards"] == BOARD2


@pytest.mark.parametrize(
    "board, match",
    [
        ({"kitchen": "rope", "ballroom": "green", "lounge": "hall"}, "exactly 4"),
        ({**BOARD2, "study": "dagger"}, "exactly 4"),
        ({"attic": "rope", "ballroom": "green", "lounge": "hall", "library": "revolver"}, "attic"),
        ({"kitchen": "noose", "ballroom": "green", "lounge": "hall", "library": "revolver"}, "noose"),
        ({"kitchen": "rope", "ballroom": "rope", "lounge": "hall", "library": "revolver"}, "twice"),
        ({"kitchen": "scarlet", "ballroom": "green", "lounge": "hall", "library": "revolver"}, "scarlet"),
        ({"kitchen": "plum", "ballroom": "green", "lounge": "hall", "library": "revolver"}, "envelope"),
    ],
)
def test_R30_2023_board_cards_option_validated(board, match):
    e = clue_env.raw_env(num_players=2, rules=RULES)
    e.reset(seed=0)
    before = json.dumps(e.public_state())
    with pytest.raises(ValueError, match=match):
        e.reset(seed=1, options={"envelope": ENVELOPE, "hands": HANDS2, "board_cards": board})
    assert json.dumps(e.public_state()) == before


def test_R30_2023_board_cards_option_refused_with_more_players():
    e = clue_env.raw_env(num_players=3, rules=RULES)
    with pytest.raises(ValueError, match="two-player"):
        e.reset(seed=0, options={"envelope": ENVELOPE, "board_cards": BOARD2})
    e = clue_env.raw_env(num_players=3)
    with pytest.raises(ValueError, match="two-player"):
        e.reset(seed=0, options={"envelope": ENVELOPE, "board_cards": BOARD2})


def test_R30_2023_board_cards_with_random_hands():
    for seed in range(5):
        e = clue_env.raw_env(num_players=2, rules=RULES)
        e.reset(seed=seed, options={"envelope": ENVELOPE, "board_cards": BOARD2})
        g = e.game
        assert {ROOMS[r]: CARDS[c] for r, c in g.board_cards.items()} == BOARD2
        assert [len(h) for h in g.hands] == [7, 7]
        assert not {CARDS[c] for h in g.hands for c in h} & (set(BOARD2.values()) | set(ENVELOPE))


def test_R30_2023_board_cards_alone_random_envelope_avoids_them():
    for seed in range(30):
        e = clue_env.raw_env(num_players=2, rules=RULES)
        e.reset(seed=seed, options={"board_cards": BOARD2})
        g = e.game
        envelope = {g.envelope[0], 6 + g.envelope[1], 12 + g.envelope[2]}
        assert not envelope & set(g.board_cards.values())


def test_R30_2023_observation_within_its_space_with_seven_card_hands():
    e = clue_env.raw_env(num_players=2, rules=RULES)
    e.reset(seed=0)
    for agent in e.possible_agents:
        assert e.observation_space(agent).contains(e.observe(agent))
