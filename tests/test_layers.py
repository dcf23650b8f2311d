"""The package layers: playing a policy needs torch but never the training libraries."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# a fresh interpreter: what importing the policy package and playing one `ppo` decision imports
_PLAY_ONE_PPO_DECISION = """
import json, sys
import clue_env.policy
import clue_env.policy.checkpoint, clue_env.policy.network, clue_env.policy.features
import clue_env.policy.accusation, clue_env.policy.accusation_net, clue_env.policy.policy_file
import clue_env
from agents import make_agent

agent = make_agent("ppo", seat=0, num_players=4)
env = clue_env.env(num_players=4)
env.reset(seed=3)
while env.agent_selection != "player_0":
    obs, _r, _t, _tr, info = env.last()
    env.step(int(obs["action_mask"].nonzero()[0][0]))
obs, _r, _t, _tr, info = env.last()
action = agent.act(obs, info)
assert obs["action_mask"][action]
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules})))
"""


def test_playing_a_ppo_policy_imports_neither_stable_baselines3_sb3_contrib_nor_ray():
    out = subprocess.run(
        [sys.executable, "-c", _PLAY_ONE_PPO_DECISION], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert "torch" in loaded  # the network did run
    assert not loaded & {"stable_baselines3", "sb3_contrib", "ray"}, sorted(loaded & {"stable_baselines3", "sb3_contrib", "ray"})


def _module_name(path: str) -> tuple[str, bool]:
    """``(dotted module name, is a package __init__)`` of a file under the repository root."""
    rel = os.path.relpath(path, ROOT)[: -len(".py")].split(os.sep)
    is_package = rel[-1] == "__init__"
    return ".".join(rel[:-1] if is_package else rel), is_package


def _private_imports() -> list[str]:
    """Every import, in clue_env/ and agents/, of a private name (``_name``, not ``__dunder__``) or a
    private module of this project from another module."""
    import ast

    found = []
    for top in ("clue_env", "agents"):
        for dirpath, _dirs, files in os.walk(os.path.join(ROOT, top)):
            for name in sorted(files):
                if not name.endswith(".py"):
                    continue
                path = os.path.join(dirpath, name)
                here, is_package = _module_name(path)
                with open(path, encoding="utf-8") as f:
                    tree = ast.parse(f.read(), path)
                for node in ast.walk(tree):
                    if isinstance(node, ast.ImportFrom):
                        if node.level:
                            base = here.split(".") if is_package else here.split(".")[:-1]
                            base = base[: len(base) - (node.level - 1)]
                            source = ".".join(base + ([node.module] if node.module else []))
                        else:
                            source = node.module or ""
                        names = [source + "." + a.name for a in node.names]
                    elif isinstance(node, ast.Import):
                        names = [a.name for a in node.names]
                    else:
                        continue
                    for full in names:
                        if full.split(".")[0] not in ("clue_env", "agents"):
                            continue
                        private = [p for p in full.split(".") if p.startswith("_") and not p.endswith("__")]
                        if private:
                            found.append(f"{os.path.relpath(path, ROOT)}:{node.lineno} imports {full}")
    return found


def test_no_module_imports_a_private_name_of_another_module():
    assert _private_imports() == []


def test_the_private_import_check_sees_relative_and_absolute_imports(tmp_path, monkeypatch):
    pkg = tmp_path / "clue_env" / "sub"
    pkg.mkdir(parents=True)
    (tmp_path / "clue_env" / "__init__.py").write_text("from .sub.a import _hidden\n")
    (pkg / "__init__.py").write_text("from . import __version__\n")
    (pkg / "a.py").write_text("import clue_env.sub._impl\nfrom clue_env.sub import a\n")
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "b.py").write_text("from clue_env.sub.a import public\nfrom msgpack._x import y\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", str(tmp_path))
    assert _private_imports() == [
        "clue_env/__init__.py:1 imports clue_env.sub.a._hidden",
        "clue_env/sub/a.py:1 imports clue_env.sub._impl",
    ]


def test_the_import_contracts_hold():
    """The layers, forbidden imports and acyclic packages stated in pyproject.toml
    ([tool.importlinter]; ``make test`` runs ``lint-imports`` too)."""
    pytest.importorskip("importlinter", reason="import-linter is in the dev extra")
    out = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
