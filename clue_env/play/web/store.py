"""The web server's games in memory: unguessable ids, per-seat secret tokens, caps and idle timeout.

Nothing here knows HTTP. A :class:`GameStore` creates :class:`WebGame` entries (each a
:class:`~clue_env.play.session.GameSession` plus a lock and the seats' tokens), finds a game
and the seat a token belongs to (tokens compared in constant time), lets agents move (one
decision per ``agent_delay`` seconds, so that a browser sees their moves one by one, or all at
once with ``agent_delay=0``), and forgets games idle for ``idle_timeout`` seconds. At most
``max_games`` games are kept; creating one more first forgets the games idle past their timeout,
then, if the store is still full, the finished game that has waited longest past
``finished_grace`` seconds (kept that long for its seats' last views), or is refused.

A creation on behalf of a client (its remote address, an IPv6 one by its /64) is refused while
that client holds ``max_live_per_client`` unfinished games, and is rate-limited: a bucket of
``creation_burst`` creations, refilled by one every ``creation_interval`` seconds. A seat may
end its game (:meth:`GameStore.end`), which frees the slot at once.
"""

from __future__ import annotations

import hmac
import ipaddress
import math
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..session import AgentFactory, GameSession
from .rate_limit import ClientLimit, TokenBucket

#: the agent specs a web client may seat by default (never ``ppo:PATH``: a client must not make
#: the server load a file of its choosing)
DEFAULT_ALLOWED_SPECS = ("human", "ppo", "deduction", "notebook", "random", "uniform")
RULESETS = ("classic", "edition2023")
PLAYERS = {"classic": (3, 6), "edition2023": (2, 6)}


class StoreFull(Exception):
    """Every game slot is taken by a game that is neither idle nor finished a while ago."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        #: seconds until a slot may be free (a game's idle timeout or finished grace ends)
        self.retry_after = retry_after


def client_key(address: str | None) -> str:
    """The key a client is counted under: its IP address, an IPv6 address by its /64 network;
    anything that is not an IP address, one shared key (a name never mints a bucket of its own)."""
    if not address:
        return "unknown"
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return "unknown"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))  # one host usually holds a whole /64
    return str(ip)


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
    #: who created it (:func:`client_key`), or None (created off the API)
    client: str | None = None
    #: whether the deal and the dice were fixed by a seed the creator chose
    seeded: bool = False
    #: when the store first saw it over (its clock), or None
    finished: float | None = None
    #: the seats' notebook (``clue_env.play.notes.MODES``), chosen at creation
    notes: str = "facts"

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
        max_live_per_client: int = 8,
        creation_burst: int = 10,
        creation_interval: float = 6.0,
        finished_grace: float = 60.0,
    ) -> None:
        if max_games < 1:
            raise ValueError(f"max_games must be at least 1, got {max_games}")
        if not idle_timeout > 0:
            raise ValueError(f"idle_timeout must be positive, got {idle_timeout}")
        if not agent_delay >= 0:
            raise ValueError(f"agent_delay must be >= 0 seconds, got {agent_delay}")
        if max_live_per_client < 1 or creation_burst < 1:
            raise ValueError("max_live_per_client and creation_burst must be at least 1")
        if not creation_interval >= 0 or not finished_grace >= 0:
            raise ValueError("creation_interval and finished_grace must be >= 0 seconds")
        self.agent_factory = agent_factory
        self.max_games = max_games
        self.idle_timeout = idle_timeout
        self.agent_delay = agent_delay
        self.allowed_specs = tuple(allowed_specs)
        self.clock = clock
        self.max_live_per_client = max_live_per_client
        self.creation_burst = creation_burst
        self.creation_interval = creation_interval
        self.finished_grace = finished_grace
        #: agents' seeds: children of this (fresh entropy by default; never the game's seed, R31)
        self._agent_seeds = np.random.SeedSequence(agent_seed)
        self._games: dict[str, WebGame] = {}
        #: per client: creations left in its bucket
        self._creations = TokenBucket(creation_burst, creation_interval, clock=lambda: self.clock())
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def create(
        self,
        seats: Sequence[str],
        rules: str,
        seed: int | None,
        options: dict[str, Any] | None = None,
        client: str | None = None,
    ) -> WebGame:
        """A new game (``options``: reset options, for tests only; the API never passes them).
        ``client``: who asks (:func:`client_key`), held to the per-client limits; ``None``: no limits.
        Refused with :class:`ClientLimit` or :class:`StoreFull`."""
        self.purge()
        with self._lock:
            if client is not None:
                self._admit(client)
            self._make_room()
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
            client=client,
            seeded=seed is not None,
        )
        with self._lock:
            self._make_room()
            if client is not None and self._live(client) >= self.max_live_per_client:
                raise self._too_many(client)
            self._games[game.id] = game
        return game

    def _live(self, client: str) -> int:
        return sum(1 for g in self._games.values() if g.client == client and not g.session.over)

    def _too_many(self, client: str) -> ClientLimit:
        return ClientLimit(
            f"this client already has {self.max_live_per_client} unfinished games here, its limit: finish one, or end "
            "one with DELETE /api/games/GAME_ID",
            retry_after=60,
        )

    def _admit(self, client: str) -> None:
        """Take one creation from ``client``'s bucket (call with the lock held); ClientLimit if it cannot."""
        if self._live(client) >= self.max_live_per_client:
            raise self._too_many(client)
        self._creations.take(client, "new games")

    def _make_room(self) -> None:
        """With the lock held: if the store is full, forget the finished game longest past its
        grace; StoreFull if there is none."""
        if len(self._games) < self.max_games:
            return
        now = self.clock()
        done = [(max(g.finished, g.last_seen), gid) for gid, g in self._games.items() if g.finished is not None]
        evictable = [(t, gid) for t, gid in done if now - t > self.finished_grace]
        if evictable:
            del self._games[min(evictable)[1]]
            return
        # when a slot may free up: a game's idle timeout, or a finished game's grace, runs out
        ends = [g.last_seen + self.idle_timeout for g in self._games.values()] + [t + self.finished_grace for t, _ in done]
        wait = max(1, math.ceil(min(ends) - now)) if ends else 1
        raise StoreFull(f"the server holds {self.max_games} games, its limit; try again later", retry_after=wait)

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

    def end(self, game_id: str) -> bool:
        """End (abandon) a game: it is forgotten at once and its slot freed; whether it was held."""
        with self._lock:
            return self._games.pop(game_id, None) is not None

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
        try:
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
        finally:
            if game.finished is None and session.over:
                game.finished = self.clock()


__all__ = ["DEFAULT_ALLOWED_SPECS", "PLAYERS", "RULESETS", "ClientLimit", "GameStore", "StoreFull", "WebGame", "client_key"]
