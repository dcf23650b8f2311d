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
from .env import ENV_VERSION, IllegalMoveError, env, raw_env

__version__ = "0.1.0"


def _register() -> None:
    """Register ``clue/clue-vN`` with ``pettingzoo.make`` where that exists (pettingzoo >= 1.27), and
    ``clue_env/Clue-vN``, one learning seat against agents (:mod:`clue_env.single_seat`), with Gymnasium."""
    import gymnasium

    if f"clue_env/Clue-v{ENV_VERSION}" not in gymnasium.registry:  # the entry point is a string: agents is not imported
        gymnasium.register(id=f"clue_env/Clue-v{ENV_VERSION}", entry_point="agents.gym_env:make_env")
    try:
        from pettingzoo import register
    except ImportError:  # older pettingzoo: no registry
        return
    try:
        register("aec", f"clue/clue-v{ENV_VERSION}", entry_point="clue_env:env")
    except Exception:  # noqa: BLE001 - already registered in this process
        pass


_register()

__all__ = [
    "ClueError",
    "ConfigError",
    "ENV_VERSION",
    "IllegalActionError",
    "IllegalMoveError",
    "InvalidActionTextError",
    "InvalidDealError",
    "RulesConfig",
    "env",
    "load_rules",
    "raw_env",
]
