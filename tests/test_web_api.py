"""The web API (SPEC "Scripts", play.py --web): every refusal of the server's security model,
and R31 through the API: a seat's responses never depend on cards it cannot see."""

from __future__ import annotations

import json
import logging
import os

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402
from test_leak import _deal_options, _redeal, _seen_by  # noqa: E402

from agents import play_factory  # noqa: E402
from clue_env.engine.cards import CARDS, ROOMS, SUSPECTS, WEAPON_BASE, WEAPONS  # noqa: E402
from clue_env.engine.events import Show, Suggest  # noqa: E402
from clue_env.play.web.server import MAX_BODY, create_app  # noqa: E402
from clue_env.play.web.store import GameStore  # noqa: E402


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


#: the test client's address: the server is bound to loopback, so the Host must be a loopback name
BASE_URL = "http://127.0.0.1:8000"


def make_client(address=("testclient", 50000), **kw):
    kw.setdefault("agent_seed", 0)
    store = GameStore(play_factory, agent_delay=kw.pop("agent_delay", 0.0), **kw)
    return TestClient(create_app(play_factory, store=store), base_url=BASE_URL, client=address), store


@pytest.fixture()
def client():
    c, _store = make_client()
    return c


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def new_game(c, seats=("human", "random", "random", "random"), seed=5, **extra):
    r = c.post("/api/games", json={"seats": list(seats), "seed": seed, **extra})
    assert r.status_code == 201, r.text
    return r.json()


def view(c, game, token):
    r = c.get(f"/api/games/{game}", headers=auth(token))
    assert r.status_code == 200, r.text
    return r.json()


def act(c, game, token, action, version):
    return c.post(f"/api/games/{game}/actions", headers=auth(token), json={"action": action, "version": version})


def snapshot(c, game, token):
    v = view(c, game, token)
    return json.dumps(v, sort_keys=True)


# ---------------------------------------------------------------------- creating games
def test_create_returns_201_with_unguessable_ids_and_one_token_per_human_seat(client):
    g = new_game(client, seats=("human", "random", "human"), seed=None)
    assert set(g["tokens"]) == {"player_0", "player_2"}
    assert len(g["game"]) >= 24 and all(len(t) >= 32 for t in g["tokens"].values())
    assert len(set(g["tokens"].values())) == 2
    others = {new_game(client)["game"] for _ in range(5)}
    assert len(others | {g["game"]}) == 6
    # invite links carry the token after '#', which a browser never sends to the server
    for seat, link in g["links"].items():
        assert link == f"/#game={g['game']}&token={g['tokens'][seat]}"


def test_create_defaults_to_one_human_and_the_shipped_policy(client):
    r = client.post("/api/games", json={})
    assert r.status_code == 201
    g = r.json()
    v = view(client, g["game"], g["tokens"]["player_0"])
    assert [s["player"] for s in v["seats"]] == ["human", "ppo", "ppo", "ppo"]


@pytest.mark.parametrize(
    "body, needle",
    [
        ({"seats": ["human", "ppo:/etc/passwd", "random"]}, "not offered"),
        ({"seats": ["human", "random"]}, "3 to 6 players"),
        ({"seats": ["random", "random", "random"]}, "at least one 'human'"),
        ({"seats": "human,random,random"}, "seats must be a list"),
        ({"seats": ["human", 5, "random"]}, "seats must be a list"),
        ({"rules": "configs/rules/classic.yaml"}, "rules must be one of"),
        ({"seed": -1}, "seed must be"),
        ({"seed": "7"}, "seed must be"),
        ({"seed": 2**70}, "seed must be"),
        ({"players": 9}, "players must be"),
        ({"players": 3, "seats": ["human", "random"]}, "players is 3"),
        ({"colour": "red"}, "unknown field"),
        ({"seats": ["human", "human", "random"], "seed": 12345}, "only with one human seat"),
        ({"seats": ["human", "human"], "rules": "edition2023", "seed": 0}, "only with one human seat"),
    ],
)
def test_create_refuses_bad_requests_with_400_naming_the_problem(client, body, needle):
    r = client.post("/api/games", json=body)
    assert r.status_code == 400, r.text
    assert needle in r.json()["error"]


def test_games_in_memory_are_capped_and_idle_games_forgotten():
    clock = Clock()
    c, store = make_client(max_games=2, idle_timeout=60.0, clock=clock)
    a = new_game(c)
    new_game(c)
    r = c.post("/api/games", json={"seats": ["human", "random", "random"]})
    assert r.status_code == 503 and "limit" in r.json()["error"]
    clock.t += 30
    view(c, a["game"], a["tokens"]["player_0"])  # a is still in use
    clock.t += 45  # the second game has been idle for 75 s, a for 45 s
    assert c.post("/api/games", json={"seats": ["human", "random", "random"]}).status_code == 201
    assert len(store) == 2
    clock.t += 61
    r = c.get(f"/api/games/{a['game']}", headers=auth(a["tokens"]["player_0"]))
    assert r.status_code == 404


def _finish(c, game, token):
    """Play seat 0 to the end of a game against agents (it accuses at once, most likely wrongly)."""
    v = _accuse_wrongly(c, game, token)
    for _ in range(500):
        v = view(c, game, token)
        if v["over"]:
            return v
        if v["my_turn"]:
            assert act(c, game, token, v["legal"][0], v["version"]).status_code == 200
    raise AssertionError("the game did not end")


def test_finished_games_give_up_their_slot_after_a_short_grace():
    clock = Clock()
    c, store = make_client(max_games=2, clock=clock, finished_grace=60.0)
    done = new_game(c, seats=("human", "uniform", "uniform"), seed=4)
    live = new_game(c)
    tok = done["tokens"]["player_0"]
    assert _finish(c, done["game"], tok)["over"]
    r = c.post("/api/games", json={"seats": ["human", "random", "random"]})
    assert r.status_code == 503 and int(r.headers["retry-after"]) >= 1  # just finished: kept for the last views
    clock.t += 50
    assert view(c, done["game"], tok)["over"]  # a last look restarts its grace
    clock.t += 50
    assert c.post("/api/games", json={"seats": ["human", "random", "random"]}).status_code == 503
    clock.t += 11  # 61 s since the last look, far less than the 2 h idle timeout
    assert c.post("/api/games", json={"seats": ["human", "random", "random"]}).status_code == 201
    assert len(store) == 2
    assert c.get(f"/api/games/{done['game']}", headers=auth(tok)).status_code == 404  # the finished game was evicted
    view(c, live["game"], live["tokens"]["player_0"])  # the unfinished one was kept


def test_one_client_can_hold_only_a_few_live_games_and_create_them_at_a_limited_rate():
    clock = Clock()
    kw = dict(clock=clock, max_live_per_client=2, creation_burst=3, creation_interval=10.0)
    a, store = make_client(address=("10.0.0.1", 1111), **kw)
    b = TestClient(a.app, base_url=BASE_URL, client=("10.0.0.2", 2222))
    g1, g2 = new_game(a), new_game(a)
    r = a.post("/api/games", json={})
    assert r.status_code == 429 and "unfinished games" in r.json()["error"] and "DELETE" in r.json()["error"]
    assert int(r.headers["retry-after"]) >= 1
    assert new_game(b)["game"]  # another client is not held back
    r = a.delete(f"/api/games/{g1['game']}", headers=auth(g1["tokens"]["player_0"]))
    assert r.status_code == 200 and r.json()["ended"] is True
    g3 = new_game(a)  # the third creation of the burst
    a.delete(f"/api/games/{g3['game']}", headers=auth(g3["tokens"]["player_0"]))
    r = a.post("/api/games", json={})  # a free slot, but the bucket is empty
    assert r.status_code == 429 and "too many new games" in r.json()["error"] and r.headers["retry-after"] == "10"
    clock.t += 5
    r = a.post("/api/games", json={})
    assert r.status_code == 429 and r.headers["retry-after"] == "5"
    clock.t += 5
    assert new_game(a)["game"]
    assert len(store) == 3 and g2["game"] in {g.id for g in store._games.values()}


def test_a_flood_of_creations_from_one_client_does_not_lock_out_the_others():
    """The audit's attack: 64 creations in a burst used to fill the store for 2 hours."""
    a, store = make_client(address=("203.0.113.7", 4000))  # the default limits
    codes = [a.post("/api/games", json={"seats": ["human", "random", "random"]}).status_code for _ in range(64)]
    assert codes.count(201) == store.max_live_per_client and set(codes) == {201, 429}
    for i, address in enumerate((("203.0.113.8", 1), ("2001:db8:1::5", 2), ("2001:db8:2::5", 3))):
        other = TestClient(a.app, base_url=BASE_URL, client=address)
        assert other.post("/api/games", json={"seats": ["human", "random", "random"]}).status_code == 201, i
    same_net = TestClient(a.app, base_url=BASE_URL, client=("2001:db8:1::6", 9))  # the same /64 counts as one client
    for _ in range(store.max_live_per_client - 1):
        assert same_net.post("/api/games", json={}).status_code == 201
    assert same_net.post("/api/games", json={}).status_code == 429


def test_a_seat_may_end_its_game_and_nothing_else_may():
    c, store = make_client()
    g = new_game(c, seats=("human", "human", "random"), seed=None)
    other = new_game(c)
    gid, t0, t1 = g["game"], g["tokens"]["player_0"], g["tokens"]["player_1"]
    assert c.delete(f"/api/games/{gid}").status_code == 401
    assert c.delete(f"/api/games/{gid}", headers=auth(other["tokens"]["player_0"])).status_code == 403
    assert c.delete("/api/games/nosuchgame", headers=auth(t0)).status_code == 404
    r = c.delete(f"/api/games/{gid}", headers={**auth(t1), "Origin": "http://evil.example"})
    assert r.status_code == 403
    assert len(store) == 2 and view(c, gid, t0)["seat"] == "player_0"
    r = c.delete(f"/api/games/{gid}", headers=auth(t1))
    assert r.status_code == 200 and r.json() == {"game": gid, "ended": True, "by": "player_1"}
    assert len(store) == 1
    for tok in (t0, t1):
        assert c.get(f"/api/games/{gid}", headers=auth(tok)).status_code == 404
        assert act(c, gid, tok, "roll", 0).status_code == 404
    assert c.delete(f"/api/games/{gid}", headers=auth(t0)).status_code == 404
    view(c, other["game"], other["tokens"]["player_0"])


def test_a_seeded_game_has_one_human_seat_and_every_view_says_whether_it_was_seeded(client):
    """A seed fixes the deal: with several human seats, raw_env.reset(seed=...) offline would show
    the creator every other seat's hand and the envelope. So a seed is refused there."""
    r = client.post("/api/games", json={"seats": ["human", "human", "random"], "seed": 12345})
    assert r.status_code == 400 and "one human seat" in r.json()["error"]
    assert len(client.app.state.store) == 0  # nothing was created
    g = new_game(client, seats=("human", "human", "random"), seed=None)
    assert all(view(client, g["game"], t)["seeded"] is False for t in g["tokens"].values())
    s = new_game(client, seats=("human", "random", "random"), seed=12345)
    assert view(client, s["game"], s["tokens"]["player_0"])["seeded"] is True
    u = new_game(client, seed=None)
    assert view(client, u["game"], u["tokens"]["player_0"])["seeded"] is False


# ---------------------------------------------------------------------- who may ask
def test_401_without_a_token_403_with_a_token_of_another_game_404_for_an_unknown_game(client):
    g, h = new_game(client), new_game(client)
    gid, tok = g["game"], g["tokens"]["player_0"]
    for headers in ({}, {"Authorization": ""}, {"Authorization": "Basic abc"}, {"Authorization": "Bearer "}):
        r = client.get(f"/api/games/{gid}", headers=headers)
        assert r.status_code == 401 and "token" in r.json()["error"]
        r = client.post(f"/api/games/{gid}/actions", headers=headers, json={"action": "roll", "version": 0})
        assert r.status_code == 401
    for bad in (h["tokens"]["player_0"], "x" * 32, tok[:-1], tok + "A"):
        assert client.get(f"/api/games/{gid}", headers=auth(bad)).status_code == 403
        assert act(client, gid, bad, "roll", 0).status_code == 403
    assert client.get("/api/games/nosuchgame", headers=auth(tok)).status_code == 404
    assert act(client, "nosuchgame", tok, "roll", 0).status_code == 404
    assert client.get(f"/api/games/{gid}", headers={"Authorization": "Bearer " + "a" * 5000}).status_code == 401


def test_tokens_are_compared_in_constant_time_against_every_seat(client, monkeypatch):
    import hmac

    g = new_game(client, seats=("human", "human", "human"), seed=None)
    calls = []
    real = hmac.compare_digest

    def spy(a, b):
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    view(client, g["game"], g["tokens"]["player_0"])
    assert len(calls) == 3  # every seat compared, also after the match


# ---------------------------------------------------------------------- what may be played
def test_409_for_another_seat_a_stale_version_an_illegal_action_and_a_finished_game(client):
    g = new_game(client, seats=("human", "human", "random"), seed=None)
    t0, t1 = g["tokens"]["player_0"], g["tokens"]["player_1"]
    v0 = view(client, g["game"], t0)
    assert v0["acting"] == "player_0" and v0["legal"]
    before = snapshot(client, g["game"], t0), snapshot(client, g["game"], t1)
    r = act(client, g["game"], t1, "roll", v0["version"])
    assert r.status_code == 409 and "player_0" in r.json()["error"]
    assert act(client, g["game"], t0, "roll", v0["version"] + 1).status_code == 409
    r = act(client, g["game"], t0, "suggest plum rope", v0["version"])
    assert r.status_code == 409 and "not legal" in r.json()["error"]
    assert (snapshot(client, g["game"], t0), snapshot(client, g["game"], t1)) == before
    r = act(client, g["game"], t0, v0["legal"][0], v0["version"])
    assert r.status_code == 200 and r.json()["version"] == v0["version"] + 1
    r = act(client, g["game"], t0, "roll", v0["version"])  # the view it was chosen from is stale now
    assert r.status_code == 409


def test_the_other_seats_legal_list_is_empty_and_their_cards_unseen(client):
    g = new_game(client, seats=("human", "human", "random"), seed=None)
    v1 = view(client, g["game"], g["tokens"]["player_1"])
    assert v1["legal"] == [] and not v1["my_turn"] and v1["waiting_for"] == "player_0"
    v0 = view(client, g["game"], g["tokens"]["player_0"])
    assert not set(v0["hand"]) & set(v1["hand"])
    assert "envelope" not in v0 and "result" not in v0 and "solution" not in v0["public"]


def _accuse_wrongly(client, game, token):
    """Play seat 0 into an accusation it makes (wrongly, most likely) and return the view."""
    for _ in range(200):
        v = view(client, game, token)
        if v["over"] or not v["my_turn"]:
            return v
        accusations = v["legal_groups"].get("accuse")
        if accusations:
            return act(client, game, token, accusations[0], v["version"]).json()
        pick = next(t for t in v["legal"] if not t.startswith("accuse"))
        assert act(client, game, token, pick, v["version"]).status_code == 200
    raise AssertionError("no accusation offered")


def test_a_finished_game_refuses_actions_and_shows_the_envelope_and_every_hand(client):
    g = new_game(client, seats=("human", "random", "random"), seed=4)
    tok = g["tokens"]["player_0"]
    _accuse_wrongly(client, g["game"], tok)  # classic: an eliminated seat still refutes (R29), the agents finish the game
    for _ in range(500):
        v = view(client, g["game"], tok)
        if v["over"]:
            break
        if v["my_turn"]:
            assert act(client, g["game"], tok, v["legal"][0], v["version"]).status_code == 200
    assert v["over"] and v["acting"] is None and v["legal"] == []
    assert len(v["envelope"]) == 3 and set(v["result"]["hands"]) == {"player_0", "player_1", "player_2"}
    r = act(client, g["game"], tok, "roll", v["version"])
    assert r.status_code == 409 and "over" in r.json()["error"]


# ---------------------------------------------------------------------- malformed and hostile bodies
@pytest.mark.parametrize(
    "content, needle",
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "JSON object"),
        (b'"roll"', "JSON object"),
        (b"\xff\xfe", "not valid JSON"),
        (b'{"action": 5, "version": 0}', "action's text form"),
        (b'{"version": 0}', "action's text form"),
        (b'{"action": "roll", "version": "0"}', "version must be"),
        (b'{"action": "roll", "version": NaN}', "not valid JSON"),
        (b'{"action": "fly to the moon", "version": 0}', "Accepted forms"),
        (b'{"action": "move 99999999999999999999999,1", "version": 0}', "action text"),
        (b'{"action": "roll"}', "version of the view"),
        (b'{"action": "roll", "version": null}', "version of the view"),
        (b'{"action": "roll", "version": 0, "extra": 1}', "unknown field"),
        (b'{"action": "roll", "Version": 0}', "unknown field"),
        (b"[" * MAX_BODY, "nested too deeply"),
        (b'{"action": ' + b"[" * 4000 + b"]" * 4 + b"}", "nested too deeply"),
    ],
)
def test_400_for_a_malformed_body_or_action_text_and_nothing_changes(client, content, needle):
    g = new_game(client)
    tok = g["tokens"]["player_0"]
    before = snapshot(client, g["game"], tok)
    r = client.post(f"/api/games/{g['game']}/actions", headers={**auth(tok), "Content-Type": "application/json"}, content=content)
    assert r.status_code == 400, r.text
    assert needle in r.json()["error"]
    assert snapshot(client, g["game"], tok) == before


def test_413_for_a_body_over_4_KiB_even_without_a_content_length(client):
    g = new_game(client)
    tok = g["tokens"]["player_0"]
    before = snapshot(client, g["game"], tok)
    big = json.dumps({"action": "roll", "version": 0, "pad": "x" * MAX_BODY}).encode()
    r = client.post(f"/api/games/{g['game']}/actions", headers=auth(tok), content=big)
    assert r.status_code == 413
    r = client.post(f"/api/games/{g['game']}/actions", headers=auth(tok), content=iter([b"{", b" " * MAX_BODY, b"}"]))
    assert r.status_code == 413
    assert client.post("/api/games", content=big).status_code == 413
    assert snapshot(client, g["game"], tok) == before


def test_origin_and_host_checks_and_no_cors(client):
    g = new_game(client)
    tok = g["tokens"]["player_0"]
    v = view(client, g["game"], tok)
    r = client.post(
        f"/api/games/{g['game']}/actions",
        headers={**auth(tok), "Origin": "http://evil.example"},
        json={"action": v["legal"][0], "version": v["version"]},
    )
    assert r.status_code == 403 and "origin" in r.json()["error"]
    assert client.post("/api/games", headers={"Origin": "http://evil.example"}, json={}).status_code == 403
    assert client.get(f"/api/games/{g['game']}", headers={**auth(tok), "Host": "evil.example"}).status_code == 400
    for host in ("testserver", "testserver:80", "localhost.evil.example"):  # no test name left in the allowed list
        r = client.get(f"/api/games/{g['game']}", headers={**auth(tok), "Host": host})
        assert r.status_code == 400 and "unexpected Host" in r.json()["error"], host
    for host in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000", "localhost"):
        assert client.get(f"/api/games/{g['game']}", headers={**auth(tok), "Host": host}).status_code == 200, host
    r = client.get(f"/api/games/{g['game']}", headers={**auth(tok), "Origin": "http://evil.example"})
    assert "access-control-allow-origin" not in {k.lower() for k in r.headers}
    assert r.headers["cache-control"] == "no-store"
    same = client.post(
        f"/api/games/{g['game']}/actions",
        headers={**auth(tok), "Origin": BASE_URL},
        json={"action": v["legal"][0], "version": v["version"]},
    )
    assert same.status_code == 200


def test_unknown_routes_and_methods_get_json_errors(client):
    r = client.get("/api/nothing")
    assert r.status_code == 404 and "error" in r.json()
    r = client.delete("/api/games")
    assert r.status_code == 405 and "error" in r.json()
    assert client.get("/api/games/x/actions").status_code in (401, 404, 405)


def test_tokens_never_reach_the_logs(client, caplog):
    caplog.set_level(logging.DEBUG)
    g = new_game(client, seats=("human", "human", "random"), seed=None)
    for tok in g["tokens"].values():
        view(client, g["game"], tok)
        client.get("/api/games/zzz", headers=auth(tok))
    text = caplog.text
    assert not any(tok in text for tok in g["tokens"].values())


def test_hostile_requests_leave_other_games_playable(client):
    g, other = new_game(client), new_game(client, seed=9)
    tok = g["tokens"]["player_0"]
    for content in (b"", b"\x00" * 100, b"{" * 3000, b'{"action": "' + b"A" * 4000 + b'"}', b'{"action": {"a": [[[[]]]]}}'):
        r = client.post(f"/api/games/{g['game']}/actions", headers=auth(tok), content=content)
        assert 400 <= r.status_code < 500
    ot = other["tokens"]["player_0"]
    v = view(client, other["game"], ot)
    assert act(client, other["game"], ot, v["legal"][0], v["version"]).status_code == 200


def test_deeply_nested_json_is_a_400_on_every_endpoint_and_nothing_changes(client):
    """4 KiB of '[' used to raise RecursionError in the JSON parser: a 500 with a traceback."""
    g = new_game(client)
    tok = g["tokens"]["player_0"]
    before = snapshot(client, g["game"], tok), len(client.app.state.store)
    for body in (b"[" * MAX_BODY, b"[" * 2000 + b"]" * 2000, b'{"seats": ' + b"[" * 1500 + b"]" * 1500 + b"}"):
        for path, headers in (("/api/games", {}), (f"/api/games/{g['game']}/actions", auth(tok))):
            r = client.post(path, headers=headers, content=body)
            assert r.status_code == 400 and "nested too deeply" in r.json()["error"], (path, r.text[:200])
    assert (snapshot(client, g["game"], tok), len(client.app.state.store)) == before


def _serve(app, forwarded_allow_ips=None):
    """A real uvicorn server on 127.0.0.1 with the configuration serve() uses; (port, stop)."""
    import socket
    import threading
    import time

    import uvicorn

    from clue_env.play.web.server import uvicorn_config

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    server = uvicorn.Server(uvicorn_config(app, "127.0.0.1", port, forwarded_allow_ips))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)

    def stop():
        server.should_exit = True
        thread.join(10)

    return port, stop


def test_a_stalled_request_body_gets_408_and_the_connection_is_closed_within_the_deadline():
    """Headers and the first byte of a 4,000-byte body, then nothing: the server answers 408 and
    closes the connection once the body deadline passes (it used to wait forever)."""
    import socket
    import time

    pytest.importorskip("uvicorn")
    from clue_env.play.web.server import BODY_TIMEOUT, KEEP_ALIVE_TIMEOUT

    assert BODY_TIMEOUT <= 10 and KEEP_ALIVE_TIMEOUT <= 10  # the production budgets are a few seconds
    store = GameStore(play_factory, agent_delay=0.0, agent_seed=0)
    app = create_app(play_factory, store=store, body_timeout=1.0)
    port, stop = _serve(app)
    try:
        g = store.create(["human", "random", "random"], "classic", 1)
        tok = g.tokens[0]
        heads = [
            f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            "Content-Length: 4000\r\n\r\n{",
            f"POST /api/games/{g.id}/actions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {tok}\r\n"
            'Content-Type: application/json\r\nContent-Length: 4000\r\n\r\n{"action": "ro',
        ] * 5
        socks = []
        t0 = time.monotonic()
        for head in heads:
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.sendall(head.encode())
            socks.append(sock)
        for sock in socks:
            data = b""
            while True:  # read until the server closes the connection
                chunk = sock.recv(4096)
                if not chunk:
                    break
                data += chunk
            sock.close()
            assert data.startswith(b"HTTP/1.1 408"), data[:200]
            assert b"did not arrive within" in data
        elapsed = time.monotonic() - t0
        assert elapsed < 4.0, f"the stalled connections stayed open {elapsed:.1f} s"
        assert g.session.version == 0 and len(store) == 1  # nothing changed
        import httpx

        r = httpx.get(f"http://127.0.0.1:{port}/api/games/{g.id}", headers=auth(tok), timeout=5)
        assert r.status_code == 200 and r.json()["version"] == 0  # and the server goes on serving
    finally:
        stop()


def test_api_fuzz_random_and_malformed_requests_get_4xx_and_change_nothing(client):
    """Random bodies, actions, versions and headers: never a 5xx, and nothing changes unless a
    legal action was played (reported: cases tried)."""
    g = new_game(client)
    gid, tok = g["game"], g["tokens"]["player_0"]
    junk = [None, 1, -1, 1.5, True, "roll", "", [], {}, 2**80, "\u202e", {"action": "roll"}]
    rng = np.random.default_rng(0)
    words = [
        "roll",
        "end",
        "move",
        "enter",
        "toward",
        "suggest",
        "show",
        "accuse",
        "hall",
        "plum",
        "rope",
        "7,4",
        "",
        " ",
        "\x00",
    ]
    cases = 0
    budget = int(os.environ.get("CLUE_API_FUZZ_REQUESTS", "300"))
    for _ in range(budget):
        v = view(client, gid, tok)
        before = json.dumps(v, sort_keys=True)
        kind = rng.integers(5)
        if kind == 0:
            action = " ".join(rng.choice(words, size=rng.integers(1, 4)))
            body = json.dumps({"action": action, "version": int(v["version"] + rng.integers(-1, 2))}).encode()
        elif kind == 1:
            body = bytes(rng.integers(0, 256, size=rng.integers(0, 64), dtype=np.uint8))
        elif kind == 2:
            body = json.dumps({"action": [1, 2], "version": None, "x": "y"}).encode()
        elif kind == 3:
            body = json.dumps({"action": str(rng.integers(-(2**62), 2**62)), "version": v["version"]}).encode()
        else:
            action, version = (junk[int(i)] for i in rng.integers(len(junk), size=2))
            body = json.dumps({"action": action, "version": version}).encode()
        headers = auth(tok) if rng.random() < 0.9 else {"Authorization": "Bearer " + "".join(rng.choice(list("abc"), 8))}
        r = client.post(f"/api/games/{gid}/actions", headers=headers, content=body)
        cases += 1
        assert r.status_code < 500, r.text
        if r.status_code == 200:
            continue
        assert "error" in r.json()
        assert json.dumps(view(client, gid, tok), sort_keys=True) == before
    print(f"[API fuzz] {cases} requests (CLUE_API_FUZZ_REQUESTS={budget})")
    assert cases == budget


# ---------------------------------------------------------------------- R31 through the API
LEAK_CASES = [
    (3, 1, 0, "classic"),
    (4, 2, 1, "classic"),
    (5, 3, 4, "classic"),
    (4, 10, 2, "edition2023"),
    (2, 8, 0, "edition2023"),
]


def _drive(c, game, actions, viewer, rng_show, api=True):
    """Replay ``actions`` (every seat is human here; a refuter in a suggestion the viewer does
    not witness shows any legal card), through the API when ``api``, else straight into the
    session. Returns the viewer's responses (JSON text without the game id) while the game is
    not over and what it witnessed at each step (from the engine log, not the server's code), or
    None when the replay stops being possible."""
    from clue_env.engine.cards import CARDS

    session = game.session
    responses, seen = [], []

    def record():
        seen.append(_seen_by(session.game.log, viewer))
        if api:
            r = c.get(f"/api/games/{game.id}", headers=auth(game.tokens[viewer]))
            assert r.status_code == 200
            v = r.json()
            v.pop("game")
            # the whole response is compared, the seat's worded news, log and last moves included
            assert {"news", "last_moves", "log", "dice_glass"} <= set(v)
            responses.append(json.dumps(v, sort_keys=True))

    record()
    for text in actions:
        g = session.game
        if g.over:
            return None
        if text.startswith("show") and viewer not in (g.acting, g.current):
            legal = list(g.refute_cards)
            if not legal:
                return None
            text = "show " + CARDS[int(rng_show.choice(legal))]
        seat = g.acting
        if api:
            if act(c, game.id, game.tokens[seat], text, session.version).status_code != 200:
                return None
        else:
            try:
                session.act(seat, text)
            except ValueError:
                return None
        if not session.over:
            record()
    return responses, seen


@pytest.mark.parametrize("n, seed, viewer, rules", LEAK_CASES)
def test_R31_api_responses_unchanged_under_consistent_redeal(n, seed, viewer, rules):
    c, store = make_client()
    # the notebook is compared in every mode but off: its grid, shown-by-me column and deduce figures
    mode = ("facts", "deduce", "seen")[seed % 3]
    deal = _deal_options(store.create(["human"] * n, rules, seed).session.game)
    base_game = store.create(["human"] * n, rules, seed, options=deal)  # the same chance as the replays
    rng = np.random.default_rng(seed)
    actions = []
    s = base_game.session
    while len(actions) < 150 and sum(isinstance(e, Suggest) for e in s.game.log) < 4 and not s.over:
        seat = s.acting
        legal = [t for t in s.legal(seat) if not t.startswith("accuse")] or list(s.legal(seat))
        text = legal[int(rng.integers(len(legal)))]
        actions.append(text)
        s.act(seat, text)
    assert any(isinstance(e, Show) for e in s.game.log)
    game0 = s.game
    first = store.create(["human"] * n, rules, seed, options=deal)
    first.notes = mode
    base = _drive(c, first, actions, viewer, np.random.default_rng(0))
    assert base is not None
    base_responses, base_seen = base
    last = json.loads(base_responses[-1])
    assert last["notes_mode"] == mode and len(last["notes"]["rows"]) == len(CARDS)
    assert all(len(r["seats"]) == n and r["envelope"] in ("holds", "cannot", "unknown") for r in last["notes"]["rows"])
    assert (last["notes"]["deduce"] is not None) == (mode == "deduce")
    accepted = 0
    for t in range(300):
        opts = _redeal(game0, viewer, np.random.default_rng(1000 + t))
        if opts is None:
            continue
        # which re-deals are consistent with what the viewer saw: decided off the API, from the engine log
        trial = store.create(["human"] * n, rules, seed, options=opts)
        quick = _drive(c, trial, actions, viewer, np.random.default_rng(t), api=False)
        store.drop(trial.id)
        if quick is None or quick[1] != base_seen:
            continue
        game = store.create(["human"] * n, rules, seed, options=opts)
        game.notes = mode
        res = _drive(c, game, actions, viewer, np.random.default_rng(t))
        store.drop(game.id)
        assert res is not None and res[1] == base_seen
        accepted += 1
        for k, (a, b) in enumerate(zip(base_responses, res[0])):
            assert a == b, f"response {k} to player_{viewer} depends on cards it cannot see"
        if accepted >= 3:
            break
    assert accepted >= 2, f"only {accepted} consistent re-deals"


def test_R31_api_leak_check_detects_a_leak(monkeypatch):
    """The check above fails if a response carried a card shown between two other seats."""
    from clue_env.play.web import server

    original = server.seat_response

    def leaky(game, seat, log_from=0):
        out = original(game, seat, log_from)
        out["debug"] = [str(ev) for ev in game.session.game.log if isinstance(ev, Show)]
        return out

    monkeypatch.setattr(server, "seat_response", leaky)
    with pytest.raises(AssertionError, match="cannot see"):
        test_R31_api_responses_unchanged_under_consistent_redeal(4, 2, 1, "classic")


@pytest.mark.parametrize("field", ["news", "log", "last_moves"])
def test_R31_api_leak_check_detects_a_leak_in_the_worded_fields(monkeypatch, field):
    """The redeal check also catches a card shown between two other seats worded into the news,
    the log or the last moves (here: the public wording, given the unredacted event)."""
    from clue_env.play.web import server

    original = server.seat_response

    def leaky(game, seat, log_from=0):
        out = original(game, seat, log_from)
        shows = [ev for ev in game.session.game.log if isinstance(ev, Show) and seat not in (ev.refuter, ev.suggester)]
        words = [f"{ev.refuter} showed {ev.card} to {ev.suggester}" for ev in shows]
        if field == "news":
            out["news"]["turns"].append({"turn": None, "entries": [{"text": w} for w in words]})
        elif field == "log":
            out["log"] = out["log"] + words
        else:
            out["last_moves"]["debug"] = words
        return out

    monkeypatch.setattr(server, "seat_response", leaky)
    with pytest.raises(AssertionError, match="cannot see"):
        test_R31_api_responses_unchanged_under_consistent_redeal(4, 2, 1, "classic")


def _news_texts(v):
    return [e["text"] for t in v["news"]["turns"] for e in t["entries"]]


def test_news_words_private_facts_only_for_the_two_seats_and_names_characters(client):
    """A card shown from one seat to another: the suggester's news says "X showed you the Card",
    the refuter's "You showed the Card to Y", a third seat's only "X showed a card to Y"; names
    are the characters' (never player_k), and the news is grouped by turn."""
    g = new_game(client, seats=("human", "human", "human"), seed=None)
    gid, tokens = g["game"], g["tokens"]
    rng = np.random.default_rng(4)
    store = client.app.state.store
    session = store.get(gid).session
    for _ in range(2000):
        if any(isinstance(ev, Show) for ev in session.game.log) or session.over:
            break
        seat = session.acting
        v = view(client, gid, tokens[f"player_{seat}"])
        legal = [t for t in v["legal"] if not t.startswith("accuse")]
        suggest = [t for t in legal if t.startswith("suggest")]
        choice = suggest[0] if suggest else legal[int(rng.integers(len(legal)))]
        assert act(client, gid, tokens[f"player_{seat}"], choice, v["version"]).status_code == 200
    show = next(ev for ev in session.game.log if isinstance(ev, Show))
    cfg = session.rules
    name = {i: cfg.display(SUSPECTS[session.game.seat_suspect[i]]) for i in range(3)}
    card = cfg.display(CARDS[show.card])
    phrase = f"the {card} card"  # every kind of card says so
    third = ({0, 1, 2} - {show.refuter, show.suggester}).pop()
    views = {i: view(client, gid, tokens[f"player_{i}"]) for i in range(3)}
    logs = {i: views[i]["log"] for i in range(3)}
    for i in range(3):
        assert not any("player_" in line for line in logs[i]), logs[i]
        for t in views[i]["news"]["turns"]:
            assert "player_" not in t["name"] and all("player_" not in e["text"] for e in t["entries"])
    assert f"{name[show.refuter]} showed you {phrase}" in logs[show.suggester]
    assert f"You showed {phrase} to {name[show.suggester]}" in logs[show.refuter]
    assert f"{name[show.refuter]} showed a card to {name[show.suggester]}" in logs[third]
    assert all(" showed a card to " in line for line in logs[third] if "showed" in line)
    # the news window: since the seat's last turn ended, grouped by turn, private facts marked
    for i in (show.refuter, show.suggester):
        entries = [e for t in views[i]["news"]["turns"] for e in t["entries"]]
        private = [e for e in entries if e["private"]]
        if any(e["type"] == "show" for e in entries):
            assert any(e["card"] == CARDS[show.card] for e in private)
    assert not any(e["private"] and e["type"] == "show" for t in views[third]["news"]["turns"] for e in t["entries"])


def test_news_says_a_wrong_accusation_and_the_end_and_the_glass_face(client):
    g = new_game(client, seats=("human", "human"), seed=None, rules="edition2023")
    gid, tokens = g["game"], g["tokens"]
    session = client.app.state.store.get(gid).session
    env = session.game.envelope
    # a wrong accusation by the seat to move (once in a room under 2023 rules: roll and walk first)
    rng = np.random.default_rng(0)
    for _ in range(3000):
        seat = session.acting
        v = view(client, gid, tokens[f"player_{seat}"])
        assert v["magnifying_glass"] and v["dice_glass"] == [f == 1 for f in v["dice"]]
        accuse = [t for t in v["legal"] if t.startswith("accuse")]
        if accuse:
            wrong = next(t for t in accuse if t.split()[1:] != [SUSPECTS[env[0]], WEAPONS[env[1]], ROOMS[env[2]]])
            assert act(client, gid, tokens[f"player_{seat}"], wrong, v["version"]).status_code == 200
            break
        legal = [t for t in v["legal"] if not t.startswith("accuse")]
        assert act(client, gid, tokens[f"player_{seat}"], legal[int(rng.integers(len(legal)))], v["version"]).status_code == 200
    mine = view(client, gid, tokens[f"player_{seat}"])
    other = view(client, gid, tokens[f"player_{1 - seat}"])
    assert any("wrong. You are out of the game" in t for t in _news_texts(mine)), _news_texts(mine)
    assert any(e["type"] == "accuse" and e["correct"] is False for t in other["news"]["turns"] for e in t["entries"])
    if mine["over"]:
        assert any(t.startswith("Game over: ") for t in _news_texts(mine))


def test_last_moves_mark_each_token_and_weapon_moved(client):
    g = new_game(client, seats=("human", "random", "random"), seed=11)
    tok = g["tokens"]["player_0"]
    rng = np.random.default_rng(1)
    for _ in range(300):
        v = view(client, g["game"], tok)
        if v["over"] or len(v["last_moves"]["tokens"]) >= 3 and v["last_moves"]["weapons"]:
            break
        if v["my_turn"]:
            legal = [t for t in v["legal"] if not t.startswith("accuse")]
            act(client, g["game"], tok, legal[int(rng.integers(len(legal)))], v["version"])
    moves = v["last_moves"]
    for suspect, m in moves["tokens"].items():
        assert m["to"] == v["public"]["tokens"][suspect]
        assert m["route"] and all(isinstance(p, list) and len(p) == 2 for p in m["route"])
        if isinstance(m["to"], list):
            assert m["route"][-1] == m["to"]
        if m["cause"] == "move" and isinstance(m["from"], list) and isinstance(m["to"], list):
            for (r0, c0), (r1, c1) in zip(m["route"], m["route"][1:]):
                assert abs(r0 - r1) + abs(c0 - c1) == 1  # a walk along the hallway
    for weapon, m in moves["weapons"].items():
        assert m["to"] == v["public"]["weapons"][weapon] and m["from"] != m["to"]


@pytest.mark.parametrize(
    "seed, rules, seats", [(0, "classic", 4), (1, "edition2023", 4), (2, "classic", 6), (3, "edition2023", 2)]
)
def test_R31_api_views_with_agents_hold_only_the_seats_own_cards(seed, rules, seats):
    """Whole games against agents through the API: before the end no response names the envelope
    or another seat's hand; only the refuter is offered its matching cards."""
    c, _ = make_client()
    opp = "random" if seats > 2 else "notebook"
    g = new_game(c, seats=["human"] + [opp] * (seats - 1), seed=seed, rules=rules)
    tok = g["tokens"]["player_0"]
    rng = np.random.default_rng(seed)
    for _ in range(3000):
        v = view(c, g["game"], tok)
        if v["over"]:
            break
        assert "envelope" not in v and "result" not in v and v["public"].get("solution") is None
        assert all("card" not in ev for ev in v["public"]["log"] if ev.get("type") == "show")
        assert all(s["by"] != "player_0" for s in v["shown_to_me"])
        shows = v["legal_groups"].get("show", [])
        assert {t.split()[1] for t in shows} <= set(v["hand"])
        if v["my_turn"]:
            legal = [t for t in v["legal"] if not t.startswith("accuse")] or v["legal"]
            assert act(c, g["game"], tok, legal[int(rng.integers(len(legal)))], v["version"]).status_code == 200
    assert v["over"] and len(v["result"]["hands"]) == seats


def test_log_from_sends_only_the_new_entries_of_both_logs(client):
    g = new_game(client, seed=3)
    tok = g["tokens"]["player_0"]
    for _ in range(6):
        v = view(client, g["game"], tok)
        legal = [t for t in v["legal"] if not t.startswith("accuse")]
        act(client, g["game"], tok, legal[0], v["version"])
    full = view(client, g["game"], tok)
    assert full["log_start"] == 0 and len(full["log"]) == len(full["public"]["log"]) == full["log_length"] > 5
    k = full["log_length"] - 3
    part = client.get(f"/api/games/{g['game']}?log_from={k}", headers=auth(tok)).json()
    assert part["log_start"] == k and part["log"] == full["log"][k:] and part["public"]["log"] == full["public"]["log"][k:]
    before = snapshot(client, g["game"], tok)
    for bad in ("-1", "x", "1e3", "9" * 20, "%C2%B2", "%D9%A1", "%EF%BC%91", "+1", "%201", "0x1"):  # '²', Arabic and fullwidth 1
        r = client.get(f"/api/games/{g['game']}?log_from={bad}", headers=auth(tok))
        assert r.status_code == 400 and "log_from" in r.json()["error"], bad
        action = (full["legal"] or ["roll"])[0]
        r = client.post(
            f"/api/games/{g['game']}/actions?log_from={bad}",
            headers=auth(tok),
            json={"action": action, "version": full["version"]},
        )
        assert r.status_code == 400 and "log_from" in r.json()["error"], bad
    assert snapshot(client, g["game"], tok) == before


def test_agents_move_one_decision_per_agent_delay_so_a_page_sees_them_one_by_one():
    clock = Clock()
    c, store = make_client(agent_delay=0.3, clock=clock)
    g = new_game(c, seats=("random", "human", "random"), seed=1)  # an agent opens the game
    tok = g["tokens"]["player_1"]
    seen = []
    for _ in range(40):
        v = view(c, g["game"], tok)
        seen.append(v["version"])
        if v["my_turn"]:
            break
        assert view(c, g["game"], tok)["version"] == v["version"]  # no time passed: no move
        clock.t += 0.31
    steps = [b - a for a, b in zip(seen, seen[1:])]
    assert steps and all(s == 1 for s in steps), seen  # one agent decision per poll, none skipped
    assert v["my_turn"] and len(seen) > 2


# ---------------------------------------------------------------------- conditional views (issue 17, item 4)
def test_a_view_carries_an_etag_and_an_unchanged_one_is_a_bodiless_304(client):
    g = new_game(client, seats=("human", "human", "random"), seed=None)
    tokens = g["tokens"]
    for token in tokens.values():
        r = client.get(f"/api/games/{g['game']}", headers=auth(token))
        tag = r.headers["etag"]
        assert r.status_code == 200 and tag.startswith('W/"')
        assert r.headers["cache-control"] == "no-store"  # nothing keeps a seat's view; the page keeps the tag
        assert "authorization" in r.headers["vary"].lower()
        again = client.get(f"/api/games/{g['game']}?log_from=3", headers={**auth(token), "If-None-Match": tag})
        assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == tag
        # a list of tags, the strong form and '*' match too; another seat's tag does not
        assert client.get(f"/api/games/{g['game']}", headers={**auth(token), "If-None-Match": f'"x", {tag}'}).status_code == 304
        assert client.get(f"/api/games/{g['game']}", headers={**auth(token), "If-None-Match": tag[2:]}).status_code == 304
        assert client.get(f"/api/games/{g['game']}", headers={**auth(token), "If-None-Match": "*"}).status_code == 304
    tags = {s: client.get(f"/api/games/{g['game']}", headers=auth(t)).headers["etag"] for s, t in tokens.items()}
    assert len(set(tags.values())) == 2  # one per seat
    a, b = list(tokens.values())
    assert client.get(f"/api/games/{g['game']}", headers={**auth(a), "If-None-Match": tags[list(tokens)[1]]}).status_code == 200


def test_a_step_changes_the_etag_and_the_old_one_gets_the_whole_view(client):
    g = new_game(client, seats=("human", "human", "random"), seed=None)
    views = {s: view(client, g["game"], t) for s, t in g["tokens"].items()}
    mover = next(s for s, v in views.items() if v["my_turn"])
    other = next(s for s in views if s != mover)
    old = client.get(f"/api/games/{g['game']}", headers=auth(g["tokens"][other])).headers["etag"]
    v = views[mover]
    r = act(client, g["game"], g["tokens"][mover], v["legal"][0], v["version"])
    assert r.status_code == 200 and r.headers["etag"] != old
    fresh = client.get(f"/api/games/{g['game']}", headers={**auth(g["tokens"][other]), "If-None-Match": old})
    assert fresh.status_code == 200 and fresh.json()["version"] > v["version"] and fresh.headers["etag"] != old


def test_a_hostile_if_none_match_is_ignored_not_an_error(client):
    g = new_game(client)
    token = next(iter(g["tokens"].values()))
    for value in ("", ",,,", "W/", '"' * 5000, "x" * 100_000, "\t*\t"):
        r = client.get(f"/api/games/{g['game']}", headers={**auth(token), "If-None-Match": value})
        assert r.status_code in (200, 304), (value[:20], r.status_code)


# ---------------------------------------------------------------- the notebook (issue 17, item 3)


@pytest.mark.parametrize("notes", ["guess", 3, None, ["facts"], "FACTS"])
def test_notes_field_is_validated(client, notes):
    r = client.post("/api/games", json={"seats": ["human", "random", "random"], "notes": notes})
    assert r.status_code == 400 and "notes must be one of off, seen, facts, deduce" in r.json()["error"]


def test_notebook_grid_defaults_to_facts_with_own_cards_held(client):
    g = new_game(client, seats=("human", "random", "random"), seed=3)
    v = client.get(f"/api/games/{g['game']}", headers=auth(g["tokens"]["player_0"])).json()
    assert v["notes_mode"] == "facts" and v["notes"]["mode"] == "facts" and v["notes"]["deduce"] is None
    rows = {r["card"]: r for r in v["notes"]["rows"]}
    assert len(rows) == len(CARDS)
    for card in v["hand"]:
        assert rows[card]["seats"] == ["holds", "cannot", "cannot"] and rows[card]["envelope"] == "cannot"
        assert rows[card]["shown_to"] == []
    others = [r for c, r in rows.items() if c not in v["hand"]]
    assert all(r["seats"][0] == "cannot" for r in others)  # a seat knows its whole hand


def test_notebook_off_is_empty_and_seen_has_no_deduction(client):
    g = new_game(client, seats=("human", "random", "random"), seed=3, notes="off")
    v = client.get(f"/api/games/{g['game']}", headers=auth(g["tokens"]["player_0"])).json()
    assert v["notes_mode"] == "off" and v["notes"]["mode"] == "off" and v["notes"]["rows"] == []
    g = new_game(client, seats=("human", "random", "random"), seed=3, notes="seen")
    v = client.get(f"/api/games/{g['game']}", headers=auth(g["tokens"]["player_0"])).json()
    assert v["notes_mode"] == "seen"
    unknown = [r for r in v["notes"]["rows"] if r["card"] not in v["hand"]]
    assert all(r["seats"] == ["unknown"] * 3 and r["envelope"] == "unknown" for r in unknown)


def _play_until_shown_by(store, seat, seed):
    """An all-human game played at random until ``seat`` has shown a card."""
    game = store.create(["human"] * 3, "classic", seed)
    s = game.session
    rng = np.random.default_rng(seed)
    while not s.view(seat).shown_by_me:
        assert not s.over
        legal = [t for t in s.legal(s.acting) if not t.startswith("accuse")]
        s.act(s.acting, legal[int(rng.integers(len(legal)))])
    return game


def test_notebook_shown_by_me_names_whom_and_ruled_out_envelope():
    c, store = make_client()
    game = _play_until_shown_by(store, 1, 7)
    v = c.get(f"/api/games/{game.id}", headers=auth(game.tokens[1])).json()
    rows = {r["card"]: r for r in v["notes"]["rows"]}
    for entry in v["shown_by_me"]:
        assert entry["to"] in rows[entry["card"]]["shown_to"]
        assert rows[entry["card"]]["seats"][1] == "holds"
    # every card placed with a player is out of the envelope: the page shows a cross, never "?"
    for r in rows.values():
        if "holds" in r["seats"]:
            assert r["envelope"] == "cannot"
    # each seat's column holds its own showings only
    for seat in (0, 1, 2):
        w = c.get(f"/api/games/{game.id}", headers=auth(game.tokens[seat])).json()
        column = {(r["card"], to) for r in w["notes"]["rows"] for to in r["shown_to"]}
        assert column == {(e["card"], e["to"]) for e in w["shown_by_me"]}


def test_deduce_exact_figures_or_rounded_with_samples(monkeypatch):
    from clue_env.play import notes as notes_mod

    c, store = make_client()
    # at the start the deals are too many to count: an estimate, rounded, with its sample size
    g = new_game(c, seats=("human", "random", "random"), seed=3, notes="deduce")
    v = c.get(f"/api/games/{g['game']}", headers=auth(g["tokens"]["player_0"])).json()
    d = v["notes"]["deduce"]
    assert d["exact"] is False and v["notes"]["exact"] is False and 0 < d["samples"] <= notes_mod.DEDUCE_SAMPLES
    for r in v["notes"]["rows"]:
        assert r["envelope_p"] is not None and round(r["envelope_p"], 2) == r["envelope_p"]
    # later on, counted exactly: the figures as counted
    game = store.create(["human"] * 3, "classic", 3)
    game.notes = "deduce"
    s = game.session
    rng = np.random.default_rng(3)
    for _ in range(291):
        legal = [t for t in s.legal(s.acting) if not t.startswith("accuse")]
        s.act(s.acting, legal[int(rng.integers(len(legal)))])
    v = c.get(f"/api/games/{game.id}", headers=auth(game.tokens[0])).json()
    assert v["notes"]["deduce"] == {"exact": True, "samples": None}
    ps = [r["envelope_p"] for r in v["notes"]["rows"]]
    assert any(round(p, 2) != p for p in ps)  # not rounded
    for kind in ("suspects", "weapons", "rooms"):
        assert sum(r["envelope_p"] for r in v["notes"]["rows"] if r["kind"] == kind) == pytest.approx(1.0, abs=1e-5)


def test_R27_a_suspect_shown_as_a_card_reads_as_a_card_not_as_a_person():
    """ "You showed the Mrs. White card to Mrs. White", never "You showed Mrs. White to Mrs. White";
    weapons and rooms read the same way: "the Rope card", "the Lounge card"."""
    from types import SimpleNamespace

    from clue_env.engine.config import load_rules
    from clue_env.play.web.news_feed import Namer, event_entry

    cfg = load_rules("classic")
    white, rope = SUSPECTS.index("white"), WEAPON_BASE + WEAPONS.index("rope")
    view = SimpleNamespace(seat=0, characters=(0, 1, 2, 3))  # player_1 plays Col. Mustard, player_2 Mrs. White
    names = Namer(view, cfg)  # type: ignore[arg-type]
    to_white = event_entry(Show(refuter=0, suggester=2, card=white), names, None)  # type: ignore[arg-type]
    assert to_white is not None and to_white["text"] == "You showed the Mrs. White card to Mrs. White"
    from_white = event_entry(Show(refuter=2, suggester=0, card=white), names, None)  # type: ignore[arg-type]
    assert from_white is not None and from_white["text"] == "Mrs. White showed you the Mrs. White card"
    rope_entry = event_entry(Show(refuter=2, suggester=0, card=rope), names, None)  # type: ignore[arg-type]
    assert rope_entry is not None and rope_entry["text"] == "Mrs. White showed you the Rope card"


def test_actions_take_display_names_multi_word_names_and_prefixes(client):
    """Issue 17, item 7 through the API: "toward dining room", "suggest mr green lead pipe" and a
    unique prefix are played as their SPEC forms; an unknown or ambiguous name is a 400 that says
    which, and changes nothing."""
    g = new_game(client, seats=("human", "human", "human"), seed=None)
    gid, tokens = g["game"], g["tokens"]
    session = client.app.state.store.get(gid).session
    cfg = session.rules
    seat = session.acting
    tok = tokens[f"player_{seat}"]
    v = view(client, gid, tok)
    assert act(client, gid, tok, "roll", v["version"]).status_code == 200
    v = view(client, gid, tok)
    toward = sorted(t for t in v["legal"] if t.startswith("toward "))
    assert toward
    room = toward[0].split(" ", 1)[1]
    before = snapshot(client, gid, tok)
    bad = act(client, gid, tok, "toward the nowhere room", v["version"])
    assert bad.status_code == 400 and "nowhere" in bad.json()["error"]
    assert snapshot(client, gid, tok) == before
    spoken = f"toward {cfg.display(room).lower()}"  # e.g. "toward dining room": the name as shown
    r = act(client, gid, tok, spoken, v["version"])
    assert r.status_code == 200, r.text
    # play on until some seat may suggest, then suggest in display names
    rng = np.random.default_rng(3)
    for _ in range(3000):
        if session.over:
            pytest.skip("the game ended before a suggestion")  # pragma: no cover - nearly every game has one
        seat = session.acting
        tok = tokens[f"player_{seat}"]
        v = view(client, gid, tok)
        suggest = [t for t in v["legal"] if t.startswith("suggest ")]
        if suggest:
            _, suspect, weapon = suggest[0].split(" ")
            spoken = f"suggest {cfg.display(suspect)} {cfg.display(weapon)[:4]}"  # "suggest Mr. Green Lead", a prefix
            r = act(client, gid, tok, spoken, v["version"])
            assert r.status_code == 200, r.text
            made = [ev for ev in session.game.log if isinstance(ev, Suggest)][-1]
            assert (SUSPECTS[made.suspect], WEAPONS[made.weapon]) == (suspect, weapon)
            break
        legal = [t for t in v["legal"] if not t.startswith("accuse")]
        assert act(client, gid, tok, legal[int(rng.integers(len(legal)))], v["version"]).status_code == 200
    else:  # pragma: no cover
        raise AssertionError("no suggestion in 3000 decisions")


# ---------------------------------------------------------------------- long action texts
def _longest_texts(cfg):
    """Per verb taking names, the longest text a person may type for it: every name at its kind's
    longest (id or display name), with ``with the`` and a comma around each."""
    from clue_env.play.names import ARGUMENTS, KIND_IDS

    longest = {k: max((cfg.display(c) for c in ids), key=len) for k, ids in KIND_IDS.items()}
    longest = {k: max(v, *KIND_IDS[k], key=len) for k, v in longest.items()}
    return {verb: " ".join([verb, *(f"with the {longest[k]}," for k in kinds)]) for verb, kinds in ARGUMENTS.items()}


@pytest.mark.parametrize("rules", ["classic", "edition2023"])
def test_the_longest_action_texts_are_read_and_longer_ones_are_refused_before_any_name_is_looked_up(monkeypatch, rules):
    """The limit comes from the ruleset's names: each verb's longest text is read (as what it
    names), one character more (beyond whitespace) is a BadActionText saying it is too long,
    without the name reader being called."""
    from clue_env.play import session as session_module
    from clue_env.play.names import longest_line
    from clue_env.play.session import BadActionText, GameSession

    s = GameSession(["human"] * 3, rules=rules, seed=1)
    texts = _longest_texts(s.rules)
    limit = longest_line(s._display_names())
    assert max(len(t) for t in texts.values()) == limit
    for verb, text in texts.items():
        assert s.env.action_to_text(s.parse(text)).startswith(verb + " "), text
        assert s.parse(text.replace(" ", "   \t")) == s.parse(text)  # whitespace runs count as one space

    def unread(*_args):
        raise AssertionError("the name reader was called")

    monkeypatch.setattr(session_module, "read_action", unread)
    for text in (texts["accuse"] + "x", "accuse " + "colonel mustard " * 200, "m " * 2000, "x" * 4000):
        with pytest.raises(BadActionText, match=f"too long: {len(' '.join(text.split()))} characters.*at most {limit}"):
            s.parse(text)


def test_words_holding_more_letters_than_the_names_are_refused_before_any_name_is_looked_up(monkeypatch):
    from clue_env.play.names import NameProblem, Names, kind_names, read_action

    names = kind_names()
    room = sum(names[k].letters for k in ("suspect", "weapon", "room"))
    assert (
        read_action("accuse " + " ".join("colonelmustardcandlestickbilliardroom"), names)
        == "accuse mustard candlestick billiard_room"
    )
    monkeypatch.setattr(Names, "resolve", lambda *_a: pytest.fail("a name was looked up"))
    for line in ("accuse " + "m " * (room + 1), "accuse " + "plum rope hall " * 100, "suggest " + "x" * 200 + " rope"):
        with pytest.raises(NameProblem, match="too long: the names of .* hold at most"):
            read_action(line, names)


def test_an_over_long_action_text_is_a_400_from_the_seat_to_act_and_changes_nothing(client):
    g = new_game(client, seats=("human", "human", "human"), seed=None)
    session = client.app.state.store.get(g["game"]).session
    tok = g["tokens"][f"player_{session.acting}"]
    before = snapshot(client, g["game"], tok)
    for text in ("accuse " + "Colonel Mustard Lead Pipe Billiard Room " * 100, "accuse " + "m " * 2000):
        r = act(client, g["game"], tok, text, session.version)
        assert r.status_code == 400 and "too long" in r.json()["error"], r.text[:300]
    assert snapshot(client, g["game"], tok) == before


def test_a_seat_not_to_act_and_a_finished_game_get_409_before_the_text_is_read(client, monkeypatch):
    from clue_env.play.session import GameSession

    g = new_game(client, seats=("human", "human", "human"), seed=None)
    session = client.app.state.store.get(g["game"]).session
    text = "accuse " + " ".join(["Colonel", "Mustard", "Lead", "Pipe", "Billiard", "Room"] * 40)

    def unread(*_args):
        raise AssertionError("the action text was read")

    monkeypatch.setattr(GameSession, "parse", unread)
    other = g["tokens"][f"player_{(session.acting + 1) % 3}"]
    r = act(client, g["game"], other, text, session.version)
    assert r.status_code == 409 and "decision" in r.json()["error"]
    mine = g["tokens"][f"player_{session.acting}"]
    r = act(client, g["game"], mine, text, session.version - 1)
    assert r.status_code == 409 and "moved on" in r.json()["error"]
    monkeypatch.undo()
    s, w, rm = session.game.envelope
    right = f"accuse {SUSPECTS[s]} {WEAPONS[w]} {ROOMS[rm]}"
    while not session.over:  # the seat to act accuses correctly when it may
        legal = session.legal(session.acting)
        session.act(session.acting, right if right in legal else next(t for t in legal if not t.startswith("accuse")))
    monkeypatch.setattr(GameSession, "parse", unread)
    r = act(client, g["game"], mine, text, session.version)
    assert r.status_code == 409 and "over" in r.json()["error"]


# ---------------------------------------------------------------------- rate-limit keys and proxies
def _creations(port, forwarded):
    """The status of one ``POST /api/games`` per ``X-Forwarded-For`` value (``None``: no header)."""
    import httpx

    codes = []
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as h:
        for value in forwarded:
            headers = {} if value is None else {"X-Forwarded-For": value}
            codes.append(h.post("/api/games", json={"seats": ["human", "random", "random"]}, headers=headers).status_code)
    return codes


def test_x_forwarded_for_does_not_change_the_rate_limit_key_by_default():
    """The server as serve() runs it: X-Forwarded-For is ignored, so a client cannot rotate its key."""
    pytest.importorskip("uvicorn")
    store = GameStore(play_factory, agent_delay=0.0, agent_seed=0, creation_burst=2, creation_interval=3600.0)
    port, stop = _serve(create_app(play_factory, store=store))
    try:
        codes = _creations(port, ["198.51.100.1", "198.51.100.2", "198.51.100.3", "2001:db8::1", "anything", None])
    finally:
        stop()
    assert codes == [201, 201, 429, 429, 429, 429]
    assert {g.client for g in store._games.values()} == {"127.0.0.1"}


def test_behind_a_proxy_the_operator_names_forwarded_addresses_are_the_keys_and_non_addresses_share_one():
    """With forwarded_allow_ips (play.py --forwarded-allow-ips) a trusted proxy's X-Forwarded-For
    names the client; a forwarded value that is not an IP address mints no bucket of its own."""
    pytest.importorskip("uvicorn")
    store = GameStore(play_factory, agent_delay=0.0, agent_seed=0, creation_burst=1, creation_interval=3600.0)
    port, stop = _serve(create_app(play_factory, store=store), forwarded_allow_ips="127.0.0.1")
    try:
        forwarded = ["198.51.100.1", "198.51.100.2", "198.51.100.1", "not-an-address", "another", "x" * 40]
        codes = _creations(port, [*forwarded, "203.0.113.9, junk", None])
    finally:
        stop()
    assert codes == [201, 201, 429, 201, 429, 429, 429, 201]
    assert sorted(g.client for g in store._games.values()) == ["127.0.0.1", "198.51.100.1", "198.51.100.2", "unknown"]


@pytest.mark.parametrize(
    "address", [None, "", "testclient", "not-an-address", "x" * 300, "198.51.100.1:80", "[::1]", "1.2.3.4.5"]
)
def test_a_client_key_is_an_ip_address_and_anything_else_the_one_shared_key(address):
    from clue_env.play.web.rate_limit import TokenBucket
    from clue_env.play.web.store import client_key

    assert client_key(address) == client_key(None) == client_key("some other name")
    assert client_key(address) not in {client_key("198.51.100.1"), client_key("::1"), client_key("2001:db8::1")}
    bucket = TokenBucket(burst=1, interval=3600.0)
    bucket.take(client_key(address), "tries")
    for i in range(50):  # new names do not mint new buckets
        with pytest.raises(Exception, match="too many tries"):
            bucket.take(client_key(f"{address}-{i}"), "tries")
    assert len(bucket) == 1


def test_proxy_headers_are_off_unless_the_operator_names_the_proxies(monkeypatch):
    import uvicorn

    from clue_env.play.web import server

    assert server.UVICORN_OPTIONS["proxy_headers"] is False
    runs = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: runs.append(kw))
    server.serve(agent_factory=play_factory)
    server.serve(agent_factory=play_factory, forwarded_allow_ips="10.0.0.1, 192.168.0.0/16")
    assert runs[0]["proxy_headers"] is False and "forwarded_allow_ips" not in runs[0]
    assert runs[1]["proxy_headers"] is True and runs[1]["forwarded_allow_ips"] == "10.0.0.1,192.168.0.0/16"
    for bad in ("proxy.example", "10.0.0.1,", "10.0.0.300"):
        with pytest.raises(ValueError, match="not an IP address or network"):
            server.serve(agent_factory=play_factory, forwarded_allow_ips=bad)


def test_play_py_takes_the_proxies_with_web_only(monkeypatch, capsys):
    import play
    from clue_env.play.web import server

    calls = []
    monkeypatch.setattr(server, "serve", lambda **kw: calls.append(kw))
    assert play.main(["--web", "--forwarded-allow-ips", "10.0.0.1"]) == 0
    assert play.main(["--web"]) == 0
    assert calls[0]["forwarded_allow_ips"] == "10.0.0.1" and "forwarded_allow_ips" not in calls[1]  # not passed unless named
    assert play.main(["--web", "--forwarded-allow-ips", "proxy.example"]) == 2 and len(calls) == 2
    assert "--forwarded-allow-ips: 'proxy.example' is not an IP address" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        play.main(["--forwarded-allow-ips", "10.0.0.1"])
    assert "applies to --web only" in capsys.readouterr().err
