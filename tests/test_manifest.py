"""``models/manifest.yaml``: every shipped file listed with its SHA-256 and recipe, exactly one file per
configuration ``ppo`` / ``ppo_accuse`` play, and a schema that refuses bad entries with a clear message."""

from __future__ import annotations

import copy
import glob
import hashlib
import os
import re
import shutil

import pytest
import yaml

from agents.manifest import (
    MANIFEST,
    MODELS,
    SPECS,
    ManifestError,
    load_manifest,
    parse_manifest,
    ruleset,
    shipped_file,
    shipped_network,
)
from clue_env.engine.config import load_rules

ROOT = os.path.dirname(MODELS)

#: (rules, players) -> (the file ppo plays, the file ppo_accuse plays)
EXPECTED = {
    **{("classic", 2): ("clue_ppo_2p_mixed.pt", "clue_ppo_2p_accuse.pt")},
    **{("classic", 3): ("clue_ppo_3p_mixed.pt", "clue_ppo_accuse.pt")},
    **{("classic", 4): ("clue_ppo_4p_mixed.pt", "clue_ppo_accuse.pt")},
    **{("classic", n): ("clue_ppo_mixed.pt", "clue_ppo_accuse.pt") for n in (5, 6)},
    **{("edition2023", 2): ("clue_ppo_2p_mixed.pt", "clue_ppo_2p_accuse.pt")},
    **{("edition2023", n): ("clue_ppo_2023_mixed.pt", "clue_ppo_2023_accuse.pt") for n in (3, 4, 5, 6)},
}
#: the network file each file links to (files absent here hold their network)
NETWORKS = {
    "clue_ppo_mixed.pt": "clue_ppo.pt",
    "clue_ppo_accuse.pt": "clue_ppo.pt",
    "clue_ppo_3p_mixed.pt": "clue_ppo_3p.pt",
    "clue_ppo_4p_mixed.pt": "clue_ppo_4p.pt",
    "clue_ppo_2023_mixed.pt": "clue_ppo_2023.pt",
    "clue_ppo_2023_accuse.pt": "clue_ppo_2023.pt",
    "clue_ppo_2p_mixed.pt": "clue_ppo_2p.pt",
    "clue_ppo_2p_accuse.pt": "clue_ppo_2p.pt",
}
RECIPES = {
    "classic.yaml": ("clue_ppo.pt", "clue_ppo_mixed.pt", "clue_ppo_accuse.pt"),
    "classic_3p.yaml": ("clue_ppo_3p.pt", "clue_ppo_3p_mixed.pt"),
    "classic_4p.yaml": ("clue_ppo_4p.pt", "clue_ppo_4p_mixed.pt"),
    "edition2023.yaml": ("clue_ppo_2023.pt", "clue_ppo_2023_mixed.pt", "clue_ppo_2023_accuse.pt"),
    "two_player.yaml": ("clue_ppo_2p.pt", "clue_ppo_2p_mixed.pt", "clue_ppo_2p_accuse.pt"),
}


def _raw() -> dict:
    with open(MANIFEST, encoding="utf-8") as f:
        return yaml.safe_load(f)


def _sha(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# ---------------------------------------------------------------------- the shipped manifest
def test_every_file_in_models_is_listed_with_its_sha256_and_every_listed_file_exists():
    m = load_manifest()
    on_disk = sorted(os.path.basename(p) for p in glob.glob(os.path.join(MODELS, "*.pt")))
    assert sorted(p.file for p in m.policies) == on_disk
    for p in m.policies:
        assert os.path.isfile(p.path), f"{p.file} is listed but missing"
        assert _sha(p.path) == p.sha256, f"{p.file}: sha256 in the manifest is stale"


def test_every_recipe_path_exists_and_each_file_names_its_familys_recipe():
    m = load_manifest()
    want = {f: f"configs/recipes/{r}" for r, files in RECIPES.items() for f in files}
    assert {p.file: p.recipe for p in m.policies} == want
    missing = sorted({p.recipe for p in m.policies if not os.path.isfile(os.path.join(ROOT, p.recipe))})
    assert not missing, f"recipes named by the manifest are missing: {missing}"


def test_each_configuration_is_played_by_exactly_one_entry_and_it_is_the_pinned_file():
    m = load_manifest()
    for (rules, n), files in EXPECTED.items():
        for spec, want in zip(SPECS, files):
            claimed = [p.file for p in m.policies if (spec, rules, n) in p.plays]
            assert claimed == [want], (spec, rules, n, claimed)
            assert shipped_file(spec, n, rules) == os.path.join(MODELS, want)
    every = {(spec, rules, n) for (rules, n) in EXPECTED for spec in SPECS}
    assert {k for p in m.policies for k in p.plays} == every


def test_network_links_provenance_and_strength_rows_are_filled_in():
    pytest.importorskip("torch")
    from clue_env.policy.checkpoint import read_raw_policy_file

    m = load_manifest()
    assert {p.file: p.network for p in m.policies if p.network} == NETWORKS
    for p in m.policies:
        raw, _ = read_raw_policy_file(p.path)
        assert (raw.get("network_file") or {}).get("name") == p.network, p.file
        assert p.built_by_recipe is False and p.about, p.file
        assert p.commit is None or re.fullmatch(r"[0-9a-f]{7,40}", p.commit), p.file
        if p.plays and p.file != "clue_ppo_2p_accuse.pt":  # every file played has a measured row but one
            assert p.strength, p.file
        for row in p.strength:
            assert all(c.startswith("python evaluate.py ") for c in row["commands"])
            assert sum(int(re.search(r"--games (\d+)", c).group(1)) for c in row["commands"]) == row["games"], p.file
    # the README's classic 4-player row, as the manifest records it
    (row,) = [r for r in m.entry("clue_ppo_4p_mixed.pt").strength if r["lineup"] == "classic, 4 players, vs 3 deduction"]
    assert (row["win_rate"], row["ci95"], row["games"]) == (0.325, [0.308, 0.342], 3000)


def test_a_ruleset_maps_to_the_manifests_rules_by_its_turn_structure():
    assert ruleset("classic") == "classic" and ruleset("edition2023") == "edition2023"
    assert ruleset(load_rules("edition2023")) == "edition2023" and ruleset(load_rules("classic")) == "classic"
    # a custom ruleset: the 2023 turn structure (R12, the roll first) counts as edition2023, any other as classic
    assert ruleset(load_rules("classic", roll_first=True)) == "edition2023"
    assert ruleset(load_rules("edition2023", roll_first=False)) == "classic"
    assert shipped_file("ppo", 5, load_rules("classic", roll_first=True)).endswith("clue_ppo_2023_mixed.pt")
    assert shipped_network("ppo", 5) == os.path.join(MODELS, "clue_ppo.pt")
    assert shipped_network("ppo", 4) == os.path.join(MODELS, "clue_ppo_4p.pt")


# ---------------------------------------------------------------------- refusals
def _refused(doc, match: str) -> None:
    with pytest.raises(ManifestError, match=match):
        parse_manifest(doc, "m.yaml", MODELS)


def _with(change) -> dict:
    doc = copy.deepcopy(_raw())
    change(doc)
    return doc


def _entry(doc: dict, file: str) -> dict:
    return next(e for e in doc["policies"] if e["file"] == file)


def test_the_schema_refuses_bad_entries_naming_the_entry_and_the_problem():
    _refused([], r"m\.yaml: must be a mapping with a list 'policies'")
    _refused({"policies": []}, "policies must be a non-empty list")
    _refused({"policies": [], "extra": 1}, r"m\.yaml: unknown key 'extra' \(known: policies\)")
    _refused(
        _with(lambda d: _entry(d, "clue_ppo.pt").update(colour="red")), r"policies\[0\] \(clue_ppo\.pt\): unknown key 'colour'"
    )
    _refused(_with(lambda d: _entry(d, "clue_ppo.pt").pop("sha256")), r"\(clue_ppo\.pt\): missing key 'sha256'")
    _refused(_with(lambda d: _entry(d, "clue_ppo.pt").update(sha256="abc")), "sha256 must be 64 lowercase hex digits")
    _refused(_with(lambda d: _entry(d, "clue_ppo.pt").update(file="../x.pt")), "must be a relative path inside its folder")
    _refused(
        _with(lambda d: _entry(d, "clue_ppo.pt").update(recipe="/etc/passwd")), "recipe '/etc/passwd' must be a relative path"
    )
    _refused(_with(lambda d: _entry(d, "clue_ppo.pt").update(commit="not a commit")), "commit must be a git commit")
    _refused(_with(lambda d: _entry(d, "clue_ppo.pt").update(built_by_recipe="no")), "built_by_recipe must be true or false")
    _refused(_with(lambda d: d["policies"].append(copy.deepcopy(d["policies"][0]))), r"'clue_ppo\.pt' is listed twice")
    play = _entry(_raw(), "clue_ppo_mixed.pt")["plays"][0]
    for bad, msg in (
        ({**play, "spec": "ppo:x"}, "spec must be one of ppo, ppo_accuse"),
        ({**play, "rules": "monopoly"}, r"rules must be a preset \(classic, edition2023\)"),
        ({**play, "players": [7]}, "players must be a non-empty list of player counts from 2 to 6"),
        ({**play, "players": 5}, "players must be a non-empty list"),
        ({**play, "players": [True]}, "players must be a non-empty list"),
        ({**play, "seats": 1}, r"plays\[0\]: unknown key 'seats'"),
        ({"spec": "ppo", "rules": "classic"}, r"plays\[0\]: missing key 'players'"),
    ):
        _refused(_with(lambda d, bad=bad: _entry(d, "clue_ppo_mixed.pt").update(plays=[bad])), msg)
    row = _entry(_raw(), "clue_ppo_mixed.pt")["strength"][0]
    for bad, msg in (
        ({**row, "win_rate": 22.9}, "win_rate must be a fraction from 0 to 1"),
        ({**row, "ci95": [0.3, 0.4]}, "ci95 must be"),
        ({**row, "games": 0}, "games must be a positive integer"),
        ({**row, "commands": []}, "commands must be a non-empty list"),
        ({**row, "seed": 5}, r"strength\[0\]: unknown key 'seed'"),
    ):
        _refused(_with(lambda d, bad=bad: _entry(d, "clue_ppo_mixed.pt").update(strength=[bad])), msg)


def test_networks_must_be_listed_network_files_beside_the_file():
    _refused(_with(lambda d: _entry(d, "clue_ppo_mixed.pt").update(network="gone.pt")), "its network 'gone.pt' has no entry")
    _refused(
        _with(lambda d: _entry(d, "clue_ppo_mixed.pt").update(network="clue_ppo_accuse.pt")),
        "links to another file itself",
    )


def test_two_entries_claiming_one_configuration_are_refused_naming_both():
    def claim(d):
        _entry(d, "clue_ppo_3p_mixed.pt")["plays"].append({"spec": "ppo", "rules": "classic", "players": [5]})

    _refused(
        _with(claim),
        r"\(clue_ppo_3p_mixed\.pt\): ppo with 5 players under the classic rules is already played by 'clue_ppo_mixed\.pt'",
    )
    _refused(
        _with(lambda d: _entry(d, "clue_ppo_mixed.pt").update(plays=[{"spec": "ppo", "rules": "classic", "players": [5, 5]}])),
        r"\(ppo, classic, 5 players\) is listed twice",
    )


# ---------------------------------------------------------------------- a copy of models/ with one thing wrong
@pytest.fixture
def models_copy(tmp_path):
    """A copy of the manifest with the two files of the 5-6 player classic ``ppo``."""
    for name in ("clue_ppo.pt", "clue_ppo_mixed.pt"):
        shutil.copy(os.path.join(MODELS, name), tmp_path / name)
    doc = _raw()
    doc["policies"] = [e for e in doc["policies"] if e["file"] in ("clue_ppo.pt", "clue_ppo_mixed.pt")]
    path = tmp_path / "manifest.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return tmp_path


def test_a_configuration_no_entry_plays_is_refused_with_what_to_do(models_copy):
    m = str(models_copy / "manifest.yaml")
    assert shipped_file("ppo", 6, "classic", manifest=m) == str(models_copy / "clue_ppo_mixed.pt")
    with pytest.raises(ManifestError, match="no policy plays 'ppo_accuse' with 6 players under the classic rules.*ppo:PATH"):
        shipped_file("ppo_accuse", 6, "classic", manifest=m)


def test_a_missing_or_changed_file_is_refused_naming_it_and_what_to_do(models_copy):
    m = str(models_copy / "manifest.yaml")
    net = models_copy / "clue_ppo.pt"
    net.write_bytes(net.read_bytes() + b"\0")  # the network the played file links to
    with pytest.raises(ManifestError, match=r"clue_ppo\.pt' does not match its SHA-256 in .*git checkout -- models/clue_ppo\.pt"):
        shipped_file("ppo", 5, "classic", manifest=m)
    os.remove(models_copy / "clue_ppo_mixed.pt")
    with pytest.raises(ManifestError, match=r"clue_ppo_mixed\.pt' does not exist \(named in .*git checkout -- models/"):
        shipped_file("ppo", 5, "classic", manifest=m)


def test_a_manifest_that_is_missing_too_large_or_not_yaml_is_refused(tmp_path):
    with pytest.raises(ManifestError, match="does not exist.*git checkout -- models/manifest.yaml"):
        load_manifest(str(tmp_path / "manifest.yaml"))
    (tmp_path / "big.yaml").write_bytes(b"#" * (300 * 1024))
    with pytest.raises(ManifestError, match="over the limit"):
        load_manifest(str(tmp_path / "big.yaml"))
    (tmp_path / "bad.yaml").write_text("policies: [a, &x b, *x]\n", encoding="utf-8")
    with pytest.raises(ManifestError, match="anchors and aliases"):
        load_manifest(str(tmp_path / "bad.yaml"))
    os.mkdir(tmp_path / "dir.yaml")
    with pytest.raises(ManifestError, match="is a directory"):
        load_manifest(str(tmp_path / "dir.yaml"))
