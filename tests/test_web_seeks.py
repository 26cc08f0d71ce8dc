"""Quick play, the lobby socket, your tables and slow clocks (docs/web.md, Quick play … Slow games),
on SQLite and on a real PostgreSQL (tests/pg_support.py), one app per database for the module.

The rules themselves (who sits with whom, the rating window, bots) are tested as pure functions
first; then the API and the sockets; then the store with its own clock (expiry, bots due after a
restart); then hostile input to every new endpoint and message. Two servers on one PostgreSQL, and
many seeks racing, are in tests/test_web_seeks_servers.py.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("argon2")

from fastapi.testclient import TestClient  # noqa: E402

from gamester.store.port import Pool, SeekRow  # noqa: E402
from gamester.store.seeks import SeekStore  # noqa: E402
from gamester.web import create_app  # noqa: E402
from gamester.web import seeks as sk  # noqa: E402
from gamester.web.limits import OFF, Limits  # noqa: E402
from tests.pg_support import pg_cluster  # noqa: E402, F401  (a pytest fixture)
from tests.web_helpers import next_view  # noqa: E402

pytestmark = pytest.mark.timeout(300)
PASSWORD = "correct horse battery"
_names = itertools.count(1)


# -- the rules, as pure functions ---------------------------------------------------------------------
def seek(i: int, *, at: float = 0.0, account: str | None = None, rating: float | None = None,
         rated: bool = False, bots: float | None = None, players: int = 2) -> SeekRow:  # fmt: skip
    return SeekRow(
        id=f"s{i}", token_hash=f"{i:064d}", pool="p", game="penneech", options={}, players=players,
        rated=rated, clock=None, bots_after=bots, fill_at=None if bots is None else at + bots,
        account=account, name=account or "Guest", rating=rating, address_key="a", status="waiting",
        created=at, polled=at,
    )  # fmt: skip


def test_the_rating_window_starts_at_200_and_widens_with_time_waited() -> None:
    assert sk.window(0) == sk.window(9.9) == 200
    assert sk.window(10) == 250 and sk.window(60) == 500
    assert sk.window(10_000) == sk.MAX_WINDOW


def test_who_may_sit_together() -> None:
    a, b = seek(1, account="ann", rating=1500, rated=True), seek(2, account="bob", rating=1690, rated=True)
    assert sk.fits(a, b, frozenset(), now=0)
    assert not sk.fits(a, seek(3, account="cy", rating=1701, rated=True), frozenset(), now=0)
    assert sk.fits(a, seek(3, account="cy", rating=1701, rated=True), frozenset(), now=10), "wider after 10 s"
    assert not sk.fits(a, b, frozenset({("bob", "ann")}), now=0), "a block either way"
    assert not sk.fits(a, b, frozenset({("ann", "bob")}), now=0)
    assert not sk.fits(a, seek(4, account="ann", rating=1500, rated=True), frozenset(), now=0), "oneself"
    assert sk.fits(seek(5), seek(6), frozenset(), now=0), "two guests, unrated"
    assert not sk.fits(a, seek(7, rated=True), frozenset(), now=0), "rated: accounts only"


def test_the_oldest_full_group_sits_first_and_bots_fill_only_for_the_willing() -> None:
    pool = Pool(
        [seek(1, at=0, bots=5, players=4), seek(2, at=1, players=4), seek(3, at=2, bots=60, players=4)]
    )
    assert sk.choose(pool, now=4) is None, "three of four, no bots due yet"
    group, bots = sk.choose(pool, now=5) or ([], -1)
    assert [s.id for s in group] == ["s1", "s3"] and bots == 2, "s2 wants people only"
    full = Pool([*pool.seeks, seek(4, at=3, players=4)])
    group, bots = sk.choose(full, now=5) or ([], -1)
    assert [s.id for s in group] == ["s1", "s2", "s3", "s4"] and bots == 0, "people before bots"
    blocked = Pool(
        [seek(1, account="a"), seek(2, account="b"), seek(3, account="c")], frozenset({("a", "b")})
    )
    group, _ = sk.choose(blocked, now=0) or ([], -1)
    assert [s.id for s in group] == ["s1", "s3"]


def test_a_table_for_a_group_is_playing_with_every_seat_taken() -> None:
    pool = Pool([seek(1, at=0, bots=0, players=4), seek(2, at=0, bots=0, players=4)])
    for s in pool.seeks:
        s.game, s.options = "piquesept", {"players": 4}
    made = sk.table_for(pool, 1.0, table_id="T", seed=7, rng=random.Random(3))
    assert made is not None
    row, seats = made
    assert row.status == "playing" and sorted(seats) == ["s1", "s2"]
    kinds = [s.kind for s in row.seats]
    assert kinds.count("human") == 2 and kinds.count("bot") == 2
    assert {s.agent for s in row.seats if s.kind == "bot"} == {sk.default_bot("piquesept", {"players": 4})}
    assert all(s.token_hash for s in row.seats if s.kind == "human")
    assert sorted(s.name for s in row.seats if s.kind == "human") == ["Guest", "Guest 2"], "names told apart"


def test_the_default_bot_is_the_lobbys_gentle_one() -> None:
    """As the lobby's table form seats it: the heuristic's level (two stars), not the strongest."""
    from gamester.web.menu import agent_menu

    for game in ("penneech", "piquesept", "pentyrch"):
        menu = {e["spec"]: e for e in agent_menu(game)}
        spec = sk.default_bot(game, {})
        assert menu[spec]["strength"] == 1, (game, spec)
        assert spec != max(menu.values(), key=lambda e: e["strength"])["spec"]


def test_slow_clocks_and_abandonment() -> None:
    from gamester.store.port import TableRow
    from gamester.web import slow

    assert not slow.is_slow({"seconds_per_move": 600}) and slow.is_slow({"seconds_per_move": 601})
    assert not slow.is_slow("3 days") and not slow.is_slow(None)
    row = TableRow("t", "penneech", {}, 1, [], {"seconds_per_move": 86400}, "playing", 3, 0.0, deadline=1e9)
    assert slow.clock_keeps_waiting(row, now=1e9 - 1) and not slow.clock_keeps_waiting(row, now=1e9 + 1)
    row.status = "over"
    assert not slow.clock_keeps_waiting(row, now=0)


# -- one app per database ---------------------------------------------------------------------------
@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def c(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('seeks') / 'seeks.db'}"
    else:
        url = request.getfixturevalue("pg_cluster").create_database()
    with TestClient(create_app(url, limits=OFF)) as client:
        fast_accounts(client)
        yield client


def fast_accounts(client: TestClient) -> None:
    """Accounts made and logged into quickly: cheap hashes (these tests are not about hashing) and
    no sign-up limit."""
    from argon2 import PasswordHasher

    people = client.app.state.people  # type: ignore[attr-defined]
    people.hasher = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    people.signups.burst = 10_000


def sign_up(c: TestClient, prefix: str = "Seeker") -> tuple[str, dict[str, str]]:
    name = f"{prefix}{next(_names)}"
    assert c.post("/api/accounts", json={"name": name, "password": PASSWORD}).status_code == 201
    r = c.post("/api/session", json={"name": name, "password": PASSWORD})
    c.cookies.clear()
    return name, {"Authorization": f"Bearer {r.json()['session']}"}


def post_seek(c: TestClient, body: dict[str, Any], headers: dict[str, str] | None = None) -> dict[str, Any]:
    r = c.post("/api/seeks", json=body, headers=headers)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def poll(c: TestClient, s: dict[str, Any], until: str = "matched", timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        got: dict[str, Any] = c.get(f"/api/seeks/{s['seek']}", params={"token": s["token"]}).json()
        if got["status"] == until or time.monotonic() > deadline:
            return got
        time.sleep(0.05)


def rate(c: TestClient, name: str, game: str, rating: float) -> None:
    """Give the account a rating in the game, as rated results would have."""
    store = c.app.state.people.store  # type: ignore[attr-defined]
    import sqlalchemy as sa

    from gamester.store.schema import ratings

    with store.repo.write() as conn:
        conn.execute(ratings.delete().where(ratings.c.account == name.casefold(), ratings.c.game == game))
        conn.execute(ratings.insert().values(account=name.casefold(), game=game, rating=rating,
                                             deviation=80.0, volatility=0.06, games=30))  # fmt: skip
    assert sa is not None


# -- quick play through the API ----------------------------------------------------------------------
def test_two_guests_seeking_penneech_sit_at_one_table_and_play(c: TestClient) -> None:
    a = post_seek(c, {"game": "penneech", "options": {"objective": "deal"}, "name": "Ann"})
    assert a["status"] == "waiting" and set(a) == {"seek", "token", "status"}
    listed = [s for s in c.get("/api/seeks").json()["seeks"] if s["id"] == a["seek"]]
    assert listed and listed[0]["name"] == "guest" and listed[0]["rating"] is None, (
        "a guest is listed as guest"
    )
    assert "token" not in listed[0]
    b = post_seek(c, {"game": "penneech", "options": {"objective": "deal"}, "players": 2, "name": "Bob"})
    assert b["status"] == "matched", "the second seek is seated at once"
    got = poll(c, a)
    assert got["table"] == b["table"] and {got["seat"], b["seat"]} == {0, 1}
    assert not [s for s in c.get("/api/seeks").json()["seeks"] if s["id"] in (a["seek"], b["seek"])]
    table = c.get(f"/api/tables/{b['table']}").json()
    assert table["status"] == "playing" and sorted(s["name"] for s in table["seats"]) == ["Ann", "Bob"]
    # Each seat token is that seat's: the socket gets the seat's own view.
    for s in (got, b):
        with c.websocket_connect(f"/ws/tables/{s['table']}?token={s['seat_token']}") as ws:
            assert next_view(ws)["seat"] == s["seat"]
    # Asking again tells the same; cancelling a seated seek is refused.
    assert c.get(f"/api/seeks/{a['seek']}", params={"token": a["token"]}).json() == got
    r = c.delete(f"/api/seeks/{a['seek']}", params={"token": a["token"]})
    assert r.status_code == 409 and r.json()["error"] == "already_matched"


def test_a_seek_is_cancelled_by_its_token_only(c: TestClient) -> None:
    a = post_seek(c, {"game": "pentyrch", "players": 3})
    assert c.get(f"/api/seeks/{a['seek']}", params={"token": "x" * 32}).status_code == 403
    assert c.delete(f"/api/seeks/{a['seek']}").status_code == 403
    assert c.get("/api/seeks/nosuchseek", params={"token": a["token"]}).status_code == 404
    r = c.delete(f"/api/seeks/{a['seek']}", params={"token": a["token"]})
    assert r.status_code == 200 and r.json()["status"] == "cancelled"
    assert poll(c, a, until="cancelled")["status"] == "cancelled"
    b = post_seek(c, {"game": "pentyrch", "players": 3})
    assert b["status"] == "waiting", "a cancelled seek seats nobody"
    c.delete(f"/api/seeks/{b['seek']}", params={"token": b["token"]})


def test_piquesept_with_bots_after_fills_the_empty_seats(c: TestClient) -> None:
    """Three people and one bot: the oldest seek's time runs out, the two others accept bots too."""
    body = {"game": "piquesept", "options": {"deals": 2}}
    first = post_seek(c, {**body, "bots_after": 1})
    second = post_seek(c, {**body, "bots_after": 60})
    third = post_seek(c, {**body, "bots_after": 60})
    got = poll(c, first)
    assert got["status"] == "matched", got
    table = c.get(f"/api/tables/{got['table']}").json()
    assert [s["kind"] for s in table["seats"]].count("bot") == 1
    for s in (second, third):
        assert poll(c, s)["table"] == got["table"]
    # Nobody but bots has to move for them to start: the bots already play where it is their turn.
    alone = post_seek(c, {"game": "piquesept", "options": {"deals": 3}, "bots_after": 0})
    assert alone["status"] == "matched"
    with c.websocket_connect(f"/ws/tables/{alone['table']}?token={alone['seat_token']}") as ws:
        view = next_view(ws)
        while not view["legal"] and view["status"] == "playing":
            view = next_view(ws)
        assert view["legal"], "the bots moved until it was the person's turn"


def test_rated_seeks_pair_accounts_by_rating(c: TestClient) -> None:
    r = c.post("/api/seeks", json={"game": "penneech", "rated": True})
    assert r.status_code == 401 and r.json()["error"] == "not_logged_in", "guests seek unrated only"
    (ann, ha), (bob, hb), (cy, hc) = sign_up(c), sign_up(c), sign_up(c)
    rate(c, ann, "penneech", 1500)
    rate(c, bob, "penneech", 1900)
    rate(c, cy, "penneech", 1620)
    body = {"game": "penneech", "options": {"target": 31}, "rated": True}
    a = post_seek(c, body, ha)
    b = post_seek(c, body, hb)
    assert b["status"] == "waiting", "400 points apart: not yet"
    listed = {s["name"]: s for s in c.get("/api/seeks").json()["seeks"]}
    assert listed[ann]["rating"] == 1500 and listed[bob]["rating"] == 1900 and listed[ann]["rated"]
    r = c.post("/api/seeks", json=body, headers=ha)
    assert r.status_code == 409 and r.json()["error"] == "already_seeking"
    cc = post_seek(c, body, hc)
    assert cc["status"] == "matched" and poll(c, a)["table"] == cc["table"]
    table = c.get(f"/api/tables/{cc['table']}").json()
    assert table["rated"] and sorted(s["account"] for s in table["seats"]) == sorted([ann, cy])
    # An account's seat token is its own: the account sits down again from any device with it.
    again = c.post(f"/api/tables/{cc['table']}/join", json={"seat": cc["seat"]}, headers=hc)
    assert again.status_code == 200 and again.json()["token"] == cc["seat_token"]
    c.delete(f"/api/seeks/{b['seek']}", params={"token": b["token"]})


def test_your_tables_your_turn_first(c: TestClient) -> None:
    assert c.get("/api/me/tables").status_code == 401
    (_, ha), (_, hb) = sign_up(c), sign_up(c)
    body = {"game": "penneech", "options": {"objective": "deal"}}
    a = post_seek(c, body, ha)
    b = post_seek(c, body, hb)
    table = b["table"]
    # A private table with a friend's seat, and one against a bot: all three are Ann's tables.
    private_body = {"game": "penneech", "seats": ["human", "human"], "private": True, "join": {"seat": 0}}
    r = c.post("/api/tables", headers=ha, json=private_body)
    private = r.json()["id"]
    mine = c.get("/api/me/tables", headers=ha).json()["tables"]
    ids = [t["id"] for t in mine]
    assert {table, private} <= set(ids)
    row = next(t for t in mine if t["id"] == table)
    assert set(row) >= {"id", "game", "status", "seat", "your_turn", "rated", "private", "updated"}
    assert row["seat"] == poll(c, a)["seat"]
    assert next(t for t in mine if t["id"] == private)["private"] is True
    turns = [t["your_turn"] for t in mine]
    assert turns == sorted(turns, reverse=True), "your turn first"
    theirs = c.get("/api/me/tables", headers=hb).json()["tables"]
    both = [next(t for t in x if t["id"] == table)["your_turn"] for x in (mine, theirs)]
    assert sorted(both) == [False, True], "exactly one of the two is to move"
    # The one to move moves: whose turn it is follows, in both lists.
    mover, other = (poll(c, a), hb) if both[0] else (b, ha)
    with c.websocket_connect(f"/ws/tables/{table}?token={mover['seat_token']}") as ws:
        v = next_view(ws)
        while not v["legal"]:
            v = next_view(ws)
        ws.send_json({"type": "act", "action": v["legal"][0], "seq": v["seq"]})
        after = next_view(ws)
    later = c.get("/api/me/tables", headers=other).json()["tables"]
    assert next(t for t in later if t["id"] == table)["your_turn"] == (not after["legal"])
    assert later[0]["your_turn"] == any(t["your_turn"] for t in later)


def test_the_lobby_socket_pushes_seeks_and_tables(c: TestClient) -> None:
    name, h = sign_up(c)
    body = {"game": "pentyrch", "players": 2, "options": {"max_rounds": 60}}
    with c.websocket_connect("/ws/lobby", headers=h) as ws:
        first, second = ws.receive_json(), ws.receive_json()
        assert first["type"] == "seeks" and second["type"] == "tables"
        assert second["mine"] is not None, "a logged-in lobby lists its tables"
        a = post_seek(c, body, h)
        m = ws.receive_json()
        while m["type"] != "seeks" or not any(s["id"] == a["seek"] for s in m["seeks"]):
            m = ws.receive_json()
        assert next(s for s in m["seeks"] if s["id"] == a["seek"])["name"] == name
        b = post_seek(c, body)
        m = ws.receive_json()
        while m["type"] != "tables" or not (
            any(t["id"] == b["table"] for t in m["mine"] or [])
            and any(t["id"] == b["table"] for t in m["playing"])
        ):  # the lists and yours are read one after the other: the next push has both
            m = ws.receive_json()
        ws.send_json({"type": "ping"})
        while (m := ws.receive_json())["type"] != "pong":
            pass


# -- slow games ----------------------------------------------------------------------------------------
def test_slow_clocks_are_for_accounts(c: TestClient) -> None:
    day = {"seconds_per_move": 86400, "on_timeout": "forfeit"}
    table = {"game": "penneech", "seats": ["human", "human"], "clock": day, "join": {"seat": 0, "name": "x"}}
    r = c.post("/api/tables", json=table)
    assert r.status_code == 401 and r.json()["error"] == "not_logged_in", "a guest keeps ten minutes"
    assert c.post("/api/tables", json={**table, "clock": {"seconds_per_move": 600}}).status_code == 201
    (_, ha), (_, hb) = sign_up(c), sign_up(c)
    r = c.post("/api/tables", json={**table, "clock": {"seconds_per_move": 3 * 86400 + 1}}, headers=ha)
    assert r.status_code == 422 and r.json()["error"] == "bad_clock"
    r = c.post("/api/tables", json={**table, "open": True}, headers=ha)
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    r = c.post(f"/api/tables/{tid}/join", json={"seat": 1, "name": "Guest"})
    assert r.status_code == 422 and r.json()["error"] == "account_needed"
    r = c.post(f"/api/tables/{tid}/join", json={"seat": 1}, headers=hb)
    assert r.status_code == 200
    info = c.get(f"/api/tables/{tid}").json()
    assert info["status"] == "playing" and info["clock"]["seconds_per_move"] == 86400
    r = c.post("/api/seeks", json={"game": "penneech", "clock": day})
    assert r.status_code == 401, "a slow seek is an account's"
    s = post_seek(c, {"game": "penneech", "clock": day}, ha)
    c.delete(f"/api/seeks/{s['seek']}", params={"token": s["token"]})


# -- the store on its own clock ------------------------------------------------------------------------
def test_seeks_expire_and_bots_come_from_the_stored_deadline(c: TestClient) -> None:
    """A store on the app's database, with its own clock: a seek unpolled for 30 s or older than 10
    minutes is expired; a seek's bots are due at its stored time, for any store on the database
    (a server started later)."""
    repo = c.app.state.people.store.repo  # type: ignore[attr-defined]
    store = SeekStore(repo, sk.TIMES)
    rule = sk.decide(iter(f"T{i}x" for i in itertools.count()).__next__, lambda: 5, random.Random(1))
    t0 = 2e9  # a future far from the app's own seeks

    def row(i: int, bots: float | None = None) -> SeekRow:
        s = seek(i, at=t0, bots=bots)
        s.id, s.pool = f"clock{i}-{random.randrange(10**9)}", f"pool-{i}-{random.randrange(10**9)}"
        s.options = {"objective": "deal"}
        return s

    quiet, old, late = row(1), row(2), row(3, bots=20)
    for s in (quiet, old, late):
        assert store.add(s, per_address=None, now=t0, decide=rule) == ("ok", None)
    assert sk.open_seek_count(store, t0 + 1) == 3
    assert store.poll(old, t0 + 25, rule)[0].status == "waiting"
    assert store.poll(late, t0 + 10, rule)[0].status == "waiting"
    # The late seek's bots are due at t0 + 20: a store made afterwards (another server) seats them.
    other = SeekStore(repo, sk.TIMES)
    assert other.sweep(t0 + 19, rule, keep=3600)[1] == []
    expired, made = other.sweep(t0 + 31, rule, keep=3600)
    assert len(made) == 1 and made[0].id.startswith("T") and made[0].status == "playing"
    done = other.get(late.id)
    assert done is not None and done.status == "matched" and done.table_id == made[0].id
    assert expired == 1 and other.get(quiet.id).status == "expired", "30 s unpolled"  # type: ignore[union-attr]
    assert other.get(old.id).status == "waiting"  # type: ignore[union-attr]
    t = t0 + 25.0
    while other.get(old.id).status == "waiting":  # type: ignore[union-attr]
        t += 25
        store.poll(old, t, rule)
    assert t >= t0 + sk.SEEK_SECONDS and other.get(old.id).status == "expired", "ten minutes at most"  # type: ignore[union-attr]
    assert sk.open_seek_count(other, t) == 0  # the gauge /metrics shows
    # Finished seeks are forgotten after ``keep``.
    other.sweep(t + 3601, rule, keep=3600)
    assert other.get(late.id) is None and other.get(quiet.id) is None


# -- hostile input ---------------------------------------------------------------------------------------
BAD_SEEKS: list[tuple[Any, int, str]] = [
    ({"game": "nosuch"}, 422, "bad_game"),
    ({"game": "penneech", "options": {"target": 500}}, 422, "bad_options"),
    ({"game": "penneech", "options": {"target": 10**6}}, 422, "bad_game"),
    ({"game": "penneech", "options": {f"k{i}": "x" for i in range(60)}}, 422, "bad_options"),
    ({"game": "penneech", "options": {"target": "x" * 600}}, 422, "bad_options"),
    ({"game": "penneech", "options": {"nosuch": 1}}, 422, "bad_game"),
    ({"game": "penneech", "options": []}, 422, "bad_options"),
    ({"game": "penneech", "players": 3}, 422, "bad_players"),
    ({"game": "penneech", "players": True}, 422, "bad_players"),
    ({"game": "piquesept", "players": 4, "options": {"players": 3}}, 422, "bad_players"),
    ({"game": "penneech", "bots_after": -1}, 422, "bad_bots_after"),
    ({"game": "penneech", "bots_after": 1e9}, 422, "bad_bots_after"),
    ({"game": "penneech", "bots_after": "soon"}, 422, "bad_bots_after"),
    ({"game": "penneech", "rated": "yes"}, 422, "bad_rated"),
    ({"game": "penneech", "clock": {"seconds_per_move": 0}}, 422, "bad_clock"),
    ({"game": "penneech", "name": "Ann\u202e"}, 422, "bad_name"),
    ({"game": "penneech", "name": 7}, 422, "bad_name"),
    ({"game": "penneech", "seats": ["human"]}, 422, "bad_request"),
    ({"game": 7}, 422, "bad_game"),
    ([1, 2], 400, "bad_json"),
]


def test_hostile_seeks_get_one_line(c: TestClient) -> None:
    for body, status, code in BAD_SEEKS:
        r = c.post("/api/seeks", json=body)
        assert (r.status_code, r.json()["error"]) == (status, code), (body, r.text)
        assert "\n" not in r.json()["message"]
    r = c.post("/api/seeks", content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"] == "bad_json"
    for path in ("/api/seeks/../../etc", "/api/seeks/" + "a" * 300, "/api/seeks/%00"):
        assert c.get(path, params={"token": "t"}).status_code in (404, 403)
    assert c.get("/api/seeks/abc").status_code == 404
    assert c.put("/api/seeks", json={}).status_code == 405


def test_a_seek_flood_from_one_address_is_capped(tmp_path_factory: pytest.TempPathFactory) -> None:
    url = f"sqlite:///{tmp_path_factory.mktemp('flood') / 'flood.db'}"
    with TestClient(create_app(url, limits=Limits(tables_per_minute=6))) as c:
        made = [c.post("/api/seeks", json={"game": "pentyrch", "players": n}) for n in (2, 3, 4)]
        assert [r.status_code for r in made] == [201, 201, 201]
        r = c.post("/api/seeks", json={"game": "piquesept"})
        assert r.status_code == 429 and r.json()["error"] == "rate_limited", "three open seeks an address"
        # /metrics' gauge counts them (the sweep counts every 2 s).
        probe = c.app.state.metrics.probes["seeks"][2]  # type: ignore[attr-defined]
        deadline = time.monotonic() + 30
        while probe() != 3.0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert probe() == 3.0
        s = made[0].json()
        c.delete(f"/api/seeks/{s['seek']}", params={"token": s["token"]})
        again = c.post("/api/seeks", json={"game": "piquesept"})
        assert again.status_code == 201
        for s in (made[1].json(), made[2].json(), again.json()):
            c.delete(f"/api/seeks/{s['seek']}", params={"token": s["token"]})
        # Each seek counts against the tables-a-minute quota too (it may make a table).
        codes = [c.post("/api/seeks", json={"game": "penneech", "bots_after": 0}) for _ in range(6)]
        assert [r.status_code for r in codes].count(429) >= 3
        refused = next(r for r in codes if r.status_code == 429).json()
        assert refused["error"] == "rate_limited" and "tables" in refused["message"]


def test_hostile_lobby_messages(c: TestClient) -> None:
    with c.websocket_connect("/ws/lobby") as ws:
        ws.receive_json(), ws.receive_json()
        for text in ("nonsense", "[]", '{"type": 5}', '{"type": "act", "seq": 1}', '{"type": "chat"}'):
            ws.send_text(text)
            m = ws.receive_json()
            assert m["type"] == "error" and m["code"] == "bad_message", (text, m)
    with c.websocket_connect("/ws/lobby") as ws:
        ws.receive_json(), ws.receive_json()
        ws.send_text("x" * 10_000)
        with pytest.raises(Exception):  # noqa: B017 - closed (1009): any further receive fails
            while True:
                ws.receive_json()
    with c.websocket_connect("/ws/lobby") as ws:
        ws.receive_json(), ws.receive_json()
        ws.send_bytes(b"\x00\x01")
        with pytest.raises(Exception):  # noqa: B017 - closed (1003)
            while True:
                ws.receive_json()
    with c.websocket_connect("/ws/lobby") as ws:
        ws.receive_json(), ws.receive_json()
        codes = []
        with pytest.raises(Exception):  # noqa: B017 - a flood is closed (1008)
            for _ in range(200):
                ws.send_json({"type": "ping"})
            while True:
                codes.append(ws.receive_json().get("code"))
        assert "rate_limited" in codes
    with c.websocket_connect("/ws/lobby", headers={"Authorization": "Bearer forged"}) as ws:
        assert ws.receive_json()["type"] == "seeks", "a forged session is a guest's lobby"
