"""The 21 cards of Clue (R1): ids, kinds and flat card indices.

Cards are identified by snake_case ids everywhere (configs, text actions, reset options,
logs). Internally a card is an int in ``0..20``: suspects ``0..5``, weapons ``6..11``,
rooms ``12..20``, each kind in the order below. A suspect, weapon or room *index* is the
position within its own kind (``0..5`` / ``0..5`` / ``0..8``).
"""

from __future__ import annotations

SUSPECTS: tuple[str, ...] = ("scarlet", "mustard", "white", "green", "peacock", "plum")
WEAPONS: tuple[str, ...] = ("candlestick", "dagger", "lead_pipe", "revolver", "rope", "wrench")
ROOMS: tuple[str, ...] = (
    "kitchen",
    "ballroom",
    "conservatory",
    "dining_room",
    "billiard_room",
    "library",
    "lounge",
    "hall",
    "study",
)
CARDS: tuple[str, ...] = SUSPECTS + WEAPONS + ROOMS

N_SUSPECTS = len(SUSPECTS)
N_WEAPONS = len(WEAPONS)
N_ROOMS = len(ROOMS)
N_CARDS = len(CARDS)

SUSPECT_BASE = 0
WEAPON_BASE = N_SUSPECTS
ROOM_BASE = N_SUSPECTS + N_WEAPONS

CARD_INDEX: dict[str, int] = {c: i for i, c in enumerate(CARDS)}

#: Kind of each card: 0 suspect, 1 weapon, 2 room.
KIND_OF_CARD: tuple[int, ...] = (0,) * N_SUSPECTS + (1,) * N_WEAPONS + (2,) * N_ROOMS
KIND_NAMES: tuple[str, ...] = ("suspect", "weapon", "room")

#: Default display names (R1, classic). Rulesets may override suspects' names.
DEFAULT_DISPLAY: dict[str, str] = {
    "scarlet": "Miss Scarlet",
    "mustard": "Colonel Mustard",
    "white": "Mrs. White",
    "green": "Mr. Green",
    "peacock": "Mrs. Peacock",
    "plum": "Professor Plum",
    "candlestick": "Candlestick",
    "dagger": "Dagger",
    "lead_pipe": "Lead Pipe",
    "revolver": "Revolver",
    "rope": "Rope",
    "wrench": "Wrench",
    "kitchen": "Kitchen",
    "ballroom": "Ballroom",
    "conservatory": "Conservatory",
    "dining_room": "Dining Room",
    "billiard_room": "Billiard Room",
    "library": "Library",
    "lounge": "Lounge",
    "hall": "Hall",
    "study": "Study",
}


def card_index(name: str, kind: str | None = None) -> int:
    """Return the flat index of card ``name``; with ``kind``, check the card is of that kind.

    Raises ``ValueError`` naming the bad id and listing the accepted ones.
    """
    idx = CARD_INDEX.get(name)
    if idx is None:
        raise ValueError(f"unknown card {name!r}; cards are: {', '.join(CARDS)}")
    if kind is not None and KIND_NAMES[KIND_OF_CARD[idx]] != kind:
        allowed = {"suspect": SUSPECTS, "weapon": WEAPONS, "room": ROOMS}[kind]
        raise ValueError(f"{name!r} is not a {kind}; {kind}s are: {', '.join(allowed)}")
    return idx


def suspect_card(s: int) -> int:
    return SUSPECT_BASE + s


def weapon_card(w: int) -> int:
    return WEAPON_BASE + w


def room_card(r: int) -> int:
    return ROOM_BASE + r
