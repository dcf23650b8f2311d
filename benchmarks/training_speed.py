"""Training throughput: learner steps/s of the single-learner adapter, with and without PPO.

1. ``adapter``: learner steps/s with random legal learner actions (no accusations), policy
   features on, against ``random``, ``notebook``, ``deduction`` and self-play (the shipped
   policy, or ``--selfplay PATH``) opponents; and the env's own belief features (``env()``
   with ``belief_features`` off / ``True`` (fast) / ``"sampled"``), never-accuse random play.
2. ``ppo``: MaskablePPO learner steps/s *including* the updates, on both cores (16 envs in 2
   worker processes, updates on every core), against ``notebook`` (and ``--ppo-opponents``),
   starting from the shipped network.

Each figure sits next to ``connect_four_v3`` random play measured in the same process, since
this machine is shared and noisy.

    python benchmarks/training_speed.py [--seconds 5] [--ppo-steps 16384] [--n-envs 16] [--skip-ppo]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def connect_four_rate(seconds: float) -> float:
    from pettingzoo.classic import connect_four_v3

    env = connect_four_v3.env()
    rng = np.random.default_rng(0)
    moves, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        env.reset(seed=moves)
        for _a in env.agent_iter():
            obs, _r, term, trunc, _i = env.last()
            a = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            moves += a is not None
            env.step(a)
    return moves / (time.perf_counter() - t0)


def adapter_rate(spec: str, seconds: float, players: int = 4) -> float:
    from agents import SpecFactory
    from clue_env.training.adapter import SingleLearnerEnv

    e = SingleLearnerEnv([SpecFactory(spec)], num_players=players)
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        legal = np.flatnonzero(e.action_masks())
        quiet = legal[legal < e.env.codec.ACCUSE]
        _o, _r, term, trunc, _i = e.step(int(rng.choice(quiet if len(quiet) else legal)))
        steps += 1
        if term or trunc:
            e.reset()
    return steps / (time.perf_counter() - t0)


def env_belief_rate(belief: object, seconds: float, players: int = 4) -> float:
    import clue_env

    env = clue_env.env(num_players=players, belief_features=belief)
    no_acc = np.ones(env.unwrapped.codec.n, dtype=np.int8)
    no_acc[env.unwrapped.codec.accuse_slice] = 0
    rng = np.random.default_rng(0)
    moves, t0, g = 0, time.perf_counter(), 0
    while time.perf_counter() - t0 < seconds:
        env.reset(seed=g)
        g += 1
        for _a in env.agent_iter():
            obs, _r, term, trunc, _i = env.last()
            if term or trunc:
                a = None
            else:
                a = int(rng.choice(np.flatnonzero(obs["action_mask"] & no_acc)))
                moves += 1
            env.step(a)
            if time.perf_counter() - t0 > seconds:
                break
    return moves / (time.perf_counter() - t0)


def ppo_rate(spec: str, steps: int, n_envs: int, workers: int, init: str) -> float:
    """MaskablePPO learner steps/s including the updates, the way ``train.py`` runs it.

    ``n_envs`` environments in ``workers`` processes (:class:`GroupedSubprocVecEnv`), one torch
    thread for rollouts and one per core for the updates (:class:`CluePPO`), rollouts of 2,048
    steps, minibatches of 512, 4 epochs (the shipped configs' update). The network starts from
    ``init`` (the shipped policy) so that episodes are as long as in real fine-tuning: a fresh
    network accuses at once and would measure mostly resets.
    """
    import torch

    from agents import SpecFactory
    from clue_env.policy.checkpoint import load_policy
    from clue_env.training.adapter import SingleLearnerEnv
    from clue_env.training.sb3_policy import CluePolicy, CluePPO
    from clue_env.training.vec_env import GroupedSubprocVecEnv

    torch.set_num_threads(1)
    fac = SpecFactory(spec)
    venv = GroupedSubprocVecEnv([lambda: SingleLearnerEnv([fac], num_players=4)] * n_envs, n_workers=workers)
    net, _meta = load_policy(init)
    model = CluePPO(CluePolicy, venv, n_steps=max(1, 2048 // n_envs), batch_size=512, n_epochs=4, seed=0, device="cpu",
                    learning_rate=3e-5, clip_range=0.1, policy_kwargs={"net_kwargs": net.config()})  # fmt: skip
    model.policy.net.load_state_dict(net.state_dict())
    model.threads = (1, os.cpu_count() or 1)
    model.learn(2048)  # warm up
    t0 = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    dt = time.perf_counter() - t0
    venv.close()
    return steps / dt


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--ppo-steps", type=int, default=16384)
    ap.add_argument("--ppo-opponents", default="notebook")
    ap.add_argument("--n-envs", type=int, default=16, help="environments for the PPO figure (default 16)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes for them (default 2)")
    ap.add_argument("--selfplay", default="", help="policy file for self-play opponents (default: the shipped one)")
    ap.add_argument("--skip-ppo", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    rows: dict[str, float] = {}
    c4 = connect_four_rate(args.seconds)
    print(f"connect_four_v3 random play: {c4:,.0f} moves/s (reference)")
    specs = ["random", "notebook", "deduction"]
    from agents.manifest import ManifestError, shipped_network

    try:  # the classic network: the one behind the file ppo plays with 5 or 6 classic players
        classic = shipped_network("ppo", 5, "classic")
    except ManifestError:
        classic = ""
    sp = args.selfplay or classic
    if sp and os.path.exists(sp):
        specs.append(f"ppo:{sp}")
    for spec in specs:
        r = adapter_rate(spec, args.seconds)
        rows[f"adapter vs 3 {spec}"] = r
        print(f"adapter, random learner, vs 3 {spec:<22} {r:>8,.0f} learner steps/s  ({r / c4:.3f} x connect4)")
    for belief in (False, True, "sampled"):
        r = env_belief_rate(belief, args.seconds)
        rows[f"env() belief_features={belief}"] = r
        print(f"env() never-accuse, belief_features={belief!s:<8} {r:>8,.0f} moves/s  ({r / c4:.3f} x connect4)")
    if not args.skip_ppo:
        for spec in args.ppo_opponents.split(","):
            if not classic:
                print("MaskablePPO figure skipped: no shipped policy to start from")
                break
            r = ppo_rate(spec, args.ppo_steps, args.n_envs, args.workers, classic)
            rows[f"MaskablePPO with updates vs 3 {spec}"] = r
            print(f"MaskablePPO incl. updates, {args.n_envs} envs / {args.workers} workers, vs 3 {spec:<10} "
                  f"{r:>8,.0f} learner steps/s  ({r / c4:.3f} x connect4)")  # fmt: skip
    rows["connect_four_v3"] = c4
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
