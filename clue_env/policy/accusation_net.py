"""The accusation head: whether to accuse now, and which triple (a small torch network).

Two parts, both learned (``clue_env.training.accusation_fit``):

* ``stop`` and ``cont``: two MLPs on :func:`~clue_env.policy.accusation.stop_features` giving
  the logits of P(my best triple is the solution) and of P(I win if I do not accuse now, playing
  on as I do). The head accuses when the first is larger: an optimal-stopping rule learned by
  fitted value iteration on recorded games (Longstaff–Schwartz regression of realised outcomes).
* ``triple``: a linear scorer of candidate triples from
  :func:`~clue_env.policy.accusation.triple_features` (2 inputs a triple, 3 with feature set 4),
  trained by cross-entropy against the true envelope; the head accuses the best-scored legal triple.

With ``members > 1`` each of ``stop`` and ``cont`` is a bag of that many MLPs, each fitted on a
bootstrap resample of the recorded games, whose logits are averaged (a fit on a few thousand games
is noisy, and a wrong accusation loses the game outright: averaging steadies the decision).

Stored inside a policy file under the key ``"accusation"`` (see
:mod:`clue_env.policy.checkpoint`); a policy file without one accuses as its network does.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from .accusation import FEATURE_SETS, MAX_MEMBERS, STOP_FEATURES, TRIPLE_WIDTH


def _mlp(d: int, h: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(d, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 1))


class Bag(nn.Module):
    """Several MLPs of the same shape; the output is the mean of their logits."""

    def __init__(self, d: int, h: int, members: int) -> None:
        super().__init__()
        self.members = nn.ModuleList(_mlp(d, h) for _ in range(members))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.stack([m(x) for m in self.members]).mean(0)


def _part(d: int, h: int, members: int) -> nn.Module:
    return _mlp(d, h) if members == 1 else Bag(d, h, members)  # one member: a plain MLP, as single-member files store it


def members_of(part: nn.Module) -> list[nn.Module]:
    """The MLPs of ``stop`` or ``cont``: one, or a bag's members."""
    return list(part.members) if isinstance(part, Bag) else [part]


class AccusationNet(nn.Module):
    """``stop(x)``, ``cont(x)``: logits over :data:`STOP_FEATURES` inputs; ``triple(t)``: scores."""

    def __init__(self, hidden: int = 64, inputs: int = STOP_FEATURES, members: int = 1) -> None:
        super().__init__()
        if not (isinstance(members, int) and 1 <= members <= MAX_MEMBERS):
            raise ValueError(f"the accusation head's members {members!r} is not an int in 1..{MAX_MEMBERS}")
        self.hidden, self.inputs, self.members = hidden, inputs, members
        self.stop = _part(inputs, hidden, members)
        self.cont = _part(inputs, hidden, members)
        if inputs not in FEATURE_SETS:
            raise ValueError(f"the accusation head's inputs {inputs!r} match no feature set ({sorted(FEATURE_SETS)})")
        width = TRIPLE_WIDTH[FEATURE_SETS[inputs]]
        self.triple = nn.Linear(width, 1, bias=False)
        with torch.no_grad():
            start = torch.zeros(1, width)
            start[0, 0] = 1.0
            self.triple.weight.copy_(start)  # start at "the most probable triple"

    def q_values(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(P(best triple right), P(win if I wait)) for a batch of inputs (B, STOP_FEATURES)."""
        return torch.sigmoid(self.stop(x).squeeze(-1)), torch.sigmoid(self.cont(x).squeeze(-1))

    def should_accuse(self, x: torch.Tensor) -> torch.Tensor:
        """(B,) bool: accusing now is worth more than waiting."""
        return self.stop(x).squeeze(-1) > self.cont(x).squeeze(-1)

    def triple_scores(self, t: torch.Tensor) -> torch.Tensor:
        """(T,) scores of candidate triples from their (T, 2) features ((T, 3) with feature set 4)."""
        return self.triple(t).squeeze(-1)

    def config(self) -> dict[str, int]:
        cfg = {"hidden": self.hidden, "inputs": self.inputs}
        if self.members > 1:  # a one-member head's entry stays as older clue_env versions wrote (and read) it
            cfg["members"] = self.members
        return cfg


def accusation_state(net: AccusationNet, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """The plain-data form stored in a policy file."""
    return {
        "net": net.config(),
        "state_dict": {k: v.detach().cpu().clone() for k, v in net.state_dict().items()},
        "meta": dict(meta or {}),
    }


def accusation_from_state(data: dict[str, Any]) -> AccusationNet:
    """Rebuild the head from :func:`accusation_state` data (raises ValueError if it does not fit)."""
    cfg = data.get("net") if isinstance(data, dict) else None
    if not isinstance(cfg, dict) or set(cfg) not in ({"hidden", "inputs"}, {"hidden", "inputs", "members"}):
        raise ValueError("the accusation head has no valid 'net' entry")
    hidden, inputs, members = cfg["hidden"], cfg["inputs"], cfg.get("members", 1)
    if not (isinstance(hidden, int) and 1 <= hidden <= 1024):
        raise ValueError(f"the accusation head's hidden size {hidden!r} is not an int in 1..1024")
    if inputs not in FEATURE_SETS:
        known = ", ".join(f"{size} (feature set {v})" for size, v in FEATURE_SETS.items())
        raise ValueError(f"the accusation head takes {inputs!r} inputs; this clue_env computes {known}")
    if not (isinstance(members, int) and 2 <= members <= MAX_MEMBERS) and "members" in cfg:
        raise ValueError(f"the accusation head's members {members!r} is not an int in 2..{MAX_MEMBERS}")
    net = AccusationNet(hidden=hidden, inputs=inputs, members=members)
    try:
        net.load_state_dict(data["state_dict"])
    except (TypeError, RuntimeError, KeyError) as e:
        raise ValueError(f"the accusation head's weights do not fit ({str(e)[:200]})") from None
    net.eval()
    return net


def bag_heads(heads: list[AccusationNet]) -> AccusationNet:
    """One head whose ``stop`` and ``cont`` are bags of every member of ``heads``: it accuses where the mean
    of their stop-minus-wait logits is above zero. It reads the widest head's feature set; a head of a
    feature set whose inputs are that set's first columns (set 3 inside set 5, set 5 inside set 6) reads
    them through zero weights on the rest. The triple scorer is the first head's. Raises ValueError for
    heads of different widths of hidden layer or of triple features, for a feature set that is not a
    prefix of the widest (set 1 inside 2 or 3 is not), or for more than :data:`MAX_MEMBERS` members."""
    if len(heads) < 2:
        raise ValueError("a bag of heads needs at least two heads")
    inputs = max(h.inputs for h in heads)
    wide = FEATURE_SETS[inputs]
    for h in heads:
        if h.hidden != heads[0].hidden:
            raise ValueError(f"the heads' hidden sizes differ ({heads[0].hidden} and {h.hidden}); a bag needs one size")
        own = FEATURE_SETS[h.inputs]
        if TRIPLE_WIDTH[own] != TRIPLE_WIDTH[FEATURE_SETS[heads[0].inputs]]:
            raise ValueError(f"feature sets {FEATURE_SETS[heads[0].inputs]} and {own} score triples differently")
        if own != wide and (own, wide) not in PREFIX_SETS:
            raise ValueError(f"feature set {own}'s inputs are not the first columns of set {wide}: they cannot share a bag")
    mlps = {part: [m for h in heads for m in members_of(getattr(h, part))] for part in ("stop", "cont")}
    n = len(mlps["stop"])
    if n > MAX_MEMBERS:
        raise ValueError(f"a bag of {n} members is more than {MAX_MEMBERS}")
    out = AccusationNet(hidden=heads[0].hidden, inputs=inputs, members=n)
    with torch.no_grad():
        for part in ("stop", "cont"):
            for dst, src in zip(members_of(getattr(out, part)), mlps[part]):
                pairs = zip(dst.modules(), src.modules())  # each member is an _mlp: the same layers in order
                for layer_d, layer_s in pairs:
                    if not isinstance(layer_d, nn.Linear) or not isinstance(layer_s, nn.Linear):
                        continue
                    layer_d.weight.zero_()
                    layer_d.weight[:, : layer_s.weight.shape[1]].copy_(layer_s.weight)
                    layer_d.bias.copy_(layer_s.bias)
        out.triple.weight.copy_(heads[0].triple.weight)
    out.eval()
    return out


#: (feature set, wider set) pairs where the first set's inputs are the first columns of the wider one and both
#: score triples alike (set 3 inside set 6 is a prefix too, but set 6's scorer reads a third input)
PREFIX_SETS = {(3, 5), (5, 6)}


__all__ = [
    "MAX_MEMBERS",
    "PREFIX_SETS",
    "AccusationNet",
    "Bag",
    "accusation_from_state",
    "accusation_state",
    "bag_heads",
    "members_of",
]
