"""One learning seat among scripted or frozen opponents, as a Gymnasium env (for SB3 and RLlib).

:class:`SingleLearnerEnv` is a :class:`clue_env.single_seat.SeatLoop` (the learner's turn loop,
rewards, truncation and illegal actions are described there) that can vary the player count and
the opponents from game to game, and observes the policy observation: the env's vector plus the
policy pieces of :mod:`clue_env.policy.features`, as one ``Box`` (``action_masks()`` for
MaskablePPO).

Opponents are injected: ``opponents`` is a list of factories ``f(seat, num_players, rules, seed)``
returning an object with ``act(observation, info) -> int`` (and optionally ``reset()``), such as
``agents.make_agent`` partials or a frozen copy of the learner. ``clue_env`` never imports
``agents``; ``train.py`` wires them in. ``opponent_draw`` says how each game seats them
(:data:`OPPONENT_DRAWS`): ``"game"`` draws one factory (by ``opponent_weights``) for every opponent
seat, ``"seat"`` draws one per seat, and ``"lineup"`` seats every factory once, in a random order
around the table (a fixed mixed line-up such as the league's, every circular order in turn).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from ..engine.config import RulesConfig, load_rules
from ..policy.features import POLICY_LAYOUT
from ..single_seat import Actor, OpponentFactory, SeatLoop
from .config import OPPONENT_DRAWS


class SingleLearnerEnv(SeatLoop):
    """A Gymnasium view of one seat of a Clue game (see the module docstring)."""

    metadata = {"render_modes": []}

    def __init__(
        self,
        opponents: Sequence[OpponentFactory] | OpponentFactory,
        *,
        num_players: int | Sequence[int] = 4,
        rules: str | RulesConfig | dict = "classic",
        opponent_weights: Sequence[float] | None = None,
        opponent_draw: str = "game",
        learner_seat: int | None = None,
        illegal: str = "lose",
        illegal_reward: float = -1.0,
        **overrides: Any,
    ) -> None:
        counts = (num_players,) if isinstance(num_players, int) else tuple(num_players)
        factories = list(opponents) if isinstance(opponents, Sequence) else [opponents]
        super().__init__(
            factories,
            counts=counts,
            rules=load_rules(rules, **overrides),
            learner_seat=learner_seat,
            features=True,
            illegal=illegal,
            illegal_reward=illegal_reward,
        )
        if opponent_draw not in OPPONENT_DRAWS:
            raise ValueError(f"opponent_draw must be one of {', '.join(OPPONENT_DRAWS)}, got {opponent_draw!r}")
        if opponent_draw == "lineup":
            if opponent_weights is not None:
                raise ValueError("opponent_weights has no meaning with opponent_draw='lineup' (every opponent plays)")
            wrong = [n for n in counts if n - 1 != len(self.factories)]
            if wrong:
                raise ValueError(
                    f"opponent_draw='lineup' seats each of the {len(self.factories)} opponents once, so every "
                    f"player count must be {len(self.factories) + 1}; got {list(counts)}"
                )
        self.opponent_draw = opponent_draw
        if opponent_weights is None:
            opponent_weights = [1.0] * len(self.factories)
        w = np.asarray(opponent_weights, dtype=float)
        if w.shape != (len(self.factories),) or (w < 0).any() or w.sum() <= 0 or not np.isfinite(w).all():
            raise ValueError(f"opponent_weights must be {len(self.factories)} non-negative numbers with a positive sum")
        self.weights = w / w.sum()
        self.observation_space = gym.spaces.Box(0.0, 1.0, (POLICY_LAYOUT.size,), np.float32)

    def _draw(self, rng: np.random.Generator, n: int, seat: int) -> list[int]:
        if self.opponent_draw == "lineup":
            order = [int(x) for x in rng.permutation(len(self.factories))]
            return order[:seat] + [0] + order[seat:]  # the learner's own entry is never used
        picks = [int(x) for x in rng.choice(len(self.factories), size=n, p=self.weights)]
        return [picks[0]] * n if self.opponent_draw == "game" else picks

    def _wrap(self, vec: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return vec

    def _info(self) -> dict[str, Any]:
        info = super()._info()
        if self._done:
            info["opponents"] = self.episode_opponents
        return info


__all__ = ["SingleLearnerEnv", "OpponentFactory", "Actor"]
