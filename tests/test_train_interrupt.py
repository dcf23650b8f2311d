"""Issue 16, item 22 (training): a Ctrl-C during ``train.py`` prints one clean message with the
resume command and no worker traceback, and log lines (the evaluations during PPO) are not glued
onto the open progress bar.

The Ctrl-C tests run ``train.py`` in its own process group and send SIGINT to the whole group, as
a terminal does, once the stage they interrupt is under way.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import yaml  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SMOKE = os.path.join(ROOT, "configs", "train", "smoke.yaml")


def test_log_lines_are_not_glued_onto_an_open_progress_bar():
    from clue_env.training.config import load_train_config
    from clue_env.training.run_support import ProgressBar
    from clue_env.training.trainer import Trainer

    buf = io.StringIO()  # a terminal: stdout and stderr on one screen
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        trainer = Trainer(load_train_config(SMOKE), "unused", lambda spec: None, progress=True)  # type: ignore[arg-type,return-value]
        bar = ProgressBar(1000, 0, True)
        bar.bar.update(100)
        trainer.log("eval @ 100 (ppo) vs 3 random: 50.0%")
        bar.bar.update(100)
        bar.close()
    text = buf.getvalue()
    i = text.index("eval @ 100")
    assert "PPO" in text[:i]  # the bar was drawn before the line ...
    assert text[i - 1] in "\r\n", repr(text[max(0, i - 80) : i + 10])  # ... and cleared, not glued onto
    assert "eval @ 100 (ppo) vs 3 random: 50.0%\n" in text
    assert "PPO" in text[i:]  # and redrawn below it


def _config(tmp_path, **sections) -> str:
    with open(SMOKE, encoding="utf-8") as f:
        cfg = yaml.safe_load(f)
    for k, v in sections.items():
        cfg.setdefault(k, {}).update(v)
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return str(path)


def _interrupt(tmp_path, config: str, when: str, workers: int) -> tuple[int, str]:
    """Run train.py until ``when`` shows on its stderr (and a moment more), Ctrl-C its process group."""
    err_path = tmp_path / "stderr.txt"
    out = tmp_path / "run"
    cmd = [sys.executable, "train.py", "--config", config, "--out", str(out), "--workers", str(workers)]
    with open(err_path, "w") as err:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
        try:
            deadline = time.monotonic() + 240
            while when not in err_path.read_text() and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.2)
            assert proc.poll() is None, err_path.read_text()
            time.sleep(2.0)  # the workers are busy now
            os.killpg(proc.pid, signal.SIGINT)
            rc = proc.wait(timeout=120)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    return rc, err_path.read_text()


@pytest.mark.parametrize(
    "stage, sections, when, workers",
    [
        # imitation games recorded by 2 worker processes (ProcessPoolExecutor)
        ("imitation", {"imitation": {"games": 2000}}, "imitation games:", 2),
        # the accusation stage's games, recorded by 2 worker processes
        (
            "accusation",
            {"imitation": {"games": 0}, "ppo": {"timesteps": 0}, "accusation": {"games": 2000}},
            "accusation games:",
            2,
        ),
        # PPO with its environments in 2 worker processes (GroupedSubprocVecEnv)
        ("ppo", {"imitation": {"games": 0}, "ppo": {"timesteps": 10**7, "checkpoint_every": 10**6}}, "PPO:", 1),
    ],
)
def test_ctrl_c_prints_one_message_with_the_resume_command_and_no_worker_traceback(tmp_path, stage, sections, when, workers):
    rc, err = _interrupt(tmp_path, _config(tmp_path, **sections), when, workers)
    assert rc == 130, err[-3000:]
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-3000:]
    assert err.count("train.py: interrupted; continue with: python train.py --config") == 1, err[-3000:]
    assert "--resume" in err
