"""Accusation heads replayed on recorded games (issue 15): what each head would have gained over waiting
for proof, on trajectories it was not fitted on, and how much was there to gain.

An accusation stage's recorded seat waits for proof (``deduction``, or a network without a head), and
accusing only ends the accuser's own game, so a head's decisions can be replayed exactly along the
recorded trajectory (:func:`clue_env.training.accusation_fit.realised_values`). For the line-ups
chosen (``--lineups``, default all) this prints:

* the recorded seat's win rate, and the **headroom**: the share of its seat-games lost while its most
  likely triple was right at its last chance to accuse (an oracle that knew it was the last chance
  would have won those), and at any chance;
* for every head in ``--heads`` (policy files whose head reads the run's feature set, or a set inside it:
  set 1 inside sets 2 and 3, set 3 inside set 5, set 5 inside set 6, so that the shipped set-3 head can be
  replayed on a set-5 recording; any other head is refused with a message naming both sets): its gain in
  win rate over waiting, with a 95% interval, how often it accuses before proof and how often rightly,
  and its paired difference from the first head on the same seat-games;
* with ``--average``: the same for the rule that accuses where the mean of the heads' stop-minus-wait
  logits is above zero (an ensemble of heads, each reading its own feature set's columns);
* with ``--compare RUN``: the recorded seat's wins against those of ``RUN``'s recorded seat on the same
  games (same game seeds and seat), paired: two agents on the same deals;
* with ``--cv BASE``: a two-fold check of refitting. The recorded seat-games of ``--run`` are split in
  two halves by game; a head is fitted on ``BASE``'s training games (its stage's own split) plus one
  half, with ``BASE``'s head settings, and compared with the first head on the other half, both ways;
  and on ``BASE``'s held-out games of each of its line-ups (where the first head, if it is ``BASE``'s
  own with ``refit: false``, was not fitted either).

::

    python benchmarks/accusation_heads.py --run runs/accusation_2p_mixed_v5_net --lineups 0,3 \\
        --heads models/clue_ppo_2p_mixed.pt,models/clue_ppo_2p_accuse.pt [--cv runs/accusation_2p_mixed_v5_dd] [--json F]

A head fitted on ``--run`` itself is flattered on its training games; ``--held-out-only`` keeps that
run's held-out games only (its stage's split).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from accusation_features import as_baseline, load_run  # noqa: E402

from clue_env.policy.accusation import FEATURE_SETS, TRIPLE_WIDTH  # noqa: E402
from clue_env.policy.accusation_net import accusation_from_state  # noqa: E402
from clue_env.policy.checkpoint import read_policy_file  # noqa: E402
from clue_env.training.accusation_fit import (  # noqa: E402
    Trajectory,
    as_played,
    fit_head,
    held_out_games,
    realised_values,
    stop_decisions,
)
from clue_env.training.trainer import atomic_write_text  # noqa: E402


def headroom(trajs: list[Trajectory]) -> dict[str, float]:
    """The recorded seat's win rate, and the shares of its seat-games lost with the best triple right at the
    last opportunity to accuse, and at any."""
    lost = [t for t in trajs if not t.won]
    n = max(len(trajs), 1)
    return {
        "seat_games": len(trajs),
        "won": float(np.mean([t.won for t in trajs])) if trajs else 0.0,
        "lost_right_at_last_chance": sum(len(t.correct) > 0 and bool(t.correct[-1]) for t in lost) / n,
        "lost_right_at_any_chance": sum(bool(t.correct.any()) for t in lost) / n,
    }


def replay(head: Any, trajs: list[Trajectory]) -> tuple[np.ndarray, dict[str, float]]:
    """Per seat-game: the win under ``head`` (0/1); and its gain over waiting, the 95% half-width, how often it
    accuses before proof and how often that accusation is right."""
    trajs = as_played(head, trajs)  # sets 4 and 6: right or wrong is the scorer's own pick
    return score(trajs, stop_decisions(head, trajs))


def margins(head: Any, trajs: list[Trajectory]) -> list[np.ndarray]:
    """Per seat-game, at each opportunity: the head's stop logit minus its wait logit (it accuses where > 0)."""
    import torch

    with torch.inference_mode():
        return [(head.stop(torch.from_numpy(t.x)) - head.cont(torch.from_numpy(t.x))).squeeze(-1).numpy() for t in trajs]


def averaged(paths: list[str], heads: list[Any], trajs: list[Trajectory]) -> tuple[np.ndarray, dict[str, float]]:
    """:func:`replay` for the rule "accuse where the mean of the heads' margins is > 0" (each head reading its
    own feature set's columns, :func:`for_head`). Only heads that accuse the likeliest triple (no second
    posterior in their triple scorer) can be averaged: their accusations are the same triple."""
    for path, head in zip(paths, heads):
        if TRIPLE_WIDTH[FEATURE_SETS[head.inputs]] != 2:
            raise SystemExit(
                f"{path}: its head's triple scorer may pick another triple than the likeliest; --average cannot mix it"
            )
    per_head = [margins(h, for_head(p, h, trajs)) for p, h in zip(paths, heads)]
    stops = [np.mean(ms, axis=0) > 0 for ms in zip(*per_head)]
    return score(trajs, stops)


def score(trajs: list[Trajectory], stops: list[np.ndarray]) -> tuple[np.ndarray, dict[str, float]]:
    """The wins of the accuse-now decisions ``stops`` along ``trajs``, and their summary (see :func:`replay`)."""
    values, _ = realised_values(trajs, stops)
    d = values - np.array([t.won for t in trajs])
    early = sum(bool(s.any()) for s in stops)
    right = sum(bool(t.correct[int(np.argmax(s))]) for t, s in zip(trajs, stops) if s.any())
    return values, {
        "gain": float(d.mean()),
        "ci95": half(d),
        "accuses_early": early / max(len(trajs), 1),
        "right_when_early": right / max(early, 1),
    }


def half(d: np.ndarray) -> float:
    return float(1.96 * d.std(ddof=1) / math.sqrt(len(d))) if len(d) > 1 else 0.0


def load_head(path: str) -> Any:
    data = read_policy_file(path).get("accusation")
    if data is None:
        raise SystemExit(f"{path}: the policy file has no accusation head")
    return accusation_from_state(data)


#: (head's feature set, recorded feature set) pairs whose inputs are columns of the recording
#: (accusation_features.baseline_columns)
INSIDE = {(1, 2), (1, 3), (3, 5), (5, 6)}


def for_head(path: str, head: Any, trajs: list[Trajectory]) -> list[Trajectory]:
    """``trajs`` as ``head`` (from the file ``path``) reads them: as recorded when it reads the recorded
    feature set, else the columns of its own set inside the recording; a head of any other set is refused."""
    recorded = FEATURE_SETS[trajs[0].x.shape[1]]
    wants = FEATURE_SETS[head.inputs]
    if wants == recorded:
        return trajs
    if (wants, recorded) not in INSIDE:
        raise SystemExit(
            f"{path}: its head reads feature set {wants}, the run recorded set {recorded}; a head can be replayed on "
            f"a recording of its own set or of a set that holds its inputs (1 in 2 or 3, 3 in 5, 5 in 6)"
        )
    return as_baseline(trajs, wants)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--run", type=Path, required=True, help="a run directory whose accusation stage recorded games")
    ap.add_argument("--lineups", default="", help="comma-separated line-up indices of --run (default: all)")
    ap.add_argument("--heads", default="", help="comma-separated policy files with accusation heads; the first is the reference")
    ap.add_argument("--seat", type=int, default=None, help="only the recorded seat-games of this seat")
    ap.add_argument(
        "--compare",
        type=Path,
        default=None,
        help="another run that recorded the same games: the two recorded seats' wins, paired",
    )
    ap.add_argument("--held-out-only", action="store_true", help="only --run's held-out games (its stage's split)")
    ap.add_argument("--cv", type=Path, default=None, help="a run whose training games a refitted head starts from (see above)")
    ap.add_argument(
        "--average",
        action="store_true",
        help="also replay the mean of --heads: accuse where the mean of their stop-minus-wait logits is > 0",
    )
    ap.add_argument("--json", default="", help="write the figures here")
    args = ap.parse_args(argv)

    cfg, trajs, lineup_of = load_run(args.run)
    held = held_out_games(trajs, cfg.seed, cfg.accusation.held_out)  # drawn over every recorded game, as the stage draws
    if args.lineups:
        keep = {int(x) for x in args.lineups.split(",")}
        trajs = [t for t in trajs if lineup_of[t.game] in keep]
    if args.seat is not None:
        trajs = [t for t in trajs if t.seat == args.seat]
    if args.held_out_only:
        trajs = [t for t in trajs if t.game in held]
    if not trajs:
        raise SystemExit("no recorded seat-games left to replay")
    heads = [h for h in args.heads.split(",") if h]
    if args.cv is not None and not heads:
        raise SystemExit("--cv compares a refitted head with the first of --heads: give --heads")
    report: dict[str, Any] = {"run": str(args.run), "lineups": args.lineups or "all", "headroom": headroom(trajs), "heads": []}
    r = report["headroom"]
    print(
        f"{args.run} ({r['seat_games']} seat-games): the recorded seat won {r['won']:.1%}; lost with its best triple right "
        f"at its last chance {r['lost_right_at_last_chance']:.1%}, at any chance {r['lost_right_at_any_chance']:.1%}"
    )
    if args.compare is not None:
        report["compare"] = compare(args.compare, trajs)
    ref = None
    for path in heads:
        head = load_head(path)
        values, row = replay(head, for_head(path, head, trajs))
        row["head"] = path
        line = f"  {path}: {row['gain']:+.2%} ± {row['ci95']:.2%} over waiting; accuses early in {row['accuses_early']:.1%}"
        line += f" of seat-games, right {row['right_when_early']:.1%}"
        if ref is None:
            ref = values
        else:
            d = values - ref
            row["vs_first"], row["vs_first_ci95"] = float(d.mean()), half(d)
            line += f"; vs the first {d.mean():+.2%} ± {half(d):.2%}"
        print(line)
        report["heads"].append(row)
    if args.average:
        if len(heads) < 2:
            raise SystemExit("--average needs at least two --heads")
        values, row = averaged(heads, [load_head(p) for p in heads], trajs)
        row["head"] = "mean of " + ",".join(heads)
        assert ref is not None
        d = values - ref
        row["vs_first"], row["vs_first_ci95"] = float(d.mean()), half(d)
        print(
            f"  the mean of the {len(heads)} heads: {row['gain']:+.2%} ± {row['ci95']:.2%} over waiting; accuses early in "
            f"{row['accuses_early']:.1%} of seat-games, right {row['right_when_early']:.1%}; "
            f"vs the first {d.mean():+.2%} ± {half(d):.2%}"
        )
        report["heads"].append(row)
    if args.cv is not None:
        first = load_head(heads[0])
        if FEATURE_SETS[first.inputs] != FEATURE_SETS[trajs[0].x.shape[1]]:
            raise SystemExit(
                f"--cv refits the run's own feature set and compares it with the first head: {heads[0]} reads another"
            )
        report["cv"] = cross_check(args.cv, trajs, first)
    if args.json:
        atomic_write_text(args.json, json.dumps(report, indent=2))
    return 0


def compare(other: Path, trajs: list[Trajectory]) -> dict[str, Any]:
    """The recorded seats' wins here and in ``other`` on the same (game, seat) pairs: the same deals played
    by two different recorded agents (e.g. a network and ``deduction`` in seat 0), paired game by game."""
    _, theirs, _ = load_run(other)
    won = {(t.game, t.seat): t.won for t in theirs}
    pairs = [(t.won, won[(t.game, t.seat)]) for t in trajs if (t.game, t.seat) in won]
    if len(pairs) < 2:
        raise SystemExit(f"{other}: fewer than 2 of these seat-games were recorded there too")
    a, b = np.array(pairs).T
    d = a - b
    print(
        f"  on the {len(d)} seat-games {other} recorded too: won {a.mean():.1%} here, {b.mean():.1%} there; "
        f"difference {d.mean():+.2%} ± {half(d):.2%} (paired)"
    )
    return {"run": str(other), "seat_games": len(d), "won": float(a.mean()), "won_there": float(b.mean()),
            "difference": float(d.mean()), "ci95": half(d)}  # fmt: skip


def cross_check(base: Path, trajs: list[Trajectory], first: Any) -> dict[str, Any]:
    """Two folds: a head fitted on ``base``'s training games plus half of ``trajs``, against ``first``."""
    bcfg, btrajs, blineup = load_run(base)
    a = bcfg.accusation
    held = held_out_games(btrajs, bcfg.seed, a.held_out)
    btrain = [t for t in btrajs if t.game not in held]
    games = sorted({t.game for t in trajs})
    fold = {g: i % 2 for i, g in enumerate(np.random.default_rng(0).permutation(games).tolist())}
    out: dict[str, Any] = {"base": str(base), "folds": []}
    diffs = []
    for f in (0, 1):
        train = btrain + [t for t in trajs if fold[t.game] != f]
        test = [t for t in trajs if fold[t.game] == f]
        new = fit_head(train, hidden=a.hidden, iterations=a.iterations, epochs=a.epochs, lr=a.lr,
                       weight_decay=a.weight_decay, members=a.members, seed=bcfg.seed)  # fmt: skip
        rows = []
        for name, ts in [("this run, the other half", test)] + [
            (f"{base.name} line-up {li}, held out", [t for t in btrajs if t.game in held and blineup[t.game] == li])
            for li in sorted(set(blineup.values()))
        ]:
            if len(ts) < 2:
                continue
            v0, _ = replay(first, ts)
            v1, row = replay(new, ts)
            d = v1 - v0
            if name.startswith("this run"):
                diffs.append(d)
            rows.append(
                {
                    "games": name,
                    "seat_games": len(ts),
                    "refitted": row["gain"],
                    "refit_minus_first": float(d.mean()),
                    "ci95": half(d),
                }
            )
            print(
                f"  fold {f}, {name} ({len(ts)}): refitted {row['gain']:+.2%} over waiting; "
                f"refitted - first {d.mean():+.2%} ± {half(d):.2%}"
            )
        out["folds"].append({"fold": f, "train_seat_games": len(train), "rows": rows})
    d = np.concatenate(diffs)
    out["refit_minus_first"], out["ci95"] = float(d.mean()), half(d)
    print(f"  both folds, this run: refitted - first {d.mean():+.2%} ± {half(d):.2%} ({len(d)} seat-games)")
    return out


if __name__ == "__main__":
    raise SystemExit(main())
