"""The agent interface (SPEC "Agents") and a decoder of what a seat is given.

An agent is built for one seat of one ruleset and player count. ``reset()`` is called before
each game; ``act(observation, info)`` whenever its seat must decide, with exactly what
``env.last()`` gives that seat, and returns a legal action index. Scripted agents never read the
env's hidden state: all they know arrives through those two arguments (R31).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from clue_env.engine.cards import N_ROOMS, N_SUSPECTS
from clue_env.engine.config import RulesConfig, load_rules
from clue_env.engine.game import Phase
from clue_env.observation import LAYOUT


class Agent(ABC):
    """Base class of every agent."""

    #: the text spec the agent was built from (set by ``make_agent``)
    spec: str = ""

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


def legal_actions(observation: dict[str, np.ndarray]) -> np.ndarray:
    return np.flatnonzero(observation["action_mask"])


class ObsView:
    """Named access to one observation vector (see ``python -m clue_env.observation``)."""

    def __init__(self, observation: dict[str, np.ndarray]) -> None:
        self.vec = observation["observation"]
        self.mask = observation["action_mask"]

    def piece(self, name: str) -> np.ndarray:
        return LAYOUT.view(self.vec, name)

    @property
    def hand(self) -> list[int]:
        return [int(c) for c in np.flatnonzero(self.piece("hand"))]

    @property
    def phase(self) -> Phase:
        return Phase(int(np.argmax(self.piece("phase"))))

    @property
    def roll(self) -> int:
        return int(np.argmax(self.piece("roll")))

    @property
    def my_suspect(self) -> int:
        return int(np.argmax(self.piece("seat_character")[0]))

    def suspect_node(self, suspect: int, board) -> int:
        """Board node of a suspect token (room id, hallway node, or -1 off the board)."""
        f = self.piece("suspect_loc")[suspect]
        if f[N_ROOMS + 3] > 0.5:
            return -1
        if f[N_ROOMS] > 0.5:
            r = int(round(f[N_ROOMS + 1] * (board.rows - 1)))
            c = int(round(f[N_ROOMS + 2] * (board.cols - 1)))
            return board.rc_node[(r, c)]
        return int(np.argmax(f[:N_ROOMS]))

    @property
    def my_room_dist(self) -> np.ndarray:
        return self.piece("my_room_dist")

    def seat_of_suspect(self) -> dict[int, int]:
        """rel seat -> suspect for the seats in the game."""
        chars = self.piece("seat_character")
        present = self.piece("seat_present")
        return {k: int(np.argmax(chars[k])) for k in range(len(present)) if present[k] > 0.5}


__all__ = ["Agent", "ObsView", "legal_actions", "N_SUSPECTS"]
