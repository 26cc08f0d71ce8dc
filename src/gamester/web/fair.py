"""Fair shares of what every client uses: no client address can spend another's.

- :class:`FairGate`: turns at a pool of slots by key (the bot workers; the password hashes, with a
  bound on what may wait: ``Overloaded`` (``busy``, 429 with ``Retry-After``) past it).
- :class:`TableQuota`: the one place that charges "a table made by this client", whatever made it
  (a new table, a lesson, a rematch, quick play): the tables-a-minute bucket and the cap on tables
  waiting for players.

Every job for the worker pool (a bot's move, a timed-out seat's move, a hint) waits here for a slot.
There are as many slots as workers. A waiting job is served by its *key* (the address that created
the table, or that asked for the hint) in turns: one job of each key that has some waiting, then the
next, so an address with fifty bot tables gets one turn for every turn of an address with one. Jobs for
a table with a person at it come before those of tables only bots play, and one key holds at most
``per_key`` slots at once. With ``per_key`` at or above the slot count and a single key, it is the
plain first-come order of before.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Protocol, TypeVar

from gamester.web.errors import Overloaded, RateLimited

T = TypeVar("T")
Line = OrderedDict[str, deque[asyncio.Future[None]]]
"""The jobs waiting at one level, by key, in the order the keys take turns."""


def address_key(address: str) -> str:
    """The key an address's jobs take turns under: a digest of it rather than the address itself,
    since a table keeps the key of the address that made it in the database (``turns_key``). It is
    a key, not a secret: anyone can hash every IPv4 address."""
    return "address:" + hashlib.sha256(address.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class FairGate:
    """Turns at ``slots`` by key. ``max_waiting`` (the whole line) and ``max_per_key`` (one key's
    jobs, waiting or running) bound the line: a job past either is refused at once (``busy``)
    instead of waiting. ``slot_seconds``: about how long a job holds a slot, for ``Retry-After``."""

    def __init__(
        self,
        slots: int,
        per_key: int,
        *,
        max_waiting: int | None = None,
        max_per_key: int | None = None,
        slot_seconds: float = 1.0,
    ) -> None:
        self.slots = max(1, slots)
        self.per_key = max(1, per_key)
        self.max_waiting = max_waiting
        self.max_per_key = max_per_key
        self.slot_seconds = slot_seconds
        self.running: dict[str, int] = {}
        self.busy = 0
        self._served: dict[str, int] = {}  # key -> when it was last given a slot (a count of turns)
        self._turn = 0
        # Two levels (0: a person waits for it, 1: only bots play); a key served goes to the back.
        self._waiting: tuple[Line, Line] = (OrderedDict(), OrderedDict())

    def waiting(self) -> int:
        return sum(len(q) for level in self._waiting for q in level.values())

    def held(self, key: str) -> int:
        """``key``'s jobs, waiting or running."""
        queued = sum(len(level.get(key, ())) for level in self._waiting)
        return queued + self.running.get(key, 0)

    def check(self, key: str) -> None:
        """``Overloaded`` (``busy``) if the line, or ``key``'s share of it, is full."""
        queued = self.waiting()
        wait = self.slot_seconds * (queued / self.slots + 1)
        if self.max_waiting is not None and queued >= self.max_waiting:
            raise Overloaded(
                f"the server is busy ({queued} waiting); try again in a moment", retry_after=wait
            )
        if self.max_per_key is not None and self.held(key) >= self.max_per_key:
            raise Overloaded(
                f"this address already has {self.held(key)} waiting here; try again in a moment",
                retry_after=wait,
            )

    async def run(self, key: str, fn: Callable[[], Awaitable[T]], *, urgent: bool = True) -> T:
        """``await fn()`` once this key's turn comes and a slot is free (refused at once,
        ``Overloaded``, when the line is bounded and full: :meth:`check`)."""
        self.check(key)
        await self._enter(key, 0 if urgent else 1)
        try:
            return await fn()
        finally:
            self._leave(key)

    async def _enter(self, key: str, level: int) -> None:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        line = self._waiting[level]
        if key not in line:
            self._join(line, key)
        line[key].append(fut)
        self._wake()  # a free slot goes to whoever's turn it is (this job, if nobody else waits)
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():  # given a slot just as it was cancelled: hand it on
                self._leave(key)
            else:
                self._drop(level, key, fut)
            raise

    def _join(self, line: Line, key: str) -> None:
        """A key with nothing waiting joins the line ahead of every key served since it last was:
        a newcomer's first job is next, whoever queued more (and a key whose line empties as it is
        served does not come back to the front: it was served last)."""
        mine = self._served.get(key, -1)
        later = [k for k in line if self._served.get(k, -1) > mine]
        line[key] = deque()
        for k in later:
            line.move_to_end(k)

    def _take(self, key: str) -> None:
        self._turn += 1
        self._served[key] = self._turn
        if len(self._served) > 4096:  # forget the keys served longest ago (they count as new)
            for k in sorted(self._served, key=self._served.__getitem__)[:2048]:
                del self._served[k]
        self.busy += 1
        self.running[key] = self.running.get(key, 0) + 1

    def _leave(self, key: str) -> None:
        self.busy -= 1
        left = self.running[key] - 1
        if left:
            self.running[key] = left
        else:
            del self.running[key]
        self._wake()

    def _drop(self, level: int, key: str, fut: asyncio.Future[None]) -> None:
        q = self._waiting[level].get(key)
        if q is not None and fut in q:
            q.remove(fut)
            if not q:
                del self._waiting[level][key]

    def _wake(self) -> None:
        """Give free slots to the next keys in turn (the people's level first)."""
        while self.busy < self.slots:
            found = self._next()
            if found is None:
                return
            key, fut = found
            self._take(key)
            fut.set_result(None)

    def _next(self) -> tuple[str, asyncio.Future[None]] | None:
        for level in self._waiting:
            for key in list(level):
                if self.running.get(key, 0) >= self.per_key:
                    continue
                q = level[key]
                fut = q.popleft()
                del level[key]
                if q:
                    level[key] = q  # the back of the line
                if fut.cancelled():
                    return self._next()
                return key, fut
        return None


class Bucket(Protocol):
    """A token bucket by key (web/accounts.py's ``Throttle``, kept in the database)."""

    burst: float
    every: float

    def take(self, key: str, now: float) -> float: ...


class WaitingCount(Protocol):
    def __call__(self, turns_key: str) -> Awaitable[int]: ...


class TableQuota:
    """The one place that charges "a table made by this client" (docs/web.md, On the internet):
    every way a table is made — ``POST /api/tables``, a lesson, a rematch, quick play — goes through
    :meth:`making`. It takes a table from the client's tables-a-minute bucket (in the database, so
    every server on it counts the same tables), and, for a table that will wait for players, checks
    the client's tables already waiting (``waiting_per_address``) under a lock of that client's, so
    that requests sent at once cannot all pass the check before any of them is stored."""

    def __init__(
        self,
        bucket: Bucket,
        waiting_count: WaitingCount,
        *,
        per_minute: int,
        waiting_cap: int,
        enabled: bool = True,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.bucket = bucket
        self.waiting_count = waiting_count
        self.per_minute = per_minute
        self.waiting_cap = waiting_cap
        self.enabled = enabled
        self.now = clock
        self._locks: dict[str, asyncio.Lock] = {}

    async def spend(self, address: str) -> None:
        """Take one table from ``address``'s tables-a-minute bucket (``RateLimited`` if it is empty)."""
        if not self.enabled:
            return
        wait: float = await asyncio.to_thread(self.bucket.take, address, self.now())
        if wait > 0:
            raise RateLimited(
                f"too many tables created from this address: at most {self.per_minute} a minute; "
                f"try again in {max(1, round(wait))} s",
                retry_after=wait,
            )

    @contextlib.asynccontextmanager
    async def making(self, address: str, *, waiting: bool, spent: bool = False) -> AsyncIterator[None]:
        """Around storing a table made by ``address``: charged (unless ``spent`` already), and, when
        the table will wait for players, refused past the cap of tables waiting (``RateLimited``). Store
        the table inside the block: the next table of the same client is checked after it."""
        if not spent:
            await self.spend(address)
        if not (self.enabled and waiting):
            yield
            return
        key = address_key(address)
        if len(self._locks) > 4096:  # forget the locks nobody holds (one per client seen lately)
            self._locks = {k: v for k, v in self._locks.items() if v.locked()}
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            held = await self.waiting_count(key)
            if held >= self.waiting_cap:
                raise RateLimited(
                    f"this address already has {held} tables waiting for players (at most "
                    f"{self.waiting_cap}): start, join or leave one of them first",
                    retry_after=60.0,
                )
            yield


def chat_keys(
    table_id: str, *, address: str, account: str | None, seat: int | None, socket: str, per_address: bool
) -> list[str]:
    """Whose allowance a chat line at ``table_id`` spends (docs/web.md, Fair play): the address's at
    that table (unless the per-address limits are off), the account's at that table when logged in,
    the seat's when seated; a socket's own only when none of those applies. Reconnecting, or opening
    more sockets, leaves each of them where it was. Each key is a bucket of the ``chat`` kind (in
    the database: every server counts the same lines)."""
    keys = [f"{table_id}|a:{address_key(address)[8:24]}"] if per_address else []
    if account is not None:
        keys.append(f"{table_id}|u:{account}")
    if seat is not None:
        keys.append(f"{table_id}|s:{seat}")
    return keys or [f"{table_id}|c:{socket}"]
