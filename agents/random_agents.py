"""The two random baselines (SPEC): ``uniform`` and ``random``."""

from __future__ import annotations

from typing import Any

import numpy as np

from clue_env.codec import default_codec

from .base import Agent, legal_actions

_ACCUSE = default_codec().accuse_slice


class UniformAgent(Agent):
    """Uniform among all legal actions (so it accuses, wrongly, on its first turn)."""

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        legal = legal_actions(observation)
        return int(legal[int(self.rng.integers(len(legal)))])


class RandomAgent(Agent):
    """Uniform among the legal actions other than accusations: the "random" baseline."""

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        legal = legal_actions(observation)
        non = legal[(legal < _ACCUSE.start) | (legal >= _ACCUSE.stop)]
        pool = non if len(non) else legal
        return int(pool[int(self.rng.integers(len(pool)))])
