"""benchmarks/tell_posterior.py (issue 15): the plain and the tell-weighted posterior (feature set 6,
R26) read at a seat's accusation opportunities, scored against the envelope after the game."""

from __future__ import annotations

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
import tell_posterior  # noqa: E402


def test_R26_a_weight_of_one_is_the_plain_posterior_and_the_figures_are_written(tmp_path):
    out = tmp_path / "t.json"
    args = ["--games", "3", "--seed", "14000000", "--agent-seed", "2", "--lr", "1,0.35"]
    assert tell_posterior.main([*args, "--json", str(out)]) == 0
    r = json.loads(out.read_text())
    assert r["positions"] > 5
    plain, same, tells = r["plain"], r["tells"]["1.0"], r["tells"]["0.35"]
    for key in ("mean_log_p_true", "best_is_envelope", "mean_best_p"):
        assert same[key] == pytest.approx(plain[key], abs=1e-9)
    assert sum(b["positions"] for b in tells["bins"]) == r["positions"]
    assert 0.0 < tells["mean_best_p"] <= 1.0 and tells["mean_log_p_true"] <= 0.0


@pytest.mark.parametrize("bad", [["--lr", "0"], ["--lr", "1.5"], ["--lr", "x"], ["--games", "0"]])
def test_bad_arguments_are_refused(bad, capsys):
    with pytest.raises(SystemExit):
        tell_posterior.main(bad)
    assert "must be" in capsys.readouterr().err
