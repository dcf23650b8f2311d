"""The project's policy network as an RLlib ``TorchRLModule`` with action masking (``backend: rllib``).

The env runners see the adapter's observation as a dict ``{"observations": vector, "action_mask":
mask}`` (:class:`MaskedObsEnv`; RLlib's action-masking convention). The module runs
:class:`~clue_env.policy.network.CluePolicyNet` on the vector and sets the logit of every illegal
action to :data:`MASKED_LOGIT`, a large finite negative number: a legal action is never outweighed,
and an all-zero mask (the adapter's after an episode ends) gives equal finite logits, not NaN.
The value comes from the network's value head (RLlib's ``ValueFunctionAPI``).

Imports ray: only :mod:`clue_env.training.rllib_backend` imports this module, and only for
``backend: rllib``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule

from ..policy.network import CluePolicyNet

#: the logit an illegal action gets (SB3-contrib's MaskableCategorical uses -1e8)
MASKED_LOGIT = -1e8
#: the observation keys RLlib's action-masking modules use
OBS_KEY = "observations"
MASK_KEY = "action_mask"


class MaskedObsEnv(gym.Wrapper):
    """The adapter env with the observation as ``{"observations": vector, "action_mask": float32 mask}``.

    ``salt`` (the env runner's index) is mixed into a reset's seed: RLlib seeds runner ``w``'s envs with
    ``seed + w + i``, so without it runner 1's env 1 and runner 2's env 0 would deal the same games."""

    def __init__(self, env: Any, salt: int = 0) -> None:
        super().__init__(env)
        self.salt = int(salt)
        n = int(env.action_space.n)
        self.observation_space = gym.spaces.Dict(
            {OBS_KEY: env.observation_space, MASK_KEY: gym.spaces.Box(0.0, 1.0, (n,), np.float32)}
        )

    def _obs(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        masks = self.env.unwrapped.action_masks()  # type: ignore[attr-defined]
        return {OBS_KEY: obs, MASK_KEY: masks.astype(np.float32)}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        if seed is not None:
            seed = int(np.random.SeedSequence([int(seed), self.salt]).generate_state(1)[0])
        obs, info = self.env.reset(seed=seed, options=options)
        return self._obs(obs), info

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if terminated or truncated:
            info = _plain_info(info)
        return self._obs(obs), float(reward), terminated, truncated, info


def _plain_info(info: dict[str, Any]) -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in info.items()}


class CluePolicyModule(TorchRLModule, ValueFunctionAPI):
    """:class:`CluePolicyNet` (sizes from ``model_config``: hidden, card_hidden, context_to_card) with masking."""

    def setup(self) -> None:
        cfg = dict(self.model_config or {})
        self.net = CluePolicyNet(
            hidden=int(cfg.get("hidden", 256)),
            card_hidden=int(cfg.get("card_hidden", 64)),
            context_to_card=int(cfg.get("context_to_card", 64)),
        )

    @staticmethod
    def masked(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return torch.where(mask > 0, logits, torch.full_like(logits, MASKED_LOGIT))

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits, h = self.net(obs[OBS_KEY])
        return {Columns.ACTION_DIST_INPUTS: self.masked(logits, obs[MASK_KEY]), Columns.EMBEDDINGS: h}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._forward(batch, **kwargs)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        if embeddings is None:
            _logits, embeddings = self.net(batch[Columns.OBS][OBS_KEY])
        return self.net.value_head(embeddings).squeeze(-1)


__all__ = ["CluePolicyModule", "MaskedObsEnv", "MASKED_LOGIT", "OBS_KEY", "MASK_KEY"]
