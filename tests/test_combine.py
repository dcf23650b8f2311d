"""clue_env.training.combine: one file's network beside another file's accusation head (the head's
inputs come from the seat's view only, so it fits any network of the layout)."""

from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch")

from agents.manifest import MODELS  # noqa: E402
from clue_env.policy.checkpoint import CheckpointError, load_accusation, load_policy, save_policy  # noqa: E402
from clue_env.training.combine import combine_policy, main  # noqa: E402

#: the classic network and the file that pairs it with its mixed-opponent head
SHIPPED_POLICY, SHIPPED_POLICY_MIXED = (os.path.join(MODELS, n) for n in ("clue_ppo.pt", "clue_ppo_mixed.pt"))


def _other_network(tmp_path) -> str:
    """The shipped network with every weight moved a little: a network unlike either source's."""
    net, meta = load_policy(SHIPPED_POLICY)
    with torch.no_grad():
        for p in net.parameters():
            p.add_(0.01)
    path = str(tmp_path / "net.pt")
    save_policy(path, net, {**meta, "marker": "other"})
    return path


def test_the_new_file_has_one_network_and_the_other_head(tmp_path):
    net_path = _other_network(tmp_path)
    out = str(tmp_path / "both.pt")
    meta = combine_policy(net_path, SHIPPED_POLICY_MIXED, out, command="test")
    got, got_meta = load_policy(out)
    want, _ = load_policy(net_path)
    assert all(torch.equal(a, b) for a, b in zip(got.state_dict().values(), want.state_dict().values()))
    assert got_meta["marker"] == "other" and got_meta["combined"] == meta["combined"]
    assert meta["combined"]["head"] == SHIPPED_POLICY_MIXED and len(meta["combined"]["network_sha256"]) == 64
    head, ref = load_accusation(out), load_accusation(SHIPPED_POLICY_MIXED)
    assert head.state_dict().keys() == ref.state_dict().keys()
    assert all(torch.equal(head.state_dict()[k], ref.state_dict()[k]) for k in ref.state_dict())


def test_a_head_file_without_a_head_is_refused_and_nothing_is_written(tmp_path):
    out = tmp_path / "both.pt"
    with pytest.raises(CheckpointError, match="holds no accusation head"):
        combine_policy(SHIPPED_POLICY_MIXED, SHIPPED_POLICY, str(out))
    assert not out.exists()


def test_missing_and_corrupt_files_are_named_cli(tmp_path, capsys):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a policy")
    out = tmp_path / "both.pt"
    assert main(["--network", str(bad), "--head", SHIPPED_POLICY_MIXED, "--out", str(out)]) == 2
    assert "bad.pt" in capsys.readouterr().err
    assert main(["--network", SHIPPED_POLICY, "--head", str(tmp_path / "none.pt"), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "none.pt" in err and "does not exist" in err
    assert sorted(os.listdir(tmp_path)) == ["bad.pt"]


def test_no_head_writes_the_network_alone_cli(tmp_path, capsys):
    """``--no-head``: how ``models/clue_ppo_2p.pt`` is cut out of a run that started from a file with a head."""
    out = tmp_path / "net.pt"
    assert main(["--network", SHIPPED_POLICY_MIXED, "--no-head", "--out", str(out)]) == 0
    assert "no accusation head" in capsys.readouterr().out
    assert load_accusation(SHIPPED_POLICY_MIXED) is not None and load_accusation(str(out)) is None
    got, meta = load_policy(str(out))
    want, _ = load_policy(SHIPPED_POLICY_MIXED)
    assert all(torch.equal(a, b) for a, b in zip(got.state_dict().values(), want.state_dict().values()))
    assert meta["combined"]["head"] is None and meta["combined"]["network"] == SHIPPED_POLICY_MIXED
    with pytest.raises(SystemExit):  # --head and --no-head together
        main(["--network", SHIPPED_POLICY_MIXED, "--no-head", "--head", SHIPPED_POLICY_MIXED, "--out", str(out)])


def test_the_planner_sample_bound_is_the_deduction_agents():
    from agents.deduction import MAX_SAMPLES
    from clue_env.policy.checkpoint import PLANNER_MAX_SAMPLES

    assert PLANNER_MAX_SAMPLES == MAX_SAMPLES


def test_planner_option_sets_the_files_planner_and_a_bad_one_writes_nothing(tmp_path, capsys):
    """``--planner`` names the deduction planner a planner-reading network gets in play (R31: its own
    seat's); the ppo agent loads the file with that planner; bad values are refused first."""
    from agents import make_agent
    from clue_env.training.combine import parse_planner

    assert parse_planner("tells=0.35, pull=avoid") == {"tells": 0.35, "pull": "avoid"}
    two = os.path.join(os.path.dirname(SHIPPED_POLICY), "clue_ppo_2p.pt")
    out = tmp_path / "p.pt"
    assert main(["--network", two, "--no-head", "--out", str(out), "--planner", "tells=0.2,pull=avoid"]) == 0
    _net, meta = load_policy(str(out))
    assert meta["planner"] == {"tells": 0.2, "pull": "avoid"}
    agent = make_agent(f"ppo:{out}", seat=1, num_players=2, rules="edition2023", seed=1)
    assert agent.planner.tells == 0.2 and agent.planner.pull == "avoid" and agent.planner.shows == "any"
    out.unlink()
    assert main(["--network", two, "--no-head", "--out", str(out), "--planner", "tells=0.35,pull=avoid,shows=repeat"]) == 0
    agent = make_agent(f"ppo:{out}", seat=0, num_players=2, rules="edition2023", seed=1)
    assert agent.planner.shows == "repeat" and agent.planner.samples == 64
    out.unlink()
    assert main(["--network", two, "--no-head", "--out", str(out), "--planner", "tells=0.35,samples=256"]) == 0
    assert load_policy(str(out))[1]["planner"] == {"tells": 0.35, "samples": 256}
    assert make_agent(f"ppo:{out}", seat=0, num_players=2, rules="edition2023", seed=1).planner.samples == 256
    out.unlink()
    for bad, why in (
        ("tells=0", "tells must be"),
        ("pull=far", "may only be 'avoid'"),
        ("shows=first", "shows must be 'any' or 'repeat'"),
        ("samples=0", "samples must be an int from 1 to 4096"),
        ("samples=8192", "samples must be an int from 1 to 4096"),
        ("samples=1.5", "samples must be an int"),
        ("depth=3", "unknown planner"),
        ("x", "key=value"),
    ):
        with pytest.raises(SystemExit):
            main(["--network", two, "--no-head", "--out", str(out), "--planner", bad])
        assert why in capsys.readouterr().err
        assert not out.exists()


def _head_file(tmp_path, name: str, features: int, seed: int, hidden: int = 16) -> str:
    """A policy file (the shipped network) with a random accusation head of feature set ``features``."""
    from clue_env.policy.accusation import stop_size
    from clue_env.policy.accusation_net import AccusationNet

    torch.manual_seed(seed)
    head = AccusationNet(hidden=hidden, inputs=stop_size(features))
    with torch.no_grad():
        head.triple.weight.copy_(torch.tensor([[0.7, 0.3]]) + seed)
    net, meta = load_policy(SHIPPED_POLICY)
    path = str(tmp_path / name)
    save_policy(path, net, meta, accusation=head)
    return path


def test_several_heads_are_bagged_into_one_whose_margin_is_the_mean_of_theirs_cli(tmp_path, capsys):
    """``--head A,B``: a set-3 head beside a set-5 one reads set 3's columns (the first ones); the bag's
    stop-minus-wait logit is the mean of the two heads' at any input; the triple scorer is the first head's."""
    from clue_env.policy.accusation import stop_size
    from clue_env.policy.accusation_net import Bag, members_of

    three, five = _head_file(tmp_path, "three.pt", 3, 1), _head_file(tmp_path, "five.pt", 5, 2)
    out = str(tmp_path / "bag.pt")
    assert main(["--network", SHIPPED_POLICY, "--head", f"{three},{five}", "--out", out]) == 0
    assert f"the accusation head of {three},{five}" in capsys.readouterr().out
    bag, a, b = load_accusation(out), load_accusation(three), load_accusation(five)
    assert bag.inputs == stop_size(5) and isinstance(bag.stop, Bag) and len(members_of(bag.cont)) == 2
    x = torch.rand(64, stop_size(5))
    with torch.no_grad():
        got = (bag.stop(x) - bag.cont(x)).squeeze(-1)
        want = ((a.stop(x[:, : stop_size(3)]) - a.cont(x[:, : stop_size(3)])) + (b.stop(x) - b.cont(x))).squeeze(-1) / 2
    assert torch.allclose(got, want, atol=1e-5)
    assert torch.equal(bag.triple.weight, a.triple.weight)
    meta = load_policy(out)[1]["combined"]
    assert meta["head"] == [three, five] and len(meta["head_sha256"]) == 2


def test_heads_that_cannot_share_a_bag_are_refused_and_nothing_is_written(tmp_path, capsys):
    one, two = _head_file(tmp_path, "one.pt", 1, 1), _head_file(tmp_path, "two.pt", 2, 2)
    wide = _head_file(tmp_path, "wide.pt", 3, 3, hidden=32)
    three = _head_file(tmp_path, "three.pt", 3, 4)
    out = tmp_path / "bag.pt"
    for heads, why in (
        (f"{one},{two}", "not the first columns of set 2"),
        (f"{three},{wide}", "hidden sizes differ"),
        (f"{three},{SHIPPED_POLICY}", "holds no accusation head"),
    ):
        assert main(["--network", SHIPPED_POLICY, "--head", heads, "--out", str(out)]) == 2
        assert why in capsys.readouterr().err and not out.exists()
    with pytest.raises(CheckpointError, match="cannot be bagged"):
        combine_policy(SHIPPED_POLICY, [one, two], str(out))


def test_bag_heads_needs_two_heads_and_at_most_max_members():
    from clue_env.policy.accusation import STOP_FEATURES_V3
    from clue_env.policy.accusation_net import MAX_MEMBERS, AccusationNet, bag_heads

    one = AccusationNet(hidden=8, inputs=STOP_FEATURES_V3)
    with pytest.raises(ValueError, match="at least two"):
        bag_heads([one])
    big = AccusationNet(hidden=8, inputs=STOP_FEATURES_V3, members=MAX_MEMBERS)
    with pytest.raises(ValueError, match=f"more than {MAX_MEMBERS}"):
        bag_heads([one, big])
