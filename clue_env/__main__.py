"""``python -m clue_env [actions|observation|belief]``: print the action and observation layouts."""

from __future__ import annotations

import sys

from .codec import default_codec
from .observation import LAYOUT, LAYOUT_WITH_BELIEF


def main(argv: list[str] | None = None) -> int:
    what = (argv if argv is not None else sys.argv[1:]) or ["actions", "observation"]
    for w in what:
        if w == "actions":
            print("Actions (Discrete):")
            print(default_codec().layout())
        elif w == "observation":
            print("Observation (float32):")
            print(LAYOUT.table())
        elif w == "belief":
            print("Observation with belief_features=True (float32):")
            print(LAYOUT_WITH_BELIEF.table())
        else:
            print(f"unknown layout {w!r}; choose from: actions, observation, belief", file=sys.stderr)
            return 2
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
