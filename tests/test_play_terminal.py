"""The terminal front end (``python play.py``, :mod:`clue_env.play.terminal`, ``agents/human.py``).

Most tests drive :class:`TerminalUI` in-process: its ``input_fn`` answers each prompt from what
the UI printed (a :class:`Bot` types ``legal``, reads the list, picks an action), or from a
fixed script. A few run ``play.py`` itself, on pipes and (pexpect) on a pty. The fuzz test is
bounded like ``tests/test_fuzz.py`` (``CLUE_FUZZ_EXAMPLES``).
"""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pytest

import agents
from clue_env.codec import default_codec
from clue_env.engine.cards import CARDS, ROOMS, SUSPECTS, WEAPONS
from clue_env.engine.events import Accuse, Suggest
from clue_env.play import GameSession
from clue_env.play.terminal import HINT, MAX_LINE, TerminalUI

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:  # play.py lives at the repository root (as under `python -m pytest`)
    sys.path.insert(0, ROOT)
PLAY = [sys.executable, os.path.join(ROOT, "play.py")]
CODEC = default_codec()
GAME_OVER = "=" * 20 + " game over "


# ---------------------------------------------------------------------- drivers
class Script:
    """An input function that returns ``lines`` one by one, then raises EOFError; it records the
    prompts it was asked with."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.lines = list(lines)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if not self.lines:
            raise EOFError
        return self.lines.pop(0)


class Bot:
    """Plays from what the UI printed only: at each prompt types ``legal``, then one of the listed
    actions (suggest > enter > toward > anything but an accusation), or, once ``accuse`` is given
    and ``accuse_after`` decisions are made, that accusation (confirmed with ``y``)."""

    def __init__(self, out: io.StringIO, seed: int = 0, accuse: str | None = None, accuse_after: int = 0) -> None:
        self.out = out
        self.pos = 0
        self.rng = random.Random(seed)
        self.accuse = accuse
        self.accuse_after = accuse_after
        self.decisions = 0
        self.listed = False
        self.target: str | None = None
        self.sent: list[str] = []

    def __call__(self, prompt: str) -> str:
        text = self.out.getvalue()
        chunk, self.pos = text[self.pos :], len(text)
        if prompt.startswith("accuse "):  # the confirmation
            return self._send("y")
        if not self.listed:
            self.listed = True
            return self._send("legal")
        self.listed = False
        legal = chunk.splitlines()[:-1]  # the last line is the prompt
        assert legal, chunk
        self.decisions += 1
        if self.accuse and self.decisions > self.accuse_after and self.accuse in legal:
            return self._send(self.accuse)
        for verb in ("suggest", "enter", "toward", ""):
            pool = [t for t in legal if t.startswith(verb) and not t.startswith("accuse")]
            if verb == "toward" and pool:  # head for one room until in one
                if self.target not in pool:
                    self.target = self.rng.choice(pool)
                return self._send(self.target)
            if pool:
                if verb in ("suggest", "enter"):
                    self.target = None
                return self._send(self.rng.choice(pool))
        return self._send(self.rng.choice(legal))

    def _send(self, line: str) -> str:
        self.sent.append(line)
        return line


class Replay:
    """An agent that plays a fixed list of text forms."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.texts = list(texts)

    def reset(self) -> None:
        pass

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> int:
        return CODEC.from_text(self.texts.pop(0))


class Recording:
    """Wraps an agent and records the text form of each of its actions."""

    def __init__(self, agent: Any, log: list[str]) -> None:
        self.agent, self.log = agent, log

    def reset(self) -> None:
        self.agent.reset()

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> int:
        index = self.agent.act(observation, info)
        self.log.append(CODEC.to_text(index))
        return index


def ui_for(session: GameSession, input_fn: Any, notes: str = "facts", **kw: Any) -> tuple[TerminalUI, io.StringIO]:
    out = io.StringIO()
    return TerminalUI(session, notes=notes, input_fn=input_fn, out=out, **kw), out


# A fixed position (3 players, classic): player_0 (the human, Miss Scarlet) starts in the
# Lounge, Colonel Mustard in the Kitchen, Mrs. White in the Conservatory. The agents replay
# SCRIPTS: player_1 takes the passage to the Study and suggests Green with the Rope; player_2
# passes, so the human must show the Rope or the Study; later player_1 suggests Green with the
# Rope in the Kitchen, and the human (Rope or Kitchen) is proposed the Rope, already shown.
DEAL = {
    "envelope": ["plum", "candlestick", "hall"],
    "hands": {
        "player_0": ["scarlet", "dagger", "rope", "kitchen", "ballroom", "study"],
        "player_1": ["mustard", "green", "lead_pipe", "revolver", "conservatory", "dining_room"],
        "player_2": ["white", "peacock", "wrench", "billiard_room", "library", "lounge"],
    },
    "tokens": {"scarlet": "lounge", "mustard": "kitchen", "white": "conservatory"},
}
SCRIPTS = {
    1: ["passage", "suggest green rope", "end", "passage", "suggest green rope", "end"],
    2: ["passage", "end", "passage", "end"],
}
#: the human's lines up to the first refutation prompt
TO_FIRST_REFUTE = ["passage", "end"]
#: ... and on to the second
TO_SECOND_REFUTE = [*TO_FIRST_REFUTE, "show rope", "passage", "end"]


def scenario() -> GameSession:
    scripts = {k: list(v) for k, v in SCRIPTS.items()}
    return GameSession(
        ["human", "replay", "replay"],
        agent_factory=lambda spec, seat, n, rules, seed: Replay(scripts[seat]),
        seed=1,
        options=DEAL,
    )


def game_session(max_turns: int | None = None, seats: Sequence[str] = ("human", "random", "random")) -> GameSession:
    return GameSession(
        list(seats),
        agent_factory=agents.play_factory,
        seed=3,
        agent_seed=4,
        env_kwargs={"max_turns": max_turns} if max_turns else None,
    )


def after_game_over(text: str) -> str:
    assert GAME_OVER in text
    return text[text.index(GAME_OVER) :]


def check_result(session: GameSession, text: str) -> None:
    """The end shows the envelope, every hand and who won."""
    res = session.result()
    d = session.game.cfg.display
    end = after_game_over(text)
    assert "envelope: " + ", ".join(d(c) for c in res["envelope"]) in end
    for i, cards in enumerate(res["hands"].values()):
        assert f"{session.seat_label(i)}: {', '.join(d(c) for c in cards)}" in end
    winner = session.seat_label(session.seat_of(res["winner"])) if res["winner"] else "nobody"
    assert f"winner: {winner} after {res['turns']} turns" in end
    before = text[: text.index(GAME_OVER)]
    assert "envelope: " not in before and "hands:" not in before


# ---------------------------------------------------------------------- (a) whole games
def true_accusation(session: GameSession) -> str:
    s, w, r = session.game.envelope
    return f"accuse {SUSPECTS[s]} {WEAPONS[w]} {ROOMS[r]}"


def test_whole_game_to_the_end_in_process_then_the_same_lines_through_play_py():
    session = game_session()
    out = io.StringIO()
    bot = Bot(out, seed=5, accuse=true_accusation(session), accuse_after=30)
    ui = TerminalUI(session, input_fn=bot, out=out)
    assert ui.run() == 0
    assert session.over and session.result()["winner"] == "player_0"
    text = out.getvalue()
    check_result(session, text)
    assert ui.played[-1] == bot.accuse and bot.sent[-1] == bot.accuse  # typed off a tty: played as it stands
    assert "Miss Scarlet suggests" in text or "player_0 (Miss Scarlet) suggests" in text  # the bot got into a room
    # the same lines piped into play.py: the same game, the same transcript, exit status 0
    args = ["--seed", "3", "--agent-seed", "4", "--seats", "human,random,random"]
    proc = subprocess.run(PLAY + args, input="\n".join(bot.sent) + "\n", capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(text)
    assert "replay: python play.py --seats human,random,random --rules classic --seed 3 --agent-seed 4" in proc.stdout


def test_whole_game_to_the_end_against_the_shipped_policy_with_deduce_notes():
    session = GameSession(["human", "ppo", "ppo", "ppo"], agent_factory=agents.play_factory, seed=7, agent_seed=8)
    out = io.StringIO()
    ui = TerminalUI(session, input_fn=Bot(out, seed=1), out=out, notes="deduce")
    assert ui.run() == 0 and session.over and not session.game.truncated
    text = out.getvalue()
    check_result(session, text)
    assert "notebook (deduce):" in text and "%" in text
    assert session.result()["winner"] in ("player_1", "player_2", "player_3")


def test_a_truncated_game_ends_cleanly():
    session = GameSession(
        ["human", "ppo", "ppo"], agent_factory=agents.play_factory, seed=7, agent_seed=8, env_kwargs={"max_turns": 9}
    )
    out = io.StringIO()
    ui = TerminalUI(session, input_fn=Bot(out, seed=1), out=out)
    assert ui.run() == 0 and session.over and session.game.truncated
    check_result(session, out.getvalue())
    assert "turn limit" in out.getvalue()


def test_subprocess_reads_actions_and_legal_then_exits_0_at_eof():
    args = ["--seed", "3", "--agent-seed", "4", "--seats", "human,random,random"]
    proc = subprocess.run(PLAY + args, input="roll\nlegal\n", capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    session = game_session()
    session.act(0, "roll")
    lines = proc.stdout.splitlines()
    legal = list(session.legal(0))
    i = lines.index(legal[0])
    assert lines[i : i + len(legal)] == legal and lines[i + len(legal)] == ">"
    assert "(end of input)" in proc.stdout and "envelope:" not in proc.stdout
    # end of input at the top prompt (nothing at all on standard input), in a menu, at the confirmation
    for lines, last_prompt in (("", ">"), ("accuse\n", "suspect>"), ("accuse\n6\n5\n8\n", "[y/N]")):
        proc = subprocess.run(PLAY + args, input=lines, capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert proc.returncode == 0 and proc.stderr == ""
        assert proc.stdout.splitlines()[-3:] == [proc.stdout.splitlines()[-3], "(end of input)", "bye"]
        assert proc.stdout.splitlines()[-3].endswith(last_prompt)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--players", "7"], "--players must be 2-6"),
        (["--seats", "human,random,random,random", "--players", "3"], "names 4 seats but --players is 3"),
        (["--seats", "random,random,random"], "no 'human' seat"),
        (["--seats", "human,nosuchagent,random"], "unknown agent 'nosuchagent'"),
        (["--players", "2"], "out of range for the 'classic' rules"),
        (["--notes", "all"], "invalid choice"),
        (["--port", "99999", "--web"], "a port is 1-65535"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(args, message):
    proc = subprocess.run(PLAY + args, input="", capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 2 and message in proc.stderr, (proc.returncode, proc.stderr)


def test_seats_and_players():
    import play

    assert play.build_seats(None, None) == ["human", "ppo", "ppo", "ppo"]
    assert play.build_seats(None, 2) == ["human", "ppo"]  # the shipped 2-player policy
    assert play.build_seats(None, 3) == ["human", "ppo", "ppo"]
    assert play.build_seats("human,random", 4) == ["human", "random", "ppo", "ppo"]
    assert play.build_seats("random,human", None) == ["random", "human"]
    assert play.build_seats("human", 2) == ["human", "ppo"]
    with pytest.raises(ValueError, match="empty spec"):
        play.build_seats("human,,random", None)
    # a spec's own parameters stay with it
    assert play.build_seats("human,deduction:samples=16,exact_budget=0,random", None) == [
        "human",
        "deduction:samples=16,exact_budget=0",
        "random",
    ]
    help_text = subprocess.run(PLAY + ["--help"], capture_output=True, text=True, timeout=60, cwd=ROOT).stdout
    assert "own policy file for the 2-player game" in " ".join(help_text.split())


def test_web_flag_calls_serve_lazily_or_names_the_extra(monkeypatch, capsys):
    import types

    import play

    calls: list[dict[str, Any]] = []
    fake = types.ModuleType("clue_env.play.web.server")
    fake.serve = lambda **kw: calls.append(kw)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "clue_env.play.web.server", fake)
    monkeypatch.setattr(play.importlib.util, "find_spec", lambda name: object())
    assert play.main(["--web", "--port", "8123"]) == 0
    assert calls == [{"host": "127.0.0.1", "port": 8123, "agent_factory": agents.play_factory, "agent_delay": 0.3}]
    assert play.main(["--web", "--agent-delay", "0"]) == 0 and calls[-1]["agent_delay"] == 0.0
    for bad in ("-1", "x", "nan", "99"):
        with pytest.raises(SystemExit) as exc:
            play.main(["--web", "--agent-delay", bad])
        assert exc.value.code == 2
    monkeypatch.setattr(play.importlib.util, "find_spec", lambda name: None if name == "uvicorn" else object())
    assert play.main(["--web"]) == 2
    assert "the web front end needs the play extra: pip install -e '.[play]'" in capsys.readouterr().err


# ---------------------------------------------------------------------- (b) legal
def test_legal_prints_exactly_the_legal_texts():
    # at the top prompt, in a menu (answered there: the menu asks again), at the refutation prompt
    session = scenario()
    out = io.StringIO()
    lines = iter(["legal", "accuse", "legal", "passage", "legal", "end", "legal"])
    expected: list[tuple[tuple[str, ...], int]] = []

    def inp(prompt: str) -> str:
        line = next(lines, None)
        if line is None:
            raise EOFError
        if line == "legal":
            expected.append((session.legal(0), len(out.getvalue())))
        return line

    ui = TerminalUI(session, input_fn=inp, out=out)
    assert ui.run() == 0 and ui.refusals == 0
    text = out.getvalue()
    assert [legal[0] for legal, _ in expected] == ["roll", "roll", "end", "show rope"]
    assert "suggest scarlet candlestick" in expected[2][0]
    assert expected[3][0] == ("show rope", "show study")
    for legal, pos in expected:
        printed = text[pos:].splitlines()
        assert printed[: len(legal)] == list(legal)
        assert printed[len(legal)] in (">", "suspect>", "card to show>")  # the next prompt: nothing else in between


# ---------------------------------------------------------------------- (c) end of input
@pytest.mark.parametrize(
    "lines, where",
    [
        ([], "> "),  # the top prompt
        (["accuse"], "suspect> "),  # a menu
        (["2", "1"], "suspect> "),  # 2 = passage is played; at the next decision 1 = suggest
        (["accuse", "1", "2"], "room> "),
        (["accuse", "6", "1", "8"], "accuse "),  # the confirmation
        (TO_FIRST_REFUTE, "card to show> "),  # the refutation
        (TO_SECOND_REFUTE, "card to show [Enter = Rope]> "),
    ],
)
def test_end_of_input_at_any_prompt_exits_0_and_changes_nothing(lines, where):
    session = scenario()
    script = Script(lines)
    ui, out = ui_for(session, script)
    versions: list[int] = []

    def inp(prompt: str) -> str:
        versions.append(session.version)
        return script(prompt)

    ui.input_fn = inp
    assert ui.run() == 0
    assert script.prompts[-1].startswith(where), script.prompts
    assert session.version == versions[-1]  # the EOF changed nothing
    assert not session.over and out.getvalue().rstrip().endswith("bye")
    assert GAME_OVER not in out.getvalue()


def test_quit_exits_0():
    session = scenario()
    ui, out = ui_for(session, Script(["quit", "roll"]))
    assert ui.run() == 0 and session.version == 0 and out.getvalue().rstrip().endswith("bye")


# ---------------------------------------------------------------------- (d) bad input
BAD_LINES = [
    "fly",
    "enter kitchen",  # well-formed, not legal now
    "show rope",
    "suggest plum",
    "move 99,99",
    "accuse plum rope",
    "accuse nobody rope hall",
    "0",
    "99",
    "-1",
    "1" * 5000,
    "9" * 40,
    "x" * (MAX_LINE + 1),
    "roll\x00",
    "\x1b[2J",
    "r\u200bo\u200bl\u200bl",  # zero-width spaces (format characters)
    "ｒｏｌｌ",  # fullwidth
    "²",  # a unicode digit is not a menu number
    "y",
    "yes",
    "🎲",
    "accuse plum candlestick hall; rm -rf /",
    "suggest",  # a verb alone that is not legal now
    "show",
]


@pytest.mark.parametrize("line", BAD_LINES, ids=range(len(BAD_LINES)))
def test_bad_input_is_refused_helpfully_and_changes_nothing(line):
    session = scenario()
    ui, out = ui_for(session, Script([line]))
    assert ui.run() == 0
    assert session.version == 0 and ui.played == [] and ui.refusals == 1
    refusal = [x for x in out.getvalue().splitlines() if x.startswith("?? ")]
    assert len(refusal) == 1 and refusal[0].endswith(f"({HINT})") and len(refusal[0]) < 420
    assert "\x00" not in out.getvalue() and "\x1b" not in out.getvalue()


def test_bad_menu_numbers_and_back_change_nothing():
    session = scenario()
    lines = ["accuse", "0", "7", "99999999999999999999", "", "4", "", "accuse", "1", "", "legal"]
    ui, out = ui_for(session, Script(lines))
    assert ui.run() == 0
    assert session.version == 0 and ui.refusals == 4  # 0, 7, 999..., and 4 at the top (3 verbs)
    text = out.getvalue()
    assert "?? no choice 0: pick 1-6, or Enter to go back" in text
    assert "?? no choice 999999999999...: pick 1-6, or Enter to go back" in text
    assert text.count("your choices:") >= 4  # Enter went back to the choices each time


def test_refused_input_at_the_refutation_prompt_changes_nothing():
    session = scenario()
    ui, out = ui_for(session, Script([*TO_FIRST_REFUTE, "", "3", "show kitchen", "roll", "show rope"]))
    assert ui.run() == 0
    assert ui.refusals == 3 and ui.played == [*TO_FIRST_REFUTE, "show rope"]
    text = out.getvalue()
    assert "you must show player_1 one of your cards:" in text and "?? no card 3: pick 1-2" in text
    assert "'show kitchen' is not legal now" in text


# ---------------------------------------------------------------------- (e) confirmation, hint
def test_accusation_asks_for_confirmation_n_cancels_y_plays():
    session = scenario()
    lines = [
        "accuse plum candlestick hall",
        "n",  # cancelled
        "accuse plum candlestick hall",
        "",  # Enter: cancelled too
        "accuse plum candlestick hall",
        "legal",  # not an answer: asked again, never played as a command
        "n",
        "accuse",  # the menus: suspect, weapon, room, then the confirmation
        "6",
        "1",
        "8",
        "yes",
    ]
    ui, out = ui_for(session, Script(lines), confirm_typed=True)  # as at a terminal
    before = session.version
    assert ui.run() == 0
    text = out.getvalue()
    assert text.count("not accused") == 3
    assert ui.played == ["accuse plum candlestick hall"] and session.version == before + 1
    assert session.over and session.result()["winner"] == "player_0"
    assert "accuse Professor Plum with the Candlestick in the Hall? A wrong accusation ends your game. [y/N]" in text
    check_result(session, text)


def test_a_wrong_accusation_is_played_once_confirmed():
    session = scenario()
    ui, out = ui_for(session, Script(["accuse white rope study", "y"]), confirm_typed=True)
    assert ui.run() == 0
    assert ui.played == ["accuse white rope study"] and session.game.eliminated[0]


def test_piped_accusation_text_is_played_as_it_stands_menus_still_confirm():
    # off a tty (stdin a pipe) an action's text form is accepted at any prompt (SPEC), accusations
    # included; an accusation built from the menus still asks, and the next line answers
    args = ["--seed", "3", "--agent-seed", "4", "--seats", "human,random,random"]
    session = game_session()
    accuse = true_accusation(session)
    proc = subprocess.run(PLAY + args, input=f"{accuse}\n", capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0 and GAME_OVER in proc.stdout and "winner: player_0" in proc.stdout
    assert "[y/N]" not in proc.stdout
    _verb, s_, w, r = accuse.split()
    menu = ["accuse", str(SUSPECTS.index(s_) + 1), str(WEAPONS.index(w) + 1), str(ROOMS.index(r) + 1)]
    proc = subprocess.run(
        PLAY + args, input="\n".join([*menu, "n", "roll"]) + "\n", capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert proc.returncode == 0 and "not accused" in proc.stdout and "rolls" in proc.stdout and GAME_OVER not in proc.stdout
    proc = subprocess.run(PLAY + args, input="\n".join([*menu, "y"]) + "\n", capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0 and GAME_OVER in proc.stdout and "winner: player_0" in proc.stdout


def test_refutation_proposes_the_card_already_shown_and_enter_shows_it():
    session = scenario()
    ui, out = ui_for(session, Script([*TO_SECOND_REFUTE, ""]))
    assert ui.run() == 0
    assert ui.played == [*TO_SECOND_REFUTE, ""][:-1] + ["show rope"]
    assert session.refute_hint(0) is None and not session.over
    text = out.getvalue()
    # the first refutation had no proposal; the second proposes the Rope (already shown to player_1)
    assert "card to show>" in text and "card to show [Enter = Rope]>" in text
    assert "player_0 (Miss Scarlet) shows a card to player_1 (Colonel Mustard) (you showed: Rope)" in text
    # by number, and by the 'show' menu
    for lines in ([*TO_SECOND_REFUTE, "2"], [*TO_SECOND_REFUTE, "show", "2"]):
        session = scenario()
        ui, _ = ui_for(session, Script(lines))
        assert ui.run() == 0 and ui.played[-1] == "show kitchen"


def test_the_card_shown_to_the_human_is_named_for_it():
    # the human suggests from the Conservatory; player_1 (first to its left) holds the Conservatory
    session = GameSession(
        ["human", "replay", "replay"],
        agent_factory=lambda spec, seat, n, r, sd: Replay(["show conservatory"]),
        seed=1,
        options=DEAL,
    )
    ui, out = ui_for(session, Script(["passage", "suggest plum candlestick"]))
    assert ui.run() == 0
    assert "shows a card to player_0 (Miss Scarlet) (you see: Conservatory)" in out.getvalue()
    assert "[X] Conservatory" in out.getvalue().split("(you see: Conservatory)")[1]  # the notebook has it


def test_menus_play_each_verb():
    session = GameSession(
        ["human", "replay", "replay"], agent_factory=lambda spec, seat, n, r, sd: Replay(["show mustard"]), seed=1, options=DEAL
    )
    ui, out = ui_for(session, Script(["2", "1", "2", "3"]))  # passage; suggest: Mustard, Lead Pipe
    assert ui.run() == 0
    assert ui.played == ["passage", "suggest mustard lead_pipe"]
    assert "(you see: Colonel Mustard)" in out.getvalue()
    session = game_session()
    ui, out = ui_for(session, Script(["1", "1", "", "toward", "2"]))  # roll; the move menu, back; toward the Ballroom
    assert ui.run() == 0
    assert ui.played == ["roll", "toward ballroom"]
    assert "move: where to? (Enter: back)" in out.getvalue() and "toward: where to?" in out.getvalue()


def test_commands_board_hand_notes_log_help():
    session = scenario()
    ui, out = ui_for(session, Script(["board", "hand", "notes", "log", "help", "  HAND  "]))
    assert ui.run() == 0 and ui.refusals == 0 and session.version == 0
    text = out.getvalue()
    assert text.count("your hand: Miss Scarlet, Dagger, Rope, Kitchen, Ballroom, Study") == 3
    assert "At any prompt, type one of:" in text and "turn 1: player_0 (Miss Scarlet)" in text
    ui, out = ui_for(scenario(), Script(["notes"]))
    ui.notes_mode = "off"
    assert ui.run() == 0 and "the notebook is off" in out.getvalue() and "notebook (" not in out.getvalue()


def test_hot_seat_announces_each_seat_before_anything_private():
    session = GameSession(["human", "human", "random"], agent_factory=agents.play_factory, seed=3, agent_seed=4)
    ui, out = ui_for(session, Script(["roll", "1", "1", "end", "roll"]))
    assert ui.run() == 0
    text = out.getvalue()
    first, second = text.index("player_0, your turn"), text.index("player_1, your turn")
    hand0 = "your hand: " + ", ".join(session.game.cfg.display(CARDS[c]) for c in session.view(0).hand)
    hand1 = "your hand: " + ", ".join(session.game.cfg.display(CARDS[c]) for c in session.view(1).hand)
    assert first < text.index(hand0) < second < text.index(hand1)
    assert hand1 not in text[:second] and hand0 not in text[second:]
    assert "since you last looked:" in text[second:]


# ---------------------------------------------------------------------- (f) a real terminal
def test_pty_session_with_pexpect():
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(
        sys.executable,
        [os.path.join(ROOT, "play.py"), "--seed", "3", "--agent-seed", "4", "--seats", "human,human,random"],
        cwd=ROOT,
        encoding="utf-8",
        timeout=30,
        dimensions=(60, 120),
        env={**os.environ, "TERM": "dumb"},
    )
    try:
        child.expect_exact("player_0, your turn: press Enter")  # hot seat on a tty waits
        child.sendline("")
        child.expect_exact("your choices:")
        child.expect_exact("> ")
        child.sendline("legal")
        child.expect_exact("roll\r\n")
        child.expect_exact("> ")
        child.sendline("accuse plum rope hall")
        child.expect_exact("[y/N] ")
        child.sendline("n")
        child.expect_exact("not accused")
        child.sendline("roll")
        child.expect_exact("you roll")  # the compact screen's news on a terminal: "you roll 6"
        child.expect_exact("> ")
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


# ---------------------------------------------------------------------- (g) fuzz
hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

FUZZ_EXAMPLES = int(os.environ.get("CLUE_FUZZ_EXAMPLES", "120"))
FUZZ = settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FUZZ_CASES = {"examples": 0, "lines": 0}

WORDS = [
    "roll", "passage", "stay", "end", "legal", "help", "board", "hand", "notes", "log", "move", "enter", "toward",
    "suggest", "show", "accuse", "y", "n", "yes", "", " ", "0", "1", "2", "3", "4", "6", "99", "-1", "move 7,4",
    "move 99,99", "enter kitchen", "toward hall", "suggest plum rope", "show rope", "show study", "accuse plum rope hall",
    "accuse plum candlestick hall", "ROLL", "Miss Scarlet", "quit",
]  # fmt: skip
LINES = st.one_of(
    st.sampled_from(WORDS),
    st.lists(st.sampled_from(WORDS), min_size=2, max_size=4).map(" ".join),
    st.text(max_size=30),
    st.integers(-(10**40), 10**40).map(str),
    st.text(alphabet=st.characters(categories=["Cc", "Cf", "Zl", "Zp", "Co"]), min_size=1, max_size=4),
    st.builds(lambda w, n: w * n, st.sampled_from(["a", "roll ", "9", "é"]), st.integers(50, 3000)),
)


@FUZZ
@given(lines=st.lists(LINES, max_size=12), seats=st.sampled_from([("human", "random", "random"), ("human", "human", "human")]))
def test_fuzz_lines_never_crash_and_refused_lines_change_nothing(lines, seats):
    FUZZ_CASES["examples"] += 1
    FUZZ_CASES["lines"] += len(lines)
    session = GameSession(list(seats), agent_factory=agents.play_factory, seed=1, agent_seed=2, options=DEAL)
    feed = list(lines)
    state: dict[str, Any] = {"version": session.version, "refusals": 0, "played": 0}

    def inp(prompt: str) -> str:
        # the line handed out last: if it was refused, nothing changed
        if ui.refusals > state["refusals"]:
            assert session.version == state["version"] and len(ui.played) == state["played"]
        state.update(version=session.version, refusals=ui.refusals, played=len(ui.played))
        if not feed:
            raise EOFError
        return feed.pop(0)

    ui, out = ui_for(session, inp)
    assert ui.run() == 0
    if seats[1] == "human":
        assert session.version == len(ui.played)  # every change is a human action the UI played
    assert "Traceback" not in out.getvalue()


def test_fuzz_case_count_report(capsys):
    # runs after the fuzz test (file order): report how many cases it tried
    with capsys.disabled():
        print(
            f"\n[terminal fuzz] {FUZZ_CASES['examples']} examples, {FUZZ_CASES['lines']} lines",
            f"(CLUE_FUZZ_EXAMPLES={FUZZ_EXAMPLES})",
        )
    assert FUZZ_CASES["examples"] == 0 or FUZZ_CASES["examples"] >= min(FUZZ_EXAMPLES, 10)


# ---------------------------------------------------------------------- (h) no R31 leak
def _deal(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    env = [rng.choice(SUSPECTS), rng.choice(WEAPONS), rng.choice(ROOMS)]
    rest = [c for c in CARDS if c not in env]
    rng.shuffle(rest)
    return {"envelope": env, "hands": {f"player_{i}": rest[i::3] for i in range(3)}}


def _play_scripted(deal: dict[str, Any], scripts: dict[int, list[str]] | None) -> tuple[GameSession, str, dict[int, list[str]]]:
    """A 3-player game from ``deal`` with the Bot as player_0: random agents (recorded) when
    ``scripts`` is None, else agents replaying ``scripts``."""
    logs: dict[int, list[str]] = {1: [], 2: []}

    def factory(spec: str, seat: int, n: int, rules: Any, seed: int | None) -> Any:
        if scripts is not None:
            return Replay(scripts[seat])
        return Recording(agents.make_agent("random", seat=seat, num_players=n, rules=rules, seed=seed), logs[seat])

    session = GameSession(
        ["human", "agent", "agent"], agent_factory=factory, seed=11, agent_seed=12, options=deal, env_kwargs={"max_turns": 30}
    )
    out = io.StringIO()
    assert TerminalUI(session, input_fn=Bot(out, seed=2), out=out).run() == 0
    assert session.over
    return session, out.getvalue(), logs


def test_no_R31_leak_two_deals_the_human_cannot_tell_apart_print_the_same_until_the_end():
    deal = _deal(0)
    a, text_a, scripts = _play_scripted(deal, None)
    named = set()
    for ev in a.game.log:
        if isinstance(ev, (Suggest, Accuse)):
            named |= {SUSPECTS[ev.suspect], WEAPONS[ev.weapon], ROOMS[ev.room]}
    assert any(isinstance(ev, Suggest) for ev in a.game.log)  # the game had suggestions and refutations
    # deal B: swap an envelope card with an unnamed card of its kind in player_1's or player_2's
    # hand, and two unnamed cards between player_1 and player_2: the human's view is the same
    hands = {k: list(v) for k, v in deal["hands"].items()}
    env = list(deal["envelope"])
    swapped = False
    for k, kind in enumerate((SUSPECTS, WEAPONS, ROOMS)):
        if env[k] in named or swapped:
            continue
        for p in ("player_1", "player_2"):
            other = [c for c in hands[p] if c in kind and c not in named]
            if other:
                hands[p][hands[p].index(other[0])], env[k] = env[k], other[0]
                swapped = True
                break
    assert swapped, named
    x = next(c for c in hands["player_1"] if c not in named)
    y = next(c for c in hands["player_2"] if c not in named)
    hands["player_1"][hands["player_1"].index(x)], hands["player_2"][hands["player_2"].index(y)] = y, x
    deal_b = {"envelope": env, "hands": hands}
    assert deal_b != deal and deal_b["hands"]["player_0"] == deal["hands"]["player_0"]
    b, text_b, _ = _play_scripted(deal_b, {k: list(v) for k, v in scripts.items()})
    end = text_a.index(GAME_OVER)
    assert text_a[:end] == text_b[: text_b.index(GAME_OVER)]  # all the human saw before the end
    assert after_game_over(text_a) != after_game_over(text_b)  # the end shows the different deals
    check_result(a, text_a)
    check_result(b, text_b)
    # and nothing before the end names another seat's cards as the end shows them
    res = a.result()
    d = a.game.cfg.display
    for i in (1, 2):
        shown = f"{a.seat_label(i)}: {', '.join(d(c) for c in res['hands'][f'player_{i}'])}"
        assert shown not in text_a[:end]


# ---------------------------------------------------------------------- agents/human.py
def test_human_agent_prompts_for_a_legal_text_form():
    import clue_env
    from agents.human import HumanAgent

    env = clue_env.raw_env(num_players=3)
    env.reset(seed=3)
    obs, _r, _t, _tr, info = env.last()
    out = io.StringIO()
    agent = agents.make_agent("human", seat=0, num_players=3)
    assert isinstance(agent, HumanAgent)
    agent.input_fn = Script(["legal", "fly", "enter kitchen", "", "ROLL"])
    agent.out = out
    assert agent.act(obs, info) == CODEC.ROLL
    text = out.getvalue()
    assert "roll\n" in text and "?? " in text and "'enter kitchen' is not legal now" in text
    agent.input_fn = Script([])
    with pytest.raises(KeyboardInterrupt):
        agent.act(obs, info)


# ---------------------------------------------------------------------- the replay stepper
def write_test_replay(path: str, texts: Sequence[str], *, rules: Any = None, specs: Sequence[str] = (), package: str = "") -> str:
    """A replay of a 3-player game whose decisions are ``texts`` (text forms; the game must be
    over after them), written by the project's own writer; ``package``: another package line
    (the digest recomputed, as the writer would)."""
    import clue_env
    import clue_env.replay as R

    env = clue_env.raw_env(num_players=3, rules=rules if rules is not None else "classic")
    env.reset(seed=7)
    actions, actors = [], []
    for text in texts:
        actors.append(int(env.game.acting))
        actions.append(env.text_to_action(text))
        env.step(actions[-1])
    assert env.game.over
    seats = [(s, 1) for s in (list(specs) + ["random"] * 3)[:3]]
    doc = R.make_replay(rules=env.rules, num_players=3, seed=7, seats=seats, actions=actions, actors=actors,
                        outcome=R.outcome_of(env))  # fmt: skip
    if package:
        doc["package"] = package
        doc["digest"] = R.digest({k: v for k, v in doc.items() if k != "digest"})
    R.write_replay(path, doc)
    return path


def envelope_text(rules: Any = None) -> str:
    """``accuse S W R`` naming the envelope of the seed-7 game of :func:`write_test_replay`."""
    import clue_env

    env = clue_env.raw_env(num_players=3, rules=rules if rules is not None else "classic")
    env.reset(seed=7)
    s, w, r = env.game.envelope
    return f"accuse {SUSPECTS[s]} {WEAPONS[w]} {ROOMS[r]}"


def step_replay(path: str, lines: Sequence[str], size: tuple[int, int] | None = None) -> tuple[int, str]:
    """``play.py --replay PATH`` in-process, typing ``lines``: its status and everything it printed."""
    import clue_env.replay as R
    from clue_env.play.replay_terminal import ReplayTerminal

    out = io.StringIO()
    sized = {} if size is None else {"size": size}
    rc = ReplayTerminal(R.open_replay(path), out=out, input_fn=Script(lines), **sized).run()
    return rc, out.getvalue()


def test_a_replays_control_characters_reach_the_terminal_escaped(tmp_path):
    """A replay's specs, package and display names (its rules) are text from a file: escape
    sequences (OSC 52 clipboard writes, clearing the screen, retitling), BEL, C1 controls and
    bidi overrides are shown escaped, never written to the terminal."""
    import play

    nasty = "\x1b]52;c;aGVsbG8=\x07"
    rules = {
        "name": "classic\x1b]0;pwned\x07",
        "suspect_names": {"scarlet": "Miss \x1b[2JScarlet\u202e", "mustard": "Col\x9b31m", "white": "W\nstep 9/9: fake"},
    }
    from clue_env.engine.config import load_rules

    cfg = load_rules("classic").with_overrides(**rules)
    path = write_test_replay(str(tmp_path / "r.json"), ["accuse plum rope hall", envelope_text(cfg)], rules=cfg,
                             specs=[f"random{nasty}", "random\r\x1b[Afake", "random"], package="clue-env\x1b[31m 9")  # fmt: skip
    rc, text = step_replay(path, ["n", "all", "seat player_0", "board", "legend", "notes", "n", "g 0", "public"])
    assert rc == 0
    for bad in ("\x1b", "\x07", "\x9b", "\u202e", "\r"):
        assert bad not in text, (bad, text)
    assert "\\x1b]52;c;aGVsbG8=\\x07" in text and "\\x1b[2J" in text and "\\u202e" in text and "\\x9b" in text
    assert "W\\x0astep 9/9: fake" in text and not any(line.startswith("step 9/9") for line in text.splitlines())
    # the script itself: play.py --replay FILE with the file's text escaped on standard output
    proc = subprocess.run([*PLAY, "--replay", path], input="n\nall\nboard\n", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout and "\x07" not in proc.stdout and "\\x1b[2J" in proc.stdout
    assert play.main(["--replay", str(tmp_path / "no\x1b[2Jfile.json")]) == 2


@pytest.mark.parametrize(
    "line", ["g ²", "g ٣", "g " + "9" * 5000, "seat player_²", "seat player_" + "1" * 5000, "g -1", "seat player_9"]
)
def test_the_replay_stepper_answers_a_bad_number_with_a_message(tmp_path, line):
    path = write_test_replay(str(tmp_path / "r.json"), ["accuse plum rope hall", envelope_text()])
    rc, text = step_replay(path, [line, "g 1"])
    assert rc == 0
    assert "g N goes to step N, 0..2" in text or "seat takes one seat: player_0, player_1, player_2" in text
    assert "step 1/2" in text  # and the stepper goes on


@pytest.mark.parametrize(
    "texts, result",
    [
        (lambda: [envelope_text()], "result: player_0 (Miss Scarlet, random) wins (correct accusation) after 1 turn, 1 step"),
        (lambda: ["accuse plum rope hall", "accuse plum rope hall"],
         "result: player_2 (Mrs. White, random) wins (last player standing) after 2 turns, 2 steps"),
    ],
)  # fmt: skip
def test_a_replays_first_screen_states_how_the_game_ended(tmp_path, texts, result):
    path = write_test_replay(str(tmp_path / "r.json"), texts())
    _rc, text = step_replay(path, [])
    assert result in text.splitlines(), text
    first = text[: text.index("commands:")]
    assert "envelope" not in first  # the result, not the cards: 'all' shows them


def test_a_replay_cut_short_by_the_turn_limit_says_so_first(tmp_path):
    import clue_env
    from clue_env.engine.config import load_rules

    cfg = load_rules("classic").with_overrides(max_turns=2)
    env = clue_env.raw_env(num_players=3, rules=cfg)
    env.reset(seed=7)
    texts = []
    while not env.game.over:
        legal = [env.action_to_text(i) for i in np.flatnonzero(env.action_mask())]
        plain = next((t for t in ("end", "roll", "stay", "passage") if t in legal), None)
        texts.append(plain or next(t for t in legal if not t.startswith("accuse")))
        env.step(env.text_to_action(texts[-1]))
    path = write_test_replay(str(tmp_path / "r.json"), texts, rules=cfg)
    _rc, text = step_replay(path, [])
    assert f"result: nobody wins (turn limit reached) after 2 turns, {len(texts)} steps" in text.splitlines(), text


def test_a_rules_files_display_names_reach_the_game_terminal_escaped():
    from clue_env.engine.config import load_rules

    cfg = load_rules("classic").with_overrides(suspect_names={"mustard": "Col\x1b]52;c;aGk=\x07 Mustard\u202e"})
    for compact in (False, True):
        session = GameSession(["human", "random", "random"], agent_factory=agents.play_factory, rules=cfg, seed=3, agent_seed=4)
        lines = ["board", "legend", "notes", "hand", "log", "accuse mustard rope hall"]
        ui, out = ui_for(session, Script(lines), compact=compact)
        assert ui.run() == 0
        text = out.getvalue()
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
        assert "Col\\x1b]52;c;aGk=\\x07 Mustard\\u202e" in text


def test_a_line_break_in_a_display_name_never_starts_a_line_in_the_game_terminal():
    from clue_env.engine.config import load_rules

    cfg = load_rules("classic").with_overrides(suspect_names={"mustard": "Col Mustard\nMiss Scarlet shows you the Rope card"})
    for compact in (False, True):
        session = GameSession(["human", "random", "random"], agent_factory=agents.play_factory, rules=cfg, seed=3, agent_seed=4)
        lines = ["board", "legend", "notes", "hand", "log", "accuse mustard rope hall"]
        ui, out = ui_for(session, Script(lines), compact=compact)
        assert ui.run() == 0
        text = out.getvalue()
        assert not [line for line in text.splitlines() if line.startswith("Miss Scarlet shows you")], compact
        assert "Col Mustard" in text
