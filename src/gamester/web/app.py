"""The HTTP and WebSocket adapter: FastAPI routes over :class:`~gamester.web.service.TableService`.

``create_app(db_url)`` builds the app; its lifespan opens the repository (running the migrations),
starts the bot worker pool, the notifier and the lease loop, and stops them again. Every request body
is read and checked here by hand so a bad one gets one clear JSON line (and a 4xx), never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import json
import os
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from sqlalchemy import exc as sa_exc
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gamester.core.errors import GameError
from gamester.store.port import StoreUnavailable
from gamester.store.repository import default_sqlite_url, open_repository
from gamester.web import rematch
from gamester.web.accounts import People
from gamester.web.accounts import router as people_router
from gamester.web.chat import ChatHub
from gamester.web.guard import Guard
from gamester.web.health import DatabaseHealth
from gamester.web.limits import Limits
from gamester.web.names import name_problem
from gamester.web.notifier import LocalNotifier, Notifier, PostgresNotifier
from gamester.web.runtime import Connection, Runtime, close_socket, new_server_id, viewer_of
from gamester.web.service import SeatOwner, ServiceError, TableService, hash_token

MAX_BODY = 64 * 1024
MAX_WS_MESSAGE = 64 * 1024
RATE_PER_SECOND = 20.0
RATE_BURST = 40.0
FLOOD_ERRORS = 20.0
_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
_STATUSES = ("waiting", "playing", "over")
_DB_DOWN = "the database is unavailable; try again"


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


def static_dir() -> Path:
    return Path(str(resources.files("gamester.web").joinpath("static")))


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


class BodyLimit:
    """Refuse request bodies over ``MAX_BODY`` bytes (413) whether announced or streamed."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for k, v in scope.get("headers", []):
            if k == b"content-length":
                try:
                    too_big = int(v) > MAX_BODY
                except ValueError:
                    too_big = True
                if too_big:
                    await _error(413, "too_large", f"request body over {MAX_BODY} bytes")(
                        scope, receive, send
                    )
                    return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > MAX_BODY:
                    raise _TooLarge
            return msg

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            await _error(413, "too_large", f"request body over {MAX_BODY} bytes")(scope, receive, send)


class _TooLarge(Exception):
    pass


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise ServiceError("bad_json", "the request body is not JSON", 400) from None
    if not isinstance(data, dict):
        raise ServiceError("bad_json", "the request body must be a JSON object", 400)
    return data


read_body = _body


def _table_id(table_id: str) -> str:
    if not _ID.match(table_id):
        raise ServiceError("no_table", "no such table", 404)
    return table_id


def _clean_text(value: Any, what: str) -> None:
    if isinstance(value, str) and any(ord(ch) < 32 or ch in "\x7f" for ch in value):
        raise ServiceError("bad_" + what, f"{what}: control characters are not allowed", 422)


def create_app(
    db_url: str | None = None,
    *,
    bot_workers: int | None = None,
    lease_seconds: float | None = None,
    server_id: str | None = None,
    limits: Limits | None = None,
    allow_origins: Sequence[str] = (),
) -> FastAPI:
    """The web app on ``db_url`` (default: the per-user SQLite file)."""
    url = db_url or default_sqlite_url()
    workers = bot_workers if bot_workers is not None else int(_env_float("GAMESTER_BOT_WORKERS", 1))
    lease = lease_seconds if lease_seconds is not None else _env_float("GAMESTER_LEASE_SECONDS", 10.0)
    sid = server_id or new_server_id()
    holder: dict[str, Any] = {}
    people_holder: dict[str, People] = {}

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        repo = await run_in_threadpool(open_repository, url)
        # Load every game once before serving: the first lookups then never race each other.
        from gamester.core.registry import game_class, game_names

        for name in game_names():
            with contextlib.suppress(Exception):
                game_class(name)
        notifier: Notifier
        if repo.engine.dialect.name == "postgresql":
            conninfo = repo.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
            notifier = PostgresNotifier(conninfo, sid)
        else:
            notifier = LocalNotifier()
        service = TableService(repo, notifier.publish)
        runtime = Runtime(
            service,
            repo,
            notifier,
            server_id=sid,
            workers=workers,
            lease_seconds=lease,
            bot_seconds=_env_float("GAMESTER_BOT_SECONDS", 10.0),
            hint_seconds=_env_float("GAMESTER_HINT_SECONDS", 5.0),
        )
        runtime.inline_writes = repo.engine.dialect.name == "sqlite"
        people = People(repo)
        service.on_over = people.table_over
        people_holder["people"] = people
        _app.state.people = people
        hub = ChatHub(people.store, notifier.publish, time.time)
        notifier.subscribe(hub.on_notice)
        holder["chat"] = hub
        holder.update(repo=repo, service=service, runtime=runtime, health=DatabaseHealth(repo))
        await runtime.start()
        catching_up = asyncio.create_task(_rating_catch_up(people))
        if getattr(_app.state, "freeze_gc", False):
            # Everything loaded so far (modules, schema, engines) lives as long as the server: keep
            # it out of every future collection, so a full collection only scans what play creates.
            gc.collect()
            gc.freeze()
        try:
            yield
        finally:
            catching_up.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await catching_up
            await runtime.stop()
            repo.dispose()

    app = FastAPI(title="gamester", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(BodyLimit)
    app.add_middleware(Guard, limits=limits, allow_origins=allow_origins)  # outermost: runs first
    app.state.db_url = url
    app.state.server_id = sid
    app.include_router(people_router(people_holder))

    def svc() -> TableService:
        s: TableService = holder["service"]
        return s

    def rt() -> Runtime:
        r: Runtime = holder["runtime"]
        return r

    @app.exception_handler(ServiceError)
    async def _service_error(_r: Request, e: ServiceError) -> JSONResponse:
        return _error(e.status, e.code, e.message)

    @app.exception_handler(GameError)
    async def _game_error(_r: Request, e: GameError) -> JSONResponse:
        return _error(422, "bad_request", str(e).splitlines()[0][:300] if str(e) else type(e).__name__)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(r: Request, e: StarletteHTTPException) -> JSONResponse:
        if e.status_code == 404:
            return _error(404, "not_found", f"no such path: {r.url.path[:100]}")
        if e.status_code == 405:
            return _error(405, "method_not_allowed", f"{r.method} is not allowed on {r.url.path[:100]}")
        return _error(e.status_code, "http_error", str(e.detail)[:200])

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_r: Request, e: RequestValidationError) -> JSONResponse:
        errs = e.errors()
        first = errs[0] if errs else {}
        where = ".".join(str(x) for x in first.get("loc", ()))
        return _error(422, "bad_request", f"{where}: {first.get('msg', 'invalid')}"[:200])

    @app.exception_handler(sa_exc.OperationalError)
    async def _db_down(_r: Request, _e: Exception) -> JSONResponse:
        return _error(503, "unavailable", _DB_DOWN)

    @app.exception_handler(StoreUnavailable)
    async def _store_gone(_r: Request, e: StoreUnavailable) -> JSONResponse:
        return _error(503, "unavailable", str(e))

    @app.exception_handler(Exception)
    async def _unexpected(_r: Request, e: Exception) -> JSONResponse:
        # Reached only through a bug; still a JSON answer, and the client's input is not echoed.
        return _error(500, "internal", f"internal error ({type(e).__name__})")

    # -- API -----------------------------------------------------------------------------------
    @app.get("/api/health")
    async def health() -> JSONResponse:
        status, body = await holder["health"].answer()
        return JSONResponse(body, status_code=status)

    @app.get("/api/games")
    async def games() -> dict[str, Any]:
        return {"games": await run_in_threadpool(svc().games)}

    @app.get("/api/games/{name}/rules")
    async def rules(name: str) -> dict[str, Any]:
        from gamester.core.registry import game_names
        from gamester.play.rules_text import rules_text

        if name not in game_names():
            raise ServiceError(
                "no_game", f"unknown game {name[:40]!r}; valid games: " + ", ".join(game_names()), 404
            )
        return {"game": name, "markdown": await run_in_threadpool(rules_text, name)}

    @app.get("/api/tables")
    async def list_tables(request: Request) -> dict[str, Any]:
        q = request.query_params
        status = q.get("status")
        if status is not None and status not in _STATUSES:
            raise ServiceError("bad_status", "status: expected waiting, playing or over", 422)
        limit_text = q.get("limit", "50")
        if not limit_text.isdigit() or not 1 <= int(limit_text) <= 200:
            raise ServiceError("bad_limit", "limit: expected a whole number from 1 to 200", 422)
        return {"tables": await run_in_threadpool(svc().list_tables, status, int(limit_text))}

    @app.post("/api/tables", status_code=201)
    async def create_table(request: Request) -> dict[str, Any]:
        body = await _body(request)
        unknown = sorted(set(body) - {"game", "options", "seats", "clock", "rated"})
        if unknown:
            raise ServiceError(
                "bad_request",
                f"unknown field {unknown[0][:40]!r}; valid fields: game, options, seats, clock, rated",
                422,
            )
        rated = body.get("rated", False)
        if not isinstance(rated, bool):
            raise ServiceError("bad_rated", "rated: expected true or false", 422)
        if rated and await run_in_threadpool(people_holder["people"].account_of, request) is None:
            raise ServiceError("not_logged_in", "rated: log in to create a rated table", 401)
        game = body.get("game")
        if not isinstance(game, str) or not game or len(game) > 200:
            raise ServiceError("bad_game", 'game: expected a game name such as "penneech"', 422)
        _clean_text(game, "game")
        options = body.get("options")
        if options is None:
            options = {}
        if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
            raise ServiceError("bad_options", "options: expected an object of option values", 422)
        for k, v in options.items():
            if (
                not isinstance(v, str | int | float | bool | list)
                or (
                    isinstance(v, list)
                    and not all(isinstance(x, str | int) and not isinstance(x, bool) for x in v)
                )
                or len(str(v)) > 500
            ):
                raise ServiceError(
                    "bad_options",
                    f"options.{k[:40]}: expected a number, text, true/false or a short list",
                    422,
                )
        seats = body.get("seats")
        if (
            not isinstance(seats, list)
            or not seats
            or not all(isinstance(s, str) for s in seats)
            or len(seats) > 16
        ):
            raise ServiceError(
                "bad_seats",
                'seats: expected a list with one entry per player, each "human" or an agent spec',
                422,
            )
        for s in seats:
            _clean_text(s, "seats")
        return await run_in_threadpool(
            functools.partial(svc().create_table, game, options, seats, body.get("clock"), rated=rated)
        )

    @app.get("/api/tables/{table_id}")
    async def get_table(table_id: str) -> dict[str, Any]:
        return await run_in_threadpool(svc().public_table, _table_id(table_id))

    @app.post("/api/tables/{table_id}/join")
    async def join(table_id: str, request: Request) -> dict[str, Any]:
        tid = _table_id(table_id)
        body = await _body(request)
        name = body.get("name")
        if isinstance(name, str) and (problem := name_problem(name)) is not None:
            raise ServiceError("bad_name", problem, 422)
        people = people_holder["people"]
        found = await run_in_threadpool(people.account_of, request) if people.session_text(request) else None
        owner = None
        if found is not None:
            row = found
            owner = SeatOwner(row.key, row.name, lambda t, n: people.seat_token(row, t, n))
        return await run_in_threadpool(
            svc().join, tid, body.get("seat"), body.get("name"), body.get("token"), owner
        )

    @app.post("/api/tables/{table_id}/leave")
    async def leave(table_id: str, request: Request) -> dict[str, Any]:
        tid = _table_id(table_id)
        body = await _body(request)
        out = await run_in_threadpool(svc().leave, tid, body.get("token"))
        await rt().close_seat(tid, out["seat"])
        return out

    @app.post("/api/tables/{table_id}/rematch")
    async def ask_rematch(table_id: str, request: Request) -> dict[str, Any]:
        tid = _table_id(table_id)
        body = await _body(request)
        return await run_in_threadpool(rematch.ask, svc(), people_holder["people"], tid, body.get("token"))

    @app.get("/api/tables/{table_id}/record")
    async def record(table_id: str) -> dict[str, Any]:
        return await run_in_threadpool(svc().record, _table_id(table_id))

    @app.get("/api/tables/{table_id}/replay")
    async def replay(table_id: str, request: Request) -> dict[str, Any]:
        tid = _table_id(table_id)
        seat_text = request.query_params.get("seat")
        seat: Any = None
        if seat_text is not None:
            seat = int(seat_text) if seat_text.isdigit() and len(seat_text) < 4 else seat_text
        return await run_in_threadpool(svc().replay, tid, seat)

    # -- WebSocket -----------------------------------------------------------------------------
    @app.websocket("/ws/tables/{table_id}")
    async def ws_table(ws: WebSocket, table_id: str) -> None:
        token = ws.query_params.get("token")
        await ws.accept()
        service, runtime = svc(), rt()
        if not _ID.match(table_id):
            await close_socket(ws, 1008)
            return
        try:
            await run_in_threadpool(service.load, table_id)
            seat = None
            if token is not None:
                seat = await run_in_threadpool(service.authenticate, table_id, token)
                if seat is None:
                    await close_socket(ws, 1008)  # a wrong token is refused, never taken for a spectator
                    return
        except ServiceError:
            await close_socket(ws, 1008)
            return
        conn = Connection(ws, table_id, viewer_of(seat))
        if seat is not None:
            assert token is not None
            conn.token_hash = hash_token(token)  # the token it came with, not the seat's now
        runtime.add(conn)
        # Checked again once registered: a leave that committed since is either seen here, or its
        # notice comes later and finds this socket registered (and closes it).
        if (
            conn.token_hash is not None
            and seat is not None
            and not service.holds(table_id, seat, conn.token_hash)
        ):
            runtime.remove(conn)
            await close_socket(ws, 1008)
            return
        if seat is not None:
            service.set_connected(table_id, seat, +1)
        hub: ChatHub = holder["chat"]
        talker = None
        try:
            await conn.start(service)
            talker = await hub.attach(table_id, conn.send, seat, await _speaker(service, table_id, seat, ws))
            say = functools.partial(hub.say, table_id, talker)
            await _ws_loop(ws, conn, service, runtime, seat, say)
        finally:
            if talker is not None:
                hub.detach(table_id, talker)
            runtime.remove(conn)
            if seat is not None:
                with contextlib.suppress(ServiceError):
                    service.set_connected(table_id, seat, -1)

    # -- the front end -------------------------------------------------------------------------
    @app.get("/")
    async def index() -> Response:
        page = static_dir() / "index.html"
        if page.is_file():
            return FileResponse(page, media_type="text/html")
        return HTMLResponse(
            "<!doctype html><title>gamester</title><h1>gamester</h1>"
            '<p>The API is at <a href="/api/games">/api/games</a>.</p>'
        )

    async def _speaker(service: TableService, table_id: str, seat: int | None, ws: WebSocket) -> str:
        """The name a socket's chat goes under: its seat's, else the spectator's account, else
        "Spectator"."""
        if seat is not None:
            seats = service.public_table_cached(table_id)["seats"]
            return str(seats[seat]["name"] or f"Player {seat + 1}")
        try:
            row = await run_in_threadpool(people_holder["people"].account_of, ws)
        except ServiceError:
            row = None
        return row.name if row is not None else "Spectator"

    app.mount("/static", StaticFiles(directory=static_dir(), check_dir=False), name="static")
    return app


RATING_CATCH_UP_SECONDS = 60.0


async def _rating_catch_up(people: People) -> None:
    """Apply finished rated tables whose rating was not applied (their server stopped in between):
    at start, then every minute. Applying is idempotent, so servers sharing a database may all run it."""
    while True:
        with contextlib.suppress(Exception):
            await run_in_threadpool(people.catch_up)
        await asyncio.sleep(RATING_CATCH_UP_SECONDS)


async def _ws_loop(
    ws: WebSocket,
    conn: Connection,
    service: TableService,
    runtime: Runtime,
    seat: int | None,
    say: Callable[[Any], Awaitable[None]],
) -> None:
    tokens = RATE_BURST
    last = time.monotonic()
    while True:
        msg = await ws.receive()
        if msg["type"] == "websocket.disconnect":
            return
        if conn.closed:
            return
        now = time.monotonic()
        tokens = min(RATE_BURST, tokens + (now - last) * RATE_PER_SECOND)
        last = now
        tokens -= 1
        if tokens < -FLOOD_ERRORS:  # a flood: stop listening to this client
            await close_socket(ws, 1008)
            return
        if msg.get("bytes") is not None:
            await close_socket(ws, 1003)
            return
        text = msg.get("text")
        if text is None:
            continue
        if len(text) > MAX_WS_MESSAGE:
            await close_socket(ws, 1009)
            return
        if tokens < 0:
            await conn.send(
                {"type": "error", "code": "rate_limited", "message": "too many messages; slow down"}
            )
            continue
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            await conn.send({"type": "error", "code": "bad_message", "message": "not JSON"})
            continue
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            await conn.send(
                {
                    "type": "error",
                    "code": "bad_message",
                    "message": 'a message is a JSON object with a "type"',
                }
            )
            continue
        kind = data["type"]
        try:
            if kind == "ping":
                await conn.send({"type": "pong"})
            elif kind == "act":
                if seat is None:
                    raise ServiceError("spectator", "a spectator cannot act")
                act = functools.partial(
                    service.act,
                    conn.table_id,
                    seat,
                    data.get("action"),
                    data.get("seq"),
                    token_hash=conn.token_hash,
                )
                if runtime.inline_writes:
                    # SQLite: a commit is a local file write of well under a millisecond; handing
                    # it to a thread and back costs more than that.
                    act()
                else:
                    await run_in_threadpool(act)
            elif kind == "chat":
                await say(data.get("text"))
            elif kind == "hint":
                if seat is None:
                    raise ServiceError("spectator", "a spectator gets no hints")
                service.hint_check(conn.table_id, seat, data.get("seq"))
                if conn.hinting:
                    raise ServiceError("busy", "a hint is already being worked out")
                conn.hinting = True
                runtime.spawn(_hint(conn, runtime, seat, data["seq"]))
            else:
                raise ServiceError(
                    "bad_message", f"unknown message type {kind[:40]!r}; valid: act, chat, hint, ping"
                )
        except ServiceError as e:
            if e.code == "left":  # the token left the seat: this socket speaks for nobody now
                conn.closed = True
                await close_socket(ws, 1008)
                return
            await conn.send({"type": "error", "code": e.code, "message": e.message})
        except GameError as e:
            await conn.send({"type": "error", "code": "bad_message", "message": str(e)[:300]})
        except sa_exc.OperationalError:  # the database is unreachable: say so, keep the socket
            await conn.send({"type": "error", "code": "unavailable", "message": _DB_DOWN})
        except StoreUnavailable as e:  # the database cannot keep the move: nothing was changed
            await conn.send({"type": "error", "code": "unavailable", "message": str(e)})
        except Exception as e:  # noqa: BLE001 - a bug: still an answer, and the socket stays open
            message = f"internal error ({type(e).__name__}); nothing was changed"
            await conn.send({"type": "error", "code": "server_error", "message": message})


async def _hint(conn: Connection, runtime: Runtime, seat: int, seq: int) -> None:
    try:
        await conn.send(await runtime.hint(conn.table_id, seat, seq))
    except ServiceError as e:
        await conn.send({"type": "error", "code": e.code, "message": e.message})
    finally:
        conn.hinting = False
