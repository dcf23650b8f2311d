"""Policy files: the network's weights with the layout they were trained on.

A policy file is a ``torch.save`` of a plain dict (tensors, strings, numbers only, so it loads
with ``weights_only=True`` and runs no code)::

    {"format": "clue_env-policy", "version": 1, "layout_hash": ..., "net": {constructor args},
     "state_dict": {...}, "meta": {training command, config, commit, evaluation, ...},
     "accusation": {"net": {...}, "state_dict": {...}, "meta": {...}}}   # optional

``"accusation"`` is the optional accusation head
(:class:`clue_env.training.accusation_net.AccusationNet`): a file without one plays as before.

:func:`load_policy` refuses a missing, corrupt or foreign file and one whose observation/action
layout hash differs from this version of the env, each with a :class:`CheckpointError` saying
what is wrong and what to do. Files are written atomically (a temporary file, then a rename).
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from ..engine.errors import ClueError
from .features import layout_hash

FORMAT = "clue_env-policy"
VERSION = 1


class CheckpointError(ClueError, ValueError):
    """A policy file that cannot be used (missing, corrupt, foreign or for another layout)."""


def save_policy(path: str, net: Any, meta: dict[str, Any] | None = None, accusation: Any = None) -> None:
    """Write ``net`` (a CluePolicyNet), ``meta`` and the optional accusation head (an
    ``AccusationNet``, or its :func:`~clue_env.training.accusation_net.accusation_state` data)
    to ``path`` atomically."""

    data = {
        "format": FORMAT,
        "version": VERSION,
        "layout_hash": layout_hash(),
        "net": net.config(),
        "state_dict": {k: v.detach().cpu().clone() for k, v in net.state_dict().items()},
        "meta": dict(meta or {}),
    }
    if accusation is not None:
        from .accusation_net import accusation_state

        data["accusation"] = accusation if isinstance(accusation, dict) else accusation_state(accusation)
    atomic_torch_save(data, path)


def atomic_torch_save(obj: Any, path: str) -> None:
    import torch

    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=".pt")
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; a policy file is an ordinary file
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(obj, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read_policy_file(path: str) -> dict[str, Any]:
    """The checked contents of a policy file (see the module docstring)."""
    import torch

    if not os.path.isfile(path):
        raise CheckpointError(f"policy file {path!r} does not exist (train one with train.py, or use the spec 'ppo')")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many kinds for a damaged file
        raise CheckpointError(
            f"{path!r} is not a readable policy file ({type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}); "
            "it may be truncated or not a clue_env policy"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{path!r} is not a clue_env policy file (no '{FORMAT}' header)")
    if data.get("version") != VERSION:
        raise CheckpointError(f"{path!r} has policy format version {data.get('version')!r}; this clue_env reads {VERSION}")
    want = layout_hash()
    if data.get("layout_hash") != want:
        raise CheckpointError(
            f"{path!r} was trained on observation/action layout {data.get('layout_hash')!r}, but this clue_env has "
            f"{want!r}: retrain it with this version (python train.py ...)"
        )
    return data


def load_policy(path: str) -> tuple[Any, dict[str, Any]]:
    """``(net, meta)`` from a policy file; the net is in eval mode on the CPU."""
    from .network import CluePolicyNet

    data = read_policy_file(path)
    try:
        net = CluePolicyNet(**data["net"])
        net.load_state_dict(data["state_dict"])
    except (TypeError, RuntimeError, KeyError) as e:
        raise CheckpointError(f"{path!r}: the weights do not fit the policy network ({str(e)[:200]})") from None
    net.eval()
    return net, data.get("meta", {})


def load_accusation(path: str) -> Any:
    """The accusation head stored in the policy file ``path``, or ``None`` when it has none."""
    data = read_policy_file(path)
    if data.get("accusation") is None:
        return None
    from .accusation_net import accusation_from_state

    try:
        return accusation_from_state(data["accusation"])
    except ValueError as e:
        raise CheckpointError(f"{path!r}: {e}") from None


__all__ = ["CheckpointError", "load_accusation", "load_policy", "save_policy", "read_policy_file", "atomic_torch_save"]
