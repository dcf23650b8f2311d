"""Stepping through a replay in the terminal (``python play.py --replay FILE``).

Position ``k`` is the game after ``k`` recorded decisions (0: the deal). Each move prints the
step's acting seat, its action in the ruleset's display names and what it caused, worded for the
current view, and the agent's own account of the decision when the replay recorded one.

Views: ``public`` (the default: what every seat may know, R31), ``seat player_k`` (that seat's
view alone: its hand, the cards shown to it or by it, its notebook of proved facts, its own
accounts) and ``all`` (every card, every account: the game is over, so nothing is secret).

Commands, one a line: ``n`` or Enter (next step), ``p`` (back a step), ``g N`` (go to position
N), ``seat player_k``, ``all``, ``public``, ``board``, ``legend`` (the seats, the rooms' tokens
and weapons, the passages), ``notes`` (the view's cards and notebook), ``help``, ``q``. End of
input quits with status 0. A number that is not one (``g ²``) is answered with the command's
form, like any other line not understood.

The first screen states how the game ended (the file's recorded outcome, public: who won and
how, or why nobody did, after how many turns); the cards stay for the ``all`` view.
``board`` and ``notes`` fit the terminal's rows (:func:`~.terminal.board_lines`,
:func:`~.terminal.notes_lines`: folded when it is short).

Everything the file brings (agent specs, the package line, the rules' names) is text from
outside: every line is made safe for the terminal before it is written
(:func:`~.screen.terminal_safe`), so no escape sequence in it reaches the terminal.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, TextIO

from ..engine.cards import CARDS, N_ROOMS, ROOM_BASE, ROOMS, SUSPECTS, WEAPON_BASE
from ..engine.events import HIDDEN, Event, Move, Peek, Show
from ..engine.wording import OVER_REASONS, corridor_text, result_text, room_name
from ..replay import Playback, action_words
from .screen import terminal_safe, terminal_size, typed_number, wrap

PUBLIC = "public"
ALL = "all"
HELP = (
    "commands: n or Enter = next step, p = back, g N = go to step N, seat player_k = that seat's view, "
    "all = every card, public = the public view, board, legend, notes, help, q = quit"
)

InputFn = Callable[[str], str]


class ReplayTerminal:
    """A read-eval loop over one :class:`~clue_env.replay.Playback`."""

    def __init__(
        self,
        playback: Playback,
        *,
        out: TextIO | None = None,
        input_fn: InputFn | None = None,
        size: tuple[int, int] | None = None,
    ) -> None:
        self.pb = playback
        self.out = out if out is not None else sys.stdout
        self.input = input_fn if input_fn is not None else _read_line
        #: ``(columns, rows)`` of the screen (default: asked of the terminal, 80x24 when it cannot say)
        self.size = size
        self.pos = 0
        #: ``PUBLIC``, ``ALL`` or a seat index
        self.view: str | int = PUBLIC
        rules = playback.replay.rules
        self.rules = rules
        self._display = {c: terminal_safe(rules.display(c)) for c in CARDS}

    # ------------------------------------------------------------------ loop
    def say(self, text: str = "") -> None:
        self.out.write(terminal_safe(text, newlines=True) + "\n")

    def dims(self) -> tuple[int, int]:
        return self.size if self.size is not None else terminal_size()

    def run(self) -> int:
        self._intro()
        while True:
            try:
                line = self.input(f"[{self.pos}/{self.pb.steps} {self._view_name()}]> ")
            except EOFError:
                self.say()
                return 0
            if not self.command(line):
                return 0

    def command(self, line: str) -> bool:
        """Handle one line; ``False`` to quit."""
        words = line.strip().lower().split()
        if not words or words[0] in ("n", "next"):
            if self.pos >= self.pb.steps:
                self.say(f"end of the replay (step {self.pb.steps}/{self.pb.steps}): p goes back, g N jumps, q quits")
            else:
                self.go(self.pos + 1)
            return True
        verb, args = words[0], words[1:]
        if verb in ("q", "quit", "exit"):
            return False
        if verb in ("p", "prev", "back"):
            if self.pos == 0:
                self.say("at the start of the game (step 0): n goes forward")
            else:
                self.go(self.pos - 1)
        elif verb in ("g", "go", "goto"):
            k = typed_number(args[0]) if len(args) == 1 else None
            if k is None or not 0 <= k <= self.pb.steps:
                self.say(f"g N goes to step N, 0..{self.pb.steps}")
            else:
                self.go(k)
        elif verb == "seat":
            seat = self._seat(args[0] if len(args) == 1 else "")
            if seat is None:
                names = ", ".join(f"player_{i}" for i in range(self.pb.replay.num_players))
                self.say(f"seat takes one seat: {names}")
            else:
                self.view = seat
                self.notes(f"viewing as {self._seat_name(seat)}")
        elif verb == ALL and not args:
            self.view = ALL
            self.notes("every card shown (the game is over)")
        elif verb == PUBLIC and not args:
            self.view = PUBLIC
            self.say("the public view: what every seat may know")
        elif verb == "board" and not args:
            from .terminal import board_lines

            cols, rows = self.dims()
            for text in board_lines(self.pb.env_at(self.pos).game, (), cols - 1, rows - 1):
                self.say(text)
        elif verb == "legend" and not args:
            from .terminal import legend_lines

            for text in legend_lines(self.pb.env_at(self.pos).game):
                self.say(text)
        elif verb in ("notes", "hand") and not args:
            self.notes()
        elif verb in ("help", "h", "?"):
            self.say(HELP)
        else:
            self.say(f"unknown command {line.strip()[:40]!r}; {HELP}")
        return True

    # ------------------------------------------------------------------ showing
    def _intro(self) -> None:
        r = self.pb.replay
        safe = terminal_safe
        rules = safe(r.rules.name)
        self.say(f"replay: {r.num_players} players, rules {rules}, seed {r.seed}, {r.steps} steps ({safe(r.package)})")
        for i, s in enumerate(r.seats):
            self.say(f"  {self._seat_name(i)}: {safe(s.spec)}")
        self.say(self.result())
        if r.accounts is not None:
            self.say("agents' accounts are shown in the 'all' view and, for its own decisions, in a seat's view")
        self.say(HELP)

    def result(self) -> str:
        """How the game ended, from the replay's recorded outcome (which the playback checked):
        ``result: player_1 (Colonel Mustard, deduction) wins (correct accusation) after 37 turns,
        212 steps``, or ``result: nobody wins (turn limit reached) after ...``."""
        r = self.pb.replay
        o = r.outcome
        if o.winner is not None and 0 <= o.winner < r.num_players:
            game = self.pb.env_at(self.pos).game
            character = self._display[SUSPECTS[game.seat_suspect[o.winner]]]
            who = f"player_{o.winner} ({character}, {terminal_safe(r.seats[o.winner].spec)}) wins"
        else:
            who = "nobody wins"
        why = OVER_REASONS.get(o.reason, o.reason)
        turns = "1 turn" if o.turns == 1 else f"{o.turns} turns"
        steps = "1 step" if r.steps == 1 else f"{r.steps} steps"
        return f"result: {who}" + (f" ({terminal_safe(why)})" if why else "") + f" after {turns}, {steps}"

    def go(self, k: int) -> None:
        """Move to position ``k`` and print the step that led there."""
        self.pos = k
        if k == 0:
            self.say("step 0: the deal, before any decision")
            return
        pb = self.pb
        turn = pb.env_at(k - 1).game.turn
        seat = pb.actor(k)
        spec = terminal_safe(pb.replay.seats[seat].spec)
        words = terminal_safe(pb.action_words(k))
        self.say(f"step {k}/{pb.steps} (turn {turn}): {self._seat_name(seat)} [{spec}]: {words}")
        game = pb.env_at(k).game
        for ev in pb.events(k):
            self.say(f"  {terminal_safe(self._word(ev, game))}")
        account = pb.account(k)
        if account is not None and (self.view == ALL or self.view == seat):
            self.say(f"  account: {terminal_safe(format_account(account, self.rules))}")
        if k == pb.steps:
            self.say(f"game over: {terminal_safe(result_text(game))}")

    def _word(self, ev: Event, game: Any) -> str:
        return word_event(ev, game, self.view, self._display)

    def notes(self, first: str | None = None) -> None:
        """The cards of the current view at the current position (after the line ``first``);
        a seat's notebook as a grid when one line a card would not fit the screen."""
        env = self.pb.env_at(self.pos)
        game = env.game
        lines = [] if first is None else [first]
        if self.view == PUBLIC:
            lines.append("the public view shows no hand: seat player_k for one seat's view, all for every card")
        elif self.view == ALL:
            s, w, r = game.envelope
            lines.append("envelope: " + ", ".join(self._display[CARDS[c]] for c in (s, WEAPON_BASE + w, ROOM_BASE + r)))
            for i, hand in enumerate(game.hands):
                lines.append(f"{self._seat_name(i)}: " + ", ".join(self._display[CARDS[c]] for c in sorted(hand)))
            if game.board_cards:  # R30: face down on the board
                cards = (f"{self._display[ROOMS[r]]}: {self._display[CARDS[c]]}" for r, c in sorted(game.board_cards.items()))
                lines.append("face down on the board: " + ", ".join(cards))
        else:
            from .notes import notebook
            from .terminal import notes_lines

            cols, rows = self.dims()
            view = env.seat_view(f"player_{self.view}")
            lines += wrap("hand: " + ", ".join(self._display[CARDS[c]] for c in view.hand), cols - 1, hang="      ")
            book = notebook(view, "facts")
            title = f"notebook (facts) at step {self.pos}:"
            lines += notes_lines(book, self._display, cols - 1, rows - 1 - len(lines), title=title)
        for text in lines:
            self.say(text)

    # ------------------------------------------------------------------ names
    def _seat(self, text: str) -> int | None:
        seat = typed_number(text.removeprefix("player_"))
        return seat if seat is not None and seat < self.pb.replay.num_players else None

    def _seat_name(self, seat: int) -> str:
        """``player_1 (Colonel Mustard)``."""
        game = self.pb.env_at(self.pos).game
        return f"player_{seat} ({self._display[SUSPECTS[game.seat_suspect[seat]]]})"

    def _view_name(self) -> str:
        return self.view if isinstance(self.view, str) else f"player_{self.view}"


def word_event(ev: Event, game: Any, view: str | int, display: dict[str, str]) -> str:
    """An (unredacted) event as ``view`` sees it (``PUBLIC``, ``ALL`` or a seat): the card of a
    ``show`` or a ``peek`` only for its seats, or for everyone in the ``all`` view. A token on a
    hallway square is placed by its nearest room (``moves along the corridor, 3 squares from the
    Dining Room``), as the browser says it."""
    if isinstance(ev, Move) and ev.node >= N_ROOMS:
        where = corridor_text(game.board, ev.node, lambda r: room_name(game, r))
        return f"{game.cfg.display(SUSPECTS[ev.suspect])} moves {where}"
    text = ev.wording(game)
    if isinstance(ev, Show):
        if view == ALL or isinstance(view, int) and view in (ev.refuter, ev.suggester) and ev.card != HIDDEN:
            text += f" (the card: {display[CARDS[ev.card]]})"
    elif isinstance(ev, Peek):
        if view == ALL or view == ev.seat and ev.card != HIDDEN:
            text += f" (the card: {display[CARDS[ev.card]]})"
    return text


def format_account(account: dict[str, Any], rules: Any) -> str:
    """An agent's account of a decision in one line (display names)."""
    agent = account.get("agent")
    try:
        if agent == "deduction":
            parts = []
            for kind in ("suspect", "weapon", "room"):
                cards = ", ".join(f"{rules.display(c)} {100 * p:.0f}%" for c, p in account.get(kind, []))
                parts.append(f"{kind} {cards}")
            solved = " (solved)" if account.get("solved") else ""
            return "envelope " + "; ".join(parts) + solved
        if agent == "ppo":
            top = ", ".join(f"{action_words(rules, t)} {100 * p:.0f}%" for t, p in account.get("top", []))
            value = account.get("value")
            text = f"top {top}" + (f"; value {value:+.2f}" if isinstance(value, (int, float)) else "")
            head = account.get("accusation_head")
            if isinstance(head, dict):
                verdict = "accuses" if head.get("accuses") else "waits"
                text += f"; accusation head {verdict} (stop {head.get('q_stop')}, wait {head.get('q_wait')})"
            return text
    except (TypeError, ValueError, KeyError, AttributeError):
        pass  # an account of another shape: shown as it is
    return json.dumps(account, sort_keys=True)


def play_replay(path: str, *, out: TextIO | None = None, input_fn: InputFn | None = None) -> int:
    """``play.py --replay PATH``: step through the replay; a file that cannot be read, or that
    the current code does not reproduce, is refused with a message on stderr (status 2)."""
    from ..replay import ReplayError, open_replay

    if out is None:  # a display name the terminal's encoding cannot write is written escaped
        reconfigure = getattr(sys.stdout, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    try:
        playback = open_replay(path)
    except ReplayError as e:
        print(f"play.py: error: {terminal_safe(str(e))}", file=sys.stderr)
        return 2
    return ReplayTerminal(playback, out=out, input_fn=input_fn).run()


def _read_line(prompt: str = "") -> str:
    """One line of standard input (``EOFError`` at its end); the prompt only on a terminal."""
    if sys.stdin.isatty():
        return input(prompt)
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


__all__ = ["ALL", "PUBLIC", "ReplayTerminal", "format_account", "play_replay", "word_event"]
