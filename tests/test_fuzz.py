"""Property-based fuzzing (Hypothesis, bounded for CI): every input is either accepted and leaves
the env consistent, or refused with a ValueError subclass naming the problem and leaving the env
exactly as it was (public state, every observation and mask, the generator's state).

Budgets: ``FUZZ_EXAMPLES`` examples per property (default 120; raise it locally with the
environment variable ``CLUE_FUZZ_EXAMPLES``).
"""

from __future__ import annotations

import json
import os
import warnings

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import clue_env  # noqa: E402
from clue_env import ConfigError  # noqa: E402
from clue_env.engine.cards import CARDS, ROOMS, SUSPECTS, WEAPONS  # noqa: E402
from clue_env.engine.config import FIELDS  # noqa: E402

FUZZ_EXAMPLES = int(os.environ.get("CLUE_FUZZ_EXAMPLES", "120"))
FUZZ = settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _snapshot(e) -> tuple:
    return (
        json.dumps(e.public_state(), sort_keys=True),
        tuple(e.observe(a)["observation"].tobytes() + e.observe(a)["action_mask"].tobytes() for a in e.possible_agents),
        json.dumps(e._rng.bit_generator.state, sort_keys=True, default=str),
        e.agent_selection,
    )


def _consistent(e) -> None:
    for a in e.possible_agents:
        assert e.observation_space(a).contains(e.observe(a)), a
    g = e.game
    owners = sorted(c for h in g.hands for c in h)
    assert len(owners) == len(set(owners))
    squares = [n for n in g.loc if n >= len(ROOMS)]
    assert len(squares) == len(set(squares))  # R18
    mask = e.observe(e.agent_selection)["action_mask"]
    assert mask.dtype == np.int8 and (mask.any() or g.over)


# ---------------------------------------------------------------- values
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
)
card_ids = st.sampled_from(CARDS)
places = st.one_of(st.sampled_from(ROOMS), st.tuples(st.integers(-2, 26), st.integers(-2, 26)).map(lambda t: f"{t[0]},{t[1]}"))
values = st.recursive(
    st.one_of(scalars, card_ids, places),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.one_of(card_ids, st.text(max_size=8)), inner, max_size=4)
    ),
    max_leaves=8,
)
hands = st.fixed_dictionaries(
    {f"player_{i}": st.lists(card_ids, max_size=7) for i in range(3)}, optional={"player_9": st.lists(card_ids, max_size=2)}
)
reset_options = st.dictionaries(
    st.sampled_from(["envelope", "hands", "board_cards", "tokens", "weapons", "envelop", "options", "colour"]),
    st.one_of(
        values,
        st.lists(card_ids, min_size=3, max_size=3),
        hands,
        st.dictionaries(st.sampled_from(SUSPECTS), st.one_of(places, st.none()), max_size=3),
        st.dictionaries(st.sampled_from(WEAPONS), st.one_of(st.sampled_from(ROOMS), scalars), max_size=3),
    ),
    max_size=3,
)


@FUZZ
@given(options=st.one_of(reset_options, values), seed=st.one_of(st.none(), st.integers(0, 2**32), scalars))
def test_fuzz_reset_options_accepted_consistently_or_refused_without_change(options, seed):
    e = clue_env.raw_env(num_players=3)
    e.reset(seed=11)
    before = _snapshot(e)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # nothing is only warned about: accepted or refused
            e.reset(seed=seed, options=options)
    except ValueError as err:
        assert str(err)  # names the problem
        assert _snapshot(e) == before
        return
    _consistent(e)


@FUZZ
@given(overrides=st.dictionaries(st.sampled_from(sorted(FIELDS)), values, min_size=1, max_size=2), n=st.integers(1, 7))
def test_fuzz_config_overrides_accepted_or_refused_with_a_config_error(overrides, n):
    try:
        e = clue_env.raw_env(num_players=n, **overrides)
    except ConfigError as err:
        assert any(k in str(err) for k in [*overrides, "num_players", "players"]), str(err)
        return
    e.reset(seed=0)
    _consistent(e)
    for _ in range(30):  # a few random moves under the accepted config
        if e.game.over:
            break
        legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        quiet = legal[legal < e.codec.ACCUSE]
        e.step(int((quiet if len(quiet) else legal)[0]))
    _consistent(e)


@FUZZ
@given(
    steps=st.lists(st.one_of(st.integers(-5, 700), st.integers(), scalars, st.just("legal")), min_size=1, max_size=25),
    seed=st.integers(0, 1000),
)
def test_fuzz_action_indices_played_or_refused_without_change(steps, seed):
    e = clue_env.raw_env(num_players=4)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for a in steps:
        if e.game.over:
            break
        mask = e.observe(e.agent_selection)["action_mask"]
        if a == "legal":
            legal = np.flatnonzero(mask)
            quiet = legal[legal < e.codec.ACCUSE]
            a = int(rng.choice(quiet if len(quiet) else legal))
        legal_int = isinstance(a, int) and not isinstance(a, bool) and 0 <= a < len(mask) and mask[a]
        before = _snapshot(e)
        try:
            e.step(a)
        except ValueError as err:
            assert not legal_int and str(err)
            assert _snapshot(e) == before
            continue
        assert legal_int
        _consistent(e)


@FUZZ
@given(text=st.one_of(st.text(max_size=40), st.sampled_from(["move 5000000000000000000000,1", "suggest plum", "accuse a b c"])))
def test_fuzz_action_text_parsed_or_refused_with_the_accepted_forms(text):
    e = clue_env.raw_env(num_players=3)
    try:
        i = e.text_to_action(text)
    except ValueError as err:
        assert str(err)
        return
    assert 0 <= i < e.codec.n and e.text_to_action(e.action_to_text(i)) == i
