"""Imitation data and behaviour cloning: learn the scripted teacher's decisions.

:func:`record_game` plays one game in which every seat is played by an injected actor. For the
recorded seats it stores, at each decision, the policy observation (the seat's own observation
plus :mod:`~clue_env.policy.features`), the action mask, the action the seat's *teacher* chose,
and afterwards the discounted final reward of that seat (a value target). A recorded seat may be
*driven* by another actor (DAgger: the learner plays, the teacher labels what it would do).

:func:`fit` trains a :class:`~clue_env.policy.network.CluePolicyNet` on such data: masked
cross-entropy on the teacher's actions, squared error on the value targets.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine.config import RulesConfig
from ..env import raw_env
from ..policy.features import POLICY_LAYOUT, SeatFeatures, policy_observation
from .adapter import Actor


@dataclass
class Batch:
    """Decisions as arrays: obs (N, D) float16, mask (N, A) bool, action (N,), ret (N,) float32."""

    obs: np.ndarray
    mask: np.ndarray
    action: np.ndarray
    ret: np.ndarray

    @staticmethod
    def concat(parts: Sequence[Batch]) -> Batch:
        return Batch(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("obs", "mask", "action", "ret")))

    def __len__(self) -> int:
        return len(self.action)


def record_game(
    actors: Sequence[Actor],
    record: Sequence[int],
    rules: RulesConfig | str,
    seed: int,
    gamma: float = 0.99,
    drivers: dict[int, Actor] | None = None,
) -> tuple[Batch, int]:
    """Play one game; record the seats in ``record``. Returns the decisions and the winner (-1 none).

    ``actors[s]`` plays seat ``s`` (and labels it, when recorded); ``drivers[s]``, if given, plays
    a recorded seat instead, while ``actors[s]`` still labels every decision.
    """
    n = len(actors)
    env = raw_env(num_players=n, rules=rules)
    env.reset(seed=seed)
    for actor in actors:
        if hasattr(actor, "reset"):
            actor.reset()
    drivers = drivers or {}
    for driver in drivers.values():
        if hasattr(driver, "reset"):
            driver.reset()
    feats = {s: SeatFeatures(s, n) for s in record}
    rows: dict[int, list[tuple[np.ndarray, np.ndarray, int]]] = {s: [] for s in record}
    names = env.possible_agents
    totals = {s: 0.0 for s in record}
    while not env.game_over:
        name = env.agent_selection
        s = names.index(name)
        o = env.observe(name)
        info = env.infos[name]
        a = int(actors[s].act(o, info))
        if s in feats:
            f = feats[s].update(o["observation"], info["seat_view"].events)
            pobs = policy_observation(o["observation"], f)
            rows[s].append((pobs.astype(np.float16), o["action_mask"].astype(bool), a))
            if s in drivers:
                a = int(drivers[s].act({"observation": pobs, "action_mask": o["action_mask"]}, info))
        env.step(a)
        for t in record:  # the env's own reward accounting (R28, R29)
            totals[t] += env.rewards[names[t]]
    w = env.winner()
    winner = names.index(w) if w is not None else -1
    parts = []
    for s in record:
        r = rows[s]
        if not r:
            continue
        final = totals[s]
        T = len(r)
        ret = np.array([final * gamma ** (T - 1 - t) for t in range(T)], dtype=np.float32)
        parts.append(Batch(np.stack([x[0] for x in r]), np.stack([x[1] for x in r]), np.array([x[2] for x in r]), ret))
    if not parts:
        D, A = POLICY_LAYOUT.size, env.codec.n
        return Batch(np.zeros((0, D), np.float16), np.zeros((0, A), bool), np.zeros(0, int), np.zeros(0, np.float32)), winner
    return Batch.concat(parts), winner


ActorFactory = Callable[[int, int, RulesConfig, int], Actor]


def record_games(
    lineups: Sequence[tuple[Sequence[ActorFactory], Sequence[int]]],
    games: Sequence[int],
    rules: RulesConfig,
    seed: int,
    gamma: float = 0.99,
    driver: ActorFactory | None = None,
) -> Batch:
    """Play games ``games`` (indices); game g uses lineup ``g % len(lineups)``, rotated by ``g``."""
    parts = []
    for g in games:
        factories, record = lineups[g % len(lineups)]
        n = len(factories)
        rot = g % n
        ss = np.random.SeedSequence([seed, g]).spawn(n + 2)
        seat_of = [(i + rot) % n for i in range(n)]  # lineup slot i sits in seat seat_of[i]
        actors: list[Any] = [None] * n
        for i, f in enumerate(factories):
            s = seat_of[i]
            actors[s] = f(s, n, rules, int(ss[i].generate_state(1)[0]))
        rec = [seat_of[i] for i in record]
        drivers = {}
        if driver is not None:
            drivers = {s: driver(s, n, rules, int(ss[n].generate_state(1)[0])) for s in rec}
        batch, _ = record_game(actors, rec, rules, int(ss[n + 1].generate_state(1)[0]), gamma, drivers)
        parts.append(batch)
    return Batch.concat(parts)


def fit(
    net: Any,
    data: Batch,
    *,
    epochs: int = 4,
    batch_size: int = 512,
    lr: float = 1e-3,
    value_coef: float = 0.5,
    seed: int = 0,
    log: Callable[[dict[str, float]], None] | None = None,
    holdout: float = 0.05,
    weights: np.ndarray | None = None,
) -> dict[str, float]:
    """Behaviour cloning of ``data`` into ``net`` (a CluePolicyNet with a ``value`` head).

    ``weights`` (one non-negative number per decision, e.g. :func:`phase_weights`) weighs each
    decision's cross-entropy (and accuracy): a batch's loss is the weighted mean, so a weight of 0
    leaves the policy untouched by that decision. The value loss is unweighted.
    """
    import torch
    import torch.nn.functional as F

    gen = torch.Generator().manual_seed(seed)
    N = len(data)
    perm = torch.randperm(N, generator=gen).numpy()
    n_val = int(N * holdout) if N > 100 else 0
    val_idx, tr_idx = perm[:n_val], perm[n_val:]
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    steps_total = epochs * math.ceil(len(tr_idx) / batch_size)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, max(1, steps_total))

    if weights is not None:
        weights = np.asarray(weights, dtype=np.float32)
        if weights.shape != (N,) or not np.all(np.isfinite(weights)) or (weights < 0).any():
            raise ValueError(f"weights: one finite non-negative number per decision ({N}), got shape {weights.shape}")

    def tensors(idx: np.ndarray) -> tuple[torch.Tensor, ...]:
        return (
            torch.from_numpy(data.obs[idx].astype(np.float32)),
            torch.from_numpy(data.mask[idx]),
            torch.from_numpy(data.action[idx].astype(np.int64)),
            torch.from_numpy(data.ret[idx]),
        )

    def losses(idx: np.ndarray) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        x, m, a, r = tensors(idx)
        logits, v = net.logits_and_value(x)
        logits = logits.masked_fill(~m, -1e8)
        hit = (logits.argmax(dim=1) == a).float()
        if weights is None:
            ce, acc = F.cross_entropy(logits, a), hit.mean()
        else:
            w = torch.from_numpy(weights[idx])
            total = w.sum().clamp_min(1e-12)  # an all-zero batch: loss 0, no gradient from it
            ce = (F.cross_entropy(logits, a, reduction="none") * w).sum() / total
            acc = (hit * w).sum() / total
        return ce, F.mse_loss(v, r), acc

    stats: dict[str, float] = {}
    net.train()
    for ep in range(epochs):
        rng = np.random.default_rng(seed + ep)
        order = rng.permutation(tr_idx)
        tot = cnt = 0.0
        for i in range(0, len(order), batch_size):
            ce, vl, acc = losses(order[i : i + batch_size])
            loss = ce + value_coef * vl
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(ce.detach()) * len(order[i : i + batch_size])
            cnt += len(order[i : i + batch_size])
        stats = {"epoch": ep + 1, "train_ce": tot / max(cnt, 1)}
        if n_val:
            with torch.no_grad():
                ce, vl, acc = losses(val_idx)
            stats.update(val_ce=float(ce), val_value_mse=float(vl), val_accuracy=float(acc))
        if log is not None:
            log(stats)
    net.eval()
    return stats


def phase_weights(data: Batch, by_phase: dict[str, float]) -> np.ndarray:
    """One weight per decision of ``data``: ``by_phase[phase]`` for its phase (read from its action
    mask by :meth:`~clue_env.codec.ActionCodec.phases`; a phase not named weighs 1)."""
    from ..codec import PHASES, default_codec

    unknown = [p for p in by_phase if p not in PHASES]
    if unknown:
        raise ValueError(f"unknown phase(s) {unknown}; known: {', '.join(PHASES)}")
    table = np.array([float(by_phase.get(p, 1.0)) for p in PHASES], dtype=np.float32)
    return table[default_codec().phases(data.mask)] if len(data) else np.zeros(0, np.float32)


__all__ = ["Batch", "record_game", "record_games", "fit", "phase_weights"]
