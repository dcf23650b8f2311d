"""benchmarks/league_gap.py (issue 15): how large a win-rate gap the league's verdict needs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import league_gap  # noqa: E402


def test_a_larger_gap_moves_the_ratings_further_apart_and_the_verdict_needs_more_with_fewer_games(tmp_path):
    out = tmp_path / "gap.json"
    assert league_gap.main(["--games", "300,1200", "--gaps", "0.0,0.5", "--repeats", "1", "--json", str(out)]) == 0
    rows = {(r["games"], r["gap"]): r for r in json.loads(out.read_text())["rows"]}
    assert set(rows) == {(300, 0.0), (300, 0.5), (1200, 0.0), (1200, 0.5)}
    for n in (300, 1200):
        assert rows[(n, 0.5)]["mu_gap"] > rows[(n, 0.0)]["mu_gap"] + 3.0
        assert rows[(n, 0.5)]["win_rate_a"] - rows[(n, 0.5)]["win_rate_b"] > 0.4
        assert rows[(n, 0.5)]["clear"] == 1 and rows[(n, 0.0)]["clear"] == 0
    assert rows[(1200, 0.0)]["needed"] < 0.7 * rows[(300, 0.0)]["needed"]  # more games, narrower intervals


def test_the_simulation_is_seeded():
    rows = [league_gap.measure([200], [0.1], 0.05, 2, seed=4) for _ in range(2)]
    assert rows[0] == rows[1]
    assert rows[0] != league_gap.measure([200], [0.1], 0.05, 2, seed=5)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--games", "0"], "must be positive"),
        (["--games", "x"], "comma-separated ints"),
        (["--repeats", "0"], "must be positive"),
        (["--third", "1.0"], "--third must be in"),
        (["--gaps", "0.99"], "every gap"),
    ],
)
def test_bad_flags_are_refused_with_what_is_wrong(args, says, capsys):
    with pytest.raises(SystemExit) as e:
        league_gap.main(args)
    assert e.value.code == 2
    assert says in capsys.readouterr().err
