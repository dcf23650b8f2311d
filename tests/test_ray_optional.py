"""Ray stays optional (issue 18): clue_env, agents, train.py's SB3 path, evaluate.py and play.py never
import ray, and ``--backend rllib`` without it exits with the "install the extra" message, writing nothing."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SMOKE = os.path.join(ROOT, "configs", "train", "smoke.yaml")
RLLIB_SMOKE = os.path.join(ROOT, "configs", "train", "rllib_smoke.yaml")


def test_nothing_but_the_rllib_backend_imports_ray():
    code = """
import sys
import clue_env, clue_env.training.config, clue_env.training.trainer, clue_env.training.adapter
import clue_env.training.rllib_backend  # its top level does not import ray either
import agents, agents.ppo_agent, agents.tournament
import train, evaluate, play
from agents import SpecFactory
from clue_env.training.config import load_train_config
from clue_env.training.trainer import Trainer
Trainer(load_train_config(sys.argv[1]), sys.argv[2], SpecFactory, None, progress=False).validate()
bad = sorted(m for m in sys.modules if m == "ray" or m.startswith("ray."))
print(bad)
sys.exit(1 if bad else 0)
"""
    r = subprocess.run([sys.executable, "-c", code, SMOKE, os.path.join(ROOT, "runs", "never-written")], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr


def test_backend_rllib_without_ray_says_how_to_install_and_writes_nothing(tmp_path, monkeypatch, capsys):
    import train

    monkeypatch.setattr(train, "_ray_installed", lambda: False)
    for args in (["--config", SMOKE, "--backend", "rllib"], ["--config", RLLIB_SMOKE]):
        out = tmp_path / "run"
        assert train.main([*args, "--out", str(out), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert "install the extra: pip install -c constraints.txt -e '.[ray]'" in err
        assert not out.exists()


@pytest.mark.skipif(importlib.util.find_spec("ray") is not None, reason="ray is installed here")
def test_backend_rllib_without_ray_in_a_real_process(tmp_path):
    out = tmp_path / "run"
    r = subprocess.run([sys.executable, "train.py", "--config", RLLIB_SMOKE, "--out", str(out), "--quiet"], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)  # fmt: skip
    assert r.returncode == 2 and "pip install -c constraints.txt -e '.[ray]'" in r.stderr
    assert not out.exists()
