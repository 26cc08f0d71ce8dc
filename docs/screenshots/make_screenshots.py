"""Regenerate the browser screenshots in docs/screenshots/ (issue 11).

    python docs/screenshots/make_screenshots.py

Starts a real ``gamester serve`` on a free port with a temporary database (the same helper the browser
tests use), plays a few moves of each game by clicking in Debian's Chromium, and saves each screen at
desktop width (1280 px) and phone width (390 px). Deals are random, so the pictures change each run.
"""

from __future__ import annotations

import sys
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
    click_first,
    start_from_lobby,
)

OUT = Path(__file__).resolve().parent


def wait_my_turn(page: Any, selector: str, timeout: float = 20000) -> None:
    page.wait_for_selector(selector, timeout=timeout)
    page.wait_for_timeout(300)


def shoot(page: Any, name: str, full: bool = True) -> None:
    page.screenshot(path=str(OUT / f"{name}.png"), full_page=full)
    print("wrote", OUT / f"{name}.png")


def penneech(pages: Pages, server: Server, size: str, viewport: dict[str, int]) -> None:
    page = pages.new(viewport=viewport)
    start_from_lobby(page, server, "penneech", ["you", "heuristic"])
    for _ in range(3):
        if click_first(page, "[data-action=keep]"):
            page.wait_for_timeout(400)
        wait_my_turn(page, ".hand .card-btn.playable")
        click_first(page, ".hand .card-btn.playable")
        page.wait_for_timeout(900)
    # Stop on a position where the opponent has led and it is our turn, if one comes soon.
    for _ in range(4):
        wait_my_turn(page, ".hand .card-btn.playable")
        if page.locator(".trick .slot-top [data-card]").count() and not page.locator(".trick.done").count():
            break
        click_first(page, ".hand .card-btn.playable")
        page.wait_for_timeout(900)
    shoot(page, f"penneech-{size}")


def piquesept(pages: Pages, server: Server, size: str, viewport: dict[str, int]) -> None:
    page = pages.new(viewport=viewport)
    start_from_lobby(page, server, "piquesept", ["you", "heuristic", "heuristic", "heuristic"])
    for _ in range(3):
        wait_my_turn(page, ".hand .card-btn.playable")
        if page.locator(".trick [data-card]").count() >= 2 and not page.locator(".trick.done").count():
            break
        click_first(page, ".hand .card-btn.playable")
        page.wait_for_timeout(900)
    shoot(page, f"piquesept-{size}")


def pentyrch(pages: Pages, server: Server, size: str, viewport: dict[str, int]) -> None:
    page = pages.new(viewport=viewport)
    start_from_lobby(page, server, "pentyrch", ["you", "heuristic", "heuristic", "heuristic"])
    for _ in range(3):
        wait_my_turn(page, ".token-btn.selectable")
        click_first(page, ".token-btn.selectable")
        if not page.locator(".token-btn.selected").count():
            click_first(page, ".token-btn.selectable")
        dests = page.locator(".dest-btn")
        dests.nth(dests.count() - 1).click(position={"x": 5, "y": 5})
        page.wait_for_timeout(300)
        click_first(page, ".pay-option")
        page.wait_for_timeout(900)
    wait_my_turn(page, ".token-btn.selectable")
    click_first(page, ".cell .token-btn.selectable") or click_first(page, ".token-btn.selectable")
    page.wait_for_timeout(300)
    shoot(page, f"pentyrch-{size}")


def tricks(pages: Pages, server: Server, size: str, viewport: dict[str, int]) -> None:
    """Penneech: a trick the bot won, held on the table with its winner (desktop); "Last trick"
    pressed at the player's next turn (phone)."""
    page = pages.new(viewport=viewport, animations=True)
    page.goto(f"{server.base}/#/")
    page.click("[data-testid=settings]")
    page.select_option("[data-testid=pace]", "slow")  # time for the picture
    page.click("[data-testid=settings]")
    start_from_lobby(page, server, "penneech", ["you", "heuristic"])
    held = "[data-testid=board][data-held] .trick.done:not(.peek) .trick-label:not(:has-text('You won'))"
    for _ in range(300):
        if page.locator(held).count():
            break
        if not (click_first(page, "[data-action=keep]") or click_first(page, ".hand .card-btn.playable")):
            page.wait_for_timeout(50)
    page.wait_for_timeout(600)  # the last card has landed
    if size == "desktop":
        shoot(page, "trick-held-desktop", full=False)
        return
    for _ in range(300):  # the player's turn with a card led: the last trick is no longer on the table
        if page.locator(".hand .card-btn.playable").count() and not page.locator(".trick.done").count():
            break
        page.wait_for_timeout(50)
    page.click("[data-testid=last-trick]")
    page.wait_for_selector(".trick.peek")
    page.wait_for_timeout(300)
    shoot(page, "trick-last-phone", full=False)


def lobby(pages: Pages, server: Server, size: str, viewport: dict[str, int]) -> None:
    page = pages.new(viewport=viewport)
    page.goto(f"{server.base}/#/")
    page.wait_for_selector("[data-testid=start]")
    page.wait_for_timeout(500)
    shoot(page, f"lobby-{size}")


def main() -> int:
    server = Server()
    server.start()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
            pages = Pages(browser, server)
            try:
                for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
                    penneech(pages, server, size, viewport)
                    piquesept(pages, server, size, viewport)
                    pentyrch(pages, server, size, viewport)
                    tricks(pages, server, size, viewport)
                    lobby(pages, server, size, viewport)
            finally:
                pages.close()
                browser.close()
            if pages.errors:
                print("page errors:\n" + "\n".join(pages.errors), file=sys.stderr)
                return 1
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
