"""``gamester serve --log-format text|json`` (docs/deploy.md, Logs).

``text`` (the default) is for a person at a terminal: the server says where it listens and warns
when something goes wrong, nothing for each request. ``json`` writes one JSON object a line on
standard output for everything: the start-up lines, each HTTP request (``"event": "request"``), each
WebSocket when it closes (``"socket"``), each table event of this server (``"created"``,
``"joined"``, ``"left"``, ``"started"``, ``"moved"``, ``"ended"``) and every warning or error.

What never reaches a log: a query string (seat tokens and invite codes travel there), a request or
message body (passwords, sessions, chat), a header (cookies, ``Authorization``), a seat's token or
invite hash. A move is logged as a spectator sees it, from the spectator's frame the room already
sent (the game's one view function built it): a hidden card is no more in the log than on a
spectator's screen.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

from starlette.types import Scope

INFO = logging.INFO
REQUESTS = logging.getLogger("gamester.requests")
TABLES = logging.getLogger("gamester.tables")
SERVER = logging.getLogger("gamester.server")
FORMATS = ("text", "json")


class JsonLines(logging.Formatter):
    """One JSON object a line: ``time`` (UTC, ISO 8601), ``level``, ``logger``, then the record's
    ``fields`` (the events of this module) or its ``message`` (a warning from anywhere)."""

    def format(self, record: logging.LogRecord) -> str:
        at = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        out: dict[str, Any] = {
            "time": f"{at}.{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            out.update(fields)
        else:
            out["message"] = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            e = record.exc_info[1]
            out["error"] = f"{type(e).__name__}: {str(e)[:300]}"
            out["trace"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def setup(fmt: str) -> dict[str, Any] | None:
    """Configure logging for ``fmt``; returns uvicorn's ``log_config`` (None: leave logging as set
    here)."""
    if fmt != "json":
        return None
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(JsonLines())
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi"):
        lg = logging.getLogger(name)
        lg.handlers.clear()
        lg.propagate = True
    logging.getLogger("uvicorn.access").setLevel(logging.WARNING)  # ours are the request lines
    for lg in (REQUESTS, TABLES, SERVER):
        lg.setLevel(logging.INFO)
    logging.captureWarnings(True)
    return None


def is_json() -> bool:
    return SERVER.isEnabledFor(INFO)


def say(event: str, text: str, **fields: Any) -> None:
    """A start-up line: printed for a person, or one JSON object with ``json``."""
    if is_json():
        SERVER.info(text, extra={"fields": {"event": event, "message": text, **fields}})
    else:
        print(text, flush=True)


def _client(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "?"


def request(scope: Scope, status: int, seconds: float, code: str | None) -> None:
    fields: dict[str, Any] = {
        "event": "request",
        "method": scope.get("method", "?"),
        "path": str(scope.get("path", ""))[:200],  # never the query string
        "status": status,
        "ms": round(seconds * 1000.0, 2),
        "client": _client(scope),
    }
    if code is not None:
        fields["error"] = code
    REQUESTS.info("request", extra={"fields": fields})


def socket(scope: Scope, accepted: bool, closed: tuple[int, str] | None, seconds: float) -> None:
    fields: dict[str, Any] = {
        "event": "socket",
        "path": str(scope.get("path", ""))[:200],
        "accepted": accepted,
        "seconds": round(seconds, 3),
        "client": _client(scope),
    }
    if closed is not None:
        fields["close"] = closed[0]
        if closed[1]:
            fields["reason"] = closed[1][:60]
    REQUESTS.info("socket", extra={"fields": fields})


def table_fields(row: Any) -> dict[str, Any]:
    """What a table's ``created`` line says: what ``GET /api/tables/{id}`` shows anyone."""
    return {
        "options": row.options,
        "seats": [
            {"seat": s.seat, "kind": s.kind, "agent": s.agent, "name": s.name if s.kind == "human" else None}
            for s in row.seats
        ],
        "rated": bool(getattr(row, "rated", False)),
        "private": bool(getattr(row, "private", False)),
        "lesson": getattr(row, "lesson", None),
    }


def table(event: str, row: Any, fields: dict[str, Any]) -> None:
    out = {"event": event, "table": row.id, "game": row.game, "status": row.status, **fields}
    TABLES.info(event, extra={"fields": out})
