"""Dealing the cards (R5, R6, R30), with the deal a reset may fix, validated.

:class:`Dealer` puts one card of each kind in the envelope (R5), deals the rest one at a time
clockwise from seat 0 (R6) and, in the 2023 two-player game, lays some dealt cards face down in
random rooms instead (R30). A fixed deal (card ids) must be a partition of the 21 cards;
anything else raises :class:`InvalidDealError` saying what is wrong.
"""

from __future__ import annotations

from collections.abc import Iterable

from .cards import CARDS, N_CARDS, N_ROOMS, N_SUSPECTS, N_WEAPONS, ROOM_BASE, WEAPON_BASE, card_index
from .chance import Chance
from .config import RulesConfig
from .errors import InvalidDealError


class Dealer:
    """Deals for ``n`` players under ``cfg``; all chance comes from the ``Chance`` passed in."""

    def __init__(self, n: int, cfg: RulesConfig) -> None:
        self.n = n
        self.cfg = cfg

    def board_count(self) -> int:
        return self.cfg.two_player_board_cards if self.n == 2 else 0

    def parse_board(self, board_cards: dict[str, str] | None) -> dict[int, int] | None:
        if board_cards is None:
            return None
        k = self.board_count()
        if not isinstance(board_cards, dict):
            raise InvalidDealError(f"board_cards must map rooms to cards, got {board_cards!r}")
        if len(board_cards) != k:
            raise InvalidDealError(
                f"board_cards must place exactly {k} card(s) for {self.n} players under the {self.cfg.name!r} rules "
                f"(R30: only the two-player game has cards on the board), got {len(board_cards)}"
            )
        out: dict[int, int] = {}
        for room, cid in board_cards.items():
            try:
                r = card_index(room, "room") - ROOM_BASE
                c = card_index(cid)
            except (ValueError, TypeError) as e:
                raise InvalidDealError(f"bad board_cards entry {room!r}: {cid!r}: {e}") from None
            if c in out.values():
                raise InvalidDealError(f"card {cid!r} lies on the board twice")
            out[r] = c
        return out

    def deal(
        self,
        chance: Chance,
        envelope: Iterable[str] | None,
        hands: dict[int, Iterable[str]] | None,
        board_cards: dict[str, str] | None = None,
    ) -> tuple[tuple[int, int, int], list[list[int]], dict[int, int]]:
        """(envelope cards, each seat's cards, {room: face-down card}), fixed parts validated."""
        board = self.parse_board(board_cards)
        k = self.board_count()
        env_cards, hand_cards = self.deal_cards(chance, envelope, hands, board)
        if board is None:
            board = {}
            if k:
                placed = set(env_cards) | {c for h in hand_cards for c in h}
                if hands is not None:
                    loose = [c for c in range(N_CARDS) if c not in placed]
                else:  # R30: k of the dealt cards go face down into k random rooms instead
                    pool = [c for h in hand_cards for c in h]
                    loose = [pool[int(i)] for i in chance.permutation(len(pool))[:k]]
                    hand_cards = self.deal_rest(chance, [c for c in pool if c not in loose])
                rooms = chance.permutation(N_ROOMS)[: len(loose)]
                board = {int(r): c for r, c in zip(rooms, sorted(loose))}
        return env_cards, hand_cards, board

    def deal_rest(self, chance: Chance, cards: list[int]) -> list[list[int]]:
        order = chance.permutation(len(cards))
        hand_cards: list[list[int]] = [[] for _ in range(self.n)]
        for i, j in enumerate(order):
            hand_cards[i % self.n].append(cards[int(j)])  # R6: one at a time, clockwise from seat 0
        return hand_cards

    def deal_cards(
        self, chance: Chance, envelope: Iterable[str] | None, hands: dict[int, Iterable[str]] | None, board: dict[int, int] | None
    ) -> tuple[tuple[int, int, int], list[list[int]]]:
        n = self.n
        on_board = set(board.values()) if board else set()
        expect_loose = self.board_count() if board is None else 0
        if envelope is not None:
            env_ids = list(envelope) if not isinstance(envelope, str) else [envelope]
            if len(env_ids) != 3:
                raise InvalidDealError(f"envelope must be [suspect, weapon, room], got {env_ids!r}")
            try:
                env_cards = (
                    card_index(env_ids[0], "suspect"),
                    card_index(env_ids[1], "weapon"),
                    card_index(env_ids[2], "room"),
                )
            except ValueError as e:
                raise InvalidDealError(f"bad envelope {env_ids!r}: {e}") from None
        else:
            env_cards = None
        if hands is not None:
            if set(hands) != set(range(n)):
                raise InvalidDealError(
                    f"hands must give a hand for every seat 0..{n - 1} (player_0..player_{n - 1}), got seats {sorted(hands)}"
                )
            hand_cards: list[list[int]] = []
            seen: dict[int, str] = {}
            for seat in range(n):
                cards = hands[seat]
                if isinstance(cards, str) or not isinstance(cards, Iterable):
                    raise InvalidDealError(f"hand of player_{seat} must be a list of card ids, got {cards!r}")
                row = []
                for cid in cards:
                    try:
                        c = card_index(cid)
                    except (ValueError, TypeError):
                        raise InvalidDealError(f"hand of player_{seat}: unknown card {cid!r}") from None
                    if c in seen:
                        raise InvalidDealError(f"card {cid!r} is dealt twice ({seen[c]} and player_{seat})")
                    if c in on_board:
                        raise InvalidDealError(f"card {cid!r} is both in player_{seat}'s hand and on the board")
                    seen[c] = f"player_{seat}"
                    row.append(c)
                hand_cards.append(row)
            rest = [c for c in range(N_CARDS) if c not in seen and c not in on_board]
            if env_cards is None:
                kinds = sorted(rest)
                if expect_loose:
                    raise InvalidDealError("with hands in a two-player 2023 game, give the envelope too (R30)")
                if len(rest) != 3 or not (kinds[0] < WEAPON_BASE <= kinds[1] < ROOM_BASE <= kinds[2]):
                    raise InvalidDealError(
                        "the cards left out of the hands must be exactly one suspect, one weapon and one "
                        f"room (the envelope), got {[CARDS[c] for c in rest]}"
                    )
                env_cards = (kinds[0], kinds[1], kinds[2])
            else:
                dup = [CARDS[c] for c in env_cards if c in seen or c in on_board]
                if dup:
                    raise InvalidDealError(f"envelope card(s) {dup} are also in a hand or on the board")
                missing = [CARDS[c] for c in rest if c not in env_cards]
                if len(missing) != expect_loose:
                    raise InvalidDealError(
                        f"cards {missing} are neither in a hand nor in the envelope"
                        if not expect_loose
                        else f"{expect_loose} cards must be left for the board (R30), got {missing}"
                    )
            # R6: dealt one at a time clockwise from seat 0, so sizes differ by at most one, the
            # first seats holding the extra cards
            dealt = N_CARDS - 3 - self.board_count()
            want = [dealt // n + (1 if seat < dealt % n else 0) for seat in range(n)]
            got = [len(r) for r in hand_cards]
            if got != want:
                raise InvalidDealError(
                    f"hand sizes {got} are not a deal of {dealt} cards to {n} players one at a time (R6): they must be {want}"
                )
            return env_cards, hand_cards
        if env_cards is None:  # R5: one of each kind, from the cards not fixed on the board
            pools = [
                [c for c in range(lo, lo + size) if c not in on_board]
                for lo, size in ((0, N_SUSPECTS), (WEAPON_BASE, N_WEAPONS), (ROOM_BASE, N_ROOMS))
            ]
            if any(not p for p in pools):
                raise InvalidDealError("board_cards leave no card of some kind for the envelope")
            env_cards = tuple(p[chance.index(len(p))] for p in pools)  # type: ignore[assignment]
        assert env_cards is not None
        if any(c in on_board for c in env_cards):
            raise InvalidDealError("an envelope card is also on the board")
        rest = [c for c in range(N_CARDS) if c not in env_cards and c not in on_board]
        return env_cards, self.deal_rest(chance, rest)
