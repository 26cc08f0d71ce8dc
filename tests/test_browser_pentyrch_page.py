"""Pentyrch's page draws moves from the parts the server sends, never from their text (issue 27).

Pentyrch's web.js is loaded alone in Debian's Chromium (the static files and the game's module served by
a small HTTP server started and stopped here) and given real views of random positions with their parts
(``PentyrchGame.action_parts``, what the server sends as ``moves``), but with every legal move's
string replaced by an opaque name ("move-7"). The page can then only work from the parts: the court
cards it lights, the cells each one may go to, the payments offered for a cell, the pass, and the
hint it lights must all be the parts', and every click must send back the opaque name of that move.
"""

from __future__ import annotations

import functools
import http.server
import json
import random
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import gamester
from gamester.core.protocol import State
from gamester.games.pentyrch import PentyrchGame

sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = "/usr/bin/chromium"
if not Path(CHROMIUM).exists():  # pragma: no cover - CI installs chromium with apt
    pytest.skip("Debian's chromium is not installed", allow_module_level=True)

pytestmark = pytest.mark.slow

SRC = Path(__file__).resolve().parent.parent / "src" / "gamester"

SETUP = """async (drawing) => {
  document.head.innerHTML = '<link rel="stylesheet" href="/static/app.css">';
  document.body.innerHTML = '<main><div class="board board-pentyrch" data-testid="board"></div></main>';
  window.pentyrch = (await import("/games/pentyrch/web.js")).default;
  window.draw = (view, legal, moves, me, hint) => {
    window.acted = [];
    const board = document.querySelector("[data-testid=board]");
    const ctx = {
      table: { options: {}, returns: null }, info: { drawing, options: [] }, me,
      names: ["You", "B", "C", "D"], view, prevView: null, msg: { seq: 3, events: [], legal, moves },
      legal, moves, hint, selection: {},
      act: (a) => window.acted.push(a),
    };
    ctx.select = (patch) => {
      Object.assign(ctx.selection, patch);
      board.innerHTML = "";
      window.pentyrch.render(board, ctx);
    };
    window.ctx = ctx;
    board.innerHTML = "";
    window.pentyrch.render(board, ctx);
    return window.pentyrch.status(ctx);
  };
}"""


class _Files(http.server.SimpleHTTPRequestHandler):
    """/static/… from the web package, /games/pentyrch/web.js from the game's package."""

    def translate_path(self, path: str) -> str:
        if path.startswith("/games/pentyrch/"):
            return str(SRC / "games" / "pentyrch" / path.rsplit("/", 1)[1])
        return str(SRC / "web" / path.lstrip("/").split("?")[0])

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Files))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    errors: list[str] = []
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            try:
                pg = browser.new_page(viewport={"width": 1280, "height": 900})
                pg.route("**/favicon.ico", lambda route: route.fulfill(status=204))
                pg.on("pageerror", lambda e: errors.append(str(e)))
                pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
                pg.goto(f"http://127.0.0.1:{server.server_address[1]}/static/app.css")
                pg.evaluate(SETUP, PentyrchGame.drawing())
                yield pg
                assert errors == []
            finally:
                browser.close()
    finally:
        server.shutdown()
        server.server_close()


def find(spec: str, wanted: Callable[[list[dict[str, Any]]], bool], seed: int = 0) -> State:
    """A position of random play whose legal moves' parts satisfy ``wanted``."""
    game = gamester.load_game(spec)
    for s in range(seed, seed + 200):
        rng = random.Random(s)
        st = game.new_initial_state(seed=s)
        while not st.is_terminal():
            parts = [game.action_parts(a) for a in st.legal_action_strings()]
            if wanted(parts):  # type: ignore[arg-type]
                return st
            st.apply_action(rng.choice(st.legal_actions()))
    raise AssertionError(f"no position of {spec} found")


def draw(page: Any, st: State, hint: int | None = None) -> tuple[str, list[str], list[dict[str, Any]]]:
    """Draw the mover's view with opaque move names; the status line, the names and the parts."""
    texts = st.legal_action_strings()
    parts = [st.game.action_parts(a) for a in texts]
    names = [f"move-{i}" for i in range(len(texts))]
    me = st.current_player()
    h = (
        None
        if hint is None
        else {"seq": 3, "action": names[hint], "move": parts[hint], "win_probability": 0.5}
    )
    view = json.loads(json.dumps(st.observation(me)))
    status = page.evaluate("([v, l, m, me, h]) => window.draw(v, l, m, me, h)", [view, names, parts, me, h])
    return str(status), names, parts  # type: ignore[return-value]


def attrs(page: Any, selector: str, name: str) -> set[str]:
    return {
        str(x) for x in page.locator(selector).evaluate_all(f"els => els.map(e => e.getAttribute('{name}'))")
    }


def dest_of(p: dict[str, Any]) -> str:
    return "off" if p["kind"] == "off" else str(p["to"])


@pytest.mark.parametrize("spec", ["pentyrch", "pentyrch(players=2)"])
def test_lit_court_cards_cells_and_payments_are_the_parts(page: Any, spec: str) -> None:
    def several_ways(parts: list[dict[str, Any]]) -> bool:  # a cell reached with a choice of payment
        ways: dict[tuple[str, str], int] = {}
        for p in parts:
            if p["kind"] != "pass":
                key = (p["court"], dest_of(p))
                ways[key] = ways.get(key, 0) + 1
        return (
            any(p["kind"] != "pass" and len(p["pay"]) > 1 for p in parts)
            and max(ways.values(), default=0) > 1
        )

    st = find(spec, several_ways)
    status, names, parts = draw(page, st)
    assert status.startswith("Your turn")
    courts = {p["court"] for p in parts if p["kind"] != "pass"}
    assert attrs(page, ".token-btn.selectable", "data-court") == courts
    for court in sorted(courts):
        page.evaluate("(c) => window.ctx.select({ court: c, dest: null })", court)
        lit = attrs(page, ".dest-btn", "data-dest")
        assert lit == {dest_of(p) for p in parts if p.get("court") == court}, court
    # A cell reached in several ways: the panel offers exactly those moves, and a click sends its name.
    ways = [(p["court"], dest_of(p)) for p in parts if p["kind"] != "pass"]
    court, dest = next(w for w in ways if ways.count(w) > 1)
    page.evaluate("([c, d]) => window.ctx.select({ court: c, dest: d })", [court, dest])
    offered = [
        str(x) for x in page.locator(".pay-option").evaluate_all("els => els.map(e => e.dataset.action)")
    ]
    assert sorted(offered) == sorted(n for n, w in zip(names, ways, strict=False) if w == (court, dest))
    labels = [" ".join(t.split()) for t in page.locator(".pay-option").all_inner_texts()]
    for name, label in zip(offered, labels, strict=True):
        p = parts[names.index(name)]
        assert label.startswith("Show " if p["show"] else "Lay " if p["pay"] else "Move"), (p, label)
        if len(p["pay"]) > 1:
            assert "on top)" in label
    page.locator(".pay-option").first.click()
    assert page.evaluate("window.acted") == [offered[0]]


def test_a_pass_is_offered_from_its_parts(page: Any) -> None:
    st = find("pentyrch", lambda parts: parts == [{"kind": "pass"}])
    status, names, _ = draw(page, st)
    assert status.endswith("you cannot move.")
    assert page.locator(".token-btn.selectable").count() == 0
    page.click("[data-action=pass]")
    assert page.evaluate("window.acted") == [names[0]]
    # The P key (the table page hands its keys to the module) passes too.
    assert page.evaluate("() => window.pentyrch.keyboard({ key: 'p' }, window.ctx, document.body)")
    assert page.evaluate("window.acted") == [names[0], names[0]]


def test_the_hint_lights_what_its_parts_name(page: Any) -> None:
    st = find("pentyrch", lambda parts: any(p["kind"] == "step" and p["pay"] for p in parts))
    parts = [st.game.action_parts(a) for a in st.legal_action_strings()]
    i = next(k for k, p in enumerate(parts) if p is not None and p["kind"] == "step" and p["pay"])
    _, names, parts = draw(page, st, hint=i)
    p = parts[i]
    assert attrs(page, ".token-btn.hinted", "data-court") == {p["court"]}
    assert attrs(page, ".cell.hinted", "data-cell") == {p["to"]}
    words = page.inner_text("[data-testid=hint-box]")
    assert f"{p['from']} → {p['to']}, paying" in words, words
    assert names[i] not in words
    # Its payment glows once its cell is picked (when the cell offers a choice).
    page.evaluate("([c, d]) => window.ctx.select({ court: c, dest: d })", [p["court"], p["to"]])
    if page.locator(".pay-option").count() > 1:
        assert attrs(page, ".pay-option.hinted", "data-action") == {names[i]}
