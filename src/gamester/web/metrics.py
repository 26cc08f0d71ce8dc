"""What the server is doing, for the person who runs it: ``GET /metrics`` (Prometheus' text format)
and ``--log-format json`` (docs/deploy.md, Watching it).

Each app has its own :class:`ServerMetrics` (its own ``prometheus_client`` registry: several servers
in one process, as the tests run them, never mix their counts). What it counts:

- ``gamester_http_requests_total{code}``: HTTP answers by status; ``gamester_refusals_total{code,via}``:
  every refusal by its error code (``rate_limited``, ``bad_origin``, ``stale``…), over HTTP (the JSON
  body's ``error``), at a WebSocket handshake (the close reason) or in a WebSocket error frame;
- ``gamester_action_seconds``: a histogram of the time from a player's move arriving to its being
  stored and sent to every socket; ``gamester_table_events_total{event}``: created, joined, left,
  started, moved, abandoned, taken_back, ended (this server's);
- gauges read when scraped: ``gamester_tables{status}`` (the database's, every server's),
  ``gamester_open_sockets``, ``gamester_thinking{kind}`` (bot moves and hints at or waiting for the
  workers), ``gamester_hashes_waiting``, ``gamester_reviews_queued``, ``gamester_seeks`` and any other
  probe a module registers with :meth:`ServerMetrics.probe` (a function returning a number, or a
  mapping of label value to number);
- ``gamester_database_errors_total{kind}``: every error the database driver raised, by class, but
  a broken constraint (``IntegrityError``: a name already taken, a move made first elsewhere), which
  is a guard doing its work.

``/metrics`` answers only the loopback and the ``--metrics-allow`` networks, and never a request
that came through a proxy not trusted with ``--trusted-proxy`` (one on the loopback would otherwise
make every client look local).

:class:`Observe` is the middleware that counts requests and sockets and, with
``--log-format json``, writes one JSON object a line for each request and socket
(:mod:`gamester.web.logs`); :func:`watch_tables` counts and logs the table events.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gamester.store.port import TableRepository, TableRow
from gamester.web import absence, logs
from gamester.web import decisions as d
from gamester.web.proxy import Network, in_networks, parse_trusted

if TYPE_CHECKING:  # the parts metrics reads; they import nothing of it
    from gamester.web.accounts import People
    from gamester.web.registry import Registry
    from gamester.web.reviews import ReviewDesk

# The ``_created`` timestamp beside every counter doubles the page and no query here needs it.
disable_created_metrics()  # type: ignore[no-untyped-call]  # prometheus_client leaves it unannotated

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
Probe = Callable[[], float | Mapping[str, float]]
ACTION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
TABLES_CACHE_SECONDS = 5.0


class ServerMetrics:
    """One server's metrics (``app.state.metrics``)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter(
            "gamester_http_requests", "HTTP requests answered, by status", ["code"], registry=r
        )
        self.refusals = Counter(
            "gamester_refusals",
            "Requests and messages refused, by error code and by how (http, handshake, ws)",
            ["code", "via"],
            registry=r,
        )
        self.action_seconds = Histogram(
            "gamester_action_seconds",
            "A player's move, from arriving to stored and sent to every socket",
            buckets=ACTION_BUCKETS,
            registry=r,
        )
        self.sockets = Gauge("gamester_open_sockets", "WebSockets open on this server", registry=r)
        self.sockets_opened = Counter("gamester_sockets_opened", "WebSockets accepted", registry=r)
        self.table_events = Counter(
            "gamester_table_events",
            "Table events on this server (created, joined, moved…)",
            ["event"],
            registry=r,
        )
        self.db_errors = Counter(
            "gamester_database_errors", "Errors raised by the database driver, by class", ["kind"], registry=r
        )
        self.probes: dict[str, tuple[str, str, Probe]] = {}
        self._tables: Callable[[], Mapping[str, float]] | None = None
        self._tables_seen: tuple[float, Mapping[str, float]] = (0.0, {})
        r.register(_Probes(self))
        for name, what in (
            ("seeks", "Open quick-play seeks (0 until this server has them)"),
            ("hashes_waiting", "Password hashes waiting for their turn"),
            ("reviews_queued", "Reviews waiting or running on this server"),
        ):
            self.probe(name, what, lambda: 0.0)

    def probe(self, name: str, help_text: str, fn: Probe, label: str = "kind") -> None:
        """``gamester_NAME`` read from ``fn()`` at each scrape (a number, or {label value: number}).
        Registering a name again replaces its probe: a module that adds a feature (seeks, say)
        registers the real one over the placeholder."""
        self.probes[name] = (help_text, label, fn)

    def count_tables(self, repo: TableRepository) -> None:
        """``gamester_tables{status}`` from the database (at most every few seconds)."""

        def read() -> Mapping[str, float]:
            return {status: float(n) for status, n in repo.count_by_status().items()}

        self._tables = read

    def tables(self) -> Mapping[str, float]:
        if self._tables is None:
            return {}
        at, seen = self._tables_seen
        now = time.monotonic()
        if now - at >= TABLES_CACHE_SECONDS:
            try:
                seen = self._tables()
            except Exception as e:  # noqa: BLE001 - a scrape while the database is down
                self.db_errors.labels(type(e).__name__).inc()
                seen = {}
            self._tables_seen = (now, seen)
        return seen

    def database_error(self, kind: str) -> None:
        """The database driver raised an error of class ``kind`` (the store tells: watch_errors)."""
        self.db_errors.labels(kind).inc()

    def text(self) -> bytes:
        return generate_latest(self.registry)


class _Probes(Collector):
    def __init__(self, m: ServerMetrics) -> None:
        self.m = m

    def describe(self) -> Iterable[Any]:
        return []  # read at each scrape: nothing to check at registration

    def collect(self) -> Iterator[GaugeMetricFamily]:
        fam = GaugeMetricFamily("gamester_tables", "Tables in the database, by status", labels=["status"])
        counted = self.m.tables()
        # Every status present (0 where none), so a sum or a graph never lacks one.
        for status in sorted({"waiting", "playing", "over", *counted}):
            fam.add_metric([status], counted.get(status, 0.0))
        yield fam
        for name, (help_text, label, fn) in sorted(self.m.probes.items()):
            try:
                value = fn()
            except Exception:  # noqa: BLE001 - a probe that fails shows nothing rather than break /metrics
                continue
            if isinstance(value, Mapping):
                g = GaugeMetricFamily(f"gamester_{name}", help_text, labels=[label])
                for k, v in sorted(value.items()):
                    g.add_metric([k], float(v))
            else:
                g = GaugeMetricFamily(f"gamester_{name}", help_text, value=float(value))
            yield g


def of(conn: HTTPConnection) -> ServerMetrics | None:
    """The app's metrics, from a request or a socket (None for an app without them)."""
    found = getattr(conn.app.state, "metrics", None)
    return found if isinstance(found, ServerMetrics) else None


def action_done(conn: HTTPConnection, seconds: float) -> None:
    """A player's move took ``seconds`` from arriving to sent (the table WebSocket's act)."""
    m = of(conn)
    if m is not None:
        m.action_seconds.observe(seconds)


# -- who may read /metrics ----------------------------------------------------------------------
def allowed(scope: Scope, allow: Sequence[Network], trusted: Sequence[Network]) -> bool:
    """The loopback and ``allow``; never through a proxy we do not trust."""
    client = scope.get("client")
    peer = scope.get("gamester.peer", client)
    if client is None or peer is None:
        return False
    forwarded = any(k == b"x-forwarded-for" for k, _ in scope.get("headers", ()))
    try:
        peer_addr = ipaddress.ip_address(str(peer[0]))
        addr = ipaddress.ip_address(str(client[0]))
    except ValueError:
        return False
    if forwarded and not in_networks(peer_addr, trusted):
        return False
    return addr.is_loopback or in_networks(addr, allow)


def install(app: Any, metrics: ServerMetrics, allow: Iterable[str], trusted: Sequence[Network]) -> None:
    """``GET /metrics`` on ``app``."""
    nets = parse_trusted(allow, "--metrics-allow")

    async def scrape(request: Request) -> Response:
        if not allowed(request.scope, nets, trusted):
            return JSONResponse(
                {
                    "error": "not_allowed",
                    "message": "metrics are answered only to the addresses given with --metrics-allow",
                },
                status_code=403,
            )
        body = await asyncio.to_thread(metrics.text)
        return Response(body, media_type=CONTENT_TYPE)

    app.add_api_route("/metrics", scrape, methods=["GET"], include_in_schema=False)


# -- the middleware -----------------------------------------------------------------------------
def _error_code(body: bytes) -> str:
    try:
        data = json.loads(body)
    except ValueError:
        return "other"
    code = data.get("error") if isinstance(data, dict) else None
    return code if isinstance(code, str) and len(code) <= 40 else "other"


def _frame_error(text: str) -> str | None:
    """The code of an outgoing WebSocket error frame, None for any other frame (cheap: most frames
    are views)."""
    if not text.startswith('{"type":"error"'):
        return None
    with contextlib.suppress(ValueError):
        code = json.loads(text).get("code")
        if isinstance(code, str) and len(code) <= 40:
            return code
    return "other"


class Observe:
    """ASGI middleware: counts requests, refusals and sockets, and logs them (never a query string:
    tokens and invite codes travel there)."""

    def __init__(self, app: ASGIApp, metrics: ServerMetrics) -> None:
        self.app = app
        self.m = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._socket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        status = 500
        body = b""

        async def watched(message: Message) -> None:
            nonlocal status, body
            if message["type"] == "http.response.start":
                status = int(message["status"])
            elif message["type"] == "http.response.body" and status >= 400 and len(body) < 4096:
                body += bytes(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receive, watched)
        finally:
            self.m.requests.labels(str(status)).inc()
            code = _error_code(body) if status >= 400 else None
            if code is not None:
                self.m.refusals.labels(code, "http").inc()
            if logs.REQUESTS.isEnabledFor(logs.INFO):
                logs.request(scope, status, time.perf_counter() - started, code)

    async def _socket(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        accepted = False
        closed: tuple[int, str] | None = None

        async def watched(message: Message) -> None:
            nonlocal accepted, closed
            kind = message["type"]
            if kind == "websocket.accept":
                accepted = True
                self.m.sockets.inc()
                self.m.sockets_opened.inc()
            elif kind == "websocket.send":
                text = message.get("text")
                code = _frame_error(text) if isinstance(text, str) else None
                if code is not None:
                    self.m.refusals.labels(code, "ws").inc()
            elif kind == "websocket.close":
                reason = str(message.get("reason") or "")
                closed = (int(message.get("code", 1000)), reason)
                if not accepted:
                    self.m.refusals.labels(reason[:40] or "refused", "handshake").inc()
            await send(message)

        try:
            await self.app(scope, receive, watched)
        finally:
            if accepted:
                self.m.sockets.dec()
            if logs.REQUESTS.isEnabledFor(logs.INFO):
                logs.socket(scope, accepted, closed, time.perf_counter() - started)


# -- table events -------------------------------------------------------------------------------
class TableWatch:
    """Turns the notifier's notices of this server's tables into events (created, joined, left,
    started, moved, abandoned, taken_back, ended): counted, and logged as a spectator sees them
    (``--log-format json``)."""

    MAX_TABLES = 20_000

    def __init__(self, registry: Registry, metrics: ServerMetrics) -> None:
        self.reg = registry
        self.m = metrics
        self.seen: OrderedDict[str, tuple[str, frozenset[int], absence.SeatNews]] = OrderedDict()

    def created(self, row: TableRow) -> None:
        self._remember(row, _joined(row))
        self._event("created", row, **logs.table_fields(row))

    def on_notice(self, table_id: str, kind: str, remote: bool) -> None:
        if remote or kind not in ("act", "table"):
            return  # another server's tables are its own to count and log
        found = self.reg.seen(table_id)
        if found is None:
            return
        row, spectator_events = found
        before = self.seen.get(table_id)
        joined = _joined(row)
        if before is not None:
            was_status, was_joined, news = before
            for seat in sorted(joined - was_joined):
                self._event("joined", row, seat=seat, name=row.seats[seat].name)
            for seat in sorted(was_joined - joined):
                self._event("left", row, seat=seat)
            for e in absence.seat_events(news, row):  # a seat abandoned (and what follows), or taken back
                self._event(e["type"], row, **{k: v for k, v in e.items() if k != "type"})
            if was_status == "waiting" and row.status != "waiting":
                self._event("started", row)
        if kind == "act":
            self._event("moved", row, seq=row.seq, seen=spectator_events(row.seq))
        if row.status == "over" and (before is None or before[0] != "over"):
            self._event("ended", row, returns=row.returns, forfeit=row.forfeit, result=d.result_of(row))
        self._remember(row, joined)

    def _remember(self, row: TableRow, joined: frozenset[int]) -> None:
        self.seen[row.id] = (row.status, joined, absence.seat_news(row))
        self.seen.move_to_end(row.id)
        while len(self.seen) > self.MAX_TABLES:
            self.seen.popitem(last=False)

    def _event(self, event: str, row: TableRow, **fields: Any) -> None:
        self.m.table_events.labels(event).inc()
        if logs.TABLES.isEnabledFor(logs.INFO):
            logs.table(event, row, fields)


def _joined(row: TableRow) -> frozenset[int]:
    return frozenset(s.seat for s in row.seats if s.kind == "human" and s.token_hash is not None)


def observe_parts(metrics: ServerMetrics, registry: Registry, people: People, desk: ReviewDesk) -> None:
    """Point the app's metrics at the parts its lifespan built: the database (through the store's
    port), the registry's tables and workers, the password hashes, the review queue."""
    registry.repo.watch_errors(metrics.database_error)
    metrics.count_tables(registry.repo)
    watch = TableWatch(registry, metrics)
    registry.notifier.subscribe(watch.on_notice)
    registry.on_created.append(watch.created)
    metrics.probe(
        "thinking", "Bot moves and hints at the workers or waiting for them", lambda: dict(registry.thinking)
    )
    metrics.probe("hashes_waiting", "Password hashes waiting for their turn", people.hashes_waiting)
    metrics.probe("reviews_queued", "Reviews waiting or running on this server", desk.queued)
