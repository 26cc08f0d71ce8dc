"""The registry of games: ``load_game("penneech")``, ``load_game("penneech(target=41)")``.

Games register themselves through the ``gamester.games`` entry-point group (the value is the ``Game``
subclass), so another package can add a game without touching this one; :func:`register_game` does
the same in-process. The core never imports a game module by name.
"""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points
from typing import Any

from gamester.core.errors import OptionError
from gamester.core.options import build_options
from gamester.core.protocol import Game

_GAMES: dict[str, type[Game]] = {}
_ENTRY_POINTS: dict[str, EntryPoint] = {}
_SCANNED = False


def register_game(cls: type[Game]) -> type[Game]:
    """Register a game in this process (entry points do the same across packages)."""
    _GAMES[cls.name] = cls
    return cls


def _scan() -> None:
    global _SCANNED
    if not _SCANNED:
        _SCANNED = True
        for ep in entry_points(group="gamester.games"):
            _ENTRY_POINTS.setdefault(ep.name, ep)


def game_names() -> list[str]:
    """Every known game, without importing any of them."""
    _scan()
    return sorted(set(_GAMES) | set(_ENTRY_POINTS))


def game_class(name: str) -> type[Game]:
    cls = _GAMES.get(name)
    if cls is not None:
        return cls
    _scan()
    ep = _ENTRY_POINTS.get(name)
    if ep is None:
        raise OptionError(f"unknown game {name!r}; valid games: {', '.join(game_names())}")
    loaded: type[Game] = ep.load()
    _GAMES[name] = loaded
    return loaded


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"name(k=v,k2=v2)"`` into the name and its raw options."""
    spec = spec.strip()
    if "(" not in spec:
        return spec, {}
    if not spec.endswith(")"):
        raise OptionError(f"{spec!r}: a game spec looks like name(option=value,...), closing ')' missing")
    name, _, body = spec[:-1].partition("(")
    opts: dict[str, str] = {}
    for part in body.split(","):
        part = part.strip()
        if not part:
            continue
        if "=" not in part:
            raise OptionError(f"{spec!r}: {part!r} is not option=value")
        k, _, v = part.partition("=")
        opts[k.strip()] = v.strip()
    return name.strip(), opts


def load_game(spec: str, **options: Any) -> Game:
    """A game by name (or spec string) with options; explicit keyword options win over the spec's."""
    name, raw = parse_spec(spec)
    raw.update(options)
    cls = game_class(name)
    return cls(build_options(cls.options_class, cls.rulesets, raw, name))
