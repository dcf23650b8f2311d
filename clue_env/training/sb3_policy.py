"""sb3-contrib's MaskablePPO policy around :class:`~clue_env.policy.network.CluePolicyNet`.

SB3 builds a policy as features extractor -> ``mlp_extractor`` -> ``action_net`` / ``value_net``.
Here the extractor is the identity (the policy observation is already flat), ``mlp_extractor``
is the structured network (its actor output is the 591 action logits, its critic output the
value), and ``action_net`` / ``value_net`` are identities, so every logit comes from the network
and the mask decides legality.
"""

from __future__ import annotations

from typing import Any

import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from ..policy.network import CluePolicyNet


class _Extractor(nn.Module):
    def __init__(self, net: CluePolicyNet) -> None:
        super().__init__()
        self.net = net
        self.latent_dim_pi = net.n_actions
        self.latent_dim_vf = 1

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, value = self.net.logits_and_value(features)
        return logits, value.unsqueeze(-1)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.net(features)[0]

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.net.logits_and_value(features)[1].unsqueeze(-1)


class CluePolicy(MaskableActorCriticPolicy):
    """``MaskablePPO(CluePolicy, env, policy_kwargs={"net_kwargs": {...}})``."""

    def __init__(self, *args: Any, net_kwargs: dict[str, Any] | None = None, **kwargs: Any) -> None:
        self.net_kwargs = dict(net_kwargs or {})
        kwargs.setdefault("ortho_init", False)
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = _Extractor(CluePolicyNet(**self.net_kwargs))  # type: ignore[assignment]

    def _build(self, lr_schedule: Any) -> None:
        self._build_mlp_extractor()
        self.action_net = nn.Identity()
        self.value_net = nn.Identity()  # type: ignore[assignment]
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)  # type: ignore[call-arg]

    @property
    def net(self) -> CluePolicyNet:
        return self.mlp_extractor.net  # type: ignore[return-value]

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["net_kwargs"] = self.net_kwargs
        return data


class CluePPO(MaskablePPO):
    """MaskablePPO that collects rollouts with one torch thread count and updates with another.

    ``threads = (rollout, update)``: while the environments step in worker processes, the
    policy's batch-of-a-few forward passes want one thread (the other cores are the workers');
    during the gradient updates the workers wait, so the minibatch passes can use every core.
    """

    threads: tuple[int, int] | None = None

    def train(self) -> None:
        if self.threads is None:
            return super().train()
        rollout, update = self.threads
        torch.set_num_threads(update)
        try:
            super().train()
        finally:
            torch.set_num_threads(rollout)

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "threads"]


__all__ = ["CluePolicy", "CluePPO"]
