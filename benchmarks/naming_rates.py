"""How often a player names its own cards in its suggestions (issue 15: what ``deduction:tells`` reads).

R26 lets a suggester name cards it holds. Plays ``--games`` games of ``--spec`` in every seat and
counts, over all suggestions, how often the named suspect, weapon and room is in the suggester's
hand, against the chance rate (the share of each kind's cards it holds). The ratio of the two odds
is the likelihood ratio ``deduction:tells`` weighs deals with: how much less likely "holds it" is
for a card it named. Reads the finished games' logs and hands (a study of the game, not of any
seat's view)::

    python benchmarks/naming_rates.py [--spec deduction] [--players 2] [--rules edition2023]
                                      [--games 150] [--seed 12000000] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import clue_env  # noqa: E402
from agents import make_agent  # noqa: E402
from clue_env.engine.cards import N_CARDS, ROOM_BASE, WEAPON_BASE  # noqa: E402
from clue_env.engine.events import Suggest  # noqa: E402

KINDS = (("suspect", 0, WEAPON_BASE), ("weapon", WEAPON_BASE, ROOM_BASE), ("room", ROOM_BASE, N_CARDS))


def naming_rates(spec: str, players: int, rules: str, games: int, seed: int) -> dict[str, Any]:
    """Per kind: suggestions, how many named a card the suggester holds, and the chance rate."""
    named = {k: 0 for k, _, _ in KINDS}
    chance = {k: 0.0 for k, _, _ in KINDS}
    count = 0
    own = np.zeros(4, dtype=int)  # suggestions naming 0, 1, 2, 3 own cards
    for g in range(games):
        env = clue_env.raw_env(num_players=players, rules=rules)
        env.reset(seed=seed + g)
        agents = [make_agent(spec, seat=s, num_players=players, rules=env.rules, seed=seed + 7 * g + s) for s in range(players)]
        for a in agents:
            a.reset()
        while not env.game_over:
            name = env.agent_selection
            s = env.possible_agents.index(name)
            env.step(int(agents[s].act(env.observe(name), env.infos[name])))
        game = env.game
        for ev in game.log:
            if not isinstance(ev, Suggest):
                continue
            hand = set(game.hands[ev.seat])
            cards = (ev.suspect, WEAPON_BASE + ev.weapon, ROOM_BASE + ev.room)
            count += 1
            own[sum(c in hand for c in cards)] += 1
            for (kind, lo, hi), c in zip(KINDS, cards):
                named[kind] += c in hand
                chance[kind] += sum(x in hand for x in range(lo, hi)) / (hi - lo)
    out: dict[str, Any] = {"spec": spec, "players": players, "rules": rules, "games": games, "seed": seed, "suggestions": count}
    for kind, _, _ in KINDS:
        p, q = named[kind] / max(count, 1), chance[kind] / max(count, 1)
        ratio = (p / (1 - p)) / (q / (1 - q)) if 0 < p < 1 and 0 < q < 1 else float("nan")
        out[kind] = {"named_own": p, "chance": q, "likelihood_ratio": ratio}
    out["own_cards_per_suggestion"] = (own / max(count, 1)).tolist()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", default="deduction")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--rules", default="edition2023")
    ap.add_argument("--games", type=int, default=150)
    ap.add_argument("--seed", type=int, default=12000000)
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games must be at least 1")
    r = naming_rates(args.spec, args.players, args.rules, args.games, args.seed)
    print(f"{args.spec}, {args.players} players, {args.rules}: {r['suggestions']} suggestions in {args.games} games")
    for kind, _, _ in KINDS:
        k = r[kind]
        lr = k["likelihood_ratio"]
        print(f"  {kind:8s} named its own {k['named_own']:.1%} (chance {k['chance']:.1%}): likelihood ratio {lr:.2f}")
    print("  own cards per suggestion (0, 1, 2, 3): " + ", ".join(f"{x:.1%}" for x in r["own_cards_per_suggestion"]))
    if args.json:
        from clue_env.fileio import write_output

        write_output(args.json, json.dumps(r, indent=2).encode())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
