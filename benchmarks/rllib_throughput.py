"""RLlib backend throughput: learner steps/s with 1 and 2 env runners, next to the SB3 path, and time shares.

For each opponent (default ``notebook`` and ``deduction``, 4 players, the learner starting from the
shipped network so that episodes are as long as in real fine-tuning), in one process and one run:

1. ``sb3``: MaskablePPO as train.py runs it (16 envs in 2 worker processes, rollouts of 2,048,
   minibatches of 512, 4 epochs; benchmarks/training_speed.py's ``ppo_rate``);
2. ``rllib``: RLlib PPO with the same update (train batch 2,048, minibatch 512, 4 epochs) on a local
   Ray, with 1 and 2 env runners of ``--envs-per-runner`` envs each, the learner in this process;
3. time shares: RLlib's own timers split each training iteration into env-runner sampling, the
   learner update and the weight sync; an in-process profile of one runner's work (``--envs-per-runner``
   adapter envs, one batched forward pass per step, one torch thread) splits sampling into env
   stepping (rules engine, observation, policy features), opponent decisions and policy inference.

Needs the ``[ray]`` extra (``.venv-ray``)::

    python benchmarks/rllib_throughput.py [--steps 8192] [--opponents notebook,deduction] [--runners 1,2]
        [--envs-per-runner 8] [--json results/rllib_throughput.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)


def _cfg(spec: str, runners: int, envs: int, init: str) -> Any:
    from clue_env.training.config import load_train_config

    return load_train_config(
        {
            "init": init,
            "ppo": {"timesteps": 2048, "opponents": [spec], "n_envs": 16, "n_steps": 128, "batch_size": 512, "n_epochs": 4,
                    "learning_rate": 3e-5, "clip_range": 0.1},
            "rllib": {"num_env_runners": runners, "envs_per_env_runner": envs},
        }
    )  # fmt: skip


def rllib_rate(spec: str, steps: int, runners: int, envs: int, init: str, tmp: str) -> dict[str, float]:
    """Learner steps/s of RLlib PPO (sampling and updates), and its timers' shares of the time."""
    import ray.rllib.algorithms.ppo.ppo as ppo_mod
    import torch

    from agents import SpecFactory
    from clue_env.policy.checkpoint import load_policy
    from clue_env.training.rllib_backend import algo_config, set_module_state
    from clue_env.training.trainer import Trainer

    torch.set_num_threads(os.cpu_count() or 1)
    clock = {"sampling": 0.0, "update": 0.0}

    def timed(fn: Any, key: str) -> Any:
        """``fn`` with its wall time added to ``clock[key]``."""

        def wrapper(*a: Any, **kw: Any) -> Any:
            t = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                clock[key] += time.perf_counter() - t

        return wrapper

    sample_fn = ppo_mod.synchronous_parallel_sample  # put back at the end
    ppo_mod.synchronous_parallel_sample = timed(sample_fn, "sampling")  # (RLlib's own timers are moving averages)
    net, _ = load_policy(init)
    trainer = Trainer(_cfg(spec, runners, envs, init), tmp, SpecFactory, None, progress=False)
    algo = algo_config(trainer, net, 0).build_algo()
    algo.learner_group.update = timed(algo.learner_group.update, "update")
    try:
        set_module_state(algo, net)
        algo.train()  # warm up
        clock.update(sampling=0.0, update=0.0)
        n = 0
        t0 = time.perf_counter()
        while n < steps:
            r = algo.train()
            n += int(r["env_runners"]["num_env_steps_sampled"])
        dt = time.perf_counter() - t0
    finally:
        algo.stop()
        ppo_mod.synchronous_parallel_sample = sample_fn
    other = dt - clock["sampling"] - clock["update"]
    return {"steps_per_s": n / dt, "steps": n, "seconds": dt, "sampling_s": clock["sampling"], "update_s": clock["update"],
            "other_s": other}  # fmt: skip


def sampling_profile(spec: str, envs: int, init: str, steps: int) -> dict[str, float]:
    """Seconds per learner step of one env runner's work, split: env stepping, opponents, inference."""
    import torch

    from agents import SpecFactory
    from clue_env.policy.checkpoint import load_policy
    from clue_env.training.adapter import SingleLearnerEnv
    from clue_env.training.rllib_module import MASKED_LOGIT

    torch.set_num_threads(1)
    clock = {"opp": 0.0}

    class Timed:
        def __init__(self, agent: Any) -> None:
            self.agent = agent

        def reset(self) -> None:
            if hasattr(self.agent, "reset"):
                self.agent.reset()

        def act(self, obs: Any, info: Any) -> int:
            t = time.perf_counter()
            a = self.agent.act(obs, info)
            clock["opp"] += time.perf_counter() - t
            return a

    fac = SpecFactory(spec)

    def timed(seat: int, n: int, rules: Any, seed: int) -> Timed:
        return Timed(fac(seat, n, rules, seed))

    net, _ = load_policy(init)
    es = [SingleLearnerEnv([timed], num_players=4) for _ in range(envs)]
    obs = [e.reset(seed=i)[0] for i, e in enumerate(es)]
    rng = np.random.default_rng(0)
    t_env = t_inf = 0.0
    done = 0
    t_all = time.perf_counter()
    while done < steps:
        t = time.perf_counter()
        with torch.no_grad():
            x = torch.as_tensor(np.stack(obs))
            m = torch.as_tensor(np.stack([e.action_masks() for e in es]))
            logits = torch.where(m, net(x)[0], torch.full((1,), MASKED_LOGIT))
            acts = torch.distributions.Categorical(logits=logits).sample().numpy()
        t_inf += time.perf_counter() - t
        t = time.perf_counter()
        for i, e in enumerate(es):
            o, _r, term, trunc, _ = e.step(int(acts[i]))
            obs[i] = e.reset(seed=int(rng.integers(2**31)))[0] if term or trunc else o
        t_env += time.perf_counter() - t
        done += envs
    total = time.perf_counter() - t_all
    opp = clock["opp"]
    return {"per_step_s": total / done, "env_s": (t_env - opp) / done, "opponents_s": opp / done, "inference_s": t_inf / done}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=8192, help="measured learner steps per figure (after a warm-up)")
    ap.add_argument("--opponents", default="notebook,deduction")
    ap.add_argument("--runners", default="1,2", help="env runner counts to measure")
    ap.add_argument("--envs-per-runner", type=int, default=8)
    ap.add_argument("--skip-sb3", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    import tempfile

    from agents.manifest import shipped_network
    from clue_env.training.rllib_backend import ray_session, ray_version

    init = shipped_network("ppo", 5, "classic")  # the classic network, behind the file ppo plays with 5 or 6 players
    rows: list[dict[str, Any]] = []
    print(f"ray {ray_version()}, {os.cpu_count()} CPUs; learner from {os.path.relpath(init, ROOT)}; 4 players")
    tmp = tempfile.mkdtemp(prefix="clue-rllib-bench-")
    for spec in args.opponents.split(","):
        if not args.skip_sb3:
            from training_speed import ppo_rate

            r = ppo_rate(spec, args.steps, 16, 2, init)
            rows.append({"opponent": spec, "backend": "sb3", "layout": "16 envs in 2 worker processes", "steps_per_s": r})
            print(f"vs 3 {spec:<10} sb3    16 envs / 2 workers          {r:>7,.0f} learner steps/s", flush=True)
        with ray_session(None, os.cpu_count() or 1):
            for k in (int(x) for x in args.runners.split(",")):
                m = rllib_rate(spec, args.steps, k, args.envs_per_runner, init, os.path.join(tmp, f"{spec}-{k}"))
                layout = f"{k} runner(s) x {args.envs_per_runner} envs"
                rows.append({"opponent": spec, "backend": "rllib", "layout": layout, **m})
                it = m["seconds"]
                print(
                    f"vs 3 {spec:<10} rllib  {layout:<28} {m['steps_per_s']:>7,.0f} learner steps/s  (sampling "
                    f"{m['sampling_s'] / it:.0%}, learner update {m['update_s'] / it:.0%}, other {m['other_s'] / it:.0%})",
                    flush=True,
                )
        prof = sampling_profile(spec, args.envs_per_runner, init, max(512, args.steps // 8))
        rows.append({"opponent": spec, "backend": "profile", "layout": f"1 process x {args.envs_per_runner} envs", **prof})
        s = prof["per_step_s"]
        print(
            f"vs 3 {spec:<10} one runner's sampling: {1 / s:,.0f} steps/s per core; env stepping {prof['env_s'] / s:.0%}, "
            f"opponent decisions {prof['opponents_s'] / s:.0%}, inference {prof['inference_s'] / s:.0%}",
            flush=True,
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"ray": ray_version(), "cpus": os.cpu_count(), "steps": args.steps, "rows": rows}, f, indent=2)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
