"""The learning curve of a run (``curve.png``): its evaluation rows (``eval.jsonl``) drawn with matplotlib."""

from __future__ import annotations

from typing import Any


def plot_curve(rows: list[dict[str, Any]], path: str, title: str) -> None:
    """Win rate against each baseline (with 95% intervals) and wrong-accusation rate over timesteps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..fileio import figure_png, write_output

    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    players = int(rows[0].get("num_players", 4)) if rows else 4
    for opp in dict.fromkeys(r["opponent"] for r in rows):
        rs = [r for r in rows if r["opponent"] == opp]
        x = [r["timesteps"] for r in rs]
        y = [r["win_rate"] for r in rs]
        lo = [r["win_rate"] - r["ci95"][0] for r in rs]
        hi = [r["ci95"][1] - r["win_rate"] for r in rs]
        ax.errorbar(x, y, yerr=[lo, hi], marker="o", capsize=3, label=f"vs {players - 1} {opp}")
        ax2.plot(x, [r["wrong_accusation_rate"] for r in rs], marker="o", label=f"vs {players - 1} {opp}")
    ax.axhline(1 / players, color="grey", linestyle="--", linewidth=1, label=f"fair share ({players} players)")
    ax.set_ylim(0, 1)
    ax.set_xlabel("PPO timesteps (0 = before PPO)")
    ax.set_ylabel("win rate")
    ax.set_title(f"{title}: win rate")
    ax.legend(fontsize=8)
    ax2.set_ylim(0, max(0.1, max((r["wrong_accusation_rate"] for r in rows), default=0) * 1.2))
    ax2.set_xlabel("PPO timesteps (0 = before PPO)")
    ax2.set_ylabel("wrong accusations per game")
    ax2.set_title("wrong-accusation rate")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    # rendered in memory, then written atomically for a regular or new file and straight through
    # for anything else (a symlink, a FIFO, /dev/stdout): never a PATH.tmp.png renamed over it
    write_output(path, figure_png(fig, dpi=100), prefix=".curve.")


__all__ = ["plot_curve"]
