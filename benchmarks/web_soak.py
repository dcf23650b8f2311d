"""Soak test of the web API: many games, concurrent and slow clients, flat memory.

    python benchmarks/web_soak.py [--games 200] [--clients 24] [--slow-clients 3]
                                  [--seconds-limit 120] [--json PATH]
    python benchmarks/web_soak.py --replay-flood [--flood-seconds 8] [--flood-connections 4]
                                  [--idle-seconds 4] [--json PATH]

Loopback only. It starts the real server (``create_app`` under uvicorn with ``uvicorn_config``, as
``play.py --web`` runs it, ``--agent-delay 0``) in a subprocess with the default limits. Each client
connects from its own loopback address (127.0.1.x, ...), so the per-client limits hold unchanged; a
429 is honoured (the client waits ``Retry-After``). A probe client times every request end to end
while it plays games (one ``human`` seat against ``notebook`` and ``random``) on the idle server,
during the load, and idle again (both idle windows are the baseline).

**Soak.** A load process (its own interpreter, apart from the probe's GIL) plays ``--games`` games
to the end: ``--clients`` clients thinking ``--think`` s between requests, and ``--slow-clients``
taking turns at a slow body (trickled over ``--slow-body-seconds``, responses read 256 bytes at a
time), a slow poll (one request per ``--slow-poll`` s) and a staller (head and first bytes, then
nothing, until the server answers 408). Line-ups mix 2-4 players, both rule sets and two human
seats on one client; most finished games are ended with ``DELETE``, every eighth left to the
server's grace. The server's RSS is sampled every 0.25 s. Pass: every game finished, no 5xx, no
transport error, no unexpected 4xx, no error in the server's log; memory flat (the median RSS of the
soak's last quarter at most ``max(20 MB, 10%)`` above that of its second quarter); the probe's median
latency during the soak at most 2x the idle median. Exit status 0 on a pass, 1 otherwise.

**Replay flood.** A replay of the greatest length allowed (six ``random`` seats, about 9,800 steps,
just under ``clue_env.replay.MAX_STEPS``) is uploaded from one address and its positions requested
back to back on ``--flood-connections`` connections for ``--flood-seconds``, never waiting out a
429. Pass: the probe's median latency at most 2x the idle median, no 5xx, no transport error, no
error in the server's log, and the flood both served (200) and refused (429).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: (rules, seats) of the soak's games, taken in turn; "human" seats are played by the client
#: seconds after ``--seconds-limit`` that the games already claimed may take to finish
FINISH_GRACE = 150.0

LINEUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("classic", ("human", "notebook", "uniform")),
    ("classic", ("human", "uniform", "random", "notebook")),
    ("edition2023", ("human", "notebook")),
    ("classic", ("human", "human", "uniform")),
    ("classic", ("human", "notebook", "random")),
)
#: the probe's game (idle and under load alike)
PROBE_LINEUP = ("classic", ("human", "notebook", "random"))
#: every how many finished games a client leaves one to the server's finished-game grace (no DELETE)
KEEP_EVERY = 8
#: the server's limits the soak stays within: games held, and the finished-game grace (seconds)
MAX_GAMES, FINISHED_GRACE = 64, 60.0
MB = 1024 * 1024


# ---------------------------------------------------------------------- the server
def serve_main(port: int, agent_delay: float) -> None:
    """The server subprocess: the app ``play.py --web`` runs, on 127.0.0.1:``port``."""
    import uvicorn

    from agents import play_factory
    from clue_env.play.web.server import create_app, uvicorn_config

    app = create_app(play_factory, agent_delay=agent_delay, bind_host="127.0.0.1")
    uvicorn.Server(uvicorn_config(app, "127.0.0.1", port)).run()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def proc_status(pid: int) -> dict[str, int]:
    """VmRSS (bytes), Threads and open fds of process ``pid``."""
    out: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    out["rss"] = int(line.split()[1]) * 1024
                elif line.startswith("Threads:"):
                    out["threads"] = int(line.split()[1])
        out["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        pass
    return out


# ---------------------------------------------------------------------- clients
class Stats:
    """Thread-safe counts of response statuses and transport errors."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.statuses: Counter[str] = Counter()
        self.unexpected: list[str] = []
        self.transport_errors: list[str] = []

    def status(self, what: str, code: int, expected: tuple[int, ...], text: str = "") -> None:
        with self.lock:
            self.statuses[str(code)] += 1
            if code not in expected and len(self.unexpected) < 50:
                self.unexpected.append(f"{what}: {code} {text[:200]}")

    def transport(self, what: str, e: BaseException) -> None:
        with self.lock:
            self.transport_errors.append(f"{what}: {type(e).__name__}: {e}"[:300])


class HttpxClient:
    """A client on its own loopback address over one kept-alive httpx connection."""

    def __init__(self, port: int, address: str) -> None:
        import httpx

        self.client = httpx.Client(
            base_url=f"http://127.0.0.1:{port}", transport=httpx.HTTPTransport(local_address=address, retries=1), timeout=60
        )

    def request(
        self, method: str, path: str, token: str | None = None, body: dict[str, Any] | None = None
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = self.client.request(method, path, headers=headers, json=body)
        try:
            data = r.json()
        except ValueError:
            data = {"error": r.text[:200]}
        return r.status_code, data, dict(r.headers)

    def close(self) -> None:
        self.client.close()


class RawClient:
    """HTTP/1.1 over a raw socket from its own loopback address: the body of each request is
    trickled over ``trickle`` seconds and each response read in ``read_chunk``-byte pieces."""

    def __init__(self, port: int, address: str, trickle: float = 0.0, read_chunk: int = 256, read_pause: float = 0.002):
        self.port, self.address = port, address
        self.trickle, self.read_chunk, self.read_pause = trickle, read_chunk, read_pause
        self.sock: socket.socket | None = None

    def _connect(self) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=60, source_address=(self.address, 0))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    def request(
        self, method: str, path: str, token: str | None = None, body: dict[str, Any] | None = None
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        payload = json.dumps(body).encode() if body is not None else b""
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
        if token:
            head += f"Authorization: Bearer {token}\r\n"
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
        for attempt in (0, 1):  # a kept-alive connection the server has closed: once more on a new one
            reused = self.sock is not None
            if self.sock is None:
                self.sock = self._connect()
            try:
                self.sock.sendall((head + "\r\n").encode())
                if payload and self.trickle > 0:
                    pieces = 8
                    step = max(1, -(-len(payload) // pieces))
                    for i in range(0, len(payload), step):
                        time.sleep(self.trickle / pieces)
                        self.sock.sendall(payload[i : i + step])
                elif payload:
                    self.sock.sendall(payload)
                return self._response()
            except (ConnectionError, EOFError):
                self.close()
                if not reused or attempt:
                    raise
        raise AssertionError("unreachable")

    def _response(self) -> tuple[int, dict[str, Any], dict[str, str]]:
        assert self.sock is not None
        buf = b""
        while b"\r\n\r\n" not in buf:
            chunk = self.sock.recv(self.read_chunk)
            if not chunk:
                raise EOFError("the server closed the connection")
            buf += chunk
            time.sleep(self.read_pause)
        head, _, rest = buf.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        code = int(lines[0].split()[1])
        headers = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in lines[1:])}
        length = int(headers.get("content-length", "0"))
        while len(rest) < length:
            chunk = self.sock.recv(self.read_chunk)
            if not chunk:
                raise EOFError("the server closed the connection mid-response")
            rest += chunk
            time.sleep(self.read_pause)
        if headers.get("connection", "").lower() == "close":
            self.close()
        try:
            data = json.loads(rest) if rest else {}
        except ValueError:
            data = {"error": rest[:200].decode("latin-1")}
        return code, data, headers

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None


Request = Callable[[str, str, "str | None", "dict[str, Any] | None"], tuple[int, dict[str, Any], dict[str, str]]]


def choose(view: dict[str, Any], quiet_left: int, rng: Any) -> str:
    """A human seat's trivial policy: a random legal non-accusation while ``quiet_left`` > 0,
    then an accusation (the first offered; usually wrong, which puts the seat out)."""
    legal = view["legal"]
    accusations = [a for a in legal if a.startswith("accuse")]
    quiet = [a for a in legal if not a.startswith("accuse")]
    if accusations and (quiet_left <= 0 or not quiet):
        return str(accusations[0])
    return str(quiet[int(rng.integers(len(quiet)))])


def play_game(
    send: Request,
    rules: str,
    seats: tuple[str, ...],
    seed: int | None,
    rng: Any,
    think: float,
    stats: Stats,
    stop: Callable[[], bool],
    times: list[tuple[str, float]] | None = None,
    delete: bool = True,
) -> str:
    """Create a game and play its human seats to the end; 'finished', 'stopped' or 'failed'.
    ``times``: (request kind, seconds) appended for every request."""

    def timed(kind: str, method: str, path: str, token: str | None, body: dict[str, Any] | None) -> Any:
        t0 = time.perf_counter()
        try:
            out = send(method, path, token, body)
        except (OSError, EOFError, ValueError) as e:
            stats.transport(kind, e)
            return None
        except Exception as e:  # httpx's transport errors
            stats.transport(kind, e)
            return None
        if times is not None:
            times.append((kind, time.perf_counter() - t0))
        return out

    body: dict[str, Any] = {"seats": list(seats), "rules": rules}
    if seed is not None and seats.count("human") == 1:
        body["seed"] = seed
    while True:
        if stop():
            return "stopped"
        r = timed("create", "POST", "/api/games", None, body)
        if r is None:
            return "failed"
        code, data, headers = r
        stats.status("create", code, (201, 429), str(data))
        if code == 201:
            break
        if code in (429, 503):  # the server's limits: wait as it says
            wait = float(headers.get("retry-after", "1"))
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline and not stop():
                time.sleep(0.1)
            continue
        return "failed"
    game = data["game"]
    tokens = list(data["tokens"].values())
    quiet_left = {t: int(rng.integers(2, 7)) for t in tokens}
    log_from = dict.fromkeys(tokens, 0)
    #: each seat's latest view; a seat acts on it while it is the game's latest version, else polls
    views: dict[str, dict[str, Any]] = {}
    latest = 0
    outcome = "finished"
    over = False
    while not over:
        for tok in tokens:
            if stop():
                outcome = "stopped"
                over = True
                break
            if views:
                time.sleep(think)
            view = views.get(tok)
            if view is not None and view["my_turn"] and view["version"] == latest:
                action = choose(view, quiet_left[tok], rng)
                quiet_left[tok] -= 1
                kind, method, path = "action", "POST", f"/api/games/{game}/actions"
                payload: dict[str, Any] | None = {"action": action, "version": view["version"]}
            else:
                kind, method, path, payload = "view", "GET", f"/api/games/{game}", None
            r = timed(kind, method, f"{path}?log_from={log_from[tok]}", tok, payload)
            if r is None:
                return "failed"
            code, view, _ = r
            stats.status(kind, code, (200,), str(view))
            if code != 200:
                return "failed"
            views[tok] = view
            latest = max(latest, view["version"])
            log_from[tok] = view["log_length"]
            if view["over"]:
                over = True
                break
    if delete or outcome == "stopped":
        r = timed("delete", "DELETE", f"/api/games/{game}", tokens[0], None)
        if r is not None:
            stats.status("delete", r[0], (200,), str(r[1]))
    return outcome


def stall(port: int, address: str, stats: Stats, stop: threading.Event, held: list[float]) -> None:
    """The staller: the head and the first bytes of a 400-byte body, then nothing, until the
    server answers (408) and closes the connection; again, until ``stop``."""
    head = (
        f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        'Content-Length: 400\r\n\r\n{"seats": ["hu'
    )
    while not stop.is_set():
        t0 = time.monotonic()
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=0.25, source_address=(address, 0))
        except OSError as e:
            stats.transport("stall", e)
            time.sleep(0.5)
            continue
        try:
            sock.sendall(head.encode())
            data = b""
            while not stop.is_set():
                try:
                    chunk = sock.recv(4096)
                except TimeoutError:
                    continue
                if not chunk:
                    break
                data += chunk
            else:
                continue  # stopped: no answer expected
            held.append(time.monotonic() - t0)
            code = int(data.split()[1]) if data.startswith(b"HTTP/1.1 ") else 0
            stats.status("stall", code, (408,), data[:200].decode("latin-1"))
        except OSError as e:
            stats.transport("stall", e)
        finally:
            sock.close()


def load_main(cfg: dict[str, Any]) -> dict[str, Any]:
    """The load process: ``cfg['games']`` games by concurrent and slow clients; the results."""
    import numpy as np

    port, n_games, deadline = cfg["port"], cfg["games"], time.monotonic() + cfg["seconds_limit"]
    # a game claimed before the deadline may finish after it (a slow poller's two-player game can take
    # minutes): no new game is claimed after ``deadline``, none is abandoned before ``finish_by``
    finish_by = deadline + FINISH_GRACE
    stats = Stats()
    lock = threading.Lock()
    claimed = [0]
    outcomes: Counter[str] = Counter()
    by_lineup: Counter[str] = Counter()
    game_medians: list[float] = []
    fast_times: list[tuple[str, float]] = []
    kinds_done: Counter[str] = Counter()
    stop_stallers = threading.Event()
    held: list[float] = []
    #: (client kind, start, end, requests, outcome) of every game, seconds from the soak's start
    timeline: list[tuple[str, float, float, int, str]] = []
    t0 = time.monotonic()

    def claim() -> int | None:
        with lock:
            if claimed[0] >= n_games or time.monotonic() >= deadline:
                return None
            claimed[0] += 1
            return claimed[0] - 1

    # games held at once: one live game per playing client and the probe's, plus the finished ones
    # left to the grace; these are kept below MAX_GAMES (a 503 would be the soak's fault, not the server's)
    players = cfg["clients"] + sum(1 for j in range(cfg["slow_clients"]) if j % 3 != 2)
    kept: list[float] = []  # when each game left to the grace was kept

    def keep(played: int) -> bool:
        """Whether to leave this finished game to the server's grace (no DELETE)."""
        if played % KEEP_EVERY != KEEP_EVERY - 1:
            return False
        with lock:
            now = time.monotonic()
            kept[:] = [t for t in kept if now - t < FINISHED_GRACE + 10]
            if len(kept) + players + 1 >= MAX_GAMES - 4:
                return False
            kept.append(now)
            return True

    def player(index: int, kind: str, address: str) -> None:
        rng = np.random.default_rng([cfg["seed"], index])
        client: HttpxClient | RawClient
        think = cfg["think"]
        if kind == "slow-body":
            client = RawClient(port, address, trickle=cfg["slow_body_seconds"])
        else:
            client = HttpxClient(port, address)
            if kind == "slow-poll":
                think = cfg["slow_poll"]
        played = 0
        try:
            while (g := claim()) is not None:
                rules, seats = LINEUPS[g % len(LINEUPS)]
                times: list[tuple[str, float]] = []
                started = time.monotonic() - t0
                outcome = play_game(
                    client.request,
                    rules,
                    seats,
                    int(rng.integers(2**62)),
                    rng,
                    think,
                    stats,
                    lambda: time.monotonic() >= finish_by,
                    times,
                    delete=not keep(played),
                )
                played += 1
                with lock:
                    timeline.append((kind, round(started, 2), round(time.monotonic() - t0, 2), len(times), outcome))
                    outcomes[outcome] += 1
                    if outcome == "finished":
                        by_lineup[f"{rules}:{','.join(seats)}"] += 1
                        kinds_done[kind] += 1
                        if kind == "fast":
                            fast_times.extend(times)
                            game_medians.append(statistics.median(t for _, t in times))
        finally:
            client.close()

    threads: list[threading.Thread] = []
    for i in range(cfg["clients"]):
        threads.append(threading.Thread(target=player, args=(i, "fast", f"127.0.1.{i + 1}"), daemon=True))
    stallers: list[threading.Thread] = []
    slow_kinds = ("slow-body", "slow-poll", "staller")
    for j in range(cfg["slow_clients"]):
        kind, address = slow_kinds[j % 3], f"127.0.2.{j + 1}"
        if kind == "staller":
            stallers.append(threading.Thread(target=stall, args=(port, address, stats, stop_stallers, held), daemon=True))
        else:
            threads.append(threading.Thread(target=player, args=(1000 + j, kind, address), daemon=True))
    t0 = time.monotonic()  # the soak starts now (the clients were only made)
    for t in stallers + threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - t0
    stop_stallers.set()
    for t in stallers:
        t.join(10)
    return {
        "seconds": elapsed,
        "games_claimed": claimed[0],
        "outcomes": dict(outcomes),
        "finished_by_lineup": dict(by_lineup),
        "finished_by_client_kind": dict(kinds_done),
        "statuses": dict(stats.statuses),
        "unexpected_responses": stats.unexpected,
        "transport_errors": stats.transport_errors,
        "fast_game_medians": game_medians,
        "fast_times": fast_times,
        "timeline": timeline,
        "stalls": len(held),
        "stall_held_median_s": statistics.median(held) if held else None,
    }


# ---------------------------------------------------------------------- the probe
def probe(port: int, network: str, stop: Callable[[], bool], seed: int, think: float) -> dict[str, Any]:
    """Play probe games until ``stop()``, each from its own address ``network``.N (so that the
    probe never waits out the creation rate limit); every request's (kind, seconds), per game."""
    import numpy as np

    rng = np.random.default_rng(seed)
    stats = Stats()
    games: list[list[tuple[str, float]]] = []
    outcomes: Counter[str] = Counter()
    rules, seats = PROBE_LINEUP
    while not stop():
        client = HttpxClient(port, f"{network}.{len(games) % 250 + 1}")
        try:
            times: list[tuple[str, float]] = []
            outcomes[play_game(client.request, rules, seats, int(rng.integers(2**62)), rng, think, stats, stop, times)] += 1
            if times:
                games.append(times)
        finally:
            client.close()
    return {
        "games": games,
        "outcomes": dict(outcomes),
        "statuses": dict(stats.statuses),
        "unexpected": stats.unexpected,
        "transport_errors": stats.transport_errors,
    }


def medians(times: list[tuple[str, float]]) -> dict[str, float | int | None]:
    out: dict[str, float | int | None] = {"n": len(times), "all_ms": _med_ms([t for _, t in times])}
    for kind in ("create", "view", "action"):
        out[f"{kind}_ms"] = _med_ms([t for k, t in times if k == kind])
    return out


def _med_ms(xs: list[float]) -> float | None:
    return 1000 * statistics.median(xs) if xs else None


# ---------------------------------------------------------------------- the replay flood
#: the flood's replay: six seats that never accuse, truncated at this many turns (about 9,800 steps)
FLOOD_REPLAY_TURNS = 2900


def write_long_replay(directory: str, turns: int = FLOOD_REPLAY_TURNS) -> str:
    """The path of a replay of one game of six ``random`` seats truncated at ``turns`` turns."""
    from agents.tournament import run_tournament
    from clue_env.engine.config import load_rules

    rules = load_rules("classic", max_turns=turns)
    run_tournament(["random"] * 6, 1, rules=rules, workers=1, progress=False, agent_seed=1, seed=0, replays=directory)
    return os.path.join(directory, "game_00000_seed_0.json")


def flood_main(cfg: dict[str, Any]) -> dict[str, Any]:
    """The flood process: upload ``cfg['replay']`` from ``cfg['address']``, print ``ready``, then
    send position requests back to back on ``cfg['connections']`` connections for
    ``cfg['seconds']`` seconds; the statuses and the served requests' latencies."""
    import httpx
    import numpy as np

    port, address = cfg["port"], cfg["address"]
    with open(cfg["replay"], "rb") as f:
        data = f.read()
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", transport=httpx.HTTPTransport(local_address=address), timeout=60) as c:
        r = c.post("/api/replays", content=data, headers={"Content-Type": "application/json"})
    if r.status_code != 201:
        raise SystemExit(f"the flood's replay was refused: {r.status_code} {r.text[:300]}")
    loaded = r.json()
    rid, steps, views = loaded["replay"], loaded["steps"], loaded["views"]
    print("ready", flush=True)
    stats = Stats()
    lock = threading.Lock()
    served: list[float] = []
    refused: list[float] = []
    deadline = time.monotonic() + cfg["seconds"]

    def flood(index: int) -> None:
        rng = np.random.default_rng([cfg["seed"], index])
        client = HttpxClient(port, address)
        k = steps
        try:
            while time.monotonic() < deadline:
                # mostly one step back (each costs the server a copy of the game), now and then a jump
                k = int(rng.integers(0, steps + 1)) if k <= 0 or rng.random() < 0.2 else k - 1
                view = views[int(rng.integers(len(views)))]
                t0 = time.perf_counter()
                try:
                    code, body, _ = client.request("GET", f"/api/replays/{rid}?step={k}&view={view}")
                except Exception as e:  # httpx's transport errors
                    stats.transport("flood", e)
                    continue
                dt = time.perf_counter() - t0
                stats.status("flood", code, (200, 429), str(body))
                with lock:
                    (served if code == 200 else refused).append(dt)
        finally:
            client.close()

    threads = [threading.Thread(target=flood, args=(i,), daemon=True) for i in range(cfg["connections"])]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - t0
    return {
        "replay_steps": steps,
        "seconds": elapsed,
        "requests": len(served) + len(refused),
        "served": len(served),
        "refused": len(refused),
        "served_median_ms": _med_ms(served),
        "refused_median_ms": _med_ms(refused),
        "statuses": dict(stats.statuses),
        "unexpected": stats.unexpected,
        "transport_errors": stats.transport_errors,
    }


def start_server(agent_delay: float) -> tuple[subprocess.Popen[bytes], int, Any]:
    """This script as the server (``--role server``) on a free loopback port: the process, its
    port and its stderr (a temporary file: an internal error logs a traceback there)."""
    import tempfile

    port = free_port()
    server_log = tempfile.TemporaryFile()
    server = subprocess.Popen(
        [sys.executable, __file__, "--role", "server", "--port", str(port), "--agent-delay", str(agent_delay)],
        cwd=ROOT,
        stderr=server_log,
    )
    return server, port, server_log


def wait_for_server(server: subprocess.Popen[bytes], port: int, timeout: float = 60.0) -> None:
    """Until ``/api/meta`` answers 200; ``SystemExit`` if the server died or ``timeout`` passed."""
    import httpx

    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/meta", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("the server did not start")
        time.sleep(0.1)


def run_replay_flood(args: argparse.Namespace) -> dict[str, Any]:
    """The replay flood (see the module docstring): idle, flooded and idle again; every figure."""
    import tempfile

    import numpy as np

    work = tempfile.TemporaryDirectory()
    replay = write_long_replay(work.name)
    server, port, server_log = start_server(args.agent_delay)
    try:
        wait_for_server(server, port)
        warm = HttpxClient(port, "127.0.6.1")  # lazy imports and first builds, not timed
        play_game(warm.request, *PROBE_LINEUP, None, np.random.default_rng(0), 0.0, Stats(), lambda: False)
        warm.close()

        def idle_window(network: str, seed: int) -> dict[str, Any]:
            end = time.monotonic() + args.idle_seconds
            return probe(port, network, lambda: time.monotonic() >= end, seed, args.probe_think)

        idle_before = idle_window("127.0.4", args.seed + 1)
        cfg = {
            "port": port,
            "address": "127.0.7.1",
            "replay": replay,
            "seconds": args.flood_seconds,
            "connections": args.flood_connections,
            "seed": args.seed,
        }
        flood = subprocess.Popen(
            [sys.executable, __file__, "--role", "flood", "--config", json.dumps(cfg)], cwd=ROOT, stdout=subprocess.PIPE
        )
        assert flood.stdout is not None
        ready = flood.stdout.readline().decode().strip()
        if ready != "ready":
            flood.wait(30)
            raise SystemExit(f"the flood process did not start (it said {ready!r})")
        flooded = probe(port, "127.0.3", lambda: flood.poll() is not None, args.seed + 2, args.probe_think)
        rest, _ = flood.communicate(timeout=args.flood_seconds + 120)
        if flood.returncode != 0:
            raise SystemExit(f"the flood process failed (exit status {flood.returncode})")
        flood_out = json.loads(rest.decode().strip().splitlines()[-1])
        idle_after = idle_window("127.0.5", args.seed + 3)
    finally:
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        server_log.seek(0)
        log_text = server_log.read().decode("utf-8", "replace")
        server_log.close()
        work.cleanup()
    if log_text.strip():
        print("the server's log:\n" + log_text[-4000:], file=sys.stderr)
    return summarize_flood(args, idle_before, flooded, idle_after, flood_out, log_text)


def summarize_flood(
    args: argparse.Namespace,
    idle_before: dict[str, Any],
    flooded: dict[str, Any],
    idle_after: dict[str, Any],
    flood: dict[str, Any],
    log_text: str,
) -> dict[str, Any]:
    flat = lambda p: [x for g in p["games"] for x in g]  # noqa: E731
    idle_med = medians(flat(idle_before) + flat(idle_after))
    flood_med = medians(flat(flooded))
    ratio = (flood_med["all_ms"] or float("inf")) / (idle_med["all_ms"] or float("inf"))
    statuses: Counter[str] = Counter(flood["statuses"])
    for p in (idle_before, flooded, idle_after):
        statuses.update(p["statuses"])
    transport = (
        flood["transport_errors"] + idle_before["transport_errors"] + flooded["transport_errors"] + idle_after["transport_errors"]
    )
    unexpected = flood["unexpected"] + idle_before["unexpected"] + flooded["unexpected"] + idle_after["unexpected"]
    log_errors = [ln for ln in log_text.splitlines() if ln.startswith(("ERROR", "Traceback", "internal error"))]
    checks = {
        "probe_played_during_the_flood": bool(flooded["games"]),
        "no_5xx": not any(code.startswith("5") for code in statuses),
        "no_transport_errors": not transport,
        "no_unexpected_responses": not unexpected,
        "no_server_log_errors": not log_errors,
        "flood_served_and_limited": flood["served"] > 0 and flood["refused"] > 0,
        "probe_latency_within_2x_idle": ratio <= 2.0,
    }
    return {
        "config": {k: getattr(args, k) for k in ("flood_seconds", "flood_connections", "idle_seconds", "probe_think", "seed")},
        "latency_ms": {
            "idle": idle_med,
            "idle_before": medians(flat(idle_before)),
            "idle_after": medians(flat(idle_after)),
            "flooded": flood_med,
            "flooded_ratio": ratio,
            "flooded_games": len(flooded["games"]),
        },
        "flood": {k: v for k, v in flood.items() if k not in ("unexpected", "transport_errors")},
        "statuses": dict(statuses),
        "transport_errors": transport,
        "unexpected_responses": unexpected,
        "server_log_errors": log_errors,
        "checks": checks,
        "passed": all(checks.values()),
    }


def report_flood(r: dict[str, Any]) -> str:
    lat, f = r["latency_ms"], r["flood"]
    ok = lambda k: "pass" if r["checks"][k] else "FAIL"  # noqa: E731

    def ms(x: float | None) -> str:
        return "-" if x is None else f"{x:.2f}"

    lines = [
        f"replay flood: a {f['replay_steps']}-step replay, {r['config']['flood_connections']} connections from one "
        f"client for {f['seconds']:.1f} s: {f['requests']} position requests ({f['requests'] / max(f['seconds'], 1e-9):.0f}/s), "
        f"{f['served']} served (median {ms(f['served_median_ms'])} ms), {f['refused']} refused with 429 "
        f"(median {ms(f['refused_median_ms'])} ms) [{ok('flood_served_and_limited')}]",
        f"{'another game, median ms':<34} {'n':>6} {'all':>8} {'create':>8} {'view':>8} {'action':>8}",
    ]
    for name, key in (
        ("idle (before+after)", "idle"),
        ("  idle before", "idle_before"),
        ("  idle after", "idle_after"),
        ("during the flood", "flooded"),
    ):
        m = lat[key]
        lines.append(
            f"{name:<34} {m['n']:>6} {ms(m['all_ms']):>8} {ms(m['create_ms']):>8} {ms(m['view_ms']):>8} {ms(m['action_ms']):>8}"
        )
    lines += [
        f"during the flood / idle: {lat['flooded_ratio']:.2f}x (<= 2x) [{ok('probe_latency_within_2x_idle')}] over "
        f"{lat['flooded_games']} games",
        f"statuses: {', '.join(f'{k}: {v}' for k, v in sorted(r['statuses'].items()))} [{ok('no_5xx')}]; transport errors: "
        f"{len(r['transport_errors'])} [{ok('no_transport_errors')}]; unexpected: {len(r['unexpected_responses'])} "
        f"[{ok('no_unexpected_responses')}]; server log errors: {len(r['server_log_errors'])} [{ok('no_server_log_errors')}]",
        f"result: {'PASS' if r['passed'] else 'FAIL'}",
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------------- the run
def run(args: argparse.Namespace) -> dict[str, Any]:

    server, port, server_log = start_server(args.agent_delay)
    samples: list[tuple[float, int, int, int]] = []  # (time, rss, threads, fds)
    sampling = threading.Event()
    try:
        import numpy as np

        wait_for_server(server, port)

        def sampler() -> None:
            while not sampling.is_set():
                s = proc_status(server.pid)
                if "rss" in s:
                    samples.append((time.monotonic(), s["rss"], s.get("threads", 0), s.get("fds", 0)))
                sampling.wait(0.25)

        sampler_thread = threading.Thread(target=sampler, daemon=True)
        sampler_thread.start()

        def idle_window(network: str, seed: int) -> dict[str, Any]:
            end = time.monotonic() + args.idle_seconds
            return probe(port, network, lambda: time.monotonic() >= end, seed, args.probe_think)

        # warm-up (not timed): one game of each line-up, so that lazy imports and first builds are done
        for rules, seats in (PROBE_LINEUP, *LINEUPS):
            warm = HttpxClient(port, "127.0.6.1")
            play_game(warm.request, rules, seats, None, np.random.default_rng(0), 0.0, Stats(), lambda: False)
            warm.close()
        idle_before = idle_window("127.0.4", args.seed + 1)
        before = proc_status(server.pid)
        cfg = {
            "port": port,
            "games": args.games,
            "clients": args.clients,
            "slow_clients": args.slow_clients,
            "seconds_limit": args.seconds_limit,
            "think": args.think,
            "slow_poll": args.slow_poll,
            "slow_body_seconds": args.slow_body_seconds,
            "seed": args.seed,
        }
        soak_start = time.monotonic()
        load = subprocess.Popen(
            [sys.executable, __file__, "--role", "load", "--config", json.dumps(cfg)], cwd=ROOT, stdout=subprocess.PIPE
        )
        probe_out: dict[str, Any] = {}
        probe_thread = threading.Thread(
            target=lambda: probe_out.update(
                probe(port, "127.0.3", lambda: load.poll() is not None, args.seed + 2, args.probe_think)
            ),
            daemon=True,
        )
        probe_thread.start()
        stdout, _ = load.communicate(timeout=args.seconds_limit + FINISH_GRACE + 120)
        soak_end = time.monotonic()
        probe_thread.join(60)
        if load.returncode != 0:
            raise SystemExit(f"the load process failed (exit status {load.returncode})")
        load_out = json.loads(stdout.decode().strip().splitlines()[-1])
        idle_after = idle_window("127.0.5", args.seed + 3)
        after = proc_status(server.pid)
        sampling.set()
        sampler_thread.join(5)
    finally:
        sampling.set()
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        server_log.seek(0)
        log_text = server_log.read().decode("utf-8", "replace")
        server_log.close()
    if log_text.strip():
        print("the server's log:\n" + log_text[-4000:], file=sys.stderr)
    out = summarize(args, load_out, idle_before, probe_out, idle_after, samples, soak_start, soak_end, before, after)
    out["server_log_errors"] = [ln for ln in log_text.splitlines() if ln.startswith(("ERROR", "Traceback", "internal error"))]
    out["checks"]["no_server_log_errors"] = not out["server_log_errors"]
    out["passed"] = all(out["checks"].values())
    return out


def summarize(
    args: argparse.Namespace,
    load: dict[str, Any],
    idle_before: dict[str, Any],
    soak_probe: dict[str, Any],
    idle_after: dict[str, Any],
    samples: list[tuple[float, int, int, int]],
    t0: float,
    t1: float,
    before: dict[str, int],
    after: dict[str, int],
) -> dict[str, Any]:
    flat = lambda p: [x for g in p["games"] for x in g]  # noqa: E731
    idle_times = flat(idle_before) + flat(idle_after)
    soak_times = flat(soak_probe)
    idle_med = medians(idle_times)
    soak_med = medians(soak_times)
    ratio = (soak_med["all_ms"] or 0.0) / (idle_med["all_ms"] or float("inf"))
    probe_game_medians = [_med_ms([t for _, t in g]) or 0.0 for g in soak_probe["games"]]
    fast_game_medians = [1000 * m for m in load["fast_game_medians"]]
    idle_all = idle_med["all_ms"] or float("nan")

    soak_samples = [s for s in samples if t0 <= s[0] <= t1]
    span = t1 - t0

    def quarter(q: int) -> list[tuple[float, int, int, int]]:
        return [s for s in soak_samples if t0 + q * span / 4 <= s[0] <= t0 + (q + 1) * span / 4]

    def med_mb(xs: list[tuple[float, int, int, int]]) -> float:
        return statistics.median(s[1] for s in xs) / MB if xs else float("nan")

    q2, q4 = med_mb(quarter(1)), med_mb(quarter(3))
    bound = max(20.0, 0.10 * q2)
    statuses: Counter[str] = Counter(load["statuses"])
    for p in (idle_before, soak_probe, idle_after):
        statuses.update(p["statuses"])
    fivexx = sum(n for code, n in statuses.items() if code.startswith("5"))
    transport = (
        load["transport_errors"]
        + soak_probe["transport_errors"]
        + idle_before["transport_errors"]
        + idle_after["transport_errors"]
    )
    unexpected = load["unexpected_responses"] + soak_probe["unexpected"] + idle_before["unexpected"] + idle_after["unexpected"]
    finished = load["outcomes"].get("finished", 0)
    checks = {
        "games_finished": finished >= args.games,
        "no_5xx": fivexx == 0,
        "no_transport_errors": not transport,
        "no_unexpected_responses": not unexpected,
        "memory_flat": q4 - q2 <= bound,
        "probe_latency_within_2x_idle": ratio <= 2.0,
    }
    return {
        "config": {k: getattr(args, k) for k in vars(args) if k not in ("role", "config", "json", "port")},
        "soak_seconds": t1 - t0,
        "games_finished": finished,
        "games_target": args.games,
        "outcomes": load["outcomes"],
        "finished_by_lineup": load["finished_by_lineup"],
        "finished_by_client_kind": load["finished_by_client_kind"],
        "statuses": dict(statuses),
        "errors_5xx": fivexx,
        "transport_errors": transport,
        "unexpected_responses": unexpected,
        "timeline": load["timeline"],
        "stalls_answered": load["stalls"],
        "stall_held_median_s": load["stall_held_median_s"],
        "latency_ms": {
            "idle": idle_med,
            "idle_before": medians(flat(idle_before)),
            "idle_after": medians(flat(idle_after)),
            "soak_probe": soak_med,
            "soak_probe_ratio": ratio,
            "soak_probe_games": len(soak_probe["games"]),
            "soak_probe_game_medians": probe_game_medians,
            "fast_clients_all": medians([(k, t) for k, t in load["fast_times"]]),
            "fast_game_median_p50": _pct(fast_game_medians, 50),
            "fast_game_median_p90": _pct(fast_game_medians, 90),
            "fast_games_within_2x_idle": sum(m <= 2 * idle_all for m in fast_game_medians) / max(1, len(fast_game_medians)),
        },
        "rss_mb": {
            "before_soak": before.get("rss", 0) / MB,
            "second_quarter_median": q2,
            "last_quarter_median": q4,
            "bound": bound,
            "max": max((s[1] for s in soak_samples), default=0) / MB,
            "after": after.get("rss", 0) / MB,
            "samples": [[round(s[0] - t0, 2), round(s[1] / MB, 1), s[2], s[3]] for s in samples],
        },
        "threads": {
            "before": before.get("threads"),
            "max": max((s[2] for s in soak_samples), default=0),
            "after": after.get("threads"),
        },
        "fds": {"before": before.get("fds"), "max": max((s[3] for s in soak_samples), default=0), "after": after.get("fds")},
        "checks": checks,
        "passed": all(checks.values()),
    }


def _pct(xs: list[float], q: float) -> float | None:
    import numpy as np

    return float(np.percentile(xs, q)) if xs else None


def report(r: dict[str, Any]) -> str:
    c, lat, rss = r["config"], r["latency_ms"], r["rss_mb"]
    ok = lambda k: "pass" if r["checks"][k] else "FAIL"  # noqa: E731

    def ms(x: float | None) -> str:
        return "-" if x is None else f"{x:.2f}"

    lines = [
        f"web soak: {r['games_finished']}/{r['games_target']} games finished in {r['soak_seconds']:.1f} s "
        f"({c['clients']} clients, {c['slow_clients']} slow clients, think {c['think']:g} s)  [{ok('games_finished')}]",
        f"  by line-up: {', '.join(f'{k} {v}' for k, v in sorted(r['finished_by_lineup'].items()))}",
        f"  by client kind: {', '.join(f'{k} {v}' for k, v in sorted(r['finished_by_client_kind'].items()))}; "
        f"stalled bodies answered: {r['stalls_answered']} (median held {r['stall_held_median_s'] or 0:.1f} s)",
        f"  statuses: {', '.join(f'{k}: {v}' for k, v in sorted(r['statuses'].items()))}; "
        f"5xx: {r['errors_5xx']} [{ok('no_5xx')}]; transport errors: {len(r['transport_errors'])} "
        f"[{ok('no_transport_errors')}]; unexpected: {len(r['unexpected_responses'])} [{ok('no_unexpected_responses')}]",
        "",
        f"{'request latency, median ms':<34} {'n':>6} {'all':>8} {'create':>8} {'view':>8} {'action':>8}",
    ]
    for name, key in (
        ("probe, idle (before+after)", "idle"),
        ("  idle before", "idle_before"),
        ("  idle after", "idle_after"),
        ("probe, during the soak", "soak_probe"),
        ("soak's own fast clients", "fast_clients_all"),
    ):
        m = lat[key]
        lines.append(
            f"{name:<34} {m['n']:>6} {ms(m['all_ms']):>8} {ms(m['create_ms']):>8} {ms(m['view_ms']):>8} {ms(m['action_ms']):>8}"
        )
    lines += [
        f"probe during soak / idle: {lat['soak_probe_ratio']:.2f}x (<= 2x) [{ok('probe_latency_within_2x_idle')}] "
        f"over {lat['soak_probe_games']} probe games",
        f"soak's fast games, per-game median: p50 {ms(lat['fast_game_median_p50'])} ms, "
        f"p90 {ms(lat['fast_game_median_p90'])} ms; "
        f"{100 * lat['fast_games_within_2x_idle']:.0f}% within 2x idle",
        "",
        f"server RSS MB: before soak {rss['before_soak']:.1f}, 2nd-quarter median {rss['second_quarter_median']:.1f}, "
        f"last-quarter median {rss['last_quarter_median']:.1f} (bound +{rss['bound']:.1f}) [{ok('memory_flat')}], "
        f"max {rss['max']:.1f}, after {rss['after']:.1f}",
        f"server threads: before {r['threads']['before']}, max {r['threads']['max']}, after {r['threads']['after']}; "
        f"open fds: before {r['fds']['before']}, max {r['fds']['max']}, after {r['fds']['after']}",
        f"server log: {len(r['server_log_errors'])} error lines [{ok('no_server_log_errors')}]",
        f"result: {'PASS' if r['passed'] else 'FAIL'}",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=200, help="games the soak plays to the end (default 200)")
    ap.add_argument("--clients", type=int, default=24, help="concurrent clients playing games (default 24)")
    ap.add_argument("--slow-clients", type=int, default=3, help="slow clients: slow body, slow poll, staller in turn (default 3)")
    ap.add_argument("--seconds-limit", type=float, default=120.0, help="the soak stops creating games after this (default 120)")
    ap.add_argument("--think", type=float, default=0.25, help="seconds a client waits between polls (default 0.25, the page's)")
    ap.add_argument("--slow-poll", type=float, default=1.0, help="a slow poller's seconds between requests (default 1)")
    ap.add_argument("--slow-body-seconds", type=float, default=1.5, help="seconds a slow body takes to arrive (default 1.5)")
    ap.add_argument("--idle-seconds", type=float, default=4.0, help="each idle window, before and after the soak (default 4)")
    ap.add_argument("--probe-think", type=float, default=0.1, help="the probe's seconds between polls (default 0.1)")
    ap.add_argument("--agent-delay", type=float, default=0.0, help="the server's --agent-delay (default 0: agents at once)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default="", help="write every figure to this file")
    ap.add_argument("--replay-flood", action="store_true", help="instead: the replay flood (see above)")
    ap.add_argument("--flood-seconds", type=float, default=8.0, help="the replay flood's length (default 8)")
    ap.add_argument("--flood-connections", type=int, default=4, help="the replay flood's connections (default 4)")
    ap.add_argument("--role", choices=("main", "server", "load", "flood"), default="main", help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--config", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.role == "server":
        serve_main(args.port, args.agent_delay)
        return 0
    if args.role == "load":
        print(json.dumps(load_main(json.loads(args.config))), flush=True)
        return 0
    if args.role == "flood":
        print(json.dumps(flood_main(json.loads(args.config))), flush=True)
        return 0
    if args.replay_flood:
        if not 0 < args.flood_seconds <= 120 or not 1 <= args.flood_connections <= 16 or not 0 < args.idle_seconds <= 120:
            ap.error("--flood-seconds and --idle-seconds must be in (0, 120], --flood-connections 1-16")
        r = run_replay_flood(args)
        print(report_flood(r))
        if args.json:
            Path(args.json).write_text(json.dumps(r, indent=1) + "\n", encoding="utf-8")
        return 0 if r["passed"] else 1
    if args.games < 1 or args.clients < 1 or args.slow_clients < 0 or not args.seconds_limit > 0:
        ap.error("--games and --clients must be at least 1, --slow-clients >= 0, --seconds-limit > 0")
    if not 0 < args.slow_body_seconds < 5:
        ap.error("--slow-body-seconds must be below the server's 5 s body deadline")
    if args.clients + args.slow_clients > MAX_GAMES - 8:
        ap.error(f"at most {MAX_GAMES - 8} clients in all: the server holds {MAX_GAMES} games")
    r = run(args)
    print(report(r))
    if args.json:
        Path(args.json).write_text(json.dumps(r, indent=1) + "\n", encoding="utf-8")
    return 0 if r["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
