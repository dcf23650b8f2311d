"""``ppo:PATH``: a trained policy (``ppo`` alone: the policy shipped in ``models/`` for the game's
rules and player count: the network ``clue_ppo.pt`` for classic, ``clue_ppo_2023.pt`` for the 2023
rules with 3-6 players, ``clue_ppo_2p.pt`` for the two-player game, each with its mixed-opponent
accusation head: ``clue_ppo_mixed.pt``, ``clue_ppo_2023_mixed.pt``, ``clue_ppo_2p_mixed.pt``; with 3 or 4
classic players ``clue_ppo_3p_mixed.pt`` or ``clue_ppo_4p_mixed.pt``, a bag of two heads with the 3-player network
``clue_ppo_3p.pt`` or the 4-player network ``clue_ppo_4p.pt``, which reads a ``deduction:tells=0.35`` planner).

A policy file may also hold an accusation head (:mod:`clue_env.training.accusation_net`):
then at every decision where an accusation is legal and the network's own choice is not one, the
head decides from the seat's view whether accusing its best triple now is worth more than
waiting, and which legal triple to accuse (a hierarchical policy: both parts are learned).

A network that reads the planner's room values (``room_values`` in its sizes, see
:mod:`clue_env.training.network`) gets them, and with ``room_values=3`` the planner's score of each
move action too, and with ``room_values=4`` its score of each suggestion as well, from a
``deduction`` planner of the agent's own seat, fed the same observations and info (R31) and seeded
from the agent's seed; the planner chooses nothing, the network makes every decision. A policy file
whose ``meta`` has ``"planner": {"tells": LR}`` gets a ``deduction:tells=LR`` planner, and with
``"pull": "avoid"`` too a ``deduction:tells=LR,pull=avoid`` one, and with ``"shows": "repeat"`` a planner
whose information estimate expects a refuter to show again what it has shown the seat, with ``"samples": N``
one that draws N deals, and with ``"moves": "own"`` one whose classic move scores are in the units of its
own movement (the only planner parameters a file may set; anything else is refused with a
:class:`CheckpointError`).

The agent keeps its seat's policy features (:class:`clue_env.training.features.SeatFeatures`)
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

CODEC = default_codec()
#: the planner's move scores a ``room_values=3`` network reads (``clue_env.training.network.MOVE_SCORES``;
#: kept here so that this module imports torch only when an agent is made)
MOVE_SCORES = 2 * N_ROOMS + 2
#: the policy's top actions in an account of a decision (replays)
ACCOUNT_TOP = 3

#: the policies shipped with the project
MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models")
#: the shipped policy for 3-6 players (trained on classic; configs/train/shipped.yaml + finetune.yaml)
SHIPPED_POLICY = os.path.join(MODELS, "clue_ppo.pt")
#: the shipped policy for the two-player game (trained on 2023 rules, R30; configs/train/two_player_big.yaml, two
#: DAgger-on-moves passes, then widened to read its planner's room values, move scores and suggestion scores:
#: benchmarks/room_value_probe.py --mode 2, 3 and 4; its files name a ``deduction:tells=0.35`` planner)
SHIPPED_POLICY_2P = os.path.join(MODELS, "clue_ppo_2p.pt")
#: the shipped policy for the 2023 rules with 3-6 players (configs/train/edition2023.yaml)
SHIPPED_POLICY_2023 = os.path.join(MODELS, "clue_ppo_2023.pt")
#: the classic network with its accusation head fitted against mixed opponents (feature set 3,
#: configs/train/accusation_classic_mixed_v3_all.yaml): what ``ppo`` plays in classic games with 3-6 players
SHIPPED_POLICY_MIXED = os.path.join(MODELS, "clue_ppo_mixed.pt")
#: the 2023 network (3-6 players) with its mixed-opponent head (configs/train/accusation_2023_mixed_v3_all.yaml)
SHIPPED_POLICY_2023_MIXED = os.path.join(MODELS, "clue_ppo_2023_mixed.pt")
#: the two-player network with its mixed-opponent head of feature set 5 (each opponent's simulated progress,
#: configs/train/accusation_2p_mixed_v5_dd.yaml)
SHIPPED_POLICY_2P_MIXED = os.path.join(MODELS, "clue_ppo_2p_mixed.pt")
#: the 4-player network ``clue_ppo_4p.pt`` (the classic network widened to read a ``deduction:tells=0.35``
#: planner's room values, move scores and suggestion scores: benchmarks/room_value_probe.py --mode 3, then
#: --mode 4, since 2026-12-07) with a bag of two accusation heads (the mixed head above and a 4-player head of
#: feature set 5, configs/train/accusation_classic_4p_v5.yaml; ``python -m clue_env.training.combine --head
#: A,B``): it accuses where the mean of the two heads' stop-minus-wait logits is above zero. What ``ppo`` plays
#: in 4-player classic games
SHIPPED_POLICY_4P_MIXED = os.path.join(MODELS, "clue_ppo_4p_mixed.pt")
#: the classic network after two PPO stages against 2 ``deduction`` in 3-player games
#: (configs/train/finetune_3p.yaml from :data:`SHIPPED_POLICY`, then finetune_3p_b.yaml); what ``ppo`` plays with
#: 3 classic players
SHIPPED_NETWORK_3P = os.path.join(MODELS, "clue_ppo_3p.pt")
#: the classic network widened to read a ``deduction:tells=0.35`` planner (see :data:`SHIPPED_POLICY_4P_MIXED`,
#: which plays it with 4 classic players)
SHIPPED_NETWORK_4P = os.path.join(MODELS, "clue_ppo_4p.pt")
#: that 3-player network with the same bag of two heads as with 4 players, but its set-5 head fitted on 12,000
#: recorded 3-player games (configs/train/accusation_classic_3p_v5_12k.yaml). What ``ppo`` plays in 3-player
#: classic games
SHIPPED_POLICY_3P_MIXED = os.path.join(MODELS, "clue_ppo_3p_mixed.pt")
#: the file ``ppo`` plays for a shipped network with a given number of players, where it is not the
#: network's file in :data:`PLAY_POLICIES`
PLAY_POLICIES_BY_PLAYERS = {
    (SHIPPED_POLICY, 3): SHIPPED_POLICY_3P_MIXED,
    (SHIPPED_POLICY, 4): SHIPPED_POLICY_4P_MIXED,
}
#: the file ``ppo`` plays for each shipped network
PLAY_POLICIES = {
    SHIPPED_POLICY: SHIPPED_POLICY_MIXED,
    SHIPPED_POLICY_2023: SHIPPED_POLICY_2023_MIXED,
    SHIPPED_POLICY_2P: SHIPPED_POLICY_2P_MIXED,
}
#: every network file shipped in ``models/``; the other files there name one of them (policy format version 2)
NETWORK_FILES = (SHIPPED_POLICY, SHIPPED_POLICY_2023, SHIPPED_POLICY_2P, SHIPPED_NETWORK_3P, SHIPPED_NETWORK_4P)
#: the same networks with their accusation heads (configs/train/accusation_*.yaml): the ``ppo_accuse`` spec
ACCUSE_POLICIES = {
    SHIPPED_POLICY: os.path.join(MODELS, "clue_ppo_accuse.pt"),
    SHIPPED_POLICY_2023: os.path.join(MODELS, "clue_ppo_2023_accuse.pt"),
    SHIPPED_POLICY_2P: os.path.join(MODELS, "clue_ppo_2p_accuse.pt"),
}


def shipped_policy(num_players: int, rules: Any = "classic", accuse: bool = False) -> str:
    """The policy file ``ppo`` (no path) plays with ``num_players`` players under ``rules``
    (a ruleset name or config): the two-player file for 2 players, the 2023 file for a ruleset
    whose turn starts with a roll (R12: the 2023 turn structure), else the classic file; each
    network with its mixed-opponent accusation head; ``accuse``: the network with
    its head fitted against ``deduction`` (``ppo_accuse``)."""
    if num_players == 2:
        path = SHIPPED_POLICY_2P
    else:
        roll_first = rules.roll_first if hasattr(rules, "roll_first") else str(rules) == "edition2023"
        path = SHIPPED_POLICY_2023 if roll_first else SHIPPED_POLICY
    if accuse:
        return ACCUSE_POLICIES[path]
    return PLAY_POLICIES_BY_PLAYERS.get((path, num_players)) or PLAY_POLICIES.get(path, path)


_NETS: dict[Any, Any] = {}


def _net(path: str) -> Any:
    """The network in ``path``, loaded once per process (and again when the file changes)."""
    return _load(path)[0]


def planner_kwargs(meta: dict[str, Any], path: str) -> dict[str, Any]:
    """The ``deduction`` planner's parameters from a policy file's ``meta`` (``{}``: the default
    planner); a :class:`CheckpointError` naming the file for anything else
    (:func:`clue_env.training.checkpoint.check_planner`)."""
    from clue_env.training.checkpoint import CheckpointError, check_planner

    try:
        return check_planner(meta.get("planner", {}))
    except ValueError as e:
        raise CheckpointError(f"{path!r}: meta['planner'] {e}") from None


def _load(path: str) -> tuple[Any, Any, dict[str, Any]]:
    """(network, accusation head or None, planner parameters) in ``path``, loaded once per process.
    A path that is missing or not a regular file (a directory, a FIFO, a device) is refused by
    :func:`~clue_env.training.checkpoint.load_policy` with a :class:`CheckpointError` saying so."""
    try:
        st = os.stat(path)
        key: Any = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
    except OSError:
        key = os.path.abspath(path)  # load_policy reports the missing file
    if key not in _NETS:
        from clue_env.training.checkpoint import load_accusation, load_policy

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
        from clue_env.training.features import POLICY_LAYOUT, SeatFeatures

        self._torch = torch
        torch.set_num_threads(1)  # batch-1 inference: one thread is fastest and leaves the other core free
        from clue_env.engine.config import load_rules

        cfg = rules if hasattr(rules, "roll_first") else load_rules(rules)
        self.path = path or shipped_policy(num_players, cfg, accuse=accuse)
        if not path and net is None and not os.path.isfile(self.path):
            from clue_env.training.checkpoint import CheckpointError

            raise CheckpointError(
                f"the shipped policy file {self.path!r} is missing: in a clone, restore it (git checkout -- models/); "
                "an installed clue-env ships it (reinstall it); or name a policy file of your own: ppo:PATH"
            )
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
            from clue_env.training.features import policy_observation

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
        from clue_env.training.accusation import FEATURE_SETS, RaceTracker, head_inputs
        from clue_env.training.features import BASE_SIZE

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
