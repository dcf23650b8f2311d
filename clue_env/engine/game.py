"""The rules engine: one game of Clue as a mutable position with explicit chance.

No gymnasium or pettingzoo here. A :class:`Game` holds the whole position (hidden cards
included); :meth:`Game.legal` lists what the acting seat may do and :meth:`Game.apply` plays an
:class:`~clue_env.engine.actions.Action`, raising :class:`IllegalActionError` (and changing
nothing) when it is not legal. Chance is explicit: the game never draws random numbers itself;
every draw (deal, weapons, first player, dice, Clue-card deck) goes through the
:class:`~clue_env.engine.chance.Chance` passed to :meth:`Game.setup` (the env's seeded one, or a
test's :class:`~clue_env.engine.chance.ScriptedChance`); ``next_rolls`` queued by a test come first.

Phases of a turn (R11, R13, R19-R22, R26-R28)::

    START   roll | passage (corner room) | stay (R21) | accuse
    MOVE    move R,C | enter ROOM | toward ROOM          (after a roll with a destination)
    SUGGEST suggest S W | accuse | end                   (after entering a room / passage / stay)
    REFUTE  show CARD                                    (acting seat: the refuter, R27)
    ACCUSE  accuse | end                                 (after moving, or after a suggestion)
    OVER

Everything that happens is appended to :attr:`Game.log` as a typed event
(:mod:`clue_env.engine.events`); the only private content is the card of a ``Show`` (the
refuter and the suggester see it, R27) and of a ``Peek`` (the player who looked, R30), and each
event type says how it is redacted (R31).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import NamedTuple

import numpy as np

from .actions import Action, Kind
from .board import OFF_BOARD, Board, classic_board
from .cards import (
    N_CARDS,
    N_ROOMS,
    N_SUSPECTS,
    N_WEAPONS,
    ROOM_BASE,
    SUSPECTS,
    WEAPON_BASE,
)
from .chance import Chance, as_chance
from .clue_cards import Effect, build_deck
from .config import RulesConfig
from .deal import Dealer
from .errors import ConfigError, IllegalActionError
from .events import (
    NOBODY,
    Accuse,
    ClueCard,
    EndTurn,
    Event,
    Forfeit,
    GameOver,
    Move,
    NoRefute,
    Pass,
    Peek,
    Reveal,
    Roll,
    Show,
    Stay,
    Suggest,
    Turn,
    WeaponMoved,
)

ENVELOPE = -1  # owner of a card in the envelope
BOARD = -2  # owner of a card lying face down in a room (2023 two-player game, R30)


class Phase(IntEnum):
    START = 0
    MOVE = 1
    SUGGEST = 2
    REFUTE = 3
    ACCUSE = 4
    OVER = 5


#: the enum members as module globals: ``Kind.ROLL`` is an attribute lookup on the enum class
#: (~70 ns, measured), a global is not, and apply/is_legal/legal compare several at every step
_K_ACCUSE = Kind.ACCUSE
_K_END = Kind.END
_K_ENTER = Kind.ENTER
_K_MOVE = Kind.MOVE
_K_PASSAGE = Kind.PASSAGE
_K_ROLL = Kind.ROLL
_K_SHOW = Kind.SHOW
_K_STAY = Kind.STAY
_K_SUGGEST = Kind.SUGGEST
_K_TOWARD = Kind.TOWARD
_P_ACCUSE = Phase.ACCUSE
_P_MOVE = Phase.MOVE
_P_OVER = Phase.OVER
_P_REFUTE = Phase.REFUTE
_P_START = Phase.START
_P_SUGGEST = Phase.SUGGEST


class Legal(NamedTuple):
    """What the acting seat may do now (see :meth:`Game.legal`)."""

    roll: bool = False
    passage: bool = False
    stay: bool = False
    end: bool = False
    squares: tuple[int, ...] = ()
    rooms: tuple[int, ...] = ()
    suggest: bool = False
    show: tuple[int, ...] = ()
    accuse: bool = False

    @property
    def toward(self) -> bool:
        return bool(self.squares or self.rooms)


_NO_LEGAL = Legal()
#: the legal sets made of flags alone, built once (most positions have one of them)
_START_LEGAL = {
    (passage, stay, accuse): Legal(roll=True, passage=passage, stay=stay, accuse=accuse)
    for passage in (False, True)
    for stay in (False, True)
    for accuse in (False, True)
}
_ROLL_ONLY = Legal(roll=True)
_SUGGEST_LEGAL = {accuse: Legal(suggest=True, end=True, accuse=accuse) for accuse in (False, True)}
_ACCUSE_LEGAL = {accuse: Legal(end=True, accuse=accuse) for accuse in (False, True)}


class Game:
    """One game of Clue. Seats ``0..n-1`` sit clockwise; seat ``i`` plays ``characters[i]``."""

    def __init__(self, config: RulesConfig, num_players: int, board: Board | None = None) -> None:
        if isinstance(num_players, bool) or not isinstance(num_players, int):
            raise ConfigError(f"num_players must be an integer, got {num_players!r}")
        if not config.min_players <= num_players <= config.max_players:
            raise ConfigError(
                f"num_players={num_players} is out of range for the {config.name!r} rules "
                f"({config.min_players}-{config.max_players}, R9)"
            )
        self.cfg = config
        self.n = num_players
        self.board = board or classic_board()
        chars = config.seat_characters(num_players)
        self.seat_suspect: tuple[int, ...] = tuple(SUSPECTS.index(c) for c in chars)
        self.suspect_seat: tuple[int, ...] = tuple(
            self.seat_suspect.index(s) if s in self.seat_suspect else -1 for s in range(N_SUSPECTS)
        )
        #: where every random draw comes from (set by :meth:`setup`; the env passes its seeded one)
        self.chance: Chance | None = None
        #: rolls queued by a test, used before ``chance`` is asked
        self.next_rolls: list[tuple[int, ...]] = []
        self._clear()

    # ------------------------------------------------------------------ setup
    def _clear(self) -> None:
        n = self.n
        self.owner: list[int] = [ENVELOPE] * N_CARDS
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.envelope: tuple[int, int, int] = (0, 0, 0)  # suspect, weapon, room indices
        self.loc: list[int] = [OFF_BOARD] * N_SUSPECTS
        self.weapon_loc: list[int] = [0] * N_WEAPONS
        self.phase = _P_START
        self.current = 0
        self.acting = 0
        self.turn = 0
        self.roll_total = 0
        self.dice: tuple[int, ...] = ()
        self.eliminated: list[bool] = [False] * n
        self.pulled: list[bool] = [False] * n  # R21
        self.start_room = -1
        self.dests: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
        self.pending: tuple[int, int, int, int] | None = None  # suggester, suspect, weapon, room
        self.refute_cards: tuple[int, ...] = ()
        self.winner = -1
        self.truncated = False
        self.over_reason = ""
        self.log: list[Event] = []
        self.board_cards: dict[int, int] = {}  # room -> card lying face down there (R30)
        self.clue_deck: list[Effect] = []  # top first (R24)
        self.rewards: list[float] = [0.0] * n  # rewards produced by the last apply()
        self.rewarded = False  # whether the last apply() produced any reward
        self._legal: Legal | None = None

    def setup(
        self,
        chance: Chance | np.random.Generator,
        envelope: Iterable[str] | None = None,
        hands: dict[int, Iterable[str]] | None = None,
        board_cards: dict[str, str] | None = None,
    ) -> None:
        """Deal (R5-R6, R30), place tokens (R7) and weapons (R8), pick the first player (R10).

        ``chance`` is a :class:`~clue_env.engine.chance.Chance` (a ``numpy.random.Generator`` is
        wrapped in :class:`~clue_env.engine.chance.RandomChance`); every later roll of the dice
        draws from it too. ``envelope`` / ``hands`` / ``board_cards`` fix
        the deal (card ids; ``board_cards`` maps rooms to the cards lying face down there in the
        2023 two-player game) and are validated as a partition of the 21 cards
        (:class:`InvalidDealError`).
        """
        chance = as_chance(chance)
        env_cards, hand_cards, board = Dealer(self.n, self.cfg).deal(chance, envelope, hands, board_cards)
        self.chance = chance
        self._clear()
        self.board_cards = board
        for c in board.values():
            self.owner[c] = BOARD
        s, w, r = env_cards
        self.envelope = (s, w - WEAPON_BASE, r - ROOM_BASE)
        for seat, cards in enumerate(hand_cards):
            self.hands[seat] = sorted(cards)
            for c in cards:
                self.owner[c] = seat
        # R24: the Clue-card deck, shuffled face down.
        if self.cfg.clue_cards:
            deck = build_deck(self.cfg.clue_deck)
            self.clue_deck = [deck[int(i)] for i in chance.permutation(len(deck))]
        # R8: weapons at random in distinct rooms.
        rooms = chance.permutation(N_ROOMS)[:N_WEAPONS]
        self.weapon_loc = [int(x) for x in rooms]
        # R7: tokens on their start squares.
        for sus in range(N_SUSPECTS):
            if self.cfg.tokens_on_board == "all" or self.suspect_seat[sus] >= 0:
                self.loc[sus] = self.board.start_node[sus]
        # R10: first player.
        if self.cfg.first_player == "highest_roll":
            contenders = list(range(self.n))
            while len(contenders) > 1:
                rolls = [chance.die(self.cfg.die_faces) for _ in contenders]
                top = max(rolls)
                contenders = [seat for seat, v in zip(contenders, rolls) if v == top]
            first = contenders[0]
        else:
            first = min(range(self.n), key=lambda seat: self.seat_suspect[seat])
        self._begin_turn(first)

    def place_token(self, suspect: int, node: int) -> None:
        """Put a suspect token on ``node`` (a room or a hallway square); for tests and setups."""
        if node != OFF_BOARD and not 0 <= node < self.board.n_nodes:
            raise ValueError(f"no such board node {node}")
        if node >= N_ROOMS:
            for t in range(N_SUSPECTS):
                if t != suspect and self.loc[t] == node:
                    raise ValueError(f"square {self.board.describe(node)} already holds {SUSPECTS[t]}")
        self.loc[suspect] = node
        self._turn_start_refresh()

    def place_tokens(self, layout: dict[int, int]) -> None:
        """Move several tokens at once (``{suspect: node}``); the final layout is what is checked,
        so two tokens may swap squares. A played character's token stays on the board (R7) and a
        hallway square holds one token (R18); a refused layout changes nothing."""
        final = list(self.loc)
        for sus, node in layout.items():
            if node != OFF_BOARD and not 0 <= node < self.board.n_nodes:
                raise ValueError(f"no such board node {node}")
            if node == OFF_BOARD and self.suspect_seat[sus] >= 0:
                raise ValueError(
                    f"{SUSPECTS[sus]} is played by player_{self.suspect_seat[sus]}, so its token must be on the board (R7)"
                )
            final[sus] = node
        squares = [n for n in final if n >= N_ROOMS]
        if len(squares) != len(set(squares)):
            clash = sorted({self.board.describe(n) for n in squares if squares.count(n) > 1})
            raise ValueError(f"two tokens on one hallway square {clash} (R18)")
        self.loc = final
        self._turn_start_refresh()

    def place_weapon(self, weapon: int, room: int) -> None:
        if not 0 <= room < N_ROOMS:
            raise ValueError(f"weapons stand in rooms; {room} is not a room")
        self.weapon_loc[weapon] = room

    def _turn_start_refresh(self) -> None:
        if self.phase == _P_START:
            my = self.loc[self.seat_suspect[self.current]]
            self.start_room = my if 0 <= my < N_ROOMS else -1
        self._legal = None

    # ------------------------------------------------------------------ queries
    @property
    def over(self) -> bool:
        return self.phase == _P_OVER

    def token_of(self, seat: int) -> int:
        return self.loc[self.seat_suspect[seat]]

    def in_room(self, seat: int) -> bool:
        return 0 <= self.loc[self.seat_suspect[seat]] < N_ROOMS

    def can_accuse(self, seat: int) -> bool:
        """R28: not eliminated; ``accuse_anywhere`` or the token is in a room."""
        return not self.eliminated[seat] and (self.cfg.accuse_anywhere or self.in_room(seat))

    def legal(self) -> Legal:
        """What the acting seat may do now (cached until the position changes)."""
        lg = self._legal
        if lg is None:
            lg = self._legal = self._compute_legal()
        return lg

    def _compute_legal(self) -> Legal:
        ph = self.phase
        seat = self.current
        if ph == _P_START:
            if self.cfg.roll_first:  # R12: the 2023 turn begins with the roll
                return _ROLL_ONLY
            my = self.loc[self.seat_suspect[seat]]
            passage = 0 <= my < N_ROOMS and self.board.passage[my] >= 0
            return _START_LEGAL[passage, self._may_stay(seat), self.can_accuse(seat)]
        if ph == _P_MOVE:
            sq, rm = self.dests
            if not self.cfg.roll_first:
                return Legal(squares=sq, rooms=rm)
            # R12/R16/R20/R22 (2023): move up to the roll, or stay, or take the passage, or not
            here = self.start_room
            return Legal(
                squares=sq,
                rooms=rm,
                stay=self._may_stay(seat),
                passage=here >= 0 and self.board.passage[here] >= 0,
                end=True,
                accuse=self.can_accuse(seat),
            )
        if ph == _P_SUGGEST:
            return _SUGGEST_LEGAL[self.can_accuse(seat)]
        if ph == _P_REFUTE:
            return Legal(show=self.refute_cards)
        if ph == _P_ACCUSE:
            return _ACCUSE_LEGAL[self.can_accuse(seat)]
        return _NO_LEGAL

    def _may_stay(self, seat: int) -> bool:
        if not self.in_room(seat):
            return False
        if self.pulled[seat]:  # R21
            return True
        return self.cfg.repeat_suggestion == "stay"  # R22, 2023

    def is_legal(self, action: Action) -> bool:
        lg = self.legal()
        k = action.kind
        if k == _K_ROLL:
            return lg.roll
        if k == _K_PASSAGE:
            return lg.passage
        if k == _K_STAY:
            return lg.stay
        if k == _K_END:
            return lg.end
        if k == _K_MOVE:
            return action.a in lg.squares
        if k == _K_ENTER:
            return action.a in lg.rooms
        if k == _K_TOWARD:
            return lg.toward and 0 <= action.a < N_ROOMS
        if k == _K_SUGGEST:
            return lg.suggest and 0 <= action.a < N_SUSPECTS and 0 <= action.b < N_WEAPONS
        if k == _K_SHOW:
            return action.a in lg.show
        if k == _K_ACCUSE:
            return lg.accuse and 0 <= action.a < N_SUSPECTS and 0 <= action.b < N_WEAPONS and 0 <= action.c < N_ROOMS
        return False

    def legal_actions(self) -> list[Action]:
        """Every legal action, expanded (slow; for tests, tools and agents)."""
        lg = self.legal()
        out: list[Action] = []
        if lg.roll:
            out.append(Action(_K_ROLL))
        if lg.passage:
            out.append(Action(_K_PASSAGE))
        if lg.stay:
            out.append(Action(_K_STAY))
        if lg.end:
            out.append(Action(_K_END))
        out += [Action(_K_MOVE, s) for s in lg.squares]
        out += [Action(_K_ENTER, r) for r in lg.rooms]
        if lg.toward:
            out += [Action(_K_TOWARD, r) for r in range(N_ROOMS)]
        if lg.suggest:
            out += [Action(_K_SUGGEST, s, w) for s in range(N_SUSPECTS) for w in range(N_WEAPONS)]
        out += [Action(_K_SHOW, c) for c in lg.show]
        if lg.accuse:
            out += [Action(_K_ACCUSE, s, w, r) for s in range(N_SUSPECTS) for w in range(N_WEAPONS) for r in range(N_ROOMS)]
        return out

    def blocked_squares(self, seat: int) -> set[int]:
        """Hallway squares holding tokens other than ``seat``'s (R18)."""
        loc = self.loc
        out = {node for node in loc if node >= N_ROOMS}
        out.discard(loc[self.seat_suspect[seat]])  # no two tokens share a hallway square (R18)
        return out

    def toward_target(self, room: int) -> int:
        sq, rm = self.dests
        return self.board.toward(room, sq, rm)

    # ------------------------------------------------------------------ playing
    def apply(self, action: Action) -> None:
        """Play ``action`` for the acting seat; illegal actions raise and change nothing."""
        if self.phase == _P_OVER:
            raise IllegalActionError(f"the game is over; no action is legal ({action})", action=action)
        if not self.is_legal(action):
            raise IllegalActionError(
                f"action {action.to_text(self.board)!r} is not legal for seat {self.acting} in phase {self.phase.name}",
                action=action,
            )
        if self.rewarded:
            self.rewards = [0.0] * self.n
            self.rewarded = False
        self._legal = None
        k = action.kind
        seat = self.current
        if k == _K_ROLL:
            self._roll(seat)
        elif k == _K_PASSAGE:
            dest = self.board.passage[self.token_of(seat)]
            self._move_token(seat, self.seat_suspect[seat], dest, "passage")
            self.dests = ((), ())
            self._peek(seat, dest)
            self.phase = _P_SUGGEST
        elif k == _K_STAY:
            self.log.append(Stay(seat))
            self.dests = ((), ())
            self.phase = _P_SUGGEST
        elif k == _K_MOVE or k == _K_ENTER:
            self._finish_move(seat, action.a)
        elif k == _K_TOWARD:
            self._finish_move(seat, self.toward_target(action.a))
        elif k == _K_SUGGEST:
            self._suggest(seat, action.a, action.b)
        elif k == _K_SHOW:
            self.log.append(Show(self.acting, seat, action.a))
            self.pending = None
            self.refute_cards = ()
            self.phase = _P_ACCUSE
            self.acting = seat
        elif k == _K_ACCUSE:
            self._accuse(seat, action.a, action.b, action.c)
        elif k == _K_END:
            self._end_turn(seat)

    def _roll(self, seat: int) -> None:
        cfg = self.cfg
        if self.next_rolls:
            dice = tuple(self.next_rolls.pop(0))
        elif self.chance is not None:
            dice = self.chance.dice(cfg.num_dice, cfg.die_faces)
        else:
            raise RuntimeError("Game.chance is not set: call setup() first (chance must come from the env's generator)")
        total = sum(dice)  # R23: a magnifying glass (face 1) counts as one
        self.dice = dice
        self.roll_total = total
        self.log.append(Roll(seat, total, dice))
        if cfg.clue_cards and cfg.magnifying_glass and 1 in dice and self.clue_deck:
            self._draw_clue_card(seat)  # R24: one card even if both dice show the glass
        start = self.token_of(seat)
        self.dests = self.board.destinations(start, total, self.blocked_squares(seat), cfg.full_roll, self.start_room)
        if self.dests[0] or self.dests[1] or cfg.roll_first:
            self.phase = _P_MOVE
        else:  # R16: no legal destination, the move is forfeited
            self.log.append(Forfeit(seat))
            self.phase = _P_ACCUSE

    def _draw_clue_card(self, seat: int) -> None:
        eff = self.clue_deck.pop(0)
        self.clue_deck.append(eff)  # R24: back to the bottom of the deck
        self.log.append(ClueCard(seat, eff.kind, eff.card))
        if eff.kind == "reveal":  # R25
            holder = self.owner[eff.card]
            self.log.append(Reveal(seat, eff.card, holder if holder >= 0 else NOBODY))

    def _finish_move(self, seat: int, dest: int) -> None:
        self._move_token(seat, self.seat_suspect[seat], dest, "move")
        self.dests = ((), ())
        if dest < N_ROOMS:
            self._peek(seat, dest)
            self.phase = _P_SUGGEST
        else:
            self.phase = _P_ACCUSE

    def _peek(self, seat: int, room: int) -> None:
        """R30: a token entering a room with a face-down card (by its own move, a passage or being
        pulled in by a suggestion): its player looks at the card privately."""
        card = self.board_cards.get(room)
        if card is not None:
            self.log.append(Peek(seat, room, card))

    def _move_token(self, seat: int, suspect: int, dest: int, cause: str) -> None:
        self.loc[suspect] = dest
        self.log.append(Move(seat, suspect, dest, cause))

    def _suggest(self, seat: int, s: int, w: int) -> None:
        room = self.token_of(seat)
        self.log.append(Suggest(seat, s, w, room))
        # R26: both tokens move into the room and stay there.
        if self.loc[s] != room:
            self._move_token(seat, s, room, "suggest")
            victim = self.suspect_seat[s]
            if victim >= 0 and victim != seat:
                self.pulled[victim] = True  # R21
                self._peek(victim, room)  # R30: the token enters the room
        if self.weapon_loc[w] != room:
            self.weapon_loc[w] = room
            self.log.append(WeaponMoved(seat, w, room))
        # R27: clockwise refutation; eliminated players still refute.
        named = (s, WEAPON_BASE + w, ROOM_BASE + room)
        owner = self.owner
        for step in range(1, self.n):
            j = (seat + step) % self.n
            held = tuple(sorted(c for c in named if owner[c] == j))
            if held:
                self.pending = (seat, s, w, room)
                self.refute_cards = held
                self.phase = _P_REFUTE
                self.acting = j
                return
            self.log.append(Pass(j, seat))
        self.log.append(NoRefute(seat))
        self.phase = _P_ACCUSE

    def _accuse(self, seat: int, s: int, w: int, r: int) -> None:
        correct = (s, w, r) == self.envelope
        self.log.append(Accuse(seat, s, w, r, correct))
        cfg = self.cfg
        if correct:
            self._game_over(seat, "accusation")
            return
        # R28: out of the game; a token blocking a door moves into that room.
        self.eliminated[seat] = True
        self.rewards[seat] += cfg.reward_wrong_accusation
        self.rewarded = True
        my = self.token_of(seat)
        if my >= N_ROOMS and self.board.door_rooms[my]:
            self._move_token(seat, self.seat_suspect[seat], self.board.door_rooms[my][0], "eliminated")
        alive = [i for i in range(self.n) if not self.eliminated[i]]
        if not alive:  # R29 (2023): every player accused wrongly
            self._game_over(-1, "all_eliminated")
        elif len(alive) == 1 and cfg.last_player_standing:  # R29 classic
            self._game_over(alive[0], "last_player_standing")
        else:
            self._end_turn(seat)

    def _end_turn(self, seat: int) -> None:
        self.log.append(EndTurn(seat))
        self.pulled[seat] = False
        nxt = seat
        for _ in range(self.n):
            nxt = (nxt + 1) % self.n
            if not self.eliminated[nxt]:
                break
        self._begin_turn(nxt)

    def _begin_turn(self, seat: int) -> None:
        if self.turn >= self.cfg.max_turns:  # R15
            self.truncated = True
            self._game_over(-1, "max_turns")
            return
        self.turn += 1
        self.current = self.acting = seat
        self.phase = _P_START
        self.roll_total = 0
        self.dice = ()
        self.dests = ((), ())
        my = self.token_of(seat)
        self.start_room = my if 0 <= my < N_ROOMS else -1
        self._legal = None
        self.log.append(Turn(seat, self.turn))

    def _game_over(self, winner: int, reason: str) -> None:
        cfg = self.cfg
        self.winner = winner
        self.over_reason = reason
        self.phase = _P_OVER
        self.acting = -1
        self.pending = None
        self._legal = None
        self.rewarded = True
        for i in range(self.n):
            if i == winner:
                self.rewards[i] += cfg.reward_win
            elif not self.eliminated[i]:
                self.rewards[i] += cfg.reward_lose if winner >= 0 else cfg.reward_draw
        self.log.append(GameOver(winner, reason))

    # ------------------------------------------------------------------ views
    def seat_name(self, seat: int) -> str:
        return f"player_{seat} ({self.cfg.display(SUSPECTS[self.seat_suspect[seat]])})"


def redact(ev: Event, viewer: int) -> Event:
    """The event as seat ``viewer`` sees it (R31): ``ev.redacted(viewer)``."""
    return ev.redacted(viewer)
