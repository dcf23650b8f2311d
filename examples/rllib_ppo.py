"""Ray RLlib's PPO on clue_env/Clue-v0, with RLlib's action-masking RLModule (needs the [ray] extra).

    .venv-ray/bin/python examples/rllib_ppo.py --iterations 50
    .venv-ray/bin/python examples/rllib_ppo.py --smoke      # under a minute: CI runs this in .venv-ray

RLlib's ``ActionMaskingTorchRLModule`` reads ``{"observations", "action_mask"}``:
:class:`RLlibObs` renames the env's keys and, as the other examples do, hides the accusations
until the seat's knowledge proves the solution (``features=True``'s ``solution`` piece), then
offers only the proven one (``--no-shaping``: the env's mask alone). The project's own RLlib
training is ``train.py --backend rllib`` (docs/distributed.md).
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import numpy as np
import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env

import clue_env  # noqa: F401 - registers clue_env/Clue-v0
from clue_env.engine.cards import CARDS
from clue_env.policy.features import POLICY_LAYOUT


class RLlibObs(gym.ObservationWrapper):
    """``{"observations": vector, "action_mask": float mask}``, accusations hidden until proved."""

    def __init__(self, env: gym.Env, shaping: bool = True) -> None:
        super().__init__(env)
        inner = env.observation_space
        mask_space = gym.spaces.Box(0.0, 1.0, inner["action_mask"].shape, np.float32)
        self.observation_space = gym.spaces.Dict({"observations": inner["observation"], "action_mask": mask_space})
        self.shaping = shaping
        self.solution = POLICY_LAYOUT.slice("solution")
        self.first_accusation = env.unwrapped.text_to_action("accuse scarlet candlestick kitchen")

    def observation(self, observation: dict) -> dict:
        mask = observation["action_mask"].astype(np.float32)
        proof = observation["observation"][self.solution]
        if self.shaping and mask[: self.first_accusation].any():
            proven = -1
            if proof[-1] > 0.5:  # the envelope's three cards, proved from what the seat knows
                proven = self.env.unwrapped.text_to_action("accuse " + " ".join(CARDS[c] for c in np.flatnonzero(proof[:-1])))
            keep = mask[proven] if proven >= 0 else 0.0
            mask[self.first_accusation :] = 0.0
            if proven >= 0:
                mask[proven] = keep
        return {"observations": observation["observation"], "action_mask": mask}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--opponents", default="random", help="agent spec for every other seat (default: random)")
    p.add_argument("--num-players", type=int, default=4)
    p.add_argument("--rules", default="classic")
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--num-env-runners", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-shaping", action="store_true", help="the env's mask alone (the policy then accuses at once)")
    p.add_argument("--smoke", action="store_true", help="a tiny run: CI runs every example this way")
    args = p.parse_args()
    batch, minibatch, hidden = 4000, 500, [256, 256]
    if args.smoke:
        args.iterations, args.num_env_runners, batch, minibatch, hidden = 1, 0, 128, 64, [32]

    env_config = {
        "opponents": args.opponents,
        "num_players": args.num_players,
        "rules": args.rules,
        "shaping": not args.no_shaping,
    }

    def make(config: dict) -> gym.Env:
        kwargs = {k: v for k, v in config.items() if k != "shaping"}
        return RLlibObs(gym.make("clue_env/Clue-v0", features=True, **kwargs), shaping=config["shaping"])

    register_env("clue_rllib", make)
    ray.init(num_cpus=max(1, args.num_env_runners) + 1, include_dashboard=False, log_to_driver=False)
    config = (
        PPOConfig()
        .environment("clue_rllib", env_config=env_config)
        .env_runners(num_env_runners=args.num_env_runners)
        .rl_module(rl_module_spec=RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config={"fcnet_hiddens": hidden}))
        .training(train_batch_size_per_learner=batch, minibatch_size=minibatch, num_epochs=4, lr=3e-4)
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    try:
        for it in range(1, args.iterations + 1):
            runners = algo.train()["env_runners"]
            ret = runners.get("episode_return_mean", float("nan"))
            print(f"iteration {it}: {runners.get('num_episodes', 0)} episodes, mean return {ret:.2f} (won +1, lost -1)")
    finally:
        algo.stop()
        ray.shutdown()


if __name__ == "__main__":
    main()
