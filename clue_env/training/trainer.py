"""A training run: imitation of a scripted teacher (with DAgger), then MaskablePPO fine-tuning.

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

PPO runs in chunks of ``ppo.checkpoint_every`` timesteps, through the one chunk loop of
:func:`~clue_env.training.run_support.run_ppo` on the config's backend
(:class:`~clue_env.training.sb3_backend.SB3Backend` or
:class:`~clue_env.training.rllib_backend.RLlibBackend`). On SB3 each chunk reseeds the environments,
torch and the action sampling from ``(seed, chunk)``, so an interrupted run resumed from its
last checkpoint continues exactly as an uninterrupted one (episodes in flight at a chunk
boundary are dropped, in both). A checkpoint is one file holding the weights, the optimizer state
and the chunk count, written atomically, so an interruption at any point leaves a consistent pair.
Resuming reads only tensors and numbers from it (``torch.load(weights_only=True)``, and an RLlib
checkpoint's msgpack state checked as plain data) and rebuilds the model from the config: a run
directory is data, never code. Every file of it is read within bounds (size, nesting, memory). Agents are injected
(``factory_for(spec)`` and ``evaluate``): ``clue_env`` never imports ``agents``.

:meth:`Trainer.validate` makes every check that can fail (the output directory, the resumed run's
record and checkpoints, the ``init`` file, every agent spec at every player count it is used with)
before any work and before anything is written.
"""

from __future__ import annotations

import json
import os
import platform
import secrets
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
import yaml

from ..engine.config import RulesConfig, load_rules
from ..engine.errors import ConfigError
from ..fileio import InputError, finite, loads_json, one_line, read_regular
from ..policy.checkpoint import CheckpointError, atomic_torch_save, load_policy, read_policy_file, save_policy, zip_members
from .config import TrainConfig, TrainConfigError, load_train_config
from .imitation import ActorFactory, Batch, fit, phase_weights, record_games
from .ppo_checkpoint import read_ppo_checkpoint
from .run_support import Backend, atomic_write_text, run_ppo, seed_of
from .sb3_backend import LEGACY_PPO_CHECKPOINT, PPO_CHECKPOINT, SB3Backend

FactoryFor = Callable[[str], ActorFactory]
#: evaluate(policy_path, opponent_spec, num_players, games, seed, agent_seed) -> tournament summary;
#: game g is reset with ``seed + g`` and the agents' seeds are children of ``agent_seed``
Evaluate = Callable[[str, str, int, int, int, int], dict[str, Any]]

#: the largest run record (run.json) and evaluation log (eval.jsonl) read, and the most rows the log may hold
RUN_RECORD_LIMIT = 16 << 20
EVAL_LOG_LIMIT = 64 << 20
EVAL_MAX_ROWS = 100_000
#: the largest chunk of recorded games (accusation/*.npz) read, and the most its arrays may unpack to
NPZ_FILE_LIMIT = 256 << 20
NPZ_UNPACKED_LIMIT = 1 << 30


def read_run_record(out: str) -> dict[str, Any]:
    """The run record ``out/run.json`` (a JSON object), read within bounds (:mod:`clue_env.fileio`);
    ``ValueError`` naming the file and the problem, in one line."""
    path = os.path.join(out, "run.json")
    try:
        record = loads_json(read_regular(path, RUN_RECORD_LIMIT, "run record"), repr(path))
    except InputError as e:
        raise ValueError(f"{e}; the run directory is damaged") from None
    if not isinstance(record, dict):
        raise ValueError(f"{path!r} is not a run record (a JSON object); the run directory is damaged")
    return record


def read_eval_log(out: str) -> list[dict[str, Any]]:
    """The rows (JSON objects) of ``out/eval.jsonl``, none if it is missing, read within bounds: at
    most ``EVAL_LOG_LIMIT`` bytes in at most ``EVAL_MAX_ROWS`` lines, each line's JSON bounded as
    :func:`~clue_env.fileio.loads_json` bounds it. ``ValueError`` naming the file, the line and the
    problem, in one line."""
    path = os.path.join(out, "eval.jsonl")
    if not os.path.lexists(path):
        return []
    try:
        raw = read_regular(path, EVAL_LOG_LIMIT, "evaluation log")
        if raw.count(b"\n") > EVAL_MAX_ROWS:
            raise InputError(f"{path!r} has more than {EVAL_MAX_ROWS:,} lines")
        rows = [loads_json(ln, f"{path!r} line {i}") for i, ln in enumerate(raw.split(b"\n"), 1) if ln.strip()]
    except InputError as e:
        raise ValueError(f"{e}; move it away to start its rows afresh") from None
    return [r for r in rows if isinstance(r, dict)]


def check_games_chunk(path: str) -> None:
    """Refuse, with a ``ValueError`` naming it, a chunk of recorded games (``accusation/*.npz``) that
    is not a regular file of at most ``NPZ_FILE_LIMIT`` bytes, not a zip archive, or whose arrays
    declare more than ``NPZ_UNPACKED_LIMIT`` bytes in all. ``np.load`` reads a compressed array no
    further than its declared size, so a deflate bomb is refused before anything is unpacked."""
    todo = "move it away to record that chunk again"
    try:
        members = zip_members(read_regular(path, NPZ_FILE_LIMIT, "recorded games"))
    except InputError as e:
        raise ValueError(f"{e}; {todo}") from None
    except ValueError as e:
        raise ValueError(f"recorded games {path!r}: {e}; {todo}") from None
    unpacked = sum(m.file_size for m in members)
    if unpacked > NPZ_UNPACKED_LIMIT:
        raise ValueError(f"recorded games {path!r} would unpack to {unpacked:,} bytes, more than {NPZ_UNPACKED_LIMIT:,}; {todo}")


def run_config(out: str) -> TrainConfig | None:
    """The config recorded in the run directory ``out`` (``config.yaml``, with the overrides the run
    was started or last resumed with, e.g. its ``--timesteps`` target), or ``None`` if it has none."""
    path = os.path.join(out, "config.yaml")
    if not os.path.isfile(path):
        return None
    try:
        return load_train_config(path)
    except TrainConfigError as e:
        raise ValueError(f"the run's recorded config {path!r} cannot be used ({e}); it is damaged") from None


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
    for name in ("clue-env", "torch", "stable-baselines3", "sb3-contrib", "gymnasium", "pettingzoo", "numpy", "ray"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def _collect_chunk(args: tuple) -> Batch:
    lineups, games, rules, seed, gamma, driver = args
    return record_games(lineups, games, rules, seed, gamma, driver)


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
        """Behaviour cloning (and DAgger rounds) into ``net``; returns it.

        From scratch: ``games`` teacher games, a fit, then each DAgger round. With ``init`` and
        ``from_init``, ``net`` is the init policy: the teacher games (if any) and their fit, then the
        DAgger rounds, each driven by the policy so far with the init file's accusation head, so the
        states labelled are those the shipped agent reaches. Each fit weighs decisions by phase.
        """
        im = self.cfg.imitation
        path = os.path.join(self.ckpt, "imitation.pt")
        if self.resume and os.path.exists(path):
            self.log(f"resume: imitation already done ({path})")
            return load_policy(path)[0]
        if not self.cfg.imitates():
            return net
        import torch

        head = read_policy_file(self.cfg.init).get("accusation") if self.cfg.init else None
        by_phase = im.phase_weights()
        if im.weighted():
            self.log("imitation: phase weights " + ", ".join(f"{k} {v:g}" for k, v in by_phase.items()))

        def weights(data: Batch) -> np.ndarray | None:
            return phase_weights(data, by_phase) if im.weighted() else None

        torch.manual_seed(seed_of(self.cfg.seed, 1))
        step = [0]

        def log(stats: dict[str, float]) -> None:
            step[0] += 1
            for k, v in stats.items():
                if k != "epoch":
                    self.writer.add_scalar(f"imitation/{k}", v, step[0])
            self.log("  " + ", ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in stats.items()))

        parts: list[Batch] = []
        if im.games > 0:
            data = self._collect(range(im.games), seed_of(self.cfg.seed, 2), None, "imitation games")
            self.log(f"imitation: {len(data)} decisions from {im.games} games")
            fit(net, data, epochs=im.epochs, batch_size=im.batch_size, lr=im.lr, value_coef=im.value_coef,
                seed=self.cfg.seed, log=log, weights=weights(data))  # fmt: skip
            parts.append(data)
        for r in range(im.dagger_rounds):
            tmp = os.path.join(self.ckpt, f"dagger_{r}.pt")
            save_policy(tmp, net, {"phase": f"dagger round {r}"}, accusation=head)
            start = im.games + r * im.dagger_games
            parts.append(
                self._collect(
                    range(start, start + im.dagger_games),
                    seed_of(self.cfg.seed, 2),
                    self.factory_for(f"ppo:{tmp}"),
                    f"DAgger round {r + 1}",
                )
            )
            data = Batch.concat(parts)
            self.log(f"DAgger round {r + 1}: {len(data)} decisions")
            fit(
                net,
                data,
                epochs=im.dagger_epochs,
                batch_size=im.batch_size,
                lr=im.lr / 3,  # a gentler refit: the net starts from the last fit
                value_coef=im.value_coef,
                seed=self.cfg.seed + r + 1,
                log=log,
                weights=weights(data),
            )
        decisions = sum(len(p) for p in parts)
        save_policy(path, net, {"phase": "imitation", "decisions": decisions}, accusation=head)
        self.evaluate_policy(path, 0, "imitation")
        return net

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
        """Record games and fit the accusation head (``None`` when ``accusation.games`` is 0).

        Chunks of recorded games are saved in ``accusation/`` as they finish; a resumed run keeps
        them and records only the missing ones (each chunk's games are fixed by the seed)."""
        a = self.cfg.accusation
        if a.games == 0:
            return None
        from tqdm import tqdm

        from .accusation_fit import (
            as_played,
            fit_head,
            held_out_games,
            load_trajectories,
            paired_gain,
            record_games,
            save_trajectories,
            stop_decisions,
        )

        d = os.path.join(self.out, "accusation")
        os.makedirs(d, exist_ok=True)
        entropy = seed_of(self.cfg.seed, 5)
        trajs = []
        lineup_of: dict[int, int] = {}  # game seed -> line-up index
        bar = tqdm(total=a.games, unit="game", desc="accusation games", disable=not self.progress)
        # Chunks are recorded round by round (chunk 0 of every line-up, then chunk 1, ...), so that a run
        # stopped part-way holds every line-up in equal measure; the trajectories are then put together in
        # line-up order, the same whatever order the chunks were recorded in.
        plan: list[tuple[int, int, list[int]]] = []  # (chunk, line-up, seeds)
        for li in range(len(a.lineups)):
            n_games = a.games // len(a.lineups) + int(li < a.games % len(a.lineups))
            first = seed_of(self.cfg.seed, 6, li) % 2**40
            for c, start in enumerate(range(0, n_games, a.chunk_games)):
                plan.append((c, li, [first + i for i in range(start, min(n_games, start + a.chunk_games))]))
        parts: dict[tuple[int, int], list[Any]] = {}
        for c, li, seeds in sorted(plan, key=lambda p: (p[0], p[1])):
            lineup = a.lineups[li]
            path = os.path.join(d, f"lineup{li}_chunk{c:04d}.npz")
            if os.path.exists(path):
                check_games_chunk(path)  # within bounds before np.load unpacks it
                try:
                    part = load_trajectories(path, seeds)  # a chunk recorded for other games is refused
                except Exception as e:  # a damaged archive: zipfile, numpy and KeyError have their own kinds
                    if isinstance(e, ValueError) and repr(path) in str(e):
                        raise  # load_trajectories' own message
                    raise ValueError(
                        f"recorded games {path!r} cannot be read ({type(e).__name__}: {one_line(str(e), 200)}); "
                        "move it away to record that chunk again"
                    ) from None
            else:
                factories = [self.factory_for(spec) for spec in lineup]
                mask = [not a.record or spec in a.record for spec in lineup]
                part = record_games(factories, self.rules, seeds, entropy, workers=self.workers, record=mask, features=a.features)
                save_trajectories(path, part, seeds)
            parts[(li, c)] = part
            bar.update(len(seeds))
        for c, li, seeds in sorted(plan, key=lambda p: (p[1], p[0])):
            trajs += parts[(li, c)]
            lineup_of.update((s, li) for s in seeds)
        bar.close()
        kw = dict(
            hidden=a.hidden, iterations=a.iterations, epochs=a.epochs, lr=a.lr, weight_decay=a.weight_decay, members=a.members
        )
        report: dict[str, Any] = {"trajectories": len(trajs), "games": a.games, "balance": a.balance}

        def weights(ts: list[Any]) -> list[float] | None:
            if not a.balance:
                return None
            per = Counter(lineup_of[t.game] for t in ts)
            return [1.0 / per[lineup_of[t.game]] for t in ts]

        if a.held_out > 0:
            held = held_out_games(trajs, self.cfg.seed, a.held_out)
            train = [t for t in trajs if t.game not in held]
            test = [t for t in trajs if t.game in held]
            curve: list[dict[str, float]] = []
            probe = fit_head(
                train,
                seed=self.cfg.seed,
                log=self.log,
                held_out=test,
                weights=weights(train),
                history=curve,
                **kw,  # type: ignore[arg-type]
            )
            report["held_out_curve"] = curve
            test = as_played(probe, test)  # sets 4 and 6: right or wrong is the scorer's own pick
            gain, half = paired_gain(test, stop_decisions(probe, test))
            report.update(held_out_games=len(held), held_out_gain=gain, held_out_gain_ci95=[gain - half, gain + half])
            self.log(f"accusation head: held-out gain over waiting for proof {gain:+.2%} ± {half:.2%} ({len(test)} seat-games)")
            by_lineup = []
            for li, lineup in enumerate(a.lineups):
                part = [t for t in test if lineup_of.get(t.game) == li]
                if len(part) < 2:
                    continue
                g, h = paired_gain(part, stop_decisions(probe, part))
                by_lineup.append({"lineup": list(lineup), "seat_games": len(part), "gain": g, "ci95": [g - h, g + h]})
                self.log(f"  line-up {li} {','.join(lineup)}: {g:+.2%} ± {h:.2%} ({len(part)} seat-games)")
            report["held_out_by_lineup"] = by_lineup
        if a.held_out > 0 and not a.refit:
            net = probe  # the head the held-out figures describe
            report["shipped"] = "the head fitted on the training games (refit: false)"
        else:
            net = fit_head(trajs, seed=self.cfg.seed, log=self.log, weights=weights(trajs), **kw)  # type: ignore[arg-type]
            report["shipped"] = "refitted on every game"
        atomic_write_text(os.path.join(d, "fit.json"), json.dumps(finite(report), indent=2))  # NaN: null
        return net

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
