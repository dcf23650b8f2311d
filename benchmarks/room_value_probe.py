"""Probe (issue 15): would the network imitate its teacher's movement better, and win more, if it
were given the planner's per-room values as an input?

``deduction`` (and ``deduction:plan=roll``) heads for the room whose best suggestion is worth most
per turn of travel; a room's worth is the expected information of its best suggestion, computed from
deals sampled from the seat's posterior. The network's inputs hold nothing like it, and two DAgger
runs that brought its moves closer to the teacher's (70% -> 82% agreement) won no more games.

This script answers the question without a new observation layout:

1. **Record** games in which the shipped agent plays one seat (4-player classic, against a mix of
   ``notebook`` and ``deduction``) and the teacher, fed the same observations, labels every
   decision and reports its room values for it.
2. **Fit** two copies of the shipped network on those decisions, moves weighted (other phases 0.25):
   the network as it is, and the network with one more input per room card, the teacher's room
   value (its weights start at zero, so both start from the same function). Same data, split,
   seed and steps; the held-out accuracy on move decisions is the figure.
3. **Play** (``--play N``) each fitted copy against 3 ``notebook`` on the same deals (with
   ``--play-unfitted``, the policy's network as it is too), the room-value copy as the ``ppo`` agent
   plays such a network: its room values come from a ``deduction`` planner of its own seat fed its
   observations (what R31 lets the seat know), which chooses nothing; report the paired differences.
4. **Save** (``--save DIR``) each fitted copy, with the policy's accusation head, as a policy file
   (``DIR/with_room_values.pt`` plays as ``ppo:DIR/with_room_values.pt``).

``--mode 4`` (a ``room_values=3`` ``--policy``) adds the planner's suggestion scores
(``network.add_suggest_scores``); the recorded decisions hold them too, and ``--fit-only-new`` then
fits the one suggestion-score weight. The fitted copies read a planner like the teacher that
labelled their decisions: a teacher ``deduction:tells=LR`` makes the saved and played copies read a
``tells=LR`` planner (``meta["planner"]`` of the saved file; likewise the teacher's ``moves``, ``pull``,
``shows`` and ``samples``); the unfitted policy plays with the planner its file names.

``--refit-moves`` (a ``--policy`` whose network already reads move scores, ``room_values`` 3 or 4) widens
nothing: it fits only the network's four move-score weights again, on decisions labelled by the teacher and
scored by it; ``--refit-suggestions`` (``room_values=4``) likewise its suggestion-score weight (both flags:
the five weights). ``--roll-scores`` (with ``--refit-moves``) makes the refitted copy score the roll too
(``CluePolicyNet(roll_scores=True)``: rolling is worth its best ``toward`` score), the same weights. With
``--teacher deduction:tells=0.35,moves=own`` the scores are in the units of the teacher's own movement
(``agents.deduction``: ``moves``), so the network can learn to move as its planner does.

Later rounds: a ``--policy`` whose network already reads room values (a ``--save``d copy) drives the
recorded games itself, and only that copy is fitted further (played against it unfitted).

Other games: ``--players``, ``--rules``, ``--policy`` (the file whose network is widened and whose
accusation head plays; default: the file ``ppo`` plays for that game), ``--opponents`` (the specs the
recorded games cycle through, one spec for all the opponents of a game; default, 4-player classic:
3 ``notebook``, ``deduction`` + 2 ``notebook``, 3 ``deduction``) and ``--play-opponent``.

A diagnostic: the recording, widening and fit are the training package's
(:mod:`clue_env.training.planner_fit`), which the recipes' ``room_values`` and ``refit_scores`` stages run
(``python train.py --recipe NAME``, docs/training.md, "Recipes"); this script adds the arm without room
values, ``--data`` and the paired play.

    python benchmarks/room_value_probe.py --games 1500 --epochs 3 --play 600
    python benchmarks/room_value_probe.py --players 2 --rules edition2023 --teacher deduction \
        --opponents deduction --play-opponent deduction --games 2000 --epochs 4 --play 1000
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _p in (ROOT, os.path.dirname(os.path.abspath(__file__))):  # the package; seat_games beside this file
    if _p not in sys.path:
        sys.path.insert(0, _p)

from clue_env.training.planner_fit import (  # noqa: E402
    chunk_size,
    fit_planner_weights,
    held_out_split,
    phase_accuracy,
    prepare_network,
    record_job,
    teacher_planner,
)

SHIPPED = os.path.join(ROOT, "models", "clue_ppo_mixed.pt")


def _play_chunk(args: tuple[Any, ...]) -> dict[str, list[int]]:
    """Each copy (given as ``(config, state_dict)``) in seat ``g % n`` against ``n - 1``
    ``opponent`` on the same deals and opponents' seeds; the room-value copy reads its room values
    from the ``ppo`` agent's planner (a ``deduction`` of its own seat fed its observations, R31)."""
    nets, policy, opponent, n, rules, games, entropy, planner, policy_planner = args
    import torch

    import clue_env
    from agents import make_agent
    from agents.ppo_agent import PPOAgent
    from clue_env.policy.checkpoint import load_accusation
    from clue_env.policy.network import CluePolicyNet

    torch.set_num_threads(1)
    head = load_accusation(policy)
    built: dict[str, Any] = {}
    for key, (config, state) in nets.items():
        net = CluePolicyNet(**config)  # with room_values in config, the agent's planner supplies them
        net.load_state_dict(state)
        net.eval()
        built[key] = net

    wins: dict[str, list[int]] = {k: [] for k in built}
    for g in games:
        me = g % n
        seeds = np.random.SeedSequence([entropy, g]).generate_state(n)
        for key, net in built.items():
            env = clue_env.raw_env(num_players=n, rules=rules)
            env.reset(seed=g)
            agents: list[Any] = []
            for s in range(n):
                if s != me:
                    agents.append(make_agent(opponent, seat=s, num_players=n, rules=env.rules, seed=int(seeds[s])))
                else:
                    agents.append(
                        PPOAgent(
                            s,
                            n,
                            env.rules,
                            int(seeds[s]),
                            net=net,
                            accusation=head,
                            planner=policy_planner if key == "unfitted" else planner,
                        )
                    )
            for a in agents:
                a.reset()
            while not env.game_over:
                name = env.agent_selection
                s = env.possible_agents.index(name)
                env.step(int(agents[s].act(env.observe(name), env.infos[name])))
            w = env.winner()
            wins[key].append(int(w == env.possible_agents[me]))
    return wins


def _play(
    nets: dict[str, Any],
    args: argparse.Namespace,
    policy: str,
    planner: dict[str, Any] | None = None,
    policy_planner: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Both fitted copies on ``args.play`` deals against ``args.play_opponent``, in worker processes."""
    from concurrent.futures import ProcessPoolExecutor

    state = {k: (net.config(), {n: t.detach().clone() for n, t in net.state_dict().items()}) for k, net in nets.items()}
    ids = list(range(args.play_seed, args.play_seed + args.play))
    size = max(1, min(20, -(-args.play // max(1, args.workers))))
    head = (state, policy, args.play_opponent, args.players, args.rules)
    jobs = [(*head, ids[i : i + size], args.agent_seed, planner, policy_planner) for i in range(0, len(ids), size)]
    if args.workers <= 1:
        parts = list(map(_play_chunk, jobs))
    else:
        with ProcessPoolExecutor(args.workers) as pool:
            parts = list(pool.map(_play_chunk, jobs))
    wins = {k: [w for p in parts for w in p[k]] for k in nets}
    from seat_games import mean_ci95

    w = {k: np.array(v, dtype=float) for k, v in wins.items()}
    out: dict[str, Any] = {
        "games": args.play,
        "seed": args.play_seed,
        "agent_seed": args.agent_seed,
        "opponent": args.play_opponent,
        **{k: float(v.mean()) for k, v in w.items()},
        "wins": {k: [int(x) for x in v] for k, v in w.items()},
    }
    if "network_as_is" in w and "with_room_values" in w:
        diff, lo, hi = mean_ci95(w["with_room_values"] - w["network_as_is"])
        out["difference"], out["difference_ci95"] = diff, [lo, hi]
    if "unfitted" in w and "with_room_values" in w:
        d2, lo2, hi2 = mean_ci95(w["with_room_values"] - w["unfitted"])
        out["difference_vs_unfitted"], out["difference_vs_unfitted_ci95"] = d2, [lo2, hi2]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=3000000)
    ap.add_argument("--agent-seed", type=int, default=21)
    ap.add_argument("--teacher", default="deduction:plan=roll")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--held-out", type=float, default=0.1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--play", type=int, default=0, help="then play each fitted copy against --play-opponent on this many deals")
    ap.add_argument("--play-opponent", default="notebook", help="the spec of every opponent seat in --play games")
    ap.add_argument(
        "--mode",
        type=int,
        choices=(1, 2, 3, 4),
        default=1,
        help="room_values of the widened copy (network.py); 3: a room_values=2 --policy that also reads the move scores; "
        "4: a room_values=3 --policy that also reads the suggestion scores",
    )
    ap.add_argument("--new-lr", type=float, help="the learning rate of the --mode 2-4 scalars (default: --lr)")
    ap.add_argument(
        "--floor-squares",
        action="store_true",
        help="--mode 3: the widened copy scores the square moves at the floor (CluePolicyNet(floor_squares=True))",
    )
    ap.add_argument("--skip-as-is", action="store_true", help="fit only the widened copy (not the network as it is)")
    ap.add_argument(
        "--refit-moves",
        action="store_true",
        help="a --policy that reads move scores: fit only its four move-score weights again (no widening)",
    )
    ap.add_argument(
        "--roll-scores",
        action="store_true",
        help="with --refit-moves: the refitted copy scores the roll as its best toward score (CluePolicyNet(roll_scores=True))",
    )
    ap.add_argument(
        "--refit-suggestions",
        action="store_true",
        help="a --policy that reads suggestion scores: fit only its suggestion-score weight again (no widening)",
    )
    ap.add_argument("--fit-only-new", action="store_true", help="fit only the room-value input's weights of the widened copy")
    ap.add_argument("--play-arms", default="", help="comma-separated copies to play (default: every fitted copy)")
    ap.add_argument("--play-unfitted", action="store_true", help="play the policy's network as it is too (a third arm)")
    ap.add_argument("--save", help="write each fitted copy, with the policy's accusation head, as DIR/KEY.pt")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--rules", default="classic")
    ap.add_argument("--policy", help="the policy file to widen and play (default: the file ppo plays for the game)")
    ap.add_argument(
        "--opponents", default="", help="comma-separated specs the recorded games cycle through (default: the 4-player mix)"
    )
    ap.add_argument("--play-seed", type=int, default=3100000)
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--data", help="an .npz of recorded decisions: read if it exists (same --games/--seed), else written")
    args = ap.parse_args(argv)
    from agents.ppo_agent import shipped_policy

    policy = args.policy or (
        SHIPPED if (args.players, args.rules) == (4, "classic") else shipped_policy(args.players, args.rules)
    )
    opponents = [o for o in args.opponents.split(",") if o]

    from concurrent.futures import ProcessPoolExecutor

    import torch

    from agents import SpecFactory
    from clue_env.policy.checkpoint import load_accusation, load_policy, save_policy

    #: the saved and played copies' planner: the teacher's planner parameters, if any (``tells`` 1 is no tells)
    planner: dict[str, Any] = teacher_planner(args.teacher)

    # a policy whose network already reads room values (a later round): only that copy is fitted on;
    # checked before any game is recorded, so a wrong combination costs nothing
    policy_rv = load_policy(policy)[0].room_values
    base_reads_rv = bool(policy_rv)
    if args.mode == 3 and policy_rv not in (0, 2):
        ap.error(
            "--mode 3 adds move scores to a room_values=2 --policy (such as the shipped two-player file), or to a network "
            "without room values, first widened to room_values=2 with its new weights at zero (the same function)"
        )
    if args.mode == 3 and not base_reads_rv and not args.skip_as_is:
        ap.error("--mode 3 with a --policy without room values fits the widened copy only: add --skip-as-is")
    if args.floor_squares and args.mode != 3:
        ap.error("--floor-squares goes with --mode 3 (the move scores)")
    refit = tuple(k for k, on in (("moves", args.refit_moves), ("suggestions", args.refit_suggestions)) if on)
    if args.mode == 4 and policy_rv != 3 and not refit:
        ap.error("--mode 4 adds suggestion scores to a room_values=3 --policy (a --mode 3 --save'd file)")
    if args.refit_moves and policy_rv < 3:
        ap.error("--refit-moves fits the move-score weights of a --policy that reads move scores (room_values 3 or 4)")
    if args.refit_suggestions and policy_rv != 4:
        ap.error("--refit-suggestions fits the suggestion-score weight of a --policy that reads them (room_values 4)")
    if args.roll_scores and not args.refit_moves:
        ap.error("--roll-scores goes with --refit-moves (the roll is scored with the move-score weights)")
    if refit and args.floor_squares:
        ap.error("--refit-moves and --refit-suggestions keep the --policy's floor_squares; leave --floor-squares out")
    t0 = time.time()
    ids = list(range(args.seed, args.seed + args.games))
    chunk = chunk_size(args.games)  # at least ~10 chunks: the held-out games are whole chunks
    jobs = [
        (ids[i : i + chunk], args.agent_seed, args.teacher, args.players, args.rules, policy, opponents, SpecFactory)
        for i in range(0, len(ids), chunk)
    ]
    tag = np.array([args.games, args.seed, args.agent_seed, chunk, args.players])
    if args.data and os.path.exists(args.data):
        with np.load(args.data) as z:
            same = np.array_equal(z["tag"], tag) and str(z["teacher"]) == args.teacher
            same = same and (str(z["setup"]) if "setup" in z.files else "") == repr((args.rules, policy, opponents))
            if not same:
                ap.error(
                    f"--data {args.data!r} holds other games (another --games, --seed, --agent-seed, --teacher, "
                    "--players, --rules, --policy or --opponents)"
                )
            if args.mode == 3 and "ms" not in z.files:
                ap.error(f"--data {args.data!r} was recorded without the planner's move scores (--mode 3 needs them)")
            if args.mode == 4 and "ss" not in z.files:
                ap.error(f"--data {args.data!r} was recorded without the planner's suggestion scores (--mode 4 needs them)")
            data = {k: z[k] for k in ("obs", "mask", "action", "rv", "ms", "ss") if k in z.files}
            sizes = [int(v) for v in z["sizes"]]
        print(f"read {len(data['action'])} decisions of {args.games} games from {args.data}", flush=True)
    else:
        with ProcessPoolExecutor(args.workers) as pool:
            parts = list(pool.map(record_job, jobs))
        data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        sizes = [len(p["action"]) for p in parts]
        print(f"recorded {len(data['action'])} decisions from {args.games} games in {time.time() - t0:.0f} s", flush=True)
        if args.data:
            tmp = args.data + ".tmp.npz"
            np.savez(
                tmp,
                tag=tag,
                teacher=np.array(args.teacher),
                setup=np.array(repr((args.rules, policy, opponents))),
                sizes=np.array(sizes),
                **data,
            )
            os.replace(tmp, args.data)
    n = len(data["action"])
    # split by game chunk (decisions of one game stay together): the last chunks are held out
    if len(sizes) < 2:
        ap.error("--games: at least 2, so that some games are held out")
    train_idx, hold_idx = held_out_split(sizes, args.held_out)

    out: dict[str, Any] = {
        "games": args.games,
        "players": args.players,
        "rules": args.rules,
        "policy": policy,
        "opponents": opponents or "4-player mix",
        "decisions": n,
        "held_out_decisions": len(hold_idx),
        "teacher": args.teacher,
    }
    fitted: dict[str, Any] = {}
    out["policy_reads_room_values"] = base_reads_rv
    for use_rv in (True,) if base_reads_rv or args.skip_as_is else (False, True):
        torch.manual_seed(0)
        base, _ = load_policy(policy)
        net = prepare_network(base, args.mode, use_rv, refit, args.roll_scores, args.floor_squares)
        before = phase_accuracy(net, data, hold_idx, use_rv)
        fit_planner_weights(
            net,
            data,
            train_idx,
            args.epochs,
            args.lr,
            seed=1,
            use_rv=use_rv,
            only_new=use_rv and args.fit_only_new,
            new_lr=args.new_lr,
            refit=refit,
        )
        after = phase_accuracy(net, data, hold_idx, use_rv)
        key = "with_room_values" if use_rv else "network_as_is"
        out[key] = {"held_out_move_accuracy_before": before, "held_out_move_accuracy_after": after}
        print(f"{key}: held-out move accuracy {before:.1%} -> {after:.1%}", flush=True)
        if net.room_values == 4:  # --mode 4, or a refit of a network that reads suggestion scores
            base_s = phase_accuracy(load_policy(policy)[0], data, hold_idx, use_rv, "suggest")
            after_s = phase_accuracy(net, data, hold_idx, use_rv, "suggest")
            out[key].update({"held_out_suggest_accuracy_before": base_s, "held_out_suggest_accuracy_after": after_s})
            print(f"{key}: held-out suggestion accuracy {base_s:.1%} -> {after_s:.1%}", flush=True)
        fitted[key] = net
    if args.save:
        from clue_env.training.trainer import git_commit

        head = load_accusation(policy)
        source = load_policy(policy)[1]
        for key, net in fitted.items():
            path = os.path.join(args.save, f"{key}.pt")
            command = "python benchmarks/room_value_probe.py " + " ".join(sys.argv[1:] if argv is None else argv)
            meta = {"command": command, "commit": git_commit(ROOT), "probe": out, "from": {"policy": policy, "meta": source}}
            if planner:
                meta["planner"] = planner
            save_policy(path, net, meta, accusation=head)
            print(f"wrote {path}", flush=True)
    if args.play:
        if args.play_unfitted or base_reads_rv:
            fitted = {**fitted, "unfitted": load_policy(policy)[0]}
        if args.play_arms:
            keep = [a for a in args.play_arms.split(",") if a]
            unknown = [a for a in keep if a not in fitted]
            if unknown:
                ap.error(f"--play-arms: unknown {unknown}; known: {', '.join(fitted)}")
            fitted = {k: v for k, v in fitted.items() if k in keep}
        from agents.ppo_agent import planner_kwargs

        out["play"] = _play(fitted, args, policy, planner, planner_kwargs(load_policy(policy)[1], policy))
        r = out["play"]
        who = f"{args.players - 1} {args.play_opponent}"
        print(f"against {who}, {r['games']} deals: " + ", ".join(f"{k} {r[k]:.1%}" for k in fitted), flush=True)
        for other, diff in (("network_as_is", "difference"), ("unfitted", "difference_vs_unfitted")):
            if diff in r:
                lo, hi = r[diff + "_ci95"]
                print(
                    f"with room values against {other}: {100 * r[diff]:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}] points (paired)",
                    flush=True,
                )
    if args.json:
        from clue_env.fileio import write_output

        write_output(args.json, json.dumps(out, indent=2).encode())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
