"""Playing against the agents: the front-end-independent :class:`GameSession`, the notebook,
and the terminal and web front ends (``python play.py``, ``python play.py --web``)."""

from .notes import Notebook, notebook
from .session import (
    HUMAN,
    AgentFactory,
    AgentFailure,
    AgentMove,
    BadActionText,
    GameOverError,
    GameSession,
    IllegalAction,
    NotASeat,
    NotYourTurn,
    SessionError,
    StaleVersion,
)

__all__ = [
    "HUMAN",
    "AgentFactory",
    "AgentFailure",
    "AgentMove",
    "BadActionText",
    "GameOverError",
    "GameSession",
    "IllegalAction",
    "NotASeat",
    "NotYourTurn",
    "Notebook",
    "SessionError",
    "StaleVersion",
    "notebook",
]
