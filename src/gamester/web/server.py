"""Run the app on uvicorn: ``gamester serve [--host] [--port] [--db]``.

The database is opened (and migrated) before the port is bound, so a bad ``--db`` is one line and
exit status 2; the address and the database are printed once the server is listening. Ctrl-C or
SIGTERM stop it quietly.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import ipaddress
import logging
import signal
import socket
import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import uvicorn

from gamester.core.columns import WIDTH, fit, say_error
from gamester.store import default_sqlite_url, make_engine, open_repository
from gamester.web.app import create_app
from gamester.web.connections import guarded_protocol
from gamester.web.guard import LOOPBACK_NAMES, hostname, netloc
from gamester.web.limits import LimitsError
from gamester.web.limits import load as load_limits
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
) -> int:
    url = db or default_sqlite_url()
    try:
        chosen = load_limits(limits)
    except LimitsError as e:
        say_error(f"gamester serve: {e}")
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
    if url.startswith("sqlite"):
        # The URL (for --db) and the file: on one line if it fits, else the file on the next.
        path = url.split(":///", 1)[1]
        line = f"gamester: database {url} (file {path})"
        print(line if len(line) <= WIDTH else f"gamester: database {url}\n  the file: {path}", flush=True)
    else:
        print(fit(f"gamester: database {_shown(url)}"), flush=True)
    shown_host = f"[{host}]" if ":" in host else host
    actual_port = sock.getsockname()[1]
    print(f"gamester: serving on http://{shown_host}:{actual_port}/ (Ctrl-C stops)", flush=True)
    app = create_app(
        url, limits=chosen, allow_origins=allow_origins, allow_hosts=answers_to(host, allow_hosts)
    )
    app.state.freeze_gc = True
    config = uvicorn.Config(
        app,
        log_level="warning",
        ws_max_size=MAX_WS_MESSAGE + 1024,
        lifespan="on",
        # Header size and time limits and the per-address connection cap (docs/web.md, On the internet).
        http=guarded_protocol(chosen),
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


class _QuietServer(uvicorn.Server):
    """uvicorn re-raises the signal it caught once it has stopped, which shows a traceback from
    inside asyncio; here a signal only asks the server to stop (README.md, The command line: Ctrl-C leaves
    quietly)."""

    interrupted = False

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

        old = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for s, h in old.items():
                signal.signal(s, h)
