"""The HTTP and WebSocket adapter, and ``create_app``: the composition root.

``create_app(db_url)`` builds the app; its lifespan opens the repository (running the migrations),
then the notifier and the :class:`~gamester.web.registry.Registry` of rooms (which starts the bot
worker pool and the lease loop), and stops them again. The routes only translate: a request is checked
by :mod:`gamester.web.validate`, becomes a command to its table's room, and the answer (or one clear
JSON error line with a 4xx) goes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import os
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from sqlalchemy import exc as sa_exc
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gamester.core.errors import GameError
from gamester.store.people import AccountRow
from gamester.store.port import StoreUnavailable
from gamester.store.repository import default_sqlite_url, open_repository
from gamester.web import decisions as d
from gamester.web import lessons, rematch, service, validate
from gamester.web.accounts import People, Throttle
from gamester.web.accounts import router as people_router
from gamester.web.chat import ChatHub
from gamester.web.decisions import SeatOwner, ServiceError
from gamester.web.fair import address_key
from gamester.web.guard import Guard
from gamester.web.health import DatabaseHealth
from gamester.web.limits import Limits
from gamester.web.notifier import LocalNotifier, Notifier, PostgresNotifier
from gamester.web.registry import Registry, new_server_id
from gamester.web.reviews import ReviewDesk
from gamester.web.room import Connection, close_socket

MAX_BODY = 64 * 1024
MAX_WS_MESSAGE = 64 * 1024
RATE_PER_SECOND = 20.0
RATE_BURST = 40.0
FLOOD_ERRORS = 20.0
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


def create_app(
    db_url: str | None = None,
    *,
    bot_workers: int | None = None,
    lease_seconds: float | None = None,
    server_id: str | None = None,
    limits: Limits | None = None,
    allow_origins: Sequence[str] = (),
    allow_hosts: Iterable[str] | None = None,
) -> FastAPI:
    """The web app on ``db_url`` (default: the per-user SQLite file). ``allow_hosts``: the names it
    answers to in ``Host`` (None: any; web/guard.py)."""
    url = db_url or default_sqlite_url()
    workers = bot_workers if bot_workers is not None else int(_env_float("GAMESTER_BOT_WORKERS", 2))
    lease = lease_seconds if lease_seconds is not None else _env_float("GAMESTER_LEASE_SECONDS", 10.0)
    sid = server_id or new_server_id()
    quota = limits or Limits()
    holder: dict[str, Any] = {}
    people_holder: dict[str, People] = {}

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        repo = await asyncio.to_thread(open_repository, url)
        # Load every game once before serving: the first lookups then never race each other.
        from gamester.core.registry import game_class, game_names

        for name in game_names():
            with contextlib.suppress(Exception):
                game_class(name)
        notifier: Notifier
        sqlite = repo.engine.dialect.name == "sqlite"
        if not sqlite:
            conninfo = repo.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
            notifier = PostgresNotifier(conninfo, sid)
        else:
            notifier = LocalNotifier()
        registry = Registry(
            repo,
            notifier,
            server_id=sid,
            inline_writes=sqlite,
            workers=workers,
            lease_seconds=lease,
            bot_seconds=_env_float("GAMESTER_BOT_SECONDS", 10.0),
            hint_seconds=_env_float("GAMESTER_HINT_SECONDS", 5.0),
            unjoined_seconds=60.0 * quota.unjoined_minutes,
            bots_per_address=quota.bots_per_address if quota.per_address else 0,
        )
        desk = ReviewDesk(registry)
        people = People(repo)
        registry.on_end.append(people.table_over)
        people_holder["people"] = people
        _app.state.people = people
        # Tables made per address, counted where every server on this database sees them (web/guard.py).
        per_minute = float(quota.tables_per_minute)
        _app.state.table_quota = Throttle(people.store, "tables", burst=per_minute, every=60.0 / per_minute)
        hub = ChatHub(people.store, notifier.publish, time.time)
        notifier.subscribe(hub.on_notice)
        holder.update(repo=repo, registry=registry, health=DatabaseHealth(repo), desk=desk, chat=hub)
        await registry.start()
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
            await desk.stop()
            await registry.stop()
            repo.dispose()

    app = FastAPI(title="gamester", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(BodyLimit)
    app.add_middleware(
        Guard, limits=limits, allow_origins=allow_origins, allow_hosts=allow_hosts
    )  # outermost: runs first
    app.state.db_url = url
    app.state.server_id = sid
    app.include_router(people_router(people_holder))

    def rooms() -> Registry:
        r: Registry = holder["registry"]
        return r

    _errors(app)

    # -- API -----------------------------------------------------------------------------------
    @app.get("/api/health")
    async def health() -> JSONResponse:
        status, body = await holder["health"].answer()
        return JSONResponse(body, status_code=status)

    @app.get("/api/games")
    async def games() -> dict[str, Any]:
        return {"games": await asyncio.to_thread(service.games)}

    @app.get("/api/games/{name}/rules")
    async def rules(name: str) -> dict[str, Any]:
        from gamester.core.registry import game_names
        from gamester.play.rules_text import rules_text

        if name not in game_names():
            raise ServiceError(
                "no_game", f"unknown game {name[:40]!r}; valid games: " + ", ".join(game_names()), 404
            )
        return {"game": name, "markdown": await asyncio.to_thread(rules_text, name)}

    @app.get("/games/{name}/web.js")
    async def game_drawing(name: str) -> Response:
        """A game's browser drawing, from the game's own package (the page falls back to its generic
        drawing on a 404)."""
        from gamester.core.registry import game_file, game_names

        found = game_file(name, "web.js") if name in game_names() else None
        if found is None:
            raise ServiceError("no_drawing", f"no browser drawing for {name[:40]!r}", 404)
        return Response(found.read_text(encoding="utf-8"), media_type="text/javascript")

    @app.get("/api/tables")
    async def list_tables(request: Request) -> dict[str, Any]:
        q = request.query_params
        status, limit = validate.list_query(q.get("status"), q.get("limit", "50"))
        reg = rooms()
        rows = await reg.db(reg.repo.list_tables, status, limit)
        return {"tables": [d.public(r, reg.connected(r.id)) for r in rows]}

    async def new_table(
        game: str,
        options: dict[str, Any],
        seats: list[str],
        clock: Any,
        creator: Any,
        *,
        seed: int | None = None,
        lesson: str | None = None,
        rated: bool = False,
        owner: SeatOwner | None = None,
        access: tuple[bool, bool] = (False, False),
        address: str = "?",
    ) -> dict[str, Any]:
        reg = rooms()
        table_id = secrets.token_urlsafe(12)
        token = secrets.token_urlsafe(24) if creator is not None else None
        if creator is not None and owner is not None and isinstance(creator, dict):
            seat = creator.get("seat")
            if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < 16:
                token = owner.token_for(table_id, seat)
        row, state = await asyncio.to_thread(
            d.new_table,
            game,
            options,
            seats,
            clock,
            table_id=table_id,
            seed=secrets.randbits(62) if seed is None else seed,
            now=reg.now(),
            creator=creator,
            token=token,
            lesson=lesson,
            rated=rated,
            owner=owner,
            access=access,
        )
        codes = d.issue_invites(row, token or secrets.token_urlsafe(24))
        row.turns_key = address_key(address)  # kept with the table: its bots' turns survive a restart
        if row.status == "waiting" and quota.per_address:
            # One address holds only a few places in the lobby (and a few rows waiting for expiry).
            held = await reg.db(reg.repo.waiting_count, row.turns_key)
            if held >= quota.waiting_per_address:
                raise ServiceError(
                    "rate_limited",
                    f"this address already has {held} tables waiting for players (at most "
                    f"{quota.waiting_per_address}): start, join or leave one of them first",
                    429,
                )
        await reg.db(reg.repo.create, row, write=True)
        room = reg.adopt(row, state)
        reg.publish(row.id, "table")
        out: dict[str, Any] = {**await room.call("public", fresh=False), **codes}
        if creator is not None:
            out = {**out, "seat": creator["seat"], "token": token}
        return out

    async def account(conn: Request | WebSocket) -> AccountRow | None:
        """The account logged in on ``conn`` (None: a guest; a forged Bearer session: 401)."""
        people = people_holder["people"]
        if not people.session_text(conn):
            return None
        found: AccountRow | None = await asyncio.to_thread(people.account_of, conn)
        return found

    async def owner_of(request: Request) -> SeatOwner | None:
        """The logged-in account of the request as a seat's owner (None: a guest)."""
        people = people_holder["people"]
        row = await account(request)
        if row is None:
            return None
        return SeatOwner(row.key, row.name, lambda t, n: people.seat_token(row, t, n))

    async def watching(tid: str, conn: Request | WebSocket, *, fresh: bool = False) -> dict[str, Any]:
        """The public table (``fresh``: read again first), once ``conn`` may see it: a private table
        wants ``?invite=`` (its watch code or a seat's), ``?token=`` (a seat's), or the account of a
        seat logged in."""
        table: dict[str, Any] = await rooms().call(tid, "public", fresh=fresh)
        if table["private"]:
            q = conn.query_params
            row = await account(conn)
            key = None if row is None else row.key
            await rooms().call(tid, "watch", q.get("invite"), q.get("token"), key)
        return table

    async def seen(table_id: str, request: Request, kind: str, *args: Any) -> dict[str, Any]:
        """The room's ``kind`` answer (the record, the replay) for a request that may see the table."""
        tid = validate.table_id(table_id)
        await watching(tid, request)
        out: dict[str, Any] = await rooms().call(tid, kind, *args)
        return out

    @app.post("/api/tables", status_code=201)
    async def create_table(request: Request) -> dict[str, Any]:
        data = validate.body(await request.body())
        parts = validate.create(data)
        rated = validate.rated(data)
        access = validate.access(data)
        owner = await owner_of(request)
        if rated and owner is None:
            raise ServiceError("not_logged_in", "rated: log in to create a rated table", 401)
        return await new_table(*parts, rated=rated, owner=owner, access=access, address=client_of(request))

    # -- lessons and reviews (docs/tutorials.md, docs/review.md) ------------------------------
    @app.get("/api/tutorials")
    async def list_tutorials() -> dict[str, Any]:
        return {"tutorials": lessons.catalogue()}

    @app.post("/api/tutorials/{lesson_id}", status_code=201)
    async def start_lesson(lesson_id: str, request: Request) -> dict[str, Any]:
        name = validate.lesson(await request.body())
        try:
            t = lessons.find(lesson_id[:80])
        except lessons.LessonError as e:
            raise ServiceError("no_tutorial", str(e), 404) from None
        creator = {"seat": t.seat, "name": name or "You"}
        where = client_of(request)
        out = await new_table(
            t.game, t.options, lessons.seats(t), None, creator, seed=t.seed, lesson=t.id, address=where
        )
        return {"table": out["id"], "seat": out["seat"], "token": out["token"]}

    @app.post("/api/tables/{table_id}/review", status_code=202)
    async def request_review(table_id: str, request: Request) -> dict[str, Any]:
        tid = validate.table_id(table_id)
        body = validate.body(await request.body())
        await watching(tid, request)
        desk: ReviewDesk = holder["desk"]
        return await desk.request(tid, body.get("seat"))

    @app.get("/api/tables/{table_id}/review")
    async def get_review(table_id: str, request: Request) -> dict[str, Any]:
        tid = validate.table_id(table_id)
        seat = validate.replay_seat(request.query_params.get("seat"))
        await watching(tid, request)
        desk: ReviewDesk = holder["desk"]
        return await desk.status(tid, seat)

    @app.get("/api/tables/{table_id}")
    async def get_table(table_id: str, request: Request) -> dict[str, Any]:
        return await watching(validate.table_id(table_id), request, fresh=True)

    @app.post("/api/tables/{table_id}/invites")
    async def get_invites(table_id: str, request: Request) -> dict[str, Any]:
        tid = validate.table_id(table_id)
        body = validate.body(await request.body())
        out: dict[str, Any] = await rooms().call(tid, "invites", body.get("token"))
        return out

    @app.post("/api/tables/{table_id}/join")
    async def join(table_id: str, request: Request) -> dict[str, Any]:
        tid = validate.table_id(table_id)
        body = validate.body(await request.body())
        validate.join_name(body.get("name"))
        owner = await owner_of(request)
        out: dict[str, Any] = await rooms().call(
            tid, "join", body.get("seat"), body.get("name"), body.get("token"), owner, body.get("invite")
        )
        return out

    @app.post("/api/tables/{table_id}/rematch")
    async def ask_rematch(table_id: str, request: Request) -> dict[str, Any]:
        tid = validate.table_id(table_id)
        body = validate.body(await request.body())
        return await rematch.ask(rooms(), people_holder["people"], tid, body.get("token"))

    @app.post("/api/tables/{table_id}/leave")
    async def leave(table_id: str, request: Request) -> dict[str, Any]:
        tid = validate.table_id(table_id)
        body = validate.body(await request.body())
        out: dict[str, Any] = await rooms().call(tid, "leave", body.get("token"))
        return out

    @app.get("/api/tables/{table_id}/record")
    async def record(table_id: str, request: Request) -> dict[str, Any]:
        return await seen(table_id, request, "record")

    @app.get("/api/tables/{table_id}/replay")
    async def replay(table_id: str, request: Request) -> dict[str, Any]:
        seat = validate.replay_seat(request.query_params.get("seat"))
        return await seen(table_id, request, "replay", seat)

    # -- WebSocket -----------------------------------------------------------------------------
    @app.websocket("/ws/tables/{table_id}")
    async def ws_table(ws: WebSocket, table_id: str) -> None:
        token = ws.query_params.get("token")
        await ws.accept()
        if not validate.TABLE_ID.match(table_id):
            await close_socket(ws, 1008)
            return
        reg = rooms()
        conn = Connection(ws, table_id)
        try:
            if token is None:  # a spectator: of a private table only with an invite
                await watching(table_id, ws)
            # A wrong token is refused, never taken for a spectator.
            seat = await reg.call(table_id, "attach", conn, token)
        except Exception:  # noqa: BLE001 - no table, a wrong token, the database down: closed
            conn.close(1008)
            await conn.finish()
            return
        hub: ChatHub = holder["chat"]
        talker = None
        try:
            name = await _speaker(table_id, seat, ws)
            talker = await hub.attach(table_id, conn.send, seat, name)
            await _ws_loop(ws, conn, reg, seat, functools.partial(hub.say, table_id, talker))
        finally:
            if talker is not None:
                hub.detach(table_id, talker)
            with contextlib.suppress(Exception):
                await reg.call(table_id, "detach", conn)
            await conn.finish()

    async def _speaker(table_id: str, seat: int | None, ws: WebSocket) -> str:
        """The name a socket's chat goes under: its seat's, else the spectator's account, else
        "Spectator"."""
        if seat is not None:
            table = await rooms().call(table_id, "public")
            return str(table["seats"][seat]["name"] or f"Player {seat + 1}")
        try:
            row = await account(ws)
        except ServiceError:
            row = None
        return row.name if row is not None else "Spectator"

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

    app.mount("/static", StaticFiles(directory=static_dir(), check_dir=False), name="static")
    return app


def client_of(conn: Request) -> str:
    """The client's address, as the per-address quotas count it."""
    return conn.client.host if conn.client is not None else "?"


def _errors(app: FastAPI) -> None:
    """Every failure is one JSON line with a status; the client's input is never echoed back."""

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


RATING_CATCH_UP_SECONDS = 60.0


async def _rating_catch_up(people: People) -> None:
    """Apply finished rated tables whose rating was not applied (their server stopped in between):
    at start, then every minute. Applying is idempotent, so servers sharing a database may all run it."""
    while True:
        with contextlib.suppress(Exception):
            await asyncio.to_thread(people.catch_up)
        await asyncio.sleep(RATING_CATCH_UP_SECONDS)


async def _ws_loop(
    ws: WebSocket,
    conn: Connection,
    reg: Registry,
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
            conn.close(1008)
            return
        if msg.get("bytes") is not None:
            conn.close(1003)
            return
        text = msg.get("text")
        if text is None:
            continue
        if len(text) > MAX_WS_MESSAGE:
            conn.close(1009)
            return
        if tokens < 0:
            conn.send({"type": "error", "code": "rate_limited", "message": "too many messages; slow down"})
            continue
        try:
            data = validate.message(text)
            kind = data["type"]
            if kind == "ping":
                conn.send({"type": "pong"})
            elif kind == "act":
                if seat is None:
                    raise ServiceError("spectator", "a spectator cannot act")
                await reg.call(
                    conn.table_id,
                    "act",
                    seat,
                    data.get("action"),
                    data.get("seq"),
                    token_hash=conn.token_hash,
                )
            elif kind == "chat":
                await say(data.get("text"))
            else:  # hint
                if seat is None:
                    raise ServiceError("spectator", "a spectator gets no hints")
                if conn.hinting:
                    raise ServiceError("busy", "a hint is already being worked out")
                conn.hinting = True
                try:
                    await reg.call(conn.table_id, "hint", conn, seat, data.get("seq"))
                except BaseException:
                    conn.hinting = False
                    raise
        except ServiceError as e:
            if e.code == "left":  # the token left the seat: this socket speaks for nobody now
                conn.close(1008)
                return
            conn.send({"type": "error", "code": e.code, "message": e.message})
        except GameError as e:
            conn.send({"type": "error", "code": "bad_message", "message": str(e)[:300]})
        except sa_exc.OperationalError:  # the database is unreachable: say so, keep the socket
            conn.send({"type": "error", "code": "unavailable", "message": _DB_DOWN})
        except StoreUnavailable as e:  # the database cannot keep the move: nothing was changed
            conn.send({"type": "error", "code": "unavailable", "message": str(e)})
        except Exception as e:  # noqa: BLE001 - a bug: still an answer, and the socket stays open
            message = f"internal error ({type(e).__name__}); nothing was changed"
            conn.send({"type": "error", "code": "server_error", "message": message})
