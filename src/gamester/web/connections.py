"""Limits below the app, on each TCP connection (docs/web.md, On the internet).

``guarded_protocol(limits)`` is uvicorn's httptools protocol with three more rules:
- a request line and headers over ``limits.header_bytes`` get 431 and the connection closes (the
  headers are counted as they arrive, so an endless header never grows the server's memory);
- a request that has not fully arrived within ``limits.request_seconds`` of its first byte (or of
  the connection opening) gets 408 and the connection closes: a half-sent request (slowloris) holds
  a socket for seconds, not for ever;
- one address holds at most ``limits.connections_per_address`` connections (then 429 and close),
  unless ``limits.per_address`` is off. A trusted proxy (``--trusted-proxy``, web/proxy.py) is not
  capped: it carries every client's connections, and caps its own clients (docs/deploy.md).
A connection upgraded to a WebSocket leaves these counts: sockets have their own quota (guard.py).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from gamester.web.guard import SECURITY_HEADERS
from gamester.web.limits import Limits

_REASONS = {408: b"Request Timeout", 429: b"Too Many Requests", 431: b"Request Header Fields Too Large"}


def _answer(status: int, code: str, message: str) -> bytes:
    body = json.dumps({"error": code, "message": message}).encode()
    head = [
        b"HTTP/1.1 %d %s" % (status, _REASONS[status]),
        b"content-type: application/json",
        b"content-length: %d" % len(body),
        b"connection: close",
        *(k + b": " + v for k, v in SECURITY_HEADERS),
    ]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


def guarded_protocol(
    limits: Limits, uncapped: Callable[[str], bool] = lambda _addr: False
) -> type[HttpToolsProtocol]:
    """A protocol class for ``uvicorn.Config(http=...)`` that applies ``limits`` (the connection cap
    to every peer but those ``uncapped`` says are trusted proxies)."""
    per_address: dict[str, int] = {}

    class Guarded(HttpToolsProtocol):
        _addr: str | None = None
        _counted = False
        _pending = 0  # bytes of the request line and headers so far (while they arrive)
        _in_head = True
        _timer: asyncio.TimerHandle | None = None
        _closing = False

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._addr = self.client[0] if self.client else None
            if self._addr is not None and not uncapped(self._addr):
                held = per_address.get(self._addr, 0)
                if limits.per_address and held >= limits.connections_per_address:
                    self._close_with(
                        429,
                        "rate_limited",
                        f"too many connections from this address (at most {limits.connections_per_address})",
                    )
                    return
                per_address[self._addr] = held + 1
                self._counted = True
            self._start_timer()

        def _uncount(self) -> None:
            if self._counted and self._addr is not None:
                self._counted = False
                left = per_address.get(self._addr, 1) - 1
                if left > 0:
                    per_address[self._addr] = left
                else:
                    per_address.pop(self._addr, None)

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_timer()
            self._uncount()
            super().connection_lost(exc)

        def _start_timer(self) -> None:
            if self._timer is None:
                self._timer = self.loop.call_later(limits.request_seconds, self._too_slow)

        def _stop_timer(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def _too_slow(self) -> None:
            self._timer = None
            if self.cycle is not None and self.cycle.response_started:
                self.transport.close()  # an answer is on its way: just end the connection
                return
            self._close_with(
                408, "request_timeout", f"the request did not arrive within {limits.request_seconds:g} s"
            )

        def _close_with(self, status: int, code: str, message: str) -> None:
            if self._closing:
                return
            self._closing = True
            self._stop_timer()
            if not self.transport.is_closing():
                self.transport.write(_answer(status, code, message))
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            if self._closing:
                return
            if self._in_head:
                self._start_timer()
                self._pending += len(data)
            super().data_received(data)
            # Still inside the headers after this chunk, and past the limit: no more parsing.
            if self._in_head and self._pending > limits.header_bytes and not self._closing:
                self._close_with(
                    431, "headers_too_large", f"request headers over {limits.header_bytes} bytes"
                )

        def on_headers_complete(self) -> None:
            self._in_head = False
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            self._stop_timer()
            super().on_message_complete()

        def handle_websocket_upgrade(self) -> None:
            self._stop_timer()
            self._uncount()
            super().handle_websocket_upgrade()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            # Waiting for the next request on a kept-alive connection: uvicorn's keep-alive timeout.
            self._in_head = True
            self._pending = 0

    Guarded.__name__ = "GuardedHttpToolsProtocol"
    return Guarded
