"""Faults a stranger (or bad luck) can cause at a live table, each checked through the TestClient on a
temporary SQLite database (the PostgreSQL and restart cases are in test_web_faults_servers.py):

- ``/api/health`` reports whether the database takes a write, with a real (rolled back) write,
  bounded in time; a SQLite file deleted under the running server refuses every later write with
  ``unavailable`` instead of taking moves into a file that no longer exists.
- A token that leaves is void at once on every socket, however the socket's opening and the leave
  interleave.
- Leaving never waits on a client that does not answer its close.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from tests.web_helpers import client_on, join, new_table, next_view  # noqa: E402

pytestmark = pytest.mark.timeout(180)


def _answer(ws: Any) -> dict[str, Any]:
    """The next view or error (``table`` notices skipped)."""
    while True:
        m: dict[str, Any] = ws.receive_json()
        if m["type"] in ("view", "error"):
            return m


def test_health_reports_a_writable_database(tmp_path: Path) -> None:
    with client_on(tmp_path / "h.db") as c:
        r = c.get("/api/health")
        assert r.status_code == 200 and r.json().items() >= {"ok": True, "database": "ok"}.items()
        # the probe wrote nothing that stays: no table appears
        assert c.get("/api/tables").json()["tables"] == []


@pytest.mark.slow
def test_health_is_bounded_when_the_database_does_not_take_writes(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    with client_on(db) as c:
        other = sqlite3.connect(db, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process holds SQLite's one writer slot
        try:
            r = c.get("/api/health")
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert r.status_code == 503
        body = r.json()
        assert body["ok"] is False and ("locked" in body["database"] or "did not" in body["database"])
        assert c.get("/api/health").status_code == 200  # and it comes back


def test_deleted_sqlite_file_refuses_every_write(tmp_path: Path) -> None:
    db = tmp_path / "gone.db"
    with client_on(db) as c:
        tid = new_table(c, "penneech", ["human", "human"])
        t0, t1 = join(c, tid, 0), join(c, tid, 1)
        with c.websocket_connect(f"/ws/tables/{tid}?token={t0}") as ws0:
            first = next_view(ws0)
            assert first["status"] == "playing"
            for suffix in ("", "-wal", "-shm"):
                Path(f"{db}{suffix}").unlink(missing_ok=True)
            r = c.get("/api/health")
            assert r.status_code == 503 and r.json()["ok"] is False
            assert "gone" in r.json()["database"]
            r = c.post("/api/tables", json={"game": "penneech", "seats": ["human", "random"]})
            assert r.status_code == 503 and r.json()["error"] == "unavailable"
            r = c.post(f"/api/tables/{tid}/leave", json={"token": t1})
            assert r.status_code == 503 and r.json()["error"] == "unavailable"
            # a move: refused, and no view of a position that could not be stored
            mover = ws0 if first["legal"] else None
            if mover is None:
                with c.websocket_connect(f"/ws/tables/{tid}?token={t1}") as ws1:
                    v1 = next_view(ws1)
                    ws1.send_json({"type": "act", "action": v1["legal"][0], "seq": v1["seq"]})
                    err = _answer(ws1)
            else:
                ws0.send_json({"type": "act", "action": first["legal"][0], "seq": first["seq"]})
                err = _answer(ws0)
            assert err["type"] == "error" and err["code"] == "unavailable", err
            assert c.get(f"/api/tables/{tid}").json()["seq"] == 0
