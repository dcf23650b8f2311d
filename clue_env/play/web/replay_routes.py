"""The browser's replay page: ``POST /api/replays``, ``GET /api/replays/{id}`` and ``/replay``.

A replay is a finished game (``evaluate.py --replays``), so every card in it may be shown (R31
concerns a game still running). A replay is only ever what a client uploads: a web game in
progress cannot be turned into one, and a game id means nothing here.

``POST /api/replays`` takes a replay file's JSON as its body (at most :data:`MAX_REPLAY_BODY`
bytes). The server checks it (:func:`clue_env.replay.parse_replay`: bounded JSON, at most
:data:`clue_env.replay.MAX_STEPS` steps, small plain accounts) and plays it again with the
current code (:class:`clue_env.replay.Playback`). A malformed file gets 400 and a stale one 422,
each with the message that ``play.py --replay`` prints. A replay that plays back is kept in a
small store (:class:`ReplayStore`) under a random id (the same file again: the same id). Each
client may send :data:`UPLOAD_BURST` files at once, then one every :data:`UPLOAD_INTERVAL` seconds
(429 beyond that). The answer is ``{"replay": ID, "steps": N, "seats": [...], "outcome": {...}, ...}``.

``GET /api/replays/{id}?step=K&view=all|public|player_k`` returns position ``K`` (the game after
``K`` decisions, 0: the deal) as that view sees it, worded as in the terminal stepper
(:mod:`clue_env.play.replay_terminal`). See :func:`replay_position`. A position costs at most a
copy of the game and :attr:`~clue_env.replay.Playback.snapshot_every` steps. Each client's
positions are paid from a budget of the server's time: :data:`POSITION_BUDGET` seconds at once,
refilled at :data:`POSITION_SHARE` of a second per second (each request costs its measured
time, at least a millisecond); 429 while it is spent. Every 429 of these routes is answered after
a pause of :data:`REFUSAL_PAUSE` seconds, so a client that does not wait cannot make the server
answer it faster.

The store is shared fairly: each client (:func:`~clue_env.play.web.store.client_key`) holds at
most :data:`MAX_REPLAYS_PER_CLIENT` replays (its own least recently used one is forgotten for a
new one), and when the store is full the replay forgotten is the least recently used one of the
client holding the most, the uploader's own on a tie: a client can push out another's replays
only while that client holds more than it does.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse
from starlette.concurrency import run_in_threadpool

from ...engine.cards import CARDS, ROOM_BASE, ROOMS, SUSPECTS, WEAPON_BASE, WEAPONS
from ...engine.wording import result_text
from ...replay import Playback, Replay, ReplayError, StaleReplay, parse_replay
from ...state import public_state
from ..notes import notebook
from ..replay_terminal import ALL, PUBLIC, format_account, word_event
from .common import BODY_TIMEOUT, STATIC, ApiError, read_body
from .rate_limit import ClientLimit, TokenBucket
from .store import client_key

#: the largest replay file accepted (a 300-turn six-player game is about 6 KiB, 100-200 KiB with accounts)
MAX_REPLAY_BODY = 512 * 1024
#: replays kept in memory
MAX_REPLAYS = 16
#: replays one client may hold in the store
MAX_REPLAYS_PER_CLIENT = 4
#: replay files a client may send at once, then one every UPLOAD_INTERVAL seconds
UPLOAD_BURST = 8
UPLOAD_INTERVAL = 5.0
#: seconds of the server's time a client may spend on replay positions at once (a position of a
#: 1,000-step game costs about 1-4 ms, one of a 10,000-step game up to about 15 ms)
POSITION_BUDGET = 0.5
#: the share of one core refilled to each client's position budget (50 ms every second)
POSITION_SHARE = 0.05
#: seconds a refused request (429) waits before its answer
REFUSAL_PAUSE = 1.0
_DIGITS = re.compile(r"[0-9]{1,9}")
_SEAT = re.compile(r"player_([0-9])")
_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
log = logging.getLogger("clue_env.play.web")


@dataclass
class LoadedReplay:
    """One replay that played back, and the client that loaded it first (its owner in the store)."""

    id: str
    digest: str
    playback: Playback
    client: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)


class ReplayStore:
    """A bounded store of loaded replays, by random id (and by digest, so that one file loaded
    twice is one entry), shared fairly between clients. Thread-safe.

    At most ``max_replays`` in all and ``per_client`` per client (the one that loaded the file
    first). A client at its ``per_client`` gives up its own least recently used replay for a new
    one. When the store is full, the replay given up is the least recently used one of the client
    holding the most replays, the newcomer's own when it holds as many: a client never pushes out
    the replays of a client holding fewer than it does."""

    def __init__(self, max_replays: int = MAX_REPLAYS, per_client: int = MAX_REPLAYS_PER_CLIENT) -> None:
        if max_replays < 1:
            raise ValueError(f"max_replays must be at least 1, got {max_replays}")
        if per_client < 1:
            raise ValueError(f"per_client must be at least 1, got {per_client}")
        self.max_replays = max_replays
        self.per_client = per_client
        self._items: OrderedDict[str, LoadedReplay] = OrderedDict()  # least recently used first
        self._by_digest: dict[str, str] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def held(self, client: str) -> int:
        """How many replays ``client`` holds."""
        with self._lock:
            return sum(1 for item in self._items.values() if item.client == client)

    def get(self, replay_id: str) -> LoadedReplay | None:
        with self._lock:
            item = self._items.get(replay_id)
            if item is not None:
                self._items.move_to_end(replay_id)
            return item

    def by_digest(self, digest: str) -> LoadedReplay | None:
        with self._lock:
            replay_id = self._by_digest.get(digest)
        return None if replay_id is None else self.get(replay_id)

    def add(self, digest: str, playback: Playback, client: str = "") -> LoadedReplay:
        """Keep ``playback`` for ``client`` (or give the entry of the same file, already kept)."""
        with self._lock:
            known = self._by_digest.get(digest)
            if known is not None and known in self._items:
                self._items.move_to_end(known)
                return self._items[known]
            counts: dict[str, int] = {}
            for old in self._items.values():
                counts[old.client] = counts.get(old.client, 0) + 1
            if counts.get(client, 0) >= self.per_client:
                self._forget(client)
            elif len(self._items) >= self.max_replays:
                most = max(counts.values())
                self._forget(client if counts.get(client, 0) == most else None, most, counts)
            item = LoadedReplay(secrets.token_urlsafe(12), digest, playback, client)
            self._items[item.id] = item
            self._by_digest[digest] = item.id
            return item

    def _forget(self, client: str | None, most: int = 0, counts: dict[str, int] | None = None) -> None:
        """Forget ``client``'s least recently used replay; with ``client`` None, the least recently
        used one of the clients holding ``most`` (the lock is held)."""
        for replay_id, old in self._items.items():
            if old.client == client if client is not None else (counts or {}).get(old.client) == most:
                del self._items[replay_id]
                self._by_digest.pop(old.digest, None)
                return


def parse_document(data: bytes) -> tuple[str, Replay]:
    """A replay file's bytes checked (:class:`ReplayError` naming the problem): its digest and
    its :class:`~clue_env.replay.Replay`, not yet played back."""
    replay = parse_replay(data, "replay file")
    return replay.digest, replay


def play_back(replay: Replay) -> Playback:
    """The replay played again by the current code (:class:`StaleReplay` when it does not reproduce)."""
    try:
        return Playback(replay)
    except StaleReplay as e:
        raise StaleReplay(f"replay file: {e}") from None


def summary(item: LoadedReplay) -> dict[str, Any]:
    """What ``POST /api/replays`` answers: the replay's id, its length, seats and outcome."""
    r = item.playback.replay
    game = item.playback.env_at(0).game
    return {
        "replay": item.id,
        "steps": r.steps,
        "num_players": r.num_players,
        "rules": r.rules.name,
        "seed": r.seed,
        "game": r.game,
        "package": r.package,
        "digest": item.digest,
        "accounts": r.accounts is not None,
        "seats": _seats(item.playback, game),
        "views": [ALL, PUBLIC] + [f"player_{i}" for i in range(r.num_players)],
        "outcome": r.outcome.to_json(),
        "names": {c: r.rules.display(c) for c in CARDS},
        "cards": {"suspects": list(SUSPECTS), "weapons": list(WEAPONS), "rooms": list(ROOMS)},
    }


def _seats(pb: Playback, game: Any) -> list[dict[str, Any]]:
    cfg = pb.replay.rules
    return [
        {
            "seat": f"player_{i}",
            "character": SUSPECTS[game.seat_suspect[i]],
            "name": cfg.display(SUSPECTS[game.seat_suspect[i]]),
            "spec": s.spec,
        }
        for i, s in enumerate(pb.replay.seats)
    ]


def parse_view(text: str, num_players: int) -> str | int:
    """``all``, ``public`` or ``player_k`` as the terminal stepper's view (``ALL``, ``PUBLIC`` or a seat)."""
    if text in (ALL, PUBLIC):
        return text
    m = _SEAT.fullmatch(text)
    if m and int(m.group(1)) < num_players:
        return int(m.group(1))
    seats = ", ".join(f"player_{i}" for i in range(num_players))
    raise ValueError(f"view must be all, public or a seat ({seats}), got {text[:40]!r}")


def replay_position(item: LoadedReplay, k: int, view: str | int) -> dict[str, Any]:
    """Position ``k`` of a loaded replay as ``view`` sees it (the caller holds ``item.lock``).

    Always: the board (``public``: tokens, weapons, dice, phase, the public record less its log),
    the seats, and for ``k >= 1`` the step's actor, its action (text form and display words) and
    what it caused (``events``, worded for the view as in the terminal). ``hands``: every hand in
    the ``all`` view, the seat's own in a seat's view, none in the public view; ``notes``: the
    seat's notebook of proved facts (a seat's view only); ``account``: the acting agent's own
    account, in the ``all`` view or the view of the seat that decided; ``envelope`` and
    ``board_cards``: in the ``all`` view and at the last position; ``result``: at the last."""
    pb = item.playback
    r = pb.replay
    display = {c: r.rules.display(c) for c in CARDS}
    env = pb.env_at(k)
    game = env.game
    public = public_state(game, log=False)  # not the whole record: the page shows each step's events
    last = k == pb.steps
    out: dict[str, Any] = {
        "replay": item.id,
        "step": k,
        "steps": pb.steps,
        "view": view if isinstance(view, str) else f"player_{view}",
        "rules": r.rules.name,
        "num_players": r.num_players,
        "seats": _seats(pb, game),
        "names": display,
        "public": public,
        "turn": pb.turn(k),
        "actor": None,
        "actor_spec": None,
        "step_turn": None,
        "action": None,
        "action_words": None,
        "events": [],
        "hands": {},
        "notes": None,
        "account": None,
        "account_text": None,
        "envelope": None,
        "board_cards": None,
        "over": last,
        "outcome": r.outcome.to_json() if last else None,
        "result": result_text(game) if last else None,
    }
    if k >= 1:
        seat = pb.actor(k)
        out["actor"] = f"player_{seat}"
        out["actor_spec"] = r.seats[seat].spec
        out["step_turn"] = pb.turn(k - 1)
        out["action"] = pb.action_text(k)
        out["action_words"] = pb.action_words(k)
        out["events"] = [word_event(ev, game, view, display) for ev in pb.events(k)]
        account = pb.account(k)
        if account is not None and (view == ALL or view == seat):
            out["account"] = account
            out["account_text"] = format_account(account, r.rules)
    if view == ALL:
        out["hands"] = {f"player_{i}": [CARDS[c] for c in sorted(h)] for i, h in enumerate(game.hands)}
    elif isinstance(view, int):
        sv = env.seat_view(f"player_{view}")
        out["hands"] = {f"player_{view}": [CARDS[c] for c in sv.hand]}
        out["notes"] = notebook(sv, "facts").to_json()
    if view == ALL or last:
        s, w, rm = game.envelope
        out["envelope"] = [CARDS[s], CARDS[WEAPON_BASE + w], CARDS[ROOM_BASE + rm]]
        out["board_cards"] = {ROOMS[room]: CARDS[c] for room, c in sorted(game.board_cards.items())}
    return out


def add_replay_routes(
    app: FastAPI,
    body_timeout: float = BODY_TIMEOUT,
    store: ReplayStore | None = None,
    upload_burst: int = UPLOAD_BURST,
    upload_interval: float = UPLOAD_INTERVAL,
    position_budget: float = POSITION_BUDGET,
    position_share: float = POSITION_SHARE,
    refusal_pause: float = REFUSAL_PAUSE,
) -> ReplayStore:
    """Register the replay routes and the ``/replay`` page on ``app``; returns their store
    (also ``app.state.replays``). Reading a replay file and playing it back costs the server up
    to the whole game, so each client may send ``upload_burst`` files at once, then one every
    ``upload_interval`` seconds. Its position requests are paid from ``position_budget`` seconds
    of the server's time, refilled at ``position_share`` of a second per second. Beyond either,
    429 with ``Retry-After``, answered after ``refusal_pause`` seconds."""
    if not (position_budget > 0 and position_share > 0 and refusal_pause >= 0):
        raise ValueError("position_budget and position_share must be positive, refusal_pause >= 0")
    replays = store if store is not None else ReplayStore()
    app.state.replays = replays
    uploads = TokenBucket(upload_burst, upload_interval)
    #: one token: a millisecond of the server's time
    positions = TokenBucket(max(1, round(1000 * position_budget)), 0.001 / position_share)

    async def spend(bucket: TokenBucket, request: Request, what: str) -> str:
        client = client_key(request.client.host if request.client else None)
        try:
            bucket.take(client, what)
        except ClientLimit as e:
            if bucket is positions:
                message = (
                    f"this client has spent its share of the server's time for replay positions "
                    f"({position_budget:g} s at once, then {position_share:.0%} of it); try again in {e.retry_after} s"
                )
            else:
                message = str(e)
            await asyncio.sleep(min(refusal_pause, e.retry_after))
            raise ApiError(429, message, headers={"Retry-After": str(e.retry_after)}) from None
        return client

    def charge(client: str, seconds: float) -> None:
        """Spend the rest of what a position cost (its first millisecond was spent to start it)."""
        positions.spend(client, seconds * 1000 - 1)

    @app.post("/api/replays", status_code=201)
    async def load(request: Request) -> JSONResponse:
        too_large = f"a replay file is at most {MAX_REPLAY_BODY // 1024} KiB; this body is larger"
        data = await read_body(request, MAX_REPLAY_BODY, body_timeout, too_large)
        if not data.strip():
            raise ApiError(400, "the body must be a replay file's JSON (evaluate.py --replays DIR writes them)")
        client = await spend(uploads, request, "replay files")

        def work() -> dict[str, Any]:
            try:
                digest, replay = parse_document(data)
                item = replays.by_digest(digest)
                if item is None:
                    item = replays.add(digest, play_back(replay), client)
            except StaleReplay as e:
                raise ApiError(422, str(e)[:1000]) from None
            except ReplayError as e:
                raise ApiError(400, str(e)[:1000]) from None
            except Exception as e:  # noqa: BLE001 - a hostile file is the client's problem, never a 5xx
                log.warning("replay refused: %s: %s", type(e).__name__, str(e)[:200])
                raise ApiError(422, f"replay file: the current code cannot play this replay back ({type(e).__name__})") from None
            with item.lock:
                return summary(item)

        return JSONResponse(await run_in_threadpool(work), status_code=201)

    @app.get("/api/replays/{replay_id}")
    async def position(replay_id: str, request: Request) -> dict[str, Any]:
        client = await spend(positions, request, "milliseconds of replay positions")
        item = replays.get(replay_id) if _ID.fullmatch(replay_id) else None
        if item is None:
            raise ApiError(404, "no such replay: it may have been forgotten (load the file again)")
        raw = request.query_params.get("step", "0")
        if not _DIGITS.fullmatch(raw) or int(raw) > item.playback.steps:
            raise ApiError(400, f"step must be an integer 0..{item.playback.steps}, got {raw[:40]!r}")
        try:
            view = parse_view(request.query_params.get("view", PUBLIC), item.playback.replay.num_players)
        except ValueError as e:
            raise ApiError(400, str(e)) from None

        def work() -> dict[str, Any]:
            with item.lock:
                start = time.thread_time()
                try:
                    return replay_position(item, int(raw), view)
                finally:
                    charge(client, time.thread_time() - start)

        return await run_in_threadpool(work)

    @app.get("/replay", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(str(STATIC.joinpath("replay.html")), media_type="text/html")

    return replays


__all__ = [
    "MAX_REPLAYS",
    "MAX_REPLAYS_PER_CLIENT",
    "POSITION_BUDGET",
    "POSITION_SHARE",
    "REFUSAL_PAUSE",
    "UPLOAD_BURST",
    "UPLOAD_INTERVAL",
    "MAX_REPLAY_BODY",
    "LoadedReplay",
    "ReplayStore",
    "add_replay_routes",
    "parse_document",
    "play_back",
    "replay_position",
]
