"""The PPO stage on Ray RLlib (``backend: rllib``; the ``[ray]`` extra; docs/distributed.md).

The same stage as the SB3 path, on RLlib's new API stack: the single-learner adapter env
(:class:`~clue_env.training.adapter.SingleLearnerEnv`, registered with Ray, its opponents played
inside the env runners) seen through :class:`~clue_env.training.rllib_module.MaskedObsEnv`, the
project's network as :class:`~clue_env.training.rllib_module.CluePolicyModule`, started from the
imitation (or ``init``) weights. The run directory is the SB3 path's (eval.jsonl, curve.png,
policy_<steps>.pt, TensorBoard under tb/), with the PPO state in ``checkpoints/rllib/``:

    checkpoints/rllib/latest/     RLlib's checkpoint (Algorithm.save_to_path, msgpack state files)
                                  plus progress.json (chunks done, learner timesteps), written
                                  into a fresh directory that is then renamed over ``latest``
    checkpoints/state.json        how far PPO got (a summary for people)
    rllib_placement.json          the node of each env runner (ray's node id and IP)

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
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

from .checkpoint import save_policy

if TYPE_CHECKING:
    from .trainer import Trainer

ENV_NAME = "clue_single_learner"
MODULE_ID = "default_policy"
#: the PPO checkpoint directory of a run (under checkpoints/) and its progress record
CKPT_DIR = "rllib"
PROGRESS = "progress.json"


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


def algo_config(trainer: Trainer, net: Any, seed: int) -> Any:
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
    from .network import CluePolicyNet

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


def read_progress(ckpt_root: str) -> dict[str, Any] | None:
    """``{"chunks": c, "timesteps": t}`` of the run's RLlib checkpoint, or ``None`` without one."""
    path = os.path.join(ckpt_root, CKPT_DIR, "latest", PROGRESS)
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"--resume: {path!r} cannot be read ({e}); the RLlib checkpoint is damaged") from None
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


def ppo_stage(trainer: Trainer, net: Any, address: str | None = None) -> Any:
    """The PPO stage of ``trainer``'s run on RLlib; returns the trained CluePolicyNet."""
    import torch

    from .trainer import _ProgressBar, _seed_of, atomic_write_text

    cfg = trainer.cfg
    p, r = cfg.ppo, cfg.rllib
    if p.timesteps <= 0:
        return net
    chunk_steps, n_chunks = trainer.chunk_steps, trainer.n_chunks
    torch.set_num_threads(p.update_threads or os.cpu_count() or 1)  # the driver's learner update
    progress = read_progress(trainer.ckpt) if trainer.resume else None
    done = int(progress["chunks"]) if progress else 0
    ts = int(progress["timesteps"]) if progress else 0
    every = cfg.eval.every_checkpoints
    state_path = os.path.join(trainer.ckpt, "state.json")
    with ray_session(address, r.local_cpus):
        algo = algo_config(trainer, net, _seed_of(cfg.seed, 3, done)).build_algo()
        try:
            set_module_state(algo, net)
            if progress is not None:
                latest = os.path.join(trainer.ckpt, CKPT_DIR, "latest")
                algo.restore_from_path(latest)
                algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group, inference_only=True)
                trainer._log(f"resume: RLlib PPO from chunk {done} ({ts} timesteps, {latest})")
                policy_path = os.path.join(trainer.ckpt, f"policy_{ts}.pt")
                due = done > 0 and (done % every == 0 or done == n_chunks)
                if (
                    due
                    and os.path.exists(policy_path)
                    and not any(row.get("phase") == "ppo" and row.get("timesteps") == ts for row in trainer.eval_rows)
                ):
                    trainer._evaluate(policy_path, ts, "ppo")
            where = placement(algo)
            atomic_write_text(
                os.path.join(trainer.out, "rllib_placement.json"), json.dumps({"env_runners": where}, indent=2) + "\n"
            )
            nodes = sorted({w["ip"] + " " + w["node_id"][:8] for w in where})
            trainer._log(f"RLlib: {len(where)} env runner(s) x {r.envs_per_env_runner} envs on {len(nodes)} node(s): {nodes}")
            bar = _ProgressBar(n_chunks * chunk_steps, ts, trainer.progress)
            restarts = 0
            for c in range(done, n_chunks):
                target = (c + 1) * chunk_steps
                while ts < target:
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
                    if restarts_now > restarts:
                        trainer._log(f"RLlib: env runner restarts so far: {restarts_now}")
                        restarts = restarts_now
                    ts += steps
                    bar.bar.update(steps)
                    win = _get(result, "env_runners", "clue_win")
                    wrong = _get(result, "env_runners", "clue_wrong_accusation")
                    if win is not None:
                        bar.bar.set_postfix(win=f"{float(win):.1%}", wrong_acc=f"{float(wrong or 0):.1%}")
                    w = trainer.writer
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
                            w.add_scalar(f"rllib/{tag}", float(val), ts)
                policy_path = os.path.join(trainer.ckpt, f"policy_{ts}.pt")
                save_policy(policy_path, export_net(algo, net), {"phase": "ppo", "timesteps": ts, "backend": "rllib"})
                save_checkpoint(algo, trainer.ckpt, c + 1, ts)  # the commit point
                summary = {"chunks": c + 1, "timesteps": ts, "target_timesteps": p.timesteps, "checkpoint": f"{CKPT_DIR}/latest"}
                atomic_write_text(state_path, json.dumps(summary))
                if (c + 1) % every == 0 or c + 1 == n_chunks:
                    trainer._evaluate(policy_path, ts, "ppo")
            bar.close()
            return export_net(algo, net)
        finally:
            algo.stop()


__all__ = ["ppo_stage", "algo_config", "export_net", "ray_session", "read_progress", "ray_version", "EnvCreator"]
