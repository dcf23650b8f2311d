"""What the knowledge modules share: the contradiction error, the work budget, the posterior."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


class Contradiction(ValueError):
    """The evidence admits no deal."""


class BudgetExceeded(Exception):
    pass


def bits(mask: int) -> list[int]:
    """The indices of the set bits of ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


@dataclass
class Posterior:
    """Probabilities under a uniform prior over consistent deals."""

    #: marginals[c, loc] = P(card c is at location loc); columns: holders..., envelope
    marginals: np.ndarray
    #: P(envelope == triple) for every triple with non-zero probability (cards as flat indices)
    triples: dict[tuple[int, int, int], float]
    #: True when counted exactly; False when estimated from samples
    exact: bool
    #: number of consistent deals (exact) or of samples (estimate)
    count: float
