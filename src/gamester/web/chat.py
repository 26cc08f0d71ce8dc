"""Table chat and rematch offers over the table's WebSockets (docs/web.md, People).

A seat or a spectator sends ``{"type": "chat", "text": "…"}``; every socket of the table, on every
server, gets ``{"type": "chat", "seat": N|null, "name", "text", "at"}``. Text is 1 to 500 characters
after trimming, one line, with no control, invisible or text-turning character, and something a
reader can see (not only blank letters or combining marks); each address, account and seat at a table
may send 5 at once and then one every 2 s (else ``rate_limited``; web/fair.py's ``chat_keys``: a
reconnected socket keeps its allowance). Messages are stored with the table (``gm_chat``, its last
500); a socket that connects gets the last 100, then the table's rematch if there is one.

:class:`ChatHub` keeps this server's sockets per table apart from the live-table runtime: it hears
the notifier (``chat`` and ``rematch`` notices, this server's and, through PostgreSQL, the others') and
reads what is new from the database, so a message said on one server reaches the sockets of another.
"""

from __future__ import annotations

import asyncio
import unicodedata
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.concurrency import run_in_threadpool

from gamester.store.people import Bucket, PeopleStore
from gamester.web.decisions import ServiceError
from gamester.web.names import only_filler

MAX_CHAT = 500
HISTORY = 100
BURST = 5.0
EVERY = 2.0
_REFUSED = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")

Send = Callable[[dict[str, Any]], Awaitable[None] | None]
"""A socket's send: a coroutine function, or a plain one that queues the message (an outbox)."""


def chat_text(text: Any) -> str:
    """The text to store (trimmed), or ServiceError ``bad_chat`` saying why not."""
    if not isinstance(text, str):
        raise ServiceError("bad_chat", "chat: text: expected text")
    t = text.strip()
    if not 1 <= len(t) <= MAX_CHAT:
        raise ServiceError("bad_chat", f"chat: text: 1 to {MAX_CHAT} characters after trimming")
    for ch in t:
        if unicodedata.category(ch) in _REFUSED:
            raise ServiceError(
                "bad_chat",
                f"chat: the character U+{ord(ch):04X} is not allowed (control, invisible or text-turning)",
            )
    if only_filler(t):
        raise ServiceError(
            "bad_chat", "chat: text: nothing a reader could see (blank or combining marks only)"
        )
    return t


@dataclass(eq=False)
class Talker:
    """One socket of a table, as the chat knows it."""

    send: Send
    seat: int | None
    name: str
    keys: list[str] = field(default_factory=list)  # whose allowance its lines spend (fair.chat_keys)
    seen: OrderedDict[int, None] = field(default_factory=OrderedDict)  # chat ids sent to it

    async def give(self, m: dict[str, Any]) -> None:
        if m["id"] in self.seen:
            return
        self.seen[m["id"]] = None
        while len(self.seen) > 4 * HISTORY:
            self.seen.popitem(last=False)
        await _send(self.send, _message(m))


@dataclass
class _Table:
    talkers: set[Talker] = field(default_factory=set)
    rematch: str | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class ChatHub:
    def __init__(
        self, store: PeopleStore, publish: Callable[[str, str], None], now: Callable[[], float]
    ) -> None:
        self.store = store
        self.publish = publish
        self.now = now
        self.tables: dict[str, _Table] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self.said = 0

    async def attach(
        self, table_id: str, send: Send, seat: int | None, name: str, keys: list[str] | None = None
    ) -> Talker:
        """Register a socket and send it the table's last messages (and its rematch, if any)."""
        self.loop = asyncio.get_running_loop()
        talker = Talker(send, seat, name, keys or [f"{table_id}|c:{id(send)}"])
        t = self.tables.setdefault(table_id, _Table())
        async with t.lock:
            t.talkers.add(talker)
            history = await run_in_threadpool(self.store.last_chat, table_id, HISTORY)
            for m in history:
                await talker.give(m)
            if t.rematch is None:
                t.rematch = await run_in_threadpool(self.store.rematch_of, table_id)
            if t.rematch is not None:
                await _send(send, {"type": "rematch", "table": t.rematch})
        return talker

    def detach(self, table_id: str, talker: Talker) -> None:
        t = self.tables.get(table_id)
        if t is None:
            return
        t.talkers.discard(talker)
        if not t.talkers and not t.lock.locked():
            del self.tables[table_id]

    async def say(self, table_id: str, talker: Talker, text: Any) -> None:
        clean = chat_text(text)
        now = self.now()
        allowance = [Bucket("chat", k[:120], BURST, EVERY) for k in talker.keys]
        wait = await run_in_threadpool(
            self.store.add_chat, table_id, talker.seat, talker.name, clean, now, allowance
        )
        if wait > 0:
            raise ServiceError("rate_limited", f"chat: at most one message every {EVERY:g} s; slow down")
        self.said += 1
        if self.said % 512 == 0:  # now and then, forget the allowances that are full again
            await run_in_threadpool(self.store.forget_full_buckets, "chat", now - BURST * EVERY)
        self.publish(table_id, "chat")

    # -- notices -------------------------------------------------------------------------------
    def on_notice(self, table_id: str, kind: str, _remote: bool) -> None:
        """From the notifier (any thread): a chat message or a rematch was stored somewhere."""
        loop = self.loop
        if kind not in ("chat", "rematch") or table_id not in self.tables or loop is None or loop.is_closed():
            return
        job = self._deliver_chat if kind == "chat" else self._deliver_rematch
        loop.call_soon_threadsafe(lambda: _spawn(job(table_id)))

    async def _deliver_chat(self, table_id: str) -> None:
        t = self.tables.get(table_id)
        if t is None:
            return
        async with t.lock:
            rows = await run_in_threadpool(self.store.last_chat, table_id, 50)
            for m in rows:
                for talker in list(t.talkers):
                    await talker.give(m)

    async def _deliver_rematch(self, table_id: str) -> None:
        t = self.tables.get(table_id)
        if t is None or t.rematch is not None:
            return
        async with t.lock:
            t.rematch = await run_in_threadpool(self.store.rematch_of, table_id)
            if t.rematch is not None:
                for talker in list(t.talkers):
                    await _send(talker.send, {"type": "rematch", "table": t.rematch})


_tasks: set[asyncio.Task[None]] = set()


def _spawn(coro: Awaitable[None]) -> None:
    task: asyncio.Task[None] = asyncio.ensure_future(coro)
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


async def _send(send: Send, message: dict[str, Any]) -> None:
    sent = send(message)
    if sent is not None:
        await sent


def _message(m: dict[str, Any]) -> dict[str, Any]:
    return {"type": "chat", "seat": m["seat"], "name": m["name"], "text": m["text"], "at": m["at"]}
