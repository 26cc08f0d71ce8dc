"""The registry of games: ``load_game("penneech")``, ``load_game("penneech(target=41)")``.

Games register themselves through the ``gamester.games`` entry-point group (the value is the ``Game``
subclass), so another package can add a game without touching this one; :func:`register_game` does
the same in-process. The core never imports a game module by name.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from importlib.metadata import EntryPoint, entry_points
from importlib.resources import files
from importlib.resources.abc import Traversable
from types import ModuleType
from typing import Any

from gamester.core.errors import OptionError, quote
from gamester.core.options import build_options, parse_spec
from gamester.core.protocol import Game

_GAMES: dict[str, type[Game]] = {}
_ENTRY_POINTS: dict[str, EntryPoint] = {}
_SCANNED = False


def register_game(cls: type[Game]) -> type[Game]:
    """Register a game in this process (entry points do the same across packages)."""
    _GAMES[cls.name] = cls
    return cls


def _scan() -> None:
    # Fill the table before marking it scanned: a second thread asking meanwhile must not see an
    # empty registry (it would report "unknown game"). Scanning twice is harmless.
    global _SCANNED
    if not _SCANNED:
        for ep in entry_points(group="gamester.games"):
            _ENTRY_POINTS.setdefault(ep.name, ep)
        _SCANNED = True


def game_names() -> list[str]:
    """Every known game, without importing any of them."""
    _scan()
    return sorted(set(_GAMES) | set(_ENTRY_POINTS))


def game_class(name: object) -> type[Game]:
    if not isinstance(name, str):
        raise OptionError(f"a game name is text, got {quote(name)}; valid games: {', '.join(game_names())}")
    cls = _GAMES.get(name)
    if cls is not None:
        return cls
    _scan()
    ep = _ENTRY_POINTS.get(name)
    if ep is None:
        raise OptionError(f"unknown game {quote(name)}; valid games: {', '.join(game_names())}")
    loaded: type[Game] = ep.load()
    _GAMES[name] = loaded
    return loaded


def game_package(name: object) -> str:
    """The package a registered game's class lives in: its folder, where its parts are found."""
    return game_class(name).__module__.rpartition(".")[0]


def game_part(name: object, part: str) -> ModuleType | None:
    """The module ``part`` of a registered game's own package (``render`` for the terminal), or None
    when the game has none; a part that exists but fails to import raises as it is."""
    package = game_package(name)
    if not package:  # a game written as one top-level module has no folder of parts
        return None
    module = f"{package}.{part}"
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name != module:
            raise  # the part exists but imports something missing: a real error
    return None


def game_file(name: object, filename: str) -> Traversable | None:
    """A data file of a registered game's own package (``web.js``, its browser drawing), or None."""
    package = game_package(name)
    if not package:
        return None
    found = files(package).joinpath(filename)
    return found if found.is_file() else None


def load_game(spec: object, /, **options: Any) -> Game:
    """A game by name (or spec string) with options; explicit keyword options win over the spec's.

    ``spec`` is positional-only, so an option may be called anything (even ``spec``) and is then
    refused by name like any other unknown option.
    """
    name, raw = parse_spec(spec)
    raw.update(options)
    return make_game(name, raw)


def make_game(name: object, options: Mapping[Any, Any]) -> Game:
    """A game by name with raw option values from a mapping (a record's ``options``, keys unchecked)."""
    cls = game_class(name)
    return cls(build_options(cls.options_class, cls.rulesets, options, cls.name))
