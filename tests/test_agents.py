"""Agents: specs, legality, the baselines' guarantees, tournaments and evaluate.py (issue 3)."""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

import clue_env
from agents import make_agent, parse_spec
from agents.deduction import DeductionAgent, information_gain
from agents.tournament import play_game, run_tournament, summarise, wilson

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:  # evaluate.py lives at the repository root (as under `python -m pytest`)
    sys.path.insert(0, ROOT)


def test_parse_spec_forms():
    assert parse_spec("random") == ("random", {})
    assert parse_spec("deduction:threshold=0.9") == ("deduction", {"threshold": 0.9})
    assert parse_spec("ppo:runs/model.zip") == ("ppo", "runs/model.zip")
    with pytest.raises(ValueError, match="key=value"):
        parse_spec("deduction:0.9")
    assert parse_spec("ppo") == ("ppo", "")  # the shipped policy


def test_make_agent_errors_name_the_problem():
    with pytest.raises(ValueError, match="unknown agent 'genius'.*known agents"):
        make_agent("genius", seat=0, num_players=4)
    with pytest.raises(ValueError, match="bad parameters"):
        make_agent("notebook:depth=3", seat=0, num_players=4)
    with pytest.raises(ValueError, match="threshold"):
        make_agent("deduction:threshold=1.5", seat=0, num_players=4)
    a = make_agent("deduction:threshold=0.8", seat=2, num_players=4, seed=1)
    assert isinstance(a, DeductionAgent) and a.threshold == 0.8 and a.seat == 2 and a.spec == "deduction:threshold=0.8"


@pytest.mark.parametrize(
    "spec, name",
    [
        ("deduction:samples=0", "samples"),
        ("deduction:samples=-5", "samples"),
        ("deduction:samples=1.5", "samples"),
        ("deduction:samples=true", "samples"),
        ("deduction:samples=100000000", "samples"),
        ("deduction:samples=many", "samples"),
        ("deduction:exact_budget=-1", "exact_budget"),
        ("deduction:exact_budget=2.5", "exact_budget"),
        ("deduction:exact_budget=false", "exact_budget"),
        ("deduction:exact_budget=1000000000000", "exact_budget"),
    ],
)
def test_deduction_parameters_are_checked_when_the_agent_is_built(spec, name):
    """samples=0 or -5 used to crash mid-game in numpy; 1.5, true and 10^8 were taken as they stood."""
    with pytest.raises(ValueError, match=rf"bad parameters for agent 'deduction'.*{name} must be an integer from \d+ to \d+"):
        make_agent(spec, seat=0, num_players=4)


def test_deduction_plays_with_the_smallest_and_largest_parameters():
    a = make_agent("deduction:samples=4096,exact_budget=1000000", seat=0, num_players=3)
    assert a.samples == 4096 and a.exact_budget == 1_000_000
    assert DeductionAgent(1, 3, samples=np.int64(8)).samples == 8
    r = play_game(["deduction:samples=1,exact_budget=0", "deduction:samples=1", "random"], "classic", seed=3, index=0)
    assert r.turns >= 1


@pytest.mark.parametrize("spec", ["random", "uniform", "notebook", "deduction", "deduction:threshold=0.7"])
def test_agents_only_play_legal_actions(spec):
    # play_game runs on the raw env, whose step raises on an illegal action
    for i in range(3):
        r = play_game([spec, "notebook", "random"], "classic", seed=10, index=i)
        assert r.turns >= 1


def test_uniform_accuses_wrongly_at_once_and_random_never_accuses():
    r = play_game(["uniform", "random", "random", "random"], "classic", seed=3, index=0)
    assert r.wrong_accusations[0] == 1
    assert sum(r.wrong_accusations[1:]) == 0


def test_notebook_and_deduction_never_accuse_wrongly():
    s = run_tournament(["deduction", "notebook", "notebook", "deduction"], 24, seed=5, workers=1, progress=False)
    assert s["results"]["deduction"]["wrong_accusations"] == 0
    assert s["results"]["notebook"]["wrong_accusations"] == 0
    assert s["truncated"] == 0


def test_deduction_beats_notebooks_on_a_small_sample():
    s = run_tournament(["deduction", "notebook", "notebook", "notebook"], 40, seed=1, workers=1, progress=False)
    assert s["results"]["deduction"]["win_rate"] > 0.4


def test_tournament_is_reproducible_and_independent_of_workers():
    a = run_tournament(["notebook", "random", "random"], 12, seed=7, workers=1, progress=False, agent_seed=11)
    b = run_tournament(["notebook", "random", "random"], 12, seed=7, workers=2, progress=False, agent_seed=11)
    for s in (a, b):
        s.pop("games_per_s_per_core")
        s.pop("seconds_per_decision")
    assert a == b


def test_seats_rotate():
    results = [play_game(["notebook", "random", "random"], "classic", seed=0, index=i) for i in range(3)]
    assert [r.seats.index("notebook") for r in results] == [0, 2, 1]


def test_wilson_interval():
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


def test_summary_has_the_spec_json_shape():
    results = [play_game(["notebook", "random", "random"], "classic", seed=0, index=i) for i in range(3)]
    s = summarise(["notebook", "random", "random"], results, "classic")
    assert {"games", "num_players", "rules", "results", "truncated", "mean_turns"} <= set(s)
    row = s["results"]["random"]
    assert row["games"] == 6  # counted once per seat-game
    assert {"games", "wins", "win_rate", "ci95", "wrong_accusations"} <= set(row)
    json.dumps(s)


def test_evaluate_script_writes_json_and_chart(tmp_path):
    import evaluate

    out, chart = tmp_path / "r.json", tmp_path / "r.png"
    rc = evaluate.main(
        ["--seats", "notebook,random,random", "--games", "6", "--seed", "1", "--json", str(out), "--chart", str(chart), "--quiet"]
    )
    assert rc == 0
    data = json.loads(out.read_text())
    assert data["games"] == 6 and data["num_players"] == 3 and data["rules"] == "classic"
    assert chart.stat().st_size > 1000


def test_a_seat_list_keeps_each_specs_own_parameters():
    """``--seats`` separates specs with commas and so does a spec's own parameter list: a ``key=value``
    item names no agent, so it stays with the spec before it."""
    from agents import split_specs

    assert split_specs("deduction:tells=0.35,pull=far,deduction") == ["deduction:tells=0.35,pull=far", "deduction"]
    spaced = "ppo,deduction:samples=32, threshold=0.9 ,random"
    assert split_specs(spaced) == ["ppo", "deduction:samples=32,threshold=0.9", "random"]
    assert split_specs("ppo:runs/a.pt,notebook") == ["ppo:runs/a.pt", "notebook"]
    assert split_specs("random,,notebook") == ["random", "", "notebook"]  # the caller refuses the empty one
    for bad in ("pull=far,deduction", "deduction,pull=far", "ppo:runs/a.pt,x=1"):
        with pytest.raises(ValueError, match="is a parameter, not an agent"):
            split_specs(bad)


def test_evaluate_plays_a_spec_with_several_parameters(tmp_path):
    import evaluate

    out = tmp_path / "e.json"
    seats = "deduction:samples=16,exact_budget=0,notebook,random"
    assert evaluate.main(["--seats", seats, "--games", "2", "--json", str(out), "--chart", "", "--quiet"]) == 0
    assert set(json.loads(out.read_text())["results"]) == {"deduction:samples=16,exact_budget=0", "notebook", "random"}


def test_evaluate_script_rejects_a_bad_spec(tmp_path, capsys):
    import evaluate

    rc = evaluate.main(["--seats", "notebook,wizard,random", "--games", "2", "--json", "", "--chart", "", "--quiet"])
    assert rc == 2
    assert "wizard" in capsys.readouterr().err
    rc = evaluate.main(["--seats", "pull=far,random", "--games", "2", "--json", "", "--chart", "", "--quiet"])
    assert rc == 2
    assert "is a parameter, not an agent" in capsys.readouterr().err


def test_information_gain_prefers_unknown_cards():
    # 3 players, me = 0: random deals; the envelope (location 3) varies, so suggestions inform.
    rng = np.random.default_rng(0)
    samples = np.zeros((50, 21), dtype=np.int64)
    for i in range(50):
        perm = rng.permutation(np.arange(1, 21))
        samples[i, perm[:6]] = 1
        samples[i, perm[6:12]] = 2
        samples[i, perm[12:]] = 0
        env = [int(rng.integers(0, 6)), 6 + int(rng.integers(0, 6)), 12 + int(rng.integers(0, 9))]
        samples[i, env] = 3
    g = information_gain(samples, 0, 3, rng)
    assert g.shape == (6, 6, 9)
    assert (g >= -1e-9).all() and g.max() > 0


def test_information_gain_is_zero_when_the_envelope_is_known():
    rng = np.random.default_rng(1)
    samples = np.zeros((20, 21), dtype=np.int64)
    samples[:, [0, 6, 12]] = 3
    samples[:, 1:6] = 1
    samples[:, 7:12] = 2
    samples[:, 13:] = 0
    assert np.abs(information_gain(samples, 0, 3, rng)).max() < 1e-12


def test_belief_features_are_a_distribution_per_card():
    from clue_env.observation import LAYOUT_WITH_BELIEF

    e = clue_env.raw_env(num_players=4, belief_features=True)
    e.reset(seed=2)
    b = LAYOUT_WITH_BELIEF.view(e.observe("player_1")["observation"], "belief")
    np.testing.assert_allclose(b.sum(axis=1), 1.0, atol=1e-6)
    hand = e.game.hands[1]
    assert all(b[c, 0] == 1.0 for c in hand)
    assert e.observation_space("player_1")["observation"].shape == (LAYOUT_WITH_BELIEF.size,)
    assert LAYOUT_WITH_BELIEF.size == 1059 + 168


def test_R31_agent_seeds_carry_nothing_about_the_deal():
    """An agent's seed is a child of a separate entropy: searching how seeds were once made from
    (base seed, game, seat) finds nothing, and two tournaments with the same --seed give their
    agents different seeds unless the agent seed is passed back."""
    from agents.tournament import agent_seed_for

    def old_mix(seed: int, index: int, seat: int) -> int:  # the derivation an attacker would search
        return int(np.random.SeedSequence([seed, index, seat]).generate_state(1)[0])

    a = run_tournament(["random", "random", "random"], 4, seed=7, workers=1, progress=False)
    b = run_tournament(["random", "random", "random"], 4, seed=7, workers=1, progress=False)
    assert a["agent_seed"] != b["agent_seed"] and a["seed"] == b["seed"] == 7
    given = {agent_seed_for(a["agent_seed"], g, s) for g in range(4) for s in range(3)}
    searched = {old_mix(base, g, s) for base in range(200) for g in range(4) for s in range(3)}
    assert not given & searched
    assert agent_seed_for(5, 1, 2) == agent_seed_for(5, 1, 2) != agent_seed_for(5, 2, 1)  # replayable


@pytest.mark.parametrize("flags", [["--workers", "0"], ["--workers", "-1"], ["--games", "0"]])
def test_evaluate_script_rejects_bad_counts_before_playing(flags, capsys):
    import evaluate

    with pytest.raises(SystemExit) as e:
        evaluate.main(["--seats", "random,random,random", *flags, "--quiet"])
    assert e.value.code == 2 and flags[0] in capsys.readouterr().err


def test_evaluate_checks_output_paths_before_playing(tmp_path, capsys):
    import evaluate

    for flag, path in (("--json", str(tmp_path)), ("--chart", str(tmp_path))):  # a directory
        with pytest.raises(SystemExit) as e:
            evaluate.main(["--seats", "random,random,random", "--games", "100000", "--quiet", flag, path])
        assert e.value.code == 2 and "directory" in capsys.readouterr().err
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    if not os.access(ro, os.W_OK):  # (root can write anyway)
        with pytest.raises(SystemExit):
            evaluate.main(["--seats", "random,random,random", "--quiet", "--json", str(ro / "x.json")])
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".evaluate.*"))


def test_evaluate_writes_through_special_files_and_keeps_the_umask(tmp_path, capfd):
    import evaluate

    rc = evaluate.main(["--seats", "random,random,random", "--games", "3", "--quiet", "--json", "/dev/stdout", "--chart", ""])
    assert rc == 0 and '"games": 3' in capfd.readouterr().out
    out = tmp_path / "r.json"
    assert evaluate.main(["--seats", "random,random,random", "--games", "2", "--quiet", "--json", str(out), "--chart", ""]) == 0
    umask = os.umask(0)
    os.umask(umask)
    assert (out.stat().st_mode & 0o777) == 0o666 & ~umask
    target = tmp_path / "target.json"
    target.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert evaluate.main(["--seats", "random,random,random", "--games", "2", "--quiet", "--json", str(link), "--chart", ""]) == 0
    assert link.is_symlink() and '"games": 2' in target.read_text()
    if os.path.exists("/dev/full"):
        rc = evaluate.main(["--seats", "random,random,random", "--games", "2", "--quiet", "--json", "/dev/full", "--chart", ""])
        assert rc == 1 and "cannot write" in capfd.readouterr().err


def test_a_huge_tournament_is_streamed_and_ctrl_c_stops_it_cleanly(capsys, monkeypatch):
    import evaluate
    from agents import tournament

    played = []
    original = tournament.play_game

    def interrupted(specs, rules, seed, index, agent_seed=None):
        if len(played) == 5:
            raise KeyboardInterrupt
        played.append(index)
        return original(specs, rules, seed, index, agent_seed)

    monkeypatch.setattr(tournament, "play_game", interrupted)
    rc = evaluate.main(["--seats", "random,random,random", "--games", "100000000", "--workers", "1", "--quiet",
                        "--json", "", "--chart", ""])  # fmt: skip
    err = capsys.readouterr().err
    assert rc == 130 and "interrupted after 5 finished games" in err and "nothing written" in err
