"""The seat view (env.unwrapped.seat_view): agrees with the observation, is frozen, reaches nothing mutable (R31)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import clue_env
from clue_env.engine.board import OFF_BOARD
from clue_env.engine.cards import N_ROOMS
from clue_env.engine.events import Event
from clue_env.engine.game import Game
from clue_env.observation import HAND_SCALE, LAYOUT, MAX_SEATS
from clue_env.seat_view import SeatView

CASES = [(3, "classic"), (4, "classic"), (6, "classic"), (2, "edition2023"), (4, "edition2023")]


def _rel(seat: int, other: int, n: int) -> int:
    return (other - seat) % n


def _check_agrees(e, agent: str) -> None:
    """Every fact in the seat view matches the observation vector of the same seat."""
    v = e.seat_view(agent)
    obs = e.observe(agent)
    x, mask = obs["observation"], obs["action_mask"]
    n, me = e.num_players, v.seat
    piece = lambda name: LAYOUT.view(x, name)  # noqa: E731
    assert v.agent == agent and v.num_players == n
    assert list(v.hand) == [int(c) for c in np.flatnonzero(piece("hand"))]
    sizes = np.rint(piece("hand_size") * HAND_SCALE).astype(int)
    assert [v.hand_sizes[(me + k) % n] for k in range(n)] == list(sizes[:n])
    assert int(np.argmax(piece("phase"))) == int(v.phase)
    assert list(v.legal) == [int(i) for i in np.flatnonzero(mask)]
    assert v.legal_text == tuple(e.action_to_text(i) for i in v.legal)
    assert (len(v.legal) > 0) == (v.must_act and e.agent_selection == agent)
    if not v.over:
        assert int(np.argmax(piece("current")[:n])) == _rel(me, v.current, n)
    loc = piece("suspect_loc")
    for s, node in enumerate(v.tokens):
        if node == OFF_BOARD:
            assert loc[s, N_ROOMS + 3] == 1
        elif node < N_ROOMS:
            assert loc[s, node] == 1
        else:
            r, c = e.board.node_rc[node]
            assert loc[s, N_ROOMS] == 1
            assert round(loc[s, N_ROOMS + 1] * (e.board.rows - 1)) == r and round(loc[s, N_ROOMS + 2] * (e.board.cols - 1)) == c
    wl = piece("weapon_loc")
    assert [int(np.argmax(wl[w])) for w in range(len(v.weapons))] == list(v.weapons)
    shown = piece("shown_to_me")
    got = {(int(c), (me + k + 1) % n) for k, c in zip(*np.nonzero(shown))}
    assert got == set(v.shown_to_me)
    elim = piece("eliminated")
    assert [bool(elim[_rel(me, i, n)]) for i in range(n)] == list(v.eliminated)
    rev = piece("revealed")
    for card, holder in v.revealed:
        assert rev[card, _rel(me, holder, n) if holder >= 0 else MAX_SEATS] == 1
    assert int(piece("board_seen").sum()) == len(v.peeked)
    for _room, card in v.peeked:
        assert piece("board_seen")[card] == 1
    assert list(np.flatnonzero(piece("board_rooms"))) == list(v.board_card_rooms)
    if v.dice:
        assert int(np.argmax(piece("roll"))) == min(v.roll_total, piece("roll").shape[0] - 1)


@pytest.mark.parametrize(("n", "rules"), CASES)
def test_seat_view_agrees_with_the_observation_on_random_playouts(n, rules):
    e = clue_env.raw_env(num_players=n, rules=rules)
    rng = np.random.default_rng(n)
    checked = 0
    for g in range(3):
        e.reset(seed=g)
        for _ in range(400):
            if e.game.over:
                break
            for a in e.possible_agents:
                _check_agrees(e, a)
                checked += 1
            mask = e.observe(e.agent_selection)["action_mask"]
            legal = np.flatnonzero(mask)
            quiet = legal[legal < e.codec.ACCUSE]
            e.step(int(rng.choice(quiet if len(quiet) and rng.random() < 0.97 else legal)))
        for a in e.possible_agents:  # after the end too
            _check_agrees(e, a)
    assert checked > 500


def test_seat_view_json_names_things_and_opens_the_envelope_only_at_the_end():
    e = clue_env.raw_env(num_players=4)
    e.reset(seed=3)
    v = e.seat_view("player_1")
    j = v.to_json()
    json.dumps(j)  # serialisable
    assert j["seat"] == "player_1" and len(j["hand"]) == len(v.hand) and j["solution"] is None
    assert j["legal"] == [] and v.legal == ()  # not player_1's turn
    assert e.seat_view("player_0").to_json()["legal"] == list(e.seat_view("player_0").legal_text)
    while not e.game.over:
        legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        e.step(int(legal[-1]))  # the last legal index is an accusation whenever one is allowed
    j = e.seat_view("player_1").to_json()
    assert j["over"] and j["solution"] is not None and j["reason"]
    with pytest.raises(ValueError, match="unknown agent"):
        e.seat_view("player_9")


def _walk(obj, seen=None, path="view"):
    """Everything reachable from ``obj`` through attributes, slots and container items."""
    seen = set() if seen is None else seen
    if id(obj) in seen or isinstance(obj, (int, float, str, bool, type(None))):
        return
    seen.add(id(obj))
    yield path, obj
    if isinstance(obj, dict):
        for k, val in obj.items():
            yield from _walk(val, seen, f"{path}[{k!r}]")
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for i, val in enumerate(obj):
            yield from _walk(val, seen, f"{path}[{i}]")
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            yield from _walk(getattr(obj, f.name), seen, f"{path}.{f.name}")
    for name in getattr(type(obj), "__slots__", ()):
        if hasattr(obj, name):
            yield from _walk(getattr(obj, name), seen, f"{path}.{name}")
    if hasattr(obj, "__dict__") and not isinstance(obj, type):
        for k, val in vars(obj).items():
            yield from _walk(val, seen, f"{path}.{k}")


@pytest.mark.parametrize(("n", "rules"), [(4, "classic"), (2, "edition2023")])
def test_seat_view_is_frozen_and_reaches_nothing_mutable_or_hidden(n, rules):
    e = clue_env.raw_env(num_players=n, rules=rules)
    e.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(120):
        legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        e.step(int(rng.choice(legal[legal < e.codec.ACCUSE])))
    v = e.seat_view("player_0")
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.turn = 0  # type: ignore[misc]
    for path, obj in _walk(v):
        assert not isinstance(obj, (list, dict, set, np.ndarray, Game)), f"{path} is a {type(obj).__name__}"
        assert type(obj).__module__.split(".")[0] in ("builtins", "clue_env", "enum"), path
        if isinstance(obj, Event):
            assert getattr(obj, "card", 0) == -1 or obj == obj.redacted(0), f"{path}: {obj} is not redacted for seat 0"
    assert isinstance(v, SeatView)
    before = json.dumps(v.to_json(), sort_keys=True)
    legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
    e.step(int(legal[0]))
    assert json.dumps(v.to_json(), sort_keys=True) == before  # a snapshot: the game moving on does not change it


@pytest.mark.parametrize(("n", "rules"), [(4, "classic"), (2, "edition2023")])
def test_R31_nothing_an_agent_receives_leads_back_to_the_game(n, rules):
    """Walk everything reachable from env.last() (observation and info) through the wrapped env:
    no live game object, no env-owned container, no unredacted event; and changing what was
    received changes nothing in the env (issue 9, item 1)."""
    env = clue_env.env(num_players=n, rules=rules)
    env.reset(seed=4)
    raw = env.unwrapped
    rng = np.random.default_rng(1)
    owned = {id(x) for x in (raw.game, raw.game.log, raw.infos, raw._histories, raw.encoder, raw.encoder.buf)}
    for _ in range(150):
        agent = env.agent_selection
        obs, _r, term, trunc, info = env.last()
        if term or trunc:
            break
        seat = raw.possible_agents.index(agent)
        for path, obj in _walk({"obs": obs, "info": info}, path="last()"):
            assert id(obj) not in owned, f"{path} is the env's own object"
            assert not isinstance(obj, (Game, clue_env.raw_env)), path
            if isinstance(obj, Event):
                assert obj == obj.redacted(seat), f"{path}: {obj} is not redacted for {agent}"
        before = json.dumps(raw.public_state(), sort_keys=True)
        nxt = raw.observe(agent)["observation"].copy()
        obs["observation"][:] = 0  # an agent scribbling on what it got
        info["seat_view"] = None
        info["junk"] = 1
        assert json.dumps(raw.public_state(), sort_keys=True) == before
        assert np.array_equal(raw.observe(agent)["observation"], nxt)
        legal = np.flatnonzero(raw.observe(agent)["action_mask"])
        env.step(int(rng.choice(legal[legal < raw.codec.ACCUSE])))


def test_each_read_of_info_is_a_fresh_dict():
    e = clue_env.raw_env(num_players=3)
    e.reset(seed=0)
    a = e.infos["player_0"]
    a["junk"] = 1
    b = e.infos["player_0"]
    assert "junk" not in b and b["seat_view"] is a["seat_view"]  # the frozen view itself is shared


# ---------------------------------------------------------------------- copying and pickling
def _policy_step(env, rng) -> int | None:
    """A seeded policy: mostly a random non-accusation, sometimes any legal action (so games end)."""
    obs, _r, term, trunc, _info = env.last()
    if term or trunc:
        return None
    legal = np.flatnonzero(obs["action_mask"])
    quiet = legal[legal < env.unwrapped.codec.ACCUSE]
    pool = quiet if len(quiet) and rng.random() < 0.9 else legal
    return int(rng.choice(pool))


def _play_out(env, seed: int) -> list[tuple]:
    """Play ``env`` to the end with the seeded policy; everything each step gave, as plain data."""
    rng = np.random.default_rng(seed)
    trace = []
    for agent in env.agent_iter(max_iter=5000):
        obs, reward, term, trunc, info = env.last()
        view = info["seat_view"]
        trace.append(
            (agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc, json.dumps(view.to_json()))
        )
        env.step(_policy_step(env, rng))
    trace.append(("end", json.dumps(env.unwrapped.public_state(), sort_keys=True)))
    return trace


@pytest.mark.parametrize("wrapped", [True, False])
def test_deepcopy_and_pickle_of_a_reset_env_play_on_independently_and_identically(wrapped):
    import copy
    import pickle

    env = clue_env.env(num_players=4) if wrapped else clue_env.raw_env(num_players=4)
    env.reset(seed=1)
    rng = np.random.default_rng(3)
    for _ in range(12):
        env.step(_policy_step(env, rng))
    env.last()  # the infos' seat views are built (and cached) before copying
    clones = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    assert all(c.unwrapped.game is not env.unwrapped.game for c in clones)
    traces = [_play_out(c, 99) for c in clones]  # the clones first: the original must not notice
    original = _play_out(env, 99)
    assert len(original) > 2 and all(t == original for t in traces)
    assert any(step[3] != 0 for step in original[:-1])  # played to the end: the rewards came


def test_a_seat_view_and_its_history_copy_and_pickle_and_stay_immutable():
    import copy
    import pickle

    from clue_env.seat_view import BLOCK, History

    e = clue_env.env(num_players=4)
    e.reset(seed=2)
    rng = np.random.default_rng(0)
    while len(e.unwrapped.seat_view("player_0").events) <= BLOCK + 3:  # a full block and a tail
        e.step(_policy_step(e, rng))
        if not e.agents:
            e.reset(seed=3)
    info = e.last()[4]
    view = info["seat_view"]
    _ = view.legal_text  # a cached property in the instance
    for other in (copy.deepcopy(view), pickle.loads(pickle.dumps(view)), copy.copy(view), copy.deepcopy(info)["seat_view"]):
        assert other == view and other.to_json() == view.to_json() and other.legal_text == view.legal_text
        assert isinstance(other.events, History) and other.events == view.events and hash(other.events) == hash(view.events)
    h = view.events
    assert copy.copy(h) is h
    for h2 in (copy.deepcopy(h), pickle.loads(pickle.dumps(h)), pickle.loads(pickle.dumps(History()))):
        assert isinstance(h2, History) and list(h2) == list(h)[: len(h2)] and len(h2) in (len(h), 0)
        with pytest.raises(AttributeError, match="immutable"):
            h2._tail = ()  # type: ignore[misc]
        with pytest.raises(AttributeError, match="immutable"):
            del h2._len
    assert (
        h[BLOCK] == list(h)[BLOCK] and h[-1] == list(h)[-1] and h[BLOCK - 2 : BLOCK + 2] == tuple(list(h)[BLOCK - 2 : BLOCK + 2])
    )
