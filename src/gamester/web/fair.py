"""Fair turns at the bot workers: no client address can keep the others' bots waiting.

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
import hashlib
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")
Line = OrderedDict[str, deque[asyncio.Future[None]]]
"""The jobs waiting at one level, by key, in the order the keys take turns."""


def address_key(address: str) -> str:
    """The key an address's jobs take turns under: a digest of it rather than the address itself,
    since a table keeps the key of the address that made it in the database (``turns_key``). It is
    a key, not a secret: anyone can hash every IPv4 address."""
    return "address:" + hashlib.sha256(address.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class FairGate:
    def __init__(self, slots: int, per_key: int) -> None:
        self.slots = max(1, slots)
        self.per_key = max(1, per_key)
        self.running: dict[str, int] = {}
        self.busy = 0
        # Two levels (0: a person waits for it, 1: only bots play); a key served goes to the back.
        self._waiting: tuple[Line, Line] = (OrderedDict(), OrderedDict())

    def waiting(self) -> int:
        return sum(len(q) for level in self._waiting for q in level.values())

    async def run(self, key: str, fn: Callable[[], Awaitable[T]], *, urgent: bool = True) -> T:
        """``await fn()`` once this key's turn comes and a slot is free."""
        await self._enter(key, 0 if urgent else 1)
        try:
            return await fn()
        finally:
            self._leave(key)

    async def _enter(self, key: str, level: int) -> None:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting[level].setdefault(key, deque()).append(fut)
        self._wake()  # a free slot goes to whoever's turn it is (this job, if nobody else waits)
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():  # given a slot just as it was cancelled: hand it on
                self._leave(key)
            else:
                self._drop(level, key, fut)
            raise

    def _take(self, key: str) -> None:
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
