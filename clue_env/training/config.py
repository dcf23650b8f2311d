"""Training configuration: a frozen, validated object loaded from ``configs/train/*.yaml``.

Sections: top level (name, seed, rules, player counts), ``net`` (network sizes), ``imitation``
(behaviour cloning of a scripted teacher, with DAgger rounds), ``ppo`` (MaskablePPO
fine-tuning against an opponent mix), ``accusation`` (the accusation head: when to accuse),
``eval`` (periodic tournaments against the baselines), ``rllib`` (the PPO stage on Ray RLlib, used
when ``backend: rllib``; docs/distributed.md).
Unknown keys and bad values raise :class:`TrainConfigError` naming the key.
"""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass, field
from typing import Any

from ..engine.errors import ConfigError
from ..fileio import InputError, loads_yaml, read_regular, short
from ..policy.accusation import MAX_MEMBERS, ROW_WIDTH
from ..policy.net_sizes import net_sizes_problem

#: the largest seed a config may give: numpy's legacy seeding (used by SB3's ``set_random_seed``)
#: takes 32-bit seeds
MAX_SEED = 2**32 - 1
#: the most games a config may ask a stage to play (``imitation.games``, ``accusation.games``, ...):
#: 200 times the shipped configs' largest; a typo such as ``games: 10000000000`` is refused, not queued
MAX_GAMES = 1_000_000
#: the most environments, and environment steps per rollout (``n_envs * n_steps``, the rollout buffer:
#: about 7 KB a step, so at most ~1 GB), of the PPO stage
MAX_ENVS = 1024
MAX_ROLLOUT = 131_072
#: the most worker processes (``ppo.workers``, ``eval.workers``) and torch threads a config may ask for
MAX_WORKERS = 64
#: the most RLlib env runners / learners (``rllib.num_env_runners``, ...) and local Ray CPUs
MAX_RUNNERS = 4096
#: the PPO stage's engines (``backend``)
BACKENDS = ("sb3", "rllib")
#: how a game seats ``ppo.opponents`` (:class:`~clue_env.training.adapter.SingleLearnerEnv`'s ``opponent_draw``)
OPPONENT_DRAWS = ("game", "seat", "lineup")
MAX_THREADS = 256


class TrainConfigError(ConfigError):
    """A training config with an unknown key or a bad value."""


@dataclass(frozen=True)
class NetConfig:
    hidden: int = 256
    card_hidden: int = 64
    context_to_card: int = 64


@dataclass(frozen=True)
class ImitationConfig:
    #: the scripted teacher whose decisions are imitated (an agent spec)
    teacher: str = "deduction"
    #: line-ups of agent specs; the seats whose spec equals ``teacher`` are recorded
    lineups: tuple[tuple[str, ...], ...] = (("deduction", "deduction", "deduction", "deduction"),)
    #: games of teacher play to record
    games: int = 1000
    #: DAgger: rounds in which the current policy plays the recorded seats, the teacher labels them
    dagger_rounds: int = 0
    dagger_games: int = 500
    #: epochs of each refit after a DAgger round (the data then includes everything so far)
    dagger_epochs: int = 3
    #: with ``init``: run this stage on the ``init`` policy instead of skipping it (``games``
    #: teacher games, may be 0, then ``dagger_rounds`` rounds driven by the policy so far, played
    #: with the ``init`` file's accusation head when it has one)
    from_init: bool = False
    #: the weight of each phase's decisions in the cross-entropy (phases as the action mask shows
    #: them, R26-R28): 0 leaves a phase out of the policy loss; the value loss uses every decision
    move_weight: float = 1.0
    suggest_weight: float = 1.0
    refute_weight: float = 1.0
    accuse_weight: float = 1.0
    epochs: int = 8
    batch_size: int = 512
    lr: float = 1e-3
    value_coef: float = 0.5
    gamma: float = 0.99

    def phase_weights(self) -> dict[str, float]:
        """The four phase weights by phase name (:data:`clue_env.codec.PHASES`)."""
        return {"move": self.move_weight, "suggest": self.suggest_weight, "refute": self.refute_weight,
                "accuse/end": self.accuse_weight}  # fmt: skip

    def weighted(self) -> bool:
        """Whether any phase weighs other than 1 (the loss is then a weighted mean)."""
        return any(w != 1.0 for w in self.phase_weights().values())


@dataclass(frozen=True)
class PPOConfig:
    #: learner timesteps of PPO fine-tuning after imitation (0: imitation only)
    timesteps: int = 0
    #: opponent specs; ``opponent_draw`` says how a game seats them
    opponents: tuple[str, ...] = ("notebook",)
    opponent_weights: tuple[float, ...] | None = None
    #: ``game``: one spec (drawn by ``opponent_weights``) in every opponent seat; ``seat``: one drawn per seat;
    #: ``lineup``: every spec once, in a random order around the table (the player count is then their number + 1)
    opponent_draw: str = "game"
    n_envs: int = 2
    #: environments in worker processes (True: :class:`~clue_env.training.vec_env.GroupedSubprocVecEnv`)
    #: or all in this process (False: DummyVecEnv)
    subprocess: bool = True
    #: worker processes for the environments (0: one per core, at most n_envs); each steps its
    #: share of the n_envs in turn, so n_envs above the core count batches the policy's forward pass
    workers: int = 0
    learning_rate: float = 3e-5
    n_steps: int = 512
    batch_size: int = 256
    n_epochs: int = 4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.1
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    #: timesteps between checkpoints (rounded up to a whole number of rollouts); each chunk
    #: starts its environments from seeds derived from (seed, chunk), so a resumed run equals
    #: an uninterrupted one
    checkpoint_every: int = 20480
    #: torch threads while collecting rollouts (the workers need the other cores)
    torch_threads: int = 1
    #: torch threads for the gradient updates, while the workers wait (0: one per core)
    update_threads: int = 0


@dataclass(frozen=True)
class RLlibConfig:
    """The PPO stage on Ray RLlib (``backend: rllib``, the ``[ray]`` extra; docs/distributed.md). The PPO
    hyper-parameters come from ``ppo`` (the mapping is in :mod:`clue_env.training.rllib_backend`)."""

    #: remote env runners (processes, anywhere in the Ray cluster); 0: sample in the driver process
    num_env_runners: int = 2
    #: environments stepped by each env runner (one batched forward pass for all of them)
    envs_per_env_runner: int = 8
    #: CPUs reserved for each env runner
    num_cpus_per_env_runner: float = 1.0
    #: remote learner processes (0: one learner in the driver process)
    num_learners: int = 0
    #: CPUs and GPUs of each learner (a GPU learner needs ``num_learners >= 1`` on a cluster with GPUs)
    num_cpus_per_learner: float = 1.0
    num_gpus_per_learner: float = 0.0
    #: CPUs of the local Ray instance started for a run without ``--ray-address`` (0: every core)
    local_cpus: int = 0
    #: stop the run when an env runner fails (``false``: RLlib restarts it, and the run counts the restarts)
    fail_on_runner_error: bool = True


@dataclass(frozen=True)
class EvalConfig:
    #: baselines to evaluate against (the policy in one seat, the spec in all others)
    opponents: tuple[str, ...] = ("random", "notebook", "deduction")
    games: int = 100
    num_players: int = 4
    workers: int = 2
    seed: int = 10_000
    #: evaluate after every this many PPO checkpoints (and always after imitation and at the end)
    every_checkpoints: int = 1


@dataclass(frozen=True)
class AccusationConfig:
    """The accusation head (:mod:`clue_env.training.accusation_fit`): recorded games, then a fit."""

    #: games to record (0: no accusation head); split evenly over ``lineups``
    games: int = 0
    #: line-ups of agent specs (the player count is each line-up's length); a line-up may be listed twice to weigh it
    lineups: tuple[tuple[str, ...], ...] = (("deduction", "deduction", "deduction", "deduction"),)
    #: the specs whose seats are recorded (empty: every seat); e.g. ``[deduction]`` with line-ups against
    #: ``notebook`` or ``random`` teaches the head to wait against opponents who are slow to solve
    record: tuple[str, ...] = ()
    #: weigh every line-up the same in the fit (each trajectory by 1 / its line-up's recorded seat-games), so that
    #: a line-up with one recorded seat counts as much as one where every seat is recorded
    balance: bool = False
    #: after the held-out report, fit again on every game and ship that (``true``); ``false`` ships the head fitted
    #: on the training games, whose held-out gains are the ones reported (and saves the second fit's time)
    refit: bool = True
    #: the head's inputs (:mod:`clue_env.policy.accusation`): 1, the public race counts; 2, also what each
    #: opponent's suggestions say about how it plays (does it name a card this seat showed it, or holds); 3, also
    #: whether it named a card this seat has proved it holds, and how much of its hand this seat knows
    features: int = 1
    #: MLPs per part of the head (``stop`` and ``cont``): more than 1 fits a bag of them, each on a bootstrap
    #: resample of the games, and averages their logits (a steadier decision from a noisy fit)
    members: int = 1
    #: games recorded per saved chunk (a resumed run keeps the chunks already recorded)
    chunk_games: int = 250
    #: fitted value iterations of the stopping rule
    iterations: int = 6
    epochs: int = 20
    hidden: int = 64
    lr: float = 0.002
    weight_decay: float = 0.0001
    #: share of the games held out for the reported gain of the rule (the final fit uses all)
    held_out: float = 0.25


@dataclass(frozen=True)
class TrainConfig:
    name: str = "run"
    #: the PPO stage's engine: ``sb3`` (MaskablePPO, one machine) or ``rllib`` (Ray RLlib, a cluster; the ``rllib`` section)
    backend: str = "sb3"
    seed: int = 0
    rules: str = "classic"
    num_players: tuple[int, ...] = (4,)
    #: start from this policy file instead of imitation (a path relative to the working directory)
    init: str = ""
    net: NetConfig = field(default_factory=NetConfig)
    imitation: ImitationConfig = field(default_factory=ImitationConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    accusation: AccusationConfig = field(default_factory=AccusationConfig)
    rllib: RLlibConfig = field(default_factory=RLlibConfig)

    def to_dict(self) -> dict[str, Any]:
        return _plain(dataclasses.asdict(self))

    def imitates(self) -> bool:
        """Whether the run has an imitation stage (with ``init``, only when ``imitation.from_init``)."""
        im = self.imitation
        if self.init:
            return im.from_init and (im.games > 0 or im.dagger_rounds > 0)
        return im.games > 0

    def replace_ppo(self, **kw: Any) -> TrainConfig:
        """A copy with some ``ppo`` fields replaced (validated, as a loaded config is)."""
        d = self.to_dict()
        d["ppo"].update(kw)
        return load_train_config(d)

    def with_seed(self, seed: int) -> TrainConfig:
        """A copy with another top-level seed (validated)."""
        return load_train_config({**self.to_dict(), "seed": seed})

    def with_backend(self, backend: str | None = None, **rllib: Any) -> TrainConfig:
        """A copy with another ``backend`` and/or some ``rllib`` fields replaced (validated)."""
        d = self.to_dict()
        if backend is not None:
            d["backend"] = backend
        d["rllib"].update(rllib)
        return load_train_config(d)


_SECTIONS = {"net": NetConfig, "imitation": ImitationConfig, "ppo": PPOConfig, "eval": EvalConfig, "accusation": AccusationConfig,
             "rllib": RLlibConfig}  # fmt: skip


def _plain(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


def _convert(where: str, value: Any, default: Any, typ: Any) -> Any:
    """Check and convert one value against its field's type (as written in the dataclass)."""
    t = str(typ)
    if t.startswith("tuple[tuple[str"):
        if not isinstance(value, (list, tuple)) or not value:
            raise TrainConfigError(f"{where} must be a non-empty list of line-ups (lists of agent specs), got {short(value)}")
        out = []
        for lineup in value:
            if not isinstance(lineup, (list, tuple)) or not 2 <= len(lineup) <= 6 or not all(isinstance(s, str) for s in lineup):
                raise TrainConfigError(f"{where}: each line-up is a list of 2-6 agent specs, got {short(lineup)}")
            out.append(tuple(lineup))
        return tuple(out)
    if t.startswith("tuple[float"):
        if value is None and "None" in t:
            return None
        if not isinstance(value, (list, tuple)) or not all(_is_number(v) and v >= 0 for v in value):
            raise TrainConfigError(f"{where} must be a list of non-negative numbers, got {short(value)}")
        return tuple(float(v) for v in value)
    if t.startswith("tuple[str"):
        if default == () and isinstance(value, (list, tuple)) and not value:
            return ()  # an empty list where the default is one (accusation.record: every seat)
        if not isinstance(value, (list, tuple)) or not value or not all(isinstance(v, str) and v for v in value):
            raise TrainConfigError(f"{where} must be a non-empty list of agent specs, got {short(value)}")
        return tuple(value)
    if t.startswith("tuple[int"):
        if isinstance(value, int) and not isinstance(value, bool):
            value = [value]
        if (
            not isinstance(value, (list, tuple))
            or not value
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        ):
            raise TrainConfigError(f"{where} must be a player count or a list of them, got {short(value)}")
        return tuple(value)
    if t in ("bool", "<class 'bool'>"):
        if not isinstance(value, bool):
            raise TrainConfigError(f"{where} must be true or false, got {short(value)}")
        return value
    if t in ("int", "<class 'int'>"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TrainConfigError(f"{where} must be an integer, got {short(value)}")
        return value
    if t.startswith("float"):
        if value is None and "None" in t:
            return None
        if not _is_number(value):
            raise TrainConfigError(f"{where} must be a number, got {short(value)}")
        return float(value)
    if t in ("str", "<class 'str'>"):
        if default == "" and value == "":
            return value  # the default "none" (init), as TrainConfig.to_dict writes it
        if not isinstance(value, str) or not value:
            raise TrainConfigError(f"{where} must be a non-empty string, got {short(value)}")
        return value
    raise TrainConfigError(f"{where}: unsupported field type {t}")  # pragma: no cover


def _is_number(v: Any) -> bool:
    """A finite int or float (not a bool; not an int too large for a float, such as ``10**400``)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False


def _build(cls: Any, data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise TrainConfigError(f"{where} must be a mapping, got {short(data)}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = [k for k in data if k not in fields]
    if unknown:
        raise TrainConfigError(f"unknown key(s) {short(unknown)} in {where}; known: {', '.join(fields)}")
    kw = {}
    for k, v in data.items():
        key = f"{where}.{k}" if where != "config" else k
        if k in _SECTIONS and cls is TrainConfig:
            kw[k] = _build(_SECTIONS[k], v, k)
        else:
            kw[k] = _convert(key, v, fields[k].default, fields[k].type)
    obj = cls(**kw)
    _check(obj, where)
    return obj


def _positive(where: str, **values: float | None) -> None:
    for k, v in values.items():
        if v is not None and v <= 0:
            raise TrainConfigError(f"{where}.{k} must be positive, got {short(v)}")


def _check(obj: Any, where: str) -> None:
    if isinstance(obj, NetConfig):
        problem = net_sizes_problem(dataclasses.asdict(obj))
        if problem:
            raise TrainConfigError(problem)
    elif isinstance(obj, ImitationConfig):
        _positive(where, epochs=obj.epochs, dagger_epochs=obj.dagger_epochs, batch_size=obj.batch_size, lr=obj.lr)
        if obj.games < 0 or obj.dagger_rounds < 0 or obj.dagger_games < 0:
            raise TrainConfigError(f"{where}: games, dagger_rounds and dagger_games must be >= 0")
        _at_most(where, MAX_GAMES, games=obj.games, dagger_games=obj.dagger_games)
        _at_most(where, 100, dagger_rounds=obj.dagger_rounds)
        if obj.value_coef < 0:
            raise TrainConfigError(f"{where}.value_coef must be >= 0, got {short(obj.value_coef)}")
        if not any(obj.teacher in lineup for lineup in obj.lineups):
            raise TrainConfigError(f"{where}.lineups: no line-up seats the teacher {short(obj.teacher)}")
        if not 0 < obj.gamma <= 1:
            raise TrainConfigError(f"{where}.gamma must be in (0, 1], got {short(obj.gamma)}")
        weights = {"move_weight": obj.move_weight, "suggest_weight": obj.suggest_weight,
                   "refute_weight": obj.refute_weight, "accuse_weight": obj.accuse_weight}  # fmt: skip
        negative = [k for k, v in weights.items() if v < 0]
        if negative:
            raise TrainConfigError(f"{where}: {', '.join(negative)} must be >= 0 (0 leaves the phase out)")
        if not sum(weights.values()) > 0:
            raise TrainConfigError(f"{where}: at least one of {', '.join(weights)} must be positive")
    elif isinstance(obj, PPOConfig):
        _positive(where, n_envs=obj.n_envs, learning_rate=obj.learning_rate, n_steps=obj.n_steps,
                  batch_size=obj.batch_size, n_epochs=obj.n_epochs, clip_range=obj.clip_range,
                  checkpoint_every=obj.checkpoint_every, torch_threads=obj.torch_threads)  # fmt: skip
        if obj.timesteps < 0:
            raise TrainConfigError(f"{where}.timesteps must be >= 0, got {short(obj.timesteps)}")
        if obj.workers < 0 or obj.update_threads < 0:
            raise TrainConfigError(f"{where}: workers and update_threads must be >= 0 (0: one per core)")
        if obj.opponent_weights is not None and len(obj.opponent_weights) != len(obj.opponents):
            raise TrainConfigError(f"{where}.opponent_weights needs one weight per opponent ({len(obj.opponents)})")
        if obj.opponent_weights is not None and not sum(obj.opponent_weights) > 0:
            raise TrainConfigError(f"{where}.opponent_weights must have a positive sum, got {short(list(obj.opponent_weights))}")
        if obj.opponent_draw not in OPPONENT_DRAWS:
            draws = ", ".join(OPPONENT_DRAWS)
            raise TrainConfigError(f"{where}.opponent_draw must be one of {draws}, got {short(obj.opponent_draw)}")
        if obj.opponent_draw == "lineup" and obj.opponent_weights is not None:
            raise TrainConfigError(f"{where}.opponent_weights has no meaning with opponent_draw: lineup (every opponent plays)")
        _positive(where, max_grad_norm=obj.max_grad_norm, target_kl=obj.target_kl)
        if obj.vf_coef < 0:
            raise TrainConfigError(f"{where}.vf_coef must be >= 0, got {short(obj.vf_coef)}")
        if obj.batch_size < 2:
            raise TrainConfigError(f"{where}.batch_size must be at least 2 (advantages are normalised per batch)")
        _at_most(where, MAX_ENVS, n_envs=obj.n_envs)
        _at_most(where, MAX_WORKERS, workers=obj.workers)
        _at_most(where, MAX_THREADS, torch_threads=obj.torch_threads, update_threads=obj.update_threads)
        rollout = obj.n_envs * obj.n_steps
        if not 2 <= rollout <= MAX_ROLLOUT:
            raise TrainConfigError(
                f"{where}: a rollout (n_envs * n_steps = {obj.n_envs} * {obj.n_steps}) must be 2..{MAX_ROLLOUT} steps"
            )
        if not 0 < obj.gamma <= 1 or not 0 <= obj.gae_lambda <= 1:
            raise TrainConfigError(f"{where}: gamma must be in (0, 1] and gae_lambda in [0, 1]")
    elif isinstance(obj, AccusationConfig):
        _positive(where, chunk_games=obj.chunk_games, iterations=obj.iterations, epochs=obj.epochs, hidden=obj.hidden,
                  lr=obj.lr)  # fmt: skip
        if obj.games < 0 or obj.weight_decay < 0:
            raise TrainConfigError(f"{where}: games and weight_decay must be >= 0")
        _at_most(where, MAX_GAMES, games=obj.games)
        if obj.hidden > 1024:
            raise TrainConfigError(f"{where}.hidden must be at most 1024, got {short(obj.hidden)}")
        if not 0 <= obj.held_out < 1:
            raise TrainConfigError(f"{where}.held_out must be in [0, 1), got {short(obj.held_out)}")
        if not (isinstance(obj.members, int) and not isinstance(obj.members, bool) and 1 <= obj.members <= MAX_MEMBERS):
            raise TrainConfigError(f"{where}.members must be an int in 1..{MAX_MEMBERS}, got {short(obj.members)}")
        if obj.features not in ROW_WIDTH:
            sets = ", ".join(map(str, sorted(ROW_WIDTH)))
            raise TrainConfigError(f"{where}.features must be one of {sets} (the head's feature set), got {short(obj.features)}")
        if not obj.lineups or any(not 2 <= len(lu) <= 6 for lu in obj.lineups):
            raise TrainConfigError(f"{where}.lineups: each line-up needs 2-6 seats, got {short(obj.lineups)}")
        if obj.record:
            missing = [list(lu) for lu in obj.lineups if not any(s in obj.record for s in lu)]
            if missing:
                raise TrainConfigError(
                    f"{where}.record: line-up(s) {missing} seat none of {list(obj.record)}, so nothing would be recorded"
                )
        unused = [s for s in obj.record if not any(s in lu for lu in obj.lineups)]
        if unused:
            lineups = [list(lu) for lu in obj.lineups]
            raise TrainConfigError(f"{where}.record: {unused} is in no line-up (a typo?); line-ups: {lineups}")
    elif isinstance(obj, RLlibConfig):
        if obj.num_env_runners < 0 or obj.num_learners < 0 or obj.local_cpus < 0:
            raise TrainConfigError(f"{where}: num_env_runners, num_learners and local_cpus must be >= 0")
        _positive(where, envs_per_env_runner=obj.envs_per_env_runner)
        _at_most(where, MAX_RUNNERS, num_env_runners=obj.num_env_runners, num_learners=obj.num_learners,
                 local_cpus=obj.local_cpus)  # fmt: skip
        _at_most(where, MAX_ENVS, envs_per_env_runner=obj.envs_per_env_runner)
        for k in ("num_cpus_per_env_runner", "num_cpus_per_learner", "num_gpus_per_learner"):
            v = getattr(obj, k)
            if not 0 <= v <= 256:
                raise TrainConfigError(f"{where}.{k} must be in 0..256, got {short(v)}")
        if obj.num_gpus_per_learner > 0 and obj.num_learners == 0:
            raise TrainConfigError(f"{where}.num_gpus_per_learner needs num_learners >= 1 (a remote learner holds the GPU)")
    elif isinstance(obj, EvalConfig):
        _positive(where, games=obj.games, workers=obj.workers, every_checkpoints=obj.every_checkpoints)
        _at_most(where, MAX_GAMES, games=obj.games)
        _at_most(where, MAX_WORKERS, workers=obj.workers)
        _seed_range(f"{where}.seed", obj.seed)
        if not 2 <= obj.num_players <= 6:
            raise TrainConfigError(f"{where}.num_players must be a player count in 2..6, got {short(obj.num_players)}")
    elif isinstance(obj, TrainConfig):
        _check_name(obj.name)
        if obj.backend not in BACKENDS:
            raise TrainConfigError(f"backend must be one of {', '.join(BACKENDS)}, got {short(obj.backend)}")
        _seed_range("seed", obj.seed)
        if obj.imitation.from_init and not obj.init:
            raise TrainConfigError("imitation.from_init: true needs init (the policy file the stage starts from)")
        if obj.imitation.from_init and obj.imitation.games == 0 and obj.imitation.dagger_rounds == 0:
            raise TrainConfigError("imitation.from_init: true with games 0 and dagger_rounds 0 would do nothing")
        _check_players(obj)
        if obj.ppo.opponent_draw == "lineup":
            wrong = [n for n in obj.num_players if n != len(obj.ppo.opponents) + 1]
            if wrong:
                raise TrainConfigError(
                    f"ppo.opponent_draw: lineup seats each of the {len(obj.ppo.opponents)} opponents once, so num_players "
                    f"must be [{len(obj.ppo.opponents) + 1}], got {list(obj.num_players)}"
                )


def _at_most(where: str, hi: int, **values: int) -> None:
    for k, v in values.items():
        if v > hi:
            raise TrainConfigError(f"{where}.{k} must be at most {hi:,}, got {v:,}")


def _check_name(name: str) -> None:
    """The default run directory is ``runs/<name>``: a plain file name, not a path."""
    if len(name) > 100 or name in (".", "..") or any(c in name for c in "/\\") or not name.isprintable() or name != name.strip():
        raise TrainConfigError(
            f"name must be a plain file name (the default run directory is runs/<name>): up to 100 printable "
            f"characters, no '/' or '\\', not '.' or '..', got {short(name)}"
        )


def _seed_range(key: str, seed: int) -> None:
    if not 0 <= seed <= MAX_SEED:
        raise TrainConfigError(f"{key} must be an integer in 0..{MAX_SEED} (a 32-bit seed), got {short(seed)}")


def _check_players(cfg: TrainConfig) -> None:
    """The ruleset loads, and every player count the run will use is one it allows."""
    from ..engine.config import load_rules

    try:
        rules = load_rules(cfg.rules)
    except ConfigError as e:
        raise TrainConfigError(f"rules: {e}") from None
    lo, hi = rules.min_players, rules.max_players
    allowed = f"{lo}..{hi} under the rules {short(cfg.rules)}"
    bad = [n for n in cfg.num_players if not lo <= n <= hi]
    if bad:
        raise TrainConfigError(f"num_players: {short(bad)} not in {allowed}")
    if not lo <= cfg.eval.num_players <= hi:
        raise TrainConfigError(f"eval.num_players must be in {allowed}, got {short(cfg.eval.num_players)}")
    stages = [("imitation.lineups", cfg.imitation.lineups, cfg.imitates())]
    stages.append(("accusation.lineups", cfg.accusation.lineups, cfg.accusation.games > 0))
    for key, lineups, used in stages:
        wrong = [list(lu) for lu in lineups if not lo <= len(lu) <= hi]
        if used and wrong:
            raise TrainConfigError(f"{key}: line-up(s) {short(wrong)} seat a number of players not in {allowed}")


#: the largest training config file read (the shipped ones are under 4 KiB)
CONFIG_FILE_LIMIT = 1 << 20


def load_train_config(source: str | dict[str, Any]) -> TrainConfig:
    """A :class:`TrainConfig` from a YAML path or a mapping (validated). A file is read within
    bounds (:mod:`clue_env.fileio`: at most ``CONFIG_FILE_LIMIT`` bytes of a regular file, YAML's
    safe loader without anchors or aliases, nesting at most 32 deep); every refusal is one line."""
    if isinstance(source, str):
        if not os.path.lexists(source):
            raise TrainConfigError(f"training config {source!r} does not exist (see configs/train/)")
        try:
            data = loads_yaml(read_regular(source, CONFIG_FILE_LIMIT, "training config"), f"training config {source!r}")
        except InputError as e:
            raise TrainConfigError(f"cannot read {e}") from None
        if data is None:
            data = {}
    else:
        data = source
    return _build(TrainConfig, data, "config")


__all__ = [
    "AccusationConfig",
    "EvalConfig",
    "ImitationConfig",
    "NetConfig",
    "PPOConfig",
    "RLlibConfig",
    "TrainConfig",
    "TrainConfigError",
    "load_train_config",
]
