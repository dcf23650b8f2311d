"""The browser's replay page (issue 17, item 8): ``POST /api/replays`` checks and plays back a
replay file written by ``evaluate.py --replays``, ``GET /api/replays/ID?step=K&view=V`` gives
every position for every view, and the page (``/replay``) steps through it in a real browser.

Every step the API gives equals :class:`clue_env.replay.Playback`'s position and the terminal
stepper's words for the same view; a tampered or stale file gets a clear 4xx; a seat's view
holds only that seat's hand and accounts; a hostile body is never a 5xx; a live web game cannot
be reached through the replay routes.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the web server needs the 'play' extra: pip install -e '.[play]'")

from fastapi.testclient import TestClient  # noqa: E402

import agents  # noqa: E402
from clue_env import replay as R  # noqa: E402
from clue_env.engine.cards import CARDS, ROOM_BASE, ROOMS, WEAPON_BASE  # noqa: E402
from clue_env.play.replay_terminal import ALL, PUBLIC, ReplayTerminal, word_event  # noqa: E402
from clue_env.play.web.replay_routes import MAX_REPLAY_BODY, ReplayStore, play_back  # noqa: E402
from clue_env.play.web.server import STATIC, create_app  # noqa: E402

BASE_URL = "http://127.0.0.1:8000"
SPECS = ["deduction", "deduction", "notebook"]  # two seats that record accounts


# ---------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def replay_files(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Two games written by the tournament (as ``evaluate.py --replays`` writes them)."""
    from agents.tournament import run_tournament

    d = tmp_path_factory.mktemp("web_replays")
    run_tournament(SPECS, 2, workers=1, progress=False, agent_seed=5, seed=21, replays=str(d))
    paths = sorted(str(d / f) for f in os.listdir(d))
    assert len(paths) == 2
    return paths


#: limits high enough for the tests that walk every position of a game (the limits have their own tests)
UNLIMITED = {"upload_burst": 10_000, "upload_interval": 0.0, "position_budget": 1e6, "position_share": 1.0, "refusal_pause": 0.0}


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(agents.play_factory, agent_delay=0.0, replay_limits=UNLIMITED), base_url=BASE_URL)


def read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def load(client: TestClient, data: bytes | str) -> Any:
    return client.post("/api/replays", content=data, headers={"Content-Type": "application/json"})


def loaded(client: TestClient, path: str) -> dict[str, Any]:
    r = load(client, read(path))
    assert r.status_code == 201, r.text
    return r.json()


def position(client: TestClient, rid: str, step: int, view: str) -> dict[str, Any]:
    r = client.get(f"/api/replays/{rid}", params={"step": step, "view": view})
    assert r.status_code == 200, r.text
    return r.json()


def resigned(doc: dict[str, Any]) -> bytes:
    """The document with its digest recomputed (a forger's edit: the digest passes)."""
    doc = dict(doc)
    doc["digest"] = R.digest(doc)
    return R.dumps(doc)


def terminal_lines(pb: R.Playback, k: int, view: str | int) -> list[str]:
    """What ``play.py --replay`` prints for step ``k`` in ``view``."""
    out = io.StringIO()
    t = ReplayTerminal(pb, out=out, input_fn=lambda _p: "q")
    t.view = view
    t.go(k)
    return out.getvalue().splitlines()


# ---------------------------------------------------------------------- loading
def test_loading_a_replay_answers_its_id_steps_seats_and_outcome(client, replay_files):
    pb = R.open_replay(replay_files[0])
    s = loaded(client, replay_files[0])
    assert s["steps"] == pb.steps and s["num_players"] == 3 and s["rules"] == "classic"
    assert [x["spec"] for x in s["seats"]] == [x.spec for x in pb.replay.seats]
    assert [x["seat"] for x in s["seats"]] == ["player_0", "player_1", "player_2"]
    assert s["outcome"] == pb.replay.outcome.to_json() and s["accounts"] is True
    assert s["views"] == ["all", "public", "player_0", "player_1", "player_2"]
    assert loaded(client, replay_files[0])["replay"] == s["replay"]  # the same file: the same entry
    assert loaded(client, replay_files[1])["replay"] != s["replay"]


@pytest.mark.parametrize("index", [0, 1])
def test_every_step_from_the_api_is_the_playback_position_and_the_terminal_words(client, replay_files, index):
    path = replay_files[index]
    pb = R.open_replay(path)
    rid = loaded(client, path)["replay"]
    views: list[str | int] = [ALL, PUBLIC, 0, 1, 2]
    for k in range(pb.steps + 1):
        view = views[k % len(views)]
        name = view if isinstance(view, str) else f"player_{view}"
        got = position(client, rid, k, name)
        env = pb.env_at(k)
        game = env.game
        public = env.public_state()
        assert got["step"] == k and got["steps"] == pb.steps and got["view"] == name
        assert got["public"]["tokens"] == public["tokens"], k
        assert got["public"]["weapons"] == public["weapons"], k
        assert got["public"]["dice"] == public["dice"] and got["public"]["phase"] == public["phase"], k
        assert "log" not in got["public"]
        assert got["over"] is (k == pb.steps)
        if k == 0:
            assert got["actor"] is None and got["action"] is None and got["events"] == []
            continue
        assert got["actor"] == f"player_{pb.actor(k)}" and got["actor_spec"] == pb.replay.seats[pb.actor(k)].spec
        assert got["action"] == pb.action_text(k) and got["action_words"] == pb.action_words(k)
        display = {c: pb.replay.rules.display(c) for c in CARDS}
        assert got["events"] == [word_event(ev, pb.env_at(k).game, view, display) for ev in pb.events(k)]
        # the same words as the terminal stepper, line for line (its step line, events, account, result)
        lines = terminal_lines(pb, k, view)
        assert lines[0].endswith(f"[{got['actor_spec']}]: {got['action_words']}") and f"(turn {got['step_turn']})" in lines[0]
        rest = [ln.removeprefix("  ") for ln in lines[1:]]
        expected = list(got["events"])
        if got["account_text"] is not None:
            expected.append(f"account: {got['account_text']}")
        if got["result"] is not None:
            expected.append(f"game over: {got['result']}")
        assert rest == expected, k
        if view == ALL:
            assert got["hands"] == {f"player_{i}": [CARDS[c] for c in sorted(h)] for i, h in enumerate(game.hands)}
    last = position(client, rid, pb.steps, "public")
    s, w, r = pb.env_at(pb.steps).game.envelope
    assert last["envelope"] == [CARDS[s], CARDS[WEAPON_BASE + w], CARDS[ROOM_BASE + r]]
    assert last["outcome"] == pb.replay.outcome.to_json() and "wins" in last["result"] or "nobody" in last["result"]


def test_going_back_gives_the_same_position_again(client, replay_files):
    rid = loaded(client, replay_files[0])["replay"]
    pb = R.open_replay(replay_files[0])
    forward = [position(client, rid, k, "all") for k in range(0, pb.steps + 1, 7)]
    backward = [position(client, rid, k, "all") for k in reversed(range(0, pb.steps + 1, 7))]
    assert forward == list(reversed(backward))


# ---------------------------------------------------------------------- views (what each may see)
def test_a_seat_view_shows_only_its_own_hand_notebook_and_accounts(client, replay_files):
    pb = R.open_replay(replay_files[0])
    rid = loaded(client, replay_files[0])["replay"]
    own_accounts = 0
    for seat in range(3):
        name = f"player_{seat}"
        for k in range(1, pb.steps):
            got = position(client, rid, k, name)
            hand = [CARDS[c] for c in pb.env_at(k).seat_view(name).hand]
            assert got["hands"] == {name: hand}
            assert got["notes"] is not None and got["envelope"] is None and got["board_cards"] is None
            if pb.actor(k) == seat and pb.account(k) is not None:
                assert got["account"] == pb.account(k) and got["account_text"]
                own_accounts += 1
            else:
                assert got["account"] is None and got["account_text"] is None
            for ev_text in got["events"]:  # another pair's shown card is never named
                if " shows " in ev_text and "(the card:" in ev_text:
                    ev = next(e for e in pb.events(k) if getattr(e, "kind", "") == "show")
                    assert seat in (ev.refuter, ev.suggester)
    assert own_accounts > 0


def test_the_public_view_shows_no_hand_no_notebook_no_account_and_the_envelope_only_at_the_end(client, replay_files):
    pb = R.open_replay(replay_files[1])
    rid = loaded(client, replay_files[1])["replay"]
    for k in range(pb.steps + 1):
        got = position(client, rid, k, "public")
        assert got["hands"] == {} and got["notes"] is None and got["account"] is None
        assert (got["envelope"] is not None) is (k == pb.steps)
        assert not any("(the card:" in e for e in got["events"])
    shown = [position(client, rid, k, "all") for k in range(1, pb.steps + 1)]
    assert any(p["account"] for p in shown) and all(p["envelope"] for p in shown)


def test_an_edition2023_two_player_replay_shows_the_face_down_cards_only_with_every_card_or_at_the_end(client, tmp_path):
    from agents.tournament import run_tournament

    run_tournament(
        ["deduction", "random"], 1, rules="edition2023", workers=1, progress=False, agent_seed=2, replays=str(tmp_path)
    )
    path = str(tmp_path / os.listdir(tmp_path)[0])
    pb = R.open_replay(path)
    s = loaded(client, path)
    assert s["rules"] == "edition2023" and s["num_players"] == 2
    cards = {ROOMS[r]: CARDS[c] for r, c in sorted(pb.env_at(0).game.board_cards.items())}
    assert cards
    assert position(client, s["replay"], 0, "all")["board_cards"] == cards
    assert position(client, s["replay"], 0, "all")["public"]["board_card_rooms"] == sorted(cards)
    for view in ("public", "player_0", "player_1"):
        assert position(client, s["replay"], 0, view)["board_cards"] is None
        assert position(client, s["replay"], pb.steps, view)["board_cards"] == cards


# ---------------------------------------------------------------------- tampered, stale, hostile
def test_a_tampered_file_is_refused_with_the_digest_message(client, replay_files):
    doc = json.loads(read(replay_files[0]))
    doc["actions"][3] = (doc["actions"][3] + 1) % 50
    r = load(client, R.dumps(doc))
    assert r.status_code == 400 and "digest mismatch" in r.json()["error"]
    r = load(client, read(replay_files[0])[:-40])
    assert r.status_code == 400 and "not valid JSON" in r.json()["error"] and "truncated" in r.json()["error"]


def test_a_stale_replay_is_refused_with_the_playback_message(client, replay_files):
    doc = json.loads(read(replay_files[0]))
    pb = R.open_replay(replay_files[0])
    # an action the game does not allow at its step (a forger's edit, or another version's game)
    env = pb.env_at(4)
    mask = env.observe(env.agent_selection)["action_mask"]
    doc["actions"][4] = int(next(i for i in range(len(mask)) if not mask[i]))
    r = load(client, resigned(doc))
    assert r.status_code == 422
    assert R.STALE in r.json()["error"] and "step 5" in r.json()["error"] and "not a legal action" in r.json()["error"]
    # another outcome than the game's
    doc = json.loads(read(replay_files[0]))
    doc["outcome"]["turns"] += 1
    r = load(client, resigned(doc))
    assert r.status_code == 422 and R.STALE in r.json()["error"] and "the replay says" in r.json()["error"]
    # cut short
    doc = json.loads(read(replay_files[0]))
    doc["actions"], doc["actors"], doc["accounts"] = doc["actions"][:-3], doc["actors"][:-3], doc["accounts"][:-3]
    r = load(client, resigned(doc))
    assert r.status_code == 422 and "is not over" in r.json()["error"]


def test_hostile_bodies_get_a_4xx_never_a_5xx(client, replay_files):
    good = json.loads(read(replay_files[0]))
    bodies: list[bytes | str] = [
        b"",
        b"   ",
        b"null",
        b"[]",
        b'"a string"',
        b"{}",
        b"\xff\xfe not utf-8",
        b"[" * 100_000 + b"]" * 100_000,
        b'{"format": "clue_env.replay", "version": 1, "x": NaN}',
        json.dumps({**good, "version": 2}),
        json.dumps({**good, "version": True}),
        json.dumps({k: v for k, v in good.items() if k != "seed"}),
        resigned({**good, "num_players": 9}),
        resigned({**good, "seed": -1}),
        resigned({**good, "seed": 2**80}),
        resigned({**good, "rules": {"name": "x", "max_turns": "many"}}),
        resigned({**good, "rules": {**good["rules"], "max_turns": -5}}),
        resigned({**good, "rules": {**good["rules"], "unknown_rule": 1}}),
        resigned({**good, "rules": []}),
        resigned({**good, "actions": [10**9] * len(good["actions"])}),
        resigned({**good, "actions": ["x"] * len(good["actions"])}),
        resigned({**good, "actors": [7] * len(good["actors"])}),
        resigned({**good, "accounts": [[1]] * len(good["actions"])}),
        resigned({**good, "seats": [{"spec": "", "agent_seed": None}] * 3}),
        resigned({**good, "outcome": {"winner": 5, "turns": 1, "reason": "x", "truncated": False}}),
        resigned({**good, "game": "g"}),
        resigned({**good, "extra": 1}),
    ]
    for body in bodies:
        r = load(client, body)
        assert 400 <= r.status_code < 500, (r.status_code, r.text[:200], str(body)[:80])
        assert isinstance(r.json()["error"], str) and r.json()["error"]
    big = b" " * (MAX_REPLAY_BODY + 1)
    assert load(client, big).status_code == 413
    rid = loaded(client, replay_files[0])["replay"]
    for params in ({"step": "-1"}, {"step": "x"}, {"step": "99999"}, {"step": "²"}, {"step": "1" * 40}, {"view": "player_3"},
                   {"view": "player_"}, {"view": "envelope"}, {"view": "ALL"}, {"view": "player_01"}):  # fmt: skip
        r = client.get(f"/api/replays/{rid}", params=params)
        assert r.status_code == 400, (params, r.text)
    for bad in ("nope", "x" * 200, "..%2F..", rid + "x"):
        assert client.get(f"/api/replays/{bad}").status_code == 404


def test_another_origin_cannot_load_a_replay(client, replay_files):
    r = client.post("/api/replays", content=read(replay_files[0]), headers={"Origin": "http://evil.example"})
    assert r.status_code == 403


# ---------------------------------------------------------------------- a live game has no replay
def test_a_live_web_game_cannot_be_reached_through_the_replay_routes(client):
    r = client.post("/api/games", json={"seats": ["human", "random", "random"]})
    assert r.status_code == 201
    game, token = r.json()["game"], next(iter(r.json()["tokens"].values()))
    auth = {"Authorization": f"Bearer {token}"}
    assert client.get(f"/api/games/{game}", headers=auth).json()["over"] is False
    for body in ({"game": game}, {"replay": game}, {"game": game, "token": token}):
        r = client.post("/api/replays", json=body, headers=auth)
        assert r.status_code == 400 and "not a replay file" in r.json()["error"], r.text
    for path in (f"/api/replays/{game}", f"/api/replays/{game}?view=all&step=0", f"/api/replays/{token}"):
        assert client.get(path, headers=auth).status_code == 404
    for path in (f"/api/games/{game}/replay", f"/api/games/{game}/replays"):
        assert client.get(path, headers=auth).status_code in (404, 405)
        assert client.post(path, headers=auth).status_code in (404, 405)
    # the app has no route that builds a replay from a game
    routes = {getattr(r, "path", "") for r in client.app.routes}
    assert {p for p in routes if "replay" in p} == {"/api/replays", "/api/replays/{replay_id}", "/replay"}


# ---------------------------------------------------------------------- the store and the page
def test_the_store_is_a_bounded_lru_that_keeps_one_entry_per_file(replay_files):
    store = ReplayStore(max_replays=2)
    pbs = [R.open_replay(p) for p in replay_files]
    digests = [json.loads(read(p))["digest"] for p in replay_files]
    a = store.add(digests[0], pbs[0])
    assert store.add(digests[0], pbs[0]) is a and len(store) == 1
    b = store.add(digests[1], pbs[1])
    assert store.get(a.id) is a  # a is now the most recent
    c = store.add("sha256:other", play_back(pbs[1].replay))
    assert len(store) == 2 and store.get(b.id) is None and store.get(a.id) is a and store.get(c.id) is c
    assert store.by_digest(digests[1]) is None
    assert [pbs[0].turn(k) for k in range(pbs[0].steps + 1)] == [pbs[0].env_at(k).game.turn for k in range(pbs[0].steps + 1)]
    with pytest.raises(ValueError):
        ReplayStore(0)
    with pytest.raises(ValueError):
        ReplayStore(4, per_client=0)


def test_the_replay_page_and_its_files_are_served_and_shipped(client):
    r = client.get("/replay")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in r.headers["content-security-policy"]
    html = r.text
    assert '<script type="module" src="/static/replay.js"></script>' in html and "<script>" not in html
    for name in ("replay.js", "replay.css"):
        assert client.get(f"/static/{name}").status_code == 200
        assert STATIC.joinpath(name).is_file()
    js = client.get("/static/replay.js").text
    assert "innerHTML" not in js and "eval(" not in js
    with open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "pyproject.toml")) as f:
        assert '"clue_env.play.web" = ["static/*"]' in f.read()  # the page's files are package data


# ---------------------------------------------------------------------- in a browser
CHROMIUM = shutil.which("chromium")


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    uvicorn = pytest.importorskip("uvicorn")
    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    config = uvicorn.Config(create_app(agents.play_factory, agent_delay=0.0), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while True:
        try:
            if httpx.get(url + "/api/meta", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    yield url
    server.should_exit = True
    thread.join(timeout=10)


@pytest.mark.skipif(CHROMIUM is None and not os.environ.get("CLUE_REQUIRE_BROWSER"), reason="needs Debian's chromium")
def test_the_page_loads_a_file_steps_forward_and_back_and_switches_view(base_url, replay_files, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    path = replay_files[0]
    pb = R.open_replay(path)
    tampered = tmp_path / "tampered.json"
    doc = json.loads(read(path))
    doc["seed"] += 1  # another deal: the recorded moves do not fit it
    tampered.write_bytes(resigned(doc))
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(15_000)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on(
                "console",
                lambda m: errors.append(m.text) if m.type == "error" and "Failed to load resource" not in m.text else None,
            )
            page.goto(base_url + "/replay")

            def at(k: int, view: str = "all") -> None:
                page.wait_for_selector(f"#replay[data-step='{k}'][data-view='{view}']")

            def shown_action() -> str:
                return page.locator("#step-line .action-words").text_content() or ""

            page.set_input_files("#replay-file", path)
            at(0)
            assert page.locator("#step-line").text_content() == "Step 0: the deal, before any decision."
            assert page.locator("#board svg .token").count() == 6 and page.locator("#board svg .weapon").count() == 6
            assert page.locator("#hands tbody tr").count() == 3  # every card: every hand
            page.click("#next")
            at(1)
            assert shown_action() == pb.action_words(1)
            assert page.locator("#step-line .action-words").get_attribute("data-action") == pb.action_text(1)
            for k in range(2, 6):
                page.keyboard.press("ArrowRight")
                at(k)
                assert shown_action() == pb.action_words(k)
                events = page.locator("#events li").all_text_contents()
                display = {c: pb.replay.rules.display(c) for c in CARDS}
                assert events == [word_event(ev, pb.env_at(k).game, ALL, display) for ev in pb.events(k)]
            page.click("#back")
            at(4)
            assert shown_action() == pb.action_words(4)
            page.keyboard.press("ArrowLeft")
            at(3)
            # one seat's view (the deduction seat's, which records accounts): its hand, notebook, own accounts
            ds = next(i for i, x in enumerate(pb.replay.seats) if x.spec == "deduction")
            seat = f"player_{ds}"
            page.select_option("#view", seat)
            at(3, seat)
            assert page.locator("#hands tbody tr").count() == 1
            assert page.locator("#hands tbody tr").get_attribute("data-seat") == seat
            assert page.locator("#notebook table.notes").count() == 3
            own = next(k for k in range(1, pb.steps + 1) if pb.actor(k) == ds and pb.account(k) is not None)
            other = next(k for k in range(1, pb.steps + 1) if pb.actor(k) != ds and pb.account(k) is not None)
            for k, visible in ((own, True), (other, False)):
                page.fill("#step-number", str(k))
                page.dispatch_event("#step-number", "change")
                at(k, seat)
                assert shown_action() == pb.action_words(k)
                assert page.locator("#account-panel").is_visible() is visible
            page.select_option("#view", "public")
            at(other, "public")
            assert page.locator("#hands").is_hidden() and page.locator("#account-panel").is_hidden()
            page.click("#last")
            at(pb.steps, "public")
            assert shown_action() == pb.action_words(pb.steps)
            assert (page.locator("#result").text_content() or "").startswith("Game over: ")
            assert page.locator("#envelope .card").count() == 3
            page.keyboard.press("Home")
            at(0, "public")
            for _ in range(12):  # keys pressed faster than the answers come: each steps on from the last
                page.keyboard.press("ArrowRight")
            at(12, "public")
            assert shown_action() == pb.action_words(12)
            # a slider dragged faster than the answers come: one position request at a time, the last asked wins
            flight = {"now": 0, "most": 0, "sent": 0}

            def sent(r) -> None:
                if "/api/replays/" in r.url and "step=" in r.url:
                    flight["now"] += 1
                    flight["sent"] += 1
                    flight["most"] = max(flight["most"], flight["now"])

            def done(r) -> None:
                if "/api/replays/" in r.url and "step=" in r.url:
                    flight["now"] -= 1

            page.on("request", sent)
            page.on("requestfinished", done)
            page.on("requestfailed", done)
            last = min(pb.steps, 40)
            page.evaluate(
                "n => { const s = document.getElementById('slider');"
                " for (let k = 1; k <= n; k++) { s.value = String(k); s.dispatchEvent(new Event('input')); } }",
                last,
            )
            at(last, "public")
            assert shown_action() == pb.action_words(last)
            assert flight["most"] == 1 and flight["sent"] < last, flight
            # a stale file is refused with the server's message, and the loaded replay stays
            page.set_input_files("#replay-file", str(tampered))
            page.wait_for_selector("#message.error")
            assert R.STALE in (page.locator("#message").text_content() or "")
            assert page.locator("#replay").is_visible()
        finally:
            browser.close()
    assert not errors, errors


def test_replay_uploads_are_rate_limited_per_client_whatever_the_file(replay_files):
    """Reading a replay file and playing it back costs the server up to the whole game: beyond
    ``upload_burst`` files (a file already loaded or a malformed one counts too) a client gets 429
    with Retry-After, after a pause, before its file is parsed, and nothing is loaded; another
    client has its own allowance."""
    limits = {"upload_burst": 3, "upload_interval": 60.0, "refusal_pause": 0.2}
    app = create_app(agents.play_factory, agent_delay=0.0, replay_limits=limits)
    c = TestClient(app, base_url=BASE_URL)
    first = load(c, read(replay_files[0]))
    assert first.status_code == 201
    assert load(c, read(replay_files[0])).json()["replay"] == first.json()["replay"]  # the same file: the same entry
    assert load(c, b"{not json").status_code == 400
    for body in (read(replay_files[1]), read(replay_files[0]), b"{not json"):
        t0 = time.monotonic()
        r = load(c, body)
        assert r.status_code == 429 and "too many replay files from this client" in r.json()["error"], r.text
        assert int(r.headers["Retry-After"]) >= 1 and time.monotonic() - t0 >= 0.2
    assert len(app.state.replays) == 1
    other = TestClient(app, base_url=BASE_URL, client=("203.0.113.9", 50000))
    assert load(other, read(replay_files[1])).status_code == 201  # its own bucket


def test_position_requests_are_paid_from_a_per_client_budget_of_server_time(replay_files):
    """Each position request costs the client's budget its measured time (at least 1 ms): once
    ``position_budget`` is spent, 429 with Retry-After (an unknown id too: counted before the
    lookup) until it refills; another client is not held back."""
    limits = {"position_budget": 0.005, "position_share": 1e-4, "refusal_pause": 0.0}
    app = create_app(agents.play_factory, agent_delay=0.0, replay_limits=limits)
    c = TestClient(app, base_url=BASE_URL)
    rid = loaded(c, replay_files[0])["replay"]
    steps = app.state.replays.get(rid).playback.steps
    codes = [c.get(f"/api/replays/{rid}", params={"step": (37 * k) % steps, "view": "all"}) for k in range(8)]
    served = [r.status_code for r in codes].index(429)
    assert 1 <= served <= 5 and all(r.status_code == 429 for r in codes[served:]), [r.status_code for r in codes]
    r = codes[-1]
    assert "spent its share of the server's time for replay positions" in r.json()["error"], r.text
    assert int(r.headers["Retry-After"]) >= 1
    assert c.get("/api/replays/nope").status_code == 429
    other = TestClient(app, base_url=BASE_URL, client=("203.0.113.9", 50000))
    assert position(other, rid, 2, "public")["step"] == 2
    with pytest.raises(ValueError, match="position_budget"):
        create_app(agents.play_factory, replay_limits={"position_share": 0.0})


def long_replay(directory: Any, max_turns: int) -> bytes:
    """The replay of one game of six ``random`` seats (they never accuse) truncated at ``max_turns``."""
    from agents.tournament import run_tournament
    from clue_env.engine.config import load_rules

    run_tournament(["random"] * 6, 1, rules=load_rules("classic", max_turns=max_turns), workers=1, progress=False,
                   agent_seed=3, seed=7, replays=str(directory))  # fmt: skip
    return read(str(directory / "game_00000_seed_7.json"))


def test_a_replay_over_the_step_limit_is_refused_and_a_long_one_costs_little_per_position(client, tmp_path, monkeypatch):
    """A replay holds at most MAX_STEPS decisions: more is a 400 naming the limit, before any
    playback. A long game within the limit (a rules file's 1,500 turns) plays back, and each
    position request, back or forward, replays at most ``snapshot_every`` steps and gives the
    position that playing from the deal gives."""
    from clue_env.env import raw_env

    doc = json.loads(long_replay(tmp_path, 1500))
    steps = len(doc["actions"])
    assert 3_000 < steps <= R.MAX_STEPS
    over = dict(doc, actions=doc["actions"] * 3, actors=doc["actors"] * 3, accounts=None)
    del over["accounts"]
    r = load(client, resigned(over))
    assert r.status_code == 400, r.text
    assert f"holds {3 * steps:,} steps; a replay holds at most {R.MAX_STEPS:,}" in r.json()["error"]

    s = load(client, R.dumps(doc))
    assert s.status_code == 201 and s.json()["steps"] == steps
    rid = s.json()["replay"]
    item = client.app.state.replays.get(rid)
    every = item.playback.snapshot_every
    assert every < steps // 4
    stepped = [0]
    real_step = raw_env.step

    def counting_step(self: Any, action: Any) -> None:
        stepped[0] += 1
        real_step(self, action)

    monkeypatch.setattr(raw_env, "step", counting_step)
    fresh = R.Playback(R.parse_replay(R.dumps(doc)))
    for k in (steps, steps - 1, steps - 2, 1, steps // 2, steps // 2 - 1, 0, steps - 1):
        stepped[0] = 0
        got = position(client, rid, k, "all")
        assert stepped[0] < every, (k, stepped[0])
        want = fresh.env_at(k)
        assert got["public"]["tokens"] == want.public_state()["tokens"] and got["turn"] == want.game.turn, k
        assert got["hands"] == {f"player_{i}": [CARDS[c] for c in sorted(h)] for i, h in enumerate(want.game.hands)}


def test_one_client_cannot_flush_the_store(replay_files):
    """Each client holds at most ``per_client`` replays, and when the store is full a newcomer
    pushes out only replays of a client that holds more than it does: a client loading file after
    file forgets its own, and the others keep theirs."""
    pb = R.open_replay(replay_files[0])
    store = ReplayStore(max_replays=4, per_client=2)
    honest = [store.add(f"sha256:honest{i}", pb, client=f"10.0.0.{i}") for i in range(2)]
    flood = [store.add(f"sha256:flood{i}", pb, client="10.9.9.9") for i in range(20)]
    assert all(store.get(h.id) is h for h in honest)
    assert store.held("10.9.9.9") == 2 and [store.get(f.id) for f in flood[-2:]] == flood[-2:]
    assert store.get(flood[0].id) is None and len(store) == 4
    # a full store: a third honest client takes the slot of the client holding the most (the flood)
    third = store.add("sha256:third", pb, client="10.0.0.7")
    assert store.held("10.9.9.9") == 1 and all(store.get(h.id) is h for h in [*honest, third])
    # ... and the flood, now holding as many as the others, can only push out its own
    for i in range(20, 30):
        store.add(f"sha256:flood{i}", pb, client="10.9.9.9")
        assert all(store.get(h.id) is h for h in [*honest, third]) and store.held("10.9.9.9") == 1
    # one file loaded by two clients is one entry, kept by the client that loaded it first
    assert store.add("sha256:honest0", pb, client="10.9.9.9") is honest[0] and honest[0].client == "10.0.0.0"


def test_hostile_accounts_are_refused_or_shown_in_every_view(client, replay_files):
    """Accounts are what an agent says, so a file may carry anything there: an account deeper
    than the limit, a number too large to format, a long string or list is a 400 naming it;
    any other plain data of odd shape loads, and every view of every step shows it (``all``
    included) as data or in its own words, never a 5xx."""
    good = json.loads(read(replay_files[0]))
    n = len(good["actions"])
    first = next(i for i, a in enumerate(good["accounts"]) if a is not None)

    def with_account(account: Any) -> bytes:
        accounts = list(good["accounts"])
        accounts[first] = account
        return resigned({**good, "accounts": accounts})

    def nested(d: int) -> Any:
        value: Any = 0.5
        for _ in range(d):
            value = [value]
        return value

    refused = {
        "nested a little too deep": {"agent": "ppo", "top": nested(R.MAX_ACCOUNT_DEPTH)},
        "a large integer": {"agent": "ppo", "top": [["roll", 0.5]], "value": 10**30},
        "a large float": {"agent": "deduction", "suspect": [["plum", 1e300]]},
        "a long string": {"agent": "deduction", "suspect": [["x" * 100_000, 0.5]]},
        "a long list": {"agent": "deduction", "suspect": [["plum", [0] * 10_000]]},
        "a long key": {"k" * 1000: 1},
    }
    for name, account in refused.items():
        r = load(client, with_account(account))
        assert r.status_code == 400 and f"accounts[{first}]" in r.json()["error"], (name, r.text[:300])
    # refused as the file is read: any integer of 401 digits, any nesting deeper than 32
    for account, message in (
        ({"agent": "ppo", "top": [["roll", 0.5]], "value": 10**400}, "an integer of 401 digits"),
        ({"agent": "deduction", "suspect": [["plum", 10**400]], "weapon": [], "room": []}, "an integer of 401 digits"),
        ({"agent": "ppo", "value": nested(300)}, "nested more than 32 deep"),
    ):
        r = load(client, with_account(account))
        assert r.status_code == 400 and message in r.json()["error"], r.text[:300]
    odd = [
        {"agent": "ppo", "top": [["roll", "most"], [1, 2, 3]], "value": "high", "accusation_head": {"q_stop": [1]}},
        {"agent": "ppo", "top": "roll", "value": 1e15, "accusation_head": [1]},
        {"agent": "deduction", "suspect": [[1, 2, 3]], "weapon": "rope", "room": None, "solved": "yes"},
        {"agent": "deduction", "suspect": [["plum", 10**15], ["nobody", -1e15]], "room": [[["hall"], 0.5]]},
        {"agent": ["deduction"], "x": {"y": {"z": [None, True, ""]}}},
        {},
    ]
    for account in odd:
        s = load(client, with_account(account))
        assert s.status_code == 201, (account, s.text[:300])
        rid = s.json()["replay"]
        for k in (first + 1, n, first + 1, 0):
            for view in s.json()["views"]:
                got = position(client, rid, k, view)
                if k == first + 1 and view in ("all", f"player_{good['actors'][first]}"):
                    assert got["account"] == account and isinstance(got["account_text"], str)


def test_token_bucket_refills_forgets_full_buckets_and_refuses_bad_limits():
    from clue_env.play.web.rate_limit import ClientLimit, TokenBucket

    now = [0.0]
    b = TokenBucket(2, 10.0, clock=lambda: now[0], max_clients=3)
    b.take("a", "things")
    b.take("a", "things")
    msg = r"too many things from this client: at most 2 at once, then one every 10 s; try again in 10 s"
    with pytest.raises(ClientLimit, match=msg):
        b.take("a", "things")
    now[0] = 9.0
    with pytest.raises(ClientLimit) as e:
        b.take("a", "things")
    assert e.value.retry_after == 1
    now[0] = 10.0  # another client is not held back by a's empty bucket
    b.take("b", "things")
    now[0] = 20.0
    b.take("a", "things")  # refilled
    for c in ("c", "d", "e"):
        b.take(c, "things")
    assert len(b) <= 3 + 1  # beyond max_clients the full buckets are forgotten
    now[0] = 1000.0
    b.take("f", "things")
    assert len(b) == 1  # every other bucket was full again
    for burst, interval in ((0, 1.0), (1, -1.0), (1, float("nan"))):
        with pytest.raises(ValueError, match="rate limit"):
            TokenBucket(burst, interval)
    now[0] = 2000.0
    b.spend("g", 0.5)  # spends what the work cost, refusing nothing: 1.5 left
    b.take("g", "things")
    with pytest.raises(ClientLimit):  # half a token left: not enough
        b.take("g", "things")
    b.spend("h", 99.0)  # never below empty
    now[0] = 2010.0
    b.take("h", "things")
