"""The table routes (docs/web.md, The API and The WebSocket): an ``APIRouter``.

:func:`table_router` serves the health probe, the games and their rules pages and browser drawings,
the tables (list, create, join, leave, invites, rematch, the record, the replay and the review), the
tutorials, the table WebSocket ``/ws/tables/{id}`` and the front page. The routes only translate: a
request is checked by :mod:`gamester.web.validate`, becomes a command to its table's room (through the
:class:`~gamester.web.registry.Registry`), and the answer, or a :class:`ServiceError` that the app's
error handlers turn into one JSON line with a 4xx, goes back. What several routes share (making a
table, the account of a request, who may watch a private table) is :class:`_Tables`.

The parts the routes use exist only once the app has started, so the router is built over the
holders the app's lifespan fills in (``create_app`` in :mod:`gamester.web.app`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import secrets
import time
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request, WebSocket
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from sqlalchemy import exc as sa_exc

from gamester.core.errors import GameError
from gamester.store.moderation import ModerationStore
from gamester.store.people import AccountRow
from gamester.store.port import StoreUnavailable
from gamester.web import decisions as d
from gamester.web import lessons, rematch, service, slow, validate
from gamester.web.accounts import People
from gamester.web.chat import ChatHub
from gamester.web.decisions import SeatOwner, ServiceError
from gamester.web.fair import address_key
from gamester.web.limits import Limits
from gamester.web.registry import Registry
from gamester.web.reviews import ReviewDesk
from gamester.web.room import Connection, close_socket

MAX_WS_MESSAGE = 64 * 1024
RATE_PER_SECOND = 20.0
RATE_BURST = 40.0
FLOOD_ERRORS = 20.0
DB_DOWN = "the database is unavailable; try again"


def static_dir() -> Path:
    """The front end's files, shipped inside the package."""
    return Path(str(resources.files("gamester.web").joinpath("static")))


def client_of(conn: Request) -> str:
    """The client's address, as the per-address quotas count it."""
    return conn.client.host if conn.client is not None else "?"


class _Tables:
    """What the table routes share, over the holders filled in when the app starts: ``parts`` (the
    ``registry``, ``health``, ``desk`` and ``chat``) and ``people["people"]``."""

    def __init__(self, parts: dict[str, Any], people: dict[str, People], quota: Limits) -> None:
        self.parts = parts
        self.people = people
        self.quota = quota

    def rooms(self) -> Registry:
        r: Registry = self.parts["registry"]
        return r

    async def new_table(
        self,
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
        ``creator``, the creator's seat and token). 429 when ``address`` holds too many waiting."""
        quota = self.quota
        reg = self.rooms()
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

    async def account(self, conn: Request | WebSocket) -> AccountRow | None:
        """The account logged in on ``conn`` (None: a guest; a forged Bearer session: 401)."""
        people = self.people["people"]
        if not people.session_text(conn):
            return None
        found: AccountRow | None = await asyncio.to_thread(people.account_of, conn)
        return found

    async def owner_of(self, request: Request) -> SeatOwner | None:
        """The logged-in account of the request as a seat's owner (None: a guest)."""
        people = self.people["people"]
        row = await self.account(request)
        if row is None:
            return None
        shunned = await asyncio.to_thread(ModerationStore(people.store.repo).related, row.key)
        return SeatOwner(row.key, row.name, lambda t, n: people.seat_token(row, t, n), shunned)

    async def watching(self, tid: str, conn: Request | WebSocket, *, fresh: bool = False) -> dict[str, Any]:
        """The public table (``fresh``: read again first), once ``conn`` may see it: a private table
        wants ``?invite=`` (its watch code or a seat's), ``?token=`` (a seat's), or the account of a
        seat logged in."""
        table: dict[str, Any] = await self.rooms().call(tid, "public", fresh=fresh)
        if table["private"]:
            q = conn.query_params
            row = await self.account(conn)
            key = None if row is None else row.key
            await self.rooms().call(tid, "watch", q.get("invite"), q.get("token"), key)
        return table

    async def seen(self, table_id: str, request: Request, kind: str, *args: Any) -> dict[str, Any]:
        """The room's ``kind`` answer (the record, the replay) for a request that may see the table."""
        tid = validate.table_id(table_id)
        await self.watching(tid, request)
        out: dict[str, Any] = await self.rooms().call(tid, kind, *args)
        return out

    async def speaker(self, table_id: str, seat: int | None, ws: WebSocket) -> tuple[str, str | None]:
        """The name a socket's chat goes under (its seat's, else the spectator's account, else
        "Spectator") and the key of the account speaking, if any (its blocks apply to it)."""
        if seat is not None:
            s = (await self.rooms().call(table_id, "public"))["seats"][seat]
            return str(s["name"] or f"Player {seat + 1}"), None if s["account"] is None else s[
                "account"
            ].casefold()
        try:
            row = await self.account(ws)
        except ServiceError:
            row = None
        return (row.name, row.key) if row is not None else ("Spectator", None)


def table_router(parts: dict[str, Any], people: dict[str, People], quota: Limits) -> APIRouter:
    """The table routes, over ``parts`` (``registry``, ``health``, ``desk``, ``chat``) and
    ``people["people"]``, all set when the app starts; ``quota``: the per-address limits."""
    api = APIRouter()
    t = _Tables(parts, people, quota)
    rooms = t.rooms

    # -- API -----------------------------------------------------------------------------------
    @api.get("/api/health")
    async def health() -> JSONResponse:
        status, body = await parts["health"].answer()
        return JSONResponse(body, status_code=status)

    @api.get("/api/games")
    async def games() -> dict[str, Any]:
        return {"games": await asyncio.to_thread(service.games)}

    @api.get("/api/games/{name}/rules")
    async def rules(name: str) -> dict[str, Any]:
        from gamester.core.registry import game_names
        from gamester.play.rules_text import rules_text

        if name not in game_names():
            raise ServiceError(
                "no_game", f"unknown game {name[:40]!r}; valid games: " + ", ".join(game_names()), 404
            )
        return {"game": name, "markdown": await asyncio.to_thread(rules_text, name)}

    @api.get("/games/{name}/web.js")
    async def game_drawing(name: str) -> Response:
        """A game's browser drawing, from the game's own package (the page falls back to its generic
        drawing on a 404)."""
        from gamester.core.registry import game_file, game_names

        found = game_file(name, "web.js") if name in game_names() else None
        if found is None:
            raise ServiceError("no_drawing", f"no browser drawing for {name[:40]!r}", 404)
        return Response(found.read_text(encoding="utf-8"), media_type="text/javascript")

    @api.get("/api/tables")
    async def list_tables(request: Request) -> dict[str, Any]:
        q = request.query_params
        status, limit = validate.list_query(q.get("status"), q.get("limit", "50"))
        reg = rooms()
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
            raise ServiceError("not_logged_in", "rated: log in to create a rated table", 401)
        if slow.is_slow(fields[3]) and owner is None:
            raise ServiceError(
                "not_logged_in", "a clock of hours or days a move seats accounts: log in first", 401
            )
        return await t.new_table(*fields, rated=rated, owner=owner, access=access, address=client_of(request))

    # -- lessons and reviews (docs/tutorials.md, docs/review.md) ------------------------------
    @api.get("/api/tutorials")
    async def list_tutorials() -> dict[str, Any]:
        return {"tutorials": lessons.catalogue()}

    @api.post("/api/tutorials/{lesson_id}", status_code=201)
    async def start_lesson(lesson_id: str, request: Request) -> dict[str, Any]:
        name = validate.lesson(await request.body())
        try:
            lesson = lessons.find(lesson_id[:80])
        except lessons.LessonError as e:
            raise ServiceError("no_tutorial", str(e), 404) from None
        creator = {"seat": lesson.seat, "name": name or "You"}
        where = client_of(request)
        out = await t.new_table(
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
        desk: ReviewDesk = parts["desk"]
        return await desk.request(tid, body.get("seat"))

    @api.get("/api/tables/{table_id}/review")
    async def get_review(table_id: str, request: Request) -> dict[str, Any]:
        tid = validate.table_id(table_id)
        seat = validate.replay_seat(request.query_params.get("seat"))
        await t.watching(tid, request)
        desk: ReviewDesk = parts["desk"]
        return await desk.status(tid, seat)

    @api.get("/api/tables/{table_id}")
    async def get_table(table_id: str, request: Request) -> dict[str, Any]:
        return await t.watching(validate.table_id(table_id), request, fresh=True)

    @api.post("/api/tables/{table_id}/invites")
    async def get_invites(table_id: str, request: Request) -> dict[str, Any]:
        tid = validate.table_id(table_id)
        body = validate.body(await request.body())
        out: dict[str, Any] = await rooms().call(tid, "invites", body.get("token"))
        return out

    @api.post("/api/tables/{table_id}/join")
    async def join(table_id: str, request: Request) -> dict[str, Any]:
        tid = validate.table_id(table_id)
        body = validate.body(await request.body())
        validate.join_name(body.get("name"))
        owner = await t.owner_of(request)
        out: dict[str, Any] = await rooms().call(
            tid, "join", body.get("seat"), body.get("name"), body.get("token"), owner, body.get("invite")
        )
        return out

    @api.post("/api/tables/{table_id}/rematch")
    async def ask_rematch(table_id: str, request: Request) -> dict[str, Any]:
        tid = validate.table_id(table_id)
        body = validate.body(await request.body())
        return await rematch.ask(rooms(), people["people"], tid, body.get("token"))

    @api.post("/api/tables/{table_id}/leave")
    async def leave(table_id: str, request: Request) -> dict[str, Any]:
        tid = validate.table_id(table_id)
        body = validate.body(await request.body())
        out: dict[str, Any] = await rooms().call(tid, "leave", body.get("token"))
        return out

    @api.get("/api/tables/{table_id}/record")
    async def record(table_id: str, request: Request) -> dict[str, Any]:
        return await t.seen(table_id, request, "record")

    @api.get("/api/tables/{table_id}/replay")
    async def replay(table_id: str, request: Request) -> dict[str, Any]:
        seat = validate.replay_seat(request.query_params.get("seat"))
        return await t.seen(table_id, request, "replay", seat)

    # -- WebSocket -----------------------------------------------------------------------------
    @api.websocket("/ws/tables/{table_id}")
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
                await t.watching(table_id, ws)
            # A wrong token is refused, never taken for a spectator.
            seat = await reg.call(table_id, "attach", conn, token)
        except Exception:  # noqa: BLE001 - no table, a wrong token, the database down: closed
            conn.close(1008)
            await conn.finish()
            return
        hub: ChatHub = parts["chat"]
        talker = None
        try:
            name, account = await t.speaker(table_id, seat, ws)
            talker = await hub.attach(table_id, conn.send, seat, name, account)
            await _ws_loop(ws, conn, reg, seat, functools.partial(hub.say, table_id, talker))
        finally:
            if talker is not None:
                hub.detach(table_id, talker)
            with contextlib.suppress(Exception):
                await reg.call(table_id, "detach", conn)
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


async def _ws_loop(
    ws: WebSocket,
    conn: Connection,
    reg: Registry,
    seat: int | None,
    say: Callable[[Any], Awaitable[None]],
) -> None:
    """Read one table socket's messages until it goes: each checked, rate-limited (about
    ``RATE_PER_SECOND``, bursts of ``RATE_BURST``) and handed to the room; a refusal is an error frame
    and the socket stays open, a flood, a binary frame or an oversized message closes it."""
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
            conn.send({"type": "error", "code": "unavailable", "message": DB_DOWN})
        except StoreUnavailable as e:  # the database cannot keep the move: nothing was changed
            conn.send({"type": "error", "code": "unavailable", "message": str(e)})
        except Exception as e:  # noqa: BLE001 - a bug: still an answer, and the socket stays open
            message = f"internal error ({type(e).__name__}); nothing was changed"
            conn.send({"type": "error", "code": "server_error", "message": message})
