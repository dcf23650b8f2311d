"""When to accuse: the inputs of the policy's accusation head, computed from one seat's view.

``deduction`` (and a policy imitating it) accuses only once the solution is proved. Waiting for
proof loses the games in which an opponent solves first while the seat's most likely triple
was already right (``docs/training.md``, "Accusation timing"). The accusation head
(:class:`clue_env.policy.accusation_net.AccusationNet`) decides at every decision where an
accusation is legal whether to accuse now, from these inputs:

* **how likely my best triple is right**: each candidate envelope's posterior, counted exactly
  within a work budget, else by importance sampling (:func:`triple_posterior`); the approximate
  marginals stand in while more than :data:`MAX_TRIPLES` triples are possible (no accusation pays);
* **how close each opponent is to a solution**, from public information only
  (:class:`RaceTracker`): its suggestions, the cards it was shown, the passes and the refutations
  it met, how insistently it names the same card, whether it is eliminated;
* (feature set 3) **how each opponent plays**: how many of its suggestions name a card this
  seat's engine has since proved it holds (``notebook`` never names a card it holds; ``deduction``
  probes with its own cards), and how much of its hand this seat knows;
* (feature set 4) **what the opponents' suggestions say if they never name their own cards**:
  :func:`tell_knowledge` adds "holds none of the suspects and weapons it named" for each opponent
  not yet caught naming one it holds; the head gets that second posterior beside the first (its
  best triple's probability, whether the two agree, how much less likely the evidence is under it)
  and learns from mixed line-ups when to believe it, since against a prober the tells are wrong;
* (feature set 5, set 3 plus :func:`~clue_env.policy.opponent_model.opponent_features`) **each
  opponent's progress, simulated**: in deals drawn from this seat's evidence, each opponent's
  evidence is rebuilt and the envelopes it cannot yet tell apart are counted (exact up to the deal
  in the two-player game);
* the game's turn, the phase (start of my turn, or after my suggestion) and the player count.

Everything here reads only what R31 lets the seat know: its own (redacted) event history and
the policy features of :mod:`clue_env.policy.features` (themselves built from that history).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine.cards import N_CARDS, ROOM_BASE, WEAPON_BASE
from ..engine.events import Accuse, NoRefute, Pass, Show, Suggest, Turn
from ..engine.knowledge import Contradiction, Knowledge
from ..engine.knowledge.base import BudgetExceeded
from ..observation import MAX_SEATS
from .opponent_model import OPPONENT_FEATURES, opponent_features

#: more possible envelopes than this: the posterior is not computed (no accusation can pay yet)
MAX_TRIPLES = 48
#: exact counting of consistent deals up to this much work, else importance sampling
EXACT_BUDGET = 100_000
#: importance-sampling draws when counting is too costly
IMPORTANCE_SAMPLES = 200
#: candidate triples kept for the accusation head's choice
TOP_TRIPLES = 8

#: offsets into :func:`features.policy_observation`'s extra pieces (see ``POLICY_PIECES``)
_BELIEF_COLS = MAX_SEATS + 2
_SOLUTION = N_CARDS * _BELIEF_COLS
_CAND = _SOLUTION + N_CARDS + 1
PER_SEAT = 9
#: size of :func:`stop_features` (feature set 1: the race inputs of :meth:`RaceTracker.per_seat`)
STOP_FEATURES = 2 + 3 + 1 + 3 + 3 + 1 + 1 + 1 + 5 + MAX_SEATS * PER_SEAT + 9
#: feature set 2 adds, per opponent, what its suggestions say about how it plays (see
#: :class:`RaceTracker`): PER_SEAT_V2 race inputs a seat
PER_SEAT_V2 = PER_SEAT + 2
STOP_FEATURES_V2 = STOP_FEATURES + MAX_SEATS * (PER_SEAT_V2 - PER_SEAT)
#: feature set 3 adds to set 2, per opponent, whether and how often its suggestions named a card
#: this seat knows it holds, and the known share of its hand (see :meth:`RaceTracker.per_seat`)
PER_SEAT_V3 = PER_SEAT_V2 + 3
STOP_FEATURES_V3 = STOP_FEATURES + MAX_SEATS * (PER_SEAT_V3 - PER_SEAT)
#: feature set 4 adds to set 3 the "tell" posterior's summary (see :func:`tell_features`)
TELL_FEATURES = 12
STOP_FEATURES_V4 = STOP_FEATURES_V3 + TELL_FEATURES
#: feature set 5 adds to set 3 each opponent's simulated progress (see :mod:`clue_env.policy.opponent_model`)
STOP_FEATURES_V5 = STOP_FEATURES_V3 + OPPONENT_FEATURES
#: feature set 6 adds to set 5 the summary of a posterior that weighs each deal by what the
#: opponents named (see :func:`weighted_tell_posterior`), in :func:`tell_features`' form
STOP_FEATURES_V6 = STOP_FEATURES_V5 + TELL_FEATURES
#: the head's input size -> its feature set (a head file says its input size; the agent computes the set it was fitted on)
FEATURE_SETS = {
    STOP_FEATURES: 1,
    STOP_FEATURES_V2: 2,
    STOP_FEATURES_V3: 3,
    STOP_FEATURES_V4: 4,
    STOP_FEATURES_V5: 5,
    STOP_FEATURES_V6: 6,
}
assert len(FEATURE_SETS) == 6, "every feature set needs an input size of its own"
#: per-seat row width of each feature set
ROW_WIDTH = {1: PER_SEAT, 2: PER_SEAT_V2, 3: PER_SEAT_V3, 4: PER_SEAT_V3, 5: PER_SEAT_V3, 6: PER_SEAT_V3}
#: inputs per candidate triple of the triple scorer, per feature set
TRIPLE_WIDTH = {1: 2, 2: 2, 3: 2, 4: 3, 5: 2, 6: 3}
#: feature set 6: a deal's weight is this to the power of how many times an opponent named (in a
#: suggestion) a suspect or weapon the deal gives it; the odds ratio measured for `deduction` in
#: two-player 2023 games (docs/what-was-tried.md), the ``tells`` of the two-player planner
TELL_WEIGHT = 0.35
#: the most MLPs a bagged head may hold per part (:class:`~clue_env.policy.accusation_net.AccusationNet`)
MAX_MEMBERS = 16


def stop_size(features: int) -> int:
    """The accusation head's input size for feature set ``features`` (one of :data:`ROW_WIDTH`)."""
    for size, version in FEATURE_SETS.items():
        if version == features:
            return size
    raise ValueError(f"unknown accusation feature set {features!r}; known: {sorted(FEATURE_SETS.values())}")


class RaceTracker:
    """Counts per seat from one seat's event history (fed incrementally): public ones, and (feature
    set 2) two that only this seat can make, from what it showed and what it holds:

    * how often an opponent names a card this seat has already shown it (a player who names only
      cards it has not seen, as ``notebook`` does, never does; a prober may);
    * how often an opponent's suggestion names one of this seat's cards;
    * (feature set 3, with the seat's :class:`~clue_env.engine.knowledge.Knowledge`) how many of an
      opponent's suggestions name a card the seat now knows that opponent holds.
    """

    def __init__(self, num_players: int, me: int = -1, hand: Sequence[int] = ()) -> None:
        n = num_players
        self.n = n
        self.me = me
        self.hand = frozenset(int(c) for c in hand)
        #: (card, seat) pairs: this seat showed card to seat
        self._shown_by_me: set[tuple[int, int]] = set()
        self.renamed = np.zeros(n)
        self.named_mine = np.zeros(n)
        self.suggestions = np.zeros(n)
        self.shown = np.zeros(n)
        self.unrefuted = np.zeros(n)
        self.eliminated = np.zeros(n)
        self.passes = np.zeros(n)
        self.last_shown = np.zeros(n)
        self.names = np.zeros((n, N_CARDS))
        self.unrefuted_names = np.zeros((n, N_CARDS))
        #: every suggestion's three cards, per suggesting seat (feature set 3)
        self.named: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
        self.turn = 0
        self._triple: tuple[int, int, int] | None = None
        self.seen = 0

    def feed(self, events: Sequence[Any]) -> None:
        """Consume the events not seen yet (``events``: the seat's whole history)."""
        for ev in events[self.seen :]:
            match ev:
                case Turn(turn=t):
                    self.turn = t
                case Suggest(seat=s, suspect=a, weapon=b, room=c):
                    self._triple = (a, WEAPON_BASE + b, ROOM_BASE + c)
                    self.suggestions[s] += 1
                    self.names[s, list(self._triple)] += 1
                    self.named[s].append(self._triple)
                    if s != self.me:
                        named = self._triple
                        self.renamed[s] += any((x, s) in self._shown_by_me for x in named)
                        self.named_mine[s] += any(x in self.hand for x in named)
                case Show(suggester=s, refuter=r, card=card):
                    self.shown[s] += 1
                    self.last_shown[s] = self.turn
                    if r == self.me and card >= 0:  # this seat's own version of the event: it saw the card
                        self._shown_by_me.add((card, s))
                case Pass(suggester=s):
                    self.passes[s] += 1
                case NoRefute(suggester=s):
                    self.unrefuted[s] += 1
                    if self._triple is not None:
                        self.unrefuted_names[s, list(self._triple)] += 1
                case Accuse(seat=s, correct=False):
                    self.eliminated[s] = 1
        self.seen = len(events)

    def held_named(self, seat: int, knowledge: Knowledge) -> tuple[int, int]:
        """(how many of ``seat``'s suggestions named a card ``knowledge`` proves ``seat`` holds,
        how many cards it is proved to hold)."""
        return self._caught(seat, _proved_holdings(knowledge).get(seat, set()))

    def _caught(self, seat: int, held: set[int]) -> tuple[int, int]:
        return sum(1 for t in self.named[seat] if not held.isdisjoint(t)), len(held)

    def per_seat(self, me: int, turn: int, features: int = 1, knowledge: Knowledge | None = None) -> np.ndarray:
        """(MAX_SEATS, ROW_WIDTH[features]) features, row k = the seat k places to my left (0 = me).
        Feature set 3 needs the seat's ``knowledge`` (what it has proved about who holds what)."""
        if features not in ROW_WIDTH:
            raise ValueError(f"unknown accusation feature set {features!r}; known: {sorted(ROW_WIDTH)}")
        if features >= 2 and me != self.me:
            raise ValueError(f"feature set {features} is this tracker's seat's own (seat {self.me}), not seat {me}'s")
        if features >= 3 and knowledge is None:
            raise ValueError(f"feature set {features} needs the seat's knowledge")
        out = np.zeros((MAX_SEATS, ROW_WIDTH[features]))
        holdings = _proved_holdings(knowledge) if knowledge is not None and features >= 3 else {}
        for k in range(self.n):
            s = (me + k) % self.n
            last = self.last_shown[s]
            row: tuple[float, ...] = (
                self.suggestions[s] / 10,
                self.shown[s] / 10,
                self.unrefuted[s] / 5,
                self.eliminated[s],
                self.passes[s] / 20,
                (turn - last) / 30 if last else 1.0,
                self.names[s].max() / 10,
                self.unrefuted_names[s].max() / 3,
                1.0,
            )
            if features >= 2:
                sug = max(self.suggestions[s], 1.0)
                row = (*row, self.renamed[s] / sug, self.named_mine[s] / sug)
            if features >= 3:
                assert knowledge is not None
                if s == me:
                    row = (*row, 0.0, 0.0, 1.0)
                else:
                    caught, known = self._caught(s, holdings.get(s, set()))
                    cap = max(knowledge.caps[s], 1)
                    row = (*row, float(caught > 0), caught / max(self.suggestions[s], 1.0), known / cap)
            out[k] = row
        return out


def _proved_holdings(knowledge: Knowledge) -> dict[int, set[int]]:
    """{holder: the cards ``knowledge`` proves it holds}, in one pass over the deck."""
    out: dict[int, set[int]] = {}
    for c in range(N_CARDS):
        h = knowledge.location(c)
        if h is not None:
            out.setdefault(h, set()).add(c)
    return out


def triple_posterior(k: Knowledge, rng: np.random.Generator) -> tuple[dict[tuple[int, ...], float], bool | None]:
    """P(envelope = triple) for the possible triples, and how it was got: ``True`` counted
    exactly, ``False`` estimated by importance sampling (or, when all its draws hit dead ends, by
    the engine's Markov chain), ``None`` not computed (more than :data:`MAX_TRIPLES` possible
    triples, or no estimate could be drawn; an empty dict then)."""
    post, how, _total = _posterior_count(k, rng)
    return post, how


def _posterior_count(k: Knowledge, rng: np.random.Generator) -> tuple[dict[tuple[int, ...], float], bool | None, int | None]:
    """:func:`triple_posterior` and, when counted exactly, the number of consistent deals."""
    cand = k.envelope_candidates()
    if len(cand[0]) * len(cand[1]) * len(cand[2]) > MAX_TRIPLES:
        return {}, None, None
    try:
        tables = k._count_tables(EXACT_BUDGET)
        total = sum(t[4] for t in tables)
        return {tuple(t[0]): t[4] / total for t in tables}, True, total
    except BudgetExceeded:
        pass
    try:
        est = k.importance_posterior(rng, IMPORTANCE_SAMPLES).triples
    except Contradiction:  # every draw hit a dead end (tightly constrained hands): use the chain
        try:
            est = k.estimate_posterior(rng, IMPORTANCE_SAMPLES).triples
        except Contradiction:
            return {}, None, None
    return {tuple(t): p for t, p in est.items()}, False, None


def tell_knowledge(k: Knowledge, race: RaceTracker, me: int) -> tuple[Knowledge | None, int]:
    """``k`` plus "holds none of the suspects and weapons it named" for every opponent that named
    some and was never caught naming one ``k`` proves it holds (a player that names only cards
    it has not seen, as ``notebook`` does, holds none of them; a prober's tells are false), and
    how many opponents that was. ``None`` when the added facts contradict the evidence (then at
    least one of those opponents is not such a player). ``k`` itself is not changed."""
    holdings = _proved_holdings(k)
    k2 = k.copy()
    applied = 0
    for s in range(race.n):
        if s == me:
            continue
        named = {c for t in race.named[s] for c in t[:2]}  # suspects and weapons (rooms: where it stood)
        if not named or not named.isdisjoint(holdings.get(s, set())):
            continue
        k2.lacks(s, sorted(named))
        applied += 1
    if not applied:
        return k2, 0
    try:
        k2.propagate()
    except Contradiction:
        return None, applied
    return k2, applied


def _namers(race: RaceTracker, me: int) -> list[int]:
    """The opponents of ``me`` that have named a suspect or weapon in a suggestion."""
    return [s for s in range(race.n) if s != me and race.names[s, :ROOM_BASE].any()]


def weighted_tell_posterior(
    k: Knowledge, race: RaceTracker, me: int, lr: float = TELL_WEIGHT
) -> tuple[dict[tuple[int, ...], float], float | None, int]:
    """Feature set 6's posterior (R26, R31: every suggestion is public): each consistent deal
    weighs ``lr`` to the power of how many times an opponent named, in its suggestions, a suspect
    or weapon the deal gives it; counted exactly
    (:meth:`~clue_env.engine.knowledge.Knowledge.weighted_triples`). Returns ({triple: posterior},
    the deals' mean weight, how many opponents named anything); ({}, None, that number) when the
    deals are too many to count (then no accusation can pay yet, as with the plain posterior).
    The seat's own suggestions and rooms weigh nothing. ``k`` is not changed."""
    weight = np.ones((k.H, k.C))
    namers = _namers(race, me)
    for s in namers:
        weight[s, :ROOM_BASE] = lr ** race.names[s, :ROOM_BASE]
    applied = len(namers)
    try:
        post, total, number = k.weighted_triples(weight, EXACT_BUDGET)
    except (BudgetExceeded, Contradiction):
        return {}, None, applied
    return post, total / max(number, 1), applied


def tell_features(
    post: dict[tuple[int, ...], float],
    how: bool | None,
    total: float | None,
    tell: dict[tuple[int, ...], float],
    tell_how: bool | None,
    tell_total: float | None,
    contradiction: bool,
    applied: int,
    num_players: int,
) -> np.ndarray:
    """Feature set 4's :data:`TELL_FEATURES` extra inputs: the tell posterior's best triple's
    probability (and logit), how it was got (three flags), how many triples it allows, whether
    the tells contradict the evidence, the share of opponents they were applied to, whether
    its best triple is the plain posterior's, that triple's plain probability, and log(deals
    consistent with the tells / all consistent deals) when both were counted (with a flag)."""
    best = max(tell.items(), key=lambda kv: kv[1]) if tell else None
    p = best[1] if best else 0.0
    logit = math.log(max(p, 1e-4) / max(1.0 - p, 1e-4))
    std_best = max(post.items(), key=lambda kv: kv[1])[0] if post else None
    agree = float(best is not None and std_best is not None and tuple(sorted(best[0])) == tuple(sorted(std_best)))
    p_plain = post.get(best[0], 0.0) if best else 0.0
    ratio_known = False
    log_ratio = 0.0
    if total is not None and tell_total is not None and total > 0:
        ratio_known, log_ratio = True, math.log(max(tell_total, 1) / total) / 10
    if contradiction:
        log_ratio, ratio_known = -3.0, True  # no consistent deal at all: strong evidence against the tells
    x = [
        p,
        logit / 5,
        float(tell_how is True),
        float(tell_how is False),
        float(tell_how is None),
        min(len(tell), 100) / 100,
        float(contradiction),
        applied / max(num_players - 1, 1),
        agree,
        p_plain,
        max(log_ratio, -3.0),
        float(ratio_known),
    ]
    return np.asarray(x, dtype=np.float32)


def stop_features(
    policy_features: np.ndarray,
    best_p: float,
    how: bool | None,
    n_triples: int,
    race: np.ndarray,
    turn: int,
    start_of_turn: bool,
    num_players: int,
) -> np.ndarray:
    """The accusation head's input vector (:data:`STOP_FEATURES` floats, or
    :data:`STOP_FEATURES_V2` / :data:`STOP_FEATURES_V3` with feature set 2's / 3's ``race``).

    ``policy_features``: the seat's :class:`~clue_env.policy.features.SeatFeatures` vector;
    ``best_p``: the posterior of the most likely triple (``how`` as in :func:`triple_posterior`;
    when ``None`` the product of the per-kind top marginals stands in); ``race``:
    :meth:`RaceTracker.per_seat`.
    """
    f = policy_features
    env = f[np.arange(N_CARDS) * _BELIEF_COLS + MAX_SEATS]  # P(card in the envelope)
    cand = f[_CAND : _CAND + 3]
    top = f[_CAND + 3 : _CAND + 6]
    top_joint = float(f[_CAND + 6])
    p = best_p if how is not None else top_joint
    logit = math.log(max(p, 1e-4) / max(1.0 - p, 1e-4))
    x = np.concatenate(
        [
            [p, logit / 5, how is True, how is False, how is None, min(n_triples, 100) / 100],
            cand,
            top,
            [top_joint, turn / 100, float(start_of_turn)],
            [float(num_players == m) for m in range(2, 7)],
            race.ravel(),
            np.sort(env)[::-1][:9],
        ]
    )
    return x.astype(np.float32)


def triple_features(
    triples: Sequence[tuple[tuple[int, ...], float]],
    policy_features: np.ndarray,
    tell: dict[tuple[int, ...], float] | None = None,
) -> np.ndarray:
    """(T, 2) inputs of the triple scorer for candidate triples: log posterior, and the sum of
    the log approximate envelope marginals of the three cards; with ``tell`` (feature set 4),
    (T, 3): also the log of each triple's probability under the tell posterior."""
    env = policy_features[np.arange(N_CARDS) * _BELIEF_COLS + MAX_SEATS]
    out = np.zeros((len(triples), 2 if tell is None else 3), dtype=np.float32)
    for i, (t, p) in enumerate(triples):
        out[i, 0] = math.log(max(p, 1e-6))
        out[i, 1] = float(sum(math.log(max(float(env[c]), 1e-6)) for c in t))
        if tell is not None:
            out[i, 2] = math.log(max(tell.get(t, 0.0), 1e-6))
    return out


@dataclass
class HeadInputs:
    """What the accusation head reads at one opportunity."""

    #: the stop / cont input vector (:func:`stop_size` of the feature set)
    x: np.ndarray
    #: the candidate triples (card ids) with their plain posterior, the scorer's rows in order
    top: list[tuple[tuple[int, ...], float]]
    #: (len(top), TRIPLE_WIDTH[features]) the triple scorer's inputs
    triples: np.ndarray
    #: the plain posterior's most likely triple (sorted card ids), () when none
    best: tuple[int, ...]


def head_inputs(
    k: Knowledge,
    race: RaceTracker,
    seat: int,
    policy_features: np.ndarray,
    turn: int,
    start_of_turn: bool,
    num_players: int,
    features: int,
    rng: np.random.Generator,
    events: Sequence[Any] = (),
) -> HeadInputs:
    """The accusation head's inputs of feature set ``features`` for ``seat`` (whose evidence is
    ``k``, whose event history ``race`` has read), as the ``ppo`` agent and the recorder compute them.
    Feature set 5 also needs the seat's redacted event log ``events`` (the opponents' simulated
    progress is computed only while the posterior is, else left zero: no accusation can pay)."""
    if features >= 5 and not events:
        raise ValueError(f"feature set {features} needs the seat's event log (events=...)")
    post, how, total = _posterior_count(k, rng)
    top = sorted(post.items(), key=lambda kv: -kv[1])[:TOP_TRIPLES]
    best = tuple(sorted(top[0][0])) if top else ()
    race_x = race.per_seat(seat, turn, features, k)
    x = stop_features(policy_features, top[0][1] if top else 0.0, how, len(post), race_x, turn, start_of_turn, num_players)
    if features >= 5:
        opp = opponent_features(k, events, seat, num_players, rng) if how is not None else np.zeros(OPPONENT_FEATURES, np.float32)
        x5 = np.concatenate([x, opp]).astype(np.float32)
        if features == 5:
            return HeadInputs(x5, top, triple_features(top, policy_features), best)
        if how is True:
            tell, mean_weight, applied = weighted_tell_posterior(k, race, seat)
            tell_how: bool | None = True if mean_weight is not None else None
        else:  # not counted exactly: left out, as the plain posterior's inputs say
            tell, mean_weight, tell_how = {}, None, None
            applied = len(_namers(race, seat))
        # tell_features reads log(tell_total / total) / 10 (tell_total clipped at 1 for counts): here
        # the log of the deals' mean weight, how much less likely the evidence is under the tells
        inv = None if mean_weight is None else 1.0 / max(mean_weight, 1e-300)
        extra = tell_features(post, how, inv, tell, tell_how, None if inv is None else 1.0, False, applied, num_players)
        cand = sorted(post.items(), key=lambda kv: -(kv[1] + tell.get(kv[0], 0.0)))[:TOP_TRIPLES]
        x6 = np.concatenate([x5, extra]).astype(np.float32)
        return HeadInputs(x6, cand, triple_features(cand, policy_features, tell), best)
    if features < 4:
        return HeadInputs(x, top, triple_features(top, policy_features), best)
    k2, applied = tell_knowledge(k, race, seat)
    if k2 is None:
        tell, tell_how, tell_total = {}, None, None
    elif applied == 0:
        tell, tell_how, tell_total = post, how, total
    else:
        tell, tell_how, tell_total = _posterior_count(k2, rng)
    extra = tell_features(post, how, total, tell, tell_how, tell_total, k2 is None, applied, num_players)
    # candidates: the likeliest under both posteriors together (the tell posterior's support is inside the plain one's)
    cand = sorted(post.items(), key=lambda kv: -(kv[1] + tell.get(kv[0], 0.0)))[:TOP_TRIPLES]
    return HeadInputs(np.concatenate([x, extra]).astype(np.float32), cand, triple_features(cand, policy_features, tell), best)


__all__ = [
    "EXACT_BUDGET",
    "FEATURE_SETS",
    "IMPORTANCE_SAMPLES",
    "MAX_MEMBERS",
    "MAX_TRIPLES",
    "PER_SEAT_V2",
    "PER_SEAT_V3",
    "ROW_WIDTH",
    "STOP_FEATURES",
    "STOP_FEATURES_V2",
    "STOP_FEATURES_V3",
    "STOP_FEATURES_V4",
    "STOP_FEATURES_V5",
    "STOP_FEATURES_V6",
    "TELL_FEATURES",
    "TELL_WEIGHT",
    "TOP_TRIPLES",
    "TRIPLE_WIDTH",
    "HeadInputs",
    "RaceTracker",
    "head_inputs",
    "stop_features",
    "stop_size",
    "tell_features",
    "tell_knowledge",
    "triple_features",
    "triple_posterior",
    "weighted_tell_posterior",
]
