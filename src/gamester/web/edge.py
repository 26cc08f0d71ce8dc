"""The edge: what a refusal, or any failure, becomes over HTTP and over a table's WebSocket.

One table (:data:`HTTP_STATUS`) gives each refusal class of :mod:`gamester.web.errors` its HTTP
status; over a WebSocket every refusal is an ``error`` message with the same ``code`` and ``message``
(and the socket stays open), except those in :data:`WS_CLOSE`, which close it. The other failures are
mapped here too: a game's ``GameError`` (bad input a game refused), the store's
``StoreUnavailable`` (503 ``unavailable``), and anything else (a bug: 500 ``internal`` over HTTP,
``server_error`` over a socket, with nothing of the client's input echoed back).
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from gamester.core.errors import GameError
from gamester.store.port import StoreUnavailable
from gamester.web import errors, messages

HTTP_STATUS: dict[type[errors.Refused], int] = {
    errors.Refused: 400,
    errors.Malformed: 400,
    errors.BadInput: 422,
    errors.NotFound: 404,
    errors.NoTable: 404,
    errors.NotLoggedIn: 401,
    errors.NotAllowed: 403,
    errors.BadToken: 403,
    errors.NotOver: 403,
    errors.Conflict: 409,
    errors.SeatTaken: 409,
    errors.RateLimited: 429,
    errors.Overloaded: 429,
    # Refused over the table socket; over HTTP (never, today) a plain bad request.
    errors.Stale: 400,
    errors.NotYourTurn: 400,
    errors.NotPlaying: 400,
    errors.IllegalAction: 400,
    errors.NotTheLesson: 400,
    errors.Left: 400,
    errors.Spectator: 400,
    errors.Busy: 400,
}
"""Every refusal class's HTTP status (tests/test_web_edge.py: every class has its own line)."""

WS_CLOSE: dict[type[errors.Refused], int] = {errors.Left: 1008}
"""Refusals that close the table socket (with this code) instead of answering an error: a socket
whose token left its seat speaks for nobody any more."""


def http_status(e: errors.Refused) -> int:
    """``e``'s status: its class's line (a class made elsewhere: its nearest base's)."""
    return next(HTTP_STATUS[k] for k in type(e).__mro__ if k in HTTP_STATUS)


def ws_close(e: Exception) -> int | None:
    """The close code for a failure that ends the table socket; None: answer it (:func:`ws_error`)."""
    if not isinstance(e, errors.Refused):
        return None
    return next((WS_CLOSE[k] for k in type(e).__mro__ if k in WS_CLOSE), None)


def ws_error(e: Exception) -> messages.Error:
    """The ``error`` message a table socket gets for a failure of what it sent."""
    if isinstance(e, errors.Refused):
        return messages.error(e.code, e.message)
    if isinstance(e, GameError):
        return messages.error("bad_message", str(e)[:300])
    if isinstance(e, StoreUnavailable):  # nothing was changed: say so, keep the socket
        return messages.error("unavailable", str(e))
    # A bug: still an answer, and the socket stays open.
    return messages.error("server_error", f"internal error ({type(e).__name__}); nothing was changed")


def _answer(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


def install(app: FastAPI) -> None:
    """The app's error handlers: every failure is one JSON line with a status; the client's input is
    never echoed back."""

    @app.exception_handler(errors.Refused)
    async def _refused(_r: Request, e: errors.Refused) -> JSONResponse:
        out = _answer(http_status(e), e.code, e.message)
        if isinstance(e, errors.RateLimited):  # when to ask again
            out.headers["retry-after"] = str(e.retry_after)
        return out

    @app.exception_handler(GameError)
    async def _game_error(_r: Request, e: GameError) -> JSONResponse:
        return _answer(422, "bad_request", str(e).splitlines()[0][:300] if str(e) else type(e).__name__)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(r: Request, e: StarletteHTTPException) -> JSONResponse:
        if e.status_code == 404:
            return _answer(404, "not_found", f"no such path: {r.url.path[:100]}")
        if e.status_code == 405:
            return _answer(405, "method_not_allowed", f"{r.method} is not allowed on {r.url.path[:100]}")
        return _answer(e.status_code, "http_error", str(e.detail)[:200])

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_r: Request, e: RequestValidationError) -> JSONResponse:
        errs = e.errors()
        first = errs[0] if errs else {}
        where = ".".join(str(x) for x in first.get("loc", ()))
        return _answer(422, "bad_request", f"{where}: {first.get('msg', 'invalid')}"[:200])

    @app.exception_handler(StoreUnavailable)
    async def _store_gone(_r: Request, e: StoreUnavailable) -> JSONResponse:
        return _answer(503, "unavailable", str(e))

    @app.exception_handler(Exception)
    async def _unexpected(_r: Request, e: Exception) -> JSONResponse:
        # Reached only through a bug; still a JSON answer, and the client's input is not echoed.
        return _answer(500, "internal", f"internal error ({type(e).__name__})")
