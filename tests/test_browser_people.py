"""People in a real browser (docs/web.md, People): Playwright driving Debian's Chromium against a
``gamester serve`` subprocess (the fixtures of tests/test_browser.py).

Ann and Bob sign up in two browser contexts, play a rated Penneech deal to the end by clicking, both
ratings move, the record downloads from the finished table, the player and leaderboard pages show
them; Ann opens her seat from a third context (another device) by logging in, without the token; a
spectator and the players chat both ways (as text); Ann asks for a rematch and Bob accepts it; a
wrong password is answered on the form; log-out ends the session. Screenshots at 1280 and 390 px go
to $GAMESTER_SCREENSHOTS (default: a temporary folder) to be looked at.
"""

from __future__ import annotations

import json
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
    click_first,
    is_over,
    move_on,
    pages,  # noqa: F401  (a pytest fixture)
    server,  # noqa: F401  (a pytest fixture)
)

assert CHROMIUM
pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]
PASSWORD = "a long secret"
SHOTS = Path(os.environ.get("GAMESTER_SCREENSHOTS") or tempfile.mkdtemp(prefix="gamester-people-shots-"))


def sign_up(page: Any, server: Server, name: str) -> None:  # noqa: F811
    page.goto(f"{server.base}/#/login")
    page.fill("[data-testid=signup-name]", name)
    page.fill("[data-testid=signup-password]", PASSWORD)
    page.click("[data-testid=signup-submit]")
    page.wait_for_selector(f"[data-testid=me-link]:has-text('{name}')")


def test_rated_game_between_two_accounts(pages: Pages, server: Server) -> None:  # noqa: F811
    SHOTS.mkdir(parents=True, exist_ok=True)
    ann = pages.new(name="")
    sign_up(ann, server, "Ann")
    ann.screenshot(path=str(SHOTS / "people-lobby-desktop.png"))
    bob = pages.new(name="", viewport=PHONE)
    bob.goto(f"{server.base}/#/login")
    bob.screenshot(path=str(SHOTS / "people-login-phone.png"))
    sign_up(bob, server, "Bob")
    # A wrong password is said on the form (a context of its own: Chromium logs the 401 response).
    other = pages.browser.new_context().new_page()
    other.goto(f"{server.base}/#/login")
    other.fill("[data-testid=login-name]", "Ann")
    other.fill("[data-testid=login-password]", "not the password")
    other.click("[data-testid=login-submit]")
    other.wait_for_selector("[data-testid=login-error]:has-text('wrong name or password')")
    other.context.close()

    # Ann makes a rated table with a seat for a friend; Bob takes it from the invite link.
    ann.goto(f"{server.base}/#/")
    ann.wait_for_selector("[data-testid=playing-as]")
    ann.click(".game-tile[data-game=penneech]")
    ann.click(".more-options summary")
    ann.select_option("[data-option=objective]", "deal")
    ann.select_option("select[data-seat='1']", "friend")
    ann.check("[data-testid=rated]")
    ann.click("[data-testid=start]")
    ann.wait_for_url("**/#/table/*")
    table_id = ann.url.split("#/table/")[1].split("?")[0]
    assert server.api(f"/tables/{table_id}")["rated"] is True
    link = ann.locator("[data-testid=invite-1]").input_value()
    bob.goto(link)
    bob.wait_for_selector("[data-testid=take-seat-1]")
    assert bob.locator("#join-name").input_value() == "Bob" and bob.locator("#join-name").is_disabled()
    bob.click("[data-testid=take-seat-1]")
    bob.wait_for_selector("[data-testid=board]")
    ann.wait_for_selector("[data-testid=hand] [data-card]")

    # Another device of Ann's: log in, open the table, and the seat is hers (no token carried over).
    laptop = pages.new(name="")
    laptop.goto(f"{server.base}/#/login")
    laptop.fill("[data-testid=login-name]", "ann")
    laptop.fill("[data-testid=login-password]", PASSWORD)
    laptop.click("[data-testid=login-submit]")
    laptop.wait_for_selector("[data-testid=me-link]:has-text('Ann')")
    laptop.goto(f"{server.base}/#/table/{table_id}")
    laptop.wait_for_selector("[data-testid=hand] [data-card]")
    laptop.close()

    deadline = time.monotonic() + 200
    while not (is_over(ann) and is_over(bob)):
        assert time.monotonic() < deadline, "the rated game did not finish"
        moved = False
        for p in (ann, bob):
            if p.locator("[data-action=keep]").count():
                moved = click_first(p, "[data-action=keep]") or moved
            elif p.locator(".hand .card-btn.playable").count():
                moved = click_first(p, ".hand .card-btn.playable") or moved
            elif p.locator("[data-testid=board][data-held]").count():
                move_on(p)  # a finished trick held on the table: a click moves on
        if not moved:
            ann.wait_for_timeout(100)
    ann.screenshot(path=str(SHOTS / "people-over-desktop.png"))

    # The record, downloaded from the finished table's page.
    with ann.expect_download() as got:
        ann.click("[data-testid=record-download]")
    record = json.loads(Path(got.value.path()).read_text())
    assert record["game"] == "penneech" and record["actions"]

    # Chat both ways with a spectator, shown as text.
    carol = pages.new(name="Carol")
    carol.goto(f"{server.base}/#/table/{table_id}")
    carol.wait_for_selector("[data-testid=result]")
    ann.fill("[data-testid=chat-input]", "<b>good game</b>")
    ann.click("[data-testid=chat-send]")
    carol.wait_for_selector("[data-testid=chat-list] li:has-text('<b>good game</b>')")
    assert carol.locator("[data-testid=chat-list] li span b").count() == 0, "chat is text, never markup"
    carol.fill("[data-testid=chat-input]", "well played both")
    carol.press("[data-testid=chat-input]", "Enter")
    ann.wait_for_selector("[data-testid=chat-list] li.spectator:has-text('well played both')")
    bob.wait_for_selector("[data-testid=chat-list] li:has-text('well played both')")
    ann.check("[data-testid=chat-mute]")
    assert not ann.locator("[data-testid=chat-list] li.spectator").first.is_visible()
    ann.screenshot(path=str(SHOTS / "people-chat-desktop.png"))

    # Rematch: Ann asks, Bob sees the offer and accepts; both sit at the new table; Carol may watch.
    ann.click("[data-testid=rematch]")
    ann.wait_for_url(lambda url: "#/table/" in url and table_id not in url)
    rematch_id = ann.url.split("#/table/")[1].split("?")[0]
    assert rematch_id != table_id
    bob.wait_for_selector("[data-testid=rematch]:has-text('Accept the rematch')")
    carol.wait_for_selector("[data-testid=rematch-watch]")
    bob.click("[data-testid=rematch]")
    bob.wait_for_url(f"**/#/table/{rematch_id}")
    bob.wait_for_selector("[data-testid=board]")
    ann.wait_for_selector("[data-testid=hand] [data-card]")
    again = server.api(f"/tables/{rematch_id}")
    assert again["status"] == "playing" and [s["account"] for s in again["seats"]] == ["Ann", "Bob"]

    # Both ratings moved; the player page and the leaderboard show them.
    for who in ("Ann", "Bob"):
        deadline = time.monotonic() + 30  # the ratings move just after the last view
        while (
            not (r := server.api(f"/players/{who}")["ratings"].get("penneech"))
            and time.monotonic() < deadline
        ):
            ann.wait_for_timeout(50)
        assert r and r["games"] == 1 and r["deviation"] < 350
    ann.click("[data-testid=me-link]")
    ann.wait_for_selector("[data-testid=player-page] [data-testid=ratings] tr[data-game=penneech]")
    ann.wait_for_selector("[data-testid=recent] a:has-text('Replay')")
    assert ann.locator(".rating-chart circle").count() == 2  # the start and after the one game
    ann.screenshot(path=str(SHOTS / "people-player-desktop.png"))
    bob.goto(f"{server.base}/#/leaderboard/penneech")
    bob.wait_for_selector("[data-testid=leaderboard]")
    names = bob.locator("[data-testid=leaderboard] tbody td:nth-child(2)").all_inner_texts()
    assert sorted(names) == ["Ann", "Bob"]
    bob.screenshot(path=str(SHOTS / "people-leaderboard-phone.png"), full_page=True)
    ann.set_viewport_size(DESKTOP)

    # Log out everywhere from Ann's own page: her other sessions end too.
    ann.goto(f"{server.base}/#/player/Ann")
    ann.click("[data-testid=logout-everywhere]")
    ann.wait_for_selector("[data-testid=login-link]")
    # Log out: the header offers "Log in" again and the session is gone.
    bob.click("[data-testid=logout]")
    bob.wait_for_selector("[data-testid=login-link]")
    assert bob.evaluate("fetch('/api/session').then(r => r.json())") == {"name": None}


def test_change_the_password_then_delete_the_account(pages: Pages, server: Server) -> None:  # noqa: F811
    """On her own page Cleo changes her password (her other device is logged out, a wrong current
    password is answered on the form), then deletes the account: she is a guest again and the name
    has no page any more."""
    cleo = pages.new(name="Cleo")
    sign_up(cleo, server, "Cleo")
    other = pages.new(name="Cleo")  # a second device, logged in too
    other.goto(f"{server.base}/#/login")
    other.fill("[data-testid=login-name]", "Cleo")
    other.fill("[data-testid=login-password]", PASSWORD)
    other.click("[data-testid=login-submit]")
    other.wait_for_selector("[data-testid=me-link]:has-text('Cleo')")
    cleo.click("[data-testid=me-link]")
    cleo.wait_for_selector("[data-testid=account-panel]")
    cleo.screenshot(path=str(SHOTS / "people-account-desktop.png"), full_page=True)
    cleo.fill("[data-testid=change-password-old]", "not my password")
    cleo.fill("[data-testid=change-password-new]", "a newer secret")
    cleo.click("[data-testid=change-password-submit]")
    cleo.wait_for_selector("[data-testid=change-password-error]:has-text('password')")
    cleo.fill("[data-testid=change-password-old]", PASSWORD)
    cleo.fill("[data-testid=change-password-new]", "a newer secret")
    cleo.click("[data-testid=change-password-submit]")
    cleo.wait_for_selector(".toast:has-text('Password changed')")
    other.reload()
    other.wait_for_selector("[data-testid=login-link]")  # the other device's session ended
    cleo.reload()
    cleo.wait_for_selector("[data-testid=me-link]:has-text('Cleo')")  # this one stays
    cleo.wait_for_selector("[data-testid=account-panel]")
    cleo.on("dialog", lambda d: d.accept())
    cleo.fill("[data-testid=delete-account-password]", "a newer secret")
    cleo.click("[data-testid=delete-account-submit]")
    cleo.wait_for_selector("[data-testid=login-link]")
    cleo.goto(f"{server.base}/#/player/Cleo")
    cleo.wait_for_selector("text=No such player")
    # The two refusals asked for (a wrong current password, a player who is gone), and nothing else.
    for status in ("403", "404"):
        refused = [e for e in pages.errors if f"status of {status}" in e]
        assert len(refused) == 1, pages.errors
        pages.errors.remove(refused[0])
