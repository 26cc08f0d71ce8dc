"""The notifier port: who hears that a table changed.

``LocalNotifier`` calls its listeners in-process. ``PostgresNotifier`` does the same and also sends
``NOTIFY gamester_tables, 'server|table|kind'`` so every other server on the database hears it; a
thread ``LISTEN``s and hands other servers' notices to the listeners (its own are skipped: they were
delivered locally already). A notice is sent only after the transaction that caused it committed.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger("gamester.web")

Listener = Callable[[str, str, bool], None]
"""(table_id, kind, remote): called from any thread."""

CHANNEL = "gamester_tables"


class Notifier(Protocol):
    def publish(self, table_id: str, kind: str) -> None: ...

    def subscribe(self, listener: Listener) -> None: ...

    def on_reconnect(self, fn: Callable[[], None]) -> None:
        """``fn()`` (from any thread) each time the notices from other servers come back after a
        gap: whatever was announced meanwhile was not heard, so the listener must catch up."""
        ...

    def start(self) -> None: ...

    def stop(self) -> None: ...


class LocalNotifier:
    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._reconnect: list[Callable[[], None]] = []

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def on_reconnect(self, fn: Callable[[], None]) -> None:
        self._reconnect.append(fn)  # in-process notices are never lost: never called here

    def publish(self, table_id: str, kind: str) -> None:
        for fn in self._listeners:
            fn(table_id, kind, False)

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass


class PostgresNotifier(LocalNotifier):
    """LISTEN/NOTIFY on one PostgreSQL database (``conninfo``: a libpq URL)."""

    def __init__(self, conninfo: str, server_id: str) -> None:
        super().__init__()
        self.conninfo = conninfo
        self.server_id = server_id
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._sender: threading.Thread | None = None
        self._queue: queue.SimpleQueue[str] = queue.SimpleQueue()

    def publish(self, table_id: str, kind: str) -> None:
        """Tell this server's listeners now, the other servers through a sender thread (the act
        that caused the notice does not wait for the round trip)."""
        super().publish(table_id, kind)
        if kind != "local":
            self._queue.put(f"{self.server_id}|{table_id}|{kind}")

    def _send_loop(self) -> None:
        import psycopg

        conn: psycopg.Connection[object] | None = None
        while not (self._stop.is_set() and self._queue.empty()):
            try:
                batch = [self._queue.get(timeout=0.5)]
            except queue.Empty:
                continue
            while len(batch) < 200:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            # The batch is kept until it is delivered (PostgreSQL restarting, say): a notice dropped
            # here would leave the other servers' sockets behind until their next catch-up.
            attempt = 0
            while True:
                try:
                    if conn is None or conn.closed:
                        conn = psycopg.connect(self.conninfo, autocommit=True, connect_timeout=5)
                    with conn.transaction():  # one commit delivers the whole batch
                        for payload in dict.fromkeys(batch):
                            conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))
                    break
                except Exception as e:  # noqa: BLE001 - a lost connection is reopened
                    if conn is not None:
                        with contextlib.suppress(Exception):
                            conn.close()
                    conn = None
                    attempt += 1
                    if attempt == 2:
                        log.warning("gamester: NOTIFY failed (%s); retrying", type(e).__name__)
                    if attempt > 1 and self._stop.wait(min(2.0, 0.2 * attempt)):
                        break
        if conn is not None:
            conn.close()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._listen, name="gamester-listen", daemon=True)
        self._thread.start()
        self._sender = threading.Thread(target=self._send_loop, name="gamester-notify", daemon=True)
        self._sender.start()

    def stop(self) -> None:
        self._stop.set()
        for t in (self._thread, self._sender):
            if t is not None:
                t.join(timeout=3)

    def _listen(self) -> None:
        import psycopg

        heard_before = False
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.conninfo, autocommit=True, connect_timeout=5) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    if heard_before:
                        # Listening again: anything announced while we were not is read from the
                        # database now (after LISTEN, so nothing falls between the two).
                        log.warning("gamester: LISTEN connection back; catching up")
                        for fn in self._reconnect:
                            try:
                                fn()
                            except Exception as e:  # noqa: BLE001 - keep listening whatever it does
                                log.warning("gamester: catch-up failed: %s", type(e).__name__)
                    heard_before = True
                    quiet = 0
                    while not self._stop.is_set():
                        got = False
                        for n in conn.notifies(timeout=0.5):
                            got = True
                            self._deliver(n.payload)
                        quiet = 0 if got else quiet + 1
                        if quiet >= 10:  # 5 s without a notice: make sure the connection is alive
                            conn.execute("SELECT 1")
                            quiet = 0
            except Exception as e:  # noqa: BLE001 - reconnect after any failure
                if self._stop.is_set():
                    return
                log.warning("gamester: LISTEN connection lost (%s); reconnecting", e)
                self._stop.wait(1.0)

    def _deliver(self, payload: str) -> None:
        server, _, rest = payload.partition("|")
        table_id, _, kind = rest.partition("|")
        if server == self.server_id or not table_id:
            return
        for fn in self._listeners:
            try:
                fn(table_id, kind, True)
            except Exception as e:  # noqa: BLE001 - one bad listener must not stop the thread
                log.warning("gamester: listener failed: %s", e)
