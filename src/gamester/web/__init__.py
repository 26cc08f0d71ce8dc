"""``gamester serve``: tables, seats, bots, spectators and clocks over HTTP and WebSockets.

``create_app(db_url)`` builds the FastAPI app (``gamester.web.app``); ``serve(host, port, db)`` runs it
on uvicorn (``gamester.web.server``). The endpoints and messages are in ``docs/web.md``. Needs the
``web`` extra.
"""

from __future__ import annotations

from typing import Any


def create_app(db_url: str | None = None, **kwargs: Any) -> Any:
    from gamester.web.app import create_app as make

    return make(db_url, **kwargs)


def serve(host: str = "127.0.0.1", port: int = 8000, db: str | None = None) -> int:
    from gamester.web.server import serve as run

    return run(host, port, db)


__all__ = ["create_app", "serve"]
