"""Train a Clue policy: imitation of the deduction bot, then MaskablePPO fine-tuning (SPEC "Scripts").

    python train.py --config configs/train/NAME.yaml [--timesteps N] [--seed S] [--out DIR] [--resume]

``--timesteps`` overrides ``ppo.timesteps``; ``--out`` defaults to ``runs/<config name>``. The run
directory records the config, seed, git commit and package versions, TensorBoard logs
(``tensorboard --logdir runs``), periodic evaluations (``eval.jsonl``, ``curve.png``) and
checkpoints; ``--resume`` continues an interrupted run from its last checkpoint. The final policy
is ``DIR/policy.pt``: evaluate it with ``python evaluate.py --seats ppo:DIR/policy.pt,notebook,...``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from typing import Any


def _evaluate(policy: str, opponent: str, num_players: int, games: int, seed: int, rules: str, workers: int) -> dict[str, Any]:
    from agents.tournament import run_tournament

    seats = [f"ppo:{policy}"] + [opponent] * (num_players - 1)
    return run_tournament(seats, games, rules=rules, seed=seed, workers=workers, progress=False, agent_seed=seed)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Train a Clue policy (imitation, then MaskablePPO).")
    ap.add_argument("--config", required=True, help="a training config, e.g. configs/train/shipped.yaml")
    ap.add_argument("--timesteps", type=int, default=None, help="PPO timesteps (overrides ppo.timesteps)")
    ap.add_argument("--seed", type=int, default=None, help="seed (overrides the config's)")
    ap.add_argument("--out", default=None, help="run directory (default runs/<config name>)")
    ap.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    ap.add_argument("--workers", type=int, default=2, help="processes for imitation games (default 2)")
    ap.add_argument("--quiet", action="store_true", help="no progress output")
    args = ap.parse_args(argv)
    if args.timesteps is not None and args.timesteps < 0:
        ap.error("--timesteps must be >= 0")
    if args.seed is not None and args.seed < 0:
        ap.error("--seed must be >= 0")
    if args.workers < 1:
        ap.error("--workers must be at least 1")
    try:
        import sb3_contrib  # noqa: F401
        import torch  # noqa: F401
    except ModuleNotFoundError as e:
        print(
            f"train.py: error: {e.name} is not installed; install the training extra: pip install -e '.[train]'", file=sys.stderr
        )
        return 2

    from agents import SpecFactory
    from clue_env.engine.errors import ConfigError
    from clue_env.training.config import load_train_config
    from clue_env.training.trainer import Trainer

    try:
        cfg = load_train_config(args.config)
        if args.timesteps is not None:
            cfg = cfg.replace_ppo(timesteps=args.timesteps)
        if args.seed is not None:
            cfg = dataclasses.replace(cfg, seed=args.seed)
        lineups = [*cfg.imitation.lineups, *cfg.accusation.lineups]
        for spec in set(cfg.ppo.opponents) | set(cfg.eval.opponents) | {s for lu in lineups for s in lu}:
            SpecFactory(spec)  # fail fast on a bad spec
    except (ConfigError, ValueError) as e:
        print(f"train.py: error: {e}", file=sys.stderr)
        return 2
    out = args.out or os.path.join("runs", cfg.name)

    def evaluate(policy: str, opponent: str, num_players: int, games: int, seed: int) -> dict[str, Any]:
        return _evaluate(policy, opponent, num_players, games, seed, cfg.rules, cfg.eval.workers)

    trainer = Trainer(
        cfg,
        out,
        SpecFactory,
        evaluate,
        resume=args.resume,
        progress=not args.quiet,
        command=["python", "train.py", *(argv if argv is not None else sys.argv[1:])],
        workers=args.workers,
    )
    try:
        final = trainer.run()
    except (FileExistsError, FileNotFoundError, ValueError) as e:
        print(f"train.py: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            f"\ntrain.py: interrupted; continue with: python train.py --config {args.config} --out {out} --resume",
            file=sys.stderr,
        )
        return 130
    print(f"wrote {final}")
    print(f"evaluate it: python evaluate.py --seats ppo:{final},notebook,notebook,notebook --games 1000")
    return 0


if __name__ == "__main__":
    sys.exit(main())
