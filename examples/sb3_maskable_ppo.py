"""sb3-contrib's MaskablePPO on clue_env/Clue-v0.

    python examples/sb3_maskable_ppo.py --opponents random --timesteps 300000
    python examples/sb3_maskable_ppo.py --smoke        # a few seconds: CI runs this

MaskablePPO reads the legal actions from ``env.action_masks()``. A fresh policy is uniform over
them and would accuse on its first step, so :class:`AccuseWhenProved` (this script's choice, not
the env's) hides the accusations until the seat's knowledge proves the solution (the ``solution``
piece of ``features=True``), and then offers only the proven one. ``--no-shaping`` uses the env's
mask alone.
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import numpy as np
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env

import clue_env  # noqa: F401 - registers clue_env/Clue-v0
from clue_env.engine.cards import CARDS
from clue_env.policy.features import POLICY_LAYOUT


class AccuseWhenProved(gym.Wrapper):
    """The env's mask with the accusations hidden until the seat has proved the solution."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.solution = POLICY_LAYOUT.slice("solution")
        self.first_accusation = env.unwrapped.text_to_action("accuse scarlet candlestick kitchen")
        self.proof = np.zeros(len(CARDS) + 1)

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        self.proof = obs["observation"][self.solution]
        return obs, info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.proof = obs["observation"][self.solution]
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        legal = self.env.unwrapped.action_masks()
        mask = legal.copy()
        mask[self.first_accusation :] = False
        if self.proof[-1] > 0.5:  # the envelope's three cards, proved from what the seat knows
            proven = self.env.unwrapped.text_to_action("accuse " + " ".join(CARDS[c] for c in np.flatnonzero(self.proof[:-1])))
            mask[proven] = legal[proven]
        return mask


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--opponents", default="random", help="agent spec for every other seat (default: random)")
    p.add_argument("--num-players", type=int, default=4)
    p.add_argument("--rules", default="classic")
    p.add_argument("--timesteps", type=int, default=300_000)
    p.add_argument("--n-envs", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-games", type=int, default=50)
    p.add_argument("--no-shaping", action="store_true", help="the env's mask alone (the policy then accuses at once)")
    p.add_argument("--save", default="", help="save the model here (MaskablePPO.save)")
    p.add_argument("--smoke", action="store_true", help="a tiny run (seconds): CI runs every example this way")
    args = p.parse_args()
    n_steps, batch = 256, 64
    if args.smoke:
        args.timesteps, args.n_envs, args.eval_games, n_steps, batch = 128, 2, 1, 64, 32

    kwargs = {"opponents": args.opponents, "num_players": args.num_players, "rules": args.rules, "features": True}
    wrapper = None if args.no_shaping else AccuseWhenProved
    envs = make_vec_env("clue_env/Clue-v0", n_envs=args.n_envs, seed=args.seed, env_kwargs=kwargs, wrapper_class=wrapper)
    model = MaskablePPO("MultiInputPolicy", envs, n_steps=n_steps, batch_size=batch, seed=args.seed, verbose=0)
    model.learn(total_timesteps=args.timesteps)
    if args.save:
        model.save(args.save)

    env = gym.make("clue_env/Clue-v0", **kwargs)
    env = AccuseWhenProved(env) if wrapper else env
    wins = 0
    for game in range(args.eval_games):
        obs, info = env.reset(seed=1_000_000 + game)
        done = False
        while not done:
            masks = env.action_masks() if wrapper else env.unwrapped.action_masks()
            action, _ = model.predict(obs, action_masks=masks)
            obs, reward, terminated, truncated, info = env.step(int(action))
            done = terminated or truncated
        wins += bool(info["won"])
    print(f"MaskablePPO against {args.opponents}: won {wins} of {args.eval_games} evaluation games")


if __name__ == "__main__":
    main()
