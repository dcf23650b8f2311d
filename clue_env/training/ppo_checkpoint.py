"""PPO checkpoints: the SB3 PPO model's trainable state between chunks of a run (``--resume``).

A checkpoint (``checkpoints/ppo_latest.pt`` of a run directory) is a ``torch.save`` of plain data:
the policy's and the optimizer's state dicts and the counters, read back through the policy
package's bounded torch reader (:func:`clue_env.policy.checkpoint.load_torch_bytes`): at most
:data:`PPO_CHECKPOINT_LIMIT` bytes, members stored uncompressed, ``weights_only=True``. A
``ppo_latest.zip`` written by SB3's ``model.save`` in older versions is read without SB3's loader
(:func:`read_ppo_checkpoint`).
"""

from __future__ import annotations

import io
import zipfile
from typing import Any

from ..fileio import loads_json, read_regular
from ..policy.checkpoint import CheckpointError, atomic_torch_save, load_torch_bytes, refusal_reason, zip_members

#: the largest PPO checkpoint read: the largest network's weights and the optimizer's two moments, with room to spare
PPO_CHECKPOINT_LIMIT = 1 << 30
#: the most an SB3 zip's JSON ``data`` entry may unpack to, and how many times a compressed entry may inflate
_SB3_DATA_LIMIT = 16 << 20
_SB3_MAX_RATIO = 100
#: a PPO checkpoint (``checkpoints/ppo_latest.pt`` of a run directory): plain data only
PPO_FORMAT = "clue_env-ppo-checkpoint"
PPO_VERSION = 1


def save_ppo_checkpoint(path: str, model: Any, chunks: int, chunk_steps: int) -> None:
    """Write the PPO model's trainable state after ``chunks`` chunks of ``chunk_steps`` timesteps
    to ``path`` atomically: the policy's and the optimizer's state dicts and the counters, as plain
    tensors and numbers (``torch.load(weights_only=True)`` reads it; nothing in it is code). The
    chunk count is inside the file, so the weights and how far they got are one write."""

    policy = model.policy
    atomic_torch_save(
        {
            "format": PPO_FORMAT,
            "version": PPO_VERSION,
            "chunks": int(chunks),
            "chunk_steps": int(chunk_steps),
            "timesteps": int(model.num_timesteps),
            "n_updates": int(model._n_updates),
            "net": policy.net.config(),
            "policy": {k: v.detach().cpu().clone() for k, v in policy.state_dict().items()},
            "optimizer": policy.optimizer.state_dict(),
        },
        path,
    )


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def read_ppo_checkpoint(path: str, chunk_steps: int) -> dict[str, Any]:
    """The checked contents of a PPO checkpoint: ``{"chunks", "timesteps", "n_updates", "policy",
    "optimizer"}``. ``path`` is a ``ppo_latest.pt`` (this format), or a ``ppo_latest.zip`` written by
    SB3's ``model.save`` in older versions, read *without* SB3's loader: only its ``policy.pth`` and
    ``policy.optimizer.pth`` state dicts (with ``weights_only=True``) and two integers of its
    ``data`` JSON are used; the pickled objects in ``data`` are never deserialised."""
    if path.endswith(".zip"):
        data = _read_sb3_zip(path)
        if _is_int(data["timesteps"]):  # the chunk the weights are at: from the weights' own counter
            data["chunks"] = data["timesteps"] // chunk_steps
    else:
        try:
            raw = read_regular(path, PPO_CHECKPOINT_LIMIT, "PPO checkpoint")
            data = load_torch_bytes(raw)
        except Exception as e:  # a damaged file, or pickled objects weights_only refuses
            raise CheckpointError(
                f"{path!r} is not a readable PPO checkpoint ({refusal_reason(e)}); it may be truncated or "
                "not written by train.py. Nothing was changed: start a new run with another --out"
            ) from None
        if not isinstance(data, dict) or data.get("format") != PPO_FORMAT:
            raise CheckpointError(f"{path!r} is not a clue_env PPO checkpoint (no '{PPO_FORMAT}' header)")
        if data.get("version") != PPO_VERSION:
            v = data.get("version")
            raise CheckpointError(f"{path!r} has PPO checkpoint version {v!r}; this clue_env reads {PPO_VERSION}")
        if data.get("chunk_steps") != chunk_steps:
            raise CheckpointError(
                f"{path!r} was written with chunks of {data.get('chunk_steps')!r} timesteps, but this config makes "
                f"{chunk_steps} (ppo.n_steps, n_envs and checkpoint_every must not change on --resume)"
            )
    for key in ("chunks", "timesteps", "n_updates"):
        if not _is_int(data.get(key)):
            raise CheckpointError(f"{path!r}: {key!r} is {data.get(key)!r}, not a count")
    if data["timesteps"] != data["chunks"] * chunk_steps:
        raise CheckpointError(
            f"{path!r} holds {data['timesteps']} timesteps, which is not {data.get('chunks')!r} whole chunks of {chunk_steps}: "
            "it was written with other ppo settings (ppo.n_steps, n_envs and checkpoint_every must not change on --resume)"
        )
    for key in ("policy", "optimizer"):
        if not isinstance(data.get(key), dict):
            raise CheckpointError(f"{path!r}: no {key} state in the checkpoint")
    return data


def _read_sb3_zip(path: str) -> dict[str, Any]:
    """The state dicts and counters of an SB3 zip, within bounds: the zip at most
    :data:`PPO_CHECKPOINT_LIMIT` bytes, its entries' declared sizes checked (a compressed entry may
    inflate at most ``_SB3_MAX_RATIO`` times) before any is unpacked, and read no further than those
    sizes; the state dicts loaded by :func:`load_torch_bytes`, the JSON by :func:`loads_json`."""
    limits = {"data": _SB3_DATA_LIMIT, "policy.pth": PPO_CHECKPOINT_LIMIT, "policy.optimizer.pth": PPO_CHECKPOINT_LIMIT}
    try:
        raw = read_regular(path, PPO_CHECKPOINT_LIMIT, "SB3 checkpoint")
        members = {m.filename: m for m in zip_members(raw)}
        missing = [n for n in limits if n not in members]
        if missing:
            raise CheckpointError(f"{path!r} is not an SB3 checkpoint: it has no {missing}")
        total = 0
        for name, limit in limits.items():
            m = members[name]
            total += m.file_size
            if m.file_size > limit or total > PPO_CHECKPOINT_LIMIT:
                raise CheckpointError(f"{path!r}: {name!r} would unpack to more than {limit >> 20} MiB; refused unread")
            if m.compress_type != zipfile.ZIP_STORED and m.file_size > _SB3_MAX_RATIO * max(m.compress_size, 1):
                raise CheckpointError(
                    f"{path!r}: {name!r} would inflate {m.file_size // max(m.compress_size, 1):,} times; refused unread"
                )
        entries = {}
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            for name in limits:
                with z.open(members[name]) as f:  # zipfile reads no further than the declared size
                    entries[name] = f.read(members[name].file_size + 1)
        del raw
        policy = load_torch_bytes(entries.pop("policy.pth"))
        optimizer = load_torch_bytes(entries.pop("policy.optimizer.pth"))
        # plain JSON: the ':serialized:' entries (SB3's pickles, base64) stay text and are never decoded
        meta = loads_json(entries.pop("data"), f"{path!r} entry 'data'")
    except CheckpointError:
        raise
    except Exception as e:
        raise CheckpointError(
            f"{path!r} is not a readable SB3 checkpoint ({refusal_reason(e)}); "
            "nothing was changed: start a new run with another --out"
        ) from None
    if not isinstance(meta, dict):
        raise CheckpointError(f"{path!r}: its 'data' entry is not a JSON object")
    chunk = {"timesteps": meta.get("num_timesteps"), "n_updates": meta.get("_n_updates")}
    return {**chunk, "policy": policy, "optimizer": optimizer, "legacy": True}


def apply_ppo_checkpoint(path: str, model: Any, data: dict[str, Any]) -> None:
    """Load :func:`read_ppo_checkpoint` data into a freshly built model (the same network sizes and
    PPO settings); refuses weights or optimizer state that do not fit it."""
    policy = model.policy
    try:
        policy.load_state_dict(data["policy"])
    except (RuntimeError, KeyError, TypeError) as e:
        raise CheckpointError(f"{path!r}: the weights do not fit this config's network ({str(e)[:200]})") from None
    try:
        policy.optimizer.load_state_dict(data["optimizer"])
    except (ValueError, RuntimeError, KeyError, TypeError, IndexError) as e:
        raise CheckpointError(f"{path!r}: the optimizer state does not fit this config's network ({str(e)[:200]})") from None
    for p, st in policy.optimizer.state.items():
        for k, v in st.items():
            if k in ("exp_avg", "exp_avg_sq") and getattr(v, "shape", None) != p.shape:
                raise CheckpointError(f"{path!r}: the optimizer's {k} has shape {tuple(v.shape)} for a {tuple(p.shape)} weight")
    model.num_timesteps = int(data["timesteps"])
    model._n_updates = int(data["n_updates"])


__all__ = [
    "PPO_CHECKPOINT_LIMIT",
    "PPO_FORMAT",
    "PPO_VERSION",
    "apply_ppo_checkpoint",
    "read_ppo_checkpoint",
    "save_ppo_checkpoint",
]
