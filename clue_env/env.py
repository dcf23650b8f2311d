"""Clue as a PettingZoo AEC environment.

# Clue (``clue_v0``)

| | |
|---|---|
| Actions | Discrete, one flat space of 591 (``python -m clue_env actions`` prints the layout) |
| Agents | ``player_0`` ... ``player_{n-1}``, clockwise; 3-6 (classic), 2-6 (edition2023) |
| Observation | ``{"observation": Box(0, 1, (1059,), float32), "action_mask": Box(0, 1, (591,), int8)}`` |
| Import | ``clue_env.env(num_players=4)`` or ``pettingzoo.make("aec", "clue/clue-v0")`` |

``agent_selection`` is whoever must decide now: the player whose turn it is, or the refuter who
must choose which card to show (R27). Seats holding none of the named cards are never asked;
the env records their pass. The mask is all zeros for every other agent.

Observations are seat-relative and hold only what R31 lets the seat know
(``python -m clue_env observation`` prints the layout). ``info["seat_view"]`` is a frozen
:class:`~clue_env.seat_view.SeatView`: everything the seat may know, including its own redacted
history of the game (``.events``; shown cards redacted for everyone but the two seats involved),
so an agent that is not asked to act for a while still learns everything that happened. It has
no reference to the game, and costs next to nothing until one of its fields is read. Once the
game is over, ``info["winner"]`` names the winner.

Rewards: a wrong accusation gives the accuser ``reward_wrong_accusation`` (-1) at once; when
someone wins, the winner gets ``reward_win`` (+1) and every other seat still in the game
``reward_lose`` (-1); truncation (``max_turns``, R15) and "nobody wins" give ``reward_draw`` (0).

Version history: v0 — first release.
"""

from __future__ import annotations

import copy
import difflib
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import wrappers as fast_wrappers
from .codec import ActionCodec, default_codec
from .engine.actions import Action
from .engine.board import OFF_BOARD, classic_board
from .engine.cards import CARDS, ROOMS, SUSPECTS, WEAPON_BASE, WEAPONS, card_index
from .engine.chance import Chance, RandomChance
from .engine.config import RulesConfig, load_rules
from .engine.errors import ClueError, IllegalActionError
from .engine.game import Game, Phase
from .observation import LAYOUT, LAYOUT_WITH_BELIEF, ObservationEncoder
from .seat_view import SeatHistory, SeatInfos, SeatView, SharedLog, build_seat_view
from .state import public_state

_OVER = Phase.OVER  # a global: the enum class attribute costs ~70 ns per read, and this is read per step

RESET_OPTION_KEYS = ("envelope", "hands", "board_cards", "tokens", "weapons")
# PettingZoo's api_test and parallel_test check that reset takes an options argument by calling
# reset(seed=0, options={"options": 1}). That one key is reserved and ignored; every other key not in
# RESET_OPTION_KEYS is refused with a ValueError naming it.
API_PROBE_OPTION = "options"


#: the env's version: bumped, with a row in the version history, whenever a change can alter learning
#: results (the observation or action layout, the rewards); names ``clue_vN``, ``clue/clue-vN`` and
#: ``clue_env/Clue-vN`` (tests/test_env_version.py pins the layouts to it)
ENV_VERSION = 0


class IllegalMoveError(IllegalActionError):
    """An action that is illegal for the acting agent; raised by ``raw_env.step``."""


class raw_env(AECEnv):
    """The bare Clue AEC environment: spaces, actions, rewards and arguments as docs/environment.md gives them."""

    metadata: dict[str, Any] = {
        "name": f"clue_v{ENV_VERSION}",
        "render_modes": ["human", "ansi", "rgb_array"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        num_players: int = 4,
        rules: str | RulesConfig | dict = "classic",
        render_mode: str | None = None,
        belief_features: bool | str = False,
        **overrides: Any,
    ) -> None:
        super().__init__()
        if (
            belief_features not in (False, True, "fast", "sampled")
            or isinstance(belief_features, (int, float))
            and not isinstance(belief_features, bool)
        ):
            raise ValueError(f"belief_features must be False, True (= 'fast') or 'sampled', got {belief_features!r}")
        #: the game's ruleset; agents and callers get :attr:`rules`, a separate read-only copy
        self._rules: RulesConfig = load_rules(rules, **overrides)
        self._public_rules: RulesConfig = copy.deepcopy(self._rules)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.render_mode = render_mode
        self.board = classic_board()
        self.codec: ActionCodec = default_codec()
        self.game = Game(self._rules, num_players, self.board)  # validates num_players
        self.num_players = num_players
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.layout = LAYOUT_WITH_BELIEF if belief_features else LAYOUT
        self.beliefs = None
        if belief_features:
            from .beliefs import BeliefFeatures

            self.beliefs = BeliefFeatures(method="sampled" if belief_features == "sampled" else "fast")
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (self.layout.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (self.codec.n,), np.int8),
            }
        )
        act_space = spaces.Discrete(self.codec.n)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self.encoder = ObservationEncoder(self.board)
        self._zero_mask = np.zeros(self.codec.n, dtype=np.int8)
        self._mask: np.ndarray | None = None
        self._rng = np.random.default_rng()
        #: ``rng -> Chance`` used by :meth:`reset` (default: ``RandomChance(rng)``); tests script
        #: the dice or the first-player rolls with ``lambda rng: ScriptedChance(..., fallback=RandomChance(rng))``
        self.chance_factory: Callable[[np.random.Generator], Chance] | None = None
        self.agents: list[str] = []

    @property
    def rules(self) -> RulesConfig:
        """The ruleset (read-only, like every ruleset). It is a copy, not the game's own object
        (``env.game.cfg``): an agent handed ``env.rules`` cannot reach the game through it."""
        return self._public_rules

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ text
    def action_to_text(self, index: int) -> str:
        """SPEC text form of a flat action index."""
        return self.codec.to_text(index)

    def text_to_action(self, text: str) -> int:
        """Flat index of a SPEC text form (ValueError listing the accepted forms otherwise)."""
        return self.codec.from_text(text)

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game. ``options`` may fix the deal and the position (SPEC):

        ``{"envelope": [suspect, weapon, room], "hands": {"player_0": [...], ...},
        "board_cards": {room: card} (2023 two-player game, R30),
        "tokens": {suspect: room | "R,C" | [R, C] | None}, "weapons": {weapon: room}}``.
        A bad option raises a ValueError naming the problem and leaves the env as it was.
        """
        rng = self._seeded(seed) if seed is not None else self._rng
        game = Game(self._rules, self.num_players, self.board)
        envelope, hands, tokens, weapons = self._parse_options(options)
        board_cards = (options or {}).get("board_cards") if isinstance(options, dict) else None
        state = rng.bit_generator.state  # a refused reset must leave the generator as it was
        try:
            chance = self.chance_factory(rng) if self.chance_factory is not None else RandomChance(rng)
            game.setup(chance, envelope=envelope, hands=hands, board_cards=board_cards)
            if tokens:
                try:
                    game.place_tokens(tokens)  # the whole layout at once: a swap is valid
                except ValueError as e:
                    raise ValueError(f"reset option 'tokens': {e}") from None
            for w, room in weapons.items():
                game.place_weapon(w, room)
        except Exception:
            rng.bit_generator.state = state
            raise
        # commit
        self._rng = rng
        self.game = game
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.encoder.reset(game)
        if self.beliefs is not None:
            self.beliefs.reset(game, rng.spawn(1)[0])
        shared = SharedLog(self.num_players)  # folded once for every seat
        self._histories = [SeatHistory(i, shared) for i in range(self.num_players)]
        self._info_cache: dict[str, dict[str, Any]] = {}
        self.infos = SeatInfos(self.agents, self._info)
        self._mask = None
        self._rewards_dirty = False
        self.agent_selection = self.possible_agents[game.acting]
        self._skip_agent_selection = None

    @staticmethod
    def _seeded(seed: Any) -> np.random.Generator:
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"reset seed must be a non-negative integer or None, got {seed!r}")
        return np.random.default_rng(int(seed))

    def _parse_options(self, options: dict | None) -> tuple[Any, Any, dict[int, int], dict[int, int]]:
        if options is None:
            return None, None, {}, {}
        if not isinstance(options, dict):
            raise ValueError(f"reset options must be a dict, got {type(options).__name__}")
        unknown = [k for k in options if k not in RESET_OPTION_KEYS and k != API_PROBE_OPTION]
        if unknown:  # an unknown key (often a typo such as "envelop") would silently play a random deal
            k = unknown[0]
            close = difflib.get_close_matches(str(k), RESET_OPTION_KEYS, n=1, cutoff=0.6)
            hint = f" did you mean {close[0]!r}?" if close else ""
            raise ValueError(f"unknown reset option {k!r}:{hint} known options: {', '.join(RESET_OPTION_KEYS)}")
        hands = options.get("hands")
        if hands is not None:
            if not isinstance(hands, dict):
                raise ValueError(f"reset option 'hands' must map agent names to card lists, got {hands!r}")
            bad = [a for a in hands if a not in self._seat]
            if bad:
                raise ValueError(f"reset option 'hands' names unknown agent(s) {bad}; agents: {self.possible_agents}")
            hands = {self._seat[a]: cards for a, cards in hands.items()}
        for key in ("tokens", "weapons", "board_cards"):
            v = options.get(key)
            if v is not None and not isinstance(v, dict):
                what = "suspect ids to a room, 'R,C' or None" if key == "tokens" else "ids to room ids"
                raise ValueError(f"reset option {key!r} must be a dict mapping {what}, got {v!r}")
        env_opt = options.get("envelope")
        if env_opt is not None and (
            isinstance(env_opt, (str, bytes)) or not isinstance(env_opt, (list, tuple)) or len(env_opt) != 3
            or not all(isinstance(x, str) for x in env_opt)
        ):  # fmt: skip
            raise ValueError(f"reset option 'envelope' must be [suspect, weapon, room] (three card ids), got {env_opt!r}")
        tokens: dict[int, int] = {}
        for name, where in (options.get("tokens") or {}).items():
            sus = _card_of_kind(name, "suspect", "tokens")
            tokens[sus] = self._parse_node(where, f"tokens[{name!r}]")
        weapons: dict[int, int] = {}
        for name, where in (options.get("weapons") or {}).items():
            w = _card_of_kind(name, "weapon", "weapons")
            if where not in ROOMS:
                raise ValueError(f"reset option weapons[{name!r}] must be a room id ({', '.join(ROOMS)}), got {where!r}")
            weapons[w - WEAPON_BASE] = ROOMS.index(where)
        return options.get("envelope"), hands, tokens, weapons

    def _parse_node(self, where: Any, what: str) -> int:
        if where is None:
            return OFF_BOARD
        if isinstance(where, str) and where in ROOMS:
            return ROOMS.index(where)
        try:
            if isinstance(where, str):
                r, c = (int(x) for x in where.split(","))
            else:
                r, c = (int(x) for x in where)
            return self.board.node_of(r, c)
        except (ValueError, TypeError) as e:
            raise ValueError(f"reset option {what}: {where!r} is neither a room id nor a hallway square R,C ({e})") from None

    # ------------------------------------------------------------------ observe
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        if agent == self.agent_selection and self.game.acting == seat:
            mask = self._legal_mask().copy()
        else:
            mask = self._zero_mask.copy()
        obs = self.encoder.observe(seat)
        if self.beliefs is not None:
            obs = np.concatenate([obs, self.beliefs.features(seat, self.encoder.views[seat])])
        return {"observation": obs, "action_mask": mask}

    def _legal_mask(self) -> np.ndarray:
        """The acting seat's mask (shared, read-only; memoised until the next step)."""
        if self._mask is None:
            self._mask = self.codec.cached_mask(self.game.legal())
        return self._mask

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The acting agent's mask (a read-only view; zeros for anyone else)."""
        agent = agent or self.agent_selection
        return self.observe(agent)["action_mask"]

    # ------------------------------------------------------------------ step
    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        actions = self.codec.actions
        if type(action) is int and 0 <= action < len(actions):  # the common case, checked in full below otherwise
            act = actions[action]
        else:
            act = self._decode_checked(agent, action)
        try:
            game.apply(act)
        except IllegalActionError:
            text = act.to_text(self.board)
            legal = np.flatnonzero(self.codec.mask(game.legal()))
            sample = ", ".join(self.codec.to_text(int(i)) for i in legal[:8])
            raise IllegalMoveError(
                f"{agent} may not play {text!r} (index {self.codec.encode(act)}) in phase {game.phase.name}; "
                f"legal actions ({len(legal)}): {sample}{', ...' if len(legal) > 8 else ''}",
                action=action,
                agent=agent,
            ) from None
        self._mask = None
        self._info_cache.clear()
        self._cumulative_rewards[agent] = 0.0
        self.encoder.update()
        agents = self.agents
        rw = game.rewards
        rewarded = game.rewarded
        if rewarded or self._rewards_dirty:
            rewards = self.rewards
            for i, a in enumerate(agents):
                rewards[a] = rw[i]
            self._rewards_dirty = rewarded
        if game.phase == _OVER:
            if game.truncated:
                self.truncations = {a: True for a in agents}
            else:
                self.terminations = {a: True for a in agents}
        else:
            self.agent_selection = agents[game.acting]
        if rewarded:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _decode_checked(self, agent: str, action: Any) -> Action:
        """The action at index ``action`` (any integer type), or IllegalMoveError saying why not."""
        if not isinstance(action, (int, np.integer)) or isinstance(action, (bool, np.bool_)):
            raise IllegalMoveError(
                f"{agent}: action {action!r} ({type(action).__name__}) is not an action index: actions are integers "
                f"0..{self.codec.n - 1} (text forms go through text_to_action)",
                action=action,
                agent=agent,
            )
        try:
            return self.codec.decode(int(action))
        except (ValueError, TypeError, OverflowError):
            raise IllegalMoveError(
                f"{agent}: action {action!r} is not an action index 0..{self.codec.n - 1}", action=action, agent=agent
            ) from None

    # ------------------------------------------------------------------ public
    @property
    def game_over(self) -> bool:
        """Whether the game has ended (a win, truncation, or nobody left, R15/R28/R29)."""
        return self.game.over

    def is_eliminated(self, agent: str) -> bool:
        """Whether ``agent`` has accused wrongly (R28; public knowledge)."""
        return self.game.eliminated[self._seat[agent]]

    def winner(self) -> str | None:
        """The winning agent once the game is over, else ``None``."""
        w = self.game.winner
        return self.possible_agents[w] if self.game.over and w >= 0 else None

    def seat_view(self, agent: str) -> SeatView:
        """A frozen snapshot of everything R31 lets ``agent`` know, with its legal actions (none
        unless it must act now); no reference to the game (:mod:`clue_env.seat_view`)."""
        if agent not in self._seat:
            raise ValueError(f"unknown agent {agent!r}; agents: {self.possible_agents}")
        seat = self._seat[agent]
        game = self.game
        if not game.over and game.acting == seat:  # decoded to indices when the view's .legal is read
            return build_seat_view(game, seat, self._histories[seat], game.legal())
        return build_seat_view(game, seat, self._histories[seat], ())

    def _info(self, agent: str) -> dict[str, Any]:
        """``infos[agent]``: the seat view (built once per position), and the winner at the end."""
        info = self._info_cache.get(agent)
        if info is None:
            seat = self._seat[agent]
            game = self.game
            if game.over:
                w = game.winner
                info = {"seat_view": build_seat_view(game, seat, self._histories[seat], ())}
                info["winner"] = f"player_{w}" if w >= 0 else None
            else:  # as seat_view(agent)
                legal = game.legal() if game.acting == seat else ()
                info = {"seat_view": build_seat_view(game, seat, self._histories[seat], legal)}
            self._info_cache[agent] = info
        return info

    def public_state(self) -> dict[str, Any]:
        """JSON-serialisable public record (R31): no hands, no envelope, no privately shown card."""
        return public_state(self.game)

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            warnings.warn("render() called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'", stacklevel=2)
            return None
        from . import render as _render

        if self.render_mode == "rgb_array":
            return _render.render_rgb(self.game)
        text = _render.render_text(self.game)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass

    def __str__(self) -> str:
        return f"{self.metadata['name']}({self.num_players} players, {self.rules.name})"


def _card_of_kind(name: Any, kind: str, option: str) -> int:
    try:
        return card_index(name, kind)
    except (ValueError, TypeError) as e:
        raise ValueError(f"reset option {option!r}: {e}") from None


def env(**kwargs: Any) -> AECEnv:
    """The Clue env wrapped as PettingZoo's classic envs are (illegal moves end the game).

    The wrappers are PettingZoo's own, subclassed for one-hop attribute access
    (:mod:`clue_env.wrappers`); :func:`stock_wrapped_env` uses the unmodified classes.
    """
    e: AECEnv = raw_env(**kwargs)
    e = fast_wrappers.TerminateIllegalWrapper(e, -1)
    e = fast_wrappers.AssertOutOfBoundsWrapper(e)
    e = fast_wrappers.OrderEnforcingWrapper(e)
    return e


def stock_wrapped_env(**kwargs: Any) -> AECEnv:
    """``env()`` with PettingZoo's unmodified wrapper classes (for comparison and testing)."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


__all__ = ["env", "raw_env", "IllegalMoveError", "ClueError", "CARDS", "SUSPECTS", "WEAPONS", "ROOMS"]
