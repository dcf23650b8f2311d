"""A training run: imitation of a scripted teacher (with DAgger), MaskablePPO fine-tuning, the
accusation head's fit. :class:`Trainer` checks, prepares and runs it; each stage is its own module
(:mod:`~clue_env.training.imitation_stage`, :func:`~clue_env.training.run_support.run_ppo` on the
config's backend, :mod:`~clue_env.training.accusation_stage`), the run directory's records are read
by :mod:`~clue_env.training.run_record` and the learning curve drawn by :mod:`~clue_env.training.curves`.

The run directory holds everything needed to reproduce and resume it::

    config.yaml  run.json (seed, git commit, package versions, command)
    checkpoints/imitation.pt        policy after imitation (skipped on --resume)
    checkpoints/ppo_latest.pt       PPO state (weights, optimizer, how many chunks) at the last checkpoint
    checkpoints/state.json          how far PPO got (a summary for people; --resume reads ppo_latest.pt)
    checkpoints/policy_<steps>.pt   the policy at each PPO checkpoint
    accusation/*.npz  fit.json      recorded games for the accusation head (kept on --resume), its fit
    policy.pt                       the final policy file (clue_env.policy.checkpoint)
    eval.jsonl  curve.png           periodic evaluation against the baselines
    tb/                             TensorBoard logs

PPO runs in chunks of ``ppo.checkpoint_every`` timesteps (:class:`~clue_env.training.sb3_backend.SB3Backend`
or :class:`~clue_env.training.rllib_backend.RLlibBackend`). On SB3 each chunk reseeds the environments,
torch and the action sampling from ``(seed, chunk)``, so a run resumed from its last checkpoint
continues exactly as an uninterrupted one (episodes in flight at a chunk boundary are dropped, in
both). A checkpoint is one file (weights, optimizer state, chunk count) written atomically, so an
interruption at any point leaves it whole. Resuming reads only tensors and numbers from it and
rebuilds the model from the config: a run directory is data, never code, and every file of it is read
within bounds. Agents are injected (``factory_for(spec)`` and ``evaluate``): ``clue_env`` never
imports ``agents``. :meth:`Trainer.validate` makes every check that can fail (the output directory,
the resumed run's record and checkpoints, the ``init`` file, every agent spec at every player count
it is used with) before any work and before anything is written.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import time
from collections.abc import Callable
from typing import Any

import yaml

from ..engine.config import RulesConfig, load_rules
from ..engine.errors import ConfigError
from ..policy.checkpoint import CheckpointError, load_policy, read_policy_file, save_policy
from .accusation_stage import run_accusation
from .config import TrainConfig, TrainConfigError
from .curves import plot_curve
from .imitation import ActorFactory
from .imitation_stage import run_imitation
from .ppo_checkpoint import read_ppo_checkpoint
from .run_record import git_commit, package_versions, read_eval_log, read_run_record, run_config
from .run_support import Backend, atomic_write_text, run_ppo, seed_of
from .sb3_backend import LEGACY_PPO_CHECKPOINT, PPO_CHECKPOINT, SB3Backend

FactoryFor = Callable[[str], ActorFactory]
#: evaluate(policy_path, opponent_spec, num_players, games, seed, agent_seed) -> tournament summary;
#: game g is reset with ``seed + g`` and the agents' seeds are children of ``agent_seed``
Evaluate = Callable[[str, str, int, int, int, int], dict[str, Any]]


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
        ray_address: str | None = None,
    ) -> None:
        self.cfg = cfg
        #: backend rllib: the Ray cluster to join (``auto`` or HOST:PORT), or None for a local Ray of the run's own
        self.ray_address = ray_address
        self.out = out
        self.factory_for = factory_for
        self.evaluate_fn = evaluate
        self.resume = resume
        self.progress = progress
        self.command = command or sys.argv
        self.workers = max(1, int(workers))
        try:
            self.rules: RulesConfig = load_rules(cfg.rules)
        except ConfigError as e:
            raise TrainConfigError(f"rules: {e}") from None
        self.ckpt = os.path.join(out, "checkpoints")
        self.eval_rows: list[dict[str, Any]] = []
        self._writer: Any = None
        p = cfg.ppo
        rollout = p.n_steps * p.n_envs
        #: timesteps per PPO chunk (a whole number of rollouts), and chunks to reach ppo.timesteps
        self.chunk_steps = max(1, -(-p.checkpoint_every // rollout)) * rollout
        self.n_chunks = max(1, -(-p.timesteps // self.chunk_steps))
        #: entropy of the evaluation agents' seeds: fresh per run, recorded in run.json (see evaluate_policy)
        self.eval_agent_seed: int | None = None
        self._validated = False
        self._run_record: dict[str, Any] | None = None
        self._init_net: Any = None
        self._resume_ppo: tuple[str, dict[str, Any]] | None = None

    # ------------------------------------------------------------------ checks before any work
    def validate(self) -> None:
        """Every check that can fail before any work is done and before anything is written: the
        output directory, the resumed run (its record, config and checkpoint), the ``init`` policy
        file and every agent spec of the config at every player count it is used with. Raises
        :class:`TrainConfigError` (a spec, an unreadable ``init`` file), :class:`CheckpointError` (a
        resumed run's checkpoint), ``FileExistsError``, ``FileNotFoundError`` or ``ValueError``, each
        saying what to do; :meth:`run` calls it first."""
        self._check_out()
        if self.resume:
            self._check_resume()
        if self.cfg.init:
            if not os.path.isfile(self.cfg.init):
                raise FileNotFoundError(
                    f"init: policy file {self.cfg.init!r} does not exist (train it first: see the config's comment)"
                )
            try:
                self._init_net = load_policy(self.cfg.init)[0]
            except CheckpointError as e:  # it names the problem; the config key is named here
                raise TrainConfigError(f"init: {e}") from None
            if getattr(self._init_net, "room_values", 0) and (self.cfg.imitates() or self.cfg.ppo.timesteps > 0):
                # an accusation-only run keeps the network as it is (its games are played by agents, which
                # compute the room values themselves); imitation and PPO would have to feed them to the network
                raise TrainConfigError(
                    f"init: {self.cfg.init!r} reads the planner's room values, which train.py's imitation and PPO "
                    "stages do not compute; such a network is fitted by a recipe's room_values or refit_scores stage "
                    "(configs/recipes/, docs/training.md). "
                    "A run with only an accusation stage (imitation off, ppo.timesteps 0) may start from it"
                )
        self._check_specs()
        self._validated = True

    def _check_out(self) -> None:
        out = os.path.abspath(self.out)
        if os.path.exists(out) and not os.path.isdir(out):
            raise ValueError(f"--out {self.out!r} is a file, not a directory: give a run directory (it is created if missing)")
        parent = out
        while not os.path.exists(parent):
            parent = os.path.dirname(parent)
        if not os.path.isdir(parent):
            raise ValueError(f"--out {self.out!r} cannot be created: {parent!r} is a file, not a directory")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise ValueError(f"--out {self.out!r}: {parent!r} is not writable")
        marker = os.path.join(self.out, "run.json")
        if os.path.exists(marker) and not self.resume:
            raise FileExistsError(f"{self.out!r} already holds a run: pass --resume to continue it, or choose another --out")
        if self.resume and not os.path.exists(marker):
            raise FileNotFoundError(f"nothing to resume in {self.out!r} (no run.json); start the run without --resume")

    def _check_resume(self) -> None:
        try:
            self._run_record = read_run_record(self.out)
            self.eval_rows = read_eval_log(self.out)
        except ValueError as e:
            raise ValueError(f"--resume: {e}") from None
        old = run_config(self.out)
        if old is not None:
            a, b = old.to_dict(), self.cfg.to_dict()
            a["ppo"].pop("timesteps")
            b["ppo"].pop("timesteps")
            a.pop("rllib", None)  # the RLlib layout (env runners, learners) may change between sessions
            b.pop("rllib", None)
            diff = [f"{k}.{kk}" for k in a if isinstance(a[k], dict) for kk in a[k] if a[k][kk] != b[k].get(kk)]
            diff += [k for k in a if not isinstance(a[k], dict) and a[k] != b[k]]
            if diff:
                raise ValueError(
                    f"--resume: the config differs from the run's ({os.path.join(self.out, 'config.yaml')}) in {diff}; "
                    "only ppo.timesteps (and the rllib layout) may change (pass --timesteps)"
                )
        imitation = os.path.join(self.ckpt, "imitation.pt")
        if self.cfg.imitates() and os.path.exists(imitation):
            load_policy(imitation)  # a damaged file is refused now, not after the run record is rewritten
        if self.cfg.ppo.timesteps > 0 and self.cfg.backend == "rllib":
            from .rllib_backend import CKPT_DIR, read_checkpoint, read_progress

            progress = read_progress(self.ckpt)
            if progress is not None:  # the state RLlib would restore, checked as data now
                try:
                    read_checkpoint(os.path.join(self.ckpt, CKPT_DIR, "latest"))
                except ValueError as e:
                    raise ValueError(f"--resume: {e}") from None
            if progress is not None and progress["chunks"] > self.n_chunks:
                raise ValueError(
                    f"--resume: the run has trained {progress['timesteps']} PPO timesteps, more than the target "
                    f"{self.cfg.ppo.timesteps}: pass a larger --timesteps, or use the policy files in {self.ckpt!r}"
                )
        elif self.cfg.ppo.timesteps > 0:
            for name in (PPO_CHECKPOINT, LEGACY_PPO_CHECKPOINT):
                path = os.path.join(self.ckpt, name)
                if os.path.exists(path):
                    data = read_ppo_checkpoint(path, self.chunk_steps)
                    if data["chunks"] > self.n_chunks:
                        raise ValueError(
                            f"--resume: the run has trained {data['timesteps']} PPO timesteps, more than the target "
                            f"{self.cfg.ppo.timesteps}: pass a larger --timesteps, or use the policy files in {self.ckpt!r}"
                        )
                    self._resume_ppo = (path, data)
                    break

    def _check_specs(self) -> None:
        """Build every agent of the config once, at each player count it plays with (a bad spec or
        parameter is found now, not in a worker after the imitation stage)."""
        cfg = self.cfg
        uses: list[tuple[str, str, int]] = [("ppo.opponents", s, n) for s in cfg.ppo.opponents for n in cfg.num_players]
        uses += [("eval.opponents", s, cfg.eval.num_players) for s in cfg.eval.opponents]
        if cfg.imitates():
            uses += [("imitation.lineups", s, len(lu)) for lu in cfg.imitation.lineups for s in lu]
        if cfg.accusation.games > 0:
            uses += [("accusation.lineups", s, len(lu)) for lu in cfg.accusation.lineups for s in lu]
        torch = sys.modules.get("torch")
        threads = torch.get_num_threads() if torch is not None else None
        seen: set[tuple[str, int]] = set()
        try:
            for key, spec, n in uses:
                if (spec, n) in seen:
                    continue
                seen.add((spec, n))
                if spec.strip().partition(":")[0] == "human":
                    raise TrainConfigError(f"{key}: agent spec {spec!r}: a training run has no one to ask for moves")
                try:
                    self.factory_for(spec)(n - 1, n, self.rules, 0)
                except (ValueError, TypeError, OSError) as e:
                    raise TrainConfigError(f"{key}: agent spec {spec!r} cannot play ({n} players): {e}") from None
        finally:
            torch = sys.modules.get("torch")
            if threads is not None and torch is not None:
                torch.set_num_threads(threads)  # building a ppo agent sets one thread for itself

    # ------------------------------------------------------------------ run directory
    def _prepare(self) -> None:
        os.makedirs(self.ckpt, exist_ok=True)
        atomic_write_text(os.path.join(self.out, "config.yaml"), yaml.safe_dump(self.cfg.to_dict(), sort_keys=False))
        info = {
            "name": self.cfg.name,
            "seed": self.cfg.seed,
            "target_timesteps": self.cfg.ppo.timesteps,
            "commit": git_commit(os.path.dirname(os.path.abspath(__file__))),
            "versions": package_versions(),
            "command": self.command,
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        prev = self._run_record
        if prev is not None:
            prev.setdefault("resumed", []).append(info)
            prev["target_timesteps"] = self.cfg.ppo.timesteps
            info = prev
        seed = info.get("eval_agent_seed")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            seed = secrets.randbits(63)  # secret entropy: see evaluate_policy
        info["eval_agent_seed"] = self.eval_agent_seed = seed
        atomic_write_text(os.path.join(self.out, "run.json"), json.dumps(info, indent=2))

    @property
    def writer(self) -> Any:
        if self._writer is None:
            from torch.utils.tensorboard import SummaryWriter

            self._writer = SummaryWriter(os.path.join(self.out, "tb", "run"))
        return self._writer

    def log(self, msg: str) -> None:
        """A line of progress: through ``tqdm.write``, which lifts any open progress bar (the PPO
        bar is open while its evaluations run) above the line and redraws it below, instead of
        gluing the line onto the bar."""
        if self.progress:
            from tqdm import tqdm

            tqdm.write(msg, file=sys.stdout)
            sys.stdout.flush()

    # ------------------------------------------------------------------ imitation
    def imitation(self, net: Any) -> Any:
        """The imitation stage (:func:`~clue_env.training.imitation_stage.run_imitation`) into ``net``; returns it."""
        return run_imitation(self, net)

    # ------------------------------------------------------------------ evaluation
    def evaluate_policy(self, policy_path: str, timesteps: int, phase: str) -> None:
        if self.evaluate_fn is None:
            return
        ev = self.cfg.eval
        # The agents' seeds come from secret entropy drawn when the run started (run.json's
        # eval_agent_seed), not from the public eval.seed: an agent that knows its own seed must not
        # be able to find its game, and so the deal, by searching how that seed was made.
        assert self.eval_agent_seed is not None
        for opp in ev.opponents:
            s = self.evaluate_fn(policy_path, opp, ev.num_players, ev.games, ev.seed, self.eval_agent_seed)
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
                "seed": ev.seed,
                "agent_seed": self.eval_agent_seed,
            }
            self.eval_rows.append(row)
            self.writer.add_scalar(f"eval/win_rate_vs_{opp}", row["win_rate"], timesteps)
            self.writer.add_scalar(f"eval/wrong_accusation_rate_vs_{opp}", row["wrong_accusation_rate"], timesteps)
            lo, hi = row["ci95"]
            self.log(
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
    def ppo(self, net: Any) -> Any:
        """The PPO stage (:func:`~clue_env.training.run_support.run_ppo`) on the config's backend."""
        if self.cfg.ppo.timesteps <= 0:
            return net
        backend: Backend
        if self.cfg.backend == "rllib":  # Ray RLlib (the [ray] extra), imported only when it runs
            from .rllib_backend import RLlibBackend

            backend = RLlibBackend(self, self.ray_address)
        else:
            backend = SB3Backend(self, self._resume_ppo)
        return run_ppo(self, backend, net)

    # ------------------------------------------------------------------ accusation head
    def accusation(self) -> Any:
        """The accusation stage (:func:`~clue_env.training.accusation_stage.run_accusation`): the fitted
        head, or ``None`` when ``accusation.games`` is 0."""
        return run_accusation(self)

    # ------------------------------------------------------------------ all
    def run(self) -> str:
        """Train; returns the path of the final policy file."""
        from ..policy.network import CluePolicyNet

        if not self._validated:
            self.validate()
        self._prepare()
        import torch

        torch.manual_seed(seed_of(self.cfg.seed, 0))
        net = CluePolicyNet(**self.cfg.net.__dict__)
        t0 = time.time()
        if self.cfg.init:
            net = self._init_net
            self.log(f"starting from {self.cfg.init}" + (" (imitation from it)" if self.cfg.imitates() else " (no imitation)"))
            if not self.resume or not self.eval_rows:
                self.evaluate_policy(self.cfg.init, 0, "init")
        net = self.imitation(net)
        net = self.ppo(net)
        head = fitted = self.accusation()
        if head is None and self.cfg.init and self.cfg.imitates():
            head = read_policy_file(self.cfg.init).get("accusation")  # the init's head, as the DAgger driver played it
        final = os.path.join(self.out, "policy.pt")
        run = read_run_record(self.out)
        meta = {
            "name": self.cfg.name,
            "command": " ".join(self.command),
            "config": self.cfg.to_dict(),
            "commit": run.get("commit"),
            "versions": run.get("versions"),
            "train_seconds_this_session": round(time.time() - t0, 1),
        }
        save_policy(final, net, meta, accusation=head)
        if fitted is not None:
            self.evaluate_policy(final, self.cfg.ppo.timesteps, "accusation")
        if self._writer is not None:
            self._writer.close()
        return final


__all__ = ["Trainer"]
