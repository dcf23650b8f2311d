"""Every script in examples/ runs at smoke size (``--smoke``: seconds) and reports how it played.

The RLlib example runs only where Ray is installed (``.venv-ray``: ``pytest -m rllib tests/test_examples.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
#: script -> the modules it needs beyond the main virtualenv's (None: none)
SCRIPTS = {
    "ppo_masked.py": None,
    "sb3_maskable_ppo.py": "sb3_contrib",
    "tianshou_dqn.py": "tianshou",
    "rllib_ppo.py": "ray.rllib",
}
#: what each script prints at the end
REPORTS = {"rllib_ppo.py": "mean return"}


def test_every_example_is_listed():
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(SCRIPTS)


@pytest.mark.parametrize("script", [pytest.param(s, marks=pytest.mark.rllib) if "rllib" in s else s for s in sorted(SCRIPTS)])
def test_example_runs_at_smoke_size(script, tmp_path):
    if SCRIPTS[script]:
        pytest.importorskip(SCRIPTS[script])
    env = dict(os.environ, OMP_NUM_THREADS="1")
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script), "--smoke"], capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert REPORTS.get(script, "won") in done.stdout, done.stdout
