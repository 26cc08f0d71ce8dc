"""The lessons and the review in a real browser (Debian's Chromium through Playwright): a lesson
started from the lobby shows its words above the board, refuses a move it does not want with the
lesson's reason, and a finished game's review is drawn as a table."""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from tests.test_browser import (  # noqa: F401 - fixtures
    DESKTOP,
    PHONE,
    Pages,
    Server,
    browser,
    click_first,
    move_on,
    pages,
    server,
)

pytestmark = pytest.mark.slow

# Where the screenshots go (to look at them): $GAMESTER_SHOTS, else the temporary folder.
SHOTS = Path(os.environ.get("GAMESTER_SHOTS") or tempfile.gettempdir())


def _act(page: Any, code: str) -> bool:
    """Click the card or button of the move ``code``."""
    for sel in (f".hand .card-btn.playable[data-card='{code}']", f"[data-action='{code}']"):
        loc = page.locator(sel)
        if loc.count():
            try:
                loc.first.click(timeout=2000)
            except Exception:  # noqa: BLE001 - the board was redrawn under the click: look again
                return False
            return True
    return False


@pytest.mark.parametrize(("lesson", "viewport"), [("penneech", DESKTOP), ("piquesept", PHONE)])
def test_a_lesson_in_the_browser(
    pages: Pages,  # noqa: F811
    server: Server,  # noqa: F811
    lesson: str,
    viewport: dict[str, int],
) -> None:
    """Taken by clicks from the lobby to the review: the lesson's words above the board, one
    unwanted move refused with its reason, the closing words, the review's table and chart."""
    page = pages.new(viewport=viewport)
    size = "phone" if viewport == PHONE else "desktop"
    page.goto(f"{server.base}/#/")
    page.click(f".lesson-tile[data-lesson={lesson}]")
    page.wait_for_url("**/#/table/*")
    box = page.locator("[data-testid=lesson]")
    box.wait_for(state="visible")
    assert "lesson" in page.locator(".table-options").inner_text()
    refused = ""
    shot = False
    steps: list[str] = []
    deadline = time.monotonic() + 300
    while not page.locator("[data-testid=result]").is_visible():
        if time.monotonic() > deadline:
            page.screenshot(path=str(SHOTS / f"lesson-{lesson}-stuck.png"))
            said = page.locator("[data-testid=lesson]").inner_text()
            raise AssertionError(f"the lesson did not finish in time; the lesson said: {said}")
        expect = page.locator("[data-testid=lesson-expect]")
        moves = page.locator(".hand .card-btn.playable, [data-action]").evaluate_all(
            "bs => bs.map(b => b.dataset.card || b.dataset.action)"
        )
        if not moves:
            move_on(page)  # a finished trick held on the table: a click moves on
            page.wait_for_timeout(80)
            continue
        if not expect.count():
            _act(page, "keep" if "keep" in moves else moves[0])
            continue
        wanted = json.loads(expect.get_attribute("data-expect") or "[]")
        if not shot:
            page.screenshot(path=str(SHOTS / f"lesson-{lesson}-{size}.png"))
            shot = True
        said = box.inner_text()
        if said not in steps:  # each request of the lesson, as the pupil sees it (to be looked at)
            steps.append(said)
            page.screenshot(path=str(SHOTS / f"lesson-{lesson}-{size}-step{len(steps):02d}.png"))
        others = [m for m in moves if m not in wanted]
        if not refused and others:
            _act(page, others[0])
            page.locator("[data-testid=lesson-refused]").wait_for(state="visible")
            refused = page.locator("[data-testid=lesson-refused]").inner_text()
            continue
        _act(page, wanted[0])
    assert refused, "no request left a choice to refuse"
    assert page.locator("[data-testid=lesson]").is_visible()  # the closing words
    page.click("[data-testid=review-btn]")
    page.locator("[data-testid=review-summary]").wait_for(state="visible", timeout=180000)
    rows = page.locator("[data-testid=review-table] tbody tr").count()
    assert rows > 0
    assert "accuracy" in page.locator("[data-testid=review-summary]").inner_text()
    assert page.locator("[data-testid=review-chart] path").count() == 2
    page.locator("[data-testid=review]").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"review-{lesson}-{size}.png"))


def _pentyrch_move(page: Any, action: str) -> bool:
    """Make the Pentyrch move ``action`` (``JH a4-b4 9C``, ``QH @a4 =6C``, ``JH off``, ``pass``) as a
    player does: the court card, then the lit cell (or bearing off), then the payment if asked."""
    if action == "pass":
        return click_first(page, "[data-action=pass]")
    court, where = action.split()[:2]
    dest = "off" if where == "off" else where.split("-")[-1].lstrip("@")
    selected = page.locator(f".token-btn.selected[data-court={court}]").count()
    if not selected and not click_first(page, f".token-btn.selectable[data-court={court}]"):
        return False
    if dest == "off":
        picked = click_first(page, "[data-action=bear-off]") or click_first(page, ".dest-btn[data-dest=off]")
    else:
        picked = click_first(page, f".dest-btn[data-dest={dest}]", corner=True)
    if not picked:
        return False
    pay = page.locator(f".pay-option[data-action='{action}']")
    try:  # several ways to pay: the panel offers them; one way: the move is made at once
        pay.wait_for(state="visible", timeout=1500)
    except Exception:  # noqa: BLE001
        return True
    return click_first(page, f".pay-option[data-action='{action}']")


def _pentyrch_other_move(page: Any, wanted: list[str]) -> bool:
    """A legal move the lesson does not want: another court card or another cell than its moves'."""
    aims = {(a.split()[0], a.split()[1].split("-")[-1].lstrip("@")) for a in wanted if a != "pass"}
    courts = page.locator(".token-btn.selectable").evaluate_all("bs => bs.map(b => b.dataset.court)")
    for court in courts:
        if not page.locator(f".token-btn.selected[data-court={court}]").count():
            click_first(page, f".token-btn.selectable[data-court={court}]")
        for dest in page.locator(".dest-btn").evaluate_all("bs => bs.map(b => b.dataset.dest)"):
            if (court, dest) not in aims:
                click_first(page, f".dest-btn[data-dest={dest}]", corner=True)
                if page.locator(".pay-option").count():
                    click_first(page, ".pay-option")
                return True
    return False


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_pentyrch_lesson_in_the_browser(
    pages: Pages,  # noqa: F811
    server: Server,  # noqa: F811
    viewport: dict[str, int],
) -> None:
    """Pentyrch's lesson, the longest (24 decisions), taken by clicks at 1280 px and on a 390 px
    phone: a court card, a lit cell, a payment, as the lesson asks; one unwanted move refused with
    its reason; the closing words; on the phone the lesson's words and the page no wider than it."""
    size = "phone" if viewport == PHONE else "desktop"
    page = pages.new(viewport=viewport)
    page.goto(f"{server.base}/#/")
    page.click(".lesson-tile[data-lesson=pentyrch]")
    page.wait_for_url("**/#/table/*")
    page.locator("[data-testid=lesson]").wait_for(state="visible")
    page.locator("[data-testid=cross]").wait_for(state="visible")
    refused = ""
    done = 0
    steps: list[str] = []
    deadline = time.monotonic() + 300
    while not page.locator("[data-testid=result]").is_visible():
        if time.monotonic() > deadline:
            page.screenshot(path=str(SHOTS / "lesson-pentyrch-stuck.png"))
            said = page.locator("[data-testid=lesson]").inner_text()
            raise AssertionError(f"the Pentyrch lesson did not finish in time; the lesson said: {said}")
        mine = page.locator(".token-btn.selectable, [data-action=pass]").count()
        expect = page.locator("[data-testid=lesson-expect]")
        if not mine:
            page.wait_for_timeout(80)
            continue
        wanted = json.loads(expect.get_attribute("data-expect") or "[]") if expect.count() else []
        said = page.locator("[data-testid=lesson]").inner_text() if wanted else ""
        if said and said not in steps:  # each request of the lesson, as the pupil sees it
            steps.append(said)
            page.screenshot(path=str(SHOTS / f"lesson-pentyrch-{size}-step{len(steps):02d}.png"))
        if done == 2:
            page.screenshot(path=str(SHOTS / f"lesson-pentyrch-{size}.png"))
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        if wanted and not refused and _pentyrch_other_move(page, wanted):
            page.locator("[data-testid=lesson-refused]").wait_for(state="visible")
            refused = page.locator("[data-testid=lesson-refused]").inner_text()
            continue
        if wanted:
            moved = _pentyrch_move(page, wanted[0])
        else:  # any legal move will do: the first court card to its first lit cell
            moved = _pentyrch_other_move(page, []) or click_first(page, "[data-action=pass]")
        if moved:
            done += 1
            page.wait_for_timeout(50)
    assert refused, "no request of the lesson left a choice to refuse"
    assert done >= 10, f"only {done} moves were made by clicks"
    assert page.locator("[data-testid=lesson]").is_visible()  # the closing words


def test_the_lobby_lists_a_lesson_per_game(pages: Pages, server: Server) -> None:  # noqa: F811
    page = pages.new()
    page.goto(f"{server.base}/#/")
    page.locator(".lesson-tile").first.wait_for()
    assert sorted(page.locator(".lesson-tile").evaluate_all("bs => bs.map(b => b.dataset.lesson)")) == [
        "penneech",
        "pentyrch",
        "piquesept",
    ]
    page.screenshot(path=str(SHOTS / "lobby-lessons.png"))
    # A guest has no Rated field: nothing of it (not even the word null) is drawn.
    assert "null" not in page.locator("[data-testid=setup]").inner_text()


def test_playing_alone_needs_no_name(pages: Pages, server: Server) -> None:  # noqa: F811
    """A name matters only to the people at a table: against computer players alone the lobby starts
    the game without asking for one."""
    page = pages.new(name="")
    page.goto(f"{server.base}/#/?game=piquesept")
    page.wait_for_selector("text=New table: Piquesept")
    assert page.locator("#player-name").input_value() == ""
    page.click("[data-testid=start]")
    page.wait_for_url("**/#/table/*")
    page.locator("[data-testid=board]").wait_for(state="visible")
    assert page.evaluate("JSON.parse(localStorage.getItem('gamester.settings')).name") == ""
