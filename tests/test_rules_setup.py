"""Components and setup, both rulesets: R1, R5-R10 (rules stated in docs/rules.md)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import (
    ENVELOPE,
    HANDS4,
    RULES,
    WITHIN_7,
    _first_from_rolls,
    dests,
    do,
    events,
    make23,
    make_env,
    new23,
    pass23,
    pass_turn,
    piece,
    roll,
    roll2,
    where,
)

import clue_env
from clue_env import ConfigError, load_rules
from clue_env.engine.cards import CARDS
from clue_env.engine.chance import RandomChance, ScriptedChance
from clue_env.engine.events import Turn
from clue_env.engine.game import Game

SUSPECT_IDS = ["scarlet", "mustard", "white", "green", "peacock", "plum"]
WEAPON_IDS = ["candlestick", "dagger", "lead_pipe", "revolver", "rope", "wrench"]
ROOM_IDS = ["kitchen", "ballroom", "conservatory", "dining_room", "billiard_room", "library", "lounge", "hall", "study"]

# Start squares from clue_env/data/classic_board.txt (digits 1-6 of the grid).
START = {"scarlet": (24, 7), "mustard": (17, 0), "white": (0, 9), "green": (0, 14), "peacock": (6, 23), "plum": (19, 23)}


def hand_names(e, seat: int) -> list[str]:
    return [CARDS[c] for c in e.game.hands[seat]]


def envelope_names(e) -> list[str]:
    s, w, r = e.game.envelope
    return [SUSPECT_IDS[s], WEAPON_IDS[w], ROOM_IDS[r]]


# ---------------------------------------------------------------- R1
def test_R1_twenty_one_cards_of_three_kinds():
    assert len(SUSPECT_IDS) + len(WEAPON_IDS) + len(ROOM_IDS) == 21
    e = make_env(4, envelope=None, seed=3)
    cards = envelope_names(e) + [c for seat in range(4) for c in hand_names(e, seat)]
    assert len(cards) == 21
    assert sorted(cards) == sorted(SUSPECT_IDS + WEAPON_IDS + ROOM_IDS)


def test_R1_classic_display_names_from_config():
    cfg = load_rules("classic")
    expected = {
        "scarlet": "Miss Scarlet",
        "mustard": "Colonel Mustard",
        "white": "Mrs. White",
        "green": "Mr. Green",
        "peacock": "Mrs. Peacock",
        "plum": "Professor Plum",
        "candlestick": "Candlestick",
        "dagger": "Dagger",
        "lead_pipe": "Lead Pipe",
        "revolver": "Revolver",
        "rope": "Rope",
        "wrench": "Wrench",
        "kitchen": "Kitchen",
        "ballroom": "Ballroom",
        "conservatory": "Conservatory",
        "dining_room": "Dining Room",
        "billiard_room": "Billiard Room",
        "library": "Library",
        "lounge": "Lounge",
        "hall": "Hall",
        "study": "Study",
    }
    assert {c: cfg.display(c) for c in expected} == expected


def test_R1_display_names_follow_the_ruleset_config():
    e = make_env(4, suspect_names={"white": "Chef White", "green": "Mayor Green"})
    assert e.game.cfg.display("white") == "Chef White"
    assert e.game.cfg.display("green") == "Mayor Green"
    assert e.game.cfg.display("scarlet") == "Miss Scarlet"
    assert "Chef White" in e.game.seat_name(2)
    assert "Mrs. White" not in e.game.seat_name(2)


# ---------------------------------------------------------------- R5
@pytest.mark.parametrize("num_players", [3, 4, 5, 6])
def test_R5_envelope_holds_one_card_of_each_kind(num_players):
    for seed in range(15):
        e = make_env(num_players, envelope=None, seed=seed)
        s, w, r = envelope_names(e)
        assert s in SUSPECT_IDS and w in WEAPON_IDS and r in ROOM_IDS
        held = {c for seat in range(num_players) for c in hand_names(e, seat)}
        assert not held & {s, w, r}, "an envelope card was also dealt"


def test_R5_envelope_is_random_within_each_kind():
    seen = [envelope_names(make_env(4, envelope=None, seed=seed)) for seed in range(60)]
    for kind in range(3):
        assert len({t[kind] for t in seen}) >= 3, f"kind {kind} of the envelope barely varies: {seen}"


def test_R5_envelope_can_be_fixed_by_reset_options():
    e = make_env(4, envelope=["green", "rope", "lounge"], seed=1)
    assert envelope_names(e) == ["green", "rope", "lounge"]


# ---------------------------------------------------------------- R6
@pytest.mark.parametrize(
    "num_players, sizes",
    [(3, [6, 6, 6]), (4, [5, 5, 4, 4]), (5, [4, 4, 4, 3, 3]), (6, [3, 3, 3, 3, 3, 3])],
)
def test_R6_all_18_cards_dealt_clockwise_earlier_seats_get_the_extra(num_players, sizes):
    for seed in range(5):
        e = make_env(num_players, envelope=None, seed=seed)
        hands = [hand_names(e, seat) for seat in range(num_players)]
        assert [len(h) for h in hands] == sizes
        dealt = [c for h in hands for c in h]
        assert len(dealt) == len(set(dealt)) == 18
        assert set(dealt) | set(envelope_names(e)) == set(SUSPECT_IDS + WEAPON_IDS + ROOM_IDS)


def test_R6_deal_is_shuffled():
    hands = {tuple(hand_names(make_env(4, seed=seed), 0)) for seed in range(20)}
    assert len(hands) > 10


def test_R6_public_hand_sizes_match_the_deal():
    e = make_env(5, envelope=None, seed=7)
    assert e.public_state()["hand_sizes"] == {"player_0": 4, "player_1": 4, "player_2": 4, "player_3": 3, "player_4": 3}


# ---------------------------------------------------------------- R7
@pytest.mark.parametrize("num_players", [3, 6])
def test_R7_tokens_on_board_all_places_all_six(num_players):
    e = make_env(num_players)
    assert e.game.cfg.tokens_on_board == "all"
    assert {s: where(e, s) for s in SUSPECT_IDS} == START


def test_R7_tokens_on_board_players_only_places_played_characters():
    e = make_env(3, tokens_on_board="players_only")
    assert {s: where(e, s) for s in SUSPECT_IDS} == {
        "scarlet": (24, 7),
        "mustard": (17, 0),
        "white": (0, 9),
        "green": None,
        "peacock": None,
        "plum": None,
    }


def test_R7_players_only_uses_the_configured_characters():
    e = make_env(3, tokens_on_board="players_only", characters=["plum", "green", "scarlet"])
    placed = {s for s in SUSPECT_IDS if where(e, s) is not None}
    assert placed == {"plum", "green", "scarlet"}
    assert where(e, "plum") == (19, 23)


# ---------------------------------------------------------------- R8
def test_R8_weapons_in_distinct_rooms():
    layouts = set()
    for seed in range(40):
        weapons = make_env(4, seed=seed).public_state()["weapons"]
        assert set(weapons) == set(WEAPON_IDS)
        assert all(room in ROOM_IDS for room in weapons.values())
        assert len(set(weapons.values())) == 6, f"two weapons share a room: {weapons}"
        layouts.add(tuple(weapons[w] for w in WEAPON_IDS))
    assert len(layouts) > 20, "weapon placement is not random"


def test_R8_every_room_is_used():
    counts = Counter()
    for seed in range(60):
        counts.update(make_env(4, seed=seed).public_state()["weapons"].values())
    assert set(counts) == set(ROOM_IDS)


# ---------------------------------------------------------------- R9
@pytest.mark.parametrize("num_players", [3, 4, 5, 6])
def test_R9_three_to_six_players(num_players):
    e = make_env(num_players)
    assert e.possible_agents == [f"player_{i}" for i in range(num_players)]


@pytest.mark.parametrize("num_players", [2, 7])
def test_R9_two_and_seven_players_are_rejected(num_players):
    with pytest.raises(ConfigError, match="num_players"):
        clue_env.raw_env(num_players=num_players)
    with pytest.raises(ConfigError, match="num_players"):
        clue_env.env(num_players=num_players)


# ---------------------------------------------------------------- R10
def test_R10_miss_scarlet_moves_first_then_clockwise():
    e = make_env(4, hands=HANDS4)
    assert e.agent_selection == "player_0"
    assert e.public_state()["characters"]["player_0"] == "scarlet"
    order = []
    for _ in range(5):
        order.append(e.agent_selection)
        pass_turn(e)
    assert order == ["player_0", "player_1", "player_2", "player_3", "player_0"]


def test_R10_seat_playing_scarlet_starts_with_configured_characters():
    e = make_env(4, characters=["mustard", "white", "scarlet", "green"])
    assert e.agent_selection == "player_2"
    assert where(e, "scarlet") == (24, 7)
    order = []
    for _ in range(4):
        order.append(e.agent_selection)
        pass_turn(e)
    assert order == ["player_2", "player_3", "player_0", "player_1"]


def test_R10_without_scarlet_the_earliest_character_in_turn_order_starts():
    e = make_env(3, characters=["plum", "peacock", "mustard"])
    assert e.agent_selection == "player_2"


def test_R10_first_player_is_the_first_turn_in_the_log():
    e = make_env(5, characters=["green", "plum", "peacock", "white", "scarlet"])
    assert e.agent_selection == "player_4"
    turns = [ev["player"] for ev in e.public_state()["log"] if ev["type"] == "turn"]
    assert turns == ["player_4"]
    pass_turn(e)
    assert e.agent_selection == "player_0"


def test_R7_unplayed_start_squares_are_free_only_with_players_only():
    # (1,14) is below Mr. Green's start (0,14); its other neighbour is (1,15)
    e = make_env(3, tokens={"scarlet": "1,14"})
    roll(e, 1)
    assert dests(e) == ({(1, 15)}, set())  # green's token stands on (0,14)
    e = make_env(3, tokens_on_board="players_only", tokens={"scarlet": "1,14"})
    roll(e, 1)
    assert dests(e) == ({(0, 14), (1, 15)}, set())


def test_explicit_chance_every_draw_goes_through_the_chance_object():
    """R5-R10, R12: the deal, weapons, first player and dice all come from the Chance passed in."""

    cfg = load_rules("edition2023")
    a, b = Game(cfg, 4), Game(cfg, 4)
    a.setup(RandomChance(np.random.default_rng(5)))
    b.setup(np.random.default_rng(5))  # a Generator is wrapped the same way
    assert (a.hands, a.envelope, a.weapon_loc, a.current) == (b.hands, b.envelope, b.weapon_loc, b.current)
    s = ScriptedChance(dies=[1, 1, 1, 6], rolls=[(3, 4)], seed=2)
    g = Game(cfg, 4)
    g.setup(s)
    assert g.current == 3 and s.drawn["die"] == [1, 1, 1, 6]
    assert len(s.drawn["permutation"]) >= 2 and len(s.drawn["index"]) == 3  # deal, deck, weapons; envelope picks
    from clue_env.engine.actions import Action, Kind

    g.apply(Action(Kind.ROLL))  # R12: the scripted roll
    assert g.dice == (3, 4) and s.drawn["dice"] == [(3, 4)]
    with pytest.raises(ValueError, match="not 2 dice"):
        ScriptedChance(rolls=[(7, 1)]).dice(2, 6)
    with pytest.raises(LookupError, match="no scripted die"):
        ScriptedChance(strict=True).die(6)


# ---------------------------------------------------------------- edition2023
def test_R1_2023_display_names_and_victim():
    e = clue_env.raw_env(num_players=3, rules=RULES)
    names = {c: e.rules.display(c) for c in ("scarlet", "mustard", "white", "green", "peacock", "plum")}
    assert names == {
        "scarlet": "Miss Scarlet",
        "mustard": "Colonel Mustard",
        "white": "Chef White",
        "green": "Mayor Green",
        "peacock": "Solicitor Peacock",
        "plum": "Professor Plum",
    }
    assert e.rules.victim == "Mr. Black"
    # the same 21 card ids; only the display names differ from classic
    classic = clue_env.raw_env(num_players=3)
    assert classic.rules.display("white") == "Mrs. White" and classic.rules.display("green") == "Mr. Green"
    assert len(CARDS) == 21 and len(set(CARDS)) == 21


def test_R1_2023_names_reach_the_rendered_text():
    e = clue_env.raw_env(num_players=6, rules=RULES, render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    for name in ("Chef White", "Mayor Green", "Solicitor Peacock"):
        assert name in text
    assert "Mrs. White" not in text and "Mr. Green" not in text and "Mrs. Peacock" not in text


def test_R2_2023_two_dice_the_sum_is_used():
    e = make23(3)
    roll2(e, 2, 5)
    roll_ev = [ev for ev in events(e) if ev["type"] == "roll"]
    assert roll_ev == [{"type": "roll", "player": "player_0", "total": 7, "dice": [2, 5]}]
    st = e.public_state()
    assert st["dice"] == [2, 5] and st["roll"] == 7
    assert dests(e) == (WITHIN_7, set())


def test_R2_2023_dice_in_every_seats_observation():
    e = make23(3)
    roll2(e, 2, 5)
    expect = np.zeros((2, 6), dtype=np.float32)
    expect[0, 1] = expect[1, 4] = 1.0
    for agent in e.possible_agents:
        assert (piece(e, agent, "dice") == expect).all(), agent
        assert piece(e, agent, "roll").argmax() == 7
    do(e, "end")  # the next turn starts with no dice
    for agent in e.possible_agents:
        assert not piece(e, agent, "dice").any()


def test_R2_2023_random_rolls_are_two_dice_of_six_faces():
    e = clue_env.raw_env(num_players=3, rules=RULES)
    faces = [Counter(), Counter()]
    totals = Counter()
    for seed in range(40):
        e.reset(seed=seed)
        for _ in range(5):
            do(e, "roll")
            ev = [x for x in events(e) if x["type"] == "roll"][-1]
            assert len(ev["dice"]) == 2 and all(1 <= f <= 6 for f in ev["dice"])
            assert ev["total"] == sum(ev["dice"])
            faces[0][ev["dice"][0]] += 1
            faces[1][ev["dice"][1]] += 1
            totals[ev["total"]] += 1
            do(e, "end")
    assert set(faces[0]) == set(faces[1]) == set(range(1, 7))
    assert max(totals) > 6 and min(totals) >= 2  # more than one die's worth


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_R9_2023_two_to_six_players(num_players):
    e = clue_env.raw_env(num_players=num_players, rules=RULES)
    e.reset(seed=1)
    assert e.possible_agents == e.agents == [f"player_{i}" for i in range(num_players)]
    w = clue_env.env(num_players=num_players, rules=RULES)
    w.reset(seed=1)
    assert w.num_agents == num_players


def test_R9_2023_two_players_refused_under_classic():
    with pytest.raises(ConfigError, match="num_players"):
        clue_env.raw_env(num_players=2)
    with pytest.raises(ConfigError, match="num_players"):
        clue_env.raw_env(num_players=2, rules="classic")
    with pytest.raises(ConfigError, match="num_players"):
        clue_env.env(num_players=2, rules="classic")


@pytest.mark.parametrize("num_players", [0, 1, 7])
def test_R9_2023_out_of_range_refused(num_players):
    with pytest.raises(ConfigError, match="num_players"):
        clue_env.raw_env(num_players=num_players, rules=RULES)
    with pytest.raises(ConfigError, match="num_players"):
        clue_env.env(num_players=num_players, rules=RULES)


@pytest.mark.parametrize(
    "n, rolls, first",
    [
        (4, [2, 6, 3, 1], 1),  # highest roll starts
        (4, [3, 5, 5, 2, 4, 6], 2),  # seats 1 and 2 tie on 5 and roll again: 4 vs 6
        (3, [5, 5, 5, 2, 2, 1, 1, 4], 1),  # all tie, then 0 and 1 tie, then 1 wins
        (2, [6, 6, 3, 2], 0),
        (6, [1, 2, 3, 4, 5, 6], 5),
    ],
)
def test_R10_2023_highest_roll_starts_ties_reroll(n, rolls, first):
    g = Game(load_rules(RULES), n)
    chance = ScriptedChance(dies=rolls)
    g.setup(chance, envelope=ENVELOPE)
    assert chance.dies == [] and chance.drawn["die"] == rolls, "the rule needs exactly these rolls"
    assert g.current == g.acting == first
    assert g.log[-1] == Turn(first, 1)


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_R10_2023_first_player_matches_the_rolls_drawn(n):
    for seed in range(15):
        g = Game(load_rules(RULES), n)
        chance = ScriptedChance(seed=seed)  # nothing scripted: every draw from its seeded fallback
        g.setup(chance)
        rolls = chance.drawn["die"]
        assert len(rolls) >= n
        assert g.current == _first_from_rolls(n, rolls), (seed, rolls)


def test_R10_2023_first_player_varies_with_the_seed():
    counts = Counter()
    for seed in range(200):
        e = new23(4, seed=seed)
        counts[e.agent_selection] += 1
        turns = [ev for ev in events(e) if ev["type"] == "turn"]
        assert turns == [{"type": "turn", "player": e.agent_selection, "turn": 1}]
    assert set(counts) == {"player_0", "player_1", "player_2", "player_3"}
    assert all(20 <= c <= 80 for c in counts.values()), counts  # about 50 each
    # classic, for contrast: Miss Scarlet (seat 0) always starts
    assert {make_env(4, seed=s).agent_selection for s in range(20)} == {"player_0"}


def test_R10_2023_then_play_passes_clockwise():
    e = make23(4, first=2, hands=HANDS4)
    order = []
    for _ in range(5):
        order.append(e.agent_selection)
        pass23(e)
    assert order == ["player_2", "player_3", "player_0", "player_1", "player_2"]
