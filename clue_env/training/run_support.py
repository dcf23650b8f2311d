"""What a training run's stages share, whichever backend runs PPO: seeds derived from the run's
seed, atomic text writes into the run directory, the PPO progress bar, and :class:`RunContext`, the
part of a :class:`~clue_env.training.trainer.Trainer` that a backend's PPO stage uses.

:mod:`~clue_env.training.trainer` and :mod:`~clue_env.training.rllib_backend` both import this
module; the RLlib backend never imports the trainer (it is handed one as a :class:`RunContext`), so
the dependency runs one way: trainer → rllib_backend → run_support.
"""

from __future__ import annotations

import os
import tempfile
from collections import deque
from typing import Any, Protocol

import numpy as np

from ..engine.config import RulesConfig
from .config import TrainConfig


def seed_of(*parts: int) -> int:
    """A 32-bit seed drawn from ``parts`` (the run's seed, a stage number, a chunk...): the same
    parts give the same seed on every machine, different parts independent ones."""
    return int(np.random.SeedSequence(list(parts)).generate_state(1)[0])


def atomic_write_text(path: str, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same directory and a rename; on
    any failure (a full disk) the temporary file is removed and ``path`` is as it was."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=f".{os.path.basename(path)}.tmp-")
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; these are ordinary files
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class ProgressBar:
    """tqdm over PPO timesteps with the recent win and wrong-accusation rates."""

    def __init__(self, total: int, start: int, enabled: bool) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=total, initial=start, unit="step", desc="PPO", disable=not enabled, smoothing=0.05)
        self.wins: deque[float] = deque(maxlen=200)
        self.wrong: deque[float] = deque(maxlen=200)

    def callback(self) -> Any:
        """An SB3 callback that advances the bar and records the rates (the SB3 backend only)."""
        from stable_baselines3.common.callbacks import BaseCallback

        outer = self

        class CB(BaseCallback):
            def _on_step(self) -> bool:
                n = len(self.locals["infos"])
                outer.bar.update(n)
                for info, done in zip(self.locals["infos"], self.locals["dones"]):
                    if done and "won" in info:
                        outer.wins.append(float(info["won"]))
                        outer.wrong.append(float(info["wrong_accusation"]))
                if outer.wins and self.n_calls % 50 == 0:
                    w, a = float(np.mean(outer.wins)), float(np.mean(outer.wrong))
                    outer.bar.set_postfix(win=f"{w:.1%}", wrong_acc=f"{a:.1%}")
                    self.logger.record("rollout/win_rate", w)
                    self.logger.record("rollout/wrong_accusation_rate", a)
                return True

        return CB()

    def close(self) -> None:
        self.bar.close()


class RunContext(Protocol):
    """The run a backend's PPO stage works for (a :class:`~clue_env.training.trainer.Trainer`)."""

    cfg: TrainConfig
    rules: RulesConfig
    #: the run directory and its ``checkpoints`` folder
    out: str
    ckpt: str
    resume: bool
    progress: bool
    #: timesteps per PPO chunk, and chunks to reach ``ppo.timesteps``
    chunk_steps: int
    n_chunks: int
    eval_rows: list[dict[str, Any]]

    @property
    def writer(self) -> Any: ...

    def factory_for(self, spec: str) -> Any: ...

    def log(self, msg: str) -> None: ...

    def evaluate_policy(self, policy_path: str, timesteps: int, phase: str) -> None: ...


__all__ = ["ProgressBar", "RunContext", "atomic_write_text", "seed_of"]
