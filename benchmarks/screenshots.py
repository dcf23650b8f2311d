"""Screenshots of the browser page for docs/play.md: docs/img/play_1280x720.png and
docs/img/play_390x844.png (a laptop and a phone).

Starts the web server in-process, creates a seeded game through the page's form (you against
three agents), plays a few of your turns by clicking (``benchmarks/web_screenshot.py``'s steps)
and, on a later turn, rolls and photographs the page at each size with the squares you may move
to highlighted, the news of the round beside the board and the last moves marked (a toast still
showing is put away first). The agents' own seeds are fresh, so games differ: up to ``--tries``
games are played until the news holds one of your private facts (a card shown to you or by you,
highlighted). Needs the ``play`` extra and Debian's ``chromium``::

    .venv/bin/python benchmarks/screenshots.py [--out-dir docs/img] [--turns 4] [--seed 2024] [--tries 6]
"""

from __future__ import annotations

import argparse
import io
import random
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from PIL import Image  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from web_screenshot import play_to_a_roll, start_server  # noqa: E402

SIZES = ((1280, 720), (390, 844))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--out-dir", type=Path, default=ROOT / "docs" / "img")
    ap.add_argument("--turns", type=int, default=4, help="your turns to play before the photographs")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--agents", default="ppo,notebook,deduction", help="three agent specs, comma-separated")
    ap.add_argument("--tries", type=int, default=6, help="games to play at most for news with a private fact")
    args = ap.parse_args(argv)
    chromium = shutil.which("chromium")
    if chromium is None:
        print("chromium is not on PATH (apt-get install chromium)", file=sys.stderr)
        return 2
    seats = ["human", *args.agents.split(",")]
    rng = random.Random(args.seed)
    server, thread, url = start_server()
    shots: dict[tuple[int, int], bytes] = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
            for attempt in range(1, args.tries + 1):
                context = browser.new_context(viewport={"width": SIZES[0][0], "height": SIZES[0][1]})
                page = context.new_page()  # (a fresh tab: the last game's seat is not in its sessionStorage)
                page.set_default_timeout(20_000)
                if not play_to_a_roll(page, url, seats, args.seed, args.turns, rng):
                    print("the game ended before the photographs; try another --seed or fewer --turns", file=sys.stderr)
                    return 1
                if page.locator("#news li.private").count() or attempt == args.tries:
                    break
                context.close()
            print(f"game {attempt}: {page.locator('#news li.private').count()} private facts in the news")
            page.evaluate("document.getElementById('toast').hidden = true")
            for w, h in SIZES:
                page.set_viewport_size({"width": w, "height": h})
                page.wait_for_timeout(400)
                shots[(w, h)] = page.screenshot()
            browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for (w, h), raw in shots.items():
        image = Image.open(io.BytesIO(raw)).convert("RGB")
        out = args.out_dir / f"play_{w}x{h}.png"
        image.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(out, optimize=True)
        print(f"wrote {out} ({out.stat().st_size // 1024} KB, {image.width}x{image.height})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
