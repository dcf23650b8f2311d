"""A game of Clue between people and agents, independent of any front end.

A :class:`GameSession` owns one :func:`clue_env.raw_env`. Seats whose spec is ``"human"`` are
played by people (through the terminal front end, the web server or a test); every other seat
is played by an agent built by the injected ``agent_factory`` (``play.py`` passes one built on
:func:`agents.make_agent`, so ``clue_env`` never imports ``agents``).

Everything a human seat is given comes from that seat's :class:`~clue_env.seat_view.SeatView`
and the public record (R31): its legal actions grouped by verb with their text forms, the
events since it last looked (in words), its notebook (:mod:`clue_env.play.notes`), the board as
text. The hidden state never leaves the session before the game is over; then
:meth:`GameSession.result` gives the envelope and every hand.

Agents are stepped one decision at a time (:meth:`GameSession.step_agent`, so a front end can
show their moves one by one) or all at once until a human must act (:meth:`GameSession.advance`).
Every step, agent or human, increases :attr:`GameSession.version`; a human action may carry the
version the person was looking at and is refused when the game has moved on since.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..engine.cards import CARDS, ROOM_BASE, SUSPECTS, WEAPON_BASE
from ..engine.config import RulesConfig
from ..engine.errors import ClueError
from ..engine.events import Event
from ..engine.wording import result_text
from ..env import raw_env
from ..seat_view import SeatView
from .names import NameProblem, Names, kind_names, longest_line, read_action
from .notes import Notebook, notebook

HUMAN = "human"

#: verbs in the order a menu lists them
VERBS = ("roll", "passage", "stay", "move", "enter", "toward", "suggest", "show", "accuse", "end")


class PlayAgent(Protocol):
    """What a session needs of an agent (SPEC "Agents")."""

    def reset(self) -> None: ...

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int: ...


#: ``factory(spec, seat, num_players, rules, seed) -> agent``
AgentFactory = Callable[[str, int, int, RulesConfig, int | None], PlayAgent]


class SessionError(ClueError):
    """A refused session request; nothing changed."""


class BadActionText(SessionError):
    """The text is not an action's text form (SPEC "Actions as text")."""


class NotYourTurn(SessionError):
    """The seat is not the one that must decide now."""


class StaleVersion(SessionError):
    """The game has moved on since the view the request was made from."""


class IllegalAction(SessionError):
    """A well-formed action that is not legal for the seat now."""


class GameOverError(SessionError):
    """The game is over: no more actions."""


class NotASeat(SessionError):
    """No such seat, or not a human seat of this game."""


class AgentFailure(RuntimeError):
    """An agent returned something that is not a legal action (a bug in the agent)."""


@dataclass(frozen=True)
class AgentMove:
    """One agent decision: who, what (text form) and how long it took to decide."""

    seat: int
    action: str
    seconds: float


class GameSession:
    """One game: ``seats`` lists a spec per seat (``"human"`` or an agent spec)."""

    def __init__(
        self,
        seats: Sequence[str],
        *,
        agent_factory: AgentFactory | None = None,
        rules: str | RulesConfig = "classic",
        seed: int | None = None,
        agent_seed: int | None = None,
        options: dict[str, Any] | None = None,
        env_kwargs: dict[str, Any] | None = None,
    ) -> None:
        seats = list(seats)
        if not seats or not all(isinstance(s, str) and s.strip() for s in seats):
            raise SessionError(f"seats must be a list of agent specs or 'human', got {seats!r}")
        self.specs: tuple[str, ...] = tuple(s.strip() for s in seats)
        self.env = raw_env(num_players=len(seats), rules=rules, **(env_kwargs or {}))
        self.env.reset(seed=seed, options=options)
        self.game = self.env.game
        self.rules: RulesConfig = self.env.rules
        self._names: dict[str, Names] | None = None  # built on the first action text in display names
        self.num_players = len(seats)
        self.humans: tuple[int, ...] = tuple(i for i, s in enumerate(self.specs) if s == HUMAN)
        if len(self.humans) < len(self.specs) and agent_factory is None:
            raise SessionError("agent seats need an agent_factory")
        root = np.random.SeedSequence(agent_seed)  # None: fresh OS entropy
        children = root.spawn(self.num_players)  # independent of the env's seed (R31)
        self.agents: dict[int, PlayAgent] = {}
        for i, spec in enumerate(self.specs):
            if spec != HUMAN:
                assert agent_factory is not None
                agent = agent_factory(spec, i, self.num_players, self.rules, int(children[i].generate_state(1)[0]))
                agent.reset()
                self.agents[i] = agent
        self.version = 0
        self.decision_seconds: list[float] = []
        self._looked: dict[int, int] = dict.fromkeys(self.humans, 0)
        self._notebooks: dict[tuple[int, str], Notebook] = {}
        self._views: dict[int, tuple[int, SeatView]] = {}
        # where the pieces began (public: R7, R8), for the last move of each (web.news_feed.last_moves)
        first = self.env.seat_view(self.env.possible_agents[0])
        self.start_tokens: tuple[int, ...] = tuple(first.tokens)
        self.start_weapons: tuple[int, ...] = tuple(first.weapons)

    # ------------------------------------------------------------------ state
    @property
    def over(self) -> bool:
        return bool(self.game.over)

    @property
    def acting(self) -> int | None:
        """The seat that must decide now, or ``None`` once the game is over."""
        return None if self.over else int(self.game.acting)

    @property
    def agent_to_act(self) -> bool:
        """Whether an agent seat must decide now."""
        return not self.over and self.game.acting in self.agents

    def human_to_act(self) -> int | None:
        """The human seat that must decide now, if any."""
        a = self.acting
        return a if a is not None and a in self._looked else None

    def agent_name(self, seat: int) -> str:
        return self.env.possible_agents[seat]

    def seat_of(self, name: str | int) -> int:
        """A seat index from ``player_k`` or ``k``; :class:`NotASeat` otherwise."""
        if isinstance(name, (int, np.integer)) and not isinstance(name, bool) and 0 <= int(name) < self.num_players:
            return int(name)
        if isinstance(name, str) and name in self.env.possible_agents:
            return self.env.possible_agents.index(name)
        raise NotASeat(f"no seat {name!r}: seats are {', '.join(self.env.possible_agents)}")

    def seat_label(self, seat: int) -> str:
        """``player_1 (Colonel Mustard, ppo)``."""
        who = self.game.cfg.display(SUSPECTS[self.game.seat_suspect[seat]])
        return f"{self.agent_name(seat)} ({who}, {'you' if seat in self._looked else self.specs[seat]})"

    # ------------------------------------------------------------------ per-seat views (R31)
    def view(self, seat: int) -> SeatView:
        """The seat's view now (built once per seat and version: the game changes only in :meth:`_step`)."""
        cached = self._views.get(seat)
        if cached is None or cached[0] != self.version:
            cached = self._views[seat] = (self.version, self.env.seat_view(self.agent_name(seat)))
        return cached[1]

    def legal(self, seat: int) -> tuple[str, ...]:
        """Text forms of the seat's legal actions (empty unless it must act now)."""
        return self.view(seat).legal_text

    def legal_groups(self, seat: int) -> dict[str, tuple[str, ...]]:
        """The seat's legal text forms grouped by verb, verbs in :data:`VERBS` order."""
        groups: dict[str, list[str]] = {}
        for text in self.legal(seat):
            groups.setdefault(text.split(" ", 1)[0], []).append(text)
        return {v: tuple(groups[v]) for v in VERBS if v in groups}

    def events(self, seat: int) -> tuple[Event, ...]:
        """The seat's whole redacted history."""
        return tuple(self.view(seat).events)

    def words(self, events: Sequence[Event]) -> list[str]:
        """Events (already redacted for their reader) in words, with the ruleset's names."""
        return [ev.wording(self.game) for ev in events]

    def log_words(self, seat: int) -> list[str]:
        return self.words(self.events(seat))

    def news(self, seat: int, mark: bool = True) -> list[str]:
        """What happened since ``seat`` last looked, in words; ``mark``: count it as seen."""
        events = self.view(seat).events
        start = self._looked.get(seat, 0)
        if mark and seat in self._looked:
            self._looked[seat] = len(events)
        return self.words(events[start:])

    def board_text(self) -> str:
        """The board and the public state as text (the ``ansi`` render; public, R31)."""
        from ..render import render_text

        return render_text(self.game)

    def public_state(self) -> dict[str, Any]:
        return self.env.public_state()

    def notes(self, seat: int, mode: str = "facts") -> Notebook:
        """The seat's notebook: ``seen`` (the cards it has seen, nothing deduced), ``facts`` (what
        it has proved) or ``deduce`` (also probabilities)."""
        key = (seat, mode)
        book = self._notebooks.get(key)
        view = self.view(seat)
        if book is None or book.version != len(view.events):
            book = notebook(view, mode)
            self._notebooks[key] = book
        return book

    def refute_hint(self, seat: int) -> str | None:
        """For a refuter: a ``show`` action for a card already shown to the suggester, if any."""
        view = self.view(seat)
        if view.pending is None or not view.must_act:
            return None
        suggester = view.pending[0]
        legal = set(view.legal_text)
        for card, to in view.shown_by_me:
            text = f"show {CARDS[card]}"
            if to == suggester and text in legal:
                return text
        return None

    # ------------------------------------------------------------------ playing
    def parse(self, action: str | int) -> int:
        """An action index from a text form (or an index); :class:`BadActionText` otherwise. A text
        longer than the longest action's (:func:`~clue_env.play.names.longest_line`: whitespace
        runs counted as one space) is refused before it is read."""
        if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
            if 0 <= int(action) < self.env.codec.n:
                return int(action)
            raise BadActionText(f"action index {action!r} is out of range 0..{self.env.codec.n - 1}")
        if not isinstance(action, str):
            raise BadActionText(f"an action is a text form such as 'roll' or 'suggest plum rope', got {type(action).__name__}")
        names = self._display_names()
        size = len(" ".join(action.split()))
        longest = longest_line(names)
        if size > longest:
            raise BadActionText(
                f"the action text is too long: {size} characters, and the longest action's text "
                f"(accuse with the longest names) needs at most {longest}"
            )
        try:
            return self.env.text_to_action(action.strip().lower())
        except ValueError as e:
            spec_error = str(e)
        # the names as the player reads them: "suggest mr green lead pipe", "toward dining room",
        # "show dagger", unique prefixes; anything else keeps the SPEC form's error
        try:
            spec_text = read_action(action, names)
        except NameProblem as e:
            raise BadActionText(str(e)) from None
        if spec_text is None:
            raise BadActionText(spec_error) from None
        try:
            return self.env.text_to_action(spec_text)
        except ValueError as e:
            raise BadActionText(str(e)) from None

    def _display_names(self) -> dict[str, Names]:
        """The card names per kind with the ruleset's display names (built on the first action text)."""
        if self._names is None:
            self._names = kind_names({c: self.rules.display(c) for c in CARDS})
        return self._names

    def act(self, seat: int, action: str | int, version: int | None = None) -> str:
        """Play ``action`` for human seat ``seat``; the text form played. Refusals change nothing:
        :class:`BadActionText`, :class:`GameOverError`, :class:`NotYourTurn`, :class:`StaleVersion`,
        :class:`IllegalAction`, :class:`NotASeat`. The cheap checks come first (the seat, the game
        over, the turn, the version), then the text is read."""
        if seat not in self._looked:
            raise NotASeat(f"{self.agent_name(seat) if 0 <= seat < self.num_players else seat} is not a human seat")
        if self.over:
            raise GameOverError("the game is over")
        if self.game.acting != seat:
            raise NotYourTurn(f"it is {self.agent_name(self.game.acting)}'s decision, not {self.agent_name(seat)}'s")
        if version is not None and version != self.version:
            raise StaleVersion(f"the game has moved on: your view is version {version}, the game is at {self.version}")
        index = self.parse(action)
        text = self.env.action_to_text(index)
        mask = self.env.observe(self.agent_name(seat))["action_mask"]
        if not mask[index]:
            legal = self.legal(seat)
            groups = sorted({t.split(" ", 1)[0] for t in legal})
            raise IllegalAction(f"{text!r} is not legal now; legal verbs: {', '.join(groups)} (type 'legal' to list them)")
        self._step(index)
        return text

    def step_agent(self) -> AgentMove | None:
        """Let the agent that must decide now play one decision; ``None`` if no agent must."""
        if not self.agent_to_act:
            return None
        seat = int(self.game.acting)
        name = self.agent_name(seat)
        t0 = time.perf_counter()
        index = self.agents[seat].act(self.env.observe(name), self.env.infos[name])
        dt = time.perf_counter() - t0
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
            raise AgentFailure(f"agent {self.specs[seat]!r} in {name} returned {index!r}, not an action index")
        if not 0 <= int(index) < self.env.codec.n or not self.env.observe(name)["action_mask"][int(index)]:
            raise AgentFailure(f"agent {self.specs[seat]!r} in {name} chose illegal action {index!r}")
        text = self.env.action_to_text(int(index))
        self.decision_seconds.append(dt)
        self._step(int(index))
        return AgentMove(seat, text, dt)

    def advance(self, limit: int = 100_000) -> list[AgentMove]:
        """Step the agents until a human must act or the game is over (at most ``limit`` decisions)."""
        moves: list[AgentMove] = []
        while len(moves) < limit:
            move = self.step_agent()
            if move is None:
                break
            moves.append(move)
        return moves

    def _step(self, index: int) -> None:
        self.env.step(index)
        self.version += 1

    # ------------------------------------------------------------------ the end
    def result(self) -> dict[str, Any]:
        """Once the game is over: the envelope, every hand and who won (refused before)."""
        if not self.over:
            raise SessionError("the envelope and the hands are shown only once the game is over")
        g = self.game
        s, w, r = g.envelope
        return {
            "envelope": [CARDS[s], CARDS[WEAPON_BASE + w], CARDS[ROOM_BASE + r]],
            "hands": {self.agent_name(i): [CARDS[c] for c in sorted(h)] for i, h in enumerate(g.hands)},
            "winner": self.agent_name(g.winner) if g.winner >= 0 else None,
            "reason": g.over_reason,
            "text": result_text(g),
            "turns": g.turn,
        }


__all__ = [
    "HUMAN",
    "VERBS",
    "AgentFactory",
    "AgentFailure",
    "AgentMove",
    "BadActionText",
    "GameOverError",
    "GameSession",
    "IllegalAction",
    "NotASeat",
    "NotYourTurn",
    "PlayAgent",
    "SessionError",
    "StaleVersion",
]
