"""The table page as a newcomer meets it (issue 23), in Debian's Chromium through Playwright: the own
hand on screen at 1280×800 in every game, Pentyrch's payment choice and bearing off on a phone, the
log's leads, a clock run out and a friend leaving, and the sounds with their mute.

A sound cannot be heard in a headless browser; the page counts every sound it asks for on
``<html data-sounds>`` (docs/web-ui.md), which is what these tests read."""

from __future__ import annotations

import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from tests.test_browser import (  # noqa: F401 - fixtures
    PHONE,
    Pages,
    Server,
    _pentyrch_score,
    browser,
    click_first,
    is_over,
    pages,
    seat_friend,
    server,
    start_from_lobby,
)

pytestmark = pytest.mark.slow

SHOTS = Path(os.environ.get("GAMESTER_SHOTS") or tempfile.gettempdir())
LAPTOP = {"width": 1280, "height": 800}
SEATS = {
    "penneech": ["you", "random"],
    "piquesept": ["you", "random", "random", "random"],
    "pentyrch": ["you", "random", "random", "random"],
}
YOUR_TURN = ".hand .card-btn.playable, [data-action=keep], .token-btn.selectable, [data-action=pass]"


def _in_view(page: Any, selector: str) -> dict[str, float]:
    """The element's box in the viewport's coordinates, and the viewport's height."""
    return dict(
        page.locator(selector)
        .first.evaluate(
            "e => { const r = e.getBoundingClientRect();"
            " return {top: r.top, bottom: r.bottom, height: innerHeight}; }"
        )
        .items()
    )


@pytest.mark.parametrize("game", sorted(SEATS))
def test_the_own_hand_is_on_a_laptop_screen(pages: Pages, server: Server, game: str) -> None:  # noqa: F811
    """At 1280×800, when it is the player's turn, the whole hand is inside the window without
    scrolling (it used to end at 907 px in Pentyrch and begin at 738 px in Piquesept)."""
    page = pages.new(viewport=LAPTOP)
    start_from_lobby(page, server, game, SEATS[game])
    page.wait_for_selector(YOUR_TURN, timeout=60000)
    page.wait_for_selector("[data-testid=hand]")
    box = _in_view(page, "[data-testid=hand]")
    page.screenshot(path=str(SHOTS / f"table-{game}-1280x800.png"))
    assert page.evaluate("scrollY") == 0
    assert box["top"] >= 0 and box["bottom"] <= box["height"], box


def _pentyrch_step(page: Any, seen: dict[str, Any]) -> None:
    """One move as West, noting what the page offered: the payment panel's place and a bear-off."""
    if click_first(page, "[data-action=pass]"):
        return
    if page.locator("[data-testid=pay-panel]").count():
        if "pay" not in seen:
            page.wait_for_function(
                "() => { const r = document.querySelector('[data-testid=pay-panel]').getBoundingClientRect();"
                " return r.top >= 0 && r.bottom <= innerHeight; }"
            )
            seen["pay"] = _in_view(page, "[data-testid=pay-panel]")
            page.screenshot(path=str(SHOTS / "table-pentyrch-pay-390.png"))
        click_first(page, ".pay-option")
        return
    tokens = page.locator(".token-btn.selectable")
    best: tuple[float, str, str] | None = None  # West heads east: the furthest cell of any court card
    for code in [tokens.nth(i).get_attribute("data-court") for i in range(tokens.count())]:
        if not click_first(page, f".token-btn.selectable[data-court={code}]"):
            return
        if page.locator(".token-btn.selected").count() == 0:  # a second click unselects: pick again
            click_first(page, f".token-btn.selectable[data-court={code}]")
        if page.locator("[data-action=bear-off]").count():
            # The target is the court card's own cell on the cross, lit like every other target.
            assert page.locator("[data-testid=board] [data-action=bear-off][data-dest=off]").count()
            page.screenshot(path=str(SHOTS / "table-pentyrch-bear-off-390.png"))
            if click_first(page, "[data-action=bear-off]"):
                seen["bore_off"] = True
            return
        for d in [x.get_attribute("data-dest") for x in page.locator(".dest-btn").all()]:
            if d and (best is None or _pentyrch_score(d) > best[0]):
                best = (_pentyrch_score(d), str(code), d)
    if best is None:
        page.wait_for_timeout(80)
        return
    _, code, dest = best
    if page.locator(f".token-btn.selected[data-court={code}]").count() == 0:
        click_first(page, f".token-btn.selectable[data-court={code}]")
    click_first(page, f".dest-btn[data-dest={dest}]", corner=True)


def test_pentyrch_payment_and_bearing_off_on_a_phone(pages: Pages, server: Server) -> None:  # noqa: F811
    """On a phone the payment choice is scrolled into the window when it opens, and bearing off is
    a lit target on the cross that makes the move when tapped."""
    page = pages.new(viewport=PHONE)
    seen: dict[str, Any] = {}
    deadline = time.monotonic() + 300
    while not ("pay" in seen and "bore_off" in seen):
        # A deal may end before West's court card reaches its goal: then a new table.
        start_from_lobby(page, server, "pentyrch", SEATS["pentyrch"])
        while not is_over(page) and not ("pay" in seen and "bore_off" in seen):
            assert time.monotonic() < deadline, f"no game offered both in time: {sorted(seen)}"
            _pentyrch_step(page, seen)
    # The tap on the target was the move: the log tells it.
    page.wait_for_function(
        "() => /You bore .* off to safety/.test(document.querySelector('[data-testid=log]').innerText)"
    )


def test_pentyrch_hint_lights_its_court_card_cell_and_payment(pages: Pages, server: Server) -> None:  # noqa: F811
    """The hint is drawn from the parts the server sends with it (docs/web.md, "move"): its words name
    the court card and cells, that court card and its cell glow, and so does its payment once the
    cell is picked; playing it is told in the log."""
    page = pages.new(viewport=LAPTOP)
    deadline = time.monotonic() + 240
    start_from_lobby(page, server, "pentyrch", SEATS["pentyrch"])
    seen: dict[str, Any] = {}
    while True:  # a turn with a choice (the Hint button is off with a single legal move)
        assert time.monotonic() < deadline, "no turn with a choice came"
        if is_over(page):
            start_from_lobby(page, server, "pentyrch", SEATS["pentyrch"])
        page.wait_for_selector(YOUR_TURN, timeout=60000)
        if (
            page.locator("[data-testid=hint]:not([disabled])").count()
            and not page.locator("[data-action=pass]").count()
        ):
            break
        _pentyrch_step(page, seen)
        page.wait_for_timeout(300)
    page.click("[data-testid=hint]")
    page.wait_for_selector("[data-testid=hint-box]", timeout=60000)
    words = page.inner_text("[data-testid=hint-box]")
    court = page.locator(".token-btn.hinted")
    assert court.count() == 1, words
    code = str(court.get_attribute("data-court"))
    shown = ("10" if code[0] == "T" else code[0]) + {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}[code[1]]
    assert f"play {shown} " in words, words
    m = re.search(r"(?:→|enters on) ([a-g][1-7])", words)
    assert m or "bears off" in words, words
    page.screenshot(path=str(SHOTS / "table-pentyrch-hint-1280x800.png"))
    if m is None:
        assert page.locator(".cell.hinted").count() == 0
        click_first(page, f".token-btn.selectable[data-court={code}]")
        click_first(page, "[data-action=bear-off]")
        page.wait_for_function("() => /You bore/.test(document.querySelector('[data-testid=log]').innerText)")
        return
    cell = m.group(1)
    assert (
        page.locator(".cell.hinted").count() == 1 and page.locator(f".cell.hinted[data-cell={cell}]").count()
    )
    if page.locator(f".token-btn.selected[data-court={code}]").count() == 0:
        click_first(page, f".token-btn.selectable[data-court={code}]")
    before = page.locator("[data-testid=log] li").count()
    click_first(page, f".dest-btn[data-dest={cell}]", corner=True)
    if page.locator("[data-testid=pay-panel]").count():
        pay = page.locator(".pay-option.hinted")
        assert pay.count() == 1
        page.screenshot(path=str(SHOTS / "table-pentyrch-hint-pay-1280x800.png"))
        pay.click()
    page.wait_for_function(
        "([n, cell]) => [...document.querySelectorAll('[data-testid=log] li')].slice(n)"
        ".some((l) => new RegExp('You (moved|entered) .*' + cell).test(l.innerText))",
        arg=[before, cell],
    )


def test_the_log_tells_leads_and_plays_sounds_until_muted(pages: Pages, server: Server) -> None:  # noqa: F811
    """Penneech against a bot: the log tells who led each trick, with the card coloured as cards are;
    a card played and the player's turn make sounds; unticked in Settings, they stop."""
    page = pages.new()
    start_from_lobby(page, server, "penneech", ["you", "random"])
    deadline = time.monotonic() + 120
    while page.evaluate("Number(document.documentElement.dataset.sounds || 0)") < 3:
        assert time.monotonic() < deadline and not is_over(page), "no sounds were asked for"
        if not (click_first(page, "[data-action=keep]") or click_first(page, ".hand .card-btn.playable")):
            page.wait_for_timeout(80)
    log = page.locator("[data-testid=log]")
    page.wait_for_function("() => /\\bled\\b/.test(document.querySelector('[data-testid=log]').innerText)")
    assert log.locator("li .ct").count() > 0  # cards in the log are drawn as cards, not bare codes
    assert page.evaluate("document.documentElement.dataset.lastSound") in ("card", "turn")
    page.click("[data-testid=settings]")
    page.uncheck("[data-testid=sounds]")
    page.click("[data-testid=settings]")
    before = page.evaluate("Number(document.documentElement.dataset.sounds)")
    lines = log.locator("li").count()
    while log.locator("li").count() < lines + 4 and not is_over(page):
        assert time.monotonic() < deadline, "the game did not go on"
        if not (click_first(page, "[data-action=keep]") or click_first(page, ".hand .card-btn.playable")):
            page.wait_for_timeout(80)
    assert page.evaluate("Number(document.documentElement.dataset.sounds)") == before


def test_the_log_tells_a_clock_run_out(pages: Pages, server: Server) -> None:  # noqa: F811
    """A table of two seats on a one-second clock whose players never move: the bot plays for the
    seat whose time ran out, and a spectator's log says so."""
    clock = {"seconds_per_move": 1, "on_timeout": "bot"}
    made = server.api("/tables", {"game": "penneech", "seats": ["human", "human"], "clock": clock})
    table = made["id"]
    for seat, name in enumerate(("Ann", "Bob")):  # both take their seats, then neither moves
        invite = made["invites"][str(seat)]
        server.api(f"/tables/{table}/join", {"seat": seat, "name": name, "invite": invite})
    page = pages.new()
    page.goto(f"{server.base}/#/table/{table}")
    page.wait_for_function(
        "() => /ran out of time: the bot plays for that seat/"
        ".test(document.querySelector('[data-testid=log]')?.innerText || '')"
    )


def test_the_log_tells_a_friend_leaving(pages: Pages, server: Server) -> None:  # noqa: F811
    """Bob takes the invited seat, then leaves: Ann's log names him."""
    ann = pages.new(name="Ann")
    start_from_lobby(ann, server, "penneech", ["you", "friend"])
    bob = seat_friend(ann, pages)
    bob.on("dialog", lambda d: d.accept())
    bob.click("button:has-text('Leave')")
    ann.wait_for_function(
        "() => /Bob left the table/.test(document.querySelector('[data-testid=log]').innerText)"
    )


@pytest.mark.parametrize("game", sorted(SEATS))
def test_a_rules_page_fits_a_phone(pages: Pages, server: Server, game: str) -> None:  # noqa: F811
    """On a 390 px phone a rules page opens with how to win and is no wider than the screen (its
    wide tables scroll inside their own box; the page used to be 475 to 775 px wide)."""
    page = pages.new(viewport=PHONE)
    page.goto(f"{server.base}/#/rules/{game}")
    page.wait_for_selector(".rules-text h2")
    heads = page.locator(".rules-text h1, .rules-text h2, .rules-text h3").all_inner_texts()
    assert heads[:2] == [game.capitalize(), "How to win"], heads[:3]
    page.screenshot(path=str(SHOTS / f"rules-{game}-390.png"))  # what a player sees first
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
