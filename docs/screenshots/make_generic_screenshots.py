"""Regenerate docs/screenshots/generic-*.png: the table page of a game it has no drawing for (issue 15).

    python docs/screenshots/make_generic_screenshots.py

The game is Minitrick, the fourth game that lives in tests/fourth_game/. It is installed for the
server the way a package would install it, through a ``gamester.games`` entry point (a temporary
``.dist-info`` folder on ``PYTHONPATH``). A real ``gamester serve`` (the browser tests' helper) starts;
a table is opened from the lobby, a hint is asked for at the first turn with a choice, and the page is
saved at desktop width (two players) and phone width (three players). Deals are random.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402
from tests.test_browser import (  # noqa: E402
    CHROMIUM,
    DESKTOP,
    LAUNCH_ARGS,
    PHONE,
    Pages,
    Server,
    start_from_lobby,
)

OUT = Path(__file__).resolve().parent


def install_entry_point(where: Path) -> None:
    info = where / "gamester_minitrick-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gamester-minitrick\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[gamester.games]\nminitrick = tests.fourth_game:MiniTrickGame\n")
    paths = [str(where), str(ROOT), os.environ.get("PYTHONPATH", "")]
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)


def shoot(pages: Pages, server: Server, size: str, viewport: dict[str, int], ruleset: str | None) -> None:
    page: Any = pages.new(viewport=viewport)
    start_from_lobby(
        page, server, "minitrick", ["you", "heuristic"] + (["random"] if ruleset else []), ruleset
    )
    for _ in range(6):
        page.wait_for_selector(".hand .card-btn.playable", timeout=20000)
        if page.locator(".hand .card-btn.playable").count() >= 2:
            break
        page.locator(".hand .card-btn.playable").first.click()
        page.wait_for_timeout(600)
    page.keyboard.press("h")
    page.wait_for_selector("[data-testid=hint-box]", timeout=30000)
    page.wait_for_timeout(300)
    page.screenshot(path=str(OUT / f"generic-{size}.png"), full_page=True)
    print("wrote", OUT / f"generic-{size}.png")


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="gamester-entry-point-") as tmp:
        install_entry_point(Path(tmp))
        server = Server()
        server.start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
                pages = Pages(browser, server)
                try:
                    shoot(pages, server, "desktop", DESKTOP, None)
                    shoot(pages, server, "phone", PHONE, "three_hand")
                finally:
                    pages.close()
                    browser.close()
        finally:
            server.close()
    if pages.errors:
        print("page errors:\n" + "\n".join(pages.errors), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
