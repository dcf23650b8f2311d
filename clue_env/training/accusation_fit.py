"""Train the accusation head: record games, then fit an optimal-stopping rule.

**Recording** (:func:`record_games`). Scripted players (by default four ``deduction``) play whole
games. Every seat is followed through the game: at each of its decisions where an accusation is
legal and its solution is not yet proved, the head's inputs are computed from that seat's view
(:func:`~clue_env.policy.accusation.stop_features`, exactly as the ``ppo`` agent computes them),
with whether its most likely triple is the true envelope, and the candidate triples for the
scorer. At the end: whether the seat won.

**Why recorded games answer the question.** Accusing only ends the accuser's own game: until a
seat accuses, the game goes on exactly as recorded. So for one seat the choice "accuse now or
wait" is an optimal-stopping problem along a fixed trajectory: stopping at opportunity t pays
1 if the best triple is right (else the seat is out: 0), and never stopping pays the recorded
outcome. Against three opponents of the recorded kind this is exactly the problem a learner in
one seat faces.

**Fitting** (:func:`fit_head`), Longstaff–Schwartz style (fitted value iteration with realised
cash flows): ``stop`` is a classifier of "best triple right"; ``cont`` is regressed on the
realised value of waiting under the current rule (the recorded outcome, or the payoff of the
next opportunity at which the rule stops); the rule becomes "accuse when stop > cont"; repeat.
The triple scorer is fitted by cross-entropy against the true envelope among the candidates.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..codec import default_codec
from ..engine.cards import ROOM_BASE, WEAPON_BASE
from ..engine.game import Phase
from ..policy.accusation import (
    FEATURE_SETS,
    STOP_FEATURES,
    TOP_TRIPLES,
    TRIPLE_WIDTH,
    RaceTracker,
    head_inputs,
    stop_size,
)
from ..policy.features import SeatFeatures

CODEC = default_codec()
_SOLVED = 21 * 8 + 21  # SeatFeatures: the "proved" flag of the solution piece

#: builds the agent of one seat: (seat, num_players, rules, seed) -> agent (e.g. ``agents.SpecFactory``)
AgentFactory = Callable[[int, int, Any, int], Any]


@dataclass
class Trajectory:
    """One seat's accusation opportunities in one game."""

    game: int
    seat: int
    #: (T, STOP_FEATURES) inputs at each opportunity
    x: np.ndarray
    #: (T,) 1 if the most likely triple was the envelope (feature set 4's fit replaces it: 1 if the triple
    #: scorer's pick was, see :func:`scorer_correct`)
    correct: np.ndarray
    #: (T, TOP_TRIPLES, 2 or 3) candidate-triple features (zero rows pad; 3 with feature set 4), and (T,) index
    #: of the true one (-1: none)
    triples: np.ndarray
    label: np.ndarray
    #: 1 if this seat won the recorded game
    won: float


def record_game(
    factories: Sequence[AgentFactory],
    rules: Any,
    seed: int,
    agent_seeds: Sequence[int],
    record: Sequence[bool],
    features: int = 1,
) -> list[Trajectory]:
    """Play one game (env reset with ``seed``; seat i played by ``factories[i]``) and return the
    trajectories of the seats in ``record``, with the head's inputs of feature set ``features``."""
    width = stop_size(features)
    import clue_env

    n = len(factories)
    env = clue_env.raw_env(num_players=n, rules=rules)
    agents = [make(i, n, env.rules, agent_seeds[i]) for i, make in enumerate(factories)]
    for a in agents:
        a.reset()
    feats = [SeatFeatures(i, n) for i in range(n)]
    races: list[RaceTracker | None] = [None] * n  # made at the seat's first opportunity (it needs the seat's hand)
    rngs = [np.random.default_rng(np.random.SeedSequence(agent_seeds[i], spawn_key=(1,))) for i in range(n)]
    rows: list[list[tuple[np.ndarray, tuple[int, ...], list[tuple[tuple[int, ...], float]], np.ndarray]]] = [[] for _ in range(n)]
    tw = TRIPLE_WIDTH[features]
    env.reset(seed=seed)
    g = env.game
    names = env.possible_agents
    while not g.over:
        seat = g.acting
        obs = env.observe(names[seat])
        info = env.infos[names[seat]]
        if record[seat] and obs["action_mask"][CODEC.accuse_slice].any():
            view = info["seat_view"]
            f = feats[seat].update(obs["observation"], view.events)
            k = feats[seat].knowledge
            if k is not None and f[_SOLVED] == 0:
                race = races[seat]
                if race is None:
                    race = races[seat] = RaceTracker(n, seat, view.hand)
                race.feed(view.events)
                h = head_inputs(k, race, seat, f, view.turn, view.phase == Phase.START, n, features, rngs[seat], view.events)
                rows[seat].append((h.x, h.best, h.top, h.triples))
        env.step(agents[seat].act(obs, info))
    s, w, r = g.envelope
    envelope = (int(s), WEAPON_BASE + int(w), ROOM_BASE + int(r))
    out = []
    for seat in range(n):
        if not record[seat]:
            continue
        rs = rows[seat]
        T = len(rs)
        x = np.zeros((T, width), dtype=np.float32)
        correct = np.zeros(T, dtype=np.float32)
        triples = np.zeros((T, TOP_TRIPLES, tw), dtype=np.float32)
        label = np.full(T, -1, dtype=np.int64)
        for i, (z, best, top, tx) in enumerate(rs):
            x[i] = z
            correct[i] = float(best == envelope)
            if top:
                triples[i, : len(top)] = tx
                for j, (t, _p) in enumerate(top):
                    if tuple(sorted(t)) == envelope:
                        label[i] = j
        out.append(Trajectory(seed, seat, x, correct, triples, label, float(g.winner == seat)))
    return out


def _record_chunk(args: tuple[Any, ...]) -> list[Trajectory]:
    factories, rules, seeds, agent_entropy, record, features = args
    out: list[Trajectory] = []
    n = len(factories)
    for seed in seeds:
        agent_seeds = [int(np.random.SeedSequence(agent_entropy, spawn_key=(seed, i)).generate_state(1)[0]) for i in range(n)]
        out += record_game(factories, rules, seed, agent_seeds, record, features)
    return out


def record_games(
    factories: Sequence[AgentFactory],
    rules: Any,
    seeds: Sequence[int],
    agent_entropy: int,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    record: Sequence[bool] | None = None,
    features: int = 1,
) -> list[Trajectory]:
    """Record the seats in ``record`` (default: every seat) of the games reset with ``seeds``, seat i played by
    ``factories[i]`` (agent seeds are children of ``agent_entropy``, independent of the game seeds), with the head's
    inputs of feature set ``features``; ``progress(k)`` after each k games."""
    stop_size(features)  # an unknown feature set is refused before any game
    mask = [True] * len(factories) if record is None else [bool(r) for r in record]
    if len(mask) != len(factories):
        raise ValueError(f"record has {len(mask)} entries for {len(factories)} seats")
    chunk = 10
    jobs = [
        (list(factories), rules, list(seeds[i : i + chunk]), agent_entropy, mask, features) for i in range(0, len(seeds), chunk)
    ]
    out: list[Trajectory] = []
    if workers <= 1:
        for job in jobs:
            out += _record_chunk(job)
            if progress:
                progress(len(job[2]))
        return out
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for job, res in zip(jobs, pool.map(_record_chunk, jobs)):
            out += res
            if progress:
                progress(len(job[2]))
    return out


def save_trajectories(path: str, trajs: Sequence[Trajectory], seeds: Sequence[int] | None = None) -> None:
    """Write trajectories as one ``.npz`` (atomically); ``seeds``, the game seeds the chunk was
    recorded for (a game may leave no trajectory), are stored beside them when given."""
    lengths = np.array([len(t.correct) for t in trajs], dtype=np.int64)
    data: dict[str, np.ndarray] = {
        "lengths": lengths,
        "game": np.array([t.game for t in trajs], dtype=np.int64),
        "seat": np.array([t.seat for t in trajs], dtype=np.int64),
        "won": np.array([t.won for t in trajs], dtype=np.float32),
        "x": np.concatenate([t.x for t in trajs]) if trajs else np.zeros((0, STOP_FEATURES), np.float32),
        "correct": np.concatenate([t.correct for t in trajs]) if trajs else np.zeros(0, np.float32),
        "triples": np.concatenate([t.triples for t in trajs]) if trajs else np.zeros((0, TOP_TRIPLES, 2), np.float32),
        "label": np.concatenate([t.label for t in trajs]) if trajs else np.zeros(0, np.int64),
    }
    if seeds is not None:
        data["seeds"] = np.asarray(list(seeds), dtype=np.int64)
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    tmp = os.path.join(d, f".tmp-{os.getpid()}-{os.path.basename(path)}")
    with open(tmp, "wb") as f:
        np.savez_compressed(f, **data)  # type: ignore[arg-type]
    os.replace(tmp, path)


def load_trajectories(path: str, seeds: Sequence[int] | None = None) -> list[Trajectory]:
    """Read what :func:`save_trajectories` wrote (plain arrays only: no pickles). With ``seeds`` (the
    games a run plans for this chunk), a chunk recorded for other games is refused with a
    ``ValueError`` naming the file: one that stores its seeds must store exactly these, an older one
    without them must hold trajectories of these games only."""
    with np.load(path, allow_pickle=False) as d:
        ends = np.cumsum(d["lengths"])
        starts = ends - d["lengths"]
        x, c, tr, lb = d["x"], d["correct"], d["triples"], d["label"]
        out = [
            Trajectory(int(g), int(s), x[a:b], c[a:b], tr[a:b], lb[a:b], float(w))
            for g, s, w, a, b in zip(d["game"], d["seat"], d["won"], starts, ends)
        ]
        stored = [int(v) for v in d["seeds"]] if "seeds" in d.files else None
    if seeds is not None:
        want = [int(v) for v in seeds]
        if stored is not None and stored != want:
            raise ValueError(
                f"{path!r} was recorded for {len(stored)} games from seed {stored[0] if stored else '-'}, but this run "
                f"plans {len(want)} games from seed {want[0] if want else '-'} there: it comes from another run or config; "
                "move it away to record that chunk again"
            )
        stray = sorted({t.game for t in out} - set(want))
        if stray:
            raise ValueError(
                f"{path!r} holds games this run does not plan there (seed {stray[0]}, {len(stray)} in all): it comes "
                "from another run or config; move it away to record that chunk again"
            )
    return out


# ---------------------------------------------------------------------------------------- fitting
def realised_values(trajs: Sequence[Trajectory], stops: Sequence[np.ndarray] | None) -> tuple[np.ndarray, list[np.ndarray]]:
    """Per trajectory: the value of following the stopping rule (``stops[i][t]``: stop at t; ``None``:
    never), and for every opportunity t the realised value of waiting past t under that rule."""
    values = np.zeros(len(trajs))
    waits: list[np.ndarray] = []
    for i, t in enumerate(trajs):
        T = len(t.correct)
        g = np.zeros(T, dtype=np.float32)
        v = t.won
        stop = stops[i] if stops is not None else np.zeros(T, dtype=bool)
        for j in range(T - 1, -1, -1):
            g[j] = v
            if stop[j]:
                v = float(t.correct[j])
        values[i] = v
        waits.append(g)
    return values, waits


def _train_binary(
    model: Any,
    x: np.ndarray,
    y: np.ndarray,
    epochs: int,
    lr: float,
    weight_decay: float,
    batch: int,
    seed: int,
    w: np.ndarray | None = None,
) -> None:
    import torch

    g = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y.astype(np.float32))
    wt = torch.from_numpy((w / w.mean()).astype(np.float32)) if w is not None else None
    n = len(x)
    model.train()
    for _ in range(epochs):
        perm = torch.randperm(n, generator=g)
        for i in range(0, n, batch):
            idx = perm[i : i + batch]
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                model(xt[idx]).squeeze(-1), yt[idx], weight=None if wt is None else wt[idx]
            )
            opt.zero_grad()
            loss.backward()
            opt.step()
    model.eval()


def _train_triple(net: Any, triples: np.ndarray, label: np.ndarray, epochs: int, seed: int) -> None:
    import torch

    keep = label >= 0
    if not keep.any():
        return
    t = torch.from_numpy(triples[keep])
    y = torch.from_numpy(label[keep])
    pad = t.abs().sum(-1) == 0  # padded rows: never a candidate
    opt = torch.optim.Adam(net.triple.parameters(), lr=1e-2)
    for _ in range(epochs):
        scores = net.triple(t).squeeze(-1).masked_fill(pad, -1e9)
        loss = torch.nn.functional.cross_entropy(scores, y)
        opt.zero_grad()
        loss.backward()
        opt.step()


def scorer_correct(net: Any, trajs: Sequence[Trajectory]) -> list[Trajectory]:
    """The trajectories with ``correct`` replaced by "the triple scorer's pick is the envelope"
    (the triple the head would accuse; with feature set 4 it need not be the likeliest one)."""
    import torch

    out = []
    with torch.inference_mode():
        for t in trajs:
            if not len(t.correct):
                out.append(t)
                continue
            tr = torch.from_numpy(t.triples)
            scores = net.triple(tr).squeeze(-1).masked_fill(tr.abs().sum(-1) == 0, -1e9)
            pick = scores.argmax(-1).numpy()
            hit = ((pick == t.label) & (t.label >= 0)).astype(np.float32)
            out.append(Trajectory(t.game, t.seat, t.x, hit, t.triples, t.label, t.won))
    return out


def as_played(net: Any, trajs: Sequence[Trajectory]) -> list[Trajectory]:
    """``trajs`` as the head ``net`` plays them: with a triple scorer that reads a second posterior
    (feature sets 4 and 6) the triple it accuses is its scorer's pick, so ``correct`` is replaced by
    :func:`scorer_correct`; other heads accuse the likeliest triple, as recorded."""
    if TRIPLE_WIDTH[FEATURE_SETS[net.inputs]] == 3:
        return scorer_correct(net, trajs)
    return list(trajs)


def stop_decisions(net: Any, trajs: Sequence[Trajectory]) -> list[np.ndarray]:
    """The head's accuse-now decision at every recorded opportunity."""
    import torch

    out = []
    with torch.inference_mode():
        for t in trajs:
            out.append(net.should_accuse(torch.from_numpy(t.x)).numpy() if len(t.x) else np.zeros(0, dtype=bool))
    return out


#: the stream of a run's seed from which its accusation stage draws the held-out games
HELD_OUT_STREAM = 7


def held_out_games(trajs: Sequence[Trajectory], run_seed: int, share: float) -> set[int]:
    """The games the accusation stage of a run seeded ``run_seed`` holds out: each recorded game, in seed
    order, with probability ``share``. The stage and anything that compares heads on its held-out games
    draw them here."""
    rng = np.random.default_rng(int(np.random.SeedSequence([run_seed, HELD_OUT_STREAM]).generate_state(1)[0]))
    return {g for g in sorted({t.game for t in trajs}) if rng.random() < share}


def paired_gain(trajs: Sequence[Trajectory], stops: Sequence[np.ndarray]) -> tuple[float, float]:
    """Mean change of the win rate against waiting for proof, and its 95% half-width."""
    v, _ = realised_values(trajs, stops)
    d = v - np.array([t.won for t in trajs])
    return float(d.mean()), float(1.96 * d.std(ddof=1) / math.sqrt(max(len(d), 2)))


def fit_head(
    train: Sequence[Trajectory],
    *,
    hidden: int = 64,
    iterations: int = 4,
    epochs: int = 30,
    lr: float = 2e-3,
    weight_decay: float = 1e-4,
    batch: int = 1024,
    seed: int = 0,
    log: Callable[[str], None] | None = None,
    held_out: Sequence[Trajectory] = (),
    weights: Sequence[float] | None = None,
    history: list[dict[str, float]] | None = None,
    members: int = 1,
) -> Any:
    """Fit an :class:`~clue_env.policy.accusation_net.AccusationNet` on recorded trajectories
    (``weights``: one per trajectory, e.g. so that every line-up counts the same; default equal).
    ``history``, when given, receives one entry per value iteration: the train (and held-out) gain.
    ``members > 1``: each MLP of ``stop`` and ``cont`` is a bag of that many, member m fitted on a
    bootstrap resample of the trajectories (Poisson(1) weights, seeded from ``seed`` and m)."""
    import torch

    from ..policy.accusation_net import AccusationNet, members_of

    torch.manual_seed(seed)
    if weights is not None and len(weights) != len(train):
        raise ValueError(f"weights has {len(weights)} entries for {len(train)} trajectories")
    keep = [i for i, t in enumerate(train) if len(t.correct)]
    train = [train[i] for i in keep]
    x = np.concatenate([t.x for t in train])
    if x.shape[1] not in FEATURE_SETS:
        raise ValueError(f"trajectories with {x.shape[1]} inputs per opportunity match no accusation feature set")
    net = AccusationNet(hidden=hidden, inputs=int(x.shape[1]), members=members)  # the games' feature set
    correct = np.concatenate([t.correct for t in train])
    w = (
        None
        if weights is None
        else np.concatenate([np.full(len(train[j].correct), float(weights[i])) for j, i in enumerate(keep)])
    )
    if w is not None and (not np.all(np.isfinite(w)) or (w < 0).any() or w.sum() <= 0):
        raise ValueError("weights must be finite, non-negative and not all zero")
    lengths = [len(t.correct) for t in train]
    # per member, its row weights: the fit's, times a bootstrap resample of the trajectories (bags only)
    member_w: list[np.ndarray | None] = [w]
    if members > 1:
        member_w = []
        for m in range(members):
            boot = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(17, m))).poisson(1.0, len(train))
            rows = np.repeat(boot.astype(np.float64), lengths)
            rows = rows if w is None else rows * w
            member_w.append(rows if rows.sum() > 0 else w)  # (an empty resample: only with a handful of games)
    # the triple scorer first (its training draws no randomness): with feature set 4 the stop
    # target is whether the triple it picks is right, which need not be the likeliest one (so with
    # set 6: both read a second posterior, TRIPLE_WIDTH 3)
    _train_triple(net, np.concatenate([t.triples for t in train]), np.concatenate([t.label for t in train]), 200, seed)
    if TRIPLE_WIDTH[FEATURE_SETS[net.inputs]] == 3:
        train = as_played(net, train)
        held_out = as_played(net, held_out)
        correct = np.concatenate([t.correct for t in train])
    for m, part in enumerate(members_of(net.stop)):
        _train_binary(part, x, correct, epochs, lr, weight_decay, batch, seed + 101 * m, member_w[m])
    stops: list[np.ndarray] | None = None
    for it in range(iterations):
        _, waits = realised_values(train, stops)
        for p in net.cont.parameters():  # each iteration refits the waiting value from scratch
            if p.dim() > 1:
                torch.nn.init.kaiming_uniform_(p, a=math.sqrt(5))
        target = np.concatenate(waits)
        for m, part in enumerate(members_of(net.cont)):
            _train_binary(part, x, target, epochs, lr, weight_decay, batch, seed + 1 + it + 101 * m, member_w[m])
        stops = stop_decisions(net, train)
        if log is not None or history is not None:
            gain, half = paired_gain(train, stops)
            entry = {"iteration": it + 1, "train_gain": gain, "train_half_width": half}
            msg = f"accusation head, iteration {it + 1}/{iterations}: train {gain:+.2%} ± {half:.2%}"
            if held_out:
                hg, hh = paired_gain(held_out, stop_decisions(net, held_out))
                msg += f", held out {hg:+.2%} ± {hh:.2%}"
                entry.update(held_out_gain=hg, held_out_half_width=hh)
            if log is not None:
                log(msg)
            if history is not None:
                history.append(entry)
    return net


__all__ = [
    "Trajectory",
    "fit_head",
    "held_out_games",
    "load_trajectories",
    "paired_gain",
    "realised_values",
    "record_game",
    "record_games",
    "save_trajectories",
    "as_played",
    "scorer_correct",
    "stop_decisions",
]
