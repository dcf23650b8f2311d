"""``human``: a person at the terminal picks each action by its text form.

For use outside ``play.py`` (which has the full front end, :mod:`clue_env.play.terminal`), e.g.
``python evaluate.py --seats human,random,random --games 1 --workers 1``. At the prompt type a
legal action's text form (``roll``, ``move 7,4``, ``suggest plum rope``, ...); ``legal`` lists
them. End of input stops the game like Ctrl-C (:class:`KeyboardInterrupt`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TextIO

import numpy as np

from clue_env.codec import default_codec
from clue_env.engine.cards import CARDS

from . import register_agent
from .base import Agent

_CODEC = default_codec()


class HumanAgent(Agent):
    """Asks ``input_fn`` (default :func:`input`) for a legal action's text form."""

    def __init__(
        self,
        seat: int,
        num_players: int,
        rules: Any = "classic",
        seed: int | None = None,
        input_fn: Callable[[str], str] = input,
        out: TextIO | None = None,
    ) -> None:
        self.input_fn = input_fn
        self.out = out
        super().__init__(seat, num_players, rules, seed)

    def _say(self, text: str) -> None:
        print(text, file=self.out if self.out is not None else sys.stdout, flush=True)

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        view = info["seat_view"]
        mask = observation["action_mask"]
        self._say(f"player_{self.seat}: your hand is {', '.join(self.rules.display(CARDS[c]) for c in view.hand)}")
        self._say(f"{len(view.legal_text)} legal actions ('legal' lists them)")
        while True:
            try:
                line = " ".join(self.input_fn(f"player_{self.seat}> ").split()).lower()
            except EOFError:  # the person stopped: evaluate.py reports an interruption (exit 130)
                self._say("end of input")
                raise KeyboardInterrupt from None
            if line == "legal":
                for text in view.legal_text:
                    self._say(text)
                continue
            if not line:
                continue
            try:
                index = _CODEC.from_text(line[:200])
            except ValueError as e:
                self._say(f"?? {e}")
                continue
            if mask[index]:
                return int(index)
            self._say(f"?? {line!r} is not legal now ('legal' lists the legal actions)")


register_agent("human", HumanAgent)

__all__ = ["HumanAgent"]
