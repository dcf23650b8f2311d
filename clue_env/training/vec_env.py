"""A vectorised env that runs several environments in each worker process.

SB3's ``SubprocVecEnv`` gives every environment its own process. On a 2-core machine that means
either two environments (a policy forward pass of batch 2 per two steps, which is most of the
cost) or many more processes than cores. Worse for MaskablePPO, sb3-contrib asks for the action
masks with ``env_method("action_masks")`` before every step: a second round trip per
environment per step.

:class:`GroupedSubprocVecEnv` runs ``n_envs`` environments in ``n_workers`` processes (by default
one per core), each stepping its share in turn, and sends each environment's action mask back
with its observation, so a step is one message each way per worker and ``env_method
("action_masks")`` is answered from that copy. Results are identical to ``SubprocVecEnv`` and
``DummyVecEnv`` on the same environments and seeds (tests compare them).

Auto-reset follows SB3: when an environment's episode ends, ``info["terminal_observation"]``
holds its last observation, ``info["TimeLimit.truncated"]`` says whether it was cut short, and the
returned observation is the first of the next episode. An exception in a worker is re-raised
here with the worker's traceback.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import CloudpickleWrapper, VecEnv, VecEnvIndices, VecEnvStepReturn

_MASKS = "action_masks"


def _masks(env: gym.Env) -> np.ndarray | None:
    fn = getattr(env, _MASKS, None)
    return None if fn is None else np.asarray(fn())


def _step_all(envs: list[gym.Env], actions: Sequence[Any]) -> tuple[Any, ...]:
    obs, rews, dones, infos, reset_infos, masks = [], [], [], [], [], []
    for env, action in zip(envs, actions, strict=True):
        ob, rew, term, trunc, info = env.step(action)
        done = bool(term or trunc)
        info["TimeLimit.truncated"] = bool(trunc and not term)
        reset_info: dict[str, Any] = {}
        if done:
            info["terminal_observation"] = ob
            ob, reset_info = env.reset()
        obs.append(ob)
        rews.append(rew)
        dones.append(done)
        infos.append(info)
        reset_infos.append(reset_info)
        masks.append(_masks(env))
    return np.stack(obs), np.asarray(rews, dtype=np.float32), np.asarray(dones), infos, reset_infos, masks


def _worker(remote: Any, parent_remote: Any, fns: CloudpickleWrapper) -> None:
    parent_remote.close()
    envs: list[gym.Env] = []
    try:
        envs = [fn() for fn in fns.var]
        remote.send(("ok", (envs[0].observation_space, envs[0].action_space, envs[0].render_mode)))
    except Exception:  # noqa: BLE001 - reported to the parent, which raises it
        remote.send(("error", traceback.format_exc()))
        return
    while True:
        try:
            cmd, data = remote.recv()
        except (EOFError, KeyboardInterrupt):
            break
        try:
            if cmd == "step":
                out: Any = _step_all(envs, data)
            elif cmd == "reset":
                obs, infos, masks = [], [], []
                for env, (seed, options) in zip(envs, data, strict=True):
                    ob, info = env.reset(seed=seed, **({"options": options} if options else {}))
                    obs.append(ob)
                    infos.append(info)
                    masks.append(_masks(env))
                out = (np.stack(obs), infos, masks)
            elif cmd == "env_method":
                idx, name, args, kwargs = data
                out = [getattr(envs[i], name)(*args, **kwargs) for i in idx]
            elif cmd == "get_attr":
                idx, name = data
                out = [getattr(envs[i], name) for i in idx]
            elif cmd == "set_attr":
                idx, name, value = data
                for i in idx:
                    setattr(envs[i], name, value)
                out = None
            elif cmd == "has_attr":
                out = all(hasattr(env, data) for env in envs)
            elif cmd == "is_wrapped":
                from stable_baselines3.common.env_util import is_wrapped

                idx, cls = data
                out = [is_wrapped(envs[i], cls) for i in idx]
            elif cmd == "render":
                out = [env.render() for env in envs]
            elif cmd == "close":
                for env in envs:
                    env.close()
                remote.send(("ok", None))
                remote.close()
                break
            else:
                raise RuntimeError(f"worker protocol error: unknown command {cmd!r}")
            remote.send(("ok", out))
        except Exception:  # noqa: BLE001 - reported to the parent, which raises it
            remote.send(("error", traceback.format_exc()))


class GroupedSubprocVecEnv(VecEnv):
    """``n_envs`` environments in ``n_workers`` processes (default: one per core, at most ``n_envs``).

    ``start_method`` is passed to :mod:`multiprocessing` (default ``fork`` on Linux, else
    ``spawn``; with ``spawn`` the env functions must be picklable and the script guarded by
    ``if __name__ == "__main__":``).
    """

    def __init__(
        self, env_fns: list[Callable[[], gym.Env]], n_workers: int | None = None, start_method: str | None = None
    ) -> None:
        n_envs = len(env_fns)
        if n_envs < 1:
            raise ValueError("GroupedSubprocVecEnv needs at least one env function")
        n_workers = min(n_envs, n_workers or os.cpu_count() or 1)
        if n_workers < 1:
            raise ValueError(f"n_workers must be >= 1, got {n_workers}")
        if start_method is None:
            start_method = "fork" if sys.platform.startswith("linux") else "spawn"
        ctx = mp.get_context(start_method)
        bounds = np.linspace(0, n_envs, n_workers + 1).round().astype(int)
        #: the env indices each worker holds, in order
        self.groups = [list(range(int(a), int(b))) for a, b in zip(bounds[:-1], bounds[1:])]
        self.closed = False
        self.waiting = False
        self.remotes, self.processes = [], []
        for group in self.groups:
            remote, work_remote = ctx.Pipe()
            fns = CloudpickleWrapper([env_fns[i] for i in group])
            proc = ctx.Process(target=_worker, args=(work_remote, remote, fns), daemon=True)  # type: ignore[attr-defined]
            proc.start()
            work_remote.close()
            self.remotes.append(remote)
            self.processes.append(proc)
        try:
            spaces = self._recv_all(range(n_workers))
        except RuntimeError:
            self._shutdown()
            raise
        obs_space, act_space, render_mode = spaces[0]
        self._cached_masks: list[np.ndarray | None] | None = None
        super().__init__(n_envs, obs_space, act_space)
        self.render_mode = render_mode

    # ---------------------------------------------------------------- plumbing
    def _recv(self, w: int) -> Any:
        try:
            status, payload = self.remotes[w].recv()
        except EOFError:
            raise RuntimeError(f"GroupedSubprocVecEnv: worker {w} (envs {self.groups[w]}) died") from None
        if status == "error":
            raise RuntimeError(f"GroupedSubprocVecEnv: worker {w} (envs {self.groups[w]}) raised:\n{payload}")
        return payload

    def _recv_all(self, workers: Sequence[int]) -> list[Any]:
        """Every listed worker's answer, read in full before raising the first error (so no
        answer is left in a pipe to be mistaken for the next one)."""
        out, error = [], None
        for w in workers:
            try:
                out.append(self._recv(w))
            except RuntimeError as e:
                error = error or e
        if error is not None:
            raise error
        return out

    def _by_worker(self, indices: VecEnvIndices) -> list[tuple[int, list[int]]]:
        """(worker, local indices) for the wanted env indices, in worker order."""
        wanted = set(self._get_indices(indices))
        out = []
        for w, group in enumerate(self.groups):
            local = [k for k, i in enumerate(group) if i in wanted]
            if local:
                out.append((w, local))
        return out

    def _call(self, cmd: str, make: Callable[[list[int]], Any], indices: VecEnvIndices) -> list[Any]:
        targets = self._by_worker(indices)
        for w, local in targets:
            self.remotes[w].send((cmd, make(local)))
        return [r for part in self._recv_all([w for w, _ in targets]) for r in part]

    # ---------------------------------------------------------------- VecEnv
    def step_async(self, actions: np.ndarray) -> None:
        self._cached_masks = None
        for w, group in enumerate(self.groups):
            self.remotes[w].send(("step", [actions[i] for i in group]))
        self.waiting = True

    def step_wait(self) -> VecEnvStepReturn:
        self.waiting = False
        parts = self._recv_all(range(len(self.groups)))
        obs = np.concatenate([p[0] for p in parts])
        rews = np.concatenate([p[1] for p in parts])
        dones = np.concatenate([p[2] for p in parts])
        infos = [i for p in parts for i in p[3]]
        self.reset_infos = [i for p in parts for i in p[4]]
        self._cached_masks = [m for p in parts for m in p[5]]
        return obs, rews, dones, infos

    def reset(self) -> np.ndarray:
        self._cached_masks = None
        for w, group in enumerate(self.groups):
            self.remotes[w].send(("reset", [(self._seeds[i], self._options[i]) for i in group]))
        parts = self._recv_all(range(len(self.groups)))
        self.reset_infos = [i for p in parts for i in p[1]]
        self._cached_masks = [m for p in parts for m in p[2]]
        self._reset_seeds()
        self._reset_options()
        return np.concatenate([p[0] for p in parts])

    def close(self) -> None:
        if not self.closed:
            self._shutdown()

    def _shutdown(self) -> None:
        if self.waiting:
            for w in range(len(self.groups)):
                try:
                    self.remotes[w].recv()
                except EOFError:
                    pass
        for w, remote in enumerate(self.remotes):
            try:
                remote.send(("close", None))
                self._recv(w)
            except (OSError, RuntimeError):  # that worker has already gone
                pass
        for proc in self.processes:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.terminate()
        for remote in self.remotes:
            remote.close()
        self.closed = True
        self.waiting = False

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any) -> list[Any]:
        if method_name == _MASKS and not method_args and not method_kwargs and self._cached_masks is not None:
            masks = self._cached_masks
            if all(m is not None for m in masks):
                return [masks[i] for i in self._get_indices(indices)]
        if method_name != _MASKS:
            self._cached_masks = None  # the method may change the env
        return self._call("env_method", lambda local: (local, method_name, method_args, method_kwargs), indices)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return self._call("get_attr", lambda local: (local, attr_name), indices)

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        self._cached_masks = None
        for w, local in self._by_worker(indices):
            self.remotes[w].send(("set_attr", (local, attr_name, value)))
        self._recv_all([w for w, _ in self._by_worker(indices)])

    def has_attr(self, attr_name: str) -> bool:
        for remote in self.remotes:
            remote.send(("has_attr", attr_name))
        return all(self._recv_all(range(len(self.remotes))))

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return self._call("is_wrapped", lambda local: (local, wrapper_class), indices)

    def get_images(self) -> Sequence[np.ndarray | None]:
        for remote in self.remotes:
            remote.send(("render", None))
        return [img for part in self._recv_all(range(len(self.remotes))) for img in part]


__all__ = ["GroupedSubprocVecEnv"]
