"""The notifier port: who hears that a table changed.

``LocalNotifier`` calls its listeners in-process. ``PostgresNotifier`` does the same and also sends
``NOTIFY gamester_tables, 'server|table|kind'`` so every other server on the database hears it; a
thread ``LISTEN``s and hands other servers' notices to the listeners (its own are skipped: they were
delivered locally already). A notice is sent only after the transaction that caused it committed.
"""

from __future__ import annotations

import logging
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

    def start(self) -> None: ...

    def stop(self) -> None: ...


class LocalNotifier:
    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

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
        self._send_lock = threading.Lock()
        self._send_conn: object | None = None

    def _sender(self) -> object:
        import psycopg

        if self._send_conn is None or getattr(self._send_conn, "closed", True):
            self._send_conn = psycopg.connect(self.conninfo, autocommit=True)
        return self._send_conn

    def publish(self, table_id: str, kind: str) -> None:
        super().publish(table_id, kind)
        if kind == "local":
            return
        payload = f"{self.server_id}|{table_id}|{kind}"
        for attempt in range(2):
            try:
                with self._send_lock:
                    conn = self._sender()
                    conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))  # type: ignore[attr-defined]
                return
            except Exception as e:  # noqa: BLE001 - a lost connection is reopened once
                self._send_conn = None
                if attempt:
                    log.warning("gamester: NOTIFY failed: %s", e)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._listen, name="gamester-listen", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=3)

    def _listen(self) -> None:
        import psycopg

        while not self._stop.is_set():
            try:
                with psycopg.connect(self.conninfo, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    while not self._stop.is_set():
                        for n in conn.notifies(timeout=0.5):
                            self._deliver(n.payload)
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
