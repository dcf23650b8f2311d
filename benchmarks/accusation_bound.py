"""How much accusing before proof could gain at most, in a given line-up (issue 15: can accusation
timing alone reach the lines still open?). A diagnostic that reads the opponents' own state: it is
never an agent, and nothing it measures is available to a seat in play (R31).

    python benchmarks/accusation_bound.py [--candidate deduction] [--opponents notebook,notebook,notebook]
                                          [--rules classic] [--games 1000] [--seed 0] [--agent-seed 5]
                                          [--workers 2] [--json PATH]

The candidate plays with the opponents on balanced seats (every circular order, with rotation, as
``evaluate.py`` seats a line-up), on the deals ``reset(seed=seed + game)``. At each of its
decisions where an accusation is legal, until its own knowledge proves the solution, it records its
likeliest envelope and that envelope's posterior probability (exact counts when cheap, as the
accusation head's inputs), and, reading each opponent's own state, how many envelopes that opponent
can still not tell apart: for ``notebook`` what its notebook leaves (its own ``envelope_candidates``),
for any other agent what the deduction engine proves from that opponent's seat view (an upper bound
on what it knows). The candidate should be one that accuses only at proof (``deduction``, or a
network without its accusation head): every figure below replaces its game from an early accusation on.

What it reports, on the gain of accusing before proof over the candidate as it played:

* **perfect foresight**, the bound: in each game an opponent won before the candidate's proof,
  accuse its likeliest envelope at its last chance before the winner's accusation (knowing the dice
  and every later choice); no accusation rule can do better;
* **how the opponents win**: the share of lost games an opponent won in a turn where nobody could
  refute its own suggestion (R27);
* **how close the closest opponent was at that last chance**: how many envelopes it could still not
  tell apart (median, and how often at most 2 or 4). A rule can only see a loss coming where an
  opponent is visibly close before it wins;
* **threshold rules that read every opponent's state**: accuse once the closest opponent's count is
  at most K and the likeliest envelope's probability at least t. The best of a grid in-sample
  (optimistic), and cross-fitted over two halves (each half played by the rule best on the other)
  with a paired 95% interval over games. Not a bound: a head with other inputs may do better.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seat_games import lineup_agents, mean_ci95, run_chunks  # noqa: E402

#: the candidate's place in a line-up given to the seating schedule (its spec may equal an opponent's)
CANDIDATE = "@candidate"
#: opponent counts above this count as this many in the fitted rule's inputs
COUNT_CAP = 64
KS = (1, 2, 3, 4, 6, 9)
TS = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6)


def _chunk(args: tuple[str, tuple[str, ...], str, list[int], int]) -> list[dict[str, Any]]:
    import clue_env
    from agents.tournament import arrangements
    from clue_env.codec import default_codec
    from clue_env.engine.knowledge import Contradiction
    from clue_env.policy.accusation import triple_posterior
    from clue_env.policy.features import BASE_SIZE, SeatFeatures

    codec = default_codec()
    candidate, opponents, rules, games, entropy = args
    n = len(opponents) + 1
    cycle = arrangements((CANDIDATE, *opponents))
    env = clue_env.raw_env(num_players=n, rules=rules)
    names = env.possible_agents
    out = []
    for gi in games:
        seating = cycle[gi % len(cycle)]
        me = seating.index(CANDIDATE)
        specs = [candidate if s == CANDIDATE else s for s in seating]
        agents = lineup_agents(specs, env, gi, entropy)
        env.reset(seed=gi)
        g = env.game
        tracker = SeatFeatures(me, n)
        witnesses: dict[int, Any] = {}
        rng = np.random.default_rng([entropy, gi])
        records: list[list[Any]] = []
        proof = -1

        while not g.over:
            seat = g.acting
            obs = env.observe(names[seat])
            info = env.infos[names[seat]]
            if seat == me and proof < 0:
                tracker.update(obs["observation"][:BASE_SIZE], info["seat_view"].events)
                k = tracker.knowledge
                if k is not None and obs["action_mask"][codec.accuse_slice].any():
                    try:
                        if k.solution_if_certain(max_candidates=8):
                            proof = g.turn
                        else:
                            post, _how = triple_posterior(k, rng)
                            if post:
                                triple, p = max(post.items(), key=lambda kv: kv[1])
                                counts = opponent_counts(env, agents, me, witnesses)
                                records.append([g.turn, float(p), [int(c) for c in triple], counts, len(post)])
                    except Contradiction:  # impossible with a consistent log
                        pass
            env.step(agents[seat].act(obs, info))
        s, w, r = g.envelope
        out.append(
            {
                "game": gi,
                "seat": me,
                "won": g.winner == me,
                "winner": specs[g.winner] if g.winner >= 0 and g.winner != me else None,
                "turns": g.turn,
                "winner_unrefuted": g.winner >= 0 and g.winner != me and unrefuted_win(env, g.winner),
                "proof_turn": proof,
                "envelope": [int(s), int(w), int(r)],
                "records": records,
            }
        )
    return out


def opponent_counts(env: Any, agents: Sequence[Any], me: int, witnesses: dict[int, Any]) -> list[int]:
    """Per active opponent (ascending), how many envelopes it can still not tell apart: what a
    ``notebook``'s notebook leaves (its ``envelope_candidates``), else what the deduction engine
    proves from its seat view (a :class:`~clue_env.engine.witness.Witness` per seat, kept in
    ``witnesses`` across the game). Reads the opponents' own state: a diagnostic only."""
    from clue_env.engine.witness import Witness

    counts = []
    for j, name in enumerate(env.possible_agents):
        if j == me or env.game.eliminated[j]:
            continue
        view = env.infos[name]["seat_view"]
        if hasattr(agents[j], "envelope_candidates"):
            cand = agents[j].envelope_candidates(view)
        else:
            if j not in witnesses:
                witnesses[j] = Witness(j, list(view.hand), list(view.hand_sizes))
            witnesses[j].feed(view.events)
            cand = witnesses[j].knowledge.envelope_candidates()
        counts.append(len(cand[0]) * len(cand[1]) * len(cand[2]))
    return sorted(counts)


def unrefuted_win(env: Any, winner: int) -> bool:
    """Whether nobody could refute ``winner``'s own suggestion in the turn it won (R27: then every
    named card it does not hold is in the envelope). Read from public events only."""
    from clue_env.engine.events import NoRefute, Turn

    events = env.infos[env.possible_agents[winner]]["seat_view"].events
    start = max((i for i, e in enumerate(events) if isinstance(e, Turn) and e.seat == winner), default=0)
    return any(isinstance(e, NoRefute) and e.suggester == winner for e in events[start:])


def is_right(game: dict[str, Any], triple: Sequence[int]) -> bool:
    """Whether ``triple`` (card ids) is the game's envelope (suspect, weapon, room indices)."""
    from clue_env.engine.cards import ROOM_BASE, WEAPON_BASE

    s, w, r = game["envelope"]
    return list(triple) == [s, WEAPON_BASE + w, ROOM_BASE + r]


def threshold_rule(k: int, t: float) -> Callable[[Sequence[Any]], bool]:
    """Accuse once the closest opponent can tell at most ``k`` envelopes apart and the likeliest
    envelope's probability is at least ``t``."""
    return lambda r: bool(r[3]) and r[3][0] <= k and r[1] >= t


def best_threshold(games: Sequence[dict[str, Any]]) -> tuple[tuple[int, float], float]:
    """The grid's best threshold rule on ``games`` (its ``(K, t)``) and its win rate there."""
    grid = {(k, t): float(np.mean([play_rule(g, threshold_rule(k, t)) for g in games])) for k in KS for t in TS}
    best = max(grid, key=lambda key: grid[key])
    return best, grid[best]


def play_rule(game: dict[str, Any], accuse: Any) -> bool:
    """The game's outcome had the candidate accused at its first record for which ``accuse`` holds."""
    rec = next((r for r in game["records"] if accuse(r)), None)
    return bool(game["won"]) if rec is None else is_right(game, rec[2])


def foresight_case(game: dict[str, Any]) -> bool:
    """A game an opponent won before the candidate's proof, with a chance to accuse before."""
    return not game["won"] and game["proof_turn"] < 0 and bool(game["records"]) and game["winner"] is not None


def foresight(game: dict[str, Any]) -> bool:
    """Perfect foresight: a game lost before proof is won if the last chance's envelope was right."""
    if not foresight_case(game):
        return bool(game["won"])
    return is_right(game, game["records"][-1][2])


def analyse(games: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """What the module docstring lists, over recorded games (win rates and gains as fractions). A
    game's ``records``: one ``[turn, probability, likeliest envelope (card ids), opponent counts
    (ascending), possible envelopes]`` per decision where the candidate could accuse before proof."""
    n = len(games)
    won = np.array([g["won"] for g in games], dtype=float)
    base = float(won.mean())
    lost_by: dict[str, int] = defaultdict(int)
    for g in games:
        if not g["won"]:
            lost_by[g["winner"] or "nobody"] += 1
    fore = np.array([foresight(g) for g in games], dtype=float)
    fore_by: dict[str, float] = defaultdict(float)
    for g, f in zip(games, fore):
        if f > g["won"]:
            fore_by[g["winner"]] += 1 / n
    unrefuted = [bool(g.get("winner_unrefuted")) for g in games if not g["won"] and g["winner"]]
    last = [min(g["records"][-1][3]) for g in games if g["records"] and g["records"][-1][3] and foresight_case(g)]
    best, best_rate = best_threshold(games)
    half = n // 2
    crossed = np.empty(n)
    for fit, test in ((slice(0, half), slice(half, n)), (slice(half, n), slice(0, half))):
        rule = threshold_rule(*best_threshold(games[fit])[0])
        crossed[test] = [play_rule(g, rule) for g in games[test]]
    diff, lo, hi = mean_ci95(crossed - won)
    return {
        "games": n,
        "win_rate": base,
        "lost_before_proof": float(np.mean([not g["won"] and g["proof_turn"] < 0 for g in games])),
        "lost_to": dict(lost_by),
        "lost_in_an_unrefuted_turn": float(np.mean(unrefuted)) if unrefuted else None,
        "foresight": {"win_rate": float(fore.mean()), "gain": float(fore.mean() - base), "gain_by_winner": dict(fore_by)},
        "closest_opponent_at_last_chance": {
            "games": len(last),
            "median": float(np.median(last)) if last else None,
            "share_at_most_2": float(np.mean([c <= 2 for c in last])) if last else None,
            "share_at_most_4": float(np.mean([c <= 4 for c in last])) if last else None,
        },
        "thresholds": {
            "best": f"K{best[0]}_t{best[1]}",
            "best_win_rate": best_rate,
            "best_gain": best_rate - base,
            "cross_fitted_win_rate": float(crossed.mean()),
            "cross_fitted_gain": diff,
            "cross_fitted_ci95": [lo, hi],
        },
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--candidate", default="deduction", help="the seat measured (one that accuses only at proof)")
    ap.add_argument("--opponents", default="notebook,notebook,notebook", help="comma-separated specs, 1 to 5")
    ap.add_argument("--rules", default="classic")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--agent-seed", type=int, default=5)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", help="write the figures (and every game's records) here")
    args = ap.parse_args(argv)
    opponents = tuple(s for s in args.opponents.split(",") if s)
    if not 1 <= len(opponents) <= 5:
        ap.error(f"--opponents takes 1 to 5 specs, got {len(opponents)}")
    if args.games < 2:
        ap.error("--games must be at least 2 (the rule is cross-fitted over two halves)")
    from agents import make_agent

    for spec in {args.candidate, *opponents}:
        try:
            make_agent(spec, seat=0, num_players=len(opponents) + 1, rules=args.rules, seed=0)
        except (ValueError, KeyError) as e:
            ap.error(f"bad agent spec {spec!r}: {e}")
    t0 = time.perf_counter()
    parts = run_chunks(_chunk, (args.candidate, opponents, args.rules), args.seed, args.games, args.agent_seed, args.workers)
    games = [g for p in parts for g in p]
    report = analyse(games)
    f, c, th = report["foresight"], report["closest_opponent_at_last_chance"], report["thresholds"]
    print(
        f"accusation bound: {args.candidate} against {','.join(opponents)} ({args.rules}, balanced seats), "
        f"{args.games} games from seed {args.seed}, agent seed {args.agent_seed}, {time.perf_counter() - t0:.0f} s"
    )
    lost = f"lost before proof {report['lost_before_proof']:.1%}; lost to {report['lost_to']}"
    print(f"  as played: {report['win_rate']:.1%}; {lost}")
    if report["lost_in_an_unrefuted_turn"] is not None:
        print(
            f"  of the games lost, won by an opponent in a turn nobody could refute it: {report['lost_in_an_unrefuted_turn']:.1%}"
        )
    by_winner = {k: round(v, 4) for k, v in f["gain_by_winner"].items()}
    print(f"  perfect foresight: {f['win_rate']:.1%} ({f['gain']:+.1%}; by winner {by_winner})")
    if c["games"]:
        print(
            f"  closest opponent at the last chance ({c['games']} games): median {c['median']:g} envelopes, "
            f"at most 2 in {c['share_at_most_2']:.1%}, at most 4 in {c['share_at_most_4']:.1%}"
        )
    lo, hi = th["cross_fitted_ci95"]
    print(
        f"  threshold rules reading the opponents: best {th['best']} in-sample {th['best_win_rate']:.1%} "
        f"({th['best_gain']:+.1%}); cross-fitted {th['cross_fitted_win_rate']:.1%} "
        f"({th['cross_fitted_gain']:+.1%} [{lo:+.1%}, {hi:+.1%}])"
    )
    if args.json:
        from clue_env.fileio import write_output

        meta = {"candidate": args.candidate, "opponents": list(opponents), "rules": args.rules, "seed": args.seed}
        write_output(args.json, json.dumps({**meta, "agent_seed": args.agent_seed, **report, "records": games}).encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
