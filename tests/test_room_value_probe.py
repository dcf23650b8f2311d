"""The room-value network: the shipped network widened by inputs read from a planner (its room values,
move scores and suggestion scores), each widened copy starting as its base; the ``ppo`` agent playing
such a network with a planner of its own seat. The recipe stages that fit them: test_planner_fit.py."""

from __future__ import annotations

import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import clue_env  # noqa: E402
from agents.manifest import MODELS  # noqa: E402
from agents.ppo_agent import PPOAgent  # noqa: E402
from clue_env.engine.cards import N_ROOMS, ROOM_BASE  # noqa: E402
from clue_env.policy.checkpoint import CheckpointError, load_policy, read_policy_file, save_policy  # noqa: E402
from clue_env.policy.features import POLICY_LAYOUT  # noqa: E402
from clue_env.policy.network import CluePolicyNet, widen_for_room_values, with_roll_scores  # noqa: E402
from clue_env.training.planner_fit import fit_planner_weights  # noqa: E402

#: shipped files the tests below start from
SHIPPED_POLICY_MIXED = os.path.join(MODELS, "clue_ppo_mixed.pt")  # the classic network, no room values, with a head
SHIPPED_POLICY_2P_MIXED = os.path.join(MODELS, "clue_ppo_2p_mixed.pt")
SHIPPED_NETWORK_4P = os.path.join(MODELS, "clue_ppo_4p.pt")
SHIPPED_POLICY_4P_MIXED = os.path.join(MODELS, "clue_ppo_4p_mixed.pt")


def _wide() -> tuple[CluePolicyNet, CluePolicyNet]:
    base, _ = load_policy(SHIPPED_POLICY_MIXED)
    return base, widen_for_room_values(base)


def test_the_widened_network_starts_as_the_shipped_one_whatever_the_room_values():
    """The new input's weights start at zero: before any fit the two compute the same logits."""
    base, wide = _wide()
    assert wide.input_size == POLICY_LAYOUT.size + N_ROOMS and wide.config()["room_values"] == 1
    assert "room_values" not in base.config()  # an old network's file is unchanged
    x = torch.rand(5, POLICY_LAYOUT.size)
    with torch.no_grad():
        want = base(x)[0]
        for rv in (torch.zeros(5, N_ROOMS), torch.rand(5, N_ROOMS), torch.full((5, N_ROOMS), 3.0)):
            xr = torch.cat([x, rv], dim=1)
            assert torch.allclose(wide(xr)[0], want, atol=1e-5)
            assert torch.allclose(wide.reference_forward(xr)[0], want, atol=1e-5)
        # with a non-zero weight on the new column, the room values move the room cards' logits only
        nf = wide.card[0].in_features - 21 - wide.context_to_card - 1
        wide.card[0].weight.data[:, nf] = 1.0
        low, _ = wide(torch.cat([x, torch.zeros(5, N_ROOMS)], dim=1))
        high, _ = wide(torch.cat([x, torch.ones(5, N_ROOMS)], dim=1))
        assert not torch.allclose(high, low)
        assert torch.allclose(wide.reference_forward(torch.cat([x, torch.ones(5, N_ROOMS)], dim=1))[0], high, atol=1e-5)
        e_low = wide.card_features(torch.cat([x, torch.zeros(5, N_ROOMS)], dim=1))
        e_high = wide.card_features(torch.cat([x, torch.ones(5, N_ROOMS)], dim=1))
        changed = (e_low != e_high).any(dim=2).any(dim=0)
        assert changed[ROOM_BASE:].all() and not changed[:ROOM_BASE].any()


def test_a_room_value_network_round_trips_and_bad_sizes_are_refused(tmp_path):
    _, wide = _wide()
    path = str(tmp_path / "rv.pt")
    save_policy(path, wide)
    back, _ = load_policy(path)
    assert back.room_values == 1
    x = torch.rand(3, back.input_size)
    with torch.no_grad():
        assert torch.equal(back(x)[0], wide(x)[0])
    data = torch.load(path, weights_only=True)
    data["net"]["room_values"] = 5
    torch.save(data, path)
    with pytest.raises(CheckpointError, match="room_values must be 0, 1, 2, 3 or 4"):
        load_policy(path)
    with pytest.raises(ValueError, match="already reads room values"):
        widen_for_room_values(wide)


def test_the_ppo_agent_plays_a_room_value_network_legally_and_deterministically(tmp_path):
    """Two-player 2023 games (R30): the agent's planner supplies the room values; same seeds, same game."""
    base, wide = _wide()
    nf = wide.card[0].in_features - 21 - wide.context_to_card - 1
    with torch.no_grad():
        wide.card[0].weight[:, nf] = 0.5  # the values matter
    path = str(tmp_path / "rv.pt")
    save_policy(path, wide)
    first = _two_player_game(path, 11)
    assert first == _two_player_game(path, 11)
    assert len(first) > 5


def _two_player_game(path: str, seed: int) -> list[int]:
    """The actions of a 2023 two-player game of ``ppo:path`` against ``deduction`` (each checked legal)."""
    from agents import make_agent

    env = clue_env.raw_env(num_players=2, rules="edition2023")
    env.reset(seed=seed)
    agents = [make_agent(f"ppo:{path}", seat=0, num_players=2, rules="edition2023", seed=seed),
              make_agent("deduction", seat=1, num_players=2, rules="edition2023", seed=seed + 7)]  # fmt: skip
    for a in agents:
        a.reset()
    assert isinstance(agents[0], PPOAgent) and agents[0].planner is not None
    actions = []
    while not env.game_over and len(actions) < 400:
        name = env.agent_selection
        s = env.possible_agents.index(name)
        obs = env.observe(name)
        a = agents[s].act(obs, env.infos[name])
        assert obs["action_mask"][a] == 1
        actions.append(a)
        env.step(a)
    return actions


def test_training_refuses_a_room_value_init_except_for_an_accusation_only_run(tmp_path):
    from agents import SpecFactory
    from clue_env.training.config import TrainConfigError, load_train_config
    from clue_env.training.trainer import Trainer

    _, wide = _wide()
    init = str(tmp_path / "rv.pt")
    save_policy(init, wide)
    cfg = load_train_config({"init": init, "imitation": {"games": 0}, "ppo": {"timesteps": 64}})
    with pytest.raises(TrainConfigError, match="room values"):
        Trainer(cfg, str(tmp_path / "run"), SpecFactory, None, progress=False, workers=1).validate()
    assert not (tmp_path / "run").exists()
    # a run with only an accusation stage keeps the network as it is, so it may start from one: its games
    # are played by agents (which compute the room values), and the file it writes keeps the network
    only_head = load_train_config(
        {
            "init": init,
            "rules": "edition2023",
            "num_players": [2],
            "ppo": {"timesteps": 0},
            "accusation": {
                "games": 4,
                "lineups": [[f"ppo:{init}", "deduction"]],
                "chunk_games": 2,
                "iterations": 1,
                "epochs": 1,
                "held_out": 0.0,
                "features": 5,
            },
            "eval": {"opponents": ["deduction"], "games": 2, "workers": 1},
        }
    )
    out = Trainer(only_head, str(tmp_path / "run2"), SpecFactory, None, progress=False, workers=1).run()
    net, _ = load_policy(out)
    assert net.room_values == 1
    assert all(torch.equal(a, b) for a, b in zip(net.state_dict().values(), wide.state_dict().values()))
    assert read_policy_file(out).get("accusation") is not None


def test_fit_only_new_moves_the_room_value_column_alone():
    base, wide = _wide()
    rng = np.random.default_rng(0)
    n = 64
    x = rng.random((n, POLICY_LAYOUT.size)).astype(np.float16)
    mask = np.zeros((n, 591), dtype=bool)
    mask[:, 4 + 188 : 4 + 188 + 9] = True  # enter any room
    action = rng.integers(4 + 188, 4 + 188 + 9, n)
    data = {"obs": x, "mask": mask, "action": action, "rv": rng.random((n, N_ROOMS)).astype(np.float32)}
    before = {k: v.clone() for k, v in wide.state_dict().items()}
    fit_planner_weights(wide, data, np.arange(n), epochs=2, lr=1e-2, seed=0, use_rv=True, only_new=True)
    after = wide.state_dict()
    col = wide.card[0].in_features - 21 - wide.context_to_card - 1
    for k, v in before.items():
        if k == "card.0.weight":
            moved = (after[k] != v).any(dim=0)
            assert moved[col] and moved.sum() == 1
        else:
            assert torch.equal(after[k], v), k


def test_mode_2_starts_as_the_shipped_network_and_its_log_value_terms_move_the_room_moves_only():
    base, _ = _wide()
    wide = widen_for_room_values(base, mode=2)
    assert wide.config()["room_values"] == 2
    x = torch.rand(4, POLICY_LAYOUT.size)
    rv = torch.rand(4, N_ROOMS)
    xr = torch.cat([x, rv], dim=1)
    with torch.no_grad():
        want = base(x)[0]
        assert torch.allclose(wide(xr)[0], want, atol=1e-5)
        wide.rv_logit.copy_(torch.tensor([1.0, 2.0, 3.0, 4.0]))
        got = wide(xr)[0]
        assert torch.allclose(wide.reference_forward(xr)[0], got, atol=1e-5)
        from clue_env.codec import default_codec
        from clue_env.policy.network import ROOM_VALUE_FLOOR

        c = default_codec()
        lv = torch.log(rv + ROOM_VALUE_FLOOR)
        d = got - want
        assert torch.allclose(d[:, c.ENTER : c.ENTER + N_ROOMS], 1.0 * lv, atol=1e-4)
        assert torch.allclose(d[:, c.TOWARD : c.TOWARD + N_ROOMS], 2.0 * lv, atol=1e-4)
        here = wide.piece(xr, "my_room_dist") == 0
        stay = (here.float() * lv).sum(dim=1)
        assert torch.allclose(d[:, c.STAY], 3.0 * stay, atol=1e-4)
        others = torch.ones(591, dtype=torch.bool)
        others[c.ENTER : c.TOWARD + N_ROOMS] = False
        others[[c.STAY, c.PASSAGE]] = False
        assert torch.allclose(d[:, others], torch.zeros_like(d[:, others]), atol=1e-5)


def _mode_2() -> CluePolicyNet:
    base, _ = _wide()
    net = widen_for_room_values(base, mode=2)
    with torch.no_grad():
        net.rv_logit.copy_(torch.tensor([1.0, 0.5, 2.0, 1.5]))
    return net


def test_mode_3_starts_as_its_mode_2_network_and_its_move_score_terms_move_the_move_actions_only():
    from clue_env.codec import default_codec
    from clue_env.policy.network import MOVE_SCORE_FLOOR, MOVE_SCORES, add_move_scores

    two = _mode_2()
    three = add_move_scores(two)
    assert three.config()["room_values"] == 3 and three.input_size == two.input_size + MOVE_SCORES
    gen = torch.Generator().manual_seed(3)
    x = torch.rand(4, two.input_size, generator=gen)
    # distinct scores (steps of 0.05), some actions unscored (0)
    ms = torch.stack([torch.linspace(0.05, 1.0, MOVE_SCORES)[torch.randperm(MOVE_SCORES, generator=gen)] for _ in range(4)])
    ms = ms * (torch.rand(4, MOVE_SCORES, generator=gen) > 0.3)
    x3 = torch.cat([x, ms], dim=1)
    with torch.no_grad():
        want = two(x)[0]
        assert torch.allclose(three(x3)[0], want, atol=1e-5)  # the new scalars start at zero
        three.ms_logit.copy_(torch.tensor([1.0, 2.0, 3.0, 4.0]))
        got = three(x3)[0]
        assert torch.allclose(three.reference_forward(x3)[0], got, atol=1e-5)
    c = default_codec()
    ls = torch.log(ms + MOVE_SCORE_FLOOR)
    ls = ls - ls.max(dim=1, keepdim=True).values  # relative to the best-scored move
    d = got - want
    assert torch.allclose(d[:, c.ENTER : c.ENTER + N_ROOMS], 1.0 * ls[:, :N_ROOMS], atol=1e-4)
    assert torch.allclose(d[:, c.TOWARD : c.TOWARD + N_ROOMS], 2.0 * ls[:, N_ROOMS : 2 * N_ROOMS], atol=1e-4)
    assert torch.allclose(d[:, c.STAY], 3.0 * ls[:, 2 * N_ROOMS], atol=1e-4)
    assert torch.allclose(d[:, c.PASSAGE], 4.0 * ls[:, 2 * N_ROOMS + 1], atol=1e-4)
    others = torch.ones(591, dtype=torch.bool)
    others[c.ENTER : c.TOWARD + N_ROOMS] = False
    others[[c.STAY, c.PASSAGE]] = False
    assert torch.equal(d[:, others], torch.zeros_like(d[:, others]))
    # scaled up, the terms rank the scored moves as the planner does
    with torch.no_grad():
        three.ms_logit.mul_(1e5)
        big = three(x3)[0]
    scored = torch.cat([big[:, c.ENTER : c.TOWARD + N_ROOMS], big[:, [c.STAY, c.PASSAGE]]], dim=1)
    assert torch.equal(scored.argmax(dim=1), ms.argmax(dim=1))
    with pytest.raises(ValueError, match="room_values=2 network"):
        add_move_scores(_wide()[1])
    with pytest.raises(ValueError, match="room_values=2 network"):
        add_move_scores(three)


def test_floor_squares_scores_the_square_moves_at_the_floor_and_nothing_else():
    """Classic moves include stepping to a chosen square, which the planner never scores: with
    ``floor_squares`` those actions get the ``toward`` scalar times (log floor - best log-score), as a
    move scored 0 would, and nothing where no move is scored; without it they keep 0 (the files written
    before it play as they did)."""
    from clue_env.codec import default_codec
    from clue_env.policy.network import MOVE_SCORE_FLOOR, MOVE_SCORES, add_move_scores

    c = default_codec()
    two = _mode_2()
    plain, floored = add_move_scores(two), add_move_scores(two, floor_squares=True)
    assert floored.config()["floor_squares"] is True and "floor_squares" not in plain.config()
    gen = torch.Generator().manual_seed(5)
    x = torch.rand(3, two.input_size, generator=gen)
    ms = torch.rand(3, MOVE_SCORES, generator=gen) * (torch.rand(3, MOVE_SCORES, generator=gen) > 0.4)
    ms[2] = 0.0  # a decision that is not a move: nothing scored
    x3 = torch.cat([x, ms], dim=1)
    with torch.no_grad():
        assert torch.allclose(floored(x3)[0], two(x)[0], atol=1e-5)  # zero scalars: the mode-2 function
        for net in (plain, floored):
            net.ms_logit.copy_(torch.tensor([1.0, 2.0, 3.0, 4.0]))
        a, b = plain(x3)[0], floored(x3)[0]
        assert torch.allclose(floored.reference_forward(x3)[0], b, atol=1e-5)
    best = torch.log(ms + MOVE_SCORE_FLOOR).max(dim=1).values
    squares = slice(c.MOVE, c.ENTER)
    want = 2.0 * (torch.log(torch.tensor(MOVE_SCORE_FLOOR)) - best)
    assert torch.allclose((b - a)[:, squares], want[:, None].expand(3, c.ENTER - c.MOVE), atol=1e-4)
    assert float(want[0]) < -1.0 and float(want[2]) == 0.0
    rest = torch.ones(591, dtype=torch.bool)
    rest[squares] = False
    assert torch.equal(b[:, rest], a[:, rest])  # every other action as without the floor
    # large scalars now rank every scored move above every square move, as the planner would
    with torch.no_grad():
        floored.ms_logit.mul_(1e4)
        big = floored(x3)[0]
    top_scored = torch.cat([big[:, c.ENTER : c.TOWARD + N_ROOMS], big[:, [c.STAY, c.PASSAGE]]], dim=1).max(dim=1).values
    assert bool((big[:2, squares].max(dim=1).values < top_scored[:2]).all())
    # refused where there are no move scores, and as a non-bool; a saved file keeps it
    with pytest.raises(ValueError, match="floor_squares"):
        CluePolicyNet(room_values=2, floor_squares=True)
    with pytest.raises(ValueError, match="floor_squares"):
        CluePolicyNet(room_values=3, floor_squares=1)  # type: ignore[arg-type]


def test_a_floor_squares_network_round_trips_and_bad_configs_are_refused(tmp_path):
    from clue_env.policy.net_sizes import net_sizes_problem
    from clue_env.policy.network import add_move_scores

    net = add_move_scores(_mode_2(), floor_squares=True)
    path = str(tmp_path / "fs.pt")
    save_policy(path, net, {})
    back, _ = load_policy(path)
    assert back.floor_squares and back.config() == net.config()
    assert all(torch.equal(a, b) for a, b in zip(back.state_dict().values(), net.state_dict().values()))
    assert "floor_squares" in (net_sizes_problem({"hidden": 8, "room_values": 2, "floor_squares": True}) or "")
    assert "floor_squares" in (net_sizes_problem({"hidden": 8, "room_values": 3, "floor_squares": "yes"}) or "")
    assert net_sizes_problem({"hidden": 8, "room_values": 3, "floor_squares": True}) is None
    assert net_sizes_problem({"hidden": 8, "room_values": 4, "floor_squares": False}) is None


def _games(n: int, rules: str, games: int, plan: str | None = None, moves: str = "roll"):
    """(planner's move scores, its choice) at every move decision of ``games`` games of ``deduction``."""
    from agents.deduction import DeductionAgent

    out = []
    for g in range(games):
        env = clue_env.raw_env(num_players=n, rules=rules)
        env.reset(seed=500 + g)
        agents = [DeductionAgent(s, n, env.rules, seed=40 + s, plan=plan, moves=moves) for s in range(n)]
        for a in agents:
            a.reset()
        while not env.game_over:
            name = env.agent_selection
            s = env.possible_agents.index(name)
            obs, info = env.observe(name), env.infos[name]
            scores = agents[s].move_scores(obs, info)
            a = agents[s].act(obs, info)
            out.append((scores, a, info["seat_view"].phase))
            env.step(a)
    return out


@pytest.mark.parametrize(("n", "rules", "plan"), [(2, "edition2023", None), (4, "classic", "roll")])
def test_the_planners_move_scores_rank_its_own_move_first(n, rules, plan):
    """``DeductionAgent.move_scores`` is the planner's own scoring (R16-R22): at every move decision
    whose best option is unique and is not a roll (classic R11: a roll has no score), the best-scored
    action is the move it makes; zero elsewhere."""
    from agents.deduction import MOVE_SCORE_ACTIONS
    from clue_env.engine.game import Phase

    rows = _games(n, rules, 3, plan)
    scored = same = 0
    for scores, action, phase in rows:
        if phase not in (Phase.START, Phase.MOVE):
            assert not scores.any()  # a suggestion, a refutation, an accusation: nothing to score
            continue
        if not scores.any():
            continue
        top = np.flatnonzero(scores == scores.max())
        if len(top) > 1 or action not in MOVE_SCORE_ACTIONS:  # a tie; a roll (classic: not scored)
            continue
        scored += 1
        same += int(MOVE_SCORE_ACTIONS[int(top[0])] == action)
    assert scored > 20 and same == scored


def test_fit_only_new_in_mode_3_moves_the_move_score_weights_alone():
    from clue_env.policy.network import MOVE_SCORES, add_move_scores

    three = add_move_scores(_mode_2())
    rng = np.random.default_rng(0)
    n = 64
    mask = np.zeros((n, 591), dtype=bool)
    mask[:, 4 + 188 : 4 + 188 + 9] = True  # enter any room
    action = rng.integers(4 + 188, 4 + 188 + 9, n)
    ms = rng.random((n, MOVE_SCORES)).astype(np.float32)
    ms[np.arange(n), action - (4 + 188)] += 1.0  # the labels are the best-scored moves
    data = {
        "obs": rng.random((n, POLICY_LAYOUT.size)).astype(np.float16),
        "mask": mask,
        "action": action,
        "rv": rng.random((n, N_ROOMS)).astype(np.float32),
        "ms": ms,
    }
    before = {k: v.clone() for k, v in three.state_dict().items()}
    fit_planner_weights(three, data, np.arange(n), epochs=3, lr=1e-2, seed=0, use_rv=True, only_new=True)
    after = three.state_dict()
    for k, v in before.items():
        if k == "ms_logit":
            assert after[k][0] > 0  # following the scores pays on these labels
            assert torch.equal(after[k][1:], v[1:])  # no toward/stay/passage decisions to learn from
        else:
            assert torch.equal(after[k], v), k


def _mode_3() -> CluePolicyNet:
    from clue_env.policy.network import add_move_scores

    net = add_move_scores(_mode_2())
    with torch.no_grad():
        net.ms_logit.copy_(torch.tensor([2.0, 1.0, 3.0, 0.5]))
    return net


def test_mode_4_starts_as_its_mode_3_network_and_its_suggestion_terms_move_the_suggestions_only():
    from clue_env.codec import default_codec
    from clue_env.policy.network import SUGGEST_SCORE_FLOOR, SUGGEST_SCORES, add_suggest_scores

    three = _mode_3()
    four = add_suggest_scores(three)
    assert four.config()["room_values"] == 4 and four.input_size == three.input_size + SUGGEST_SCORES
    gen = torch.Generator().manual_seed(4)
    x = torch.rand(4, three.input_size, generator=gen)
    ss = torch.stack([torch.linspace(0.02, 0.9, SUGGEST_SCORES)[torch.randperm(SUGGEST_SCORES, generator=gen)] for _ in range(4)])
    ss[3] = 0.0  # a decision that is not a suggestion: no scores, no term
    x4 = torch.cat([x, ss], dim=1)
    with torch.no_grad():
        want = three(x)[0]
        assert torch.allclose(four(x4)[0], want, atol=1e-5)  # the new scalar starts at zero
        four.ss_logit.fill_(2.5)
        got = four(x4)[0]
        assert torch.allclose(four.reference_forward(x4)[0], got, atol=1e-5)
    c = default_codec()
    ls = torch.log(ss + SUGGEST_SCORE_FLOOR)
    ls = ls - ls.max(dim=1, keepdim=True).values
    d = got - want
    sug = slice(c.SUGGEST, c.SUGGEST + SUGGEST_SCORES)
    assert torch.allclose(d[:, sug], 2.5 * ls, atol=1e-4)
    assert torch.equal(d[3], torch.zeros_like(d[3]))
    others = torch.ones(591, dtype=torch.bool)
    others[sug] = False
    assert torch.equal(d[:, others], torch.zeros_like(d[:, others]))
    with torch.no_grad():  # scaled up, the network suggests what the planner scores best
        four.ss_logit.mul_(1e5)
        big = four(x4)[0]
    assert torch.equal(big[:3, sug].argmax(dim=1), ss[:3].argmax(dim=1))
    with pytest.raises(ValueError, match="room_values=3 network"):
        add_suggest_scores(_mode_2())
    with pytest.raises(ValueError, match="room_values=3 network"):
        add_suggest_scores(four)


@pytest.mark.parametrize("tells, pull", [(1.0, None), (0.35, None), (0.35, "avoid")])
def test_the_planners_suggestion_scores_rank_its_own_suggestion_first(tells, pull):
    """``DeductionAgent.suggest_scores`` is the planner's own weighing of a suggestion (R26): at every
    suggestion decision with a unique best score, that suggestion is the one it makes; zero elsewhere.
    With ``pull=avoid`` the scores of suggestions that call the opponent's token in are cut by
    ``pull_tol``, and that is what makes the best-scored one the one it makes."""
    from agents.deduction import DeductionAgent
    from clue_env.codec import default_codec
    from clue_env.engine.game import Phase

    c = default_codec()
    scored = same = cut = 0
    for g in range(3):
        env = clue_env.raw_env(num_players=2, rules="edition2023")
        env.reset(seed=700 + g)
        agents = [DeductionAgent(s, 2, env.rules, seed=60 + s, tells=tells, pull=pull) for s in range(2)]
        for a in agents:
            a.reset()
        while not env.game_over:
            name = env.agent_selection
            s = env.possible_agents.index(name)
            obs, info = env.observe(name), env.infos[name]
            scores = agents[s].suggest_scores(obs, info)
            a = agents[s].act(obs, info)
            if info["seat_view"].phase != Phase.SUGGEST:
                assert not scores.any()
            elif c.SUGGEST <= a < c.SUGGEST + 36 and np.sum(scores == scores.max()) == 1 and scores.max() > 0:
                scored += 1
                same += int(c.SUGGEST + int(np.argmax(scores)) == a)
                room = info["seat_view"].my_node
                plain = np.maximum(agents[s]._gains(agents[s]._knowledge(info["seat_view"]))[:, :, room], 0.0).reshape(-1)
                cut += int(not np.allclose(plain, scores))
            env.step(a)
    assert scored > 10 and same == scored
    assert (cut > 0) == (pull == "avoid")  # the cut was in play, and only with pull=avoid


def test_a_policy_file_names_its_planner_and_a_bad_one_is_refused(tmp_path):
    from agents import make_agent
    from clue_env.policy.network import add_suggest_scores

    four = add_suggest_scores(_mode_3())
    path = str(tmp_path / "four.pt")
    save_policy(path, four, {"planner": {"tells": 0.35}})
    agent = make_agent(f"ppo:{path}", seat=0, num_players=2, rules="edition2023", seed=3)
    assert isinstance(agent, PPOAgent) and agent.planner.tells == 0.35
    first = _two_player_game(path, 12)
    assert first == _two_player_game(path, 12) and len(first) > 5
    save_policy(path, four, {"planner": {"tells": 0.35, "pull": "avoid"}})
    agent = make_agent(f"ppo:{path}", seat=0, num_players=2, rules="edition2023", seed=3)
    assert agent.planner.tells == 0.35 and agent.planner.pull == "avoid"
    assert _two_player_game(path, 12) == _two_player_game(path, 12)
    bads = (
        ({"tells": 2.0}, "tells must be"),
        ({"depth": 3}, "must be a mapping of tells, pull"),
        ({"samples": 0}, "samples must be an int from 1"),
        ("x", "mapping"),
        ({"tells": 0.35, "pull": "far"}, "may only be 'avoid'"),
    )
    for bad, why in bads:
        save_policy(path, four, {"planner": bad})
        with pytest.raises(ValueError, match=why):
            make_agent(f"ppo:{path}", seat=0, num_players=2, rules="edition2023", seed=3)
    with pytest.raises(CheckpointError, match="tells must be"):
        PPOAgent(0, 2, "edition2023", 3, net=four, planner={"tells": 0.0})


def test_moves_own_scores_the_classic_moves_in_the_units_the_planner_moves_by():
    """``deduction:moves=own`` (no ``plan``): after the roll the best-scored ``toward`` is the room it
    heads for (R16-R19) and ``enter`` is not scored; at the start of a turn (R11, R20, R21) it stays
    only when staying scores the best, takes the passage only when the passage scores the best, and
    rolls when neither does; zero away from move decisions."""
    from agents.deduction import MOVE_SCORE_ACTIONS, DeductionAgent
    from clue_env.codec import default_codec
    from clue_env.engine.game import Phase

    c = default_codec()
    stay, passage = MOVE_SCORE_ACTIONS.index(c.STAY), MOVE_SCORE_ACTIONS.index(c.PASSAGE)
    counts = {"after": 0, "stay": 0, "roll": 0, "passage": 0}
    for scores, action, phase in _games(4, "classic", 3, moves="own"):
        if phase not in (Phase.START, Phase.MOVE):
            assert not scores.any()
        elif phase == Phase.MOVE and action in MOVE_SCORE_ACTIONS:
            assert not scores[:N_ROOMS].any()  # enter r: not scored
            top = np.flatnonzero(scores == scores.max())
            assert MOVE_SCORE_ACTIONS.index(action) in top
            counts["after"] += 1
        elif phase == Phase.START and action == c.STAY:
            assert scores[stay] >= 0.999 * scores.max()
            counts["stay"] += 1
        elif phase == Phase.START and action == c.ROLL:
            assert scores[stay] < 0.999 * scores.max() and scores[passage] < scores.max()
            assert scores[N_ROOMS : 2 * N_ROOMS].max() == scores.max()  # rolling scores the best
            counts["roll"] += 1
        elif phase == Phase.START and action == c.PASSAGE:
            assert scores[passage] == scores.max()
            counts["passage"] += 1
    assert counts["after"] > 20 and counts["roll"] > 20 and counts["stay"] + counts["passage"] > 0, counts
    with pytest.raises(ValueError, match="moves must be one of roll, own"):
        DeductionAgent(0, 4, "classic", seed=1, moves="mine")


def test_a_planner_with_moves_own_is_named_by_a_policy_file_and_a_bad_one_refused(tmp_path):
    from agents import make_agent
    from clue_env.policy.checkpoint import check_planner

    net, _ = load_policy(SHIPPED_NETWORK_4P)
    path = str(tmp_path / "own.pt")
    save_policy(path, net, {"planner": {"tells": 0.35, "moves": "own"}})
    agent = make_agent(f"ppo:{path}", seat=0, num_players=4, rules="classic", seed=3)
    assert agent.planner.moves == "own" and agent.planner.tells == 0.35
    save_policy(path, net, {"planner": {"tells": 0.35}})  # no moves: the roll-aware scores the files before it read
    assert make_agent(f"ppo:{path}", seat=0, num_players=4, rules="classic", seed=3).planner.moves == "roll"
    with pytest.raises(ValueError, match="moves must be 'roll' or 'own'"):
        check_planner({"moves": "plain"})


def test_roll_scores_score_the_roll_as_its_best_toward_score_and_nothing_else(tmp_path):
    """With ``roll_scores`` the roll (R11) gets the ``toward`` scalar times (its best ``toward``
    log-score less the best log-score), 0 where nothing is scored; every other logit is as without
    it, and the switch round-trips through a policy file and is refused without move scores."""
    from clue_env.codec import default_codec
    from clue_env.policy.net_sizes import net_sizes_problem
    from clue_env.policy.network import MOVE_SCORE_FLOOR, MOVE_SCORES, add_move_scores

    c = default_codec()
    plain = add_move_scores(_mode_2(), floor_squares=True)
    rolled = with_roll_scores(plain)
    gen = torch.Generator().manual_seed(7)
    with torch.no_grad():
        plain.ms_logit.copy_(torch.tensor([1.0, 2.0, 3.0, 4.0]))
    rolled.load_state_dict(plain.state_dict())
    x = torch.rand(3, plain.input_size - MOVE_SCORES, generator=gen)
    ms = torch.rand(3, MOVE_SCORES, generator=gen)
    ms[1, 2 * N_ROOMS] = 5.0  # staying scores above every room: the roll falls below it
    ms[2] = 0.0  # nothing scored
    x3 = torch.cat([x, ms], dim=1)
    with torch.no_grad():
        a, b = plain(x3)[0], rolled(x3)[0]
        assert torch.allclose(rolled.reference_forward(x3)[0], b, atol=1e-5)
    ls = torch.log(ms + MOVE_SCORE_FLOOR)
    want = 2.0 * (ls[:, N_ROOMS : 2 * N_ROOMS].max(dim=1).values - ls.max(dim=1).values)
    assert torch.allclose((b - a)[:, c.ROLL], want, atol=1e-4)
    assert float(want[0]) <= 0.0 and float(want[1]) < -1.0 and float(want[2]) == 0.0
    rest = torch.ones(591, dtype=torch.bool)
    rest[c.ROLL] = False
    assert torch.equal(b[:, rest], a[:, rest])
    path = str(tmp_path / "rolled.pt")
    save_policy(path, rolled, {})
    back, _ = load_policy(path)
    assert back.roll_scores and back.config() == {**plain.config(), "roll_scores": True}
    with pytest.raises(ValueError, match="roll_scores"):
        CluePolicyNet(hidden=8, room_values=2, roll_scores=True)
    assert "roll_scores" in (net_sizes_problem({"hidden": 8, "room_values": 2, "roll_scores": True}) or "")
    assert net_sizes_problem({"hidden": 8, "room_values": 4, "roll_scores": True}) is None
