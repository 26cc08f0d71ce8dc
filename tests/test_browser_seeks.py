"""Finding a game in a real browser (docs/web-ui.md, Quick play): Playwright driving Debian's Chromium
against a ``gamester serve`` subprocess (the fixtures of tests/test_browser.py).

- Two browser contexts press Quick play for Penneech and end up at the same table, one at each seat;
  the time from the second press to the first move possible, and to the first card played, is printed.
- A Piquesept Quick play with computer players "at once" is seated with three bots, who play until it
  is the person's turn (the time is printed).
- A block seen from both sides: Ann blocks Bob on his page; she sees him in her blocked list; Bob is
  refused at her table ("blocked"), their quick plays never meet, and at a table they already shared
  Bob's chat never shows on Ann's page while a spectator sees it.
Screenshots at 1280 and 390 px go to $GAMESTER_SCREENSHOTS (default: a temporary folder).
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api")

from tests.test_browser import (  # noqa: E402
    CHROMIUM,
    DESKTOP,
    PHONE,
    Pages,
    Server,
    browser,  # noqa: F401  (a pytest fixture)
    pages,  # noqa: F401  (a pytest fixture)
    server,  # noqa: F401  (a pytest fixture)
)
from tests.test_browser_people import sign_up  # noqa: E402

assert CHROMIUM
pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]
SHOTS = Path(os.environ.get("GAMESTER_SCREENSHOTS") or tempfile.mkdtemp(prefix="gamester-seek-shots-"))


def shoot(page: Any, name: str, full: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)


def quick_play(page: Any, game: str, bots: str = "", players: str | None = None) -> None:
    page.wait_for_selector("[data-testid=quick-play-button]")
    page.select_option("[data-testid=qp-game]", game)
    if players is not None:
        page.select_option("[data-testid=qp-players]", players)
    page.select_option("[data-testid=qp-bots]", bots)
    page.click("[data-testid=quick-play-button]")


def table_of(page: Any) -> str:
    page.wait_for_url("**/#/table/*", timeout=30000)
    return str(page.url.split("#/table/")[1].split("?")[0])


def open_table(page: Any, server: Server) -> str:  # noqa: F811
    """A Penneech table made from the lobby, its second seat open to anyone."""
    page.goto(f"{server.base}/#/")
    page.click(".game-tile[data-game=penneech]")
    page.select_option("select[data-seat='1']", "friend")
    page.select_option("[data-testid=access]", "open")
    page.click("[data-testid=start]")
    return table_of(page)


def test_two_players_press_quick_play_and_meet(pages: Pages, server: Server) -> None:  # noqa: F811
    ann = pages.new(name="Ann")
    bob = pages.new(name="Bob", viewport=PHONE)
    for p in (ann, bob):
        p.goto(f"{server.base}/#/")
    shoot(ann, "seek-lobby-desktop")
    shoot(bob, "seek-lobby-phone")
    quick_play(ann, "penneech")
    ann.wait_for_selector("[data-testid=seeking]")
    # Bob's lobby hears of Ann's seek (the lobby socket) and lists it, as a guest's.
    bob.wait_for_selector("[data-seek-row]:has-text('guest')")
    shoot(ann, "seek-waiting-desktop")
    shoot(bob, "seek-listed-phone", full=True)
    started = time.monotonic()
    quick_play(bob, "penneech")
    tables = {table_of(p) for p in (ann, bob)}
    seated = time.monotonic() - started
    assert len(tables) == 1, "both at the same table"
    table = server.api(f"/tables/{tables.pop()}")
    assert table["status"] == "playing" and sorted(s["name"] for s in table["seats"]) == ["Ann", "Bob"]
    # The first move: whoever may move sees playable cards (or Penneech's keep/throw-in offer).
    mover = None
    while mover is None:
        for p in (ann, bob):
            if p.locator(".hand .card-btn.playable, [data-action=keep]").count():
                mover = p
        assert time.monotonic() - started < 60, "nobody could move"
        if mover is None:
            ann.wait_for_timeout(20)
    playable = time.monotonic() - started
    seq = table["seq"]
    mover.locator(".hand .card-btn.playable, [data-action=keep]").first.click()
    while server.api(f"/tables/{table['id']}")["seq"] == seq:
        ann.wait_for_timeout(20)
    moved = time.monotonic() - started
    print(f"\nquick play, two people: seated {seated:.2f} s, first move possible {playable:.2f} s, "
          f"first move stored {moved:.2f} s after the second press")  # fmt: skip
    shoot(ann, "seek-table-desktop")
    shoot(bob, "seek-table-phone")


def test_piquesept_quick_play_filled_by_bots(pages: Pages, server: Server) -> None:  # noqa: F811
    cy = pages.new(name="Cy")
    cy.goto(f"{server.base}/#/")
    started = time.monotonic()
    quick_play(cy, "piquesept", bots="0", players="4")
    tid = table_of(cy)
    seated = time.monotonic() - started
    table = server.api(f"/tables/{tid}")
    assert [s["kind"] for s in table["seats"]].count("bot") == 3
    turn = first = None
    while turn is None:  # whichever comes first: a bot's move, or the person's turn
        if first is None and server.api(f"/tables/{tid}")["seq"] > 0:
            first = time.monotonic() - started
        if cy.locator(".hand .card-btn.playable").count():
            turn = time.monotonic() - started
        assert time.monotonic() - started < 60, "the person never got a turn"
    told = "the person led" if first is None else f"a bot's first move stored {first:.2f} s"
    print(f"\nquick play, bots at once: seated {seated:.2f} s, {told}, the person's turn {turn:.2f} s")
    shoot(cy, "seek-bots-desktop")


def test_a_block_seen_from_both_sides(pages: Pages, server: Server) -> None:  # noqa: F811
    ann = pages.new(name="")
    bob = pages.new(name="", viewport=PHONE)
    sign_up(ann, server, "Annie")
    sign_up(bob, server, "Bobby")
    # A table they share before the block (Ann's, open), and a spectator.
    shared = open_table(ann, server)
    bob.goto(f"{server.base}/#/table/{shared}")
    bob.click("[data-testid=take-seat-1]")
    bob.wait_for_selector("[data-testid=board]")
    # Ann blocks Bob on his page.
    ann.goto(f"{server.base}/#/player/Bobby")
    ann.click("[data-testid=block]")
    ann.wait_for_selector("[data-testid=blocked-mark]")
    shoot(ann, "seek-block-desktop")
    ann.goto(f"{server.base}/#/player/Annie")
    ann.wait_for_selector("[data-testid=blocked-list] :text('Bobby')")
    ann.wait_for_selector("[data-testid=own-tables] [data-table]")
    shoot(ann, "seek-player-own-desktop", full=True)
    # At the shared table: Bob's chat reaches a spectator, never Ann.
    carol = pages.new(name="Carol")
    carol.goto(f"{server.base}/#/table/{shared}")
    carol.wait_for_selector("[data-testid=chat-input]")
    ann.goto(f"{server.base}/#/table/{shared}")
    ann.wait_for_selector("[data-testid=chat-input]")
    bob.fill("[data-testid=chat-input]", "hello from bobby")
    bob.press("[data-testid=chat-input]", "Enter")
    carol.wait_for_selector("[data-testid=chat-list] li:has-text('hello from bobby')")
    bob.wait_for_selector("[data-testid=chat-list] li:has-text('hello from bobby')")
    ann.fill("[data-testid=chat-input]", "anyone there")
    ann.press("[data-testid=chat-input]", "Enter")
    carol.wait_for_selector("[data-testid=chat-list] li:has-text('anyone there')")
    ann.wait_for_selector("[data-testid=chat-list] li:has-text('anyone there')")
    assert ann.locator("[data-testid=chat-list] li:has-text('hello from bobby')").count() == 0
    # Carol sees Bob's name as a link to his page (where one blocks or reports him).
    assert carol.locator("[data-testid=chat-list] a.chat-name:has-text('Bobby')").count() == 1
    # A new table of Ann's: Bob is refused a seat, and told why.
    fresh = open_table(ann, server)
    bob.goto(f"{server.base}/#/table/{fresh}")
    bob.click("[data-testid=take-seat-1]")
    bob.wait_for_selector(".toast.error:has-text('blocked')")
    shoot(bob, "seek-blocked-phone")
    # Their quick plays never meet: both wait; Carol (a guest) sees both listed, neither sees the other.
    ann.goto(f"{server.base}/#/")
    bob.goto(f"{server.base}/#/")
    carol.goto(f"{server.base}/#/")
    quick_play(ann, "pentyrch", players="2")
    ann.wait_for_selector("[data-testid=seeking]")
    quick_play(bob, "pentyrch", players="2")
    bob.wait_for_selector("[data-testid=seeking]")
    carol.wait_for_selector("[data-seek-row]:has-text('Annie')")
    carol.wait_for_selector("[data-seek-row]:has-text('Bobby')")
    ann.wait_for_selector("[data-seek-row]:has-text('Annie')")
    bob.wait_for_selector("[data-seek-row]:has-text('Bobby')")
    ann.wait_for_timeout(1500)  # a few polls: still apart
    assert "#/table/" not in ann.url and "#/table/" not in bob.url
    assert ann.locator("[data-seek-row]:has-text('Bobby')").count() == 0
    assert bob.locator("[data-seek-row]:has-text('Annie')").count() == 0
    shoot(ann, "seek-both-waiting-desktop")
    ann.click("[data-testid=qp-cancel]")
    bob.click("[data-testid=qp-cancel]")
    # The refusals asked for above (Bob's seat) are the page's only errors.
    refused = [e for e in pages.errors if "409" in e]
    for e in refused:
        pages.errors.remove(e)


def test_phone_and_desktop_lobby_of_an_account(pages: Pages, server: Server) -> None:  # noqa: F811
    """The lobby as a player with tables sees it (your turn first), at both widths."""
    dee = pages.new(name="")
    sign_up(dee, server, "Deena")
    dee.goto(f"{server.base}/#/")
    dee.click(".game-tile[data-game=pentyrch]")
    dee.click("[data-testid=start]")
    table_of(dee)
    dee.wait_for_selector("[data-testid=board]")  # loaded: leaving now does not race its drawing
    dee.goto(f"{server.base}/#/")
    dee.wait_for_selector("[data-testid=your-tables] [data-table]")
    dee.wait_for_selector("[data-testid=your-turn]")
    shoot(dee, "seek-lobby-account-desktop")
    dee.set_viewport_size(PHONE)
    dee.wait_for_timeout(300)
    shoot(dee, "seek-lobby-account-phone", full=True)
    dee.set_viewport_size(DESKTOP)
