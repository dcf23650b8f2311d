"""The terminal fits 80x24 (issue 17, item 6): ``play.py`` on a pty, its output read by a ``pyte``
terminal emulator, and the compact screen's pieces (:mod:`clue_env.play.screen`,
:mod:`clue_env.play.seat_lines`) on their own.

On the 24-row screen, at every kind of prompt (the start of a turn, the choice of a move and the
move menu, the suggestion's suspect and weapon menus, the refutation, the accusation's
confirmation) the prompt, the hand and, when refuting, the suggestion to refute are visible. In
a hot-seat game the other human's hand is never on the screen nor in the scrollback.
"""

from __future__ import annotations

import io
import os
import re
import sys
from collections.abc import Callable
from typing import Any

import pytest

import agents
from clue_env.engine.cards import CARDS, ROOMS
from clue_env.engine.events import Show
from clue_env.play import GameSession
from clue_env.play.screen import MARK, Panel, beside, compose, fit_news, label_board, wrap
from clue_env.play.seat_lines import short_line
from clue_env.play.terminal import TerminalUI
from clue_env.render import render_text

pexpect = pytest.importorskip("pexpect")
pyte = pytest.importorskip("pyte")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLS, ROWS = 80, 24
#: every prompt play.py shows on a terminal (the policy below never opens the enter/toward menus)
PROMPTS = [
    r"player_\d+, your turn: press Enter ",
    r"card to show(?: \[Enter = [^\]\r\n]*\])?> ",
    r"(?:suspect|weapon|room|move)> ",
    r"\[y/N\] ",
    r"\r\n> ",
]
#: the kinds of prompt a game must have shown
KINDS = {"start", "move", "move_menu", "suspect", "weapon", "refute", "confirm"}


class Policy:
    """Answers a prompt from what the screen shows: first a typed accusation, cancelled at its
    confirmation; then suggest (Miss Scarlet, the Candlestick: menus 1 and 1), take a passage,
    open the move menu once and go back, head toward the Lounge, roll, end; when refuting, the
    proposed card or the first. Records the kinds of prompt seen."""

    def __init__(self) -> None:
        self.kinds: set[str] = set()
        self.accused = False
        self.move_menu = False

    def kind(self, prompt: str, screen: str) -> str:
        if prompt.startswith("card to show"):
            return "refute"
        if prompt.endswith("press Enter "):
            return "pass"
        for word in ("suspect", "weapon", "room", "move"):
            if prompt.startswith(word + ">"):
                return "move_menu" if word == "move" else word
        if "[y/N]" in prompt:
            return "confirm"
        verbs = self.verbs(screen)
        return "move" if {"move", "toward", "enter"} & set(verbs) else "start" if "roll" in verbs else "other"

    @staticmethod
    def verbs(screen: str) -> list[str]:
        return re.findall(r"^\s+\d+ (\w+)", screen[screen.rfind("your choices:") :], re.M)

    def __call__(self, prompt: str, screen: str) -> str:
        kind = self.kind(prompt, screen)
        self.kinds.add(kind)
        answers = {"refute": "" if "Enter =" in prompt else "1", "pass": "", "suspect": "1", "weapon": "1"}
        answers.update({"room": "1", "move_menu": "", "confirm": "n"})
        if kind in answers:
            return answers[kind]
        verbs = self.verbs(screen)
        if not self.accused:
            self.accused = True
            return "accuse plum rope hall"
        if "suggest" in verbs:
            return "suggest"
        if "passage" in verbs:
            return "passage"
        if kind == "move":
            if not self.move_menu and "move" in verbs:
                self.move_menu = True
                return "move"
            return "toward lounge"
        return "roll" if "roll" in verbs else "end"


def norm(lines: list[str]) -> str:
    """Screen lines as one text, wrapped lines joined (a line break reads as a space)."""
    return re.sub(r"\s+", " ", " ".join(line.strip() for line in lines))


def hands(seats: list[str], seed: int) -> list[str]:
    """Each seat's ``your hand: ...`` text (the deal depends on the seed alone)."""
    s = GameSession(seats, agent_factory=agents.play_factory, seed=seed, agent_seed=0)
    d = s.game.cfg.display
    return ["your hand: " + ", ".join(d(CARDS[c]) for c in s.view(i).hand) for i in range(len(seats))]


def line_text(line: Any, columns: int) -> str:
    return "".join(line[x].data for x in range(columns)).rstrip()


def play_on_pty(args: list[str], check: Callable[[str, str, Any], None], limit: int = 60) -> Policy:
    """``play.py ARGS`` on an 80x24 pty, answered by a :class:`Policy`; ``check(kind, prompt,
    screen)`` at every prompt. Stops at end of input once every kind was seen (or at ``limit``)."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    child = pexpect.spawn(
        sys.executable,
        [os.path.join(ROOT, "play.py"), *args],
        cwd=ROOT,
        encoding="utf-8",
        timeout=30,
        dimensions=(ROWS, COLS),
        env={**env, "TERM": "xterm"},
    )
    screen = pyte.HistoryScreen(COLS, ROWS, history=5000)
    stream = pyte.Stream(screen)
    policy = Policy()
    try:
        for _ in range(limit):
            child.expect(PROMPTS)
            stream.feed(child.before + child.after)
            prompt = child.after.lstrip("\r\n")
            text = "\n".join(line.rstrip() for line in screen.display)
            kind = policy.kind(prompt, text)
            check(kind, prompt, screen)
            if KINDS <= policy.kinds | {kind} and kind != "pass":
                policy.kinds.add(kind)
                break
            child.sendline(policy(prompt, text))
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    return policy


def check_screen(screen: Any, prompt: str, hand: str, refuting: bool) -> None:
    lines = [line.rstrip() for line in screen.display]
    assert len(lines) == ROWS and all(len(line) <= COLS for line in lines)
    assert lines[screen.cursor.y].endswith(prompt.rstrip()), lines  # the prompt is where the cursor is
    text = norm(lines)
    assert hand in text, "\n".join(lines)
    if refuting:
        m = re.search(r"suggests (.+?) with the (.+?) in the (.+?): show", text)
        assert m, "\n".join(lines)
        start = lines.index("you can show:")
        offered = [re.sub(r"^\s*\d+ ", "", line) for line in lines[start + 1 :] if re.match(r"^\s+\d+ ", line)]
        assert offered and set(offered) <= {m[1], m[2], m[3]}, (offered, m.groups())


# ---------------------------------------------------------------------- 80x24, every prompt
def test_every_prompt_shows_the_prompt_the_hand_and_the_suggestion_to_refute_on_80x24():
    seats = ["human", "random", "random", "random"]
    hand = hands(seats, 2)[0]
    seen: list[str] = []

    def check(kind: str, prompt: str, screen: Any) -> None:
        seen.append(kind)
        check_screen(screen, prompt, hand, kind == "refute")

    policy = play_on_pty(["--seed", "2", "--agent-seed", "2", "--seats", ",".join(seats)], check)
    assert policy.kinds >= KINDS, (policy.kinds, seen)


def test_hot_seat_never_shows_the_other_humans_hand_on_screen_or_in_the_scrollback():
    seats = ["human", "human", "random"]
    hand = hands(seats, 5)
    current: list[int] = []
    players: set[int] = set()

    def check(kind: str, prompt: str, screen: Any) -> None:
        if kind == "pass":
            current[:] = [int(re.search(r"player_(\d+), your turn", prompt)[1])]  # type: ignore[index]
            players.add(current[0])
        seat = current[0]
        history = [line_text(line, COLS) for line in screen.history.top]
        below = [line_text(line, COLS) for line in screen.history.bottom]
        everything = norm(history + [line.rstrip() for line in screen.display] + below)
        other = hand[1 - seat]
        assert other not in everything
        for m in re.finditer("your hand: ", everything):  # every hand shown is this seat's
            assert everything[m.start() :].startswith(hand[seat]), everything[m.start() : m.start() + 80]
        if kind == "pass":
            assert "your hand:" not in everything  # the pass screen shows no hand
        else:
            check_screen(screen, prompt, hand[seat], kind == "refute")

    play_on_pty(["--seed", "5", "--agent-seed", "5", "--seats", ",".join(seats)], check, limit=40)
    assert players == {0, 1}


# ---------------------------------------------------------------------- in-process, other widths
def test_a_wide_terminal_puts_the_board_beside_the_panel_and_a_narrow_one_wraps_at_words():
    session = GameSession(["human", "random", "random"], agent_factory=agents.play_factory, seed=3, agent_seed=4)
    lines = ["roll", "board", "notes"]
    out = io.StringIO()
    ui = TerminalUI(session, input_fn=lambda p: lines.pop(0) if lines else "quit", out=out, tty=True, size=(160, 40))
    assert ui.run() == 0
    text = out.getvalue()
    assert all(len(line) < 160 for line in text.splitlines())
    # after the roll: the panel on the left, the labelled board (row numbers, marks) on the right
    screen = text[text.index("| roll ") :].splitlines()
    assert any(re.match(r"your hand: .*\s{2}\d\d [#.A-Za-z0-9*]{24}", line) for line in screen), screen
    assert any(re.search(r"\s{2}\d\d [#.A-Za-z0-9]*\*", line) for line in screen)
    assert f"{MARK} = a square you can move to now" in text
    assert "notebook (facts):" in text and "[X]" in text
    session = GameSession(["human", "random", "random"], agent_factory=agents.play_factory, seed=3, agent_seed=4)
    lines = ["help", "accuse plum rope hall", "n"]
    asked: list[str] = []

    def answer(prompt: str) -> str:
        asked.append(prompt)
        return lines.pop(0) if lines else "quit"

    out = io.StringIO()
    ui = TerminalUI(session, input_fn=answer, out=out, tty=True, size=(50, 24))
    assert ui.run() == 0
    text = out.getvalue()
    help_text = text[text.index("At any prompt") : text.index("End of input (Ctrl-D) quits.")]
    for line in text.replace(help_text, "").splitlines():  # help's own table is preformatted
        assert len(line) < 50, line
    assert "accuse Professor Plum with the Rope in the Hall? [y/N] " in asked  # the warning on its own line
    assert "A wrong accusation ends your game." in text.splitlines()
    hand = next(i for i, line in enumerate(text.splitlines()) if line.startswith("your hand:"))
    lines = text.splitlines()
    assert lines[hand + 1].startswith("           ")  # the hand wraps under itself, at a comma


# ---------------------------------------------------------------------- the pieces
def test_wrap_breaks_at_word_boundaries_only():
    text = "Colonel Mustard suggests Professor Plum with the Candlestick in the Billiard Room"
    lines = wrap(text, 20, hang="  ")
    assert all(len(line) <= 20 for line in lines) and len(lines) > 2
    assert " ".join(line.strip() for line in lines) == text  # no word was cut
    assert all(line.startswith("  ") for line in lines[1:])
    assert wrap("", 10) == [""]


def test_fit_news_keeps_the_most_recent_lines_and_says_how_many_are_left_out():
    news = [f"event number {i}" for i in range(10)]
    assert fit_news(news, 20, 80) == [f"  event number {i}" for i in range(10)]
    cut = fit_news(news, 4, 80)
    assert cut == ["  (7 earlier: type log)", "  event number 7", "  event number 8", "  event number 9"]


def test_compose_fits_the_rows_and_keeps_hand_pending_and_choices():
    panel = Panel(
        header="player_0 (Miss Scarlet, you) | turn 9/300 | in the Lounge",
        hand="your hand: Mr. Green, Lead Pipe, Revolver, Lounge, Hall",
        news=tuple(f"Mrs. White rolls {i}" for i in range(40)),
        pending="Colonel Mustard suggests Mr. Green with the Rope in the Lounge: show Colonel Mustard one of your cards",
        choices=("you can show:", "   1 Mr. Green", "   2 Lounge"),
    )
    lines = compose(panel, 80, 21)
    assert len(lines) == 21 and all(len(line) <= 80 for line in lines)
    assert lines[0].startswith("player_0") and lines[1] == "since you last looked:"
    assert "earlier: type log" in lines[2] and lines[-4:-1] == list(panel.choices)
    assert panel.hand in lines and any("suggests Mr. Green with the Rope" in line for line in lines)
    # two columns: the right one from the top, the left one down to the bottom (next to the prompt)
    assert beside(["a", "b"], ["1", "2", "3"], 12) == [" " * 11 + "1", "a" + " " * 10 + "2", "b" + " " * 10 + "3"]


def test_the_board_has_row_and_column_numbers_and_marks_the_reachable_squares():
    session = GameSession(["human", "random", "random"], agent_factory=agents.play_factory, seed=3, agent_seed=4)
    before = render_text(session.game)
    session.act(0, "roll")
    moves = [t.split(" ", 1)[1] for t in session.legal(0) if t.startswith("move ")]
    marks = [(int(m.split(",")[0]), int(m.split(",")[1])) for m in moves]
    board = session.game.board
    lines = label_board(render_text(session.game), board.rows, board.cols, marks)
    assert lines[1].startswith("   0         1         2") and lines[2].startswith(
        "   0123456789012345678901234"[: 3 + board.cols]
    )
    for r in range(board.rows):
        row = lines[3 + r]
        assert row.startswith(f"{r:>2} ")
        for c in range(board.cols):
            want = MARK if (r, c) in marks else render_text(session.game).split("\n")[1 + r][c]
            assert row[3 + c] == want
    assert marks and sum(line[3 : 3 + board.cols].count(MARK) for line in lines[3 : 3 + board.rows]) == len(marks)
    assert MARK not in render_text(session.game) and before.split("\n")[0].startswith("Clue (classic)")  # ansi unchanged


def test_news_names_characters_says_you_and_the_seats_private_card():
    session = GameSession(["human", "random", "random"], agent_factory=agents.play_factory, seed=3, agent_seed=4)
    game = session.game
    white = list(game.seat_suspect).index(2)  # Mrs. White's seat
    rope = CARDS.index("rope")
    ev = Show(refuter=white, suggester=0, card=rope)
    assert short_line(game, 0, ev) == "Mrs. White shows you the Rope card"
    assert short_line(game, white, ev) == "you show Miss Scarlet the Rope card"
    assert short_line(game, 1, ev.redacted(1)) == "Mrs. White shows a card to Miss Scarlet"


# ---------------------------------------------------------------------- commands on 80x24
class Pty:
    """An 80x24 terminal (``pyte``) in front of a :class:`TerminalUI` or a replay stepper run
    in-process: what they write and the lines typed (echoed after their prompt) are fed to the
    emulator. ``answer(prompt)`` gives each line; after each command in ``checked``, once the
    next prompt is on the screen, the first line of the command's answer must still be on it."""

    def __init__(self, answer: Callable[[str], str | None], checked: set[str]) -> None:
        self.screen = pyte.Screen(COLS, ROWS)
        self.stream = pyte.Stream(self.screen)
        self.answer = answer
        self.checked = checked
        self.written: list[str] = []
        self.last = ""
        #: per command checked: (the command, the lines its answer took)
        self.seen: list[tuple[str, int]] = []

    def write(self, text: str) -> None:
        self.written.append(text)
        self.stream.feed(text.replace("\n", "\r\n"))

    def flush(self) -> None:
        pass

    def __call__(self, prompt: str) -> str:
        answer = "".join(self.written)
        self.written = []
        self.stream.feed(prompt)
        if self.last in self.checked:
            first = answer.split("\n")[0].rstrip()
            shown = [line.rstrip() for line in self.screen.display]
            assert first and first in shown, (self.last, "\n".join(shown))
            assert shown[self.screen.cursor.y].endswith(prompt.rstrip())
            self.seen.append((self.last, answer.count("\n")))
        line = self.answer(prompt)
        if line is None:
            raise EOFError
        self.stream.feed(line + "\r\n")
        self.last = line
        return line


COMMANDS_80x24 = ["board", "notes", "legend", "notes deduce", "notes seen"]


@pytest.mark.parametrize(
    "seats, rules",
    [
        (["human", "random", "random"], "classic"),
        (["human", *["random"] * 5], "classic"),
        (["human", *["random"] * 5], "edition2023"),
    ],
)
def test_board_notes_and_legend_fit_80x24_when_moving_and_when_refuting(seats, rules):
    session = GameSession(seats, agent_factory=agents.play_factory, rules=rules, seed=11, agent_seed=3)
    rng = __import__("random").Random(0)
    todo = {"move": list(COMMANDS_80x24), "refute": list(COMMANDS_80x24)}
    decisions = [0]

    def answer(prompt: str) -> str | None:
        decisions[0] += 1
        if decisions[0] > 400 or session.over:
            return None
        legal = session.legal(0)
        kind = "refute" if prompt.startswith("card to show") else "move" if any(t.startswith("move ") for t in legal) else ""
        if kind and todo[kind]:
            return todo[kind].pop(0)
        if not todo["move"] and not todo["refute"]:
            return None
        plain = [t for t in legal if not t.startswith("accuse")]
        return next((t for t in plain if t.startswith("suggest")), None) or rng.choice(plain)

    pty = Pty(answer, set(COMMANDS_80x24))
    ui = TerminalUI(session, input_fn=pty, out=pty, tty=True, size=(COLS, ROWS))  # type: ignore[arg-type]
    assert ui.run() == 0
    assert not todo["move"] and not todo["refute"], todo  # every command was checked in both
    assert len(pty.seen) == 2 * len(COMMANDS_80x24)
    assert max(n for c, n in pty.seen if c == "board") > 15  # the whole board, folded


def test_the_replay_steppers_board_and_notes_fit_80x24(tmp_path):
    from test_play_terminal import envelope_text, write_test_replay

    import clue_env.replay as R
    from clue_env.play.replay_terminal import ReplayTerminal

    path = write_test_replay(str(tmp_path / "r.json"), ["accuse plum rope hall", envelope_text()])
    lines = ["seat player_1", "board", "notes", "legend", "n", "board", "all", "notes", "help"]
    pty = Pty(lambda _p: lines.pop(0) if lines else None, {"seat player_1", "board", "notes", "legend", "all"})
    assert ReplayTerminal(R.open_replay(path), out=pty, input_fn=pty, size=(COLS, ROWS)).run() == 0  # type: ignore[arg-type]
    assert [c for c, _n in pty.seen] == ["seat player_1", "board", "notes", "legend", "board", "all", "notes"]


def test_news_places_a_token_in_the_corridor_by_its_nearest_room_and_a_suspect_card_reads_as_a_card():
    from clue_env.engine.events import Move
    from clue_env.engine.wording import corridor_text
    from clue_env.play.replay_terminal import PUBLIC, word_event
    from clue_env.play.web.news_feed import Namer, event_entry

    session = GameSession(["human", "random", "random"], agent_factory=agents.play_factory, seed=3, agent_seed=4)
    game = session.game
    node = game.board.node_of(17, 3)
    mustard = Move(seat=1, suspect=1, node=node, cause="move")
    line = short_line(game, 0, mustard)
    assert line.startswith("Colonel Mustard moves along the corridor, ") and line.endswith(" squares from the Dining Room")
    assert "17,3" not in line and "square 17" not in line
    assert short_line(game, 0, Move(seat=0, suspect=0, node=node, cause="move")).startswith("you move along the corridor, ")
    where = corridor_text(game.board, node, lambda r: game.cfg.display(ROOMS[r]))
    assert line == f"Colonel Mustard moves {where}"
    assert word_event(mustard, game, PUBLIC, {}) == line  # the replay's words, the same
    entry = event_entry(mustard, Namer(session.view(0), game.cfg), game.board)
    assert entry is not None and entry["text"].endswith(where)  # and the browser's
    scarlet = CARDS.index("scarlet")
    green = list(game.seat_suspect).index(3) if 3 in game.seat_suspect else None
    assert green is None  # three players: Mr. Green is nobody's character, only a card
    ev = Show(refuter=0, suggester=1, card=CARDS.index("green"))
    assert short_line(game, 0, ev) == "you show Colonel Mustard the Mr. Green card"
    assert short_line(game, 1, Show(refuter=0, suggester=1, card=scarlet)) == "Miss Scarlet shows you the Miss Scarlet card"


def test_a_folded_board_draws_the_tokens_standing_in_a_room_inside_it():
    import clue_env
    from clue_env.play.terminal import FOLDED, board_lines, legend_lines

    env = clue_env.raw_env(num_players=3)
    env.reset(seed=5, options={"tokens": {"scarlet": "lounge", "mustard": "lounge", "plum": "lounge", "white": "kitchen"}})
    full = board_lines(env.game, (), 79)
    folded = board_lines(env.game, (), 79, 23)
    assert len(full) > 23 >= len(folded) and folded[-1] == FOLDED and all(len(line) <= 79 for line in folded)
    lounge = next(line for line in folded if line.startswith(" 8 "))[30:]  # beside row 8: row 21
    assert lounge.startswith("21 OO126OO"), lounge  # Scarlet, Mustard and Plum in the Lounge
    assert folded[1].endswith("1 Miss Scarlet") and folded[1 + 6].endswith("K Kitchen")  # the key
    assert any("lounge" in line and "1 2 6" in line for line in legend_lines(env.game))
