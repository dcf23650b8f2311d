"""A training run: imitation of a scripted teacher (with DAgger), then MaskablePPO fine-tuning.

The run directory holds everything needed to reproduce and resume it::

    config.yaml  run.json (seed, git commit, package versions, command)
    checkpoints/imitation.pt        policy after imitation (skipped on --resume)
    checkpoints/ppo_latest.zip      SB3 model (weights + optimizer) at the last PPO checkpoint
    checkpoints/state.json          how far PPO got
    checkpoints/policy_<steps>.pt   the policy at each PPO checkpoint
    accusation/*.npz  fit.json      recorded games for the accusation head (kept on --resume), its fit
    policy.pt                       the final policy file (clue_env.training.checkpoint)
    eval.jsonl  curve.png           periodic evaluation against the baselines
    tb/                             TensorBoard logs

PPO runs in chunks of ``ppo.checkpoint_every`` timesteps. Each chunk reseeds the environments,
torch and the action sampling from ``(seed, chunk)``, so an interrupted run resumed from its
last checkpoint continues exactly as an uninterrupted one (episodes in flight at a chunk
boundary are dropped, in both). Agents are injected (``factory_for(spec)`` and ``evaluate``):
``clue_env`` never imports ``agents``.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
import yaml

from ..engine.config import RulesConfig, load_rules
from .checkpoint import atomic_torch_save, load_policy, save_policy
from .config import TrainConfig
from .imitation import ActorFactory, Batch, fit, record_games

FactoryFor = Callable[[str], ActorFactory]
#: evaluate(policy_path, opponent_spec, num_players, games, seed) -> tournament summary
Evaluate = Callable[[str, str, int, int, int], dict[str, Any]]


def atomic_write_text(path: str, text: str) -> None:
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def git_commit(cwd: str | None = None) -> str:
    """The current commit (``+dirty`` when the tree has changes), or ``unknown``."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=cwd, timeout=10)
        if head.returncode != 0:
            return "unknown"
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True, cwd=cwd, timeout=10
        )
        return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def package_versions() -> dict[str, str]:
    from importlib import metadata

    out = {"python": platform.python_version()}
    for name in ("clue-env", "torch", "stable-baselines3", "sb3-contrib", "gymnasium", "pettingzoo", "numpy"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def _collect_chunk(args: tuple) -> Batch:
    lineups, games, rules, seed, gamma, driver = args
    return record_games(lineups, games, rules, seed, gamma, driver)


def _seed_of(*parts: int) -> int:
    return int(np.random.SeedSequence(list(parts)).generate_state(1)[0])


class Trainer:
    """One training run (see the module docstring)."""

    def __init__(
        self,
        cfg: TrainConfig,
        out: str,
        factory_for: FactoryFor,
        evaluate: Evaluate | None = None,
        *,
        resume: bool = False,
        progress: bool = True,
        command: list[str] | None = None,
        workers: int = 2,
    ) -> None:
        self.cfg = cfg
        self.out = out
        self.factory_for = factory_for
        self.evaluate_fn = evaluate
        self.resume = resume
        self.progress = progress
        self.command = command or sys.argv
        self.workers = max(1, int(workers))
        self.rules: RulesConfig = load_rules(cfg.rules)
        self.ckpt = os.path.join(out, "checkpoints")
        self.eval_rows: list[dict[str, Any]] = []
        self._writer: Any = None

    # ------------------------------------------------------------------ run directory
    def _prepare(self) -> None:
        marker = os.path.join(self.out, "run.json")
        if os.path.exists(marker) and not self.resume:
            raise FileExistsError(f"{self.out!r} already holds a run: pass --resume to continue it, or choose another --out")
        if self.resume and not os.path.exists(marker):
            raise FileNotFoundError(f"nothing to resume in {self.out!r} (no run.json); start the run without --resume")
        os.makedirs(self.ckpt, exist_ok=True)
        cfg_path = os.path.join(self.out, "config.yaml")
        text = yaml.safe_dump(self.cfg.to_dict(), sort_keys=False)
        if self.resume and os.path.exists(cfg_path):
            with open(cfg_path, encoding="utf-8") as f:
                old = yaml.safe_load(f)
            new = self.cfg.to_dict()
            if {k: v for k, v in old.items() if k != "ppo"} != {k: v for k, v in new.items() if k != "ppo"}:
                raise ValueError(f"--resume: the config differs from the one in {cfg_path!r} (only ppo.timesteps may change)")
        atomic_write_text(cfg_path, text)
        info = {
            "name": self.cfg.name,
            "seed": self.cfg.seed,
            "commit": git_commit(os.path.dirname(os.path.abspath(__file__))),
            "versions": package_versions(),
            "command": self.command,
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        if self.resume and os.path.exists(marker):
            with open(marker, encoding="utf-8") as f:
                prev = json.load(f)
            prev.setdefault("resumed", []).append(info)
            info = prev
        atomic_write_text(marker, json.dumps(info, indent=2))
        ev = os.path.join(self.out, "eval.jsonl")
        if self.resume and os.path.exists(ev):
            with open(ev, encoding="utf-8") as f:
                self.eval_rows = [json.loads(line) for line in f if line.strip()]

    @property
    def writer(self) -> Any:
        if self._writer is None:
            from torch.utils.tensorboard import SummaryWriter

            self._writer = SummaryWriter(os.path.join(self.out, "tb", "run"))
        return self._writer

    def _log(self, msg: str) -> None:
        if self.progress:
            print(msg, flush=True)

    # ------------------------------------------------------------------ imitation
    def _lineups(self) -> list[tuple[list[ActorFactory], list[int]]]:
        im = self.cfg.imitation
        return [
            ([self.factory_for(s) for s in lineup], [i for i, s in enumerate(lineup) if s == im.teacher]) for lineup in im.lineups
        ]

    def _collect(self, games: range, seed: int, driver: ActorFactory | None, desc: str) -> Batch:
        from tqdm import tqdm

        lineups = self._lineups()
        chunk = 10
        jobs = [
            (lineups, list(range(i, min(games.stop, i + chunk))), self.rules, seed, self.cfg.imitation.gamma, driver)
            for i in range(games.start, games.stop, chunk)
        ]
        parts: list[Batch] = []
        bar = tqdm(total=len(games), unit="game", desc=desc, disable=not self.progress)
        if self.workers == 1:
            for j in jobs:
                parts.append(_collect_chunk(j))
                bar.update(len(j[1]))
        else:
            with ProcessPoolExecutor(self.workers) as pool:
                for j, b in zip(jobs, pool.map(_collect_chunk, jobs)):
                    parts.append(b)
                    bar.update(len(j[1]))
        bar.close()
        return Batch.concat(parts)

    def imitation(self, net: Any) -> Any:
        """Behaviour cloning (and DAgger rounds) into ``net``; returns it."""
        im = self.cfg.imitation
        path = os.path.join(self.ckpt, "imitation.pt")
        if self.resume and os.path.exists(path):
            self._log(f"resume: imitation already done ({path})")
            return load_policy(path)[0]
        if im.games == 0:
            return net
        import torch

        torch.manual_seed(_seed_of(self.cfg.seed, 1))
        data = self._collect(range(im.games), _seed_of(self.cfg.seed, 2), None, "imitation games")
        self._log(f"imitation: {len(data)} decisions from {im.games} games")
        step = [0]

        def log(stats: dict[str, float]) -> None:
            step[0] += 1
            for k, v in stats.items():
                if k != "epoch":
                    self.writer.add_scalar(f"imitation/{k}", v, step[0])
            self._log("  " + ", ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in stats.items()))

        fit(
            net, data, epochs=im.epochs, batch_size=im.batch_size, lr=im.lr, value_coef=im.value_coef, seed=self.cfg.seed, log=log
        )
        for r in range(im.dagger_rounds):
            tmp = os.path.join(self.ckpt, f"dagger_{r}.pt")
            save_policy(tmp, net, {"phase": f"dagger round {r}"})
            start = im.games + r * im.dagger_games
            more = self._collect(
                range(start, start + im.dagger_games),
                _seed_of(self.cfg.seed, 2),
                self.factory_for(f"ppo:{tmp}"),
                f"DAgger round {r + 1}",
            )
            data = Batch.concat([data, more])
            self._log(f"DAgger round {r + 1}: {len(data)} decisions")
            fit(
                net,
                data,
                epochs=im.dagger_epochs,
                batch_size=im.batch_size,
                lr=im.lr / 3,  # a gentler refit: the net starts from the last fit
                value_coef=im.value_coef,
                seed=self.cfg.seed + r + 1,
                log=log,
            )
        save_policy(path, net, {"phase": "imitation", "decisions": len(data)})
        self._evaluate(path, 0, "imitation")
        return net

    # ------------------------------------------------------------------ evaluation
    def _evaluate(self, policy_path: str, timesteps: int, phase: str) -> None:
        if self.evaluate_fn is None:
            return
        ev = self.cfg.eval
        for opp in ev.opponents:
            s = self.evaluate_fn(policy_path, opp, ev.num_players, ev.games, ev.seed)
            key = next(k for k in s["results"] if k.startswith("ppo"))
            r = s["results"][key]
            row = {
                "timesteps": timesteps,
                "phase": phase,
                "opponent": opp,
                "num_players": ev.num_players,
                "games": r["games"],
                "win_rate": r["win_rate"],
                "ci95": r["ci95"],
                "wrong_accusation_rate": r["wrong_accusations"] / max(1, r["games"]),
            }
            self.eval_rows.append(row)
            self.writer.add_scalar(f"eval/win_rate_vs_{opp}", row["win_rate"], timesteps)
            self.writer.add_scalar(f"eval/wrong_accusation_rate_vs_{opp}", row["wrong_accusation_rate"], timesteps)
            lo, hi = row["ci95"]
            self._log(
                f"eval @ {timesteps} ({phase}) vs {ev.num_players - 1} {opp}: {row['win_rate']:.1%} [{lo:.1%}, {hi:.1%}], "
                f"wrong accusations {row['wrong_accusation_rate']:.1%}"
            )
        self.writer.flush()
        atomic_write_text(os.path.join(self.out, "eval.jsonl"), "".join(json.dumps(r) + "\n" for r in self.eval_rows))
        try:
            plot_curve(self.eval_rows, os.path.join(self.out, "curve.png"), self.cfg.name)
        except ImportError:  # matplotlib missing: the numbers are in eval.jsonl
            pass

    # ------------------------------------------------------------------ PPO
    def _vec_env(self) -> Any:
        import gymnasium as gym
        from stable_baselines3.common.vec_env import DummyVecEnv

        from .adapter import SingleLearnerEnv
        from .vec_env import GroupedSubprocVecEnv

        p = self.cfg.ppo
        factories = [self.factory_for(s) for s in p.opponents]
        counts = self.cfg.num_players
        rules = self.rules

        def make() -> SingleLearnerEnv:
            return SingleLearnerEnv(factories, num_players=counts, rules=rules, opponent_weights=p.opponent_weights)

        fns: list[Callable[[], gym.Env]] = [make] * p.n_envs
        if p.subprocess and p.n_envs > 1:
            return GroupedSubprocVecEnv(fns, n_workers=p.workers or None)
        return DummyVecEnv(fns)

    def ppo(self, net: Any) -> Any:
        p = self.cfg.ppo
        if p.timesteps <= 0:
            return net
        import torch
        from stable_baselines3.common.utils import set_random_seed

        from .sb3_policy import CluePolicy, CluePPO

        torch.set_num_threads(p.torch_threads)
        rollout = p.n_steps * p.n_envs
        chunk_steps = max(1, -(-p.checkpoint_every // rollout)) * rollout
        n_chunks = max(1, -(-p.timesteps // chunk_steps))
        env = self._vec_env()
        zip_path = os.path.join(self.ckpt, "ppo_latest.zip")
        state_path = os.path.join(self.ckpt, "state.json")
        done = 0
        try:
            if self.resume and os.path.exists(zip_path) and os.path.exists(state_path):
                with open(state_path, encoding="utf-8") as f:
                    done = int(json.load(f)["chunks"])
                model = CluePPO.load(zip_path, env=env, device="cpu")
                self._log(f"resume: PPO from chunk {done} ({model.num_timesteps} timesteps)")
            else:
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
                    tensorboard_log=os.path.join(self.out, "tb"),
                    seed=self.cfg.seed,
                    device="cpu",
                    verbose=0,
                )
                model.policy.net.load_state_dict(net.state_dict())  # type: ignore[union-attr]
            model.threads = (p.torch_threads, p.update_threads or os.cpu_count() or 1)
            bar = _ProgressBar(n_chunks * chunk_steps, done * chunk_steps, self.progress)
            for c in range(done, n_chunks):
                s = _seed_of(self.cfg.seed, 3, c)
                set_random_seed(s)
                model.set_random_seed(s)
                env.seed(s)
                model._last_obs = None  # reset the envs: a chunk starts fresh
                model.learn(
                    chunk_steps, callback=bar.callback(), reset_num_timesteps=False, tb_log_name="ppo", progress_bar=False
                )
                tmp = zip_path + ".tmp.zip"
                model.save(tmp)
                os.replace(tmp, zip_path)
                policy_path = os.path.join(self.ckpt, f"policy_{int(model.num_timesteps)}.pt")
                save_policy(policy_path, model.policy.net, {"phase": "ppo", "timesteps": int(model.num_timesteps)})
                atomic_write_text(state_path, json.dumps({"chunks": c + 1, "timesteps": int(model.num_timesteps)}))
                if (c + 1) % self.cfg.eval.every_checkpoints == 0 or c + 1 == n_chunks:
                    self._evaluate(policy_path, int(model.num_timesteps), "ppo")
            bar.close()
        finally:
            env.close()
        return model.policy.net

    # ------------------------------------------------------------------ accusation head
    def accusation(self) -> Any:
        """Record games and fit the accusation head (``None`` when ``accusation.games`` is 0).

        Chunks of recorded games are saved in ``accusation/`` as they finish; a resumed run keeps
        them and records only the missing ones (each chunk's games are fixed by the seed)."""
        a = self.cfg.accusation
        if a.games == 0:
            return None
        from tqdm import tqdm

        from .accusation_fit import (
            fit_head,
            load_trajectories,
            paired_gain,
            record_games,
            save_trajectories,
            stop_decisions,
        )

        d = os.path.join(self.out, "accusation")
        os.makedirs(d, exist_ok=True)
        entropy = _seed_of(self.cfg.seed, 5)
        trajs = []
        lineup_of: dict[int, int] = {}  # game seed -> line-up index
        bar = tqdm(total=a.games, unit="game", desc="accusation games", disable=not self.progress)
        for li, lineup in enumerate(a.lineups):
            factories = [self.factory_for(spec) for spec in lineup]
            mask = [not a.record or spec in a.record for spec in lineup]
            n_games = a.games // len(a.lineups) + int(li < a.games % len(a.lineups))
            first = _seed_of(self.cfg.seed, 6, li) % 2**40
            for c, start in enumerate(range(0, n_games, a.chunk_games)):
                path = os.path.join(d, f"lineup{li}_chunk{c:04d}.npz")
                seeds = [first + i for i in range(start, min(n_games, start + a.chunk_games))]
                if os.path.exists(path):
                    part = load_trajectories(path)
                else:
                    part = record_games(factories, self.rules, seeds, entropy, workers=self.workers, record=mask)
                    save_trajectories(path, part)
                trajs += part
                lineup_of.update((s, li) for s in seeds)
                bar.update(len(seeds))
        bar.close()
        kw = dict(hidden=a.hidden, iterations=a.iterations, epochs=a.epochs, lr=a.lr, weight_decay=a.weight_decay)
        report: dict[str, Any] = {"trajectories": len(trajs), "games": a.games}
        if a.held_out > 0:
            rng = np.random.default_rng(_seed_of(self.cfg.seed, 7))
            held = {g for g in sorted({t.game for t in trajs}) if rng.random() < a.held_out}
            train = [t for t in trajs if t.game not in held]
            test = [t for t in trajs if t.game in held]
            probe = fit_head(train, seed=self.cfg.seed, log=self._log, held_out=test, **kw)  # type: ignore[arg-type]
            gain, half = paired_gain(test, stop_decisions(probe, test))
            report.update(held_out_games=len(held), held_out_gain=gain, held_out_gain_ci95=[gain - half, gain + half])
            self._log(f"accusation head: held-out gain over waiting for proof {gain:+.2%} ± {half:.2%} ({len(test)} seat-games)")
            by_lineup = []
            for li, lineup in enumerate(a.lineups):
                part = [t for t in test if lineup_of.get(t.game) == li]
                if len(part) < 2:
                    continue
                g, h = paired_gain(part, stop_decisions(probe, part))
                by_lineup.append({"lineup": list(lineup), "seat_games": len(part), "gain": g, "ci95": [g - h, g + h]})
                self._log(f"  line-up {li} {','.join(lineup)}: {g:+.2%} ± {h:.2%} ({len(part)} seat-games)")
            report["held_out_by_lineup"] = by_lineup
        net = fit_head(trajs, seed=self.cfg.seed, log=self._log, **kw)  # type: ignore[arg-type]
        atomic_write_text(os.path.join(d, "fit.json"), json.dumps(report, indent=2))
        return net

    # ------------------------------------------------------------------ all
    def run(self) -> str:
        """Train; returns the path of the final policy file."""
        from .network import CluePolicyNet

        self._prepare()
        import torch

        torch.manual_seed(_seed_of(self.cfg.seed, 0))
        net = CluePolicyNet(**self.cfg.net.__dict__)
        t0 = time.time()
        if self.cfg.init:
            if not os.path.isfile(self.cfg.init):
                raise FileNotFoundError(
                    f"init: policy file {self.cfg.init!r} does not exist (train it first: see the config's comment)"
                )
            net, _ = load_policy(self.cfg.init)  # CheckpointError (a ValueError) names the problem
            self._log(f"starting from {self.cfg.init} (no imitation)")
            if not self.resume or not self.eval_rows:
                self._evaluate(self.cfg.init, 0, "init")
        else:
            net = self.imitation(net)
        net = self.ppo(net)
        head = self.accusation()
        final = os.path.join(self.out, "policy.pt")
        with open(os.path.join(self.out, "run.json"), encoding="utf-8") as f:
            run = json.load(f)
        meta = {
            "name": self.cfg.name,
            "command": " ".join(self.command),
            "config": self.cfg.to_dict(),
            "commit": run.get("commit"),
            "versions": run.get("versions"),
            "train_seconds_this_session": round(time.time() - t0, 1),
        }
        save_policy(final, net, meta, accusation=head)
        if head is not None:
            self._evaluate(final, self.cfg.ppo.timesteps, "accusation")
        if self._writer is not None:
            self._writer.close()
        return final


class _ProgressBar:
    """tqdm over PPO timesteps with the recent win and wrong-accusation rates."""

    def __init__(self, total: int, start: int, enabled: bool) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=total, initial=start, unit="step", desc="PPO", disable=not enabled, smoothing=0.05)
        self.wins: deque[float] = deque(maxlen=200)
        self.wrong: deque[float] = deque(maxlen=200)

    def callback(self) -> Any:
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


def plot_curve(rows: list[dict[str, Any]], path: str, title: str) -> None:
    """Win rate against each baseline (with 95% intervals) and wrong-accusation rate over timesteps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..fileio import figure_png, write_output

    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    players = int(rows[0].get("num_players", 4)) if rows else 4
    for opp in dict.fromkeys(r["opponent"] for r in rows):
        rs = [r for r in rows if r["opponent"] == opp]
        x = [r["timesteps"] for r in rs]
        y = [r["win_rate"] for r in rs]
        lo = [r["win_rate"] - r["ci95"][0] for r in rs]
        hi = [r["ci95"][1] - r["win_rate"] for r in rs]
        ax.errorbar(x, y, yerr=[lo, hi], marker="o", capsize=3, label=f"vs {players - 1} {opp}")
        ax2.plot(x, [r["wrong_accusation_rate"] for r in rs], marker="o", label=f"vs {players - 1} {opp}")
    ax.axhline(1 / players, color="grey", linestyle="--", linewidth=1, label=f"fair share ({players} players)")
    ax.set_ylim(0, 1)
    ax.set_xlabel("PPO timesteps (0 = before PPO)")
    ax.set_ylabel("win rate")
    ax.set_title(f"{title}: win rate")
    ax.legend(fontsize=8)
    ax2.set_ylim(0, max(0.1, max((r["wrong_accusation_rate"] for r in rows), default=0) * 1.2))
    ax2.set_xlabel("PPO timesteps (0 = before PPO)")
    ax2.set_ylabel("wrong accusations per game")
    ax2.set_title("wrong-accusation rate")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    # rendered in memory, then written atomically for a regular or new file and straight through
    # for anything else (a symlink, a FIFO, /dev/stdout): never a PATH.tmp.png renamed over it
    write_output(path, figure_png(fig, dpi=100), prefix=".curve.")


__all__ = ["Trainer", "plot_curve", "git_commit", "package_versions", "atomic_write_text", "atomic_torch_save"]
