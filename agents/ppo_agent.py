"""``ppo:PATH``: a trained policy. ``ppo`` alone plays the file ``models/manifest.yaml`` names for the
game's rules and player count, and ``ppo_accuse`` the file it names for that spec
(:mod:`agents.manifest`, which checks the file against its recorded SHA-256).

A policy file may also hold an accusation head (:mod:`clue_env.policy.accusation_net`):
then at every decision where an accusation is legal and the network's own choice is not one, the
head decides from the seat's view whether accusing its best triple now is worth more than
waiting, and which legal triple to accuse (a hierarchical policy: both parts are learned).

A network that reads the planner's room values (``room_values`` in its sizes, see
:mod:`clue_env.policy.network`) gets them, and with ``room_values=3`` the planner's score of each
move action too, and with ``room_values=4`` its score of each suggestion as well, from a
``deduction`` planner of the agent's own seat, fed the same observations and info (R31) and seeded
from the agent's seed; the planner chooses nothing, the network makes every decision. A policy file
whose ``meta`` has ``"planner": {"tells": LR}`` gets a ``deduction:tells=LR`` planner, and with
``"pull": "avoid"`` too a ``deduction:tells=LR,pull=avoid`` one, and with ``"shows": "repeat"`` a planner
whose information estimate expects a refuter to show again what it has shown the seat, with ``"samples": N``
one that draws N deals, and with ``"moves": "own"`` one whose classic move scores are in the units of its
own movement (the only planner parameters a file may set; anything else is refused with a
:class:`CheckpointError`).

The agent keeps its seat's policy features (:class:`clue_env.policy.features.SeatFeatures`)
from the observation and ``info["seat_view"].events`` it is handed, exactly as in training, and plays the
network's most probable legal action, so its play is deterministic given the game. Needs the
``train`` extra (torch).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from clue_env.codec import default_codec
from clue_env.engine.cards import N_ROOMS

from . import register_agent
from .base import Agent
from .manifest import MODELS, ruleset, shipped_file

CODEC = default_codec()
#: the planner's move scores a ``room_values=3`` network reads (``clue_env.policy.network.MOVE_SCORES``;
#: kept here so that this module imports torch only when an agent is made)
MOVE_SCORES = 2 * N_ROOMS + 2
#: the policy's top actions in an account of a decision (replays)
ACCOUNT_TOP = 3


def shipped_policy(num_players: int, rules: Any = "classic", accuse: bool = False) -> str:
    """The checked path of the policy file ``ppo`` (no path) plays with ``num_players`` players under
    ``rules`` (a ruleset name or config), or ``ppo_accuse`` with ``accuse``: the file
    ``models/manifest.yaml`` names for that configuration (:func:`agents.manifest.shipped_file`; a
    ruleset whose turn starts with the roll, R12, counts as ``edition2023``, any other as ``classic``)."""
    return shipped_file("ppo_accuse" if accuse else "ppo", num_players, rules)


def shipped_note(spec: str, num_players: int, rules: Any = "classic") -> str | None:
    """For the specs ``ppo`` and ``ppo_accuse`` (no path), a line saying which file they play with
    ``num_players`` players under ``rules`` (``models/manifest.yaml``), and, when that file has an
    accusation head, a second line saying why some of its accusations are wrong; ``None`` for any
    other spec."""
    if spec not in ("ppo", "ppo_accuse"):
        return None
    from clue_env.policy.checkpoint import read_raw_policy_file

    path = shipped_policy(num_players, rules, accuse=spec == "ppo_accuse")
    name = os.path.relpath(path, os.path.dirname(MODELS))
    line = f"{spec} played {name}, the file models/manifest.yaml names for {ruleset(rules)} with {num_players} players."
    if read_raw_policy_file(path)[0].get("accusation") is not None:
        line += "\nIts accusation head accuses before proof when the odds favour it, so some of its accusations are wrong."
    return line


_NETS: dict[Any, Any] = {}


def _net(path: str) -> Any:
    """The network in ``path``, loaded once per process (and again when the file changes)."""
    return _load(path)[0]


def planner_kwargs(meta: dict[str, Any], path: str) -> dict[str, Any]:
    """The ``deduction`` planner's parameters from a policy file's ``meta`` (``{}``: the default
    planner); a :class:`CheckpointError` naming the file for anything else
    (:func:`clue_env.policy.checkpoint.check_planner`)."""
    from clue_env.policy.checkpoint import CheckpointError, check_planner

    try:
        return check_planner(meta.get("planner", {}))
    except ValueError as e:
        raise CheckpointError(f"{path!r}: meta['planner'] {e}") from None


def _load(path: str) -> tuple[Any, Any, dict[str, Any]]:
    """(network, accusation head or None, planner parameters) in ``path``, loaded once per process.
    A path that is missing or not a regular file (a directory, a FIFO, a device) is refused by
    :func:`~clue_env.policy.checkpoint.load_policy` with a :class:`CheckpointError` saying so."""
    try:
        st = os.stat(path)
        key: Any = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
    except OSError:
        key = os.path.abspath(path)  # load_policy reports the missing file
    if key not in _NETS:
        from clue_env.policy.checkpoint import load_accusation, load_policy

        net, meta = load_policy(path)
        _NETS[key] = (net, load_accusation(path), planner_kwargs(meta, path))
    return _NETS[key]


class PPOAgent(Agent):
    def __init__(
        self,
        seat: int,
        num_players: int,
        rules: Any = "classic",
        seed: int | None = None,
        path: str = "",
        net: Any = None,
        accusation: Any = None,
        accuse: bool = False,
        planner: dict[str, Any] | None = None,
    ) -> None:
        try:
            import torch
        except ModuleNotFoundError:
            raise ValueError("the ppo agent needs torch: pip install -e '.[train]'") from None
        from clue_env.policy.features import POLICY_LAYOUT, SeatFeatures

        self._torch = torch
        torch.set_num_threads(1)  # batch-1 inference: one thread is fastest and leaves the other core free
        from clue_env.engine.config import load_rules

        cfg = rules if hasattr(rules, "roll_first") else load_rules(rules)
        self.path = path or shipped_policy(num_players, cfg, accuse=accuse)
        if net is not None:
            self.net, self.accusation = net, accusation
            planner = planner_kwargs({"planner": planner or {}}, "the planner argument")
        else:
            self.net, self.accusation, planner = _load(self.path)
        self.features = SeatFeatures(seat, num_players)
        self._size = POLICY_LAYOUT.size
        self._rooms = int(getattr(self.net, "room_values", 0))
        self._buf = np.zeros(int(getattr(self.net, "input_size", self._size)), dtype=np.float32)
        super().__init__(seat, num_players, rules, seed)
        #: the room values' source for a network that reads them (a planner that chooses nothing)
        self.planner: Any = None
        if self._rooms:
            from .deduction import DeductionAgent

            planner_seed = seed + 1 if seed is not None else int(self.rng.integers(2**31))
            self.planner = DeductionAgent(seat, num_players, cfg, seed=planner_seed, **planner)

    def reset(self) -> None:
        self.features.reset()
        if getattr(self, "planner", None) is not None:
            self.planner.reset()
        #: made at the first accusation opportunity (feature set 2 needs the seat's hand)
        self.race: Any = None
        self._explained: tuple[np.ndarray, Any, np.ndarray] | None = None
        #: the accusation head's last reading: (q_stop, q_wait, triple) or None (for replays and studies)
        self.last_accusation: tuple[float, float, tuple[int, ...] | None] | None = None

    def policy_input(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> np.ndarray:
        obs = observation["observation"]
        if obs.shape[0] == self._size and not self._rooms:  # already a policy observation (training adapter)
            return obs
        if obs.shape[0] == self._size:
            self._buf[: self._size] = obs
        else:
            from clue_env.policy.features import policy_observation

            f = self.features.update(obs, info["seat_view"].events)
            policy_observation(obs, f, self._buf[: self._size])
        if self._rooms:
            self._buf[self._size : self._size + N_ROOMS] = self.planner.room_values(info)
        if self._rooms >= 3:
            lo = self._size + N_ROOMS
            self._buf[lo : lo + MOVE_SCORES] = self.planner.move_scores(observation, info)
        if self._rooms == 4:
            self._buf[self._size + N_ROOMS + MOVE_SCORES :] = self.planner.suggest_scores(observation, info)
        return self._buf

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        x = self.policy_input(observation, info)
        mask = observation["action_mask"]
        torch = self._torch
        with torch.inference_mode():
            logits, h = self.net(torch.from_numpy(x).unsqueeze(0))
        if self.explain:  # kept for account(); the value head runs only then
            self._explained = (logits[0].numpy().copy(), h, np.flatnonzero(mask))
            self.last_accusation = None
        logits = logits[0].numpy()
        legal = np.flatnonzero(mask)
        action = int(legal[int(np.argmax(logits[legal]))])
        if (
            self.accusation is not None
            and not CODEC.ACCUSE <= action < CODEC.accuse_slice.stop
            and mask[CODEC.accuse_slice].any()
        ):
            early = self._accusation(observation, info)
            if early is not None:
                return early
        return action

    def account(self) -> dict[str, Any] | None:
        """Its last decision: the policy's top :data:`ACCOUNT_TOP` legal actions with their
        probabilities (softmax over the legal actions), its value estimate, and the accusation
        head's reading when it was consulted (only while :attr:`explain` is set)."""
        kept = getattr(self, "_explained", None)
        if kept is None:
            return None
        logits, h, legal = kept
        z = logits[legal] - logits[legal].max()
        p = np.exp(z) / np.exp(z).sum()
        order = np.argsort(-p, kind="stable")[:ACCOUNT_TOP]
        head = getattr(self.net, "value_head", None)
        value = None
        if head is not None:
            with self._torch.inference_mode():
                value = round(float(head(h).reshape(-1)[0]), 4)
        out: dict[str, Any] = {
            "agent": "ppo",
            "top": [[CODEC.to_text(int(legal[i])), round(float(p[i]), 4)] for j, i in enumerate(order) if j == 0 or p[i] >= 1e-3],
            "value": value,
        }
        if self.last_accusation is not None:
            q_stop, q_wait, triple = self.last_accusation
            out["accusation_head"] = {"q_stop": round(q_stop, 4), "q_wait": round(q_wait, 4), "accuses": triple is not None}
        return out

    def _accusation(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int | None:
        """The accusation head's choice: a legal accusation now, or ``None`` to wait."""
        from clue_env.engine.cards import ROOM_BASE, WEAPON_BASE
        from clue_env.engine.game import Phase
        from clue_env.policy.accusation import FEATURE_SETS, RaceTracker, head_inputs
        from clue_env.policy.features import BASE_SIZE

        torch = self._torch
        view = info["seat_view"]
        f = self.features.update(observation["observation"][:BASE_SIZE], view.events)
        k = self.features.knowledge
        if k is None:
            return None
        if self.race is None:
            self.race = RaceTracker(self.num_players, self.seat, view.hand)
        self.race.feed(view.events)
        features = FEATURE_SETS[self.accusation.inputs]  # the head's own set
        h = head_inputs(
            k, self.race, self.seat, f, view.turn, view.phase == Phase.START, self.num_players, features, self.rng, view.events
        )
        top = h.top
        with torch.inference_mode():
            q_stop, q_wait = self.accusation.q_values(torch.from_numpy(h.x).unsqueeze(0))
            scores = self.accusation.triple_scores(torch.from_numpy(h.triples)).numpy() if top else None
        self.last_accusation = (float(q_stop[0]), float(q_wait[0]), None)
        if scores is None or not float(q_stop[0]) > float(q_wait[0]):
            return None
        mask = observation["action_mask"]
        best: tuple[float, int, tuple[int, ...]] | None = None
        for (t, _p), score in zip(top, scores):
            s, w, r = sorted(t)
            a = CODEC.accuse(s, w - WEAPON_BASE, r - ROOM_BASE)
            if mask[a] and (best is None or score > best[0]):
                best = (float(score), a, t)
        if best is None:
            return None
        self.last_accusation = (float(q_stop[0]), float(q_wait[0]), best[2])
        return best[1]


def _make(seat: int, num_players: int, rules: Any = "classic", seed: int | None = None, path: str = "", **kw: Any) -> PPOAgent:
    return PPOAgent(seat, num_players, rules, seed, path=path, **kw)


def _make_accuse(seat: int, num_players: int, rules: Any = "classic", seed: int | None = None) -> PPOAgent:
    return PPOAgent(seat, num_players, rules, seed, accuse=True)


register_agent("ppo", _make)
#: the shipped networks with their accusation heads: stronger than ``deduction`` against
#: ``deduction``, but fitted against ``deduction`` opponents only (it accuses too early against weak ones)
register_agent("ppo_accuse", _make_accuse)
