"""2023 dice and Clue cards: R23-R25 (rules stated in docs/rules.md)."""

from __future__ import annotations

import itertools

import pytest
from helpers import HANDS3, HANDS4, RULES, WITHIN_7, C, dests, do, events, make2, make23, new23, piece, roll2, seat_events, types

import clue_env
from clue_env import ConfigError
from clue_env.engine.cards import CARDS
from clue_env.engine.events import NOBODY, Reveal


# ---------------------------------------------------------------- edition2023
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
