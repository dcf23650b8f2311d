"""How often an agent decides like its teacher, by phase (issue 15: where a gain over imitation comes from).

    python benchmarks/teacher_agreement.py [--candidate ppo] [--teacher deduction] [--opponents deduction]
                                           [--players 4] [--rules classic] [--games 400] [--seed 0]
                                           [--agent-seed 5] [--workers 2] [--json PATH]

The candidate sits in seat ``game % players`` against ``players - 1`` opponents. At each of its
decisions a *shadow* teacher (its own agent, seeded independently, fed exactly the observation and
info the candidate got) names the action it would have taken; the candidate's action is played.
Decisions are grouped by what the mask offers (R26-R28):

* ``refute``: a card must be shown (R27);
* ``suggest``: a suggestion is legal (R26; declining is ``end``);
* ``move``: roll, passage, stay or a movement choice is legal (R11-R22);
* ``accuse/end``: only an accusation or ending the turn is legal (R28).

For comparison, ``--baseline`` runs the teacher itself as the candidate (two teacher agents with
different seeds agree this often by chance of their own sampling). Accusations are counted apart:
those the candidate made where the shadow teacher did not (before proof, for ``deduction``), and
how many of them were right.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seat_games import add_game_arguments, run_chunks, seat_agents  # noqa: E402

from clue_env.codec import PHASES  # noqa: E402  ("move", "suggest", "refute", "accuse/end")


def phase_of(mask: np.ndarray, codec: Any) -> str:
    """The decision's phase from its action mask (see the module docstring)."""
    return str(codec.phase_of(mask))


def _chunk(args: tuple[str, str, str, int, str, list[int], int]) -> dict[str, Any]:
    import clue_env
    from clue_env.codec import default_codec

    candidate, teacher, opponent, n, rules, games, agent_entropy = args
    codec = default_codec()
    acc = codec.accuse_slice
    env = clue_env.raw_env(num_players=n, rules=rules)
    names = env.possible_agents
    agree: Counter[str] = Counter()
    total: Counter[str] = Counter()
    early = early_right = wins = 0
    for gi in games:
        me, agents, shadow = seat_agents(candidate, opponent, env, gi, agent_entropy, shadow=teacher)
        env.reset(seed=gi)
        g = env.game
        while not g.over:
            seat = g.acting
            obs = env.observe(names[seat])
            info = env.infos[names[seat]]
            a = agents[seat].act(obs, info)
            if seat == me:
                b = shadow.act(obs, info)
                ph = phase_of(obs["action_mask"], codec)
                total[ph] += 1
                agree[ph] += int(a == b)
                if acc.start <= a < acc.stop and not acc.start <= b < acc.stop:
                    early += 1
                    s, w, r = g.envelope
                    early_right += int(a == codec.accuse(s, w, r))
            env.step(a)
        wins += int(g.winner == me)
    return {
        "agree": dict(agree),
        "total": dict(total),
        "early": early,
        "early_right": early_right,
        "wins": wins,
        "games": len(games),
    }


def measure(
    candidate: str, teacher: str, opponent: str, n: int, rules: str, games: int, seed: int, agent_seed: int, workers: int
) -> dict[str, Any]:
    """Agreement of ``candidate`` with a shadow ``teacher`` per phase over ``games`` games."""
    agree: Counter[str] = Counter()
    total: Counter[str] = Counter()
    early = early_right = wins = 0
    for r in run_chunks(_chunk, (candidate, teacher, opponent, n, rules), seed, games, agent_seed, workers):
        agree.update(r["agree"])
        total.update(r["total"])
        early += r["early"]
        early_right += r["early_right"]
        wins += r["wins"]
    phases = {p: {"decisions": total[p], "agreement": agree[p] / total[p] if total[p] else None} for p in PHASES}
    all_d = sum(total.values())
    return {
        "candidate": candidate,
        "teacher": teacher,
        "opponents": opponent,
        "num_players": n,
        "rules": rules,
        "games": games,
        "seed": seed,
        "agent_seed": agent_seed,
        "win_rate": wins / games,
        "agreement": sum(agree.values()) / all_d if all_d else None,
        "decisions": all_d,
        "phases": phases,
        "accusations_teacher_would_not_make": early,
        "of_them_right": early_right,
    }


def _table(rows: list[dict[str, Any]]) -> str:
    head = f"{'candidate':<24} {'all':>14} " + " ".join(f"{p:>16}" for p in PHASES) + f" {'early acc. (right)':>20}"
    lines = [head, "-" * len(head)]
    for r in rows:
        cells = []
        for p in PHASES:
            ph = r["phases"][p]
            cells.append(f"{ph['agreement']:>8.1%} ({ph['decisions']:>5})" if ph["decisions"] else f"{'-':>16}")
        lines.append(
            f"{r['candidate']:<24} {r['agreement']:>6.1%} ({r['decisions']:>5}) "
            + " ".join(f"{c:>16}" for c in cells)
            + f" {r['accusations_teacher_would_not_make']:>13} ({r['of_them_right']})"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--candidate", default="ppo")
    ap.add_argument("--teacher", default="deduction")
    ap.add_argument("--opponents", default="deduction", help="the spec of every other seat")
    add_game_arguments(ap, games=400)
    ap.add_argument("--baseline", action="store_true", help="also measure the teacher as the candidate")
    args = ap.parse_args(argv)
    if args.games < 1 or not 2 <= args.players <= 6:
        ap.error("--games must be >= 1 and --players 2-6")
    cands = [args.candidate] + ([args.teacher] if args.baseline else [])
    rows = []
    for c in cands:
        t0 = time.perf_counter()
        r = measure(
            c, args.teacher, args.opponents, args.players, args.rules, args.games, args.seed, args.agent_seed, args.workers
        )
        r["seconds"] = round(time.perf_counter() - t0, 1)
        rows.append(r)
    print(
        f"agreement with a shadow {args.teacher!r} ({args.players} players, {args.rules}, vs {args.players - 1} "
        f"{args.opponents!r}, {args.games} games from seed {args.seed}, agent seed {args.agent_seed}); "
        "decisions in brackets"
    )
    print(_table(rows))
    if args.json:
        from clue_env.fileio import write_output

        write_output(args.json, json.dumps(rows, indent=2).encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
