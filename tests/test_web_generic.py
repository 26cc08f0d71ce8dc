"""The browser's generic game drawing (src/gamester/web/static/js/games/generic.js, issue 15).

The table and replay pages use it for any game they have no module for. Here it is loaded by itself in
Debian's Chromium (the static files served by a small HTTP server started and stopped here) and given
hand-made views and contexts, so that the odd cases a real game may send are covered: a hand of cards
and a hand that is not cards, per-seat lists, seat numbers, nested records, hundreds of legal moves,
the keyboard, the spectator, events and results, and hostile values. The whole page with a real fourth
game is tests/test_fourth_game.py::test_browser_table_page_draws_a_game_it_has_no_module_for.
"""

from __future__ import annotations

import functools
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = "/usr/bin/chromium"
if not Path(CHROMIUM).exists():  # pragma: no cover - CI installs chromium with apt
    pytest.skip("Debian's chromium is not installed", allow_module_level=True)

WEB = Path(__file__).resolve().parent.parent / "src" / "gamester" / "web"

# A blank page of the same origin with the app's stylesheet, the module, and a helper that draws a view
# into a board with a context like the table page's (actions are recorded in window.acted).
SETUP = """async () => {
  document.head.innerHTML = '<link rel="stylesheet" href="/static/app.css">';
  document.body.innerHTML = '<main><div class="board" data-testid="board"></div><ul id="log"></ul></main>';
  const mod = await import("/static/js/games/generic.js");
  window.generic = mod.default;
  window.words = mod.words;
  window.ctxOf = (view, extra = {}) => {
    const legal = extra.legal || [];
    return Object.assign({
      table: { seats: [{ seat: 0 }, { seat: 1 }], returns: null }, info: null, me: 0,
      names: ["You", "Casual"],
      view, prevView: null, msg: { seq: 1, events: [], legal }, legal, hint: null, selection: {},
      select: () => {}, act: (a) => window.acted.push(a),
    }, extra);
  };
  window.draw = (view, extra) => {
    window.acted = [];
    const board = document.querySelector("[data-testid=board]");
    board.innerHTML = "";
    window.ctx = window.ctxOf(view, extra);
    window.generic.render(board, window.ctx);
    return window.generic.status(window.ctx);
  };
}"""

VIEW: dict[str, Any] = {
    "game": "somegame",
    "seat": 0,
    "current_player": 0,
    "dealer": 1,
    "phase": "play",
    "turn_up": "KD",
    "trump": "D",
    "tricks_won": [2, 1],
    "scores": [3, 0],
    "trick": ["QH", "KH"],
    "tricks": [{"leader": 1, "cards": ["AS", "QS"], "winner": 1}],
    "last_bid": {"seat": 1, "level": 2, "extra": {"deep": {"deeper": [1, 2]}}},
    "stock_size": 3,
    "hand": ["QD", "AH", "KS"],
}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    handler = functools.partial(_Quiet, directory=str(WEB))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    errors: list[str] = []
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            try:
                pg = browser.new_page(viewport={"width": 1280, "height": 900})
                pg.route("**/favicon.ico", lambda route: route.fulfill(status=204))  # the browser asks
                pg.on("pageerror", lambda e: errors.append(str(e)))
                pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
                pg.goto(f"http://127.0.0.1:{server.server_address[1]}/static/app.css")
                pg.evaluate(SETUP)
                yield pg
                assert errors == []
            finally:
                browser.close()
    finally:
        server.shutdown()
        server.server_close()


def draw(page: Any, view: Any, **extra: Any) -> str:
    return str(page.evaluate("([v, e]) => window.draw(v, e)", [view, extra]))


def texts(page: Any, selector: str) -> list[str]:
    return [str(t) for t in page.locator(selector).all_inner_texts()]


@pytest.mark.slow
def test_a_seat_view_hand_fields_and_seats(page: Any) -> None:
    status = draw(page, VIEW, legal=["QD", "KS"])
    assert status == "Your turn: play one of the raised cards."
    hand = page.locator("[data-testid=hand] .card-btn")
    assert [hand.nth(i).get_attribute("data-card") for i in range(hand.count())] == ["QD", "AH", "KS"]
    assert page.locator("[data-testid=hand] .card-btn.playable").count() == 2
    assert page.locator("[data-testid=hand] .card-btn.dimmed").count() == 1
    # Per-seat lists and seat numbers go to the seats' panels, with names.
    seat0, seat1 = texts(page, "[data-testid=seat-0]")[0], texts(page, "[data-testid=seat-1]")[0]
    assert "You" in seat0 and "to move" in seat0 and "tricks won 2" in seat0 and "scores 3" in seat0
    assert "Casual" in seat1 and "dealer" in seat1 and "tricks won 1" in seat1 and "to move" not in seat1
    assert page.locator("[data-testid=seat-0].to-move").count() == 1
    # The other fields: keys in words, cards as cards, nested records compact.
    terms = texts(page, "[data-testid=fields] dt")
    assert terms == ["Phase", "Turn up", "Trump", "Trick", "Tricks", "Last bid", "Stock size"]
    assert "diamonds" in page.locator("[data-field=trump]").inner_text()
    cards = page.locator("[data-field=trick] [data-card]")
    assert [cards.nth(i).get_attribute("data-card") for i in range(cards.count())] == ["QH", "KH"]
    tricks = page.locator("[data-field=tricks]").inner_text()
    assert "leader Casual" in tricks and "A♠ Q♠" in tricks and "winner Casual" in tricks
    bid = page.locator("[data-field=last_bid]").inner_text()
    assert "seat Casual" in bid and "level 2" in bid and "deeper" in bid
    # Nothing is drawn that the view does not hold: no hand but this seat's.
    shown = set(page.locator("[data-card]").evaluate_all("els => els.map(e => e.dataset.card)"))
    assert shown <= set(json.dumps(VIEW).replace('"', " ").replace(",", " ").split())


@pytest.mark.slow
def test_moves_act_by_mouse_and_keyboard(page: Any) -> None:
    draw(page, VIEW, legal=["QD", "KS", "pass"])
    assert draw(page, VIEW, legal=["QD", "KS", "pass"]) == "Your turn: choose one of 3 moves."
    moves = page.locator("[data-testid=moves] .gn-move")
    assert [moves.nth(i).get_attribute("data-action") for i in range(3)] == ["QD", "KS", "pass"]
    page.click(".gn-move[data-action=pass]")
    page.click("[data-testid=hand] .card-btn[data-card=KS]")
    assert page.evaluate("window.acted") == ["pass", "KS"]
    # Keys as the other games: 1-9 the nth playable card, arrows move between them.
    key = (
        "(k) => window.generic.keyboard(new KeyboardEvent('keydown', {key: k}), window.ctx, "
        "document.querySelector('.board'))"
    )
    assert page.evaluate(key, "2") is True
    assert page.evaluate("window.acted") == ["pass", "KS", "KS"]
    assert page.evaluate(key, "ArrowRight") is True
    assert page.evaluate("document.activeElement.dataset.card") == "QD"
    assert page.evaluate(key, "7") is False
    # Without a hand of cards the keys walk the move buttons.
    draw(page, {"current_player": 0, "hand": ["bid one", "bid two"]}, legal=["bid one", "bid two", "pass"])
    assert page.locator("[data-testid=hand] .card-btn").count() == 0
    assert "bid one" in page.locator("[data-testid=hand]").inner_text()
    assert page.evaluate(key, "3") is True
    assert page.evaluate("window.acted") == ["pass"]
    assert draw(page, {"current_player": 1}) == "Casual to play…"


@pytest.mark.slow
def test_hundreds_of_moves_are_narrowed_by_typing(page: Any) -> None:
    legal = [f"move {i}" for i in range(300)]
    draw(page, {"current_player": 0}, legal=legal)
    assert page.locator(".gn-move").count() == 60
    assert "240 more" in page.locator("[data-testid=moves]").inner_text()
    page.fill(".gn-filter", "move 29")
    assert texts(page, ".gn-move") == ["move 29", *[f"move {i}" for i in range(290, 300)]]
    page.press(".gn-filter", "Enter")
    assert page.evaluate("window.acted") == ["move 29"]


@pytest.mark.slow
def test_spectator_events_and_result(page: Any) -> None:
    spectator = {k: v for k, v in VIEW.items() if k != "hand"}
    draw(page, spectator, me=None, names=["Ann", "Casual"])
    assert page.locator("[data-testid=hand]").count() == 0
    assert page.locator("[data-testid=moves]").count() == 0
    assert "no hand is shown" in page.locator(".board").inner_text()
    said = page.evaluate(
        "(evs) => evs.map((e) => { const n = window.generic.narrate(e, window.ctx); "
        "return n && n.textContent; })",
        [
            {"type": "action", "player": 1, "action": "QH"},
            {"type": "action", "player": 0, "action": "pass"},
            {"type": "trick", "leader": 0, "cards": ["QH", "KH"], "winner": 1, "seats": [0, 1]},
            {"type": "deal_over", "tricks_won": [2, 2], "scores": [2, 2]},
        ],
    )
    assert said == [
        "Casual played Q♥.",
        "Ann chose pass.",
        "Trick: leader Ann · cards Q♥ K♥ · winner Casual.",
        "Deal over: tricks won Ann 2, Casual 2 · scores Ann 2, Casual 2.",
    ]
    result = (
        "(r) => window.generic.result(window.ctxOf({scores: [3, 1]}, {table: {seats: [{}, {}], returns: r}}))"
    )
    assert page.evaluate(result, [1, -1]) == "You won. Scores: You 3, Casual 1. Results: You +1, Casual -1."
    assert page.evaluate(result, [0, 0]).startswith("A draw.")
    assert page.evaluate(result, None) == "The game is over. Scores: You 3, Casual 1."


@pytest.mark.slow
def test_hostile_values_are_drawn_not_thrown(page: Any) -> None:
    deep: Any = 1
    for _ in range(50):
        deep = {"x": [deep]}
    view = {
        "huge": "x" * 100_000,
        "deep": deep,
        "long": list(range(5000)),
        "empty": [],
        "nothing": None,
        "flag": True,
        "odd_hand_field": ["ZZ", 3, None],
        "current_player": 99,
        "dealer": -1,
        "hand": "not a list",
    }
    assert draw(page, view) == ""
    text = page.locator(".board").inner_text()
    assert len(text) < 20_000
    assert "… and 4940 more" in text
    assert page.locator("[data-field=flag]").inner_text() == "yes"
    assert page.locator("[data-field=dealer]").inner_text() == "-1"  # not a seat: shown as it is
    assert page.evaluate("window.words('handSize_left')") == "Hand size left"
    assert draw(page, None) == ""
