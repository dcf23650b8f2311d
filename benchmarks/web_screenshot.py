"""Save one screenshot of the browser page mid-game at any size (``--out``, ``--width``,
``--height``); the pictures in docs/play.md and the README come from ``benchmarks/screenshots.py``,
which plays with this file's steps (``start_server``, ``play_to_a_roll``).

Starts the web server in-process on a free port, creates a game through the page's form
(you against three agents), plays a few of your turns by clicking (roll, a highlighted room or
square, suggest, show, end; never accuse) and, on a later turn, rolls and photographs the page
with the squares and rooms you may move to highlighted. Needs the ``play`` extra and Debian's
``chromium`` (``apt-get install chromium``)::

    .venv/bin/python benchmarks/web_screenshot.py [--out /tmp/web_board.png] [--turns 5]
"""

from __future__ import annotations

import argparse
import io
import random
import shutil
import socket
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import uvicorn  # noqa: E402
from PIL import Image  # noqa: E402
from playwright.sync_api import Page, sync_playwright  # noqa: E402

import agents  # noqa: E402
from clue_env.play.web.server import create_app  # noqa: E402

READY_JS = """() => {
  const g = document.querySelector('#game');
  if (!g || g.dataset.version === undefined) return null;
  if (g.dataset.over === 'true') return 'over';
  if (document.querySelector('#show-dialog[open]')) return 'show';
  if (g.dataset.myTurn === 'true' && g.dataset.busy !== 'true' && !document.querySelector('dialog[open]')) return 'act';
  return null;
}"""


def start_server() -> tuple[uvicorn.Server, threading.Thread, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(create_app(agents.play_factory, agent_delay=0.0), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    return server, thread, f"http://127.0.0.1:{port}"


def click(page: Page, selector: str) -> None:
    version = page.get_attribute("#game", "data-version")
    page.locator(selector).first.click()
    page.wait_for_function(
        "v => { const g = document.querySelector('#game'); return g.dataset.version !== v && g.dataset.busy !== 'true'; }",
        arg=version,
    )


def step(page: Page, rng: random.Random) -> str:
    """One decision by clicking (never an accusation): into a room when one is in reach, else
    toward a room chosen at random; the phase it was made in."""
    state = page.evaluate(READY_JS)
    phase = page.get_attribute("#game", "data-phase") or ""
    if state == "show":
        click(page, "#show-submit")
    elif page.locator("#actions button[data-action='roll']").is_visible():
        click(page, "#actions button[data-action='roll']")
    elif page.locator("#board [data-action^='enter ']").count():
        click(page, "#board [data-action^='enter ']")
    elif page.locator("#open-suggest").is_visible():
        page.click("#open-suggest")
        click(page, "#suggest-submit")
    elif page.locator("#actions button[data-action='end']").is_visible():
        click(page, "#actions button[data-action='end']")
    elif not page.locator("#toward").is_visible():
        click(page, "#board [data-action^='move ']")
    else:
        rooms = page.locator("#toward-room option").evaluate_all("els => els.filter(e => e.value).map(e => e.value)")
        page.select_option("#toward-room", rng.choice(rooms))
        click(page, "#toward-go")
    return phase


def play_to_a_roll(page: Page, url: str, seats: list[str], seed: int, turns: int, rng: random.Random) -> bool:
    """Create a game of ``seats`` with ``seed`` in the new-game form, play ``turns`` of the human
    seat's turns by clicking, then roll once more and stop while the reachable squares are
    highlighted (the mouse moved away). ``False`` if the game ended first."""
    page.goto(url + "/")
    page.wait_for_selector("#setup:not([hidden])")
    page.fill("#players", str(len(seats)))
    page.dispatch_event("#players", "change")
    for i, spec in enumerate(seats):
        page.select_option(f"#seat-list select[data-seat='{i}']", spec)
    page.fill("#seed", str(seed))
    page.click("#create")
    played = 0
    while True:
        page.wait_for_function(READY_JS)
        state = page.evaluate(READY_JS)
        phase = page.get_attribute("#game", "data-phase")
        if state == "over":
            return False
        if state == "act" and phase == "start":
            played += 1
            if played > turns:
                click(page, "#actions button[data-action='roll']")
                if page.locator("#board [data-action]").count():
                    break
                continue
        step(page, rng)
    page.mouse.move(0, 0)
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--out", type=Path, default=Path("web_board.png"))
    ap.add_argument("--turns", type=int, default=5, help="your turns to play before the photograph")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--agents", default="ppo,notebook,deduction", help="three agent specs, comma-separated")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=880)
    args = ap.parse_args(argv)
    chromium = shutil.which("chromium")
    if chromium is None:
        print("chromium is not on PATH (apt-get install chromium)", file=sys.stderr)
        return 2
    seats = ["human", *args.agents.split(",")]
    rng = random.Random(args.seed)
    server, thread, url = start_server()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": args.width, "height": args.height})
            page.set_default_timeout(20_000)
            if not play_to_a_roll(page, url, seats, args.seed, args.turns, rng):
                print("the game ended before the photograph; try another --seed or fewer --turns", file=sys.stderr)
                return 1
            raw = page.screenshot()
            browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    image = Image.open(io.BytesIO(raw)).convert("RGB")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    image.save(args.out, optimize=True)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KB, {image.width}x{image.height})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
