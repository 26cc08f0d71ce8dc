"""Run the app on uvicorn: ``gamester serve [--host] [--port] [--db] [--trusted-proxy ADDR]
[--metrics-allow ADDR] [--log-format text|json]``.

The database is opened (and migrated) before the port is bound, so a bad ``--db`` is one line and
exit status 2; the address and the database are printed once the server is listening. Ctrl-C or
SIGTERM stop it quietly, and within ``HARD_STOP_SECONDS`` whatever it is doing: a worker deep in a
review or a bot's search, a socket that never closes or a database that does not answer cannot hold
a restart up (the worker processes are ended, then the server).

uvicorn's own reading of ``X-Forwarded-For`` is off (it believes 127.0.0.1 by default): who the
client is, is decided once, by web/proxy.py, from ``--trusted-proxy``.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import ipaddress
import logging
import multiprocessing
import os
import signal
import socket
import sys
import threading
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import uvicorn

from gamester import __version__
from gamester.core.columns import WIDTH, fit, say_error
from gamester.store import default_sqlite_url, make_engine, open_repository
from gamester.web.app import create_app
from gamester.web.connections import guarded_protocol
from gamester.web.guard import LOOPBACK_NAMES, hostname, netloc
from gamester.web.limits import LimitsError
from gamester.web.limits import load as load_limits
from gamester.web.logs import FORMATS, say
from gamester.web.logs import setup as setup_logs
from gamester.web.proxy import ProxyError, is_trusted_peer, parse_trusted
from gamester.web.routes import MAX_WS_MESSAGE


def _shown(url: str) -> str:
    try:
        return make_engine(url).url.render_as_string(hide_password=True)
    except ValueError:
        return url


def answers_to(host: str, allow_hosts: Sequence[str]) -> set[str] | None:
    """The names a server listening on ``host`` answers to in ``Host`` (web/guard.py), None for any.
    On the loopback: ``localhost`` and ``--allow-host``'s names, so that no page rebound to 127.0.0.1
    reaches it; on another address any name, unless ``--allow-host`` names them."""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback and not allow_hosts:
        return None
    return set(LOOPBACK_NAMES) | {hostname(h) for h in allow_hosts}


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    db: str | None = None,
    *,
    limits: str = "default",
    allow_origins: Sequence[str] = (),
    allow_hosts: Sequence[str] = (),
    trusted_proxies: Sequence[str] = (),
    metrics_allow: Sequence[str] = (),
    log_format: str = "text",
) -> int:
    url = db or default_sqlite_url()
    try:
        chosen = load_limits(limits)
    except LimitsError as e:
        say_error(f"gamester serve: {e}")
        return 2
    try:
        trusted = parse_trusted(trusted_proxies)
        parse_trusted(metrics_allow, "--metrics-allow")
    except ProxyError as e:
        say_error(f"gamester serve: {e}")
        return 2
    if log_format not in FORMATS:
        say_error(f"gamester serve: --log-format {log_format!r}: expected one of {', '.join(FORMATS)}")
        return 2
    for name in allow_hosts:
        if not name or any(ch in name for ch in "/@ ") or hostname(name) != name.strip().lower().rstrip("."):
            say_error(f"gamester serve: --allow-host {name!r}: expected a name such as games.example.org")
            return 2
    for origin in allow_origins:
        if netloc(origin) is None:
            say_error(
                f"gamester serve: --allow-origin {origin!r}: expected a site such as https://example.org"
            )
            return 2
    if not 0 <= port <= 65535:
        say_error(f"gamester serve: --port {port}: expected a port from 0 to 65535")
        return 2
    try:
        open_repository(url).dispose()
    except ValueError as e:
        say_error(f"gamester serve: {e}")
        return 2
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)  # connections made during start-up wait in the backlog instead of failing
    except OSError as e:
        why = "already in use" if e.errno == errno.EADDRINUSE else (e.strerror or str(e))
        say_error(f"gamester serve: cannot listen on {host}:{port}: {why}")
        return 2
    setup_logs(log_format)
    if url.startswith("sqlite"):
        # The URL (for --db) and the file: on one line if it fits, else the file on the next.
        path = url.split(":///", 1)[1]
        line = f"gamester: database {url} (file {path})"
        text = line if len(line) <= WIDTH else f"gamester: database {url}\n  the file: {path}"
    else:
        text = fit(f"gamester: database {_shown(url)}")
    say("database", text, database=_shown(url))
    shown_host = f"[{host}]" if ":" in host else host
    actual_port = sock.getsockname()[1]
    where = f"http://{shown_host}:{actual_port}/"
    say("listening", f"gamester: serving on {where} (Ctrl-C stops)", url=where, version=__version__)
    app = create_app(
        url,
        limits=chosen,
        allow_origins=allow_origins,
        allow_hosts=answers_to(host, allow_hosts),
        trusted_proxies=trusted_proxies,
        metrics_allow=metrics_allow,
    )
    app.state.freeze_gc = True
    config = uvicorn.Config(
        app,
        log_level="warning",
        log_config=None if log_format == "json" else uvicorn.config.LOGGING_CONFIG,
        ws_max_size=MAX_WS_MESSAGE + 1024,
        lifespan="on",
        # Who the client is comes from web/proxy.py alone (--trusted-proxy); uvicorn's own reading
        # of X-Forwarded-For would believe any client on 127.0.0.1.
        proxy_headers=False,
        forwarded_allow_ips=[],
        # Header size and time limits and the per-address connection cap (docs/web.md, On the
        # internet); a trusted proxy carries many clients' connections and is not capped.
        http=guarded_protocol(chosen, lambda peer: is_trusted_peer(peer, trusted)),
        timeout_graceful_shutdown=3,
        # The websockets implementation answers an oversized handshake with 400; the sans-I/O one
        # (uvicorn's default here) leaves it hanging.
        ws="websockets",
        # Views are small JSON; compressing each one costs the server more CPU than it saves.
        ws_per_message_deflate=False,
    )
    # Chosen on purpose (see ws= above); the notice would only alarm the person starting the server.
    warnings.filterwarnings("ignore", message=r"The `websockets` implementation is deprecated")
    warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"websockets\.")
    # Fewer, larger young-generation collections: a server holds many small long-lived view dicts,
    # and the default threshold runs the collector every few hundred allocations.
    gc.set_threshold(50_000, 50, 1000)
    # Database calls run in threads (PostgreSQL's, and SQLite's reads); each takes the GIL back from
    # the event loop several times, and the default 5 ms switch interval then adds up to a slow answer
    # under load (500 tables through threads: p99 81 -> 48 ms with 0.5 ms, benchmarks/web_load.py).
    sys.setswitchinterval(0.0005)
    server = _QuietServer(config)
    try:
        asyncio.run(server.serve(sockets=[sock]))
    except KeyboardInterrupt:
        server.interrupted = True
    finally:
        with contextlib.suppress(OSError):
            sock.close()
    return 130 if server.interrupted else 0


HARD_STOP_SECONDS = 8.0
"""After a stop signal, the server has this long to stop on its own; then its worker processes are
ended and it exits (a restart waits at most about this long, whatever the server was doing)."""


def _hard_stop(code: int, seconds: float) -> None:
    """In a daemon thread: if the process is still here after ``seconds``, end its children (a
    review, a search) and leave without waiting for anything else."""
    threading.Event().wait(seconds)
    children = multiprocessing.active_children()
    for p in children:
        with contextlib.suppress(Exception):
            p.terminate()
    for p in children:
        with contextlib.suppress(Exception):
            p.join(0.5)
            if p.is_alive():
                p.kill()
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


class _QuietServer(uvicorn.Server):
    """uvicorn re-raises the signal it caught once it has stopped, which shows a traceback from
    inside asyncio; here a signal only asks the server to stop (README.md, The command line: Ctrl-C leaves
    quietly), and starts the clock of :func:`_hard_stop`."""

    interrupted = False
    _watchdog: threading.Thread | None = None

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        def stop(sig: int, _frame: Any) -> None:
            if sig == signal.SIGINT:
                self.interrupted = True
            if self.should_exit:
                # A second Ctrl-C: stop without waiting. uvicorn then logs the cancelled shutdown
                # (starlette's lifespan) as an error with a traceback, which tells the user nothing.
                self.force_exit = True
                logging.getLogger("uvicorn.error").setLevel(logging.CRITICAL)
            self.should_exit = True
            if self._watchdog is None:
                code = 130 if self.interrupted else 0
                self._watchdog = threading.Thread(
                    target=_hard_stop, args=(code, HARD_STOP_SECONDS), name="gamester-stop", daemon=True
                )
                self._watchdog.start()

        old = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for s, h in old.items():
                signal.signal(s, h)
