"""Tournaments: N games with balanced seating, in parallel, with Wilson confidence intervals.

Used by ``evaluate.py``. Game ``g`` is played from ``reset(seed=seed + g)``; its seats come from
the line-up's balanced seating cycle (:func:`arrangements`: every distinct seat arrangement,
in blocks of one circular order's rotations), so every spec sits in every seat equally often and
has every other spec beside it equally often. Each agent gets its own seed derived from
``(agent_seed, g, seat)``. With ``control=SPEC`` the same games are played again with the
first-listed spec's seats played by SPEC, for a paired comparison. Results do not depend on the
number of workers.
"""

from __future__ import annotations

import functools
import itertools
import math
import os
import secrets
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, as_completed, wait
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import clue_env
from clue_env.engine.config import RulesConfig
from clue_env.engine.events import Accuse

Z95 = 1.959963984540054


def wilson(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval of a binomial proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if wins == 0 else max(0.0, centre - half)
    hi = 1.0 if wins == n else min(1.0, centre + half)
    return (lo, hi)


@functools.lru_cache(maxsize=256)
def circular_orders(lineup: tuple[str, ...]) -> tuple[tuple[tuple[str, ...], ...], ...]:
    """The distinct circular orders of a line-up (a multiset of specs), each as its ``p``
    rotations (``rotations[r] = order[r:] + order[:r]``, a symmetric order such as
    ``a,b,a,b`` repeating some). The first is the line-up as given; the others follow in order of
    first appearance among the permutations of the given order. A function of the specs only."""
    p = len(lineup)
    seen: set[tuple[str, ...]] = set()
    orders = []
    for perm in dict.fromkeys(itertools.permutations(lineup)):
        if perm not in seen:
            rotations = tuple(perm[r:] + perm[:r] for r in range(p))
            seen.update(rotations)
            orders.append(rotations)
    return tuple(orders)


@functools.lru_cache(maxsize=256)
def arrangements(lineup: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """The balanced seating cycle of a line-up: game ``g`` of a tournament uses entry
    ``g % len(cycle)``. Blocks of ``p`` games, each the ``p`` rotations of one circular order, so
    every prefix of a multiple of ``p`` games seats each spec equally often in each seat, and a
    full cycle holds every distinct arrangement equally often (``p! / prod(m_i!)`` arrangements
    for multiplicities ``m_i``), hence every spec beside every other as often as a random seating
    would on average. A line-up whose arrangements are just its rotations (all specs equal, or
    one spec against copies of another) gives the plain rotation ``lineup[(i + g) % p]``.

    A circular order with rotational symmetry (``a,b,a,b``) has fewer distinct rotations than
    ``p``; its block would repeat them, so the other orders' blocks are repeated as often (the
    cycle is then a multiple of the number of arrangements) to keep every arrangement equally
    weighted."""
    if len(set(lineup)) == 1:
        return (lineup,)
    orders = circular_orders(lineup)
    p = len(lineup)
    folds = [p // len(set(rots)) for rots in orders]  # how often a block repeats each arrangement
    reps = math.lcm(*folds)
    return tuple(rot for rep in range(reps) for rots, fold in zip(orders, folds) if rep % fold == 0 for rot in rots)


@dataclass(frozen=True)
class Schedule:
    """Who sits where in each game: one line-up (a tournament) or several (a league, game ``g``
    using line-up ``g % L`` at its arrangement ``(g // L) % len(cycle)``). Picklable."""

    lineups: tuple[tuple[str, ...], ...]

    @classmethod
    def of(cls, specs: Sequence[str]) -> Schedule:
        return cls((tuple(specs),))

    @property
    def num_players(self) -> int:
        return len(self.lineups[0])

    @property
    def specs(self) -> list[str]:
        """The distinct specs, in order of first appearance."""
        return list(dict.fromkeys(s for lineup in self.lineups for s in lineup))

    @property
    def candidate(self) -> str:
        """The first-listed spec (the one ``control`` replaces)."""
        return self.lineups[0][0]

    @property
    def cycle(self) -> int:
        """Games after which the whole schedule repeats."""
        return len(self.lineups) * math.lcm(*(len(arrangements(lu)) for lu in self.lineups))

    @property
    def block(self) -> int:
        """Every prefix of a multiple of this many games seats each spec equally often in each seat."""
        return len(self.lineups) * self.num_players

    @property
    def orders(self) -> int:
        """Circular orders in all line-ups together."""
        return sum(len(circular_orders(lu)) for lu in self.lineups)

    def seats(self, index: int) -> list[str]:
        lineup = self.lineups[index % len(self.lineups)]
        cycle = arrangements(lineup)
        return list(cycle[(index // len(self.lineups)) % len(cycle)])


@dataclass
class GameResult:
    index: int
    seats: list[str]
    winner: int  # seat, -1 nobody
    turns: int
    truncated: bool
    wrong_accusations: list[int]
    decisions: int
    seconds: float
    control: bool = False  # a game of the control run
    replay_error: str | None = None  # why its replay file was not written (``replays`` asked for)


def play_game(
    specs: Sequence[str] | Schedule,
    rules: str | RulesConfig,
    seed: int,
    index: int,
    agent_seed: int | None = None,
    *,
    control: str | None = None,
    replays: str | None = None,
) -> GameResult:
    """Play game ``index`` of a tournament (seats from the balanced seating cycle of ``specs``, or
    from a :class:`Schedule`; the env reset with ``seed + index``). With ``control``, the
    candidate's seats (the first-listed spec's) are played by ``control`` instead. Agents' seeds
    come from ``agent_seed`` (fresh entropy when ``None``), never from ``seed``: see
    :func:`run_tournament`. ``replays``: a directory to write the game's replay file in."""
    schedule = specs if isinstance(specs, Schedule) else Schedule.of(specs)
    seats = schedule.seats(index)
    if control is not None:
        seats = [control if s == schedule.candidate else s for s in seats]
    return play_seats(seats, rules, seed, index, agent_seed, control=control is not None, replays=replays)


def play_seats(
    seats: list[str],
    rules: str | RulesConfig,
    seed: int,
    index: int,
    agent_seed: int | None,
    *,
    control: bool = False,
    replays: str | None = None,
) -> GameResult:
    """Play one game with these agents in these seats (env seed ``seed + index``); with
    ``replays``, also write its replay file in that directory (:func:`record_game`)."""
    import time

    from agents import make_agent

    p = len(seats)
    env = clue_env.raw_env(num_players=p, rules=rules)
    agent_seeds = [agent_seed_for(agent_seed, index, i) for i in range(p)]
    agents = [make_agent(spec, seat=i, num_players=p, rules=env.rules, seed=agent_seeds[i])
              for i, spec in enumerate(seats)]  # fmt: skip
    for a in agents:
        a.reset()
    env.reset(seed=seed + index)
    g = env.game
    t0 = time.perf_counter()
    decisions = 0
    names = env.possible_agents
    replay_error = None
    if replays is not None:
        decisions, replay_error = record_game(env, agents, seats, agent_seeds, seed + index, index, control, replays)
    while not g.over:
        seat = g.acting
        name = names[seat]
        action = agents[seat].act(env.observe(name), env.infos[name])
        env.step(action)
        decisions += 1
    wrong = [0] * p
    for ev in g.log:
        if isinstance(ev, Accuse) and not ev.correct:
            wrong[ev.seat] += 1
    seconds = time.perf_counter() - t0
    return GameResult(index, seats, g.winner, g.turn, g.truncated, wrong, decisions, seconds, control, replay_error)


def record_game(
    env: Any, agents: Sequence[Any], seats: Sequence[str], agent_seeds: Sequence[int], seed: int, index: int,
    control: bool, directory: str,
) -> tuple[int, str | None]:  # fmt: skip
    """Play the game in ``env`` to its end, recording every decision (and each agent's own
    account of it, where it gives one: ``Agent.account``), then write its replay file
    (:func:`clue_env.replay.replay_name`) in ``directory`` with
    :func:`agents.output.write_new_file` (never through a symlink, FIFO or file planted at the
    name). The number of decisions, and ``None`` or, when the file could not be written, a line
    saying why (``"game_00003_seed_3.json: a directory has that name"``): the game still counts."""
    from clue_env.replay import MAX_STEPS, dumps, make_replay, outcome_of, replay_name

    from .output import write_new_file

    for a in agents:
        a.explain = True
    g = env.game
    names = env.possible_agents
    actions: list[int] = []
    actors: list[int] = []
    accounts: list[dict[str, Any] | None] = []
    while not g.over:
        seat = g.acting
        name = names[seat]
        agent = agents[seat]
        action = agent.act(env.observe(name), env.infos[name])
        account = getattr(agent, "account", None)
        accounts.append(account() if account is not None else None)
        env.step(action)
        actions.append(int(action))
        actors.append(int(seat))
    doc = make_replay(
        rules=env.rules, num_players=len(seats), seed=seed, seats=list(zip(seats, agent_seeds)), actions=actions,
        actors=actors, outcome=outcome_of(env), accounts=accounts, game=index,
    )  # fmt: skip
    name = replay_name(index, seed, control)
    if len(actions) > MAX_STEPS:  # a file the replay readers would refuse: not written
        return len(actions), f"{name}: {len(actions):,} decisions, over the {MAX_STEPS:,} a replay may hold"
    try:
        write_new_file(directory, name, dumps(doc), prefix=".clue_replay.")
    except OSError as e:
        return len(actions), f"{name}: {e.strerror or e}"
    return len(actions), None


def agent_seed_for(agent_seed: int | None, index: int, seat: int) -> int:
    """The seed of the agent in ``seat`` of game ``index``: a child of the tournament's agent
    entropy (``numpy.random.SeedSequence``), independent of the env's seed, so an agent cannot
    recover the deal by searching how its seed was made (R31). ``None``: fresh OS entropy."""
    entropy = secrets.randbits(64) if agent_seed is None else int(agent_seed)
    return int(np.random.SeedSequence(entropy, spawn_key=(index, seat)).generate_state(1)[0])


def _run_pool(jobs: Iterator[tuple[Any, ...]], workers: int, results: list[GameResult], bar: Any) -> None:
    """Run ``jobs`` on ``workers`` processes, at most ``2 * workers`` in flight; on Ctrl-C cancel
    what has not started and stop the workers at once."""
    pool = ProcessPoolExecutor(max_workers=workers)
    pending: set[Future[list[GameResult]]] = set()
    try:
        for job in jobs:
            pending.add(pool.submit(_chunk, job))
            if len(pending) >= 2 * workers:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    res = f.result()
                    results += res
                    bar.update(len(res))
        for f in as_completed(pending):
            res = f.result()
            results += res
            bar.update(len(res))
        pool.shutdown(wait=True)
    except BaseException:
        procs = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in procs:
            proc.terminate()
        raise


def _chunk(args: tuple[Schedule, Any, int, list[int], int, str | None, str | None]) -> list[GameResult]:
    schedule, rules, seed, indices, agent_seed, control, replays = args
    return [r for i in indices for r in _play_index(schedule, rules, seed, i, agent_seed, control, replays)]


def _play_index(
    schedule: Schedule, rules: Any, seed: int, index: int, agent_seed: int, control: str | None, replays: str | None = None
) -> list[GameResult]:
    """Game ``index``, and its control replay when asked for."""
    extra: dict[str, Any] = {"replays": replays} if replays is not None else {}  # passed only when asked for
    main = play_game(schedule, rules, seed, index, agent_seed, **extra)
    if control is None:
        return [main]
    return [main, play_game(schedule, rules, seed, index, agent_seed, control=control, **extra)]


@dataclass
class SpecStats:
    games: int = 0
    wins: int = 0
    wrong_accusations: int = 0
    win_turns: list[int] = field(default_factory=list)

    def row(self) -> dict[str, Any]:
        lo, hi = wilson(self.wins, self.games)
        return {
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.wins / self.games if self.games else 0.0,
            "ci95": [lo, hi],
            "wrong_accusations": self.wrong_accusations,
            "mean_turns_to_win": float(np.mean(self.win_turns)) if self.win_turns else None,
        }


def check_specs(specs: Iterable[str], num_players: int, rules: str | RulesConfig) -> None:
    """Fail fast (``ValueError`` naming the problem) on a bad spec, bad rules or a player count
    the rules refuse, before any worker starts."""
    from agents import make_agent

    for spec in dict.fromkeys(specs):
        make_agent(spec, seat=0, num_players=num_players, rules=rules, seed=0)
    clue_env.raw_env(num_players=num_players, rules=rules)  # validates rules and player count


#: the most worker processes a tournament uses when not told (it shares the machine with other work)
MAX_DEFAULT_WORKERS = 2


def default_workers() -> int:
    """The worker processes a tournament uses when not told: one per core, at most :data:`MAX_DEFAULT_WORKERS`."""
    return min(MAX_DEFAULT_WORKERS, os.cpu_count() or 1)


def play_schedule(
    schedule: Schedule,
    games: int,
    *,
    rules: str | RulesConfig = "classic",
    seed: int = 0,
    workers: int | None = None,
    progress: bool = True,
    agent_seed: int,
    control: str | None = None,
    replays: str | None = None,
) -> tuple[list[GameResult], list[GameResult]]:
    """Play games ``0 .. games-1`` of ``schedule`` (and their control replays): the results in
    game order, main and control apart. Ctrl-C raises ``KeyboardInterrupt`` with ``games_done``
    (games played, control replays included) set. ``replays``: a directory (made if missing)
    to write one replay file per game in (:func:`record_game`)."""
    from tqdm import tqdm

    workers = workers or default_workers()
    chunk = max(1, min(25, games // (workers * 8) or 1))
    # jobs are made as they are needed (a huge --games costs no memory up front)
    if replays is not None:
        os.makedirs(replays, exist_ok=True)
    jobs = (
        (schedule, rules, seed, list(range(i, min(games, i + chunk))), agent_seed, control, replays)
        for i in range(0, games, chunk)
    )
    results: list[GameResult] = []
    total = games * (2 if control is not None else 1)
    bar = tqdm(total=total, unit="game", disable=not progress, desc="tournament")
    try:
        if workers == 1:
            for job in jobs:
                for i in job[3]:  # one game at a time, so an interruption knows what finished
                    res = _play_index(schedule, rules, seed, i, agent_seed, control, replays)
                    results += res
                    bar.update(len(res))
        else:
            _run_pool(jobs, workers, results, bar)
    except KeyboardInterrupt as e:
        e.games_done = len(results)  # type: ignore[attr-defined]
        raise
    finally:
        bar.close()
    results.sort(key=lambda r: r.index)
    return [r for r in results if not r.control], [r for r in results if r.control]


def run_tournament(
    specs: list[str],
    games: int,
    *,
    rules: str | RulesConfig = "classic",
    seed: int = 0,
    workers: int | None = None,
    progress: bool = True,
    agent_seed: int | None = None,
    control: str | None = None,
    replays: str | None = None,
) -> dict[str, Any]:
    """Play ``games`` games and summarise them in the SPEC's JSON shape (plus extras).

    Game ``g`` is reset with ``seed + g`` and seated by the line-up's balanced seating cycle
    (:func:`arrangements`). The agents' seeds are children of ``agent_seed``, a separate entropy
    drawn fresh from the OS when not given and recorded in the summary (``"agent_seed"``): pass
    it back to replay a tournament exactly. They carry no information about the env's seed (R31).

    ``control``: play every game again (same deal, same seats, same agents' seeds) with the
    first-listed spec's seats played by ``control``; the summary gains ``"control"`` (see
    :func:`control_summary`). ``replays``: a directory to write one replay file per game in
    (control games too, named ``..._control.json``); a file that cannot be written (a directory
    in the way, a full disk) loses only that replay: the game counts, and the summary gains
    ``"replay_errors"`` (:func:`replay_errors`).
    """
    if not 2 <= len(specs) <= 6:
        raise ValueError(f"a tournament needs 2-6 seats, got {len(specs)}: {specs}")
    check_specs([*specs, *([control] if control is not None else [])], len(specs), rules)
    if agent_seed is None:
        agent_seed = secrets.randbits(63)
    schedule = Schedule.of(specs)
    main, controls = play_schedule(
        schedule, games, rules=rules, seed=seed, workers=workers, progress=progress, agent_seed=agent_seed, control=control,
        replays=replays,
    )  # fmt: skip
    summary = summarise(specs, main, rules)
    summary.update(seating_summary(schedule))
    summary["winners"] = game_winners(main)
    summary["winner_seats"] = game_winner_seats(main)
    if control is not None:
        summary["control"] = control_summary(main, controls, schedule.candidate, control)
    summary["seed"] = seed
    summary["agent_seed"] = agent_seed
    summary.update(replay_errors(main, controls))
    return summary


def game_winners(results: list[GameResult]) -> list[str | None]:
    """Per game, in game order: the spec in the winning seat, ``None`` when nobody won. Two runs on
    the same ``--seed``, ``--agent-seed`` and line-up shape play the same deals in the same seats,
    so their lists pair game by game."""
    return [r.seats[r.winner] if r.winner >= 0 else None for r in sorted(results, key=lambda r: r.index)]


def game_winner_seats(results: list[GameResult]) -> list[int | None]:
    """Per game, in game order: the winning seat, ``None`` when nobody won. Unlike
    :func:`game_winners` it tells apart seats of the same spec (a control equal to an opponent's
    spec, such as ``--control deduction`` against ``deduction`` opponents)."""
    return [r.winner if r.winner >= 0 else None for r in sorted(results, key=lambda r: r.index)]


def replay_errors(*results: list[GameResult]) -> dict[str, list[str]]:
    """``{"replay_errors": [...]}``, the games' replay files that could not be written, in game
    order (main games first), or ``{}`` when there are none: a summary gains the key only then."""
    errors = [r.replay_error for rs in results for r in sorted(rs, key=lambda r: r.index) if r.replay_error]
    return {"replay_errors": errors} if errors else {}


def seating_summary(schedule: Schedule) -> dict[str, Any]:
    return {"seating": "balanced", "seating_cycle": schedule.cycle, "circular_orders": schedule.orders}


def control_summary(main: list[GameResult], replays: list[GameResult], candidate: str, control: str) -> dict[str, Any]:
    """The candidate against its control on the same games, seat-game by seat-game.

    Per game ``g``: ``x_g`` = wins of the candidate's seats, ``y_g`` = wins of the same seats in
    the control replay, ``d_g = (x_g - y_g) / k`` (``k`` seats of the candidate). The difference
    is ``mean(d_g)`` (candidate win rate minus control win rate over seat-games) with the paired
    interval ``mean +- 1.96 sd(d_g) / sqrt(n)``: the deal's luck, shared by both, cancels."""
    pairs = list(zip(main, replays))
    if any(a.index != b.index for a, b in pairs) or len(main) != len(replays):
        raise ValueError("control replays do not match the games")
    x, y, d = [], [], []
    seat_games = wrong = 0
    for a, b in pairs:
        seats = [i for i, spec in enumerate(a.seats) if spec == candidate]
        x.append(sum(a.winner == i for i in seats))
        y.append(sum(b.winner == i for i in seats))
        d.append((x[-1] - y[-1]) / len(seats))
        seat_games += len(seats)
        wrong += sum(b.wrong_accusations[i] for i in seats)
    n = len(pairs)
    diff = float(np.mean(d)) if n else 0.0
    if n >= 2:
        half = Z95 * float(np.std(d, ddof=1)) / math.sqrt(n)
        ci = [max(-1.0, diff - half), min(1.0, diff + half)]
    else:
        ci = [-1.0, 1.0]  # one game says nothing about the spread
    lo, hi = wilson(sum(y), seat_games)
    return {
        "spec": control,
        "candidate": candidate,
        "win_rate": sum(y) / seat_games if seat_games else 0.0,
        "ci95": [lo, hi],
        "candidate_win_rate": sum(x) / seat_games if seat_games else 0.0,
        "difference": diff,
        "difference_ci95": ci,
        "games": n,
        "seat_games": seat_games,
        "wins": sum(y),
        "wrong_accusations": wrong,
        "winners": game_winners(replays),
        "winner_seats": game_winner_seats(replays),
    }


def summarise(
    specs: list[str], results: Iterable[GameResult], rules: str | RulesConfig, num_players: int | None = None
) -> dict[str, Any]:
    results = sorted(results, key=lambda r: r.index)
    stats = {s: SpecStats() for s in dict.fromkeys(specs)}
    truncated = 0
    turns = []
    seconds = decisions = 0.0
    for r in results:
        truncated += int(r.truncated)
        turns.append(r.turns)
        seconds += r.seconds
        decisions += r.decisions
        for seat, spec in enumerate(r.seats):
            st = stats[spec]
            st.games += 1
            st.wrong_accusations += r.wrong_accusations[seat]
            if r.winner == seat:
                st.wins += 1
                st.win_turns.append(r.turns)
    name = rules if isinstance(rules, str) else rules.name
    return {
        "games": len(results),
        "num_players": num_players or len(specs),
        "rules": name,
        "seats": list(specs),
        "results": {s: st.row() for s, st in stats.items()},
        "truncated": truncated,
        "nobody_won": sum(1 for r in results if r.winner < 0 and not r.truncated),
        "mean_turns": float(np.mean(turns)) if turns else 0.0,
        "games_per_s_per_core": len(results) / seconds if seconds else 0.0,
        "seconds_per_decision": seconds / decisions if decisions else 0.0,
    }
