"""Fit a network to a teacher planner's scores: the room values, move scores and suggestion scores of
a ``deduction`` planner as network inputs (:mod:`clue_env.policy.network`, ``room_values`` 1-4).

**Recording** (:func:`record_decisions`). A policy file drives one seat of each game (the ``ppo``
agent, which feeds a network that reads planner inputs from a planner of its own seat); the other
seats are played by ``opponents``; a *teacher* planner of the driven seat (``deduction`` or a
variant such as ``deduction:tells=0.35,moves=own``), fed the same observations and info (R31),
labels every decision of that seat with its own choice and reports its room values, move scores and
suggestion scores. Game ``g`` is reset with seed ``g``, the driven seat is ``g % players``, and the
agents' seeds are children of ``agent_seed`` and ``g``.

**Widening** (:func:`prepare_network`, ``mode``): 2 adds a room-value input and its log-value logit
terms (``widen_for_room_values``), 3 the move-score terms (``add_move_scores``; a network without
room values is first widened to mode 2 with its new weights at zero), 4 the suggestion-score term
(``add_suggest_scores``). Each widened copy computes its base's function until its new weights move.
**Refits** (``refit``): no widening; only the four move-score weights (``moves``) and/or the
suggestion-score weight (``suggestions``) of a network that already reads them are fitted again;
``roll_scores`` makes the copy score the roll as its best ``toward`` score (the same weights).

**Fitting** (:func:`fit_planner_weights`): masked cross-entropy on the teacher's actions, moves
weighted 1 and the other phases 0.25; with ``fit_only_new`` only the newest weights move (the
room-value column and, for mode 2, its four logit weights; for mode 3 the four move-score weights;
for mode 4 the suggestion-score weight). The last whole chunks of games are held out, and the
held-out agreement with the teacher before and after is the evaluation (:func:`phase_accuracy`).

:func:`run_planner_fit` is the recipe stage (``room_values`` and ``refit_scores`` kinds,
:mod:`clue_env.training.recipe`): it records in chunks kept on disk (a resumed stage records only
the missing ones), fits and saves the fitted copy with the policy file's accusation head and the
teacher's planner parameters as its ``meta["planner"]``. Agents are injected
(``factory_for(spec)``): ``clue_env`` never imports ``agents``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..engine.cards import N_CARDS
from ..fileio import atomic_file, one_line, short
from ..policy.checkpoint import PLANNER_KEYS, check_planner, load_accusation, load_policy, save_policy
from ..policy.features import SeatFeatures, policy_observation
from .imitation import Batch, phase_weights

#: builds the agent of one seat: (seat, num_players, rules, seed) -> agent (e.g. ``agents.SpecFactory(spec)``)
AgentFactory = Callable[[int, int, Any, int], Any]
#: ``factory_for(spec)`` -> the factory of that agent spec
FactoryFor = Callable[[str], AgentFactory]

#: the opponents of the recorded games when none are named (4-player classic): 3 ``notebook``,
#: ``deduction`` + 2 ``notebook``, 3 ``deduction``, game by game
MIX4 = (("notebook",) * 3, ("deduction", "notebook", "notebook"), ("deduction",) * 3)
#: the recorded arrays: policy observation, action mask, the teacher's action, its room values,
#: move scores and suggestion scores
ARRAYS = ("obs", "mask", "action", "rv", "ms", "ss")
#: the weight of each phase's decisions in the fit (moves carry it; the DAgger configs' anchor weights)
FIT_PHASE_WEIGHTS = {"suggest": 0.25, "refute": 0.25, "accuse/end": 0.25}
#: the widening modes and refit parts a stage may ask for
MODES = (2, 3, 4)
REFITS = ("moves", "suggestions")
#: the largest chunk of recorded decisions read back (``decisions/*.npz``), and the most its arrays may unpack to
CHUNK_FILE_LIMIT = 256 << 20
CHUNK_UNPACKED_LIMIT = 1 << 30


def opponent_specs(n: int, game: int, opponents: Sequence[str]) -> list[str]:
    """The opponents' specs of ``game`` (seat order, the driven seat left out): with ``opponents``,
    ``opponents[(game // n) % len(opponents)]`` in every opponent seat; without, the 4-player :data:`MIX4`."""
    if not opponents:
        return list(reversed(MIX4[game % len(MIX4)]))
    return [opponents[(game // n) % len(opponents)]] * (n - 1)


def record_decisions(
    games: Sequence[int],
    agent_seed: int,
    teacher: str,
    n: int,
    rules: Any,
    policy: str,
    opponents: Sequence[str],
    factory_for: FactoryFor,
) -> dict[str, np.ndarray]:
    """Play ``games`` (their seeds): ``ppo:policy`` drives seat ``g % n``, ``teacher`` labels each of
    its decisions and reports its room values, move scores and suggestion scores (:data:`ARRAYS`)."""
    from ..env import raw_env

    obs, mask, act, rvs, mss, sss = [], [], [], [], [], []
    for g in games:
        env = raw_env(num_players=n, rules=rules)
        env.reset(seed=g)
        me = g % n
        opps = opponent_specs(n, g, opponents)
        seeds = np.random.SeedSequence([agent_seed, g]).generate_state(n + 2)
        agents: list[Any] = []
        for s in range(n):
            spec = f"ppo:{policy}" if s == me else opps.pop(0)
            agents.append(factory_for(spec)(s, n, env.rules, int(seeds[s])))
        label = factory_for(teacher)(me, n, env.rules, int(seeds[n + 1]))
        for a in [*agents, label]:
            a.reset()
        feats = SeatFeatures(me, n)
        while not env.game_over:
            name = env.agent_selection
            s = env.possible_agents.index(name)
            o, info = env.observe(name), env.infos[name]
            if s == me:
                t = int(label.act(o, info))
                rv = label.room_values(info)  # what the ppo agent's planner hands a room-value network
                ms = label.move_scores(o, info)  # and a room_values=3 network
                ss = label.suggest_scores(o, info)  # and a room_values=4 network
                f = feats.update(o["observation"], info["seat_view"].events)
                obs.append(policy_observation(o["observation"], f).astype(np.float16))
                mask.append(o["action_mask"].astype(bool))
                act.append(t)
                rvs.append(rv.astype(np.float32))
                mss.append(ms.astype(np.float32))
                sss.append(ss.astype(np.float32))
            env.step(int(agents[s].act(o, info)))
    return {
        "obs": np.stack(obs),
        "mask": np.stack(mask),
        "action": np.array(act),
        "rv": np.stack(rvs),
        "ms": np.stack(mss),
        "ss": np.stack(sss),
    }


def record_job(args: tuple[Any, ...]) -> dict[str, np.ndarray]:
    """:func:`record_decisions` of one tuple of its arguments (for a process pool's ``map``)."""
    return record_decisions(*args)


def chunk_size(games: int) -> int:
    """Games per recorded chunk: at least about 10 chunks (the held-out games are whole chunks), at most 25 games."""
    return max(1, min(25, games // 10))


def held_out_split(sizes: Sequence[int], held_out: float) -> tuple[np.ndarray, np.ndarray]:
    """(training rows, held-out rows) of decisions recorded in chunks of ``sizes`` decisions: the last
    ``held_out`` share of the chunks (at least one, and at least one left to fit on) is held out, so the
    decisions of one game stay together. ``ValueError`` for fewer than 2 chunks."""
    if len(sizes) < 2:
        raise ValueError("at least 2 chunks of games are needed, so that some games are held out")
    n_hold = min(len(sizes) - 1, max(1, int(round(len(sizes) * held_out))))
    cut = int(np.sum(sizes[: len(sizes) - n_hold]))
    return np.arange(cut), np.arange(cut, int(np.sum(sizes)))


def decision_inputs(data: dict[str, np.ndarray], rows: np.ndarray, use_rv: bool, mode: int = 0) -> Any:
    """The network's input for ``rows``: the policy observation, then the room values if ``use_rv``,
    then the planner's move scores if ``mode`` (the network's ``room_values``) is 3 or more, then
    its suggestion scores if ``mode`` is 4."""
    import torch

    x = data["obs"][rows].astype(np.float32)
    if use_rv:
        x = np.concatenate([x, data["rv"][rows]], axis=1)
    if mode >= 3:
        x = np.concatenate([x, data["ms"][rows]], axis=1)
    if mode == 4:
        x = np.concatenate([x, data["ss"][rows]], axis=1)
    return torch.from_numpy(x)


def fit_planner_weights(
    net: Any,
    data: dict[str, np.ndarray],
    idx: np.ndarray,
    epochs: int,
    lr: float,
    seed: int,
    use_rv: bool,
    only_new: bool = False,
    new_lr: float | None = None,
    refit: tuple[str, ...] = (),
) -> None:
    """Fit ``net`` on the decisions ``idx``; ``only_new``: only the room-value column's weights move
    (for a ``room_values=3`` network: only its four move-score weights; ``room_values=4``: only its
    suggestion-score weight); ``refit`` (``"moves"``, ``"suggestions"``): only those scalars of a network
    that already reads the scores (the four move-score weights, the suggestion-score weight). The
    scalars move at ``new_lr`` (default ``lr``)."""
    import torch
    import torch.nn.functional as F

    rows = Batch(data["obs"], data["mask"], data["action"], np.zeros(len(data["action"]), np.float32))
    w_all = phase_weights(rows, FIT_PHASE_WEIGHTS)
    params = list(net.parameters())
    mode = getattr(net, "room_values", 0)
    if refit:
        chosen = ([net.ms_logit] if "moves" in refit else []) + ([net.ss_logit] if "suggestions" in refit else [])
        for p in params:
            p.requires_grad_(any(p is q for q in chosen))
        params = chosen
    elif only_new and mode >= 3:
        newest = net.ss_logit if mode == 4 else net.ms_logit
        for p in params:
            p.requires_grad_(p is newest)
        params = [newest]
    elif only_new:
        first = net.card[0]
        col = first.in_features - N_CARDS - net.context_to_card - 1  # the room-value column
        keep = torch.zeros_like(first.weight)
        keep[:, col] = 1.0
        new = [first.weight] + ([net.rv_logit] if net.room_values == 2 else [])
        for p in params:
            p.requires_grad_(any(p is q for q in new))
        first.weight.register_hook(lambda g: g * keep)
        params = new
    scalars = [q for q in (getattr(net, k, None) for k in ("rv_logit", "ms_logit", "ss_logit")) if q is not None]
    groups: list[dict[str, Any]] = [{"params": [p for p in params if not any(p is q for q in scalars)], "lr": lr}]
    fast = [q for q in scalars if any(p is q for p in params)]
    if fast:
        groups.append({"params": fast, "lr": new_lr or lr})  # four scalars each: they may move faster
    groups = [g for g in groups if g["params"]]
    opt = torch.optim.Adam(groups, lr=lr)
    gen = np.random.default_rng(seed)
    net.train()
    for _ in range(epochs):
        order = gen.permutation(idx)
        for i in range(0, len(order), 512):
            b = order[i : i + 512]
            x = decision_inputs(data, b, use_rv, mode)
            logits = net(x)[0].masked_fill(~torch.from_numpy(data["mask"][b]), -1e8)
            ce = F.cross_entropy(logits, torch.from_numpy(data["action"][b].astype(np.int64)), reduction="none")
            w = torch.from_numpy(w_all[b])
            loss = (ce * w).sum() / w.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
    net.eval()
    for p in net.parameters():
        p.requires_grad_(True)


def phase_accuracy(net: Any, data: dict[str, np.ndarray], idx: np.ndarray, use_rv: bool, phase: str = "move") -> float:
    """The share of the decisions ``idx`` of ``phase`` on which ``net`` picks the teacher's action."""
    import torch

    from ..codec import PHASES, default_codec

    of_phase = default_codec().phases(data["mask"][idx]) == PHASES.index(phase)
    with torch.no_grad():
        x = decision_inputs(data, idx, use_rv, getattr(net, "room_values", 0))
        logits = net(x)[0].masked_fill(~torch.from_numpy(data["mask"][idx]), -1e8)
    hit = logits.argmax(1).numpy() == data["action"][idx]
    return float(hit[of_phase].mean()) if of_phase.any() else float("nan")


def teacher_planner(teacher: str) -> dict[str, Any]:
    """The planner parameters of a teacher spec (``deduction:tells=0.35,moves=own`` ->
    ``{"tells": 0.35, "moves": "own"}``): those a policy file's ``meta["planner"]`` may name
    (:data:`~clue_env.policy.checkpoint.PLANNER_KEYS`; ``tells`` 1 is no tells), the others left out.
    A fitted copy reads a planner like the teacher that labelled its decisions."""
    _name, _colon, rest = teacher.strip().partition(":")
    params: dict[str, Any] = {}
    for item in rest.split(",") if rest else []:
        key, _eq, value = (x.strip() for x in item.partition("="))
        params[key] = _number(value)
    return {k: params[k] for k in PLANNER_KEYS if k in params and not (k == "tells" and params[k] == 1)}


def _number(text: str) -> Any:
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def widening_problem(
    policy_rv: int,
    mode: int,
    refit: tuple[str, ...] = (),
    roll_scores: bool = False,
    floor_squares: bool = False,
) -> str | None:
    """Why a policy whose network has ``room_values=policy_rv`` cannot be widened to ``mode`` (1-4,
    ignored with ``refit``) or refitted as asked, or ``None``."""
    if mode == 3 and policy_rv not in (0, 2) and not refit:
        return (
            "mode 3 adds move scores to a room_values=2 policy (such as the shipped two-player file), or to a network "
            "without room values, first widened to room_values=2 with its new weights at zero (the same function)"
        )
    if floor_squares and (mode != 3 or refit):
        return "floor_squares goes with mode 3 (the move scores); a refit keeps the policy's floor_squares"
    if mode == 4 and policy_rv != 3 and not refit:
        return "mode 4 adds suggestion scores to a room_values=3 policy (a mode 3 fit's output)"
    if "moves" in refit and policy_rv < 3:
        return "a refit of the moves fits the move-score weights of a policy that reads move scores (room_values 3 or 4)"
    if "suggestions" in refit and policy_rv != 4:
        return "a refit of the suggestions fits the suggestion-score weight of a policy that reads them (room_values 4)"
    if roll_scores and "moves" not in refit:
        return "roll_scores goes with a refit of the moves (the roll is scored with the move-score weights)"
    return None


def prepare_network(
    base: Any,
    mode: int,
    use_rv: bool = True,
    refit: tuple[str, ...] = (),
    roll_scores: bool = False,
    floor_squares: bool = False,
) -> Any:
    """The copy of ``base`` to fit (see the module docstring): ``base`` itself for a refit (a copy with
    ``roll_scores`` set if asked), else ``base`` widened to ``mode`` (a ``base`` that already reads room
    values is kept as it is for modes 1-2: a later round fits it further; ``use_rv`` false: the network as it is)."""
    from ..policy.network import add_move_scores, add_suggest_scores, widen_for_room_values, with_roll_scores

    if refit:
        return with_roll_scores(base) if roll_scores else base
    if mode == 3:
        if not base.room_values:  # first as room_values=2 with zero new weights
            base = widen_for_room_values(base, 2)
        return add_move_scores(base, floor_squares=floor_squares)
    if mode == 4:
        return add_suggest_scores(base)
    return widen_for_room_values(base, mode) if use_rv and not base.room_values else base


@dataclass(frozen=True)
class PlannerFitParams:
    """One ``room_values`` or ``refit_scores`` stage (the keys of its recipe entry)."""

    players: int
    rules: str
    teacher: str
    games: int
    seed: int
    agent_seed: int
    epochs: int
    lr: float
    #: the opponents the recorded games cycle through (one spec for every opponent seat of a game);
    #: empty: the 4-player :data:`MIX4`
    opponents: tuple[str, ...] = ()
    #: ``room_values`` stages: the mode the copy is widened to (2, 3 or 4); 0 for a refit
    mode: int = 0
    #: ``refit_scores`` stages: the weights fitted again (:data:`REFITS`)
    refit: tuple[str, ...] = ()
    roll_scores: bool = False
    floor_squares: bool = False
    fit_only_new: bool = False
    new_lr: float | None = None
    held_out: float = 0.1

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["opponents"] = list(self.opponents)
        d["refit"] = list(self.refit)
        return d


def _chunk_path(out: str, i: int) -> str:
    return os.path.join(out, "decisions", f"chunk{i:04d}.npz")


def _setup_tag(p: PlannerFitParams, policy_sha: str) -> str:
    """What a chunk's games depend on: the recording parameters and the driving policy's SHA-256."""
    return json.dumps(
        {
            "players": p.players,
            "rules": p.rules,
            "teacher": p.teacher,
            "opponents": list(p.opponents),
            "agent_seed": p.agent_seed,
            "policy_sha256": policy_sha,
        },  # fmt: skip
        sort_keys=True,
    )


def _read_chunk(path: str, ids: Sequence[int], tag: str) -> dict[str, np.ndarray]:
    """A chunk of recorded decisions saved by :func:`run_planner_fit`, read within bounds and checked to
    hold the decisions of games ``ids`` recorded with ``tag``; ``ValueError`` naming the file."""
    import io

    from ..fileio import InputError, read_regular
    from ..policy.checkpoint import zip_members

    todo = "move it away to record that chunk again"
    try:
        raw = read_regular(path, CHUNK_FILE_LIMIT, "recorded decisions")
        members = zip_members(raw)
    except InputError as e:
        raise ValueError(f"{e}; {todo}") from None
    except ValueError as e:
        raise ValueError(f"recorded decisions {path!r}: {e}; {todo}") from None
    if sum(m.file_size for m in members) > CHUNK_UNPACKED_LIMIT:
        raise ValueError(f"recorded decisions {path!r} would unpack to more than {CHUNK_UNPACKED_LIMIT:,} bytes; {todo}")
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as z:
            got = {k: z[k] for k in (*ARRAYS, "games", "tag")}
    except Exception as e:  # a damaged archive: zipfile, numpy and KeyError have their own kinds
        why = f"{type(e).__name__}: {one_line(str(e), 200)}"
        raise ValueError(f"recorded decisions {path!r} cannot be read ({why}); {todo}") from None
    if [int(g) for g in got["games"]] != list(ids) or str(got["tag"]) != tag:
        raise ValueError(f"recorded decisions {path!r} hold other games (another stage's recording); {todo}")
    n = len(got["action"])
    if any(len(got[k]) != n for k in ARRAYS):
        raise ValueError(f"recorded decisions {path!r}: its arrays disagree in length; {todo}")
    return {k: got[k] for k in ARRAYS}


def _save_chunk(path: str, part: dict[str, np.ndarray], ids: Sequence[int], tag: str) -> None:
    """Write one chunk atomically (:func:`clue_env.fileio.atomic_file`)."""
    with atomic_file(path, prefix=".chunk.tmp-", suffix=".npz") as f:
        arrays: dict[str, Any] = {"games": np.array(list(ids), dtype=np.int64), "tag": np.array(tag), **part}
        np.savez(f, **arrays)


def check_params(p: PlannerFitParams, policy_rv: int) -> None:
    """``ValueError`` for a stage that cannot fit its policy as asked (:func:`widening_problem`)."""
    problem = widening_problem(policy_rv, p.mode, p.refit, p.roll_scores, p.floor_squares)
    if problem:
        raise ValueError(f"the policy's network (room_values={policy_rv}) cannot be fitted: {problem}")
    if not p.opponents and p.players != 4:
        raise ValueError(f"without opponents the recorded games seat the 4-player mix; name opponents for {p.players} players")


def run_planner_fit(
    policy: str,
    p: PlannerFitParams,
    out: str,
    factory_for: FactoryFor,
    *,
    workers: int = 1,
    meta: dict[str, Any] | None = None,
    log: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Record (or read back) the stage's decisions in ``out/decisions/``, fit the copy of ``policy``'s
    network the stage asks for and save it, with ``policy``'s accusation head and the teacher's planner
    parameters, as ``out/policy.pt``; returns the evaluation (held-out agreement with the teacher before
    and after the fit, per phase, and the decision counts)."""
    import hashlib

    import torch

    from ..engine.config import load_rules

    say = log or (lambda _msg: None)
    base, source = load_policy(policy)
    check_params(p, int(base.room_values))
    planner = check_planner(teacher_planner(p.teacher))
    load_rules(p.rules)  # an unknown ruleset is refused before any game
    with open(policy, "rb") as f:
        policy_sha = hashlib.sha256(f.read()).hexdigest()
    tag = _setup_tag(p, policy_sha)
    ids = list(range(p.seed, p.seed + p.games))
    size = chunk_size(p.games)
    chunks = [ids[i : i + size] for i in range(0, len(ids), size)]
    parts: dict[int, dict[str, np.ndarray]] = {}
    for i, games in enumerate(chunks):
        if os.path.exists(_chunk_path(out, i)):
            parts[i] = _read_chunk(_chunk_path(out, i), games, tag)
    todo = [i for i in range(len(chunks)) if i not in parts]
    if parts:
        say(f"resume: {len(parts)} of {len(chunks)} chunks of recorded decisions kept")
    t0 = time.time()
    jobs = [(chunks[i], p.agent_seed, p.teacher, p.players, p.rules, policy, list(p.opponents), factory_for) for i in todo]
    results: Iterator[dict[str, np.ndarray]]
    pool = None
    if workers <= 1 or len(jobs) <= 1:
        results = map(record_job, jobs)
    else:
        pool = ProcessPoolExecutor(workers)
        results = pool.map(record_job, jobs)
    try:
        for i, part in zip(todo, results):
            _save_chunk(_chunk_path(out, i), part, chunks[i], tag)
            parts[i] = part
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    ordered = [parts[i] for i in range(len(chunks))]
    data = {k: np.concatenate([c[k] for c in ordered]) for k in ARRAYS}
    sizes = [len(c["action"]) for c in ordered]
    say(f"{len(data['action'])} decisions of {p.games} games ({time.time() - t0:.0f} s recording)")
    train_idx, hold_idx = held_out_split(sizes, p.held_out)
    torch.manual_seed(0)
    net = prepare_network(base, p.mode, True, p.refit, p.roll_scores, p.floor_squares)
    evaluation: dict[str, Any] = {
        "decisions": len(data["action"]),
        "held_out_decisions": len(hold_idx),
        "held_out_move_accuracy_before": phase_accuracy(net, data, hold_idx, True),
    }
    fit_planner_weights(net, data, train_idx, p.epochs, p.lr, seed=1, use_rv=True, only_new=p.fit_only_new,
                        new_lr=p.new_lr, refit=p.refit)  # fmt: skip
    evaluation["held_out_move_accuracy_after"] = phase_accuracy(net, data, hold_idx, True)
    say(
        f"held-out move agreement with {p.teacher}: {evaluation['held_out_move_accuracy_before']:.1%} -> "
        f"{evaluation['held_out_move_accuracy_after']:.1%}"
    )
    if net.room_values == 4:
        before = phase_accuracy(load_policy(policy)[0], data, hold_idx, True, "suggest")
        after = phase_accuracy(net, data, hold_idx, True, "suggest")
        evaluation.update(held_out_suggest_accuracy_before=before, held_out_suggest_accuracy_after=after)
        say(f"held-out suggestion agreement: {before:.1%} -> {after:.1%}")
    weights = {k: [round(float(x), 4) for x in getattr(net, k).detach().flatten()] for k in ("rv_logit", "ms_logit", "ss_logit")
               if getattr(net, k, None) is not None}  # fmt: skip
    evaluation["planner_weights"] = weights
    file_meta = {**(meta or {}), "planner_fit": {**p.to_dict(), "evaluation": evaluation}}
    file_meta["from"] = {"policy": policy, "meta": source}
    if planner:
        file_meta["planner"] = planner
    save_policy(os.path.join(out, "policy.pt"), net, file_meta, accusation=load_accusation(policy))
    return evaluation


def describe(p: PlannerFitParams) -> str:
    """A one-line description of a stage's parameters (for progress lines)."""
    what = f"mode {p.mode}" if p.mode else f"refit {'+'.join(p.refit)}" + (" with roll scores" if p.roll_scores else "")
    return f"{what}, teacher {short(p.teacher)}, {p.games} games"


__all__ = [
    "ARRAYS",
    "MIX4",
    "MODES",
    "REFITS",
    "PlannerFitParams",
    "check_params",
    "chunk_size",
    "decision_inputs",
    "fit_planner_weights",
    "held_out_split",
    "opponent_specs",
    "phase_accuracy",
    "prepare_network",
    "record_decisions",
    "record_job",
    "run_planner_fit",
    "teacher_planner",
    "widening_problem",
]
