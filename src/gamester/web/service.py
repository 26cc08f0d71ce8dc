"""The server's catalogue: the games it offers, their options, rulesets and agents (``GET /api/games``).

Everything about a live table is its room's (``room.py``, deciding through ``decisions.py``); this is
what the lobby reads before there is a table.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from gamester.core.protocol import Game
from gamester.core.registry import game_class, game_names
from gamester.web.menu import agent_menu, caps_json


def games() -> list[dict[str, Any]]:
    from gamester.core.options import describe_options

    out = []
    for name in game_names():
        try:
            cls = game_class(name)
        except Exception:  # noqa: BLE001 - a broken third-party game must not break the lobby
            continue
        players = _player_counts(cls)
        opts = []
        fields = {f.name: f for f in dataclasses.fields(cls.options_class)}
        for opt, default, values, doc in describe_options(cls.options_class):
            f = fields[opt]
            choices = f.metadata.get("choices")
            t = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
            opts.append(
                {
                    "name": opt,
                    "type": t,
                    "default": default,
                    "values": values,
                    "choices": list(choices) if choices is not None else None,
                    "doc": doc,
                }
            )
        rulesets = [
            {"name": rs.name, "options": dict(rs.options), "source": rs.source, "reading": rs.reading}
            for rs in cls.rulesets.values()
        ]
        out.append(
            {
                "name": name,
                "title": cls.title,
                "players": players,
                "blurb": cls.blurb,
                "seat_labels": {str(n): cls.seat_labels(n) for n in players},
                "options": opts,
                "rulesets": rulesets,
                "agents": agent_menu(name),
                "caps": caps_json(name),
                "drawing": _drawing(cls),
            }
        )
    return out


def _player_counts(cls: type[Game]) -> list[int]:
    try:
        return cls.player_counts()
    except Exception:  # noqa: BLE001 - a game whose defaults cannot be built lists no count
        return []


def _drawing(cls: type[Game]) -> dict[str, Any]:
    try:
        return cls.drawing()
    except Exception:  # noqa: BLE001 - a game whose drawing facts fail is drawn without them
        return {}
