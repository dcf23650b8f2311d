"""Invariant checks and random playouts, for the test suite and ``benchmarks/random_games.py``.

:func:`check_invariants` asserts, for a raw env between steps, everything that must hold in
every position: every card in exactly one place; the acting agent's mask equals the engine's
legal set; every other agent's mask is all zeros; every observation lies in its space; tokens
never share a hallway square; weapons stand in rooms; the turn count is within ``max_turns``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .engine.cards import N_CARDS, N_ROOMS, ROOM_BASE, WEAPON_BASE
from .engine.game import BOARD, ENVELOPE, Phase
from .env import raw_env


class InvariantError(AssertionError):
    """An invariant of the game does not hold."""


def check_invariants(env: raw_env, full_mask_check: bool = True) -> None:
    """Raise :class:`InvariantError` naming the first invariant that fails."""
    g = env.game
    # every card in exactly one place
    places = [0] * N_CARDS
    for seat, hand in enumerate(g.hands):
        for c in hand:
            places[c] += 1
            if g.owner[c] != seat:
                raise InvariantError(f"card {c} is in player_{seat}'s hand but owner says {g.owner[c]}")
    for room, c in g.board_cards.items():  # R30: face down in a room
        places[c] += 1
        if g.owner[c] != BOARD or not 0 <= room < N_ROOMS:
            raise InvariantError(f"board card {c} in room {room} has owner {g.owner[c]}")
    s, w, r = g.envelope
    for c in (s, WEAPON_BASE + w, ROOM_BASE + r):
        places[c] += 1
        if g.owner[c] != ENVELOPE:
            raise InvariantError(f"envelope card {c} has owner {g.owner[c]}")
    if places != [1] * N_CARDS:
        raise InvariantError(f"cards not each in exactly one place: {places}")
    # board
    squares = [node for node in g.loc if node >= N_ROOMS]
    if len(squares) != len(set(squares)):
        raise InvariantError(f"two tokens share a hallway square: {g.loc}")
    if any(not 0 <= room < N_ROOMS for room in g.weapon_loc):
        raise InvariantError(f"a weapon stands outside the rooms: {g.weapon_loc}")
    if not 0 <= g.turn <= g.cfg.max_turns:
        raise InvariantError(f"turn {g.turn} outside 0..{g.cfg.max_turns}")
    # masks
    acting = env.agent_selection
    for agent in env.agents:
        obs = env.observe(agent)
        if not env.observation_space(agent).contains(obs):
            vec = obs["observation"]
            bad = np.flatnonzero((vec < 0) | (vec > 1))[:5]
            raise InvariantError(f"{agent}'s observation leaves its space (indices {bad.tolist()})")
        mask = obs["action_mask"]
        if mask.dtype != np.int8:
            raise InvariantError(f"mask dtype {mask.dtype}, expected int8")
        if agent != acting or g.phase == Phase.OVER:
            if mask.any():
                raise InvariantError(f"{agent} is not to act but has a non-zero mask")
    if g.phase != Phase.OVER:
        if acting != f"player_{g.acting}":
            raise InvariantError(f"agent_selection {acting} but the engine's acting seat is {g.acting}")
        if g.eliminated[g.acting] and g.phase != Phase.REFUTE:
            raise InvariantError(f"eliminated player_{g.acting} acts in phase {g.phase.name}")
        mask = env.observe(acting)["action_mask"]
        if not mask.any():
            raise InvariantError(f"{acting} must act but has no legal action (deadlock) in {g.phase.name}")
        if full_mask_check:
            want = sorted(env.codec.encode(a) for a in g.legal_actions())
            got = np.flatnonzero(mask).tolist()
            if want != got:
                raise InvariantError(f"mask != engine legal set in {g.phase.name}: {len(got)} vs {len(want)} actions")


@dataclass
class PlayoutStats:
    games: int = 0
    steps: int = 0
    truncated: int = 0
    wins: int = 0
    nobody: int = 0
    reasons: dict[str, int] = field(default_factory=dict)


def random_policy(env: raw_env, rng: np.random.Generator, accuse_prob: float) -> int:
    """Uniform among legal non-accusations; an accusation (uniform) with ``accuse_prob`` when legal."""
    mask = env.observe(env.agent_selection)["action_mask"]
    legal = np.flatnonzero(mask)
    acc = env.codec.accuse_slice
    non = legal[(legal < acc.start) | (legal >= acc.stop)]
    if len(non) == 0 or (len(non) < len(legal) and rng.random() < accuse_prob):
        choices = legal
    else:
        choices = non
    return int(choices[int(rng.integers(len(choices)))])


def play_random_game(
    env: raw_env,
    seed: int,
    accuse_prob: float = 0.02,
    check: bool = True,
    stats: PlayoutStats | None = None,
) -> list[int]:
    """Play one random game from ``reset(seed)``, checking invariants after every step.

    Returns the actions played. A game that does not end within ``max_turns`` turns (a
    deadlock or a missing truncation) raises :class:`InvariantError`.
    """
    rng = np.random.default_rng(seed + 7919)
    env.reset(seed=seed)
    actions: list[int] = []
    g = env.game
    limit = 20 * g.cfg.max_turns + 100
    if check:
        check_invariants(env)
    while not g.over:
        a = random_policy(env, rng, accuse_prob)
        env.step(a)
        actions.append(a)
        if check:
            check_invariants(env, full_mask_check=True)
        if len(actions) > limit:
            raise InvariantError(f"seed {seed}: no end after {limit} steps (turn {g.turn})")
    if g.turn > g.cfg.max_turns:
        raise InvariantError(f"seed {seed}: game ran {g.turn} turns > max_turns")
    if stats is not None:
        stats.games += 1
        stats.steps += len(actions)
        stats.truncated += int(g.truncated)
        stats.wins += int(g.winner >= 0)
        stats.nobody += int(g.winner < 0 and not g.truncated)
        stats.reasons[g.over_reason] = stats.reasons.get(g.over_reason, 0) + 1
    return actions
