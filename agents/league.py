"""Leagues: balanced mixed line-ups of several agents, rated with OpenSkill's Plackett-Luce model.

Used by ``evaluate.py --league``. With as many specs as seats, every game seats all of them
(balanced seating, :func:`agents.tournament.arrangements`); with more specs than seats, the games
cycle through every combination of ``players`` specs, game ``g`` using combination
``g % C`` at its arrangement ``(g // C)``, so each prefix of ``C`` games plays each combination
once and each prefix of ``C * players`` games also shares every seat equally.

Ratings: one OpenSkill ``PlackettLuce`` rating per spec (``mu`` 25, ``sigma`` 25/3 to start,
``tau`` :data:`TAU` = 0: the agents are fixed programs whose skill does not drift between games),
updated game by game: the winner ranked first, every other seat tied second; a game nobody won (or
a truncated one) ranks every seat tied. A spec listed several times fills several seats of a game:
each seat is then its own team starting from the spec's rating, and the spec takes the average of
its seats' updates. Game-by-game updates depend on the order of the games (OpenSkill's update is an
approximation, and with ``tau`` 0 the early games take the large steps): reordering the same games
can move the gap between two close agents' ``mu`` by more than their ``sigma``. So the games are
rated in :data:`ORDERS` orders (the games' own, then fixed seeded shuffles) and each spec's ``mu``
and ``sigma`` are the means over those passes (``mu_order_sd``: how far the orders spread ``mu``),
the averaging over orders that online ratings of fixed players use (as the Elo of the LMSYS
Chatbot Arena does). Deterministic and independent of the worker count. ``sigma`` is the rating
system's uncertainty after these updates, not a sampling confidence interval; the win rates carry
Wilson intervals for that.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

from clue_env import fileio
from clue_env.engine.config import RulesConfig, load_rules

from .tournament import (
    Z95,
    GameResult,
    Schedule,
    check_specs,
    game_winner_seats,
    game_winners,
    play_schedule,
    replay_errors,
    seating_summary,
    summarise,
)

Z_ORDINAL = 3.0  # OpenSkill's conventional ordinal: mu - 3 sigma
#: OpenSkill's dynamics factor: the uncertainty added to every rating before each game, for players
#: whose skill changes over time. Its default (mu / 300) keeps sigma from falling below ~1.7 in a
#: 4-player league however many games are played (each game's information then only replaces the
#: added drift), so mu follows the last few hundred games and two agents of similar strength could
#: never be separated; a league's agents are fixed programs, so there is no drift: 0.
TAU = 0.0
#: how many orders of the games the ratings are averaged over (the first is the games' own order)
ORDERS = 32
#: the seed of the further orders' shuffles (fixed: the same games always get the same ratings)
ORDER_SEED = 20261207
#: the most line-ups a league may cycle through (combinations of its specs): more is refused
#: before any is built
MAX_LINEUPS = 100_000
#: the most bytes :func:`load_league` reads (a 30,720-game league's JSON is about 1 MB)
MAX_SUMMARY_BYTES = 64 << 20


class Rating(NamedTuple):
    """One spec's rating: the means over the orders of ``mu`` and ``sigma``, and the standard
    deviation of ``mu`` across the orders."""

    mu: float
    sigma: float
    mu_order_sd: float


def league_players(specs: list[str], rules: str | RulesConfig = "classic", players: int | None = None) -> int:
    """Seats per league game: ``players`` when given, else the number of specs when the rules
    allow that many players (3-6 classic, 2-6 edition2023), else 4. ``ValueError`` when the
    list is too short for it."""
    cfg = load_rules(rules)
    if players is None:
        players = len(specs) if cfg.min_players <= len(specs) <= cfg.max_players else 4
    if len(set(specs)) < 2:
        raise ValueError(f"a league needs at least two different agents, got {specs}")
    if len(specs) < players:
        raise ValueError(
            f"--league lists {len(specs)} agents but games have {players} players: list at least {players} "
            f"(repeat a spec to give it several seats) or lower --players ({cfg.name} rules: "
            f"{cfg.min_players}-{cfg.max_players} players)"
        )
    return players


def league_schedule(specs: list[str], players: int) -> Schedule:
    """All the specs in one line-up when there are ``players`` of them; else every distinct
    combination of ``players`` list entries (in ``itertools.combinations`` order), interleaved.
    ``ValueError`` when that would be more than :data:`MAX_LINEUPS` line-ups."""
    if len(specs) == players:
        return Schedule((tuple(specs),))
    if not 0 < players < len(specs):
        raise ValueError(f"games of {players} players cannot be seated from {len(specs)} specs")
    if math.comb(len(specs), players) > MAX_LINEUPS:
        raise ValueError(
            f"{len(specs)} specs in games of {players} players make {math.comb(len(specs), players):,} line-ups "
            f"(at most {MAX_LINEUPS:,}): list fewer specs"
        )
    return Schedule(tuple(dict.fromkeys(itertools.combinations(specs, players))))


def _rate_in_order(model: Any, specs: Iterable[str], results: Sequence[GameResult]) -> dict[str, tuple[float, float]]:
    """``{spec: (mu, sigma)}`` after updating Plackett-Luce ratings with ``results`` in the order given."""
    ratings = {s: (float(model.mu), float(model.sigma)) for s in dict.fromkeys(specs)}
    for r in results:
        teams = [[model.rating(mu=ratings[s][0], sigma=ratings[s][1])] for s in r.seats]  # fresh objects: one per seat
        ranks = [1.0 if r.winner >= 0 and seat != r.winner else 0.0 for seat in range(len(r.seats))]
        new = model.rate(teams, ranks=ranks)
        for spec in dict.fromkeys(r.seats):
            mine = [new[seat][0] for seat, s in enumerate(r.seats) if s == spec]
            ratings[spec] = (float(np.mean([t.mu for t in mine])), float(np.mean([t.sigma for t in mine])))
    return ratings


def rate_games(specs: Iterable[str], results: Iterable[GameResult], orders: int = ORDERS) -> dict[str, Rating]:
    """``{spec: Rating}``: Plackett-Luce ratings from ``results``, updated game by game in
    ``orders`` orders of the games (game order first, by ``index``, then :data:`ORDER_SEED`'s
    shuffles) and averaged over them (see the module docstring)."""
    from openskill.models import PlackettLuce

    if isinstance(orders, bool) or not isinstance(orders, int) or orders < 1:
        raise ValueError(f"orders must be a positive int, got {orders!r}")
    model = PlackettLuce(tau=TAU)
    specs = list(dict.fromkeys(specs))
    games = sorted(results, key=lambda r: r.index)
    rng = np.random.default_rng(ORDER_SEED)
    passes = []
    for k in range(orders):
        order = games if k == 0 else [games[i] for i in rng.permutation(len(games))]
        passes.append(_rate_in_order(model, specs, order))
    out = {}
    for spec in specs:
        mus = np.array([p[spec][0] for p in passes])
        sigmas = np.array([p[spec][1] for p in passes])
        out[spec] = Rating(float(mus.mean()), float(sigmas.mean()), float(mus.std()))
    return out


def _count(value: Any, what: str, lo: int, hi: int | None = None) -> int:
    """``value`` if it is an int (not a bool) from ``lo`` to ``hi``; else a ``ValueError`` naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < lo or (hi is not None and value > hi):
        bounds = f"from {lo} to {hi}" if hi is not None else f"of at least {lo}"
        raise ValueError(f"the summary's {what} {fileio.short(value, 40)} is not a whole number {bounds}")
    return value


def games_of(summary: dict[str, Any]) -> list[GameResult]:
    """The games of a league summary (``run_league``'s, or its ``--json`` file read back with
    :func:`load_league`), in game order, each with its seats and winner: what :func:`rate_games`
    needs, so a league can be rated again (on a prefix of its games, say). Turns and timings are not
    kept and come back as 0.

    Every field it reads is checked first, each refusal a ``ValueError`` naming the field: a
    summary without per-game winners (``"league": true``, ``"winners"``, ``"winner_seats"``; older
    leagues lack them); ``num_players`` not an int from 2 to 6; ``seats`` not a list of at least
    that many spec strings, or making more than :data:`MAX_LINEUPS` line-ups; ``games`` not the
    number of winners; a winning seat that is not one of the game's seats (or a bool), or a winner
    that is not the spec in that seat of the league's seating."""
    if (
        not isinstance(summary, dict)
        or summary.get("league") is not True
        or "winner_seats" not in summary
        or "winners" not in summary
    ):
        raise ValueError(
            'not a league summary with per-game winners ("league": true, "winners" and "winner_seats", '
            "as evaluate.py --league writes them; older leagues lack them)"
        )
    players = _count(summary.get("num_players"), "num_players", 2, 6)
    seats = summary.get("seats")
    if not isinstance(seats, list) or not all(isinstance(s, str) and s for s in seats):
        raise ValueError(f"the summary's seats {fileio.short(seats, 60)} is not a list of agent specs")
    if len(seats) < players:
        raise ValueError(f"the summary lists {len(seats)} seats for {players} players (num_players)")
    games = _count(summary.get("games"), "games", 0)
    winners, winner_seats = summary["winners"], summary["winner_seats"]
    for name, value in (("winners", winners), ("winner_seats", winner_seats)):
        if not isinstance(value, list):
            raise ValueError(f"the summary's {name} is {type(value).__name__}, not a list with one entry per game")
        if len(value) != games:
            raise ValueError(f"the summary's {name} has {len(value)} winners for {games} games")
    schedule = league_schedule(list(seats), players)
    out = []
    for g, (w, spec) in enumerate(zip(winner_seats, winners)):
        game_seats = schedule.seats(g)
        if w is None:
            if spec is not None:
                raise ValueError(f"game {g}: nobody won (winner seat null) but the winner is {fileio.short(spec, 60)}")
            out.append(GameResult(g, game_seats, -1, 0, False, [], 0, 0.0))
            continue
        if isinstance(w, bool) or not isinstance(w, int) or not 0 <= w < len(game_seats):
            raise ValueError(f"game {g}: winner seat {fileio.short(w, 40)} is not one of its {len(game_seats)} seats")
        if spec != game_seats[w]:
            raise ValueError(f"game {g}: seat {w} is {game_seats[w]!r} in the league's seating, not {fileio.short(spec, 60)}")
        out.append(GameResult(g, game_seats, w, 0, False, [], 0, 0.0))
    return out


def load_league(path: str) -> dict[str, Any]:
    """A league summary (``evaluate.py --league --json PATH``) read back as plain JSON data, for
    :func:`games_of`: read with :func:`clue_env.fileio.read_regular` (a regular file of at most
    :data:`MAX_SUMMARY_BYTES`; a directory, FIFO or device refused without blocking) and parsed
    with :func:`clue_env.fileio.loads_json` (depth and numbers bounded; nothing is unpickled or
    otherwise decoded). :class:`clue_env.fileio.InputError` (a ``ValueError``) naming the file."""
    what = f"league summary {path!r}"
    doc = fileio.loads_json(fileio.read_regular(path, MAX_SUMMARY_BYTES, "league summary"), what)
    if not isinstance(doc, dict):
        raise fileio.InputError(f"{what} is not a JSON object")
    return doc


def ratings_summary(ratings: dict[str, Rating], results: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The JSON ``"ratings"``, ranked by ``mu`` (highest first)."""
    ranked = sorted(ratings, key=lambda s: -ratings[s].mu)
    out = {}
    for spec in ranked:
        mu, sigma, spread = ratings[spec]
        row = results[spec]
        out[spec] = {
            "mu": mu,
            "sigma": sigma,
            "mu_order_sd": spread,
            "ci95": [mu - Z95 * sigma, mu + Z95 * sigma],
            "ordinal": mu - Z_ORDINAL * sigma,
            "games": row["games"],
            "wins": row["wins"],
            "win_rate": row["win_rate"],
            "win_rate_ci95": row["ci95"],
        }
    return out


def run_league(
    specs: list[str],
    games: int,
    *,
    players: int | None = None,
    rules: str | RulesConfig = "classic",
    seed: int = 0,
    workers: int | None = None,
    progress: bool = True,
    agent_seed: int | None = None,
    replays: str | None = None,
) -> dict[str, Any]:
    """Play a league (see the module docstring) and summarise it: the tournament's usual fields
    (``results`` per seat-game) plus ``"league": true`` and ``"ratings"``. ``replays``: a
    directory to write one replay file per game in (``"replay_errors"`` lists those that could not
    be written, when any, as :func:`agents.tournament.run_tournament` does)."""
    import secrets

    from openskill import __version__ as openskill_version

    p = league_players(specs, rules, players)
    check_specs(specs, p, rules)
    if agent_seed is None:
        agent_seed = secrets.randbits(63)
    schedule = league_schedule(specs, p)
    main, _ = play_schedule(
        schedule, games, rules=rules, seed=seed, workers=workers, progress=progress, agent_seed=agent_seed, replays=replays
    )
    summary = summarise(schedule.specs, main, rules, num_players=p)
    summary["seats"] = list(specs)
    summary.update(seating_summary(schedule))
    summary["league"] = True
    summary["lineups"] = len(schedule.lineups)
    summary["seating_block"] = schedule.block
    summary["winners"] = game_winners(main)
    summary["winner_seats"] = game_winner_seats(main)
    summary["ratings"] = ratings_summary(rate_games(schedule.specs, main), summary["results"])
    summary["rating_model"] = (
        f"openskill {openskill_version} PlackettLuce (mu 25, sigma 25/3, tau {TAU:g}; winner first, the rest tied; "
        f"mean over {ORDERS} orders of the games)"
    )
    summary["seed"] = seed
    summary["agent_seed"] = agent_seed
    summary.update(replay_errors(main))
    return summary


def top_verdict(summary: dict[str, Any]) -> str:
    """Whether the top-rated agent's interval is clear of the second's."""
    (top, a), (second, b) = list(summary["ratings"].items())[:2]
    if a["ci95"][0] > b["ci95"][1]:
        return f"{top}'s rating interval is clear of {second}'s: {top} ranks first"
    return f"{top}'s rating interval overlaps {second}'s: the order of the top two is not settled (play more games)"


def format_league(summary: dict[str, Any]) -> str:
    from .output import seating_header, seating_note

    p, n = summary["num_players"], len(summary["ratings"])
    lineups = summary["lineups"]
    lines = [
        f"{summary['games']} games, league of {n} agents in {lineups} line-up{'s' if lineups != 1 else ''} of {p} players, "
        f"rules {summary['rules']}, {seating_header(summary)} (fair share {1 / p:.1%})",
        f"{'agent':<28} {'mu':>6} {'sigma':>6} {'95% interval':>15} {'ordinal':>8} {'seat-games':>10} {'wins':>6} "
        f"{'win rate':>9} {'95% CI':>17}",
    ]
    for spec, r in summary["ratings"].items():
        lo, hi = r["ci95"]
        wlo, whi = r["win_rate_ci95"]
        lines.append(
            f"{spec:<28} {r['mu']:>6.2f} {r['sigma']:>6.2f} {f'[{lo:.1f}, {hi:.1f}]':>15} {r['ordinal']:>8.2f} "
            f"{r['games']:>10} {r['wins']:>6} {r['win_rate']:>9.1%} {f'[{wlo:.1%}, {whi:.1%}]':>17}"
        )
    lines.append(top_verdict(summary))
    spread = max(r["mu_order_sd"] for r in summary["ratings"].values())
    lines.append(
        f"ratings: OpenSkill Plackett-Luce updated game by game, the mean over {ORDERS} orders of the games "
        f"(their mu spread by a standard deviation of up to {spread:.2f}); sigma is the "
        "rating system's uncertainty, not a sampling interval (the win rates' Wilson intervals are)"
    )
    note = seating_note(summary, summary["seating_block"])
    if note:
        lines.append(note)
    t = summary
    lines.append(f"truncated: {t['truncated']}  nobody won: {t['nobody_won']}  mean turns: {t['mean_turns']:.1f}")
    lines.append(f"seeds: --seed {summary['seed']} --agent-seed {summary['agent_seed']} (replays these games exactly)")
    return "\n".join(lines)


def plot_league(summary: dict[str, Any], path: str) -> None:
    """Two panels: the ratings (mu +- 1.96 sigma) and the win rates (Wilson), ranked by mu."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .output import win_rate_panel, write_figure

    specs = list(summary["ratings"])
    y = np.arange(len(specs))
    mu = np.array([summary["ratings"][s]["mu"] for s in specs])
    half = np.array([Z95 * summary["ratings"][s]["sigma"] for s in specs])
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 0.6 * len(specs) + 1.8), sharey=True)
    left.errorbar(mu, y, xerr=half, fmt="o", color="#2c3e50", capsize=4)
    left.axvline(25.0, color="#999999", linestyle=":", label="starting rating")
    left.set_yticks(y, specs)
    left.set_xlabel("rating mu (+- 1.96 sigma)")
    left.legend(loc="lower right")
    left.set_title("rating (OpenSkill Plackett-Luce)")
    win_rate_panel(right, summary, order=specs)
    right.set_title("win rate per seat-game")  # (inverts the shared y axis: the best on top)
    fig.suptitle(f"league: {summary['games']} games, {summary['num_players']} players, {summary['rules']} rules")
    fig.tight_layout()
    write_figure(fig, path)
