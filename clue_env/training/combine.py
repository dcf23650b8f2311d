"""Put the accusation head of one policy file beside the network of another.

    python -m clue_env.training.combine --network runs/classic_big/policy.pt \\
        --head models/clue_ppo_mixed.pt --out models/clue_ppo_3p.pt

An accusation head (:mod:`clue_env.policy.accusation_net`) is fitted on recorded ``deduction``
games from inputs of the seat's own view only (its posterior, the public race counts, the
opponents' tells), never from the network's outputs, so a head fitted beside one network fits
another network of the same layout unchanged: refitting it with the other network as ``init``
gives the same weights bit for bit. This tool saves that refit: the new file has the network's
weights and meta, the head's weights and meta as they are, and a ``combined`` entry naming both
sources (with their SHA-256) and the command. Both files are checked as :func:`load_policy` and
:func:`load_accusation` check them (a head file without a head is refused); a refused call leaves no file.

``--head A,B`` (several files) writes one head that bags theirs: it accuses where the mean of their
stop-minus-wait logits is above zero (:func:`~clue_env.policy.accusation_net.bag_heads`; a head of
feature set 3 beside one of set 5 reads set 3's columns, the first ones). Its meta names the files
(``bag_of``) and keeps each head's meta (``metas``).

``--no-head`` (instead of ``--head``) writes the network alone, without any head: how a network
file such as ``models/clue_ppo_2p.pt`` is cut out of a run whose policy carries its ``init``'s head.

``--reference`` names the network file (in ``--out``'s folder) and its SHA-256 instead of carrying
its weights, as the shipped files that share a network do (:mod:`clue_env.policy.checkpoint`).

``--planner tells=0.35,pull=avoid`` sets the file's ``meta["planner"]``: the ``deduction`` planner a
network that reads planner inputs (``room_values`` 1-4) gets in play (``tells`` a number in (0, 1],
``pull`` only ``avoid``, ``shows`` ``any`` or ``repeat``, ``samples`` an int from 1 to 4096, ``moves``
``roll`` or ``own``; the ``ppo`` agent checks it again when it loads the file). A bad one is refused before anything is written.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from ..fileio import sha256_file as _sha256
from ..policy.accusation_net import accusation_state, bag_heads
from ..policy.checkpoint import CheckpointError, check_planner, load_accusation, load_policy, read_policy_file, save_policy


def parse_planner(text: str) -> dict[str, Any]:
    """``tells=0.35,pull=avoid`` -> ``{"tells": 0.35, "pull": "avoid"}``, checked as a policy file's
    planner is (:func:`~clue_env.policy.checkpoint.check_planner`); ``ValueError`` saying what is wrong."""
    out: dict[str, Any] = {}
    for item in text.split(","):
        key, eq, value = (x.strip() for x in item.partition("="))
        if not eq or not key:
            raise ValueError(f"bad planner item {item!r} in {text!r}: write key=value, e.g. tells=0.35,pull=avoid")
        try:
            out[key] = float(value) if key == "tells" else int(value) if key == "samples" else value
        except ValueError:
            out[key] = value  # refused below, with the value named
    return check_planner(out)


def combine_policy(
    network_path: str,
    head_path: str | Sequence[str] | None,
    out_path: str,
    command: str = "",
    planner: dict[str, Any] | None = None,
    reference: bool = False,
) -> dict[str, Any]:
    """Write ``out_path``: the network of ``network_path`` with the accusation head of
    ``head_path`` (``None``: with no head at all; a list of several files: one head bagging all of
    theirs, :func:`~clue_env.policy.accusation_net.bag_heads`), and with ``planner`` (see
    :func:`parse_planner`) as its ``meta["planner"]`` when given; with ``reference``, naming
    ``network_path`` (in the folder of ``out_path``) instead of carrying its weights; returns the new file's meta. Raises
    :class:`CheckpointError` (naming the file) for a missing, corrupt or foreign file, for a head file
    that holds no head, and for heads that cannot share a bag."""
    net, net_meta = load_policy(network_path)
    paths = [head_path] if isinstance(head_path, str) else list(head_path or [])
    heads = []
    for path in paths:
        h = load_accusation(path)  # checks the head's weights as play would
        if h is None:
            raise CheckpointError(f"{path!r} holds no accusation head (fit one with an 'accusation:' config in train.py)")
        heads.append(h)
    head: Any = None
    if len(paths) == 1:
        head = read_policy_file(paths[0])["accusation"]
    elif paths:
        try:
            bag = bag_heads(heads)
        except ValueError as e:
            raise CheckpointError(f"the heads of {', '.join(map(repr, paths))} cannot be bagged: {e}") from None
        head = accusation_state(
            bag, {"bag_of": paths, "metas": [read_policy_file(p)["accusation"].get("meta", {}) for p in paths]}
        )
    shas = [_sha256(p) for p in paths]
    meta = dict(net_meta)
    if planner is not None:
        meta["planner"] = dict(planner)
    meta["combined"] = {
        "network": network_path,
        "network_sha256": _sha256(network_path),
        "head": paths[0] if isinstance(head_path, str) else paths or None,
        "head_sha256": shas[0] if isinstance(head_path, str) else shas or None,
        "command": command,
    }
    save_policy(out_path, net, meta, accusation=head, network_file=network_path if reference else None)
    return meta


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--network", required=True, help="the policy file whose network is kept")
    which = ap.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--head",
        help="the policy file whose accusation head is kept; several, comma-separated: one head bagging theirs",
    )
    which.add_argument("--no-head", action="store_true", help="write the network alone, with no accusation head")
    ap.add_argument("--out", required=True, help="the new policy file (written atomically)")
    ap.add_argument(
        "--reference",
        action="store_true",
        help="name the --network file (same folder as --out) and its SHA-256 instead of copying its weights",
    )
    ap.add_argument(
        "--planner", default=None, help="set meta['planner'], e.g. tells=0.35,pull=avoid (default: the network file's)"
    )
    args = ap.parse_args(argv)
    command = "python -m clue_env.training.combine " + " ".join(sys.argv[1:] if argv is None else argv)
    try:
        planner = None if args.planner is None else parse_planner(args.planner)
    except ValueError as e:
        ap.error(str(e))
    try:
        heads = None if args.head is None else args.head if "," not in args.head else [h for h in args.head.split(",") if h]
        combine_policy(args.network, heads, args.out, command=command, planner=planner, reference=args.reference)
    except CheckpointError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    with_head = "no accusation head" if args.head is None else f"the accusation head of {args.head}"
    print(f"wrote {args.out}: the network of {args.network} with {with_head}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
