"""Drawing a game: the board as text (``ansi``/``human``) and as a picture (``rgb_array``).

Only public information is drawn (R31): positions, the turn, the seats, hand sizes, the dice,
the public log (a shown card is never named, nor the card a player looked at in a room, R30),
Clue cards drawn and what they revealed to all (R24-R25), which rooms hold a face-down card in
the two-player 2023 game (not which card) and, once the game is over, the opened envelope and
the face-down cards. Never a hand, never the envelope or a face-down card before the end.
Names are the ruleset's display names (``game.cfg.display``: Chef White, Mayor Green, Solicitor
Peacock under ``edition2023``).

Text board: ``#`` out of bounds / centre, ``.`` hallway, capital letters room squares,
lowercase letters room squares with a door, digits ``1``-``6`` suspect tokens on hallway
squares (suspects in card order); tokens and weapons inside rooms are listed beside the board,
with ``[face-down card]`` after a room that holds one (R30). A die showing the magnifying glass
(face 1 when ``cfg.magnifying_glass``, R23) is written ``glass``: ``dice [glass, 5] = 6``.

Picture: rooms with walls and doors (orange bars), room names, weapons as labelled chips and
tokens as numbered discs inside their room, tokens on hallway squares, start squares ringed in
the suspect's colour, secret passages marked, a card back in each room holding a face-down card
(turned face up once the game is over), and a side panel with the ruleset, the turn, the dice
(a magnifying glass drawn for face 1), the seats, the Clue card drawn this turn and the last
public log lines.
"""

from ..engine.wording import OVER_REASONS, result_text
from .picture import (
    CARD_BACK,
    CELL,
    HALL,
    MARGIN,
    PANEL_WIDTH,
    TOKEN_COLORS,
    card_back_box,
    render_rgb,
    square_box,
    square_center,
)
from .status import clue_card_lines, dice_text, public_line
from .text import ROOM_LETTERS, TOKEN_CHARS, render_text

__all__ = [
    "CELL",
    "MARGIN",
    "OVER_REASONS",
    "PANEL_WIDTH",
    "ROOM_LETTERS",
    "TOKEN_CHARS",
    "CARD_BACK",
    "HALL",
    "TOKEN_COLORS",
    "card_back_box",
    "clue_card_lines",
    "dice_text",
    "public_line",
    "render_rgb",
    "render_text",
    "result_text",
    "square_box",
    "square_center",
]
