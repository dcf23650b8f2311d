"""The PPO stage on Ray RLlib (``backend: rllib``; the ``[ray]`` extra; docs/distributed.md).

The same stage as the SB3 path (:func:`~clue_env.training.run_support.run_ppo`'s chunk loop,
driving :class:`RLlibBackend`), on RLlib's new API stack: the single-learner adapter env (its
opponents played inside the env runners) seen through
:class:`~clue_env.training.rllib_module.MaskedObsEnv`, the project's network as
:class:`~clue_env.training.rllib_module.CluePolicyModule`, started from the imitation (or ``init``)
weights. The run directory is the SB3 path's, with RLlib's checkpoint and progress.json in
``checkpoints/rllib/latest/`` (written to a fresh directory renamed over it), ``checkpoints/state.json``
(how far PPO got) and ``rllib_placement.json`` (the node of each env runner).

The config's ``ppo`` hyper-parameters map onto RLlib's PPO as follows: ``learning_rate`` -> lr,
``gamma``, ``gae_lambda`` -> lambda_, ``clip_range`` -> clip_param, ``n_epochs`` -> num_epochs,
``batch_size`` -> minibatch_size, ``n_envs * n_steps`` (SB3's rollout) -> train_batch_size_per_learner,
``ent_coef`` -> entropy_coeff, ``vf_coef`` -> vf_loss_coeff, ``max_grad_norm`` -> grad_clip (global norm);
no KL penalty (use_kl_loss false, as SB3) and no value clipping (SB3's clip_range_vf None).
``target_kl`` (SB3's early stop of the epochs) has no RLlib counterpart and is ignored; RLlib
normalises advantages per train batch, SB3 per minibatch. ``n_envs``, ``workers``, ``subprocess``
are the SB3 vectoriser's: RLlib's layout is the ``rllib`` section.

Resume restores the learner (weights, optimizer) from the checkpoint and reseeds the env runners
from (seed, chunks done); unlike the SB3 path a resumed run is not step-for-step equal to an
uninterrupted one (env runners sample asynchronously).

The checkpoint is read as data, never code (:func:`read_checkpoint`): RLlib's restore would
``pickle.load`` a folder's ``.pkl`` state file where its ``.msgpack`` one is missing, and
msgpack_numpy's decoder unpickles an array of Python objects. So before RLlib reads anything the
whole tree is checked (bounded sizes; no links, no ``.pkl`` state, one ``.msgpack`` state file per
folder, every array in it of plain numbers), and RLlib restores from a private copy that holds the
checked ``.msgpack`` files only.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any

import numpy as np

from ..fileio import InputError, depth, loads_json, one_line, read_regular, short
from .run_support import ProgressBar, RunContext, atomic_write_text, run_ppo, seed_of

ENV_NAME = "clue_single_learner"
MODULE_ID = "default_policy"
#: the PPO checkpoint directory of a run (under checkpoints/) and its progress record
CKPT_DIR = "rllib"
PROGRESS = "progress.json"
#: the file RLlib writes beside each state file (pickled constructor arguments): its restore never
#: reads it, and it is never copied to the tree RLlib restores from
CTOR_FILE = "class_and_ctor_args.pkl"
#: bounds on an RLlib checkpoint: files and folders in it, bytes of one state file and of all of
#: them (the largest network's weights and optimizer moments fit with room to spare), bytes of a
#: JSON file, and how deeply a state nests
MAX_CHECKPOINT_ENTRIES = 1000
STATE_FILE_LIMIT = 1 << 30
CHECKPOINT_LIMIT = 2 << 30
JSON_FILE_LIMIT = 1 << 20
MAX_STATE_DEPTH = 64
#: the numpy dtype kinds a state's arrays may have: booleans, numbers, byte and text strings
_PLAIN_KINDS = "biufcSU"


def ray_version() -> str:
    import ray

    return str(ray.__version__)


class EnvCreator:
    """Builds the adapter env in an env runner (picklable: the opponents are agent-spec factories)."""

    def __init__(
        self,
        factories: Sequence[Callable[..., Any]],
        num_players: tuple[int, ...],
        rules: Any,
        opponent_weights: Sequence[float] | None,
        opponent_draw: str = "game",
    ) -> None:
        self.factories = list(factories)
        self.num_players = tuple(num_players)
        self.rules = rules
        self.opponent_weights = None if opponent_weights is None else list(opponent_weights)
        self.opponent_draw = opponent_draw

    def __call__(self, env_config: Any = None) -> Any:
        from .adapter import SingleLearnerEnv
        from .rllib_module import MaskedObsEnv

        env = SingleLearnerEnv(
            self.factories,
            num_players=self.num_players,
            rules=self.rules,
            opponent_weights=self.opponent_weights,
            opponent_draw=self.opponent_draw,
        )
        return MaskedObsEnv(env, salt=int(getattr(env_config, "worker_index", 0) or 0))


def _absolute_policy(spec: str) -> str:
    """``ppo:PATH`` with a relative PATH made absolute (an env runner's working directory may differ;
    on a cluster every node needs the file at that path)."""
    name, sep, rest = spec.partition(":")
    if name.strip() == "ppo" and sep and rest and not os.path.isabs(rest) and os.path.exists(rest):
        return f"ppo:{os.path.abspath(rest)}"
    return spec


def _callbacks_class() -> type:
    from ray.rllib.callbacks.callbacks import RLlibCallback

    class ClueCallbacks(RLlibCallback):
        """Per finished episode: win, wrong accusation and illegal action of the learner seat."""

        def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kw: Any) -> None:
            info = episode.get_infos(-1) or {}
            if metrics_logger is None:
                return
            metrics_logger.log_value("clue_win", float(bool(info.get("won", False))), reduce="mean", window=200)
            metrics_logger.log_value(
                "clue_wrong_accusation", float(bool(info.get("wrong_accusation", False))), reduce="mean", window=200
            )
            metrics_logger.log_value("clue_illegal", float(bool(info.get("illegal_action", False))), reduce="sum")

    return ClueCallbacks


def algo_config(trainer: RunContext, net: Any, seed: int) -> Any:
    """RLlib's PPOConfig for the run (see the module docstring for the mapping)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from .rllib_module import CluePolicyModule

    cfg = trainer.cfg
    p, r = cfg.ppo, cfg.rllib
    specs = [_absolute_policy(s) for s in p.opponents]
    factories = [trainer.factory_for(s) for s in specs]
    creator = EnvCreator(factories, cfg.num_players, trainer.rules, p.opponent_weights, p.opponent_draw)
    register_env(ENV_NAME, creator)
    rollout = p.n_envs * p.n_steps
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .environment(ENV_NAME)
        .framework("torch")
        .env_runners(
            num_env_runners=r.num_env_runners,
            num_envs_per_env_runner=r.envs_per_env_runner,
            num_cpus_per_env_runner=r.num_cpus_per_env_runner,
            rollout_fragment_length="auto",
        )
        .learners(
            num_learners=r.num_learners,
            num_cpus_per_learner=r.num_cpus_per_learner,
            num_gpus_per_learner=r.num_gpus_per_learner,
        )
        .training(
            lr=p.learning_rate,
            gamma=p.gamma,
            lambda_=p.gae_lambda,
            clip_param=p.clip_range,
            num_epochs=p.n_epochs,
            minibatch_size=min(p.batch_size, rollout),
            train_batch_size_per_learner=rollout,
            entropy_coeff=p.ent_coef,
            vf_loss_coeff=p.vf_coef,
            grad_clip=p.max_grad_norm,
            grad_clip_by="global_norm",
            use_kl_loss=False,
            kl_coeff=0.0,
            vf_clip_param=float("inf"),
        )
        .rl_module(rl_module_spec=RLModuleSpec(module_class=CluePolicyModule, model_config=net.config()))
        .callbacks(_callbacks_class())
        .fault_tolerance(restart_failed_env_runners=not r.fail_on_runner_error)
        .debugging(seed=seed, log_level="ERROR")
    )


@contextmanager
def ray_session(address: str | None, num_cpus: int) -> Iterator[None]:
    """Join the cluster at ``address`` (``auto`` or HOST:PORT), or start a local Ray of its own (its
    own temp dir; never the cluster Ray's default temp folder names) with ``num_cpus`` CPUs; shut
    down (and remove a local instance's temp dir) on the way out."""
    import ray

    if ray.is_initialized():  # a caller's session (tests): use it as it is
        yield
        return
    tmp = None
    if address:
        ray.init(address=address, log_to_driver=False, logging_level="ERROR")
    else:
        tmp = tempfile.mkdtemp(prefix="clue-ray-")
        ray.init(
            address="local",
            num_cpus=num_cpus or os.cpu_count() or 1,
            include_dashboard=False,
            _temp_dir=tmp,
            log_to_driver=False,
            logging_level="ERROR",
        )
    try:
        yield
    finally:
        ray.shutdown()
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def module_state(algo: Any) -> dict[str, Any]:
    """The learner's network weights as a CluePolicyNet state dict (torch tensors)."""
    import torch

    weights = algo.learner_group.get_weights(module_ids=[MODULE_ID])[MODULE_ID]
    out = {}
    for k, v in weights.items():
        if not k.startswith("net."):
            continue
        out[k[len("net.") :]] = torch.as_tensor(np.asarray(v)).clone()
    return out


def set_module_state(algo: Any, net: Any) -> None:
    """Start the learner and every env runner from ``net``'s weights."""
    weights = {f"net.{k}": v.detach().cpu().numpy() for k, v in net.state_dict().items()}
    algo.learner_group.set_weights({MODULE_ID: weights})
    algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group, inference_only=True)


def export_net(algo: Any, template: Any) -> Any:
    """A CluePolicyNet with the learner's weights (``template`` gives the sizes)."""
    from ..policy.network import CluePolicyNet

    net = CluePolicyNet(**template.config())
    net.load_state_dict(module_state(algo))
    net.eval()
    return net


def placement(algo: Any) -> list[dict[str, Any]]:
    """The node (id, IP) of every remote env runner."""
    import ray

    def where(_runner: Any) -> dict[str, Any]:
        import ray as _ray

        ctx = _ray.get_runtime_context()
        return {"node_id": ctx.get_node_id(), "ip": _ray.util.get_node_ip_address(), "pid": os.getpid()}

    rows = algo.env_runner_group.foreach_env_runner(where, local_env_runner=False)
    nodes = {n["NodeID"]: n for n in ray.nodes()}
    for i, row in enumerate(rows):
        row["runner"] = i + 1
        row["node_cpus"] = nodes.get(row["node_id"], {}).get("Resources", {}).get("CPU")
    return list(rows)


class _Refused(Exception):
    pass


def _array_problem(obj: dict[Any, Any]) -> str | None:
    """Why the msgpack_numpy array map ``obj`` is not an array of plain numbers (or strings)."""
    kind = obj.get(b"kind", obj.get("kind", b""))
    if kind in (b"O", "O"):
        return "an array of Python objects, which msgpack_numpy would rebuild with pickle.loads"
    if kind not in (b"", ""):
        return f"an array of kind {short(kind, 20)}, not plain numbers"
    descr = obj.get(b"type", obj.get("type"))
    if not isinstance(descr, str):
        return "an array of a structured dtype, not plain numbers"
    try:
        dtype = np.dtype(descr)
    except (TypeError, ValueError):
        return f"an array of dtype {short(descr, 40)}, which numpy does not know"
    if dtype.hasobject or dtype.kind not in _PLAIN_KINDS:
        return f"an array of dtype {short(descr, 40)}, not plain numbers"
    return None


def state_problem(raw: bytes) -> str | None:
    """Why ``raw``, an RLlib state file, is not plain data, or ``None``. It is decoded with msgpack's
    own decoder (not msgpack_numpy's, which unpickles object arrays), and must nest at most
    :data:`MAX_STATE_DEPTH` deep; every map msgpack_numpy would turn into a numpy array must be one
    of plain numbers (or strings): an array of Python objects, a structured or unknown dtype is refused."""
    try:
        from msgpack._cmsgpack import unpackb
    except ImportError:  # msgpack without its C extension
        from msgpack.fallback import unpackb

    def hook(obj: dict[Any, Any]) -> dict[Any, Any]:
        if b"nd" in obj or "nd" in obj:
            problem = _array_problem(obj)
            if problem:
                raise _Refused(problem)
        return obj

    try:
        doc = unpackb(raw, object_hook=hook, strict_map_key=False)
    except _Refused as e:
        return str(e)
    except (ValueError, TypeError, RecursionError) as e:  # msgpack's errors are ValueErrors
        return f"not msgpack data ({one_line(str(e) or type(e).__name__, 120)})"
    if depth(doc) > MAX_STATE_DEPTH:
        return f"nested more than {MAX_STATE_DEPTH} deep"
    return None


def read_checkpoint(latest: str, dest: str | None = None) -> None:
    """Check the run's RLlib checkpoint folder ``latest`` as data before RLlib reads any of it; with
    ``dest``, copy its checked state files there: the tree :class:`RLlibBackend` has RLlib restore from.

    RLlib's ``restore_from_path`` reads each folder's state file: the ``.msgpack`` one, or, where
    that is missing, a ``.pkl`` one with ``pickle.load``; and msgpack_numpy rebuilds an array of
    Python objects with ``pickle.loads``. So this refuses, with a ``ValueError`` naming the file: a
    symbolic link, or anything but regular files and folders; a ``.pkl`` file other than RLlib's
    :data:`CTOR_FILE` (which the restore never reads); a folder without exactly one ``.msgpack``
    state file; a state file that :func:`state_problem` refuses or over :data:`STATE_FILE_LIMIT`
    bytes; a JSON file over :data:`JSON_FILE_LIMIT` bytes or not bounded JSON; more than
    :data:`MAX_CHECKPOINT_ENTRIES` entries or :data:`CHECKPOINT_LIMIT` bytes in all. Only the
    ``.msgpack`` files are copied to ``dest``, so RLlib finds nothing else there to read."""
    todo = "it was not written by train.py: restore the run's own checkpoint, or start a new run with another --out"

    def refuse(rel: str, problem: str) -> ValueError:
        where = os.path.join(latest, rel) if rel else latest
        return ValueError(f"the RLlib checkpoint is refused: {where!r}: {problem}; {todo}")

    if not os.path.isdir(latest) or os.path.islink(latest):
        raise refuse("", "not a folder")
    entries = total = 0
    folders = [""]
    while folders:
        rel_dir = folders.pop()
        try:
            with os.scandir(os.path.join(latest, rel_dir)) as it:
                listing = sorted(it, key=lambda e: e.name)
        except OSError as e:
            raise refuse(rel_dir, f"cannot be listed ({e.strerror or e})") from None
        states = []
        for entry in listing:
            rel = os.path.join(rel_dir, entry.name)
            entries += 1
            if entries > MAX_CHECKPOINT_ENTRIES:
                raise refuse("", f"it holds more than {MAX_CHECKPOINT_ENTRIES} files and folders")
            if entry.is_symlink():
                raise refuse(rel, "a symbolic link")
            if entry.is_dir(follow_symlinks=False):
                folders.append(rel)
                continue
            if not entry.is_file(follow_symlinks=False):
                raise refuse(rel, "not a regular file")
            name = entry.name
            if name == CTOR_FILE:
                continue  # RLlib's; the restore never reads it, and it is not copied
            try:
                if name.endswith(".pkl"):
                    raise refuse(rel, "a pickled state file, which RLlib would load with pickle.load")
                if name.endswith(".json"):
                    loads_json(read_regular(entry.path, JSON_FILE_LIMIT, "RLlib record"), repr(entry.path))
                elif name.endswith(".msgpack"):
                    raw = read_regular(entry.path, STATE_FILE_LIMIT, "RLlib state file")
                    total += len(raw)
                    if total > CHECKPOINT_LIMIT:
                        raise refuse("", f"its state files hold more than {CHECKPOINT_LIMIT >> 20} MiB")
                    problem = state_problem(raw)
                    if problem:
                        raise refuse(rel, problem)
                    states.append(rel)
                    if dest is not None:
                        os.makedirs(os.path.join(dest, rel_dir), exist_ok=True)
                        with open(os.path.join(dest, rel), "wb") as f:
                            f.write(raw)
                    del raw
            except InputError as e:
                raise refuse(rel, str(e)) from None
        if len(states) != 1:
            found = f"{len(states)}: {short(states, 120)}" if states else "none"
            raise refuse(rel_dir, f"a folder needs exactly one .msgpack state file (found {found})")


def read_progress(ckpt_root: str) -> dict[str, Any] | None:
    """``{"chunks": c, "timesteps": t}`` of the run's RLlib checkpoint, or ``None`` without one."""
    path = os.path.join(ckpt_root, CKPT_DIR, "latest", PROGRESS)
    if not os.path.lexists(path):
        return None
    try:
        data = loads_json(read_regular(path, JSON_FILE_LIMIT, "RLlib progress record"), repr(path))
    except InputError as e:
        raise ValueError(f"--resume: {e}; the RLlib checkpoint is damaged") from None
    ok = isinstance(data, dict) and all(isinstance(data.get(k), int) and data[k] >= 0 for k in ("chunks", "timesteps"))
    if not ok:
        raise ValueError(f"--resume: {path!r} is not an RLlib progress record; the RLlib checkpoint is damaged")
    return data


def save_checkpoint(algo: Any, ckpt_root: str, chunks: int, timesteps: int) -> None:
    """RLlib's checkpoint and the progress record into a fresh directory, then renamed over
    ``latest`` (an interruption leaves the previous checkpoint whole)."""
    root = os.path.join(ckpt_root, CKPT_DIR)
    os.makedirs(root, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=root, prefix=".tmp-")
    try:
        algo.save_to_path(tmp, use_msgpack=True)
        with open(os.path.join(tmp, PROGRESS), "w", encoding="utf-8") as f:
            json.dump({"chunks": int(chunks), "timesteps": int(timesteps)}, f)
            f.flush()
            os.fsync(f.fileno())
        latest, old = os.path.join(root, "latest"), os.path.join(root, ".old")
        if os.path.exists(old):
            shutil.rmtree(old)
        if os.path.exists(latest):
            os.replace(latest, old)
        os.replace(tmp, latest)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _get(d: Any, *keys: str, default: Any = None) -> Any:
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return default
        d = d[k]
    return d


def _json_default(x: Any) -> Any:
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    return str(x)


class RLlibBackend:
    """PPO on RLlib for ``run`` (joining the Ray cluster at ``address``, or a local Ray of its own),
    behind the :class:`~clue_env.training.run_support.Backend` interface that
    :func:`~clue_env.training.run_support.run_ppo` drives."""

    checkpoint = f"{CKPT_DIR}/latest"
    policy_meta: dict[str, Any] = {"backend": "rllib"}

    def __init__(self, run: RunContext, address: str | None = None) -> None:
        self.run = run
        self.address = address
        self.algo: Any = None
        self.template: Any = None
        self.ts = 0
        self.restarts = 0
        self._stack = ExitStack()

    def build(self, net: Any) -> tuple[int, int]:
        import torch

        run = self.run
        cfg = run.cfg
        r = cfg.rllib
        self.template = net
        torch.set_num_threads(cfg.ppo.update_threads or os.cpu_count() or 1)  # the driver's learner update
        progress = read_progress(run.ckpt) if run.resume else None
        done = int(progress["chunks"]) if progress else 0
        self.ts = int(progress["timesteps"]) if progress else 0
        with self._stack:  # closed here only on a failure: see pop_all below
            self._stack.enter_context(ray_session(self.address, r.local_cpus))
            algo = algo_config(run, net, seed_of(cfg.seed, 3, done)).build_algo()
            self._stack.callback(algo.stop)
            set_module_state(algo, net)
            if progress is not None:
                latest = os.path.join(run.ckpt, CKPT_DIR, "latest")
                staged = tempfile.mkdtemp(prefix="clue-rllib-restore-")
                try:  # checked again, and only its checked msgpack state files are handed to RLlib
                    read_checkpoint(latest, staged)
                    algo.restore_from_path(staged)
                finally:
                    shutil.rmtree(staged, ignore_errors=True)
                algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group, inference_only=True)
                run.log(f"resume: RLlib PPO from chunk {done} ({self.ts} timesteps, {latest})")
            where = placement(algo)
            atomic_write_text(os.path.join(run.out, "rllib_placement.json"), json.dumps({"env_runners": where}, indent=2) + "\n")
            nodes = sorted({w["ip"] + " " + w["node_id"][:8] for w in where})
            run.log(f"RLlib: {len(where)} env runner(s) x {r.envs_per_env_runner} envs on {len(nodes)} node(s): {nodes}")
            self.algo = algo
            self._stack = self._stack.pop_all()  # built: close() stops the algorithm and Ray
        return done, self.ts

    def train_chunk(self, chunk: int, target: int, bar: ProgressBar) -> int:
        algo = self.algo
        while self.ts < target:
            t0 = time.time()
            result = algo.train()
            steps = int(_get(result, "env_runners", "num_env_steps_sampled", default=0) or 0)
            if steps <= 0:
                raise RuntimeError(
                    "RLlib: a training iteration sampled no env steps (an env runner failed?): "
                    f"{json.dumps(_get(result, 'env_runners', default={}), default=_json_default)[:500]}"
                )
            illegal = _get(result, "env_runners", "clue_illegal", default=0) or 0
            if illegal:
                raise RuntimeError(f"RLlib: the policy played {illegal} illegal action(s): the action mask is broken")
            restarts_now = int(_get(result, "num_env_runner_restarts", default=0) or 0)
            if restarts_now > self.restarts:
                self.run.log(f"RLlib: env runner restarts so far: {restarts_now}")
                self.restarts = restarts_now
            self.ts += steps
            bar.bar.update(steps)
            win = _get(result, "env_runners", "clue_win")
            wrong = _get(result, "env_runners", "clue_wrong_accusation")
            if win is not None:
                bar.bar.set_postfix(win=f"{float(win):.1%}", wrong_acc=f"{float(wrong or 0):.1%}")
            w = self.run.writer
            for tag, val in (
                ("rollout/win_rate", win),
                ("rollout/wrong_accusation_rate", wrong),
                ("rollout/ep_rew_mean", _get(result, "env_runners", "episode_return_mean")),
                ("rollout/ep_len_mean", _get(result, "env_runners", "episode_len_mean")),
                ("train/policy_loss", _get(result, "learners", MODULE_ID, "policy_loss")),
                ("train/value_loss", _get(result, "learners", MODULE_ID, "vf_loss")),
                ("train/entropy", _get(result, "learners", MODULE_ID, "entropy")),
                ("train/approx_kl", _get(result, "learners", MODULE_ID, "mean_kl_loss")),
                ("time/steps_per_second", steps / max(1e-9, time.time() - t0)),
            ):
                if val is not None:
                    w.add_scalar(f"rllib/{tag}", float(val), self.ts)
        return self.ts

    def save(self, chunks: int, timesteps: int) -> None:
        save_checkpoint(self.algo, self.run.ckpt, chunks, timesteps)

    def export(self) -> Any:
        return export_net(self.algo, self.template)

    def close(self) -> None:
        self._stack.close()  # the algorithm, then the Ray session


def ppo_stage(run: RunContext, net: Any, address: str | None = None) -> Any:
    """The PPO stage of ``run`` on RLlib (:func:`~clue_env.training.run_support.run_ppo` over an
    :class:`RLlibBackend`); returns the trained CluePolicyNet."""
    return run_ppo(run, RLlibBackend(run, address), net)


__all__ = [
    "RLlibBackend",
    "ppo_stage",
    "algo_config",
    "export_net",
    "ray_session",
    "read_checkpoint",
    "read_progress",
    "ray_version",
    "state_problem",
    "EnvCreator",
]
