"""A least-recently-used cache with a fixed number of entries, sized from measured entry sizes.

The engine memoises move searches (:meth:`Board.destinations`) and action masks
(:meth:`ActionCodec.cached_mask`). Their entries were measured at about 700 bytes each
(tracemalloc, 6-player 2023 games), so the default sizes below bound them to roughly 23 MB and
12 MB; a long run reaches a steady state instead of growing (issue 9, item 10).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

#: measured bytes per memoised move search / action mask (see the module docstring)
ENTRY_BYTES = 700


class LRUCache(Generic[K, V]):
    """``get`` / ``put`` with at most ``maxsize`` entries; the least recently used goes first."""

    __slots__ = ("_d", "maxsize")

    def __init__(self, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError(f"maxsize must be >= 1, got {maxsize}")
        self.maxsize = maxsize
        self._d: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        d = self._d
        v = d.get(key)
        if v is not None:
            d.move_to_end(key)
        return v

    def put(self, key: K, value: V) -> None:
        d = self._d
        d[key] = value
        d.move_to_end(key)
        if len(d) > self.maxsize:
            d.popitem(last=False)

    def __len__(self) -> int:
        return len(self._d)

    def clear(self) -> None:
        self._d.clear()


__all__ = ["ENTRY_BYTES", "LRUCache"]
