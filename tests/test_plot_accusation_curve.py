"""benchmarks/plot_accusation_curve.py: the accusation head's held-out curve, read from a train.py log
or a run's ``accusation/fit.json``, and drawn."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))


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
