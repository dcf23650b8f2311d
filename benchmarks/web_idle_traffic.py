"""Traffic of a browser page waiting on another human: requests and bytes per minute.

Starts the web server on loopback (in-process), creates a game of two human seats and one
``random`` seat, opens the page (Debian's ``chromium`` through Playwright) as the human seat that
is *not* to act, and counts for ``--seconds`` every request the page makes to the game's API and
the bytes that cross the wire for it (request and response headers, ``name: value`` lines, and
response bodies; the request bodies of a GET are empty). Nothing happens in the game meanwhile: this is the cost of waiting.

    python benchmarks/web_idle_traffic.py [--seconds 30] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=30.0, help="how long to watch the waiting page")
    ap.add_argument("--json", help="also write the figures to this JSON file")
    args = ap.parse_args(argv)

    import httpx
    from playwright.sync_api import sync_playwright
    from web_screenshot import start_server  # the same in-process server (agents moving at once)

    chromium = shutil.which("chromium")
    if chromium is None:
        print("web_idle_traffic.py: needs Debian's chromium on PATH (apt-get install chromium)", file=sys.stderr)
        return 2
    server, thread, base = start_server()
    try:
        made = httpx.post(base + "/api/games", json={"seats": ["human", "human", "random"]}).json()
        game, tokens = made["game"], made["tokens"]
        waiting = None
        for seat, token in tokens.items():
            view = httpx.get(f"{base}/api/games/{game}", headers={"Authorization": f"Bearer {token}"}).json()
            if not view["my_turn"]:
                waiting = seat
        assert waiting is not None, "one of the two humans is to act, the other waits"
        counts = {"requests": 0, "not_modified": 0, "bytes": 0}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(f"{base}/#game={game}&token={tokens[waiting]}")
            page.wait_for_selector("#game:not([hidden])[data-version]")
            time.sleep(1.0)  # the page has settled into waiting
            watching = True

            def on_response(response: Any) -> None:
                # "response", not "requestfinished": Chromium reports no finished event for a
                # bodiless 304
                if not watching or f"/api/games/{game}" not in response.url:
                    return
                counts["requests"] += 1
                counts["not_modified"] += int(response.status == 304)
                headers = response.request.headers_array() + response.headers_array()
                counts["bytes"] += sum(len(h["name"]) + len(h["value"]) + 4 for h in headers)
                if response.status != 304:
                    counts["bytes"] += len(response.body())

            page.on("response", on_response)
            t0 = time.monotonic()
            while time.monotonic() - t0 < args.seconds:
                page.wait_for_timeout(250)
            watching = False
            browser.close()
        minutes = args.seconds / 60
        out = {
            "seconds": args.seconds,
            "requests_per_min": counts["requests"] / minutes,
            "not_modified_share": counts["not_modified"] / max(1, counts["requests"]),
            "bytes_per_min": counts["bytes"] / minutes,
            "bytes_per_request": counts["bytes"] / max(1, counts["requests"]),
        }
        print(
            f"waiting {args.seconds:.0f} s: {out['requests_per_min']:.0f} requests/min "
            f"({out['not_modified_share']:.0%} answered 304), {out['bytes_per_min'] / 1024:.1f} KiB/min, "
            f"{out['bytes_per_request']:.0f} bytes/request"
        )
        if args.json:
            Path(args.json).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
