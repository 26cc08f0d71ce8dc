"""Make ``tests/data/web_schema_NNNN.db``: a small database of the web server as an earlier release
left it, made by that release's own code (tests/test_web_db.py upgrades each and plays on).

Run from this checkout's root with the OLD release's ``src`` first on the path::

    git worktree add /tmp/rel COMMIT
    PYTHONPATH=/tmp/rel/src:. python tests/make_web_db.py tests/data/web_schema_NNNN.db \\
        > tests/data/web_schema_NNNN.json

The releases (the last commit of ``main`` before the next schema landed), in docs/deploy.md too:
0002 faa1539, 0003 82738f2, 0004 ad0928c, 0005 12d3025, 0006 da03d36. (0001: tests/make_web_db_0001.py.)

It uses only the HTTP API and the WebSocket as each of those releases served them, through
FastAPI's TestClient on the release's ``create_app``, and does what that release could:
- every release: a finished table of two bots, and a table of two guests six moves in (their seat
  tokens are printed, so a test can play on); with lessons (0002 on) a lesson's table and a review
  of the bots' table;
- with accounts (0003 on): two accounts, a rated table between them played to the end (ratings and
  their history move), chat lines on it and on the unfinished table, and a logged-in session;
- with invites (0004 on): the joins use the creator's invite codes, and a private table waits.
It prints one JSON object: the release's schema, the table ids, the unfinished table's tokens and
``seq``, the accounts' names and password, and the rated table's id.
"""

from __future__ import annotations

import json
import random
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from gamester.web import create_app

PASSWORD = "fixture password 1"


def _limits_off() -> dict[str, Any]:
    try:
        from gamester.web.limits import OFF
    except ImportError:  # a release before the per-address limits
        return {}
    return {"limits": OFF}


def _next_view(ws: Any) -> dict[str, Any]:
    while True:
        m: dict[str, Any] = ws.receive_json()
        if m["type"] == "view":
            return m


def _join(c: TestClient, tid: str, seat: int, name: str, invites: dict[str, str], **headers: str) -> str:
    body: dict[str, Any] = {"seat": seat, "name": name}
    if str(seat) in invites:
        body["invite"] = invites[str(seat)]
    r = c.post(f"/api/tables/{tid}/join", json=body, headers=headers)
    assert r.status_code == 200, r.text
    token: str = r.json()["token"]
    return token


def _create(c: TestClient, body: dict[str, Any], **headers: str) -> tuple[str, dict[str, str]]:
    r = c.post("/api/tables", json={"options": {}, "clock": None, **body}, headers=headers)
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json().get("invites") or {}


def _play(
    c: TestClient, tid: str, tokens: list[str], moves: int | None, rng: random.Random, chat: bool
) -> int:
    """Both seats answer their views with random moves (``moves`` of them, or to the end)."""
    a, b = tokens
    with (
        c.websocket_connect(f"/ws/tables/{tid}?token={a}") as wa,
        c.websocket_connect(f"/ws/tables/{tid}?token={b}") as wb,
    ):
        if chat:
            wa.send_json({"type": "chat", "text": "good luck!"})
            wb.send_json({"type": "chat", "text": "you too"})
        done = 0
        views = [_next_view(wa), _next_view(wb)]
        while views[0]["status"] != "over" and (moves is None or done < moves):
            for i, ws in enumerate((wa, wb)):
                m = views[i]
                if m["legal"] and m["status"] == "playing":
                    ws.send_json({"type": "act", "action": rng.choice(m["legal"]), "seq": m["seq"]})
                    done += 1
                    break
            seq = max(v["seq"] for v in views)
            views = [_until(wa, seq + 1), _until(wb, seq + 1)]
        if chat:
            wa.send_json({"type": "chat", "text": "well played"})
        return int(views[0]["seq"])


def _until(ws: Any, seq: int) -> dict[str, Any]:
    while True:
        m = _next_view(ws)
        if m["seq"] >= seq:
            return m


def main() -> None:
    out = Path(sys.argv[1])
    out.unlink(missing_ok=True)
    rng = random.Random(7)
    url = f"sqlite:///{out}"
    info: dict[str, Any] = {}
    with TestClient(create_app(url, **_limits_off())) as c:
        people = c.get("/api/me").status_code != 404  # 401 for a guest where accounts exist
        bots, _ = _create(c, {"game": "penneech", "seats": ["random", "random"]})
        for _ in range(600):
            if c.get(f"/api/tables/{bots}").json()["status"] == "over":
                break
            time.sleep(0.1)
        waiting, invites = _create(c, {"game": "penneech", "seats": ["human", "human"]})
        has_invites = bool(invites)
        tokens = [_join(c, waiting, 0, "Ann", invites), _join(c, waiting, 1, "Bob", invites)]
        seq = _play(c, waiting, tokens, 6, rng, chat=people)
        info.update(finished=bots, playing=waiting, tokens=tokens, seq=seq, people=people)
        lessons = c.get("/api/tutorials")
        if lessons.status_code == 200:  # lessons and reviews (0002 on)
            first = lessons.json()["tutorials"][0]["id"]
            r = c.post(f"/api/tutorials/{first}", json={})
            assert r.status_code == 201, r.text
            info["lesson"] = r.json()["table"]
            r = c.post(f"/api/tables/{bots}/review", json={"seat": 0})
            assert r.status_code == 202, r.text
            for _ in range(1200):  # a review of a bots' game: a minute or so
                if c.get(f"/api/tables/{bots}/review?seat=0").json()["status"] != "working":
                    break
                time.sleep(0.1)
            info["review"] = c.get(f"/api/tables/{bots}/review?seat=0").json()["status"]
        if people:
            sessions = []
            for name in ("fixture_ann", "fixture_bob"):
                r = c.post("/api/accounts", json={"name": name, "password": PASSWORD})
                assert r.status_code == 201, r.text
                r = c.post("/api/session", json={"name": name, "password": PASSWORD})
                assert r.status_code == 200, r.text
                sessions.append(r.json()["session"])
            c.cookies.clear()
            bearer = [{"Authorization": f"Bearer {s}"} for s in sessions]
            rated, inv = _create(
                c, {"game": "penneech", "seats": ["human", "human"], "rated": True}, **bearer[0]
            )
            seats = [_join(c, rated, i, n, inv, **bearer[i]) for i, n in enumerate(("Ann", "Bob"))]
            _play(c, rated, seats, None, rng, chat=True)
            for _ in range(100):  # the ratings move in the background once the table ends
                r = c.get("/api/players/fixture_ann").json()
                if r.get("ratings"):
                    break
                time.sleep(0.1)
            info.update(
                rated=rated,
                accounts=["fixture_ann", "fixture_bob"],
                password=PASSWORD,
                ratings=c.get("/api/players/fixture_ann").json().get("ratings"),
            )
            if has_invites:
                private, _ = _create(
                    c,
                    {"game": "piquesept", "seats": ["human", "random", "random", "random"], "private": True},
                )
                info["private"] = private
    con = sqlite3.connect(out)
    info["schema"] = con.execute("SELECT version_num FROM alembic_version").fetchone()[0]
    info["rows"] = {
        name: con.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0]
        for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'gm_%'")
    }
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.execute("VACUUM")
    con.close()
    print(json.dumps(info, indent=1, sort_keys=True))


if __name__ == "__main__":  # the bot workers are spawned processes: they import this file again
    main()
