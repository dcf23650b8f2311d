"""The env's public contract (SPEC): PettingZoo tests, registration, spaces, errors, public state."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pettingzoo
import pytest
from helpers import RULES
from pettingzoo.test import api_test, render_test, seed_test

import clue_env
from clue_env import ConfigError, IllegalMoveError, InvalidDealError
from clue_env.codec import default_codec
from clue_env.engine.cards import CARDS, ROOMS, SUSPECTS, WEAPONS
from clue_env.env import stock_wrapped_env

PLAYERS = (3, 4, 5, 6)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize("n", PLAYERS)
def test_pettingzoo_api_test(n):
    api_test(clue_env.env(num_players=n), num_cycles=1000)
    api_test(clue_env.raw_env(num_players=n), num_cycles=200)


@pytest.mark.parametrize("n", PLAYERS)
def test_pettingzoo_api_test_stock_wrappers(n):
    api_test(stock_wrapped_env(num_players=n), num_cycles=300)


ACCUSE = default_codec().ACCUSE  # first accusation index


def test_pettingzoo_tests_with_belief_features():
    api_test(clue_env.env(num_players=4, belief_features=True), num_cycles=300)
    seed_test(lambda **kw: clue_env.env(num_players=3, belief_features=True, **kw), num_cycles=200)


@pytest.mark.parametrize("n", PLAYERS)
def test_pettingzoo_seed_test(n):
    seed_test(lambda **kw: clue_env.env(num_players=n, **kw), num_cycles=500)


@pytest.mark.parametrize("n", PLAYERS)
def test_pettingzoo_render_test(n):
    render_test(lambda **kw: clue_env.env(num_players=n, **kw))


def test_registered_with_pettingzoo_make():
    e = pettingzoo.make("aec", "clue/clue-v0", num_players=5)
    e.reset(seed=3)
    assert e.unwrapped.num_players == 5
    assert e.metadata["name"] == "clue_v0"
    assert e.metadata["render_modes"] == ["human", "ansi", "rgb_array"]


def test_spaces_are_the_same_object_and_flat():
    e = clue_env.env(num_players=4)
    e.reset(seed=0)
    a = e.possible_agents[0]
    assert e.observation_space(a) is e.observation_space(a)
    assert e.action_space(a) is e.action_space(e.possible_agents[1])
    assert e.action_space(a).n == 591
    obs = e.observe(a)
    assert obs["action_mask"].dtype == np.int8
    assert obs["observation"].dtype == np.float32
    assert e.observation_space(a).contains(obs)


def test_agents_are_clockwise_seats_with_turn_order_characters():
    e = clue_env.raw_env(num_players=6)
    e.reset(seed=0)
    assert e.possible_agents == [f"player_{i}" for i in range(6)]
    assert [SUSPECTS[s] for s in e.game.seat_suspect] == list(SUSPECTS)


def _play(e, seed, steps):
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = []
    for _ in range(steps):
        if e.game.over:
            break
        legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        legal = legal[(legal < ACCUSE)] if (legal < ACCUSE).any() else legal
        a = int(rng.choice(legal))
        trace.append((e.agent_selection, a, e.observe(e.agent_selection)["observation"].tobytes()))
        e.step(a)
    return trace, json.dumps(e.public_state())


def test_same_seed_same_game():
    t1, s1 = _play(clue_env.raw_env(num_players=4), 11, 400)
    t2, s2 = _play(clue_env.raw_env(num_players=4), 11, 400)
    t3, _ = _play(clue_env.raw_env(num_players=4), 12, 400)
    assert t1 == t2 and s1 == s2
    assert t1 != t3


def test_reset_without_seed_continues_the_seeded_generator():
    def deals(seed):
        e = clue_env.raw_env(num_players=3)
        e.reset(seed=seed)
        out = [[list(h) for h in e.game.hands]]
        for _ in range(5):
            e.reset()
            out.append([list(h) for h in e.game.hands])
        return out

    a, b = deals(5), deals(5)
    assert a == b
    assert len({str(d) for d in a}) > 1  # the unseeded resets deal new games


# ---------------------------------------------------------------- errors: name the problem, change nothing
def _snapshot(e):
    return json.dumps(e.public_state()), [list(h) for h in e.game.hands], e.agent_selection


def test_bad_deal_in_reset_options_is_rejected_and_changes_nothing():
    e = clue_env.raw_env(num_players=3)
    e.reset(seed=1)
    before = _snapshot(e)
    hands = {"player_0": ["scarlet", "rope"], "player_1": ["rope"], "player_2": []}
    with pytest.raises(InvalidDealError, match="rope"):
        e.reset(seed=2, options={"envelope": ["plum", "wrench", "hall"], "hands": hands})
    with pytest.raises(InvalidDealError, match="suspect"):
        e.reset(seed=2, options={"envelope": ["kitchen", "wrench", "hall"]})
    with pytest.raises(InvalidDealError, match="neither in a hand nor in the envelope"):
        e.reset(
            seed=2, options={"envelope": ["plum", "wrench", "hall"], "hands": {"player_0": [], "player_1": [], "player_2": []}}
        )
    with pytest.raises(ValueError, match="player_9"):
        e.reset(seed=2, options={"hands": {"player_9": ["rope"]}})
    with pytest.raises(ValueError, match="tokens"):
        e.reset(seed=2, options={"tokens": {"scarlet": "99,99"}})
    assert _snapshot(e) == before


def test_fixed_deal_in_reset_options():
    e = clue_env.raw_env(num_players=3)
    rest = [c for c in CARDS if c not in ("plum", "wrench", "hall")]
    hands = {"player_0": rest[:6], "player_1": rest[6:12], "player_2": rest[12:]}
    e.reset(seed=0, options={"envelope": ["plum", "wrench", "hall"], "hands": hands})
    assert e.game.envelope == (SUSPECTS.index("plum"), WEAPONS.index("wrench"), ROOMS.index("hall"))
    assert [CARDS[c] for c in e.game.hands[1]] == sorted(rest[6:12], key=CARDS.index)


@pytest.mark.parametrize("key", ["colour", 5, "seed", "deal"])
def test_unknown_reset_option_is_refused_with_its_name_and_changes_nothing(key):
    e = clue_env.raw_env(num_players=3)
    e.reset(seed=1)
    before = _full_snapshot(e)
    with pytest.raises(ValueError, match=f"unknown reset option {key!r}.*known options: envelope, hands"):
        e.reset(options={key: {}})
    assert _full_snapshot(e) == before


def test_pettingzoo_api_probe_option_is_the_one_ignored_key():
    """api_test/parallel_test call reset(seed=0, options={"options": 1}); that reserved key is ignored,
    the game is the same as reset(seed=0)."""
    a, b = clue_env.raw_env(num_players=3), clue_env.raw_env(num_players=3)
    a.reset(seed=0, options={"options": 1})
    b.reset(seed=0)
    assert _full_snapshot(a) == _full_snapshot(b)


def test_unknown_config_key_names_the_key():
    with pytest.raises(ConfigError, match="full_rol"):
        clue_env.raw_env(num_players=4, full_rol=False)
    with pytest.raises(ConfigError, match="tokens_on_board"):
        clue_env.raw_env(num_players=4, tokens_on_board="some")


@pytest.mark.parametrize("n", [0, 1, 2, 7, "4"])
def test_out_of_range_num_players_names_the_problem(n):
    with pytest.raises(ConfigError, match="num_players"):
        clue_env.raw_env(num_players=n)


def test_illegal_action_raises_and_changes_nothing():
    e = clue_env.raw_env(num_players=4)
    e.reset(seed=0)
    before = _snapshot(e)
    obs = e.observe(e.agent_selection)["observation"].copy()
    end = e.text_to_action("end")
    with pytest.raises(IllegalMoveError, match="player_0") as err:
        e.step(end)
    assert "end" in str(err.value)
    assert isinstance(err.value, ValueError)
    with pytest.raises(IllegalMoveError, match="out of range|not an action index"):
        e.step(10_000)
    with pytest.raises(IllegalMoveError):
        e.step("roll")
    assert _snapshot(e) == before
    assert np.array_equal(e.observe(e.agent_selection)["observation"], obs)
    e.step(e.text_to_action("roll"))  # still playable


def test_wrapped_env_ends_the_game_on_illegal_move():
    e = clue_env.env(num_players=3)
    e.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(e.unwrapped.text_to_action("end"))
    assert all(e.terminations.values())
    assert e.rewards["player_0"] == -1


def test_malformed_action_text_names_the_forms():
    e = clue_env.raw_env(num_players=3)
    for bad in ("jump", "move 0,0", "move x", "enter attic", "suggest plum", "accuse plum rope", "show unicorn", ""):
        with pytest.raises(ValueError, match="Accepted forms|accepted forms"):
            e.text_to_action(bad)


# ---------------------------------------------------------------- public state
def test_public_state_is_json_and_hides_private_cards():
    e = clue_env.raw_env(num_players=4)
    e.reset(seed=4)
    rng = np.random.default_rng(0)
    while not e.game.over and e.game.turn < 60:
        legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        non = legal[legal < ACCUSE]
        e.step(int(rng.choice(non if len(non) else legal)))
        st = e.public_state()
        text = json.dumps(st)
        assert "solution" not in st and "hands" not in st
        for ev in st["log"]:
            if ev["type"] == "show":
                assert set(ev) == {"type", "player", "to"}
    assert st["tokens"] and st["weapons"] and "log" in st and "phase" in st and "turn" in st
    assert isinstance(text, str)


# ---------------------------------------------------------------- edition2023
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


@pytest.mark.parametrize("bad", [0.9, np.float64(0.5), 3.0, "0", True, np.bool_(True), np.array(0), float("inf"), None, [0]])
def test_only_integers_are_actions_and_a_refused_one_changes_nothing(bad):
    e = clue_env.raw_env(num_players=3)
    e.reset(seed=0)
    before = json.dumps(e.public_state(), sort_keys=True)
    obs = e.observe(e.agent_selection)["observation"].copy()
    if bad is None:  # None is PettingZoo's action for a dead agent; for a live one it is refused too
        with pytest.raises(IllegalMoveError):
            e.step(bad)
    else:
        with pytest.raises(IllegalMoveError, match="not an action index"):
            e.step(bad)
    assert json.dumps(e.public_state(), sort_keys=True) == before
    assert np.array_equal(e.observe(e.agent_selection)["observation"], obs)
    e.step(np.int64(0))  # numpy integers are fine ("roll")
    e2 = clue_env.raw_env(num_players=3)
    e2.reset(seed=0)
    with pytest.raises(IllegalMoveError, match="not an action index"):
        e2.step(10**30)


def _full_snapshot(e):
    return (
        json.dumps(e.public_state(), sort_keys=True),
        [e.observe(a)["observation"].tobytes() + e.observe(a)["action_mask"].tobytes() for a in e.possible_agents],
        json.dumps(e._rng.bit_generator.state, sort_keys=True, default=str),
    )


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"tokens": {"scarlet": None}}, "played by player_0"),  # R7: a played character stays on the board
        (
            {
                "envelope": ["plum", "rope", "hall"],
                "hands": {
                    "player_0": [
                        "scarlet",
                        "mustard",
                        "white",
                        "green",
                        "peacock",
                        "candlestick",
                        "dagger",
                        "lead_pipe",
                        "revolver",
                    ],
                    "player_1": ["wrench", "kitchen", "ballroom"],
                    "player_2": ["conservatory", "dining_room", "billiard_room"],
                    "player_3": ["library", "lounge", "study"],
                },
            },
            r"hand sizes \[9, 3, 3, 3\].*\[5, 5, 4, 4\]",
        ),  # R6
        ({"tokens": {"scarlet": "7,4", "mustard": "7,4"}}, "two tokens"),  # refused after the deal was drawn
    ],
)
def test_refused_reset_options_leave_the_env_and_its_generator_as_they_were(options, match):
    """A refused reset changes nothing, not even the generator: the next unseeded reset equals a twin's."""
    e, twin = clue_env.raw_env(num_players=4), clue_env.raw_env(num_players=4)
    e.reset(seed=3)
    twin.reset(seed=3)
    before = _full_snapshot(e)
    with pytest.raises(ValueError, match=match):
        e.reset(options=options)
    assert _full_snapshot(e) == before
    e.reset()
    twin.reset()
    assert _full_snapshot(e) == _full_snapshot(twin)


def test_uneven_2023_two_player_deal_is_refused():
    e = clue_env.raw_env(num_players=2, rules="edition2023")
    cards = [c for c in CARDS if c not in ("plum", "rope", "hall")]
    with pytest.raises(InvalidDealError, match="R6"):
        e.reset(seed=0, options={"envelope": ["plum", "rope", "hall"], "hands": {"player_0": cards[:14], "player_1": []}})


def test_a_valid_layout_that_swaps_two_tokens_is_accepted():
    e = clue_env.raw_env(num_players=3)
    e.reset(seed=0)
    s, m = e.game.board.describe(e.game.loc[0]), e.game.board.describe(e.game.loc[1])  # start squares
    e.reset(seed=0, options={"tokens": {"scarlet": m, "mustard": s}})
    st = e.public_state()["tokens"]
    assert st["scarlet"] == [int(x) for x in m.split(",")] and st["mustard"] == [int(x) for x in s.split(",")]
    with pytest.raises(ValueError, match="two tokens on one hallway square"):
        e.reset(seed=0, options={"tokens": {"scarlet": m}})  # onto mustard's square, mustard staying


@pytest.mark.parametrize("seed", ["abc", -1, 1.5, True])
def test_bad_seeds_are_refused_naming_the_seed(seed):
    e = clue_env.raw_env(num_players=3)
    with pytest.raises(ValueError, match="seed"):
        e.reset(seed=seed)


def test_raw_python_errors_now_name_the_problem(tmp_path):
    """Issue 9 item 8: each of these used to raise a bare TypeError/IsADirectoryError/...; now a
    ValueError subclass that names the key or the input."""
    from agents import make_agent

    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(ConfigError, match="directory"):
        clue_env.raw_env(rules=str(tmp_path))
    with pytest.raises(ConfigError, match="not UTF-8"):
        clue_env.raw_env(rules=str(bad))
    e = clue_env.raw_env(num_players=3)
    with pytest.raises(ValueError, match="R,C"):
        e.text_to_action("move " + "9" * 5000 + ",1")
    for opts, match in [({"envelope": 5}, "envelope"), ({"envelope": [["plum"], "rope", "hall"]}, "envelope"),
                        ({"tokens": ["scarlet"]}, "tokens"), ({"weapons": ["rope"]}, "weapons")]:  # fmt: skip
        with pytest.raises(ValueError, match=match):
            e.reset(seed=0, options=opts)
    with pytest.raises(ValueError, match="threshold"):
        make_agent("deduction:threshold=abc", seat=0, num_players=3)


@pytest.mark.parametrize("typo", ["envelop", "hand", "token", "weapon", "board_card", "Envelope"])
def test_a_reset_option_typo_is_refused_with_did_you_mean_and_changes_nothing(typo):
    """A near miss of a known option key would silently play a random deal: it is refused."""
    e = clue_env.raw_env(num_players=3)
    e.reset(seed=1)
    before = _full_snapshot(e)
    with pytest.raises(ValueError, match="did you mean"):
        e.reset(options={typo: ["plum", "rope", "hall"]})
    assert _full_snapshot(e) == before
