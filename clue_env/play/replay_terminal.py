"""Stepping through a replay in the terminal (``python play.py --replay FILE``).

Position ``k`` is the game after ``k`` recorded decisions (0: the deal). Each move prints the
step's acting seat, its action in the ruleset's display names and what it caused, worded for the
current view, and the agent's own account of the decision when the replay recorded one.

Views: ``public`` (the default: what every seat may know, R31), ``seat player_k`` (that seat's
view alone: its hand, the cards shown to it or by it, its notebook of proved facts, its own
accounts) and ``all`` (every card, every account: the game is over, so nothing is secret).

Commands, one a line: ``n`` or Enter (next step), ``p`` (back a step), ``g N`` (go to position
N), ``seat player_k``, ``all``, ``public``, ``board``, ``notes`` (the view's cards and notebook),
``help``, ``q``. End of input quits with status 0.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, TextIO

from ..engine.cards import CARDS, ROOM_BASE, ROOMS, WEAPON_BASE
from ..engine.events import HIDDEN, Event, Peek, Show
from ..engine.wording import result_text
from ..replay import Playback, action_words

PUBLIC = "public"
ALL = "all"
HELP = (
    "commands: n or Enter = next step, p = back, g N = go to step N, seat player_k = that seat's view, "
    "all = every card, public = the public view, board, notes, help, q = quit"
)

InputFn = Callable[[str], str]


class ReplayTerminal:
    """A read-eval loop over one :class:`~clue_env.replay.Playback`."""

    def __init__(self, playback: Playback, *, out: TextIO | None = None, input_fn: InputFn | None = None) -> None:
        self.pb = playback
        self.out = out if out is not None else sys.stdout
        self.input = input_fn if input_fn is not None else _read_line
        self.pos = 0
        #: ``PUBLIC``, ``ALL`` or a seat index
        self.view: str | int = PUBLIC
        rules = playback.replay.rules
        self.rules = rules
        self._display = {c: rules.display(c) for c in CARDS}

    # ------------------------------------------------------------------ loop
    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")

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
            if len(args) != 1 or not args[0].isdigit() or not 0 <= int(args[0]) <= self.pb.steps:
                self.say(f"g N goes to step N, 0..{self.pb.steps}")
            else:
                self.go(int(args[0]))
        elif verb == "seat":
            seat = self._seat(args[0] if len(args) == 1 else "")
            if seat is None:
                names = ", ".join(f"player_{i}" for i in range(self.pb.replay.num_players))
                self.say(f"seat takes one seat: {names}")
            else:
                self.view = seat
                self.say(f"viewing as {self._seat_name(seat)}")
                self.notes()
        elif verb == ALL and not args:
            self.view = ALL
            self.say("every card shown (the game is over)")
            self.notes()
        elif verb == PUBLIC and not args:
            self.view = PUBLIC
            self.say("the public view: what every seat may know")
        elif verb == "board" and not args:
            from ..render import render_text

            self.say(render_text(self.pb.env_at(self.pos).game))
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
        self.say(f"replay: {r.num_players} players, rules {r.rules.name}, seed {r.seed}, {r.steps} steps ({r.package})")
        for i, s in enumerate(r.seats):
            self.say(f"  {self._seat_name(i)}: {s.spec}")
        if r.accounts is not None:
            self.say("agents' accounts are shown in the 'all' view and, for its own decisions, in a seat's view")
        self.say(HELP)

    def go(self, k: int) -> None:
        """Move to position ``k`` and print the step that led there."""
        self.pos = k
        if k == 0:
            self.say("step 0: the deal, before any decision")
            return
        pb = self.pb
        turn = pb.env_at(k - 1).game.turn
        seat = pb.actor(k)
        spec = pb.replay.seats[seat].spec
        self.say(f"step {k}/{pb.steps} (turn {turn}): {self._seat_name(seat)} [{spec}]: {pb.action_words(k)}")
        game = pb.env_at(k).game
        for ev in pb.events(k):
            self.say(f"  {self._word(ev, game)}")
        account = pb.account(k)
        if account is not None and (self.view == ALL or self.view == seat):
            self.say(f"  account: {format_account(account, self.rules)}")
        if k == pb.steps:
            self.say(f"game over: {result_text(game)}")

    def _word(self, ev: Event, game: Any) -> str:
        return word_event(ev, game, self.view, self._display)

    def notes(self) -> None:
        """The cards of the current view at the current position."""
        env = self.pb.env_at(self.pos)
        game = env.game
        if self.view == PUBLIC:
            self.say("the public view shows no hand: seat player_k for one seat's view, all for every card")
        elif self.view == ALL:
            s, w, r = game.envelope
            self.say("envelope: " + ", ".join(self._display[CARDS[c]] for c in (s, WEAPON_BASE + w, ROOM_BASE + r)))
            for i, hand in enumerate(game.hands):
                self.say(f"{self._seat_name(i)}: " + ", ".join(self._display[CARDS[c]] for c in sorted(hand)))
            if game.board_cards:  # R30: face down on the board
                cards = (
                    f"{self.rules.display(ROOMS[r])}: {self._display[CARDS[c]]}" for r, c in sorted(game.board_cards.items())
                )
                self.say("face down on the board: " + ", ".join(cards))
        else:
            from .notes import notebook

            view = env.seat_view(f"player_{self.view}")
            self.say("hand: " + ", ".join(self._display[CARDS[c]] for c in view.hand))
            self.say(f"notebook (facts) at step {self.pos}:")
            self.say(notebook(view, "facts").text(self._display))

    # ------------------------------------------------------------------ names
    def _seat(self, text: str) -> int | None:
        n = self.pb.replay.num_players
        name = text.removeprefix("player_")
        return int(name) if name.isdigit() and int(name) < n else None

    def _seat_name(self, seat: int) -> str:
        return self.pb.env_at(self.pos).game.seat_name(seat)

    def _view_name(self) -> str:
        return self.view if isinstance(self.view, str) else f"player_{self.view}"


def word_event(ev: Event, game: Any, view: str | int, display: dict[str, str]) -> str:
    """An (unredacted) event as ``view`` sees it (``PUBLIC``, ``ALL`` or a seat): the card of a
    ``show`` or a ``peek`` only for its seats, or for everyone in the ``all`` view."""
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

    try:
        playback = open_replay(path)
    except ReplayError as e:
        print(f"play.py: error: {e}", file=sys.stderr)
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
