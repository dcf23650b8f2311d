"""Clue cards (2023, R24-R25): the deck and its effects.

The documents describe one effect, "the player holding card X must reveal it": the holder shows
X to everyone; if nobody holds X (it is in the envelope, or face down on the board in the
two-player game), nothing is shown, which everyone learns. The default deck has one such card per
card of the game. A deck is configured as a list of effect specs (``clue_deck`` in the rules);
further effects are added by registering a parser and a resolver in :data:`EFFECTS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from .cards import CARDS, card_index


class Effect(NamedTuple):
    kind: str
    card: int = -1

    def text(self) -> str:
        return f"{self.kind}:{CARDS[self.card]}" if self.card >= 0 else self.kind


def _parse_reveal(arg: str) -> Effect:
    return Effect("reveal", card_index(arg))


#: effect name -> parser of its argument
EFFECTS: dict[str, Callable[[str], Effect]] = {"reveal": _parse_reveal}


def parse_effect(spec: str) -> Effect:
    """``reveal:CARD`` -> :class:`Effect`; ValueError naming the problem otherwise."""
    if not isinstance(spec, str):
        raise ValueError(f"a Clue card effect is a string such as 'reveal:rope', got {spec!r}")
    name, _, arg = spec.partition(":")
    parser = EFFECTS.get(name.strip())
    if parser is None:
        raise ValueError(f"unknown Clue card effect {name!r} in {spec!r}; known effects: {', '.join(EFFECTS)}")
    try:
        return parser(arg.strip())
    except ValueError as e:
        raise ValueError(f"bad Clue card {spec!r}: {e}") from None


def default_deck() -> tuple[Effect, ...]:
    """One "the holder of X reveals it" card per card of the game (R25)."""
    return tuple(Effect("reveal", c) for c in range(len(CARDS)))


def build_deck(specs: tuple[str, ...] | None) -> tuple[Effect, ...]:
    return default_deck() if specs is None else tuple(parse_effect(s) for s in specs)
