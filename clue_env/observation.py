"""Per-seat observations: named pieces laid into one flat float32 vector (SPEC, R31).

Everything is *seat-relative*: "rel seat k" is the seat k places to my left (k=0 is me), so a
policy sees the table from its own chair whatever its seat. Slots for seats that do not exist
(fewer than six players) stay zero; the vector has the same size for 2-6 players.

The encoder is incremental: it keeps one row per seat and updates the rows from the engine's new
events after every step, so building an observation costs one copy. Only information R31 lets
a seat know ever reaches its row: a shown card reaches the suggester and the refuter only.

``python -m clue_env observation`` prints the layout (piece, offset, shape, meaning).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .engine.board import OFF_BOARD, Board
from .engine.cards import N_CARDS, N_ROOMS, N_SUSPECTS, N_WEAPONS, ROOM_BASE, WEAPON_BASE
from .engine.events import (
    NOBODY,
    Accuse,
    ClueCard,
    EndTurn,
    Event,
    Move,
    Pass,
    Peek,
    Reveal,
    Roll,
    Show,
    Suggest,
    Turn,
    WeaponMoved,
)
from .engine.game import Game, Phase

MAX_SEATS = 6
_LOC_W = N_ROOMS + 4  # room one-hot, hallway flag, row, col, off-board flag
_MAX_ROLL = 12
#: hand sizes are divided by this (the largest hand: 18 cards between two players)
HAND_SCALE = 9.0
_MAX_DICE = 2
_FACES = 6
_DIST_SCALE = 30.0

#: (name, shape, meaning) in layout order.
PIECES: tuple[tuple[str, tuple[int, ...], str], ...] = (
    ("hand", (N_CARDS,), "my cards (R6)"),
    ("seat_present", (MAX_SEATS,), "rel seat k exists"),
    ("seat_character", (MAX_SEATS, N_SUSPECTS), "suspect played by rel seat k"),
    ("hand_size", (MAX_SEATS,), f"cards held by rel seat k / {HAND_SCALE:g}"),
    ("eliminated", (MAX_SEATS,), "rel seat k has accused wrongly (R28)"),
    ("shown_to_me", (MAX_SEATS - 1, N_CARDS), "card c was shown to me by rel seat k+1 (R27)"),
    ("i_showed", (MAX_SEATS - 1, N_CARDS), "I showed card c to rel seat k+1 (R27)"),
    ("passed", (MAX_SEATS - 1, N_CARDS), "rel seat k+1 passed on a suggestion naming c: holds none of them"),
    ("showed", (MAX_SEATS - 1, N_CARDS), "rel seat k+1 showed some card for a suggestion naming c"),
    ("suspect_loc", (N_SUSPECTS, _LOC_W), "suspect token: room one-hot, in hallway, row/24, col/23, off board"),
    ("weapon_loc", (N_WEAPONS, N_ROOMS), "room of each weapon"),
    ("my_room_dist", (N_ROOMS,), "moves from my token to enter each room / 30 (0 = inside)"),
    ("phase", (len(Phase),), "phase one-hot: START MOVE SUGGEST REFUTE ACCUSE OVER"),
    ("current", (MAX_SEATS,), "rel seat whose turn it is"),
    ("roll", (_MAX_ROLL + 1,), "total rolled this turn, one-hot (0 = not rolled)"),
    (
        "suggestion",
        (MAX_SEATS + N_SUSPECTS + N_WEAPONS + N_ROOMS,),
        "this turn's suggestion: rel suggester, suspect, weapon, room",
    ),
    ("refuter", (MAX_SEATS,), "rel seat that showed a card for this turn's suggestion"),
    ("refuted_card", (N_CARDS,), "the card shown for this turn's suggestion, if I saw it"),
    ("accusations", (MAX_SEATS, N_SUSPECTS + N_WEAPONS + N_ROOMS), "rel seat k's (wrong) accusation"),
    ("pulled", (MAX_SEATS,), "rel seat k was moved into a room by a suggestion since its last turn (R21)"),
    ("turn", (1,), "turns played / max_turns (R15)"),
    ("dice", (_MAX_DICE, _FACES), "face of each die this turn, one-hot; face 1 is the magnifying glass in 2023 (R23)"),
    ("clue_card", (N_CARDS + 1,), "Clue card drawn this turn: the card it names; last: a card was drawn (R24-R25)"),
    ("revealed", (N_CARDS, MAX_SEATS + 1), "card revealed to all by rel seat k; last column: nobody holds it (R25)"),
    ("board_rooms", (N_ROOMS,), "rooms with a card lying face down (2023 two-player game, R30)"),
    ("board_seen", (N_CARDS,), "face-down board cards I have looked at (R30)"),
)


#: appended when the env is made with ``belief_features=True``
BELIEF_PIECES: tuple[tuple[str, tuple[int, ...], str], ...] = (
    (
        "belief",
        (N_CARDS, MAX_SEATS + 2),
        "deduction engine: P(card c held by rel seat k); then P(c in envelope), P(c face down on the board)",
    ),
)


class Layout:
    """Offsets of the named pieces; sizes are derived from :data:`PIECES`, never repeated."""

    def __init__(self, belief: bool = False, pieces: tuple[tuple[str, tuple[int, ...], str], ...] | None = None) -> None:
        self.pieces = pieces if pieces is not None else PIECES + (BELIEF_PIECES if belief else ())
        self.offset: dict[str, int] = {}
        self.shape: dict[str, tuple[int, ...]] = {}
        self.doc: dict[str, str] = {}
        self._slices: dict[str, slice] = {}
        off = 0
        for name, shape, doc in self.pieces:
            self.offset[name] = off
            self.shape[name] = shape
            self.doc[name] = doc
            off += int(np.prod(shape))
        self.size = off

    def slice(self, name: str) -> slice:
        o = self.offset[name]
        return slice(o, o + int(np.prod(self.shape[name])))

    def view(self, obs: np.ndarray, name: str) -> np.ndarray:
        """The piece ``name`` of a flat observation, in its shape."""
        sl = self._slices.get(name)
        if sl is None:  # first use (or a subclass that added pieces)
            sl = self._slices[name] = self.slice(name)
        return obs[sl].reshape(self.shape[name])

    def table(self) -> str:
        lines = [f"{'piece':<15} {'offset':>6} {'size':>5}  {'shape':<9} meaning"]
        for name, shape, doc in self.pieces:
            lines.append(f"{name:<15} {self.offset[name]:>6} {int(np.prod(shape)):>5}  {str(shape):<9} {doc}")
        lines.append(f"{'total':<15} {'':>6} {self.size:>5}")
        return "\n".join(lines)


LAYOUT = Layout()
LAYOUT_WITH_BELIEF = Layout(belief=True)


def _loc_features(board: Board) -> np.ndarray:
    feats = np.zeros((board.n_nodes + 1, _LOC_W), dtype=np.float32)  # last row: off board
    for node in range(board.n_nodes):
        if node < N_ROOMS:
            feats[node, node] = 1.0
        else:
            r, c = board.node_rc[node]
            feats[node, N_ROOMS] = 1.0
            feats[node, N_ROOMS + 1] = r / (board.rows - 1)
            feats[node, N_ROOMS + 2] = c / (board.cols - 1)
    feats[board.n_nodes, N_ROOMS + 3] = 1.0
    return feats


class SeatLog(Sequence):
    """Seat ``seat``'s view of the game log (R31), computed lazily from the shared log.

    Behaves like a read-only list of events (:mod:`clue_env.engine.events`), each as
    ``event.redacted(seat)``: a ``Show`` carries its card only for the suggester and the
    refuter, a ``Peek`` only for the seat that looked (``HIDDEN`` for everyone else).
    """

    __slots__ = ("_log", "seat")

    def __init__(self, log: list[Event], seat: int) -> None:
        self._log = log
        self.seat = seat

    def __len__(self) -> int:
        return len(self._log)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [ev.redacted(self.seat) for ev in self._log[i]]
        return self._log[i].redacted(self.seat)

    def __iter__(self):
        seat = self.seat
        for ev in self._log:
            yield ev.redacted(seat)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (SeatLog, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __repr__(self) -> str:
        return f"SeatLog(seat={self.seat}, events={len(self)})"


class ObservationEncoder:
    """Keeps every seat's observation row up to date from a :class:`Game`'s event log."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.L = LAYOUT
        self.size = LAYOUT.size
        dist = np.array(board.dist_to_room, dtype=np.float32) / _DIST_SCALE
        room_dist = np.vstack([np.minimum(dist, 1.0), np.ones((1, N_ROOMS), np.float32)])
        assert OFF_BOARD == -1  # the tables' last rows are the off-board ones
        #: the token and room-distance tables as lists of rows (a list lookup, not a numpy view, per move)
        self._loc_rows = list(_loc_features(board))
        self._dist_rows = list(room_dist)
        self._loc_off = LAYOUT.offset["suspect_loc"]
        self._dist_off = LAYOUT.offset["my_room_dist"]
        #: the phase one-hot rows, a list (indexing a list with the IntEnum is the cheap kind)
        self._phase_rows = list(np.eye(len(Phase), dtype=np.float32))
        self._n_phases = len(Phase)
        self._phase_off = LAYOUT.offset["phase"]
        self._roll_eye = np.eye(_MAX_ROLL + 1, dtype=np.float32)
        self.buf = np.zeros((1, self.size), dtype=np.float32)
        self.views: list[SeatLog] = []

    # ------------------------------------------------------------------ setup
    def reset(self, game: Game) -> None:
        n = game.n
        L = self.L
        off = L.offset
        self.game = game
        self.n = n
        self.buf = np.zeros((n, self.size), dtype=np.float32)
        self.views = [SeatLog(game.log, v) for v in range(n)]
        self._phase = -1
        self._pulled: list[bool] = []
        #: perm[v, k] = the seat k places to v's left
        self._perm = np.array([[(v + k) % n for k in range(n)] for v in range(n)], dtype=np.intp)
        self._seen = 0
        self._named: tuple[int, int, int] = (0, 0, 0)
        # rel[v][s] = seats from v to s, clockwise
        self.rel = [[(s - v) % n for s in range(n)] for v in range(n)]
        spans = (
            ("current", MAX_SEATS),
            ("roll", _MAX_ROLL + 1),
            ("suggestion", MAX_SEATS + N_SUSPECTS + N_WEAPONS + N_ROOMS),
            ("refuter", MAX_SEATS),
            ("refuted_card", N_CARDS),
            ("dice", _MAX_DICE * _FACES),
            ("clue_card", N_CARDS + 1),
        )
        size = self.size
        #: the flat view of the rows (one-dimensional indexing is the cheap kind)
        self._flat = self.buf.reshape(-1)
        clear = np.concatenate([np.arange(off[k], off[k] + w) for k, w in spans])
        #: every row's columns a new turn clears, as flat indices
        self._turn_clear = (np.arange(n)[:, None] * size + clear[None, :]).ravel()
        #: _turn_set[s]: the flat indices a turn of seat s sets to one (roll 0; s as the current seat)
        self._turn_set = [
            np.array([v * size + off["roll"] for v in range(n)] + [v * size + off["current"] + self.rel[v][s] for v in range(n)])
            for s in range(n)
        ]
        self._turn_col = off["turn"]
        self._suspect_seat = game.suspect_seat
        buf = self.buf
        for v in range(n):
            row = buf[v]
            for c in game.hands[v]:
                row[off["hand"] + c] = 1.0
            for s in range(n):
                k = self.rel[v][s]
                row[off["seat_present"] + k] = 1.0
                row[off["seat_character"] + k * N_SUSPECTS + game.seat_suspect[s]] = 1.0
                row[off["hand_size"] + k] = len(game.hands[s]) / HAND_SCALE
        for room in game.board_cards:
            buf[:, off["board_rooms"] + room] = 1.0
        for sus in range(N_SUSPECTS):
            self._set_loc(sus, game.loc[sus])
        for w in range(N_WEAPONS):
            self._set_weapon(w, game.weapon_loc[w])
        self._sync_small()
        self.update()

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state.pop("_flat", None)  # a view of buf: rebuilt from the copy's own buf
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if "_turn_clear" in state:
            self._flat = self.buf.reshape(-1)

    # ------------------------------------------------------------------ pieces
    def _set_loc(self, suspect: int, node: int) -> None:
        # OFF_BOARD is -1: the last row of both tables is the off-board one
        o = self._loc_off + suspect * _LOC_W
        self.buf[:, o : o + _LOC_W] = self._loc_rows[node]
        seat = self._suspect_seat[suspect]
        if seat >= 0:
            o = self._dist_off
            self.buf[seat, o : o + N_ROOMS] = self._dist_rows[node]

    def _set_weapon(self, weapon: int, room: int) -> None:
        o = self.L.offset["weapon_loc"] + weapon * N_ROOMS
        b = self.buf
        b[:, o : o + N_ROOMS] = 0.0
        b[:, o + room] = 1.0

    def _sync_small(self) -> None:
        g = self.game
        phase = g.phase
        if phase != self._phase:
            self._phase = phase
            o = self._phase_off
            self.buf[:, o : o + self._n_phases] = self._phase_rows[phase]
        if g.pulled != self._pulled:  # a list against the copy last written (no tuple per step)
            pulled = self._pulled = list(g.pulled)
            o = self.L.offset["pulled"]
            self.buf[:, o : o + self.n] = np.array(pulled, dtype=np.float32)[self._perm]

    # ------------------------------------------------------------------ events
    def update(self) -> None:
        """Fold the engine's new events into the rows (call after every engine step)."""
        g = self.game
        log = g.log
        n = self.n
        b = self.buf
        off = self.L.offset
        for i in range(self._seen, len(log)):
            ev = log[i]
            # the event classes are final: an identity test of the type is the cheap dispatch
            # (and mypy narrows on it), most frequent first
            if type(ev) is Move:
                sus = ev.suspect
                node = ev.node
                self._set_loc(sus, node)
            elif type(ev) is EndTurn:
                continue
            elif type(ev) is Roll:
                total = ev.total
                dice = ev.dice
                o = off["roll"]
                b[:, o : o + _MAX_ROLL + 1] = self._roll_eye[min(total, _MAX_ROLL)]
                o = off["dice"]
                for k, face in enumerate(dice[:_MAX_DICE]):
                    if 1 <= face <= _FACES:
                        b[:, o + k * _FACES + face - 1] = 1.0
            elif type(ev) is Turn:
                # a new turn clears the current seat, the roll, the suggestion, the refuter, the
                # refuted card, the dice and the clue card (one fancy-indexed write), then marks
                # roll 0 and the current seat
                flat = self._flat
                flat[self._turn_clear] = 0.0
                b[:, self._turn_col] = ev.turn / g.cfg.max_turns
                flat[self._turn_set[ev.seat]] = 1.0
            elif type(ev) is Suggest:
                seat = ev.seat
                s = ev.suspect
                w = ev.weapon
                r = ev.room
                self._named = (s, WEAPON_BASE + w, ROOM_BASE + r)
                o = off["suggestion"]
                for v in range(n):
                    b[v, o + self.rel[v][seat]] = 1.0
                o += MAX_SEATS
                b[:, o + s] = 1.0
                b[:, o + N_SUSPECTS + w] = 1.0
                b[:, o + N_SUSPECTS + N_WEAPONS + r] = 1.0
            elif type(ev) is Pass:
                j = ev.seat
                o = off["passed"]
                for v in range(n):
                    if v != j:
                        base = o + (self.rel[v][j] - 1) * N_CARDS
                        for c in self._named:
                            b[v, base + c] = 1.0
            elif type(ev) is Show:
                j = ev.refuter
                sug = ev.suggester
                card = ev.card
                o = off["showed"]
                r0 = off["refuter"]
                for v in range(n):
                    k = self.rel[v][j]
                    b[v, r0 + k] = 1.0
                    if v != j:
                        base = o + (k - 1) * N_CARDS
                        for c in self._named:
                            b[v, base + c] = 1.0
                b[sug, off["shown_to_me"] + (self.rel[sug][j] - 1) * N_CARDS + card] = 1.0
                b[sug, off["refuted_card"] + card] = 1.0
                b[j, off["i_showed"] + (self.rel[j][sug] - 1) * N_CARDS + card] = 1.0
                b[j, off["refuted_card"] + card] = 1.0
            elif type(ev) is WeaponMoved:
                w = ev.weapon
                r = ev.room
                self._set_weapon(w, r)
            elif type(ev) is Accuse:
                seat = ev.seat
                s = ev.suspect
                w = ev.weapon
                r = ev.room
                correct = ev.correct
                o = off["accusations"]
                width = N_SUSPECTS + N_WEAPONS + N_ROOMS
                for v in range(n):
                    k = self.rel[v][seat]
                    base = o + k * width
                    b[v, base + s] = 1.0
                    b[v, base + N_SUSPECTS + w] = 1.0
                    b[v, base + N_SUSPECTS + N_WEAPONS + r] = 1.0
                    if not correct:
                        b[v, off["eliminated"] + k] = 1.0
            elif type(ev) is ClueCard:
                card = ev.card
                o = off["clue_card"]
                if card >= 0:
                    b[:, o + card] = 1.0
                b[:, o + N_CARDS] = 1.0
            elif type(ev) is Reveal:
                card = ev.card
                holder = ev.holder
                o = off["revealed"] + card * (MAX_SEATS + 1)
                for v in range(n):
                    b[v, o + (self.rel[v][holder] if holder != NOBODY else MAX_SEATS)] = 1.0
            elif type(ev) is Peek:
                seat = ev.seat
                card = ev.card
                b[seat, off["board_seen"] + card] = 1.0
        self._seen = len(log)
        self._sync_small()

    def observe(self, seat: int) -> np.ndarray:
        """A copy of seat ``seat``'s observation vector."""
        return self.buf[seat].copy()


if __name__ == "__main__":
    import sys

    print((LAYOUT_WITH_BELIEF if "--belief" in sys.argv else LAYOUT).table())
