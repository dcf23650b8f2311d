"""``ppo:PATH``: a trained policy (``ppo`` alone: the policy shipped in ``models/``:
``clue_ppo.pt`` for 3-6 players, ``clue_ppo_2p.pt`` for the two-player game).

The agent keeps its seat's policy features (:class:`clue_env.training.features.SeatFeatures`)
from the observation and ``info["seat_view"].events`` it is handed, exactly as in training, and plays the
network's most probable legal action, so its play is deterministic given the game. Needs the
``train`` extra (torch).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from . import register_agent
from .base import Agent

#: the policies shipped with the project
MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models")
#: the shipped policy for 3-6 players (trained on classic; configs/train/shipped.yaml + finetune.yaml)
SHIPPED_POLICY = os.path.join(MODELS, "clue_ppo.pt")
#: the shipped policy for the two-player game (trained on 2023 rules, R30; configs/train/two_player.yaml)
SHIPPED_POLICY_2P = os.path.join(MODELS, "clue_ppo_2p.pt")


def shipped_policy(num_players: int) -> str:
    """The policy file ``ppo`` (no path) plays with ``num_players`` players."""
    return SHIPPED_POLICY_2P if num_players == 2 else SHIPPED_POLICY


_NETS: dict[str, Any] = {}


def _net(path: str) -> Any:
    """The network in ``path``, loaded once per process (and again when the file changes)."""
    try:
        st = os.stat(path)
        key: Any = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
    except OSError:
        key = os.path.abspath(path)  # load_policy reports the missing file
    if key not in _NETS:
        from clue_env.training.checkpoint import load_policy

        _NETS[key] = load_policy(path)[0]
    return _NETS[key]


class PPOAgent(Agent):
    def __init__(
        self, seat: int, num_players: int, rules: Any = "classic", seed: int | None = None, path: str = "", net: Any = None
    ) -> None:
        try:
            import torch
        except ModuleNotFoundError:
            raise ValueError("the ppo agent needs torch: pip install -e '.[train]'") from None
        from clue_env.training.features import POLICY_LAYOUT, SeatFeatures

        self._torch = torch
        torch.set_num_threads(1)  # batch-1 inference: one thread is fastest and leaves the other core free
        self.path = path or shipped_policy(num_players)
        self.net = net if net is not None else _net(self.path)
        self.features = SeatFeatures(seat, num_players)
        self._size = POLICY_LAYOUT.size
        self._buf = np.zeros(self._size, dtype=np.float32)
        super().__init__(seat, num_players, rules, seed)

    def reset(self) -> None:
        self.features.reset()

    def policy_input(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> np.ndarray:
        obs = observation["observation"]
        if obs.shape[0] == self._size:  # already a policy observation (training adapter)
            return obs
        from clue_env.training.features import policy_observation

        f = self.features.update(obs, info["seat_view"].events)
        return policy_observation(obs, f, self._buf)

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        x = self.policy_input(observation, info)
        mask = observation["action_mask"]
        torch = self._torch
        with torch.inference_mode():
            logits, _ = self.net(torch.from_numpy(x).unsqueeze(0))
        logits = logits[0].numpy()
        legal = np.flatnonzero(mask)
        return int(legal[int(np.argmax(logits[legal]))])


def _make(seat: int, num_players: int, rules: Any = "classic", seed: int | None = None, path: str = "", **kw: Any) -> PPOAgent:
    return PPOAgent(seat, num_players, rules, seed, path=path, **kw)


register_agent("ppo", _make)
