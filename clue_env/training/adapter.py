"""One learning seat among scripted or frozen opponents, as a Gymnasium env (for SB3).

:class:`SingleLearnerEnv` owns a :func:`clue_env.raw_env`. Each episode it picks the player
count, the learning seat and the opponents (with the adapter's seeded generator), then steps
the opponents itself until the learner must decide again, including when the learner must refute
out of turn (R27). The learner receives only its own observation (the env's vector plus the
policy pieces of :mod:`clue_env.policy.features`), and ``action_masks()`` for MaskablePPO.

Rewards: each ``step`` returns everything the learner earned since its previous action, so the
final reward reaches it when an opponent wins on its own move. The episode ends for the learner
when the game ends, or when the learner is eliminated by a wrong accusation (R28: it gets
``reward_wrong_accusation`` at once and nothing after; it would only refute from then on).
Truncation (R15) is reported as ``truncated``. An illegal action ends the episode with
``illegal_reward`` for the learner (as PettingZoo's ``env()`` does), or, with
``illegal="raise"``, raises :class:`clue_env.IllegalMoveError` and changes nothing.

Opponents are injected: ``opponents`` is a list of factories ``f(seat, num_players, rules, seed)``
returning an object with ``act(observation, info) -> int`` (and optionally ``reset()``), such as
``agents.make_agent`` partials or a frozen copy of the learner. ``clue_env`` never imports
``agents``; ``train.py`` wires them in. ``opponent_draw`` says how each game seats them
(:data:`OPPONENT_DRAWS`): ``"game"`` draws one factory (by ``opponent_weights``) for every opponent
seat, ``"seat"`` draws one per seat, and ``"lineup"`` seats every factory once, in a random order
around the table (a fixed mixed line-up such as the league's, every circular order in turn).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import gymnasium as gym
import numpy as np

from ..engine.config import RulesConfig, load_rules
from ..env import raw_env
from ..policy.features import POLICY_LAYOUT, SeatFeatures, policy_observation
from .config import OPPONENT_DRAWS


class Actor(Protocol):
    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int: ...


#: f(seat, num_players, rules, seed) -> an Actor
OpponentFactory = Callable[[int, int, RulesConfig, int], Actor]


class SingleLearnerEnv(gym.Env):
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
        super().__init__()
        if illegal not in ("lose", "raise"):
            raise ValueError(f"illegal must be 'lose' or 'raise', got {illegal!r}")
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.rules = load_rules(rules, **overrides)
        counts = (num_players,) if isinstance(num_players, int) else tuple(num_players)
        if not counts:
            raise ValueError("num_players must name at least one player count")
        self.player_counts = counts
        self._envs = {n: raw_env(num_players=n, rules=self.rules) for n in counts}  # validates counts
        self.factories = list(opponents) if isinstance(opponents, Sequence) else [opponents]
        if not self.factories:
            raise ValueError("at least one opponent factory is needed")
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
        if learner_seat is not None and not all(0 <= learner_seat < n for n in counts):
            raise ValueError(f"learner_seat {learner_seat} does not exist for player counts {counts}")
        self.fixed_seat = learner_seat
        self.observation_space = gym.spaces.Box(0.0, 1.0, (POLICY_LAYOUT.size,), np.float32)
        self.action_space = gym.spaces.Discrete(self._envs[counts[0]].codec.n)
        self._cache: dict[tuple[int, int, int], Actor] = {}
        self._features: dict[tuple[int, int], SeatFeatures] = {}
        self.env: raw_env = self._envs[counts[0]]
        self.learner = "player_0"
        self._mask = np.zeros(self.action_space.n, dtype=np.int8)
        self._obs = np.zeros(POLICY_LAYOUT.size, dtype=np.float32)
        self._opp: list[Actor | None] = []
        self._done = True
        self.episode_opponents: tuple[int, ...] = ()

    # ------------------------------------------------------------------ helpers
    def _opponent(self, n: int, seat: int, which: int, base: int) -> Actor:
        """The cached actor of factory ``which`` for seat ``seat`` of ``n`` (built on first use,
        with a seed drawn from ``base``, so resets always consume the same random draws)."""
        key = (n, seat, which)
        actor = self._cache.get(key)
        if actor is None:
            seed = int(np.random.SeedSequence([base, n, seat, which]).generate_state(1)[0])
            actor = self._cache[key] = self.factories[which](seat, n, self.rules, seed)
        return actor

    def _observe_learner(self) -> np.ndarray:
        env, name = self.env, self.learner
        o = env.observe(name)
        self._mask = o["action_mask"]
        feats = self._seat_features.update(o["observation"], env.infos[name]["seat_view"].events)
        self._obs = policy_observation(o["observation"], feats)
        return self._obs

    def _advance(self) -> float:
        """Step the opponents until the learner must act or its episode ends; their rewards."""
        env, name = self.env, self.learner
        total = 0.0
        names = env.possible_agents
        while not env.game_over:
            acting = env.agent_selection
            if acting == name:
                break
            actor = self._opp[names.index(acting)]
            assert actor is not None
            env.step(int(actor.act(env.observe(acting), env.infos[acting])))
            total += env.rewards[name]
            if env.is_eliminated(name):
                break
        return total

    def _finished(self) -> tuple[bool, bool]:
        env = self.env
        if env.game_over:
            truncated = bool(env.truncations[self.learner])
            return (not truncated, truncated)
        return (env.is_eliminated(self.learner), False)

    # ------------------------------------------------------------------ gymnasium
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        for _ in range(1000):  # a game an opponent wins before the learner's first decision is replayed
            if self._new_game(options):
                break
        else:
            raise RuntimeError("the opponents ended 1000 games in a row before the learner could act")
        self._done = False
        return self._observe_learner(), self._info()

    def _new_game(self, options: dict[str, Any] | None) -> bool:
        rng = self.np_random
        n = int(self.player_counts[int(rng.integers(len(self.player_counts)))])
        self.env = env = self._envs[n]
        seat = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(n))
        self.learner = env.possible_agents[seat]
        if self.opponent_draw == "lineup":
            order = [int(x) for x in rng.permutation(len(self.factories))]
            picks = order[:seat] + [0] + order[seat:]  # the learner's own entry is never used
        else:
            picks = [int(x) for x in rng.choice(len(self.factories), size=n, p=self.weights)]
            if self.opponent_draw == "game":
                picks = [picks[0]] * n
        base = int(rng.integers(2**63 - 1))
        self._opp = [None if s == seat else self._opponent(n, s, picks[s], base) for s in range(n)]
        self.episode_opponents = tuple(picks[s] for s in range(n) if s != seat)
        for a in self._opp:
            if a is not None and hasattr(a, "reset"):
                a.reset()
        key = (n, seat)
        if key not in self._features:
            self._features[key] = SeatFeatures(seat, n)
        self._seat_features = self._features[key]
        self._seat_features.reset()
        env.reset(seed=int(rng.integers(2**63 - 1)), options=options)
        self._advance()  # the learner cannot be rewarded before its first decision
        return not env.game_over

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("step() called after the episode ended; call reset()")
        env, name = self.env, self.learner
        if not self._legal(action):
            if self.illegal == "raise":
                env.step(action)  # raises IllegalMoveError naming the action; nothing changes
            # as PettingZoo's TerminateIllegalWrapper does for env(): the learner loses at once
            self._done = True
            self._mask = np.zeros_like(self._mask)
            info = self._info()
            info["illegal_action"] = True
            return self._obs.copy(), float(self.illegal_reward), True, False, info
        env.step(int(action))
        reward = env.rewards[name]
        if not env.is_eliminated(name):
            reward += self._advance()
        terminated, truncated = self._finished()
        self._done = terminated or truncated
        obs = self._observe_learner()
        if self._done:
            self._mask = np.zeros_like(self._mask)
        return obs, float(reward), terminated, truncated, self._info()

    def _legal(self, action: Any) -> bool:
        try:
            a = int(action)
        except (TypeError, ValueError, OverflowError):
            return False
        return 0 <= a < len(self._mask) and bool(self._mask[a])

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"seat": self.learner, "num_players": self.env.num_players}
        if self._done:
            w = self.env.winner()
            info["won"] = w == self.learner
            info["wrong_accusation"] = self.env.is_eliminated(self.learner)
            info["opponents"] = self.episode_opponents
        return info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (for sb3-contrib's MaskablePPO), as booleans."""
        return self._mask.astype(bool)


__all__ = ["SingleLearnerEnv", "OpponentFactory", "Actor"]
