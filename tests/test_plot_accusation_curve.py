"""benchmarks/teacher_agreement.py: decisions grouped by phase from the action mask, and agreement
of an agent with a shadow of itself (issue 15: where a gain over the teacher comes from)."""

from __future__ import annotations

import os
import sys

import numpy as np

import clue_env
from clue_env.codec import default_codec

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
import teacher_agreement  # noqa: E402

CODEC = default_codec()


def _mask(*indices: int) -> np.ndarray:
    m = np.zeros(CODEC.n, dtype=np.int8)
    m[list(indices)] = 1
    return m


def test_phase_of_reads_the_mask_r26_r27_r28():
    assert teacher_agreement.phase_of(_mask(CODEC.SHOW + 3, CODEC.SHOW + 5), CODEC) == "refute"
    assert teacher_agreement.phase_of(_mask(CODEC.SUGGEST, CODEC.END, CODEC.ACCUSE), CODEC) == "suggest"
    assert teacher_agreement.phase_of(_mask(CODEC.ROLL, CODEC.ACCUSE + 7), CODEC) == "move"
    assert teacher_agreement.phase_of(_mask(CODEC.END, CODEC.ACCUSE + 7), CODEC) == "accuse/end"


def test_phases_cover_every_decision_of_a_real_game():
    env = clue_env.raw_env(num_players=3)
    env.reset(seed=4)
    seen = set()
    rng = np.random.default_rng(0)
    while not env.game.over and env.game.turn < 60:
        obs = env.observe(env.agent_selection)
        m = obs["action_mask"].copy()
        seen.add(teacher_agreement.phase_of(m, CODEC))
        m[CODEC.accuse_slice] = 0
        env.step(int(rng.choice(np.flatnonzero(m))))
    assert {"move", "accuse/end"} <= seen <= set(teacher_agreement.PHASES)


def test_a_teacher_measured_against_itself_counts_every_decision():
    r = teacher_agreement.measure("deduction", "deduction", "random", 3, "classic", 2, 0, 5, 1)
    assert r["decisions"] == sum(p["decisions"] for p in r["phases"].values()) > 0
    assert 0.0 <= r["agreement"] <= 1.0
    assert r["accusations_teacher_would_not_make"] >= 0 and r["games"] == 2


def test_plot_accusation_curve_reads_logs_and_fit_json(tmp_path):
    import json

    import plot_accusation_curve as pac

    log = tmp_path / "run.log"
    log.write_text(
        "accusation games: 10%\\raccusation head, iteration 1/2: train +2.27% ± 0.58%, held out +1.85% ± 0.97%\n"
        "accusation head, iteration 2/2: train +4.81% ± 0.52%, held out -0.29% ± 0.89%\n"
        "accusation head, iteration 1/2: train +3.77% ± 0.45%\n"  # the refit on every game: no held-out figure
    )
    assert pac.read_curve(str(log)) == [(1, 1.85, 0.97), (2, -0.29, 0.89)]
    run = tmp_path / "run"
    (run / "accusation").mkdir(parents=True)
    curve = [{"iteration": 1, "train_gain": 0.01, "train_half_width": 0.0, "held_out_gain": 0.02, "held_out_half_width": 0.005}]
    (run / "accusation" / "fit.json").write_text(json.dumps({"held_out_curve": curve}))
    assert pac.read_curve(str(run)) == [(1, 2.0, 0.5)]
    out = tmp_path / "c.png"
    assert pac.main(["--out", str(out), f"a={log}", f"b={run}"]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
