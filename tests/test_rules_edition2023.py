"""Clue (2023 Edition) rules: R1, R2, R9, R10, R12, R16, R22-R25, R28-R30 (see /work/shared/RULES.md),
plus PettingZoo's api/seed/render tests for 2-6 players under ``rules="edition2023"``.

Positions come from reset options, dice are queued as pairs on ``env.game.next_rolls`` and actions
are stepped by their SPEC text. The 2023 first player is drawn by a roll (R10), so ``make23``
picks the first seed whose roll lets the wanted seat start.

Expected destinations are worked out by hand from /work/shared/board/classic_board.txt
(row, col; the squares used here):

    Miss Scarlet's start (24,7) is a dead end below a two-wide corridor, cols 7-8, rows 18-23;
    row 17 is a long corridor (cols 1-16). Hallway distances from (24,7):
        1: (23,7)   2: (22,7) (23,8)   3: (21,7) (22,8)   4: (20,7) (21,8)   5: (19,7) (20,8)
        6: (18,7) (19,8)   7: (17,7) (18,6) (18,8)   and the Lounge (door square (18,6)) costs 8.
    Lounge: one door, front square (18,6); leaving costs 1. With 3 from inside the Lounge:
        1: (18,6)   2: (18,5) (17,6) (18,7)   3: (18,4) (17,5) (16,6) (17,7) (19,7) (18,8)
        and the Dining Room (door square (16,6)) costs 4.
    Ballroom door (7,9) opens on (8,9).  Dining Room door (15,6) opens on (16,6).
    Secret passages: Kitchen <-> Study, Conservatory <-> Lounge.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import warnings
from collections import Counter

import numpy as np
import pytest
from conftest import ENVELOPE, HANDS4, core, dests, do, events, finish_refutation, legal, make_env, where
from pettingzoo.test import api_test, render_test, seed_test

import clue_env
from clue_env import ConfigError, IllegalMoveError
from clue_env.engine.cards import CARDS, ROOMS
from clue_env.engine.chance import RandomChance, ScriptedChance
from clue_env.engine.config import load_rules
from clue_env.engine.events import HIDDEN, NOBODY, Peek, Reveal, Turn
from clue_env.engine.game import Game
from clue_env.observation import LAYOUT

RULES = "edition2023"
RIGHT = "accuse plum wrench study"  # the ENVELOPE
WRONG = "accuse scarlet rope kitchen"
C = {name: i for i, name in enumerate(CARDS)}  # card id -> card index

#: 3-player deal of the 18 cards outside ENVELOPE (6 each)
HANDS3 = {
    "player_0": ["scarlet", "mustard", "candlestick", "kitchen", "ballroom", "conservatory"],
    "player_1": ["white", "dagger", "lead_pipe", "dining_room", "billiard_room", "library"],
    "player_2": ["green", "peacock", "revolver", "rope", "lounge", "hall"],
}
#: 2-player game (R30): 4 cards face down on the board, 7 cards per hand
BOARD2 = {"kitchen": "rope", "ballroom": "green", "lounge": "hall", "library": "revolver"}
HANDS2 = {
    "player_0": ["scarlet", "mustard", "white", "candlestick", "kitchen", "ballroom", "conservatory"],
    "player_1": ["peacock", "dagger", "lead_pipe", "dining_room", "billiard_room", "library", "lounge"],
}

#: hallway squares within 7 / 6 moves of Scarlet's start (24,7), by hand (see the docstring)
WITHIN_6 = {(23, 7), (22, 7), (23, 8), (21, 7), (22, 8), (20, 7), (21, 8), (19, 7), (20, 8), (18, 7), (19, 8)}
WITHIN_7 = WITHIN_6 | {(17, 7), (18, 6), (18, 8)}


# ---------------------------------------------------------------- helpers
def new23(num_players: int = 3, *, seed: int = 0, envelope=ENVELOPE, hands=None, tokens=None, board_cards=None, **overrides):
    """A reset 2023 raw env; ``board_cards`` is the R30 reset option (two players only)."""
    e = clue_env.raw_env(num_players=num_players, rules=RULES, **overrides)
    options = {}
    for key, value in (("envelope", envelope), ("hands", hands), ("tokens", tokens), ("board_cards", board_cards)):
        if value is not None:
            options[key] = list(value) if key == "envelope" else value
    e.reset(seed=seed, options=options or None)
    return e


def make23(num_players: int = 3, *, first: int = 0, **kw) -> clue_env.raw_env:
    """A reset 2023 raw env where seat ``first`` won the opening roll (R10): its die is scripted
    to 6 and everyone else's to 1; every other draw comes from the env's generator."""
    dies = [6 if s == first else 1 for s in range(num_players)]
    overrides = {k: kw.pop(k) for k in list(kw) if k not in ("seed", "envelope", "hands", "tokens", "board_cards")}
    e = clue_env.raw_env(num_players=num_players, rules=RULES, **overrides)
    e.chance_factory = lambda rng: ScriptedChance(dies=dies, fallback=RandomChance(rng))
    options = {key: (list(v) if key == "envelope" else v) for key, v in kw.items() if key != "seed" and v is not None}
    options.setdefault("envelope", list(ENVELOPE))
    e.reset(seed=kw.get("seed", 0), options=options)
    assert e.agent_selection == f"player_{first}"
    return e


def make2(first: int = 0, **kw) -> clue_env.raw_env:
    """The fixed two-player deal: HANDS2, ENVELOPE, BOARD2 face down on the board (R30)."""
    return make23(2, first=first, hands=HANDS2, board_cards=BOARD2, **kw)


def roll2(e, a: int, b: int) -> None:
    """Roll the two 2023 dice, forcing the faces ``a`` and ``b``."""
    e.game.next_rolls.append((a, b))
    do(e, "roll")


def pass23(e) -> None:
    """Play out the acting seat's 2023 turn quietly: roll 2+3 (no magnifying glass), end."""
    roll2(e, 2, 3)
    do(e, "end")


def n_accusations(e) -> int:
    return sum(t.startswith("accuse ") for t in legal(e))


def piece(e, agent: str, name: str) -> np.ndarray:
    return LAYOUT.view(e.observe(agent)["observation"], name)


def types(evs) -> list[str]:
    return [ev["type"] for ev in evs]


def seat_events(e, agent: str) -> list[tuple]:
    return list(e.infos[agent]["seat_view"].events)


# ---------------------------------------------------------------- R1
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


# ---------------------------------------------------------------- R2 / R23
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


def test_R23_2023_magnifying_glass_counts_as_one():
    # (1,6) moves 7, like (3,4); a glass counting 0 would stop at 6, counting more would reach 8
    e = make23(3)
    roll2(e, 1, 6)
    assert events(e)[-3]["type"] == "roll" and events(e)[-3]["total"] == 7
    assert dests(e) == (WITHIN_7, set())
    # (1,1) moves 2
    e = make23(3)
    roll2(e, 1, 1)
    assert e.public_state()["roll"] == 2
    assert dests(e) == ({(23, 7), (22, 7), (23, 8)}, set())
    # (6,1): the glass on the second die counts the same
    e = make23(3)
    roll2(e, 6, 1)
    assert dests(e) == (WITHIN_7, set())


def test_R23_2023_glass_face_is_face_one_in_the_dice_piece():
    e = make23(3)
    roll2(e, 1, 1)
    d = piece(e, "player_1", "dice")
    assert d[0, 0] == 1 and d[1, 0] == 1 and d.sum() == 2


# ---------------------------------------------------------------- R9
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


# ---------------------------------------------------------------- R10
def _first_from_rolls(n: int, rolls: list[int]) -> int:
    """R10 by hand: everyone rolls one die, the highest starts, tied seats roll again."""
    contenders = list(range(n))
    it = iter(rolls)
    while len(contenders) > 1:
        got = [next(it) for _ in contenders]
        top = max(got)
        contenders = [s for s, v in zip(contenders, got) if v == top]
    assert next(it, None) is None, "more rolls than the rule needs"
    return contenders[0]


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


# ---------------------------------------------------------------- R12
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


# ---------------------------------------------------------------- R16
def test_R16_2023_up_to_the_sum_from_the_start_square():
    for a, b, within in ((3, 4, WITHIN_7), (3, 3, WITHIN_6), (2, 5, WITHIN_7), (5, 2, WITHIN_7)):
        e = make23(3)
        roll2(e, a, b)
        assert dests(e) == (within, set()), (a, b)


def test_R16_2023_a_square_one_step_away_with_a_seven():
    e = make23(3)
    roll2(e, 3, 4)
    do(e, "move 23,7")  # 1 of 7
    assert where(e, "scarlet") == (23, 7)
    assert e.public_state()["phase"] == "accuse"
    assert legal(e) == {"end"}


def test_R16_2023_not_beyond_the_sum():
    e = make23(3)
    roll2(e, 3, 4)
    squares, rooms = dests(e)
    assert (17, 6) not in squares and (16, 7) not in squares and (17, 8) not in squares  # 8 away
    assert "lounge" not in rooms  # 8 away
    with pytest.raises(IllegalMoveError):
        do(e, "move 17,6")
    with pytest.raises(IllegalMoveError):
        do(e, "enter lounge")
    e = make23(3)
    roll2(e, 4, 4)
    squares, rooms = dests(e)
    assert rooms == {"lounge"} and {(17, 6), (16, 7), (17, 8)} <= squares


def test_R16_2023_up_to_the_sum_leaving_a_room():
    e = make23(3, tokens={"scarlet": "lounge"})
    roll2(e, 1, 2)
    assert dests(e) == ({(18, 6), (18, 5), (17, 6), (18, 7), (18, 4), (17, 5), (16, 6), (17, 7), (19, 7), (18, 8)}, set())
    do(e, "move 18,6")  # only the exit step
    assert where(e, "scarlet") == (18, 6)


# ---------------------------------------------------------------- R22
def test_R22_2023_stay_and_suggest_again_turn_after_turn():
    e = make23(3, hands=HANDS3, tokens={"scarlet": "8,9"})
    roll2(e, 2, 3)
    do(e, "enter ballroom")
    do(e, "suggest green rope")
    finish_refutation(e)
    do(e, "end")
    for _ in range(2):  # two more of Scarlet's turns, staying in the Ballroom
        pass23(e)
        pass23(e)
        assert e.agent_selection == "player_0" and legal(e) == {"roll"}
        roll2(e, 2, 3)
        assert "stay" in legal(e)
        do(e, "stay")
        assert where(e, "scarlet") == "ballroom"
        assert e.public_state()["phase"] == "suggest"
        n = len(events(e))
        do(e, "suggest white dagger")
        assert events(e, n)[0] == {
            "type": "suggest",
            "player": "player_0",
            "suspect": "white",
            "weapon": "dagger",
            "room": "ballroom",
        }
        finish_refutation(e)
        do(e, "end")
    assert [ev["room"] for ev in events(e) if ev["type"] == "suggest"] == ["ballroom"] * 3


def test_R22_2023_stay_needs_a_room_at_the_start_of_the_turn():
    e = make23(3)
    roll2(e, 3, 4)
    assert "stay" not in legal(e)
    with pytest.raises(IllegalMoveError):
        do(e, "stay")


def test_R22_2023_stay_is_classic_only_when_pulled():
    # the preset switch: under classic a token in a room that was not pulled may not stay
    assert load_rules(RULES).repeat_suggestion == "stay"
    e = make_env(3, tokens={"scarlet": "ballroom"})
    assert "stay" not in legal(e)
    e = make23(3, tokens={"scarlet": "ballroom"})
    roll2(e, 2, 3)
    assert "stay" in legal(e)


# ---------------------------------------------------------------- R24
def test_R24_2023_default_deck_one_reveal_card_per_card():
    e = new23(3)
    deck = e.game.clue_deck
    assert len(deck) == 21
    assert {eff.kind for eff in deck} == {"reveal"}
    assert sorted(eff.card for eff in deck) == list(range(21))
    orders = {tuple(eff.card for eff in new23(3, seed=s).game.clue_deck) for s in range(10)}
    assert len(orders) > 1, "the deck is not shuffled"


@pytest.mark.parametrize("a, b", list(itertools.product(range(1, 7), repeat=2)))
def test_R24_2023_a_card_is_drawn_exactly_when_a_die_shows_the_glass(a, b):
    e = make23(3)
    deck = list(e.game.clue_deck)
    n = len(events(e))
    roll2(e, a, b)
    new = events(e, n)
    if 1 in (a, b):  # one card only, even on two glasses
        assert types(new) == ["roll", "clue_card", "reveal"]
        assert new[1] == {"type": "clue_card", "player": "player_0", "effect": "reveal", "card": CARDS[deck[0].card]}
        assert e.game.clue_deck == deck[1:] + deck[:1]  # back to the bottom
    else:
        assert types(new) == ["roll"]
        assert e.game.clue_deck == deck


def test_R24_2023_successive_draws_go_down_the_deck():
    e = make23(3)
    deck = list(e.game.clue_deck)
    drawn = []
    for _ in range(23):  # a full cycle and two more
        n = len(events(e))
        roll2(e, 1, 1)
        drawn += [ev["card"] for ev in events(e, n) if ev["type"] == "clue_card"]
        do(e, "end")
    assert drawn == [CARDS[eff.card] for eff in deck + deck[:2]]


def test_R24_2023_drawn_card_in_every_seats_observation():
    e = make23(3, hands=HANDS3, clue_deck=["reveal:rope"])
    roll2(e, 1, 4)
    for agent in e.possible_agents:
        cc = piece(e, agent, "clue_card")
        assert cc[C["rope"]] == 1 and cc[-1] == 1 and cc.sum() == 2
    do(e, "end")
    for agent in e.possible_agents:
        assert not piece(e, agent, "clue_card").any()


def test_R24_2023_clue_cards_false_disables_the_deck():
    e = make23(3, clue_cards=False)
    assert e.rules.clue_cards is False and e.game.clue_deck == []
    n = len(events(e))
    roll2(e, 1, 1)
    assert types(events(e, n)) == ["roll"]
    for agent in e.possible_agents:
        assert not piece(e, agent, "clue_card").any() and not piece(e, agent, "revealed").any()


def test_R24_2023_configured_deck():
    e = make23(3, clue_deck=["reveal:rope", "reveal:hall"])
    assert sorted(CARDS[eff.card] for eff in e.game.clue_deck) == ["hall", "rope"]
    with pytest.raises(ConfigError, match="clue_deck"):
        clue_env.raw_env(num_players=3, rules=RULES, clue_deck=["explode:rope"])


# ---------------------------------------------------------------- R25
def test_R25_2023_holder_reveals_to_all():
    e = make23(4, hands=HANDS4, clue_deck=["reveal:lounge"])  # player_2 holds the Lounge
    n = len(events(e))
    roll2(e, 4, 1)
    assert events(e, n)[1:] == [
        {"type": "clue_card", "player": "player_0", "effect": "reveal", "card": "lounge"},
        {"type": "reveal", "player": "player_0", "card": "lounge", "holder": "player_2"},
    ]
    for v, agent in enumerate(e.possible_agents):
        assert Reveal(0, C["lounge"], 2) in seat_events(e, agent)
        rev = piece(e, agent, "revealed")
        assert rev[C["lounge"], (2 - v) % 4] == 1, agent  # seat-relative: the holder's chair from mine
        assert rev.sum() == 1, agent


def test_R25_2023_nobody_holds_the_card_everyone_learns_it():
    e = make23(4, hands=HANDS4, clue_deck=["reveal:plum"])  # in the envelope
    roll2(e, 1, 1)
    assert events(e)[-1] == {"type": "reveal", "player": "player_0", "card": "plum", "holder": None}
    for agent in e.possible_agents:
        assert Reveal(0, C["plum"], NOBODY) in seat_events(e, agent)
        rev = piece(e, agent, "revealed")
        assert rev[C["plum"], 6] == 1 and rev.sum() == 1, agent


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_R25_2023_reveal_names_the_true_holder_and_nobody_means_envelope(n):
    for seed in range(3):
        e = clue_env.raw_env(num_players=n, rules=RULES)
        e.reset(seed=seed)
        g = e.game
        envelope = {g.envelope[0], 6 + g.envelope[1], 12 + g.envelope[2]}
        holder_of = {c: s for s, hand in enumerate(g.hands) for c in hand}
        seen = {}
        for _ in range(21):
            roll2(e, 1, 6)
            for ev in g.log:
                if isinstance(ev, Reveal):
                    seen[ev.card] = ev.holder
            do(e, "end")
        assert set(seen) == set(range(21))
        for c, holder in seen.items():
            if holder == -1:
                assert c in envelope, (seed, CARDS[c])
            else:
                assert holder_of[c] == holder, (seed, CARDS[c])
        assert sorted(c for c, h in seen.items() if h == -1) == sorted(envelope)


def test_R25_2023_board_card_is_held_by_nobody():
    e = make2(clue_deck=["reveal:green"])  # green lies face down in the Ballroom
    roll2(e, 1, 3)
    assert events(e)[-1] == {"type": "reveal", "player": "player_0", "card": "green", "holder": None}
    for agent in e.possible_agents:
        assert Reveal(0, C["green"], NOBODY) in seat_events(e, agent)
        assert piece(e, agent, "revealed")[C["green"], 6] == 1


# ---------------------------------------------------------------- R28
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


# ---------------------------------------------------------------- R29
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


# ---------------------------------------------------------------- R30
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


# ---------------------------------------------------------------- PettingZoo
@pytest.fixture
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stdout(io.StringIO()):
            yield


@pytest.mark.usefixtures("_quiet")
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_pettingzoo_api_test_2023(n):
    api_test(clue_env.env(num_players=n, rules=RULES), num_cycles=500)
    api_test(clue_env.raw_env(num_players=n, rules=RULES), num_cycles=200)


@pytest.mark.usefixtures("_quiet")
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_pettingzoo_seed_test_2023(n):
    seed_test(lambda **kw: clue_env.env(num_players=n, rules=RULES, **kw), num_cycles=300)


@pytest.mark.usefixtures("_quiet")
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_pettingzoo_render_test_2023(n):
    render_test(lambda **kw: clue_env.env(num_players=n, rules=RULES, **kw))
