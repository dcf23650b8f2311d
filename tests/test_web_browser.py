"""The browser page, driven in a real browser (Playwright + Debian's ``chromium``).

The server runs in-process on a free port (uvicorn in a thread, agents moving at once). Every
game is created through the page's form and played by clicking only, as a person would: the
roll button, a highlighted square or room, the suggestion dialog, the card to show, end turn.
A screenshot of every open page is saved (and its path printed) when a test fails.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the web server needs the 'play' extra: pip install -e '.[play]'")
uvicorn = pytest.importorskip("uvicorn", reason="the web server needs the 'play' extra: pip install -e '.[play]'")
sync_api = pytest.importorskip("playwright.sync_api", reason="browser tests need playwright: pip install -e '.[play]'")
CHROMIUM = shutil.which("chromium")
if CHROMIUM is None and os.environ.get("CLUE_REQUIRE_BROWSER"):  # CI: a missing browser is a failure, not a skip
    raise RuntimeError("CLUE_REQUIRE_BROWSER is set but chromium is not on PATH (apt-get install chromium)")
if CHROMIUM is None:
    pytest.skip("browser tests need Debian's chromium on PATH (apt-get install chromium)", allow_module_level=True)

import httpx  # noqa: E402

import agents  # noqa: E402
from clue_env.play.web.server import create_app  # noqa: E402

Page = Any
STEP_TIMEOUT_MS = 15_000
AGENTS = "deduction"  # fast, and accuses as soon as it has solved the case: games end soon
SHIPPED = "ppo"  # the shipped policy


# ---------------------------------------------------------------------------------- fixtures
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    port = _free_port()
    # many games from one client (this test module): the per-client limits raised
    app = create_app(agents.play_factory, agent_delay=0.0, max_live_per_client=64, creation_burst=64)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
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


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def new_page(browser: Any, request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Callable[..., Page]]:
    """``new_page(allow=())``: a page in a fresh browser context (its own sessionStorage); errors
    in the page's scripts and console fail the test (but those containing a string of ``allow``);
    on failure every page is saved as a screenshot."""
    contexts: list[Any] = []
    pages: list[Page] = []
    errors: list[str] = []
    failed_before = request.session.testsfailed

    def make(allow: tuple[str, ...] = (), viewport: tuple[int, int] = (1280, 900)) -> Page:
        context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        page = context.new_page()
        page.set_default_timeout(STEP_TIMEOUT_MS)

        def on_console(message: Any) -> None:
            if message.type == "error" and not any(a in message.text for a in allow):
                errors.append(message.text)

        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", on_console)
        contexts.append(context)
        pages.append(page)
        return page

    yield make
    if request.session.testsfailed > failed_before:
        for i, page in enumerate(pages):
            path = tmp_path / f"failure_{i}.png"
            try:
                page.screenshot(path=str(path), full_page=True)
                print(f"screenshot of page {i}: {path}")
            except Exception as e:  # noqa: BLE001 - best effort
                print(f"no screenshot of page {i}: {e}")
    for context in contexts:
        context.close()
    assert not errors, f"errors in the page: {errors}"


# ---------------------------------------------------------------------------------- helpers
def create_game(
    page: Page, base_url: str, seats: list[str], seed: int | None, rules: str = "classic", notes: str | None = None
) -> None:
    """Fill in and submit the new-game form (no seed: ``None``; ``notes``: the notebook choice, else
    the form's default); wait for the board."""
    page.goto(base_url + "/")
    page.wait_for_selector("#setup:not([hidden])")
    page.select_option("#rules", rules)
    page.fill("#players", str(len(seats)))
    page.dispatch_event("#players", "change")
    assert page.locator("#seat-list select").count() == len(seats)
    for i, spec in enumerate(seats):
        page.select_option(f"#seat-list select[data-seat='{i}']", spec)
    page.fill("#seed", "" if seed is None else str(seed))
    if notes is not None:
        page.select_option("#notes-mode", notes)
    page.click("#create")
    page.wait_for_selector("#game:not([hidden])[data-version]")


def stored_seat(page: Page) -> dict[str, Any]:
    return json.loads(page.evaluate("sessionStorage.getItem('clue_env.seat')"))


def api_view(base_url: str, page: Page) -> dict[str, Any]:
    """The view the page's seat gets from the API (to check what the page shows)."""
    seat = stored_seat(page)
    r = httpx.get(f"{base_url}/api/games/{seat['game']}", headers={"Authorization": f"Bearer {seat['token']}"})
    r.raise_for_status()
    return r.json()


READY_JS = """() => {
  const g = document.querySelector('#game');
  if (!g || g.dataset.version === undefined) return null;
  if (g.dataset.over === 'true') return 'over';
  if (document.querySelector('#show-dialog[open]')) return 'show';
  if (g.dataset.myTurn === 'true' && g.dataset.busy !== 'true' && !document.querySelector('dialog[open]')) return 'act';
  return null;
}"""


def ready(page: Page) -> str | None:
    return page.evaluate(READY_JS)


def wait_ready(page: Page) -> str:
    page.wait_for_function(READY_JS, timeout=STEP_TIMEOUT_MS)
    return ready(page)


def visible(page: Page, selector: str) -> bool:
    loc = page.locator(selector)
    return loc.count() > 0 and loc.first.is_visible()


def click_step(page: Page) -> str:
    """One decision by clicking, never accusing; which kind of click it was."""
    state = ready(page)
    assert state in ("act", "show"), state
    version = page.get_attribute("#game", "data-version")
    if state == "show":
        checked = page.locator("#show-cards input:checked")
        assert checked.count() == 1
        page.click("#show-submit")
        kind = "show"
    elif visible(page, "#actions button[data-action='roll']"):
        page.click("#actions button[data-action='roll']")
        kind = "roll"
    elif page.locator("#board [data-action^='enter ']").count():
        page.locator("#board [data-action^='enter ']").first.click()
        kind = "enter"
    elif page.locator("#board [data-action^='move ']").count():
        page.locator("#board [data-action^='move ']").first.click()
        kind = "move"
    elif visible(page, "#open-suggest"):
        page.click("#open-suggest")
        page.wait_for_selector("#suggest-dialog[open]")
        page.click("#suggest-submit")
        kind = "suggest"
    elif visible(page, "#actions button[data-action='end']"):
        page.click("#actions button[data-action='end']")
        kind = "end"
    elif visible(page, "#toward"):
        if not page.input_value("#toward-room"):  # no room chosen yet: the first one offered
            page.select_option("#toward-room", index=1)
        page.click("#toward-go")
        kind = "toward"
    else:
        raise AssertionError(f"nothing to click in phase {page.get_attribute('#game', 'data-phase')}")
    page.wait_for_function(
        "v => { const g = document.querySelector('#game'); return g.dataset.version !== v && g.dataset.busy !== 'true'; }",
        arg=version,
    )
    return kind


# ---------------------------------------------------------------------------------- tests
def test_play_a_game_to_the_end_by_clicking_against_the_shipped_policy(new_page: Callable[..., Page], base_url: str) -> None:
    page = new_page()
    seats = ["human", SHIPPED, SHIPPED, SHIPPED]
    create_game(page, base_url, seats, seed=7)
    assert "token=" not in page.url and "#" not in page.url  # the fragment is not left in the address bar
    assert page.locator("#seats li").count() == len(seats)
    assert page.locator("#board .token").count() == 6
    assert page.locator("#board .weapon").count() == 6
    assert page.locator("#board .door").count() > 0 and page.locator("#board .passage").count() == 4
    assert page.locator("#invites").is_hidden()  # no other human seat
    kinds: dict[str, int] = {}
    for _ in range(600):
        state = wait_ready(page)
        if state == "over":
            break
        if state == "show":  # the card already shown to this suggester is preselected
            hint = api_view(base_url, page)["refute_hint"]
            if hint:
                assert page.locator("#show-cards input:checked").get_attribute("value") == hint
        kind = click_step(page)
        kinds[kind] = kinds.get(kind, 0) + 1
    else:
        raise AssertionError(f"the game did not end: {kinds}")
    assert kinds.get("roll", 0) >= 1 and kinds.get("end", 0) >= 1, kinds
    assert kinds.get("enter", 0) + kinds.get("move", 0) >= 1, kinds

    view = api_view(base_url, page)
    assert view["over"]
    assert page.locator("#result").is_visible()
    shown = page.locator("#envelope .card").evaluate_all("els => els.map(e => e.dataset.card)")
    assert shown == view["envelope"]
    assert page.get_attribute("#result-text", "data-winner") == (view["winner"] or "")
    if view["winner"]:
        winner = next(s for s in view["seats"] if s["seat"] == view["winner"])
        assert "Winner" in page.inner_text("#result-text") and winner["name"] in page.inner_text("#result-text")
        assert page.locator(f"#seats li[data-seat='{view['winner']}'] .badge.winner").is_visible()
    rows = page.locator("#hands tbody tr")
    assert rows.count() == len(seats)
    for seat, cards in view["result"]["hands"].items():
        row = page.locator(f"#hands tbody tr[data-seat='{seat}'] .card")
        assert row.evaluate_all("els => els.map(e => e.dataset.card)") == cards
    assert page.locator("#log li").count() == view["log_length"]
    assert page.locator("#log li.over").count() == 1
    assert not visible(page, "#actions button[data-action]")


def test_edition2023_two_player_game(new_page: Callable[..., Page], base_url: str) -> None:
    page = new_page()
    create_game(page, base_url, ["human", AGENTS], seed=7, rules="edition2023")
    view = api_view(base_url, page)
    assert view["rules"] == "edition2023" and view["public"]["board_card_rooms"]
    markers = page.locator("#board .board-card").evaluate_all("els => els.map(e => e.dataset.boardCard)")
    assert sorted(markers) == sorted(view["public"]["board_card_rooms"])  # face-down cards in rooms
    assert "Chef White" in page.inner_text("#notebook")  # the 2023 names
    for _ in range(12):
        state = wait_ready(page)
        if state == "over":
            break
        if click_step(page) == "roll":
            assert page.locator("#dice .die").count() == 2  # two dice in the 2023 edition
    assert page.locator("#hand .card").evaluate_all("els => els.map(e => e.dataset.card)") == view["hand"]


def test_two_human_seats_in_two_browser_contexts_play_to_the_end(new_page: Callable[..., Page], base_url: str) -> None:
    first = new_page()
    create_game(first, base_url, ["human", "human", SHIPPED, SHIPPED], seed=None)  # a seed needs a single human seat
    invite = first.locator("#invite-list input[data-seat='player_1']")
    assert invite.count() == 1 and first.locator("#invite-list input").count() == 1
    link = invite.input_value()
    assert link.startswith(base_url + "/#game=") and "&token=" in link and "?" not in link
    assert stored_seat(first)["token"] not in link  # the creator's own token is not in the invite

    second = new_page()
    second.goto(link)
    second.wait_for_selector("#game:not([hidden])[data-version]")
    assert second.evaluate("location.hash") == ""  # the token is taken out of the address bar
    assert first.get_attribute("#game", "data-seat") == "player_0"
    assert second.get_attribute("#game", "data-seat") == "player_1"
    assert second.locator("#invites").is_hidden()
    second.reload()  # the seat is kept in this tab's sessionStorage
    second.wait_for_selector("#game:not([hidden])[data-version]")
    assert second.get_attribute("#game", "data-seat") == "player_1"

    views = [api_view(base_url, first), api_view(base_url, second)]
    hands = [p.locator("#hand .card").evaluate_all("els => els.map(e => e.dataset.card)") for p in (first, second)]
    assert hands[0] == views[0]["hand"] and hands[1] == views[1]["hand"]
    assert not set(hands[0]) & set(hands[1])
    for page, other in ((first, hands[1]), (second, hands[0])):
        # the other seat's cards appear nowhere on the page as "yours"
        mine = page.locator("#notebook tr").evaluate_all(
            "els => els.filter(e => e.children[1] && e.children[1].textContent === 'you').map(e => e.dataset.card)"
        )
        assert not set(mine) & set(other)

    acted = {"player_0": 0, "player_1": 0}
    turns_seen: set[str] = set()
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        states = {p: ready(p) for p in (first, second)}
        if "over" in states.values():
            break
        page = next((p for p, s in states.items() if s in ("act", "show")), None)
        if page is None:
            time.sleep(0.05)  # the other page's poll will pick up the change
            continue
        other = second if page is first else first
        assert ready(other) is None, "both seats may act at once"
        click_step(page)
        acted[page.get_attribute("#game", "data-seat")] += 1
        turns_seen.add(page.get_attribute("#game", "data-version"))
    else:
        raise AssertionError(f"the game did not end: {acted}")
    assert min(acted.values()) >= 4, acted
    for page in (first, second):  # both pages show the end: the envelope and every hand
        page.wait_for_selector("#result:not([hidden])")
        view = api_view(base_url, page)
        assert view["over"]
        assert page.locator("#envelope .card").evaluate_all("els => els.map(e => e.dataset.card)") == view["envelope"]
        assert page.locator("#hands tbody tr").count() == 4
    for page, view in ((first, views[0]), (second, views[1])):
        assert page.locator("#hand .card").evaluate_all("els => els.map(e => e.dataset.card)") == view["hand"]
    # both logs end alike once both pages are up to date
    for page in (first, second):
        page.wait_for_function("() => document.querySelector('#game').dataset.busy !== 'true'")
    assert first.locator("#log li.turn").count() >= 3


def test_accusation_asks_for_confirmation(new_page: Callable[..., Page], base_url: str) -> None:
    page = new_page()
    create_game(page, base_url, ["human", AGENTS, AGENTS], seed=3)
    assert wait_ready(page) == "act"
    version = page.get_attribute("#game", "data-version")
    log_lines = page.locator("#log li").count()

    page.click("#open-accuse")
    page.wait_for_selector("#accuse-dialog[open]")
    assert page.locator("#accuse-choose").is_visible() and page.locator("#accuse-confirm").is_hidden()
    page.select_option("#accuse-suspect", "plum")
    page.select_option("#accuse-weapon", "rope")
    page.select_option("#accuse-room", "study")
    page.click("#accuse-next")
    assert page.locator("#accuse-confirm").is_visible()
    question = page.inner_text("#accuse-question")
    assert "Professor Plum" in question and "Rope" in question and "Study" in question
    page.click("#accuse-back")  # back to the choice, still nothing sent
    assert page.locator("#accuse-choose").is_visible()
    page.click("#accuse-next")
    page.click("#accuse-confirm-cancel")
    page.wait_for_selector("#accuse-dialog", state="hidden")
    assert page.get_attribute("#game", "data-version") == version
    assert page.locator("#log li").count() == log_lines
    view = api_view(base_url, page)
    assert str(view["version"]) == version and view["public"]["eliminated"] == [] and not view["over"]

    # "New game" keeps this game until another starts: back to it unchanged
    page.click("#new-game")
    page.wait_for_selector("#setup:not([hidden])")
    page.click("#back-to-game")
    page.wait_for_selector(f"#game:not([hidden])[data-version='{version}'][data-my-turn='true']")

    # Escape also cancels
    page.click("#open-accuse")
    page.wait_for_selector("#accuse-dialog[open]")
    page.keyboard.press("Escape")
    page.wait_for_selector("#accuse-dialog", state="hidden")
    assert api_view(base_url, page)["version"] == view["version"]

    # confirming sends the accusation
    page.click("#open-accuse")
    page.select_option("#accuse-suspect", "plum")
    page.select_option("#accuse-weapon", "rope")
    page.select_option("#accuse-room", "study")
    page.click("#accuse-next")
    page.click("#accuse-submit")
    page.wait_for_function("v => document.querySelector('#game').dataset.version !== v", arg=version)
    page.wait_for_function("() => [...document.querySelectorAll('#log li')].some(li => li.textContent.includes('accuse'))")
    after = api_view(base_url, page)
    assert after["over"] or "player_0" in after["public"]["eliminated"]


def test_a_stale_view_is_refreshed_with_a_message(new_page: Callable[..., Page], base_url: str) -> None:
    page = new_page(allow=("409 (Conflict)",))  # the browser logs the refused request
    create_game(page, base_url, ["human", AGENTS, AGENTS], seed=5)
    assert wait_ready(page) == "act" and page.get_attribute("#game", "data-phase") == "start"
    seat = stored_seat(page)
    # the same seat acts elsewhere (another tab): the page's view is now stale
    r = httpx.post(
        f"{base_url}/api/games/{seat['game']}/actions",
        headers={"Authorization": f"Bearer {seat['token']}"},
        json={"action": "roll", "version": int(page.get_attribute("#game", "data-version"))},
    )
    assert r.status_code == 200
    page.click("#actions button[data-action='roll']")
    page.wait_for_selector("#message.warn:not([hidden])")
    assert "moved on" in page.inner_text("#message")
    page.wait_for_selector("#game[data-phase='move']")
    assert page.locator("#board [data-action^='move '], #board [data-action^='enter ']").count() > 0


def test_starting_another_game_ends_the_previous_solo_game_on_the_server(new_page: Callable[..., Page], base_url: str) -> None:
    page = new_page()
    create_game(page, base_url, ["human", AGENTS, AGENTS], seed=5)
    old = stored_seat(page)
    page.click("#new-game")
    page.wait_for_selector("#setup:not([hidden])")
    page.click("#create")  # the form keeps its choices
    page.wait_for_function("g => JSON.parse(sessionStorage.getItem('clue_env.seat')).game !== g", arg=old["game"])
    page.wait_for_selector("#game:not([hidden])[data-version]")
    deadline = time.monotonic() + 10
    while True:  # the page ends the old game in the background
        r = httpx.get(f"{base_url}/api/games/{old['game']}", headers={"Authorization": f"Bearer {old['token']}"})
        if r.status_code == 404 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert r.status_code == 404, "the previous game still holds a slot"
    assert api_view(base_url, page)["seat"] == "player_0"  # the new game is there


def test_a_page_waiting_on_another_human_gets_304s_and_polls_less_and_less(new_page: Callable[..., Page], base_url: str) -> None:
    """Issue 17, item 4: while nothing changes, the poll is answered by a bodiless 304 and the
    page waits longer between polls (250 ms up to 2 s); a view that changes is fetched whole."""
    made = httpx.post(base_url + "/api/games", json={"seats": ["human", "human", "random"]}).json()
    game, tokens = made["game"], made["tokens"]
    mover = next(
        s
        for s, t in tokens.items()
        if httpx.get(f"{base_url}/api/games/{game}", headers={"Authorization": f"Bearer {t}"}).json()["my_turn"]
    )
    waiting = next(s for s in tokens if s != mover)
    page = new_page()
    statuses: list[int] = []
    page.on("response", lambda r: statuses.append(r.status) if f"/api/games/{game}" in r.url else None)
    page.goto(f"{base_url}/#game={game}&token={tokens[waiting]}")
    page.wait_for_selector("#game:not([hidden])[data-version]")
    version = int(page.get_attribute("#game", "data-version") or -1)
    statuses.clear()
    page.wait_for_timeout(6000)
    polls = len(statuses)
    assert statuses and all(s == 304 for s in statuses), statuses
    assert 3 <= polls <= 12, polls  # a fixed 250 ms would be ~24 in 6 s; backing off to 2 s: ~8
    # the other human moves: the waiting page fetches the new view (not a 304) within the 2 s cap
    view = httpx.get(f"{base_url}/api/games/{game}", headers={"Authorization": f"Bearer {tokens[mover]}"}).json()
    r = httpx.post(
        f"{base_url}/api/games/{game}/actions",
        headers={"Authorization": f"Bearer {tokens[mover]}"},
        json={"action": view["legal"][0], "version": view["version"]},
    )
    assert r.status_code == 200, r.text
    deadline = time.monotonic() + 4.0  # (the page's CSP refuses wait_for_function's eval)
    while int(page.get_attribute("#game", "data-version") or -1) <= version:
        assert time.monotonic() < deadline, "the waiting page did not fetch the changed view"
        page.wait_for_timeout(100)
    assert 200 in statuses


# ---------------------------------------------------------------------------------- issue 17: layout, news
def in_viewport(page: Page, selector: str) -> bool:
    """Whether the first element matching ``selector`` lies wholly inside the viewport."""
    box = page.locator(selector).first.bounding_box()
    size = page.viewport_size
    return bool(box and size and box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= size["width"] + 0.5
                and box["y"] + box["height"] <= size["height"] + 0.5)  # fmt: skip


def decision_controls(page: Page) -> list[str]:
    """The controls offered for the decision now: visible action buttons, board targets, the show dialog."""
    if visible(page, "#show-dialog[open]"):
        return ["#show-submit"]
    out = [
        f"#actions button[data-action='{a}']"
        for a in ("roll", "passage", "stay", "end")
        if visible(page, f"#actions button[data-action='{a}']")
    ]
    out += [sel for sel in ("#open-suggest", "#open-accuse", "#open-show", "#toward-go") if visible(page, sel)]
    targets = page.locator("#board [data-action]")
    out += [f"#board [data-action='{a}']" for a in targets.evaluate_all("els => els.map(e => e.dataset.action)")]
    return out


def test_at_1280x720_every_decision_has_its_controls_inside_the_viewport(new_page: Callable[..., Page], base_url: str) -> None:
    page = new_page(viewport=(1280, 720))
    create_game(page, base_url, ["human", AGENTS, AGENTS, AGENTS], seed=11)
    decisions = 0
    for _ in range(600):
        state = wait_ready(page)
        if state == "over":
            break
        controls = decision_controls(page)
        assert controls, "a decision with nothing to click"
        outside = [c for c in controls if not in_viewport(page, c)]
        assert not outside, f"controls outside the 1280x720 viewport: {outside}"
        assert page.evaluate("document.scrollingElement.scrollTop") == 0  # no scrolling needed either
        click_step(page)
        decisions += 1
    else:
        raise AssertionError("the game did not end")
    assert decisions >= 5
    assert in_viewport(page, "#banner") and in_viewport(page, "#status")
    assert "Game over" in page.inner_text("#status") and page.locator("#rematch").is_visible()


def wait_attr(page: Page, selector: str, name: str, want: Callable[[str | None], bool], timeout: float = 10.0) -> str | None:
    """Poll an attribute (the page's CSP refuses wait_for_function's string evaluation)."""
    deadline = time.monotonic() + timeout
    while True:
        value = page.get_attribute(selector, name) if page.locator(selector).count() else None
        if want(value):
            return value
        assert time.monotonic() < deadline, f"{selector} [{name}] stayed {value!r}"
        page.wait_for_timeout(50)


def test_a_card_shown_to_you_is_toasted_and_flashed_in_the_notebook(new_page: Callable[..., Page], base_url: str) -> None:
    page = new_page()
    create_game(page, base_url, ["human", AGENTS, AGENTS, AGENTS], seed=4)
    for _ in range(400):
        state = wait_ready(page)
        assert state != "over", "the game ended before anyone showed this seat a card"
        before = len(api_view(base_url, page)["shown_to_me"])
        click_step(page)
        shown = api_view(base_url, page)["shown_to_me"]
        if len(shown) > before:
            break
    card, by = shown[-1]["card"], shown[-1]["by"]
    view = api_view(base_url, page)
    who = next(s["name"] for s in view["seats"] if s["seat"] == by)
    page.wait_for_selector("#toast:not([hidden])")
    text = page.inner_text("#toast")
    name = view["names"][card]
    phrase = f"the {name} card"  # every kind of card: "the Colonel Mustard card", "the Rope card", "the Dining Room card"
    assert f"{who} showed you {phrase}." in text and "player_" not in text
    wait_attr(page, f"#notebook tr[data-card='{card}']", "data-flash", lambda v: v == "true")
    # the notebook marks it: a check under the player who showed it, crosses under everyone else
    row = f"#notebook tr[data-card='{card}']"
    assert wait_attr(page, f"{row} td.grid-cell[data-col='{by}']", "data-fact", lambda v: v == "holds") == "holds"
    for s in view["seats"]:
        if s["seat"] != by:
            assert page.get_attribute(f"{row} td.grid-cell[data-col='{s['seat']}']", "data-fact") == "cannot"
    assert page.get_attribute(f"{row} td.grid-cell[data-col='envelope']", "data-fact") == "cannot"
    # the news says it too, as a private fact with the card
    private = page.locator("#news li.private[data-type='show']")
    assert private.count() >= 1 and f"{who} showed you" in private.last.inner_text()
    assert private.last.locator(f".card[data-card='{card}']").count() == 1


def test_a_wrong_accusation_is_announced(new_page: Callable[..., Page], base_url: str) -> None:
    page = new_page()
    create_game(page, base_url, ["human", AGENTS, AGENTS], seed=3)
    assert wait_ready(page) == "act"
    view = api_view(base_url, page)
    held = view["hand"]  # a card in my hand is not in the envelope: accusing it is wrong
    kinds = {"suspect": view["public"]["tokens"], "weapon": view["public"]["weapons"]}
    suspect = next((c for c in held if c in kinds["suspect"]), "plum")
    weapon = next((c for c in held if c in kinds["weapon"]), "rope")
    room = next((c for c in held if c not in kinds["suspect"] and c not in kinds["weapon"]), "study")
    assert suspect in held or weapon in held or room in held
    page.click("#open-accuse")
    page.select_option("#accuse-suspect", suspect)
    page.select_option("#accuse-weapon", weapon)
    page.select_option("#accuse-room", room)
    page.click("#accuse-next")
    page.click("#accuse-submit")
    page.wait_for_selector("#banner:not([hidden])")
    after = api_view(base_url, page)
    if after["over"]:  # the last other seat standing wins (classic R29)
        assert "Game over" in page.inner_text("#banner")
    else:
        assert page.get_attribute("#banner", "data-kind") == "wrong"
        assert "accusation was wrong" in page.inner_text("#banner") and "out of the game" in page.inner_text("#banner")
    # the log says so in the seat's words (the news holds the last round: the agents may have played on)
    lines = page.locator("#log li").all_inner_texts()
    assert any(line.startswith("You accuse ") and "wrong. You are out of the game" in line for line in lines), lines


def test_edition2023_dice_show_the_magnifying_glass(new_page: Callable[..., Page], base_url: str) -> None:
    page = new_page()
    create_game(page, base_url, ["human", AGENTS, AGENTS], seed=9, rules="edition2023")
    for _ in range(300):
        state = wait_ready(page)
        assert state != "over", "no magnifying glass came up"
        click_step(page)
        view = api_view(base_url, page)
        glass = page.locator("#dice svg.die[data-glass='true']").count()
        if any(view["dice_glass"]) and view["dice"]:
            assert glass == sum(view["dice_glass"])
            assert page.locator("#dice svg.die[data-glass='true'] .glass-lens").count() == glass
            break
        assert glass == 0
    else:
        raise AssertionError("no magnifying glass in 300 decisions")
    assert page.locator("#news svg.die[data-glass='true']").count() >= 1  # the news draws it too
    assert "[glass" not in page.inner_text("#log")


def test_the_setup_form_shows_characters_and_resets_seats_and_a_rematch_keeps_the_seats(
    new_page: Callable[..., Page], base_url: str
) -> None:
    page = new_page()
    page.goto(base_url + "/")
    page.wait_for_selector("#setup:not([hidden])")
    page.select_option("#rules", "classic")
    page.fill("#players", "4")
    page.dispatch_event("#players", "change")
    assert page.locator("#seat-list .seat-character").all_inner_texts() == [
        "Miss Scarlet",
        "Colonel Mustard",
        "Mrs. White",
        "Mr. Green",
    ]
    page.select_option("#seat-list select[data-seat='1']", "human")
    page.select_option("#rules", "edition2023")  # a change of rules starts the seats afresh
    names = page.locator("#seat-list .seat-character").all_inner_texts()
    assert "Chef White" in names and "player_0" not in page.inner_text("#seat-list")
    specs = page.locator("#seat-list select").evaluate_all("els => els.map(e => e.value)")
    assert specs[0] == "human" and "human" not in specs[1:]
    page.select_option("#seat-list select[data-seat='1']", "human")
    page.fill("#players", "3")
    page.dispatch_event("#players", "change")
    specs = page.locator("#seat-list select").evaluate_all("els => els.map(e => e.value)")
    assert len(specs) == 3 and "human" not in specs[1:]

    # a rematch: after the end, the same seats and a new deal, opened at once
    create_game(page, base_url, ["human", AGENTS, AGENTS], seed=3)
    first = stored_seat(page)["game"]
    page.click("#open-accuse")
    page.click("#accuse-next")
    page.click("#accuse-submit")
    for _ in range(400):
        if wait_ready(page) == "over":
            break
        click_step(page)
    old = api_view(base_url, page)
    assert old["over"]
    page.click("#rematch")
    wait_attr(page, "#game", "data-version", lambda v: v is not None and stored_seat(page)["game"] != first)
    new = api_view(base_url, page)
    assert new["game"] != first and not new["over"]
    assert [s["player"] for s in new["seats"]] == [s["player"] for s in old["seats"]] and new["rules"] == old["rules"]


def test_invite_links_name_the_characters_and_copy(new_page: Callable[..., Page], base_url: str) -> None:
    page = new_page()
    create_game(page, base_url, ["human", "human", AGENTS], seed=None)
    assert page.inner_text("#invite-list .invite-seat") == "Colonel Mustard"
    page.click("#invite-list button[data-seat='player_1']")
    page.wait_for_selector("#message:not([hidden])")
    assert "Colonel Mustard" in page.inner_text("#message")


def test_phone_layout_has_a_bottom_action_sheet_tabs_and_big_targets(new_page: Callable[..., Page], base_url: str) -> None:
    page = new_page(viewport=(390, 844))
    create_game(page, base_url, ["human", AGENTS, AGENTS], seed=5)
    assert wait_ready(page) == "act"
    assert in_viewport(page, "#actions button[data-action='roll']")
    page.click("#actions button[data-action='roll']")
    wait_attr(page, "#board svg", "data-zoomed", lambda v: v == "true")
    hits = page.locator("#board .target rect.hit").all()
    assert hits
    for target in hits[:20]:  # the tap area is the whole square: >= 32 px once zoomed
        box = target.bounding_box()
        assert box and box["width"] >= 32 and box["height"] >= 32, box
    boxes = [b for b in (h.bounding_box() for h in hits) if b]
    box = min(boxes, key=lambda b: b["y"])  # the highest one: clear of the action sheet at the bottom
    # a tap near the square's corner (outside the inset mark) still lands on it
    action = page.evaluate(
        "([x, y]) => { const t = document.elementFromPoint(x, y);"
        " const g = t && t.closest('[data-action]'); return g && g.dataset.action; }",
        [box["x"] + 1.5, box["y"] + 1.5],
    )
    assert action is not None and action.startswith("move "), action
    for tab in ("hand", "notebook", "log", "news"):
        page.click(f"#tabs button[data-tab='{tab}']")
        assert page.get_attribute("#game", "data-tab") == tab
    page.click("#tabs button[data-tab='notebook']")
    assert page.locator("#notebook").is_visible() and not page.locator("#log").is_visible()


def _open_notebook(page: Page) -> None:
    tab = page.locator("#tabs button[data-tab='notebook']")
    if tab.is_visible():
        tab.click()


def test_notebook_grid_marks_survive_a_reload_and_shown_by_me(new_page: Callable[..., Page], base_url: str) -> None:
    page = new_page()
    create_game(page, base_url, ["human", AGENTS, AGENTS, AGENTS], seed=4)
    assert page.get_attribute("#game", "data-notes") == "facts"
    view = api_view(base_url, page)
    _open_notebook(page)
    for card in view["hand"]:  # ✓ under the player's own column, ✗ for the envelope
        row = f"#notebook tr[data-card='{card}']"
        assert page.get_attribute(f"{row} td.grid-cell[data-col='player_0']", "data-fact") == "holds"
        assert page.locator(f"{row} td.grid-cell[data-col='player_0'] .fact").inner_text() == "✓"
        assert page.get_attribute(f"{row} td.grid-cell[data-col='envelope']", "data-fact") == "cannot"
    names = [s["name"] for s in view["seats"]]
    heads = page.locator("#notebook table[data-kind='suspects'] thead th.seat-col[data-seat]")
    assert [heads.nth(i).get_attribute("data-seat") for i in range(heads.count())] == [s["seat"] for s in view["seats"]]
    assert [(heads.nth(i).get_attribute("title") or "").removesuffix(" (you)") for i in range(heads.count())] == names
    assert heads.nth(0).inner_text() == "Sc"  # the token's letters on the board
    other = next(c for c in view["names"] if c not in view["hand"])
    target = f"#notebook tr[data-card='{other}'] td.grid-cell[data-col='player_1']"
    page.click(target)
    assert page.get_attribute(target, "data-mark") == "✓"
    page.click(target)
    assert page.get_attribute(target, "data-mark") == "✗"
    page.reload()
    page.wait_for_selector("#game:not([hidden])[data-version]")
    _open_notebook(page)
    assert wait_attr(page, target, "data-mark", lambda v: v == "✗") == "✗"
    # play until this seat shows a card: the "shown by me" column names whom
    for _ in range(400):
        state = wait_ready(page)
        assert state != "over", "the game ended before this seat showed a card"
        click_step(page)
        shown = api_view(base_url, page)["shown_by_me"]
        if shown:
            break
    card, to = shown[-1]["card"], shown[-1]["to"]
    who = next(s["name"] for s in view["seats"] if s["seat"] == to)
    cell = f"#notebook tr[data-card='{card}'] td.shown-to"
    deadline = time.monotonic() + 10
    while who not in (page.locator(cell).text_content() or "") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert who in (page.locator(cell).text_content() or "")


def test_setup_notes_choice_reaches_the_view(new_page: Callable[..., Page], base_url: str) -> None:
    page = new_page()
    create_game(page, base_url, ["human", AGENTS, AGENTS], seed=2, notes="off")
    assert api_view(base_url, page)["notes_mode"] == "off"
    assert page.get_attribute("#game", "data-notes") == "off"
    assert not page.locator("#tabs button[data-tab='notebook']").is_visible()
    assert not page.locator("#notebook").is_visible()
    page = new_page()
    create_game(page, base_url, ["human", AGENTS, AGENTS], seed=2, notes="deduce")
    assert api_view(base_url, page)["notes_mode"] == "deduce"
    _open_notebook(page)
    assert "sampled deals" in page.inner_text("#notebook .deduce-note")


def _notebook_overflow(page: Page) -> list[dict[str, Any]]:
    """The notebook tables wider than the notebook (a grid column cut off or scrolled away)."""
    return page.evaluate(
        """() => [...document.querySelectorAll('#notebook table.notes')].map((t) => ({
            kind: t.dataset.kind, table: t.getBoundingClientRect().right,
            box: document.getElementById('notebook').getBoundingClientRect().right,
            scroll: t.scrollWidth, client: t.clientWidth,
        })).filter((r) => r.table > r.box + 0.5 || r.scroll > r.client + 1)"""
    )


@pytest.mark.parametrize("players", [4, 6])
def test_notebook_grid_fits_beside_the_board_at_1280x720(new_page: Callable[..., Page], base_url: str, players: int) -> None:
    """Every column of the grid (each player, the envelope, "shown to") inside the notebook at
    1280x720, for 4 and for 6 players, with the deduce figures in the envelope column."""
    page = new_page(viewport=(1280, 720))
    create_game(page, base_url, ["human"] + [AGENTS] * (players - 1), seed=3, notes="deduce")
    wait_ready(page)
    assert page.locator("#notebook table.notes").count() == 3
    assert _notebook_overflow(page) == []
    last = page.locator("#notebook table[data-kind='rooms'] thead th.shown-to")
    assert last.is_visible()
    env = page.locator("#notebook tr[data-card] td.grid-cell[data-col='envelope'][data-chance]")
    assert env.count() > 0 and env.first.inner_text().endswith("%")


# ---------------------------------------------------------------------------------- the form, the end, the refute dialog
BOX_JS = """(selectors) => selectors.map((s) => {
  const e = typeof s === 'string' ? document.querySelector(s) : null;
  if (!e) return null;
  const b = e.getBoundingClientRect();
  return {left: b.left, top: b.top, right: b.right, bottom: b.bottom};
})"""

SEAT_BOXES_JS = """() => {
  const box = (e) => {
    const b = e.getBoundingClientRect();
    return {left: b.left, top: b.top, right: b.right, bottom: b.bottom};
  };
  return [...document.querySelectorAll('#seat-list li')].map((li) => ({
    name: li.querySelector('.seat-character').textContent,
    item: box(li),
    dot: box(li.querySelector('.dot')),
    label: box(li.querySelector('.seat-character')),
    select: box(li.querySelector('select')),
  }));
}"""


def inside(inner: dict[str, float], outer: dict[str, float]) -> bool:
    return (inner["left"] >= outer["left"] - 0.5 and inner["right"] <= outer["right"] + 0.5
            and inner["top"] >= outer["top"] - 0.5 and inner["bottom"] <= outer["bottom"] + 0.5)  # fmt: skip


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    """Whether two rectangles share more than half a pixel of area (touching edges do not count)."""
    return (min(a["right"], b["right"]) - max(a["left"], b["left"]) > 0.5
            and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 0.5)  # fmt: skip


@pytest.mark.parametrize("viewport", [(1280, 720), (390, 844)])
def test_new_game_form_seat_controls_stay_inside_their_boxes(
    new_page: Callable[..., Page], base_url: str, viewport: tuple[int, int]
) -> None:
    """Every seat's dot, character name and agent select inside the Seats fieldset and the form's
    card, for every number of players under both rules; a name on one line, clear of its select
    (its arrow included) and of the other seats."""
    page = new_page(viewport=viewport)
    page.goto(base_url + "/")
    page.wait_for_selector("#setup:not([hidden])")
    for rules, counts in (("classic", (3, 6)), ("edition2023", (2, 6))):
        page.select_option("#rules", rules)
        for players in counts:
            page.fill("#players", str(players))
            page.dispatch_event("#players", "change")
            card, fieldset = page.evaluate(BOX_JS, ["#setup", "#setup fieldset"])
            assert inside(fieldset, card), (fieldset, card)
            seats = page.evaluate(SEAT_BOXES_JS)
            assert len(seats) == players
            for s in seats:
                where = f"{rules}, {players} players, {s['name']} at {viewport}"
                for part in ("item", "dot", "label", "select"):
                    assert inside(s[part], fieldset), f"{where}: the {part} runs past the Seats box: {s[part]} {fieldset}"
                    assert inside(s[part], card), f"{where}: the {part} runs past the form: {s[part]} {card}"
                assert s["dot"]["right"] - s["dot"]["left"] >= 8, f"{where}: no colour dot"
                assert not overlap(s["label"], s["select"]), f"{where}: the name sits on the select: {s['label']} {s['select']}"
                assert s["label"]["right"] <= s["select"]["left"], f"{where}: the name runs into the select"
                height = s["label"]["bottom"] - s["label"]["top"]
                assert height <= s["select"]["bottom"] - s["select"]["top"], f"{where}: the name wraps ({height} px)"
            for a, b in zip(seats, seats[1:]):
                assert not overlap(a["item"], b["item"]), (a, b)
    assert page.evaluate("document.scrollingElement.scrollWidth") <= viewport[0]  # nothing sideways


def _wrong_accusation(page: Page, base_url: str) -> None:
    """Accuse with a card of this seat's hand (certainly wrong) and confirm."""
    view = api_view(base_url, page)
    held = view["hand"]
    suspect = next((c for c in held if c in view["public"]["tokens"]), "plum")
    weapon = next((c for c in held if c in view["public"]["weapons"]), "rope")
    room = next((c for c in held if c not in view["public"]["tokens"] and c not in view["public"]["weapons"]), "study")
    page.click("#open-accuse")
    page.select_option("#accuse-suspect", suspect)
    page.select_option("#accuse-weapon", weapon)
    page.select_option("#accuse-room", room)
    page.click("#accuse-next")
    version = page.get_attribute("#game", "data-version")
    page.click("#accuse-submit")
    page.wait_for_function("v => document.querySelector('#game').dataset.version !== v", arg=version)


def test_refuting_keeps_the_columns_still_and_the_end_reads_naturally_with_the_toast_clear_of_the_panels(
    new_page: Callable[..., Page], base_url: str
) -> None:
    """At 1280x720: the news column does not move (within 2 px) when the refute dialog opens with
    its long prompt; at the end the result names the winner's character in a sentence ("Mr. Green
    wins with a correct accusation after 13 turns."), never a seat id, and the "Game over" toast
    covers none of the panels beside the board."""
    page = new_page(viewport=(1280, 720))
    create_game(page, base_url, ["human", AGENTS, AGENTS, AGENTS], seed=4)
    assert wait_ready(page) == "act"
    column = page.evaluate(BOX_JS, ["#news-panel"])[0]["left"]
    _wrong_accusation(page, base_url)  # out at once: the agents play on, this seat only shows cards
    refutes = 0
    for _ in range(400):
        state = wait_ready(page)
        if state == "over":
            break
        if state == "show":
            refutes += 1
            moved = page.evaluate(BOX_JS, ["#news-panel"])[0]["left"]
            assert abs(moved - column) <= 2, f"the news column moved from x={column} to x={moved} with the refute dialog"
        click_step(page)
    else:
        raise AssertionError("the game did not end")
    assert refutes >= 1, "this seat was never asked to refute"

    view = api_view(base_url, page)
    result = view["result"]
    detail = page.inner_text("#result-detail")
    assert "player_" not in detail and "(" not in detail, detail
    if view["winner"]:
        name = next(s["name"] for s in view["seats"] if s["seat"] == view["winner"])
        how = "with a correct accusation" if result["reason"] == "accusation" else "as the last player standing"
        assert detail == f"{name} wins {how} after {result['turns']} turns.", detail
    else:
        assert detail.startswith("Nobody wins") and detail.endswith(f"after {result['turns']} turns."), detail
    over = page.locator("#log li.over").inner_text()
    assert "player_" not in over and "(" not in over, over

    page.wait_for_selector("#toast:not([hidden])")  # "Game over: ... wins." (shown for 5 s)
    toast = page.evaluate(BOX_JS, ["#toast"])[0]
    panels = page.locator("#news-panel, .side-column > .panel:not([hidden])").evaluate_all(
        "els => els.map((e) => { const b = e.getBoundingClientRect();"
        " return {id: e.querySelector('h2').textContent, left: b.left, top: b.top, right: b.right, bottom: b.bottom}; })"
    )
    players = [p for p in panels if p["id"] == "Players"]
    assert players, panels
    for panel in panels:
        if panel["bottom"] <= 720:  # (a panel scrolled out of the window cannot be covered)
            assert not overlap(toast, panel), f"the toast covers the {panel['id']} panel: {toast} {panel}"


def test_head_toward_starts_with_no_room_chosen_then_keeps_the_room_you_head_for(
    new_page: Callable[..., Page], base_url: str
) -> None:
    page = new_page()
    create_game(page, base_url, ["human", AGENTS, AGENTS], seed=5)
    assert wait_ready(page) == "act"
    page.click("#actions button[data-action='roll']")
    page.wait_for_selector("#toward:not([hidden])")
    assert page.input_value("#toward-room") == ""  # no room chosen: Go does nothing by accident
    assert page.locator("#toward-room option").first.inner_text() == "choose a room…"
    assert page.locator("#toward-go").is_disabled()
    rooms = page.locator("#toward-room option").evaluate_all("els => els.filter((e) => e.value).map((e) => e.value)")
    assert rooms and all(r.startswith("toward ") for r in rooms)
    view = api_view(base_url, page)
    here = view["public"]["tokens"]["scarlet"]
    chosen = rooms[-1]  # (not the first: the one a default used to pick)
    page.select_option("#toward-room", chosen)
    assert not page.locator("#toward-go").is_disabled()
    version = page.get_attribute("#game", "data-version")
    page.click("#toward-go")
    page.wait_for_function("v => document.querySelector('#game').dataset.version !== v", arg=version)
    assert api_view(base_url, page)["public"]["tokens"]["scarlet"] != here
    # the next time the seat heads somewhere, the room it headed for is offered first (until reached)
    for _ in range(200):
        state = wait_ready(page)
        assert state != "over"
        if visible(page, "#toward"):
            mine = api_view(base_url, page)["public"]["tokens"]["scarlet"]
            offered = page.locator("#toward-room option").evaluate_all("els => els.map((e) => e.value)")
            if chosen in offered and mine != chosen.removeprefix("toward "):
                assert page.input_value("#toward-room") == chosen
                assert not page.locator("#toward-go").is_disabled()
                return
        click_step(page)
    raise AssertionError("the seat did not head anywhere again")
