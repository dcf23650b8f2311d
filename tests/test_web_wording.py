"""How the browser's news and log word events for a seat (``clue_env.play.web.news_feed``): the
character's names, never a seat id; a card shown, revealed or looked at always "the ... card";
a walk that ends on a hallway square never reads like the Hall room; the end of the game as a
sentence. Pure Python: no server, no browser."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from clue_env.engine.board import classic_board
from clue_env.engine.cards import N_ROOMS, ROOM_BASE, ROOMS, SUSPECTS, WEAPON_BASE, WEAPONS
from clue_env.engine.config import load_rules
from clue_env.engine.events import GameOver, Move, Peek, Reveal, Show
from clue_env.play.web.news_feed import Namer, event_entry

BOARD = classic_board()
CFG = load_rules("classic")


def namer(seat: int = 0) -> Namer:
    view = SimpleNamespace(seat=seat, characters=(0, 1, 2, 3))  # Miss Scarlet, Col. Mustard, Mrs. White, Mr. Green
    return Namer(view, CFG)  # type: ignore[arg-type]


def text(ev: object, seat: int = 0) -> str:
    entry = event_entry(ev, namer(seat), BOARD)  # type: ignore[arg-type]
    assert entry is not None
    return str(entry["text"])


CARD_CASES = [
    (SUSPECTS.index("mustard"), "Colonel Mustard"),
    (WEAPON_BASE + WEAPONS.index("rope"), "Rope"),
    (ROOM_BASE + ROOMS.index("dining_room"), "Dining Room"),
]


@pytest.mark.parametrize(("card", "name"), CARD_CASES)
def test_a_card_shown_reads_the_name_card_for_every_kind_of_card(card: int, name: str) -> None:
    assert text(Show(refuter=0, suggester=2, card=card)) == f"You showed the {name} card to Mrs. White"
    assert text(Show(refuter=2, suggester=0, card=card)) == f"Mrs. White showed you the {name} card"
    assert text(Reveal(seat=1, card=card, holder=2)) == f"Mrs. White reveals the {name} card to everyone"
    assert text(Reveal(seat=1, card=card, holder=-1)) == f"Nobody holds the {name} card"
    assert text(Peek(seat=0, room=ROOMS.index("hall"), card=card)) == f"You look at the card in the Hall: the {name} card"


def test_a_walk_to_a_hallway_square_does_not_read_like_the_hall_room() -> None:
    hall = ROOMS.index("hall")
    squares = [  # the squares nearer the Hall than any other room
        n
        for n in range(N_ROOMS, BOARD.n_nodes)
        if all(BOARD.dist_to_room[n][hall] < d for r, d in enumerate(BOARD.dist_to_room[n]) if r != hall)
    ]
    assert squares
    for node in squares[:20]:
        line = text(Move(seat=1, suspect=1, node=node, cause="move"))
        assert line.startswith("Colonel Mustard moves along the corridor, "), line
        assert line.endswith(" from the Hall"), line
        before_room = line.rsplit(" the Hall", 1)[0]
        assert "hall" not in before_room.lower(), line
    assert text(Move(seat=0, suspect=0, node=squares[0], cause="move")).startswith("You move along the corridor, ")


@pytest.mark.parametrize(
    ("winner", "reason", "want"),
    [
        (0, "accusation", "Game over: Miss Scarlet wins with a correct accusation"),
        (3, "accusation", "Game over: you win with a correct accusation"),
        (2, "last_player_standing", "Game over: Mrs. White wins as the last player standing"),
        (-1, "all_eliminated", "Game over: nobody wins; every player accused wrongly and the murderer escapes"),
        (-1, "max_turns", "Game over: nobody wins; the turn limit was reached"),
    ],
)
def test_the_end_of_the_game_reads_as_a_sentence_naming_the_character(winner: int, reason: str, want: str) -> None:
    line = text(GameOver(winner=winner, reason=reason), seat=3)
    assert line == want
    assert "player_" not in line and "(" not in line and not re.search(r"\bwins \(", line)
