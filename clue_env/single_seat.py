"""One learning seat of a Clue game among fixed opponents, as a Gymnasium env.

:class:`SeatLoop` owns a :func:`clue_env.raw_env` and steps the opponents itself until the
learner must decide again, including when the learner must refute out of turn (R27). Each
``step`` returns everything the learner earned since its previous action, so the final reward
reaches it when an opponent wins on its own move. The episode ends for the learner when the game
ends, or when a wrong accusation eliminates it (R28: it gets ``reward_wrong_accusation`` at once
and nothing after). Truncation (``max_turns``, R15) is reported as ``truncated``. An illegal
action ends the episode with ``illegal_reward`` (as PettingZoo's ``env()`` does), or, with
``illegal="raise"``, raises :class:`clue_env.IllegalMoveError` and changes nothing.

Opponents are factories ``f(seat, num_players, rules, seed)`` returning an object with
``act(observation, info) -> int`` (and optionally ``reset()``); each gets only its own seat's
``observe`` and ``infos`` (R31). They are built on first use with a seed drawn from the episode's
generator and kept; ``reset(seed=S)`` rebuilds them, so the episode it starts is the same
whatever ran before.

:class:`ClueSeatEnv` is what ``gymnasium.make("clue_env/Clue-v0", ...)`` builds (the registered
entry point, :func:`agents.gym_env.make_env`, turns agent specs into factories; ``clue_env`` never
imports ``agents``). Its observation is the AEC env's ``{"observation", "action_mask"}`` dict for
the learner, ``features=True`` appending the policy features of :mod:`clue_env.policy.features`.
The training adapter (:class:`clue_env.training.adapter.SingleLearnerEnv`) is the other
:class:`SeatLoop`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import gymnasium as gym
import numpy as np

from .engine.config import RulesConfig, load_rules
from .env import ENV_VERSION, raw_env
from .policy.features import BASE_SIZE, POLICY_LAYOUT, SeatFeatures, policy_observation


class Actor(Protocol):
    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int: ...


#: f(seat, num_players, rules, seed) -> an Actor
OpponentFactory = Callable[[int, int, RulesConfig, int], Actor]

#: the Gymnasium id registered by ``import clue_env``
GYM_ID = f"clue_env/Clue-v{ENV_VERSION}"


class SeatLoop(gym.Env, ABC):
    """The learner's turn loop shared by the single-seat envs (see the module docstring).

    Subclasses say which factory plays each seat (:meth:`_draw`) and what the learner observes
    (:meth:`_wrap`)."""

    def __init__(
        self,
        factories: Sequence[OpponentFactory],
        *,
        counts: tuple[int, ...],
        rules: RulesConfig,
        learner_seat: int | None,
        features: bool,
        illegal: str = "lose",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if illegal not in ("lose", "raise"):
            raise ValueError(f"illegal must be 'lose' or 'raise', got {illegal!r}")
        if not counts:
            raise ValueError("num_players must name at least one player count")
        if not factories:
            raise ValueError("at least one opponent is needed")
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.rules = rules
        self.player_counts = counts
        self.render_mode = render_mode
        self._envs = {n: raw_env(num_players=n, rules=rules, render_mode=render_mode) for n in counts}  # validates counts
        if learner_seat is not None and (
            isinstance(learner_seat, bool) or not isinstance(learner_seat, (int, np.integer))
            or not all(0 <= learner_seat < n for n in counts)
        ):  # fmt: skip
            raise ValueError(f"learner_seat {learner_seat!r} does not exist for player counts {list(counts)}")
        self.fixed_seat = None if learner_seat is None else int(learner_seat)
        self.factories = list(factories)
        self.features = bool(features)
        self.obs_size = POLICY_LAYOUT.size if features else BASE_SIZE
        self.n_actions = self._envs[counts[0]].codec.n
        self.action_space = gym.spaces.Discrete(self.n_actions)
        self._cache: dict[tuple[int, int, int], Actor] = {}
        self._seat_features: dict[tuple[int, int], SeatFeatures] = {}
        self._feats: SeatFeatures | None = None
        self.env: raw_env = self._envs[counts[0]]
        self.learner = "player_0"
        self._mask = np.zeros(self.n_actions, dtype=np.int8)
        self._vec = np.zeros(self.obs_size, dtype=np.float32)
        self._opp: list[Actor | None] = []
        self._done = True
        self.episode_opponents: tuple[int, ...] = ()

    # ------------------------------------------------------------------ hooks
    @abstractmethod
    def _draw(self, rng: np.random.Generator, n: int, seat: int) -> list[int]:
        """The factory index of every seat of an ``n``-player game (the learner's entry is unused)."""

    @abstractmethod
    def _wrap(self, vec: np.ndarray, mask: np.ndarray) -> Any:
        """The observation handed to the learner."""

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

    def _observe_learner(self) -> Any:
        env, name = self.env, self.learner
        o = env.observe(name)
        self._mask = o["action_mask"]
        if self.features:
            assert self._feats is not None
            feats = self._feats.update(o["observation"], env.infos[name]["seat_view"].events)
            self._vec = policy_observation(o["observation"], feats)
        else:
            self._vec = o["observation"]
        if self._done:
            self._mask = np.zeros_like(self._mask)
        return self._wrap(self._vec, self._mask)

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
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:  # the episode must not depend on what the cached opponents saw before
            self._cache.clear()
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
        picks = self._draw(rng, n, seat)
        base = int(rng.integers(2**63 - 1))
        self._opp = [None if s == seat else self._opponent(n, s, picks[s], base) for s in range(n)]
        self.episode_opponents = tuple(picks[s] for s in range(n) if s != seat)
        for a in self._opp:
            if a is not None and hasattr(a, "reset"):
                a.reset()
        if self.features:
            key = (n, seat)
            if key not in self._seat_features:
                self._seat_features[key] = SeatFeatures(seat, n)
            self._feats = self._seat_features[key]
            self._feats.reset()
        env.reset(seed=int(rng.integers(2**63 - 1)), options=options)
        self._advance()  # the learner cannot be rewarded before its first decision
        return not env.game_over

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
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
            return self._wrap(self._vec.copy(), self._mask), float(self.illegal_reward), True, False, info
        env.step(int(action))
        reward = env.rewards[name]
        if not env.is_eliminated(name):
            reward += self._advance()
        terminated, truncated = self._finished()
        self._done = terminated or truncated
        return self._observe_learner(), float(reward), terminated, truncated, self._info()

    def _legal(self, action: Any) -> bool:
        try:
            a = int(action)
        except (TypeError, ValueError, OverflowError):
            return False
        return 0 <= a < len(self._mask) and bool(self._mask[a])

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"seat": self.learner, "num_players": self.env.num_players}
        if self._done:
            info["won"] = self.env.winner() == self.learner
            info["wrong_accusation"] = self.env.is_eliminated(self.learner)
        return info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (for sb3-contrib's MaskablePPO), as booleans."""
        return self._mask.astype(bool)

    def seat_info(self) -> dict[str, Any]:
        """What ``env.last()`` gives the learner's seat in the AEC env as its info (its
        :class:`~clue_env.seat_view.SeatView` under ``"seat_view"``): what a scripted agent's
        ``act`` needs, e.g. as a teacher to imitate."""
        return self.env.infos[self.learner]

    def action_to_text(self, index: int) -> str:
        """SPEC text form of a flat action index."""
        return self.env.action_to_text(index)

    def text_to_action(self, text: str) -> int:
        """Flat index of a SPEC text form."""
        return self.env.text_to_action(text)

    def render(self) -> Any:
        """The game as the raw env renders it (the board and the public record; no hands)."""
        return self.env.render()


class _Given:
    """The factory of an agent object passed as an opponent: it plays the one seat it is given."""

    def __init__(self, actor: Actor) -> None:
        self.actor = actor

    def __call__(self, seat: int, num_players: int, rules: RulesConfig, seed: int) -> Actor:
        own = getattr(self.actor, "seat", seat)
        if own != seat:
            raise ValueError(
                f"opponent {self.actor!r} was built for seat {own} but would play seat {seat}: fix learner_seat, "
                "or give a spec or a factory f(seat, num_players, rules, seed)"
            )
        return self.actor


def _factory(opponent: Any, where: str) -> OpponentFactory:
    if callable(getattr(opponent, "act", None)):
        return _Given(opponent)
    if callable(opponent):
        return opponent
    raise TypeError(
        f"{where} is {opponent!r} ({type(opponent).__name__}): an opponent is an agent spec such as 'random', "
        "a factory f(seat, num_players, rules, seed) or an object with act(observation, info)"
    )


class ClueSeatEnv(SeatLoop):
    """``clue_env/Clue-v0``: one learning seat against fixed opponents.

    ``opponents`` is one opponent for every other seat or a list with one per other seat, in
    clockwise order from the learner's left; each is a factory ``f(seat, num_players, rules,
    seed)`` or an agent object (``act(observation, info)``, which then plays one seat only).
    ``num_players`` defaults to the list's length plus one, else 4. ``learner_seat=None`` draws
    the learner's seat each episode; an int fixes it. Further keyword arguments override fields
    of the ruleset (``max_turns=100``)."""

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        opponents: Sequence[Any] | Any,
        *,
        num_players: int | None = None,
        rules: str | RulesConfig | dict = "classic",
        learner_seat: int | None = None,
        features: bool = False,
        illegal: str = "lose",
        render_mode: str | None = None,
        **overrides: Any,
    ) -> None:
        listed = isinstance(opponents, (list, tuple))
        given = list(opponents) if listed else [opponents]
        if num_players is None:
            num_players = len(given) + 1 if listed else 4
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
            raise ValueError(f"num_players must be an int, got {num_players!r}")
        n = int(num_players)
        if listed and len(given) != n - 1 and len(given) != 1:
            raise ValueError(
                f"opponents lists {len(given)} opponents but a {n}-player game has {n - 1} other seats: "
                f"give one per other seat, or a single spec for all of them"
            )
        if not isinstance(features, (bool, np.bool_)):
            raise ValueError(f"features must be True or False, got {features!r}")
        if len(given) == 1:
            given = given * (n - 1)
        objects = [id(o) for o in given if callable(getattr(o, "act", None))]
        if len(objects) != len(set(objects)):
            raise ValueError(
                "one agent object cannot play several seats: give a spec or a factory f(seat, num_players, rules, seed)"
            )
        factories = [_factory(o, f"opponent {i}") for i, o in enumerate(given)]
        super().__init__(
            factories,
            counts=(n,),
            rules=load_rules(rules, **overrides),
            learner_seat=learner_seat,
            features=bool(features),
            illegal=illegal,
            render_mode=render_mode,
        )
        self.num_players = n
        self.observation_space = gym.spaces.Dict(
            {
                "observation": gym.spaces.Box(0.0, 1.0, (self.obs_size,), np.float32),
                "action_mask": gym.spaces.Box(0, 1, (self.n_actions,), np.int8),
            }
        )

    def _draw(self, rng: np.random.Generator, n: int, seat: int) -> list[int]:
        return [(s - seat) % n - 1 for s in range(n)]  # the learner's own entry (-1) is never used

    def _wrap(self, vec: np.ndarray, mask: np.ndarray) -> dict[str, np.ndarray]:
        return {"observation": vec, "action_mask": mask.copy()}


__all__ = ["Actor", "ClueSeatEnv", "GYM_ID", "OpponentFactory", "SeatLoop"]
