"""clue_env: Clue (Cluedo) as a PettingZoo AEC environment.

>>> import clue_env
>>> env = clue_env.env(num_players=4)
>>> env.reset(seed=0)
>>> env.agent_selection
'player_0'
"""

from __future__ import annotations

from .engine.config import RulesConfig, load_rules
from .engine.errors import ClueError, ConfigError, IllegalActionError, InvalidActionTextError, InvalidDealError
from .env import IllegalMoveError, env, raw_env

__version__ = "0.1.0"


def _register() -> None:
    """Register ``clue/clue-v0`` with ``pettingzoo.make`` where that exists (pettingzoo >= 1.27)."""
    try:
        from pettingzoo import register
    except ImportError:  # older pettingzoo: no registry
        return
    try:
        register("aec", "clue/clue-v0", entry_point="clue_env:env")
    except Exception:  # noqa: BLE001 - already registered in this process
        pass


_register()

__all__ = [
    "ClueError",
    "ConfigError",
    "IllegalActionError",
    "IllegalMoveError",
    "InvalidActionTextError",
    "InvalidDealError",
    "RulesConfig",
    "env",
    "load_rules",
    "raw_env",
]
