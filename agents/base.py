"""The agent interface (SPEC "Agents").

An agent is built for one seat of one ruleset and player count. ``reset()`` is called before
each game; ``act(observation, info)`` whenever its seat must decide, with exactly what
``env.last()`` gives that seat, and returns a legal action index. Scripted agents never read the
env's hidden state: all they know arrives through those two arguments (R31). The scripted
agents decide from ``info["seat_view"]`` (:class:`clue_env.seat_view.SeatView`), never by
decoding the observation vector.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from clue_env.engine.config import RulesConfig, load_rules


class Agent(ABC):
    """Base class of every agent."""

    #: the text spec the agent was built from (set by ``make_agent``)
    spec: str = ""
    #: set by whoever wants :meth:`account` after each decision (``evaluate.py --replays``); an
    #: agent may keep what its account needs only then, so that ordinary games pay nothing
    explain: bool = False

    def __init__(self, seat: int, num_players: int, rules: str | RulesConfig = "classic", seed: int | None = None) -> None:
        self.seat = seat
        self.num_players = num_players
        self.rules = load_rules(rules) if not isinstance(rules, RulesConfig) else rules
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.reset()

    def reset(self) -> None:  # noqa: B027 - optional hook
        """Called before each game."""

    @abstractmethod
    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        """A legal action index for what the seat was given."""

    def account(self) -> dict[str, Any] | None:
        """The agent's own account of its last decision, as plain JSON data (``None``: it gives
        none). Only what the seat itself knew or believed (R31); reading it changes nothing."""
        return None


def legal_actions(observation: dict[str, np.ndarray]) -> np.ndarray:
    return np.flatnonzero(observation["action_mask"])


__all__ = ["Agent", "legal_actions"]
