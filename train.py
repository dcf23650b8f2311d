"""Train a Clue policy: imitation of the deduction bot, then MaskablePPO fine-tuning (SPEC "Scripts");
or build a shipped policy file from nothing by its recipe (SPEC "Recipes and the models manifest").

    python train.py --config configs/train/NAME.yaml [--timesteps N] [--seed S] [--out DIR] [--resume]
                    [--backend sb3|rllib] [--ray-address auto|HOST:PORT] [--num-env-runners N]
    python train.py --recipe RECIPE --out DIR [--resume] [--smoke] [--deps DIR]

``--recipe`` (a name in ``configs/recipes/`` or a recipe file) runs the recipe's stages in order, each in
``DIR/stages/NN_NAME/`` with its own run record, the recipes it starts from first (in ``--deps``, default
``DIR/deps``), and writes the final policy file ``DIR/policy.pt`` and the recipe's other outputs at the top of
``DIR``; ``--resume`` skips the stages that are done and resumes an interrupted one; ``--smoke`` runs the same
chain at toy sizes (:mod:`clue_env.training.recipe`, docs/training.md "Recipes").

``--timesteps`` overrides ``ppo.timesteps``; ``--out`` defaults to ``runs/<config name>``. The run
directory records the config, seed, git commit and package versions, TensorBoard logs
(``tensorboard --logdir runs``), periodic evaluations (``eval.jsonl``, ``curve.png``) and
checkpoints; ``--resume`` continues an interrupted run from its last checkpoint, to the target the
run recorded (its ``--timesteps`` and ``--seed`` unless given again). The final policy is
``DIR/policy.pt``; the last line printed is the command that evaluates it against ``deduction``
(:func:`evaluate_command`).

``--backend rllib`` (or ``backend: rllib`` in the config) runs the PPO stage on Ray RLlib (the
``[ray]`` extra; docs/distributed.md): on a local Ray started for the run, or on the cluster named by
``--ray-address``; ``--num-env-runners`` overrides ``rllib.num_env_runners``. Ray is imported only then.

Every check (the config, every agent spec in it, the output directory, a resumed run's record and
checkpoint) is made before any work and before anything is written. A Ctrl-C prints one line with
the command that continues the run (the worker processes ignore it and are stopped in order). A run directory is data:
resuming reads tensors and numbers from it, never pickled objects, and every file of it (and the config) within bounds
of size and nesting; a refused file is a one-line error naming it (docs/training.md).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

#: while :func:`_interruptible` is active: a process forked from this one (an imitation, accusation
#: or tournament worker, a vec-env worker) ignores Ctrl-C, and the Ctrl-C seen here is recorded
_quiet_children = False
_interrupted = threading.Event()
_fork_hook_installed = False


def _child_after_fork() -> None:
    if _quiet_children:
        # The terminal sends Ctrl-C to every process of the group. A worker ignores it and this
        # process stops the workers in order: a pool's map cancels the games not started and waits
        # for the running chunk, the vec env closes its workers, a tournament terminates its pool.
        # (A worker that exits on it instead breaks its pool, and Python 3.11's pool thread then
        # prints a traceback of its own when map has cancelled the futures.)
        with contextlib.suppress(ValueError):  # signal.signal needs the main thread
            signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def _interruptible() -> Iterator[None]:
    """Workers forked inside this block ignore Ctrl-C (this process stops them); a Ctrl-C here is
    recorded (so that an error it causes on the way out, such as a half-read pipe, is reported as
    the interruption) and raised as KeyboardInterrupt, as usual."""
    global _quiet_children, _fork_hook_installed
    if not _fork_hook_installed and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_child_after_fork)
        _fork_hook_installed = True
    _interrupted.clear()
    main_thread = threading.current_thread() is threading.main_thread()

    def on_sigint(signum: int, frame: Any) -> None:
        _interrupted.set()
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGINT, on_sigint) if main_thread else None
    _quiet_children = True
    try:
        yield
    finally:
        _quiet_children = False
        if main_thread and old is not None:
            signal.signal(signal.SIGINT, old)


def _evaluate(
    policy: str, opponent: str, num_players: int, games: int, seed: int, agent_seed: int, rules: str, workers: int
) -> dict[str, Any]:
    """A tournament as evaluate.py plays it: game g is reset with ``seed + g`` and the agents' seeds
    are children of ``agent_seed``, the run's secret entropy (never derived from ``seed``, R31)."""
    from agents.tournament import run_tournament

    seats = [f"ppo:{policy}"] + [opponent] * (num_players - 1)
    return run_tournament(seats, games, rules=rules, seed=seed, workers=workers, progress=False, agent_seed=agent_seed)


def _ray_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("ray") is not None  # (finding it does not import it)


ROOT = os.path.dirname(os.path.abspath(__file__))
#: the games of the evaluation train.py suggests: a whole number of seating cycles for 2-6 players
HINT_GAMES = 240


def evaluate_command(policy: str, players: int, rules: str = "classic") -> str:
    """The line train.py ends with: the one command that evaluates ``policy`` in one seat against
    ``deduction``, the strongest baseline, in the others."""
    seats = ",".join([f"ppo:{policy}"] + ["deduction"] * (players - 1))
    flags = "" if rules == "classic" else f" --rules {shlex.quote(rules)}"
    return (f"evaluate it against {players - 1} deduction (the strongest baseline): "
            f"python evaluate.py --seats {shlex.quote(seats)}{flags} --games {HINT_GAMES}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Train a Clue policy (imitation, then MaskablePPO), or run a recipe.")
    ap.add_argument("--config", default=None, help="a training config, e.g. configs/train/shipped.yaml")
    ap.add_argument("--recipe", default=None, help="a recipe (configs/recipes/NAME.yaml, by NAME or path): --out DIR")
    ap.add_argument("--smoke", action="store_true", help="--recipe: every stage at toy sizes")
    ap.add_argument("--deps", default=None, help="--recipe: where the recipes it starts from are built (default DIR/deps)")
    ap.add_argument("--timesteps", type=int, default=None, help="PPO timesteps (overrides ppo.timesteps)")
    ap.add_argument("--seed", type=int, default=None, help="seed (overrides the config's)")
    ap.add_argument("--out", default=None, help="run directory (default runs/<config name>)")
    ap.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    ap.add_argument("--workers", type=int, default=2, help="processes for imitation games (default 2)")
    ap.add_argument("--quiet", action="store_true", help="no progress output")
    ap.add_argument("--backend", choices=("sb3", "rllib"), default=None, help="the PPO stage's engine (overrides backend)")
    ap.add_argument(
        "--ray-address", default=None, help="backend rllib: join this Ray cluster (auto or HOST:PORT); default a local Ray"
    )
    ap.add_argument(
        "--num-env-runners", type=int, default=None, help="backend rllib: env runners (overrides rllib.num_env_runners)"
    )
    args = ap.parse_args(argv)
    if (args.config is None) == (args.recipe is None):
        ap.error("give one of --config CONFIG (one training run) or --recipe RECIPE (a chain of stages)")
    if args.recipe is not None:
        options = {"--timesteps": args.timesteps, "--seed": args.seed, "--backend": args.backend,
                   "--ray-address": args.ray_address, "--num-env-runners": args.num_env_runners}  # fmt: skip
        given = [k for k, v in options.items() if v is not None]
        if given:
            ap.error(f"{', '.join(given)}: only with --config (a recipe's stages take their settings from the recipe)")
        if args.out is None:
            ap.error("--recipe needs --out DIR (the run directory; the final policy is DIR/policy.pt)")
    elif args.smoke or args.deps is not None:
        ap.error("--smoke and --deps go with --recipe")
    if args.timesteps is not None and args.timesteps < 0:
        ap.error("--timesteps must be >= 0")
    if args.seed is not None and args.seed < 0:
        ap.error("--seed must be >= 0")
    if not 1 <= args.workers <= 64:
        ap.error("--workers must be 1..64")
    if args.num_env_runners is not None and args.num_env_runners < 0:
        ap.error("--num-env-runners must be >= 0")
    if args.ray_address is not None and not args.ray_address.strip():
        ap.error("--ray-address must be auto or HOST:PORT")
    try:
        import sb3_contrib  # noqa: F401
        import torch  # noqa: F401
    except ModuleNotFoundError as e:
        print(
            f"train.py: error: {e.name} is not installed; install the training extra: pip install -e '.[train]'", file=sys.stderr
        )
        return 2

    if args.recipe is not None:
        return _recipe(args, argv)
    from agents import SpecFactory
    from clue_env.engine.errors import ConfigError
    from clue_env.training.config import load_train_config
    from clue_env.training.run_record import run_config
    from clue_env.training.trainer import Trainer

    out = ""
    try:
        cfg = load_train_config(args.config)
        out = args.out or os.path.join("runs", cfg.name)
        # --resume continues to the run's own target: its recorded --timesteps and --seed, unless given again
        recorded = run_config(out) if args.resume else None
        timesteps = args.timesteps if args.timesteps is not None else recorded.ppo.timesteps if recorded else None
        seed = args.seed if args.seed is not None else recorded.seed if recorded else None
        if timesteps is not None and timesteps != cfg.ppo.timesteps:
            cfg = cfg.replace_ppo(timesteps=timesteps)
        if seed is not None and seed != cfg.seed:
            cfg = cfg.with_seed(seed)
        backend = args.backend or (recorded.backend if recorded else None)
        layout = {} if args.num_env_runners is None else {"num_env_runners": args.num_env_runners}
        if (backend is not None and backend != cfg.backend) or layout:
            cfg = cfg.with_backend(backend, **layout)
        if cfg.backend == "rllib" and not _ray_installed():
            print(
                "train.py: error: backend rllib needs Ray RLlib, which is not installed; install the extra: "
                "pip install -c constraints.txt -e '.[ray]'",
                file=sys.stderr,
            )
            return 2

        def evaluate(policy: str, opponent: str, num_players: int, games: int, seed: int, agent_seed: int) -> dict[str, Any]:
            return _evaluate(policy, opponent, num_players, games, seed, agent_seed, cfg.rules, cfg.eval.workers)

        trainer = Trainer(
            cfg,
            out,
            SpecFactory,
            evaluate,
            resume=args.resume,
            progress=not args.quiet,
            command=["python", "train.py", *(argv if argv is not None else sys.argv[1:])],
            workers=args.workers,
            ray_address=args.ray_address,
        )
        trainer.validate()  # every check, before any work and before anything is written
    except (ConfigError, ValueError, OSError) as e:
        print(f"train.py: error: {e}", file=sys.stderr)
        return 2
    resume = f"python train.py --config {args.config} --out {out} --resume"
    try:
        with _interruptible():
            final = trainer.run()
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt) or (_interrupted.is_set() and isinstance(e, Exception)):
            # one message, whatever the Ctrl-C cut off (a worker's pipe, a pool): no traceback
            print(
                f"\ntrain.py: interrupted; continue with: {resume}\n(it continues to the run's recorded target, "
                f"{cfg.ppo.timesteps} PPO timesteps)",
                file=sys.stderr,
            )
            return 130
        if isinstance(e, (ConfigError, ValueError, FileExistsError, FileNotFoundError)):
            print(f"train.py: error: {e}", file=sys.stderr)
            return 2
        if isinstance(e, OSError):  # a full disk, a removed directory: every file is written atomically
            print(
                f"train.py: error: {e}\nthe run directory keeps its last checkpoint; once fixed, continue with: {resume}",
                file=sys.stderr,
            )
            return 1
        raise
    print(f"wrote {final}")
    print(evaluate_command(final, cfg.eval.num_players, cfg.rules))
    return 0


def _recipe(args: argparse.Namespace, argv: list[str] | None) -> int:
    """``--recipe``: validate the whole chain and the run directory, then build it (Ctrl-C: one line)."""
    from agents import SpecFactory
    from clue_env.engine.errors import ConfigError
    from clue_env.training.recipe import RecipeRunner

    def evaluate(
        policy: str, opponent: str, num_players: int, games: int, seed: int, agent_seed: int, rules: str, workers: int
    ) -> dict[str, Any]:
        return _evaluate(policy, opponent, num_players, games, seed, agent_seed, rules, workers)

    command = ["python", "train.py", *(argv if argv is not None else sys.argv[1:])]
    runner = RecipeRunner(args.recipe, args.out, root=ROOT, factory_for=SpecFactory, evaluate=evaluate, resume=args.resume,
                          smoke=args.smoke, deps=args.deps, workers=args.workers, progress=not args.quiet,
                          command=command)  # fmt: skip
    try:
        runner.validate()
    except (ConfigError, ValueError, OSError) as e:
        print(f"train.py: error: {e}", file=sys.stderr)
        return 2
    resume = f"python train.py --recipe {args.recipe} --out {args.out}{' --smoke' if args.smoke else ''}"
    resume += f"{f' --deps {args.deps}' if args.deps else ''} --resume"
    try:
        with _interruptible():
            final = runner.run()
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt) or (_interrupted.is_set() and isinstance(e, Exception)):
            print(f"\ntrain.py: interrupted; continue with: {resume}\n(the stages that are done are kept)", file=sys.stderr)
            return 130
        if isinstance(e, (ConfigError, ValueError, FileExistsError, FileNotFoundError)):
            print(f"train.py: error: {e}", file=sys.stderr)
            return 2
        if isinstance(e, OSError):
            print(f"train.py: error: {e}\nthe stages that are done are kept; once fixed: {resume}", file=sys.stderr)
            return 1
        raise
    print(f"wrote {final}")
    print(evaluate_command(final, *runner.policy_game()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
