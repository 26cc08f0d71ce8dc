"""The lessons and the review in a real browser (Debian's Chromium through Playwright).

Every lesson is taken by clicks from the lobby at 1280x800 and on a 390x844 phone: at every decision
of the pupil the cards the lesson wants (or, where any move will do, the hand) and the lesson's words
are on the screen together, the words not hidden in a scrolled box and the cards not under the words;
a move the lesson does not take is refused with its reason; the closing words come at the end. A
finished game's review is drawn with why each marked move falls short, and the replay shows it."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from gamester.core.lesson import lessons
from tests.test_browser import (  # noqa: F401 - fixtures
    PHONE,
    Pages,
    Server,
    browser,
    click_first,
    pages,
    server,
    start_from_lobby,
)

pytestmark = pytest.mark.slow

# Where the screenshots go (to look at them): $GAMESTER_SHOTS, else the temporary folder.
SHOTS = Path(os.environ.get("GAMESTER_SHOTS") or tempfile.gettempdir())
SCREEN = {"desktop": {"width": 1280, "height": 800}, "phone": PHONE}
LESSONS = [t.id for t in lessons()]
GAME = {t.id: t.game for t in lessons()}

# At a decision: are the lesson's words and the wanted cards on the screen together? The words: the
# whole box inside the viewport and nothing of it scrolled away. The cards: each wanted one (its card,
# button or court card; where any move will do, the hand) inside the viewport and clear of the words.
ON_SCREEN = """(expect) => {
  const vw = innerWidth, vh = innerHeight;
  const inside = (r) => r.width > 0 && r.top >= -1 && r.left >= -1 && r.bottom <= vh + 1 && r.right <= vw + 1;
  const box = document.querySelector("[data-testid=lesson]");
  if (!box || box.hidden) return { words: false, why: "no lesson box" };
  const lb = box.getBoundingClientRect();
  const words = inside(lb) && box.scrollHeight <= box.clientHeight + 2;
  const board = document.querySelector("[data-testid=board]");
  const find = (m) => board.querySelector(`[data-action="${m}"]`)
    || board.querySelector(`.card-btn[data-card="${m}"]`)
    || board.querySelector(`.token-btn.selectable[data-court="${m.split(" ")[0]}"]`);
  const pay = (m) => (m.split(" ")[2] || "").replace("=", "").split("+").filter(Boolean)
    .map((c) => board.querySelector(`.py-hand [data-card="${c}"]`));
  let wanted = expect.flatMap((m) => [find(m), ...pay(m)]).filter(Boolean);
  if (!expect.length) {
    wanted = [board.querySelector(".hand") || board.querySelector(".token-btn.selectable")].filter(Boolean);
  }
  const apart = (r) => r.bottom <= lb.top + 1 || r.top >= lb.bottom - 1 || r.right <= lb.left + 1
    || r.left >= lb.right - 1;
  const clear = (r) => inside(r) && apart(r);
  const hidden = wanted.filter((e) => !clear(e.getBoundingClientRect()));
  return { words, wanted: wanted.length, hidden: hidden.map((e) => e.outerHTML.slice(0, 80)),
           box: [lb.top, lb.bottom, box.scrollHeight, box.clientHeight] };
}"""


def _move_on(page: Any) -> None:
    """A click on the table, as a player gives to move on from a trick held on it (only while one is)."""
    held = page.locator("[data-testid=board][data-held]")
    if held.count():
        with contextlib.suppress(Exception):
            held.dispatch_event("click", timeout=2000)


def _frame(page: Any) -> None:
    """Let the page finish what it does after drawing: its cards' animations end, and it brings the
    wanted card into view (as a newcomer sees the screen a moment after the turn comes)."""
    page.wait_for_function("() => document.getAnimations().every((a) => a.playState !== 'running')")
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


def _my_moves(page: Any, game: str) -> list[str]:
    """The moves the page offers the pupil now (empty while it is someone else's turn)."""
    if game == "pentyrch":
        return page.locator(".token-btn.selectable, [data-action=pass]").evaluate_all(
            "bs => bs.map(b => b.dataset.court || b.dataset.action)"
        )
    return page.locator(".hand .card-btn.playable, [data-action]").evaluate_all(
        "bs => bs.map(b => b.dataset.card || b.dataset.action)"
    )


def _act(page: Any, code: str) -> bool:
    """Click the card or button of the move ``code``."""
    for sel in (f".hand .card-btn.playable[data-card='{code}']", f"[data-action='{code}']"):
        if page.locator(sel).count():
            return click_first(page, sel)
    return False


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
    """A legal move the lesson does not take: another court card or another cell than its moves'."""
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


def take_lesson(page: Any, server: Server, lesson: str, size: str) -> list[str]:  # noqa: F811
    """Take ``lesson`` by clicks from the lobby to its closing words, checking the screen at every
    decision; returns what the lesson said at each (screenshots of each new note in SHOTS)."""
    game = GAME[lesson]
    page.goto(f"{server.base}/#/")
    page.click(f".lesson-tile[data-lesson={lesson}]")
    page.wait_for_url("**/#/table/*")
    page.locator("[data-testid=lesson]").wait_for(state="visible")
    refused = ""
    said: list[str] = []
    deadline = time.monotonic() + 120
    while not page.locator("[data-testid=result]").is_visible():
        if time.monotonic() > deadline:
            page.screenshot(path=str(SHOTS / f"lesson-{lesson}-{size}-stuck.png"))
            raise AssertionError(f"the lesson did not finish; it said: {said[-1:]}")
        if not _my_moves(page, game):
            _move_on(page)
            page.wait_for_timeout(60)
            continue
        _frame(page)
        only = _my_moves(page, game)
        if len(only) == 1 and not page.locator("[data-testid=lesson-expect]").count():
            # One court card or card to move: a forced move is no decision, with nothing to teach.
            if game != "pentyrch":
                _act(page, only[0])
            elif not _pentyrch_other_move(page, []):
                _act(page, "pass")
            continue
        expect_box = page.locator("[data-testid=lesson-expect]")
        wanted = json.loads(expect_box.get_attribute("data-expect") or "[]") if expect_box.count() else []
        text = page.locator("[data-testid=lesson]").inner_text()
        seen = page.evaluate(ON_SCREEN, wanted)
        if not _my_moves(page, game):
            continue  # the board changed under the check: look again
        if not (seen["words"] and seen["wanted"] and not seen["hidden"]):
            page.screenshot(path=str(SHOTS / f"lesson-{lesson}-{size}-off-screen.png"))
        assert seen["words"], f"{lesson} {size}: the lesson's words are not all on screen: {seen} {text!r}"
        assert seen["wanted"] and not seen["hidden"], f"{lesson} {size}: wanted cards off screen: {seen}"
        assert "{seat" not in text
        if text not in said:
            said.append(text)
            page.screenshot(path=str(SHOTS / f"lesson-{lesson}-{size}-step{len(said):02d}.png"))
        moves = _my_moves(page, game)
        others = [m for m in moves if m not in wanted] if game != "pentyrch" else moves
        if wanted and not refused and others:
            tried = _pentyrch_other_move(page, wanted) if game == "pentyrch" else _act(page, others[0])
            if tried:
                page.locator("[data-testid=lesson-refused]").wait_for(state="visible")
                refused = page.locator("[data-testid=lesson-refused]").inner_text()
                assert page.evaluate(ON_SCREEN, wanted)["words"], "the refusal is on screen with the words"
                continue
        move = wanted[0] if wanted else moves[0]
        if game == "pentyrch":
            _pentyrch_move(page, move) if wanted else (_pentyrch_other_move(page, []) or _act(page, "pass"))
        else:
            _act(page, move)
    assert refused and "{seat" not in refused, "a move the lesson does not take was refused with its reason"
    closing = page.locator("[data-testid=lesson]").inner_text()
    assert "at a terminal" in closing
    page.screenshot(path=str(SHOTS / f"lesson-{lesson}-{size}-end.png"))
    return said


@pytest.mark.parametrize("size", list(SCREEN))
@pytest.mark.parametrize("lesson", LESSONS)
def test_every_lesson_keeps_its_words_and_the_hand_on_one_screen(
    pages: Pages,  # noqa: F811
    server: Server,  # noqa: F811
    lesson: str,
    size: str,
) -> None:
    # On a phone animations on, as a newcomer has them: cards dealt in and flying to the trick move
    # the hand after the page has brought it into view, and the sheet of words could hide it. (Beside
    # the board on a desktop nothing covers the hand; without the pauses the test is quicker.)
    page = pages.new(viewport=SCREEN[size], animations=size == "phone")
    said = take_lesson(page, server, lesson, size)
    assert len(said) >= 3
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREEN[size]["width"]


@pytest.mark.parametrize("size", list(SCREEN))
def test_the_review_says_why_and_the_replay_shows_it(
    pages: Pages,  # noqa: F811
    server: Server,  # noqa: F811
    size: str,
) -> None:
    """A one-deal Penneech game against the computer, played by clicking the last card every time;
    its review: the summary, the chart, each marked move with why; a move's number opens the replay
    at that move, with the mark and its why."""
    page = pages.new(viewport=SCREEN[size])
    start_from_lobby(page, server, "penneech", ["you", "heuristic"], options={"objective": "deal"})
    deadline = time.monotonic() + 120
    while not page.locator("[data-testid=result]").is_visible():
        assert time.monotonic() < deadline
        moves = _my_moves(page, "penneech")
        if moves:
            _act(page, "keep" if "keep" in moves else moves[-1])
        else:
            _move_on(page)
        page.wait_for_timeout(60)
    page.click("[data-testid=review-btn]")
    page.locator("[data-testid=review-summary]").wait_for(state="visible", timeout=180000)
    table = page.locator("[data-testid=review-table]")
    rows = table.locator("tbody tr:not(.why-row)").count()
    marked = table.locator("tbody tr.mistake:not(.why-row), tbody tr.blunder:not(.why-row)").count()
    whys = page.locator("[data-testid=review-why]").count()
    assert rows > 0 and marked == whys
    # A judge's move no better by the review's own estimate is drawn faint (docs/review.md): faint
    # only where its chance shows no higher than the played move's, and always where it shows lower.
    cells = table.locator("tbody tr:not(.why-row)").evaluate_all(
        "rs => rs.map(r => [...r.cells].slice(2, 5).map(c => [c.textContent, c.className]))"
    )
    for (best, faint), (mine, _), (theirs, _) in cells:
        pb, pp = int(theirs.rstrip("%")), int(mine.rstrip("%"))
        assert ("no-better" in faint) <= (best != "the same" and pb <= pp), cells
        assert ("no-better" in faint) >= (best != "the same" and pb < pp), cells
    page.locator("[data-testid=review]").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"review-penneech-{size}.png"))
    if marked:
        first = table.locator("tbody tr.mistake a, tbody tr.blunder a").first
        first.click()
        page.wait_for_url("**/#/replay/*")
        page.locator("[data-testid=replay-why]").wait_for(state="visible")
        page.screenshot(path=str(SHOTS / f"replay-why-penneech-{size}.png"))


def test_the_lobby_lists_every_lesson(pages: Pages, server: Server) -> None:  # noqa: F811
    page = pages.new()
    page.goto(f"{server.base}/#/")
    page.locator(".lesson-tile").first.wait_for()
    listed = page.locator(".lesson-tile").evaluate_all("bs => bs.map(b => b.dataset.lesson)")
    assert listed == LESSONS
    page.screenshot(path=str(SHOTS / "lobby-lessons.png"))
    # A guest has no Rated field: nothing of it (not even the word null) is drawn.
    assert "null" not in page.locator("[data-testid=setup]").inner_text()


@pytest.mark.parametrize("size", list(SCREEN))
def test_every_lesson_tile_says_what_it_teaches(
    pages: Pages,  # noqa: F811
    server: Server,  # noqa: F811
    size: str,
) -> None:
    """Each lesson's tile shows what it teaches, on a phone too (the two lessons of a game read
    "Penneech", "Penneech" there when only the game's name showed), and no two tiles read alike."""
    page = pages.new(viewport=SCREEN[size])
    page.goto(f"{server.base}/#/")
    page.locator(".lesson-tile").first.wait_for()
    tiles = page.locator(".lesson-tile")
    shown = [tiles.nth(i).inner_text().strip() for i in range(tiles.count())]
    assert all(tiles.nth(i).locator(".tile-blurb").is_visible() for i in range(tiles.count())), shown
    assert len(set(shown)) == len(LESSONS), shown


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
