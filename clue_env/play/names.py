"""What a person types, read as card ids and action text forms (SPEC "Actions as text").

People type names the way they are shown: ``Mr. Green``, ``mr green``, ``lead pipe``,
``toward dining room``, or just enough of one to tell it apart (``plum``, ``dag``, ``din``).
:class:`Names` resolves one such name to its card id; :func:`read_action` turns a whole line
(``suggest mr green lead pipe``, ``accuse plum with the rope in the dining room``) into the SPEC
text form (``suggest green lead_pipe``, ``accuse plum rope dining_room``).

Matching is case-insensitive and ignores punctuation, extra spaces and the words ``the``,
``in`` and ``with``. A name matches a card when it is the card's id (``lead_pipe``), its display
name (``Lead Pipe``, from the ruleset: R1) or the end of either (``pipe``, ``green``), or a prefix
of those word by word (``mr gr``, ``din``) or with the spaces left out (``leadp``). An exact match
wins over prefixes; two or more cards left is refused with a message naming them
(``m``: Miss Scarlet, Colonel Mustard, ...). Nothing here knows what is legal: the caller checks.

Reading a line costs little whatever its length: a name has at most as many letters as the
longest of its kind, so a line whose names hold more letters than the verb's longest names
together is refused at once (:func:`read_action`), and each piece of the words is resolved once.
:func:`longest_line` is the most characters a line naming one action can take.

Pure: no environment, no game, nothing random.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations

from ..engine.cards import CARDS, DEFAULT_DISPLAY, ROOMS, SUSPECTS, WEAPONS

#: words dropped before matching ("the Rope in the Hall")
STOPWORDS = frozenset({"the", "in", "with"})
#: the verbs whose arguments are names, and the kinds of their arguments, in order
ARGUMENTS: dict[str, tuple[str, ...]] = {
    "enter": ("room",),
    "toward": ("room",),
    "show": ("card",),
    "suggest": ("suspect", "weapon"),
    "accuse": ("suspect", "weapon", "room"),
}
#: the SPEC text form of each verb with placeholders
FORMS: dict[str, str] = {
    "move": "move R,C",
    "enter": "enter ROOM",
    "toward": "toward ROOM",
    "suggest": "suggest SUSPECT WEAPON",
    "show": "show CARD",
    "accuse": "accuse SUSPECT WEAPON ROOM",
}
KIND_IDS: dict[str, tuple[str, ...]] = {"suspect": SUSPECTS, "weapon": WEAPONS, "room": ROOMS, "card": CARDS}
#: what a line may hold around each name besides the name itself: a space, ``with the`` (the
#: longest two stop words) and a punctuation mark (``accuse Plum, with the Rope, in the Hall.``)
AROUND_NAME = 1 + sum(len(w) + 1 for w in sorted(STOPWORDS, key=len)[-2:]) + 1


class NameProblem(ValueError):
    """A name (or a line of names) that does not tell one card (or one action) apart."""


class UnknownName(NameProblem):
    """No card matches."""


class AmbiguousName(NameProblem):
    """Several cards match; :attr:`candidates` lists their ids."""

    def __init__(self, message: str, candidates: Sequence[str]) -> None:
        super().__init__(message)
        self.candidates = tuple(candidates)


def words(text: str) -> tuple[str, ...]:
    """``text`` lower-cased, punctuation and symbols turned into spaces, split, stop words dropped."""
    chars = [" " if unicodedata.category(ch)[0] in "PSZC" else ch for ch in text.casefold()]
    return tuple(w for w in "".join(chars).split() if w not in STOPWORDS)


def _prefix(query: Sequence[str], alias: Sequence[str]) -> bool:
    """Whether ``query`` starts ``alias``: word by word, or with the spaces left out."""
    if len(query) <= len(alias) and all(a.startswith(q) for q, a in zip(query, alias)):
        return True
    return "".join(alias).startswith("".join(query))


class Names:
    """Resolves typed names to the ids in ``ids`` (``display``: id -> name shown; ``kind``: what
    the ids are, for messages: ``suspect``, ``weapon``, ``room``, ``card``)."""

    def __init__(self, ids: Iterable[str], display: Mapping[str, str] | None = None, kind: str = "card") -> None:
        shown = dict(DEFAULT_DISPLAY)
        shown.update(display or {})
        self.ids: tuple[str, ...] = tuple(dict.fromkeys(ids))
        self.kind = kind
        self.display: dict[str, str] = {c: shown.get(c, c) for c in self.ids}
        #: per id, every word sequence that names it exactly: id and display name, and their ends
        self._aliases: dict[str, tuple[tuple[str, ...], ...]] = {}
        for c in self.ids:
            ends: list[tuple[str, ...]] = []
            for full in (words(c), words(self.display[c])):
                ends += [full[i:] for i in range(len(full))]
            self._aliases[c] = tuple(dict.fromkeys(ends))
        #: the most letters (the characters of :func:`words`) a name of these cards can have
        self.letters: int = max((len("".join(a)) for aliases in self._aliases.values() for a in aliases), default=0)
        #: the most characters a name of these cards can have as typed: its id or display name
        self.longest: int = max((max(len(c), len(self.display[c])) for c in self.ids), default=0)

    def restrict(self, ids: Iterable[str], kind: str | None = None) -> Names:
        """The same names, only for ``ids`` (a menu's choices)."""
        return Names(ids, self.display, kind or self.kind)

    def matches(self, text: str) -> tuple[str, ...]:
        """The ids ``text`` could mean: the exact matches if any, else the prefix matches."""
        query = words(text)
        if not query:
            return ()
        joined = "".join(query)
        if len(joined) > self.letters:  # longer than every name: neither one nor the start of one
            return ()
        exact = [c for c in self.ids if any("".join(a) == joined for a in self._aliases[c])]
        if exact:
            return tuple(exact)
        return tuple(c for c in self.ids if any(_prefix(query, a) for a in self._aliases[c]))

    def resolve(self, text: str) -> str:
        """The one id ``text`` names; :class:`UnknownName` or :class:`AmbiguousName` otherwise."""
        found = self.matches(text)
        if len(found) == 1:
            return found[0]
        typed = " ".join(text.split())
        if not found:
            raise UnknownName(f"no {self.kind} is called {typed!r}; {self.kind}s: {self.listing()}")
        names = ", ".join(self.display[c] for c in found)
        raise AmbiguousName(f"{typed!r} could be {names}: type more of the name", found)

    def listing(self, ids: Iterable[str] | None = None) -> str:
        """The display names of ``ids`` (default: all), comma-separated."""
        return ", ".join(self.display[c] for c in (self.ids if ids is None else ids))


def kind_names(display: Mapping[str, str] | None = None) -> dict[str, Names]:
    """A :class:`Names` per kind (``suspect``, ``weapon``, ``room``, ``card``) with the ruleset's names."""
    return {kind: Names(ids, display, kind) for kind, ids in KIND_IDS.items()}


def longest_line(names: Mapping[str, Names]) -> int:
    """The most characters a line naming one action can take (its whitespace runs counted as one
    space): the verb, then each of its names at its kind's longest, with :data:`AROUND_NAME`
    characters around each. ``names``: per kind, as from :func:`kind_names`."""
    named = max(len(verb) + sum(AROUND_NAME + names[k].longest for k in kinds) for verb, kinds in ARGUMENTS.items())
    return max(named, *(len(form) for form in FORMS.values()))


def read_action(line: str, names: Mapping[str, Names]) -> str | None:
    """The SPEC text form of ``line`` when its first word is a verb taking names (``enter``,
    ``toward``, ``show``, ``suggest``, ``accuse``); ``None`` for any other line (not ours to read).
    ``names``: per kind, as from :func:`kind_names`. Raises :class:`NameProblem` with what is wrong.
    A line whose words hold more letters than the verb's longest names together is refused
    before any name is looked up; otherwise each piece of the words is resolved once."""
    parts = line.split(None, 1)
    if not parts or parts[0].casefold() not in ARGUMENTS:
        return None
    verb = parts[0].casefold()
    kinds = ARGUMENTS[verb]
    query = words(parts[1]) if len(parts) > 1 else ()
    if len(query) < len(kinds):
        needs = " and ".join(f"a {k}" for k in kinds)
        raise NameProblem(f"{verb} needs {needs}: {FORMS[verb]}")
    room = sum(names[k].letters for k in kinds)
    letters = sum(len(w) for w in query)
    if letters > room:  # some piece would be longer than every name of its kind
        typed = " ".join(query)
        typed = typed if len(typed) <= 40 else typed[:37] + "..."
        raise NameProblem(
            f"{verb} {typed!r} is too long: the names of {FORMS[verb]} hold at most {room} letters "
            f"together, these words {letters}"
        )
    resolved: dict[tuple[str, int, int], str | NameProblem] = {}

    def piece(kind: str, a: int, b: int) -> str | NameProblem:
        key = (kind, a, b)
        if key not in resolved:
            try:
                resolved[key] = names[kind].resolve(" ".join(query[a:b]))
            except NameProblem as e:
                resolved[key] = e
        return resolved[key]

    found: dict[tuple[str, ...], None] = {}
    best: tuple[int, NameProblem] | None = None
    # every way of cutting the words into one piece per argument (at most a few hundred: the
    # words hold no more letters than the names, and each piece is resolved once)
    for cuts in combinations(range(1, len(query)), len(kinds) - 1):
        bounds = (0, *cuts, len(query))
        picked: list[str] = []
        problem: NameProblem | None = None
        for kind, a, b in zip(kinds, bounds, bounds[1:]):
            got = piece(kind, a, b)
            if isinstance(got, NameProblem):
                problem = problem or got
            else:
                picked.append(got)
        if problem is None:
            found[tuple(picked)] = None
        elif best is None or len(picked) > best[0]:
            best = (len(picked), problem)
    if len(found) == 1:
        return " ".join((verb, *next(iter(found))))
    if found:
        ways = " or ".join(" ".join((verb, *args)) for args in found)
        raise NameProblem(f"{' '.join(line.split())!r} could be {ways}")
    assert best is not None
    raise best[1]


__all__ = [
    "ARGUMENTS",
    "FORMS",
    "STOPWORDS",
    "AmbiguousName",
    "AROUND_NAME",
    "NameProblem",
    "Names",
    "UnknownName",
    "kind_names",
    "longest_line",
    "read_action",
    "words",
]
