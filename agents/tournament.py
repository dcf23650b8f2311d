"""Tournaments: N games with seats rotated, in parallel, with Wilson confidence intervals.

Used by ``evaluate.py``. Game ``g`` is played from ``reset(seed=seed + g)`` with the spec list
rotated by ``g`` places, so every spec sits in every seat equally often; each agent gets its own
seed derived from ``(seed, g, seat)``. Results do not depend on the number of workers.
"""

from __future__ import annotations

import math
import os
import secrets
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, as_completed, wait
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import clue_env
from clue_env.engine.config import RulesConfig
from clue_env.engine.events import Accuse


def wilson(wins: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
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


def play_game(specs: list[str], rules: str | RulesConfig, seed: int, index: int, agent_seed: int | None = None) -> GameResult:
    """Play game ``index`` of a tournament (seats rotated by ``index``; the env reset with
    ``seed + index``). Agents' seeds come from ``agent_seed`` (fresh entropy when ``None``),
    never from ``seed``: see :func:`run_tournament`."""
    import time

    from agents import make_agent

    p = len(specs)
    seats = [specs[(i + index) % p] for i in range(p)]
    env = clue_env.raw_env(num_players=p, rules=rules)
    agents = [make_agent(spec, seat=i, num_players=p, rules=env.rules, seed=agent_seed_for(agent_seed, index, i))
              for i, spec in enumerate(seats)]  # fmt: skip
    for a in agents:
        a.reset()
    env.reset(seed=seed + index)
    g = env.game
    t0 = time.perf_counter()
    decisions = 0
    names = env.possible_agents
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
    return GameResult(index, seats, g.winner, g.turn, g.truncated, wrong, decisions, time.perf_counter() - t0)


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


def _chunk(args: tuple[list[str], Any, int, list[int], int]) -> list[GameResult]:
    specs, rules, seed, indices, agent_seed = args
    return [play_game(specs, rules, seed, i, agent_seed) for i in indices]


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


def run_tournament(
    specs: list[str],
    games: int,
    *,
    rules: str | RulesConfig = "classic",
    seed: int = 0,
    workers: int | None = None,
    progress: bool = True,
    agent_seed: int | None = None,
) -> dict[str, Any]:
    """Play ``games`` games and summarise them in the SPEC's JSON shape (plus extras).

    Game ``g`` is reset with ``seed + g``. The agents' seeds are children of ``agent_seed``, a
    separate entropy drawn fresh from the OS when not given and recorded in the summary
    (``"agent_seed"``): pass it back to replay a tournament exactly. They carry no information
    about the env's seed (R31).
    """
    from tqdm import tqdm

    if not 2 <= len(specs) <= 6:
        raise ValueError(f"a tournament needs 2-6 seats, got {len(specs)}: {specs}")
    from agents import make_agent

    for i, spec in enumerate(specs):  # fail fast on a bad spec, before any worker starts
        make_agent(spec, seat=i, num_players=len(specs), rules=rules, seed=0)
    clue_env.raw_env(num_players=len(specs), rules=rules)  # validates rules and player count

    workers = workers or min(2, os.cpu_count() or 1)
    chunk = max(1, min(25, games // (workers * 8) or 1))
    if agent_seed is None:
        agent_seed = secrets.randbits(63)
    # jobs are made as they are needed (a huge --games costs no memory up front)
    jobs = ((specs, rules, seed, list(range(i, min(games, i + chunk))), agent_seed) for i in range(0, games, chunk))
    results: list[GameResult] = []
    bar = tqdm(total=games, unit="game", disable=not progress, desc="tournament")
    try:
        if workers == 1:
            for job in jobs:
                for i in job[3]:  # one game at a time, so an interruption knows what finished
                    results.append(play_game(specs, rules, seed, i, agent_seed))
                    bar.update(1)
        else:
            _run_pool(jobs, workers, results, bar)
    except KeyboardInterrupt as e:
        e.games_done = len(results)  # type: ignore[attr-defined]
        raise
    finally:
        bar.close()
    results.sort(key=lambda r: r.index)
    summary = summarise(specs, results, rules)
    summary["seed"] = seed
    summary["agent_seed"] = agent_seed
    return summary


def summarise(specs: list[str], results: Iterable[GameResult], rules: str | RulesConfig) -> dict[str, Any]:
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
        "num_players": len(specs),
        "rules": name,
        "seats": list(specs),
        "results": {s: st.row() for s, st in stats.items()},
        "truncated": truncated,
        "nobody_won": sum(1 for r in results if r.winner < 0 and not r.truncated),
        "mean_turns": float(np.mean(turns)) if turns else 0.0,
        "games_per_s_per_core": len(results) / seconds if seconds else 0.0,
        "seconds_per_decision": seconds / decisions if decisions else 0.0,
    }


def format_table(summary: dict[str, Any]) -> str:
    p = summary["num_players"]
    lines = [
        f"{summary['games']} games, {p} players, rules {summary['rules']}, seats rotated (fair share {1 / p:.1%})",
        f"{'agent':<28} {'seat-games':>10} {'wins':>6} {'win rate':>9} {'95% CI':>17} {'turns/win':>9} {'wrong acc.':>10}",
    ]
    for spec, row in summary["results"].items():
        lo, hi = row["ci95"]
        mt = row["mean_turns_to_win"]
        lines.append(
            f"{spec:<28} {row['games']:>10} {row['wins']:>6} {row['win_rate']:>9.1%} "
            f"{f'[{lo:.1%}, {hi:.1%}]':>17} {(f'{mt:.1f}' if mt else '-'):>9} {row['wrong_accusations']:>10}"
        )
    lines.append(
        f"truncated: {summary['truncated']}  nobody won: {summary['nobody_won']}  mean turns: {summary['mean_turns']:.1f}  "
        f"games/s/core: {summary['games_per_s_per_core']:.1f}  ms/decision: {1000 * summary['seconds_per_decision']:.3f}"
    )
    if summary.get("agent_seed") is not None:
        lines.append(f"seeds: --seed {summary.get('seed')} --agent-seed {summary['agent_seed']} (replays these games exactly)")
    return "\n".join(lines)


def plot(summary: dict[str, Any], path: str) -> None:
    """Win rates with 95% intervals and the fair share, as a PNG (written atomically)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    specs = list(summary["results"])
    rates = [summary["results"][s]["win_rate"] for s in specs]
    lo = [max(0.0, r - summary["results"][s]["ci95"][0]) for s, r in zip(specs, rates)]
    hi = [max(0.0, summary["results"][s]["ci95"][1] - r) for s, r in zip(specs, rates)]
    fig, ax = plt.subplots(figsize=(7, 0.6 * len(specs) + 1.6))
    y = np.arange(len(specs))
    ax.barh(y, rates, xerr=[lo, hi], color="#4a7fb5", capsize=4)
    ax.axvline(1 / summary["num_players"], color="#c0392b", linestyle="--", label="fair share")
    ax.set_yticks(y, specs)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("win rate (95% Wilson interval)")
    ax.set_title(f"{summary['games']} games, {summary['num_players']} players, {summary['rules']} rules")
    ax.legend(loc="lower right")
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    os.replace(tmp, path)
