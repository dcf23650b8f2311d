"""The policy network: action scores built from per-card and per-room terms.

Each of the env's 591 actions gets a logit (the action mask decides what is legal), by its kind in
the action layout (``python -m clue_env actions``):

* a **context** vector ``h`` from the whole policy observation (an MLP);
* an **embedding per card** ``e_c`` from that card's own features (``belief``, in my hand, shown to
  me, proved, named this turn, a room's distance) joined with ``h``;
* ``suggest s w`` = ``u(e_s) + v(e_w) + p(e_s, e_w, e_here)`` (``e_here``: the room I am in);
  ``accuse s w r`` = ``a(e_s) + a(e_w) + a(e_r) + g(h)``, so "accuse the most likely triple once it
  is proved" is one easy function; ``show c`` = ``b(e_c)``; ``enter r``, ``toward r`` from the room
  card's embedding; ``roll``, ``passage``, ``stay``, ``end``, the 188 ``move`` squares and the value
  estimate from ``h``.

A network may also read a move planner's scores (``DeductionAgent``, R30-R31), each mode adding on:

* ``room_values=1``: per room card, the planner's value of a visit (one more card input);
* ``room_values=2``: a learned multiple of ``log(value + ROOM_VALUE_FLOOR)`` added to ``enter r``,
  ``toward r``, ``stay`` and ``passage`` (four scalars): the planner heads for the room worth most
  per turn, a ratio that is a difference of logs;
* ``room_values=3``: each move's score (:data:`MOVE_SCORES`), as a learned multiple of its log less
  the best move's, so the term ranks the moves as the planner does however large the scalars grow.
  ``floor_squares`` scores the square moves (never scored by the planner) at the floor, not 0, which
  would put them above every scored move but the best; ``roll_scores`` scores the roll as its best
  ``toward`` score. Both are off by default;
* ``room_values=4``: likewise each suggestion's score (:data:`SUGGEST_SCORES`).

:func:`widen_for_room_values`, :func:`add_move_scores` and :func:`add_suggest_scores` turn a network
into the next mode computing the same function until the new weights move; how far it follows the
planner is what it learns. Pure torch (no SB3): the ``ppo`` agent loads it alone; SB3's policy wraps it.
"""

from __future__ import annotations

import math
from typing import Any, cast

import torch
from torch import nn

from ..codec import default_codec
from ..engine.board import classic_board
from ..engine.cards import N_CARDS, N_ROOMS, N_SUSPECTS, N_WEAPONS, ROOM_BASE, WEAPON_BASE
from ..observation import MAX_SEATS
from .features import POLICY_LAYOUT

#: added to a room value before its log is taken (``room_values=2``)
ROOM_VALUE_FLOOR = 1e-2
#: the planner's move scores a ``room_values=3`` network reads: ``enter r`` (9), ``toward r`` (9), ``stay``, ``passage``
MOVE_SCORES = 2 * N_ROOMS + 2
#: added to a move score before its log is taken (``room_values=3``; an action the planner does not weigh scores 0)
MOVE_SCORE_FLOOR = 1e-3
#: the planner's suggestion scores a ``room_values=4`` network reads (one per ``suggest s w``)
SUGGEST_SCORES = N_SUSPECTS * N_WEAPONS
#: added to a suggestion score before its log is taken (``room_values=4``)
SUGGEST_SCORE_FLOOR = 1e-3
#: per-card input features (see :meth:`CluePolicyNet.card_features`)
CARD_FEATURES = (MAX_SEATS + 2) + 11 + 3 + N_CARDS


def _mlp(sizes: list[int]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers)


class CluePolicyNet(nn.Module):
    """Observation (B, :attr:`input_size`) -> (action logits (B, 591), context (B, hidden)).

    :attr:`input_size` is ``POLICY_LAYOUT.size``, plus ``N_ROOMS`` room values when ``room_values``,
    plus :data:`MOVE_SCORES` move scores when ``room_values`` is 3 or more, plus
    :data:`SUGGEST_SCORES` suggestion scores when ``room_values=4``."""

    # index tables and constants (registered buffers)
    sug_s: torch.Tensor
    sug_w: torch.Tensor
    acc_s: torch.Tensor
    acc_w: torch.Tensor
    acc_r: torch.Tensor
    passage: torch.Tensor
    kind: torch.Tensor

    def __init__(
        self,
        hidden: int = 256,
        card_hidden: int = 64,
        context_to_card: int = 64,
        room_values: int = 0,
        floor_squares: bool = False,
        roll_scores: bool = False,
    ) -> None:
        super().__init__()
        if room_values not in (0, 1, 2, 3, 4):
            raise ValueError(f"room_values must be 0, 1, 2, 3 or 4, got {room_values!r}")
        if not isinstance(floor_squares, bool) or (floor_squares and room_values < 3):
            raise ValueError(f"floor_squares (a bool) needs the move scores of room_values 3 or 4, got {floor_squares!r}")
        #: score the square moves at the floor in the move-score term (see the module docstring)
        self.floor_squares = bool(floor_squares)
        if not isinstance(roll_scores, bool) or (roll_scores and room_values < 3):
            raise ValueError(f"roll_scores (a bool) needs the move scores of room_values 3 or 4, got {roll_scores!r}")
        #: score the roll as its best ``toward`` score in the move-score term (see the module docstring)
        self.roll_scores = bool(roll_scores)
        self.hidden, self.card_hidden, self.context_to_card = hidden, card_hidden, context_to_card
        self.room_values = int(room_values)
        L = POLICY_LAYOUT
        codec = default_codec()
        self.n_actions = codec.n
        self.obs_size = L.size
        #: the width of the network's input: the policy observation, then the room values if any, then the move scores
        self.input_size = (
            L.size
            + (N_ROOMS if self.room_values else 0)
            + (MOVE_SCORES if self.room_values >= 3 else 0)
            + (SUGGEST_SCORES if self.room_values == 4 else 0)
        )
        self.context = _mlp([L.size, hidden, hidden])
        self.to_card = nn.Linear(hidden, context_to_card)
        self.card = _mlp([CARD_FEATURES + (1 if self.room_values else 0) + context_to_card, card_hidden, card_hidden])
        if self.room_values >= 2:
            #: per kind of action (enter, toward, stay, passage): the weight of log(room value) in its logit
            self.rv_logit = nn.Parameter(torch.zeros(4))
        if self.room_values >= 3:
            #: per kind of action (enter, toward, stay, passage): the weight of log(planner's move score) in its logit
            self.ms_logit = nn.Parameter(torch.zeros(4))
        if self.room_values == 4:
            #: the weight of log(planner's suggestion score) in each suggestion's logit
            self.ss_logit = nn.Parameter(torch.zeros(1))
        self.card_heads = nn.Linear(card_hidden, 6)  # suggest, accuse, show, enter, toward, (spare)
        self.flat_head = nn.Linear(hidden, 4 + codec.size["move"])  # roll passage stay end, move squares
        self._n_move = codec.size["move"]
        self._n_flat = 4 + codec.size["move"]  # roll passage stay end, then the move squares
        self.accuse_gate = nn.Linear(hidden, 1)
        #: suggest s w: a joint term from (e_s, e_w, e_room I am in): who would refute depends on all three
        self.pair = nn.Sequential(nn.Linear(3 * card_hidden, card_hidden), nn.ReLU(), nn.Linear(card_hidden, 1))
        self.value_head = nn.Linear(hidden, 1)
        # index tables
        s = torch.arange(N_SUSPECTS).repeat_interleave(N_WEAPONS)
        w = torch.arange(N_WEAPONS).repeat(N_SUSPECTS)
        self.register_buffer("sug_s", s, persistent=False)
        self.register_buffer("sug_w", WEAPON_BASE + w, persistent=False)
        ns, nw, nr = N_SUSPECTS, N_WEAPONS, N_ROOMS
        a = torch.arange(ns * nw * nr)
        self.register_buffer("acc_s", a // (nw * nr), persistent=False)
        self.register_buffer("acc_w", WEAPON_BASE + (a // nr) % nw, persistent=False)
        self.register_buffer("acc_r", ROOM_BASE + a % nr, persistent=False)
        assert codec.ROLL == 0 and codec.PASSAGE == 1 and codec.STAY == 2 and codec.END == 3 and codec.MOVE == 4
        assert codec.ENTER == codec.MOVE + codec.size["move"] and codec.TOWARD == codec.ENTER + N_ROOMS
        assert codec.SUGGEST == codec.TOWARD + N_ROOMS and codec.SHOW == codec.SUGGEST + ns * nw
        assert codec.ACCUSE == codec.SHOW + N_CARDS and codec.n == codec.ACCUSE + ns * nw * nr
        board = classic_board()
        passage = torch.zeros(N_ROOMS, N_ROOMS)
        for r, q in enumerate(board.passage):
            if q >= 0:
                passage[r, q] = 1.0
        self.register_buffer("passage", passage, persistent=False)
        kind = torch.zeros(1, N_CARDS, 3)
        kind[0, :WEAPON_BASE, 0] = 1
        kind[0, WEAPON_BASE:ROOM_BASE, 1] = 1
        kind[0, ROOM_BASE:, 2] = 1
        self.register_buffer("kind", kind, persistent=False)
        self._sl = {name: L.slice(name) for name, _s, _d in L.pieces}

    def piece(self, x: torch.Tensor, name: str) -> torch.Tensor:
        return x[:, self._sl[name]].reshape(x.shape[0], *POLICY_LAYOUT.shape[name])

    def card_features(self, x: torch.Tensor) -> torch.Tensor:
        """(B, 21, CARD_FEATURES): per-card inputs (the last 21 columns are the card's one-hot identity)."""
        B = x.shape[0]
        ident = torch.eye(N_CARDS, device=x.device, dtype=x.dtype).expand(B, N_CARDS, N_CARDS)
        return torch.cat([self._card_inputs(x), ident], dim=-1)

    def _card_inputs(self, x: torch.Tensor) -> torch.Tensor:
        """(B, 21, CARD_FEATURES - 21): :meth:`card_features` without the identity columns."""
        B = x.shape[0]
        p = self.piece
        belief = p(x, "belief")  # (B, 21, 8)
        hand = p(x, "hand").unsqueeze(-1)
        shown = p(x, "shown_to_me").amax(dim=1).unsqueeze(-1)
        i_showed = p(x, "i_showed").amax(dim=1).unsqueeze(-1)
        solution = p(x, "solution")[:, :N_CARDS].unsqueeze(-1)
        revealed = p(x, "revealed").amax(dim=2).unsqueeze(-1)
        seen_board = p(x, "board_seen").unsqueeze(-1)
        sug = p(x, "suggestion")[:, MAX_SEATS:].unsqueeze(-1)  # this turn's named cards (21)
        dist = p(x, "my_room_dist")  # (B, 9)
        inside = (dist == 0).to(x.dtype) * (p(x, "seat_present")[:, :1] > 0).to(x.dtype)
        rooms = torch.stack([dist, inside, inside @ self.passage, p(x, "board_rooms")], dim=-1)  # (B, 9, 4)
        rooms = torch.cat([rooms.new_zeros(B, ROOM_BASE, 4), rooms], dim=1)  # (B, 21, 4): zero for non-rooms
        kind = self.kind.expand(B, N_CARDS, 3)
        parts = [belief, hand, shown, i_showed, solution, revealed, seen_board, sug, rooms, kind]
        if self.room_values:
            rv = x[:, self.obs_size : self.obs_size + N_ROOMS]
            parts.append(torch.cat([rv.new_zeros(B, ROOM_BASE), rv], dim=1).unsqueeze(-1))
        return torch.cat(parts, dim=-1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        B = x.shape[0]
        h = self.context(x[:, : self.obs_size])
        # The card MLP's first layer on [card inputs, one-hot identity, to_card(h)], split by column
        # blocks: the identity block is a per-card bias and the context block is shared by all 21
        # cards, so neither is multiplied 21 times (same function and parameters as the concatenation).
        first = cast(nn.Linear, self.card[0])
        nf = first.in_features - N_CARDS - self.context_to_card  # the card inputs before the identity columns
        w_in, w_id, w_ctx = first.weight[:, :nf], first.weight[:, nf : nf + N_CARDS], first.weight[:, nf + N_CARDS :]
        pre = nn.functional.linear(self._card_inputs(x), w_in, first.bias) + w_id.t()
        pre = pre + nn.functional.linear(self.to_card(h), w_ctx).unsqueeze(1)
        e = self.card[3](self.card[2](self.card[1](pre)))  # ReLU, Linear, ReLU
        heads = self.card_heads(e)  # (B, 21, 6)
        sug, acc, show, enter, toward = (heads[..., i] for i in range(5))
        flat = self.flat_head(h)
        here = self.piece(x, "my_room_dist") == 0  # (B, 9): the room I am in (suggestions are made there)
        e_here = (here.to(e.dtype).unsqueeze(-1) * e[:, ROOM_BASE:]).sum(dim=1)  # (B, card_hidden)
        # pair(e_s, e_w, e_here) for the 6 x 6 (suspect, weapon) grid, its first layer split the same way
        p0, ch = cast(nn.Linear, self.pair[0]), self.card_hidden
        ps = nn.functional.linear(e[:, :N_SUSPECTS], p0.weight[:, :ch])  # (B, 6, ch)
        pw = nn.functional.linear(e[:, WEAPON_BASE:ROOM_BASE], p0.weight[:, ch : 2 * ch])  # (B, 6, ch)
        ph = nn.functional.linear(e_here, p0.weight[:, 2 * ch :], p0.bias)  # (B, ch)
        pre_pair = ps.unsqueeze(2) + pw.unsqueeze(1) + ph[:, None, None, :]  # (B, 6, 6, ch), row s, column w
        pair = self.pair[2](self.pair[1](pre_pair)).reshape(B, N_SUSPECTS * N_WEAPONS)
        suggest = sug[:, self.sug_s] + sug[:, self.sug_w] + pair
        accuse = acc[:, self.acc_s] + acc[:, self.acc_w] + acc[:, self.acc_r] + self.accuse_gate(h)
        logits = torch.cat([flat, enter[:, ROOM_BASE:], toward[:, ROOM_BASE:], suggest, show, accuse], dim=1)
        if self.room_values >= 2:
            logits = logits + self._room_value_logits(x)
        return logits, h

    def _room_value_logits(self, x: torch.Tensor) -> torch.Tensor:
        """(B, 591): ``room_values=2``'s direct terms (zero outside the four kinds of move action)."""
        B = x.shape[0]
        lv = torch.log(x[:, self.obs_size : self.obs_size + N_ROOMS].clamp(min=0.0) + ROOM_VALUE_FLOOR)  # (B, 9)
        here = (self.piece(x, "my_room_dist") == 0).to(x.dtype)  # (B, 9)
        a = self.rv_logit
        stay = (here * lv).sum(dim=1, keepdim=True)
        passage = ((here @ self.passage) * lv).sum(dim=1, keepdim=True)
        zeros = x.new_zeros(B, 1)
        flat = torch.cat([zeros, a[3] * passage, a[2] * stay, zeros, x.new_zeros(B, self._n_move)], dim=1)
        rest = x.new_zeros(B, self.n_actions - flat.shape[1] - 2 * N_ROOMS)
        out = torch.cat([flat, a[0] * lv, a[1] * lv, rest], dim=1)
        if self.room_values >= 3:
            lo = self.obs_size + N_ROOMS
            ls = torch.log(x[:, lo : lo + MOVE_SCORES].clamp(min=0.0) + MOVE_SCORE_FLOOR)  # (B, 20)
            best = ls.max(dim=1, keepdim=True).values
            ls = ls - best  # the best-scored move 0, the others below it
            m = self.ms_logit
            squares = x.new_zeros(B, self._n_move)
            if self.floor_squares:  # an unscored square move as a move scored 0 (0 where nothing is scored)
                squares = squares + m[1] * (math.log(MOVE_SCORE_FLOOR) - best)
            roll = m[1] * ls[:, N_ROOMS : 2 * N_ROOMS].max(dim=1, keepdim=True).values if self.roll_scores else zeros
            flat = torch.cat([roll, m[3] * ls[:, -1:], m[2] * ls[:, -2:-1], zeros, squares], dim=1)
            moves = torch.cat([flat, m[0] * ls[:, :N_ROOMS], m[1] * ls[:, N_ROOMS : 2 * N_ROOMS], rest], dim=1)
            out = out + moves
        if self.room_values == 4:
            lo = self.obs_size + N_ROOMS + MOVE_SCORES
            lg = torch.log(x[:, lo : lo + SUGGEST_SCORES].clamp(min=0.0) + SUGGEST_SCORE_FLOOR)  # (B, 36)
            lg = lg - lg.max(dim=1, keepdim=True).values  # the best-scored suggestion 0; all 0 away from one
            s0 = self._n_flat + 2 * N_ROOMS
            out = torch.cat(
                [out[:, :s0], out[:, s0 : s0 + SUGGEST_SCORES] + self.ss_logit * lg, out[:, s0 + SUGGEST_SCORES :]], dim=1
            )
        return out

    def reference_forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """:meth:`forward` written as the plain concatenations it computes (slower; tests compare the two)."""
        B = x.shape[0]
        h = self.context(x[:, : self.obs_size])
        cf = self.card_features(x)
        ctx = self.to_card(h).unsqueeze(1).expand(B, N_CARDS, self.context_to_card)
        e = self.card(torch.cat([cf, ctx], dim=-1))
        heads = self.card_heads(e)
        sug, acc, show, enter, toward = (heads[..., i] for i in range(5))
        flat = self.flat_head(h)
        here = self.piece(x, "my_room_dist") == 0
        e_here = (here.float().unsqueeze(-1) * e[:, ROOM_BASE:]).sum(dim=1)
        n_pairs = self.sug_s.shape[0]
        pair_in = torch.cat([e[:, self.sug_s], e[:, self.sug_w], e_here.unsqueeze(1).expand(B, n_pairs, -1)], dim=-1)
        suggest = sug[:, self.sug_s] + sug[:, self.sug_w] + self.pair(pair_in).squeeze(-1)
        accuse = acc[:, self.acc_s] + acc[:, self.acc_w] + acc[:, self.acc_r] + self.accuse_gate(h)
        logits = torch.cat([flat, enter[:, ROOM_BASE:], toward[:, ROOM_BASE:], suggest, show, accuse], dim=1)
        if self.room_values >= 2:
            logits = logits + self._room_value_logits(x)
        return logits, h

    def logits_and_value(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(action logits (B, 591), value estimate (B,))."""
        logits, h = self(x)
        return logits, self.value_head(h).squeeze(-1)

    def config(self) -> dict[str, Any]:
        """The constructor arguments (stored in checkpoints; ``room_values``, ``floor_squares`` and
        ``roll_scores`` only when set)."""
        out = {"hidden": self.hidden, "card_hidden": self.card_hidden, "context_to_card": self.context_to_card}
        if self.room_values:
            out["room_values"] = self.room_values
        if self.floor_squares:
            out["floor_squares"] = True
        if self.roll_scores:
            out["roll_scores"] = True
        return out


def widen_for_room_values(base: CluePolicyNet, mode: int = 1) -> CluePolicyNet:
    """A copy of ``base`` that also reads the room values (``room_values=mode``), computing
    ``base``'s function until its new weights (one input column of the card MLP, and for mode 2 the
    four log-value weights, all started at zero) are trained."""
    if base.room_values:
        raise ValueError("the network already reads room values")
    net = CluePolicyNet(**{**base.config(), "room_values": mode})
    state = dict(base.state_dict())
    old = state["card.0.weight"]
    nf = CARD_FEATURES - N_CARDS  # the new column sits after the card inputs, before the identity
    new = old.new_zeros(old.shape[0], old.shape[1] + 1)
    new[:, :nf] = old[:, :nf]
    new[:, nf + 1 :] = old[:, nf:]
    state["card.0.weight"] = new
    if mode == 2:
        state["rv_logit"] = torch.zeros(4)
    net.load_state_dict(state)
    net.train(base.training)
    return net


def _add_scalars(base: CluePolicyNet, what: str, name: str, size: int, floor_squares: bool = False) -> CluePolicyNet:
    """A copy of ``base`` one ``room_values`` mode up, whose new ``size`` scalars ``name`` start at
    zero, so that it computes ``base``'s function until they are trained."""
    mode = {"ms_logit": 3, "ss_logit": 4}[name]
    if base.room_values != mode - 1:
        raise ValueError(f"{what} are added to a room_values={mode - 1} network, not room_values={base.room_values}")
    kwargs: dict[str, Any] = {**base.config(), "room_values": mode}
    if floor_squares:
        kwargs["floor_squares"] = True
    net = CluePolicyNet(**kwargs)
    state = dict(base.state_dict())
    state[name] = torch.zeros(size)
    net.load_state_dict(state)
    net.train(base.training)
    return net


def add_move_scores(base: CluePolicyNet, floor_squares: bool = False) -> CluePolicyNet:
    """A ``room_values=3`` copy of the ``room_values=2`` network ``base``: it also reads the
    planner's move scores, and computes ``base``'s function until its four new scalars (started at
    zero) are trained. ``floor_squares``: score the square moves at the floor (module docstring)."""
    return _add_scalars(base, "move scores", "ms_logit", 4, floor_squares=floor_squares)


def add_suggest_scores(base: CluePolicyNet) -> CluePolicyNet:
    """A ``room_values=4`` copy of the ``room_values=3`` network ``base``: it also reads the
    planner's suggestion scores, and computes ``base``'s function until its new scalar (started at
    zero) is trained."""
    return _add_scalars(base, "suggestion scores", "ss_logit", 1)


def with_roll_scores(base: CluePolicyNet, roll_scores: bool = True) -> CluePolicyNet:
    """A copy of ``base`` (the same weights) with ``roll_scores`` set as given: no new weights, so
    only how the roll is scored changes. Rolling is worth heading for the best room, so with a
    planner that ranks the rooms by rolling and heading there (``deduction:moves=own``) staying (R21)
    or the passage (R20) ranks above the roll exactly when the planner would take it."""
    net = CluePolicyNet(**{**base.config(), "roll_scores": roll_scores})
    net.load_state_dict(base.state_dict())
    net.train(base.training)
    return net


__all__ = [
    "CluePolicyNet",
    "CARD_FEATURES",
    "MOVE_SCORES",
    "SUGGEST_SCORES",
    "add_move_scores",
    "add_suggest_scores",
    "with_roll_scores",
    "widen_for_room_values",
]
