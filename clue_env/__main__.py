"""``python -m clue_env [actions|observation|belief ...]``: print the action and observation layouts."""

from __future__ import annotations

import argparse
import sys

from .codec import default_codec
from .observation import LAYOUT, LAYOUT_WITH_BELIEF

#: what can be printed, with what it is
LAYOUTS = {
    "actions": "the flat Discrete action space: each segment, its first index, size and text form",
    "observation": "the observation vector: each piece, its offset, size and meaning",
    "belief": "the observation vector with belief_features=True",
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m clue_env",
        description="Print the layouts of clue_env's action and observation spaces (docs/api.md states them).",
        epilog="layouts: " + "; ".join(f"{k}: {v}" for k, v in LAYOUTS.items()),
    )
    ap.add_argument("layouts", nargs="*", metavar="LAYOUT", help=f"any of {', '.join(LAYOUTS)} (default: actions observation)")
    args = ap.parse_args(argv)
    unknown = [w for w in args.layouts if w not in LAYOUTS]
    if unknown:
        ap.error(f"unknown layout {unknown[0]!r}; choose from: {', '.join(LAYOUTS)}")
    for w in args.layouts or ["actions", "observation"]:
        if w == "actions":
            print("Actions (Discrete):")
            print(default_codec().layout())
        elif w == "observation":
            print("Observation (float32):")
            print(LAYOUT.table())
        else:
            print("Observation with belief_features=True (float32):")
            print(LAYOUT_WITH_BELIEF.table())
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
