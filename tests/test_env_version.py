"""The observation and action layouts are pinned to the env's version (``clue_env.ENV_VERSION``).

tests/data/env_layout.json records, for the version, every ruleset and player count: the
observation sizes (with and without the policy features) and hashes of the observation index
tables and of the action texts. A layout change without a version bump fails here. To bump:
raise ``ENV_VERSION`` in clue_env/env.py, add a row to the version history (docs/gymnasium.md,
docs/environment.md), then rewrite the file with ``python tests/test_env_version.py --write``
(which refuses to record a changed layout under an unchanged version).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import gymnasium as gym

import clue_env
from clue_env import ENV_VERSION
from clue_env.policy.features import POLICY_LAYOUT

DATA = Path(__file__).parent / "data" / "env_layout.json"
COUNTS = {"classic": range(3, 7), "edition2023": range(2, 7)}
HOW = "raise ENV_VERSION in clue_env/env.py, add a version-history row, then run python tests/test_env_version.py --write"


def _hash(value: object) -> str:
    return hashlib.sha256(json.dumps(value).encode()).hexdigest()[:16]


def current() -> dict:
    layouts = {}
    for rules, counts in COUNTS.items():
        for n in counts:
            env = clue_env.raw_env(num_players=n, rules=rules)
            size = int(env.observation_space("player_0")["observation"].shape[0])
            layouts[f"{rules}/{n}"] = {
                "observation_size": size,
                "observation_table": _hash([(name, list(shape)) for name, shape, _ in env.layout.pieces]),
                "features_size": POLICY_LAYOUT.size,
                "features_table": _hash([(name, list(shape)) for name, shape, _ in POLICY_LAYOUT.pieces]),
                "actions": int(env.action_space("player_0").n),
                "action_texts": _hash([env.action_to_text(i) for i in range(env.action_space("player_0").n)]),
            }
    ids = {"aec_name": clue_env.raw_env.metadata["name"], "gymnasium_id": f"clue_env/Clue-v{ENV_VERSION}"}
    return {"version": ENV_VERSION, "ids": ids, "layouts": layouts}


def problem(pinned: dict, now: dict) -> str | None:
    """Why ``now`` may not stand against the pinned record, or None."""
    if pinned["version"] != now["version"]:
        return f"ENV_VERSION is {now['version']} but tests/data/env_layout.json records v{pinned['version']}: {HOW}"
    changed = sorted(k for k in set(pinned["layouts"]) | set(now["layouts"]) if pinned["layouts"].get(k) != now["layouts"].get(k))
    if changed:
        return f"the observation or action layout changed ({', '.join(changed)}) under v{now['version']}: {HOW}"
    if pinned["ids"] != now["ids"]:
        return f"the env ids {now['ids']} are not those recorded for v{now['version']} ({pinned['ids']})"
    return None


def test_layouts_are_pinned_to_the_version():
    assert problem(json.loads(DATA.read_text()), current()) is None, problem(json.loads(DATA.read_text()), current())


def test_a_layout_change_without_a_bump_fails_and_says_how_to_bump():
    pinned = json.loads(DATA.read_text())
    changed = json.loads(DATA.read_text())
    changed["layouts"]["classic/4"]["observation_size"] += 1
    message = problem(pinned, changed)
    assert message is not None and "classic/4" in message and "raise ENV_VERSION" in message
    bumped = dict(changed, version=pinned["version"] + 1)
    assert "--write" in (problem(pinned, bumped) or "")


def test_the_ids_follow_the_version():
    assert clue_env.raw_env.metadata["name"] == f"clue_v{ENV_VERSION}"
    assert f"clue_env/Clue-v{ENV_VERSION}" in gym.registry


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_env_version.py --write")
    now = current()
    if DATA.exists():
        old = json.loads(DATA.read_text())
        if old["version"] == now["version"] and problem(old, now):
            sys.exit(f"refused: {problem(old, now)}")
    DATA.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
    print(f"wrote {DATA} for v{now['version']}")
