"""``deduction``: a strong scripted player built on the deduction engine.

* Knowledge: everything its seat witnessed (:class:`clue_env.engine.witness.Witness`): own hand,
  cards shown to it, passes, refutations between other seats, hand sizes, wrong accusations.
* Suggestions: the largest expected information about the solution (the expected drop in the
  entropy of the envelope, summed over the three kinds) over 64 deals sampled from the posterior
  (exactly when the consistent deals are cheap to count, else by the engine's Markov chain); the
  first seat to the left holding a named card is expected to show one of them, uniformly.
* Movement: to the room where the best suggestion is worth most per turn of travel.
* Refuting: a card the suggester has already seen from it, else one it has shown before, else a
  random matching card (R27). Accusing: once the engine proves the solution; with
  ``threshold=P`` also once one triple has posterior probability >= P.

Parameters (``deduction:k=v,...``; defaults in brackets; bounds in the ``MAX_`` constants; a bad
value is a ValueError at construction):

* ``threshold`` in (0, 1]; ``samples`` [64]; ``exact_budget`` [20,000; 0: always the chain];
* ``pull`` [none] with ``pull_tol`` [0.1], whom a suggestion calls into the room (R26): among the
  suggestions within ``pull_tol`` of the best, ``far`` names the active opponent farthest from this
  room, ``next`` the next opponent to play, ``avoid`` no opponent outside this room;
* ``plan`` [none], classic movement: ``roll`` scores the rooms after the roll as the 2023 planner
  does (:data:`TURNS_NOW`, :data:`TURNS_NEXT`) and before it weighs staying and the passage against
  the best room over the die's faces; ``move`` only the part after the roll;
* ``deny`` [0]: its own information less ``deny`` times the public's (:func:`public_information`);
* ``tells`` [1: off] in (0, 1]: sampled deals reweighted by ``tells`` per suspect or weapon an
  opponent named while holding it (R26, R31);
* ``shows`` [``any``]: ``repeat`` expects a refuter to show again a card it already showed this
  seat when it can (R27), so naming such a card tells nothing;
* ``moves`` [``roll``], what :meth:`DeductionAgent.move_scores` reports in classic games: ``roll``
  the roll-aware planner's scores, ``own`` those of the movement the agent itself makes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from clue_env.codec import default_codec
from clue_env.engine.board import classic_board
from clue_env.engine.cards import CARDS, N_CARDS, N_ROOMS, N_SUSPECTS, N_WEAPONS, ROOM_BASE, WEAPON_BASE
from clue_env.engine.events import Suggest
from clue_env.engine.game import Phase
from clue_env.engine.knowledge import Contradiction
from clue_env.engine.marginals import approx_marginals
from clue_env.engine.witness import Witness
from clue_env.seat_view import SeatView

from . import register_agent
from .base import Agent

CODEC = default_codec()

# Tuning numbers of the planner (changing them changes the agent and its measured strength).
#: chain sweeps between kept samples, and sweeps discarded first, when counting is too costly
SAMPLE_SWEEPS = 1
SAMPLE_BURN_IN = 20
#: a room's value floor, so that distance still orders rooms that teach nothing
VALUE_FLOOR = 1e-3
#: one die averages 3.5 squares a turn (R12, classic)
SQUARES_PER_TURN_ONE_DIE = 3.5
#: two dice average 7 squares a turn (R12, 2023); a room one turn away costs 1.5 turns
SQUARES_PER_TURN_TWO_DICE = 7.0
TURNS_NEXT = 1.5
#: a room enterable now costs half a turn
TURNS_NOW = 0.5
#: staying wins ties within this fraction of the best room's score
STAY_TOLERANCE = 0.999
#: random tie-breaking noise between equally informative suggestions
TIE_NOISE = 1e-9
BOARD = classic_board()
#: envelope candidates of each kind in an account of a decision (replays)
ACCOUNT_TOP = 3
_BIG = 99
_LN = np.log
#: the move actions :meth:`DeductionAgent.move_scores` scores, in this order: ``enter r`` (9), ``toward r`` (9),
#: ``stay``, ``passage``
MOVE_SCORE_ACTIONS = (
    *(CODEC.enter(r) for r in range(N_ROOMS)),
    *(CODEC.toward(r) for r in range(N_ROOMS)),
    CODEC.STAY,
    CODEC.PASSAGE,
)
_MOVE_SCORE_INDEX = {a: i for i, a in enumerate(MOVE_SCORE_ACTIONS)}


def _entropy_rows(counts: np.ndarray) -> np.ndarray:
    """Sum over the last axis of -n log(n/N) per row (nats), for count arrays."""
    tot = counts.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(counts > 0, counts / np.maximum(tot, 1), 1.0)
        return -(counts * _LN(p)).sum(axis=-1)


def _refuter_distances(samples: np.ndarray, me: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For ``samples`` (S, 21) card locations: how far to the left of seat ``me`` the holder of
    each suspect, weapon and room sits (broadcastable to (S, 6, 6, 9); ``_BIG`` for me, the board
    and the envelope), and ``D`` (S, 6, 6, 9), the distance of each suggestion's refuter (R27)."""
    d = np.where(samples >= n, _BIG, (samples - me) % n)
    d[samples == me] = _BIG
    ds = d[:, :N_SUSPECTS][:, :, None, None]
    dw = d[:, WEAPON_BASE:ROOM_BASE][:, None, :, None]
    dr = d[:, ROOM_BASE:][:, None, None, :]
    return ds, dw, dr, np.minimum(np.minimum(ds, dw), dr)


def information_gain(
    samples: np.ndarray,
    me: int,
    n: int,
    rng: np.random.Generator,
    env_loc: int | None = None,
    repeat: np.ndarray | None = None,
) -> np.ndarray:
    """Expected information about the envelope of every suggestion (s, w, r), shape (6, 6, 9).

    ``samples``: (S, 21) card locations: seats ``0..n-1`` (the only possible refuters), then any
    extra holder (the 2023 board), then the envelope ``env_loc`` (default: the largest location).
    The refuter shows one of its matching cards uniformly (R27), unless ``repeat`` (bool, per card:
    a card some seat has shown ``me``) is given: then a refuter that has shown ``me`` a matching
    card shows that one again, the lowest-numbered if several (what ``deduction`` refuters do).
    """
    if env_loc is None:
        env_loc = n
    S = samples.shape[0]
    ds, dw, dr, D = _refuter_distances(samples, me, n)
    refuted = D < _BIG
    a = (ds == D) & refuted
    b = (dw == D) & refuted
    c = (dr == D) & refuted
    m = a.astype(np.int8) + b + c
    pick = np.floor(rng.random(D.shape) * np.maximum(m, 1)).astype(np.int8)
    s_idx = np.arange(N_SUSPECTS)[None, :, None, None]
    w_idx = np.arange(N_WEAPONS)[None, None, :, None]
    r_idx = np.arange(N_ROOMS)[None, None, None, :]
    label = np.full(D.shape, N_CARDS, dtype=np.int64)
    label = np.where(c & (pick == a.astype(np.int8) + b), ROOM_BASE + r_idx, label)
    label = np.where(b & (pick == a.astype(np.int8)), WEAPON_BASE + w_idx, label)
    label = np.where(a & (pick == 0), s_idx, label)
    if repeat is not None:  # a card shown to me is held by whoever showed it, in every deal
        label = np.where(c & repeat[ROOM_BASE:][None, None, None, :], ROOM_BASE + r_idx, label)
        label = np.where(b & repeat[WEAPON_BASE:ROOM_BASE][None, None, :, None], WEAPON_BASE + w_idx, label)
        label = np.where(a & repeat[:N_SUSPECTS][None, :, None, None], s_idx, label)
    gain = _expected_gain(label.reshape(S, -1), samples == env_loc)  # (324,)
    return gain.reshape(N_SUSPECTS, N_WEAPONS, N_ROOMS)


def public_information(samples: np.ndarray, me: int, n: int, env_loc: int | None = None) -> np.ndarray:
    """Expected information about the envelope of every suggestion (s, w, r), shape (6, 6, 9), in
    its public outcome alone: which seat refutes it, or that nobody can (R27; every seat sees that,
    not the card). Computed from this seat's own ``samples`` (as :func:`information_gain`), so it
    estimates what the suggestion tells the table, not any opponent's exact posterior."""
    if env_loc is None:
        env_loc = n
    S = samples.shape[0]
    D = _refuter_distances(samples, me, n)[3]
    label = np.where(D < _BIG, D, 0).astype(np.int64)  # the refuter's distance; 0: nobody
    return _expected_gain(label.reshape(S, -1), samples == env_loc).reshape(N_SUSPECTS, N_WEAPONS, N_ROOMS)


def _expected_gain(label: np.ndarray, env: np.ndarray) -> np.ndarray:
    """Expected drop in the envelope's entropy (summed over the three kinds) for each option.

    ``label``: (S, T) outcome (a card index, or ``N_CARDS`` for none) of each of T options in
    each of S sampled deals; ``env``: (S, 21) whether each card is in the envelope.
    """
    S, T = label.shape
    L = N_CARDS + 1
    gain = np.zeros(T)
    for lo, size in ((0, N_SUSPECTS), (WEAPON_BASE, N_WEAPONS), (ROOM_BASE, N_ROOMS)):
        e = np.argmax(env[:, lo : lo + size], axis=1)  # (S,)
        prior = _entropy_rows(np.bincount(e, minlength=size)[None, :].astype(float))[0]
        idx = (np.arange(T)[None, :] * L + label) * size + e[:, None]
        joint = np.bincount(idx.ravel(), minlength=T * L * size).reshape(T, L, size).astype(float)
        gain += (prior - _entropy_rows(joint).sum(axis=1)) / S
    return gain


def peek_gain(samples: np.ndarray, board_loc: int, env_loc: int, known: list[int], rng: np.random.Generator) -> float:
    """Expected information about the envelope from looking at one unseen face-down card (R30)."""
    S = samples.shape[0]
    on_board = samples == board_loc
    on_board[:, known] = False
    counts = on_board.sum(axis=1)
    if not counts.any():
        return 0.0
    pick = np.floor(rng.random(S) * np.maximum(counts, 1)).astype(int)
    order = np.cumsum(on_board, axis=1) - 1
    label = np.where(counts > 0, np.argmax(on_board & (order == pick[:, None]), axis=1), N_CARDS)
    return float(_expected_gain(label[:, None], samples == env_loc)[0])


#: bounds of the agent's parameters (``deduction:samples=N``, ``deduction:exact_budget=N``)
MAX_SAMPLES = 4096
MAX_EXACT_BUDGET = 1_000_000
#: the ``pull`` modes (see the module docstring)
PULL_MODES = ("far", "next", "avoid")
#: the largest ``deny`` weight
MAX_DENY = 10.0
#: ``tells``: how many deals are drawn for each one kept after the reweighting
TELL_OVERSAMPLE = 4
#: the ``plan`` modes (see the module docstring)
PLAN_MODES = ("roll", "move")
#: ``shows``: how its information estimate expects a refuter to choose (R27)
SHOWS_MODES = ("any", "repeat")
#: ``moves``: the units of :meth:`DeductionAgent.move_scores` in classic games (see the module docstring)
MOVES_MODES = ("roll", "own")


def _int_param(name: str, value: Any, lo: int, hi: int) -> int:
    """``value`` as an int in ``lo..hi`` (a bool, a float or a string is refused); ValueError naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer from {lo} to {hi}, got {value!r}")
    if not lo <= int(value) <= hi:
        raise ValueError(f"{name} must be an integer from {lo} to {hi}, got {value!r}")
    return int(value)


class DeductionAgent(Agent):
    def __init__(
        self,
        seat: int,
        num_players: int,
        rules: Any = "classic",
        seed: int | None = None,
        threshold: float | None = None,
        samples: int = 64,
        exact_budget: int = 20_000,
        pull: str | None = None,
        pull_tol: float = 0.1,
        plan: str | None = None,
        deny: float = 0.0,
        tells: float = 1.0,
        shows: str = "any",
        moves: str = "roll",
    ) -> None:
        if moves not in MOVES_MODES:
            raise ValueError(f"moves must be one of {', '.join(MOVES_MODES)}, got {moves!r}")
        #: what :meth:`move_scores` reports in classic games
        self.moves = moves
        if shows not in SHOWS_MODES:
            raise ValueError(f"shows must be one of {', '.join(SHOWS_MODES)}, got {shows!r}")
        self.shows = shows
        if isinstance(tells, bool) or not isinstance(tells, (int, float)) or not 0.0 < float(tells) <= 1.0:
            raise ValueError(f"tells must be a number in (0, 1], got {tells!r}")
        #: likelihood ratio of "an opponent holds a suspect or weapon it named" (1: named cards say nothing)
        self.tells = float(tells)
        if isinstance(deny, bool) or not isinstance(deny, (int, float)) or not 0.0 <= float(deny) <= MAX_DENY:
            raise ValueError(f"deny must be a number from 0 to {MAX_DENY}, got {deny!r}")
        self.deny = float(deny)
        if plan is not None and plan not in PLAN_MODES:
            raise ValueError(f"plan must be one of {', '.join(PLAN_MODES)}, got {plan!r}")
        self.plan = plan
        if pull is not None and pull not in PULL_MODES:
            raise ValueError(f"pull must be one of {', '.join(PULL_MODES)}, got {pull!r}")
        if isinstance(pull_tol, bool) or not isinstance(pull_tol, (int, float)) or not 0.0 <= float(pull_tol) < 1.0:
            raise ValueError(f"pull_tol must be a number in [0, 1), got {pull_tol!r}")
        self.pull = pull
        self.pull_tol = float(pull_tol)
        if threshold is not None and not 0.0 < float(threshold) <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
        self.threshold = None if threshold is None else float(threshold)
        #: deals drawn from the posterior each time the evidence changes
        self.samples = _int_param("samples", samples, 1, MAX_SAMPLES)
        #: draw deals exactly when counting them fits this many steps, else from the chain (0: always the chain)
        self.exact_budget = _int_param("exact_budget", exact_budget, 0, MAX_EXACT_BUDGET)
        super().__init__(seat, num_players, rules, seed)

    def reset(self) -> None:
        self.witness: Witness | None = None
        self._events: Any = ()
        self._solution_version = -1
        self._solution: tuple[int, ...] | None = None
        self._gain_version = -1
        self._gain: np.ndarray | None = None
        self._public = np.zeros((N_SUSPECTS, N_WEAPONS, N_ROOMS))
        self._posterior_version = -1
        self._best_triple: tuple[tuple[int, int, int], float] | None = None
        self._peek = 0.0

    # ------------------------------------------------------------------ knowledge
    def _knowledge(self, view: SeatView):
        self._events = view.events
        if self.witness is None:
            self.witness = Witness(self.seat, list(view.hand), list(view.hand_sizes))
        self.witness.feed(view.events)
        return self.witness.knowledge

    def room_values(self, info: dict[str, Any]) -> np.ndarray:
        """Per room (``N_ROOMS``), what its planner puts on a visit there now: the expected
        information of the room's best suggestion, plus an unseen face-down card's (R30), from deals
        drawn from the seat's evidence in ``info["seat_view"]`` (R31). Feeds the evidence as
        :meth:`act` does, chooses nothing: the ``ppo`` agent reads these as network inputs."""
        view: SeatView = info["seat_view"]
        return self._room_values(view, self._knowledge(view))

    def _certain(self, k) -> tuple[int, ...] | None:
        if self._solution_version != k.version:
            self._solution = k.solution_if_certain(max_candidates=8)
            self._solution_version = k.version
        return self._solution

    def _gains(self, k) -> np.ndarray:
        if self._gain_version != k.version or self._gain is None:
            try:
                draws = self.samples * (TELL_OVERSAMPLE if self.tells < 1.0 else 1)
                samples = k.sample_deals(
                    draws, self.rng, sweeps=SAMPLE_SWEEPS, burn_in=SAMPLE_BURN_IN, exact_budget=self.exact_budget
                )
            except Contradiction:
                samples = None
            if samples is not None and self.tells < 1.0:
                samples = self._reweigh(samples)
            if samples is None:
                self._gain = np.zeros((N_SUSPECTS, N_WEAPONS, N_ROOMS))
                self._public = np.zeros((N_SUSPECTS, N_WEAPONS, N_ROOMS))
            else:
                repeat = None
                if self.shows == "repeat" and self.witness is not None:
                    repeat = np.zeros(N_CARDS, dtype=bool)
                    repeat[list(self.witness.shown_to_me)] = True
                self._gain = information_gain(samples, self.seat, self.num_players, self.rng, k.ENV, repeat)
                if self.deny:
                    self._public = public_information(samples, self.seat, self.num_players, k.ENV)
                self._peek = 0.0
                if k.H > self.num_players:  # R30: cards lie face down on the board
                    board = self.num_players
                    known = [c for c in range(N_CARDS) if k.location(c) == board]
                    self._peek = peek_gain(samples, board, k.ENV, known, self.rng)
                env = samples == k.ENV
                trip: dict[tuple[int, int, int], int] = {}
                for row in env:
                    t = tuple(int(x) for x in np.flatnonzero(row))
                    trip[t] = trip.get(t, 0) + 1
                best = max(trip.items(), key=lambda kv: kv[1])
                self._best_triple = (best[0], best[1] / len(samples))  # type: ignore[assignment]
            self._gain_version = k.version
        return self._gain

    def _reweigh(self, samples: np.ndarray) -> np.ndarray:
        """``tells``: keep :attr:`samples` of the drawn deals, drawn again with weights
        ``tells ** (how many times each opponent named a suspect or weapon it holds in that deal)``
        (R26, R31: every suggestion is public). A ``deduction`` opponent names its own cards less
        often than chance, so a named card is less likely to be in the namer's hand."""
        n = self.num_players
        named = np.zeros((n, N_CARDS))
        for ev in self._events:
            if isinstance(ev, Suggest) and ev.seat != self.seat:
                named[ev.seat, ev.suspect] += 1
                named[ev.seat, WEAPON_BASE + ev.weapon] += 1
        holder = np.where(samples < n, samples, 0)
        hits = np.where(samples < n, named[holder, np.arange(N_CARDS)[None, :]], 0.0).sum(axis=1)
        w = np.exp(hits * np.log(self.tells))
        keep = self.rng.choice(len(samples), size=self.samples, p=w / w.sum())
        return samples[keep]

    # ------------------------------------------------------------------ decisions
    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        view: SeatView = info["seat_view"]
        mask = observation["action_mask"]
        phase = view.phase
        k = self._knowledge(view)
        if phase == Phase.REFUTE:
            return self._refute(mask, view)
        sol_known = self._certain(k) is not None
        if mask[CODEC.accuse_slice].any():
            sol = self._certain(k)
            if sol is None and self.threshold is not None:
                self._gains(k)
                if self._best_triple is not None and self._best_triple[1] >= self.threshold:
                    sol = self._best_triple[0]
            if sol is not None:
                s, w, r = sol
                return CODEC.accuse(s, w - WEAPON_BASE, r - ROOM_BASE)
        if phase == Phase.SUGGEST:
            room = view.my_node
            g = self._gains(k)[:, :, room]
            if self.deny:
                g = g - self.deny * self._public[:, :, room]
            noisy = g + TIE_NOISE * self.rng.random(g.shape)
            if self.pull is not None:
                ok = g >= g.max() * (1.0 - self.pull_tol) - 1e-12
                noisy = np.where(ok, noisy + 10.0 * self._pull_preference(view, room)[:, None], -np.inf)
            s, w = np.unravel_index(int(np.argmax(noisy)), g.shape)
            return CODEC.suggest(int(s), int(w))
        if phase in (Phase.START, Phase.MOVE):
            if sol_known and not self.rules.accuse_anywhere:
                return self._to_any_room(view, mask)  # R28 (2023): accusations only from a room
            if self.rules.roll_first:
                return self._move_2023(view, mask, k, phase)
            return self._move(view, mask, k, phase)
        return CODEC.END

    def _pull_preference(self, view: SeatView, room: int) -> np.ndarray:
        """Per suspect: how much ``self.pull`` prefers naming it (R26 moves its token here); 0 for
        me, eliminated seats, tokens already here and characters nobody plays, negative to avoid."""
        pref = np.zeros(N_SUSPECTS)
        n = self.num_players
        opponents = [(j - self.seat) % n for j in range(n)]
        for j in range(n):
            if j == self.seat or view.eliminated[j]:
                continue
            sus = view.characters[j]
            node = view.tokens[sus]
            if node == room:
                continue
            if self.pull == "far":
                d = BOARD.dist_to_room[node][room] if node >= 0 else 0
                pref[sus] = 0.5 + min(d, 40) / 80.0
            elif self.pull == "next":
                pref[sus] = 1.0 - opponents[j] / n  # the nearest to my left plays next
            elif self.pull == "avoid":
                pref[sus] = -1.0
        return pref

    def account(self) -> dict[str, Any] | None:
        """Its envelope probabilities (the top :data:`ACCOUNT_TOP` cards of each kind) from the
        evidence of its last decision (fast marginals on a copy: its own state is untouched)."""
        if self.witness is None:
            return None
        k = self.witness.knowledge.copy()
        try:
            env = approx_marginals(k)[:, k.ENV]
        except Contradiction:
            return None
        out: dict[str, Any] = {"agent": "deduction", "solved": k.envelope_certain() is not None}
        for kind, lo, hi in (("suspect", 0, WEAPON_BASE), ("weapon", WEAPON_BASE, ROOM_BASE), ("room", ROOM_BASE, N_CARDS)):
            order = sorted(range(lo, hi), key=lambda c: -env[c])[:ACCOUNT_TOP]
            out[kind] = [[CARDS[c], round(float(env[c]), 4)] for c in order if env[c] > 0]
        return out

    def _to_any_room(self, view: SeatView, mask: np.ndarray) -> int:
        """Reach any room as fast as possible (to accuse there)."""
        for a in (CODEC.ROLL, CODEC.STAY, CODEC.PASSAGE):
            if mask[a]:
                return a
        rooms = [r for r in range(N_ROOMS) if mask[CODEC.enter(r)]]
        if rooms:
            return CODEC.enter(rooms[0])
        me = view.my_node
        if mask[CODEC.TOWARD]:
            return CODEC.toward(int(np.argmin(BOARD.dist_to_room[me])))
        return CODEC.END

    def _move_2023(self, view: SeatView, mask: np.ndarray, k, phase: Phase) -> int:
        """R12/R16/R22: after the roll, move up to the sum, stay, take a passage, or end."""
        if phase == Phase.START:
            return CODEC.ROLL
        options = self._options_2023(view, mask, k)
        if not options:
            return CODEC.END
        return max(options, key=lambda o: o[0])[1]

    def _options_2023(self, view: SeatView, mask: np.ndarray, k) -> list[tuple[float, int]]:
        """The 2023 planner's (score, action) options after the roll: each room's value per turn
        of travel (:data:`TURNS_NOW` for a room enterable now, else :data:`TURNS_NEXT` plus the
        squares at :data:`SQUARES_PER_TURN_TWO_DICE` a turn), reached directly or through its
        passage partner (R20), and staying (R22) or the passage from the room it is in."""
        me = view.my_node
        here = me if 0 <= me < N_ROOMS else -1
        value = self._room_values(view, k) + VALUE_FLOOR
        dist = np.array(BOARD.dist_to_room[me], dtype=float)
        turns = TURNS_NEXT + dist / SQUARES_PER_TURN_TWO_DICE  # next turn or later
        now = TURNS_NOW
        options: list[tuple[float, int]] = []
        for r in range(N_ROOMS):
            if mask[CODEC.enter(r)]:
                options.append((value[r] / now, CODEC.enter(r)))
            elif r != here:
                options.append((value[r] / turns[r], CODEC.toward(r) if mask[CODEC.TOWARD] else CODEC.END))
            q = BOARD.passage[r]  # R20: reach r through its passage partner q, one turn later
            if q >= 0 and q != here:
                via = CODEC.enter(q) if mask[CODEC.enter(q)] else (CODEC.toward(q) if mask[CODEC.TOWARD] else -1)
                if via >= 0:
                    t = (now if mask[CODEC.enter(q)] else turns[q]) + 1.0
                    options.append((max(value[r], value[q]) / t, via))
        if mask[CODEC.STAY] and here >= 0:
            options.append((value[here] / now + TIE_NOISE, CODEC.STAY))
        if mask[CODEC.PASSAGE] and here >= 0:
            p = BOARD.passage[here]
            options.append((value[p] / now, CODEC.PASSAGE))
        return options

    def move_scores(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> np.ndarray:
        """Per move action (:data:`MOVE_SCORE_ACTIONS`: ``enter r``, ``toward r``, ``stay``,
        ``passage``), the score its planner gives it at this decision: the best value per turn of
        travel among the options that take that action (``_options_2023``; in classic games the
        roll-aware planner's units, ``plan=roll``; with ``moves=own`` and no ``plan``, those of
        :meth:`_own_classic_scores`), 0 for an action it does not weigh or at a decision
        that is not a move. A roll has no score (the 2023 turn always starts with one, R12; in classic
        games the network weighs rolling, R11, on its own). Feeds the evidence as :meth:`act` does
        and chooses nothing: the ``ppo`` agent reads these as network inputs (``room_values=3``).
        Only the seat's view is read (R31)."""
        view: SeatView = info["seat_view"]
        mask = observation["action_mask"]
        k = self._knowledge(view)
        out = np.zeros(len(MOVE_SCORE_ACTIONS), dtype=np.float32)
        phase = view.phase
        if not view.must_act or phase not in (Phase.START, Phase.MOVE):
            return out
        me = view.my_node
        here = me if 0 <= me < N_ROOMS else -1
        if self.rules.roll_first:
            options = [] if phase == Phase.START else self._options_2023(view, mask, k)
        elif self.moves == "own" and self.plan is None:
            return self._own_classic_scores(view, mask, k, phase, here, me)
        elif phase == Phase.START:
            options = self._options_before_roll(view, mask, k, here, me)
        else:
            options = self._options_after_roll(view, mask, k, here, me)
        for score, action in options:
            i = _MOVE_SCORE_INDEX.get(action)
            if i is not None and score > out[i]:
                out[i] = score
        return out

    def suggest_scores(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> np.ndarray:
        """Per ``suggest s w`` action (``N_SUSPECTS * N_WEAPONS``, in the codec's order), the
        score its planner gives it at a suggestion decision (R26): the suggestion's expected
        information in the room the seat is in, from the deals :meth:`act` draws; zeros at any
        other decision. With ``pull=avoid`` a suggestion that would call an opponent's token into
        the room (R26) scores ``1 - pull_tol`` times that, so a best-scored suggestion is again one
        :meth:`act` may make: it calls an opponent in only when every other suggestion is worth
        ``pull_tol`` less. (``deny`` and the other ``pull`` modes are not in the
        scores: with neither, :meth:`act` suggests a best-scored one.) Feeds the evidence as
        :meth:`act` does and chooses nothing: the ``ppo`` agent reads these as network inputs
        (``room_values=4``). Only the seat's view is read (R31)."""
        view: SeatView = info["seat_view"]
        k = self._knowledge(view)
        if not view.must_act or view.phase != Phase.SUGGEST:
            return np.zeros(N_SUSPECTS * N_WEAPONS, dtype=np.float32)
        room = view.my_node
        g = np.maximum(self._gains(k)[:, :, room], 0.0)
        if self.pull == "avoid":
            g = g * np.where(self._pull_preference(view, room) < 0, 1.0 - self.pull_tol, 1.0)[:, None]
        return g.reshape(-1).astype(np.float32)

    def _room_values(self, view: SeatView, k) -> np.ndarray:
        """What a visit to each room is worth: its best suggestion, plus an unseen face-down card."""
        value = self._gains(k).max(axis=(0, 1)).copy()
        if self._peek > 0 and self.witness is not None:
            for r in view.board_card_rooms:
                if r not in self.witness.peeked_rooms:
                    value[r] += self._peek
        return value

    def _room_scores(self, view: SeatView, k, here: int, me: int) -> np.ndarray:
        value = self._room_values(view, k)
        dist = np.array(BOARD.dist_to_room[me], dtype=float)
        turns = np.maximum(1.0, dist / SQUARES_PER_TURN_ONE_DIE)
        if here >= 0:
            turns[here] = np.inf  # must leave; may not re-enter this turn (R19, R22)
            p = BOARD.passage[here]
            if p >= 0:
                turns[p] = 1.0
        return (value + VALUE_FLOOR) / turns

    def _move(self, view: SeatView, mask: np.ndarray, k, phase: Phase) -> int:
        me = view.my_node
        here = me if 0 <= me < N_ROOMS else -1
        if phase == Phase.START and self.plan == "roll":  # "move": the roll-aware MOVE phase alone
            return self._start_before_roll(view, mask, k, here, me)
        if phase == Phase.START:
            if mask[CODEC.STAY]:
                value = self._gains(k).max(axis=(0, 1))
                scores = self._room_scores(view, k, here, me)
                if value[here] + VALUE_FLOOR >= scores.max() * STAY_TOLERANCE:
                    return CODEC.STAY
            if mask[CODEC.PASSAGE]:
                scores = self._room_scores(view, k, here, me)
                if int(np.argmax(scores)) == BOARD.passage[here]:
                    return CODEC.PASSAGE
            return CODEC.ROLL
        if self.plan in PLAN_MODES:
            return self._move_after_roll(view, mask, k, here, me)
        goal = int(np.argmax(self._goal_scores(view, k, here, me)))
        return CODEC.toward(goal)

    def _goal_scores(self, view: SeatView, k, here: int, me: int) -> np.ndarray:
        """Classic, after the roll, without ``plan``: each room's value per turn of travel from
        where the token stands (:meth:`_room_scores`; the room it left scores 0, R19), its passage
        partner counted by distance since the passage is no longer an option (R20); :meth:`_move`
        heads toward the best."""
        scores = self._room_scores(view, k, here, me)
        if here >= 0 and BOARD.passage[here] >= 0:
            p = BOARD.passage[here]
            scores[p] = (self._gains(k).max(axis=(0, 1))[p] + VALUE_FLOOR) / max(
                1.0, BOARD.dist_to_room[me][p] / SQUARES_PER_TURN_ONE_DIE
            )
        return scores

    def _own_classic_scores(self, view: SeatView, mask: np.ndarray, k, phase: Phase, here: int, me: int) -> np.ndarray:
        """``moves=own``, classic, without ``plan``: :meth:`move_scores` in the units :meth:`_move`
        decides by, so that its best-scored legal action is the one :meth:`act` takes (ties aside).
        At the start of a turn (R11): ``stay`` scores the value of the room it is in (R21), the
        ``passage`` its partner room's value (R20, one turn), and ``toward r`` each room's score by
        rolling and heading there (:meth:`_goal_scores`: the passage partner by its distance too);
        those actions come after the roll, so they only set the best score that staying and the
        passage are measured against, and the worth of rolling (a network with ``roll_scores`` reads
        it so). After the roll, ``toward r`` scores :meth:`_goal_scores` (``toward`` enters a room when
        it is reachable, SPEC), ``enter r`` 0."""
        out = np.zeros(len(MOVE_SCORE_ACTIONS), dtype=np.float32)
        out[N_ROOMS : 2 * N_ROOMS] = self._goal_scores(view, k, here, me)
        if phase == Phase.START:
            if mask[CODEC.STAY] and here >= 0:
                out[_MOVE_SCORE_INDEX[CODEC.STAY]] = self._gains(k).max(axis=(0, 1))[here] + VALUE_FLOOR
            if mask[CODEC.PASSAGE] and here >= 0:
                out[_MOVE_SCORE_INDEX[CODEC.PASSAGE]] = self._room_values(view, k)[BOARD.passage[here]] + VALUE_FLOOR
        return out

    def _start_before_roll(self, view: SeatView, mask: np.ndarray, k, here: int, me: int) -> int:
        """Classic, at the start of a turn (R11): staying (R21) or the secret passage (R20) reach
        a room now; rolling is worth the best room's score after each face of the die, averaged
        (the units of :meth:`_move_after_roll`; tokens in the way are not counted)."""
        options = self._options_before_roll(view, mask, k, here, me)
        if not options:
            return CODEC.END
        return max(options, key=lambda o: o[0])[1]

    def _options_before_roll(self, view: SeatView, mask: np.ndarray, k, here: int, me: int) -> list[tuple[float, int]]:
        value = self._room_values(view, k) + VALUE_FLOOR
        dist = np.array(BOARD.dist_to_room[me], dtype=float)
        if here >= 0:
            dist[here] = np.inf  # R19: not re-entered this turn
        faces = np.arange(1, 7, dtype=float)[:, None]
        left = np.maximum(0.0, dist[None, :] - faces)
        score = np.where(left == 0.0, value / TURNS_NOW, value / (TURNS_NEXT + left / SQUARES_PER_TURN_ONE_DIE))
        options = [(float(score.max(axis=1).mean()), CODEC.ROLL)] if mask[CODEC.ROLL] else []
        if mask[CODEC.STAY] and here >= 0:
            options.append((value[here] / TURNS_NOW, CODEC.STAY))
        if mask[CODEC.PASSAGE] and here >= 0:
            options.append((value[BOARD.passage[here]] / TURNS_NOW, CODEC.PASSAGE))
        return options

    def _move_after_roll(self, view: SeatView, mask: np.ndarray, k, here: int, me: int) -> int:
        """Classic, after the roll (R16-R19): a room enterable now is worth its value per
        :data:`TURNS_NOW`, any other its value per :data:`TURNS_NEXT` plus the squares still left
        after this roll at :data:`SQUARES_PER_TURN_ONE_DIE` a turn (the 2023 planner's units)."""
        best: tuple[float, int] | None = None
        for opt in self._options_after_roll(view, mask, k, here, me):
            if best is None or opt[0] > best[0]:
                best = opt
        return best[1] if best is not None else CODEC.END

    def _options_after_roll(self, view: SeatView, mask: np.ndarray, k, here: int, me: int) -> list[tuple[float, int]]:
        value = self._room_values(view, k) + VALUE_FLOOR
        dist = np.array(BOARD.dist_to_room[me], dtype=float)
        left = np.maximum(0.0, dist - view.roll_total)
        options: list[tuple[float, int]] = []
        for r in range(N_ROOMS):
            if r == here:
                continue
            if mask[CODEC.enter(r)]:
                options.append((value[r] / TURNS_NOW, CODEC.enter(r)))
            elif mask[CODEC.TOWARD + r]:
                options.append((value[r] / (TURNS_NEXT + left[r] / SQUARES_PER_TURN_ONE_DIE), CODEC.toward(r)))
        return options

    def _refute(self, mask: np.ndarray, view: SeatView) -> int:
        cards = [c for c in range(N_CARDS) if mask[CODEC.show(c)]]
        suggester = view.current  # R27: the suggester is the seat whose turn it is
        shown = self.witness.shown_by_me if self.witness else {}
        seen_by_them = [c for c in cards if suggester in shown.get(c, ())]
        if seen_by_them:
            return CODEC.show(seen_by_them[0])
        shown_before = [c for c in cards if c in shown]
        if shown_before:
            return CODEC.show(max(shown_before, key=lambda c: len(shown[c])))
        return CODEC.show(cards[int(self.rng.integers(len(cards)))])


register_agent("deduction", DeductionAgent)
