"""The PPO stage on Stable-Baselines3 (``backend: sb3``, the default): MaskablePPO
(:class:`~clue_env.training.sb3_policy.CluePPO`) over the single-learner adapter env, vectorised in
this process or in grouped worker processes (:mod:`~clue_env.training.vec_env`), behind the
:class:`~clue_env.training.run_support.Backend` interface that
:func:`~clue_env.training.run_support.run_ppo` drives.

Each chunk reseeds the environments, torch and the action sampling from ``(seed, chunk)`` and starts
the environments afresh, so a run resumed from its last checkpoint continues exactly as an
uninterrupted one (episodes in flight at a chunk boundary are dropped, in both). The PPO state is one
file, ``checkpoints/ppo_latest.pt`` (:mod:`~clue_env.training.ppo_checkpoint`): weights, optimizer
state and the chunk count in one atomic write.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from .ppo_checkpoint import apply_ppo_checkpoint, save_ppo_checkpoint
from .run_support import ProgressBar, RunContext, seed_of

#: the PPO checkpoint of a run directory, and the SB3 zip older versions wrote instead
PPO_CHECKPOINT = "ppo_latest.pt"
LEGACY_PPO_CHECKPOINT = "ppo_latest.zip"


def vec_env(run: RunContext) -> Any:
    """The run's vectorised adapter envs (``ppo.n_envs`` of them, against ``ppo.opponents``)."""
    import gymnasium as gym
    from stable_baselines3.common.vec_env import DummyVecEnv

    from .adapter import SingleLearnerEnv
    from .vec_env import GroupedSubprocVecEnv

    p = run.cfg.ppo
    factories = [run.factory_for(s) for s in p.opponents]
    counts = run.cfg.num_players
    rules = run.rules

    def make() -> SingleLearnerEnv:
        return SingleLearnerEnv(
            factories, num_players=counts, rules=rules, opponent_weights=p.opponent_weights, opponent_draw=p.opponent_draw
        )

    fns: list[Callable[[], gym.Env]] = [make] * p.n_envs
    if p.subprocess and p.n_envs > 1:
        return GroupedSubprocVecEnv(fns, n_workers=p.workers or None)
    return DummyVecEnv(fns)


def new_model(run: RunContext, env: Any, net: Any) -> Any:
    """A MaskablePPO model built from the run's config, its network initialised from ``net``."""
    from .sb3_policy import CluePolicy, CluePPO

    p = run.cfg.ppo
    model = CluePPO(
        CluePolicy,
        env,
        learning_rate=p.learning_rate,
        n_steps=p.n_steps,
        batch_size=p.batch_size,
        n_epochs=p.n_epochs,
        gamma=p.gamma,
        gae_lambda=p.gae_lambda,
        clip_range=p.clip_range,
        ent_coef=p.ent_coef,
        vf_coef=p.vf_coef,
        max_grad_norm=p.max_grad_norm,
        target_kl=p.target_kl,
        policy_kwargs={"net_kwargs": net.config()},
        tensorboard_log=os.path.join(run.out, "tb"),
        seed=run.cfg.seed,
        device="cpu",
        verbose=0,
    )
    model.policy.net.load_state_dict(net.state_dict())  # type: ignore[union-attr]
    return model


class SB3Backend:
    """PPO on SB3 for ``run``; ``resume_from`` is the checked checkpoint to restore (its path and
    contents, as :func:`~clue_env.training.ppo_checkpoint.read_ppo_checkpoint` returns them), or
    ``None`` for a fresh start."""

    checkpoint = PPO_CHECKPOINT
    policy_meta: dict[str, Any] = {}

    def __init__(self, run: RunContext, resume_from: tuple[str, dict[str, Any]] | None = None) -> None:
        self.run = run
        self.resume_from = resume_from
        self.env: Any = None
        self.model: Any = None

    def build(self, net: Any) -> tuple[int, int]:
        import torch

        p = self.run.cfg.ppo
        torch.set_num_threads(p.torch_threads)
        self.env = vec_env(self.run)
        done = ts = 0
        try:
            self.model = new_model(self.run, self.env, net)
            if self.resume_from is not None:
                path, data = self.resume_from
                apply_ppo_checkpoint(path, self.model, data)  # only tensors and numbers (ppo_checkpoint)
                done, ts = int(data["chunks"]), int(self.model.num_timesteps)
                self.run.log(f"resume: PPO from chunk {done} ({ts} timesteps, {os.path.basename(path)})")
            self.model.threads = (p.torch_threads, p.update_threads or os.cpu_count() or 1)
        except BaseException:
            self.env.close()
            raise
        return done, ts

    def train_chunk(self, chunk: int, target: int, bar: ProgressBar) -> int:
        from stable_baselines3.common.utils import set_random_seed

        model = self.model
        s = seed_of(self.run.cfg.seed, 3, chunk)
        set_random_seed(s)
        model.set_random_seed(s)
        self.env.seed(s)
        model._last_obs = None  # reset the envs: a chunk starts fresh
        model.learn(
            self.run.chunk_steps, callback=bar.callback(), reset_num_timesteps=False, tb_log_name="ppo", progress_bar=False
        )
        return int(model.num_timesteps)

    def save(self, chunks: int, timesteps: int) -> None:
        # weights, optimizer and chunk count in one atomic write
        save_ppo_checkpoint(os.path.join(self.run.ckpt, PPO_CHECKPOINT), self.model, chunks, self.run.chunk_steps)
        legacy = os.path.join(self.run.ckpt, LEGACY_PPO_CHECKPOINT)
        if os.path.exists(legacy):
            os.unlink(legacy)

    def export(self) -> Any:
        return self.model.policy.net

    def close(self) -> None:
        self.env.close()


__all__ = ["LEGACY_PPO_CHECKPOINT", "PPO_CHECKPOINT", "SB3Backend", "new_model", "vec_env"]
