"""The terminal front end (``python play.py``): people play a :class:`GameSession` at a prompt.

:class:`TerminalUI` reads lines from an injected ``input_fn`` (default: :func:`input` on a tty,
with tab completion of the legal text forms when ``prompt_toolkit`` is installed; plain lines
from standard input otherwise) and writes to an injected stream, so tests drive it in-process.

At every prompt a line may be

* an action's text form (``roll``, ``move 7,4``, ``suggest plum rope``, ``accuse plum rope hall``,
  ...), with names as shown or their unique prefixes (``toward dining room``, ``show dag``:
  :mod:`.names`), or a verb alone (``suggest``) for its menu;
* a number from the menu shown, or in a menu and at the refutation prompt a name from it; Enter
  with nothing goes back (when refuting: shows the proposed card);
* a command: ``legal`` (the legal text forms, one per line, nothing else on those lines: SPEC),
  ``legal all``, ``legal short`` (verbs with many choices on one line with a count), ``legal VERB``,
  ``board``, ``legend``, ``hand``, ``notes [MODE]``, ``log``, ``help``, ``quit``. In a menu a
  command is answered and the menu asks again.

An accusation built from the menus, or typed at a terminal, is confirmed (``y``/``yes`` plays it,
``n``/``no``/Enter cancels it, anything else asks again); off a terminal (SPEC "Scripts") a typed
``accuse S W R`` is played as it stands. End of input quits cleanly at any prompt. Refused input
(unknown text, an illegal action, a bad number, an ambiguous prefix, control characters, over-long
lines) prints why, changes nothing and asks again at the same prompt.

Only what R31 lets the deciding seat know is shown before the end. With several human seats (hot
seat) each decision is announced first, and on a terminal waits for Enter, so the previous player
can look away; agent moves are then shown in their public wording only. Every line written is made
safe for the terminal first (:func:`~.screen.terminal_safe`): a display name from a rules file
cannot write escape sequences to it.
"""

from __future__ import annotations

import copy
import re
import sys
import unicodedata
from collections.abc import Callable, Sequence
from typing import TextIO

from ..engine.cards import CARDS, N_ROOMS, ROOMS, SUSPECTS, WEAPONS
from ..engine.events import HIDDEN, Event, Peek, Show
from ..engine.game import Game
from ..render import ROOM_LETTERS, TOKEN_CHARS, dice_text, render_text
from .names import FORMS, NameProblem, UnknownName, kind_names, read_action
from .notes import MODES, Notebook
from .screen import (
    MARK,
    SLACK,
    WIDE,
    Panel,
    beside,
    compose,
    fold_board,
    fold_width,
    label_board,
    terminal_safe,
    terminal_size,
    typed_number,
    wrap,
)
from .seat_lines import short_lines
from .session import VERBS, AgentFailure, GameSession, SessionError

#: longest line accepted at a prompt (the longest action text is under 50 characters)
MAX_LINE = 200
COMMANDS = ("legal", "board", "legend", "hand", "notes", "log", "help", "quit")
#: commands that take a word after them (``legal short``, ``notes seen``)
ARG_COMMANDS = ("legal", "notes")
#: what ``legal`` takes: ``all`` (= ``legal``), ``short``, or a verb
LEGAL_FORMS = ("legal all", "legal short")
#: ``legal short`` puts a verb with more choices than this on one line with a count
SHORT_AT = 9
HINT = "type 'legal' or 'help'"
#: verbs that name one action each: a menu number plays them at once
SINGLE = ("roll", "passage", "stay", "end")

InputFn = Callable[[str], str]

HELP = """\
At any prompt, type one of:
  an action's text form     roll | passage | stay | end | move R,C | enter ROOM | toward ROOM
                            suggest SUSPECT WEAPON | show CARD | accuse SUSPECT WEAPON ROOM
                            (card ids: scarlet, lead_pipe, dining_room, ...; 'legal' lists them)
  a number from the menu    verbs first, then the choices of that verb; Enter goes back
  a verb alone              e.g. 'suggest' or 'move': its menu
  names as shown            suggest mr green lead pipe | toward dining room | show dagger
                            accuse plum with the rope in the dining room
  a unique prefix           suggest pl dag | toward din | at suspect>: plum | refuting: dag
  legal                     the legal actions' text forms, one per line (legal all: the same)
  legal short | legal VERB  verbs with many choices on one line with a count | one verb's
  board | hand | log        the board, your cards, everything so far in words
  legend                    the seats, the rooms' tokens and weapons, the passages
  notes | notes MODE        your notebook (MODE: seen, facts or deduce)
  help | quit
An accusation is confirmed with y or yes; n, no or Enter cancels it (anything else asks again),
except one typed as text and read from a pipe, which is played as it stands. When you must show
a card, Enter alone shows the proposed one (a card this player has already seen from you).
End of input (Ctrl-D) quits."""


class _Quit(Exception):
    """Stop playing (``quit`` or end of input)."""


class _Refused(Exception):
    """A line that is not understood; the message says why."""


class TerminalUI:
    """Drive ``session`` at a prompt until the game is over; :meth:`run` returns the exit status.

    ``notes``: ``off``, ``seen``, ``facts`` or ``deduce`` (see :mod:`clue_env.play.notes`). ``input_fn``
    is called with the prompt and returns one line (raising :class:`EOFError` at the end).
    ``tty``: whether a person sits at a terminal (default: standard input and ``out`` are ttys);
    off a tty every prompt is written on a line of its own before the line is read.
    ``confirm_typed``: whether an accusation typed as text asks for confirmation too (default:
    ``tty``; menu-built accusations always ask).
    ``compact``: draw each decision as one screen that fits the terminal (default: ``tty``): the
    news since the seat last looked, its hand, the suggestion to refute, the choices; the board,
    the notebook and the log on request (:mod:`.screen`). Off, each decision prints the board,
    the hand, the notebook and the choices, and every event as it happens (what a script reads).
    ``size``: ``(columns, rows)`` of the screen (default: asked of the terminal at each drawing,
    80x24 when it cannot say).
    """

    def __init__(
        self,
        session: GameSession,
        *,
        notes: str = "facts",
        input_fn: InputFn | None = None,
        out: TextIO | None = None,
        tty: bool | None = None,
        confirm_typed: bool | None = None,
        compact: bool | None = None,
        size: tuple[int, int] | None = None,
    ) -> None:
        if notes not in MODES:
            raise ValueError(f"notes must be one of {', '.join(MODES)}, got {notes!r}")
        self.session = session
        self.notes_mode = notes
        self.out: TextIO = out if out is not None else sys.stdout
        if tty is None:
            tty = input_fn is None and _isatty(sys.stdin) and _isatty(self.out)
        self.tty = tty
        self.confirm_typed = tty if confirm_typed is None else confirm_typed
        self.compact = tty if compact is None else compact
        self.size = size
        self.input_fn: InputFn = input_fn if input_fn is not None else self._default_input()
        #: refused lines so far (each printed a message and changed nothing)
        self.refusals = 0
        #: the human actions played, in order (text forms)
        self.played: list[str] = []
        self.hot_seat = len(session.humans) > 1
        self._display = {c: session.game.cfg.display(c) for c in CARDS}
        self._names = kind_names(self._display)
        cfg = session.game.cfg
        unsafe = {n: terminal_safe(n) for n in (cfg.name, cfg.victim, *self._display.values()) if not n.isprintable()}
        #: the rules' names that are not printable, longest first, each with its escaped form: a line
        #: break in one is written escaped (:meth:`say`), so a name cannot start a line of its own
        self._unsafe_names = sorted(unsafe.items(), key=lambda item: -len(item[0]))
        self._completions: tuple[str, ...] = ()
        self._pending: str | None = None
        self._feed = len(session.events(session.humans[0])) if session.humans else 0
        self._last_seat: int | None = None
        #: the news of the decision on screen (kept to draw it again)
        self._news_now: tuple[str, ...] = ()

    # ------------------------------------------------------------------ input and output
    def _default_input(self) -> InputFn:
        if not self.tty:
            return _read_line
        completing = _completing_input(lambda: self._completions)
        return completing if completing is not None else input

    def say(self, text: str = "") -> None:
        """Write ``text`` (lines of it) made safe for the terminal, the rules' names in it escaped whole."""
        for raw, safe in self._unsafe_names:
            text = text.replace(raw, safe)
        self.out.write(terminal_safe(text, newlines=True) + "\n")
        self.out.flush()

    def _ask(self, prompt: str, completions: Sequence[str] = ()) -> str:
        """One line (a line handed back by a menu first); :class:`_Quit` at end of input."""
        if self._pending is not None:
            line, self._pending = self._pending, None
            return line
        self._completions = tuple(completions) + COMMANDS + LEGAL_FORMS
        prompt = terminal_safe(prompt)
        if not self.tty:
            self.say(prompt.rstrip())
        try:
            line = self.input_fn(prompt)
        except EOFError:
            self.say("" if self.tty else "(end of input)")
            raise _Quit from None
        return line if isinstance(line, str) else ""

    def say_wrapped(self, text: str, indent: str = "", hang: str | None = None) -> None:
        """``text``, broken at word boundaries to the screen's width when compact (else as is)."""
        if not self.compact:
            self.say(indent + text)
            return
        for line in wrap(text, self.dims()[0] - 1, indent, hang):
            self.say(line)

    def dims(self) -> tuple[int, int]:
        """``(columns, rows)`` of the screen now."""
        return self.size if self.size is not None else terminal_size()

    def refuse(self, message: str, hint: bool = True) -> None:
        """Say why a line was refused (nothing changed)."""
        self.refusals += 1
        if len(message) > 300:
            message = message[:300] + "..."
        self.say_wrapped(f"?? {message} ({HINT})" if hint else f"?? {message}", hang="   ")

    # ------------------------------------------------------------------ the game
    def run(self) -> int:
        """Play to the end: 0 at the end of the game, on ``quit`` and at end of input; 130 on
        Ctrl-C; 1 if an agent fails."""
        s = self.session
        try:
            self._intro()
            while not s.over:
                self._flush_feed()
                if s.agent_to_act:
                    s.step_agent()
                    continue
                seat = s.human_to_act()
                if seat is None:  # not reachable: someone always acts until the game is over
                    break
                self._decide(seat)
            self._flush_feed(final=True)
            self._show_result()
            return 0
        except _Quit:
            self.say("bye")
            return 0
        except KeyboardInterrupt:
            self.say("\ninterrupted")
            return 130
        except AgentFailure as e:
            self.say(f"error: {e}")
            return 1

    def _intro(self) -> None:
        s = self.session
        self.say(f"Clue ({s.rules.name}), {s.num_players} players:")
        for i in range(s.num_players):
            self.say(f"  {s.seat_label(i)}")
        self.say_wrapped("Type 'help' for the commands; an action's text form or a menu number plays.")
        self.say()

    def _flush_feed(self, final: bool = False) -> None:
        """Print what happened since the feed was last printed (agents' moves as they happen).
        Compact, nothing is printed until the end (``final``): each decision's screen shows the
        news since that seat last looked."""
        s = self.session
        if not s.humans:
            return
        if self.compact:
            if final and not self.hot_seat:
                seat = s.humans[0]
                events = s.events(seat)
                news = events[len(events) - len(s.news(seat)) :]
                for text in short_lines(s.game, seat, news, turns=True):
                    self.say_wrapped(text, "  ", "    ")
            elif final:  # public wording only (seat -1 is nobody: no private card is named)
                new = s.events(s.humans[0])[self._feed :]
                for text in short_lines(s.game, -1, new, turns=True):
                    self.say_wrapped(text, "  ", "    ")
            self._feed = len(s.events(s.humans[0]))
            return
        if self.hot_seat:  # public wording only; each seat's private details come at its decision
            events = s.events(s.humans[0])
            new = events[self._feed :]
            self._feed = len(events)
            for text in s.words(new):
                self.say(f"  {text}")
            return
        seat = s.humans[0]
        words = s.news(seat)  # marks them seen: this seat's person is watching
        events = s.events(seat)
        self._feed = len(events)
        for text in self._annotate(seat, events[len(events) - len(words) :], words):
            self.say(f"  {text}")

    def _annotate(self, seat: int, events: Sequence[Event], words: Sequence[str]) -> list[str]:
        """``words`` with what ``seat`` alone saw: the card shown to it or by it, the card it looked at."""
        out: list[str] = []
        for ev, text in zip(events, words):
            if isinstance(ev, Show) and ev.card != HIDDEN and seat in (ev.refuter, ev.suggester):
                card = self._display[CARDS[ev.card]]
                text += f" (you showed: {card})" if seat == ev.refuter else f" (you see: {card})"
            elif isinstance(ev, Peek) and ev.card != HIDDEN and ev.seat == seat:
                text += f" (you see: {self._display[CARDS[ev.card]]})"
            out.append(text)
        return out

    def _decide(self, seat: int) -> None:
        """One decision of human ``seat``: show what it may know, read lines until it plays."""
        s = self.session
        if self.hot_seat and self._last_seat != seat:
            self._announce(seat)
        self._last_seat = seat
        self._screen(seat)
        version = s.version
        while not s.over and s.human_to_act() == seat and s.version == version:
            self._prompt(seat)

    def _announce(self, seat: int) -> None:
        s = self.session
        if self.tty:
            # clear the screen and the scrollback: the previous player's hand goes away
            self.out.write("\033[2J\033[3J\033[H")
            who = s.game.cfg.display(SUSPECTS[s.game.seat_suspect[seat]])
            self.say(f"pass the keyboard to {s.agent_name(seat)} ({who})")
            line = self._ask(f"{s.agent_name(seat)}, your turn: press Enter ")
            if line.strip():  # typed ahead: handled at the prompt, once the screen is shown
                self._pending = line
        else:
            self.say(f"{s.agent_name(seat)}, your turn")

    # ------------------------------------------------------------------ what a seat is shown
    def _screen(self, seat: int) -> None:
        s = self.session
        if self.compact:
            history = s.events(seat)
            fresh = history[len(history) - len(s.news(seat)) :]
            self._news_now = tuple(short_lines(s.game, seat, fresh))
            self._draw(seat)
            return
        self.say("=" * 20 + f" {s.seat_label(seat)} " + "=" * 20)
        self.say(s.board_text())
        self._hand(seat)
        if self.notes_mode != "off":
            self.say(f"notebook ({self.notes_mode}):")
            self.say(s.notes(seat, self.notes_mode).text(self._display))
        if self.hot_seat:
            events = s.events(seat)
            words = s.news(seat)
            news = self._annotate(seat, events[len(events) - len(words) :], words)
            if news:
                self.say("since you last looked:")
                for text in news:
                    self.say(f"  {text}")
        self._choices(seat)

    def _hand_text(self, seat: int) -> str:
        return "your hand: " + ", ".join(self._display[CARDS[c]] for c in self.session.view(seat).hand)

    def _hand(self, seat: int) -> None:
        self.say_wrapped(self._hand_text(seat), hang="           ")

    # ------------------------------------------------------------------ the compact screen
    def _draw(self, seat: int, right: Sequence[str] | None = None) -> None:
        """The decision's compact screen; ``right``: lines to show beside it (the board when
        the terminal is wide enough and ``right`` is not given), or before it when narrow."""
        cols, rows = self.dims()
        cols -= 1  # a full last column makes some terminals wrap
        if right is None and cols >= WIDE - 1:
            board = self._board_lines(seat)
            if len(board) <= rows - SLACK:
                right = board
        if right is not None and cols >= WIDE - 1:
            left = max(40, cols - max(len(line) for line in right) - 2)
            panel = compose(self._panel(seat, beside_board=True), left, rows - SLACK)
            for line in beside(panel, right, cols):
                self.say(line)
            return
        for line in right or ():
            self.say(line)
        for line in compose(self._panel(seat), cols, rows - SLACK):
            self.say(line)

    def _panel(self, seat: int, beside_board: bool = False) -> Panel:
        s = self.session
        view = s.view(seat)
        g = s.game
        d = self._display
        node = view.tokens[view.characters[seat]]
        if 0 <= node < N_ROOMS:
            where = f"in the {d[ROOMS[node]]}"
        elif node >= N_ROOMS:
            where = f"on square {g.board.describe(node)}"
        else:
            where = "off the board"
        header = f"{s.seat_label(seat)} | turn {view.turn}/{view.max_turns} | {where}"
        if view.dice and view.current == seat:  # this seat's roll (not the suggester's, when refuting)
            header += f" | {dice_text(g, tuple(view.dice))}"
        groups = s.legal_groups(seat)
        pending = None
        if self._refuting(groups) and view.pending is not None:
            sug, sus, wep, room = view.pending
            name = d[SUSPECTS[view.characters[sug]]]
            pending = (
                f"{name} suggests {d[SUSPECTS[sus]]} with the {d[WEAPONS[wep]]} in the {d[ROOMS[room]]}:"
                f" show {name} one of your cards"
            )
            choices = ["you can show:"] + [f"  {n:>2} {d[text.split(' ', 1)[1]]}" for n, text in enumerate(groups["show"], 1)]
        else:
            choices = ["your choices:"]
            for n, (verb, texts) in enumerate(groups.items(), 1):
                if verb in SINGLE or len(texts) == 1 and verb != "accuse":
                    choices.append(f"  {n:>2} {texts[0]}")
                else:
                    choices.append(f"  {n:>2} {verb}  ({len(texts)} choices)")
        notes: list[str] = []
        if "move" in groups:
            where = "on the board" if beside_board else "type board to see them"
            notes.append(f"{len(groups['move'])} squares to move to, marked {MARK} ({where})")
        return Panel(header=header, hand=self._hand_text(seat), news=self._news_now, pending=pending,
                     choices=tuple(choices), notes=tuple(notes))  # fmt: skip

    def _board_lines(self, seat: int, height: int | None = None) -> list[str]:
        """The public board with row and column numbers, the squares ``seat`` may move to marked
        (:func:`board_lines`); ``height``: the lines it may take (else folded)."""
        s = self.session
        groups = s.legal_groups(seat)
        marks = [tuple(int(x) for x in t.split(" ", 1)[1].split(",")) for t in groups.get("move", ())]
        width = self.dims()[0] - 1
        extra: list[str] = []
        if marks:
            extra += wrap(f"{MARK} = a square you can move to now: move ROW,COL (row at the left, column on top)", width)
        rooms = [self._display[t.split(" ", 1)[1]] for t in groups.get("enter", ())]
        if rooms:
            extra += wrap("you can enter: " + ", ".join(rooms), width, hang="  ")
        room = None if height is None else height - len(extra)
        return board_lines(s.game, [(m[0], m[1]) for m in marks], width, room) + extra

    def _room(self, seat: int) -> int:
        """The lines that a command's answer may take so that its first line stays on the screen:
        beside the compact screen when the terminal is wide, else above the hand (and the
        suggestion to refute) printed again and the prompt."""
        cols, rows = self.dims()
        if cols >= WIDE:
            return rows - SLACK
        return rows - 1 - len(self._reminder_lines(seat))

    def _extra(self, seat: int, lines: Sequence[str]) -> None:
        """Lines asked for (the board, the notebook): beside the screen when the terminal is
        wide (and they fit its rows), else printed, then the hand (and the suggestion to refute)
        again."""
        cols, rows = self.dims()
        if cols >= WIDE and len(lines) <= rows - SLACK:
            self._draw(seat, right=lines)
            return
        for line in lines:
            self.say(line)
        self._reminder(seat)

    def _reminder_lines(self, seat: int) -> list[str]:
        width = self.dims()[0] - 1
        lines = wrap(self._hand_text(seat), width, hang="           ")
        panel = self._panel(seat)
        if panel.pending:
            lines += wrap(panel.pending, width, hang="  ")
        return lines

    def _reminder(self, seat: int) -> None:
        """The hand, and the suggestion to refute, next to the prompt again."""
        for line in self._reminder_lines(seat):
            self.say(line)

    def _choices(self, seat: int) -> None:
        if self.compact:
            self._draw(seat)
            return
        groups = self.session.legal_groups(seat)
        if self._refuting(groups):
            self._show_menu(seat)
            return
        self.say("your choices:")
        for n, (verb, texts) in enumerate(groups.items(), 1):
            if verb in SINGLE or len(texts) == 1 and verb != "accuse":
                self.say(f"  {n:>2} {texts[0]}")  # the number plays it
            else:
                self.say(f"  {n:>2} {verb}  ({len(texts)} choices)")

    @staticmethod
    def _refuting(groups: dict[str, tuple[str, ...]]) -> bool:
        return list(groups) == ["show"]

    def _show_menu(self, seat: int) -> None:
        s = self.session
        pending = s.view(seat).pending
        who = s.agent_name(pending[0]) if pending else "the suggester"
        self.say(f"you must show {who} one of your cards:")
        for n, text in enumerate(s.legal_groups(seat)["show"], 1):
            self.say(f"  {n:>2} {self._display[text.split(' ', 1)[1]]}")

    # ------------------------------------------------------------------ reading a decision
    def _prompt(self, seat: int) -> None:
        """Read and handle one line at the top prompt of ``seat``'s decision."""
        s = self.session
        groups = s.legal_groups(seat)
        legal = s.legal(seat)
        if self._refuting(groups):
            hint = s.refute_hint(seat)
            prompt = f"card to show [Enter = {self._display[hint.split(' ', 1)[1]]}]> " if hint else "card to show> "
            line = self._ask(prompt, legal)
            if self._bad_line(line):
                return
            if not line.strip() and hint:
                self._play(seat, hint)
                return
            shows = groups["show"]
            n = typed_number(line)
            if n is not None:
                if 1 <= n <= len(shows):
                    self._play(seat, shows[n - 1])
                else:
                    self.refuse(f"no card {_short(line)}: pick 1-{len(shows)}")
                return
            if line.strip() and not _leads_with_verb_or_command(line):  # a card's name: 'dagger', 'dag'
                try:
                    self._play(seat, self._name_choice(line, {t.split(" ", 1)[1]: t for t in shows}))
                except NameProblem as e:
                    self.refuse(str(e))
                return
            self._line(seat, line)
            return
        line = self._ask("> ", legal)
        if self._bad_line(line):
            return
        n = typed_number(line)
        if n is not None:
            verbs = list(groups)
            if 1 <= n <= len(verbs):
                self._verb(seat, verbs[n - 1])
            else:
                self.refuse(f"no choice {_short(line)}: pick 1-{len(verbs)}")
            return
        self._line(seat, line)

    def _bad_line(self, line: str) -> bool:
        if len(line) > MAX_LINE:
            self.refuse(f"that line is too long ({len(line)} characters; actions are under {MAX_LINE})")
            return True
        if any(unicodedata.category(ch).startswith("C") and ch != "\t" for ch in line):
            self.refuse("that line holds control characters")
            return True
        return False

    def _line(self, seat: int, line: str) -> None:
        """A command, a verb alone or an action's text form (names as typed: :mod:`.names`)."""
        if not line.strip():
            self._choices(seat)
            return
        try:
            what, value = self._understand(seat, line)
        except _Refused as e:
            self.refuse(str(e))
            return
        if what == "command":
            self._command(seat, value)
        elif what == "verb":
            self._verb(seat, value)
        elif value.startswith("accuse ") and value in self.session.legal(seat) and self.confirm_typed:
            self._confirm(seat, value)
        else:
            self._play(seat, value)

    def _understand(self, seat: int, line: str) -> tuple[str, str]:
        """What ``line`` asks for: ``("command", words)``, ``("verb", verb)`` (a verb alone, legal
        now) or ``("action", text form)`` (well-formed, maybe not legal now); :class:`_Refused`
        with the reason otherwise. Changes nothing."""
        s = self.session
        word = " ".join(line.split()).lower()
        first = word.split(" ", 1)[0]
        if first in COMMANDS and (word == first or first in ARG_COMMANDS):
            return "command", word
        groups = s.legal_groups(seat)
        if word in VERBS and word not in SINGLE:
            if word in groups:
                return "verb", word
            raise _Refused(f"{word!r} is not legal now; your choices: {', '.join(groups)}")
        try:
            named = read_action(line, self._names)
        except NameProblem as e:
            raise _Refused(str(e)) from None
        try:
            return "action", s.env.action_to_text(s.parse(named if named is not None else word))
        except SessionError as e:
            if first not in VERBS and self._names["card"].matches(line):  # a bare name at the top prompt
                forms = [FORMS[v] for v in groups if v in FORMS] or ["suggest SUSPECT WEAPON"]
                raise _Refused(f"{_short(line)!r} is a name, not an action: start with a verb ({', '.join(forms)})") from None
            raise _Refused(str(e)) from None

    def _name_choice(self, line: str, options: dict[str, str]) -> str:
        """The choice named by ``line`` among ``options`` (card id -> what picking it gives);
        :class:`NameProblem` saying why not (naming the choices)."""
        names = self._names["card"].restrict(options)
        try:
            return options[names.resolve(line)]
        except UnknownName:
            typed = _short(line)
            try:
                card = self._names["card"].resolve(line)
            except NameProblem:
                raise UnknownName(f"no choice here is called {typed!r}; the choices: {names.listing()}") from None
            raise UnknownName(f"{self._display[card]} is not a choice here; the choices: {names.listing()}") from None

    def _play(self, seat: int, text: str) -> None:
        s = self.session
        try:
            played = s.act(seat, text, version=s.version)
        except SessionError as e:
            self.refuse(str(e))
            return
        self.played.append(played)

    def _command(self, seat: int, word: str) -> None:
        s = self.session
        command, _, arg = word.partition(" ")
        if command == "legal":
            self._legal(seat, arg)
        elif command == "board":
            if self.compact:
                self._extra(seat, self._board_lines(seat, self._room(seat)))
            else:
                self.say(s.board_text())
        elif command == "legend":
            if self.compact:
                self._extra(seat, legend_lines(s.game))
            else:
                for line in legend_lines(s.game):
                    self.say(line)
        elif command == "hand":
            self._hand(seat)
        elif command == "notes":
            mode = arg or self.notes_mode
            if mode not in MODES:
                self.refuse(f"no notes mode {_short(arg)!r}: notes {' | '.join(m for m in MODES if m != 'off')}")
            elif mode == "off":
                self.say("the notebook is off (--notes seen, facts or deduce shows it; or type 'notes seen', ...)")
            elif self.compact:
                self._extra(seat, notes_lines(s.notes(seat, mode), self._display, self.dims()[0] - 1, self._room(seat)))
            else:
                self.say(f"notebook ({mode}):")
                self.say(s.notes(seat, mode).text(self._display))
        elif command == "log":
            events = s.events(seat)
            if self.compact:
                for text in short_lines(s.game, seat, events, turns=True):
                    self.say_wrapped(text, "  ", "    ")
                self._reminder(seat)
                return
            for text in self._annotate(seat, events, s.words(events)):
                self.say(f"  {text}")
        elif command == "help":
            self.say(HELP)
            if self.compact:
                self._reminder(seat)
        elif command == "quit":
            raise _Quit

    def _legal(self, seat: int, arg: str) -> None:
        """``legal`` / ``legal all``: every legal text form, one per line (SPEC); ``legal short``:
        a verb with many choices on one line with their count; ``legal VERB``: that verb's."""
        groups = self.session.legal_groups(seat)
        if arg in ("", "all"):
            for text in self.session.legal(seat):
                self.say(text)
        elif arg == "short":
            for line in legal_short(groups):
                self.say(line)
        elif arg in groups:
            for text in groups[arg]:
                self.say(text)
        elif arg in VERBS:
            self.refuse(f"{arg!r} is not legal now; your choices: {', '.join(groups)}")
        else:
            self.refuse(f"'legal {_short(arg)}' is not a command: legal | legal all | legal short | legal VERB")

    # ------------------------------------------------------------------ menus
    def _menu(
        self,
        seat: int,
        title: str,
        items: Sequence[tuple[str, str]],
        prompt: str,
        completions: Sequence[str],
        named: dict[str, str] | None = None,
    ) -> str | None:
        """A numbered menu of ``(key, label)``; the key picked, or ``None`` (back: Enter, or a
        line for the top prompt: an action's text form or a verb, legal now).

        ``named``: card id (or square ``R,C``) -> key, so that a name picks too (``plum``, ``din``).
        A command is answered here and the menu asks again; anything refused asks again here."""
        if self.compact:
            self._reminder(seat)
        self.say(title)
        width = max(len(label) for _k, label in items) + 6
        per_row = max(1, (self.dims()[0] - 2 if self.compact else 78) // width)
        cells = [f"{n:>3} {label}".ljust(width) for n, (_k, label) in enumerate(items, 1)]
        for i in range(0, len(cells), per_row):
            self.say("".join(cells[i : i + per_row]).rstrip())
        pick_range = f"pick 1-{len(items)}, or Enter to go back"
        while True:
            line = self._ask(prompt, completions)
            if self._bad_line(line):
                continue
            if not line.strip():
                return None
            n = typed_number(line)
            if n is not None:
                if 1 <= n <= len(items):
                    return items[n - 1][0]
                self.refuse(f"no choice {_short(line)}: {pick_range}")
                continue
            if _leads_with_verb_or_command(line):
                try:
                    what, value = self._understand(seat, line)
                except _Refused as e:
                    self.refuse(str(e))
                    continue
                if what == "command":
                    self._command(seat, value)
                    continue
                if what == "action" and value not in self.session.legal(seat):
                    self.refuse(f"{value!r} is not legal now; {pick_range}")
                    continue
                self._pending = line  # an action or a verb, legal now: the top prompt plays it
                return None
            if named is not None:
                square = _square(line)
                if square is not None and square in named:
                    return named[square]
                try:
                    return self._name_choice(line, named)
                except NameProblem as e:
                    self.refuse(f"{e}; or {pick_range}")
                    continue
            self.refuse(f"{_short(line)!r} is not a choice: {pick_range}")

    def _verb(self, seat: int, verb: str) -> None:
        """The menus of one verb, then the action (accusations confirmed)."""
        s = self.session
        texts = s.legal_groups(seat).get(verb, ())
        if not texts:
            self.refuse(f"{verb!r} is not legal now")
            return
        if verb in SINGLE or len(texts) == 1 and verb != "accuse":
            self._play(seat, texts[0])
            return
        legal = s.legal(seat)
        if verb in ("move", "enter", "toward", "show"):
            where = {t.split(" ", 1)[1]: t for t in texts}  # room, card or R,C -> text
            if verb == "move":
                items = [(t, t) for t in texts]
            elif verb == "show":
                items = [(t, self._display[c]) for c, t in where.items()]
            else:
                items = [(t, f"{verb} {self._display[c]}") for c, t in where.items()]
            title = "which card? (Enter: back)" if verb == "show" else f"{verb}: where to? (Enter: back)"
            pick = self._menu(seat, title, items, "card> " if verb == "show" else f"{verb}> ", legal, where)
            self._pick(seat, pick)
            return
        # suggest SUSPECT WEAPON / accuse SUSPECT WEAPON ROOM: one menu per argument
        args: list[str] = []
        kinds = ("suspect", "weapon", "room")[: 2 if verb == "suggest" else 3]
        for kind in kinds:
            prefix = " ".join([verb, *args]) + " "
            options = list(dict.fromkeys(t[len(prefix) :].split(" ", 1)[0] for t in texts if t.startswith(prefix)))
            pick = self._menu(
                seat,
                f"{verb}: which {kind}? (Enter: back)",
                [(c, self._display[c]) for c in options],
                f"{kind}> ",
                legal,
                {c: c for c in options},
            )
            if pick is None:
                self._back(seat)
                return
            args.append(pick)
        text = " ".join([verb, *args])
        if verb == "accuse":
            self._confirm(seat, text)
        else:
            self._play(seat, text)

    def _pick(self, seat: int, pick: str | None) -> None:
        if pick is None:
            self._back(seat)
        else:
            self._play(seat, pick)

    def _back(self, seat: int) -> None:
        if self._pending is None:  # Enter: back to the choices
            self._choices(seat)

    def _confirm(self, seat: int, text: str) -> None:
        """Ask before an accusation: yes plays it, no (or Enter) cancels it; any other line is
        refused and the question asked again (it is never played as a command)."""
        _verb, s_, w, r = text.split(" ")
        d = self._display
        prompt = f"accuse {d[s_]} with the {d[w]} in the {d[r]}? A wrong accusation ends your game. [y/N] "
        if self.compact:  # the question on a line of its own, fitting 80 columns
            self.say("A wrong accusation ends your game.")
            prompt = f"accuse {d[s_]} with the {d[w]} in the {d[r]}? [y/N] "
        while True:
            line = self._ask(prompt)
            if self._bad_line(line):
                continue
            answer = " ".join(line.split()).lower()
            if answer in ("y", "yes"):
                self._play(seat, text)
                return
            if answer in ("", "n", "no"):
                self.say("not accused")
                if self.compact:
                    self._draw(seat)
                return
            self.refuse(f"answer y (accuse) or n (do not accuse), not {_short(line)!r}", hint=False)

    # ------------------------------------------------------------------ the end
    def _show_result(self) -> None:
        s = self.session
        res = s.result()
        d = self._display
        self.say("=" * 20 + " game over " + "=" * 20)
        self.say(s.board_text())
        self.say(res["text"])
        self.say("envelope: " + ", ".join(d[c] for c in res["envelope"]))
        self.say("hands:")
        for i, (_name, cards) in enumerate(res["hands"].items()):
            self.say(f"  {s.seat_label(i)}: {', '.join(d[c] for c in cards)}")
        winner = res["winner"]
        self.say(f"winner: {s.seat_label(s.seat_of(winner)) if winner else 'nobody'} after {res['turns']} turns")


# ---------------------------------------------------------------------- boards and notebooks
#: the last line of a folded board
FOLDED = "legend: the seats, the rooms' tokens and weapons, the passages"


def _board_text(game: Game) -> str:
    """The ``ansi`` render without its log; names that are not printable (a line break in a
    display name would shift the board's rows) drawn escaped (:func:`~.screen.terminal_safe`)."""
    cfg = game.cfg
    if not all(text.isprintable() for text in (cfg.name, cfg.victim, *cfg.suspect_names.values())):
        safe = cfg.with_overrides(
            name=terminal_safe(cfg.name),
            victim=terminal_safe(cfg.victim),
            suspect_names={k: terminal_safe(v) for k, v in cfg.suspect_names.items()},
        )
        game = copy.copy(game)  # the same position, drawn with the names escaped
        game.cfg = safe
    text = render_text(game, log_lines=0)
    return text[: -len("\n-- log --")] if text.endswith("\n-- log --") else text


def board_lines(game: Game, marks: Sequence[tuple[int, int]] = (), width: int = 79, height: int | None = None) -> list[str]:
    """The public board of ``game`` as the terminal draws it (R31: the ``ansi`` render): row
    and column numbers, the squares in ``marks`` drawn :data:`~.screen.MARK`, the render's
    legend beside the board (below it when narrower than ``width``). Taller than ``height``,
    the board is folded (:func:`~.screen.fold_board`: its north half beside its south half),
    the tokens standing in a room drawn inside that room, with a key of the tokens and the room
    letters beside it, and a last line pointing at ``legend`` for the rest."""
    board = game.board
    text = _board_text(game)
    full = label_board(text, board.rows, board.cols, marks, width)
    if height is None or len(full) <= height or width < fold_width(board.cols):
        return full
    lines = text.split("\n")
    for room in range(N_ROOMS):
        tokens = [TOKEN_CHARS[s] for s, node in enumerate(game.loc) if node == room]
        for (r, c), ch in zip(_room_spots(game, room, len(tokens)), tokens):
            lines[1 + r] = lines[1 + r][:c] + ch + lines[1 + r][c + 1 :]
    d = game.cfg.display
    key = [f"{TOKEN_CHARS[s]} {terminal_safe(d(SUSPECTS[s]))}" for s in range(len(SUSPECTS))]
    key += [f"{ROOM_LETTERS[r]} {d(ROOMS[r])}" for r in range(N_ROOMS)]
    return [*fold_board("\n".join(lines), board.rows, board.cols, marks, key, width), FOLDED]


def _room_spots(game: Game, room: int, n: int) -> list[tuple[int, int]]:
    """``n`` squares inside ``room`` to draw the tokens standing in it, left to right: on its
    middle row around its middle when they fit there, doors left out."""
    board = game.board
    cr, cc = board.node_rc[room]
    inside = [(r, c) for r, c in board.room_cells[room] if board.grid[r][c].isupper()]
    row = sorted(c for r, c in inside if r == cr)
    if len(row) >= n:
        start = max(0, min(len(row) - n, sum(c < cc for c in row) - (n - 1) // 2))
        return [(cr, c) for c in row[start : start + n]]
    return sorted(inside, key=lambda rc: (abs(rc[0] - cr), rc[0], rc[1]))[:n]


def legend_lines(game: Game) -> list[str]:
    """What the render writes beside the board: the seats and their tokens, the rooms with the
    tokens and weapons in them (and a face-down card, R30), the secret passages."""
    board = game.board
    rows = _board_text(game).split("\n")[1 : board.rows + 1]
    return [line[board.cols :].strip() for line in rows if line[board.cols :].strip()]


def notes_lines(
    book: Notebook, display: dict[str, str], width: int = 79, height: int | None = None, title: str | None = None
) -> list[str]:
    """The notebook under its ``title`` (default ``notebook (MODE):``): one line a card when that
    fits ``height``, else as a grid (:meth:`~.notes.Notebook.grid`)."""
    head = title if title is not None else f"notebook ({book.mode}):"
    lines = [head, *book.text(display).split("\n")]
    if height is None or len(lines) <= height:
        return lines
    return [head, *book.grid(display, width)]


# ---------------------------------------------------------------------- helpers
def legal_short(groups: dict[str, tuple[str, ...]]) -> list[str]:
    """``groups`` (verb -> legal text forms) as lines: a verb with more than :data:`SHORT_AT`
    choices as its form and their count (``accuse SUSPECT WEAPON ROOM (324 choices)``), the
    others one text form per line."""
    out: list[str] = []
    for verb, texts in groups.items():
        if len(texts) > SHORT_AT and verb in FORMS:
            out.append(f"{FORMS[verb]} ({len(texts)} choices: 'legal {verb}' lists them)")
        else:
            out.extend(texts)
    return out


def _leads_with_verb_or_command(line: str) -> bool:
    """Whether the first word of ``line`` is a verb or a command (else it may be a name)."""
    first = line.split(None, 1)[0].lower() if line.split() else ""
    return first in VERBS or first in COMMANDS


def _square(line: str) -> str | None:
    """``R,C`` from ``7,4``, ``7 4`` or ``(7, 4)``; ``None`` for anything else."""
    m = re.fullmatch(r"\s*\(?\s*(\d{1,2})\s*[, ]\s*(\d{1,2})\s*\)?\s*", line)
    return f"{int(m[1])},{int(m[2])}" if m else None


def _short(line: str) -> str:
    t = line.strip()
    return t if len(t) <= 12 else t[:12] + "..."


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False


def _read_line(prompt: str = "") -> str:
    """A line of standard input off a terminal (the prompt was already written on its own line)."""
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\r\n")


def _completing_input(completions: Callable[[], Sequence[str]]) -> InputFn | None:
    """An input function with tab completion of ``completions()`` (prompt_toolkit), or ``None``
    when prompt_toolkit is not installed (it is optional)."""
    try:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.completion import WordCompleter
    except ImportError:
        return None
    session: PromptSession[str] = PromptSession()

    def ask(prompt: str) -> str:
        completer = WordCompleter(list(completions()), sentence=True)
        return session.prompt(prompt, completer=completer, complete_while_typing=False)

    return ask


__all__ = ["COMMANDS", "HELP", "MAX_LINE", "InputFn", "TerminalUI", "board_lines", "legal_short", "legend_lines", "notes_lines"]
