"""The shipped policies' manifest, ``models/manifest.yaml``: which file the specs ``ppo`` and
``ppo_accuse`` play for each ruleset and player count, with each file's SHA-256, recipe and
provenance (SPEC, "Recipes and the models manifest").

The manifest is read within bounds (:func:`clue_env.fileio.read_regular`,
:func:`clue_env.fileio.loads_yaml`) and checked as a whole: unknown keys, malformed values, a file
listed twice, a ``network`` that is not another listed network file, and two entries claiming the same
(spec, ruleset, player count) are each refused with a :class:`ManifestError` naming the entry. The
file a configuration plays is checked when it is asked for (:func:`shipped_file`): it must exist and
match its recorded SHA-256, and so must the network file it links to.

A ruleset maps to the manifest's ``rules``: a preset by its name; any other
ruleset by its turn structure (R12: a turn that starts with the roll, ``roll_first``, is
``edition2023``'s; otherwise ``classic``'s).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from clue_env import fileio
from clue_env.engine.config import PRESETS
from clue_env.fileio import sha256_file

#: the folder of the shipped policy files (beside ``agents/``, in a clone and an installed package alike)
MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models")
#: the manifest of the files in :data:`MODELS`
MANIFEST = os.path.join(MODELS, "manifest.yaml")
#: the largest manifest read
MAX_BYTES = 256 * 1024
#: the agent specs whose file the manifest chooses
SPECS = ("ppo", "ppo_accuse")
#: the player counts a ``plays`` item may name
PLAYER_COUNTS = range(2, 7)

_REQUIRED = ("file", "sha256", "recipe", "plays")
_OPTIONAL = ("network", "commit", "built_by_recipe", "about", "strength")
_PLAY_KEYS = ("spec", "rules", "players")
_ROW_REQUIRED = ("lineup", "win_rate", "ci95", "games", "commands")
_ROW_KEYS = (*_ROW_REQUIRED, "note")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_COMMIT = re.compile(r"[0-9a-f]{7,40}")


class ManifestError(fileio.InputError):
    """The manifest, or a file it names, cannot be used; the message says which entry or file and
    what to do."""


@dataclass(frozen=True)
class Policy:
    """One entry of the manifest."""

    #: the file's path under the models folder, as the manifest writes it
    file: str
    #: its absolute path
    path: str
    sha256: str
    #: the recipe's path in the repository
    recipe: str
    #: (spec, rules, player count) for each configuration this file is played for
    plays: tuple[tuple[str, str, int], ...]
    #: the network file it links to (under the models folder), or None for a file that holds its network
    network: str | None = None
    commit: str | None = None
    built_by_recipe: bool = False
    about: str = ""
    strength: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Manifest:
    """The checked manifest at :attr:`path`; its files live in :attr:`models`."""

    path: str
    models: str
    policies: tuple[Policy, ...]

    def entry(self, file: str) -> Policy:
        """The entry of ``file`` (its path under the models folder)."""
        for p in self.policies:
            if p.file == file:
                return p
        raise ManifestError(f"{self.path}: no entry for {file!r}")

    def playing(self, spec: str, rules: str, num_players: int) -> Policy:
        """The entry ``spec`` plays with ``num_players`` players under the ruleset ``rules`` (a preset
        name); a :class:`ManifestError` where no entry plays that configuration."""
        key = (spec, rules, num_players)
        for p in self.policies:
            if key in p.plays:
                return p
        raise ManifestError(
            f"{self.path}: no policy plays {spec!r} with {num_players} players under the {rules} rules: "
            f"add that configuration to an entry's plays, or name a policy file of your own: ppo:PATH"
        )


def _where(path: str, i: int, entry: Any) -> str:
    name = entry.get("file") if isinstance(entry, dict) else None
    return f"{path}: policies[{i}]" + (f" ({name})" if isinstance(name, str) else "")


def _relative(value: Any, what: str, where: str) -> str:
    """A relative path that stays inside its folder, in ``/`` form."""
    if not isinstance(value, str) or not value.strip():
        raise ManifestError(f"{where}: {what} must be a relative path, got {fileio.short(value)}")
    norm = os.path.normpath(value)
    if os.path.isabs(value) or norm == ".." or norm.startswith(".." + os.sep) or "\\" in value or norm == ".":
        raise ManifestError(f"{where}: {what} {value!r} must be a relative path inside its folder")
    return norm.replace(os.sep, "/")


def _keys(doc: dict[str, Any], known: tuple[str, ...], required: tuple[str, ...], where: str) -> None:
    unknown = [k for k in doc if k not in known]
    if unknown:
        raise ManifestError(f"{where}: unknown key {fileio.short(unknown[0])} (known: {', '.join(known)})")
    missing = [k for k in required if k not in doc]
    if missing:
        raise ManifestError(f"{where}: missing key {missing[0]!r} (required: {', '.join(required)})")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0.0 <= value <= 1.0


def _strength(rows: Any, where: str) -> tuple[dict[str, Any], ...]:
    if not isinstance(rows, list):
        raise ManifestError(f"{where}: strength must be a list of rows, got {fileio.short(rows)}")
    out = []
    for j, row in enumerate(rows):
        at = f"{where}: strength[{j}]"
        if not isinstance(row, dict):
            raise ManifestError(f"{at} must be a mapping, got {fileio.short(row)}")
        _keys(row, _ROW_KEYS, _ROW_REQUIRED, at)
        if not isinstance(row["lineup"], str) or not row["lineup"]:
            raise ManifestError(f"{at}: lineup must be a non-empty string, got {fileio.short(row['lineup'])}")
        rate, ci = row["win_rate"], row["ci95"]
        if not _number(rate):
            raise ManifestError(f"{at}: win_rate must be a fraction from 0 to 1, got {fileio.short(rate)}")
        if not (isinstance(ci, list) and len(ci) == 2 and all(_number(x) for x in ci) and ci[0] <= rate <= ci[1]):
            raise ManifestError(f"{at}: ci95 must be [low, high], fractions around win_rate, got {fileio.short(ci)}")
        games = row["games"]
        if isinstance(games, bool) or not isinstance(games, int) or games < 1:
            raise ManifestError(f"{at}: games must be a positive integer, got {fileio.short(games)}")
        cmds = row["commands"]
        if not (isinstance(cmds, list) and cmds and all(isinstance(c, str) and c.strip() for c in cmds)):
            raise ManifestError(f"{at}: commands must be a non-empty list of command lines, got {fileio.short(cmds)}")
        if "note" in row and not isinstance(row["note"], str):
            raise ManifestError(f"{at}: note must be a string, got {fileio.short(row['note'])}")
        out.append(dict(row))
    return tuple(out)


def _plays(items: Any, where: str) -> tuple[tuple[str, str, int], ...]:
    if not isinstance(items, list):
        raise ManifestError(f"{where}: plays must be a list of {{spec, rules, players}}, got {fileio.short(items)}")
    out: list[tuple[str, str, int]] = []
    for j, item in enumerate(items):
        at = f"{where}: plays[{j}]"
        if not isinstance(item, dict):
            raise ManifestError(f"{at} must be a mapping {{spec, rules, players}}, got {fileio.short(item)}")
        _keys(item, _PLAY_KEYS, _PLAY_KEYS, at)
        spec, rules, players = item["spec"], item["rules"], item["players"]
        if spec not in SPECS:
            raise ManifestError(f"{at}: spec must be one of {', '.join(SPECS)}, got {fileio.short(spec)}")
        if rules not in PRESETS:
            raise ManifestError(f"{at}: rules must be a preset ({', '.join(PRESETS)}), got {fileio.short(rules)}")
        counts = players if isinstance(players, list) else None
        if not counts or any(isinstance(n, bool) or not isinstance(n, int) or n not in PLAYER_COUNTS for n in counts):
            raise ManifestError(
                f"{at}: players must be a non-empty list of player counts from {PLAYER_COUNTS.start} to "
                f"{PLAYER_COUNTS.stop - 1}, got {fileio.short(players)}"
            )
        for n in counts:
            if (spec, rules, n) in out:
                raise ManifestError(f"{at}: ({spec}, {rules}, {n} players) is listed twice")
            out.append((spec, rules, n))
    return tuple(out)


def parse_manifest(doc: Any, path: str = MANIFEST, models: str | None = None) -> Manifest:
    """Check a parsed manifest and return it; a :class:`ManifestError` naming the entry for anything
    wrong. ``models``: the folder its files live in (default: the manifest's own folder)."""
    models = models if models is not None else os.path.dirname(os.path.abspath(path))
    if not isinstance(doc, dict):
        raise ManifestError(f"{path}: must be a mapping with a list 'policies', got {fileio.short(doc)}")
    _keys(doc, ("policies",), ("policies",), path)
    entries = doc["policies"]
    if not isinstance(entries, list) or not entries:
        raise ManifestError(f"{path}: policies must be a non-empty list of entries, got {fileio.short(entries)}")
    policies: list[Policy] = []
    claimed: dict[tuple[str, str, int], str] = {}
    for i, entry in enumerate(entries):
        where = _where(path, i, entry)
        if not isinstance(entry, dict):
            raise ManifestError(f"{where} must be a mapping, got {fileio.short(entry)}")
        _keys(entry, _REQUIRED + _OPTIONAL, _REQUIRED, where)
        file = _relative(entry["file"], "file", where)
        if any(p.file == file for p in policies):
            raise ManifestError(f"{where}: {file!r} is listed twice")
        sha = entry["sha256"]
        if not isinstance(sha, str) or not _SHA256.fullmatch(sha):
            raise ManifestError(f"{where}: sha256 must be 64 lowercase hex digits, got {fileio.short(sha)}")
        recipe = _relative(entry["recipe"], "recipe", where)
        plays = _plays(entry["plays"], where)
        for key in plays:
            if key in claimed:
                spec, rules, n = key
                raise ManifestError(
                    f"{where}: {spec} with {n} players under the {rules} rules is already played by "
                    f"{claimed[key]!r}: one entry per configuration"
                )
            claimed[key] = file
        network = entry.get("network")
        if network is not None:
            network = _relative(network, "network", where)
        commit = entry.get("commit")
        if commit is not None and (not isinstance(commit, str) or not _COMMIT.fullmatch(commit)):
            raise ManifestError(f"{where}: commit must be a git commit (7-40 hex digits) or null, got {fileio.short(commit)}")
        built = entry.get("built_by_recipe", False)
        if not isinstance(built, bool):
            raise ManifestError(f"{where}: built_by_recipe must be true or false, got {fileio.short(built)}")
        about = entry.get("about", "")
        if not isinstance(about, str):
            raise ManifestError(f"{where}: about must be a string, got {fileio.short(about)}")
        strength = _strength(entry.get("strength", []), where)
        policies.append(
            Policy(file, os.path.join(models, file), sha, recipe, plays, network, commit, built, about.strip(), strength)
        )
    files = {p.file: p for p in policies}
    for i, p in enumerate(policies):
        if p.network is None:
            continue
        net = files.get(p.network)
        if net is None:
            raise ManifestError(f"{_where(path, i, entries[i])}: its network {p.network!r} has no entry: list that file too")
        if os.path.dirname(p.network) != os.path.dirname(p.file):
            raise ManifestError(
                f"{_where(path, i, entries[i])}: its network {p.network!r} must be in the same folder as the file "
                "(a linked file names its network by its bare name)"
            )
        if net.network is not None:
            raise ManifestError(
                f"{_where(path, i, entries[i])}: its network {p.network!r} links to another file itself; "
                "name the network file that holds the weights"
            )
    return Manifest(path, models, tuple(policies))


_MANIFESTS: dict[Any, Manifest] = {}


def load_manifest(path: str = MANIFEST) -> Manifest:
    """The checked manifest at ``path`` (read once per process, and again when the file changes)."""
    try:
        st = fileio.check_regular(path, "the models manifest")
    except fileio.InputError as e:
        raise ManifestError(
            f"{e}: in a clone, restore it (git checkout -- models/manifest.yaml); an installed clue-env ships it "
            "(reinstall it); or name a policy file of your own: ppo:PATH"
        ) from None
    key = (os.path.abspath(path), st.st_mtime_ns, st.st_size, st.st_ino)
    if key not in _MANIFESTS:
        try:
            doc = fileio.loads_yaml(fileio.read_regular(path, MAX_BYTES, "the models manifest"), path)
        except fileio.InputError as e:
            raise ManifestError(str(e)) from None
        _MANIFESTS[key] = parse_manifest(doc, path)
    return _MANIFESTS[key]


def ruleset(rules: Any = "classic") -> str:
    """The manifest's ``rules`` for a ruleset (a preset name, a YAML path, a mapping or a config): a
    preset's own name; any other ruleset ``edition2023`` when its turn starts with the roll (R12,
    ``roll_first``), else ``classic``."""
    if isinstance(rules, str) and rules in PRESETS:
        return rules
    if not hasattr(rules, "roll_first"):
        from clue_env.engine.config import load_rules

        rules = load_rules(rules)
    return "edition2023" if rules.roll_first else "classic"


_VERIFIED: set[Any] = set()


def sha256_of(path: str) -> str:
    """The SHA-256 of the file at ``path`` (hex)."""
    return sha256_file(path)


def verify(manifest: Manifest, policy: Policy) -> str:
    """``policy``'s path, once it is checked to be a regular file matching its recorded SHA-256
    (checked once per process while the file stays the same); a :class:`ManifestError` saying which
    file and what to do otherwise."""
    try:
        st = fileio.check_regular(policy.path, "the shipped policy file")
    except fileio.InputError as e:
        raise ManifestError(
            f"{e} (named in {manifest.path}): in a clone, restore it (git checkout -- models/); an installed "
            "clue-env ships it (reinstall it); or name a policy file of your own: ppo:PATH"
        ) from None
    key = (policy.path, policy.sha256, st.st_mtime_ns, st.st_size, st.st_ino)
    if key not in _VERIFIED:
        found = sha256_of(policy.path)
        if found != policy.sha256:
            raise ManifestError(
                f"the shipped policy file {policy.path!r} does not match its SHA-256 in {manifest.path} "
                f"({policy.sha256[:12]}... recorded, {found[:12]}... found): in a clone, restore it "
                f"(git checkout -- models/{policy.file}); if you rebuilt it on purpose, record its new sha256 in "
                "the manifest; or name a policy file of your own: ppo:PATH"
            )
        _VERIFIED.add(key)
    return policy.path


def shipped_file(spec: str, num_players: int, rules: Any = "classic", manifest: str = MANIFEST) -> str:
    """The checked path of the file ``spec`` (``ppo`` or ``ppo_accuse``) plays with ``num_players``
    players under ``rules`` (see :func:`ruleset`), as ``manifest`` says; the network file it links to is
    checked too."""
    m = load_manifest(manifest)
    policy = m.playing(spec, ruleset(rules), num_players)
    path = verify(m, policy)
    if policy.network is not None:
        verify(m, m.entry(policy.network))
    return path


def shipped_network(spec: str, num_players: int, rules: Any = "classic", manifest: str = MANIFEST) -> str:
    """The checked path of the network file behind the file :func:`shipped_file` names: the file it
    links to, or that file itself when it holds its network."""
    m = load_manifest(manifest)
    policy = m.playing(spec, ruleset(rules), num_players)
    return verify(m, m.entry(policy.network) if policy.network is not None else policy)
