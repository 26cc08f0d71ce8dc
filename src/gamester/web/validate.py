"""Every request body, query and WebSocket message the server takes is read and checked here.

Each check returns the value in the shape the rest of the server expects, or raises a
:class:`~gamester.web.errors.Refused` with one clear line (its HTTP status is the edge's): a bad request
never reaches the rooms, and never produces a traceback.
"""

from __future__ import annotations

import json
import re
import secrets
from typing import Any

from gamester.web.errors import BadInput, Malformed, NoTable
from gamester.web.names import name_problem

TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


def new_table_id() -> str:
    """A new table's id: 16 URL-safe characters (96 random bits), never starting with ``-``, so that
    it can be given to a command (``gamester admin chat-delete ID``) without being read as an option."""
    while (table_id := secrets.token_urlsafe(12)).startswith("-"):
        pass
    return table_id


STATUSES = ("waiting", "playing", "over")
CREATE_FIELDS = ("game", "options", "seats", "clock", "join", "rated", "open", "private")
MESSAGE_TYPES = ("act", "chat", "hint", "ping")


def rated(data: dict[str, Any]) -> bool:
    """A ``POST /api/tables`` body's ``rated`` (docs/web.md, People)."""
    value = data.get("rated", False)
    if not isinstance(value, bool):
        raise BadInput("rated: expected true or false", code="bad_rated")
    return value


def access(data: dict[str, Any]) -> tuple[bool, bool]:
    """A ``POST /api/tables`` body's ``open`` and ``private`` (both false when left out; docs/web.md,
    Invites)."""
    found = []
    for key in ("open", "private"):
        value = data.get(key, False)
        if not isinstance(value, bool):
            raise BadInput(f"{key}: expected true or false", code="bad_access")
        found.append(value)
    if found[0] and found[1]:
        raise BadInput("open and private: a private table is not listed, so nobody can sit down "
            "from the lobby; choose one", code="bad_access")  # fmt: skip
    return found[0], found[1]


def body(raw: bytes) -> dict[str, Any]:
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise Malformed("the request body is not JSON", code="bad_json") from None
    if not isinstance(data, dict):
        raise Malformed("the request body must be a JSON object", code="bad_json")
    return data


def table_id(text: str) -> str:
    if not TABLE_ID.match(text):
        raise NoTable("no such table")
    return text


def _clean_text(value: Any, what: str) -> None:
    if isinstance(value, str) and any(ord(ch) < 32 or ch in "\x7f" for ch in value):
        raise BadInput(f"{what}: control characters are not allowed", code="bad_" + what)


def list_query(status: str | None, limit_text: str) -> tuple[str | None, int]:
    if status is not None and status not in STATUSES:
        raise BadInput("status: expected waiting, playing or over", code="bad_status")
    if not limit_text.isdigit() or not 1 <= int(limit_text) <= 200:
        raise BadInput("limit: expected a whole number from 1 to 200", code="bad_limit")
    return status, int(limit_text)


def create(data: dict[str, Any]) -> tuple[str, dict[str, Any], list[str], Any, Any]:
    """(game, options, seats, clock, join) of a ``POST /api/tables`` body; the game checks the rest."""
    unknown = sorted(set(data) - set(CREATE_FIELDS))
    if unknown:
        raise BadInput(f"unknown field {unknown[0][:40]!r}; valid fields: " + ", ".join(CREATE_FIELDS))
    game, options = game_and_options(data)
    seats = data.get("seats")
    if (
        not isinstance(seats, list)
        or not seats
        or not all(isinstance(s, str) for s in seats)
        or len(seats) > 16
    ):
        raise BadInput(
            'seats: expected a list with one entry per player, each "human" or an agent spec',
            code="bad_seats",
        )
    for s in seats:
        _clean_text(s, "seats")
    creator = data.get("join")
    if creator is not None:
        if not isinstance(creator, dict):
            raise BadInput('join: expected {"seat": N, "name": "..."} (a human seat)', code="bad_join")
        join_name(creator.get("name"))
    return game, options, seats, data.get("clock"), creator


def game_and_options(data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A body's ``game`` (a name) and ``options`` (an object of short values; {} when left out): the
    game checks the rest when it is loaded."""
    game = data.get("game")
    if not isinstance(game, str) or not game or len(game) > 200:
        raise BadInput('game: expected a game name such as "penneech"', code="bad_game")
    _clean_text(game, "game")
    options = data.get("options")
    if options is None:
        options = {}
    if not isinstance(options, dict) or len(options) > 50 or not all(isinstance(k, str) for k in options):
        raise BadInput("options: expected an object of option values", code="bad_options")
    for k, v in options.items():
        if (
            not isinstance(v, str | int | float | bool | list)
            or (
                isinstance(v, list)
                and not all(isinstance(x, str | int) and not isinstance(x, bool) for x in v)
            )
            or len(str(v)) > 500
        ):
            raise BadInput(
                f"options.{k[:40]}: expected a number, text, true/false or a short list", code="bad_options"
            )
    return game, options


def join_name(name: Any) -> None:
    if isinstance(name, str) and (problem := name_problem(name)) is not None:
        raise BadInput(problem, code="bad_name")


def lesson(raw: bytes) -> str | None:
    """``POST /api/tutorials/{id}``: the body is optional, ``{"name": "..."}`` at most; the name."""
    data = body(raw) if raw.strip() else {}
    unknown = sorted(set(data) - {"name"})
    if unknown:
        raise BadInput(f"unknown field {unknown[0][:40]!r}; valid fields: name")
    name = data.get("name")
    join_name(name)
    return name if isinstance(name, str) else None


def replay_seat(text: str | None) -> Any:
    """A ``?seat=N`` parameter (replay, review): the number, or the text as it came (refused later)."""
    if text is None:
        return None
    return int(text) if text.isdigit() and len(text) < 4 else text


def message(text: str, types: tuple[str, ...] = MESSAGE_TYPES) -> dict[str, Any]:
    """A WebSocket message: a JSON object with a known ``type`` (one of ``types``)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise Malformed("not JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise Malformed('a message is a JSON object with a "type"')
    kind = data["type"]
    if kind not in types:
        raise Malformed(f"unknown message type {kind[:40]!r}; valid: " + ", ".join(types))
    return data
