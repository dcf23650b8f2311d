"""A bounded memo that keeps what is in use, at the cost of one ``dict`` lookup per hit.

The engine memoises move searches (:meth:`Board.destinations`) and action masks
(:meth:`ActionCodec.cached_mask`). Their entries were measured at about 700 bytes each
(tracemalloc, 6-player 2023 games), so the default sizes below bound them to roughly 23 MB and
12 MB; a long run reaches a steady state instead of growing.

A least-recently-used list (an ``OrderedDict`` and ``move_to_end`` on every hit) cost more per
step than the lookups it saved in the env's speed benchmark; two generations of plain dicts
approximate it: entries live in the young generation; when that fills to half the bound it
becomes the old one (the previous old one is dropped), and an old entry that is hit again moves
back to the young one. So an entry used at least once per half-bound insertions always
survives, and the memo never holds more than ``maxsize`` entries.
"""

from __future__ import annotations

from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

#: measured bytes per memoised move search / action mask (see the module docstring)
ENTRY_BYTES = 700


class MemoCache(Generic[K, V]):
    """``get`` / ``put`` with at most ``maxsize`` entries; what is used stays (see the module)."""

    __slots__ = ("_half", "_old", "_young", "maxsize")

    def __init__(self, maxsize: int) -> None:
        if maxsize < 2:
            raise ValueError(f"maxsize must be >= 2, got {maxsize}")
        self.maxsize = maxsize
        self._half = maxsize // 2
        self._young: dict[K, V] = {}
        self._old: dict[K, V] = {}

    def get(self, key: K) -> V | None:
        v = self._young.get(key)
        if v is None:
            v = self._old.pop(key, None)
            if v is not None:
                self._insert(key, v)
        return v

    def put(self, key: K, value: V) -> None:
        self._old.pop(key, None)
        self._insert(key, value)

    def _insert(self, key: K, value: V) -> None:
        young = self._young
        young[key] = value
        if len(young) >= self._half:
            self._old = young
            self._young = {}

    def __len__(self) -> int:
        return len(self._young) + len(self._old)

    def __contains__(self, key: object) -> bool:
        return key in self._young or key in self._old

    def clear(self) -> None:
        self._young = {}
        self._old = {}


__all__ = ["ENTRY_BYTES", "MemoCache"]
