"""A per-client token bucket: ``burst`` requests at once, then one every ``interval`` seconds.

Used for what costs the server work on a client's say-so: creating a game
(:class:`~clue_env.play.web.store.GameStore`) and loading a replay, which plays the whole game
again (:mod:`~clue_env.play.web.replay_routes`). Clients are keyed as
:func:`~clue_env.play.web.store.client_key` makes them (an IP address, IPv6 by its /64; anything
that is not an IP address, one shared key) from the connection's own address: the server reads
``X-Forwarded-For`` only from the proxies an operator names (``play.py --forwarded-allow-ips``).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable


class ClientLimit(Exception):
    """This client may not do this now (too many live games, or too many requests)."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        #: seconds after which trying again may succeed
        self.retry_after = retry_after


class TokenBucket:
    """``take(client, what)`` spends one token of ``client``'s bucket or raises :class:`ClientLimit`
    naming ``what`` and when to try again. Thread-safe. At most ``max_clients`` buckets are kept:
    beyond that the full ones (nothing to remember) are forgotten."""

    def __init__(self, burst: int, interval: float, clock: Callable[[], float] = time.monotonic, max_clients: int = 4096) -> None:
        if burst < 1:
            raise ValueError(f"a rate limit's burst must be at least 1, got {burst}")
        if not interval >= 0:
            raise ValueError(f"a rate limit's interval must be >= 0 seconds, got {interval}")
        self.burst = burst
        self.interval = interval
        self.clock = clock
        self.max_clients = max_clients
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def _level(self, tokens: float, then: float, now: float) -> float:
        if self.interval <= 0:
            return float(self.burst)
        return min(float(self.burst), tokens + (now - then) / self.interval)

    def take(self, client: str, what: str) -> None:
        with self._lock:
            now = self.clock()
            tokens, then = self._buckets.get(client, (float(self.burst), now))
            tokens = self._level(tokens, then, now)
            if tokens < 1.0:
                self._buckets[client] = (tokens, now)
                wait = math.ceil((1.0 - tokens) * self.interval)
                raise ClientLimit(
                    f"too many {what} from this client: at most {self.burst} at once, then one every "
                    f"{self.interval:g} s; try again in {wait} s",
                    retry_after=max(1, wait),
                )
            self._buckets[client] = (tokens - 1.0, now)
            if len(self._buckets) > self.max_clients:
                for c in [c for c, (t, when) in self._buckets.items() if self._level(t, when, now) >= self.burst]:
                    del self._buckets[c]

    def spend(self, client: str, tokens: float) -> None:
        """Take up to ``tokens`` more from ``client``'s bucket without refusing: the work they pay
        for is done; an emptied bucket refuses the client's next :meth:`take` until it refills."""
        with self._lock:
            now = self.clock()
            level, then = self._buckets.get(client, (float(self.burst), now))
            self._buckets[client] = (max(0.0, self._level(level, then, now) - max(0.0, tokens)), now)

    def __len__(self) -> int:
        """The clients remembered (for tests and monitoring)."""
        return len(self._buckets)


__all__ = ["ClientLimit", "TokenBucket"]
