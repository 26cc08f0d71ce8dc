"""Table chat and rematch offers over the table's WebSockets (docs/web.md, People).

A seat or a spectator sends ``{"type": "chat", "text": "…"}``; every socket of the table, on every
server, gets ``{"type": "chat", "seat": N|null, "name", "text", "at", "account"}`` (``account``: the
speaker's account name, null for a guest), except the sockets of accounts that block the speaker
(docs/web.md, Blocks, reports and bans; a block made meanwhile counts from its notice on). A banned
account's line is refused (``banned``). When the moderator deletes lines (``gamester admin
chat-delete``) every socket gets ``{"type": "chat_deleted"}`` and then the lines left. Text is 1 to
500 characters after trimming, one line, with no control, invisible or text-turning character; each
socket may send 5 at once and then one every 2 s (else ``rate_limited``). Messages are stored with the
table (``gm_chat``); a socket that connects gets the last 100, then the table's rematch if there is
one.

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

from gamester.store.moderation import ModerationStore
from gamester.store.people import PeopleStore
from gamester.web.decisions import ServiceError

MAX_CHAT = 500
ACCOUNT = "~account:"  # the notifier's channel of an account's changes (web/lobby.py)
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
    return t


@dataclass(eq=False)
class Talker:
    """One socket of a table, as the chat knows it."""

    send: Send
    seat: int | None
    name: str
    account: str | None = None  # the key of the account speaking through it (None: a guest)
    blocked: frozenset[str] = frozenset()  # the accounts it blocks: their lines never reach it
    tokens: float = BURST
    at: float = 0.0
    seen: OrderedDict[int, None] = field(default_factory=OrderedDict)  # chat ids sent to it

    async def give(self, m: dict[str, Any]) -> None:
        if m["id"] in self.seen:
            return
        self.seen[m["id"]] = None
        while len(self.seen) > 4 * HISTORY:
            self.seen.popitem(last=False)
        if m.get("account") is None or m["account"] not in self.blocked:
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

    async def attach(
        self, table_id: str, send: Send, seat: int | None, name: str, account: str | None = None
    ) -> Talker:
        """Register a socket (speaking for ``account``, if any) and send it the table's last
        messages (and its rematch, if any), but the lines of the accounts it blocks."""
        self.loop = asyncio.get_running_loop()
        blocked = frozenset() if account is None else await run_in_threadpool(self._blocked_by, account)
        talker = Talker(send, seat, name, account, blocked, at=self.now())
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
        talker.tokens = min(BURST, talker.tokens + (now - talker.at) / EVERY)
        talker.at = now
        if talker.tokens < 1.0:
            raise ServiceError("rate_limited", f"chat: at most one message every {EVERY:g} s; slow down")
        talker.tokens -= 1.0
        if talker.account is not None and await run_in_threadpool(self._banned, talker.account, now):
            raise ServiceError("banned", "chat: this account is banned")
        await run_in_threadpool(
            self.store.add_chat, table_id, talker.seat, talker.name, clean, now, talker.account
        )
        self.publish(table_id, "chat")

    def _blocked_by(self, account: str) -> frozenset[str]:
        return ModerationStore(self.store.repo).blocked_by(account)

    def _banned(self, account: str, now: float) -> bool:
        return ModerationStore(self.store.repo).ban_of(account, now) is not None

    # -- notices -------------------------------------------------------------------------------
    def on_notice(self, table_id: str, kind: str, _remote: bool) -> None:
        """From the notifier (any thread): a chat message or a rematch was stored somewhere."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        if kind == "blocks" and table_id.startswith(ACCOUNT):  # someone (un)blocked: their sockets know
            loop.call_soon_threadsafe(lambda: _spawn(self._reblock(table_id[len(ACCOUNT) :])))
            return
        jobs = {"chat": self._deliver_chat, "rematch": self._deliver_rematch, "chat-deleted": self._deleted}
        if kind not in jobs or table_id not in self.tables:
            return
        job = jobs[kind]
        loop.call_soon_threadsafe(lambda: _spawn(job(table_id)))

    async def _reblock(self, account: str) -> None:
        mine = [t for table in self.tables.values() for t in table.talkers if t.account == account]
        if mine:
            blocked = await run_in_threadpool(self._blocked_by, account)
            for t in mine:
                t.blocked = blocked

    async def _deleted(self, table_id: str) -> None:
        """The moderator deleted lines: every socket starts its chat again from what is left."""
        t = self.tables.get(table_id)
        if t is None:
            return
        async with t.lock:
            rows = await run_in_threadpool(self.store.last_chat, table_id, HISTORY)
            for talker in list(t.talkers):
                talker.seen.clear()
                await _send(talker.send, {"type": "chat_deleted"})
                for m in rows:
                    await talker.give(m)

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
    account = m["name"] if m.get("account") is not None else None  # an account speaks under its name
    return {
        "type": "chat",
        "seat": m["seat"],
        "name": m["name"],
        "text": m["text"],
        "at": m["at"],
        "account": account,
    }
