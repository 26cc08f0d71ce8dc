"""Everything the server sends over a table's WebSocket, one type per message, tagged by ``type``.

Each message is a :class:`~typing.TypedDict` built by the function of its name below, and every one
is turned into text by :func:`encode` alone (compact JSON, non-ASCII as is). The one exception is the
``view``: it is the hot path, put together from text each frame keeps encoded once for all its
sockets (:func:`gamester.web.decisions.view_text`); :class:`View` documents its fields. The wire
format is docs/web.md's (The WebSocket); these types only let the type checker see it.
"""

from __future__ import annotations

import json
from typing import Any, Literal, TypedDict


class View(TypedDict):
    """What one viewer sees at ``seq`` (sent as text: decisions.view_text)."""

    type: Literal["view"]
    seq: int
    status: str
    view: dict[str, Any]
    legal: list[str]
    events: list[dict[str, Any]]
    clock: dict[str, Any] | None
    seat: int | None
    returns: list[float] | None
    forfeit: int | None


class Table(TypedDict):
    """The table's seats, who is connected and its status (as ``GET /api/tables/{id}``)."""

    type: Literal["table"]
    table: dict[str, Any]


class Event(TypedDict):
    """Something that happened at the table rather than in the game (a seat left)."""

    type: Literal["event"]
    event: dict[str, Any]


class Error(TypedDict):
    type: Literal["error"]
    code: str
    message: str


class Chat(TypedDict):
    type: Literal["chat"]
    seat: int | None
    name: str
    text: str
    at: float
    account: str | None  # the speaker's account name, None for a guest


class ChatDeleted(TypedDict):
    """The moderator deleted lines: the chat starts again (the lines left follow)."""

    type: Literal["chat_deleted"]


class Rematch(TypedDict):
    """The next table at the same seats, once a seat asked for it."""

    type: Literal["rematch"]
    table: str


class _HintBase(TypedDict):
    type: Literal["hint"]
    seq: int
    action: str
    win_probability: float | None


class Hint(_HintBase, total=False):
    move: dict[str, Any]  # the action's parts, for a game that gives them


class Pong(TypedDict):
    type: Literal["pong"]


Outbound = Table | Event | Error | Chat | ChatDeleted | Rematch | Hint | Pong
"""Every message but the view (which goes out as text)."""


def table(public: dict[str, Any]) -> Table:
    return {"type": "table", "table": public}


def left(seat: int, name: str | None) -> Event:
    return {"type": "event", "event": {"type": "left", "seat": seat, "name": name}}


def error(code: str, message: str) -> Error:
    return {"type": "error", "code": code, "message": message}


def chat(seat: int | None, name: str, text: str, at: float, account: str | None = None) -> Chat:
    return {"type": "chat", "seat": seat, "name": name, "text": text, "at": at, "account": account}


def chat_deleted() -> ChatDeleted:
    return {"type": "chat_deleted"}


def rematch(table_id: str) -> Rematch:
    return {"type": "rematch", "table": table_id}


def hint(seq: int, action: str, win_probability: float | None, move: dict[str, Any] | None) -> Hint:
    if move is None:
        return {"type": "hint", "seq": seq, "action": action, "win_probability": win_probability}
    return {"type": "hint", "seq": seq, "action": action, "move": move, "win_probability": win_probability}


def pong() -> Pong:
    return {"type": "pong"}


def encode(message: Outbound) -> str:
    """The one place a message becomes text."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)
