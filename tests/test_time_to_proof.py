"""benchmarks/time_to_proof.py: the turn of a seat's first proof (R28: the solution follows from
the seat's own knowledge, R31) and the race it is in (issue 15: is the network slower than its
teacher to gather evidence?)."""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
import time_to_proof  # noqa: E402


def test_a_deduction_seat_wins_only_after_its_own_proof_r28():
    rows = time_to_proof.measure("deduction", "random", 3, "classic", 3, 40, 5, 1)
    assert [r["game"] for r in rows] == [40, 41, 42]
    for r in rows:
        # `deduction` accuses only what its knowledge proves, so each win follows a proof
        assert not r["won"] or 0 <= r["proof_turn"] <= r["turns"]
        assert r["proof_turn"] <= r["turns"]
    s = time_to_proof.summary(rows)
    assert s["games"] == 3 and 0.0 <= s["lost_before_proof"] <= 1.0 - s["win_rate"] + 1e-9
    assert s["proved_share"] >= s["win_rate"]


def test_the_same_candidate_twice_proves_on_the_same_turns_determinism():
    a = time_to_proof.measure("deduction", "notebook", 3, "classic", 2, 7, 5, 1)
    b = time_to_proof.measure("deduction", "notebook", 3, "classic", 2, 7, 5, 1)
    assert a == b
    p = time_to_proof.paired_proof(a, b)
    assert p["games"] < 2 or p["difference"] == 0.0


def test_paired_proof_counts_only_games_both_proved():
    a = [{"proof_turn": 10}, {"proof_turn": -1}, {"proof_turn": 20}, {"proof_turn": 30}]
    b = [{"proof_turn": 12}, {"proof_turn": 5}, {"proof_turn": 24}, {"proof_turn": -1}]
    p = time_to_proof.paired_proof(a, b)
    assert p["games"] == 2 and p["difference"] == -3.0
    assert p["ci95"][0] < -3.0 < p["ci95"][1]


def test_the_script_writes_its_figures(tmp_path, capsys):
    out = tmp_path / "ttp.json"
    rc = time_to_proof.main(
        ["--candidates", "deduction,notebook", "--opponents", "random", "--players", "3", "--games", "2"]
        + ["--workers", "1", "--json", str(out)]
    )
    assert rc == 0
    report = json.loads(out.read_text())
    assert set(report["candidates"]) == {"deduction", "notebook"} and len(report["games"]["notebook"]) == 2
    assert "turn of proof" in capsys.readouterr().out
