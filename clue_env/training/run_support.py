"""What a training run's stages share, whichever backend runs PPO: seeds derived from the run's
seed, atomic text writes into the run directory, the PPO progress bar, :class:`RunContext` (the part
of a :class:`~clue_env.training.trainer.Trainer` that the PPO stage uses) and :class:`StageContext`
(what the imitation and accusation stages use), and the PPO stage itself: :func:`run_ppo`, the one
chunk loop (resume, the evaluation schedule, the commit of each chunk) that drives a :class:`Backend`.

The backends (:mod:`~clue_env.training.sb3_backend`, :mod:`~clue_env.training.rllib_backend`), the
stages (:mod:`~clue_env.training.imitation_stage`, :mod:`~clue_env.training.accusation_stage`) and
:mod:`~clue_env.training.trainer` import this module; a backend or a stage never imports the trainer
(it is handed one as a :class:`RunContext` or :class:`StageContext`), so the dependency runs one way:
trainer → backends and stages → run_support.
"""

from __future__ import annotations

import json
import os
from collections import deque
from typing import Any, Protocol

import numpy as np

from ..engine.config import RulesConfig
from ..fileio import atomic_file
from ..policy.checkpoint import save_policy
from .config import TrainConfig


def seed_of(*parts: int) -> int:
    """A 32-bit seed drawn from ``parts`` (the run's seed, a stage number, a chunk...): the same
    parts give the same seed on every machine, different parts independent ones."""
    return int(np.random.SeedSequence(list(parts)).generate_state(1)[0])


def atomic_write_text(path: str, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically (:func:`clue_env.fileio.atomic_file`): on any
    failure (a full disk) the temporary file is removed and ``path`` is as it was."""
    with atomic_file(path, prefix=f".{os.path.basename(path)}.tmp-", suffix="") as f:
        f.write(text.encode("utf-8"))


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
    """The run that :func:`run_ppo` and a :class:`Backend` work for (a
    :class:`~clue_env.training.trainer.Trainer`): its config, run directory, chunk sizes and
    evaluation log, and how to build agents, log and evaluate a policy file."""

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


class StageContext(RunContext, Protocol):
    """The run that the imitation and accusation stages work for
    (:mod:`~clue_env.training.imitation_stage`, :mod:`~clue_env.training.accusation_stage`): a
    :class:`RunContext` that also says how many processes record its games."""

    #: processes that record games (1: all in this process)
    workers: int


class Backend(Protocol):
    """What runs PPO for :func:`run_ppo`: it builds (and on ``--resume`` restores) its trainer, trains
    one chunk at a time, saves its state at each chunk's end and exports the policy network."""

    #: the PPO state's path under ``checkpoints/`` (recorded in ``state.json``)
    checkpoint: str
    #: what the backend adds to each ``policy_<steps>.pt``'s metadata
    policy_meta: dict[str, Any]

    def build(self, net: Any) -> tuple[int, int]:
        """Build the trainer from ``net``'s weights, restore the run's last committed PPO state when
        it resumes, and return ``(chunks, timesteps)`` done so far (``(0, 0)`` for a fresh start).
        A failure leaves nothing open (:meth:`close` is not called)."""
        ...

    def train_chunk(self, chunk: int, target: int, bar: ProgressBar) -> int:
        """Train chunk number ``chunk`` (to about ``target`` timesteps in all), advancing ``bar``;
        return the timesteps trained so far."""
        ...

    def save(self, chunks: int, timesteps: int) -> None:
        """Write the PPO state after ``chunks`` chunks: the commit point, one atomic step."""
        ...

    def export(self) -> Any:
        """The policy network (a :class:`~clue_env.policy.network.CluePolicyNet`) as trained so far."""
        ...

    def close(self) -> None:
        """Release what :meth:`build` started (environments, workers)."""
        ...


def evaluation_due(chunks: int, every: int, n_chunks: int) -> bool:
    """Whether the policy after ``chunks`` chunks is evaluated: every ``every`` chunks, and the last."""
    return chunks > 0 and (chunks % every == 0 or chunks == n_chunks)


def run_ppo(run: RunContext, backend: Backend, net: Any) -> Any:
    """The PPO stage of ``run`` on ``backend``, starting from ``net``; returns the trained network.

    ``run.n_chunks`` chunks of ``run.chunk_steps`` timesteps, from the last committed one on
    ``--resume``. After each chunk: the policy file ``checkpoints/policy_<steps>.pt``, the backend's
    state (the commit point), ``checkpoints/state.json`` (a summary for people), then the evaluation
    when one is due (``eval.every_checkpoints``). A resumed run first makes the evaluation an
    interruption cut off: the last committed chunk's, when it was due and is not in ``eval.jsonl``."""
    if run.cfg.ppo.timesteps <= 0:
        return net
    chunk_steps, n_chunks, every = run.chunk_steps, run.n_chunks, run.cfg.eval.every_checkpoints
    state_path = os.path.join(run.ckpt, "state.json")
    done, ts = backend.build(net)
    try:
        policy_path = os.path.join(run.ckpt, f"policy_{ts}.pt")
        if (
            evaluation_due(done, every, n_chunks)
            and os.path.exists(policy_path)
            and not any(r.get("phase") == "ppo" and r.get("timesteps") == ts for r in run.eval_rows)
        ):
            run.evaluate_policy(policy_path, ts, "ppo")  # the evaluation an interruption cut off
        bar = ProgressBar(n_chunks * chunk_steps, ts, run.progress)
        for c in range(done, n_chunks):
            ts = backend.train_chunk(c, (c + 1) * chunk_steps, bar)
            policy_path = os.path.join(run.ckpt, f"policy_{ts}.pt")
            save_policy(policy_path, backend.export(), {"phase": "ppo", "timesteps": ts, **backend.policy_meta})
            backend.save(c + 1, ts)  # the commit point
            summary = {
                "chunks": c + 1,
                "timesteps": ts,
                "target_timesteps": run.cfg.ppo.timesteps,
                "checkpoint": backend.checkpoint,
            }
            atomic_write_text(state_path, json.dumps(summary))
            if evaluation_due(c + 1, every, n_chunks):
                run.evaluate_policy(policy_path, ts, "ppo")
        bar.close()
        return backend.export()
    finally:
        backend.close()


__all__ = ["Backend", "ProgressBar", "RunContext", "StageContext", "atomic_write_text", "evaluation_due", "run_ppo", "seed_of"]
