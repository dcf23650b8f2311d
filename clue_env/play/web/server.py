"""``python play.py --web``: the game in a browser, over the JSON API of SPEC "Scripts".

The server holds all hidden state; the browser is untrusted. Every response to a seat is built
from that seat's :class:`~clue_env.seat_view.SeatView` and the public record only (R31); the
envelope and the hands appear once the game is over. Game ids and seat tokens are unguessable
(``secrets``), tokens travel in the ``Authorization: Bearer`` header (never in a URL the server
sees: invite links carry them after ``#``) and are compared in constant time. Every action is
checked against the seat's legal set, its turn and the view version it was made from. Bodies
are limited to 4 KiB and must arrive within :data:`BODY_TIMEOUT` seconds; games in memory are
capped, forgotten when idle, and a finished one gives up its slot soon; each client (the
connection's own address: ``X-Forwarded-For`` is read only from the proxies an operator names
with ``forwarded_allow_ips``) may hold a few unfinished games and create them at a limited rate;
a seeded game has one human seat (a seed reproduces the whole deal). The server binds to 127.0.0.1 by default,
sends no CORS headers, refuses requests whose ``Origin`` is another site and (bound to loopback)
whose ``Host`` is not a loopback name. Errors are ``{"error": "..."}`` with a 4xx status; a
refused request changes nothing.

Endpoints (SPEC): ``POST /api/games``, ``GET /api/games/{id}``, ``POST /api/games/{id}/actions``;
also ``DELETE /api/games/{id}`` (a seat ends the game, beyond SPEC), ``GET /api/meta`` (what the
new-game form offers), ``GET /api/board`` (the board as data), and the page itself (``/``,
``/static/...``).
"""

from __future__ import annotations

import ipaddress
import json
import logging
import math
import re
from collections.abc import Awaitable, Callable, Sequence
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from ...engine.cards import CARDS, ROOMS, SUSPECTS, WEAPONS
from ...engine.config import load_rules
from ..notes import MODES as NOTE_MODES
from ..session import (
    HUMAN,
    AgentFactory,
    BadActionText,
    GameOverError,
    IllegalAction,
    NotYourTurn,
    SessionError,
    StaleVersion,
)
from . import news_feed
from .common import BODY_TIMEOUT, STATIC, ApiError, read_body
from .replay_routes import add_replay_routes
from .store import DEFAULT_ALLOWED_SPECS, PLAYERS, RULESETS, ClientLimit, GameStore, StoreFull, WebGame, client_key

#: the largest request body accepted (SPEC: 413 above 4 KiB)
MAX_BODY = 4096
#: the largest Authorization header accepted
MAX_TOKEN = 256
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
#: seconds an idle keep-alive connection is kept open (uvicorn's ``timeout_keep_alive``)
KEEP_ALIVE_TIMEOUT = 5
#: the fields of ``POST /api/games/ID/actions``
ACTION_FIELDS = ("action", "version")
_DIGITS = re.compile(r"[0-9]{1,9}")
log = logging.getLogger("clue_env.play.web")


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers={"Cache-Control": "no-store", **(headers or {})})


async def _read_json(request: Request, timeout: float = BODY_TIMEOUT) -> dict[str, Any]:
    """The body as a JSON object (:func:`read_body` with :data:`MAX_BODY`); 400 when malformed."""
    body = await read_body(request, MAX_BODY, timeout, f"request body over {MAX_BODY} bytes")
    if not body:
        return {}
    try:
        data = json.loads(body.decode("utf-8"), parse_constant=_no_constant)
    except RecursionError:
        raise ApiError(400, "the body is not valid JSON: it is nested too deeply") from None
    except (UnicodeDecodeError, ValueError) as e:
        raise ApiError(400, f"the body is not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise ApiError(400, f"the body must be a JSON object, got {type(data).__name__}")
    return data


def _hostname(host_header: str) -> str:
    try:
        return urlsplit("//" + host_header).hostname or ""
    except ValueError:
        return ""


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _bearer(request: Request) -> str:
    header = request.headers.get("authorization")
    if not header:
        raise ApiError(401, "no token: send the seat's token as 'Authorization: Bearer TOKEN'")
    if len(header) > MAX_TOKEN:
        raise ApiError(401, "the Authorization header is too long to hold a seat token")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise ApiError(401, "no token: the Authorization header must be 'Bearer TOKEN'")
    return token


def board_data() -> dict[str, Any]:
    """The board as the page draws it: the grid, rooms, doors, start squares and passages."""
    raw = json.loads(resources.files("clue_env.data").joinpath("classic_board.json").read_text("utf-8"))
    by_name = {r["name"]: ROOMS[i] for i, r in enumerate(raw["rooms"])}
    suspect_by_name = {n: SUSPECTS[i] for i, n in enumerate(raw["turn_order"])}
    return {
        "rows": raw["size"]["rows"],
        "cols": raw["size"]["cols"],
        "grid": raw["grid"],
        "rooms": [
            {
                "id": by_name[r["name"]],
                "letter": r["letter"],
                "door_letter": r["door_letter"],
                "rows": r["rows"],
                "cols": r["cols"],
            }
            for r in raw["rooms"]
        ],
        "center": raw["center"],
        "doors": [
            {
                "room": by_name[d["room"]],
                "hallway": d["hallway_square"],
                "room_square": d["room_square"],
                "side": d["door_on_side"],
            }
            for d in raw["doors"]
        ],
        "starts": {suspect_by_name[n]: rc for n, rc in raw["start_squares"].items()},
        "passages": [[by_name[a], by_name[b]] for a, b in raw["secret_passages"]],
    }


def seat_response(game: WebGame, seat: int, log_from: int = 0) -> dict[str, Any]:
    """What seat ``seat`` may see of ``game`` (R31): built from its seat view and the public record."""
    session = game.session
    view = session.view(seat)
    j = view.to_json(events=False)
    over = session.over
    events = view.events
    log_from = min(max(log_from, 0), len(events))
    cfg = session.game.cfg
    board = session.game.board  # static and public
    public = session.public_state()
    public["log"] = public["log"][log_from:]  # both logs have one entry per event: log_from applies to both
    out: dict[str, Any] = {
        "game": game.id,
        "seat": j["seat"],
        #: the deal and the dice were fixed by a seed the creator chose (who could then replay them)
        "seeded": game.seeded,
        "version": session.version,
        "acting": None if over else j["acting"],
        "current": j["current"],
        "phase": j["phase"],
        "turn": j["turn"],
        "max_turns": j["max_turns"],
        "my_turn": view.must_act,
        "waiting_for": None if over or view.must_act else j["acting"],
        "agent_to_act": session.agent_to_act,
        "legal": list(view.legal_text),
        "legal_groups": {k: list(v) for k, v in session.legal_groups(seat).items()},
        "hand": j["hand"],
        "public": public,
        "over": over,
        "rules": j["rules"],
        "num_players": j["num_players"],
        "seats": [
            {
                "seat": session.agent_name(i),
                "character": SUSPECTS[session.game.seat_suspect[i]],
                "name": cfg.display(SUSPECTS[session.game.seat_suspect[i]]),
                "player": "human" if session.specs[i] == HUMAN else session.specs[i],
                "you": i == seat,
            }
            for i in range(session.num_players)
        ],
        "names": {c: cfg.display(c) for c in CARDS},
        "dice": j["dice"],
        "roll": j["roll"],
        "pending_suggestion": j["pending_suggestion"],
        "shown_to_me": j["shown_to_me"],
        "shown_by_me": j["shown_by_me"],
        "revealed": j["revealed"],
        "peeked": j["peeked"],
        "refute_hint": session.refute_hint(seat),
        "log_start": log_from,
        # only the entries sent are worded, for this seat: characters' names, "you", and the cards
        # shown to or by it (its own events hold them; everyone else's are the public record)
        "log": news_feed.seat_words(view, cfg, board, events[log_from:]),
        "log_length": len(events),
        # the notebook in the mode chosen at creation (off, seen, facts or deduce), from this seat's view
        "notes": session.notes(seat, game.notes).to_json(),
        "notes_mode": game.notes,
        # what happened since this seat's last turn ended, worded for it, grouped by turn (its
        # private facts included: the cards shown to it and by it, the card it looked at)
        "news": news_feed.news(view, cfg, board),
        # every piece's last move (from the public record), to mark on the board
        "last_moves": news_feed.last_moves(view, board, session.start_tokens, session.start_weapons),
        # which die faces show the magnifying glass (R23)
        "dice_glass": [bool(cfg.magnifying_glass and f == 1) for f in j["dice"]],
        "magnifying_glass": bool(cfg.magnifying_glass),
    }
    if over:
        result = session.result()
        out["envelope"] = result["envelope"]
        out["winner"] = result["winner"]
        out["result"] = result
    return out


def view_etag(game: WebGame, seat: int) -> str:
    """The validator of seat ``seat``'s view (``ETag``): the view changes only when the game steps
    (its version). A client holding the view of this version holds its log up to then too, so
    the tag does not depend on ``log_from``. Nothing in it but public numbers."""
    return f'W/"{seat}.{game.session.version}"'


def _matches(if_none_match: str | None, tag: str) -> bool:
    """Whether an ``If-None-Match`` header names ``tag`` (a list of tags, or ``*``; weak comparison)."""
    if not if_none_match:
        return False
    for part in if_none_match[:1024].split(","):
        part = part.strip()
        if part == "*" or part == tag or part == tag[2:]:
            return True
    return False


def _view_headers(tag: str) -> dict[str, str]:
    # the view is one seat's: nothing may cache it (the API's responses are all "no-store"; the
    # page keeps the tag itself and sends it back), and it varies with the token
    return {"ETag": tag, "Vary": "Authorization"}


def create_app(
    agent_factory: AgentFactory | None,
    *,
    max_games: int = 64,
    idle_timeout: float = 2 * 3600.0,
    agent_delay: float = 0.3,
    allowed_specs: Sequence[str] = DEFAULT_ALLOWED_SPECS,
    default_opponent: str = "ppo",
    bind_host: str = "127.0.0.1",
    store: GameStore | None = None,
    body_timeout: float = BODY_TIMEOUT,
    replay_limits: dict[str, Any] | None = None,
    **limits: Any,
) -> FastAPI:
    """The FastAPI app; ``agent_factory`` builds the agents (``agents.play_factory``). ``limits``:
    the store's per-client limits (``max_live_per_client``, ``creation_burst``,
    ``creation_interval``, ``finished_grace``), when no ``store`` is given; ``replay_limits``:
    ``upload_burst`` / ``upload_interval`` of the replay uploads (see
    :func:`~clue_env.play.web.replay_routes.add_replay_routes`)."""
    if not body_timeout > 0:
        raise ValueError(f"body_timeout must be positive, got {body_timeout}")
    if store is None:
        store = GameStore(
            agent_factory,
            max_games=max_games,
            idle_timeout=idle_timeout,
            agent_delay=agent_delay,
            allowed_specs=allowed_specs,
            **limits,
        )
    elif limits:
        raise ValueError(f"limits {sorted(limits)} are the store's: give them to the GameStore")
    app = FastAPI(title="clue_env", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.store = store
    loopback = bind_host in ("127.0.0.1", "localhost", "::1")
    board = board_data()

    @app.middleware("http")
    async def guard(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        host = _hostname(request.headers.get("host") or "")
        if loopback and host not in LOOPBACK_NAMES:
            return _error(400, f"unexpected Host {host!r}: this server answers on 127.0.0.1 / localhost only")
        origin = request.headers.get("origin")
        if origin is not None and request.method not in ("GET", "HEAD"):
            o = urlsplit(origin)
            if o.netloc != (request.headers.get("host") or ""):
                return _error(403, f"requests from origin {origin!r} are not allowed")
        try:
            response = await call_next(request)
        except ApiError as e:
            response = _error(e.status, e.message, e.headers)
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Content-Security-Policy"] = (
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'"
        )
        if request.url.path.startswith("/api/"):
            response.headers["Cache-Control"] = "no-store"
        return response

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return _error(exc.status, exc.message, exc.headers)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(400, "malformed request")

    @app.exception_handler(Exception)
    async def internal_error(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error")
        return _error(500, "internal error; the game was not changed by this request")

    def find(game_id: str, request: Request) -> tuple[WebGame, int]:
        token = _bearer(request)
        game = store.get(game_id)
        if game is None:
            raise ApiError(404, "no such game (it may have ended long ago and been forgotten)")
        seat = game.seat_for(token)
        if seat is None:
            raise ApiError(403, "this token is not a seat of this game")
        return game, seat

    def log_from(request: Request) -> int:
        raw = request.query_params.get("log_from", "0")
        if not _DIGITS.fullmatch(raw):  # ASCII digits only: str.isdigit() also takes '²'
            raise ApiError(400, f"log_from must be a non-negative integer (at most 9 digits), got {raw[:40]!r}")
        return int(raw)

    rulesets = {r: load_rules(r) for r in RULESETS}
    meta_data = {  # what the new-game form offers: the same for every request
        "agents": [s for s in store.allowed_specs if s != HUMAN],
        "rules": list(RULESETS),
        "players": {r: list(PLAYERS[r]) for r in RULESETS},
        "default_opponent": default_opponent,
        "suspects": list(SUSPECTS),
        "weapons": list(WEAPONS),
        "rooms": list(ROOMS),
        "names": {r: {c: cfg.display(c) for c in CARDS} for r, cfg in rulesets.items()},
    }

    @app.get("/api/meta")
    async def meta() -> dict[str, Any]:
        return meta_data

    @app.get("/api/board")
    async def get_board() -> dict[str, Any]:
        return board

    @app.post("/api/games", status_code=201)
    async def new_game(request: Request) -> JSONResponse:
        body = await _read_json(request, body_timeout)
        unknown = sorted(set(body) - {"seats", "rules", "seed", "players", "notes"})
        if unknown:
            raise ApiError(400, f"unknown field(s) {unknown}; fields: seats, rules, seed, players, notes")
        notes = body.get("notes", "facts")
        if notes not in NOTE_MODES:
            raise ApiError(400, f"notes must be one of {', '.join(NOTE_MODES)}, got {str(notes)[:40]!r}")
        rules = body.get("rules", "classic")
        if rules not in RULESETS:
            raise ApiError(400, f"rules must be one of {', '.join(RULESETS)}, got {str(rules)[:40]!r}")
        lo, hi = PLAYERS[rules]
        players = body.get("players")
        if players is not None and (isinstance(players, bool) or not isinstance(players, int) or not lo <= players <= hi):
            raise ApiError(400, f"players must be an integer from {lo} to {hi} under {rules} rules, got {str(players)[:40]!r}")
        seats = body.get("seats")
        if seats is None:
            n = players or 4
            seats = [HUMAN] + [default_opponent] * (n - 1)
        if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
            raise ApiError(400, 'seats must be a list of agent specs, such as ["human", "ppo", "deduction"]')
        if players is not None and len(seats) != players:
            raise ApiError(400, f"seats lists {len(seats)} seats but players is {players}")
        if not lo <= len(seats) <= hi:
            raise ApiError(400, f"{rules} rules take {lo} to {hi} players, got {len(seats)} seats")
        bad = [s for s in seats if s not in store.allowed_specs]
        if bad:
            raise ApiError(400, f"seat spec {bad[0][:40]!r} is not offered; choose from {', '.join(store.allowed_specs)}")
        if HUMAN not in seats:
            raise ApiError(400, "a game needs at least one 'human' seat")
        seed = body.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63):
            raise ApiError(400, f"seed must be a non-negative integer below 2**63 or null, got {str(seed)[:40]!r}")
        if seed is not None and seats.count(HUMAN) > 1:
            raise ApiError(
                400,
                "a seed is allowed only with one human seat: it fixes the whole deal, so whoever chose it could "
                "recompute the other seats' hands and the envelope; leave the seed out for several human seats",
            )
        client = client_key(request.client.host if request.client else None)
        try:
            game = await run_in_threadpool(store.create, seats, rules, seed, None, client)
        except ClientLimit as e:
            raise ApiError(429, str(e), headers={"Retry-After": str(e.retry_after)}) from None
        except StoreFull as e:
            raise ApiError(503, str(e), headers={"Retry-After": str(e.retry_after)}) from None
        except SessionError as e:
            raise ApiError(400, str(e)) from None
        game.notes = notes

        def first_moves() -> None:
            with game.lock:
                store.tick(game)

        await run_in_threadpool(first_moves)
        tokens = {game.session.agent_name(s): t for s, t in game.tokens.items()}
        return JSONResponse(
            {
                "game": game.id,
                "tokens": tokens,
                "links": {seat: f"/#game={game.id}&token={tok}" for seat, tok in tokens.items()},
            },
            status_code=201,
        )

    @app.get("/api/games/{game_id}")
    async def get_game(game_id: str, request: Request) -> Response:
        """The seat's view; 304 without a body when ``If-None-Match`` names the current one."""
        game, seat = find(game_id, request)
        start = log_from(request)
        known = request.headers.get("if-none-match")

        def work() -> tuple[str, dict[str, Any] | None]:
            with game.lock:
                store.tick(game)
                tag = view_etag(game, seat)
                if _matches(known, tag):
                    return tag, None
                return tag, seat_response(game, seat, start)

        tag, body = await run_in_threadpool(work)
        if body is None:
            return Response(status_code=304, headers=_view_headers(tag))
        return JSONResponse(body, headers=_view_headers(tag))

    @app.delete("/api/games/{game_id}")
    async def end_game(game_id: str, request: Request) -> dict[str, Any]:
        """A seat ends (abandons) its game: forgotten at once, its slot freed (beyond SPEC)."""
        game, seat = find(game_id, request)
        store.end(game.id)  # a request already running on it finishes on a game no one can reach
        return {"game": game.id, "ended": True, "by": game.session.agent_name(seat)}

    @app.post("/api/games/{game_id}/actions")
    async def post_action(game_id: str, request: Request) -> JSONResponse:
        game, seat = find(game_id, request)
        body = await _read_json(request, body_timeout)
        unknown = sorted(set(body) - set(ACTION_FIELDS))
        if unknown:
            raise ApiError(400, f"unknown field(s) {[u[:40] for u in unknown[:5]]}; fields: action, version")
        action = body.get("action")
        if not isinstance(action, str) or not action.strip():
            raise ApiError(400, 'the body must hold an action\'s text form: {"action": "roll", "version": V}')
        version = body.get("version")
        if version is None:
            raise ApiError(
                400, 'the body must hold the version of the view the action was chosen from: {"action": ..., "version": V}'
            )
        if isinstance(version, bool) or not isinstance(version, int):
            raise ApiError(400, f"version must be the integer of the view the action was chosen from, got {str(version)[:40]!r}")
        start = log_from(request)

        def work() -> tuple[str, dict[str, Any]]:
            with game.lock:
                try:
                    game.session.act(seat, action, version)
                except BadActionText as e:
                    raise ApiError(400, str(e)[:500]) from None
                except (NotYourTurn, StaleVersion, IllegalAction, GameOverError) as e:
                    raise ApiError(409, str(e)) from None
                store.tick(game)
                return view_etag(game, seat), seat_response(game, seat, start)

        tag, view = await run_in_threadpool(work)
        return JSONResponse(view, headers=_view_headers(tag))

    add_replay_routes(app, body_timeout, **(replay_limits or {}))

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(str(STATIC.joinpath("index.html")), media_type="text/html")

    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    return app


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    agent_factory: AgentFactory | None = None,
    *,
    agent_delay: float = 0.3,
    max_games: int = 64,
    idle_timeout: float = 2 * 3600.0,
    forwarded_allow_ips: str | None = None,
) -> None:
    """Run the server (blocking) until Ctrl-C. ``forwarded_allow_ips``: behind a reverse proxy,
    the proxies' addresses (comma-separated IP addresses or networks) whose ``X-Forwarded-For``
    names the client; ``None`` (the default): every client is the address of its connection."""
    import uvicorn

    if not (isinstance(port, int) and 0 < port < 65536):
        raise ValueError(f"port must be 1-65535, got {port!r}")
    if not math.isfinite(agent_delay):
        raise ValueError("agent_delay must be a finite number of seconds")
    options = proxy_options(forwarded_allow_ips)
    app = create_app(agent_factory, agent_delay=agent_delay, max_games=max_games, idle_timeout=idle_timeout, bind_host=host)
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: serving on {host}: anyone who can reach this address can create games", flush=True)
    if options["proxy_headers"]:
        print(f"clients behind the proxies {options['forwarded_allow_ips']} are told apart by X-Forwarded-For", flush=True)
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    print(f"clue_env: open http://{shown}:{port}/ in a browser (Ctrl-C stops)", flush=True)
    uvicorn.run(app, host=host, port=port, **{**UVICORN_OPTIONS, **options})


#: how :func:`serve` runs uvicorn: no access log (no request lines in any log), idle keep-alive
#: connections closed after :data:`KEEP_ALIVE_TIMEOUT` seconds, request heads capped at 16 KiB
#: (a stalled body is cut off by the app after :data:`BODY_TIMEOUT` seconds, with a 408), and no
#: proxy headers: a client is the address of its connection, whatever ``X-Forwarded-For`` says
#: (:func:`proxy_options` turns them on for the proxies an operator names)
UVICORN_OPTIONS: dict[str, Any] = {
    "log_level": "warning",
    "access_log": False,
    "timeout_keep_alive": KEEP_ALIVE_TIMEOUT,
    "timeout_graceful_shutdown": 5,
    "h11_max_incomplete_event_size": 16 * 1024,
    "proxy_headers": False,
}


def proxy_options(forwarded_allow_ips: str | None) -> dict[str, Any]:
    """uvicorn's proxy options: off for ``None``; else on, trusting ``X-Forwarded-For`` from
    those addresses only (comma-separated IP addresses or networks; ``*`` trusts every
    connection, so that any client can choose its address). ``ValueError`` naming a bad entry."""
    if forwarded_allow_ips is None:
        return {"proxy_headers": False}
    entries = [e.strip() for e in forwarded_allow_ips.split(",")]
    for entry in entries:
        if entry == "*":
            continue
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise ValueError(
                f"forwarded-allow-ips: {entry[:60]!r} is not an IP address or network "
                "(give the reverse proxy's addresses, comma-separated)"
            ) from None
    return {"proxy_headers": True, "forwarded_allow_ips": ",".join(entries)}


def uvicorn_config(app: FastAPI, host: str, port: int, forwarded_allow_ips: str | None = None) -> Any:
    """The ``uvicorn.Config`` of :func:`serve` (for running the server in a thread, as tests do)."""
    import uvicorn

    return uvicorn.Config(app, host=host, port=port, **{**UVICORN_OPTIONS, **proxy_options(forwarded_allow_ips)})


__all__ = [
    "BODY_TIMEOUT",
    "MAX_BODY",
    "UVICORN_OPTIONS",
    "board_data",
    "create_app",
    "proxy_options",
    "seat_response",
    "serve",
    "uvicorn_config",
]
