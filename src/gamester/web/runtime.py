"""The server's moving parts on the event loop: connected sockets, bots, clocks, leases.

- :class:`Connection`: one WebSocket and the viewer it speaks for; ``push`` sends every view it has not
  had yet, in ``seq`` order, and never two at once.
- :class:`Runtime`: hears the notifier (this server's commits and, through PostgreSQL, the others'),
  wakes the connections of the table, and runs the table's bots and clock — but only while it holds
  the table's lease. Bot moves and hints run in worker processes; the event loop only waits for them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
import uuid
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket

from gamester.store.repository import SqlTableRepository
from gamester.web import bots
from gamester.web.notifier import Notifier
from gamester.web.service import KEEP_FRAMES, SPECTATOR, ServiceError, TableService

log = logging.getLogger("gamester.web")


def new_server_id() -> str:
    """``host:pid:random``: unique per process; host and pid let a server on the same machine see
    that a lease's owner has died and take over at once instead of waiting for the expiry."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _owner_dead(owner: str | None) -> bool:
    if not owner:
        return False
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


CLOSE_SECONDS = 2.0
"""How long closing a socket may wait for its client (a client that never answers its close, or
stopped reading, must not hold anything up)."""


async def close_socket(ws: WebSocket, code: int) -> None:
    """Close ``ws`` with ``code``, waiting for the client at most ``CLOSE_SECONDS``."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(ws.close(code=code), CLOSE_SECONDS)


class Connection:
    def __init__(self, ws: WebSocket, table_id: str, viewer: int) -> None:
        self.ws = ws
        self.table_id = table_id
        self.viewer = viewer
        self.last_seq = -1
        self.lock = asyncio.Lock()
        self.closed = False
        self.hinting = False
        self.last_status = ""
        self.token_hash: str | None = None

    async def send_text(self, text: str) -> None:
        if self.closed:
            return
        try:
            await self.ws.send_text(text)
        except Exception:  # noqa: BLE001 - the socket went away; the receive loop will notice
            self.closed = True

    async def send(self, message: dict[str, Any]) -> None:
        if self.closed:
            return
        try:
            await self.ws.send_json(message)
        except Exception:  # noqa: BLE001 - the socket went away; the receive loop will notice
            self.closed = True

    async def start(self, service: TableService) -> None:
        """On connect: the current view only (earlier ones are history, not news)."""
        async with self.lock:
            cur = service.current_seq(self.table_id)
            got = service.message_text(self.table_id, self.viewer, cur)
            if got is not None:
                await self.send_text(got[0])
                self.last_status = got[1]
            self.last_seq = cur

    async def push(self, service: TableService, *, again: bool = False) -> None:
        """Send the views from the last one sent up to the table's current seq (``again``: resend
        the current one even if already sent, e.g. the status changed)."""
        async with self.lock:
            cur = service.current_seq(self.table_id)
            first = max(self.last_seq + 1, cur - KEEP_FRAMES + 1, 0)
            if cur <= self.last_seq:
                # the same position again only if its status changed (waiting -> playing, a forfeit)
                first = cur if again and service.status(self.table_id) != self.last_status else cur + 1
            for s in range(first, cur + 1):
                got = service.message_text(self.table_id, self.viewer, s)
                if got is not None:
                    await self.send_text(got[0])
                    self.last_status = got[1]
            self.last_seq = max(self.last_seq, cur)


class Runtime:
    def __init__(
        self,
        service: TableService,
        repo: SqlTableRepository,
        notifier: Notifier,
        *,
        server_id: str,
        workers: int = 1,
        lease_seconds: float = 10.0,
        bot_seconds: float = 10.0,
        hint_seconds: float = 5.0,
    ) -> None:
        self.service = service
        self.repo = repo
        self.notifier = notifier
        self.server_id = server_id
        self.workers = workers
        self.lease_seconds = lease_seconds
        self.bot_seconds = bot_seconds
        self.hint_seconds = hint_seconds
        self.conns: dict[str, set[Connection]] = {}
        self.inline_writes = False
        self.pool: Executor | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._running: set[str] = set()
        self._again: set[str] = set()
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._held: dict[str, float] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._lease_task: asyncio.Task[None] | None = None

    # -- life cycle ----------------------------------------------------------------------------
    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.pool = bots.make_pool(self.workers)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.loop.run_in_executor(self.pool, bots.warm_up), 60)
        self.notifier.subscribe(self._on_notice)
        self.notifier.on_reconnect(self._on_listener_back)
        self.notifier.start()
        self._lease_task = asyncio.create_task(self._lease_loop())

    async def stop(self) -> None:
        if self._lease_task is not None:
            self._lease_task.cancel()
            with contextlib.suppress(BaseException):
                await self._lease_task
        for h in self._timers.values():
            h.cancel()
        for t in list(self._tasks):
            t.cancel()
        self.notifier.stop()
        if self.pool is not None:
            # A worker deep in a search would hold the exit up until its move is done: stop it now
            # (the move was not stored, so the next server to hold the lease plays it again).
            procs = list(getattr(self.pool, "_processes", {}).values())
            self.pool.shutdown(wait=False, cancel_futures=True)
            for p in procs:
                with contextlib.suppress(Exception):
                    p.terminate()
        # Hand the tables over at once rather than after the lease would expire.
        with contextlib.suppress(Exception):
            await run_in_threadpool(self.repo.release_leases, self.server_id)

    def spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- notices -------------------------------------------------------------------------------
    def _on_notice(self, table_id: str, kind: str, remote: bool) -> None:
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self.spawn(self._after_change(table_id, kind, remote))
        else:
            loop.call_soon_threadsafe(lambda: self.spawn(self._after_change(table_id, kind, remote)))

    def _on_listener_back(self) -> None:
        """From the listener's thread: notices from other servers may have been missed."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(lambda: self.spawn(self._catch_up()))

    async def _catch_up(self) -> None:
        """Every table this server serves (sockets here, or its bots and clock) is read again from
        the database and handled as if another server had announced a change: views its sockets
        missed are pushed, sockets of tokens that left are closed, clocks and bots look again."""
        served = set(self.conns) | set(self._held)
        sem = asyncio.Semaphore(8)

        async def one(table_id: str) -> None:
            async with sem:
                with contextlib.suppress(Exception):
                    await self._after_change(table_id, "table", True)

        await asyncio.gather(*(one(t) for t in served))

    async def _after_change(self, table_id: str, kind: str, remote: bool) -> None:
        if remote:
            try:
                await run_in_threadpool(self.service.refresh, table_id)
            except ServiceError:
                return
        conns = list(self.conns.get(table_id, ()))
        if kind == "table" and conns:
            # A seat left through another server: its sockets here stop too.
            for c in conns:
                if c.token_hash is not None and not self.service.holds(table_id, c.viewer, c.token_hash):
                    self.close_conn(c, 1008)
            conns = [c for c in conns if not c.closed]
        if kind in ("table", "local") and conns:
            try:
                info = self.service.public_table_cached(table_id)
            except ServiceError:
                info = None
            if info is not None:
                for c in conns:
                    await c.send({"type": "table", "table": info})
        for c in conns:
            await c.push(self.service, again=kind == "table")
        if kind != "local":
            self.kick(table_id)

    # -- connections ---------------------------------------------------------------------------
    def add(self, conn: Connection) -> None:
        self.conns.setdefault(conn.table_id, set()).add(conn)

    def remove(self, conn: Connection) -> None:
        s = self.conns.get(conn.table_id)
        if s is not None:
            s.discard(conn)
            if not s:
                del self.conns[conn.table_id]

    def close_conn(self, conn: Connection, code: int) -> None:
        """Stop sending to ``conn`` now and close it in the background (bounded): nobody waits for
        a client that does not answer."""
        conn.closed = True
        self.spawn(close_socket(conn.ws, code))

    async def close_seat(self, table_id: str, seat: int, code: int = 1008) -> None:
        """Close the sockets of ``seat`` whose token no longer holds it (after a leave)."""
        for c in list(self.conns.get(table_id, ())):
            if c.viewer == seat and (
                c.token_hash is None or not self.service.holds(table_id, seat, c.token_hash)
            ):
                self.close_conn(c, code)

    # -- bots and clocks -----------------------------------------------------------------------
    def kick(self, table_id: str) -> None:
        """Look at the table soon: a bot to move, a clock to set or run out."""
        if table_id in self._running:
            self._again.add(table_id)
            return
        self._running.add(table_id)
        self.spawn(self._run(table_id))

    def _lease(self, table_id: str) -> bool:
        now = time.time()
        if self._held.get(table_id, 0.0) > now + self.lease_seconds / 2:
            return True
        fresh = table_id not in self._held
        ok = self.repo.take_lease(table_id, self.server_id, now + self.lease_seconds, now)
        if ok:
            self._held[table_id] = now + self.lease_seconds
            if fresh:
                self.service.after_lease(table_id)
        else:
            self._held.pop(table_id, None)
        return ok

    async def _run(self, table_id: str) -> None:
        try:
            while True:
                self._again.discard(table_id)
                await self._step(table_id)
                if table_id not in self._again:
                    return
        except ServiceError:
            return
        except Exception as e:  # noqa: BLE001 - a failing table must not take the server down
            # The type only: an engine's message may describe the position, which a log must not.
            log.warning("gamester: table %s: %s; retried at the next lease round", table_id, type(e).__name__)
        finally:
            self._running.discard(table_id)

    async def _step(self, table_id: str) -> None:
        if not self.service.cached(table_id):
            await run_in_threadpool(self.service.load, table_id)
        while True:
            if not self.service.needs_runner(table_id):
                self._held.pop(table_id, None)
                return
            if not await run_in_threadpool(self._lease, table_id):
                return
            status, seq, deadline, bot_turn = self.service.runner_state(table_id)
            if status != "playing":
                return
            if bot_turn:
                job = self.service.job(table_id, "bot")
                if job is None:
                    return
                text = await self._in_worker(
                    bots.choose, job.record, job.player, job.spec, self.bot_seconds, job.seed
                )
                with contextlib.suppress(ServiceError):  # someone else moved first: look again
                    await run_in_threadpool(
                        self.service.act, table_id, job.player, text, job.seq, source="bot"
                    )
                continue
            if deadline is None:
                return
            wait = deadline - time.time()
            if wait > 0:
                self._set_timer(table_id, wait)
                return
            clock = self.service.clock_of(table_id)
            if clock is not None and clock.get("on_timeout") == "forfeit":
                await run_in_threadpool(self.service.forfeit, table_id, seq)
                return
            job = self.service.job(table_id, "timeout", seq=seq)
            if job is None:
                return
            text = await self._in_worker(
                bots.choose, job.record, job.player, job.spec, self.bot_seconds, job.seed
            )
            try:
                await run_in_threadpool(
                    self.service.act, table_id, job.player, text, job.seq, source="timeout"
                )
            except ServiceError:
                return

    def _set_timer(self, table_id: str, wait: float) -> None:
        old = self._timers.pop(table_id, None)
        if old is not None:
            old.cancel()
        assert self.loop is not None
        self._timers[table_id] = self.loop.call_later(wait + 0.02, self.kick, table_id)

    async def _in_worker(self, fn: Any, *args: Any) -> Any:
        assert self.loop is not None
        for attempt in range(2):
            if self.pool is None:
                self.pool = bots.make_pool(self.workers)
            try:
                return await self.loop.run_in_executor(self.pool, fn, *args)
            except BrokenProcessPool:
                log.warning("gamester: a bot worker died; starting a new pool")
                with contextlib.suppress(Exception):
                    self.pool.shutdown(wait=False, cancel_futures=True)
                self.pool = None
                if attempt:
                    raise
        raise RuntimeError("unreachable")

    async def hint(self, table_id: str, seat: int, seq: int) -> dict[str, Any]:
        job = self.service.job(table_id, "hint", player=seat, seq=seq)
        if job is None:
            raise ServiceError("stale", "the position changed; ask again")
        try:
            out: dict[str, Any] = await self._in_worker(
                bots.evaluate, job.record, job.player, job.spec, self.hint_seconds, job.seed
            )
        except Exception:  # noqa: BLE001 - over budget or no evaluation
            raise ServiceError("hint_unavailable", "no hint could be computed in time") from None
        return {
            "type": "hint",
            "seq": seq,
            "action": out["action"],
            "win_probability": out["win_probability"],
        }

    # -- leases --------------------------------------------------------------------------------
    async def _lease_loop(self) -> None:
        while True:
            try:
                await self._lease_round()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - a database hiccup: try again next round
                log.warning("gamester: lease round failed: %s", e)
            await asyncio.sleep(max(0.2, self.lease_seconds / 3))

    async def _lease_round(self) -> None:
        now = time.time()
        until = now + self.lease_seconds
        await run_in_threadpool(self.repo.renew_leases, self.server_id, until)
        await run_in_threadpool(self.repo.checkpoint)
        for k in list(self._held):
            self._held[k] = until
        # Tables of ours that should be moving but are not (a failed bot move, a missed notice).
        for tid in list(self._held):
            if tid in self._running:
                continue
            try:
                status, _seq, deadline, bot_turn = self.service.runner_state(tid)
            except ServiceError:
                self._held.pop(tid, None)
                continue
            if status != "playing":
                self._held.pop(tid, None)
            elif bot_turn or (deadline is not None and deadline <= now):
                self.kick(tid)
        free = await run_in_threadpool(self.repo.unleased, now, 200)
        others = await run_in_threadpool(self.repo.leases_held_by_others, self.server_id, 500)
        dead = [i for i in others if _owner_dead(i.owner)]
        for info in [*free, *dead]:
            ok = await run_in_threadpool(
                self.repo.take_lease,
                info.id,
                self.server_id,
                until,
                now,
                info.owner if info in dead else None,
            )
            if ok:
                self._held[info.id] = until
                await run_in_threadpool(self.service.after_lease, info.id)
                self.kick(info.id)


def viewer_of(seat: int | None) -> int:
    return SPECTATOR if seat is None else seat
