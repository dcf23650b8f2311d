"""The ``ppo`` agent: loads policy files, plays only legal actions, and the shipped policy is in place."""

from __future__ import annotations

import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import clue_env  # noqa: E402
from agents import make_agent  # noqa: E402
from agents.manifest import MODELS, load_manifest  # noqa: E402
from agents.tournament import run_tournament  # noqa: E402
from clue_env.codec import default_codec  # noqa: E402
from clue_env.engine.cards import N_CARDS, N_ROOMS, N_SUSPECTS, N_WEAPONS  # noqa: E402
from clue_env.engine.config import load_rules  # noqa: E402
from clue_env.policy.checkpoint import load_policy, save_policy  # noqa: E402
from clue_env.policy.features import POLICY_LAYOUT, layout_hash  # noqa: E402
from clue_env.policy.network import CARD_FEATURES, CluePolicyNet  # noqa: E402


def _models(*names: str) -> list[str]:
    """The shipped files these tests name (models/manifest.yaml says which configuration plays each)."""
    return [os.path.join(MODELS, n) for n in names]


CLASSIC, CLASSIC_MIXED, CLASSIC_ACCUSE = _models("clue_ppo.pt", "clue_ppo_mixed.pt", "clue_ppo_accuse.pt")
NETWORK_3P, MIXED_3P, MIXED_4P = _models("clue_ppo_3p.pt", "clue_ppo_3p_mixed.pt", "clue_ppo_4p_mixed.pt")
E2023, E2023_MIXED, E2023_ACCUSE = _models("clue_ppo_2023.pt", "clue_ppo_2023_mixed.pt", "clue_ppo_2023_accuse.pt")
TWO, TWO_MIXED, TWO_ACCUSE = _models("clue_ppo_2p.pt", "clue_ppo_2p_mixed.pt", "clue_ppo_2p_accuse.pt")
ACCUSE = {CLASSIC: CLASSIC_ACCUSE, E2023: E2023_ACCUSE, TWO: TWO_ACCUSE}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("pol") / "tiny.pt"
    save_policy(str(path), CluePolicyNet(hidden=32, card_hidden=16, context_to_card=16))
    return str(path)


@pytest.mark.parametrize("rules, n", [("classic", 3), ("classic", 6), ("edition2023", 2), ("edition2023", 4)])
def test_ppo_agent_plays_only_legal_actions(tiny, rules, n):
    env = clue_env.raw_env(num_players=n, rules=rules, max_turns=40)
    agents = [make_agent(f"ppo:{tiny}", seat=i, num_players=n, rules=rules, seed=i) for i in range(n)]
    for g in range(2):
        env.reset(seed=g)
        for a in agents:
            a.reset()
        while not env.game_over:
            name = env.agent_selection
            seat = env.possible_agents.index(name)
            obs = env.observe(name)
            act = agents[seat].act(obs, env.infos[name])
            assert obs["action_mask"][act] == 1
            env.step(act)


def test_network_logits_cover_every_action_and_follow_the_layout():
    net = CluePolicyNet(hidden=32, card_hidden=16, context_to_card=16)
    x = torch.rand(3, POLICY_LAYOUT.size)
    logits, value = net.logits_and_value(x)
    assert logits.shape == (3, clue_env.raw_env().codec.n) and value.shape == (3,)
    # accusation logits are additive in the three cards (one easy function: the likeliest triple)
    acc = logits[:, default_codec().ACCUSE :].reshape(3, N_SUSPECTS, N_WEAPONS, N_ROOMS)
    d = acc[:, 1, 2, 3] - acc[:, 0, 2, 3] - (acc[:, 1, 4, 5] - acc[:, 0, 4, 5])
    assert torch.allclose(d, torch.zeros(3), atol=1e-5)


@pytest.mark.parametrize("path", [p.path for p in load_manifest().policies])
def test_shipped_policies_are_present_small_and_load(path):
    assert os.path.isfile(path), f"{path} is missing"
    assert os.path.getsize(path) < 8 * 1024 * 1024
    net, meta = load_policy(path)
    # made by train.py, or fitted by the planner-fit script that preceded the recipes (its command in the meta)
    assert meta.get("command", "").startswith(("python train.py", "python benchmarks/room_value_probe.py")) and meta.get("commit")
    assert layout_hash()  # the file matched this layout, or load_policy would have refused it


def test_ppo_plays_the_two_player_policy_with_two_players_and_the_others_by_ruleset():
    assert make_agent("ppo", seat=0, num_players=2, rules="edition2023").path == TWO_MIXED
    for n in (3, 4, 5, 6):
        classic = {3: MIXED_3P, 4: MIXED_4P}.get(n, CLASSIC_MIXED)
        assert make_agent("ppo", seat=0, num_players=n).path == classic
        assert make_agent("ppo", seat=0, num_players=n, rules=load_rules("classic")).path == classic
        assert make_agent("ppo", seat=0, num_players=n, rules="edition2023").path == E2023_MIXED
        assert make_agent("ppo", seat=0, num_players=n, rules=load_rules("edition2023")).path == E2023_MIXED


def test_ppo_accuse_plays_each_shipped_network_with_its_accusation_head():
    """``ppo_accuse``: each network with its head fitted against deduction; ``ppo``: each network with
    its mixed-opponent head (feature set 3 for the 2023 network, 5 for the two-player one; with 4 classic
    players a bag of the set-3 mixed head and a set-5 head)."""
    from clue_env.policy.accusation import STOP_FEATURES_V3, STOP_FEATURES_V5
    from clue_env.policy.checkpoint import load_accusation

    for n, rules, base in (
        (4, "classic", CLASSIC),
        (5, "edition2023", E2023),
        (2, "edition2023", TWO),
    ):
        a = make_agent("ppo_accuse", seat=0, num_players=n, rules=rules)
        assert a.path == ACCUSE[base] and a.accusation is not None
        plain = make_agent("ppo", seat=0, num_players=n, rules=rules)
        assert load_accusation(base) is None  # the network files themselves carry no head
        mixed = {CLASSIC: MIXED_4P, E2023: E2023_MIXED}.get(base, TWO_MIXED)
        assert plain.path == mixed and plain.accusation is not None
        # the 4-player classic file bags the set-3 mixed head with a set-5 head: it reads set 5
        assert plain.accusation.inputs == (STOP_FEATURES_V3 if base == E2023 else STOP_FEATURES_V5)
        assert plain.accusation.members == (2 if base == CLASSIC else 1)
        # the same network: the head is the only difference (with 4 classic players, the 4-player network: the
        # classic one widened to read a planner, every classic weight unchanged, the first card layer with one
        # more input column, the room value's, after the card inputs and before the card's identity)
        sa, sb = a.net.state_dict(), plain.net.state_dict()
        if base == CLASSIC:
            assert plain.net.room_values == 4 and a.net.room_values == 0 and set(sa) < set(sb)
            wide = sb["card.0.weight"]
            assert wide.shape[1] == sa["card.0.weight"].shape[1] + 1
            nf = CARD_FEATURES - N_CARDS
            sb = {**sb, "card.0.weight": torch.cat([wide[:, :nf], wide[:, nf + 1 :]], dim=1)}
        assert all(torch.equal(sa[k], sb[k]) for k in sa)
        sc = load_policy(base)[0].state_dict()
        assert all(torch.equal(sa[k], sc[k]) for k in sa)
    assert make_agent(f"ppo:{CLASSIC}", seat=0, num_players=2, rules="edition2023").path == CLASSIC
    # with 3 classic players: the mixed head bagged with a 3-player set-5 head; with 5 or 6: the mixed head alone
    # (and the 3-player network, the classic one after a PPO stage with 3 players)
    three = make_agent("ppo", seat=0, num_players=3)
    assert three.accusation.inputs == STOP_FEATURES_V5 and three.accusation.members == 2
    s3, s4 = three.net.state_dict(), load_policy(NETWORK_3P)[0].state_dict()
    assert all(torch.equal(s3[k], s4[k]) for k in s3)
    assert load_accusation(NETWORK_3P) is None
    classic = load_policy(CLASSIC)[0].state_dict()
    assert not all(torch.equal(s3[k], classic[k]) for k in s3)
    five = make_agent("ppo", seat=0, num_players=5)
    assert five.path == CLASSIC_MIXED and five.accusation.inputs == STOP_FEATURES_V3


def test_shipped_two_player_policy_finishes_its_games_and_beats_random():
    """The 3-6 player policy stalled in the 2-player game (2.0% vs deduction, 397 of 500 games vs
    random truncated); the 2-player policy wins and ends its games."""
    # agent_seed fixed: the random opponents' play would otherwise come from fresh entropy (a flaky test)
    s = run_tournament(["ppo", "random"], 12, seed=3, rules="edition2023", workers=1, progress=False, agent_seed=0)
    assert s["results"]["ppo"]["wins"] >= 11 and s["truncated"] <= 1
    assert s["results"]["ppo"]["wrong_accusations"] == 0


def test_shipped_policy_beats_random_in_a_short_tournament():
    s = run_tournament(["ppo", "random", "random", "random"], 12, seed=3, workers=1, progress=False, agent_seed=0)
    assert s["results"]["ppo"]["wins"] >= 11
    assert s["results"]["ppo"]["wrong_accusations"] == 0


def test_ppo_agent_is_deterministic_given_the_game(tiny):
    def play() -> list[int]:
        env = clue_env.raw_env(num_players=4)
        env.reset(seed=5)
        ags = [make_agent(f"ppo:{tiny}", seat=i, num_players=4) for i in range(4)]
        out = []
        for _ in range(60):
            if env.game_over:
                break
            name = env.agent_selection
            a = ags[env.possible_agents.index(name)].act(env.observe(name), env.infos[name])
            out.append(a)
            env.step(a)
        return out

    assert play() == play()
    assert np.all(np.array(play()) >= 0)


def test_a_rewritten_policy_file_is_reloaded(tmp_path):
    """A process that already loaded a path must see a new file written there (training evals)."""
    path = str(tmp_path / "p.pt")
    torch.manual_seed(1)
    save_policy(path, CluePolicyNet(hidden=16, card_hidden=8, context_to_card=8))
    a = make_agent(f"ppo:{path}", seat=0, num_players=4)
    os.utime(path, ns=(1, 1))
    torch.manual_seed(2)
    save_policy(path, CluePolicyNet(hidden=16, card_hidden=8, context_to_card=8))
    b = make_agent(f"ppo:{path}", seat=0, num_players=4)
    assert a.net is not b.net
    wa, wb = a.net.state_dict(), b.net.state_dict()
    assert any(not torch.equal(wa[k], wb[k]) for k in wa)


def test_network_forward_equals_its_plain_reference_and_gradients_agree():
    """forward() splits two first layers by column blocks for speed; same function, same gradients."""
    torch.manual_seed(3)
    net = CluePolicyNet(hidden=32, card_hidden=16, context_to_card=16)
    env = clue_env.env(num_players=4)
    agent = make_agent(f"ppo:{CLASSIC}", seat=0, num_players=4, seed=0)  # a network without planner inputs
    xs = []
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _a in env.agent_iter(max_iter=200):
        obs, _r, term, trunc, info = env.last()
        if env.agent_selection == "player_0" and not (term or trunc):
            xs.append(agent.policy_input(obs, info).copy())
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    x = torch.from_numpy(np.stack(xs + [np.random.default_rng(1).random(POLICY_LAYOUT.size, dtype=np.float32)]))
    a, ha = net(x)
    b, hb = net.reference_forward(x)
    torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(ha, hb)
    ga = torch.autograd.grad(a.logsumexp(-1).sum(), list(net.parameters()), allow_unused=True)
    gb = torch.autograd.grad(b.logsumexp(-1).sum(), list(net.parameters()), allow_unused=True)
    for p, u, v in zip(net.parameters(), ga, gb):
        if u is None or v is None:
            assert u is None and v is None, p.shape
        else:
            torch.testing.assert_close(u, v, atol=1e-4, rtol=1e-4)


def test_ppo_path_says_what_a_directory_or_fifo_is_and_never_blocks(tmp_path):
    import threading

    fifo = tmp_path / "policy.fifo"
    os.mkfifo(fifo)
    for path, kind in ((tmp_path, "is a directory"), (fifo, "is a FIFO")):
        errors: list[BaseException] = []

        def make(path=path, errors=errors):
            try:
                make_agent(f"ppo:{path}", seat=0, num_players=3)
            except BaseException as e:  # handed to the test's thread
                errors.append(e)

        t = threading.Thread(target=make, daemon=True)
        t.start()
        t.join(timeout=30)
        if t.is_alive():  # blocked on the FIFO: let it go before failing
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        assert not t.is_alive(), f"ppo:{path} blocked"
        assert len(errors) == 1 and isinstance(errors[0], ValueError), errors
        assert kind in str(errors[0]) and "does not exist" not in str(errors[0]), errors[0]
