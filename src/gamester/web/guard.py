"""The checks every request passes before a route sees it (docs/web.md, On the internet).

- A request or WebSocket upgrade whose ``Origin`` is neither the server's own (the ``Host`` it was
  sent to) nor one given with ``--allow-origin`` is refused: 403 ``bad_origin``, or close 1008. A
  client that sends no ``Origin`` (a script, not a browser) passes.
- A server that listens on the loopback answers only to ``localhost``, an address in digits and the
  names given with ``--allow-host`` in ``Host``: else 403
  ``bad_host``, or close 1008. A page whose own name an attacker points at 127.0.0.1 (DNS
  rebinding) sends its own name as both ``Host`` and ``Origin``, and only this check stops it.
- A state-changing request (POST, PUT, PATCH, DELETE) under ``/api`` that carries a body needs
  ``Content-Type: application/json``: else 415 ``unsupported_media_type``. A page elsewhere can
  then not post to the API with a plain form.
- Per client address: open WebSockets on this server (close 1008 ``rate_limited``), and requests to
  the API, reads and writes alike, from one token bucket per address (429 ``rate_limited``). (Tables
  made are counted where they are made, whatever makes them: web/fair.py's ``TableQuota``.)
- Every HTTP answer carries the security headers (``SECURITY_HEADERS`` and a Content-Security-Policy
  that allows no inline script).
"""

from __future__ import annotations

import ipaddress
import json
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gamester.web.limits import Limits

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
)
_WRITES = {"POST", "PUT", "PATCH", "DELETE"}


def csp(host: str) -> bytes:
    """The page's Content-Security-Policy: scripts, styles and sockets from this server only."""
    sockets = f" ws://{host} wss://{host}" if host else ""
    return (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        f"connect-src 'self'{sockets}; object-src 'none'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'"
    ).encode()


def _header(scope: Scope, name: bytes) -> str | None:
    for k, v in scope.get("headers", ()):
        if k == name:
            return bytes(v).decode("latin-1")
    return None


LOOPBACK_NAMES = frozenset({"localhost"})


def hostname(host: str) -> str:
    """The name in a ``Host`` header, without its port: ``[::1]:8000`` -> ``::1``, ``Example.org`` ->
    ``example.org`` (a trailing dot dropped)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0].rstrip(".") if host.count(":") == 1 else host.rstrip(".")


def netloc(origin: str) -> str | None:
    """``https://example.org:8443`` -> ``example.org:8443``; None for ``null`` or no host."""
    try:
        parts = urlsplit(origin.strip())
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return parts.netloc.lower()


@dataclass
class Quotas:
    """Per-address counters of one server process: its open sockets and its API requests (a token
    bucket each: ``request_burst`` at once, then ``requests_per_second``). (Tables created per
    address are counted in the database, shared by every server on it: web/fair.py's
    ``TableQuota``.)"""

    limits: Limits
    sockets: dict[str, int] = field(default_factory=dict)
    requests: dict[str, tuple[float, float]] = field(default_factory=dict)  # address -> (tokens, at)

    def request(self, addr: str, now: float) -> float:
        """Take one request from ``addr``'s bucket: 0.0, or the seconds until it has one again."""
        lim = self.limits
        if not lim.per_address:
            return 0.0
        burst, rate = float(lim.request_burst), lim.requests_per_second
        tokens, at = self.requests.get(addr, (burst, now))
        tokens = min(burst, tokens + max(0.0, now - at) * rate)
        if tokens < 1.0:
            self.requests[addr] = (tokens, now)
            return (1.0 - tokens) / rate
        self.requests[addr] = (tokens - 1.0, now)
        if len(self.requests) > 10_000:  # forget the buckets that are full again
            full = burst / rate
            self.requests = {a: v for a, v in self.requests.items() if now - v[1] < full}
        return 0.0

    def open_socket(self, addr: str) -> bool:
        if self.limits.per_address and self.sockets.get(addr, 0) >= self.limits.sockets_per_address:
            return False
        self.sockets[addr] = self.sockets.get(addr, 0) + 1
        return True

    def close_socket(self, addr: str) -> None:
        left = self.sockets.get(addr, 0) - 1
        if left > 0:
            self.sockets[addr] = left
        else:
            self.sockets.pop(addr, None)


def _client(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "?"


async def _refuse(
    send: Send, status: int, code: str, message: str, extra: Iterable[tuple[bytes, bytes]] = ()
) -> None:
    body = json.dumps({"error": code, "message": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *SECURITY_HEADERS,
                *extra,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class Guard:
    """ASGI middleware applying the module's checks (``limits`` and ``allow_origins``)."""

    def __init__(
        self,
        app: ASGIApp,
        limits: Limits | None = None,
        allow_origins: Iterable[str] = (),
        allow_hosts: Iterable[str] | None = None,
    ) -> None:
        self.app = app
        self.quotas = Quotas(limits or Limits())
        self.allowed = {n for n in (netloc(o) for o in allow_origins) if n}
        # None: any Host (a server on a public address, behind its own name or a proxy's).
        self.hosts = None if allow_hosts is None else {hostname(h) for h in allow_hosts}

    def host_ok(self, scope: Scope) -> bool:
        """Any ``Host`` if no names were given; else one of them, or an address written as digits
        (no page can be rebound to one: rebinding needs a name the attacker's DNS answers for)."""
        if self.hosts is None:
            return True
        name = hostname(_header(scope, b"host") or "")
        if name in self.hosts:
            return True
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True

    def origin_ok(self, scope: Scope) -> bool:
        origin = _header(scope, b"origin")
        if origin is None:
            return True
        seen = netloc(origin)
        host = (_header(scope, b"host") or "").lower()
        return seen is not None and (seen == host or seen in self.allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "websocket":
            await self._socket(scope, receive, send)
            return
        if kind != "http":
            await self.app(scope, receive, send)
            return
        if not self.host_ok(scope):
            await _refuse(
                send, 403, "bad_host", "this server does not answer to that name (see --allow-host)"
            )
            return
        if not self.origin_ok(scope):
            await _refuse(send, 403, "bad_origin", "requests from another site's page are refused")
            return
        method, path = scope["method"], scope["path"]
        if path.startswith("/api/"):
            wait = self.quotas.request(_client(scope), time.monotonic())
            if wait > 0.0:
                rate, seconds = self.quotas.limits.requests_per_second, max(1, round(wait))
                await _refuse(
                    send,
                    429,
                    "rate_limited",
                    f"too many requests from this address: at most {rate:g} a second; wait {seconds} s",
                    [(b"retry-after", str(seconds).encode())],
                )
                return
        if method in _WRITES and path.startswith("/api/"):
            ctype = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
            length = _header(scope, b"content-length")
            has_body = (length not in (None, "0")) or _header(scope, b"transfer-encoding") is not None
            if has_body and ctype != "application/json":
                await _refuse(
                    send,
                    415,
                    "unsupported_media_type",
                    "send the body as Content-Type: application/json",
                )
                return
        host = (_header(scope, b"host") or "").lower()
        policy = csp(host if all(ch.isalnum() or ch in ".:-[]" for ch in host) else "")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {k.lower() for k, _ in headers}
                headers.extend(h for h in SECURITY_HEADERS if h[0] not in names)
                if b"content-security-policy" not in names:
                    headers.append((b"content-security-policy", policy))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)

    async def _socket(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.host_ok(scope):
            await _deny(receive, send, "bad_host")
            return
        if not self.origin_ok(scope):
            await _deny(receive, send, "bad_origin")
            return
        addr = _client(scope)
        if not self.quotas.open_socket(addr):
            await _deny(receive, send, "rate_limited")
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self.quotas.close_socket(addr)


async def _deny(receive: Receive, send: Send, code: str) -> None:
    """Refuse a WebSocket handshake with close 1008 (the server answers the upgrade with 403), the
    reason naming the limit."""
    msg: Any = await receive()
    if msg["type"] == "websocket.connect":
        await send({"type": "websocket.close", "code": 1008, "reason": code})
