"""People (docs/web.md, People): accounts, sessions, seats owned by accounts, ratings and their
migration, on SQLite and on a real PostgreSQL (tests/pg_support.py).

Hostile input to every new endpoint: names, passwords, forged sessions, another account's seat.
"""

from __future__ import annotations

import shutil
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("argon2")

import sqlalchemy as sa  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from gamester.store import open_repository  # noqa: E402
from gamester.store.people import Participant, PeopleStore, Rating  # noqa: E402
from gamester.web import create_app  # noqa: E402
from gamester.web.glicko import update  # noqa: E402
from gamester.web.limits import OFF  # noqa: E402
from gamester.web.ratings import INITIAL, comparisons, rate  # noqa: E402
from tests.pg_support import pg_cluster, postgres_url  # noqa: E402, F401  (pytest fixtures)
from tests.web_helpers import (  # noqa: E402
    client_on,
    database_at,
    head_revision,
    invited,
    join,
    new_table,
    next_view,
    play_to_end,
    remember,
)

pytestmark = pytest.mark.timeout(300)

DATA = Path(__file__).parent / "data"
PASSWORD = "correct horse battery"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'people.db'}"
    url: str = request.getfixturevalue("pg_cluster").create_database()
    return url


@pytest.fixture
def c(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, limits=OFF)) as client:
        yield client


def sign_up(c: TestClient, name: str, password: str = PASSWORD) -> dict[str, str]:
    """Make an account and log in; the Authorization header of its session (cookies cleared, so
    one client can speak for several accounts)."""
    r = c.post("/api/accounts", json={"name": name, "password": password})
    assert r.status_code == 201, r.text
    assert r.json() == {"name": name}
    r = c.post("/api/session", json={"name": name, "password": password})
    assert r.status_code == 200, r.text
    c.cookies.clear()
    return {"Authorization": f"Bearer {r.json()['session']}"}


def rating_after(c: TestClient, name: str, game: str, games: int, timeout: float = 120.0) -> dict[str, Any]:
    """The player's rating once ``games`` rated games have counted (the rating moves just after the
    table ends, beside the last view)."""
    deadline = time.monotonic() + timeout
    while True:
        got: dict[str, Any] = c.get(f"/api/players/{name}").json()["ratings"].get(game, {})
        if got.get("games", 0) >= games or time.monotonic() > deadline:
            return got
        time.sleep(0.05)


# -- Glicko-2 and how a table is read ---------------------------------------------------------------
def test_glicko2_matches_glickmans_worked_example() -> None:
    """Glickman's paper, section 'Example': 1500/200/0.06 beats 1400/30, loses to 1550/100 and
    1700/300 → about 1464.06, 151.52, 0.05999 (the paper rounds its intermediate steps)."""
    r, rd, vol = update(1500, 200, 0.06, [(1400, 30, 1.0, 1.0), (1550, 100, 0.0, 1.0), (1700, 300, 0.0, 1.0)])
    assert abs(r - 1464.06) < 0.05 and abs(rd - 151.52) < 0.05 and abs(vol - 0.05999) < 0.00001


def test_pairwise_reading_of_sides_and_weights() -> None:
    """Partners (equal returns at a table of more than two) are not compared; a draw of two is a
    draw; Piquesept's soloist is compared with each defender at a third of a game."""
    assert comparisons([0.0, 0.0]) == [[(1, 0.5)], [(0, 0.5)]]
    assert comparisons([2.0, -2.0, 2.0, -2.0]) == [[(1, 1.0), (3, 1.0)], [(0, 0.0), (2, 0.0)]] * 2
    people = [Participant(0, "solo", 3.0, INITIAL)] + [
        Participant(i, f"d{i}", -1.0, INITIAL) for i in (1, 2, 3)
    ]
    after = rate(people)
    solo, defenders = after[0], after[1:]
    assert solo[1] == 1.0 and all(d[1] == 0.0 for d in defenders)
    one = rate([Participant(0, "a", 1.0, INITIAL), Participant(1, "b", -1.0, INITIAL)])
    # One table against three counts as one game: the soloist moves as far as a winner of two.
    assert abs(solo[0].rating - one[0][0].rating) < 1e-6
    assert all(abs(d[0].rating - one[1][0].rating) < 1e-6 for d in defenders)
    assert all(r.games == 1 for r, _ in after)


# -- accounts and sessions -------------------------------------------------------------------------
BAD_NAMES = ["ab", "a" * 21, "Ann Lee", "Ann!", "Ånn", "", "You", "Y0U", "spectator", "random", "Rand0m",
             "heur1stic", "Ann\u200b", None, 7, ["Ann"]]  # fmt: skip
BAD_PASSWORDS = ["short", "       ", "x" * 201, None, 12345678, ["a" * 8]]


def test_bad_names_and_passwords_are_refused(c: TestClient) -> None:
    for name in BAD_NAMES:
        r = c.post("/api/accounts", json={"name": name, "password": PASSWORD})
        assert r.status_code == 422 and r.json()["error"] == "bad_name", (name, r.text)
    for password in BAD_PASSWORDS:
        r = c.post("/api/accounts", json={"name": "Ann", "password": password})
        assert r.status_code == 422 and r.json()["error"] == "bad_password", (password, r.text)


def test_malformed_bodies(c: TestClient) -> None:
    for path in ("/api/accounts", "/api/session"):
        r = c.post(path, content=b"{", headers={"content-type": "application/json"})
        assert r.status_code == 400 and r.json()["error"] == "bad_json"
        r = c.post(path, json=[1])
        assert r.status_code == 400
        r = c.post(path, json={"name": "Ann", "password": PASSWORD, "admin": True})
        assert r.status_code == 422 and "unknown field" in r.json()["message"]
        r = c.post(path, data={"name": "Ann", "password": PASSWORD})  # a form post from another page
        assert r.status_code == 415


def test_names_are_unique_ignoring_case_and_password_is_only_an_argon2id_hash(
    c: TestClient, db_url: str
) -> None:
    sign_up(c, "Ann_1")
    r = c.post("/api/accounts", json={"name": "ann_1", "password": PASSWORD})
    assert r.status_code == 409 and r.json()["error"] == "name_taken"
    r = c.post("/api/session", json={"name": "ANN_1", "password": PASSWORD})
    assert r.status_code == 200 and r.json()["name"] == "Ann_1", "log-in ignores case and answers the name"
    session = r.json()["session"]
    engine = sa.create_engine(db_url)
    with engine.connect() as conn:
        hashes = [row[0] for row in conn.execute(sa.text("SELECT password_hash FROM gm_accounts"))]
        stored = [row[0] for row in conn.execute(sa.text("SELECT token_hash FROM gm_sessions"))]
        everything = repr([list(r) for t in ("gm_accounts", "gm_sessions")
                           for r in conn.execute(sa.text(f"SELECT * FROM {t}"))])  # fmt: skip
    engine.dispose()
    assert len(hashes) == 1 and hashes[0].startswith("$argon2id$")
    assert PASSWORD not in everything and session not in everything, "only hashes are stored"
    assert len(stored) == 2 and all(len(h) == 64 for h in stored)


def test_session_cookie_bearer_me_and_log_out(c: TestClient) -> None:
    c.post("/api/accounts", json={"name": "Bea", "password": PASSWORD})
    assert c.get("/api/me").status_code == 401
    assert c.get("/api/session").json() == {"name": None}, "the page's question is never a 401"
    r = c.post("/api/session", json={"name": "Bea", "password": PASSWORD})
    cookie = r.headers["set-cookie"]
    assert cookie.startswith("gamester_session=") and "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert "Secure" not in cookie, "plain http (a local server): no Secure flag, or the browser drops it"
    assert c.get("/api/session").json() == {"name": "Bea"}
    me = c.get("/api/me")  # the cookie
    assert me.status_code == 200 and me.json()["name"] == "Bea" and me.json()["ratings"] == {}
    bearer = {"Authorization": f"Bearer {r.json()['session']}"}
    c.cookies.clear()
    assert c.get("/api/me", headers=bearer).json()["name"] == "Bea"
    for forged in (
        "Bearer nonsense",
        "Bearer " + "A" * 43,
        "Bearer ",
        "Basic QmVhOnBhc3M=",
        "Bearer " + "x" * 5000,
    ):
        r = c.get("/api/me", headers={"Authorization": forged})
        assert r.status_code == 401, forged
    c.cookies.set("gamester_session", "forged")
    assert c.get("/api/me").status_code == 401
    c.cookies.clear()
    # A second session; log out the first; the second still works; then log out everywhere.
    second = c.post("/api/session", json={"name": "Bea", "password": PASSWORD}).json()["session"]
    c.cookies.clear()
    assert c.delete("/api/session", headers=bearer).status_code == 200
    assert c.get("/api/me", headers=bearer).status_code == 401
    other = {"Authorization": f"Bearer {second}"}
    third = c.post("/api/session", json={"name": "Bea", "password": PASSWORD}).json()["session"]
    c.cookies.clear()
    assert c.get("/api/me", headers=other).status_code == 200
    assert c.delete("/api/session?everywhere=true", headers=other).status_code == 200
    for s in (second, third):
        assert c.get("/api/me", headers={"Authorization": f"Bearer {s}"}).status_code == 401


def test_an_account_keeps_its_newest_sessions_only(c: TestClient) -> None:
    sign_up(c, "Dee")
    store: PeopleStore = c.app.state.people.store  # type: ignore[attr-defined]
    for i in range(6):
        store.add_session(f"{i:064d}", "dee", 1e10 + i, 1e12, keep=3)  # newer than the sign-up session
    assert store.session_account(f"{5:064d}", 2e10) is not None
    assert store.session_account(f"{3:064d}", 2e10) is not None
    assert store.session_account(f"{2:064d}", 2e10) is None, "older sessions beyond the newest 3 end"
    assert store.session_account(f"{5:064d}", 10.0**13) is None, "an expired session is no session"


@pytest.mark.slow
def test_failed_log_ins_are_rate_limited_per_name_and_per_address(c: TestClient) -> None:
    c.post("/api/accounts", json={"name": "Cat", "password": PASSWORD})
    people = c.app.state.people  # type: ignore[attr-defined]
    people.by_pair.every = people.by_address.every = 1e6  # no refill during the test, however slow
    codes = [
        c.post("/api/session", json={"name": "Cat", "password": "wrong-one"}).status_code for _ in range(6)
    ]
    assert codes[:5] == [401] * 5 and codes[5] == 429
    r = c.post("/api/session", json={"name": "Cat", "password": PASSWORD})
    assert r.status_code == 429 and r.json()["error"] == "rate_limited" and int(r.headers["retry-after"]) >= 1
    # Per address: many names, each failing a few times.
    codes = []
    for i in range(8):
        for _ in range(3):
            codes.append(c.post("/api/session", json={"name": f"nobody{i}", "password": "x" * 8}).status_code)
    assert 429 in codes and codes.index(429) == 15, "an address has 20 failures (5 spent on Cat)"
    assert c.post("/api/session", json={"name": "x" * 500, "password": "p"}).status_code == 422


# -- seats owned by accounts -----------------------------------------------------------------------
def test_a_seat_joined_logged_in_is_the_accounts_on_every_device(c: TestClient) -> None:
    ann = sign_up(c, "Ann")
    bob = sign_up(c, "Bob")
    tid = new_table(c, "penneech", ["human", "human"])
    r = c.post(f"/api/tables/{tid}/join", json=invited(tid, {"seat": 0, "name": "Whoever"}), headers=ann)
    assert r.status_code == 200
    token = r.json()["token"]
    seat = c.get(f"/api/tables/{tid}").json()["seats"][0]
    assert seat["name"] == "Ann" and seat["account"] == "Ann", "the account's name, not the one typed"
    # Another device: a new session, no token; the same seat and token come back.
    other = c.post("/api/session", json={"name": "ann", "password": PASSWORD}).json()["session"]
    c.cookies.clear()
    again = c.post(
        f"/api/tables/{tid}/join",
        json=invited(tid, {"seat": 0}),
        headers={"Authorization": f"Bearer {other}"},
    )
    assert again.status_code == 200 and again.json()["token"] == token
    me = c.get("/api/me", headers=ann).json()
    assert {"table": tid, "seat": 0, "game": "penneech", "status": "waiting"} in me["seats"]
    # Another account, a guest, a forged session: none gets Ann's seat.
    assert c.post(f"/api/tables/{tid}/join", json=invited(tid, {"seat": 0}), headers=bob).status_code == 409
    assert c.post(f"/api/tables/{tid}/join", json=invited(tid, {"seat": 0, "name": "Zed"})).status_code == 409
    cyrillic = "\u0410nn"  # Cyrillic A
    posing = c.post(f"/api/tables/{tid}/join", json=invited(tid, {"seat": 0, "name": cyrillic}))
    assert posing.status_code == 422 and posing.json()["error"] == "bad_name", "a guest may not pose as Ann"
    forged = {"Authorization": "Bearer " + token}
    assert (
        c.post(f"/api/tables/{tid}/join", json=invited(tid, {"seat": 0}), headers=forged).status_code == 401
    )
    # A guest at the other seat: no account.
    join(c, tid, 1, "Guest")
    assert c.get(f"/api/tables/{tid}").json()["seats"][1]["account"] is None
    with c.websocket_connect(f"/ws/tables/{tid}?token={token}") as ws:
        assert next_view(ws)["seat"] == 0


def test_rated_tables_seat_accounts_only(c: TestClient) -> None:
    ann = sign_up(c, "Ann")
    body = {"game": "penneech", "seats": ["human", "human"], "rated": True}
    r = remember(c.post("/api/tables", json=body))
    assert r.status_code == 401 and r.json()["error"] == "not_logged_in"
    for bad in ("yes", 1, None):
        r = remember(c.post("/api/tables", json={**body, "rated": bad}, headers=ann))
        assert r.status_code == 422 and r.json()["error"] == "bad_rated"
    r = remember(c.post("/api/tables", json={**body, "seats": ["random", "random"]}, headers=ann))
    assert r.status_code == 422 and r.json()["error"] == "bad_rated"
    r = remember(c.post("/api/tables", json=body, headers=ann))
    assert r.status_code == 201 and r.json()["rated"] is True
    tid = r.json()["id"]
    r = c.post(f"/api/tables/{tid}/join", json=invited(tid, {"seat": 1, "name": "Guest"}))
    assert r.status_code == 422 and r.json()["error"] == "account_needed"
    assert c.post(f"/api/tables/{tid}/join", json=invited(tid, {"seat": 0}), headers=ann).status_code == 200
    r = c.post(f"/api/tables/{tid}/join", json=invited(tid, {"seat": 1}), headers=ann)
    assert r.status_code == 409, "one account cannot take two seats of a rated table"
    # The creator's seat taken in the create request is the account's too, with its own token.
    r = remember(c.post("/api/tables", json={**body, "join": {"seat": 1, "name": "typed"}}, headers=ann))
    assert r.status_code == 201, r.text
    made = r.json()
    assert made["seats"][1]["account"] == "Ann" and made["seats"][1]["name"] == "Ann"
    again = c.post(f"/api/tables/{made['id']}/join", json=invited(made["id"], {"seat": 1}), headers=ann)
    assert again.status_code == 200 and again.json()["token"] == made["token"]


# -- ratings -------------------------------------------------------------------------------------
@pytest.mark.slow  # plays a game to its end, or waits for a clock
def test_a_rated_game_moves_both_ratings_once(c: TestClient) -> None:
    ann, bob = sign_up(c, "Ann"), sign_up(c, "Bob")
    r = remember(
        c.post(
            "/api/tables", json={"game": "penneech", "seats": ["human", "human"], "rated": True}, headers=ann
        )
    )
    tid = r.json()["id"]
    tokens = [
        c.post(f"/api/tables/{tid}/join", json=invited(tid, {"seat": i}), headers=h).json()["token"]
        for i, h in enumerate((ann, bob))
    ]
    table = play_to_end(c, tid, tokens)
    a, b = table["returns"]
    ra, rb = (rating_after(c, n, "penneech", 1) for n in ("Ann", "bob"))
    players = {n: c.get(f"/api/players/{n}").json() for n in ("Ann", "bob")}
    assert ra["games"] == rb["games"] == 1
    assert ra["deviation"] < 350 and rb["deviation"] < 350
    if a > b:
        assert ra["rating"] > 1500 > rb["rating"]
    elif a < b:
        assert ra["rating"] < 1500 < rb["rating"]
    else:
        assert ra["rating"] == rb["rating"] == 1500
    assert players["Ann"]["tables"][0] == tid and players["bob"]["name"] == "Bob"
    assert players["Ann"]["history"][-1]["table"] == tid
    board = c.get("/api/leaderboard/penneech").json()
    assert board["game"] == "penneech"
    assert [p["rating"] for p in board["players"]] == sorted(
        (p["rating"] for p in board["players"]), reverse=True
    )
    assert {p["name"] for p in board["players"]} == {"Ann", "Bob"}
    assert c.get("/api/me", headers=ann).json()["ratings"]["penneech"] == ra
    # Ending again (a second server's catch-up, a retry) changes nothing.
    store: PeopleStore = c.app.state.people.store  # type: ignore[attr-defined]
    assert not store.apply_rating(tid, rate, 0.0)
    assert c.get("/api/players/Ann").json()["ratings"]["penneech"] == ra


@pytest.mark.slow  # plays a game to its end, or waits for a clock
def test_bots_are_rated_but_not_on_the_leaderboard(c: TestClient) -> None:
    ann = sign_up(c, "Ann")
    r = remember(
        c.post(
            "/api/tables", json={"game": "penneech", "seats": ["human", "random"], "rated": True}, headers=ann
        )
    )
    tid = r.json()["id"]
    token = c.post(f"/api/tables/{tid}/join", json=invited(tid, {"seat": 0}), headers=ann).json()["token"]
    play_to_end(c, tid, [token])
    assert rating_after(c, "Ann", "penneech", 1)["games"] == 1
    assert [p["name"] for p in c.get("/api/leaderboard/penneech").json()["players"]] == ["Ann"]
    store: PeopleStore = c.app.state.people.store  # type: ignore[attr-defined]
    assert store.ratings_of("bot:random")["penneech"].games == 1


@pytest.mark.slow  # plays a game to its end, or waits for a clock
def test_a_forfeit_on_the_clock_is_rated_once_both_have_moved(c: TestClient) -> None:
    """A forfeit is the loser's loss once both have played; a table where a player never moved was
    not played and moves no rating (the rage-quit's rating side: docs/web.md, Fair play)."""
    ann, bob = sign_up(c, "Ann"), sign_up(c, "Bob")
    body = {"game": "penneech", "seats": ["human", "human"], "rated": True,  # time for both to move
            "clock": {"seconds_per_move": 3, "on_timeout": "forfeit"}}  # fmt: skip

    def forfeited(both: bool) -> tuple[str, dict[str, Any]]:
        """A table ended by the clock: nobody moves, or each player moves until both have (a
        Penneech deal may ask one player twice in a row, so two moves need not be one each)."""
        tid = remember(c.post("/api/tables", json=body, headers=ann)).json()["id"]
        tokens = [
            c.post(f"/api/tables/{tid}/join", json=invited(tid, {"seat": s}), headers=h).json()["token"]
            for s, h in ((0, ann), (1, bob))
        ]
        with (
            c.websocket_connect(f"/ws/tables/{tid}?token={tokens[0]}") as w0,
            c.websocket_connect(f"/ws/tables/{tid}?token={tokens[1]}") as w1,
        ):
            socks, moved = (w0, w1), set[int]()
            views = [next_view(w) for w in socks]
            while views[0]["status"] != "over":
                mover = next((i for i, v in enumerate(views) if v["legal"]), None)
                if mover is not None and both and moved != {0, 1}:  # then nobody: the clock ends it
                    v = views[mover]
                    socks[mover].send_json({"type": "act", "action": v["legal"][0], "seq": v["seq"]})
                    moved.add(mover)
                views = [next_view(w) for w in socks]
        return tid, views[0]

    tid, m = forfeited(False)
    assert m["status"] == "over" and m["forfeit"] is not None
    time.sleep(0.5)  # the rating thread had its chance
    assert c.get("/api/players/Ann").json()["ratings"] == {}, "a player who never moved: not played"
    tid, m = forfeited(True)
    loser = ("Ann", "Bob")[m["forfeit"]]
    winner = ("Bob", "Ann")[m["forfeit"]]
    got = {n: rating_after(c, n, "penneech", 1) for n in ("Ann", "Bob")}
    assert got[winner]["rating"] > 1500 > got[loser]["rating"] and got[winner]["games"] == 1
    token = c.post(f"/api/tables/{tid}/join", json=invited(tid, {"seat": 0}), headers=ann).json()["token"]
    again = c.post(f"/api/tables/{tid}/rematch", json={"token": token})
    assert again.status_code == 200, again.text
    assert c.get(f"/api/tables/{again.json()['table']}").json()["clock"]["on_timeout"] == "forfeit"


def test_player_and_leaderboard_refusals(c: TestClient) -> None:
    for name in ("nobody", "x" * 300, "../etc", "Ann%00"):
        r = c.get(f"/api/players/{name}")
        assert r.status_code == 404 and r.json()["error"] in ("no_player", "not_found"), name
    assert c.get("/api/leaderboard/chess").status_code == 404
    assert c.get("/api/leaderboard/penneech?limit=0").status_code == 422
    assert c.get("/api/leaderboard/penneech?limit=x").status_code == 422
    assert c.get("/api/leaderboard/penneech").json() == {"game": "penneech", "players": []}


@pytest.mark.slow  # plays a game to its end, or waits for a clock
def test_unrated_tables_move_no_rating(c: TestClient) -> None:
    ann, bob = sign_up(c, "Ann"), sign_up(c, "Bob")
    tid = new_table(c, "penneech", ["human", "human"])
    tokens = [
        c.post(f"/api/tables/{tid}/join", json=invited(tid, {"seat": i}), headers=h).json()["token"]
        for i, h in enumerate((ann, bob))
    ]
    play_to_end(c, tid, tokens, seed=5)
    got = c.get("/api/players/Ann").json()
    assert got["ratings"] == {} and got["tables"] == [tid]


def _finished_rated_table(repo: Any, tid: str, keys: list[str], returns: list[float]) -> None:
    from gamester.core.registry import load_game
    from gamester.store import SeatRow, TableRow
    from gamester.store.schema import actions

    seats = [SeatRow(seat=i, kind="human", name=k, token_hash=f"h{i}", account=k) for i, k in enumerate(keys)]
    row = TableRow(id=tid, game="penneech", options={}, seed=1, chance=[], clock=None, status="over", seq=9,
                   created=1.0, returns=returns, rated=True, seats=seats)  # fmt: skip
    repo.create(row)
    state, moves = load_game("penneech").new_initial_state(seed=1), []
    while {p for p, _ in moves} != set(range(len(keys))):  # every player has made a move of its own
        a = state.legal_actions()[0]
        moves.append((state.current_player(), state.action_to_string(a)))
        state.apply_action(a)
    with repo.write() as c:
        c.execute(actions.insert(), [{"table_id": tid, "seq": i + 1, "action": m, "at": 1.0}
                                     for i, (_, m) in enumerate(moves)])  # fmt: skip


def test_a_table_whose_server_stopped_before_rating_it_is_rated_at_the_next_start(db_url: str) -> None:
    repo = open_repository(db_url)
    try:
        store = PeopleStore(repo, INITIAL)
        _finished_rated_table(repo, "missed", ["p1", "p2"], [-1.0, 1.0])
        assert store.unapplied(10) == ["missed"]
    finally:
        repo.dispose()
    with TestClient(create_app(db_url, limits=OFF)) as c:
        store = c.app.state.people.store  # type: ignore[attr-defined]
        for _ in range(200):  # the catch-up runs at start, beside the requests
            if not store.unapplied(10):
                break
            time.sleep(0.05)
        assert store.unapplied(10) == []
        assert store.ratings_of("p2")["penneech"].rating > 1500 > store.ratings_of("p1")["penneech"].rating


@pytest.mark.slow  # starts a PostgreSQL cluster
def test_servers_sharing_postgresql_apply_a_rating_exactly_once(postgres_url: str) -> None:  # noqa: F811
    """Eight 'servers' (each its own engine) apply the same tables at once, and two tables of the
    same player end at once: each table counts once, and neither result is lost."""
    repos = [open_repository(postgres_url) for _ in range(8)]
    try:
        _finished_rated_table(repos[0], "once", ["p1", "p2"], [1.0, -1.0])
        _finished_rated_table(repos[0], "twice", ["p1", "p3"], [1.0, -1.0])
        stores = [PeopleStore(r, INITIAL) for r in repos]
        results: list[bool] = []
        lock = threading.Lock()
        barrier = threading.Barrier(len(stores))

        def run(store: PeopleStore, tid: str) -> None:
            barrier.wait()
            ok = store.apply_rating(tid, rate, 2.0)
            with lock:
                results.append(ok)

        threads = [
            threading.Thread(target=run, args=(s, "once" if i % 2 else "twice")) for i, s in enumerate(stores)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert sorted(results) == [False] * 6 + [True] * 2, "each table applied by exactly one server"
        got = stores[0].ratings_of("p1")["penneech"]
        assert got.games == 2, "both tables of p1 counted (no lost update)"
        assert stores[0].ratings_of("p2")["penneech"].games == 1
        assert stores[0].unapplied(10) == []
    finally:
        for r in repos:
            r.dispose()


# -- migration -------------------------------------------------------------------------------------
# tests/data/web_schema_0001.db was made by tests/make_web_db_0001.py on the code before this schema
# (commit 3d690d0): a finished table of two bots, and a table of two humans six moves in, whose seat
# tokens are these.
OLD_FINISHED = "enFvGtw8nP1oYhlz"
OLD_PLAYING = "ZN5i1dGIWYQfJhR9"
OLD_TOKENS = ["vWgzCeNhvNmDF-nZX2_50nWv5bFKFzw5", "wwaF_0_YrezpGQtF3i3b8hYeogT2o8ei"]


@pytest.mark.slow  # plays a game to its end, or waits for a clock
def test_a_database_of_the_previous_release_upgrades_and_plays_on(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    shutil.copy(DATA / "web_schema_0001.db", path)
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT version_num FROM alembic_version").fetchall() == [("0001",)]
        before = con.execute("SELECT id, status, seq FROM gm_tables ORDER BY id").fetchall()
        actions = con.execute("SELECT count(*) FROM gm_actions").fetchone()
    with client_on(path) as c:
        finished = c.get(f"/api/tables/{OLD_FINISHED}").json()
        assert finished["status"] == "over" and finished["rated"] is False
        # Its seats were free to anyone before invites: it stays listed and open, without invites.
        assert finished["open"] is True and finished["private"] is False
        assert c.get(f"/api/tables/{OLD_FINISHED}/record").status_code == 200
        playing = c.get(f"/api/tables/{OLD_PLAYING}").json()
        assert playing["status"] == "playing" and playing["seq"] == 6
        assert [s["name"] for s in playing["seats"]] == ["Ann", "Bob"]
        table = play_to_end(c, OLD_PLAYING, OLD_TOKENS)
        assert table["seq"] > 6
        sign_up(c, "Newcomer")
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT version_num FROM alembic_version").fetchall() == [(head_revision(),)]
        after = {r[0]: r for r in con.execute("SELECT id, status, seq FROM gm_tables")}
        old = {r[0]: r for r in before}
        assert after[OLD_FINISHED] == old[OLD_FINISHED], "the finished table is as it was"
        assert set(after) >= set(old)
        assert con.execute("SELECT count(*) FROM gm_actions").fetchone()[0] > actions[0]


@pytest.mark.slow  # starts a PostgreSQL cluster
def test_postgresql_upgrades_from_the_first_schema(pg_cluster: Any) -> None:  # noqa: F811
    """On PostgreSQL: a database at revision 0001 holding a table is upgraded at start and keeps it."""
    url = pg_cluster.create_database()
    database_at(
        url,
        "0001",
        "INSERT INTO gm_tables (id, game, options, seed, chance, clock, status, seq, created) "
        "VALUES ('old', 'penneech', '{}', 7, '[]', NULL, 'waiting', 0, 1.0)",
        "INSERT INTO gm_seats (table_id, seat, kind, name) VALUES ('old', 0, 'human', NULL)",
    )
    repo = open_repository(url)
    try:
        got = repo.get("old")
        assert got is not None and got.rated is False and got.seats[0].account is None
        # A table of before invites keeps its free seat free to anyone (open, no invite on it).
        assert got.open is True and got.private is False and got.seats[0].invite_hash is None
        with repo.engine.connect() as conn:
            version = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()
            assert version == head_revision()
    finally:
        repo.dispose()


def test_the_rating_rule_keeps_unrated_state() -> None:
    """A participant with nobody to compare with keeps its rating; only its game count moves."""
    r = Rating(1600.0, 80.0, 0.06, 4)
    got = rate([Participant(0, "a", 0.0, r), Participant(1, "b", 0.0, r), Participant(2, "c", 0.0, r)])
    assert [x for x, _ in got] == [Rating(1600.0, 80.0, 0.06, 5)] * 3


# -- chat ----------------------------------------------------------------------------------------
def next_of(ws: Any, kind: str, limit: int = 200) -> dict[str, Any]:
    """The next message of type ``kind`` (others skipped)."""
    for _ in range(limit):
        m: dict[str, Any] = ws.receive_json()
        if m["type"] == kind:
            return m
    raise AssertionError(f"no {kind} message")


@pytest.mark.slow  # 105 stored messages read back, and a rate frozen for the test
def test_chat_both_ways_with_a_spectator_and_hostile_text(
    c: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gamester.web.chat

    monkeypatch.setattr(gamester.web.chat, "EVERY", 600.0)  # no refill during the test, however slow
    tid = new_table(c, "penneech", ["human", "human"])
    ann, _bob = join(c, tid, 0, "Ann"), join(c, tid, 1, "Bob")
    with (
        c.websocket_connect(f"/ws/tables/{tid}?token={ann}") as seat,
        c.websocket_connect(f"/ws/tables/{tid}") as spy,
    ):
        next_view(seat), next_view(spy)
        seat.send_json({"type": "chat", "text": "  good luck <b>all</b>  "})
        for ws in (seat, spy):
            m = next_of(ws, "chat")
            assert (m["seat"], m["name"], m["text"]) == (0, "Ann", "good luck <b>all</b>") and m["at"] > 0
        spy.send_json({"type": "chat", "text": "watching you"})
        for ws in (seat, spy):
            m = next_of(ws, "chat")
            assert (m["seat"], m["name"], m["text"]) == (None, "Spectator", "watching you")
        for bad in (
            "",
            "   ",
            "x" * 501,
            None,
            5,
            ["hi"],
            {"t": 1},
            "a\nb",
            "evil\u202etxt",
            "zero\u200bwidth",
        ):
            spy.send_json({"type": "chat", "text": bad})
            m = next_of(spy, "error")
            assert m["code"] == "bad_chat", (bad, m)
        spy.send_json({"type": "chat"})
        assert next_of(spy, "error")["code"] == "bad_chat"
        codes = []  # 5 at once (one spent above), then one every EVERY seconds
        for i in range(6):
            seat.send_json({"type": "chat", "text": f"spam {i}"})
        for _ in range(6):
            m = seat.receive_json()
            while m["type"] not in ("chat", "error"):
                m = seat.receive_json()
            codes.append(m.get("code", "chat"))
        assert sorted(codes) == ["chat"] * 4 + ["rate_limited"] * 2, codes
    # A logged-in spectator speaks under the account's name.
    cat = sign_up(c, "Cat")
    with c.websocket_connect(f"/ws/tables/{tid}", headers=cat) as spy:
        next_view(spy)
        spy.send_json({"type": "chat", "text": "hello from Cat"})
        while (m := next_of(spy, "chat"))["text"] != "hello from Cat":
            pass
        assert (m["seat"], m["name"]) == (None, "Cat")
    # A late arrival gets the last 100, oldest first.
    store: PeopleStore = c.app.state.people.store  # type: ignore[attr-defined]
    for i in range(105):
        store.add_chat(tid, 1, "Bob", f"line {i}", 10.0 + i)
    with c.websocket_connect(f"/ws/tables/{tid}") as late:
        got = [next_of(late, "chat") for _ in range(100)]
    assert [m["text"] for m in got][-3:] == ["line 102", "line 103", "line 104"]
    assert got[0]["text"] == "line 5"


@pytest.mark.slow  # starts a PostgreSQL cluster
def test_chat_reaches_the_sockets_of_another_server(postgres_url: str) -> None:  # noqa: F811
    """Two servers on one PostgreSQL: a message said on one reaches a spectator on the other."""
    with (
        TestClient(create_app(postgres_url, limits=OFF)) as one,
        TestClient(create_app(postgres_url, limits=OFF)) as two,
    ):
        tid = new_table(one, "penneech", ["human", "human"])
        token = join(one, tid, 0, "Ann")
        join(one, tid, 1, "Bob")
        with (
            one.websocket_connect(f"/ws/tables/{tid}?token={token}") as seat,
            two.websocket_connect(f"/ws/tables/{tid}") as spy,
        ):
            next_view(seat), next_view(spy)
            seat.send_json({"type": "chat", "text": "across servers"})
            m = next_of(spy, "chat")
            assert (m["seat"], m["name"], m["text"]) == (0, "Ann", "across servers")


# -- rematch -------------------------------------------------------------------------------------
@pytest.mark.slow  # plays a game to its end, or waits for a clock
def test_rematch_same_seats_bots_and_options_the_deal_moves_on(c: TestClient) -> None:
    tid = new_table(c, "penneech", ["human", "human"], options={"first_dealer": 0, "objective": "deal"})
    tokens = [join(c, tid, 0, "Ann"), join(c, tid, 1, "Bob")]
    r = c.post(f"/api/tables/{tid}/rematch", json={"token": tokens[0]})
    assert r.status_code == 409 and r.json()["error"] == "not_over"
    play_to_end(c, tid, tokens, seed=3)
    near = tokens[0][:-1] + ("B" if tokens[0].endswith("A") else "A")  # one character off, never the token
    for bad in (None, "", "x" * 300, 7, near):
        r = c.post(f"/api/tables/{tid}/rematch", json={"token": bad})
        assert r.status_code == 403 and r.json()["error"] == "bad_token", bad
    with c.websocket_connect(f"/ws/tables/{tid}?token={tokens[1]}") as bob_ws:
        next_view(bob_ws)
        first = c.post(f"/api/tables/{tid}/rematch", json={"token": tokens[0]})
        assert first.status_code == 200, first.text
        new = first.json()
        assert new["seat"] == 0 and new["table"] != tid and new["token"]
        assert next_of(bob_ws, "rematch") == {"type": "rematch", "table": new["table"]}
    second = c.post(f"/api/tables/{tid}/rematch", json={"token": tokens[1]}).json()
    assert second["table"] == new["table"] and second["seat"] == 1
    again = c.post(f"/api/tables/{tid}/rematch", json={"token": tokens[1]})
    assert again.status_code == 409, "a guest's seat at the rematch is taken once"
    old, nxt = c.get(f"/api/tables/{tid}").json(), c.get(f"/api/tables/{new['table']}").json()
    assert nxt["status"] == "playing" and [s["name"] for s in nxt["seats"]] == ["Ann", "Bob"]
    assert {k: v for k, v in nxt["options"].items() if k != "first_dealer"} == {
        k: v for k, v in old["options"].items() if k != "first_dealer"
    }
    record = c.get(f"/api/tables/{tid}/record").json()
    from gamester import replay

    last_dealer = replay(record).public_observation()["dealer"]
    assert nxt["options"]["first_dealer"] == (last_dealer + 1) % 2, "the seat after the last dealer deals"
    with c.websocket_connect(f"/ws/tables/{tid}") as late:  # a late arrival at the old table hears of it
        assert next_of(late, "rematch")["table"] == new["table"]


@pytest.mark.slow  # plays a game to its end, or waits for a clock
def test_rematch_keeps_bots_and_accounts_and_two_asking_at_once_find_one_table(c: TestClient) -> None:
    ann, bob = sign_up(c, "Ann"), sign_up(c, "Bob")
    body = {"game": "piquesept", "seats": ["human", "random", "human", "random"], "rated": True}
    r = remember(c.post("/api/tables", json=body, headers=ann))
    tid = r.json()["id"]
    tokens = [
        c.post(f"/api/tables/{tid}/join", json=invited(tid, {"seat": s}), headers=h).json()["token"]
        for s, h in ((0, ann), (2, bob))
    ]
    play_to_end(c, tid, tokens, seed=9)
    answers: list[dict[str, Any]] = []

    def ask(token: str) -> None:
        answers.append(c.post(f"/api/tables/{tid}/rematch", json={"token": token}).json())

    threads = [threading.Thread(target=ask, args=(t,)) for t in tokens]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len({a["table"] for a in answers}) == 1, answers
    nxt = c.get(f"/api/tables/{answers[0]['table']}").json()
    assert nxt["rated"] is True and [s["kind"] for s in nxt["seats"]] == ["human", "bot", "human", "bot"]
    assert [s["agent"] for s in nxt["seats"]] == [None, "random", None, "random"]
    assert [s["account"] for s in nxt["seats"]] == ["Ann", None, "Bob", None]
    # An account's rematch seat is its own from any device, as every account seat is.
    mine = next(a for a in answers if a["seat"] == 0)
    again = c.post(f"/api/tables/{nxt['id']}/join", json=invited(nxt["id"], {"seat": 0}), headers=ann)
    assert again.json()["token"] == mine["token"]


# -- the join rules, as the room's decisions (no database) -----------------------------------------
def test_decisions_seat_an_account_once_and_give_it_its_seat_back() -> None:
    from gamester.web import decisions as d
    from gamester.web.decisions import SeatOwner
    from gamester.web.errors import Refused

    ann = SeatOwner("ann", "Ann", lambda t, n: f"ann-{t}-{n}")
    row, _ = d.new_table("penneech", {}, ["human", "human"], None, table_id="t1", seed=7, now=1.0, rated=True)
    with pytest.raises(Refused) as guest:
        d.join(row, 1, "Guest", None, "new-token")
    assert guest.value.code == "account_needed"
    plan = d.join(row, 0, "typed", None, "new-token", ann)
    assert (plan.name, plan.token, plan.account, plan.new) == ("Ann", "ann-t1-0", "ann", True)
    s = row.seats[0]
    s.name, s.token_hash, s.account = plan.name, d.hash_token(plan.token), plan.account
    again = d.join(row, 0, None, None, "other", ann)
    assert (again.token, again.new) == ("ann-t1-0", False), "the account's seat, from another device"
    with pytest.raises(Refused) as twice:
        d.join(row, 1, None, None, "other", ann)
    assert twice.value.code == "seat_taken", "one seat per account at a rated table"
    with pytest.raises(Refused) as bots:
        d.new_table("penneech", {}, ["random", "random"], None, table_id="t2", seed=7, now=1.0, rated=True)
    assert bots.value.code == "bad_rated"
    made, _ = d.new_table(
        "penneech", {}, ["human", "random"], None, table_id="t3", seed=7, now=1.0, rated=True,
        creator={"seat": 0, "name": "x"}, token="ann-t3-0", owner=ann,
    )  # fmt: skip
    assert (made.seats[0].account, made.seats[0].name, made.status) == ("ann", "Ann", "playing")
    assert d.public(made, {})["seats"][0]["account"] == "Ann" and d.public(made, {})["rated"] is True


@pytest.mark.slow  # waits for the expiry rounds
def test_a_waiting_table_whose_spectators_chatted_still_expires(tmp_path: Path) -> None:
    """Its chat goes with it (a stored message must not keep an abandoned table alive)."""
    from gamester.web.limits import Limits

    limits = Limits(**{**OFF.json(), "unjoined_minutes": 0.01})
    with TestClient(create_app(f"sqlite:///{tmp_path / 'x.db'}", limits=limits, lease_seconds=0.6)) as c:
        tid = new_table(c, "penneech", ["human", "human"])
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            next_view(ws)
            ws.send_json({"type": "chat", "text": "anyone here?"})
            assert next_of(ws, "chat")["text"] == "anyone here?"
        end = time.monotonic() + 30
        while c.get(f"/api/tables/{tid}").status_code != 404:
            assert time.monotonic() < end, "the table with chat never expired"
            time.sleep(0.1)
        assert c.app.state.people.store.last_chat(tid, 10) == []  # type: ignore[attr-defined]
