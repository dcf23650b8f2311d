"""Fair tournament measurement: balanced seating, paired controls, leagues, safe charts (evaluate.py)."""

from __future__ import annotations

import itertools
import json
import math
import os
import stat
import sys
import threading
from collections import Counter

import numpy as np
import pytest

from agents import tournament
from agents.league import games_of, league_players, league_schedule, rate_games, run_league
from agents.output import format_table, plot
from agents.tournament import GameResult, Schedule, arrangements, circular_orders, control_summary, play_game, run_tournament

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:  # evaluate.py lives at the repository root (as under `python -m pytest`)
    sys.path.insert(0, ROOT)

FAST = ["notebook", "random", "uniform"]  # uniform accuses (wrongly) at once: short games


def _quiet(**kw):
    return dict(workers=1, progress=False, agent_seed=3, **kw)


def _strip_timing(s):
    s = dict(s)
    s.pop("games_per_s_per_core")
    s.pop("seconds_per_decision")
    return s


# --- balanced seating -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "lineup",
    [("a", "b", "c"), ("a", "b", "c", "d"), ("p", "d", "d", "d"), ("a", "a", "b", "b"), ("a", "a", "b", "b", "c", "c"),
     ("a", "a", "a", "b", "b", "b"), ("a", "b", "c", "d", "e")],
)  # fmt: skip
def test_every_multiple_of_p_games_shares_every_seat_and_a_cycle_holds_every_arrangement_equally(lineup):
    cycle = arrangements(lineup)
    p, m = len(lineup), Counter(lineup)
    assert cycle[0] == lineup  # the line-up as given comes first
    for k in range(p, len(cycle) + 1, p):
        for seat in range(p):
            seen = Counter(a[seat] for a in cycle[:k])
            assert all(seen[s] * p == m[s] * k for s in m), (k, seat)
    distinct = set(itertools.permutations(lineup))
    expected = math.factorial(p) // math.prod(math.factorial(c) for c in m.values())
    assert set(cycle) == distinct and len(distinct) == expected
    assert len(set(Counter(cycle).values())) == 1  # every arrangement equally often
    for start in range(0, len(cycle), p):  # blocks of p: the rotations of one circular order
        block = cycle[start : start + p]
        assert all(block[r] == block[0][r:] + block[0][:r] for r in range(p))


def test_distinct_specs_meet_every_neighbour_equally_often():
    lineup = ("a", "b", "c", "d", "e")
    cycle = arrangements(lineup)
    assert len(cycle) == math.factorial(5) and len(circular_orders(lineup)) == math.factorial(4)
    left = Counter((a[i], a[(i - 1) % 5]) for a in cycle for i in range(5))
    assert len(left) == 5 * 4 and len(set(left.values())) == 1


def test_symmetric_orders_are_not_overweighted():
    # a,b,a,b has two distinct rotations: the other order's block repeats so each arrangement counts the same
    cycle = arrangements(("a", "a", "b", "b"))
    assert len(cycle) == 12 and set(Counter(cycle).values()) == {2}


@pytest.mark.parametrize(
    "specs",
    [["ppo", "deduction", "deduction", "deduction"], ["notebook", "random", "random"], ["random"] * 4, ["a", "b"]],
)
def test_lineups_whose_arrangements_are_rotations_play_todays_games(specs):
    p = len(specs)
    schedule = Schedule.of(specs)
    for g in range(3 * p):
        assert schedule.seats(g) == [specs[(i + g) % p] for i in range(p)]
    assert schedule.cycle == (1 if len(set(specs)) == 1 else p)


def test_play_game_seats_follow_the_cycle_and_are_a_function_of_the_specs():
    specs = ["notebook", "random", "uniform"]
    cycle = arrangements(tuple(specs))
    assert len(cycle) == 6 and arrangements(tuple(specs)) == cycle
    for g in range(7):
        r = play_game(specs, "classic", seed=0, index=g, agent_seed=1)
        assert r.seats == list(cycle[g % 6])
    # the same game, played by its seats directly, is identical
    again = tournament.play_seats(list(cycle[4]), "classic", 0, 4, 1)
    first = play_game(specs, "classic", 0, 4, 1)
    assert (again.winner, again.turns, again.seats) == (first.winner, first.turns, first.seats)


def test_summary_and_table_say_balanced_and_note_a_partial_cycle():
    s = run_tournament(FAST, 4, seed=2, **_quiet())
    assert s["seating"] == "balanced" and s["seating_cycle"] == 6 and s["circular_orders"] == 2
    assert sum(r["games"] for r in s["results"].values()) == 12
    table = format_table(s)
    assert "seats balanced over 2 circular orders (6-game cycle)" in table
    assert "not a multiple of the 6-game seating cycle" in table and "seats and neighbours" in table
    full = format_table(run_tournament(FAST, 6, seed=2, **_quiet()))
    assert "not a multiple" not in full
    same = format_table(run_tournament(["random"] * 3, 2, **_quiet()))
    assert "the same agent in every seat" in same and "not a multiple" not in same


# --- paired control ---------------------------------------------------------------------------


def test_control_equal_to_the_candidate_replays_identical_games():
    s = run_tournament(FAST, 6, seed=4, **_quiet(control="notebook"))
    c = s["control"]
    assert c["spec"] == c["candidate"] == "notebook" and c["games"] == 6
    assert c["difference"] == 0.0 and c["difference_ci95"] == [0.0, 0.0]
    assert c["win_rate"] == c["candidate_win_rate"] == s["results"]["notebook"]["win_rate"]
    assert c["ci95"] == s["results"]["notebook"]["ci95"]
    for g in range(3):
        a, b = play_game(FAST, "classic", 4, g, 3), play_game(FAST, "classic", 4, g, 3, control="notebook")
        assert (a.seats, a.winner, a.turns) == (b.seats, b.winner, b.turns) and b.control


def test_control_shows_deduction_beats_random_with_a_paired_interval_clear_of_zero():
    s = run_tournament(["deduction", "random", "random"], 12, seed=0, **_quiet(control="random"))
    c = s["control"]
    assert c["candidate"] == "deduction" and c["spec"] == "random"
    assert c["difference"] > 0 and c["difference_ci95"][0] > 0
    assert c["candidate_win_rate"] == s["results"]["deduction"]["win_rate"]
    assert "control: random in deduction's seats, same deals" in format_table(s)
    assert "(paired, 12 games)" in format_table(s)


def test_a_paired_interval_separates_deduction_from_notebook_on_the_same_deals():
    # deduction vs notebook in the same seat, same deals and seeds: the spread is real (not all d_g equal)
    s = run_tournament(["deduction", "notebook", "random"], 30, seed=0, **_quiet(control="notebook"))
    c = s["control"]
    lo, hi = c["difference_ci95"]
    assert 0 < lo < c["difference"] < hi < 1


def _result(index, seats, winner, control=False):
    return GameResult(index, seats, winner, 10, False, [0] * len(seats), 10, 0.01, control)


def test_control_difference_is_the_paired_mean_with_a_t_style_interval():
    seats = ["x", "o", "x", "o"]  # the candidate holds two seats: k = 2
    main = [_result(0, seats, 0), _result(1, seats, 1), _result(2, seats, 2), _result(3, seats, -1)]
    ctrl = [_result(0, seats, 1, True), _result(1, seats, 1, True), _result(2, seats, 0, True), _result(3, seats, 3, True)]
    c = control_summary(main, ctrl, "x", "y")
    d = [0.5, 0.0, 0.0, 0.0]  # (x_g - y_g) / k
    mean = sum(d) / 4
    sd = math.sqrt(sum((v - mean) ** 2 for v in d) / 3)
    assert c["difference"] == pytest.approx(mean)
    assert c["difference_ci95"] == pytest.approx([mean - 1.959963984540054 * sd / 2, mean + 1.959963984540054 * sd / 2])
    assert c["seat_games"] == 8 and c["candidate_win_rate"] == 2 / 8 and c["win_rate"] == 1 / 8
    assert c["difference"] == pytest.approx(c["candidate_win_rate"] - c["win_rate"])


def test_per_game_winners_pair_two_runs_on_the_same_deals():
    """``winners`` lists each game's winning spec in game order (the control's too), so two runs with
    the same seeds and line-up shape can be paired game by game outside one run."""
    s = run_tournament(["deduction", "random", "random"], 9, seed=2, workers=2, progress=False, agent_seed=5, control="notebook")
    w, cw = s["winners"], s["control"]["winners"]
    assert len(w) == len(cw) == 9
    assert w.count("deduction") == s["results"]["deduction"]["wins"] and cw.count("notebook") == s["control"]["wins"]
    assert set(w) <= {"deduction", "random", None} and set(cw) <= {"notebook", "random", None}
    t = run_tournament(["notebook", "random", "random"], 9, seed=2, workers=1, progress=False, agent_seed=5)
    assert t["winners"] == cw  # the control's games are these games


def test_winner_seats_pair_a_control_that_shares_its_spec_with_the_opponents():
    """With ``--control random`` against ``random`` opponents every control winner reads "random";
    ``winner_seats`` still says whose seat won, so the paired difference can be rebuilt outside the run."""
    s = run_tournament(["notebook", "random", "random"], 9, seed=4, workers=1, progress=False, agent_seed=6, control="random")
    seats, cseats = s["winner_seats"], s["control"]["winner_seats"]
    assert len(seats) == len(cseats) == 9 and set(s["control"]["winners"]) <= {"random", None}
    schedule = tournament.Schedule.of(["notebook", "random", "random"])
    mine = [schedule.seats(g).index("notebook") for g in range(9)]
    x = [int(w == m) for w, m in zip(seats, mine)]
    y = [int(w == m) for w, m in zip(cseats, mine)]
    assert sum(x) == s["results"]["notebook"]["wins"] and sum(y) == s["control"]["wins"]
    assert np.mean(np.array(x) - np.array(y)) == pytest.approx(s["control"]["difference"])
    assert s["winners"] == [None if w is None else schedule.seats(g)[w] for g, w in enumerate(seats)]


def test_results_do_not_depend_on_the_worker_count_with_balanced_seats_and_a_control():
    a = run_tournament(FAST, 8, seed=7, workers=1, progress=False, agent_seed=11, control="random")
    b = run_tournament(FAST, 8, seed=7, workers=2, progress=False, agent_seed=11, control="random")
    assert _strip_timing(a) == _strip_timing(b)


def test_a_bad_control_spec_fails_before_any_game(monkeypatch):
    def no_games(*a, **k):
        raise AssertionError("a game was played")

    monkeypatch.setattr(tournament, "play_game", no_games)
    with pytest.raises(ValueError, match="wizard"):
        run_tournament(FAST, 5, **_quiet(control="wizard"))


# --- league -----------------------------------------------------------------------------------


def test_league_players_defaults_and_errors():
    assert league_players(["a", "b", "c"]) == 3
    assert league_players(["a", "b", "c", "d", "e", "f", "g"]) == 4
    assert league_players(["a", "b"], "edition2023") == 2
    with pytest.raises(ValueError, match="repeat a spec"):
        league_players(["a", "b"])  # classic: 4 seats by default, only 2 specs
    with pytest.raises(ValueError, match="two different agents"):
        league_players(["a", "a", "a"])
    assert league_players(["a", "b", "b"]) == 3  # repeating a spec gives it several seats


def test_league_schedule_interleaves_every_combination():
    specs = ["a", "b", "c", "d", "e"]
    s = league_schedule(specs, 4)
    assert len(s.lineups) == 5 and s.block == 20 and s.cycle == 5 * 24
    first = [frozenset(s.seats(g)) for g in range(5)]
    assert len(set(first)) == 5  # each prefix of 5 games plays every combination once
    seats = Counter((g_seat, spec) for g in range(s.block) for g_seat, spec in enumerate(s.seats(g)))
    assert set(seats.values()) == {4}  # 20 games: every spec in every seat 4 times
    assert league_schedule(["a", "b", "c"], 3).lineups == (("a", "b", "c"),)


def test_ratings_rank_the_winner_first_tie_the_rest_and_average_a_repeated_spec():
    r = rate_games(["a", "b", "c"], [_result(0, ["a", "b", "c"], 0)])
    assert r["a"][0] > 25 > r["b"][0] == pytest.approx(r["c"][0])
    tied = rate_games(["a", "b", "c"], [_result(0, ["a", "b", "c"], -1)])
    assert all(r.mu == pytest.approx(25.0) for r in tied.values())
    rep = rate_games(["a", "b"], [_result(0, ["a", "a", "b"], 0)])
    win = rate_games(["a", "b", "c"], [_result(0, ["a", "c", "b"], 0)])
    assert 25 < rep["a"][0] < win["a"][0]  # one of a's seats won, the other lost: the average
    results = [_result(g, ["a", "b", "c"], g % 3) for g in range(6)]
    assert rate_games("abc", results) == rate_games("abc", reversed(results))  # game order, not arrival order


def test_ratings_average_over_orders_of_the_games_so_the_order_does_not_decide():
    """Rated game by game in one order, the order of the games moves two similar agents' ratings
    far apart: 1,920 independent games where ``a`` wins 924 and ``b`` 901 put ``a`` 3.4 ahead in
    their own order (nearly four times the reported sigma of 0.88, as good as clear), and 300 wins
    of ``a`` then 300 of ``b`` rank them one way and the same games reversed the other. Averaged
    over the orders, the gaps follow the wins, and each spec reports how far the orders spread its mu."""
    rng = np.random.default_rng(0)
    iid = [_result(g, ["a", "b", "c", "d"], int(w)) for g, w in enumerate(rng.choice(4, size=1920, p=[0.48, 0.47, 0.05, 0.0]))]
    assert [sum(r.winner == i for r in iid) for i in (0, 1)] == [924, 901]
    one, mean = rate_games("abcd", iid, orders=1), rate_games("abcd", iid)
    assert one["a"].mu - one["b"].mu > 3.0 > 3 * one["a"].sigma
    assert 0.0 < mean["a"].mu - mean["b"].mu < 1.0 and mean["a"].sigma == pytest.approx(one["a"].sigma, abs=0.02)
    assert one["a"].mu_order_sd == 0.0 and mean["a"].mu_order_sd > 0.3

    blocks = [_result(g, ["a", "b", "c", "d"], w) for g, w in enumerate([0] * 300 + [1] * 300 + [2] * 40)]
    flipped = [_result(g, r.seats, r.winner) for g, r in enumerate(reversed(blocks))]
    gaps = [r["a"].mu - r["b"].mu for r in (rate_games("abcd", blocks, orders=1), rate_games("abcd", flipped, orders=1))]
    assert gaps[0] < -5.0 and gaps[1] > 5.0  # the same wins, either order first
    mean = rate_games("abcd", blocks)
    assert abs(mean["a"].mu - mean["b"].mu) < 0.5
    assert mean == rate_games("abcd", [blocks[i] for i in rng.permutation(len(blocks))])  # the games' index, not arrival
    with pytest.raises(ValueError, match="orders"):
        rate_games("abcd", blocks, orders=0)


def test_ratings_of_fixed_agents_keep_tightening_with_more_games():
    """Agents are fixed programs (tau 0): sigma keeps shrinking as games are added (about as one over
    the square root of the games), so enough games can settle the order of two agents of similar
    strength. OpenSkill's default tau (mu / 300) held sigma near 1.7 from a few hundred 4-player
    games on, whatever the number of games, and mu then followed only the last games."""
    rng = np.random.default_rng(0)
    winners = rng.choice(4, size=2000, p=[0.5, 0.44, 0.06, 0.0])
    results = [_result(g, ["a", "b", "c", "d"], int(w)) for g, w in enumerate(winners)]
    at = {n: rate_games("abcd", results[:n]) for n in (500, 2000)}
    assert at[2000]["a"][1] < 0.7 * at[500]["a"][1]
    assert at[2000]["a"][1] < 1.0


def test_run_league_rates_agents_and_writes_the_json_shape():
    s = run_league(FAST, 6, seed=1, **_quiet())
    assert s["league"] is True and s["num_players"] == 3 and s["seating"] == "balanced"
    ratings = s["ratings"]
    assert list(ratings) == sorted(ratings, key=lambda k: -ratings[k]["mu"])
    for spec, r in ratings.items():
        assert set(r) >= {"mu", "sigma", "mu_order_sd", "ci95", "ordinal", "games", "wins", "win_rate"}
        assert r["ci95"] == pytest.approx([r["mu"] - 1.96 * r["sigma"], r["mu"] + 1.96 * r["sigma"]], abs=1e-3)
        assert r["ordinal"] == pytest.approx(r["mu"] - 3 * r["sigma"])
        assert r["games"] == s["results"][spec]["games"] == 6
    json.dumps(s)


def test_a_league_summary_keeps_its_games_and_rates_again_from_its_json():
    s = json.loads(json.dumps(run_league(["notebook", "random", "uniform", "random"], 12, players=3, seed=2, **_quiet())))
    games = games_of(s)
    assert len(games) == len(s["winner_seats"]) == len(s["winners"]) == 12
    assert [g.seats[g.winner] if g.winner >= 0 else None for g in games] == s["winners"]
    assert sum(g.winner >= 0 and g.seats[g.winner] == "uniform" for g in games) == s["results"]["uniform"]["wins"]
    again = rate_games(list(s["ratings"]), games)
    for spec, r in s["ratings"].items():
        assert again[spec].mu == pytest.approx(r["mu"]) and again[spec].sigma == pytest.approx(r["sigma"])
    assert rate_games(list(s["ratings"]), games[:6]) != again  # a prefix rates on its own


@pytest.mark.parametrize(
    "mend, error",
    [
        (lambda s: s.pop("winner_seats"), "per-game winners"),
        (lambda s: s.pop("winners"), "per-game winners"),
        (lambda s: s.update(league=False), "per-game winners"),
        (lambda s: s["winner_seats"].pop(), "winners for 6 games"),
        (lambda s: s["winner_seats"].__setitem__(0, 7), "not one of its 3 seats"),
        (lambda s: s.update(seats=list(reversed(s["seats"]))), "in the league's seating"),
    ],
)
def test_games_of_refuses_a_summary_that_does_not_fit(mend, error):
    s = json.loads(json.dumps(run_league(FAST, 6, seed=1, **_quiet())))
    assert all(w is not None for w in s["winner_seats"])  # every game won: reversed seats misplace its winner
    games_of(s)
    mend(s)
    with pytest.raises(ValueError, match=error):
        games_of(s)


# --- evaluate.py ------------------------------------------------------------------------------


def test_evaluate_control_and_league_write_their_json(tmp_path, capsys):
    import evaluate

    out = tmp_path / "c.json"
    rc = evaluate.main(["--seats", ",".join(FAST), "--games", "6", "--control", "random", "--json", str(out), "--chart", "",
                        "--quiet", "--workers", "1"])  # fmt: skip
    assert rc == 0 and json.loads(out.read_text())["control"]["spec"] == "random"
    assert "difference" in capsys.readouterr().out
    out, chart = tmp_path / "l.json", tmp_path / "l.png"
    rc = evaluate.main(["--league", ",".join(FAST), "--games", "6", "--json", str(out), "--chart", str(chart), "--quiet",
                        "--workers", "1"])  # fmt: skip
    data = json.loads(out.read_text())
    assert rc == 0 and data["league"] is True and set(data["ratings"]) == set(FAST)
    text = capsys.readouterr().out
    assert "rating interval" in text and ("is clear of" in text or "overlaps" in text)
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--league", "random,notebook,uniform", "--seats", "random,random,random"], "not allowed with"),
        (["--league", "random,notebook,uniform", "--control", "random"], "--control"),
        (["--seats", "random,random,random", "--players", "3"], "--players goes with --league"),
    ],
)
def test_evaluate_rejects_conflicting_flags(flags, message, capsys):
    import evaluate

    with pytest.raises(SystemExit) as e:
        evaluate.main([*flags, "--games", "1", "--json", "", "--chart", "", "--quiet"])
    assert e.value.code == 2 and message in capsys.readouterr().err


def test_evaluate_reports_a_bad_league_before_playing(capsys):
    import evaluate

    rc = evaluate.main(["--league", "random,notebook", "--games", "1", "--json", "", "--chart", "", "--quiet"])
    assert rc == 2 and "repeat a spec" in capsys.readouterr().err


def test_evaluate_help_names_the_default_outputs(capsys):
    import evaluate

    with pytest.raises(SystemExit):
        evaluate.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    kept = "or the first free -N name when it exists: an earlier result is kept"
    assert f"default results/evaluate.json, {kept}" in text and f"default results/evaluate.png, {kept}" in text


# --- charts are written safely ----------------------------------------------------------------


def _summary():
    return run_tournament(FAST, 3, **_quiet())


def test_a_chart_at_a_symlink_writes_the_target_and_keeps_the_link(tmp_path):
    import evaluate

    target, link = tmp_path / "target.png", tmp_path / "link.png"
    target.write_bytes(b"old")
    link.symlink_to(target)
    rc = evaluate.main(
        ["--seats", ",".join(FAST), "--games", "2", "--json", "", "--chart", str(link), "--quiet", "--workers", "1"]
    )
    assert rc == 0 and link.is_symlink() and target.read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.png", "target.png"]  # no PATH.tmp.png left


def test_a_chart_to_dev_null_or_a_fifo_leaves_them_what_they_are(tmp_path):
    s = _summary()
    if os.path.exists("/dev/null"):
        plot(s, "/dev/null")
        assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    fifo = tmp_path / "chart.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    plot(s, str(fifo))
    reader.join(timeout=30)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and got and got[0][:4] == b"\x89PNG"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chart.fifo"]


def _without_matplotlib(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))


def test_without_matplotlib_the_default_chart_is_skipped_and_an_explicit_one_refused(tmp_path, monkeypatch, capsys):
    import evaluate

    monkeypatch.chdir(tmp_path)
    _without_matplotlib(monkeypatch)
    rc = evaluate.main(["--seats", ",".join(FAST), "--games", "1", "--json", "", "--quiet", "--workers", "1"])
    assert rc == 0 and "skipping the chart" in capsys.readouterr().err
    assert not (tmp_path / "results").exists()

    def no_games(*a, **k):
        raise AssertionError("a game was played")

    monkeypatch.setattr(tournament, "play_game", no_games)
    with pytest.raises(SystemExit) as e:
        evaluate.main(["--seats", ",".join(FAST), "--games", "1", "--json", "", "--chart", "x.png", "--quiet"])
    assert e.value.code == 2 and "needs matplotlib" in capsys.readouterr().err


# --- league summaries read back: bounded, validated, never unpickled ----------------------------


def _league_doc(seats, players, games=6):
    """A league summary as evaluate.py --league writes its per-game fields, without playing."""
    schedule = league_schedule(list(seats), players)
    winner_seats = [g % players for g in range(games)]
    return {
        "league": True,
        "seats": list(seats),
        "num_players": players,
        "games": games,
        "winners": [schedule.seats(g)[w] for g, w in enumerate(winner_seats)],
        "winner_seats": winner_seats,
    }


@pytest.mark.parametrize("players", [8, 11, 0, 1, 7, -3, True, "4", 4.0, None])
def test_games_of_refuses_a_player_count_outside_2_to_6_at_once(players):
    doc = _league_doc(["a", "b", "c", "d"], 4)
    n = players if isinstance(players, int) and not isinstance(players, bool) and players > 0 else 4
    doc.update(num_players=players, seats=[f"s{i}" for i in range(n)])  # as many seats as players: one line-up
    t0 = __import__("time").perf_counter()
    with pytest.raises(ValueError, match="num_players"):
        games_of(doc)
    assert __import__("time").perf_counter() - t0 < 0.5


@pytest.mark.parametrize(
    "mend, error",
    [
        (lambda s: s.pop("seats"), "seats"),
        (lambda s: s.update(seats="abcd"), "seats"),
        (lambda s: s.update(seats=["a", "b", 3, "d"]), "seats"),
        (lambda s: s.update(seats=["a", "b"]), "2 seats for 4 players"),
        (lambda s: s.update(seats=[f"s{i}" for i in range(200)]), "line-ups"),
        (lambda s: s.pop("num_players"), "num_players"),
        (lambda s: s.pop("games"), "games"),
        (lambda s: s.update(games="6"), "games"),
        (lambda s: s.update(games=True), "games"),
        (lambda s: s.update(winners="abcdef"), "winners"),
        (lambda s: s.update(winner_seats={"0": 1}), "winner_seats"),
        (lambda s: s["winner_seats"].__setitem__(1, True), "not one of its 4 seats"),
        (lambda s: s["winner_seats"].__setitem__(1, None), "nobody won"),
        (lambda s: s.update(league="yes"), "per-game winners"),
    ],
)
def test_games_of_refuses_each_field_it_uses_with_a_value_error_naming_it(mend, error):
    doc = _league_doc(["a", "b", "c", "d"], 4)
    assert len(games_of(doc)) == 6
    mend(doc)
    with pytest.raises(ValueError, match=error):
        games_of(doc)


@pytest.mark.parametrize("doc", [[], "league", 3, None])
def test_games_of_refuses_what_is_not_a_mapping(doc):
    with pytest.raises(ValueError, match="not a league summary"):
        games_of(doc)


def test_load_league_reads_a_summary_file_back_within_bounds(tmp_path, monkeypatch):
    from agents import league
    from agents.league import load_league

    doc = _league_doc(["a", "b", "c", "d", "e"], 3, games=10)
    path = tmp_path / "league.json"
    path.write_text(json.dumps(doc))
    assert load_league(str(path)) == doc and len(games_of(load_league(str(path)))) == 10
    with pytest.raises(ValueError, match="is a directory"):
        load_league(str(tmp_path))
    fifo = tmp_path / "planted.fifo"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="is a FIFO"):
        load_league(str(fifo))  # refused without blocking: nobody writes to it
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match="not a JSON object"):
        load_league(str(tmp_path / "list.json"))
    (tmp_path / "deep.json").write_text("[" * 100 + "]" * 100)
    with pytest.raises(ValueError, match="nested more than"):
        load_league(str(tmp_path / "deep.json"))
    monkeypatch.setattr(league, "MAX_SUMMARY_BYTES", 100)
    with pytest.raises(ValueError, match="over the limit"):
        load_league(str(path))


def test_a_pickle_payload_in_a_league_summary_stays_inert_text(tmp_path):
    import base64
    import pickle

    from agents.league import load_league

    marker = tmp_path / "payload_ran"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    blob = base64.b64encode(pickle.dumps(Payload())).decode()
    doc = _league_doc(["a", "b", "c", "d"], 4)
    planted = {**doc, "rating_model": blob, "ratings": {"a": {":serialized:": blob}}, "agent_seed": {"py/reduce": blob}}
    path = tmp_path / "league.json"
    path.write_text(json.dumps(planted))
    read = load_league(str(path))
    assert read["rating_model"] == blob and read["ratings"]["a"][":serialized:"] == blob  # plain text, as written
    assert len(games_of(read)) == 6
    as_seat = {**doc, "seats": [blob, "b", "c", "d"]}
    path.write_text(json.dumps(as_seat))
    with pytest.raises(ValueError, match="in the league's seating"):
        games_of(load_league(str(path)))
    assert not marker.exists()
    pickle.loads(base64.b64decode(blob)).close()  # the payload is live: unpickling it would have run it
    assert marker.exists()


# --- evaluate.py --replays: files made inside DIR never follow what is planted there -------------


def _evaluate_replays(d, *more, json_path=""):
    import evaluate

    return evaluate.main(["--seats", "random,random,uniform", "--games", "2", "--json", str(json_path), "--chart", "",
                          "--quiet", "--workers", "1", "--agent-seed", "3", "--replays", str(d), *more])  # fmt: skip


def test_replays_replace_a_planted_symlink_and_never_write_the_file_it_points_to(tmp_path):
    d, outside = tmp_path / "replays", tmp_path / "outside.txt"
    d.mkdir()
    outside.write_text("precious")
    (d / "game_00000_seed_0.json").symlink_to(outside)
    assert _evaluate_replays(d) == 0
    assert outside.read_text() == "precious"
    written = d / "game_00000_seed_0.json"
    assert not written.is_symlink() and json.loads(written.read_text())["format"]
    assert sorted(p.name for p in d.iterdir()) == ["game_00000_seed_0.json", "game_00001_seed_1.json"]


def test_replays_replace_a_planted_fifo_without_blocking(tmp_path):
    d = tmp_path / "replays"
    d.mkdir()
    fifo = d / "game_00001_seed_1.json"
    os.mkfifo(fifo)
    rc: list[int] = []
    run = threading.Thread(target=lambda: rc.append(_evaluate_replays(d)), daemon=True)
    run.start()
    run.join(timeout=60)
    blocked = run.is_alive()
    if blocked:  # opening the FIFO: unblock it before failing
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
    assert not blocked and rc == [0], "evaluate.py blocked on a FIFO planted in --replays"
    assert stat.S_ISREG(os.lstat(fifo).st_mode) and json.loads(fifo.read_text())["format"]


def test_a_planted_directory_loses_only_that_replay_and_the_json_summary_is_written(tmp_path, capsys):
    d, out = tmp_path / "replays", tmp_path / "summary.json"
    (d / "game_00000_seed_0.json").mkdir(parents=True)
    (d / "game_00000_seed_0.json" / "keep").write_text("x")
    assert _evaluate_replays(d, json_path=out) == 1
    err = capsys.readouterr().err
    assert "1 replay file not written in" in err and "game_00000_seed_0.json: a directory has that name" in err
    assert len(err.strip().splitlines()) == 1
    summary = json.loads(out.read_text())
    assert summary["games"] == 2 and summary["replay_errors"] == ["game_00000_seed_0.json: a directory has that name"]
    assert (d / "game_00000_seed_0.json" / "keep").read_text() == "x"
    assert sorted(p.name for p in d.iterdir()) == ["game_00000_seed_0.json", "game_00001_seed_1.json"]  # no temp file


def _no_games(monkeypatch):
    def no_games(*a, **k):
        raise AssertionError("a game was played")

    monkeypatch.setattr(tournament, "play_game", no_games)


@pytest.mark.parametrize("where", ["read-only", "/sys"])
def test_an_unwritable_replays_dir_is_refused_before_any_game(where, tmp_path, monkeypatch, capsys):
    if where == "/sys":
        if not os.path.isdir("/sys"):
            pytest.skip("no /sys here")
        d = "/sys"  # a directory where even root cannot create a file
    else:
        if os.geteuid() == 0:
            pytest.skip("root writes in a read-only directory")
        d = str(tmp_path / "ro")
        os.mkdir(d, 0o555)
    _no_games(monkeypatch)
    with pytest.raises(SystemExit) as e:
        _evaluate_replays(d)
    assert e.value.code == 2 and f"--replays {d!r}: cannot create files in it" in capsys.readouterr().err


def test_a_missing_replays_dir_is_made_before_any_game(tmp_path, monkeypatch, capsys):
    _no_games(monkeypatch)
    d = tmp_path / "new" / "replays"
    with pytest.raises(AssertionError, match="a game was played"):
        _evaluate_replays(d)
    assert d.is_dir() and not list(d.iterdir())


def test_write_new_file_never_follows_or_opens_what_is_at_the_name(tmp_path):
    from agents.output import write_new_file

    outside = tmp_path / "outside"
    outside.write_bytes(b"keep")
    d = tmp_path / "d"
    d.mkdir()
    (d / "link").symlink_to(outside)
    os.mkfifo(d / "fifo")
    (d / "dir").mkdir()
    for name in ("link", "fifo", "new"):
        write_new_file(str(d), name, b"data")
        assert stat.S_ISREG(os.lstat(d / name).st_mode) and (d / name).read_bytes() == b"data"
    assert outside.read_bytes() == b"keep"
    with pytest.raises(IsADirectoryError, match="a directory has that name"):
        write_new_file(str(d), "dir", b"data")
    with pytest.raises(ValueError, match="a file name"):
        write_new_file(str(d), "../escape", b"data")
    assert sorted(p.name for p in d.iterdir()) == ["dir", "fifo", "link", "new"]


def test_a_game_longer_than_a_replay_may_hold_is_not_written_and_is_listed(tmp_path, monkeypatch, capsys):
    import clue_env.replay

    monkeypatch.setattr(clue_env.replay, "MAX_STEPS", 3)  # every random game is longer
    d, out = tmp_path / "replays", tmp_path / "summary.json"
    assert _evaluate_replays(d, json_path=out) == 1
    summary = json.loads(out.read_text())
    assert summary["games"] == 2 and len(summary["replay_errors"]) == 2
    assert all("over the 3 a replay may hold" in e for e in summary["replay_errors"])
    assert list(d.iterdir()) == []
