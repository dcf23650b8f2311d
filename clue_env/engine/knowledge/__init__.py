"""Deduction over everything one seat has witnessed (R3's detective notebook, done exactly).

A :class:`Knowledge` holds the evidence a seat has (R31):

* its own hand and every card shown to it (``holds``);
* passes: the seat holds none of the named cards (``lacks``);
* refutations between other seats: the refuter holds at least one of the named cards
  (``has_one_of``, a *clause*);
* hand sizes (public), one card of each kind in the envelope (R5);
* wrong accusations: that triple is not the solution (``not_solution``);
* cards revealed to all / held by nobody (2023, R25/R30) via ``holds`` / ``nobody_holds``.

From it, it derives

* **certain facts** by constraint propagation (sound, fast): :meth:`propagate`,
  :meth:`location`, :meth:`envelope_certain`; and a complete test of whether the solution is
  certain (:meth:`solution_if_certain`), which proves every other envelope impossible by search;
* the **posterior** under a uniform prior over deals consistent with the evidence: the
  probability of every card's location and of every envelope triple. :meth:`posterior` counts
  the consistent deals exactly (a dynamic programme over holders with a work budget), which is
  always feasible on reduced decks and late in full-deck games; otherwise it estimates them from
  a Markov chain over consistent deals (swap moves with a uniform stationary distribution), whose
  error against exact counts is measured in the test suite.

Locations are holder indices: seats ``0..n-1``, then any extra holders (e.g. the 2023
two-player game's board, R30), then the envelope (``self.ENV``). Decks may be reduced (e.g. 3
suspects x 3 weapons x 3 rooms) for testing against brute force.
"""

from .base import BudgetExceeded, Contradiction, Posterior
from .evidence import Evidence
from .exact import ExactCounting
from .sampling import Knowledge

__all__ = ["BudgetExceeded", "Contradiction", "Evidence", "ExactCounting", "Knowledge", "Posterior"]
