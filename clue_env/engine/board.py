"""The classic board as a graph, and where a token may move (R16-R21).

The board data (``clue_env/data/classic_board.json``) is the project's shared board file,
shipped inside the package. It is read once into a :class:`Board`.

Locations are *nodes*: the nine rooms are nodes ``0..8`` (in :data:`~clue_env.engine.cards.ROOMS`
order) and the 188 walkable hallway squares (start squares included) are nodes ``9..196`` in
row-major order. ``-1`` means "not on the board" (an unplayed suspect under
``tokens_on_board: players_only``, R7).

Movement (R16-R21), as :meth:`Board.destinations` computes it:

* a move is a path of orthogonal steps over hallway squares (R16); no square twice (R17);
* a hallway square holding another token can be neither crossed nor landed on (R18);
* stepping from the square in front of a door into the room costs one move, and entering a room
  ends the move; the room the token started the turn in cannot be re-entered (R19);
* a token in a room leaves by stepping onto the square in front of one of its doors, at a cost
  of one move (R20);
* ``exact=True`` (classic ``full_roll``): a hallway destination uses the whole roll, a room may
  be entered with pips left over; ``exact=False`` (2023): any destination within the roll.

Results are memoised on the start, the roll and the blocking tokens within reach, so the
exponential path search runs once per distinct local situation.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from importlib import resources

from .cards import N_ROOMS, ROOMS, SUSPECTS
from .memo_cache import MemoCache

OFF_BOARD = -1
_WALKABLE = set(".123456")
_INF = 10**6


@dataclass
class Board:
    """Static facts of a board: nodes, adjacency, doors, passages, start squares, distances."""

    rows: int
    cols: int
    grid: tuple[str, ...]
    #: (row, col) of each node; rooms get their centre square (for drawing only).
    node_rc: tuple[tuple[int, int], ...]
    #: node of each walkable (row, col)
    rc_node: dict[tuple[int, int], int]
    #: hallway neighbours of each node (empty for rooms)
    square_nbrs: tuple[tuple[int, ...], ...]
    #: rooms whose door lies in front of this hallway square
    door_rooms: tuple[tuple[int, ...], ...]
    #: hallway squares in front of each room's doors
    room_doors: tuple[tuple[int, ...], ...]
    #: secret passage target of each room, or -1 (R20)
    passage: tuple[int, ...]
    #: start node of each suspect (R7)
    start_node: tuple[int, ...]
    #: door (room square, hallway square) pairs as (row, col), for drawing
    door_cells: tuple[tuple[tuple[int, int], tuple[int, int]], ...]
    #: room squares of each room as (row, col)
    room_cells: tuple[tuple[tuple[int, int], ...], ...]
    #: fewest moves from a node to enter each room, ignoring tokens and passages; 0 = inside
    dist_to_room: tuple[tuple[int, ...], ...] = field(repr=False)
    #: fewest moves from a node to stand on each hallway node (rooms: 1 to step out), by node id
    dist_to_square: tuple[tuple[int, ...], ...] = field(repr=False)
    #: memoised move searches (about 700 bytes each: 32,768 entries, ~23 MB)
    _cache: MemoCache = field(default_factory=lambda: MemoCache(32_768), repr=False)

    @property
    def n_nodes(self) -> int:
        return len(self.node_rc)

    @property
    def n_squares(self) -> int:
        return len(self.node_rc) - N_ROOMS

    @staticmethod
    def is_room(node: int) -> bool:
        return 0 <= node < N_ROOMS

    def node_of(self, row: int, col: int) -> int:
        """Node of hallway square ``row,col``; ``ValueError`` if it is not walkable."""
        node = self.rc_node.get((row, col))
        if node is None:
            raise ValueError(f"square {row},{col} is not a hallway square of the board")
        return node

    def describe(self, node: int) -> str:
        """``room id`` or ``row,col`` (or ``off-board``)."""
        if node == OFF_BOARD:
            return "off-board"
        if node < N_ROOMS:
            return ROOMS[node]
        r, c = self.node_rc[node]
        return f"{r},{c}"

    # ------------------------------------------------------------------ movement
    def destinations(
        self,
        start: int,
        steps: int,
        blocked: frozenset[int] | set[int],
        exact: bool,
        forbidden_room: int = -1,
    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Hallway squares and rooms a token at ``start`` can reach with ``steps`` moves.

        ``blocked``: hallway nodes holding other tokens (R18). ``forbidden_room``: the room the
        token started in (it may not be re-entered, R19). Returns ``(squares, rooms)``, each
        sorted ascending.
        """
        dist = self.dist_to_square[start]
        # A token more than ``steps`` away changes nothing; one exactly ``steps`` away can only
        # be where a path ends (reaching it spends every move), so it removes itself from the
        # squares and nothing else: the search (and its memo key) leaves it out, and the result
        # drops it afterwards.
        near = []
        edge = []
        for b in blocked:
            d = dist[b]
            if d < steps:
                near.append(b)
            elif d == steps:
                edge.append(b)
        near.sort()
        key = (start, steps, exact, forbidden_room, tuple(near))
        res = self._cache.get(key)
        if res is None:
            res = self._search(start, steps, frozenset(near), exact, forbidden_room)
            self._cache.put(key, res)
        if edge:
            squares = res[0]
            if any(b in squares for b in edge):
                res = (tuple(q for q in squares if q not in edge), res[1])
        return res

    def _search(
        self, start: int, steps: int, blocked: frozenset[int], exact: bool, forbidden: int
    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        squares: set[int] = set()
        rooms: set[int] = set()
        if steps <= 0:
            return (), ()
        if self.is_room(start):
            firsts = [h for h in self.room_doors[start] if h not in blocked]
            rem = steps - 1
        else:
            firsts = [start]
            rem = steps
        nbrs = self.square_nbrs
        door_rooms = self.door_rooms
        if exact:
            add = squares.add

            # Every simple path of exactly ``rem`` squares (no square twice, R17); standing on a
            # door square with a move left, the token may enter that room instead (R19). The
            # last two levels are unrolled: that is where nearly all the calls were.
            def dfs(node: int, left: int, visited: set[int]) -> None:
                dr = door_rooms[node]
                if dr:
                    rooms.update(dr)
                if left == 2:
                    for nb in nbrs[node]:
                        if nb not in visited and nb not in blocked:
                            dr = door_rooms[nb]
                            if dr:
                                rooms.update(dr)
                            for nb2 in nbrs[nb]:
                                if nb2 not in visited and nb2 not in blocked:
                                    add(nb2)
                    return
                left -= 1
                for nb in nbrs[node]:
                    if nb not in visited and nb not in blocked:
                        visited.add(nb)
                        dfs(nb, left, visited)
                        visited.discard(nb)

            for first in firsts:
                if rem == 0:
                    if first != start:
                        add(first)
                elif rem == 1:
                    dr = door_rooms[first]
                    if dr:
                        rooms.update(dr)
                    for nb in nbrs[first]:
                        if nb not in blocked:  # never ``first`` itself: no square neighbours itself
                            add(nb)
                else:
                    dfs(first, rem, {first})
            rooms.discard(forbidden)
        else:
            seen = {f: 0 for f in firsts}
            queue = deque(firsts)
            while queue:
                node = queue.popleft()
                d = seen[node]
                if d < rem:
                    for room in door_rooms[node]:
                        if room != forbidden:
                            rooms.add(room)
                    for nb in nbrs[node]:
                        if nb not in seen and nb not in blocked:
                            seen[nb] = d + 1
                            queue.append(nb)
            squares = {n for n in seen if n != start}
        return tuple(sorted(squares)), tuple(sorted(rooms))

    def toward(self, room: int, squares: tuple[int, ...], rooms: tuple[int, ...]) -> int:
        """The destination nearest to ``room`` (SPEC ``toward ROOM``).

        ``room`` itself when reachable; else the destination with the fewest moves still needed
        to enter it (no passages); ties go to rooms before squares, then the smallest node
        (rooms: room order; squares: row-major, i.e. smallest ``row,col``). ``-1`` if no
        destination exists.
        """
        if room in rooms:
            return room
        best, best_key = -1, None
        for node in rooms + squares:
            key = (self.dist_to_room[node][room], 0 if node < N_ROOMS else 1, node)
            if best_key is None or key < best_key:
                best, best_key = node, key
        return best


def _bfs(grid: tuple[str, ...], src: tuple[int, int]) -> dict[tuple[int, int], int]:
    rows, cols = len(grid), len(grid[0])
    dist = {src: 0}
    q = deque([src])
    while q:
        r, c = q.popleft()
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < rows and 0 <= cc < cols and (rr, cc) not in dist and grid[rr][cc] in _WALKABLE:
                dist[(rr, cc)] = dist[(r, c)] + 1
                q.append((rr, cc))
    return dist


def _room_id(name: str) -> int:
    return ROOMS.index(name.lower().replace(" ", "_"))


def load_board(data: dict | None = None) -> Board:
    """Build a :class:`Board` from the packaged classic board JSON (or ``data``)."""
    if data is None:
        text = resources.files("clue_env.data").joinpath("classic_board.json").read_text("utf-8")
        data = json.loads(text)
    grid = tuple(data["grid"])
    rows, cols = data["size"]["rows"], data["size"]["cols"]
    if len(grid) != rows or any(len(line) != cols for line in grid):
        raise ValueError("board grid does not match its declared size")

    cells = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] in _WALKABLE]
    rc_node = {rc: N_ROOMS + i for i, rc in enumerate(cells)}
    letters = {rm["letter"]: _room_id(rm["name"]) for rm in data["rooms"]}
    room_cells: list[list[tuple[int, int]]] = [[] for _ in range(N_ROOMS)]
    for r in range(rows):
        for c in range(cols):
            ch = grid[r][c]
            if ch.upper() in letters and ch.upper() != "X":
                room_cells[letters[ch.upper()]].append((r, c))
    centres = []
    for cells_of in room_cells:
        rs = sorted(p[0] for p in cells_of)
        cs = sorted(p[1] for p in cells_of)
        centres.append((rs[len(rs) // 2], cs[len(cs) // 2]))
    node_rc = tuple(centres + cells)
    n_nodes = len(node_rc)

    nbrs: list[tuple[int, ...]] = [()] * n_nodes
    for (r, c), node in rc_node.items():
        nbrs[node] = tuple(
            rc_node[(r + dr, c + dc)] for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)) if (r + dr, c + dc) in rc_node
        )

    door_rooms: list[list[int]] = [[] for _ in range(n_nodes)]
    room_doors: list[list[int]] = [[] for _ in range(N_ROOMS)]
    door_cells = []
    for d in data["doors"]:
        room = _room_id(d["room"])
        hall = rc_node[tuple(d["hallway_square"])]
        if room not in door_rooms[hall]:
            door_rooms[hall].append(room)
        room_doors[room].append(hall)
        door_cells.append((tuple(d["room_square"]), tuple(d["hallway_square"])))

    passage = [-1] * N_ROOMS
    for a, b in data["secret_passages"]:
        passage[_room_id(a)] = _room_id(b)
        passage[_room_id(b)] = _room_id(a)

    name_to_suspect = dict(zip(data["turn_order"], SUSPECTS))
    start_node = [0] * len(SUSPECTS)
    for name, rc in data["start_squares"].items():
        start_node[SUSPECTS.index(name_to_suspect[name])] = rc_node[tuple(rc)]

    # static distances
    hall_dist = {rc: _bfs(grid, rc) for rc in cells}
    dist_to_square: list[tuple[int, ...]] = []
    dist_to_room: list[tuple[int, ...]] = []
    sq_dist_room: dict[int, list[int]] = {}
    for rc, node in rc_node.items():
        hd = hall_dist[rc]
        sq_dist_room[node] = [
            min((hd.get(node_rc[h], _INF) for h in room_doors[room]), default=_INF) + 1 for room in range(N_ROOMS)
        ]
    for node in range(n_nodes):
        if node < N_ROOMS:
            row = [_INF] * n_nodes
            for h in room_doors[node]:
                for rc2, d in hall_dist[node_rc[h]].items():
                    n2 = rc_node[rc2]
                    row[n2] = min(row[n2], d + 1)
            dist_to_square.append(tuple(row))
            dist_to_room.append(
                tuple(0 if room == node else min(sq_dist_room[h][room] for h in room_doors[node]) + 1 for room in range(N_ROOMS))
            )
        else:
            hd = hall_dist[node_rc[node]]
            row = [_INF] * n_nodes
            for rc2, d in hd.items():
                row[rc_node[rc2]] = d
            dist_to_square.append(tuple(row))
            dist_to_room.append(tuple(sq_dist_room[node]))

    return Board(
        rows=rows,
        cols=cols,
        grid=grid,
        node_rc=node_rc,
        rc_node=rc_node,
        square_nbrs=tuple(nbrs),
        door_rooms=tuple(tuple(x) for x in door_rooms),
        room_doors=tuple(tuple(x) for x in room_doors),
        passage=tuple(passage),
        start_node=tuple(start_node),
        door_cells=tuple(door_cells),
        room_cells=tuple(tuple(x) for x in room_cells),
        dist_to_room=tuple(dist_to_room),
        dist_to_square=tuple(dist_to_square),
    )


_CLASSIC: Board | None = None


def classic_board() -> Board:
    """The shared classic board (loaded once per process)."""
    global _CLASSIC
    if _CLASSIC is None:
        _CLASSIC = load_board()
    return _CLASSIC
