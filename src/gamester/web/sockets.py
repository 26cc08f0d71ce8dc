"""One table WebSocket as the room sees it: a :class:`Connection` with its own outbox.

Everything sent to a socket goes through its outbox (one writer task), so views, errors and pongs keep
their order and nobody — the room least of all — waits for a client. A socket that stops reading is
closed once ``MAX_OUTBOX`` messages wait for it; a close waits for the client at most
``CLOSE_SECONDS``.
"""

from __future__ import annotations

import asyncio
import contextlib

from starlette.websockets import WebSocket

from gamester.web import messages
from gamester.web.chat import Speaker
from gamester.web.decisions import SPECTATOR

CLOSE_SECONDS = 2.0
"""How long closing a socket may wait for its client (a client that never answers its close, or
stopped reading, must not hold anything up)."""

MAX_OUTBOX = 256
"""Messages waiting for a socket that does not read; past this it is closed (1013)."""


async def close_socket(ws: WebSocket, code: int) -> None:
    """Close ``ws`` with ``code``, waiting for the client at most ``CLOSE_SECONDS``."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(ws.close(code=code), CLOSE_SECONDS)


class Connection:
    """One WebSocket and the viewer it speaks for (a seat, or ``SPECTATOR``)."""

    def __init__(self, ws: WebSocket, table_id: str) -> None:
        self.ws = ws
        self.table_id = table_id
        client = ws.client
        self.address = client.host if client is not None else "?"  # the client's, for turns at workers
        self.viewer = SPECTATOR
        self.token_hash: str | None = None
        self.closed = False
        self.last_seq = -1  # the room's: the last view sent
        self.last_status = ""
        self.hinting = False
        self.speaker: Speaker | None = None  # its chat (set by the room once it is attached)
        self._outbox: asyncio.Queue[str | int] = asyncio.Queue()
        self._writer = asyncio.ensure_future(self._write())

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        if self._outbox.qsize() >= MAX_OUTBOX:  # not reading: stop trying
            self.close(1013)
            return
        self._outbox.put_nowait(text)

    def send(self, message: messages.Outbound) -> None:
        self.send_text(messages.encode(message))

    def close(self, code: int) -> None:
        """Stop sending now; the close itself happens in the background, bounded."""
        if not self.closed:
            self.closed = True
            self._outbox.put_nowait(code)

    async def _write(self) -> None:
        while True:
            item = await self._outbox.get()
            if isinstance(item, int):
                await close_socket(self.ws, item)
                return
            try:
                await self.ws.send_text(item)
            except Exception:  # noqa: BLE001 - the socket went away; the receive loop will notice
                self.closed = True
                return

    async def finish(self) -> None:
        """The receive loop ended: let queued sends go (bounded), then stop the writer."""
        if not self._writer.done():
            self._outbox.put_nowait(1000)
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(self._writer), CLOSE_SECONDS)
            self._writer.cancel()
        self.closed = True
