"""The imitation stage of a training run: behaviour cloning of a scripted teacher's games, then
DAgger rounds, each playing games with the policy so far and labelling its states with the
teacher's moves (:mod:`~clue_env.training.imitation` records the games and fits the network).

:func:`run_imitation` works for a :class:`~clue_env.training.run_support.StageContext` (a
:class:`~clue_env.training.trainer.Trainer`); it writes ``checkpoints/imitation.pt`` and, on
``--resume``, reads it instead of imitating again.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from ..policy.checkpoint import load_policy, read_policy_file, save_policy
from .imitation import ActorFactory, Batch, fit, phase_weights, record_games
from .run_support import StageContext, seed_of


def _collect_chunk(args: tuple) -> Batch:
    lineups, games, rules, seed, gamma, driver = args
    return record_games(lineups, games, rules, seed, gamma, driver)


def _lineups(run: StageContext) -> list[tuple[list[ActorFactory], list[int]]]:
    im = run.cfg.imitation
    return [([run.factory_for(s) for s in lineup], [i for i, s in enumerate(lineup) if s == im.teacher]) for lineup in im.lineups]


def _collect(run: StageContext, games: range, seed: int, driver: ActorFactory | None, desc: str) -> Batch:
    from tqdm import tqdm

    lineups = _lineups(run)
    chunk = 10
    jobs = [
        (lineups, list(range(i, min(games.stop, i + chunk))), run.rules, seed, run.cfg.imitation.gamma, driver)
        for i in range(games.start, games.stop, chunk)
    ]
    parts: list[Batch] = []
    bar = tqdm(total=len(games), unit="game", desc=desc, disable=not run.progress)
    if run.workers == 1:
        for j in jobs:
            parts.append(_collect_chunk(j))
            bar.update(len(j[1]))
    else:
        with ProcessPoolExecutor(run.workers) as pool:
            for j, b in zip(jobs, pool.map(_collect_chunk, jobs)):
                parts.append(b)
                bar.update(len(j[1]))
    bar.close()
    return Batch.concat(parts)


def run_imitation(run: StageContext, net: Any) -> Any:
    """The imitation stage of ``run``: behaviour cloning (and DAgger rounds) into ``net``; returns it.

    From scratch: ``games`` teacher games, a fit, then each DAgger round. With ``init`` and
    ``from_init``, ``net`` is the init policy: the teacher games (if any) and their fit, then the
    DAgger rounds, each driven by the policy so far with the init file's accusation head, so the
    states labelled are those the shipped agent reaches. Each fit weighs decisions by phase.
    """
    im = run.cfg.imitation
    path = os.path.join(run.ckpt, "imitation.pt")
    if run.resume and os.path.exists(path):
        run.log(f"resume: imitation already done ({path})")
        return load_policy(path)[0]
    if not run.cfg.imitates():
        return net
    import torch

    head = read_policy_file(run.cfg.init).get("accusation") if run.cfg.init else None
    by_phase = im.phase_weights()
    if im.weighted():
        run.log("imitation: phase weights " + ", ".join(f"{k} {v:g}" for k, v in by_phase.items()))

    def weights(data: Batch) -> np.ndarray | None:
        return phase_weights(data, by_phase) if im.weighted() else None

    torch.manual_seed(seed_of(run.cfg.seed, 1))
    step = [0]

    def log(stats: dict[str, float]) -> None:
        step[0] += 1
        for k, v in stats.items():
            if k != "epoch":
                run.writer.add_scalar(f"imitation/{k}", v, step[0])
        run.log("  " + ", ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in stats.items()))

    parts: list[Batch] = []
    if im.games > 0:
        data = _collect(run, range(im.games), seed_of(run.cfg.seed, 2), None, "imitation games")
        run.log(f"imitation: {len(data)} decisions from {im.games} games")
        fit(net, data, epochs=im.epochs, batch_size=im.batch_size, lr=im.lr, value_coef=im.value_coef,
            seed=run.cfg.seed, log=log, weights=weights(data))  # fmt: skip
        parts.append(data)
    for r in range(im.dagger_rounds):
        tmp = os.path.join(run.ckpt, f"dagger_{r}.pt")
        save_policy(tmp, net, {"phase": f"dagger round {r}"}, accusation=head)
        start = im.games + r * im.dagger_games
        parts.append(
            _collect(
                run,
                range(start, start + im.dagger_games),
                seed_of(run.cfg.seed, 2),
                run.factory_for(f"ppo:{tmp}"),
                f"DAgger round {r + 1}",
            )
        )
        data = Batch.concat(parts)
        run.log(f"DAgger round {r + 1}: {len(data)} decisions")
        fit(
            net,
            data,
            epochs=im.dagger_epochs,
            batch_size=im.batch_size,
            lr=im.lr / 3,  # a gentler refit: the net starts from the last fit
            value_coef=im.value_coef,
            seed=run.cfg.seed + r + 1,
            log=log,
            weights=weights(data),
        )
    decisions = sum(len(p) for p in parts)
    save_policy(path, net, {"phase": "imitation", "decisions": decisions}, accusation=head)
    run.evaluate_policy(path, 0, "imitation")
    return net


__all__ = ["run_imitation"]
