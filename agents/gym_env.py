"""The entry point of ``gymnasium.make("clue_env/Clue-v0", ...)``: agent specs to opponents.

``import clue_env`` registers the id with this function's dotted name, so ``clue_env`` itself
never imports ``agents``. Every spec is checked here, by building one agent from it, so a typo
or a missing policy file fails at ``make`` with the agent's own message.
"""

from __future__ import annotations

from typing import Any

from clue_env.engine.config import RulesConfig, load_rules
from clue_env.single_seat import ClueSeatEnv

from . import SpecFactory, make_agent


def make_env(
    opponents: Any = "random",
    num_players: int | None = None,
    rules: str | RulesConfig | dict = "classic",
    learner_seat: int | None = None,
    features: bool = False,
    **kwargs: Any,
) -> ClueSeatEnv:
    """One learning seat against ``opponents``: an agent spec (``"deduction"``) for every other
    seat, or a list with one spec per other seat, clockwise from the learner's left. A list item
    may also be a factory ``f(seat, num_players, rules, seed)`` or an agent object
    (:class:`clue_env.single_seat.ClueSeatEnv` says how those are used)."""
    listed = isinstance(opponents, (list, tuple))
    items = list(opponents) if listed else [opponents]
    n = num_players if num_players is not None else (len(items) + 1 if listed else 4)
    cfg = load_rules(rules) if not isinstance(rules, RulesConfig) else rules
    converted: list[Any] = []
    for item in items:
        if isinstance(item, str):
            factory = SpecFactory(item)  # an unknown agent name fails here
            if isinstance(n, int) and not isinstance(n, bool):
                make_agent(item, seat=1, num_players=n, rules=cfg, seed=0)  # bad parameters or files fail here
            converted.append(factory)
        else:
            converted.append(item)
    return ClueSeatEnv(
        converted if listed else converted[0],
        num_players=num_players,
        rules=rules,
        learner_seat=learner_seat,
        features=features,
        **kwargs,
    )


__all__ = ["make_env"]
