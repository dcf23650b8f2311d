"""The web API soak (issue 16): benchmarks/web_soak.py plays 200 games through a real server
(loopback only) with concurrent and slow clients; the server's memory stays flat and another
game's median latency within 2x of an idle server. The same holds while one client floods
replay position requests (``--replay-flood``). Also: a client that disconnects mid-body is
not an internal error."""

from __future__ import annotations

import json
import logging
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "web_soak.py"
sys.path.insert(0, str(SCRIPT.parent))

import web_soak  # noqa: E402


def _loopback_sources() -> bool:
    """Whether this machine connects from 127.0.x.y addresses (the soak's clients each use one)."""
    try:
        with socket.socket() as server, socket.socket() as client:
            server.bind(("127.0.0.1", 0))
            server.listen()
            client.bind(("127.0.1.1", 0))
            client.connect(server.getsockname())
        return True
    except OSError:
        return False


@pytest.mark.skipif(not _loopback_sources(), reason="needs the whole 127/8 as loopback (Linux)")
def test_soak_200_games_concurrent_and_slow_clients_memory_flat_latency_within_2x_idle(tmp_path):
    """The acceptance of issue 16, bounded: 200 games played to the end by 24 concurrent clients
    and 3 slow ones (slow body, slow poll, staller), under the server's default limits."""
    out = tmp_path / "soak.json"
    cmd = [sys.executable, str(SCRIPT), "--games", "200", "--clients", "24", "--slow-clients", "3"]
    cmd += ["--seconds-limit", "150", "--idle-seconds", "3", "--json", str(out)]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=400)
    assert out.exists(), p.stdout + p.stderr
    r = json.loads(out.read_text())
    assert r["checks"] == dict.fromkeys(r["checks"], True), p.stdout + p.stderr[-3000:]
    assert p.returncode == 0 and r["passed"]
    assert r["games_finished"] >= 200 and r["outcomes"] == {"finished": 200}
    assert r["errors_5xx"] == 0 and not r["transport_errors"] and not r["server_log_errors"]
    assert not any(code.startswith("5") for code in r["statuses"])
    # every kind of client took part: the fast ones, a slow body, a slow poller and the staller
    kinds = r["finished_by_client_kind"]
    assert kinds.get("fast", 0) > 0 and kinds.get("slow-body", 0) > 0 and kinds.get("slow-poll", 0) > 0
    assert r["stalls_answered"] >= 1 and r["statuses"].get("408", 0) == r["stalls_answered"]
    assert set(r["finished_by_lineup"]) == {f"{rules}:{','.join(seats)}" for rules, seats in web_soak.LINEUPS}
    rss = r["rss_mb"]
    assert rss["last_quarter_median"] - rss["second_quarter_median"] <= rss["bound"]
    lat = r["latency_ms"]
    assert lat["soak_probe_games"] >= 1 and lat["soak_probe_ratio"] <= 2.0
    assert lat["soak_probe"]["all_ms"] <= 2 * lat["idle"]["all_ms"]
    assert r["fds"]["after"] <= r["fds"]["before"] + 4  # the connections were closed


def _fake(times: list[tuple[str, float]]) -> dict:
    return {
        "games": [times],
        "outcomes": {"finished": 1},
        "statuses": {"200": len(times)},
        "unexpected": [],
        "transport_errors": [],
    }


def _verdict(rss_growth_mb: float, slowdown: float) -> dict:
    """summarize() on made-up figures: an RSS line growing by ``rss_growth_mb`` over the soak and
    a probe ``slowdown`` times slower than idle."""
    import argparse

    args = argparse.Namespace(games=1, clients=1, slow_clients=0, think=0.25)
    load = {
        "statuses": {"201": 1},
        "transport_errors": [],
        "unexpected_responses": [],
        "outcomes": {"finished": 1},
        "finished_by_lineup": {},
        "finished_by_client_kind": {"fast": 1},
        "timeline": [],
        "stalls": 0,
        "stall_held_median_s": None,
        "fast_game_medians": [0.01],
        "fast_times": [("view", 0.01)],
    }
    idle = _fake([("view", 0.004)] * 10)
    soak = _fake([("view", 0.004 * slowdown)] * 10)
    samples = [(float(t), int((80 + rss_growth_mb * t / 100) * web_soak.MB), 5, 10) for t in range(101)]
    before = {"rss": 80 * web_soak.MB, "threads": 3, "fds": 7}
    return web_soak.summarize(args, load, idle, soak, idle, samples, 0.0, 100.0, before, before)["checks"]


def test_soak_verdict_fails_on_memory_growth_and_on_a_slow_probe():
    assert all(_verdict(rss_growth_mb=5, slowdown=1.5).values())
    grown = _verdict(rss_growth_mb=100, slowdown=1.5)
    assert not grown["memory_flat"] and grown["probe_latency_within_2x_idle"]
    slow = _verdict(rss_growth_mb=5, slowdown=2.5)
    assert slow["memory_flat"] and not slow["probe_latency_within_2x_idle"]


@pytest.mark.skipif(not _loopback_sources(), reason="needs the whole 127/8 as loopback (Linux)")
def test_a_client_flooding_replay_positions_leaves_another_games_latency_within_2x_idle(tmp_path):
    """One client uploads a replay as long as a replay may be and floods position requests
    (mostly one step back, four connections, never waiting out a 429) for 6 s while another
    game is played: that game's median request latency stays within 2x of the idle server's,
    the flood is both served and refused (its budget of server time), and nothing is a 5xx."""
    out = tmp_path / "flood.json"
    cmd = [sys.executable, str(SCRIPT), "--replay-flood", "--flood-seconds", "6", "--flood-connections", "4"]
    cmd += ["--idle-seconds", "3", "--json", str(out)]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.exists(), p.stdout + p.stderr
    r = json.loads(out.read_text())
    assert r["checks"] == dict.fromkeys(r["checks"], True), p.stdout + p.stderr[-3000:]
    assert p.returncode == 0 and r["passed"]
    flood = r["flood"]
    assert flood["replay_steps"] > 9000 and flood["served"] > 0 and flood["refused"] > 0
    assert r["latency_ms"]["flooded_games"] >= 1 and r["latency_ms"]["flooded_ratio"] <= 2.0
    assert not any(code.startswith("5") for code in r["statuses"])


def test_flood_verdict_fails_on_a_slow_game_a_5xx_or_an_unlimited_flood():
    import argparse

    args = argparse.Namespace(flood_seconds=1.0, flood_connections=1, idle_seconds=1.0, probe_think=0.1, seed=0)

    def verdict(slowdown: float, flood_statuses: dict, served: int = 5, refused: int = 5) -> dict:
        flood = {"replay_steps": 10, "seconds": 1.0, "requests": served + refused, "served": served, "refused": refused,
                 "served_median_ms": 1.0, "refused_median_ms": 1.0, "statuses": flood_statuses, "unexpected": [],
                 "transport_errors": []}  # fmt: skip
        idle = _fake([("view", 0.004)] * 10)
        return web_soak.summarize_flood(args, idle, _fake([("view", 0.004 * slowdown)] * 10), idle, flood, "")["checks"]

    assert all(verdict(1.5, {"200": 5, "429": 5}).values())
    assert not verdict(2.5, {"200": 5, "429": 5})["probe_latency_within_2x_idle"]
    assert not verdict(1.0, {"200": 5, "500": 1})["no_5xx"]
    assert not verdict(1.0, {"200": 10}, served=10, refused=0)["flood_served_and_limited"]


def test_a_client_disconnecting_mid_body_is_not_an_internal_error(caplog):
    """The soak's staller, stopped mid-body, used to make the server log 'internal error' with a
    ClientDisconnect traceback (and answer 500 to nobody)."""
    import httpx
    import uvicorn

    from agents import play_factory
    from clue_env.play.web.server import create_app, uvicorn_config

    port = web_soak.free_port()
    app = create_app(play_factory, agent_delay=0.0)
    game = app.state.store.create(["human", "random", "random"], "classic", 1)
    server = uvicorn.Server(uvicorn_config(app, "127.0.0.1", port))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        with caplog.at_level(logging.ERROR):
            for path in ("/api/games", f"/api/games/{game.id}/actions"):
                sock = socket.create_connection(("127.0.0.1", port), timeout=5)
                sock.sendall(
                    f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {game.tokens[0]}\r\n"
                    'Content-Type: application/json\r\nContent-Length: 400\r\n\r\n{"seats": ["hu'.encode()
                )
                time.sleep(0.2)
                sock.close()
            time.sleep(0.5)
            r = httpx.get(f"http://127.0.0.1:{port}/api/meta", timeout=5)
        assert r.status_code == 200 and game.session.version == 0  # nothing changed
        errors = [rec for rec in caplog.records if rec.levelno >= logging.ERROR]
        assert not errors, [rec.getMessage() for rec in errors]
    finally:
        server.should_exit = True
        thread.join(10)
