"""Leaving a game, seen in a real browser (issue 43; docs/web.md, Leaving and abandoned seats):
Playwright driving Debian's Chromium against a ``gamester serve`` subprocess (tests/test_browser.py).

A rated game between two accounts where Bob walks out after both have moved: Ann, who stays, is told
in the news line and the log, the result says Bob forfeits and she wins, both ratings move (her
player page shows the game won by forfeit). An unrated game where Bob, a friend with the invite link,
leaves: the computer plays his seat (the page says so, its moves are marked in the log), and Bob comes
back with his link and takes the seat back. What the one who stays sees is photographed at 1280×800
and 390×844 into $GAMESTER_SCREENSHOTS (default: a temporary folder) to be looked at.
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
    PHONE,
    Pages,
    Server,
    browser,  # noqa: F401  (a pytest fixture)
    click_first,
    move_on,
    pages,  # noqa: F401  (a pytest fixture)
    seat_friend,
    server,  # noqa: F401  (a pytest fixture)
)
from tests.test_browser_people import PASSWORD, sign_up  # noqa: E402

assert CHROMIUM and PASSWORD
pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]
SHOTS = Path(os.environ.get("GAMESTER_SCREENSHOTS") or tempfile.mkdtemp(prefix="gamester-leaving-shots-"))
LAPTOP = {"width": 1280, "height": 800}


def start_table(page: Any, server: Server, rated: bool) -> str:  # noqa: F811
    """A Penneech table from the lobby with seat 1 kept for a friend (rated or not); its id."""
    page.goto(f"{server.base}/#/")
    page.click(".game-tile[data-game=penneech]")
    page.select_option("select[data-seat='1']", "friend")
    if rated:
        page.check("[data-testid=rated]")
    page.click("[data-testid=start]")
    page.wait_for_url("**/#/table/*")
    return str(page.url.split("#/table/")[1].split("?")[0])


def play_until(players: list[Any], done: Any, seconds: float = 120.0) -> None:
    """Click a playable card (or keep the deal) for whoever may play, moving on from held tricks,
    until ``done()``."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, "the game did not get there"
        moved = False
        for p in players:
            if p.locator("[data-action=keep]").count():  # a deal one may ask to redeal: keep it
                moved = click_first(p, "[data-action=keep]") or moved
            elif p.locator(".hand .card-btn.playable").count():
                moved = click_first(p, ".hand .card-btn.playable") or moved
            elif p.locator("[data-testid=board][data-held]").count():
                move_on(p)
        if not moved:
            players[0].wait_for_timeout(100)


def rated_once(server: Server, name: str) -> dict[str, Any]:  # noqa: F811
    """``name``'s Penneech rating once one game counted (the ratings move just after the table ends)."""
    deadline = time.monotonic() + 30
    while not (got := server.api(f"/players/{name}")["ratings"].get("penneech")):
        assert time.monotonic() < deadline, f"{name}'s rating did not move"
        time.sleep(0.05)
    assert got["games"] == 1, name
    return dict(got)


def leave(page: Any) -> None:
    """Press Leave and say yes to the question."""
    page.once("dialog", lambda d: d.accept())
    page.click("[data-testid=leave]")


def shoot(page: Any, name: str) -> None:
    """What ``page`` shows now, at a laptop's size and at a phone's."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size(LAPTOP)
    page.screenshot(path=str(SHOTS / f"{name}-desktop.png"))
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(SHOTS / f"{name}-phone.png"), full_page=True)
    page.set_viewport_size(LAPTOP)


def test_a_rated_walk_out_seen_by_the_one_who_stays(pages: Pages, server: Server) -> None:  # noqa: F811
    ann = pages.new(name="", viewport=LAPTOP)
    sign_up(ann, server, "Anna")
    bob = pages.new(name="")
    sign_up(bob, server, "Boris")
    tid = start_table(ann, server, rated=True)
    bob.goto(ann.locator("[data-testid=invite-1]").input_value())
    bob.click("[data-testid=take-seat-1]")
    bob.wait_for_selector("[data-testid=board]")
    ann.wait_for_selector("[data-testid=hand] [data-card]")
    # Both move first: a walk-out before that would only abort the game. Three moves make sure of it
    # (a deal may ask one of them to keep the hand and then to lead: two moves of one player).
    play_until([ann, bob], lambda: server.api(f"/tables/{tid}")["seq"] >= 3)
    leave(bob)
    bob.wait_for_url(f"{server.base}/#/")
    ann.wait_for_selector("[data-testid=news]:has-text('Boris left the table and forfeits the game')")
    ann.wait_for_selector(
        "[data-testid=result]:has-text('Boris left the table and loses by forfeit: You win')"
    )
    assert ann.locator("[data-testid=log] li:has-text('forfeits the game')").count() == 1
    shoot(ann, "leaving-rated-over")
    table = server.api(f"/tables/{tid}")
    assert table["result"] == "forfeit" and table["forfeit"] == 1 and table["abandoned"] == [1]
    ratings = {who: rated_once(server, who) for who in ("Anna", "Boris")}
    print(f"\nrated walk-out, ratings after: {ratings}")
    assert ratings["Anna"]["rating"] > 1500 > ratings["Boris"]["rating"]
    ann.click("[data-testid=me-link]")
    ann.wait_for_selector("[data-testid=recent] li:has-text('won by forfeit · rated')")
    bob.goto(f"{server.base}/#/player/Boris")
    bob.wait_for_selector("[data-testid=recent] li:has-text('lost by forfeit · rated')")


def test_a_friend_leaves_and_takes_the_seat_back_from_the_computer(pages: Pages, server: Server) -> None:  # noqa: F811
    ann = pages.new(name="Ann", viewport=LAPTOP)
    tid = start_table(ann, server, rated=False)
    link = ann.locator("[data-testid=invite-1]").input_value()
    bob = seat_friend(ann, pages, "Bob")
    ann.wait_for_selector("[data-testid=hand] [data-card]")
    play_until([ann, bob], lambda: server.api(f"/tables/{tid}")["seq"] >= 2)
    leave(bob)
    bob.wait_for_url(f"{server.base}/#/")
    ann.wait_for_selector(
        "[data-testid=news]:has-text('Bob left the table: the computer (Casual) plays that seat now')"
    )
    ann.wait_for_selector(
        "[data-testid=abandoned]:has-text('Bob left: the computer (Casual) plays that seat')"
    )
    assert ann.locator("[data-testid=take-back-1]").count() == 0, "Ann is seated: nothing to take"
    # The computer plays Bob's seat as Ann plays on, and its moves say so.
    stood_in = ann.locator("[data-testid=log] li:has-text('played by the computer.')")
    play_until([ann], lambda: stood_in.count() > 0)
    shoot(ann, "leaving-stand-in")
    # Bob comes back with his link: the page offers his seat back; he first only watches, then
    # takes it with the button.
    bob.goto(link)
    bob.wait_for_selector("h2:has-text('Take seat 2 back from the computer')")
    bob.click("button:has-text('Just watch')")
    bob.click("[data-testid=take-back-1]")
    bob.fill("#join-name", "Bob")
    bob.click("[data-testid=take-seat-1]")
    bob.wait_for_selector("[data-testid=board]")
    ann.wait_for_selector("[data-testid=news]:has-text('Bob took seat 2 back from the computer')")
    ann.wait_for_selector("[data-testid=abandoned]", state="detached")
    table = server.api(f"/tables/{tid}")
    assert table["abandoned"] == [] and table["seats"][1]["joined"] and table["status"] == "playing"
    # Bob plays his own cards again.
    seq = table["seq"]
    play_until([ann, bob], lambda: server.api(f"/tables/{tid}")["seq"] >= seq + 4)
    shoot(ann, "leaving-taken-back")
