"""Accounts (docs/web.md, People: Accounts and sessions): log-ins that do not tell whether a name
exists, the log-in throttle shared by every server on one database (migration 0005), changing the
password and deleting the account, on SQLite and on a real PostgreSQL (tests/pg_support.py).

Hostile input to each new endpoint: wrong types, unknown fields, no body, forged sessions, and
another account's session with this account's password.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("argon2")

import sqlalchemy as sa  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from gamester.store import open_repository  # noqa: E402
from gamester.store.port import Bucket  # noqa: E402
from gamester.web import create_app  # noqa: E402
from gamester.web.accounts import DELETED, People  # noqa: E402
from gamester.web.limits import OFF  # noqa: E402
from tests.pg_support import pg_cluster, postgres_url  # noqa: E402, F401  (pytest fixtures)
from tests.test_web_people import PASSWORD, db_url, sign_up  # noqa: E402, F401  (db_url: a fixture)
from tests.web_helpers import database_at, head_revision, invited, play_to_end, remember  # noqa: E402

pytestmark = pytest.mark.timeout(300)

NEW_PASSWORD = "a new and longer secret"


@pytest.fixture
def c(db_url: str) -> Iterator[TestClient]:  # noqa: F811
    with TestClient(create_app(db_url, limits=OFF)) as client:
        yield client


def people_of(c: TestClient) -> People:
    p: People = c.app.state.people  # type: ignore[attr-defined]
    return p


def freeze(*clients: TestClient) -> None:
    """No try comes back during the test, however slow the machine."""
    for c in clients:
        p = people_of(c)
        p.by_pair.every = p.by_address.every = p.by_device.every = p.signups.every = 1e6


def log_in(c: TestClient, name: str, password: str) -> Any:
    r = c.post("/api/session", json={"name": name, "password": password})
    c.cookies.clear()
    return r


def bearer(session: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {session}"}


def delete_me(c: TestClient, headers: dict[str, str] | None = None, **kwargs: Any) -> Any:
    return c.request("DELETE", "/api/me", headers=headers, **kwargs)


# -- a log-in tells nothing about whether a name exists ------------------------------------------
def test_an_unknown_name_gets_the_answer_and_the_work_of_a_wrong_password(
    c: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both run one argon2 verification (the unknown name against the dummy hash) and get the same
    status, body and headers but the date; neither is given a cookie."""
    sign_up(c, "Ann")
    checked: list[str] = []
    real = People.verify

    def counting(self: People, stored: str, password: str) -> bool:
        checked.append(stored)
        return real(self, stored, password)

    monkeypatch.setattr(People, "verify", counting)
    wrong = c.post("/api/session", json={"name": "Ann", "password": "not the password"})
    unknown = c.post("/api/session", json={"name": "Nobody_here", "password": "not the password"})
    assert len(checked) == 2 and all(h.startswith("$argon2id$") for h in checked), checked
    assert checked[0] != checked[1], "the unknown name was checked against the dummy hash"
    assert (wrong.status_code, wrong.json()) == (unknown.status_code, unknown.json())
    assert wrong.json() == {"error": "bad_login", "message": "wrong name or password"}
    drop = {"date"}
    assert {k: v for k, v in wrong.headers.items() if k not in drop} == {
        k: v for k, v in unknown.headers.items() if k not in drop
    }
    assert "set-cookie" not in wrong.headers
    again = c.post("/api/session", json={"name": "Other_one", "password": "x" * 8})
    assert len(checked) == 3 and checked[2] == checked[1], "one dummy hash per process"
    assert again.json() == unknown.json()


# -- the throttle, shared through the database --------------------------------------------------
@pytest.mark.slow
def test_failed_log_ins_of_a_name_are_counted_across_servers_and_restarts(db_url: str) -> None:  # noqa: F811
    """Two servers on one database: 3 failures on one and 2 on the other use up the name's 5; both
    then refuse it, even with the right password, with a 429 line and Retry-After; another name is
    not affected; a server started afterwards on the database refuses it too."""
    with (
        TestClient(create_app(db_url, limits=OFF)) as one,
        TestClient(create_app(db_url, limits=OFF)) as two,
    ):
        freeze(one, two)
        sign_up(one, "Cat")
        sign_up(one, "Dan")
        codes = [log_in(s, "cat", "wrong password").status_code for s in (one, one, two, one, two)]
        assert codes == [401] * 5
        for server in (one, two):
            r = log_in(server, "Cat", PASSWORD)
            assert r.status_code == 429 and r.json()["error"] == "rate_limited", r.text
            assert int(r.headers["retry-after"]) >= 1 and "\n" not in r.json()["message"]
            assert r.json()["message"].startswith("too many log-ins; try again in ")
        assert log_in(two, "Dan", PASSWORD).status_code == 200, "one name's limit is its own"
    with TestClient(create_app(db_url, limits=OFF)) as three:
        freeze(three)
        assert log_in(three, "Cat", PASSWORD).status_code == 429, "the count outlives the servers"


@pytest.mark.slow
def test_a_right_password_gives_its_try_back(c: TestClient) -> None:
    freeze(c)
    sign_up(c, "Eve")
    for _ in range(10):
        assert log_in(c, "Eve", PASSWORD).status_code == 200
    assert [log_in(c, "Eve", "wrong password").status_code for _ in range(6)] == [401] * 5 + [429]


@pytest.mark.slow  # many log-ins at once, each an argon2 verification
def test_tries_sent_at_once_to_two_servers_pass_the_limit_no_more_than_five_times(
    db_url: str,  # noqa: F811
) -> None:
    """Twelve wrong log-ins of one name from one address at the same moment, half on each server: a
    try is taken before the password is checked, so at most five are checked (401) and the rest are
    refused (429)."""
    with (
        TestClient(create_app(db_url, limits=OFF)) as one,
        TestClient(create_app(db_url, limits=OFF)) as two,
    ):
        freeze(one, two)
        sign_up(one, "Fay")
        codes: list[int] = []
        lock = threading.Lock()
        barrier = threading.Barrier(12)

        def attempt(server: TestClient) -> None:
            barrier.wait()
            r = server.post("/api/session", json={"name": "Fay", "password": "wrong password"})
            with lock:
                codes.append(r.status_code)

        threads = [threading.Thread(target=attempt, args=((one, two)[i % 2],)) for i in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        # At most five checked; the rest refused, for the name's tries or for the address's share of
        # the hashing line (two at once per server), which spends no try.
        assert 1 <= codes.count(401) <= 5 and codes.count(401) + codes.count(429) == 12, codes


@pytest.mark.slow
def test_sign_ups_from_one_address_are_counted_across_servers(db_url: str) -> None:  # noqa: F811
    with (
        TestClient(create_app(db_url, limits=OFF)) as one,
        TestClient(create_app(db_url, limits=OFF)) as two,
    ):
        freeze(one, two)
        codes = [
            (one, two)[i % 2]
            .post("/api/accounts", json={"name": f"Signer{i}", "password": PASSWORD})
            .status_code
            for i in range(11)
        ]
        assert codes == [201] * 10 + [429]
        r = one.post("/api/accounts", json={"name": "Late_one", "password": PASSWORD})
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1


def test_full_buckets_are_forgotten_and_a_clock_behind_refills_nothing(c: TestClient) -> None:
    """The store's side of the throttle: a bucket fills again with time; a server whose clock is
    behind the bucket's time neither refills it nor moves it back; full buckets can be dropped."""
    store = people_of(c).store
    gus = Bucket("login_name", "gus", 2, 10.0)
    waits = [store.take_tokens([gus], 1000.0) for _ in range(3)]
    assert waits[:2] == [0.0, 0.0] and waits[2] == pytest.approx(10.0)
    assert store.take_tokens([gus], 990.0) == pytest.approx(10.0), "clock behind"
    assert store.take_tokens([gus], 1005.0) == pytest.approx(5.0)
    assert store.take_tokens([gus], 1010.0) == 0.0, "one try back per period"
    store.give_tokens([gus])
    assert store.take_tokens([gus], 1010.0) == 0.0, "given back"
    assert store.forget_full_buckets("login_name", 1000.0) == 0, "touched since"
    assert store.forget_full_buckets("signup", 2000.0) == 0, "another kind is left alone"
    assert store.forget_full_buckets("login_name", 2000.0) == 1
    assert store.take_tokens([gus], 1010.0) == 0.0, "a forgotten bucket is full"
    # All or none: a bucket that refuses leaves the others untouched.
    empty, roomy = Bucket("signup", "a", 1, 10.0), Bucket("signup", "b", 1, 10.0)
    assert store.take_tokens([empty], 1000.0) == 0.0
    assert store.take_tokens([roomy, empty], 1000.0) == pytest.approx(10.0)
    assert store.take_tokens([roomy], 1000.0) == 0.0, "roomy's try was not taken by the refused pair"


# -- migration 0005 ------------------------------------------------------------------------------
def test_a_database_at_0004_upgrades_keeps_its_tables_and_accounts_and_throttles(
    db_url: str,  # noqa: F811
) -> None:
    """What the previous release left (revision 0004, a table waiting and an account) is upgraded
    at start: the table and the account are kept and log-ins of the account are throttled."""
    from argon2 import PasswordHasher

    hashed = PasswordHasher().hash(PASSWORD)
    database_at(
        db_url,
        "0004",
        "INSERT INTO gm_tables (id, game, options, seed, chance, clock, status, seq, created) "
        f"VALUES ('old', 'penneech', '{{}}', 7, '[]', NULL, 'waiting', 0, {time.time()})",
        "INSERT INTO gm_seats (table_id, seat, kind, name) VALUES ('old', 0, 'human', NULL)",
        "INSERT INTO gm_seats (table_id, seat, kind, agent) VALUES ('old', 1, 'bot', 'random')",
        "INSERT INTO gm_accounts (key, name, password_hash, seat_key, created) "
        f"VALUES ('olda', 'OldA', '{hashed}', '{'ab' * 32}', 1.0)",
    )
    with TestClient(create_app(db_url, limits=OFF)) as c:
        freeze(c)
        got = c.get("/api/tables/old")
        assert got.status_code == 200 and got.json()["status"] == "waiting"
        assert log_in(c, "OldA", PASSWORD).status_code == 200, "the account of before logs in"
        assert [log_in(c, "olda", "wrong password").status_code for _ in range(6)] == [401] * 5 + [429]
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            version = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()
            assert version == head_revision()
            rows = conn.execute(sa.text("SELECT kind, key, tokens FROM gm_throttle ORDER BY kind")).all()
    finally:
        engine.dispose()
    assert [(k, key) for k, key, _ in rows] == [
        ("login_address", "testclient"),
        ("login_pair", "olda|testclient"),
    ]
    assert all(tokens >= 0 for _, _, tokens in rows)


def test_the_migrations_make_exactly_the_schema_the_code_uses(db_url: str) -> None:  # noqa: F811
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from gamester.store.schema import metadata

    open_repository(db_url).dispose()
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), metadata)
    finally:
        engine.dispose()
    assert diff == [], diff


# -- changing the password -----------------------------------------------------------------------
@pytest.mark.slow
def test_a_new_password_ends_every_other_session_and_keeps_this_one(c: TestClient) -> None:
    first = sign_up(c, "Gil")
    others = [bearer(log_in(c, "Gil", PASSWORD).json()["session"]) for _ in range(2)]
    cookie_session = c.post("/api/session", json={"name": "Gil", "password": PASSWORD})
    assert cookie_session.status_code == 200  # the client keeps this one as its cookie
    r = c.post("/api/me/password", json={"old": PASSWORD, "new": NEW_PASSWORD}, headers=first)
    assert r.status_code == 200 and r.json() == {"name": "Gil", "ended": 3}, r.text
    assert c.get("/api/me", headers=first).json()["name"] == "Gil", "this session stays"
    for h in others:
        assert c.get("/api/me", headers=h).status_code == 401
    assert c.get("/api/session").json() == {"name": None}, "the cookie's session ended too"
    c.cookies.clear()
    assert log_in(c, "Gil", PASSWORD).status_code == 401
    assert log_in(c, "Gil", NEW_PASSWORD).status_code == 200
    # From the cookie: that session is the one kept.
    c.post("/api/session", json={"name": "Gil", "password": NEW_PASSWORD})
    r = c.post("/api/me/password", json={"old": NEW_PASSWORD, "new": PASSWORD})
    assert r.status_code == 200 and r.json()["ended"] == 2
    assert c.get("/api/me").json()["name"] == "Gil"
    assert c.get("/api/me", headers=first).status_code == 401


@pytest.mark.slow
def test_password_change_refusals(c: TestClient) -> None:
    freeze(c)
    gil, hal = sign_up(c, "Gil"), sign_up(c, "Hal")
    url = "/api/me/password"
    ok = {"old": PASSWORD, "new": NEW_PASSWORD}
    assert c.post(url, json=ok).status_code == 401, "a guest"
    for forged in (
        "Bearer nonsense",
        "Bearer " + "A" * 43,
        "Bearer ",
        "Basic R2lsOnB3",
        "Bearer " + "x" * 5000,
    ):
        r = c.post(url, json=ok, headers={"Authorization": forged})
        assert r.status_code == 401, forged
    c.cookies.set("gamester_session", "forged")
    assert c.post(url, json=ok).status_code == 401
    c.cookies.clear()
    for body in (
        {"old": PASSWORD, "new": NEW_PASSWORD, "name": "Hal"},
        {"old": PASSWORD, "new": NEW_PASSWORD, "session": "x"},
        {"password": PASSWORD},
    ):
        r = c.post(url, json=body, headers=gil)
        assert r.status_code == 422 and "unknown field" in r.json()["message"], body
    for old in (None, 5, ["x"], "", "y" * 201, {"a": 1}, True):
        r = c.post(url, json={"old": old, "new": NEW_PASSWORD}, headers=gil)
        assert r.status_code == 422 and r.json()["error"] == "bad_request", old
    for new in (None, 12345678, "short", "        ", "z" * 201, ["a" * 8]):
        r = c.post(url, json={"old": PASSWORD, "new": new}, headers=gil)
        assert r.status_code == 422 and r.json()["error"] == "bad_password", new
        assert r.json()["message"].startswith("new: ")
    assert c.post(url, content=b"{", headers={**gil, "content-type": "application/json"}).status_code == 400
    assert c.post(url, json=[ok], headers=gil).status_code == 400
    assert c.post(url, data=ok, headers=gil).status_code == 415
    r = c.post(url, json={"old": "not the password", "new": NEW_PASSWORD}, headers=gil)
    assert r.status_code == 403 and r.json() == {
        "error": "wrong_password",
        "message": "old: not this account's password",
    }
    # Another account: Hal's session with Gil's password changes nothing of Gil's.
    assert c.post(url, json=ok, headers=hal).status_code == 200, "Gil's password happens to be Hal's"
    assert log_in(c, "Hal", NEW_PASSWORD).status_code == 200
    assert log_in(c, "Gil", PASSWORD).status_code == 200 and log_in(c, "Gil", NEW_PASSWORD).status_code == 401
    assert c.get("/api/me", headers=gil).json()["name"] == "Gil", "nothing of Gil's ended"
    # Wrong old passwords are log-in failures of the name: throttled like them.
    codes = [
        c.post(url, json={"old": "wrong one!", "new": NEW_PASSWORD}, headers=gil).status_code
        for _ in range(5)
    ]
    assert codes == [403] * 3 + [429] * 2, "two failures of Gil spent above (log-in and change)"
    r = c.post(url, json=ok, headers=gil)
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1


# -- deleting the account ------------------------------------------------------------------------
@pytest.mark.slow  # plays a game to its end
def test_a_deleted_account_leaves_its_finished_tables_as_a_deleted_guests(c: TestClient, db_url: str) -> None:  # noqa: F811
    """Sessions, log-in, ratings and rating history go; the finished rated table stays, its record
    and replay as before, its seat shown as "deleted" (a guest's); the bot's rating stays; the name
    is free again and a new owner of it inherits nothing."""
    ivy = sign_up(c, "Ivy")
    second = bearer(log_in(c, "Ivy", PASSWORD).json()["session"])
    body = {"game": "penneech", "seats": ["human", "random"], "rated": True,
            "options": {"objective": "deal"}}  # fmt: skip
    tid = remember(c.post("/api/tables", json=body, headers=ivy)).json()["id"]
    token = c.post(f"/api/tables/{tid}/join", json=invited(tid, {"seat": 0}), headers=ivy).json()["token"]
    with c.websocket_connect(f"/ws/tables/{tid}?token={token}") as ws:
        ws.send_json({"type": "chat", "text": "good game"})
        while ws.receive_json()["type"] != "chat":
            pass
    play_to_end(c, tid, [token])
    store = people_of(c).store
    for _ in range(600):  # the rating moves just after the end, beside the last view
        if store.ratings_of("ivy"):
            break
        threading.Event().wait(0.05)
    assert store.ratings_of("ivy")["penneech"].games == 1
    assert [p["name"] for p in c.get("/api/leaderboard/penneech").json()["players"]] == ["Ivy"]
    record = c.get(f"/api/tables/{tid}/record").json()
    replay = c.get(f"/api/tables/{tid}/replay").json()
    assert [m["name"] for m in store.last_chat(tid, 10)] == ["Ivy"]

    r = delete_me(c, ivy, json={"password": PASSWORD})
    assert r.status_code == 200 and r.json() == {"ok": True, "name": "Ivy", "deleted": True}, r.text
    for h in (ivy, second):
        assert c.get("/api/me", headers=h).status_code == 401
    assert log_in(c, "Ivy", PASSWORD).status_code == 401
    assert c.get("/api/players/Ivy").status_code == 404
    assert c.get("/api/leaderboard/penneech").json()["players"] == []
    assert store.ratings_of("ivy") == {} and store.history_of("ivy", 10) == []
    assert store.ratings_of("bot:random")["penneech"].games == 1, "the bot's rating is the bot's"
    table = c.get(f"/api/tables/{tid}").json()
    assert table["status"] == "over" and table["seats"][0]["name"] == DELETED
    assert table["seats"][0]["account"] is None
    assert c.get(f"/api/tables/{tid}/record").json() == record, "the record is as it was"
    assert c.get(f"/api/tables/{tid}/replay").json() == replay
    from gamester import replay as replay_record

    assert replay_record(record).is_terminal(), "and it still replays to its end"
    assert [m["name"] for m in store.last_chat(tid, 10)] == [DELETED]
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            everywhere = [
                list(r)
                for q in (
                    "SELECT key, name FROM gm_accounts",
                    "SELECT account FROM gm_sessions",
                    "SELECT account FROM gm_ratings",
                    "SELECT account FROM gm_rating_history",
                    "SELECT name, account FROM gm_seats",
                    "SELECT name FROM gm_chat",
                )
                for r in conn.execute(sa.text(q))
            ]
    finally:
        engine.dispose()
    assert "ivy" not in repr(everywhere).casefold(), "the name is in no column that holds names"
    # The name is free; its new owner has no past.
    sign_up(c, "Ivy")
    assert c.get("/api/players/Ivy").json()["tables"] == []
    assert c.get("/api/players/Ivy").json()["ratings"] == {}


def test_deletion_waits_for_the_accounts_unfinished_tables(c: TestClient) -> None:
    jo = sign_up(c, "Joe")
    tid = remember(c.post("/api/tables", json={"game": "penneech", "seats": ["human", "human"]})).json()["id"]
    token = c.post(f"/api/tables/{tid}/join", json=invited(tid, {"seat": 0}), headers=jo).json()["token"]
    r = delete_me(c, jo, json={"password": PASSWORD})
    assert r.status_code == 409 and r.json()["error"] == "seated" and tid in r.json()["message"]
    assert c.get("/api/me", headers=jo).json()["name"] == "Joe", "nothing was deleted"
    assert c.get(f"/api/tables/{tid}").json()["seats"][0]["account"] == "Joe"
    assert c.post(f"/api/tables/{tid}/leave", json={"token": token}).status_code == 200
    assert delete_me(c, jo, json={"password": PASSWORD}).status_code == 200
    assert c.get(f"/api/tables/{tid}").json()["seats"][0]["name"] is None


@pytest.mark.slow
def test_account_deletion_refusals(c: TestClient) -> None:
    freeze(c)
    kim, lee = sign_up(c, "Kim"), sign_up(c, "Lee")
    ok = {"password": PASSWORD}
    assert delete_me(c, json=ok).status_code == 401, "a guest"
    for forged in (
        "Bearer nonsense",
        "Bearer " + "A" * 43,
        "Bearer ",
        "Basic S2ltOnB3",
        "Bearer " + "x" * 5000,
    ):
        assert delete_me(c, {"Authorization": forged}, json=ok).status_code == 401, forged
    c.cookies.set("gamester_session", "forged")
    assert delete_me(c, json=ok).status_code == 401
    c.cookies.clear()
    for body in (
        {"password": PASSWORD, "name": "Lee"},
        {"old": PASSWORD},
        {"password": PASSWORD, "all": True},
    ):
        r = delete_me(c, kim, json=body)
        assert r.status_code == 422 and "unknown field" in r.json()["message"], body
    for password in (None, 5, ["x"], "", "y" * 201, {"a": 1}, False):
        r = delete_me(c, kim, json={"password": password})
        assert r.status_code == 422 and r.json()["error"] == "bad_request", password
    assert delete_me(c, kim, json={}).status_code == 422, "no password"
    assert delete_me(c, kim).status_code == 400, "no body"
    assert delete_me(c, {**kim, "content-type": "application/json"}, content=b"{").status_code == 400
    assert delete_me(c, kim, data=ok).status_code == 415
    r = delete_me(c, kim, json={"password": "not the password"})
    assert r.status_code == 403 and r.json() == {
        "error": "wrong_password",
        "message": "password: not this account's password",
    }
    # Another account: Lee's session with Kim's password deletes Lee (the same password), never Kim.
    assert delete_me(c, lee, json=ok).status_code == 200
    assert c.get("/api/players/Lee").status_code == 404
    assert c.get("/api/me", headers=kim).json()["name"] == "Kim"
    assert delete_me(c, lee, json=ok).status_code == 401, "a deleted account's session is no session"
    codes = [delete_me(c, kim, json={"password": "wrong one!"}).status_code for _ in range(5)]
    assert codes == [403] * 4 + [429], "one failure of Kim spent above"
    assert c.get("/api/players/Kim").status_code == 200
