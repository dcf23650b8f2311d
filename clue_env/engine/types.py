"""Small type aliases for the engine's indices, so signatures say what an ``int`` is.

* :data:`Card` — a flat card index 0-20 (suspects 0-5, weapons 6-11, rooms 12-20);
* :data:`Seat` — a seat 0..n-1 (``player_<seat>``), or -1 for nobody;
* :data:`Node` — a board node: rooms 0-8 first, then hallway squares; ``OFF_BOARD`` = -1;
* :data:`Room` — a room index 0-8 (``ROOMS[room]``); also a room's node;
* :data:`Suspect`, :data:`Weapon` — indices 0-5 within their kind.
"""

from __future__ import annotations

from typing import TypeAlias

Card: TypeAlias = int
Seat: TypeAlias = int
Node: TypeAlias = int
Room: TypeAlias = int
Suspect: TypeAlias = int
Weapon: TypeAlias = int

__all__ = ["Card", "Node", "Room", "Seat", "Suspect", "Weapon"]
