"""Error types of the rules engine. All are ``ValueError`` subclasses."""

from __future__ import annotations


class ClueError(ValueError):
    """Base class of clue_env's errors."""


class IllegalActionError(ClueError):
    """An action that is not legal for the acting seat in the current position.

    Raised before anything changes: the game state is exactly as it was.
    """

    def __init__(self, message: str, *, action: object = None, agent: str | None = None) -> None:
        super().__init__(message)
        self.action = action
        self.agent = agent


class InvalidActionTextError(ClueError):
    """Action text that names no action (bad form, unknown card, bad square)."""


class InvalidDealError(ClueError):
    """A deal in reset options that is not a valid partition of the cards."""


class ConfigError(ClueError):
    """An unknown config key or a bad value."""
