"""The ``deduction`` agent's experiment parameters (issue 15): ``plan`` (roll-aware classic
movement, R11 and R16-R21), ``pull`` (whom a suggestion calls into the room, R26) and ``deny``
(what a suggestion's public outcome tells the table, R27).

Each is off by default, so plain ``deduction`` plays exactly as before (the golden games and the
measured tables rely on that)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from agents import make_agent
from agents.deduction import TURNS_NEXT, TURNS_NOW, DeductionAgent, information_gain, public_information
from agents.tournament import play_game
from clue_env.codec import default_codec
from clue_env.engine.board import classic_board
from clue_env.engine.cards import N_ROOMS, N_SUSPECTS, ROOMS
from clue_env.engine.game import Phase

CODEC = default_codec()
BOARD = classic_board()
#: hallway square (5, 7), one move from the Ballroom's door
NEAR_BALLROOM = BOARD.rc_node[(5, 7)]
BALLROOM = ROOMS.index("ballroom")


@pytest.mark.parametrize(
    "spec, name",
    [
        ("deduction:plan=fast", "plan must be one of roll, move"),
        ("deduction:pull=everyone", "pull must be one of far, next, avoid"),
        ("deduction:pull=far,pull_tol=1.5", "pull_tol must be a number in"),
        ("deduction:pull=far,pull_tol=true", "pull_tol must be a number in"),
        ("deduction:deny=-0.5", "deny must be a number from 0 to"),
        ("deduction:deny=11", "deny must be a number from 0 to"),
        ("deduction:deny=yes", "deny must be a number from 0 to"),
        ("deduction:tells=0", "tells must be a number in"),
        ("deduction:tells=1.5", "tells must be a number in"),
        ("deduction:tells=true", "tells must be a number in"),
        ("deduction:shows=first", "shows must be one of any, repeat"),
    ],
)
def test_bad_experiment_parameters_are_refused_naming_them(spec, name):
    with pytest.raises(ValueError, match=name):
        make_agent(spec, seat=0, num_players=4)


def test_plain_deduction_keeps_its_defaults():
    a = make_agent("deduction", seat=0, num_players=4)
    assert isinstance(a, DeductionAgent) and a.plan is None and a.pull is None and a.deny == 0.0 and a.tells == 1.0
    assert a.shows == "any"


def _values(agent: DeductionAgent, values: np.ndarray) -> None:
    agent._room_values = lambda view, k: values.copy()  # type: ignore[method-assign]
    agent._gains = lambda k: np.zeros((6, 6, N_ROOMS)) + values[None, None, :]  # type: ignore[method-assign]


def _far_room(roll: int) -> int:
    """A room that one die's roll cannot reach from :data:`NEAR_BALLROOM` but plain ``deduction``
    still prefers at value 1.0 over the Ballroom at 0.3 (its score: value per max(1, d / 3.5) turns)."""
    d = BOARD.dist_to_room[NEAR_BALLROOM]
    for r in range(N_ROOMS):
        if roll < d[r] and 1.0 / max(1.0, d[r] / 3.5) > 0.3 + 1e-3:
            return r
    raise AssertionError("no such room on the board")


def test_R16_R19_plan_roll_enters_a_room_it_can_reach_now():
    """After the roll, a room enterable now (a suggestion this turn) beats a better room a turn
    or more away; plain ``deduction`` ignores the roll and walks toward the better room."""
    roll = 6
    far = _far_room(roll)
    values = np.full(N_ROOMS, 0.05)
    values[BALLROOM], values[far] = 0.3, 1.0
    mask = np.zeros(CODEC.n, np.int8)
    mask[CODEC.enter(BALLROOM)] = 1
    mask[CODEC.TOWARD : CODEC.TOWARD + N_ROOMS] = 1
    view = SimpleNamespace(my_node=NEAR_BALLROOM, roll_total=roll)
    plain, planned = DeductionAgent(0, 4, seed=1), DeductionAgent(0, 4, seed=1, plan="roll")
    for a in (plain, planned):
        a.reset()
        _values(a, values)
    assert plain._move(view, mask, None, Phase.MOVE) == CODEC.toward(far)
    assert planned._move(view, mask, None, Phase.MOVE) == CODEC.enter(BALLROOM)
    # worth it only while the room at hand is worth enough: 1.0 / (1.5 + left / 3.5) > value / 0.5
    left = BOARD.dist_to_room[NEAR_BALLROOM][far] - roll
    values[BALLROOM] = 0.9 * TURNS_NOW / (TURNS_NEXT + left / 3.5)
    _values(planned, values)
    assert planned._move(view, mask, None, Phase.MOVE) == CODEC.toward(far)


def test_R20_R21_plan_roll_stays_or_takes_the_passage_when_that_room_is_worth_most():
    """Before the roll (R11): staying (R21) and the secret passage (R20) reach a room now."""
    kitchen = ROOMS.index("kitchen")
    partner = BOARD.passage[kitchen]
    assert partner >= 0
    mask = np.zeros(CODEC.n, np.int8)
    mask[[CODEC.ROLL, CODEC.PASSAGE, CODEC.STAY]] = 1
    view = SimpleNamespace(my_node=kitchen, roll_total=0)
    a = DeductionAgent(0, 4, seed=1, plan="roll")
    a.reset()
    values = np.full(N_ROOMS, 0.1)
    values[partner] = 1.0
    _values(a, values)
    assert a._move(view, mask, None, Phase.START) == CODEC.PASSAGE
    values[kitchen] = 2.0
    _values(a, values)
    assert a._move(view, mask, None, Phase.START) == CODEC.STAY
    values[:] = 0.1
    values[partner] = 0.0
    values[ROOMS.index("ballroom")] = 1.0  # a room the die may reach beats the two at hand
    _values(a, values)
    assert a._move(view, mask, None, Phase.START) == CODEC.ROLL


def test_R26_pull_preferences_follow_the_mode():
    """``far`` prefers the active opponent whose token is farthest from the room, ``next`` the
    next to play, ``avoid`` anyone but an opponent outside the room; never me, an eliminated
    seat or a token already in the room."""
    room = BALLROOM
    tokens = [BOARD.start_node[s] for s in range(N_SUSPECTS)]
    tokens[3] = room  # seat 3's character is already here
    view = SimpleNamespace(characters=tuple(range(4)), eliminated=(False, False, True, False), tokens=tuple(tokens))
    prefs = {}
    for mode in ("far", "next", "avoid"):
        a = DeductionAgent(0, 4, seed=1, pull=mode)
        prefs[mode] = a._pull_preference(view, room)
    # seat 0 is me, seat 2 is eliminated, seat 3 is in the room: only seat 1's character counts
    for mode, p in prefs.items():
        assert p[0] == p[2] == p[3] == p[4] == p[5] == 0.0, mode
    assert prefs["far"][1] > 0 and prefs["next"][1] > 0 and prefs["avoid"][1] < 0


@pytest.mark.parametrize(
    "spec",
    [
        "deduction:plan=roll",
        "deduction:plan=move",
        "deduction:pull=far",
        "deduction:pull=avoid",
        "deduction:deny=0.5",
        "deduction:tells=0.35",
    ],
)
def test_variants_play_legal_games_to_the_end(spec):
    r = play_game([spec, "deduction", "notebook", "random"], "classic", seed=11, index=0)
    assert r.turns >= 1 and 0 <= r.winner < 4 and not r.truncated


def _two_deals() -> np.ndarray:
    """Two 4-player deals (card -> holder; 4 = the envelope) differing only in where the envelope's
    suspect is: Scarlet (0) in the envelope and Mustard (1) with seat 2, or the other way round."""
    base = np.array([0, 0, 3, 3, 0, 0] + [4, 1, 1, 1, 2, 2] + [4, 1, 1, 2, 2, 3, 3, 3, 0], dtype=np.int64)
    a, b = base.copy(), base.copy()
    a[0], a[1] = 4, 2
    b[0], b[1] = 2, 4
    return np.stack([a, b])


def test_R27_public_information_counts_only_who_refutes():
    """Naming Scarlet with the envelope's weapon and room: in one deal nobody refutes, in the other
    seat 2 does; who refutes tells the table which suspect is in the envelope (ln 2 nats). Naming
    cards seats 1 and 3 hold: seat 1 shows the same weapon in both deals, so neither the table nor the
    suggester learns anything."""
    deals = _two_deals()
    pub = public_information(deals, me=0, n=4, env_loc=4)
    own = information_gain(deals, 0, 4, np.random.default_rng(0), env_loc=4)
    w, r = 0, 0  # the envelope's weapon (card 6) and room (card 12) in both deals
    assert pub[0, w, r] == pytest.approx(np.log(2))
    assert own[0, w, r] == pytest.approx(np.log(2))  # seat 2 shows Scarlet, or nobody shows anything
    assert pub[2, 1, 5] == pytest.approx(0.0) and own[2, 1, 5] == pytest.approx(0.0)  # seat 1 shows its weapon in both


def test_deny_weighs_the_public_outcome_against_its_own_information():
    """With ``deny`` the suggestion is the one with the most own information less ``deny`` times
    its public information; with ``deny=0`` the public term is never computed."""
    a = DeductionAgent(0, 4, seed=1)
    assert a.deny == 0.0 and not a._public.any()
    b = DeductionAgent(0, 4, seed=1, deny=2.0)
    gain = np.zeros((6, 6, N_ROOMS))
    gain[0, 0, BALLROOM], gain[1, 1, BALLROOM] = 1.0, 0.8
    public = np.zeros((6, 6, N_ROOMS))
    public[0, 0, BALLROOM] = 0.5  # the most informative suggestion tells the table most
    b._gains = lambda k: gain  # type: ignore[method-assign]
    b._public = public
    b._knowledge = lambda view: None  # type: ignore[method-assign]
    b._certain = lambda k: None  # type: ignore[method-assign]
    mask = np.zeros(CODEC.n, dtype=np.int8)
    mask[CODEC.SUGGEST : CODEC.SUGGEST + 36] = 1
    view = SimpleNamespace(phase=Phase.SUGGEST, my_node=BALLROOM)
    assert b.act({"action_mask": mask}, {"seat_view": view}) == CODEC.suggest(1, 1)
    b.deny = 0.1
    assert b.act({"action_mask": mask}, {"seat_view": view}) == CODEC.suggest(0, 0)


def test_R26_tells_keeps_the_deals_in_which_the_namer_does_not_hold_what_it_named():
    """``tells``: every suggestion is public (R26, R31); a deal in which an opponent holds a card it
    named is kept with weight ``tells`` per such card, so with a small ``tells`` the deals where
    Mustard (named by seat 2) lies in the envelope, not in seat 2's hand, are kept."""
    from clue_env.engine.events import Suggest

    deals = _two_deals()  # deal 0: Mustard with seat 2; deal 1: Mustard in the envelope
    a = DeductionAgent(0, 4, seed=3, tells=1e-6)
    a.reset()
    a._events = (Suggest(seat=2, suspect=1, weapon=0, room=0),)
    a.samples = 50
    kept = a._reweigh(np.repeat(deals, 25, axis=0))
    assert kept.shape == (50, deals.shape[1]) and (kept[:, 1] == 4).all()
    # my own suggestions say nothing about where the cards lie
    a._events = (Suggest(seat=0, suspect=1, weapon=0, room=0),)
    kept = a._reweigh(np.repeat(deals, 25, axis=0))
    assert (kept[:, 1] == 4).any() and (kept[:, 1] == 2).any()


def test_R27_shows_repeat_expects_a_refuter_to_show_again_what_it_showed_me():
    """``shows=repeat``: a ``deduction`` refuter shows the suggester a card it has already shown it,
    when it can (R27: the refuter chooses). Seat 1 has shown me the Wrench (weapon 5, card 11) and
    holds Scarlet in one of two deals (in the other Scarlet is in the envelope). Naming Scarlet and the
    Wrench: the uniform model expects seat 1 to show Scarlet half the time where it holds her, which
    would tell where she is; with ``repeat`` it shows the Wrench again in both deals: nothing learnt."""
    deals = _two_deals()
    deals[:, 11] = 1  # the Wrench is seat 1's in both deals (it showed it to me)
    deals[1, 0] = 1  # deal 1: Scarlet with seat 1 (deal 0: in the envelope)
    repeat = np.zeros(21, dtype=bool)
    repeat[11] = True
    uniform = information_gain(np.repeat(deals, 200, axis=0), 0, 4, np.random.default_rng(0), env_loc=4)
    again = information_gain(np.repeat(deals, 200, axis=0), 0, 4, np.random.default_rng(0), env_loc=4, repeat=repeat)
    # Scarlet + the Wrench + the envelope's room (card 12)
    assert uniform[0, 5, 0] > 0.1
    assert again[0, 5, 0] == pytest.approx(0.0)
    # a suggestion naming no card shown to me is scored as before: Scarlet, the envelope's weapon and room
    assert again[0, 0, 0] == pytest.approx(uniform[0, 0, 0]) == pytest.approx(np.log(2))


def test_shows_repeat_feeds_the_cards_shown_to_me_into_its_estimate():
    """The agent marks exactly the cards shown to it (its witness's ``shown_to_me``; R31: what it was shown)."""
    seen = {}

    def spy(samples, me, n, rng, env_loc=None, repeat=None):
        seen["repeat"] = repeat
        return np.zeros((6, 6, N_ROOMS))

    import agents.deduction as mod

    a = make_agent("deduction:shows=repeat", seat=0, num_players=4, seed=1)
    a.reset()
    a.witness = SimpleNamespace(shown_to_me={11: 1, 3: 2})
    k = SimpleNamespace(version=1, ENV=4, H=4, sample_deals=lambda *args, **kw: _two_deals())
    orig = mod.information_gain
    mod.information_gain = spy
    try:
        a._gains(k)
    finally:
        mod.information_gain = orig
    assert seen["repeat"] is not None and sorted(np.flatnonzero(seen["repeat"])) == [3, 11]
    b = make_agent("deduction", seat=0, num_players=4, seed=1)
    b.reset()
    b.witness = SimpleNamespace(shown_to_me={11: 1})
    mod.information_gain = spy
    try:
        b._gains(k)
    finally:
        mod.information_gain = orig
    assert seen["repeat"] is None
