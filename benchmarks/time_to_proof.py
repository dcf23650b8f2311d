"""When a seat's own knowledge first proves the solution, and who wins first (issue 15: is the
network slower than its teacher at gathering evidence, or does it lose the race elsewhere?).

    python benchmarks/time_to_proof.py [--candidates ppo:models/clue_ppo.pt,deduction] [--opponents notebook]
                                       [--players 4] [--rules classic] [--games 400] [--seed 0]
                                       [--agent-seed 5] [--workers 2] [--json PATH]

Each candidate sits in seat ``game % players`` against ``players - 1`` opponents, on the same
deals (``reset(seed=seed + game)``) and the same agent seeds, so candidates are compared game by
game. At each of the candidate's decisions, a tracker (the policy features' :class:`SeatFeatures`,
fed exactly the observation and seat-view events the candidate got, R31) asks the seat's engine
whether the solution is proved (a complete search, R28). Reported per candidate: the share of
games in which the seat proved the solution before the game ended, the game turn (R10: one turn
per player) of its first proof, the win rate, and how often an opponent won before the seat had
proved anything. The turn of proof is censored by the game's end, so it is compared on the games
both candidates proved (paired).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seat_games import add_game_arguments, mean_ci95, run_chunks, seat_agents  # noqa: E402


def _chunk(args: tuple[str, str, int, str, list[int], int]) -> list[dict[str, Any]]:
    import clue_env
    from clue_env.engine.knowledge.base import Contradiction
    from clue_env.policy.features import BASE_SIZE, SeatFeatures

    candidate, opponent, n, rules, games, agent_entropy = args
    env = clue_env.raw_env(num_players=n, rules=rules)
    names = env.possible_agents
    out = []
    for gi in games:
        me, agents, _ = seat_agents(candidate, opponent, env, gi, agent_entropy)
        tracker = SeatFeatures(me, n)
        env.reset(seed=gi)
        g = env.game
        proof_turn = -1
        while not g.over:
            seat = g.acting
            obs = env.observe(names[seat])
            info = env.infos[names[seat]]
            if seat == me and proof_turn < 0:
                tracker.update(obs["observation"][:BASE_SIZE], info["seat_view"].events)
                try:
                    if tracker.knowledge is not None and tracker.knowledge.solution_if_certain(max_candidates=8):
                        proof_turn = g.turn
                except Contradiction:  # impossible with a consistent log
                    pass
            env.step(agents[seat].act(obs, info))
        out.append({"game": gi, "proof_turn": proof_turn, "won": g.winner == me, "winner": g.winner, "turns": g.turn})
    return out


def measure(
    candidate: str, opponent: str, n: int, rules: str, games: int, seed: int, agent_seed: int, workers: int
) -> list[dict]:
    """One record per game for ``candidate`` (see the module docstring)."""
    parts = run_chunks(_chunk, (candidate, opponent, n, rules), seed, games, agent_seed, workers)
    return [r for p in parts for r in p]


def summary(rows: list[dict]) -> dict[str, Any]:
    proved = [r for r in rows if r["proof_turn"] >= 0]
    lost_unproved = [r for r in rows if r["proof_turn"] < 0 and r["winner"] >= 0 and not r["won"]]
    return {
        "games": len(rows),
        "win_rate": sum(r["won"] for r in rows) / len(rows),
        "proved_share": len(proved) / len(rows),
        "mean_proof_turn": float(np.mean([r["proof_turn"] for r in proved])) if proved else None,
        "lost_before_proof": len(lost_unproved) / len(rows),
        "mean_game_turns": float(np.mean([r["turns"] for r in rows])),
    }


def paired_proof(a: list[dict], b: list[dict]) -> dict[str, Any]:
    """Turn of proof, a minus b, on the games both proved: mean and 95% interval."""
    d = [x["proof_turn"] - y["proof_turn"] for x, y in zip(a, b) if x["proof_turn"] >= 0 and y["proof_turn"] >= 0]
    if len(d) < 2:
        return {"games": len(d)}
    m, lo, hi = mean_ci95(d)
    return {"games": len(d), "difference": m, "ci95": [lo, hi]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--candidates",
        default="ppo:models/clue_ppo.pt,deduction",
        help="comma-separated specs, the first is compared with each other",
    )
    ap.add_argument("--opponents", default="notebook", help="the spec of every other seat")
    add_game_arguments(ap, games=400)
    args = ap.parse_args(argv)
    cands = [c for c in args.candidates.split(",") if c]
    if args.games < 1 or not 2 <= args.players <= 6 or not cands:
        ap.error("--games must be >= 1, --players 2-6 and --candidates non-empty")
    runs: dict[str, list[dict]] = {}
    report: dict[str, Any] = {
        "opponents": args.opponents,
        "num_players": args.players,
        "rules": args.rules,
        "seed": args.seed,
        "agent_seed": args.agent_seed,
        "candidates": {},
    }
    for c in cands:
        t0 = time.perf_counter()
        runs[c] = measure(c, args.opponents, args.players, args.rules, args.games, args.seed, args.agent_seed, args.workers)
        report["candidates"][c] = {**summary(runs[c]), "seconds": round(time.perf_counter() - t0, 1)}
    print(
        f"time to proof ({args.players} players, {args.rules}, vs {args.players - 1} {args.opponents!r}, "
        f"{args.games} games from seed {args.seed}, agent seed {args.agent_seed})"
    )
    head = f"{'candidate':<28} {'win rate':>9} {'proved':>8} {'turn of proof':>14} {'lost unproved':>14} {'game turns':>11}"
    print(head)
    print("-" * len(head))
    for c, s in report["candidates"].items():
        mpt = f"{s['mean_proof_turn']:.1f}" if s["mean_proof_turn"] is not None else "-"
        cells = f"{s['win_rate']:>9.1%} {s['proved_share']:>8.1%} {mpt:>14}"
        print(f"{c:<28} {cells} {s['lost_before_proof']:>14.1%} {s['mean_game_turns']:>11.1f}")
    first = cands[0]
    report["paired_proof_turn"] = {}
    for c in cands[1:]:
        p = paired_proof(runs[first], runs[c])
        report["paired_proof_turn"][c] = p
        if "difference" in p:
            print(
                f"turn of proof, {first} minus {c}, on the {p['games']} games both proved: "
                f"{p['difference']:+.2f} [{p['ci95'][0]:+.2f}, {p['ci95'][1]:+.2f}]"
            )
    if args.json:
        from clue_env.fileio import write_output

        write_output(args.json, json.dumps({**report, "games": runs}, indent=2).encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
