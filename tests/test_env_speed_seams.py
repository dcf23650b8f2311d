"""The seams the env's speed work opened (issue 16, item 23), held to R31 and to the stock behaviour.

* The seat view handed out in ``info`` is lazy: until a field is read it holds one immutable
  tuple of what it is made of. Nothing reachable from it, read or not, pickled, copied or
  introspected (``__dict__``, ``gc.get_referents``), is the game, an env-owned container or an
  event another seat could see more of, and it reads exactly like a view built eagerly.
* Seat histories share one redacted log with a per-seat overlay; each seat's history equals the
  engine's log redacted for that seat, event by event.
* ``env()``'s wrappers take a short path for legal int actions; everything else runs the stock
  methods (same errors, same illegal-move termination).
"""

from __future__ import annotations

import copy
import enum
import gc
import json
import pickle

import numpy as np
import pytest

import clue_env
from clue_env.engine.events import Event
from clue_env.engine.game import Game
from clue_env.env import stock_wrapped_env
from clue_env.seat_view import _CAPTURE, SeatHistory, SeatView, SharedLog


def _referents(obj, seen=None):
    """Everything the garbage collector says is reachable from ``obj`` (plus slots and __dict__)."""
    seen = set() if seen is None else seen
    stack = [obj]
    while stack:
        x = stack.pop()
        if id(x) in seen or isinstance(x, (int, float, str, bool, type(None), type, enum.Enum)):
            continue
        seen.add(id(x))
        yield x
        stack.extend(gc.get_referents(x))
        for name in getattr(type(x), "__slots__", ()):
            if hasattr(x, name):
                stack.append(getattr(x, name))


def _play(env, steps, seed=0):
    rng = np.random.default_rng(seed)
    raw = env.unwrapped
    for _ in range(steps):
        obs, _r, term, trunc, _info = env.last()
        if term or trunc:
            return
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal[legal < raw.codec.ACCUSE])))


@pytest.mark.parametrize(("n", "rules"), [(4, "classic"), (3, "edition2023")])
def test_R31_an_unread_lazy_seat_view_reaches_nothing_hidden(n, rules):
    env = clue_env.env(num_players=n, rules=rules)
    env.reset(seed=11)
    raw = env.unwrapped
    _play(env, 200)
    owned = {id(x) for x in (raw.game, raw.game.log, raw.infos, raw._histories, raw.encoder, raw.encoder.buf, raw)}
    owned |= {id(h) for h in raw._histories} | {id(raw._histories[0].shared)}
    owned |= {id(x) for x in vars(raw.game).values() if isinstance(x, (list, dict, set, np.ndarray))}
    for agent in raw.agents:
        seat = raw.possible_agents.index(agent)
        info = raw.infos[agent]
        view = info["seat_view"]
        assert set(vars(view)) == {_CAPTURE}  # not read yet: nothing decoded
        for copied in (view, copy.copy(view), copy.deepcopy(view), pickle.loads(pickle.dumps(view))):
            for obj in _referents(copied):
                assert id(obj) not in owned, f"{agent}'s unread view reaches an env-owned {type(obj).__name__}"
                assert not isinstance(obj, (Game, SharedLog, SeatHistory, list, dict, set, np.ndarray)) or obj is vars(copied), (
                    f"{agent}'s unread view reaches a {type(obj).__name__}"
                )
                if isinstance(obj, Event):
                    assert obj == obj.redacted(seat), f"{obj} is not redacted for {agent}"


def test_lazy_view_reads_like_an_eager_one_and_stays_a_snapshot():
    env = clue_env.raw_env(num_players=4)
    env.reset(seed=5)
    rng = np.random.default_rng(2)
    for _ in range(300):
        agent = env.agent_selection
        lazy = env.infos[agent]["seat_view"]
        eager = env.seat_view(agent)
        _ = eager.turn  # read: filled
        copied = pickle.loads(pickle.dumps(lazy))  # copied before any read
        assert isinstance(lazy, SeatView)
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        before = json.dumps(eager.to_json(), sort_keys=True)
        env.step(int(rng.choice(legal[legal < env.codec.ACCUSE])))
        if env.game.over:
            break
        # read only after the game moved on: still the position it was handed out at
        assert json.dumps(lazy.to_json(), sort_keys=True) == before
        assert json.dumps(copied.to_json(), sort_keys=True) == before
        assert lazy == eager and copied == eager and hash(lazy) == hash(eager)
        assert lazy.legal == tuple(legal.tolist()) and lazy.legal_text == eager.legal_text
        assert _CAPTURE not in vars(lazy)


@pytest.mark.parametrize(("n", "rules"), [(4, "classic"), (2, "edition2023"), (6, "classic")])
def test_shared_histories_equal_the_log_redacted_for_each_seat(n, rules):
    env = clue_env.raw_env(num_players=n, rules=rules)
    for seed in range(3):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for step in range(400):
            if env.game.over:
                break
            if step % 7 == 0:
                for seat, agent in enumerate(env.possible_agents):
                    events = env.infos[agent]["seat_view"].events
                    want = [ev.redacted(seat) for ev in env.game.log]
                    assert list(events) == want and len(events) == len(want)
                    assert [events[i] for i in range(len(want))] == want
                    assert list(events[3:-2]) == want[3:-2]
                    assert list(pickle.loads(pickle.dumps(events))) == want == list(copy.deepcopy(events))
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            env.step(int(rng.choice(legal[legal < env.codec.ACCUSE])))


def test_fast_wrappers_play_like_the_stock_ones():
    fast, stock = clue_env.env(num_players=4), stock_wrapped_env(num_players=4)
    for e in (fast, stock):
        e.reset(seed=8)
    rng = np.random.default_rng(1)
    for _ in range(500):
        a, b = fast.last(), stock.last()
        assert a[1:4] == b[1:4] and np.array_equal(a[0]["observation"], b[0]["observation"])
        assert a[4]["seat_view"] == b[4]["seat_view"]
        if a[2] or a[3]:
            break
        legal = np.flatnonzero(a[0]["action_mask"])
        act = int(rng.choice(legal[legal < fast.unwrapped.codec.ACCUSE]))
        fast.step(act if rng.random() < 0.5 else np.int64(act))  # numpy ints take the stock path
        stock.step(act)
    # out of range, wrong type, illegal: the stock errors and termination
    for e in (fast, stock):
        e.reset(seed=8)
        with pytest.raises(AssertionError, match="action space"):
            e.step(10_000)
        with pytest.raises(AssertionError, match="action space"):
            e.step(-1)
    for e in (fast, stock):
        illegal = int(np.flatnonzero(e.last()[0]["action_mask"] == 0)[0])
        e.step(illegal)  # logged as PettingZoo logs it; the game ends with the mover losing
        assert all(e.terminations.values()) and e.rewards[e.possible_agents[0]] in (-1, 0)
    assert fast.rewards == stock.rewards and fast._cumulative_rewards == stock._cumulative_rewards
    with pytest.raises(AttributeError, match="before reset"):
        clue_env.env(num_players=3).last()
