"""The rooms of one server: who runs which live table, the lease loop, the bot workers.

:class:`Registry` opens a :class:`~gamester.web.room.Room` for a table on first use and forgets it
once it has been idle for ``IDLE_SECONDS`` (no socket, nothing queued, nothing thinking, no lease
held). It is the rooms' host: database calls (PostgreSQL's in threads, so the event loop never waits for
a round trip; SQLite's writes inline, see :meth:`Registry.db`), the worker pool for bot moves and
hints (web/jobs.py), and the notifier. Other servers' notices — a move, a seat, a chat line, a rematch —
go to the room of their table as commands, if this server has one.

The lease loop renews this server's leases in one write per round, takes tables nobody runs (and
those of servers on this machine that died), pokes its rooms so a missed timer or a failed bot move is
retried, and compares the seq of every table with sockets here against the database, so that a notice
lost while PostgreSQL restarted is caught up within a round.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from gamester.core.protocol import State
from gamester.store.port import ChatRepository, TableRepository, TableRow
from gamester.web import bots, jobs
from gamester.web import decisions as d
from gamester.web.commands import Command, Heard, Lease, Notice, Rematched, RoomCommand
from gamester.web.fair import FairGate
from gamester.web.notifier import Notifier
from gamester.web.pace import ThinkTimes
from gamester.web.room import Room, RoomClosed

log = logging.getLogger("gamester.web")

IDLE_SECONDS = 60.0
MAX_IDLE_ROOMS = 5000
T = TypeVar("T")


def new_server_id() -> str:
    """``host:pid:random``: unique per process; host and pid let a server on the same machine see
    that a lease's owner has died and take over at once instead of waiting for the expiry."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def owner_dead(owner: str | None) -> bool:
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


class Registry:
    def __init__(
        self,
        repo: TableRepository,
        chat: ChatRepository,
        notifier: Notifier,
        *,
        server_id: str,
        inline_writes: bool,
        workers: int = 1,
        lease_seconds: float = 10.0,
        bot_seconds: float = 10.0,
        hint_seconds: float = 5.0,
        unjoined_seconds: float = 3600.0,
        bots_per_address: int = 0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.repo = repo
        self.chat = chat
        self.notifier = notifier
        self.server_id = server_id
        self.workers = workers
        self.lease_seconds = lease_seconds
        self.bot_seconds = bot_seconds
        self.hint_seconds = hint_seconds
        self.unjoined_seconds = unjoined_seconds
        self.now = clock
        self._next_expiry = 0.0
        self.rooms: dict[str, Room] = {}
        self.pool: bots.WorkerPool | None = None
        # Turns at the workers by client address (0: no cap per address, still in turns).
        self.gate = FairGate(workers, bots_per_address or workers)
        self._db_pool = ThreadPoolExecutor(max_workers=16, thread_name_prefix="gamester-db")
        self.inline_writes = inline_writes
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lease_task: asyncio.Task[None] | None = None
        self.on_end: list[Callable[[str], Any]] = []
        self.on_created: list[Callable[[TableRow], None]] = []  # a table made here (metrics, logs)
        self.thinking: dict[str, int] = {"bot": 0, "hint": 0}  # jobs at or waiting for the workers
        self.think_times = ThinkTimes()  # a forced bot move takes as long as a real one (web/pace.py)
        self._ending: set[asyncio.Future[Any]] = set()

    # -- the rooms' host -------------------------------------------------------------------------
    async def db(self, fn: Callable[..., T], *args: Any, write: bool = False, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` of the repository. On PostgreSQL every call runs in a thread, so the
        event loop never waits for a round trip. On SQLite a write runs on the event loop itself when
        the writer is free: a local commit of well under a millisecond, where a hand-off to a thread
        and back costs more and, on a busy machine, waits for the thread to be scheduled (500 tables:
        p99 23 ms inline against 546 ms through a writer thread, benchmarks/web_load.py). When a
        thread holds the writer (an account's write, a rating), the write goes to a thread too and
        waits there: the event loop never waits for a lock a thread holds. Reads run in threads."""
        if write and self.inline_writes:
            with self.repo.writer_if_free() as free:
                if free:
                    return fn(*args, **kwargs)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._db_pool, lambda: fn(*args, **kwargs))

    def publish(self, table_id: str, kind: str) -> None:
        self.notifier.publish(table_id, kind)

    def ended(self, table_id: str) -> None:
        """A rated table ended here: run the ``on_end`` hooks (the ratings) as writes, in the
        background; each is idempotent, and a missed one is caught up later."""
        for fn in self.on_end:
            task = asyncio.ensure_future(self.db(fn, table_id, write=True))
            self._ending.add(task)
            task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Future[Any]) -> None:
        self._ending.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("gamester: rating a table failed: %s", task.exception())

    def job_seconds(self, kind: str) -> float:
        return self.hint_seconds if kind == "hint" else self.bot_seconds

    async def in_worker(
        self, fn: Callable[..., Any], *args: Any, key: str = "", urgent: bool = True, kind: str = "bot"
    ) -> Any:
        """``fn(*args)`` in a bot worker, once it is ``key``'s turn there (web/fair.py). A job that has
        not answered well past its budget (``kind``'s) is given up (TimeoutError): its turn at the
        workers goes to the next, so a worker that never answers cannot keep a slot for ever."""
        limit = jobs.lost_after(self.job_seconds(kind))

        async def job() -> Any:
            return await asyncio.wait_for(self._in_pool(fn, *args), limit)

        self.thinking[kind] = self.thinking.get(kind, 0) + 1
        try:
            return await self.gate.run(key, job, urgent=urgent)
        finally:
            self.thinking[kind] -= 1

    async def _in_pool(self, fn: Callable[..., Any], *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        for attempt in range(2):
            if self.pool is None:
                self.pool = bots.make_pool(self.workers)
            try:
                return await loop.run_in_executor(self.pool, fn, *args)
            except BrokenProcessPool:
                log.warning("gamester: a bot worker died; starting a new pool")
                with contextlib.suppress(Exception):
                    self.pool.shutdown(wait=False, cancel_futures=True)
                self.pool = None
                if attempt:
                    raise
        raise RuntimeError("unreachable")

    # -- rooms -----------------------------------------------------------------------------------
    def room(self, table_id: str) -> Room:
        r = self.rooms.get(table_id)
        if r is None or r.closed:
            r = self._open(table_id)
        return r

    def _open(self, table_id: str, row: TableRow | None = None, state: State | None = None) -> Room:
        r = Room(table_id, self, row=row, state=state)

        def forget(r: Room = r) -> None:
            if self.rooms.get(table_id) is r:
                del self.rooms[table_id]

        r.forget = forget
        self.rooms[table_id] = r
        return r

    async def call(self, table_id: str, cmd: Command[T]) -> T:
        """``cmd`` to the table's room (opened if need be; again if it was just evicted): its answer."""
        while True:
            try:
                return await self.room(table_id).call(cmd)
            except RoomClosed:
                continue

    def tell(self, table_id: str, cmd: RoomCommand) -> None:
        """``cmd`` to the table's room if this server has it open (nobody waits for it)."""
        r = self.rooms.get(table_id)
        if r is not None:
            r.post(cmd)

    def adopt(self, row: TableRow, state: State) -> Room:
        """The room of a table just created here (its row and state are known: nothing to read)."""
        room = self._open(row.id, row, state)
        for fn in self.on_created:
            fn(row)
        return room

    def seen(self, table_id: str) -> tuple[TableRow, Callable[[int], list[Any] | None]] | None:
        """The row of a table whose room is open here, and its moves' events as spectators were
        told them (None: not open here)."""
        r = self.rooms.get(table_id)
        if r is None or r.row is None:
            return None
        return r.row, r.spectator_events

    def connected(self, table_id: str) -> dict[int, int]:
        r = self.rooms.get(table_id)
        return r.connected() if r is not None else {}

    # -- notices ---------------------------------------------------------------------------------
    def _on_notice(self, table_id: str, kind: str, remote: bool) -> None:
        """From the notifier, on any thread: another server changed a table."""
        if not remote or kind == "local":
            return
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self._notice, table_id, kind)

    def _notice(self, table_id: str, kind: str) -> None:
        cmd: RoomCommand
        if kind == "chat":
            cmd = Heard()
        elif kind == "rematch":
            cmd = Rematched()
        else:
            cmd = Notice(kind)
        self.tell(table_id, cmd)

    def _on_listener_back(self) -> None:
        """From the listener's thread: notices from other servers may have been missed meanwhile."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._catch_up)

    def _catch_up(self) -> None:
        for r in list(self.rooms.values()):
            r.post(Notice("table"))
            r.post(Heard())

    # -- life cycle ------------------------------------------------------------------------------
    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.pool = bots.make_pool(self.workers)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._loop.run_in_executor(self.pool, bots.warm_up), 60)
        self.notifier.subscribe(self._on_notice)
        self.notifier.on_reconnect(self._on_listener_back)
        self.notifier.start()
        self._lease_task = asyncio.create_task(self._lease_loop())

    async def stop(self) -> None:
        if self._lease_task is not None:
            self._lease_task.cancel()
            with contextlib.suppress(BaseException):
                await self._lease_task
        for r in list(self.rooms.values()):
            r.stop()
        self.notifier.stop()
        if self.pool is not None:
            # A worker deep in a search would hold the exit up until its move is done: stop it now
            # (the move was not stored, so the next server to hold the lease plays it again).
            self.pool.stop_now()
        # Hand the tables over at once rather than after the lease would expire.
        with contextlib.suppress(Exception):
            await self.db(self.repo.release_leases, self.server_id, write=True)
        self._db_pool.shutdown(wait=False, cancel_futures=True)

    # -- the lease loop --------------------------------------------------------------------------
    async def _lease_loop(self) -> None:
        while True:
            try:
                await self._lease_round()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - a database hiccup: try again next round
                log.warning("gamester: lease round failed: %s", type(e).__name__)
            await asyncio.sleep(max(0.2, self.lease_seconds / 3))

    async def _lease_round(self) -> None:
        now = self.now()
        until = now + self.lease_seconds
        held = []
        for r in self.rooms.values():
            if r.lease_until > now and r.row is not None and r.row.status == "playing":
                held.append(r)
            else:  # over (the repository renews only playing tables): nothing to run any more
                r.lease_until = 0.0
        await self.db(self.repo.renew_leases, self.server_id, until, write=True)
        await self.db(self.repo.checkpoint)
        for r in held:
            r.lease_until = until
            r.poke()  # a missed timer, a failed bot move: looked at again
        # Tables with sockets here: anything another server stored that no notice brought.
        watched = [r for r in self.rooms.values() if r.conns and r.row is not None]
        if watched:
            seqs = await self.db(self.repo.seqs, [r.id for r in watched])
            for r in watched:
                got = seqs.get(r.id)
                if r.row is not None and got is not None and got != (r.row.seq, r.row.status):
                    r.post(Notice("act"))
        free = await self.db(self.repo.unleased, now, 200)
        others = await self.db(self.repo.leases_held_by_others, self.server_id, 500)
        dead = [i for i in others if owner_dead(i.owner)]
        for info in [*free, *dead]:
            mine = self.rooms.get(info.id)
            if mine is not None and mine.lease_until > now:
                continue
            row = await self.db(self.repo.get, info.id)
            if row is None:
                continue
            if not d.needs_runner(row):  # a table from before rows said so: never listed again
                await self.db(self.repo.mark_no_runner, info.id, write=True)
                continue
            ok = await self.db(
                self.repo.take_lease,
                info.id,
                self.server_id,
                until,
                now,
                info.owner if info in dead else None,
            )
            if ok:
                self.room(info.id).post(Lease(until))
        if now >= self._next_expiry:
            self._next_expiry = now + min(60.0, self.unjoined_seconds / 4)
            await self._expire(now)
        self._evict(time.monotonic())

    async def _expire(self, now: float) -> None:
        """Waiting tables nobody but their creator joined, and nobody watched (here), for
        ``unjoined_seconds`` are deleted (decisions.expires)."""
        for row in await self.db(self.repo.waiting_since, now - self.unjoined_seconds, 200):
            r = self.rooms.get(row.id)
            if not d.expires(row, r is not None and bool(r.conns), now, self.unjoined_seconds):
                continue
            if await self.db(self.repo.delete_abandoned, row.id, d.ALONE, write=True) and r is not None:
                r.stop()
                r.forget()
        # A lesson is one pupil's table: nobody moving at it, nor watching it here, for as long, it
        # goes too (docs/web.md, Fair play), whatever its status, rather than stay leased for ever.
        idle = now - self.unjoined_seconds
        for tid in await self.db(self.repo.idle_lessons, idle, 200):
            r = self.rooms.get(tid)
            if r is not None and r.conns:
                continue
            if await self.db(self.repo.delete_idle_lesson, tid, idle, write=True) and r is not None:
                r.stop()
                r.forget()

    def _evict(self, mono: float) -> None:
        idle = [r for r in self.rooms.values() if r.idle() and r.lease_until < self.now()]
        idle.sort(key=lambda r: r.used)
        over = max(0, len(idle) - MAX_IDLE_ROOMS)
        for i, r in enumerate(idle):
            if i < over or mono - r.used > IDLE_SECONDS:
                r.stop()
                r.forget()
