"""The bounds on a policy network's sizes, checked before anything is built: for a training
config's ``net`` section and for the sizes a policy file declares alike. Plain Python, no torch."""

from __future__ import annotations

from typing import Any

from ..fileio import short

#: the largest size of each of the network's layers (:class:`~clue_env.policy.network.CluePolicyNet`):
#: far above the shipped sizes (256, 64, 64), low enough that a network is at most ~100 MB. A
#: policy file's declared sizes are checked against the same bounds before anything is built.
NET_BOUNDS = {"hidden": 4096, "card_hidden": 1024, "context_to_card": 1024}


def net_sizes_problem(net: Any) -> str | None:
    """Why ``net`` (a network's constructor arguments) is not a valid set of sizes, or ``None``."""
    if not isinstance(net, dict):
        return f"the network sizes must be a mapping of {', '.join(NET_BOUNDS)}, got {type(net).__name__}"
    unknown = [k for k in net if k not in NET_BOUNDS and k not in ("room_values", "floor_squares", "roll_scores")]
    if unknown:
        known = f"{', '.join(NET_BOUNDS)}, room_values, floor_squares, roll_scores"
        return f"unknown network size(s) {short(unknown)}; known: {known}"
    for k, v in net.items():
        if k == "room_values":  # a switch: the planner's room values as inputs (network.py)
            if isinstance(v, bool) or v not in (0, 1, 2, 3, 4):
                return f"net.room_values must be 0, 1, 2, 3 or 4, got {short(v)}"
            continue
        if k in ("floor_squares", "roll_scores"):  # switches of the move-score term (network.py)
            if not isinstance(v, bool) or (v and net.get("room_values", 0) not in (3, 4)):
                return f"net.{k} must be a bool, true only with room_values 3 or 4, got {short(v)}"
            continue
        hi = NET_BOUNDS[k]
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= hi:
            return f"net.{k} must be an integer in 1..{hi}, got {short(v)}"
    return None
