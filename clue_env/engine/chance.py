"""Chance, made explicit: every random draw of a game goes through one :class:`Chance` object.

The engine never draws random numbers itself. The env builds a :class:`RandomChance` from its
seeded ``numpy.random.Generator`` (same seed, same game); a test passes a
:class:`ScriptedChance` to fix what it needs (the dice, the R10 first-player rolls) instead of
searching for a seed that happens to produce it.

The draws, by rule:

* the deal (R5, R6, R30): :meth:`Chance.index` picks each envelope card, :meth:`Chance.permutation`
  shuffles the rest and the face-down cards' rooms;
* the Clue-card deck (R24) and the weapons' rooms (R8): :meth:`Chance.permutation`;
* the first player under the 2023 rules (R10): one :meth:`Chance.die` per contender and round;
* every roll of the dice (R12, R23): :meth:`Chance.dice`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Chance(Protocol):
    """Where a game's randomness comes from."""

    def permutation(self, n: int) -> Sequence[int] | np.ndarray:
        """A uniformly random ordering of ``0..n-1``."""
        ...

    def index(self, n: int) -> int:
        """A uniformly random integer in ``0..n-1``."""
        ...

    def die(self, faces: int) -> int:
        """One die: ``1..faces``."""
        ...

    def dice(self, num_dice: int, faces: int) -> tuple[int, ...]:
        """``num_dice`` dice: each ``1..faces``."""
        ...


class RandomChance:
    """Chance from a ``numpy.random.Generator`` (the env's, seeded by ``reset(seed=...)``)."""

    __slots__ = ("rng",)

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def permutation(self, n: int) -> np.ndarray:
        return self.rng.permutation(n)

    def index(self, n: int) -> int:
        return int(self.rng.integers(n))

    def die(self, faces: int) -> int:
        return int(self.rng.integers(1, faces + 1))

    def dice(self, num_dice: int, faces: int) -> tuple[int, ...]:
        if num_dice == 1:
            return (int(self.rng.integers(1, faces + 1)),)
        return tuple(int(x) for x in self.rng.integers(1, faces + 1, size=num_dice))


class ScriptedChance:
    """Chance for tests: queued dice and die results first, then (optionally) a fallback.

    ``rolls``: whole rolls returned by :meth:`dice`, in order; ``dies``: single dice returned by
    :meth:`die` (the R10 first-player rolls); ``permutations``: orderings returned by
    :meth:`permutation`. When a queue is empty the draw goes to ``fallback`` (a
    :class:`RandomChance` seeded with ``seed`` by default; an env's ``chance_factory`` passes
    one over the env's own generator), or raises with ``strict=True``, so
    a test can assert that a rule needs exactly the draws it scripted. :attr:`drawn` records
    every draw made, by kind.
    """

    def __init__(
        self,
        rolls: Iterable[Sequence[int]] = (),
        dies: Iterable[int] = (),
        permutations: Iterable[Sequence[int]] = (),
        seed: int = 0,
        strict: bool = False,
        fallback: Chance | None = None,
    ) -> None:
        self.rolls = [tuple(int(f) for f in r) for r in rolls]
        self.dies = [int(d) for d in dies]
        self.permutations = [list(p) for p in permutations]
        self.fallback = fallback if fallback is not None else RandomChance(np.random.default_rng(seed))
        self.strict = strict
        self.drawn: dict[str, list[object]] = {"permutation": [], "index": [], "die": [], "dice": []}

    def _empty(self, what: str) -> None:
        if self.strict:
            raise LookupError(f"ScriptedChance: no scripted {what} left")

    def permutation(self, n: int) -> Sequence[int]:
        if self.permutations:
            p = self.permutations.pop(0)
            if sorted(p) != list(range(n)):
                raise ValueError(f"scripted permutation {p} is not an ordering of 0..{n - 1}")
        else:
            self._empty("permutation")
            p = [int(x) for x in self.fallback.permutation(n)]
        self.drawn["permutation"].append(p)
        return p

    def index(self, n: int) -> int:
        self._empty("index")
        i = self.fallback.index(n)
        self.drawn["index"].append(i)
        return i

    def die(self, faces: int) -> int:
        if self.dies:
            d = self.dies.pop(0)
        else:
            self._empty("die")
            d = self.fallback.die(faces)
        if not 1 <= d <= faces:
            raise ValueError(f"scripted die {d} is not a face of a {faces}-sided die")
        self.drawn["die"].append(d)
        return d

    def dice(self, num_dice: int, faces: int) -> tuple[int, ...]:
        if self.rolls:
            r = self.rolls.pop(0)
        else:
            self._empty("roll")
            r = self.fallback.dice(num_dice, faces)
        if len(r) != num_dice or not all(1 <= f <= faces for f in r):
            raise ValueError(f"scripted roll {r} is not {num_dice} dice of {faces} faces")
        self.drawn["dice"].append(r)
        return r


def as_chance(source: Chance | np.random.Generator) -> Chance:
    """A :class:`Chance` for ``source`` (a Generator is wrapped in :class:`RandomChance`)."""
    if isinstance(source, np.random.Generator):
        return RandomChance(source)
    if isinstance(source, Chance):
        return source
    raise TypeError(f"chance must be a Chance or a numpy Generator, got {type(source).__name__}")


__all__ = ["Chance", "RandomChance", "ScriptedChance", "as_chance"]
