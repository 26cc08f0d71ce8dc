"""The table routes (docs/web.md, The API and The WebSocket): an ``APIRouter``.

:func:`table_router` serves the health probe, the games and their rules pages and browser drawings,
the tables (list, create, join, leave, invites, rematch, the record, the replay and the review), the
tutorials, the table WebSocket ``/ws/tables/{id}`` and the front page. The routes only translate: a
request is checked by :mod:`gamester.web.validate`, becomes a command (:mod:`gamester.web.commands`)
to its table's room (through the :class:`~gamester.web.registry.Registry`), and the answer, or a
refusal (:mod:`gamester.web.errors`) that the edge (:mod:`gamester.web.edge`) turns into one JSON
line with a 4xx or an ``error`` message, goes back. What several routes share (making a table, the
account of a request, who may watch a private table) is :class:`_Tables`.

The parts the routes use exist only once the app has started: its lifespan puts them on
``app.state.parts`` (:class:`Parts`), and each route finds them on its request (:func:`parts_of`).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request, WebSocket
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.requests import HTTPConnection

from gamester.store.port import AccountRow
from gamester.web import decisions as d
from gamester.web import edge, lessons, messages, metrics, rematch, service, slow, validate
from gamester.web.accounts import People
from gamester.web.commands import (
    Act,
    Attach,
    Detach,
    Hint,
    Invites,
    Join,
    Leave,
    Public,
    Record,
    Replay,
    Say,
    Watch,
)
from gamester.web.decisions import SeatOwner
from gamester.web.errors import BadInput, Busy, NotFound, NotLoggedIn, Refused, Spectator
from gamester.web.fair import TableQuota, address_key
from gamester.web.health import DatabaseHealth
from gamester.web.limits import Limits
from gamester.web.registry import Registry
from gamester.web.reviews import ReviewDesk
from gamester.web.sockets import Connection, close_socket

MAX_WS_MESSAGE = 64 * 1024
RATE_PER_SECOND = 20.0
RATE_BURST = 40.0
FLOOD_ERRORS = 20.0


@dataclass(frozen=True)
class Parts:
    """The server's running parts, made when the app starts (``app.state.parts``)."""

    registry: Registry
    health: DatabaseHealth
    desk: ReviewDesk
    people: People
    quota: TableQuota  # charges every table made (web/fair.py)


def parts_of(conn: HTTPConnection) -> Parts:
    """The running parts of the app serving ``conn``."""
    parts: Parts = conn.app.state.parts
    return parts


def static_dir() -> Path:
    """The front end's files, shipped inside the package."""
    return Path(str(resources.files("gamester.web").joinpath("static")))


def client_of(conn: Request) -> str:
    """The client's address, as the per-address quotas count it."""
    return conn.client.host if conn.client is not None else "?"


class _Tables:
    """What the table routes share: making a table, the account of a request, who may watch."""

    def __init__(self, quota: Limits) -> None:
        self.quota = quota

    async def new_table(
        self,
        parts: Parts,
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
        """A new table, stored and open in a room: the public table with its invite codes (and, with a
        ``creator``, the creator's seat and token). Charged to ``address`` (``parts.quota``: 429 past
        its tables a minute, or its tables waiting)."""
        await parts.quota.spend(address)
        reg = parts.registry
        table_id = validate.new_table_id()
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
        # One address holds only a few places in the lobby (and a few rows waiting for expiry).
        async with parts.quota.making(address, waiting=row.status == "waiting", spent=True):
            await reg.db(reg.repo.create, row, write=True)
        room = reg.adopt(row, state)
        reg.publish(row.id, "table")
        table = await room.call(Public(fresh=False))
        out: dict[str, Any] = {**table, **codes}
        if creator is not None:
            out = {**out, "seat": creator["seat"], "token": token}
        return out

    async def account(self, conn: Request | WebSocket) -> AccountRow | None:
        """The account logged in on ``conn`` (None: a guest; a forged Bearer session: 401)."""
        people = parts_of(conn).people
        if not people.session_text(conn):
            return None
        found: AccountRow | None = await asyncio.to_thread(people.account_of, conn)
        return found

    async def guest_name(self, conn: HTTPConnection, name: Any) -> None:
        """A guest may not sit down under a name that reads like an account's (422 ``bad_name``)."""
        if isinstance(name, str) and name.strip():
            people = parts_of(conn).people
            problem = await asyncio.to_thread(people.guest_name_problem, name)
            if problem is not None:
                raise BadInput(problem, code="bad_name")

    async def owner_of(self, request: Request) -> SeatOwner | None:
        """The logged-in account of the request as a seat's owner (None: a guest)."""
        row = await self.account(request)
        return None if row is None else await rematch.seat_owner(parts_of(request).people, row)

    async def watching(self, tid: str, conn: Request | WebSocket, *, fresh: bool = False) -> dict[str, Any]:
        """The public table (``fresh``: read again first), once ``conn`` may see it: a private table
        wants ``?invite=`` (its watch code or a seat's), ``?token=`` (a seat's), or the account of a
        seat logged in."""
        reg = parts_of(conn).registry
        table = await reg.call(tid, Public(fresh=fresh))
        if table["private"]:
            q = conn.query_params
            row = await self.account(conn)
            key = None if row is None else row.key
            await reg.call(tid, Watch(q.get("invite"), q.get("token"), key))
        return table

    async def seen(self, table_id: str, request: Request, cmd: Record | Replay) -> dict[str, Any]:
        """The room's answer to ``cmd`` (the record, the replay) for a request that may see the table."""
        tid = validate.table_id(table_id)
        await self.watching(tid, request)
        return await parts_of(request).registry.call(tid, cmd)

    async def spectator(self, ws: WebSocket) -> tuple[str, str | None]:
        """The name a spectator's chat goes under (its account's, else "Spectator") and the account that
        speaks (its key; None for a guest), whose chat allowance its lines spend and whose blocks apply
        to what it is sent. A seat's lines go under the seat's name and account: the room knows them."""
        try:
            row = await self.account(ws)
        except Refused:
            row = None
        return (row.name, row.key) if row is not None else ("Spectator", None)


def table_router(quota: Limits) -> APIRouter:
    """The table routes; ``quota``: the per-address limits. The parts they use are on each request's
    app once it has started (:func:`parts_of`)."""
    api = APIRouter()
    t = _Tables(quota)

    # -- API -----------------------------------------------------------------------------------
    @api.get("/api/health")
    async def health(request: Request) -> JSONResponse:
        status, body = await parts_of(request).health.answer()
        return JSONResponse(body, status_code=status)

    @api.get("/api/games")
    async def games() -> dict[str, Any]:
        return {"games": await asyncio.to_thread(service.games)}

    @api.get("/api/games/{name}/rules")
    async def rules(name: str) -> dict[str, Any]:
        from gamester.core.registry import game_class, game_names

        if name not in game_names():
            raise NotFound(
                f"unknown game {name[:40]!r}; valid games: " + ", ".join(game_names()), code="no_game"
            )
        return {"game": name, "markdown": await asyncio.to_thread(game_class(name).rules_text)}

    @api.get("/games/{name}/web.js")
    async def game_drawing(name: str) -> Response:
        """A game's browser drawing, from the game's own package (the page falls back to its generic
        drawing on a 404)."""
        from gamester.core.registry import game_file, game_names

        found = game_file(name, "web.js") if name in game_names() else None
        if found is None:
            raise NotFound(f"no browser drawing for {name[:40]!r}", code="no_drawing")
        return Response(found.read_text(encoding="utf-8"), media_type="text/javascript")

    @api.get("/api/tables")
    async def list_tables(request: Request) -> dict[str, Any]:
        q = request.query_params
        status, limit = validate.list_query(q.get("status"), q.get("limit", "50"))
        reg = parts_of(request).registry
        rows = await reg.db(reg.repo.list_tables, status, limit)
        return {"tables": [d.public(r, reg.connected(r.id)) for r in rows]}

    @api.post("/api/tables", status_code=201)
    async def create_table(request: Request) -> dict[str, Any]:
        data = validate.body(await request.body())
        fields = validate.create(data)
        rated = validate.rated(data)
        access = validate.access(data)
        owner = await t.owner_of(request)
        if rated and owner is None:
            raise NotLoggedIn("rated: log in to create a rated table")
        if slow.is_slow(fields[3]) and owner is None:
            raise NotLoggedIn("a clock of hours or days a move seats accounts: log in first")
        if owner is None and isinstance(fields[4], dict):
            await t.guest_name(request, fields[4].get("name"))
        return await t.new_table(
            parts_of(request), *fields, rated=rated, owner=owner, access=access, address=client_of(request)
        )

    # -- lessons and reviews (docs/tutorials.md, docs/review.md) ------------------------------
    @api.get("/api/tutorials")
    async def list_tutorials() -> dict[str, Any]:
        return {"tutorials": lessons.catalogue()}

    @api.post("/api/tutorials/{lesson_id}", status_code=201)
    async def start_lesson(lesson_id: str, request: Request) -> dict[str, Any]:
        name = validate.lesson(await request.body())
        await t.guest_name(request, name)
        try:
            lesson = lessons.find(lesson_id[:80])
        except lessons.LessonError as e:
            raise NotFound(str(e), code="no_tutorial") from None
        creator = {"seat": lesson.seat, "name": name or "You"}
        where = client_of(request)
        out = await t.new_table(
            parts_of(request),
            lesson.game,
            lesson.options,
            lessons.seats(lesson),
            None,
            creator,
            seed=lesson.seed,
            lesson=lesson.id,
            address=where,
        )
        return {"table": out["id"], "seat": out["seat"], "token": out["token"]}

    @api.post("/api/tables/{table_id}/review", status_code=202)
    async def request_review(table_id: str, request: Request) -> dict[str, Any]:
        tid = validate.table_id(table_id)
        body = validate.body(await request.body())
        await t.watching(tid, request)
        return await parts_of(request).desk.request(tid, body.get("seat"), client_of(request))

    @api.get("/api/tables/{table_id}/review")
    async def get_review(table_id: str, request: Request) -> dict[str, Any]:
        tid = validate.table_id(table_id)
        seat = validate.replay_seat(request.query_params.get("seat"))
        await t.watching(tid, request)
        return await parts_of(request).desk.status(tid, seat)

    @api.get("/api/tables/{table_id}")
    async def get_table(table_id: str, request: Request) -> dict[str, Any]:
        return await t.watching(validate.table_id(table_id), request, fresh=True)

    @api.post("/api/tables/{table_id}/invites")
    async def get_invites(table_id: str, request: Request) -> dict[str, Any]:
        tid = validate.table_id(table_id)
        body = validate.body(await request.body())
        return await parts_of(request).registry.call(tid, Invites(body.get("token")))

    @api.post("/api/tables/{table_id}/join")
    async def join(table_id: str, request: Request) -> dict[str, Any]:
        tid = validate.table_id(table_id)
        body = validate.body(await request.body())
        validate.join_name(body.get("name"))
        owner = await t.owner_of(request)
        if owner is None and body.get("token") is None:
            await t.guest_name(request, body.get("name"))
        cmd = Join(body.get("seat"), body.get("name"), body.get("token"), owner, body.get("invite"))
        joined = await parts_of(request).registry.call(tid, cmd)
        return dict(joined)

    @api.post("/api/tables/{table_id}/rematch")
    async def ask_rematch(table_id: str, request: Request) -> dict[str, Any]:
        tid = validate.table_id(table_id)
        body = validate.body(await request.body())
        parts = parts_of(request)
        made_by = client_of(request)
        return await rematch.ask(parts.registry, parts.people, tid, body.get("token"), parts.quota, made_by)

    @api.post("/api/tables/{table_id}/leave")
    async def leave(table_id: str, request: Request) -> dict[str, Any]:
        tid = validate.table_id(table_id)
        body = validate.body(await request.body())
        left = await parts_of(request).registry.call(tid, Leave(body.get("token")))
        return dict(left)

    @api.get("/api/tables/{table_id}/record")
    async def record(table_id: str, request: Request) -> dict[str, Any]:
        return await t.seen(table_id, request, Record())

    @api.get("/api/tables/{table_id}/replay")
    async def replay(table_id: str, request: Request) -> dict[str, Any]:
        seat = validate.replay_seat(request.query_params.get("seat"))
        return await t.seen(table_id, request, Replay(seat))

    # -- WebSocket -----------------------------------------------------------------------------
    @api.websocket("/ws/tables/{table_id}")
    async def ws_table(ws: WebSocket, table_id: str) -> None:
        token = ws.query_params.get("token")
        await ws.accept()
        if not validate.TABLE_ID.match(table_id):
            await close_socket(ws, 1008)
            return
        reg = parts_of(ws).registry
        conn = Connection(ws, table_id)
        try:
            try:
                name, account = "Spectator", None
                if token is None:  # a spectator: of a private table only with an invite
                    await t.watching(table_id, ws)
                    name, account = await t.spectator(ws)
                # A wrong token is refused, never taken for a spectator.
                seat = await reg.call(table_id, Attach(conn, token, name, account, t.quota.per_address))
            except Exception:  # noqa: BLE001 - no table, a wrong token, the database down: closed
                conn.close(1008)
                return
            await _ws_loop(ws, conn, reg, seat)
        finally:
            # Queued, not awaited, and whatever ended the handler (a handler cancelled as its client
            # goes, even while it was attaching): the room must not count a socket that is gone, or
            # its seat would never count as absent (docs/web.md, Leaving and abandoned seats).
            reg.tell(table_id, Detach(conn))
            await conn.finish()

    # -- the front end -------------------------------------------------------------------------
    @api.get("/")
    async def index() -> Response:
        page = static_dir() / "index.html"
        if page.is_file():
            return FileResponse(page, media_type="text/html")
        return HTMLResponse(
            "<!doctype html><title>gamester</title><h1>gamester</h1>"
            '<p>The API is at <a href="/api/games">/api/games</a>.</p>'
        )

    return api


async def _ws_loop(ws: WebSocket, conn: Connection, reg: Registry, seat: int | None) -> None:
    """Read one table socket's messages until it goes: each checked, rate-limited (about
    ``RATE_PER_SECOND``, bursts of ``RATE_BURST``) and handed to the room as a command; a refusal is
    an error frame (web/edge.py) and the socket stays open, a flood, a binary frame or an oversized
    message closes it."""
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
            conn.send(messages.error("rate_limited", "too many messages; slow down"))
            continue
        try:
            await _handle(conn, reg, seat, validate.message(text))
        except Exception as e:  # noqa: BLE001 - every failure is an answer (web/edge.py), or a close
            code = edge.ws_close(e)
            if code is not None:
                conn.close(code)
                return
            conn.send(edge.ws_error(e))


async def _handle(conn: Connection, reg: Registry, seat: int | None, data: dict[str, Any]) -> None:
    """One checked message of a table socket, as the room's command."""
    kind = data["type"]
    if kind == "ping":
        conn.send(messages.pong())
    elif kind == "act":
        if seat is None:
            raise Spectator("a spectator cannot act")
        started = time.perf_counter()
        await reg.call(conn.table_id, Act(seat, data.get("action"), data.get("seq"), conn.token_hash))
        metrics.action_done(conn.ws, time.perf_counter() - started)
    elif kind == "chat":
        await reg.call(conn.table_id, Say(conn, data.get("text")))
    else:  # hint
        if seat is None:
            raise Spectator("a spectator gets no hints")
        if conn.hinting:
            raise Busy("a hint is already being worked out")
        conn.hinting = True
        try:
            await reg.call(conn.table_id, Hint(conn, seat, data.get("seq")))
        except BaseException:
            conn.hinting = False
            raise
