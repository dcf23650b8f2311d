"""Policy files: the network's weights with the layout they were trained on.

A policy file is a ``torch.save`` of a plain dict (tensors, strings, numbers only, so it loads
with ``weights_only=True`` and runs no code)::

    {"format": "clue_env-policy", "version": 1, "layout_hash": ..., "net": {constructor args},
     "state_dict": {...}, "meta": {training command, config, commit, evaluation, ...},
     "accusation": {"net": {...}, "state_dict": {...}, "meta": {...}}}   # optional

``"accusation"`` is the optional accusation head
(:class:`clue_env.policy.accusation_net.AccusationNet`): a file without one accuses as its network does.

A file of version 2 may instead name its network file: ``"network_file": {"name": "clue_ppo.pt",
"sha256": ...}`` in place of ``"net"`` and ``"state_dict"``. It is looked up by that bare name in the
same folder, must have exactly that SHA-256 and carry its weights itself (no chains). The shipped
files that pair one network with several accusation heads are written so (0.1-0.2 MB, not 2 MB):
:mod:`clue_env.policy.policy_file` links and embeds files, ``combine --reference`` writes new ones.
:func:`read_policy_file` returns the network's weights either way.

:func:`load_policy` refuses a missing, corrupt or foreign file and one whose observation/action
layout hash differs from this version of the env, each with a :class:`CheckpointError` saying
what is wrong and what to do; a file naming a network file that is missing, changed or itself a
reference gets one too. Files are written atomically (a temporary file, then a rename).

Every torch file (here, and PPO checkpoints in :mod:`clue_env.training.ppo_checkpoint`) is read
within bounds by :func:`load_torch_bytes` before ``torch.load`` sees it: at most
:data:`POLICY_FILE_LIMIT` bytes of a regular file, a zip of at most :data:`MAX_ZIP_MEMBERS` members
all stored uncompressed as ``torch.save`` writes them (a compressed member could inflate a
thousandfold: refused unread), loaded with ``weights_only=True`` (a pickled object is refused,
never run), nesting at most :data:`~clue_env.fileio.MAX_DEPTH` deep in at most :data:`MAX_ITEMS` values.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import zipfile
from typing import Any

from ..engine.errors import ClueError
from ..fileio import MAX_DEPTH, InputError, atomic_file, one_line, read_regular, short
from .features import layout_hash
from .net_sizes import net_sizes_problem

FORMAT = "clue_env-policy"
#: the version of a file that carries its network's weights
VERSION = 1
#: the version of a file that names its network file instead (``"network_file"``)
REF_VERSION = 2
_HEX64 = re.compile(r"[0-9a-f]{64}")
#: the largest policy file read: the biggest network the size bounds allow (``hidden`` 4096,
#: ``card_hidden`` and ``context_to_card`` 1024: 123 MiB of float32 weights) with its accusation head
#: and meta, and room to spare (the shipped files are under 2 MiB)
POLICY_FILE_LIMIT = 256 << 20
#: the most members a torch file (a zip archive) may have: a policy file has a few dozen, a PPO checkpoint a few hundred
MAX_ZIP_MEMBERS = 4096
#: the most values (containers, tensors, numbers, strings) walked in what a torch file holds
MAX_ITEMS = 1_000_000


class CheckpointError(ClueError, ValueError):
    """A policy file that cannot be used (missing, corrupt, foreign or for another layout)."""


#: the planner parameters a policy file's ``meta["planner"]`` may set: ``tells`` (a number in (0, 1])
#: ``pull`` (only ``"avoid"``, the one mode the planner's suggestion scores carry), ``shows``
#: (``"any"`` or ``"repeat"``, its information estimate's refuter model), ``samples`` (how many deals
#: it draws, an int from 1 to :data:`PLANNER_MAX_SAMPLES`) and ``moves`` (``"roll"`` or ``"own"``: the units
#: of its classic move scores); the ``ppo`` agent builds a ``deduction`` planner of its own seat from them
PLANNER_KEYS = ("tells", "pull", "shows", "samples", "moves")
#: the most deals a planner may draw: ``agents.deduction.MAX_SAMPLES`` (clue_env cannot import the agents above it;
#: tests/test_combine.py checks the two agree)
PLANNER_MAX_SAMPLES = 4096


def check_planner(spec: Any) -> dict[str, Any]:
    """``spec`` as a policy file's ``meta["planner"]``, checked; ``ValueError`` saying what is wrong."""
    if not isinstance(spec, dict):
        raise ValueError(f"must be a mapping of {', '.join(PLANNER_KEYS)}, got {spec!r}")
    unknown = [k for k in spec if k not in PLANNER_KEYS]
    if unknown:
        raise ValueError(f"must be a mapping of {', '.join(PLANNER_KEYS)}: unknown planner parameter {unknown[0]!r}")
    tells = spec.get("tells", 1.0)
    if isinstance(tells, bool) or not isinstance(tells, (int, float)) or not 0.0 < float(tells) <= 1.0:
        raise ValueError(f"tells must be a number in (0, 1], got {tells!r}")
    if "pull" in spec and spec["pull"] != "avoid":
        raise ValueError(f"pull may only be 'avoid' (the mode a network reads), got {spec['pull']!r}")
    if "shows" in spec and spec["shows"] not in ("any", "repeat"):
        raise ValueError(f"shows must be 'any' or 'repeat', got {spec['shows']!r}")
    if "moves" in spec and spec["moves"] not in ("roll", "own"):
        raise ValueError(f"moves must be 'roll' or 'own', got {spec['moves']!r}")
    samples = spec.get("samples", 64)
    if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= PLANNER_MAX_SAMPLES:
        raise ValueError(f"samples must be an int from 1 to {PLANNER_MAX_SAMPLES}, got {samples!r}")
    return dict(spec)


def save_policy(
    path: str, net: Any, meta: dict[str, Any] | None = None, accusation: Any = None, network_file: str | None = None
) -> None:
    """Write ``net`` (a CluePolicyNet), ``meta`` and the optional accusation head (an
    ``AccusationNet``, or its :func:`~clue_env.policy.accusation_net.accusation_state` data)
    to ``path`` atomically.

    With ``network_file`` (a policy file in the same folder as ``path`` that carries exactly the
    weights of ``net``), the file names that file and its SHA-256 instead of carrying the weights
    (version 2); a :class:`CheckpointError` if it is elsewhere, is itself a reference, or holds other weights."""

    data: dict[str, Any] = {"format": FORMAT, "version": VERSION, "layout_hash": layout_hash()}
    if network_file is None:
        data["net"] = net.config()
        data["state_dict"] = {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
    else:
        data["version"] = REF_VERSION
        data["network_file"] = network_reference(path, network_file, net)
    data["meta"] = dict(meta or {})
    if accusation is not None:
        from .accusation_net import accusation_state

        data["accusation"] = accusation if isinstance(accusation, dict) else accusation_state(accusation)
    atomic_torch_save(data, path)


def network_reference(path: str, network_file: str, net: Any) -> dict[str, str]:
    """The ``"network_file"`` entry with which ``path`` names ``network_file`` (see :func:`save_policy`)."""
    import torch

    if os.path.dirname(os.path.abspath(network_file)) != os.path.dirname(os.path.abspath(path)):
        raise CheckpointError(
            f"{path!r} can name its network file only in its own folder, and {network_file!r} is elsewhere: "
            "write both into one folder"
        )
    if os.path.abspath(network_file) == os.path.abspath(path):
        raise CheckpointError(f"{path!r} cannot name itself as its network file")
    data, sha = read_raw_policy_file(network_file)
    if network_file_ref(network_file, data) is not None:
        raise CheckpointError(f"{network_file!r} names a network file of its own; name the file that carries the weights instead")
    mine = net.state_dict()
    theirs = data.get("state_dict")
    same = (
        data.get("net") == net.config()
        and isinstance(theirs, dict)
        and set(theirs) == set(mine)
        and all(
            isinstance(theirs[k], torch.Tensor) and theirs[k].shape == v.shape and torch.equal(theirs[k], v.detach().cpu())
            for k, v in mine.items()
        )
    )
    if not same:
        raise CheckpointError(f"{network_file!r} does not hold this network's weights, so {path!r} cannot name it")
    return {"name": os.path.basename(network_file), "sha256": sha}


def atomic_torch_save(obj: Any, path: str) -> None:
    """``torch.save(obj)`` to ``path`` atomically (:func:`clue_env.fileio.atomic_file`)."""
    import torch

    with atomic_file(path, suffix=".pt") as f:
        torch.save(obj, f)


def zip_members(raw: bytes) -> list[zipfile.ZipInfo]:
    """The members of the zip archive ``raw``; ``ValueError`` saying why it is not one, or has
    more than :data:`MAX_ZIP_MEMBERS` (counted on the central directory's signatures first, so a
    directory of millions of entries is refused before it is parsed)."""
    if raw[:4] != b"PK\x03\x04":
        raise ValueError("not a zip archive (torch.save writes one)")
    if raw.count(b"PK\x01\x02") > MAX_ZIP_MEMBERS:
        raise ValueError(f"more than {MAX_ZIP_MEMBERS:,} zip members")
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            return z.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, OSError) as e:
        raise ValueError(f"a damaged zip archive ({one_line(str(e), 120)})") from None


def torch_file_problem(raw: bytes) -> str | None:
    """Why ``raw`` is not a torch file that loads within bounds, or ``None``: it must be a zip
    archive (the format ``torch.save`` writes) of at most :data:`MAX_ZIP_MEMBERS` members, each
    stored uncompressed within the archive. ``torch.load`` would inflate a compressed member in
    full before any check (a 256 KiB file can hold 256 MiB of zeros), so one is refused unread;
    ``torch.save`` never compresses."""
    try:
        members = zip_members(raw)
    except ValueError as e:
        return str(e)
    for m in members:
        if m.compress_type != zipfile.ZIP_STORED:
            return (
                f"its member {short(m.filename, 60)} is compressed, and could inflate to any size; "
                "torch.save stores members uncompressed"
            )
        if m.file_size != m.compress_size or m.header_offset + m.compress_size > len(raw):
            return f"its member {short(m.filename, 60)} declares sizes that do not fit the archive"
    return None


def plain_data_problem(obj: Any, max_depth: int = MAX_DEPTH, max_items: int = MAX_ITEMS) -> str | None:
    """Why what a torch file held is too deep or too large to walk, or ``None``: containers nest at
    most ``max_depth`` deep and at most ``max_items`` values are reached (a value reached twice
    counts twice, so a file that shares one list many times over is refused too). Walked without
    recursion; tensors are leaves."""
    seen = 0
    stack: list[tuple[Any, int]] = [(obj, 0)]
    while stack:
        item, d = stack.pop()
        seen += 1
        if seen > max_items:
            return f"it holds more than {max_items:,} values"
        if isinstance(item, dict):
            children = [*item.keys(), *item.values()]
        elif isinstance(item, (list, tuple, set, frozenset)):
            children = list(item)
        else:
            continue
        if d + 1 > max_depth:
            return f"it nests more than {max_depth} deep"
        stack.extend((c, d + 1) for c in children)
    return None


def load_torch_bytes(raw: bytes) -> Any:
    """What the torch file ``raw`` (bytes read within a bound) holds, on the CPU: checked by
    :func:`torch_file_problem`, loaded with ``weights_only=True`` (tensors and plain data; a
    pickled object is refused, never built) and checked by :func:`plain_data_problem`.
    ``ValueError`` (or whatever torch raises for a damaged file) saying what is wrong."""
    import torch

    problem = torch_file_problem(raw)
    if problem is None:
        data = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
        problem = plain_data_problem(data)
        if problem is None:
            return data
    raise ValueError(problem)


def refusal_reason(e: BaseException) -> str:
    """A one-line reason for a refused torch file: our own checks' words, or torch's with its type."""
    text = one_line(str(e).splitlines()[0] if str(e) else "", 200)
    return text if type(e) in (ValueError, InputError) else f"{type(e).__name__}: {text}"


def sha256_bytes(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def read_raw_policy_file(path: str) -> tuple[dict[str, Any], str]:
    """One policy file's dict as stored (a network file it names is not read), its header checked,
    and the SHA-256 of its bytes."""
    if not os.path.lexists(path):
        raise CheckpointError(f"policy file {path!r} does not exist (train one with train.py, or use the spec 'ppo')")
    try:
        raw = read_regular(path, POLICY_FILE_LIMIT, "policy file")
    except InputError as e:  # a directory, a FIFO, a device, a dangling link, too large
        raise CheckpointError(str(e)) from None
    try:
        data = load_torch_bytes(raw)
    except Exception as e:  # torch raises many kinds for a damaged file
        raise CheckpointError(
            f"{path!r} is not a readable policy file ({refusal_reason(e)}); it may be truncated or not a clue_env policy"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{path!r} is not a clue_env policy file (no '{FORMAT}' header)")
    if data.get("version") not in (VERSION, REF_VERSION):
        raise CheckpointError(
            f"{path!r} has policy format version {data.get('version')!r}; this clue_env reads {VERSION} and {REF_VERSION}"
        )
    want = layout_hash()
    if data.get("layout_hash") != want:
        raise CheckpointError(
            f"{path!r} was trained on observation/action layout {data.get('layout_hash')!r}, but this clue_env has "
            f"{want!r}: retrain it with this version (python train.py ...)"
        )
    return data, sha256_bytes(raw)


def network_file_ref(path: str, data: dict[str, Any]) -> tuple[str, str] | None:
    """``(path of the network file, its expected SHA-256)`` for a file (read as ``data``) that names
    its network file, ``None`` for one that carries its weights; :class:`CheckpointError` for a
    malformed reference (not a bare file name in the same folder, no 64-digit hex SHA-256, beside
    weights of its own, or in a version-1 file)."""
    ref = data.get("network_file")
    if ref is None:
        return None
    damaged = "the file is damaged or not from clue_env"
    if data.get("version") != REF_VERSION:
        raise CheckpointError(f"{path!r}: a version-{data.get('version')!r} file may not name a network file; {damaged}")
    if not isinstance(ref, dict) or not isinstance(ref.get("name"), str) or not isinstance(ref.get("sha256"), str):
        raise CheckpointError(f"{path!r}: its 'network_file' is not a name and a SHA-256; {damaged}")
    name, sha = ref["name"], ref["sha256"]
    if not name or name in (".", "..") or "/" in name or "\\" in name or os.path.basename(name) != name:
        raise CheckpointError(
            f"{path!r} names its network file {name!r}, which is not a bare file name in its own folder; {damaged}"
        )
    if not _HEX64.fullmatch(sha):
        raise CheckpointError(f"{path!r}: its network file's SHA-256 {sha[:80]!r} is not 64 hex digits; {damaged}")
    if "state_dict" in data or "net" in data:
        raise CheckpointError(f"{path!r} both carries network weights and names a network file; {damaged}")
    return os.path.join(os.path.dirname(os.path.abspath(path)), name), sha


def read_policy_file(path: str) -> dict[str, Any]:
    """The checked contents of a policy file (see the module docstring). For a file that names its
    network file, the returned dict has that file's ``"net"`` and ``"state_dict"`` (its own meta
    and head stay its own), once the network file is found beside it with the recorded SHA-256."""
    data, _sha = read_raw_policy_file(path)
    ref = network_file_ref(path, data)
    if ref is None:
        return data
    target, want = ref
    name = os.path.basename(target)
    if os.path.abspath(target) == os.path.abspath(path):
        raise CheckpointError(f"{path!r} names itself as its network file; the file is damaged or not from clue_env")
    if not os.path.isfile(target):
        raise CheckpointError(
            f"{path!r} takes its network from {name!r} in the same folder, which is missing: copy {name} beside it "
            "(a clone: git checkout -- models/), or write a self-contained file where both are present with "
            "python -m clue_env.policy.policy_file embed"
        )
    net_data, got = read_raw_policy_file(target)
    if got != want:
        raise CheckpointError(
            f"{path!r} takes its network from {target!r}, but that file has changed (SHA-256 {got[:12]}..., "
            f"recorded {want[:12]}...): restore the network file it was built with (a clone: git checkout -- models/), "
            "or rebuild this file against the new one"
        )
    if net_data.get("network_file") is not None:
        raise CheckpointError(
            f"{path!r} takes its network from {target!r}, which names a network file of its own: references are not "
            "followed in chains; link to the file that carries the weights"
        )
    out = dict(data)
    out["net"] = net_data.get("net")
    out["state_dict"] = net_data.get("state_dict")
    return out


def expected_shapes(net_kwargs: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    """The state-dict tensor shapes of a :class:`~clue_env.policy.network.CluePolicyNet` with
    these (already bounds-checked) sizes, computed on torch's ``meta`` device: nothing is allocated."""
    import torch

    from .network import CluePolicyNet

    with torch.device("meta"):
        net = CluePolicyNet(**net_kwargs)
    return {k: tuple(v.shape) for k, v in net.state_dict().items()}


def check_weights(where: str, net_kwargs: Any, state_dict: Any) -> None:
    """Refuse declared sizes out of bounds, and weights whose names or shapes are not those of the
    declared network, before the network is built (a few bytes of header must not allocate GBs)."""
    import torch

    problem = net_sizes_problem(net_kwargs)
    if problem:
        raise CheckpointError(f"{where}: {problem}; the file is damaged or not from train.py")
    if not isinstance(state_dict, dict) or not all(isinstance(v, torch.Tensor) for v in state_dict.values()):
        raise CheckpointError(f"{where}: the weights ('state_dict') are not a mapping of names to tensors")
    want = expected_shapes(net_kwargs)
    missing = sorted(set(want) - set(state_dict))
    extra = sorted(set(state_dict) - set(want))
    wrong = sorted(k for k in want if k in state_dict and tuple(state_dict[k].shape) != want[k])
    if missing or extra or wrong:
        parts = [f"missing {missing[:3]}" if missing else "", f"unexpected {extra[:3]}" if extra else ""]
        parts += [f"{k} is {tuple(state_dict[k].shape)}, the declared sizes {net_kwargs} make {want[k]}" for k in wrong[:2]]
        raise CheckpointError(f"{where}: the weights do not fit the policy network ({'; '.join(p for p in parts if p)})")
    bad = sorted(k for k, v in state_dict.items() if not v.is_floating_point())
    if bad:
        raise CheckpointError(f"{where}: the weights do not fit the policy network ({bad[:3]} are not floating-point)")


def load_policy(path: str) -> tuple[Any, dict[str, Any]]:
    """``(net, meta)`` from a policy file; the net is in eval mode on the CPU."""
    from .network import CluePolicyNet

    data = read_policy_file(path)
    check_weights(repr(path), data.get("net"), data.get("state_dict"))
    try:
        net = CluePolicyNet(**data["net"])
        net.load_state_dict(data["state_dict"])
    except (TypeError, RuntimeError, KeyError) as e:
        raise CheckpointError(f"{path!r}: the weights do not fit the policy network ({str(e)[:200]})") from None
    net.eval()
    meta = data.get("meta", {})
    return net, meta if isinstance(meta, dict) else {}


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


__all__ = [
    "MAX_ITEMS",
    "MAX_ZIP_MEMBERS",
    "POLICY_FILE_LIMIT",
    "PLANNER_KEYS",
    "PLANNER_MAX_SAMPLES",
    "check_planner",
    "CheckpointError",
    "atomic_torch_save",
    "check_weights",
    "load_accusation",
    "load_policy",
    "load_torch_bytes",
    "network_file_ref",
    "network_reference",
    "read_policy_file",
    "read_raw_policy_file",
    "refusal_reason",
    "sha256_bytes",
    "plain_data_problem",
    "torch_file_problem",
    "zip_members",
    "save_policy",
]
