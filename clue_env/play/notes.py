"""A seat's detective notebook (R3), filled in from its seat view alone (R31).

``seen`` lists only what the seat has seen with its own eyes: its own cards, the cards shown to
it (R27), the cards revealed to everyone (R25) and the face-down cards it looked at (R30); no
deduction at all, so the person does the reasoning (the classic paper notebook of R3).
``facts`` lists, for every card, what the seat has proved about where it is: its own cards,
cards shown to it (R27), cards revealed to everyone (R25), face-down cards it looked at (R30),
and what follows from those and from every pass and refutation it witnessed (the propagation of
:class:`~clue_env.engine.knowledge.Knowledge`, the same the ``deduction`` agent uses).
``deduce`` adds the probability that each card is in the envelope, under a uniform prior over
the deals consistent with what the seat saw: a hint, exact when the deals can be counted (the
figures are then given as counted), else estimated from sampled deals (then rounded to whole
percent, with the number of samples stated).

Every row also carries the grid the notebook draws: per seat whether it holds the card
(``holds``), cannot hold it (``cannot``) or is not known (``unknown``), the same for the
envelope, and the seats this seat showed the card to (its own ``shown_by_me``).

:meth:`Notebook.text` writes one line a card, naming the seats by their characters ("shown to
me by Colonel Mustard"); :meth:`Notebook.grid` writes the same as a detective's grid, a column
a seat, in half the lines (for a short terminal).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..engine.cards import CARDS, KIND_OF_CARD, N_CARDS, SUSPECTS
from ..engine.events import player
from ..engine.knowledge import Contradiction
from ..engine.witness import Witness
from ..seat_view import SeatView
from .screen import wrap

#: from least to most help: no notebook, what was seen, what follows from it, and probabilities
MODES = ("off", "seen", "facts", "deduce")
KIND_NAMES = ("suspects", "weapons", "rooms")
#: work budget of the exact count behind ``deduce`` (else estimated from samples)
DEDUCE_BUDGET = 60_000
DEDUCE_SAMPLES = 300
#: one grid cell: the seat proved it holds the card, proved it cannot, or does not know
HOLDS, CANNOT, UNKNOWN = "holds", "cannot", "unknown"
#: how :meth:`Notebook.grid` draws a cell
GRID_MARKS = {HOLDS: "X", CANNOT: "-", UNKNOWN: "."}
_SEAT = re.compile(r"player_(\d+)")


@dataclass(frozen=True)
class NoteRow:
    """One card's line: where the seat knows it is (``where``: ``player_k``, ``envelope``,
    ``board``, ``nobody`` or ``None`` for not known), why (``how``), and, with ``deduce``, the
    probability that it is in the envelope."""

    card: str
    kind: str
    where: str | None
    how: str
    envelope_p: float | None = None
    #: per seat (in seat order): ``holds``, ``cannot`` or ``unknown``
    seats: tuple[str, ...] = ()
    #: the same for the envelope
    envelope: str = UNKNOWN
    #: the seats this seat showed the card to (``player_k``), first showing first
    shown_to: tuple[str, ...] = ()


@dataclass(frozen=True)
class Notebook:
    seat: int
    mode: str
    #: number of the seat's events it was built from
    version: int
    rows: tuple[NoteRow, ...]
    #: per kind, the cards that may still be in the envelope
    candidates: tuple[tuple[str, ...], ...]
    #: the envelope, once the seat has proved it
    solved: tuple[str, str, str] | None
    #: with ``deduce``: whether the probabilities were counted exactly (else estimated)
    exact: bool | None = None
    #: with ``deduce``: the number of sampled deals behind the estimate (``None`` when exact)
    samples: int | None = None
    #: the suspect (index) each seat plays, in seat order (public): how the text names the seats
    characters: tuple[int, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "mode": self.mode,
            "rows": [
                {
                    "card": r.card,
                    "kind": r.kind,
                    "where": r.where,
                    "how": r.how,
                    "envelope_p": r.envelope_p,
                    "seats": list(r.seats),
                    "envelope": r.envelope,
                    "shown_to": list(r.shown_to),
                }
                for r in self.rows
            ],
            "candidates": {KIND_NAMES[k]: list(c) for k, c in enumerate(self.candidates)},
            "solved": list(self.solved) if self.solved else None,
            "exact": self.exact,
            "deduce": None if self.exact is None else {"exact": self.exact, "samples": self.samples},
        }

    def seat_name(self, seat: int, display: dict[str, str] | None = None) -> str:
        """Seat ``seat`` by its character's display name (``player_k`` when not known)."""
        if not 0 <= seat < len(self.characters):
            return f"player_{seat}"
        card = SUSPECTS[self.characters[seat]]
        return (display or {}).get(card, card)

    def _footer(self, name: dict[str, str]) -> list[str]:
        if self.solved:
            return ["solved: " + ", ".join(name.get(c, c) for c in self.solved)]
        if self.exact is not None:
            how = "counted exactly" if self.exact else f"estimated, rounded, from {self.samples} samples"
            return [f"(probabilities {how})"]
        return []

    def text(self, display: dict[str, str] | None = None) -> str:
        """The notebook as a table, one line per card (``display``: card id -> display name; the
        seats named by their characters)."""
        names = display or {}

        def how(text: str) -> str:
            return _SEAT.sub(lambda m: self.seat_name(int(m[1]), names), text)

        out: list[str] = []
        for title in KIND_NAMES:
            out.append(f"{title}:")
            for r in self.rows:
                if r.kind != title:
                    continue
                mark = "X" if r.where not in (None, "envelope") else ("!" if r.where == "envelope" else " ")
                p = ""
                if r.envelope_p is not None:
                    p = f"{100 * r.envelope_p:5.1f}%  " if self.exact else f"{100 * r.envelope_p:4.0f}%  "
                out.append(f"  [{mark}] {names.get(r.card, r.card):<18} {p}{how(r.how)}".rstrip())
        out += self._footer(names)
        return "\n".join(out)

    def grid(self, display: dict[str, str] | None = None, width: int = 79) -> list[str]:
        """The notebook as a detective's grid in about half the lines of :meth:`text`: a key,
        then per card a column per seat (headed by its token's digit, as on the board) and one
        for the envelope (``E``): ``X`` proved there, ``-`` proved not there, ``.`` not known;
        with ``deduce``, the chance that it is in the envelope. Suspects and weapons stand
        beside the rooms when both fit ``width`` (else one below the other)."""
        names = display or {}
        n = len(self.rows[0].seats) if self.rows else 0
        heads = [str(c + 1) for c in self.characters] if len(self.characters) == n else [str(i) for i in range(n)]
        seats = ", ".join(f"{heads[i]} {self.seat_name(i, names)}" + (" (me)" if i == self.seat else "") for i in range(n))
        key = wrap(f"{seats}, E the envelope; X: there, -: not there, .: not known", width, hang="  ")
        wide = max((len(names.get(r.card, r.card)) for r in self.rows), default=0)

        def block(title: str) -> list[str]:
            lines = [f"{title:<{wide}} " + " ".join([*heads, "E"])]
            for r in self.rows:
                if r.kind != title:
                    continue
                cells = " ".join(GRID_MARKS[c] for c in (*r.seats, r.envelope))
                p = ""
                if r.envelope_p is not None:
                    p = f" {100 * r.envelope_p:5.1f}%" if self.exact else f" {100 * r.envelope_p:3.0f}%"
                lines.append(f"{names.get(r.card, r.card):<{wide}} {cells}{p}")
            return lines

        left = block(KIND_NAMES[0]) + block(KIND_NAMES[1])
        right = block(KIND_NAMES[2])
        column = max(len(line) for line in left + right)
        if 2 * column + 3 <= width:
            body = [(a.ljust(column) + "   " + b).rstrip() for a, b in zip(left, [*right, *[""] * len(left)])]
            body += right[len(left) :]
        else:
            body = left + right
        return key + body + [line for text in self._footer(names) for line in wrap(text, width, hang="  ")]


def notebook(view: SeatView, mode: str = "facts") -> Notebook:
    """The notebook of ``view``'s seat (``mode``: ``seen``, ``facts`` or ``deduce``; ``off``: an
    empty notebook)."""
    if mode not in MODES:
        raise ValueError(f"notes mode must be one of {', '.join(MODES)}, got {mode!r}")
    characters = tuple(int(c) for c in view.characters)
    if mode == "off":
        return Notebook(view.seat, "off", len(view.events), (), ((), (), ()), None, characters=characters)
    if mode == "seen":
        return _seen(view)
    seat = view.seat
    w = Witness(seat, list(view.hand), list(view.hand_sizes))
    k = w.knowledge
    try:
        w.feed(view.events)
        k.propagate()
        consistent = True
    except Contradiction:  # cannot happen with a correct engine; show what is certain anyway
        consistent = False
    shown = {c: s for c, s in view.shown_to_me}
    revealed = {c: h for c, h in view.revealed}
    peeked = {c for _r, c in view.peeked}
    hand = set(view.hand)
    shown_to = _shown_to(view)
    probs: np.ndarray | None = None
    exact: bool | None = None
    samples: int | None = None
    if mode == "deduce" and consistent:
        post = k.posterior(np.random.default_rng(len(view.events)), budget=DEDUCE_BUDGET, samples=DEDUCE_SAMPLES)
        probs = post.marginals[:, k.ENV]
        exact = post.exact
        samples = None if exact else int(post.count)
    n = view.num_players
    rows: list[NoteRow] = []
    for c in range(N_CARDS):
        loc = k.location(c) if consistent else None
        where: str | None
        if c in hand:
            where, how = player(seat), "in my hand"
        elif c in shown:
            where, how = player(shown[c]), f"shown to me by {player(shown[c])}"
        elif c in revealed:
            h = revealed[c]
            where, how = (player(h), "revealed to all") if h >= 0 else ("nobody", "revealed: nobody holds it")
        elif c in peeked:
            where, how = "board", "face down on the board (I looked)"
        elif loc is None:
            where, how = None, ""
        elif loc == k.ENV:
            where, how = "envelope", "deduced: in the envelope"
        elif loc >= view.num_players:
            where, how = "board", "deduced: face down on the board"
        else:
            where, how = player(loc), f"deduced: {player(loc)} holds it"
        p = None
        if probs is not None:
            # exact: the figure as counted; estimated: rounded to whole percent (R3's hint, not more)
            p = 0.0 if where not in (None, "envelope") else float(round(probs[c], 6 if exact else 2))
        if consistent:
            poss = k.poss[c]
            cells = tuple(_cell(poss, i) for i in range(n))
            env = _cell(poss, k.ENV)
        else:
            cells, env = _cells_of(where, n)
        rows.append(NoteRow(CARDS[c], KIND_NAMES[KIND_OF_CARD[c]], where, how, p, cells, env, shown_to.get(c, ())))
    cand = k.envelope_candidates() if consistent else [[], [], []]
    candidates = tuple(tuple(CARDS[c] for c in kind) for kind in cand)
    solved = None
    if all(len(x) == 1 for x in candidates):
        solved = (candidates[0][0], candidates[1][0], candidates[2][0])
    return Notebook(seat, mode, len(view.events), tuple(rows), candidates, solved, exact, samples, characters)


def _cell(poss: int, loc: int) -> str:
    """One grid cell from a card's possible locations (a bit mask) and a location."""
    if poss == 1 << loc:
        return HOLDS
    return UNKNOWN if poss & (1 << loc) else CANNOT


def _cells_of(where: str | None, n: int) -> tuple[tuple[str, ...], str]:
    """The grid of a card whose place is ``where`` (or not known), for ``n`` seats."""
    if where is None:
        return (UNKNOWN,) * n, UNKNOWN
    if where == "envelope":
        return (CANNOT,) * n, HOLDS
    return tuple(HOLDS if where == player(i) else CANNOT for i in range(n)), CANNOT


def _shown_to(view: SeatView) -> dict[int, tuple[str, ...]]:
    """Per card, the seats ``view``'s seat showed it to (each once, first showing first)."""
    out: dict[int, list[str]] = {}
    for c, s in view.shown_by_me:
        to, name = out.setdefault(c, []), f"player_{s}"
        if name not in to:
            to.append(name)
    return {c: tuple(v) for c, v in out.items()}


def _seen(view: SeatView) -> Notebook:
    """The ``seen`` notebook: the cards ``view``'s seat has seen and where, nothing deduced."""
    seat = view.seat
    known: dict[int, tuple[str | None, str]] = {}
    for c, h in view.revealed:
        known[c] = (player(h), "revealed to all") if h >= 0 else ("nobody", "revealed: nobody holds it")
    for _r, c in view.peeked:
        known[c] = ("board", "face down on the board (I looked)")
    for c, s in view.shown_to_me:
        known[c] = (player(s), f"shown to me by {player(s)}")
    for c in view.hand:
        known[c] = (player(seat), "in my hand")
    shown_to = _shown_to(view)
    rows: list[NoteRow] = []
    for c in range(N_CARDS):
        where, how = known.get(c, (None, ""))
        cells, env = _cells_of(where, view.num_players)
        rows.append(NoteRow(CARDS[c], KIND_NAMES[KIND_OF_CARD[c]], where, how, None, cells, env, shown_to.get(c, ())))
    candidates = tuple(tuple(CARDS[c] for c in range(N_CARDS) if KIND_OF_CARD[c] == k and c not in known) for k in range(3))
    solved = None
    if all(len(x) == 1 for x in candidates):  # every other card of each kind seen
        solved = (candidates[0][0], candidates[1][0], candidates[2][0])
    characters = tuple(int(c) for c in view.characters)
    return Notebook(seat, "seen", len(view.events), tuple(rows), candidates, solved, characters=characters)


__all__ = ["CANNOT", "GRID_MARKS", "HOLDS", "KIND_NAMES", "MODES", "UNKNOWN", "NoteRow", "Notebook", "notebook"]
