"""benchmarks/room_value_probe.py (issue 15): the shipped network widened by one per-room input,
the planner's room value, fitted beside the network as it is on the same decisions."""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
import room_value_probe  # noqa: E402

from clue_env.engine.cards import N_ROOMS  # noqa: E402
from clue_env.training.checkpoint import load_policy  # noqa: E402
from clue_env.training.features import POLICY_LAYOUT  # noqa: E402


def test_the_widened_network_starts_as_the_shipped_one_whatever_the_room_values():
    """The new input's weights start at zero: before any fit the two compute the same logits."""
    base, _ = load_policy(room_value_probe.SHIPPED)
    wide = room_value_probe._room_net_class()(**base.config())
    wide.widen_from(base)
    wide.eval()
    x = torch.rand(5, POLICY_LAYOUT.size)
    with torch.no_grad():
        want = base(x)[0]
        for rv in (None, torch.rand(5, N_ROOMS), torch.full((5, N_ROOMS), 3.0)):
            wide.rv = rv
            assert torch.allclose(wide(x)[0], want, atol=1e-5)
            assert torch.allclose(wide.reference_forward(x)[0], want, atol=1e-5)
        # with a non-zero weight on the new column, the room values do move the room cards' logits
        wide.card[0].weight.data[:, wide.card[0].in_features - 21 - wide.context_to_card - 1] = 1.0
        wide.rv = torch.zeros(5, N_ROOMS)
        low = wide(x)[0]
        wide.rv = torch.ones(5, N_ROOMS)
        assert not torch.allclose(wide(x)[0], low)


def test_a_small_probe_records_fits_plays_and_writes_its_figures(tmp_path):
    out = tmp_path / "probe.json"
    rc = room_value_probe.main(["--games", "6", "--epochs", "1", "--workers", "1", "--play", "2", "--json", str(out)])
    assert rc == 0
    r = json.loads(out.read_text())
    assert r["decisions"] > r["held_out_decisions"] > 0
    for key in ("network_as_is", "with_room_values"):
        assert 0.0 <= r[key]["held_out_move_accuracy_after"] <= 1.0
    # both copies start from the same function, so they agree before the fit
    assert r["network_as_is"]["held_out_move_accuracy_before"] == r["with_room_values"]["held_out_move_accuracy_before"]
    p = r["play"]
    assert p["games"] == 2 and p["difference"] == pytest.approx(p["with_room_values"] - p["network_as_is"])
    assert np.isfinite(p["difference_ci95"]).all()


def test_recorded_decisions_are_kept_and_refused_for_other_games(tmp_path, capsys):
    data = tmp_path / "d.npz"
    args = ["--games", "4", "--epochs", "1", "--workers", "1", "--data", str(data)]
    assert room_value_probe.main([*args, "--json", str(tmp_path / "a.json")]) == 0
    assert data.exists() and not list(tmp_path.glob("*.tmp.npz"))
    assert room_value_probe.main([*args, "--json", str(tmp_path / "b.json")]) == 0
    assert "read " in capsys.readouterr().out
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("a.json", "b.json"))
    assert a == b  # the same decisions, split and fits
    with pytest.raises(SystemExit):
        room_value_probe.main(["--games", "4", "--seed", "7", "--workers", "1", "--data", str(data)])
    assert "holds other games" in capsys.readouterr().err
