"""Link, embed and describe policy files.

    python -m clue_env.policy.policy_file link models/clue_ppo_mixed.pt --network models/clue_ppo.pt
    python -m clue_env.policy.policy_file embed models/clue_ppo_mixed.pt --out ~/my_policy.pt
    python -m clue_env.policy.policy_file show models/clue_ppo_4p_mixed.pt

``link`` rewrites a policy file so that it names a network file in its own folder (with that file's
SHA-256) instead of carrying the same weights itself (:mod:`clue_env.policy.checkpoint`, version
2). The network file must hold exactly the weights the policy file holds, tensor for tensor; the
policy file's meta and accusation head are kept as they are. This is how the shipped files that
pair one network with several accusation heads stay 0.1-0.2 MB each.

``embed`` writes a self-contained copy of a file (version 1, the network's weights inside), to
take a policy out of its folder on its own. ``show`` prints what a file holds as JSON.

Both writers check every file as :func:`~clue_env.policy.checkpoint.load_policy` does, refuse
with a message naming the problem (exit status 2), and write atomically: a refused call leaves
every file as it was.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .checkpoint import (
    FORMAT,
    REF_VERSION,
    VERSION,
    CheckpointError,
    atomic_torch_save,
    layout_hash,
    load_accusation,
    load_policy,
    network_file_ref,
    network_reference,
    read_policy_file,
    read_raw_policy_file,
)


def _own(path: str) -> dict[str, Any]:
    """The file's own meta and head (read, checked and resolved as play reads it)."""
    data = read_policy_file(path)
    load_policy(path)  # the weights fit the declared network
    out: dict[str, Any] = {"meta": data.get("meta", {})}
    if data.get("accusation") is not None:
        load_accusation(path)  # the head's weights fit its declared sizes
        out["accusation"] = data["accusation"]
    return out


def link_policy(path: str, network_path: str, out_path: str | None = None) -> dict[str, str]:
    """Write ``out_path`` (default: ``path`` itself, replaced atomically): the meta and head of
    ``path`` with its network named by reference to ``network_path``, which must sit in the folder of
    ``out_path`` and hold the same weights; returns the ``"network_file"`` entry written."""
    out_path = out_path or path
    net, _meta = load_policy(path)
    own = _own(path)
    ref = network_reference(out_path, network_path, net)
    data = {"format": FORMAT, "version": REF_VERSION, "layout_hash": layout_hash(), "network_file": ref, **own}
    atomic_torch_save(data, out_path)
    return ref


def embed_policy(path: str, out_path: str) -> None:
    """Write ``out_path``: ``path`` with its network's weights inside (version 1), whether ``path``
    carries them or names its network file."""
    net, _meta = load_policy(path)
    data = {
        "format": FORMAT,
        "version": VERSION,
        "layout_hash": layout_hash(),
        "net": net.config(),
        "state_dict": {k: v.detach().cpu().clone() for k, v in net.state_dict().items()},
        **_own(path),
    }
    atomic_torch_save(data, out_path)


def describe_policy(path: str) -> dict[str, Any]:
    """What ``path`` holds: its version, network sizes and where its weights come from, its head's
    sizes and bag members, and the command that made it (checked as play checks it)."""
    import torch

    raw, sha = read_raw_policy_file(path)
    ref = network_file_ref(path, raw)
    data = read_policy_file(path)
    net, meta = load_policy(path)
    head = data.get("accusation")
    out: dict[str, Any] = {
        "file": path,
        "sha256": sha,
        "version": raw.get("version"),
        "network": net.config(),
        "network_parameters": sum(int(p.numel()) for p in net.parameters()),
        "network_file": None if ref is None else dict(raw["network_file"]),
        "accusation_head": None,
        "command": (meta.get("combined") or {}).get("command") or meta.get("command"),
        "commit": meta.get("commit"),
    }
    if head is not None:
        sd = head.get("state_dict") or {}
        out["accusation_head"] = {
            "sizes": head.get("net"),
            "parameters": sum(int(v.numel()) for v in sd.values() if isinstance(v, torch.Tensor)),
            "bag_of": (head.get("meta") or {}).get("bag_of"),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p_link = sub.add_parser("link", help="make a policy file name its network file instead of carrying the weights")
    p_link.add_argument("file", help="the policy file")
    p_link.add_argument("--network", required=True, help="the policy file in the same folder that carries the same network")
    p_link.add_argument("--out", default=None, help="write here instead of replacing FILE (same folder as --network)")
    p_embed = sub.add_parser("embed", help="write a self-contained copy, the network's weights inside")
    p_embed.add_argument("file", help="the policy file")
    p_embed.add_argument("--out", required=True, help="the new file (written atomically)")
    p_show = sub.add_parser("show", help="print what a policy file holds, as JSON")
    p_show.add_argument("file", help="the policy file")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "link":
            ref = link_policy(args.file, args.network, args.out)
            print(f"wrote {args.out or args.file}: its network is {ref['name']} (SHA-256 {ref['sha256'][:12]}...)")
        elif args.cmd == "embed":
            embed_policy(args.file, args.out)
            print(f"wrote {args.out}: {args.file} with its network's weights inside")
        else:
            print(json.dumps(describe_policy(args.file), indent=2))
    except CheckpointError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
