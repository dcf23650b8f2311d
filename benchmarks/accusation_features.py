"""Which accusation-head inputs pay: feature set 1 against set 2 or 3, set 3 against set 5, or set 5 against 6, on the same games.

An accusation stage recorded with ``accusation.features: 2`` (or 3) holds every input of set 1 too
(set 2 adds two race inputs per seat, set 3 three more, see
:class:`clue_env.policy.accusation.RaceTracker`). This script loads such a run's recorded chunks,
splits them into training and held-out games exactly as the stage does (the same seed, share and
line-up weights), fits one head on the recorded set and one on set 1 (its columns without the new
ones per seat; for a set-5 recording, set 3: its columns without the opponents' simulated progress,
:mod:`clue_env.policy.opponent_model`), and reports, per line-up, each head's held-out gain in win rate over waiting for
proof, the paired difference between the two heads (the same seat-games), and how often each
accuses wrongly. Prints a table and writes JSON::

    python benchmarks/accusation_features.py --run runs/accusation_classic_mixed_v2 [--json out.json]
        [--chunks N] [--epochs E] [--weights run|balance|none] [--members K] [--baseline 1|3|5]

Two fits of the head on the run's whole recording take long (about 8 minutes each per 3,000 games
with the run's 20 epochs, on 2 busy cores); ``--chunks`` and ``--epochs`` give a quicker, rougher look.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from clue_env.policy.accusation import (  # noqa: E402
    FEATURE_SETS,
    MAX_SEATS,
    PER_SEAT,
    ROW_WIDTH,
    STOP_FEATURES,
    TRIPLE_WIDTH,
    stop_size,
)
from clue_env.training.accusation_fit import (  # noqa: E402
    Trajectory,
    as_played,
    fit_head,
    held_out_games,
    load_trajectories,
    realised_values,
    stop_decisions,
)
from clue_env.training.config import load_train_config  # noqa: E402

_CHUNK = re.compile(r"lineup(\d+)_chunk(\d+)\.npz")
#: where the per-seat race block starts in a stop-feature vector (see accusation.stop_features)
RACE_START = STOP_FEATURES - MAX_SEATS * PER_SEAT - 9


def set1_columns(features: int = 2) -> np.ndarray:
    """The indices of feature set 1's inputs inside a vector of feature set ``features`` (2 or 3)."""
    width, size = ROW_WIDTH[features], stop_size(features)
    head = np.arange(RACE_START)
    race = np.concatenate([RACE_START + k * width + np.arange(PER_SEAT) for k in range(MAX_SEATS)])
    tail = np.arange(size - 9, size)
    cols = np.concatenate([head, race, tail])
    assert len(cols) == STOP_FEATURES
    return cols


def baseline_columns(recorded: int, baseline: int) -> np.ndarray:
    """The indices of feature set ``baseline``'s inputs inside a vector of set ``recorded``: set 1
    inside sets 2 and 3 (:func:`set1_columns`), set 3 inside set 5 (its first columns: set 5
    appends the opponents' simulated progress to set 3), or set 5 inside set 6 (set 6 appends the
    tell posterior's summary to set 5)."""
    if baseline == 1 and recorded in (2, 3):
        return set1_columns(recorded)
    if (baseline, recorded) in ((3, 5), (5, 6)):
        return np.arange(stop_size(baseline))
    raise SystemExit(
        f"cannot compare feature set {recorded} with set {baseline}: sets 2 and 3 against 1, set 5 against 3, set 6 against 5"
    )


def as_baseline(trajs: list[Trajectory], baseline: int = 1) -> list[Trajectory]:
    """The trajectories with the inputs of feature set ``baseline`` only. Set 6's candidate triples
    were chosen with its tell posterior too (see :func:`clue_env.policy.accusation.head_inputs`),
    so its set-5 baseline scores the same candidates with set 5's two inputs per triple."""
    cols = baseline_columns(FEATURE_SETS[trajs[0].x.shape[1]], baseline) if trajs else set1_columns()
    tw = TRIPLE_WIDTH[baseline]
    return [Trajectory(t.game, t.seat, t.x[:, cols], t.correct, t.triples[..., :tw], t.label, t.won) for t in trajs]


def as_set1(trajs: list[Trajectory]) -> list[Trajectory]:
    return as_baseline(trajs, 1)


def load_run(run: Path, chunks: int | None = None) -> tuple[Any, list[Trajectory], dict[int, int]]:
    cfg = load_train_config(str(run / "config.yaml"))
    d = run / "accusation"
    found = sorted((int(m[1]), int(m[2]), f) for f in os.listdir(d) if (m := _CHUNK.fullmatch(f)))
    if chunks is not None:
        found = [(li, c, f) for li, c, f in found if c < chunks]
    if not found:
        raise SystemExit(f"{d}: no recorded chunks (lineupL_chunkC.npz)")
    trajs: list[Trajectory] = []
    lineup_of: dict[int, int] = {}
    for li, _c, f in found:  # line-up order, then chunk order: as the stage puts them together
        part = load_trajectories(str(d / f))
        trajs += part
        lineup_of.update((t.game, li) for t in part)
    if trajs and FEATURE_SETS.get(trajs[0].x.shape[1], 1) == 1:
        raise SystemExit(f"{run}: recorded with {trajs[0].x.shape[1]} inputs, not feature set 2, 3, 5 or 6")
    return cfg, trajs, lineup_of


def outcomes(trajs: list[Trajectory], net: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per seat-game: the realised win (0/1) under the head, and whether it accused wrongly (with
    a triple scorer that reads a second posterior, sets 4 and 6, "right" is its own pick's)."""
    trajs = as_played(net, trajs)  # sets 4 and 6: right or wrong is the scorer's own pick
    stops = stop_decisions(net, trajs)
    values, _ = realised_values(trajs, stops)
    wrong = np.array([bool(s.any()) and not bool(t.correct[int(np.argmax(s))]) for t, s in zip(trajs, stops)])
    return values, wrong


def interval(d: np.ndarray) -> tuple[float, float]:
    return float(d.mean()), float(1.96 * d.std(ddof=1) / math.sqrt(max(len(d), 2)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--run", type=Path, required=True, help="a run whose accusation stage recorded feature set 2, 3, 5 or 6")
    ap.add_argument(
        "--baseline", type=int, choices=(1, 3, 5), default=None,
        help="the set to compare with (default: 5 for a set-6 run, 3 for a set-5 run, else 1)",
    )  # fmt: skip
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--chunks", type=int, default=None, help="use only the first N recorded chunks of each line-up")
    ap.add_argument("--epochs", type=int, default=None, help="epochs per fit (default: the run's; fewer for a quick look)")
    ap.add_argument(
        "--weights", choices=("run", "balance", "none"), default="run",
        help="line-up weights of both fits: the run's (default), every line-up the same, or every seat-game the same",
    )  # fmt: skip
    ap.add_argument("--members", type=int, default=None, help="MLPs per part of both heads (default: the run's)")
    args = ap.parse_args(argv)
    cfg, trajs, lineup_of = load_run(args.run, args.chunks)
    a = cfg.accusation
    if not a.held_out > 0:
        raise SystemExit("the run's config holds out no games (accusation.held_out: 0): nothing to compare on")
    held = held_out_games(trajs, cfg.seed, a.held_out)  # the stage's split
    train = [t for t in trajs if t.game not in held]
    test = [t for t in trajs if t.game in held]

    balance = a.balance if args.weights == "run" else args.weights == "balance"

    def weights(ts: list[Trajectory]) -> list[float] | None:
        if not balance:
            return None
        per = Counter(lineup_of[t.game] for t in ts)
        return [1.0 / per[lineup_of[t.game]] for t in ts]

    epochs = args.epochs or a.epochs
    kw = dict(hidden=a.hidden, iterations=a.iterations, epochs=epochs, lr=a.lr, weight_decay=a.weight_decay, members=a.members)
    games = len({t.game for t in trajs})
    print(f"{args.run}: {games} games, {len(trajs)} recorded seat-games; {len(held)} games held out ({len(test)} seat-games)")
    print(f"weights: {'every line-up the same' if balance else 'every seat-game the same'}; members: {kw['members']}")
    n = FEATURE_SETS[trajs[0].x.shape[1]]
    new = f"set {n}"
    b = args.baseline if args.baseline is not None else {5: 3, 6: 5}.get(n, 1)
    base = f"set {b}"
    heads: dict[str, Any] = {}
    for name, tr in ((new, train), (base, as_baseline(train, b))):
        t0 = time.time()
        heads[name] = fit_head(tr, seed=cfg.seed, weights=weights(train), **kw)  # type: ignore[arg-type]
        print(f"fitted {name} in {time.time() - t0:.0f} s")
    won = np.array([t.won for t in test])
    v2, w2 = outcomes(test, heads[new])
    v1, w1 = outcomes(as_baseline(test, b), heads[base])
    li_of = np.array([lineup_of[t.game] for t in test])
    rows: list[dict[str, Any]] = []
    groups = [(f"{li} " + ",".join(a.lineups[li]), li_of == li) for li in range(len(a.lineups))] + [("all", li_of >= 0)]
    wrong = f"wrong {b}/{n}"
    heads_row = f"{'seat-games':>10s} {base + ' gain':>16s} {new + ' gain':>16s} {new + ' - ' + base:>16s} {wrong:>11s}"
    print(f"\n{'line-up':52s} {heads_row}")
    for label, sel in groups:
        if sel.sum() < 2:
            continue
        g1, h1 = interval(v1[sel] - won[sel])
        g2, h2 = interval(v2[sel] - won[sel])
        dd, hd = interval(v2[sel] - v1[sel])
        row = {
            "lineup": label,
            "seat_games": int(sel.sum()),
            f"set{b}_gain": g1,
            f"set{b}_ci95": [g1 - h1, g1 + h1],
            f"set{n}_gain": g2,
            f"set{n}_ci95": [g2 - h2, g2 + h2],
            "difference": dd,
            "difference_ci95": [dd - hd, dd + hd],
            f"set{b}_wrong": float(w1[sel].mean()),
            f"set{n}_wrong": float(w2[sel].mean()),
        }
        rows.append(row)
        print(
            f"{label[:52]:52s} {int(sel.sum()):10d} {g1:+7.2%} ± {h1:5.2%} {g2:+7.2%} ± {h2:5.2%} {dd:+7.2%} ± {hd:5.2%}"
            f" {w1[sel].mean():5.1%}/{w2[sel].mean():4.1%}"
        )
    if args.json:
        out = {
            "run": str(args.run), "features": n, "balance": balance, "members": kw["members"], "games": games,
            "held_out_games": len(held), "rows": rows,
        }  # fmt: skip
        args.json.write_text(json.dumps(out, indent=2))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
