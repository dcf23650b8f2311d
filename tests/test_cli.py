"""The smaller command-line points of issue 16 (item 22): ``play.py --web`` refuses the options of a
terminal game, an unknown agent is blamed as such, ``python -m clue_env --help`` is help, and
the README's env snippet plays a game to its end and prints the result."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLAY = [sys.executable, os.path.join(ROOT, "play.py")]


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, input="", capture_output=True, text=True, timeout=120, cwd=ROOT, **kw)


# ---------------------------------------------------------------------- play.py
@pytest.mark.parametrize(
    "args, flag",
    [
        (["--web", "--players", "9"], "--players"),
        (["--web", "--players", "4"], "--players"),
        (["--web", "--seats", "human,ppo,ppo"], "--seats"),
        (["--web", "--rules", "edition2023"], "--rules"),
        (["--web", "--seed", "3"], "--seed"),
        (["--web", "--agent-seed", "3"], "--agent-seed"),
        (["--web", "--notes", "deduce"], "--notes"),
    ],
)
def test_play_web_refuses_the_options_of_a_terminal_game_before_serving(args, flag, monkeypatch, capsys):
    import play

    served: list[tuple] = []
    monkeypatch.setattr(play, "serve_web", lambda *a: served.append(a) or 0)
    with pytest.raises(SystemExit) as e:
        play.main(args)
    assert e.value.code == 2 and not served
    assert f"{flag} is for a game in the terminal: with --web, the browser's new-game form chooses it" in capsys.readouterr().err


def test_play_web_takes_its_own_options(monkeypatch):
    import play

    served: list[tuple] = []
    monkeypatch.setattr(play, "serve_web", lambda *a: served.append(a) or 0)
    assert play.main(["--web"]) == 0 and play.main(["--web", "--port", "8123", "--agent-delay", "0"]) == 0
    assert served == [("127.0.0.1", 8000, 0.3), ("127.0.0.1", 8123, 0.0)]


@pytest.mark.parametrize("args", [["--port", "8001"], ["--host", "0.0.0.0"], ["--agent-delay", "0"]])
def test_play_in_the_terminal_refuses_the_options_of_web(args):
    proc = run(PLAY + args)
    assert proc.returncode == 2 and f"{args[0]} applies to --web only" in proc.stderr, proc.stderr


@pytest.mark.parametrize(
    "seats",
    ["human,dedution", "human,dedution,random", "dedution,human", "human,dedution:samples=3"],
)
def test_play_blames_an_unknown_agent_not_the_player_count(seats):
    proc = run(PLAY + ["--seats", seats])
    assert proc.returncode == 2, proc.stderr
    assert "unknown agent 'dedution'" in proc.stderr and "known agents:" in proc.stderr, proc.stderr
    assert "players" not in proc.stderr.lower().split("error:", 1)[1].split("known agents:")[0], proc.stderr


def test_play_still_reports_a_bad_player_count_for_known_agents():
    proc = run(PLAY + ["--seats", "human,random"])
    assert proc.returncode == 2 and "out of range for the 'classic' rules" in proc.stderr, proc.stderr


# ---------------------------------------------------------------------- python -m clue_env
def test_python_m_clue_env_help_is_help_and_names_the_layouts():
    proc = run([sys.executable, "-m", "clue_env", "--help"])
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.startswith("usage: python -m clue_env")
    for layout in ("actions", "observation", "belief"):
        assert layout in proc.stdout
    assert "Actions (Discrete)" not in proc.stdout


def test_python_m_clue_env_prints_the_layouts_and_refuses_an_unknown_one():
    from clue_env.__main__ import main

    proc = run([sys.executable, "-m", "clue_env"])
    assert proc.returncode == 0 and "Actions (Discrete):" in proc.stdout and "Observation (float32):" in proc.stdout
    proc = run([sys.executable, "-m", "clue_env", "belief"])
    assert proc.returncode == 0 and "belief_features=True" in proc.stdout and "Actions" not in proc.stdout
    with pytest.raises(SystemExit) as e:
        main(["actions", "layouts"])
    assert e.value.code == 2


# ---------------------------------------------------------------------- the README's env snippet
def readme_env_snippet() -> str:
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    section = text.split("## Using the environment", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "no python block in 'Using the environment'"
    return match.group(1)


def test_the_readmes_env_snippet_plays_a_game_to_its_end_and_prints_the_result():
    code = readme_env_snippet()
    proc = run([sys.executable, "-c", code])
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    m = re.fullmatch(r"winner: (player_\d|None) after (\d+) turns", lines[-1])
    assert m, lines[-3:]
    assert int(m.group(2)) < 300  # ends by the rules, not at the turn limit
    assert sum(" is done: reward " in line for line in lines) == 4
    claimed = re.search(r"It prints each decision, then `(.*?)`", open(os.path.join(ROOT, "README.md")).read())
    assert claimed and claimed.group(1) == lines[-1]  # the README says what it prints
