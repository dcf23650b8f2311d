"""Replays (issue 17, item 8): ``evaluate.py --replays DIR`` writes one file per game, and
``play.py --replay FILE`` steps through it; the replay reproduces the original game step by
step, and a tampered or stale file is refused with a clear message."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import clue_env
from clue_env import replay as R
from clue_env.play.replay_terminal import ReplayTerminal, format_account, play_replay

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPECS = ["deduction", "notebook", "random"]
AGENT_SEED = 11
SEED = 40
GAMES = 3


def evaluate(*args: str) -> int:
    import evaluate as ev

    return ev.main(["--json", "", "--chart", "", "--quiet", *args])


@pytest.fixture(scope="module")
def replay_dir(tmp_path_factory) -> str:
    d = str(tmp_path_factory.mktemp("replays") / "out")  # made by evaluate.py
    seats = ",".join(SPECS)
    rc = evaluate("--seats", seats, "--games", str(GAMES), "--seed", str(SEED), "--agent-seed", str(AGENT_SEED),
                  "--workers", "1", "--replays", d)  # fmt: skip
    assert rc == 0
    return d


def files(d: str) -> list[str]:
    return sorted(os.path.join(d, f) for f in os.listdir(d))


def original_game(index: int) -> tuple[list[str], list[int], list[tuple[int, int, np.ndarray, np.ndarray]]]:
    """Game ``index`` of the tournament played again from scratch, as the tournament plays it:
    its seats, agent seeds, and every decision's (seat, action, observation, mask)."""
    from agents import make_agent
    from agents.tournament import Schedule, agent_seed_for

    seats = Schedule.of(SPECS).seats(index)
    p = len(seats)
    env = clue_env.raw_env(num_players=p, rules="classic")
    seeds = [agent_seed_for(AGENT_SEED, index, i) for i in range(p)]
    agents = [make_agent(s, seat=i, num_players=p, rules=env.rules, seed=seeds[i]) for i, s in enumerate(seats)]
    for a in agents:
        a.reset()
    env.reset(seed=SEED + index)
    steps = []
    while not env.game.over:
        seat = env.game.acting
        name = env.possible_agents[seat]
        obs = env.observe(name)
        action = agents[seat].act(obs, env.infos[name])
        steps.append((seat, int(action), obs["observation"].copy(), obs["action_mask"].copy()))
        env.step(action)
    return seats, seeds, steps


# ---------------------------------------------------------------------- writing and reproducing
def test_evaluate_writes_one_replay_per_game_named_by_index_and_seed(replay_dir):
    names = sorted(os.listdir(replay_dir))
    assert names == [R.replay_name(g, SEED + g) for g in range(GAMES)]
    assert names[0] == f"game_00000_seed_{SEED}.json"


@pytest.mark.parametrize("index", range(GAMES))
def test_replay_reproduces_the_original_game_step_by_step(replay_dir, index):
    seats, seeds, steps = original_game(index)
    pb = R.open_replay(os.path.join(replay_dir, R.replay_name(index, SEED + index)))
    r = pb.replay
    assert [s.spec for s in r.seats] == seats and [s.agent_seed for s in r.seats] == seeds
    assert r.seed == SEED + index and r.num_players == 3 and r.rules.name == "classic" and r.game == index
    assert pb.steps == len(steps)
    for k, (seat, action, obs, mask) in enumerate(steps, start=1):
        env = pb.env_at(k - 1)
        assert env.game.acting == seat == pb.actor(k)
        assert pb.action(k) == action
        got = env.observe(f"player_{seat}")
        np.testing.assert_array_equal(got["observation"], obs, err_msg=f"step {k}")
        np.testing.assert_array_equal(got["action_mask"], mask, err_msg=f"step {k}")
        assert pb.action_text(k) == env.action_to_text(action)
    # backwards: an earlier position is the same game again
    mid = len(steps) // 2
    np.testing.assert_array_equal(pb.env_at(mid).observe(f"player_{steps[mid][0]}")["observation"], steps[mid][2])


@pytest.mark.parametrize("index", range(GAMES))
def test_the_terminal_prints_every_step_of_the_original_game(replay_dir, index):
    seats, _seeds, steps = original_game(index)
    out = io.StringIO()
    lines = iter(["n"] * (len(steps) + 1) + ["q"])
    path = os.path.join(replay_dir, R.replay_name(index, SEED + index))
    assert play_replay(path, out=out, input_fn=lambda _p: next(lines)) == 0
    text = out.getvalue()
    step_lines = [ln for ln in text.splitlines() if ln.startswith("step ") and "/" in ln.split()[1]]
    assert len(step_lines) == len(steps)
    env = clue_env.raw_env(num_players=3)
    for k, ((seat, action, _o, _m), line) in enumerate(zip(steps, step_lines), start=1):
        words = R.action_words(env.rules, env.action_to_text(action))
        assert line.startswith(f"step {k}/{len(steps)} ")
        assert f"player_{seat} " in line and f"[{seats[seat]}]" in line and line.endswith(f": {words}")
    assert "game over:" in text and f"end of the replay (step {len(steps)}/{len(steps)})" in text


def test_replays_do_not_change_the_games_and_workers_write_the_same_files(replay_dir, tmp_path):
    from agents.tournament import run_tournament

    kw = dict(workers=1, progress=False, agent_seed=AGENT_SEED, seed=SEED)
    plain = run_tournament(SPECS, 2, **kw)
    kw["workers"] = 2
    recorded = run_tournament(SPECS, 2, replays=str(tmp_path), **kw)
    for s in (plain, recorded):
        s.pop("games_per_s_per_core")
        s.pop("seconds_per_decision")
    assert plain == recorded
    for name in sorted(os.listdir(tmp_path)):
        with open(tmp_path / name, "rb") as a, open(os.path.join(replay_dir, name), "rb") as b:
            assert a.read() == b.read(), name


def test_control_games_get_their_own_replays(tmp_path):
    assert evaluate("--seats", "random,random,random", "--games", "1", "--control", "uniform", "--workers", "1",
                    "--replays", str(tmp_path)) == 0  # fmt: skip
    assert sorted(os.listdir(tmp_path)) == ["game_00000_seed_0.json", "game_00000_seed_0_control.json"]
    control = R.open_replay(str(tmp_path / "game_00000_seed_0_control.json"))
    assert [s.spec for s in control.replay.seats] == ["uniform"] * 3


def test_evaluate_refuses_a_replays_dir_that_is_a_file(tmp_path, capsys):
    f = tmp_path / "taken"
    f.write_text("x")
    with pytest.raises(SystemExit) as e:
        evaluate("--seats", "random,random,random", "--games", "1", "--replays", str(f))
    assert e.value.code == 2
    assert "is not a directory" in capsys.readouterr().err
    assert f.read_text() == "x"


# ---------------------------------------------------------------------- what a replay holds (R31)
def walk(value, path=""):
    if isinstance(value, dict):
        for k, v in value.items():
            yield path + "." + k, k
            yield from walk(v, path + "." + k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from walk(v, f"{path}[{i}]")
    else:
        yield path, value


def test_a_replay_holds_plain_data_and_no_hidden_cards_or_paths(replay_dir):
    for path in files(replay_dir):
        with open(path) as f:
            text = f.read()
        doc = json.loads(text)
        assert set(doc) == {*R.REQUIRED, "game", "accounts"}
        assert all(set(s) == {"spec", "agent_seed"} for s in doc["seats"])
        for where, v in walk(doc):
            assert isinstance(v, (str, int, float, bool, type(None))), where
            if isinstance(v, str):
                assert not v.startswith("/") and "\\" not in v and " at 0x" not in v, (where, v)
                assert v.lower() not in ("hands", "hand", "envelope", "board_cards", "shown"), where
        assert ROOT not in text and replay_dir not in text and "object at" not in text
        # the accounts are the acting seat's own beliefs: a deduction seat's never name its own cards
        pb = R.open_replay(path)
        for k in range(1, pb.steps + 1):
            account = pb.account(k)
            if account and account.get("agent") == "deduction":
                hand = {clue_env.engine.cards.CARDS[c] for c in pb.env_at(0).game.hands[pb.actor(k)]}
                named = {c for kind in ("suspect", "weapon", "room") for c, _p in account[kind]}
                assert not named & hand, k


def test_accounts_deduction_and_ppo(tmp_path):
    pytest.importorskip("torch")
    from agents.tournament import run_tournament

    run_tournament(["ppo", "deduction", "random"], 1, workers=1, progress=False, agent_seed=3, replays=str(tmp_path))
    pb = R.open_replay(str(tmp_path / os.listdir(tmp_path)[0]))
    kinds = {pb.replay.seats[pb.actor(k)].spec: pb.account(k) for k in range(1, pb.steps + 1)}
    ppo, ded = kinds["ppo"], kinds["deduction"]
    assert kinds["random"] is None
    assert ppo["agent"] == "ppo" and isinstance(ppo["value"], float) and 1 <= len(ppo["top"]) <= 3
    assert all(0 <= p <= 1 for _t, p in ppo["top"]) and sum(p for _t, p in ppo["top"]) <= 1.0001
    assert ded["agent"] == "deduction" and all(0 < p <= 1 for kind in ("suspect", "weapon", "room") for _c, p in ded[kind])
    rules = pb.replay.rules
    assert format_account(ppo, rules).startswith("top ") and "value" in format_account(ppo, rules)
    assert format_account(ded, rules).startswith("envelope suspect ")


# ---------------------------------------------------------------------- tampered and stale replays
def rewrite(src: str, dst, change, *, redigest: bool) -> str:
    with open(src) as f:
        doc = json.load(f)
    change(doc)
    if redigest:
        doc["digest"] = R.digest(doc)
    dst.write_text(json.dumps(doc))
    return str(dst)


def first_illegal(doc: dict) -> tuple[int, int]:
    """A step and an action index illegal there (the first step where some action is)."""
    pb = R.Playback(R.from_document(doc))
    for k in range(1, pb.steps + 1):
        mask = pb.env_at(k - 1).action_mask()
        bad = np.flatnonzero(mask == 0)
        if len(bad):
            return k, int(bad[0])
    raise AssertionError("no illegal action anywhere")


def _illegal(doc: dict) -> None:
    k, a = first_illegal(doc)
    doc["actions"][k - 1] = a


def _flip_winner(doc: dict) -> None:
    w = doc["outcome"]["winner"]
    doc["outcome"]["winner"] = 0 if w is None else (w + 1) % doc["num_players"]


def _drop_last(doc: dict) -> None:
    doc["actions"].pop()
    doc["actors"].pop()
    doc["accounts"].pop()


def _edit_action(doc: dict) -> None:
    doc["actions"][5] += 1


def _edit_digest(doc: dict) -> None:
    doc["digest"] = "sha256:" + "0" * 64


CASES = [
    ("edited action", _edit_action, False, "digest mismatch"),
    ("edited digest", _edit_digest, False, "digest mismatch"),
    ("unknown version", lambda d: d.update(version=99), True, "version 99 is not supported"),
    ("missing key", lambda d: d.pop("seed"), True, "missing key(s) 'seed'"),
    ("wrong type", lambda d: d.update(num_players="3"), True, "'num_players' must be an integer"),
    ("bad actions", lambda d: d["actions"].__setitem__(0, -1), True, "'actions' must be a list of non-negative integers"),
    ("not a replay", lambda d: d.update(format="other"), True, "not a replay file"),
    ("unknown rules key", lambda d: d["rules"].update(teleport=True), True, "does not reproduce with the current code"),
    ("illegal action (stale)", _illegal, True, "does not reproduce with the current code: step "),
    ("another outcome (stale)", _flip_winner, True, "does not reproduce with the current code: the game ends"),
    ("a step short (stale)", _drop_last, True, "not over after the"),
]


@pytest.mark.parametrize("name, change, redigest, message", CASES, ids=[c[0] for c in CASES])
def test_play_refuses_a_tampered_or_stale_replay(replay_dir, tmp_path, capsys, name, change, redigest, message):
    import play

    path = rewrite(files(replay_dir)[0], tmp_path / "r.json", change, redigest=redigest)
    assert play.main(["--replay", path]) == 2
    err = capsys.readouterr().err
    assert err.startswith("play.py: error: ") and message in err, err
    assert path in err


def test_the_stale_message_names_the_step_and_the_action(replay_dir, tmp_path):
    with open(files(replay_dir)[1]) as f:
        doc = json.load(f)
    k, a = first_illegal(doc)
    doc["actions"][k - 1] = a
    doc["digest"] = R.digest(doc)
    with pytest.raises(R.StaleReplay) as e:
        R.Playback(R.from_document(doc))
    text = clue_env.raw_env(num_players=3).action_to_text(a)
    assert f"step {k}: {text!r} is not a legal action for player_" in str(e.value)


def test_a_truncated_replay_is_refused_by_the_script(replay_dir, tmp_path):
    with open(files(replay_dir)[0], "rb") as f:
        data = f.read()
    path = tmp_path / "cut.json"
    path.write_bytes(data[: len(data) // 2])
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "play.py"), "--replay", str(path)], input="",
                          capture_output=True, text=True, timeout=120, cwd=ROOT)  # fmt: skip
    assert proc.returncode == 2
    assert "not valid JSON" in proc.stderr and "truncated" in proc.stderr and "Traceback" not in proc.stderr


def test_a_missing_file_and_other_options_are_refused(tmp_path, capsys):
    import play

    assert play.main(["--replay", str(tmp_path / "nope.json")]) == 2
    assert "cannot read replay" in capsys.readouterr().err
    for extra in (["--seed", "3"], ["--web"], ["--port", "9000"], ["--seats", "human,random,random"]):
        with pytest.raises(SystemExit) as e:
            play.main(["--replay", "x.json", *extra])
        assert e.value.code == 2
        assert "does not go with --replay" in capsys.readouterr().err


# ---------------------------------------------------------------------- the terminal's commands
def terminal(path: str, lines: list[str]) -> tuple[int, str, R.Playback]:
    pb = R.open_replay(path)
    out = io.StringIO()
    it = iter(lines)

    def ask(_prompt: str) -> str:
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return ReplayTerminal(pb, out=out, input_fn=ask).run(), out.getvalue(), pb


def test_terminal_go_back_and_forward(replay_dir):
    rc, out, pb = terminal(files(replay_dir)[0], ["g 5", "p", "", "n", "g 0", "p", f"g {10**6}", "g x", "bogus"])
    assert rc == 0  # end of input quits cleanly
    lines = out.splitlines()
    steps = [ln.split()[1] for ln in lines if ln.startswith("step ")]
    n = pb.steps
    assert steps == [f"5/{n}", f"4/{n}", f"5/{n}", f"6/{n}", "0:"]
    assert "at the start of the game (step 0)" in out
    assert f"g N goes to step N, 0..{n}" in out and "unknown command 'bogus'" in out


def test_terminal_seat_view_shows_only_that_seats_cards(replay_dir):
    path = files(replay_dir)[0]
    pb = R.open_replay(path)
    game = pb.env_at(pb.steps).game
    shows = [k for k in range(1, pb.steps + 1) for ev in pb.events(k) if type(ev).__name__ == "Show"]
    assert shows, "the game has a card shown"
    k = shows[0]
    ev = next(e for e in pb.events(k) if type(e).__name__ == "Show")
    outsider = next(i for i in range(3) if i not in (ev.refuter, ev.suggester))
    disp = {c: pb.replay.rules.display(c) for c in clue_env.engine.cards.CARDS}
    card = disp[clue_env.engine.cards.CARDS[ev.card]]

    def shown_line(view: list[str]) -> str:
        _rc, out, _pb = terminal(path, [*view, f"g {k}"])
        tail = out[out.rindex(f"step {k}/") :]
        return next(ln for ln in tail.splitlines() if "shows a card to" in ln)

    assert "(the card:" not in shown_line([])  # the public view
    assert "(the card:" not in shown_line([f"seat player_{outsider}"])
    assert f"(the card: {card})" in shown_line([f"seat player_{ev.suggester}"])
    assert f"(the card: {card})" in shown_line(["all"])
    _rc, out, _pb = terminal(path, [f"seat player_{outsider}"])
    hand = [disp[clue_env.engine.cards.CARDS[c]] for c in sorted(game.hands[outsider])]
    assert f"hand: {', '.join(hand)}" in out and "notebook (facts) at step 0:" in out and "envelope:" not in out
    _rc, out, _pb = terminal(path, ["all", "q", "n"])
    s, w, r = game.envelope
    env_cards = [clue_env.engine.cards.CARDS[c] for c in (s, 6 + w, 12 + r)]
    assert "envelope: " + ", ".join(disp[c] for c in env_cards) in out
    assert "step 1/" not in out  # q quit before the n


def test_terminal_shows_accounts_only_in_views_that_may_see_them(replay_dir):
    path = files(replay_dir)[0]
    pb = R.open_replay(path)
    k = next(k for k in range(1, pb.steps + 1) if pb.account(k) is not None)
    seat = pb.actor(k)
    other = (seat + 1) % 3
    for view, shown in (([], False), ([f"seat player_{other}"], False), ([f"seat player_{seat}"], True), (["all"], True)):
        _rc, out, _pb = terminal(path, [*view, f"g {k}"])
        assert ("  account: envelope suspect" in out[out.rindex(f"step {k}/") :]) is shown, view


def test_play_replay_reads_stdin_and_quits_at_its_end(replay_dir, monkeypatch, capsys):
    import play

    monkeypatch.setattr(sys, "stdin", io.StringIO("n\nn\nseat player_2\nboard\nhelp\n"))
    assert play.main(["--replay", files(replay_dir)[2]]) == 0
    out = capsys.readouterr().out
    assert "step 2/" in out and "viewing as player_2" in out and "commands:" in out


# ---------------------------------------------------------------------- the format itself
def test_load_validates_and_digest_round_trips(replay_dir):
    path = files(replay_dir)[0]
    with open(path, "rb") as f:
        data = f.read()
    doc = json.loads(data)
    assert doc["digest"] == R.digest(doc) and doc["version"] == R.VERSION and doc["format"] == R.FORMAT
    assert R.dumps(doc) == data
    with pytest.raises(R.ReplayError, match="not an object"):
        R.parse_replay(b"[1, 2]")
    with pytest.raises(R.ReplayError, match="not valid JSON"):
        R.parse_replay(b"\xff\xfe")
    with pytest.raises(R.ReplayError, match="unknown key"):
        R.from_document({**doc, "extra": 1})


def test_an_edition2023_two_player_replay_reproduces_and_shows_the_board_cards_after_the_game(tmp_path):
    assert evaluate("--seats", "deduction,random", "--rules", "edition2023", "--games", "1", "--workers", "1",
                    "--replays", str(tmp_path)) == 0  # fmt: skip
    path = str(tmp_path / "game_00000_seed_0.json")
    rc, out, pb = terminal(path, ["all", "g 3", "seat player_1"])
    assert rc == 0 and pb.replay.rules.name == "edition2023" and pb.replay.num_players == 2
    assert pb.env_at(pb.steps).game.winner == (-1 if pb.replay.outcome.winner is None else pb.replay.outcome.winner)
    board = pb.env_at(0).game.board_cards
    assert board and out.count("face down on the board: ") == 1  # in the 'all' view only


# ---------------------------------------------------------------------- bounded reading, cheap positions
def test_every_bad_file_is_a_message_never_a_traceback(replay_dir, tmp_path, capsys):
    """Deep nesting, a 4,301-digit number, NaN or 1e400, a file over MAX_REPLAY_BYTES, a directory
    and a FIFO are each refused by ``play.py --replay`` with a one-line message (status 2); the
    FIFO is refused at once, never waited on."""
    import play

    good = json.loads(open(files(replay_dir)[0], "rb").read())
    cases = {
        "deep.json": (b"[" * 100_000 + b"]" * 100_000, "nested more than 32 deep"),
        "deep_object.json": (b'{"a":' * 5000 + b"1" + b"}" * 5000, "nested more than 32 deep"),
        "digits.json": (json.dumps({**good, "seed": 0}).replace('"seed": 0', '"seed": ' + "7" * 4301).encode(), "4,301 digits"),
        "nan.json": (json.dumps({**good, "seed": float("nan")}).encode(), "NaN is not a JSON number"),
        "huge_float.json": (json.dumps(good).replace('"seed": ', '"seed": 1e400, "x": ', 1).encode(), "out of range"),
        "pickle.json": (b"\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00\x8c\x05posix\x94.", "not UTF-8"),
    }
    for name, (data, _) in cases.items():
        (tmp_path / name).write_bytes(data)
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(R.MAX_REPLAY_BYTES + 1)  # sparse: nothing is written
    cases["big.json"] = (b"", f"over the limit of {R.MAX_REPLAY_BYTES:,}")
    (tmp_path / "dir.json").mkdir()
    cases["dir.json"] = (b"", "is a directory")
    os.mkfifo(tmp_path / "fifo.json")
    cases["fifo.json"] = (b"", "is a FIFO")
    for name, (_, message) in cases.items():
        path = str(tmp_path / name)
        assert play.main(["--replay", path]) == 2, name
        err = capsys.readouterr().err
        assert err.startswith("play.py: error: ") and message in err and "Traceback" not in err, (name, err)
        assert err.count("\n") == 1, (name, err)
        with pytest.raises(R.ReplayError, match="cannot read replay" if name in ("big.json", "dir.json", "fifo.json") else name):
            R.load_replay(path)


def test_a_pickle_payload_in_a_replay_is_plain_data_and_never_runs(replay_dir, tmp_path, capsys):
    """A replay's strings are only ever text: a pickle that would create a marker file when
    unpickled, planted (raw and base64) in the seats' specs, the package, an account and the
    rules' names, is refused or read, played back, stepped through in every view and served by
    the web page as plain data, and the marker is never created; a file that is itself that
    pickle is refused as not JSON."""
    import base64
    import pickle

    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self):  # what unpickling would run
            return (open, (str(marker), "w"))

    raw = pickle.dumps(Payload(), protocol=0).decode("latin-1")  # text-safe protocol 0
    b64 = base64.b64encode(pickle.dumps(Payload())).decode()
    doc = json.loads(open(files(replay_dir)[0], "rb").read())
    doc["package"] = raw
    doc["seats"][0]["spec"] = b64
    doc["seats"][1]["spec"] = raw
    first = next(i for i, a in enumerate(doc["accounts"]) if a is not None)
    doc["accounts"][first] = {"agent": "deduction", "pickle": b64[:200], "suspect": [[raw[:100], 0.5]]}
    doc["rules"]["victim"] = b64
    doc["digest"] = R.digest(doc)
    path = tmp_path / "payload.json"
    path.write_bytes(R.dumps(doc))
    pickled = tmp_path / "raw.pickle"
    pickled.write_bytes(pickle.dumps(Payload()))

    pb = R.open_replay(str(path))
    assert pb.replay.seats[0].spec == b64 and pb.replay.package == raw and pb.account(first + 1)["pickle"] == b64[:200]
    out = io.StringIO()
    lines = ["all", *["n"] * 5, "seat player_0", "g 0", "public", f"g {pb.steps}", "q"]
    assert ReplayTerminal(pb, out=out, input_fn=lambda _p: lines.pop(0) if lines else "q").run() == 0
    with pytest.raises(R.ReplayError, match="not UTF-8|not valid JSON"):
        R.load_replay(str(pickled))
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    import agents
    from clue_env.play.web.server import create_app

    c = TestClient(create_app(agents.play_factory, agent_delay=0.0), base_url="http://127.0.0.1:8000")
    s = c.post("/api/replays", content=path.read_bytes())
    assert s.status_code == 201 and s.json()["seats"][0]["spec"] == b64, s.text[:300]
    for view in s.json()["views"]:
        r = c.get(f"/api/replays/{s.json()['replay']}", params={"step": first + 1, "view": view})
        assert r.status_code == 200
    assert c.post("/api/replays", content=pickled.read_bytes()).status_code == 400
    assert not marker.exists()


def test_every_position_reached_back_or_forward_is_the_one_played_from_the_deal(tmp_path, monkeypatch):
    """A playback keeps a copy of the game every ``snapshot_every`` steps: any position, reached
    from anywhere, replays fewer than ``snapshot_every`` steps and is the position that playing
    from the deal gives (board, turn, every seat's view, the step's events), however it was
    reached; the copies never change."""
    from agents.tournament import run_tournament
    from clue_env.engine.config import load_rules
    from clue_env.env import raw_env

    run_tournament(["random"] * 4, 1, rules=load_rules("classic", max_turns=600), workers=1, progress=False,
                   agent_seed=1, seed=5, replays=str(tmp_path))  # fmt: skip
    replay = R.load_replay(str(tmp_path / "game_00000_seed_5.json"))
    pb = R.Playback(replay)
    assert pb.steps > 3 * pb.snapshot_every and pb.snapshot_every == R.SNAPSHOT_EVERY

    def from_deal(k: int) -> raw_env:
        env = raw_env(num_players=replay.num_players, rules=replay.rules)
        env.reset(seed=replay.seed)
        for a in replay.actions[:k]:
            env.step(a)
        return env

    stepped = [0]
    real_step = raw_env.step

    def counting_step(self, action):
        stepped[0] += 1
        real_step(self, action)

    rng = np.random.default_rng(0)
    every = pb.snapshot_every
    ks = [pb.steps, pb.steps - 1, 0, every, every - 1, every + 1, 2 * every, 1, pb.steps, *rng.integers(0, pb.steps + 1, 8)]
    for k in map(int, ks):
        want = from_deal(k)
        monkeypatch.setattr(raw_env, "step", counting_step)
        stepped[0] = 0
        env = pb.env_at(k)
        assert stepped[0] < every, (k, stepped[0])
        monkeypatch.setattr(raw_env, "step", real_step)
        assert env.public_state() == want.public_state() and env.game.turn == want.game.turn == pb.turn(k), k
        for seat in env.possible_agents:
            assert env.seat_view(seat).to_json() == want.seat_view(seat).to_json(), (k, seat)
        if k:
            assert pb.events(k) == list(want.game.log[len(from_deal(k - 1).game.log) :]), k
    assert pb.env_at(pb.steps).game.over and R.outcome_of(pb.env_at(pb.steps)) == replay.outcome


def test_a_replay_holds_at_most_max_steps_and_small_plain_accounts(replay_dir):
    doc = json.loads(open(files(replay_dir)[0], "rb").read())
    n = R.MAX_STEPS + 1
    long = {**doc, "actions": [0] * n, "actors": [0] * n}
    long.pop("accounts")
    long["digest"] = R.digest(long)
    with pytest.raises(R.ReplayError, match=f"holds {n:,} steps; a replay holds at most {R.MAX_STEPS:,}"):
        R.from_document(long)
    R.check_account({"agent": "ppo", "top": [["roll", 0.5]], "value": -0.25, "accusation_head": {"q_stop": 1, "accuses": False}})
    for bad, message in (
        ({"a": [[[[[[1]]]]]]}, "nested more than"),
        ({"a": "x" * (R.MAX_ACCOUNT_TEXT + 1)}, "a string of"),
        ({"a": list(range(R.MAX_ACCOUNT_ITEMS + 1))}, "entries"),
        ({"a": 10**16}, "the number"),
        ({"a": float("inf")}, "the number"),
        ({"a": float("nan")}, "the number"),
        ({"a": {1: 2}}, "keys"),
        ({"a": (1, 2)}, "not plain JSON"),
    ):
        with pytest.raises(ValueError, match=message):
            R.check_account(bad)
