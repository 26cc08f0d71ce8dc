"""Who the client is: the one place the server decides a connection's address and whether it came
over HTTPS (docs/deploy.md, Behind a reverse proxy).

``gamester serve --trusted-proxy ADDR`` (an address or a network, repeatable) names the proxies
whose word is taken. For a connection whose TCP peer is one of them, the client is the right-most
hop of ``X-Forwarded-For`` that is not itself a trusted proxy (every hop left of it was written by
the client, who may write anything), and ``X-Forwarded-Proto: https`` says the client spoke HTTPS.
For any other peer both headers are ignored, whatever they say: the peer is the client. uvicorn's
own handling of those headers (which by default believes 127.0.0.1) is switched off in
:mod:`gamester.web.server`, so this is the only reading of them.

:class:`ClientAddress` is the outermost middleware: it writes the decided address into the ASGI
scope's ``client`` (and the scheme into ``scheme``) before anything else sees the request, so every
reader of ``request.client`` or ``websocket.client`` (the quotas, the log-in throttles, the bots'
turns, the logs, the metrics) counts the same client. The TCP peer stays in
``scope["gamester.peer"]``.

:func:`is_https` tells every reader whether the client spoke HTTPS (to us or to a trusted proxy):
the cookies ask it (web/accounts.py: ``__Host-`` names and ``Secure`` over HTTPS).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class ProxyError(ValueError):
    """A ``--trusted-proxy`` that is not an address or a network."""


def parse_trusted(values: Iterable[str], option: str = "--trusted-proxy") -> tuple[Network, ...]:
    """``["127.0.0.1", "10.0.0.0/8", "::1"]`` as networks; a bad one raises :class:`ProxyError`
    naming ``option``.

    >>> [str(n) for n in parse_trusted(["127.0.0.1", "10.1.0.0/16"])]
    ['127.0.0.1/32', '10.1.0.0/16']
    """
    out = []
    for v in values:
        try:
            out.append(ipaddress.ip_network(v.strip(), strict=False))
        except ValueError:
            raise ProxyError(
                f"{option} {v[:60]!r}: expected an address or a network such as 127.0.0.1 or 10.0.0.0/8"
            ) from None
    return tuple(out)


def _address(text: str) -> Address | None:
    """A hop of ``X-Forwarded-For`` as an address: ``1.2.3.4``, ``1.2.3.4:5678``, ``[::1]:80``,
    ``::1``; None for anything else (``unknown``, an obfuscated name, rubbish)."""
    text = text.strip()
    if text.startswith("["):
        text = text[1 : text.find("]")] if "]" in text else ""
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        found = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(found, ipaddress.IPv6Address) and found.ipv4_mapped is not None:
        return found.ipv4_mapped
    return found


def in_networks(addr: Address | None, nets: Sequence[Network]) -> bool:
    """Whether ``addr`` is in one of ``nets`` (an address of the other IP version never is)."""
    return addr is not None and any(addr.version == n.version and addr in n for n in nets)


def is_trusted_peer(peer: str, trusted: Sequence[Network]) -> bool:
    """Whether the TCP peer ``peer`` is a trusted proxy: the one test of ``--trusted-proxy``, for
    :class:`ClientAddress` and the connection cap alike (web/server.py)."""
    return in_networks(_address(peer), trusted)


def client_address(peer: str | None, forwarded: Sequence[str], trusted: Sequence[Network]) -> str:
    """The client's address: the TCP ``peer``'s, unless the peer is a trusted proxy; then the
    right-most hop of the ``X-Forwarded-For`` headers (``forwarded``, in the order received) that is
    not a trusted proxy. A hop that is not an address stops the walk at the proxy that wrote it.

    >>> nets = parse_trusted(["127.0.0.1"])
    >>> client_address("127.0.0.1", ["6.6.6.6, 203.0.113.9"], nets)
    '203.0.113.9'
    >>> client_address("198.51.100.7", ["203.0.113.9"], nets)  # not a trusted peer: header ignored
    '198.51.100.7'
    >>> client_address("127.0.0.1", ["203.0.113.9, 127.0.0.1"], nets)  # a chain of trusted proxies
    '203.0.113.9'
    >>> client_address("127.0.0.1", ["rubbish"], nets)
    '127.0.0.1'
    """
    if peer is None:
        return "?"
    if not is_trusted_peer(peer, trusted):
        return peer
    current = peer
    hops = [h for line in forwarded for h in line.split(",")]
    for hop in reversed(hops):
        addr = _address(hop)
        if addr is None:
            return current
        current = str(addr)
        if not in_networks(addr, trusted):
            return current
    return current


def _headers(scope: Scope, name: bytes) -> list[str]:
    return [bytes(v).decode("latin-1") for k, v in scope.get("headers", ()) if k == name]


@dataclass(frozen=True)
class Decided:
    address: str
    https: bool


def decide(scope: Scope, trusted: Sequence[Network]) -> Decided:
    """The client's address and whether it spoke HTTPS, for an ASGI ``scope`` as the server
    received it (before :class:`ClientAddress` rewrote it)."""
    client = scope.get("client")
    peer = str(client[0]) if client else None
    https = scope.get("scheme") in ("https", "wss")
    if peer is None or not is_trusted_peer(peer, trusted):
        return Decided(peer or "?", https)
    address = client_address(peer, _headers(scope, b"x-forwarded-for"), trusted)
    proto = _headers(scope, b"x-forwarded-proto")
    if proto:  # the proxy next to us wrote the last value
        https = proto[-1].split(",")[-1].strip().lower() in ("https", "wss")
    return Decided(address, https)


class ClientAddress:
    """ASGI middleware: the scope's ``client`` and ``scheme`` as :func:`decide` decides them."""

    def __init__(self, app: ASGIApp, trusted: Sequence[Network] = ()) -> None:
        self.app = app
        self.trusted = tuple(trusted)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind in ("http", "websocket"):
            found = decide(scope, self.trusted)
            client = scope.get("client")
            scope = dict(scope)
            scope["gamester.peer"] = client
            scope["client"] = (
                found.address,
                0 if client is None or found.address != client[0] else client[1],
            )
            if kind == "http":
                scope["scheme"] = "https" if found.https else "http"
            else:
                scope["scheme"] = "wss" if found.https else "ws"
        await self.app(scope, receive, send)


def is_https(conn: HTTPConnection) -> bool:
    """Whether the client spoke HTTPS (to us, or to a trusted proxy in front of us)."""
    return conn.url.scheme in ("https", "wss")
