"""Finding a game and the people in it: quick play, the lobby socket, your tables, blocks and
reports (docs/web.md, Quick play … Blocks, reports and bans): an ``APIRouter`` and the service
behind it.

- ``POST /api/seeks`` → 201 ``{"seek", "token", "status"}``; ``GET /api/seeks/{id}?token=T`` →
  ``{"seek", "status", "table"?, "seat"?, "seat_token"?}``; ``DELETE /api/seeks/{id}?token=T``;
  ``GET /api/seeks``. The rules are :mod:`gamester.web.seeks`; the matching runs in the database
  (:mod:`gamester.store.seeks`), so it holds across servers and restarts.
- ``/ws/lobby`` pushes ``{"type": "seeks"}`` and ``{"type": "tables"}`` when they change, on every
  server (the notifier: ``seeks``, ``table`` and ``act`` notices), at most twice a second, and
  looks again every ``REFRESH_EVERY`` seconds for what no notice told.
- ``GET /api/me/tables``: the account's tables, your turn first.
- ``POST/GET /api/me/blocks``, ``DELETE /api/me/blocks/{name}``, ``POST /api/reports``
  (:mod:`gamester.web.blocks`).

:class:`Lobby` is made in the app's lifespan (``create_app``) with the registry and the people;
its loops (the lobby's pushes and the seeks' sweep) run until it stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import random
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request, WebSocket
from starlette.requests import HTTPConnection

from gamester.core.registry import load_game
from gamester.store.port import AccountRow, ModerationRepository, SeekRepository, SeekRow, TableRow
from gamester.web import blocks as b
from gamester.web import decisions as d
from gamester.web import messages, validate
from gamester.web import seeks as sk
from gamester.web.accounts import NAME, People, Throttle
from gamester.web.commands import ChatDeleted, Reblock, Tick
from gamester.web.errors import (
    BadInput,
    BadToken,
    Conflict,
    NoTable,
    NotFound,
    NotLoggedIn,
    RateLimited,
    Refused,
)
from gamester.web.fair import address_key
from gamester.web.limits import Limits
from gamester.web.ratings import INITIAL
from gamester.web.registry import Registry
from gamester.web.routes import client_of, parts_of
from gamester.web.sockets import Connection

log = logging.getLogger("gamester.web")

SEEKS_CHANNEL = "~seeks"
"""The notifier's "table" of seek changes (no table has an id starting with ``~``)."""
ACCOUNT_PREFIX = "~account:"
"""The notifier's "table" of an account's changes (its blocks, its ban)."""
PUSH_EVERY = 0.5
REFRESH_EVERY = 5.0
"""The lobby's lists are read again this often even when no notice came (a notice lost while
PostgreSQL restarted, another server on the same SQLite file, seeks that expired)."""
SWEEP_EVERY = 2.0
LISTED = 20
TURNS_KEPT = 5000
MAX_MESSAGE = 4096
RATE_PER_SECOND = 2.0
RATE_BURST = 10.0


def account_channel(key: str) -> str:
    return ACCOUNT_PREFIX + key


@dataclass(eq=False)
class _Watcher:
    """One lobby socket: its outbox, its account (None: a guest) and the last texts it was sent."""

    conn: Connection
    account: str | None
    seeks: str = ""
    tables: str = ""


class Lobby:
    def __init__(
        self,
        registry: Registry,
        people: People,
        seeks: SeekRepository,
        moderation: ModerationRepository,
        quota: Limits,
    ) -> None:
        self.reg = registry
        self.people = people
        self.quota = quota
        self.seeks = seeks
        self.moderation = moderation
        self.decide = sk.decide(validate.new_table_id, lambda: secrets.randbits(62), random.SystemRandom())
        self.reports = Throttle(
            people.store, "reports", burst=b.REPORTS_A_DAY, every=86400.0 / b.REPORTS_A_DAY
        )
        self.watchers: set[_Watcher] = set()
        self._turns: OrderedDict[str, tuple[int, int | None]] = OrderedDict()  # table -> (seq, to move)
        self._mine_of: dict[str, set[str]] = {}  # table id -> accounts whose lists hold it
        self._listed: set[str] = set()  # the tables of the lobby's lists now
        self._base: dict[str, Any] | None = None  # the lists as last sent
        self._seeks_dirty = False
        self._tables_dirty = False
        self._open_count = 0  # the open seeks, as the sweep last counted them (/metrics)
        self._accounts_dirty: set[str] = set()
        self._wake = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = 0  # the event loop's thread
        self._tasks: list[asyncio.Task[None]] = []

    # -- life cycle ------------------------------------------------------------------------------
    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self.reg.notifier.subscribe(self._on_notice)
        self.reg.notifier.on_reconnect(self._on_reconnect)
        self._tasks = [asyncio.create_task(self._push_loop()), asyncio.create_task(self._sweep_loop())]

    async def stop(self) -> None:
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(BaseException):
                await t
        for w in list(self.watchers):
            w.conn.close(1001)

    def open_seeks(self) -> float:
        """How many seeks wait, made on any server on the database, as the sweep last counted them
        (every ``SWEEP_EVERY`` seconds): the ``gamester_seeks`` gauge of ``/metrics``, read without
        waiting for the database."""
        return float(self._open_count)

    # -- notices ---------------------------------------------------------------------------------
    def _on_notice(self, table_id: str, kind: str, _remote: bool) -> None:
        """From the notifier, on any thread (this server's own notices: on the event loop, where
        marking costs nothing; every move makes one)."""
        loop = self._loop
        if threading.get_ident() == self._thread:
            self._mark(table_id, kind)
        elif loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._mark, table_id, kind)

    def _on_reconnect(self) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._mark, SEEKS_CHANNEL, "all")

    def _mark(self, table_id: str, kind: str) -> None:
        if kind == "all":
            self._seeks_dirty = self._tables_dirty = True
        elif table_id == SEEKS_CHANNEL:
            self._seeks_dirty = True
        elif table_id.startswith(ACCOUNT_PREFIX):
            key = table_id[len(ACCOUNT_PREFIX) :]
            if kind == "ban":
                for w in [w for w in self.watchers if w.account == key]:
                    w.conn.close(1008)
                    self.watchers.discard(w)
            elif kind == "blocks":  # the tables here with sockets: that account's hear by its new list
                for room_id in [r.id for r in self.reg.rooms.values() if r.conns]:
                    self.reg.tell(room_id, Reblock(key))
            return
        elif kind == "chat-deleted":
            self.reg.tell(table_id, ChatDeleted())
            return
        elif kind == "table":
            self._tables_dirty = True
        elif kind == "act":  # a move: whose turn it is changed, and the table may be over
            self._accounts_dirty |= self._mine_of.get(table_id, set())
            self._tables_dirty = self._tables_dirty or table_id in self._listed
        else:
            return
        self._wake.set()

    def _changed(self, table: TableRow | None) -> None:
        """Seeks changed here (and ``table`` was made for some): every server's lobby hears it."""
        self.reg.publish(SEEKS_CHANNEL, "seeks")
        if table is not None:
            self.reg.publish(table.id, "table")
            self.reg.room(table.id).post(Tick())  # its bots and clock start now, not at the next lease round

    # -- seeks -----------------------------------------------------------------------------------
    async def create(self, data: dict[str, Any], account: AccountRow | None, address: str) -> dict[str, Any]:
        spec = sk.read(data, None if account is None else account.name)
        now = self.reg.now()
        rating = None
        if account is not None:
            found = await self.reg.db(self.people.store.ratings_of, account.key)
            rating = found[spec.game].rating if spec.game in found else INITIAL.rating
        token = secrets.token_urlsafe(24)
        row = SeekRow(
            id=secrets.token_urlsafe(12),
            token_hash=d.hash_token(token),
            pool=sk.pool_of(spec),
            game=spec.game,
            options=spec.options,
            players=spec.players,
            rated=spec.rated,
            clock=spec.clock,
            bots_after=spec.bots_after,
            fill_at=None if spec.bots_after is None else now + spec.bots_after,
            account=None if account is None else account.key,
            name=spec.name,
            rating=rating,
            address_key=address_key(address),
            status="waiting",
            created=now,
            polled=now,
        )
        cap = sk.SEEKS_PER_ADDRESS if self.quota.per_address else None
        result, table = await self.reg.db(self.seeks.add, row, per_address=cap, now=now, decide=self.decide)
        if result == "too_many":
            raise RateLimited(
                f"this address already has {sk.SEEKS_PER_ADDRESS} seeks open: cancel one or wait for it"
            )
        if result == "again":
            raise Conflict("you already seek this game with these rules", code="already_seeking")
        self._changed(table)
        # No table made: the seek is as stored (waiting); else read it back, it may be seated.
        return {"token": token, **await self._status(row.id, row if table is None else None)}

    async def _seek(self, seek_id: str, token: Any) -> SeekRow:
        if not validate.TABLE_ID.match(seek_id):
            raise NotFound("no such seek", code="no_seek")
        found: SeekRow | None = await self.reg.db(self.seeks.get, seek_id)
        if found is None:
            raise NotFound("no such seek (expired seeks are forgotten after an hour)", code="no_seek")
        if not isinstance(token, str) or not hmac.compare_digest(d.hash_token(token), found.token_hash):
            raise BadToken("token: not this seek's token")
        return found

    async def _status(self, seek_id: str, seek: SeekRow | None = None) -> dict[str, Any]:
        s = seek or await self.reg.db(self.seeks.get, seek_id)
        if s is None:
            raise NotFound("no such seek", code="no_seek")
        keys: dict[str, str] = {}
        if s.account is not None and s.status == "matched":
            acct = await self.reg.db(self.people.store.account, s.account)
            if acct is not None:
                keys[acct.key] = acct.seat_key
        return sk.status(s, keys)

    async def poll(self, seek_id: str, token: Any) -> dict[str, Any]:
        s = await self._seek(seek_id, token)
        if s.status == "waiting":
            s, table = await self.reg.db(self.seeks.poll, s, self.reg.now(), self.decide)
            if table is not None or s.status != "waiting":
                self._changed(table)
        return await self._status(seek_id, s)

    async def cancel(self, seek_id: str, token: Any) -> dict[str, Any]:
        s = await self._seek(seek_id, token)
        after = await self.reg.db(self.seeks.cancel, s.id, self.reg.now())
        if after is None:
            raise NotFound("no such seek", code="no_seek")
        if after.status == "matched":
            raise Conflict(f"this seek was seated already: table {after.table_id}", code="already_matched")
        if s.status == "waiting":
            self._changed(None)
        return await self._status(seek_id, after)

    async def listing(self, viewer: str | None = None) -> list[dict[str, Any]]:
        """The open seeks, oldest first; for a logged-in ``viewer``, without those of the accounts
        it blocks or that block it (a block hides someone everywhere)."""
        now = self.reg.now()
        rows = await self.reg.db(self.seeks.open, now, 100)
        return _seen_by([(s.account, sk.public(s, now)) for s in rows], await self._related(viewer))

    async def _related(self, viewer: str | None) -> frozenset[str]:
        return frozenset() if viewer is None else await self.reg.db(self.moderation.related, viewer)

    async def _sweep_loop(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_EVERY)
            try:
                now = self.reg.now()
                expired, made = await self.reg.db(self.seeks.sweep, now, self.decide, sk.KEEP_SECONDS)
                self._open_count = await self.reg.db(sk.open_seek_count, self.seeks, now)
                if expired and not made:
                    self._changed(None)
                for table in made:
                    self._changed(table)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - a database hiccup: the next round tries again
                log.warning("gamester: seek sweep failed: %s", type(e).__name__)

    # -- your tables -----------------------------------------------------------------------------
    async def your_tables(self, key: str, *, watched: bool = False) -> list[dict[str, Any]]:
        """The account's tables: your turn first, then the others not over, then the finished, each
        newest first. ``watched``: for a lobby socket (a move at one of them sends its list again)."""
        rows = await self.reg.db(self.seeks.account_tables, key, live=200, over=20)
        out = []
        for r in rows:
            to_move = await self._to_move(r) if r["status"] == "playing" else None
            out.append(
                {
                    "id": r["id"],
                    "game": r["game"],
                    "status": r["status"],
                    "seat": r["seat"],
                    "your_turn": to_move is not None and to_move == r["seat"],
                    "rated": r["rated"],
                    "private": r["private"],
                    "updated": r["updated"],
                    "names": r["names"],
                }
            )
            if watched:
                self._mine_of.setdefault(r["id"], set()).add(key)
        out.sort(key=lambda t: (not t["your_turn"], t["status"] == "over", -t["updated"]))
        return out

    async def _to_move(self, r: dict[str, Any]) -> int | None:
        """Whose turn it is at a playing table (the game's own answer, replayed from the stored moves
        once per move and kept)."""
        tid, seq = r["id"], r["seq"]
        kept = self._turns.get(tid)
        if kept is not None and kept[0] == seq:
            return kept[1]
        acts = await self.reg.db(self.reg.repo.actions, tid)
        try:
            who = await asyncio.to_thread(_replayed_to_move, r["game"], r["options"], r["seed"], acts[:seq])
        except Exception:  # noqa: BLE001 - a table that cannot be replayed here shows no turn
            who = None
        self._turns[tid] = (seq, who)
        self._turns.move_to_end(tid)
        while len(self._turns) > TURNS_KEPT:
            self._turns.popitem(last=False)
        return who

    # -- the lobby socket ------------------------------------------------------------------------
    async def _tables_message(self, account: str | None) -> dict[str, Any]:
        reg = self.reg
        waiting = await reg.db(reg.repo.list_tables, "waiting", LISTED)
        playing = await reg.db(reg.repo.list_tables, "playing", LISTED)
        out: dict[str, Any] = {
            "type": "tables",
            "waiting": [_listed(t, reg.connected(t.id)) for t in waiting],
            "playing": [_listed(t, reg.connected(t.id)) for t in playing],
            "mine": None,
        }
        self._listed = {t.id for t in [*waiting, *playing]}
        if account is not None:
            out["mine"] = await self.your_tables(account, watched=True)
        return out

    async def _seeks_message(self, viewer: str | None = None) -> dict[str, Any]:
        return {"type": "seeks", "seeks": await self.listing(viewer)}

    async def attach(self, conn: Connection, account: str | None) -> _Watcher:
        w = _Watcher(conn, account)
        self.watchers.add(w)
        self._send(w, await self._seeks_message(account), "seeks")
        self._send(w, await self._tables_message(account), "tables")
        return w

    def detach(self, w: _Watcher) -> None:
        self.watchers.discard(w)

    def _send(self, w: _Watcher, message: dict[str, Any], kind: str) -> None:
        text = d.dumps(message)
        if getattr(w, kind) != text:
            setattr(w, kind, text)
            w.conn.send_text(text)

    async def _push_loop(self) -> None:
        while True:
            try:
                await asyncio.wait_for(self._wake.wait(), REFRESH_EVERY)
            except TimeoutError:  # now and then, whatever was heard: what no notice brought
                self._seeks_dirty = self._tables_dirty = True
            self._wake.clear()
            try:
                await self._push()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - the next change tries again
                log.warning("gamester: lobby push failed: %s", type(e).__name__)
            await asyncio.sleep(PUSH_EVERY)  # changes meanwhile go out together

    async def _push(self) -> None:
        watchers = list(self.watchers)
        seeks_dirty, tables_dirty, accounts = self._seeks_dirty, self._tables_dirty, self._accounts_dirty
        self._seeks_dirty = self._tables_dirty = False
        self._accounts_dirty = set()
        if not watchers:
            return
        if seeks_dirty:
            now = self.reg.now()
            rows = [(s.account, sk.public(s, now)) for s in await self.reg.db(self.seeks.open, now, 100)]
            hidden = {key: await self._related(key) for key in {w.account for w in watchers}}
            for w in watchers:
                self._send(w, {"type": "seeks", "seeks": _seen_by(rows, hidden[w.account])}, "seeks")
        if not tables_dirty and not accounts:
            return
        keys = {w.account for w in watchers if w.account is not None}
        if tables_dirty or self._base is None:
            self._base = await self._tables_message(None)
            self._mine_of = {}
        else:
            keys &= accounts
        base = self._base
        mine = {key: await self.your_tables(key, watched=True) for key in keys}
        for w in watchers:
            if tables_dirty or w.account in keys:
                message = base if w.account is None else {**base, "mine": mine[w.account]}
                self._send(w, message, "tables")

    # -- blocks and reports ----------------------------------------------------------------------
    async def block(self, me: AccountRow, name: Any) -> tuple[int, dict[str, Any]]:
        key, shown = await self.reg.db(b.other_account, self.moderation, name, me.key, "block")
        done = await self.reg.db(self.moderation.block, me.key, key, self.reg.now(), b.MAX_BLOCKS, write=True)
        if done == "too_many":
            raise BadInput(f"you block {b.MAX_BLOCKS} accounts already", code="too_many_blocks")
        self.reg.publish(account_channel(me.key), "blocks")
        return (201 if done == "ok" else 200), {"name": shown, "blocked": True}

    async def unblock(self, me: AccountRow, name: str) -> dict[str, Any]:
        if not NAME.match(name) or not await self.reg.db(
            self.moderation.unblock, me.key, name.casefold(), write=True
        ):
            raise NotFound(f"you do not block {name[:40]!r}", code="not_blocked")
        self.reg.publish(account_channel(me.key), "blocks")
        return {"ok": True, "name": name[:40], "blocked": False}

    async def report(self, me: AccountRow, data: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(data) - {"name", "table", "reason"})
        if unknown:
            raise BadInput(f"unknown field {unknown[0][:40]!r}; valid fields: name, table, reason")
        key, _ = await self.reg.db(b.other_account, self.moderation, data.get("name"), me.key, "report")
        table = data.get("table")
        if table is not None and (
            not isinstance(table, str)
            or not validate.TABLE_ID.match(table)
            or not await self.reg.db(self.moderation.table_exists, table)
        ):
            raise NoTable(f"no table {str(table)[:40]!r}")
        reason = b.reason_text(data.get("reason"))
        wait = await self.reg.db(self.reports.take, me.key, self.reg.now())
        if wait > 0:
            raise RateLimited(f"at most {b.REPORTS_A_DAY} reports a day; try again in {wait / 3600:.1f} h")
        rid = await self.reg.db(
            self.moderation.report, me.key, key, table, reason, self.reg.now(), write=True
        )
        return {"report": rid}


def _seen_by(rows: list[tuple[str | None, dict[str, Any]]], hidden: frozenset[str]) -> list[dict[str, Any]]:
    """The seeks (each with its seeker's account) but those of the ``hidden`` accounts."""
    return [public for account, public in rows if account is None or account not in hidden]


def _listed(row: TableRow, connected: dict[int, int]) -> dict[str, Any]:
    """A table as the lobby's lists show it: the public table without its ``seq``, which every move
    changes and no list shows (the lists are sent again only when what they show changes)."""
    out = d.public(row, connected)
    del out["seq"]
    return out


def _replayed_to_move(game: str, options: dict[str, Any], seed: int, acts: list[str]) -> int | None:
    state = load_game(game, **options).new_initial_state(seed=seed)
    for text in acts:
        state.apply_action(state.string_to_action(text))
    p = state.current_player()
    return None if state.is_terminal() or p < 0 else p


# -- the routes ---------------------------------------------------------------------------------------
def lobby_of(conn: HTTPConnection) -> Lobby:
    """The lobby of the app serving ``conn`` (``app.state.lobby``, set when it starts)."""
    found: Lobby = conn.app.state.lobby
    return found


def lobby_router() -> APIRouter:
    """The routes; what they use is on each request's app once it has started (:func:`lobby_of`)."""
    api = APIRouter()

    async def account(conn: Request | WebSocket) -> AccountRow | None:
        p = parts_of(conn).people
        if not p.session_text(conn):
            return None
        found: AccountRow | None = await asyncio.to_thread(p.account_of, conn)
        return found

    async def logged_in(request: Request) -> AccountRow:
        row = await account(request)
        if row is None:
            raise NotLoggedIn("not logged in")
        return row

    @api.post("/api/seeks", status_code=201)
    async def seek(request: Request) -> Any:
        data = validate.body(await request.body())
        who = await account(request)
        # A seek may make a table: it spends the address's tables-a-minute share like every other
        # way a table is made (web/fair.py, TableQuota; the table starts at once, so no waiting cap).
        address = client_of(request)
        await parts_of(request).quota.spend(address)
        return await lobby_of(request).create(data, who, address)

    @api.get("/api/seeks")
    async def seeks(request: Request) -> Any:
        try:
            who = await account(request)
        except Refused:
            who = None
        return {"seeks": await lobby_of(request).listing(None if who is None else who.key)}

    @api.get("/api/seeks/{seek_id}")
    async def poll(seek_id: str, request: Request) -> Any:
        return await lobby_of(request).poll(seek_id, request.query_params.get("token"))

    @api.delete("/api/seeks/{seek_id}")
    async def cancel(seek_id: str, request: Request) -> Any:
        return await lobby_of(request).cancel(seek_id, request.query_params.get("token"))

    @api.get("/api/me/tables")
    async def my_tables(request: Request) -> Any:
        me = await logged_in(request)
        return {"tables": await lobby_of(request).your_tables(me.key)}

    @api.get("/api/me/blocks")
    async def my_blocks(request: Request) -> Any:
        me = await logged_in(request)
        lob = lobby_of(request)
        return {"blocks": await lob.reg.db(lob.moderation.blocks_of, me.key)}

    @api.post("/api/me/blocks")
    async def add_block(request: Request) -> Any:
        from fastapi.responses import JSONResponse

        me = await logged_in(request)
        data = validate.body(await request.body())
        if set(data) != {"name"}:
            raise BadInput('expected {"name": …}')
        status, out = await lobby_of(request).block(me, data["name"])
        return JSONResponse(out, status_code=status)

    @api.delete("/api/me/blocks/{name}")
    async def remove_block(name: str, request: Request) -> Any:
        me = await logged_in(request)
        return await lobby_of(request).unblock(me, name)

    @api.post("/api/reports", status_code=201)
    async def report(request: Request) -> Any:
        me = await logged_in(request)
        return await lobby_of(request).report(me, validate.body(await request.body()))

    @api.websocket("/ws/lobby")
    async def ws_lobby(ws: WebSocket) -> None:
        await ws.accept()
        try:
            who = await account(ws)
        except Refused:
            who = None  # a session that is not valid any more: a guest's lobby
        conn = Connection(ws, "~lobby")
        lob = lobby_of(ws)
        w = None
        try:
            w = await lob.attach(conn, None if who is None else who.key)
            await _lobby_loop(ws, conn)
        except Exception:  # noqa: BLE001 - the database down, say: this socket ends, the page retries
            conn.close(1011)
        finally:
            if w is not None:
                lob.detach(w)
            await conn.finish()

    return api


async def _lobby_loop(ws: WebSocket, conn: Connection) -> None:
    """Read the lobby socket until it goes: ``ping`` is answered; anything else is an error frame; a
    flood, a binary frame or a message over ``MAX_MESSAGE`` closes it."""
    tokens, last = RATE_BURST, time.monotonic()
    while True:
        msg = await ws.receive()
        if msg["type"] == "websocket.disconnect" or conn.closed:
            return
        now = time.monotonic()
        tokens = min(RATE_BURST, tokens + (now - last) * RATE_PER_SECOND) - 1
        last = now
        text = msg.get("text")
        if (
            tokens < -RATE_BURST
            or msg.get("bytes") is not None
            or (text is not None and len(text) > MAX_MESSAGE)
        ):
            conn.close(1008 if tokens < -RATE_BURST else 1003 if msg.get("bytes") is not None else 1009)
            return
        if text is None:
            continue
        if tokens < 0:
            conn.send(messages.error("rate_limited", "too many messages; slow down"))
            continue
        try:
            validate.message(text, ("ping",))
            conn.send(messages.pong())
        except Refused as e:
            conn.send(messages.error(e.code, e.message))
