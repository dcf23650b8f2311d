"""What the one-seat diagnostics share (teacher_agreement.py, time_to_proof.py, phase_swap.py):
a candidate in seat ``game % players`` against ``players - 1`` copies of one opponent, game ``g``
dealt by ``reset(seed=g)`` and every agent seeded from the agent entropy and ``(g, seat)`` (a
shadow agent of the candidate's seat from ``(g, 100)``), so every candidate and variant plays the
same deals with the same opponents' seeds; games in chunks over worker processes; the common flags.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

#: games per job handed to a worker
CHUNK = 20
#: the spawn key of a shadow agent for the candidate's seat
SHADOW_KEY = 100


def agent_seed(entropy: int, *key: int) -> int:
    """The seed of an agent: ``entropy`` spawned by ``key`` (a game and a seat)."""
    return int(np.random.SeedSequence(entropy, spawn_key=key).generate_state(1)[0])


def seat_agents(candidate: str, opponent: str, env: Any, game: int, entropy: int, shadow: str = "") -> tuple[int, list[Any], Any]:
    """``(seat, agents, shadow agent or None)`` for ``game``: the candidate in seat ``game % n``,
    the opponent in the others, each reset; ``shadow``: a spec for a second agent of that seat."""
    from agents import make_agent

    n = env.num_players
    me = game % n
    agents = lineup_agents([candidate if i == me else opponent for i in range(n)], env, game, entropy)
    extra = None
    if shadow:
        extra = make_agent(shadow, seat=me, num_players=n, rules=env.rules, seed=agent_seed(entropy, game, SHADOW_KEY))
        extra.reset()
    return me, agents, extra


def lineup_agents(specs: Sequence[str], env: Any, game: int, entropy: int) -> list[Any]:
    """One agent per seat of ``game`` (``specs`` in seat order), seat ``i`` seeded by
    :func:`agent_seed` ``(entropy, game, i)``, each reset."""
    from agents import make_agent

    n = env.num_players
    agents = [
        make_agent(spec, seat=i, num_players=n, rules=env.rules, seed=agent_seed(entropy, game, i))
        for i, spec in enumerate(specs)
    ]
    for a in agents:
        a.reset()
    return agents


def run_chunks(
    fn: Callable[[tuple[Any, ...]], Any], head: tuple[Any, ...], seed: int, games: int, agent_entropy: int, workers: int
) -> list[Any]:
    """``fn((*head, game_ids, agent_entropy))`` over the games ``seed .. seed + games - 1`` in
    chunks of :data:`CHUNK`, in ``workers`` processes (1: in this one); the results in game order."""
    seeds = list(range(seed, seed + games))
    jobs = [(*head, seeds[i : i + CHUNK], agent_entropy) for i in range(0, games, CHUNK)]
    if workers <= 1:
        return list(map(fn, jobs))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(fn, jobs))


def add_game_arguments(ap: argparse.ArgumentParser, games: int) -> None:
    """The flags every one-seat diagnostic takes."""
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--rules", default="classic")
    ap.add_argument("--games", type=int, default=games)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--agent-seed", type=int, default=5)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", help="write the figures here")


def mean_ci95(values: Sequence[float]) -> tuple[float, float, float]:
    """``(mean, low, high)``: the mean with its normal 95% interval (nan bounds for fewer than 2)."""
    d = np.asarray(values, dtype=float)
    m = float(d.mean())
    half = 1.96 * float(d.std(ddof=1)) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
    return m, m - half, m + half
