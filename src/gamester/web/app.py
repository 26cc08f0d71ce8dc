"""``create_app``: the composition root of the web server.

``create_app(db_url)`` resolves the settings (arguments first, then ``GAMESTER_*`` environment
variables), and builds the app from its parts: its lifespan opens the stores (running the
migrations; only through :func:`gamester.store.open_stores` and the port), the notifier, the
:class:`~gamester.web.registry.Registry` of rooms (which starts the bot worker pool and the lease
loop), the people, the review desk and the health probe, puts them on ``app.state.parts``
(:class:`~gamester.web.routes.Parts`) and stops them again. Around the routes sit the middleware
(:class:`~gamester.web.guard.Guard` outermost, then :class:`BodyLimit`) and, under them, the edge's
error handlers (:mod:`gamester.web.edge`) that make every failure one JSON line with a status. The
routes themselves live elsewhere: the table routes and the table WebSocket in
:mod:`gamester.web.routes`, accounts and people in :mod:`gamester.web.accounts`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import os
from collections.abc import AsyncIterator, Iterable, Sequence

from fastapi import FastAPI
from fastapi.responses import JSONResponse
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gamester.store import default_sqlite_url, open_stores
from gamester.web import edge
from gamester.web import seeks as seek_times
from gamester.web.accounts import People, Throttle
from gamester.web.accounts import router as people_router
from gamester.web.commands import Notice
from gamester.web.fair import TableQuota
from gamester.web.guard import Guard
from gamester.web.health import DatabaseHealth
from gamester.web.limits import Limits
from gamester.web.lobby import Lobby, lobby_router
from gamester.web.metrics import Observe, ServerMetrics, install, observe_parts
from gamester.web.names import skeleton
from gamester.web.notifier import LocalNotifier, Notifier, PostgresNotifier
from gamester.web.proxy import ClientAddress, parse_trusted
from gamester.web.ratings import INITIAL
from gamester.web.registry import Registry, new_server_id
from gamester.web.reviews import ReviewDesk
from gamester.web.routes import Parts, static_dir, table_router

MAX_BODY = 64 * 1024


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


def _error(status: int, code: str, message: str) -> JSONResponse:  # below the app's own handlers
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
    trusted_proxies: Sequence[str] = (),
    metrics_allow: Sequence[str] = (),
) -> FastAPI:
    """The web app on ``db_url`` (default: the per-user SQLite file). ``allow_hosts``: the names it
    answers to in ``Host`` (None: any; web/guard.py). ``trusted_proxies``: the proxies whose
    ``X-Forwarded-For`` names the client (web/proxy.py); ``metrics_allow``: who besides the loopback
    may read ``/metrics`` (web/metrics.py)."""
    url = db_url or default_sqlite_url()
    workers = bot_workers if bot_workers is not None else int(_env_float("GAMESTER_BOT_WORKERS", 2))
    lease = lease_seconds if lease_seconds is not None else _env_float("GAMESTER_LEASE_SECONDS", 10.0)
    sid = server_id or new_server_id()
    quota = limits or Limits()

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        stores = await asyncio.to_thread(open_stores, url, INITIAL, seek_times.TIMES)
        repo = stores.tables
        # Load every game once before serving: the first lookups then never race each other.
        from gamester.core.registry import game_class, game_names

        for name in game_names():
            with contextlib.suppress(Exception):
                game_class(name)
        notifier: Notifier
        conninfo = repo.notify_conninfo()
        notifier = LocalNotifier() if conninfo is None else PostgresNotifier(conninfo, sid)
        registry = Registry(
            repo,
            stores.people,
            notifier,
            server_id=sid,
            inline_writes=conninfo is None,
            workers=workers,
            lease_seconds=lease,
            bot_seconds=_env_float("GAMESTER_BOT_SECONDS", 10.0),
            hint_seconds=_env_float("GAMESTER_HINT_SECONDS", 5.0),
            unjoined_seconds=60.0 * quota.unjoined_minutes,
            bots_per_address=quota.bots_per_address if quota.per_address else 0,
        )
        desk = ReviewDesk(registry, budget_seconds=_env_float("GAMESTER_REVIEW_SECONDS", 60.0))
        people = People(stores.people, tables=repo, moderation=stores.moderation)
        registry.on_end.append(people.rate_soon)
        people.on_revoke = functools.partial(_close_revoked, registry)
        await asyncio.to_thread(people.store.fill_skeletons, skeleton)
        _app.state.people = people
        # Tables made per address, counted where every server on this database sees them (web/fair.py).
        per_minute = float(quota.tables_per_minute)
        _app.state.table_quota = Throttle(people.store, "tables", burst=per_minute, every=60.0 / per_minute)
        tables = TableQuota(
            _app.state.table_quota,
            lambda key: registry.db(repo.waiting_count, key),
            per_minute=quota.tables_per_minute,
            waiting_cap=quota.waiting_per_address,
            enabled=quota.per_address,
        )
        _app.state.parts = Parts(
            registry=registry, health=DatabaseHealth(repo), desk=desk, people=people, quota=tables
        )
        observe_parts(metrics, registry, people, desk)
        # Quick play, the lobby socket, your tables, blocks and reports (web/lobby.py).
        _app.state.lobby = lobby = Lobby(registry, people, stores.seeks, stores.moderation, quota)
        metrics.probe("seeks", "Open quick-play seeks, made on any server on the database", lobby.open_seeks)
        await registry.start()
        await lobby.start()
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
            await lobby.stop()
            await registry.stop()
            stores.dispose()

    trusted = parse_trusted(trusted_proxies)
    metrics = ServerMetrics()
    app = FastAPI(title="gamester", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(BodyLimit)
    app.add_middleware(Guard, limits=limits, allow_origins=allow_origins, allow_hosts=allow_hosts)
    app.add_middleware(Observe, metrics=metrics)
    app.add_middleware(ClientAddress, trusted=trusted)  # outermost: who the client is, decided once
    app.state.metrics = metrics
    install(app, metrics, metrics_allow, trusted)
    app.state.db_url = url
    app.state.server_id = sid
    app.include_router(people_router())
    edge.install(app)
    app.include_router(table_router(quota))
    app.include_router(lobby_router())
    app.mount("/static", StaticFiles(directory=static_dir(), check_dir=False), name="static")
    return app


async def _close_revoked(registry: Registry, table_ids: list[str]) -> None:
    """An account's seat tokens changed at these tables (a new password, "log out everywhere"):
    each room here reads its table again and closes the sockets holding the old tokens, as after a
    leave, and every other server is told to do the same."""
    for tid in table_ids:
        if tid in registry.rooms:
            with contextlib.suppress(Exception):
                await registry.call(tid, Notice("table"))
        registry.publish(tid, "table")


RATING_CATCH_UP_SECONDS = 60.0


async def _rating_catch_up(people: People) -> None:
    """Apply finished rated tables whose rating was not applied (their server stopped in between):
    at start, then every minute. Applying is idempotent, so servers sharing a database may all run it."""
    while True:
        with contextlib.suppress(Exception):
            await asyncio.to_thread(people.catch_up)
        await asyncio.sleep(RATING_CATCH_UP_SECONDS)
