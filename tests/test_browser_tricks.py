"""A finished trick is seen (issue 43), in Debian's Chromium through Playwright: Penneech and
Piquesept against bots, the player clicking as fast as the page lets it. The page itself times each
completed trick on the felt (a MutationObserver stamps, with ``performance.now()``, when a trick with
its winner named appears and when it goes), and the tests compare what it saw with the game's own
tricks from the replay: every trick is drawn, each one after which the player is not the next to
move stays at least a second, the deciding trick is drawn before the result, and "Last trick" shows
the right cards.

The names test: a friend who sits down after the deal was told is named in the lines before too.
The lobby test: a first game's default opponent is a gentle one and "Start" is on the first screen."""

from __future__ import annotations

import contextlib
import time
from typing import Any

import pytest

from tests.test_browser import (  # noqa: F401 - fixtures
    PHONE,
    Pages,
    Server,
    browser,
    click_first,
    is_over,
    move_on,
    pages,
    seat_friend,
    server,
    start_from_lobby,
    sync_api,
)

pytestmark = pytest.mark.slow

LAPTOP = {"width": 1280, "height": 800}
RANKS = "23456789TJQKA"
HOLD_MS = 1000.0  # the least a completed trick must stay drawn (the page holds it 1.5 s or more)

# Installed before the page's own scripts: records every completed trick drawn on the board (its cards
# and its "… won it" label) with when it appeared and when it went, and when the result appeared.
RECORDER = """
(() => {
  const rec = { tricks: [], resultAt: null, cur: null };
  window.__trickRec = rec;
  const look = () => {
    const now = performance.now();
    const t = document.querySelector('[data-testid=board] .trick.done:not(.peek)');
    const label = t ? t.querySelector('.trick-label') : null;
    const text = label ? label.textContent : '';
    const cards = t ? [...t.querySelectorAll('[data-card]')].map((c) => c.dataset.card) : [];
    const key = t && / won/.test(text) ? cards.join(' ') + ' | ' + text : null;
    if (rec.cur && rec.cur.key !== key) { rec.cur.end = now; rec.cur = null; }
    if (key && !rec.cur) {
      rec.cur = { key, cards, label: text, start: now, end: null };
      rec.tricks.push(rec.cur);
    }
    const r = document.querySelector('[data-testid=result]');
    if (rec.resultAt === null && r && r.offsetParent !== null) rec.resultAt = now;
  };
  new MutationObserver(look).observe(document, {
    childList: true, subtree: true, characterData: true, attributes: true,
    attributeFilter: ['hidden', 'class'],
  });
})();
"""


# The fast pace: the shortest hold the page has, the one the tests must find at least a second long.
FAST = (
    "localStorage.setItem('gamester.settings', JSON.stringify("
    "{...JSON.parse(localStorage.getItem('gamester.settings') || '{}'), pace: 'fast'}));"
)


def _recorded(page: Any) -> dict[str, Any]:
    return dict(
        page.evaluate(
            "() => { const r = window.__trickRec; const now = performance.now();"
            " return { now, resultAt: r.resultAt,"
            " tricks: r.tricks.map((t) => ({ ...t, end: t.end === null ? now : t.end })) }; }"
        )
    )


def _game_tricks(srv: Server, table: str) -> list[dict[str, Any]]:
    """Every completed trick of the game from its replay: cards, winner, who played its last card and
    who moved next (None after the last move)."""
    steps = srv.api(f"/tables/{table}/replay")["steps"]
    out = []
    for k, s in enumerate(steps):
        after = steps[k + 1].get("player") if k + 1 < len(steps) else None
        for e in s["events"]:
            if e.get("type") == "trick":
                out.append(
                    {"cards": e["cards"], "winner": e["winner"], "last_by": s.get("player"), "next_by": after}
                )
    return out


def _play(page: Any, players: int, limit: float = 150.0, peek_after: int = 2) -> dict[str, Any]:
    """Click the first playable card as soon as there is one until the game is over. Once
    ``peek_after`` tricks are done, at the player's turn, "Last trick" is pressed once and what it
    shows is kept (with the previous trick drawn, for the test to compare)."""
    deadline = time.monotonic() + limit
    peek: dict[str, Any] | None = None
    while not is_over(page):
        assert time.monotonic() < deadline, "the game did not finish in time"
        if click_first(page, "[data-action=keep]"):
            continue
        playable = page.locator(".hand .card-btn.playable")
        if not playable.count():
            page.wait_for_timeout(30)
            continue
        done = page.evaluate("() => window.__trickRec.tricks.length")
        if peek is None and done >= peek_after and page.locator("[data-testid=last-trick]").count():
            before = page.evaluate("() => window.__trickRec.tricks.at(-1).cards")
            page.click("[data-testid=last-trick]")
            page.wait_for_selector("[data-testid=board] .trick.peek")
            shown = page.locator("[data-testid=board] .trick.peek [data-card]").evaluate_all(
                "els => els.map((e) => e.dataset.card)"
            )
            label = page.inner_text("[data-testid=board] .trick.peek .trick-label")
            page.keyboard.press("l")  # the key closes it again
            page.wait_for_selector("[data-testid=board] .trick.peek", state="detached")
            peek = {"shown": shown, "previous": before, "label": label}
            continue
        # The lowest playable card, a trump last: losing tricks, the player often plays the last card
        # of one a bot then wins and leads after (the case that used to vanish at once).
        cards = playable.evaluate_all(
            "els => els.map((e) => [e.dataset.card, e.classList.contains('trump')])"
        )
        card = min(cards, key=lambda c: (c[1], RANKS.index(c[0][0])))[0]
        with contextlib.suppress(sync_api.Error):
            page.click(f".hand .card-btn.playable[data-card='{card}']", timeout=2000)
    return {"peek": peek}


def _check_holds(page: Any, srv: Server, table: str, me: int, least: int) -> bool:
    """Every trick of the game drawn with its winner; those after which the player is not the next
    to move (the deciding one too: nobody is) for at least ``HOLD_MS``. Prints what was measured (the
    closing note's figures) and answers whether some of those tricks were completed by the player's
    own card and won by another seat (the case that used to vanish at once)."""
    rec = _recorded(page)
    tricks = _game_tricks(srv, table)
    assert len(tricks) >= least, tricks
    drawn = rec["tricks"]
    report = []
    for t in tricks:
        seen = [d for d in drawn if sorted(d["cards"]) == sorted(t["cards"])]
        ms = max((d["end"] - d["start"] for d in seen), default=0.0)  # 0: never drawn
        measured = t["next_by"] != me  # not ended by the player's own next move (a click)
        report.append(
            {
                "cards": t["cards"],
                "winner": t["winner"],
                "last_by": t["last_by"],
                "ms": round(ms),
                "measured": measured,
            }
        )
    print("tricks:", report)
    timed = [r["ms"] for r in report if r["measured"]]
    median = sorted(timed)[len(timed) // 2]
    print(f"held ms: min {min(timed)} median {median} max {max(timed)} of {len(timed)}")
    never = [r for r in report if r["ms"] == 0]
    assert not never, f"tricks never drawn with their winner: {never}"
    short = [r for r in report if r["measured"] and r["ms"] < HOLD_MS]
    assert not short, f"completed tricks drawn for less than {HOLD_MS} ms: {short}"
    # The deciding trick is drawn before the result, and stays for the hold before it.
    final = tricks[-1]
    last_drawn = [d for d in drawn if sorted(d["cards"]) == sorted(final["cards"])][-1]
    assert rec["resultAt"] is not None
    assert last_drawn["start"] < rec["resultAt"], (last_drawn, rec["resultAt"])
    assert rec["resultAt"] - last_drawn["start"] >= HOLD_MS, (last_drawn, rec["resultAt"])
    return any(r["last_by"] == me and r["winner"] != me for r in report)


def _table_id(page: Any) -> str:
    return str(page.url.split("#/table/")[1].split("?")[0])


def test_penneech_every_trick_is_seen(pages: Pages, server: Server) -> None:  # noqa: F811
    """Penneech (one deal) against the random bot with animations on (a player's default), at the
    fast pace (the shortest hold): every
    completed trick is drawn with its winner, those after which a bot moves next stay ≥ 1 s however
    fast the player clicks, the deal's deciding trick comes before the result, and "Last trick"
    shows the trick before."""
    # A deal is the lobby's (unseeded): one in which no trick is completed by the player's card and
    # won by the bot is played again, up to three deals, so that case is always among those checked.
    lost = False
    for _ in range(3):
        page = pages.new(animations=True)
        page.add_init_script(FAST)
        page.add_init_script(RECORDER)
        start_from_lobby(page, server, "penneech", ["you", "random"], options={"objective": "deal"})
        page.wait_for_selector("[data-testid=board]")
        out = _play(page, 2)
        lost = _check_holds(page, server, _table_id(page), 0, 7)
        peek = out["peek"]
        assert peek, "the Last trick control was never offered"
        assert sorted(peek["shown"]) == sorted(peek["previous"]), peek
        assert "won it" in peek["label"] and "Last trick" in peek["label"], peek
        if lost:
            break
    assert lost, "three deals and not one trick completed by the player's card and won by the bot"


def test_piquesept_every_trick_is_seen(pages: Pages, server: Server) -> None:  # noqa: F811
    """Piquesept (four hands) against three random bots at the fast pace with animations off: the
    trick is held all
    the same (a pause, not a motion), and the deal's last trick comes before the result."""
    page = pages.new(animations=False)
    page.add_init_script(FAST)
    page.add_init_script(RECORDER)
    start_from_lobby(page, server, "piquesept", ["you", "random", "random", "random"])
    page.wait_for_selector("[data-testid=side-points]")
    out = _play(page, 4)
    _check_holds(page, server, _table_id(page), 0, 8)
    peek = out["peek"]
    assert peek and sorted(peek["shown"]) == sorted(peek["previous"]), peek


def test_a_friend_who_sits_down_later_is_named_in_the_lines_before(pages: Pages, server: Server) -> None:  # noqa: F811
    """Ann opens a table with a friend's seat: her log already tells the draw and the deal while the
    seat is free ("Seat 2", never "Player 2"). Bob sits down and they play: the early lines now name
    Bob too, as do the status, the seat and his chat; when he leaves, the line says so by his name."""
    ann = pages.new(name="Ann")
    start_from_lobby(ann, server, "penneech", ["you", "friend"])
    ann.wait_for_selector("[data-testid=log] li")
    early = ann.locator("[data-testid=log] li").first.inner_text()
    assert "Seat 2" in early and "Player" not in early, early
    bob = seat_friend(ann, pages)
    ann.wait_for_function("() => /Bob/.test(document.querySelector('[data-testid=log] li').innerText)")
    lines = ann.locator("[data-testid=log] li").all_inner_texts()
    assert "Seat 2" not in " ".join(lines), lines
    # A few moves each, then Bob's chat line under his seat's name.
    moves = 0
    deadline = time.monotonic() + 60
    while moves < 4:
        assert time.monotonic() < deadline, "the two could not play"
        moved = False
        for p in (ann, bob):
            if click_first(p, "[data-action=keep]") or click_first(p, ".hand .card-btn.playable"):
                moved = True
                moves += 1
            elif p.locator("[data-testid=board][data-held]").count():
                move_on(p)
        if not moved:
            ann.wait_for_timeout(80)
    bob.fill("[data-testid=chat-input]", "hello Ann")
    bob.click("[data-testid=chat-send]")
    ann.wait_for_selector("[data-testid=chat-list] li:has-text('Bob: hello Ann')")
    bob.wait_for_selector("[data-testid=chat-list] li:has-text('You: hello Ann')")
    assert "Bob" in ann.locator("[data-testid=log] li").first.inner_text()
    for p in (ann, bob):
        text = p.inner_text("main")
        assert "Player 1" not in text and "Player 2" not in text, text
    bob.on("dialog", lambda d: d.accept())
    bob.click("button:has-text('Leave')")
    ann.wait_for_function(
        "() => /Bob left the table/.test(document.querySelector('[data-testid=log]').innerText)"
    )
    assert "Player 2" not in ann.inner_text("main")


def test_the_lobby_offers_a_gentle_opponent_and_start_on_the_first_screen(
    pages: Pages,  # noqa: F811
    server: Server,  # noqa: F811
) -> None:
    """At 1280×800 the lobby's Start button is in the window without scrolling, for every game and
    its largest default table; a first game's computer players are the two-star ones, not the
    strongest. On a phone Start is a scroll away and can be pressed."""
    page = pages.new(viewport=LAPTOP)
    page.goto(f"{server.base}/#/")
    for game in ("penneech", "pentyrch", "piquesept"):
        page.click(f".game-tile[data-game={game}]")
        page.wait_for_selector(f"text=New table: {game.capitalize()}")
        box = page.locator("[data-testid=start]").bounding_box()
        assert box and box["y"] + box["height"] <= LAPTOP["height"], (game, box)
        assert page.evaluate("scrollY") == 0
        seats = page.locator("select[data-seat]")
        for i in range(1, seats.count()):
            chosen = seats.nth(i).locator("option:checked")
            assert chosen.inner_text().startswith("★★☆☆"), (game, i, chosen.inner_text())
            strongest = seats.nth(i).locator("option:not([disabled])").last.get_attribute("value")
            assert seats.nth(i).input_value() != strongest
    phone = pages.new(viewport=PHONE)
    phone.goto(f"{server.base}/#/")
    phone.locator("[data-testid=start]").scroll_into_view_if_needed()
    phone.click("[data-testid=start]")
    phone.wait_for_url("**/#/table/*")
