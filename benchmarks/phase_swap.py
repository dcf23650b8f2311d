"""Which phase of play costs a candidate its wins against its teacher (issue 15: where the gain, or
the loss, comes from). A diagnostic, not an agent: the swapped seat is never shipped.

    python benchmarks/phase_swap.py [--candidate ppo:models/clue_ppo.pt] [--teacher deduction]
                                    [--opponents notebook] [--swaps none,move,suggest,refute,play,all]
                                    [--players 4] [--rules classic] [--games 1000] [--seed 0]
                                    [--agent-seed 5] [--workers 2] [--json PATH]

The candidate sits in seat ``game % players`` against ``players - 1`` opponents, on the same deals
(``reset(seed=seed + game)``) and agent seeds for every swap. At each of the seat's decisions both
the candidate and a teacher of its own (seeded independently) are handed exactly the observation
and info the seat got (R31), so each keeps its own state; the teacher's action is played in the
swapped phases (phases as in ``teacher_agreement.py``: ``move``, ``suggest``, ``refute``,
``accuse/end``; ``all``: every phase, i.e. the teacher itself with the candidate as a shadow), the
candidate's in the others. ``play``: the teacher plays every decision but the accusations: the
candidate's action is kept when it or the teacher's is an accusation, or the phase is
``accuse/end`` (the candidate's accusation policy on the teacher's play). Each swap's win rate is
reported with its paired difference against ``none`` (the candidate alone) on the same games, with
a 95% interval.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seat_games import add_game_arguments, mean_ci95, run_chunks, seat_agents  # noqa: E402
from teacher_agreement import PHASES, phase_of  # noqa: E402

SWAPS = ("none", *PHASES, "play", "all")


def _chunk(args: tuple[str, str, str, str, int, str, list[int], int]) -> list[dict[str, Any]]:
    import clue_env
    from clue_env.codec import default_codec

    candidate, teacher, opponent, swap, n, rules, games, agent_entropy = args
    codec = default_codec()
    env = clue_env.raw_env(num_players=n, rules=rules)
    names = env.possible_agents
    out = []
    for gi in games:
        me, agents, coach = seat_agents(candidate, opponent, env, gi, agent_entropy, shadow=teacher)
        env.reset(seed=gi)
        g = env.game
        swapped = decisions = 0
        while not g.over:
            seat = g.acting
            obs = env.observe(names[seat])
            info = env.infos[names[seat]]
            a = agents[seat].act(obs, info)
            if seat == me:
                b = coach.act(obs, info)
                decisions += 1
                phase = phase_of(obs["action_mask"], codec) if swap != "all" else ""
                if swap == "all" or phase == swap or (swap == "play" and _teacher_plays(a, b, phase, codec)):
                    swapped += int(a != b)
                    a = b
            env.step(a)
        out.append(
            {"game": gi, "won": g.winner == me, "wrong": bool(g.eliminated[me]), "changed": swapped, "decisions": decisions}
        )
    return out


def _teacher_plays(candidate: int, teacher: int, phase: str, codec: Any) -> bool:
    """``play``: whether the teacher's action is played (neither action an accusation, not ``accuse/end``)."""
    acc = codec.accuse_slice
    return phase != "accuse/end" and not acc.start <= candidate < acc.stop and not acc.start <= teacher < acc.stop


def measure(
    candidate: str,
    teacher: str,
    opponent: str,
    swap: str,
    n: int,
    rules: str,
    games: int,
    seed: int,
    agent_seed: int,
    workers: int,
) -> list[dict[str, Any]]:
    """One record per game for ``swap`` (see the module docstring)."""
    if swap not in SWAPS:
        raise ValueError(f"swap {swap!r}: choose from {', '.join(SWAPS)}")
    parts = run_chunks(_chunk, (candidate, teacher, opponent, swap, n, rules), seed, games, agent_seed, workers)
    return [r for p in parts for r in p]


def paired(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> tuple[float, float, float]:
    """Win rate of ``a`` minus ``b`` on the same games, in points, with a 95% interval."""
    m, lo, hi = mean_ci95([int(x["won"]) - int(y["won"]) for x, y in zip(a, b)])
    return 100 * m, 100 * lo, 100 * hi


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--candidate", default="ppo:models/clue_ppo.pt")
    ap.add_argument("--teacher", default="deduction")
    ap.add_argument("--opponents", default="notebook", help="the spec of every other seat")
    ap.add_argument("--swaps", default="none,move,suggest,refute,all", help=f"comma-separated, from {','.join(SWAPS)}")
    add_game_arguments(ap, games=1000)
    args = ap.parse_args(argv)
    swaps = [s for s in args.swaps.split(",") if s]
    bad = [s for s in swaps if s not in SWAPS]
    if bad or not swaps:
        ap.error(f"--swaps: {', '.join(bad) or 'empty'}; choose from {', '.join(SWAPS)}")
    if "none" not in swaps:
        swaps.insert(0, "none")
    if args.games < 2 or not 2 <= args.players <= 6:
        ap.error("--games must be >= 2 and --players 2-6")
    runs: dict[str, list[dict[str, Any]]] = {}
    report: dict[str, Any] = {k: getattr(args, k) for k in ("candidate", "teacher", "opponents", "players", "rules", "seed")}
    report["agent_seed"] = args.agent_seed
    report["swaps"] = {}
    print(
        f"phase swap: {args.candidate} with {args.teacher}'s choices in one phase ({args.players} players, {args.rules}, "
        f"vs {args.players - 1} {args.opponents!r}, {args.games} games from seed {args.seed}, agent seed {args.agent_seed})"
    )
    head = f"{'teacher plays':<14} {'win rate':>9} {'vs none (paired, points)':>28} {'changed decisions':>18} {'wrong acc.':>10}"
    print(head)
    print("-" * len(head))
    for s in swaps:
        t0 = time.perf_counter()
        runs[s] = measure(
            args.candidate,
            args.teacher,
            args.opponents,
            s,
            args.players,
            args.rules,
            args.games,
            args.seed,
            args.agent_seed,
            args.workers,
        )
        rows = runs[s]
        win = sum(r["won"] for r in rows) / len(rows)
        d, lo, hi = paired(rows, runs["none"])
        changed = sum(r["changed"] for r in rows) / max(1, sum(r["decisions"] for r in rows))
        wrong = sum(r["wrong"] for r in rows)
        report["swaps"][s] = {
            "win_rate": win,
            "paired_vs_none": [d, lo, hi],
            "changed_share": changed,
            "wrong_accusations": wrong,
            "seconds": round(time.perf_counter() - t0, 1),
        }
        cell = "-" if s == "none" else f"{d:+.1f} [{lo:+.1f}, {hi:+.1f}]"
        print(f"{s:<14} {win:>9.1%} {cell:>28} {changed:>18.1%} {wrong:>10}")
    if args.json:
        from clue_env.fileio import write_output

        write_output(args.json, json.dumps({**report, "games": runs}, indent=2).encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
