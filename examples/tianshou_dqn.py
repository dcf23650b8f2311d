"""Tianshou's DQN on clue_env/Clue-v0, with the action mask.

    python examples/tianshou_dqn.py --epochs 10
    python examples/tianshou_dqn.py --smoke        # a few seconds: CI runs this

Tianshou masks a discrete policy's actions when the observation carries them under ``mask``:
:class:`TianshouObs` renames the env's ``{"observation", "action_mask"}`` to ``{"obs", "mask"}``
and, as the other examples do, hides the accusations until the seat's knowledge proves the
solution (``features=True``'s ``solution`` piece), then offers only the proven one (``--no-shaping``:
the env's mask alone). The Q-network reads ``obs``; Tianshou masks both the greedy and the
exploratory actions.
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import numpy as np
import torch
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.trainer import OffPolicyTrainerParams
from torch import nn

import clue_env  # noqa: F401 - registers clue_env/Clue-v0
from clue_env.engine.cards import CARDS
from clue_env.policy.features import POLICY_LAYOUT


class TianshouObs(gym.ObservationWrapper):
    """``{"obs": vector, "mask": legal actions}``, accusations hidden until proved (unless ``shaping=False``)."""

    def __init__(self, env: gym.Env, shaping: bool = True) -> None:
        super().__init__(env)
        inner = env.observation_space
        self.observation_space = gym.spaces.Dict({"obs": inner["observation"], "mask": inner["action_mask"]})
        self.shaping = shaping
        self.solution = POLICY_LAYOUT.slice("solution")
        self.first_accusation = env.unwrapped.text_to_action("accuse scarlet candlestick kitchen")

    def observation(self, observation: dict) -> dict:
        legal = observation["action_mask"]
        mask = legal.copy()
        proof = observation["observation"][self.solution]
        if self.shaping and mask[: self.first_accusation].any():
            mask[self.first_accusation :] = 0
            if proof[-1] > 0.5:  # the envelope's three cards, proved from what the seat knows
                cards = " ".join(CARDS[c] for c in np.flatnonzero(proof[:-1]))
                proven = self.env.unwrapped.text_to_action(f"accuse {cards}")
                mask[proven] = legal[proven]
        return {"obs": observation["observation"], "mask": mask}


class QNet(nn.Module):
    def __init__(self, n_obs: int, n_act: int, hidden: int) -> None:
        super().__init__()
        layers = [nn.Linear(n_obs, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, n_act)]
        self.net = nn.Sequential(*layers)

    def forward(self, obs, state=None, info=None):  # Tianshou passes the observation's "obs" array
        return self.net(torch.as_tensor(obs, dtype=torch.float32)), state


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--opponents", default="random", help="agent spec for every other seat (default: random)")
    p.add_argument("--num-players", type=int, default=4)
    p.add_argument("--rules", default="classic")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--epoch-steps", type=int, default=10_000)
    p.add_argument("--n-envs", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-games", type=int, default=50)
    p.add_argument("--no-shaping", action="store_true", help="the env's mask alone (the policy then accuses at once)")
    p.add_argument("--smoke", action="store_true", help="a tiny run (seconds): CI runs every example this way")
    args = p.parse_args()
    hidden, buffer, batch = 256, 50_000, 64
    if args.smoke:
        args.epochs, args.epoch_steps, args.n_envs, args.eval_games, hidden, buffer = 1, 64, 2, 1, 32, 1_000
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)

    def make() -> gym.Env:
        env = gym.make(
            "clue_env/Clue-v0", opponents=args.opponents, num_players=args.num_players, rules=args.rules, features=True
        )
        return TianshouObs(env, shaping=not args.no_shaping)

    train_envs = DummyVectorEnv([make for _ in range(args.n_envs)])
    test_envs = DummyVectorEnv([make])
    train_envs.seed(args.seed)
    test_envs.seed(1_000_000 + args.seed)
    probe = make()
    n_obs, n_act = probe.observation_space["obs"].shape[0], int(probe.action_space.n)
    policy = DiscreteQLearningPolicy(
        model=QNet(n_obs, n_act, hidden), action_space=probe.action_space, eps_training=0.1, eps_inference=0.0
    )
    algorithm = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-4), gamma=0.99, target_update_freq=500)
    replay = VectorReplayBuffer(buffer, args.n_envs)
    train_collector = Collector[CollectStats](algorithm, train_envs, replay, exploration_noise=True)
    test_collector = Collector[CollectStats](algorithm, test_envs)
    train_collector.reset()
    train_collector.collect(n_step=batch * args.n_envs)
    algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=train_collector,
            test_collector=None if args.smoke else test_collector,
            max_epochs=args.epochs,
            epoch_num_steps=args.epoch_steps,
            collection_step_num_env_steps=16,
            test_step_num_episodes=max(1, args.eval_games // 10),
            batch_size=batch,
            update_step_num_gradient_steps_per_sample=0.25,
            verbose=False,
            show_progress=False,
        )
    )

    wins = 0
    env = make()
    for game in range(args.eval_games):
        obs, info = env.reset(seed=2_000_000 + game)
        done = False
        while not done:
            with torch.no_grad():
                q = policy.model(obs["obs"][None])[0][0].numpy()
            action = int(np.argmax(np.where(obs["mask"] > 0, q, -np.inf)))
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        wins += bool(info["won"])
    print(f"Tianshou DQN against {args.opponents}: won {wins} of {args.eval_games} evaluation games")


if __name__ == "__main__":
    main()
