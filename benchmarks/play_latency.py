"""How long a person waits when playing: agent decision times and web API round trips.

    python benchmarks/play_latency.py [--games 20] [--requests 400]

1. Agent decisions: whole games of ``human`` + 3 agents of one kind through a
   :class:`clue_env.play.GameSession` (the human seat plays a random legal non-accusation);
   every agent decision is timed (``session.decision_seconds``).
2. API round trips: a real server (uvicorn on 127.0.0.1, agents moving at once) and an HTTP
   client (httpx) playing the human seat: each ``GET /api/games/ID`` and each
   ``POST /api/games/ID/actions`` is timed end to end, agents' replies included in the POST.

Prints the median and the 99th percentile of each.
"""

from __future__ import annotations

import argparse
import socket
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import play_factory  # noqa: E402
from clue_env.play import GameSession  # noqa: E402


def agent_times(spec: str, games: int, seed: int) -> np.ndarray:
    times: list[float] = []
    rng = np.random.default_rng(seed)
    for g in range(games):
        s = GameSession(["human", spec, spec, spec], agent_factory=play_factory, seed=seed + g, agent_seed=g)
        while not s.over:
            s.advance()
            if s.over:
                break
            legal = [t for t in s.legal(0) if not t.startswith("accuse")] or list(s.legal(0))
            s.act(0, legal[int(rng.integers(len(legal)))])
        times += s.decision_seconds
    return np.array(times)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def api_times(requests: int, spec: str) -> tuple[np.ndarray, np.ndarray]:
    import httpx
    import uvicorn

    from clue_env.play.web.server import create_app

    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            # one client plays game after game: the per-client creation rate limit would stop it
            create_app(play_factory, agent_delay=0.0, creation_burst=10_000),
            host="127.0.0.1",
            port=port,
            log_level="warning",
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    get_t: list[float] = []
    post_t: list[float] = []
    rng = np.random.default_rng(0)
    with httpx.Client(base_url=base, timeout=30) as client:
        for _ in range(100):
            try:
                client.get("/api/meta")
                break
            except httpx.TransportError:
                time.sleep(0.1)
        seed = 0
        while len(post_t) < requests:
            r = client.post("/api/games", json={"seats": ["human", spec, spec, spec], "seed": seed})
            seed += 1
            game, tok = r.json()["game"], r.json()["tokens"]["player_0"]
            h = {"Authorization": f"Bearer {tok}"}
            while len(post_t) < requests:
                t0 = time.perf_counter()
                v = client.get(f"/api/games/{game}", headers=h).json()
                get_t.append(time.perf_counter() - t0)
                if v["over"]:
                    break
                legal = [t for t in v["legal"] if not t.startswith("accuse")] or v["legal"]
                t0 = time.perf_counter()
                r = client.post(
                    f"/api/games/{game}/actions",
                    headers=h,
                    json={"action": legal[int(rng.integers(len(legal)))], "version": v["version"]},
                )
                post_t.append(time.perf_counter() - t0)
                assert r.status_code == 200, r.text
    server.should_exit = True
    thread.join(5)
    return np.array(get_t), np.array(post_t)


def row(name: str, x: np.ndarray) -> str:
    return f"{name:<38} {len(x):>7} {1000 * np.median(x):>9.2f} {1000 * np.percentile(x, 99):>9.2f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=20, help="games per agent kind")
    ap.add_argument("--requests", type=int, default=400, help="POST actions timed through the API")
    ap.add_argument("--agents", default="ppo,deduction,notebook")
    args = ap.parse_args()
    print(f"{'what':<38} {'n':>7} {'median ms':>9} {'p99 ms':>9}")
    for spec in args.agents.split(","):
        print(row(f"agent decision: {spec}", agent_times(spec, args.games, 100)), flush=True)
    gets, posts = api_times(args.requests, "ppo")
    print(row("API GET view (vs 3 ppo)", gets))
    print(row("API POST action + agents' replies", posts))


if __name__ == "__main__":
    main()
