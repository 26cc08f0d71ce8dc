"""Blocks, reports, bans and ``gamester admin`` (docs/web.md, Blocks, reports and bans), on SQLite
and on a real PostgreSQL, one app per database for the module; the admin command runs in-process
on the same database, as a moderator would run it beside the server.

Hostile input to every new endpoint: blocks of oneself and of nobody, reports of nobody, bad tables,
reasons of control characters, a report flood; bans of unknown names and bad table ids.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("argon2")

from fastapi.testclient import TestClient  # noqa: E402

from gamester.play.cli import main  # noqa: E402
from gamester.web import blocks as b  # noqa: E402
from gamester.web import create_app  # noqa: E402
from gamester.web.limits import OFF  # noqa: E402
from tests.pg_support import pg_cluster  # noqa: E402, F401  (a pytest fixture)
from tests.test_web_seeks import fast_accounts, post_seek  # noqa: E402
from tests.web_helpers import next_view  # noqa: E402

pytestmark = pytest.mark.timeout(300)
PASSWORD = "correct horse battery"
_names = itertools.count(1)


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def db(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path_factory.mktemp('blocks') / 'blocks.db'}"
    url: str = request.getfixturevalue("pg_cluster").create_database()
    return url


@pytest.fixture(scope="module")
def c(db: str) -> Iterator[TestClient]:
    with TestClient(create_app(db, limits=OFF)) as client:
        fast_accounts(client)
        yield client


def sign_up(c: TestClient) -> tuple[str, dict[str, str]]:
    name = f"Member{next(_names)}"
    assert c.post("/api/accounts", json={"name": name, "password": PASSWORD}).status_code == 201
    return name, log_in(c, name)


def log_in(c: TestClient, name: str) -> dict[str, str]:
    r = c.post("/api/session", json={"name": name, "password": PASSWORD})
    c.cookies.clear()
    assert r.status_code == 200, r.text
    return {"Authorization": f"Bearer {r.json()['session']}"}


def admin(db: str, *argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(["admin", "--db", db, *argv])
    except SystemExit as e:  # argparse's refusals
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


# -- blocks ----------------------------------------------------------------------------------------
def test_blocks_are_made_listed_and_lifted(c: TestClient) -> None:
    (ann, ha), (bob, _) = sign_up(c), sign_up(c)
    assert c.get("/api/me/blocks").status_code == 401
    assert c.post("/api/me/blocks", json={"name": bob}).status_code == 401, "a guest blocks nobody"
    r = c.post("/api/me/blocks", json={"name": bob.lower()}, headers=ha)
    assert r.status_code == 201 and r.json() == {"name": bob, "blocked": True}
    assert c.post("/api/me/blocks", json={"name": bob}, headers=ha).status_code == 200, "twice is harmless"
    listed = c.get("/api/me/blocks", headers=ha).json()["blocks"]
    assert [x["name"] for x in listed] == [bob] and listed[0]["since"] > 0
    assert c.delete(f"/api/me/blocks/{bob}", headers=ha).json()["blocked"] is False
    assert c.get("/api/me/blocks", headers=ha).json() == {"blocks": []}
    r = c.delete(f"/api/me/blocks/{bob}", headers=ha)
    assert r.status_code == 404 and r.json()["error"] == "not_blocked"
    assert ann


def test_hostile_blocks(c: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    (ann, ha), (bob, _), (cy, _) = sign_up(c), sign_up(c), sign_up(c)
    cases: list[tuple[Any, int, str]] = [
        ({"name": ann}, 422, "bad_block"),
        ({"name": ann.upper()}, 422, "bad_block"),
        ({"name": "nobody-here"}, 404, "no_player"),
        ({"name": "x" * 5000}, 404, "no_player"),
        ({"name": None}, 404, "no_player"),
        ({"name": ["Bob"]}, 404, "no_player"),
        ({"name": "Bob\u202e"}, 404, "no_player"),
        ({"name": bob, "more": 1}, 422, "bad_request"),
        ({}, 422, "bad_request"),
    ]
    for body, status, code in cases:
        r = c.post("/api/me/blocks", json=body, headers=ha)
        assert (r.status_code, r.json()["error"]) == (status, code), (body, r.text)
    r = c.post("/api/me/blocks", content=b"nope", headers={**ha, "Content-Type": "application/json"})
    assert r.status_code == 400
    monkeypatch.setattr(b, "MAX_BLOCKS", 1)
    assert c.post("/api/me/blocks", json={"name": bob}, headers=ha).status_code == 201
    r = c.post("/api/me/blocks", json={"name": cy}, headers=ha)
    assert r.status_code == 422 and r.json()["error"] == "too_many_blocks"
    assert c.delete("/api/me/blocks/%00", headers=ha).status_code == 404


def test_neither_sits_where_the_other_sits(c: TestClient) -> None:
    (ann, ha), (bob, hb), (cy, hc) = sign_up(c), sign_up(c), sign_up(c)
    assert c.post("/api/me/blocks", json={"name": bob}, headers=ha).status_code == 201
    body = {"game": "pentyrch", "seats": ["human", "human", "human", "human"], "open": True}
    for first, second in ((ha, hb), (hb, ha)):  # both ways: the blocker's table and the blocked one's
        r = c.post("/api/tables", json={**body, "join": {"seat": 0}}, headers=first)
        tid = r.json()["id"]
        r = c.post(f"/api/tables/{tid}/join", json={"seat": 1}, headers=second)
        assert r.status_code == 409 and r.json()["error"] == "blocked", r.text
        assert c.post(f"/api/tables/{tid}/join", json={"seat": 1}, headers=hc).status_code == 200
        assert c.post(f"/api/tables/{tid}/join", json={"seat": 2, "name": "Guest"}).status_code == 200
    # Their seeks never share a table; a third player's does.
    seek = {"game": "penneech", "options": {"target": 21}}
    a = post_seek(c, seek, ha)
    bs = post_seek(c, seek, hb)
    assert bs["status"] == "waiting"
    listed = {x["id"] for x in c.get("/api/seeks", headers=ha).json()["seeks"]}
    assert a["seek"] in listed and bs["seek"] not in listed, "a blocked account's seek is hidden from Ann"
    assert a["seek"] not in {x["id"] for x in c.get("/api/seeks", headers=hb).json()["seeks"]}, (
        "and hers from him"
    )
    assert {a["seek"], bs["seek"]} <= {x["id"] for x in c.get("/api/seeks").json()["seeks"]}, (
        "a guest sees both"
    )
    got = post_seek(c, seek, hc)
    assert got["status"] == "matched"
    table = c.get(f"/api/tables/{got['table']}").json()
    assert {s["account"] for s in table["seats"]} in ({ann, cy}, {bob, cy})
    for s in (a,):
        c.delete(f"/api/seeks/{s['seek']}", params={"token": s["token"]})


# -- reports ---------------------------------------------------------------------------------------
def test_reports(c: TestClient, db: str, capsys: pytest.CaptureFixture[str]) -> None:
    (ann, ha), (bob, _) = sign_up(c), sign_up(c)
    tid = c.post("/api/tables", json={"game": "penneech", "seats": ["human", "random"]}).json()["id"]
    assert c.post("/api/reports", json={"name": bob, "reason": "x"}).status_code == 401
    r = c.post("/api/reports", json={"name": bob, "table": tid, "reason": "  rude\n in chat  "}, headers=ha)
    assert r.status_code == 201 and isinstance(r.json()["report"], int)
    cases: list[tuple[Any, int, str]] = [
        ({"name": "nobody-here", "reason": "x"}, 404, "no_player"),
        ({"name": ann, "reason": "x"}, 422, "bad_report"),
        ({"name": bob, "table": "no/such", "reason": "x"}, 404, "no_table"),
        ({"name": bob, "table": "nosuchtable", "reason": "x"}, 404, "no_table"),
        ({"name": bob, "table": 7, "reason": "x"}, 404, "no_table"),
        ({"name": bob, "reason": ""}, 422, "bad_reason"),
        ({"name": bob, "reason": "   "}, 422, "bad_reason"),
        ({"name": bob, "reason": "x" * 1001}, 422, "bad_reason"),
        ({"name": bob, "reason": "a\u200bb"}, 422, "bad_reason"),
        ({"name": bob, "reason": ["x"]}, 422, "bad_reason"),
        ({"name": bob, "reason": "x", "bcc": "y"}, 422, "bad_request"),
    ]
    for body, status, code in cases:
        r = c.post("/api/reports", json=body, headers=ha)
        assert (r.status_code, r.json()["error"]) == (status, code), (body, r.text)
    codes = [c.post("/api/reports", json={"name": bob, "reason": f"again {i}"}, headers=ha) for i in range(5)]
    assert [r.status_code for r in codes] == [201] * (b.REPORTS_A_DAY - 1) + [429], "a few a day"
    code, out, _ = admin(db, "reports", capsys=capsys)
    assert code == 0 and f"{ann} reported {bob} at table {tid}" in out and "rude in chat" in out
    assert all(len(line) <= 80 for line in out.splitlines())
    code, out, _ = admin(db, "reports", "--json", "--limit", "1", capsys=capsys)
    first = json.loads(out.splitlines()[0])
    assert code == 0 and first["reported"] == bob and first["reason"].startswith("again")


# -- bans and the moderator ------------------------------------------------------------------------
def test_a_ban_ends_every_session_at_once_and_keeps_the_results(
    c: TestClient, db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (ann, ha), (bob, hb) = sign_up(c), sign_up(c)
    other_device = log_in(c, ann)
    seek = post_seek(c, {"game": "pentyrch", "players": 2, "options": {"games": 2}}, ha)
    code, out, err = admin(db, "ban", ann.lower(), "--days", "7", "--reason", "abuse in chat", capsys=capsys)
    assert code == 0 and "banned" in out and "2 session(s) ended" in out and "1 seek(s) withdrawn" in out, out
    for h in (ha, other_device):
        assert c.get("/api/me", headers=h).status_code == 401, "every session ended"
    r = c.post("/api/session", json={"name": ann, "password": PASSWORD})
    assert r.status_code == 403 and r.json()["error"] == "banned" and "abuse in chat" in r.json()["message"]
    r = c.post("/api/session", json={"name": ann, "password": "wrong password"})
    assert r.status_code == 401, "the ban is told only to whoever has the password"
    assert (
        c.get(f"/api/seeks/{seek['seek']}", params={"token": seek["token"]}).json()["status"] == "cancelled"
    )
    assert c.get(f"/api/players/{ann}").status_code == 200, "its page and past results stay"
    code, out, _ = admin(db, "unban", ann, capsys=capsys)
    assert code == 0 and "may log in again" in out
    assert c.get("/api/me", headers=log_in(c, ann)).json()["name"] == ann
    code, out, _ = admin(db, "unban", ann, capsys=capsys)
    assert code == 0 and "was not banned" in out
    # For good, then lifted.
    assert admin(db, "ban", bob, capsys=capsys)[0] == 0
    assert (
        c.post("/api/session", json={"name": bob, "password": PASSWORD})
        .json()["message"]
        .endswith("for good")
    )
    assert c.get("/api/me", headers=hb).status_code == 401
    assert admin(db, "unban", bob, capsys=capsys)[0] == 0


def test_the_moderator_deletes_chat(c: TestClient, db: str, capsys: pytest.CaptureFixture[str]) -> None:
    r = c.post(
        "/api/tables",
        json={"game": "penneech", "seats": ["human", "random"], "join": {"seat": 0, "name": "Dan"}},
    )
    tid, token = r.json()["id"], r.json()["token"]
    with c.websocket_connect(f"/ws/tables/{tid}?token={token}") as ws:
        next_view(ws)
        for text in ("hello", "rude words"):
            ws.send_json({"type": "chat", "text": text})
            while (m := ws.receive_json())["type"] != "chat" or m["text"] != text:
                pass
    with c.websocket_connect(f"/ws/tables/{tid}") as ws:
        said = []
        while len(said) < 2:
            m = ws.receive_json()
            if m["type"] == "chat":
                said.append(m["text"])
        assert said == ["hello", "rude words"]
        code, out, err = admin(db, "chat-delete", tid, "--name", "Dan", capsys=capsys)
        assert code == 0 and "deleted 2 chat line(s) said by Dan" in out, (code, out, err)
        if db.startswith("postgresql"):  # the running server hears it at once (SQLite: on the next visit)
            while (m := ws.receive_json())["type"] != "chat_deleted":
                pass
    with c.websocket_connect(f"/ws/tables/{tid}") as ws:
        ws.send_json({"type": "ping"})
        got = []
        while (m := ws.receive_json())["type"] != "pong":
            got.append(m["type"])
        assert "chat" not in got, "a new socket gets no deleted line"


def test_admin_refuses_bad_input_in_one_line(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (
        ("ban", "nobody-at-all"),
        ("ban", "x" * 300),
        ("unban", "nobody-at-all"),
        ("chat-delete", "no/such/table"),
        ("chat-delete", "nosuchtable"),
        ("ban", "whoever", "--days", "0"),
        ("ban", "whoever", "--days", "soon"),
        ("reports", "--limit", "0"),
        ("frobnicate",),
    ):
        code, out, err = admin(db, *argv, capsys=capsys)
        assert code == 2 and not out and len(err.strip().splitlines()) == 1, (argv, out, err)
        assert "Traceback" not in err
    code = main(["admin", "--db", "nosuch://x", "reports"])
    _, err = capsys.readouterr()
    assert code == 2 and len(err.strip().splitlines()) == 1


# -- the chat: blocks and bans ---------------------------------------------------------------------
def chats_until(ws: Any, text: str) -> list[str]:
    """The chat lines a socket gets up to (and with) ``text``."""
    got: list[str] = []
    while True:
        m = ws.receive_json()
        if m["type"] == "error":
            got.append("error:" + m["code"])
            if text == "error":
                return got
        if m["type"] == "chat":
            got.append(m["text"])
            if m["text"] == text:
                return got


def test_a_blocked_accounts_chat_never_reaches_the_blocker(
    c: TestClient, db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (ann, ha), (bob, hb) = sign_up(c), sign_up(c)
    r = c.post("/api/tables", json={"game": "penneech", "seats": ["human", "human"], "open": True,
                                    "join": {"seat": 0}}, headers=ha)  # fmt: skip
    tid, ann_token = r.json()["id"], r.json()["token"]
    bob_token = c.post(f"/api/tables/{tid}/join", json={"seat": 1}, headers=hb).json()["token"]
    assert c.post("/api/me/blocks", json={"name": bob}, headers=ha).status_code == 201
    with (
        c.websocket_connect(f"/ws/tables/{tid}?token={ann_token}") as wa,
        c.websocket_connect(f"/ws/tables/{tid}?token={bob_token}") as wb,
        c.websocket_connect(f"/ws/tables/{tid}") as spectator,
    ):
        wb.send_json({"type": "chat", "text": "from bob"})
        assert chats_until(spectator, "from bob") == ["from bob"]
        assert chats_until(wb, "from bob") == ["from bob"]
        wa.send_json({"type": "chat", "text": "from ann"})
        assert chats_until(wa, "from ann") == ["from ann"], "Bob's line never reached Ann's socket"
        got = chats_until(spectator, "from ann")
        assert got == ["from ann"]
        m = chats_until(wb, "from ann")
        assert m == ["from ann"], "Ann's block does not hide her from Bob"
        # Unblocked: from then on Bob's lines reach her again (the notice reaches her socket).
        assert c.delete(f"/api/me/blocks/{bob}", headers=ha).status_code == 200
        for i in range(4):  # within both sockets' burst of lines; the notice is a moment away
            wb.send_json({"type": "chat", "text": f"bob again {i}"})
            chats_until(wb, f"bob again {i}")
            wa.send_json({"type": "chat", "text": f"marker {i}"})
            if f"bob again {i}" in chats_until(wa, f"marker {i}"):  # his line was stored first
                break
        else:
            raise AssertionError("Bob's lines never reached Ann again after the unblock")
        # A ban: Bob's socket still holds its seat, but his lines are refused.
        assert admin(db, "ban", bob, capsys=capsys)[0] == 0
        wb.send_json({"type": "chat", "text": "after the ban"})
        assert chats_until(wb, "error")[-1] == "error:banned"
        admin(db, "unban", bob, capsys=capsys)
    # A new socket of Ann's gets the history without the line Bob said while she blocked him.
    with c.websocket_connect(f"/ws/tables/{tid}?token={ann_token}") as wa:
        history = chats_until(wa, "marker 0")
        assert "from bob" in history, "unblocked now: the history shows him again"
    assert c.post("/api/me/blocks", json={"name": bob}, headers=ha).status_code == 201
    with c.websocket_connect(f"/ws/tables/{tid}?token={ann_token}") as wa:
        wa.send_json({"type": "chat", "text": "marker"})
        assert "from bob" not in chats_until(wa, "marker"), (
            "blocked again: his lines are hidden in the history"
        )
    first = c.get(f"/api/tables/{tid}").json()
    assert [s["account"] for s in first["seats"]] == [ann, bob]


def test_a_table_id_can_be_typed_after_a_command() -> None:
    """A table id is given to ``gamester admin chat-delete ID``: one starting with ``-`` was read as an
    option (1 id in 64; this test's own table met it in CI). New ids never start with it."""
    from gamester.web.validate import TABLE_ID, new_table_id

    ids = [new_table_id() for _ in range(2000)]  # the old ids: one in 64 began with "-"
    assert all(TABLE_ID.match(i) and len(i) == 16 and not i.startswith("-") for i in ids)
    assert len(set(ids)) == len(ids)
