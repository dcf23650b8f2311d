"""Flat action indices <-> engine actions, from one table of named segments (SPEC "Actions").

The layout is written down once, in :data:`SEGMENTS`; every base offset is derived from it.
``python -m clue_env actions`` prints it.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from .engine.actions import Action, Kind, parse_action
from .engine.board import Board, classic_board
from .engine.cards import N_CARDS, N_ROOMS, N_SUSPECTS, N_WEAPONS
from .engine.errors import InvalidActionTextError
from .engine.game import Legal
from .engine.memo_cache import MemoCache
from .engine.types import Card, Room, Suspect, Weapon

#: the phases of a decision, as :meth:`ActionCodec.phases` reads them from an action mask
PHASES: tuple[str, ...] = ("move", "suggest", "refute", "accuse/end")


def _segments(board: Board) -> tuple[tuple[str, Kind, int, str], ...]:
    """(name, kind, size, index meaning) in layout order."""
    return (
        ("roll", Kind.ROLL, 1, "roll the die/dice (R11, R12)"),
        ("passage", Kind.PASSAGE, 1, "take the secret passage (R20)"),
        ("stay", Kind.STAY, 1, "stay in the room to suggest (R21; 2023 R22)"),
        ("end", Kind.END, 1, "end the turn / decline to suggest or accuse"),
        ("move", Kind.MOVE, board.n_squares, "hallway squares in row-major order (R16-R18)"),
        ("enter", Kind.ENTER, N_ROOMS, "rooms in card order (R19)"),
        ("toward", Kind.TOWARD, N_ROOMS, "legal destination nearest to the room (SPEC)"),
        ("suggest", Kind.SUGGEST, N_SUSPECTS * N_WEAPONS, "suspect*6 + weapon (R26)"),
        ("show", Kind.SHOW, N_CARDS, "card index (R27)"),
        ("accuse", Kind.ACCUSE, N_SUSPECTS * N_WEAPONS * N_ROOMS, "suspect*54 + weapon*9 + room (R28)"),
    )


class ActionCodec:
    """Maps the flat ``Discrete(N)`` action space to engine :class:`Action` values and back."""

    def __init__(self, board: Board | None = None) -> None:
        self.board = board or classic_board()
        self.segments = _segments(self.board)
        self.base: dict[str, int] = {}
        self.size: dict[str, int] = {}
        off = 0
        for name, _kind, size, _doc in self.segments:
            self.base[name] = off
            self.size[name] = size
            off += size
        self.n = off
        b = self.base
        self.ROLL, self.PASSAGE, self.STAY, self.END = b["roll"], b["passage"], b["stay"], b["end"]
        self.MOVE, self.ENTER, self.TOWARD = b["move"], b["enter"], b["toward"]
        self.SUGGEST, self.SHOW, self.ACCUSE = b["suggest"], b["show"], b["accuse"]
        self._move_off = self.MOVE - N_ROOMS  # hallway node -> index
        self.actions: tuple[Action, ...] = tuple(self._decode_slow(i) for i in range(self.n))
        self._index: dict[Action, int] = {a: i for i, a in enumerate(self.actions)}
        self.accuse_slice = slice(self.ACCUSE, self.ACCUSE + self.size["accuse"])
        #: memoised masks (about 700 bytes each: 16,384 entries, ~12 MB)
        self._mask_cache: MemoCache[Legal, np.ndarray] = MemoCache(16_384)

    # ---------------------------------------------------------------- named indices
    def enter(self, room: Room) -> int:
        """``enter ROOM`` (room index 0-8)."""
        return self.ENTER + room

    def toward(self, room: Room) -> int:
        """``toward ROOM`` (room index 0-8)."""
        return self.TOWARD + room

    def suggest(self, suspect: Suspect, weapon: Weapon) -> int:
        """``suggest SUSPECT WEAPON`` (suspect and weapon indices 0-5)."""
        return self.SUGGEST + suspect * N_WEAPONS + weapon

    def show(self, card: Card) -> int:
        """``show CARD`` (flat card index 0-20)."""
        return self.SHOW + card

    def accuse(self, suspect: Suspect, weapon: Weapon, room: Room) -> int:
        """``accuse SUSPECT WEAPON ROOM`` (suspect, weapon and room indices)."""
        return self.ACCUSE + (suspect * N_WEAPONS + weapon) * N_ROOMS + room

    # ---------------------------------------------------------------- index <-> action
    def _decode_slow(self, i: int) -> Action:
        for name, kind, size, _doc in self.segments:
            base = self.base[name]
            if base <= i < base + size:
                j = i - base
                if kind == Kind.MOVE:
                    return Action(kind, N_ROOMS + j)
                if kind in (Kind.ENTER, Kind.TOWARD, Kind.SHOW):
                    return Action(kind, j)
                if kind == Kind.SUGGEST:
                    return Action(kind, j // N_WEAPONS, j % N_WEAPONS)
                if kind == Kind.ACCUSE:
                    return Action(kind, j // (N_WEAPONS * N_ROOMS), (j // N_ROOMS) % N_WEAPONS, j % N_ROOMS)
                return Action(kind)
        raise IndexError(i)

    def decode(self, index: int) -> Action:
        """The action at flat ``index``; ``ValueError`` when out of range."""
        try:
            if index < 0:
                raise IndexError(index)
            return self.actions[index]
        except (IndexError, TypeError):
            raise ValueError(f"action index {index!r} is out of range 0..{self.n - 1}") from None

    def encode(self, action: Action) -> int:
        return self._index[action]

    def to_text(self, index: int) -> str:
        return self.decode(index).to_text(self.board)

    @cached_property
    def texts(self) -> tuple[str, ...]:
        """The text form of every action index (static: ``texts[i] == to_text(i)``)."""
        return tuple(self.to_text(i) for i in range(self.n))

    def from_text(self, text: str) -> int:
        """Flat index of a SPEC text form; raises :class:`InvalidActionTextError` (a ValueError)."""
        action = parse_action(text, self.board)
        try:
            return self._index[action]
        except KeyError:
            raise InvalidActionTextError(f"action text {text!r} names no action") from None

    # ---------------------------------------------------------------- masks
    def mask(self, lg: Legal, out: np.ndarray | None = None) -> np.ndarray:
        """An int8 mask of the legal set ``lg``."""
        m = np.zeros(self.n, dtype=np.int8) if out is None else out
        if lg.roll:
            m[self.ROLL] = 1
        if lg.passage:
            m[self.PASSAGE] = 1
        if lg.stay:
            m[self.STAY] = 1
        if lg.end:
            m[self.END] = 1
        if lg.squares or lg.rooms:
            off = self._move_off
            for s in lg.squares:
                m[off + s] = 1
            for r in lg.rooms:
                m[self.ENTER + r] = 1
            m[self.TOWARD : self.TOWARD + N_ROOMS] = 1
        if lg.suggest:
            m[self.SUGGEST : self.SUGGEST + N_SUSPECTS * N_WEAPONS] = 1
        for c in lg.show:
            m[self.SHOW + c] = 1
        if lg.accuse:
            m[self.accuse_slice] = 1
        return m

    def cached_mask(self, lg: Legal) -> np.ndarray:
        """Like :meth:`mask`, memoised on the legal set; the result is shared and read-only."""
        m = self._mask_cache.get(lg)
        if m is None:
            m = self.mask(lg)
            m.flags.writeable = False
            self._mask_cache.put(lg, m)
        return m

    def indices(self, lg: Legal) -> tuple[int, ...]:
        """The legal action indices of ``lg``, ascending."""
        return tuple(np.flatnonzero(self.cached_mask(lg)).tolist())

    def phases(self, masks: np.ndarray) -> np.ndarray:
        """The phase of each decision from its action mask, as an index into :data:`PHASES`.

        ``masks`` is one mask ``(N,)`` or a stack ``(K, N)``; the answer has the stack's shape
        less its last axis (a 0-d array for one mask). Refute when a card may be shown (R27), else
        suggest when a suggestion is legal (R26; declining is ``end``), else move when rolling, a
        passage, staying or a movement choice is legal (R11-R22), else accuse/end (R28).
        """
        m = np.asarray(masks).astype(bool, copy=False)

        def any_in(*names: str) -> np.ndarray:
            return np.logical_or.reduce([m[..., self.base[k] : self.base[k] + self.size[k]].any(axis=-1) for k in names])

        out = np.full(m.shape[:-1], PHASES.index("accuse/end"), dtype=np.int8)
        out[any_in("roll", "passage", "stay", "move", "enter", "toward")] = PHASES.index("move")
        out[any_in("suggest")] = PHASES.index("suggest")
        out[any_in("show")] = PHASES.index("refute")
        return out

    def phase_of(self, mask: np.ndarray) -> str:
        """The phase of one decision (a name in :data:`PHASES`) from its action mask."""
        return PHASES[int(self.phases(mask))]

    def layout(self) -> str:
        """The action layout as a printable table."""
        lines = [f"{'segment':<9} {'first':>5} {'last':>5} {'size':>5}  meaning"]
        for name, _kind, size, doc in self.segments:
            b = self.base[name]
            lines.append(f"{name:<9} {b:>5} {b + size - 1:>5} {size:>5}  {doc}")
        lines.append(f"{'total':<9} {'':>5} {'':>5} {self.n:>5}")
        return "\n".join(lines)


_DEFAULT: ActionCodec | None = None


def default_codec() -> ActionCodec:
    """The codec of the classic board (built once per process)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = ActionCodec()
    return _DEFAULT


if __name__ == "__main__":
    print(default_codec().layout())
