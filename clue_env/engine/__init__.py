"""Pure rules engine for Clue: no gymnasium or pettingzoo imports (layering, DESIGN-NOTES)."""

from .actions import Action, Kind, parse_action
from .board import OFF_BOARD, Board, classic_board, load_board
from .cards import CARDS, ROOMS, SUSPECTS, WEAPONS
from .config import RulesConfig, load_rules
from .errors import ClueError, ConfigError, IllegalActionError, InvalidActionTextError, InvalidDealError
from .game import Game, Legal, Phase, redact

__all__ = [
    "Action",
    "Board",
    "CARDS",
    "ClueError",
    "ConfigError",
    "Game",
    "IllegalActionError",
    "InvalidActionTextError",
    "InvalidDealError",
    "Kind",
    "Legal",
    "OFF_BOARD",
    "Phase",
    "ROOMS",
    "RulesConfig",
    "SUSPECTS",
    "WEAPONS",
    "classic_board",
    "load_board",
    "load_rules",
    "parse_action",
    "redact",
]
