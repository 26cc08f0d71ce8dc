"""Imports go one way: core <- games <- agents <- the rest (play, web, sim, store, interop).

Every module under ``src/gamester`` is parsed with :mod:`ast`; each import anywhere in it counts (top
level, inside a function, under ``TYPE_CHECKING``, and ``importlib.import_module`` with a literal
``gamester...`` name or an f-string starting with one). Nothing is imported, so a module that is broken
or slow to import is still checked.

The upper layers may import each other only along the edges that exist today (``ALLOWED`` below); a
new edge between them is a decision to write down here, not an accident.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "gamester"

BASE = {"core", "games", "agents"}

# Layer -> the other layers it may import. "gamester" is the package's own __init__ (a facade over
# core, with the version); "__main__" is ``python -m gamester``.
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "gamester": {"core"},
    "games": {"core"},
    "agents": {"core", "games"},
    # The rest may use everything below them; between them, only what exists today:
    # play's CLI starts the web server, the simulations and training, and moves the server's
    # database (gamester db export|import|upgrade, through store.database_command); the web app uses
    # the store, and never play: the rules text and the lessons belong to the games, so no arrow
    # runs from the server back up to the terminal.
    "play": BASE | {"gamester", "sim", "web", "learn", "store"},
    "web": BASE | {"gamester", "store"},
    "sim": BASE | {"gamester"},
    "store": BASE | {"gamester"},
    "interop": BASE | {"gamester"},
    # Training (the learn extra) runs its self-play jobs on sim's backends.
    "learn": BASE | {"gamester", "sim"},
    # gamester.testing: the checks any game must pass, over the protocol and the registry only (a
    # game's own knowledge comes in as arguments), so it never names a game.
    "testing": {"core", "gamester"},
    "__main__": BASE | {"gamester", "play"},
}


def module_name(path: Path, src: Path = SRC) -> str:
    """``src/gamester/games/penneech/game.py`` -> ``gamester.games.penneech.game``."""
    parts = list(path.relative_to(src.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> str:
    """The layer a ``gamester...`` module belongs to."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "gamester"


def imported_names(source: str | ast.AST, module: str, is_package: bool) -> list[tuple[int, str]]:
    """Every ``gamester...`` module ``source`` (text, or its parsed tree) imports, with its line number."""
    tree = source if isinstance(source, ast.AST) else ast.parse(source)
    package = module.split(".") if is_package else module.split(".")[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                if node.module:
                    names = [".".join([*base, node.module])]
                else:
                    names = [".".join([*base, alias.name]) for alias in node.names]
            elif node.module:
                names = [node.module]
        elif isinstance(node, ast.Call) and _is_import_module(node.func) and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                names = [arg.value]
            elif isinstance(arg, ast.JoinedStr) and arg.values:
                head = arg.values[0]
                if isinstance(head, ast.Constant) and isinstance(head.value, str):
                    # f"gamester.agents.heuristics.{name}": the fixed part decides the layer.
                    names = [head.value.rstrip(".")]
        ours = [name for name in names if name == "gamester" or name.startswith("gamester.")]
        found.extend((getattr(node, "lineno", 0), name) for name in ours)
    return found


def _is_import_module(func: ast.expr) -> bool:
    if isinstance(func, ast.Attribute):
        return func.attr == "import_module" or func.attr == "__import__"
    return isinstance(func, ast.Name) and func.id in ("import_module", "__import__")


def violations(source: str, module: str, is_package: bool = False) -> list[str]:
    """One line per import of ``source`` (the module ``module``) that goes against the layering."""
    layer = layer_of(module)
    if layer not in ALLOWED:
        return [f"{module}: layer {layer!r} is not in tests/test_layering.py's ALLOWED table; add it there"]
    out: list[str] = []
    for line, name in imported_names(source, module, is_package):
        target = layer_of(name)
        if target == layer:
            if layer == "games" and not _same_game(module, name):
                out.append(f"{module}:{line} imports {name}: a game imports only core and its own package")
            continue
        if target not in ALLOWED[layer]:
            allowed = ", ".join(sorted(ALLOWED[layer])) or "nothing else of gamester"
            out.append(f"{module}:{line} imports {name}: {layer} may import only {allowed}")
    return out


def _same_game(module: str, name: str) -> bool:
    mine = module.split(".")[:3]
    theirs = name.split(".")[:3]
    # gamester.games itself holds no code; a game module importing another game is the error.
    return len(theirs) < 3 or mine == theirs


def all_modules() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def test_the_tree_has_modules_in_every_layer() -> None:
    """The scan sees the real tree (a wrong path would make the layering test pass on nothing)."""
    layers = {layer_of(module_name(p)) for p in all_modules()}
    assert {"core", "games", "agents", "play", "web", "sim", "store", "interop", "testing"} <= layers


def test_imports_go_one_way() -> None:
    problems: list[str] = []
    for path in all_modules():
        module = module_name(path)
        problems += violations(path.read_text(encoding="utf-8"), module, path.name == "__init__.py")
    assert not problems, "imports against the layering:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("gamester.core.cards", "from gamester.games.penneech import game"),
        ("gamester.core.cards", "import gamester"),
        ("gamester.games.penneech.game", "def f():\n    from gamester.agents import make_agent\n"),
        ("gamester.games.penneech.game", "from gamester.games.piquesept.game import PiqueseptState"),
        ("gamester.games.penneech.game", "import importlib\nimportlib.import_module('gamester.play.words')"),
        ("gamester.agents.pimc", "from ..interop import openspiel"),
        ("gamester.agents.pimc", "from gamester.sim import simulate"),
        ("gamester.agents.pimc", "import importlib\nm = importlib.import_module(f'gamester.web.{x}')"),
        ("gamester.sim.simulate", "from gamester.web import app"),
        ("gamester.store.schema", "from gamester.play import cli"),
        ("gamester.interop.openspiel", "from gamester.sim import simulate"),
        ("gamester.testing.leaks", "from gamester.games.pentyrch.game import VALUE"),
        ("gamester.testing", "from gamester.agents import make_agent"),
    ],
)
def test_a_backward_import_is_caught(module: str, source: str) -> None:
    """The checker itself: each of these goes against the layering and must be reported."""
    assert violations(source, module), f"{module}: {source!r} was not reported"


@pytest.mark.parametrize(
    ("module", "source", "is_package"),
    [
        ("gamester.core.record", "from gamester.core.errors import GameError", False),
        ("gamester.games.piquesept.game", "from .options import RULESETS", False),
        ("gamester.games.pentyrch", "from . import game", True),
        ("gamester.games.pentyrch", "from gamester.games.pentyrch.game import PentyrchGame", True),
        ("gamester.agents.pimc", "from gamester.games.penneech.game import PenneechState", False),
        ("gamester.web.app", "from gamester.store import repository", False),
        ("gamester.play.cli", "def f():\n    from gamester.web import server\n", False),
    ],
)
def test_a_forward_import_is_accepted(module: str, source: str, is_package: bool) -> None:
    assert violations(source, module, is_package) == []


# -- the core's own floors --------------------------------------------------------------------------
# Inside the core, modules may not import each other in a loop: each has a floor, and imports only
# modules on lower floors. Imports that run count (top level and inside functions); an import under
# ``if TYPE_CHECKING:`` does not, since it names types for the type checker and never runs.


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def runtime_imports(source: str, module: str, is_package: bool = False) -> set[str]:
    """The ``gamester...`` modules ``source`` imports in code that runs (not under TYPE_CHECKING).
    ``from gamester.core import errors`` counts as importing ``gamester.core.errors``."""
    tree = ast.parse(source)

    def strip(node: ast.AST) -> None:
        for field, value in ast.iter_fields(node):
            if isinstance(value, list):
                kept = [v for v in value if not (isinstance(v, ast.If) and _is_type_checking(v.test))]
                # an ``if TYPE_CHECKING: ... else: ...`` keeps its else branch, which runs
                for v in value:
                    if isinstance(v, ast.If) and _is_type_checking(v.test):
                        kept.extend(v.orelse)
                setattr(node, field, kept)
        for child in ast.iter_child_nodes(node):
            strip(child)

    strip(tree)
    names = {name for _, name in imported_names(ast.unparse(tree), module, is_package)}
    # ``from gamester.core import errors``: the submodule is imported too (relative imports of that
    # shape are already named per alias by imported_names).
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module in names:
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def import_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One loop in ``graph`` (module -> modules it imports, only edges inside the graph), as
    ``[a, b, ..., a]``, or ``[]`` when there is none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in graph:
                continue
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return []


def core_graph() -> dict[str, set[str]]:
    """The core's modules (its ``__init__``, a facade over them, aside) and what each imports."""
    graph: dict[str, set[str]] = {}
    for path in sorted((SRC / "core").glob("*.py")):
        if path.name == "__init__.py":
            continue
        module = module_name(path)
        graph[module] = runtime_imports(path.read_text(encoding="utf-8"), module)
    return graph


def test_the_core_modules_import_each_other_in_no_loop() -> None:
    graph = core_graph()
    assert {"gamester.core.protocol", "gamester.core.record", "gamester.core.registry"} <= set(graph)
    cycle = import_cycle(graph)
    assert not cycle, "the core's modules import each other in a loop: " + " -> ".join(cycle)


def test_the_protocol_sits_below_records_and_the_registry() -> None:
    """The floor order the core's modules keep (gamester.core.protocol's comment says why)."""
    graph = core_graph()
    protocol = graph["gamester.core.protocol"]
    assert "gamester.core.record" not in protocol and "gamester.core.registry" not in protocol
    assert "gamester.core.protocol" not in graph["gamester.core.kit"]


def test_a_loop_is_found_and_type_checking_imports_are_not_counted() -> None:
    """The checker itself: a loop through a function-level import is reported; one closed only
    under ``if TYPE_CHECKING:`` is not."""
    a = "def f():\n    from gamester.core.b import x\n"
    b = "from gamester.core import a\n"
    graph = {
        "gamester.core.a": runtime_imports(a, "gamester.core.a"),
        "gamester.core.b": runtime_imports(b, "gamester.core.b"),
    }
    assert import_cycle(graph) == ["gamester.core.a", "gamester.core.b", "gamester.core.a"]
    typed = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from gamester.core.b import x\n"
    graph["gamester.core.a"] = runtime_imports(typed, "gamester.core.a")
    assert import_cycle(graph) == []


# -- each game's folder ------------------------------------------------------------------------------
GAMES = sorted(p.name for p in (SRC / "games").iterdir() if (p / "__init__.py").is_file())


def game_graph(name: str) -> dict[str, set[str]]:
    """A game's modules (its package ``__init__``, which gathers them, aside) and what each imports
    in code that runs."""
    graph: dict[str, set[str]] = {}
    for path in sorted((SRC / "games" / name).glob("*.py")):
        if path.name == "__init__.py":
            continue
        module = module_name(path)
        graph[module] = runtime_imports(path.read_text(encoding="utf-8"), module)
    return graph


@pytest.mark.parametrize("name", GAMES)
def test_a_games_modules_import_each_other_in_no_loop(name: str) -> None:
    """Issue 27: each game's ``game.py`` and ``kit.py`` imported each other (the kit through a
    function-level import); the core now finds a game's kit by name (``Game._make_kit``), and a
    game's modules have floors of their own, as the core's do."""
    graph = game_graph(name)
    assert f"gamester.games.{name}.kit" in graph
    assert f"gamester.games.{name}.kit" not in graph[f"gamester.games.{name}.game"]
    cycle = import_cycle(graph)
    assert not cycle, f"{name}'s modules import each other in a loop: " + " -> ".join(cycle)


# -- the web's doors -------------------------------------------------------------------------------
# Issue 49: the store is reached only through its port (``gamester.store.port``) and the openers of
# ``gamester.store`` (``OPENERS``), never through an adapter (the SQL modules, SQLAlchemy, Alembic);
# inside the house (``store/``, ``web/``) no module takes another's private names; and the decisions
# and the room's door say what they refuse with domain errors (web/errors.py), never with HTTP: the
# edge (web/edge.py) alone knows statuses.
STORE_LIBRARIES = ("sqlalchemy", "alembic")
HOUSE = ("store", "web")
NO_HTTP = {
    "gamester.web.decisions",
    "gamester.web.commands",
    "gamester.web.errors",
    "gamester.web.chat",
    "gamester.web.jobs",
    "gamester.web.room",
}
HTTP_LIBRARIES = ("fastapi", "starlette", "http", "httpx")


@functools.cache
def _openers() -> set[str]:
    tree = ast.parse((SRC / "store" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "OPENERS" for t in node.targets):
            call = node.value
            assert isinstance(call, ast.Call) and isinstance(call.args[0], ast.Set)
            return {e.value for e in call.args[0].elts if isinstance(e, ast.Constant)}
    raise AssertionError("gamester/store/__init__.py has no OPENERS")


@functools.cache
def _refusals() -> set[str]:
    tree = ast.parse((SRC / "web" / "errors.py").read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, ast.ClassDef)}


def _top(name: str) -> str:
    return name.split(".")[0]


def _from_module(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute module a ``from … import`` takes its names from."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def door_violations(source: str, module: str, is_package: bool = False) -> list[str]:
    """One line per way ``source`` (the module ``module``) goes past the store's port, takes a
    private name inside the house, or speaks HTTP where only domain errors belong."""
    layer = layer_of(module)
    tree = ast.parse(source)
    out: list[str] = []
    for line, name in imported_names(tree, module, is_package):
        inside = name.startswith("gamester.store.") or name == "gamester.store"
        if layer != "store" and inside and name not in ("gamester.store", "gamester.store.port"):
            out.append(f"{module}:{line} imports {name}: outside store/, only gamester.store.port")
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import | ast.ImportFrom):
            if isinstance(node, ast.Import):
                libraries = [a.name for a in node.names]
            else:
                libraries = [node.module] if not node.level and node.module else []
            for name in libraries:
                if layer != "store" and _top(name) in STORE_LIBRARIES:
                    out.append(f"{module}:{line} imports {name}: only store/ speaks to the database")
                if module in NO_HTTP and _top(name) in HTTP_LIBRARIES:
                    out.append(f"{module}:{line} imports {name}: no HTTP here (web/edge.py maps refusals)")
        if isinstance(node, ast.ImportFrom):
            taken_from = _from_module(node, module, is_package)
            for a in node.names:
                if layer != "store" and taken_from == "gamester.store" and a.name not in _openers():
                    out.append(f"{module}:{line} imports {a.name} from gamester.store: only its openers")
                if layer in HOUSE and taken_from.startswith("gamester.") and a.name.startswith("_"):
                    out.append(f"{module}:{line} takes {taken_from}.{a.name}: a private name")
        if module in NO_HTTP and isinstance(node, ast.Call):
            called = getattr(node.func, "id", "") or getattr(node.func, "attr", "")
            refusal = called in _refusals() or called.endswith(("Error", "Exception"))
            for kw in node.keywords:
                if refusal and kw.arg in ("status", "status_code"):
                    out.append(f"{module}:{line} passes {called} {kw.arg}=: no HTTP statuses here")
            if refusal and any(
                isinstance(a, ast.Constant) and isinstance(a.value, int) and not isinstance(a.value, bool)
                for a in node.args
            ):
                out.append(f"{module}:{line} gives {called} a number: a refusal has a code, not a status")
    return out


def test_the_store_is_reached_through_its_port_and_refusals_carry_no_http() -> None:
    problems: list[str] = []
    for path in all_modules():
        module = module_name(path)
        problems += door_violations(path.read_text(encoding="utf-8"), module, path.name == "__init__.py")
    assert not problems, "wrong doors:\n" + "\n".join(problems)
    assert {module_name(p) for p in all_modules()} >= NO_HTTP, "a module NO_HTTP names is gone: update it"


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("gamester.web.accounts", "from gamester.store.repository import SqlTableRepository"),
        ("gamester.web.accounts", "from gamester.store.people import PeopleStore"),
        ("gamester.web.routes", "from sqlalchemy import exc as sa_exc"),
        ("gamester.web.app", "def f():\n    import sqlalchemy\n"),
        ("gamester.web.app", "from gamester.store import SqlTableRepository"),
        ("gamester.web.app", "from gamester.store import repository"),
        ("gamester.play.cli", "import gamester.store.schema"),
        ("gamester.web.health", "from ..store import repository"),
        ("gamester.store.people", "from gamester.store.repository import _load"),
        ("gamester.web.registry", "from gamester.web.room import _spawn"),
        ("gamester.web.decisions", "from fastapi import HTTPException"),
        ("gamester.web.commands", "from starlette.websockets import WebSocket"),
        ("gamester.web.decisions", "raise NotFound('no table', status=404)"),
        ("gamester.web.room", "raise SeatTaken('seat 1 is taken', 409)"),
        ("gamester.web.decisions", "raise ServiceError('stale', 'moved on', status_code=409)"),
    ],
)
def test_a_wrong_door_is_caught(module: str, source: str) -> None:
    assert door_violations(source, module), f"{module}: {source!r} was not reported"


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("gamester.web.app", "from gamester.store import default_sqlite_url, open_stores"),
        ("gamester.web.room", "from gamester.store.port import TableRepository, TableRow"),
        ("gamester.store.people", "import sqlalchemy as sa\nfrom gamester.store.repository import load_json"),
        ("gamester.web.routes", "from fastapi import APIRouter"),
        ("gamester.web.edge", "from starlette.exceptions import HTTPException"),
        ("gamester.web.decisions", "raise SeatTaken(f'seat {seat} is taken')"),
        ("gamester.web.decisions", "raise BadInput('seat: expected a number', code='bad_seat')"),
    ],
)
def test_a_right_door_is_accepted(module: str, source: str) -> None:
    assert door_violations(source, module) == []
