"""benchmarks/accusation_heads.py (issue 15): accusation heads replayed on recorded trajectories, the
headroom of a recording, and the two-fold refit check, on hand-built trajectories whose answers are known."""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from clue_env.policy.accusation import TOP_TRIPLES, stop_size  # noqa: E402
from clue_env.policy.accusation_net import AccusationNet  # noqa: E402
from clue_env.policy.checkpoint import save_policy  # noqa: E402
from clue_env.policy.network import CluePolicyNet  # noqa: E402
from clue_env.training.accusation_fit import Trajectory, held_out_games, save_trajectories  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
import accusation_heads  # noqa: E402

WIDTH = stop_size(5)


def _trajectories(n: int = 40) -> list[Trajectory]:
    """Seat-games of two or three opportunities; game g is won when g % 3 == 0, and its best triple is right
    at the first opportunity when g % 2 == 0 and at the last when g % 4 == 0."""
    rng = np.random.default_rng(0)
    out = []
    for g in range(n):
        T = 2 + g % 2
        correct = np.zeros(T, np.float32)
        correct[0] = float(g % 2 == 0)
        correct[-1] = max(correct[-1], float(g % 4 == 0))
        x = rng.random((T, WIDTH)).astype(np.float32)
        out.append(
            Trajectory(1000 + g, 0, x, correct, np.zeros((T, TOP_TRIPLES, 2), np.float32), np.full(T, -1), float(g % 3 == 0))
        )
    return out


def _head(path: str, accuse: bool, inputs: int = WIDTH) -> str:
    """A policy file whose head always (or never) accuses: its outputs are constant biases."""
    net = AccusationNet(hidden=8, inputs=inputs)
    with torch.no_grad():
        for part, bias in ((net.stop, 5.0 if accuse else -5.0), (net.cont, 0.0)):
            for p in part.parameters():
                p.zero_()
            part[-1].bias.fill_(bias)
    save_policy(path, CluePolicyNet(hidden=16, card_hidden=8, context_to_card=8), accusation=net)
    return path


def _run(tmp_path, trajs: list[Trajectory], name: str = "run") -> str:
    run = tmp_path / name
    (run / "accusation").mkdir(parents=True)
    (run / "config.yaml").write_text(
        "name: t\nseed: 3\nrules: edition2023\nnum_players: [2]\nppo: {timesteps: 0}\n"
        "accusation: {games: 40, features: 5, lineups: [[deduction, deduction]], iterations: 1, epochs: 1, hidden: 8,"
        " held_out: 0.25}\n"
    )
    save_trajectories(str(run / "accusation" / "lineup0_chunk0000.npz"), trajs)
    return str(run)


def test_heads_are_replayed_along_the_recorded_trajectories_and_the_headroom_is_counted(tmp_path):
    trajs = _trajectories()
    run = _run(tmp_path, trajs)
    never, always = _head(str(tmp_path / "never.pt"), False), _head(str(tmp_path / "always.pt"), True)
    out = tmp_path / "heads.json"
    assert accusation_heads.main(["--run", run, "--heads", f"{never},{always}", "--json", str(out)]) == 0
    rep = json.loads(out.read_text())
    won = np.array([t.won for t in trajs])
    first = np.array([t.correct[0] for t in trajs])
    lost = won == 0
    assert rep["headroom"]["seat_games"] == 40 and rep["headroom"]["won"] == pytest.approx(won.mean())
    assert rep["headroom"]["lost_right_at_last_chance"] == pytest.approx(np.mean(lost & [t.correct[-1] == 1 for t in trajs]))
    assert rep["headroom"]["lost_right_at_any_chance"] == pytest.approx(np.mean(lost & [t.correct.any() for t in trajs]))
    nev, alw = rep["heads"]
    assert nev["gain"] == 0.0 and nev["accuses_early"] == 0.0
    # accusing at the first opportunity wins exactly when the best triple is right there
    assert alw["gain"] == pytest.approx((first - won).mean()) and alw["accuses_early"] == 1.0
    assert alw["right_when_early"] == pytest.approx(first.mean())
    assert alw["vs_first"] == pytest.approx((first - won).mean())


def test_held_out_only_and_the_two_fold_refit_check(tmp_path):
    trajs = _trajectories()
    run = _run(tmp_path, trajs)
    never = _head(str(tmp_path / "never.pt"), False)
    out = tmp_path / "cv.json"
    assert accusation_heads.main(["--run", run, "--heads", never, "--held-out-only", "--cv", run, "--json", str(out)]) == 0
    rep = json.loads(out.read_text())
    from clue_env.training.config import load_train_config

    cfg = load_train_config(os.path.join(run, "config.yaml"))
    held = held_out_games(trajs, cfg.seed, cfg.accusation.held_out)
    assert 0 < rep["headroom"]["seat_games"] == len(held) < 40
    folds = rep["cv"]["folds"]
    assert [f["fold"] for f in folds] == [0, 1]
    assert sum(r["seat_games"] for f in folds for r in f["rows"] if r["games"].startswith("this run")) == len(held)
    assert -1.0 <= rep["cv"]["refit_minus_first"] <= 1.0


def test_a_policy_file_without_a_head_is_refused(tmp_path):
    run = _run(tmp_path, _trajectories())
    bare = str(tmp_path / "bare.pt")
    save_policy(bare, CluePolicyNet(hidden=16, card_hidden=8, context_to_card=8))
    with pytest.raises(SystemExit, match="no accusation head"):
        accusation_heads.main(["--run", run, "--heads", bare])


def test_seat_filter_and_a_paired_comparison_with_another_recording_of_the_same_games(tmp_path):
    trajs = _trajectories()
    for t in trajs[::2]:
        t.seat = 1
    run = _run(tmp_path, trajs)
    other = [Trajectory(t.game, t.seat, t.x, t.correct, t.triples, t.label, 1.0) for t in trajs]  # won every game
    other_run = _run(tmp_path, other, "other")
    out = tmp_path / "cmp.json"
    assert accusation_heads.main(["--run", run, "--seat", "1", "--compare", other_run, "--json", str(out)]) == 0
    rep = json.loads(out.read_text())
    mine = [t for t in trajs if t.seat == 1]
    assert rep["headroom"]["seat_games"] == len(mine) == 20
    c = rep["compare"]
    assert c["seat_games"] == 20 and c["won_there"] == 1.0
    assert c["difference"] == pytest.approx(np.mean([t.won for t in mine]) - 1.0)
    with pytest.raises(SystemExit, match="give --heads"):
        accusation_heads.main(["--run", run, "--cv", run])


def test_held_out_games_are_drawn_over_the_whole_recording_before_line_ups_are_chosen(tmp_path):
    """The stage draws its split over every recorded game; choosing line-ups must not redraw it."""
    trajs = _trajectories()
    run = _run(tmp_path, trajs[:20])
    save_trajectories(os.path.join(run, "accusation", "lineup1_chunk0000.npz"), trajs[20:])
    never = _head(str(tmp_path / "never.pt"), False)
    out = tmp_path / "l1.json"
    assert accusation_heads.main(["--run", run, "--lineups", "1", "--heads", never, "--held-out-only", "--json", str(out)]) == 0
    held = held_out_games(trajs, 3, 0.25)  # the run's seed and share, over both line-ups' games
    assert json.loads(out.read_text())["headroom"]["seat_games"] == len(held & {t.game for t in trajs[20:]})
    assert held & {t.game for t in trajs[20:]} != held_out_games(trajs[20:], 3, 0.25)  # a redraw would differ here


def test_a_head_of_a_set_inside_the_recorded_one_is_replayed_on_its_own_columns(tmp_path):
    """The shipped set-3 head on a set-5 recording: it reads set 3's columns (set 5 appends the opponents'
    simulated progress), so an always-accusing set-3 head replays exactly as an always-accusing set-5 one."""
    trajs = _trajectories()
    run = _run(tmp_path, trajs)
    five, three = _head(str(tmp_path / "five.pt"), True), _head(str(tmp_path / "three.pt"), True, stop_size(3))
    out = tmp_path / "heads.json"
    assert accusation_heads.main(["--run", run, "--heads", f"{five},{three}", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["heads"]
    assert rows[1]["gain"] == pytest.approx(rows[0]["gain"]) and rows[1]["vs_first"] == 0.0
    assert rows[1]["accuses_early"] == 1.0


def test_a_head_the_recording_cannot_feed_is_refused_with_both_feature_sets_named(tmp_path):
    run = _run(tmp_path, _trajectories())
    six = _head(str(tmp_path / "six.pt"), True, stop_size(6))
    with pytest.raises(SystemExit, match="reads feature set 6, the run recorded set 5"):
        accusation_heads.main(["--run", run, "--heads", six])
    three = _head(str(tmp_path / "three.pt"), True, stop_size(3))
    with pytest.raises(SystemExit, match="--cv refits the run's own feature set"):
        accusation_heads.main(["--run", run, "--heads", three, "--cv", run])


def test_the_mean_of_heads_accuses_where_their_mean_margin_is_above_zero(tmp_path):
    """``--average``: an always-accusing head (margin +5) with another gives the other's decisions when that one
    never accuses (mean 0: it waits) and its own when both always accuse; a set-3 head reads its own columns."""
    run = _run(tmp_path, _trajectories())
    never, always = _head(str(tmp_path / "never.pt"), False), _head(str(tmp_path / "always.pt"), True)
    always3 = _head(str(tmp_path / "always3.pt"), True, stop_size(3))
    out = tmp_path / "mean.json"
    assert accusation_heads.main(["--run", run, "--heads", f"{never},{always}", "--average", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["heads"]
    assert rows[2]["head"].startswith("mean of ") and rows[2]["accuses_early"] == 0.0
    assert rows[2]["gain"] == pytest.approx(rows[0]["gain"]) and rows[2]["vs_first"] == 0.0
    assert accusation_heads.main(["--run", run, "--heads", f"{always},{always3}", "--average", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["heads"]
    assert rows[2]["accuses_early"] == 1.0 and rows[2]["gain"] == pytest.approx(rows[0]["gain"])


def test_average_refuses_one_head_and_a_head_whose_scorer_picks_its_own_triple(tmp_path):
    run = _run(tmp_path, _trajectories())
    always = _head(str(tmp_path / "always.pt"), True)
    with pytest.raises(SystemExit, match="at least two"):
        accusation_heads.main(["--run", run, "--heads", always, "--average"])
    six = tmp_path / "run6"
    trajs = [
        Trajectory(t.game, t.seat, np.zeros((len(t.x), stop_size(6)), np.float32), t.correct,
                   np.zeros((len(t.x), TOP_TRIPLES, 3), np.float32), t.label, t.won)
        for t in _trajectories()
    ]  # fmt: skip
    run6 = _run(tmp_path, trajs, name=six.name)
    h6 = _head(str(tmp_path / "six.pt"), True, stop_size(6))
    with pytest.raises(SystemExit, match="--average cannot mix it"):
        accusation_heads.main(["--run", run6, "--heads", f"{h6},{h6}", "--average"])
