"""benchmarks/naming_rates.py (issue 15): how often a player names its own cards (R26), what
``deduction:tells`` reads."""

from __future__ import annotations

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
import naming_rates  # noqa: E402


def test_R26_notebook_never_names_a_suspect_or_weapon_it_holds_and_the_figures_are_written(tmp_path):
    """``notebook`` suggests only a suspect and a weapon it has not seen: its rate is exactly 0."""
    out = tmp_path / "n.json"
    args = ["--spec", "notebook", "--players", "3", "--rules", "classic", "--games", "3", "--seed", "5"]
    assert naming_rates.main([*args, "--json", str(out)]) == 0
    r = json.loads(out.read_text())
    assert r["suggestions"] > 0
    assert r["suspect"]["named_own"] == 0.0 and r["weapon"]["named_own"] == 0.0
    assert 0.0 < r["suspect"]["chance"] < 1.0
    assert sum(r["own_cards_per_suggestion"]) == pytest.approx(1.0)


def test_deduction_names_its_own_cards_sometimes():
    r = naming_rates.naming_rates("deduction", 2, "edition2023", 4, 12000000)
    assert r["suggestions"] > 10
    assert 0.0 < r["suspect"]["named_own"] + r["weapon"]["named_own"] < 2.0
    with pytest.raises(SystemExit):
        naming_rates.main(["--games", "0"])
