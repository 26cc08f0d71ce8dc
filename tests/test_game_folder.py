"""A game is one folder (issue 27): each shipped game's parts, its terminal drawing (``render.py``)
and its browser drawing (``web.js``) included, live in its own package and are found through the
registry, the path a game from another package takes; no interface lists the shipped games by hand.
No module of the package is longer than 900 lines."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from gamester.core import registry
from gamester.play.terminal import renderer

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "gamester"
SHIPPED = ("penneech", "piquesept", "pentyrch")
LONGEST = 900


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_games_drawings_are_in_its_own_package(name: str) -> None:
    package = registry.game_package(name)
    assert package == f"gamester.games.{name}"
    render = renderer(name)
    assert render is not None and render.__name__ == f"{package}.render"
    assert registry.game_part(name, "render") is render
    drawing = registry.game_file(name, "web.js")
    assert drawing is not None and "export default" in drawing.read_text(encoding="utf-8")


def test_a_missing_part_is_none_and_an_unknown_game_has_no_renderer() -> None:
    assert registry.game_part("penneech", "no_such_part") is None
    assert registry.game_file("penneech", "no-such-file.js") is None
    assert renderer("no-such-game") is None


def test_no_interface_holds_a_shipped_games_drawing() -> None:
    """The terminal and the browser hold only what every game shares; the games' drawings are not
    listed by hand (table.js once imported the three, play/ held render_<game>.py)."""
    assert not list((SRC / "play").glob("render_*.py"))
    shared = {p.name for p in (SRC / "web" / "static" / "js" / "games").glob("*.js")}
    assert shared == {"common.js", "generic.js"}
    for path in (SRC / "web" / "static").rglob("*.js"):
        text = path.read_text(encoding="utf-8").lower()
        for name in SHIPPED:
            assert not re.search(rf"import .*\b{name}\b", text), f"{path.name} imports {name}'s drawing"


# The parts every shipped game has under the same names (docs/architecture.md, A game's parts);
# Penneech and Piquesept, both trick games, have exactly the same modules.
PARTS = {
    "__init__.py", "explain.py", "game.py", "heuristic.py", "kit.py", "options.py", "position.py",
    "render.py", "rules.md", "views.py", "web.js", "worlds.py",
}  # fmt: skip


def test_the_shipped_folders_have_the_same_parts() -> None:
    files = {name: {p.name for p in (SRC / "games" / name).iterdir() if p.is_file()} for name in SHIPPED}
    for name, names in files.items():
        assert names >= PARTS, f"{name} lacks {sorted(PARTS - names)}"
    assert files["penneech"] == files["piquesept"]


def test_no_module_is_longer_than_the_limit() -> None:
    long = {
        str(p.relative_to(SRC)): n
        for p in SRC.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > LONGEST
    }
    assert not long, f"modules over {LONGEST} lines: {long}"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    pytest.importorskip("fastapi")
    from tests.web_helpers import client_on

    with client_on(tmp_path_factory.mktemp("web") / "folder.db") as c:
        yield c


@pytest.mark.parametrize("name", SHIPPED)
def test_the_server_serves_each_games_drawing_from_its_package(client: object, name: str) -> None:
    r = client.get(f"/games/{name}/web.js")  # type: ignore[attr-defined]
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/javascript")
    found = registry.game_file(name, "web.js")
    assert found is not None and r.text == found.read_text(encoding="utf-8")


def test_a_game_without_a_drawing_is_one_clear_404(client: object) -> None:
    for path in ("/games/no-such-game/web.js", "/games/..%2F..%2Fetc/web.js"):
        r = client.get(path)  # type: ignore[attr-defined]
        assert r.status_code == 404, path
        assert r.headers["content-type"].startswith("application/json")


def test_a_game_written_as_one_module_has_no_parts_and_an_empty_kit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game class in a top-level module (no package around it) has no folder: no render, no
    web.js, and the core's empty kit, rather than an import of ``.render`` or ``.kit`` failing."""
    from gamester.core.kit import Kit
    from tests.fourth_game import MiniTrickGame

    class OneModule(MiniTrickGame):
        name = "one-module"

        def _make_kit(self) -> Kit:  # the protocol's own lookup, not Minitrick's
            return super(MiniTrickGame, self)._make_kit()

    OneModule.__module__ = "one_module_game"
    monkeypatch.setitem(registry._GAMES, OneModule.name, OneModule)
    assert registry.game_package("one-module") == ""
    assert registry.game_part("one-module", "render") is None
    assert registry.game_file("one-module", "web.js") is None
    assert type(registry.load_game("one-module").kit()) is Kit


def test_the_kit_of_a_shipped_game_is_found_beside_its_engine() -> None:
    for name in SHIPPED:
        kit = registry.load_game(name).kit()
        assert type(kit).__module__ == f"gamester.games.{name}.kit"
