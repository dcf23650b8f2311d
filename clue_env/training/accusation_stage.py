"""The accusation stage of a training run: record games played by the config's line-ups and fit
the accusation head on them (:mod:`~clue_env.training.accusation_fit`), with its held-out gain
over waiting for proof when ``accusation.held_out`` sets games aside.

:func:`run_accusation` works for a :class:`~clue_env.training.run_support.StageContext` (a
:class:`~clue_env.training.trainer.Trainer`); it writes ``accusation/*.npz`` (the recorded games,
kept on ``--resume``) and ``accusation/fit.json`` (the fit's report).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

from ..fileio import finite, one_line
from .run_record import check_games_chunk
from .run_support import StageContext, atomic_write_text, seed_of


def run_accusation(run: StageContext) -> Any:
    """The accusation stage of ``run``: record games and fit the accusation head on them; returns
    the head (``None`` when ``accusation.games`` is 0).

    Chunks of recorded games are saved in ``accusation/`` as they finish; a resumed run keeps
    them and records only the missing ones (each chunk's games are fixed by the seed)."""
    a = run.cfg.accusation
    if a.games == 0:
        return None
    from tqdm import tqdm

    from .accusation_fit import (
        as_played,
        fit_head,
        held_out_games,
        load_trajectories,
        paired_gain,
        record_games,
        save_trajectories,
        stop_decisions,
    )

    d = os.path.join(run.out, "accusation")
    os.makedirs(d, exist_ok=True)
    entropy = seed_of(run.cfg.seed, 5)
    trajs = []
    lineup_of: dict[int, int] = {}  # game seed -> line-up index
    bar = tqdm(total=a.games, unit="game", desc="accusation games", disable=not run.progress)
    # Chunks are recorded round by round (chunk 0 of every line-up, then chunk 1, ...), so that a run
    # stopped part-way holds every line-up in equal measure; the trajectories are then put together in
    # line-up order, the same whatever order the chunks were recorded in.
    plan: list[tuple[int, int, list[int]]] = []  # (chunk, line-up, seeds)
    for li in range(len(a.lineups)):
        n_games = a.games // len(a.lineups) + int(li < a.games % len(a.lineups))
        first = seed_of(run.cfg.seed, 6, li) % 2**40
        for c, start in enumerate(range(0, n_games, a.chunk_games)):
            plan.append((c, li, [first + i for i in range(start, min(n_games, start + a.chunk_games))]))
    parts: dict[tuple[int, int], list[Any]] = {}
    for c, li, seeds in sorted(plan, key=lambda p: (p[0], p[1])):
        lineup = a.lineups[li]
        path = os.path.join(d, f"lineup{li}_chunk{c:04d}.npz")
        if os.path.exists(path):
            check_games_chunk(path)  # within bounds before np.load unpacks it
            try:
                part = load_trajectories(path, seeds)  # a chunk recorded for other games is refused
            except Exception as e:  # a damaged archive: zipfile, numpy and KeyError have their own kinds
                if isinstance(e, ValueError) and repr(path) in str(e):
                    raise  # load_trajectories' own message
                raise ValueError(
                    f"recorded games {path!r} cannot be read ({type(e).__name__}: {one_line(str(e), 200)}); "
                    "move it away to record that chunk again"
                ) from None
        else:
            factories = [run.factory_for(spec) for spec in lineup]
            mask = [not a.record or spec in a.record for spec in lineup]
            part = record_games(factories, run.rules, seeds, entropy, workers=run.workers, record=mask, features=a.features)
            save_trajectories(path, part, seeds)
        parts[(li, c)] = part
        bar.update(len(seeds))
    for c, li, seeds in sorted(plan, key=lambda p: (p[1], p[0])):
        trajs += parts[(li, c)]
        lineup_of.update((s, li) for s in seeds)
    bar.close()
    kw = dict(hidden=a.hidden, iterations=a.iterations, epochs=a.epochs, lr=a.lr, weight_decay=a.weight_decay, members=a.members)
    report: dict[str, Any] = {"trajectories": len(trajs), "games": a.games, "balance": a.balance}

    def weights(ts: list[Any]) -> list[float] | None:
        if not a.balance:
            return None
        per = Counter(lineup_of[t.game] for t in ts)
        return [1.0 / per[lineup_of[t.game]] for t in ts]

    if a.held_out > 0:
        held = held_out_games(trajs, run.cfg.seed, a.held_out)
        train = [t for t in trajs if t.game not in held]
        test = [t for t in trajs if t.game in held]
        curve: list[dict[str, float]] = []
        probe = fit_head(
            train,
            seed=run.cfg.seed,
            log=run.log,
            held_out=test,
            weights=weights(train),
            history=curve,
            **kw,  # type: ignore[arg-type]
        )
        report["held_out_curve"] = curve
        test = as_played(probe, test)  # sets 4 and 6: right or wrong is the scorer's own pick
        gain, half = paired_gain(test, stop_decisions(probe, test))
        report.update(held_out_games=len(held), held_out_gain=gain, held_out_gain_ci95=[gain - half, gain + half])
        run.log(f"accusation head: held-out gain over waiting for proof {gain:+.2%} ± {half:.2%} ({len(test)} seat-games)")
        by_lineup = []
        for li, lineup in enumerate(a.lineups):
            part = [t for t in test if lineup_of.get(t.game) == li]
            if len(part) < 2:
                continue
            g, h = paired_gain(part, stop_decisions(probe, part))
            by_lineup.append({"lineup": list(lineup), "seat_games": len(part), "gain": g, "ci95": [g - h, g + h]})
            run.log(f"  line-up {li} {','.join(lineup)}: {g:+.2%} ± {h:.2%} ({len(part)} seat-games)")
        report["held_out_by_lineup"] = by_lineup
    if a.held_out > 0 and not a.refit:
        net = probe  # the head the held-out figures describe
        report["shipped"] = "the head fitted on the training games (refit: false)"
    else:
        net = fit_head(trajs, seed=run.cfg.seed, log=run.log, weights=weights(trajs), **kw)  # type: ignore[arg-type]
        report["shipped"] = "refitted on every game"
    atomic_write_text(os.path.join(d, "fit.json"), json.dumps(finite(report), indent=2))  # NaN: null
    return net


__all__ = ["run_accusation"]
