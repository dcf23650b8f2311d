"""The accusation head's learning curve: held-out gain over waiting for proof per value iteration.

    python benchmarks/plot_accusation_curve.py --out docs/accusation_curve.png \\
        LABEL=RUN_DIR_OR_LOG [LABEL=RUN_DIR_OR_LOG ...]

Each source is a run directory (its ``accusation/fit.json`` ``held_out_curve``) or a train.py log
(its ``accusation head, iteration i/n: ..., held out +g% ± h%`` lines, the held-out fit's).
Iteration 0 is the imitation start: the network alone waits for proof, a gain of 0 by definition.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys

_LINE = re.compile(r"iteration (\d+)/\d+: .*held out ([+-][\d.]+)% ± ([\d.]+)%")


def read_curve(source: str) -> list[tuple[int, float, float]]:
    """(iteration, gain, 95% half-width) in points, from a run directory or a log."""
    fit = os.path.join(source, "accusation", "fit.json")
    if os.path.isdir(source):
        with open(fit, encoding="utf-8") as f:
            rows = json.load(f).get("held_out_curve", [])
        return [(int(r["iteration"]), 100 * r["held_out_gain"], 100 * r["held_out_half_width"]) for r in rows]
    out = []
    with open(source, encoding="utf-8", errors="replace") as f:
        for line in f.read().replace("\r", "\n").splitlines():
            m = _LINE.search(line)
            if m:
                out.append((int(m.group(1)), float(m.group(2)), float(m.group(3))))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sources", nargs="+", help="LABEL=PATH (a run directory or a train.py log)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from clue_env.fileio import figure_png, write_output

    fig, ax = plt.subplots(figsize=(7, 4))
    for src in args.sources:
        label, _, path = src.partition("=")
        if not path:
            ap.error(f"{src!r}: expected LABEL=PATH")
        curve = read_curve(path)
        if not curve:
            ap.error(f"{path!r}: no held-out curve found")
        it = [0] + [c[0] for c in curve]
        g = [0.0] + [c[1] for c in curve]
        h = [0.0] + [c[2] for c in curve]
        ax.errorbar(it, g, yerr=h, marker="o", capsize=3, label=label)
    ax.axvline(0, color="grey", linestyle=":")
    ax.text(0.05, 0.97, "iteration 0: imitation start\n(the network alone waits for proof)", transform=ax.transAxes,
            fontsize=8, color="grey", va="top")  # fmt: skip
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xlabel("value iteration of the stopping-rule fit")
    ax.set_ylabel("held-out gain in win rate (points, 95% CI)")
    ax.set_title("accusation head: gain over the network alone, on held-out games")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    write_output(args.out, figure_png(fig))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
