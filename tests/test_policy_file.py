"""Policy files that name their network file (version 2): linking, embedding, the shipped files, and
every way a reference can be wrong (missing, changed, a chain, a path out of the folder)."""

from __future__ import annotations

import glob
import json
import os
import shutil

import pytest

torch = pytest.importorskip("torch")

from agents.manifest import MODELS, load_manifest  # noqa: E402
from clue_env.policy.checkpoint import (  # noqa: E402
    FORMAT,
    REF_VERSION,
    CheckpointError,
    layout_hash,
    load_accusation,
    load_policy,
    read_policy_file,
    read_raw_policy_file,
    save_policy,
)
from clue_env.policy.policy_file import describe_policy, embed_policy, link_policy, main  # noqa: E402
from clue_env.training.combine import combine_policy  # noqa: E402

#: the classic network and the file that pairs it with its mixed-opponent head
SHIPPED_POLICY, SHIPPED_POLICY_MIXED = (os.path.join(MODELS, n) for n in ("clue_ppo.pt", "clue_ppo_mixed.pt"))

MB = 1024 * 1024


def _same(a, b) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.dtype == b.dtype and torch.equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and set(a) == set(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _embedded(tmp_path, name: str = "mixed.pt") -> str:
    """A self-contained copy of the shipped mixed file beside a copy of the shipped network."""
    shutil.copy(SHIPPED_POLICY, tmp_path / "net.pt")
    path = str(tmp_path / name)
    embed_policy(SHIPPED_POLICY_MIXED, path)
    return path


def test_a_linked_file_reads_exactly_as_the_self_contained_one_and_is_small(tmp_path):
    path = _embedded(tmp_path)
    before = read_policy_file(path)
    assert read_raw_policy_file(path)[0]["version"] == 1 and os.path.getsize(path) > MB
    ref = link_policy(path, str(tmp_path / "net.pt"))
    assert ref["name"] == "net.pt" and len(ref["sha256"]) == 64
    raw, _ = read_raw_policy_file(path)
    assert raw["version"] == REF_VERSION and "state_dict" not in raw and "net" not in raw
    assert os.path.getsize(path) < 0.2 * MB
    after = read_policy_file(path)
    for key in ("net", "state_dict", "meta", "accusation", "layout_hash"):
        assert _same(before[key], after[key]), key
    a, b = load_accusation(SHIPPED_POLICY_MIXED), load_accusation(path)
    assert _same(a.state_dict(), b.state_dict())
    assert _same(load_policy(path)[0].state_dict(), load_policy(SHIPPED_POLICY)[0].state_dict())


def test_a_missing_network_file_is_named_with_what_to_do(tmp_path):
    path = _embedded(tmp_path)
    link_policy(path, str(tmp_path / "net.pt"))
    os.remove(tmp_path / "net.pt")
    with pytest.raises(CheckpointError, match=r"takes its network from 'net.pt' in the same folder, which is missing: copy"):
        load_policy(path)
    with pytest.raises(CheckpointError, match="which is missing"):
        load_accusation(path)


def test_a_changed_network_file_is_refused_by_its_sha256(tmp_path):
    path = _embedded(tmp_path)
    link_policy(path, str(tmp_path / "net.pt"))
    net, meta = load_policy(str(tmp_path / "net.pt"))
    save_policy(str(tmp_path / "net.pt"), net, {**meta, "edited": True})  # same weights, other bytes
    with pytest.raises(CheckpointError, match=r"that file has changed \(SHA-256"):
        load_policy(path)


def test_a_chain_of_references_is_refused(tmp_path):
    path = _embedded(tmp_path)
    other = str(tmp_path / "other.pt")
    embed_policy(SHIPPED_POLICY_MIXED, other)
    link_policy(path, str(tmp_path / "net.pt"))
    # other -> path (a reference itself): refused when linking, and when a crafted file does it
    with pytest.raises(CheckpointError, match="names a network file of its own"):
        link_policy(other, path)
    raw, _ = read_raw_policy_file(other)
    _, sha = read_raw_policy_file(path)
    crafted = {k: v for k, v in raw.items() if k not in ("net", "state_dict")}
    crafted.update(version=REF_VERSION, network_file={"name": "mixed.pt", "sha256": sha})
    torch.save(crafted, other)
    with pytest.raises(CheckpointError, match="not followed in chains"):
        load_policy(other)


@pytest.mark.parametrize(
    "ref, why",
    [
        ({"name": "../net.pt", "sha256": "0" * 64}, "not a bare file name"),
        ({"name": "/etc/passwd", "sha256": "0" * 64}, "not a bare file name"),
        ({"name": "sub/net.pt", "sha256": "0" * 64}, "not a bare file name"),
        ({"name": "..", "sha256": "0" * 64}, "not a bare file name"),
        ({"name": "", "sha256": "0" * 64}, "not a bare file name"),
        ({"name": "net.pt", "sha256": "abc"}, "is not 64 hex digits"),
        ({"name": "net.pt"}, "not a name and a SHA-256"),
        ("net.pt", "not a name and a SHA-256"),
        ({"name": "self.pt", "sha256": "0" * 64}, "names itself"),
    ],
)
def test_a_malformed_reference_is_refused_before_any_other_file_is_read(tmp_path, ref, why):
    (tmp_path / "sub").mkdir()
    shutil.copy(SHIPPED_POLICY, tmp_path / "sub" / "net.pt")
    path = tmp_path / "self.pt"
    torch.save({"format": FORMAT, "version": REF_VERSION, "layout_hash": layout_hash(), "network_file": ref, "meta": {}}, path)
    with pytest.raises(CheckpointError, match=why):
        load_policy(str(path))


def test_a_reference_beside_weights_or_in_a_version_1_file_is_refused(tmp_path):
    path = _embedded(tmp_path)
    raw, _ = read_raw_policy_file(path)
    _, sha = read_raw_policy_file(str(tmp_path / "net.pt"))
    torch.save({**raw, "version": REF_VERSION, "network_file": {"name": "net.pt", "sha256": sha}}, path)
    with pytest.raises(CheckpointError, match="both carries network weights and names a network file"):
        load_policy(path)
    torch.save({**raw, "version": 1, "network_file": {"name": "net.pt", "sha256": sha}}, path)
    with pytest.raises(CheckpointError, match="a version-1 file may not name a network file"):
        load_policy(path)
    torch.save({**raw, "version": 3}, path)
    with pytest.raises(CheckpointError, match="format version 3; this clue_env reads 1 and 2"):
        load_policy(path)


def test_linking_to_other_weights_or_another_folder_is_refused_and_changes_nothing(tmp_path):
    path = _embedded(tmp_path)
    shutil.copy(SHIPPED_POLICY, tmp_path / "elsewhere.pt")
    other_dir = tmp_path / "d"
    other_dir.mkdir()
    shutil.copy(SHIPPED_POLICY, other_dir / "net.pt")
    net, meta = load_policy(SHIPPED_POLICY)
    with torch.no_grad():
        next(net.parameters()).add_(1e-3)
    save_policy(str(tmp_path / "moved.pt"), net, meta)
    data = open(path, "rb").read()
    with pytest.raises(CheckpointError, match="does not hold this network's weights"):
        link_policy(path, str(tmp_path / "moved.pt"))
    with pytest.raises(CheckpointError, match="only in its own folder"):
        link_policy(path, str(other_dir / "net.pt"))
    with pytest.raises(CheckpointError, match="cannot name itself"):
        link_policy(path, path)
    assert open(path, "rb").read() == data
    assert sorted(os.listdir(tmp_path)) == ["d", "elsewhere.pt", "mixed.pt", "moved.pt", "net.pt"]  # no temporary left


def test_embed_makes_a_file_that_travels_alone(tmp_path):
    path = _embedded(tmp_path)
    link_policy(path, str(tmp_path / "net.pt"))
    out_dir = tmp_path / "alone"
    out_dir.mkdir()
    alone = str(out_dir / "mixed.pt")
    embed_policy(path, alone)
    assert read_raw_policy_file(alone)[0]["version"] == 1
    for key in ("net", "state_dict", "meta", "accusation"):
        assert _same(read_policy_file(alone)[key], read_policy_file(path)[key]), key


def test_combine_reference_writes_the_same_policy_in_a_small_file(tmp_path):
    shutil.copy(SHIPPED_POLICY, tmp_path / "net.pt")
    full, small = str(tmp_path / "full.pt"), str(tmp_path / "small.pt")
    combine_policy(str(tmp_path / "net.pt"), SHIPPED_POLICY_MIXED, full)
    combine_policy(str(tmp_path / "net.pt"), SHIPPED_POLICY_MIXED, small, reference=True)
    assert os.path.getsize(small) < 0.2 * MB < MB < os.path.getsize(full)
    for key in ("net", "state_dict", "meta", "accusation"):
        assert _same(read_policy_file(full)[key], read_policy_file(small)[key]), key
    with pytest.raises(CheckpointError, match="only in its own folder"):
        combine_policy(SHIPPED_POLICY, SHIPPED_POLICY_MIXED, str(tmp_path / "x.pt"), reference=True)
    assert not (tmp_path / "x.pt").exists()


def test_the_cli_links_shows_and_embeds_and_names_problems(tmp_path, capsys):
    path = _embedded(tmp_path)
    assert main(["link", path, "--network", str(tmp_path / "net.pt")]) == 0
    assert "its network is net.pt" in capsys.readouterr().out
    assert main(["show", path]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["version"] == 2 and shown["network_file"]["name"] == "net.pt"
    assert shown["network"]["hidden"] == 256 and shown["accusation_head"]["parameters"] > 0
    assert shown == describe_policy(path)
    assert main(["embed", path, "--out", str(tmp_path / "e.pt")]) == 0
    assert main(["link", path, "--network", str(tmp_path / "missing.pt")]) == 2
    assert "missing.pt" in capsys.readouterr().err


def test_the_shipped_files_share_their_networks_and_models_stay_small():
    """Every shipped file that pairs a network with a head names the network file the manifest says; each loads."""
    files = sorted(glob.glob(os.path.join(MODELS, "*.pt")))
    entries = {p.path: p for p in load_manifest().policies}
    networks = {p.path for p in entries.values() if p.network is None}
    assert networks == {
        os.path.join(MODELS, f"{n}.pt") for n in ("clue_ppo", "clue_ppo_2023", "clue_ppo_2p", "clue_ppo_3p", "clue_ppo_4p")
    }
    for path in files:
        raw, _ = read_raw_policy_file(path)
        if path in networks:
            assert raw["version"] == 1, path
        else:
            assert raw["version"] == REF_VERSION and raw["network_file"]["name"] == entries[path].network, path
            assert os.path.getsize(path) < 0.3 * MB
        load_policy(path)
    # the files ppo and ppo_accuse play are the linked ones (each network with a head)
    assert {p.path for p in entries.values() if p.plays} == set(files) - networks
    assert sum(os.path.getsize(p) for p in files) < 12 * MB
