"""The web server's games in memory: unguessable ids, per-seat secret tokens, caps and idle timeout.

Nothing here knows HTTP. A :class:`GameStore` creates :class:`WebGame` entries (each a
:class:`~clue_env.play.session.GameSession` plus a lock and the seats' tokens), finds a game
and the seat a token belongs to (tokens compared in constant time), lets agents move (one
decision per ``agent_delay`` seconds, so that a browser sees their moves one by one, or all at
once with ``agent_delay=0``), and forgets games idle for ``idle_timeout`` seconds. At most
``max_games`` games are kept; creating one more evicts the longest-idle game past its timeout,
or is refused.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..session import AgentFactory, GameSession

#: the agent specs a web client may seat by default (never ``ppo:PATH``: a client must not make
#: the server load a file of its choosing)
DEFAULT_ALLOWED_SPECS = ("human", "ppo", "deduction", "notebook", "random", "uniform")
RULESETS = ("classic", "edition2023")
PLAYERS = {"classic": (3, 6), "edition2023": (2, 6)}


class StoreFull(Exception):
    """Every game slot is taken by a game that is not idle."""


@dataclass
class WebGame:
    id: str
    session: GameSession
    #: seat -> secret token (human seats only)
    tokens: dict[int, str]
    created: float
    last_seen: float
    last_agent_step: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def seat_for(self, token: str) -> int | None:
        """The seat whose token is ``token`` (constant-time comparisons, every seat tried)."""
        found = None
        given = token.encode("utf-8", "surrogatepass")
        for seat, tok in self.tokens.items():
            if hmac.compare_digest(tok.encode(), given):
                found = seat
        return found


class GameStore:
    def __init__(
        self,
        agent_factory: AgentFactory | None,
        *,
        max_games: int = 64,
        idle_timeout: float = 2 * 3600.0,
        agent_delay: float = 0.3,
        allowed_specs: Sequence[str] = DEFAULT_ALLOWED_SPECS,
        clock: Callable[[], float] = time.monotonic,
        agent_seed: int | None = None,
    ) -> None:
        if max_games < 1:
            raise ValueError(f"max_games must be at least 1, got {max_games}")
        if not idle_timeout > 0:
            raise ValueError(f"idle_timeout must be positive, got {idle_timeout}")
        if not agent_delay >= 0:
            raise ValueError(f"agent_delay must be >= 0 seconds, got {agent_delay}")
        self.agent_factory = agent_factory
        self.max_games = max_games
        self.idle_timeout = idle_timeout
        self.agent_delay = agent_delay
        self.allowed_specs = tuple(allowed_specs)
        self.clock = clock
        #: agents' seeds: children of this (fresh entropy by default; never the game's seed, R31)
        self._agent_seeds = np.random.SeedSequence(agent_seed)
        self._games: dict[str, WebGame] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def create(self, seats: Sequence[str], rules: str, seed: int | None, options: dict[str, Any] | None = None) -> WebGame:
        """A new game (``options``: reset options, for tests only; the API never passes them)."""
        self.purge()
        with self._lock:
            if len(self._games) >= self.max_games:
                raise StoreFull(f"the server holds {self.max_games} games, its limit; try again later")
        with self._lock:
            agent_seed = int(self._agent_seeds.spawn(1)[0].generate_state(1)[0])
        session = GameSession(
            seats, agent_factory=self.agent_factory, rules=rules, seed=seed, agent_seed=agent_seed, options=options
        )
        now = self.clock()
        game = WebGame(
            id=secrets.token_urlsafe(18),
            session=session,
            tokens={seat: secrets.token_urlsafe(24) for seat in session.humans},
            created=now,
            last_seen=now,
        )
        with self._lock:
            if len(self._games) >= self.max_games:
                raise StoreFull(f"the server holds {self.max_games} games, its limit; try again later")
            self._games[game.id] = game
        return game

    def get(self, game_id: str) -> WebGame | None:
        with self._lock:
            game = self._games.get(game_id)
        if game is None:
            return None
        now = self.clock()
        if now - game.last_seen > self.idle_timeout:
            self.drop(game_id)
            return None
        game.last_seen = now
        return game

    def drop(self, game_id: str) -> None:
        with self._lock:
            self._games.pop(game_id, None)

    def purge(self) -> int:
        """Forget the games idle for longer than the timeout; how many."""
        now = self.clock()
        with self._lock:
            old = [gid for gid, g in self._games.items() if now - g.last_seen > self.idle_timeout]
            for gid in old:
                del self._games[gid]
        return len(old)

    def tick(self, game: WebGame) -> int:
        """Let the agents move (call with ``game.lock`` held): with ``agent_delay`` 0 until a human
        must act; else at most one decision, once ``agent_delay`` has passed since the last."""
        session = game.session
        if not session.agent_to_act:
            return 0
        if self.agent_delay <= 0:
            return len(session.advance())
        now = self.clock()
        if now - game.last_agent_step < self.agent_delay:
            return 0
        session.step_agent()
        game.last_agent_step = now
        return 1


__all__ = ["DEFAULT_ALLOWED_SPECS", "PLAYERS", "RULESETS", "GameStore", "StoreFull", "WebGame"]
