"""Leaving and abandoned seats through the API and the table WebSocket (issue 43; docs/web.md, Leaving
and abandoned seats), on SQLite and on PostgreSQL: one server per database for the whole module.

A seat left or gone (no socket for ``abandon_seconds``, 2 s here) at an unrated table is played by a
stand-in and taken back with its invite or its own token; at a rated table it aborts the game before
everyone has moved and forfeits after (both ratings move); every person gone ends the table and the
lobby no longer lists it; a slow clock waits; a game over when dealt ends at once. Also the store's
part of it, as a contract on both databases: each abandonment is written once, a lease taken over
moves an absent seat's wait on by the time no server ran the table.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from fastapi.testclient import TestClient  # noqa: E402

from gamester.web import create_app  # noqa: E402
from gamester.web.limits import Limits  # noqa: E402
from tests.pg_support import module_database, pg_cluster  # noqa: E402, F401  (pg_cluster: a pytest fixture)
from tests.test_web_people import db_url  # noqa: E402, F401  (a fixture: SQLite and PostgreSQL, each its own)
from tests.web_helpers import INVITES, join, new_table, next_view, remember  # noqa: E402

pytestmark = pytest.mark.timeout(300)

GONE = 2.0  # abandon_seconds of this module's servers
LIMITS = Limits(per_address=False, abandon_seconds=GONE)
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def module_db(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    return module_database(request, tmp_path_factory, "leaving")


@pytest.fixture(scope="module")
def c(module_db: str) -> Iterator[TestClient]:
    with TestClient(create_app(module_db, limits=LIMITS, lease_seconds=1.5)) as client:
        yield client


_names = iter(range(10**6))


def account(c: TestClient, stem: str) -> tuple[str, dict[str, str]]:
    """A new account (a fresh name each time: the module's server is shared) and its session header."""
    name = f"{stem}{next(_names)}"
    assert c.post("/api/accounts", json={"name": name, "password": PASSWORD}).status_code == 201
    r = c.post("/api/session", json={"name": name, "password": PASSWORD})
    c.cookies.clear()
    return name, {"Authorization": f"Bearer {r.json()['session']}"}


def until(ws: Any, pred: Callable[[dict[str, Any]], bool], limit: int = 2000) -> dict[str, Any]:
    """The first message of ``ws`` for which ``pred`` holds (every message before it read)."""
    for _ in range(limit):
        m: dict[str, Any] = ws.receive_json()
        if pred(m):
            return m
    raise AssertionError("not received")


def event(kind: str) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m["type"] == "event" and m["event"]["type"] == kind


def wait_for(pred: Callable[[], bool], seconds: float = 60.0) -> None:
    end = time.monotonic() + seconds
    while not pred():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)


def table(c: TestClient, tid: str) -> dict[str, Any]:
    got: dict[str, Any] = c.get(f"/api/tables/{tid}").json()
    return got


def account_pair(
    c: TestClient, *, rated: bool = True, clock: dict[str, Any] | None = None
) -> tuple[str, list[str], list[str]]:
    """A Penneech table of two new accounts, rated unless said: its id, their names and seat tokens."""
    (a, ha), (b, hb) = account(c, "Ann"), account(c, "Bob")
    body = {
        "game": "penneech",
        "seats": ["human", "human"],
        "rated": rated,
        "clock": clock,
        "join": {"seat": 0},
    }
    made = remember(c.post("/api/tables", json=body, headers=ha)).json()
    tid = made["id"]
    r = c.post(f"/api/tables/{tid}/join", json={"seat": 1, "invite": INVITES[tid]["1"]}, headers=hb)
    assert r.status_code == 200, r.text
    return tid, [a, b], [made["token"], r.json()["token"]]


def rating(c: TestClient, name: str) -> dict[str, Any]:
    got: dict[str, Any] = c.get(f"/api/players/{name}").json()["ratings"].get("penneech", {})
    return got


def to_move(views: list[dict[str, Any]]) -> int:
    return next(i for i, v in enumerate(views) if v["legal"])


# -- unrated: a stand-in plays on, the seat is taken back --------------------------------------------
def test_a_seat_left_is_played_by_a_stand_in_and_taken_back_with_its_invite(c: TestClient) -> None:
    tid = new_table(c, "penneech", ["human", "human"])
    toks = [join(c, tid, 0, "Ann"), join(c, tid, 1, "Bob")]
    with (
        c.websocket_connect(f"/ws/tables/{tid}?token={toks[0]}") as ann,
        c.websocket_connect(f"/ws/tables/{tid}") as spectator,
    ):
        first = next_view(ann)
        next_view(spectator)
        r = c.post(f"/api/tables/{tid}/leave", json={"token": toks[1]})
        assert r.status_code == 200 and r.json() == {"ok": True, "seat": 1}
        want = {"type": "abandoned", "seat": 1, "name": "Bob", "how": "left", "then": "bot"}
        want["agent"] = "heuristic"  # the lobby's gentle default: the table has no bot of its own
        for ws in (ann, spectator):
            assert until(ws, event("abandoned"))["event"] == want
        got = table(c, tid)
        assert got["abandoned"] == [1] and got["status"] == "playing" and got["result"] is None
        assert got["seats"][1]["joined"] is False and got["seats"][1]["name"] == "Bob"
        assert c.post(f"/api/tables/{tid}/leave", json={"token": toks[1]}).status_code == 403, "a void token"
        # Ann plays while she is to (a deal may ask her twice in a row), then the stand-in answers for
        # seat 1, and says so.
        v = first
        for _ in range(2000):
            if v["type"] == "view" and v["events"] and v["events"][0]["type"] == "stand_in":
                break
            if v["type"] == "view" and v["legal"]:
                ann.send_json({"type": "act", "action": v["legal"][0], "seq": v["seq"]})
            v = ann.receive_json()
        else:
            raise AssertionError("the stand-in never moved")
        assert v["events"][0] == {"type": "stand_in", "seat": 1, "agent": "heuristic"}
        assert v["events"][1]["type"] == "action" and v["events"][1]["player"] == 1
        # Nobody takes it without the seat's invite; with it, Cy does, and everyone is told.
        r = c.post(f"/api/tables/{tid}/join", json={"seat": 1, "name": "Cy"})
        assert r.status_code == 403 and r.json()["error"] == "invite_needed"
        r = c.post(f"/api/tables/{tid}/join", json={"seat": 1, "name": "Cy", "invite": INVITES[tid]["1"]})
        assert r.status_code == 200, r.text
        cy = r.json()["token"]
        back = {"type": "taken_back", "seat": 1, "name": "Cy"}
        assert until(spectator, event("taken_back"))["event"] == back
        while (m := ann.receive_json())["type"] != "event" or m["event"]["type"] != "taken_back":
            v = m if m["type"] == "view" else v  # Ann's last view: the stand-in may have moved again
        assert m["event"] == back
        got = table(c, tid)
        assert got["abandoned"] == [] and got["seats"][1]["joined"] and got["seats"][1]["name"] == "Cy"
        taken = got["seq"]
        # From now on the seat is Cy's: its moves come from Cy's socket, never from the stand-in.
        with c.websocket_connect(f"/ws/tables/{tid}?token={cy}") as cws:
            socks, last = (ann, cws), [v, next_view(cws)]
            for _ in range(6):
                seq = table(c, tid)["seq"]
                for i, ws in enumerate(socks):
                    while last[i]["seq"] < seq:
                        last[i] = next_view(ws)
                    stood_in = any(e["type"] == "stand_in" for e in last[i]["events"])
                    assert not (stood_in and last[i]["seq"] > taken), last[i]["events"]
                i = to_move(last)
                socks[i].send_json({"type": "act", "action": last[i]["legal"][0], "seq": seq})
                wait_for(lambda at=seq: table(c, tid)["seq"] > at)


@pytest.mark.slow  # waits for abandon_seconds
def test_a_seat_gone_is_played_by_a_stand_in_until_its_page_comes_back(c: TestClient) -> None:
    tid = new_table(c, "penneech", ["human", "human"])
    toks = [join(c, tid, 0, "Ann"), join(c, tid, 1, "Bob")]
    with c.websocket_connect(f"/ws/tables/{tid}") as spectator:
        next_view(spectator)
        socks = [c.websocket_connect(f"/ws/tables/{tid}?token={t}") for t in toks]
        views = [next_view(s.__enter__()) for s in socks]
        mover = to_move(views)
        socks[mover].__exit__(None, None, None)  # the one the game waits on closes the page
        stays = socks[1 - mover]
        try:
            m = until(spectator, event("abandoned"))["event"]
            assert m == {"type": "abandoned", "seat": mover, "name": ("Ann", "Bob")[mover], "how": "gone",
                         "then": "bot", "agent": "heuristic"}  # fmt: skip
            moved = until(spectator, lambda x: x["type"] == "view" and x["seq"] >= 1)
            assert moved["events"][0]["type"] == "stand_in"
            # The page comes back with its token: the seat is its player's again.
            with c.websocket_connect(f"/ws/tables/{tid}?token={toks[mover]}") as back:
                next_view(back)
                assert until(spectator, event("taken_back"))["event"]["seat"] == mover
                assert table(c, tid)["abandoned"] == []
        finally:
            stays.__exit__(None, None, None)


# -- rated: abort before everyone has moved, forfeit after -------------------------------------------
def test_a_rated_game_left_before_everyone_moved_is_aborted(c: TestClient) -> None:
    tid, names, toks = account_pair(c)
    with c.websocket_connect(f"/ws/tables/{tid}?token={toks[0]}") as ann:
        next_view(ann)
        assert c.post(f"/api/tables/{tid}/leave", json={"token": toks[1]}).status_code == 200
        assert until(ann, event("abandoned"))["event"]["then"] == "aborted"
        v = until(ann, lambda m: m["type"] == "view" and m["status"] == "over")
        assert v["returns"] is None and v["forfeit"] is None
    got = table(c, tid)
    assert got["status"] == "over" and got["result"] == "aborted" and got["abandoned"] == [1]
    assert c.get(f"/api/tables/{tid}/record").json()["result"] == {"aborted": True}
    for name in names:
        player = c.get(f"/api/players/{name}").json()
        assert player["ratings"] == {} and player["history"] == [], "no rating moves"
        assert player["recent"][0]["id"] == tid and player["recent"][0]["aborted"] is True
    assert tid not in [t["id"] for t in c.get("/api/tables?status=playing").json()["tables"]]


def _both_move(c: TestClient, tid: str, toks: list[str]) -> None:
    """Play until each of the two seats has made a move of its own (sockets closed after)."""
    with (
        c.websocket_connect(f"/ws/tables/{tid}?token={toks[0]}") as a,
        c.websocket_connect(f"/ws/tables/{tid}?token={toks[1]}") as b,
    ):
        moved = set()
        views = [next_view(a), next_view(b)]
        while moved != {0, 1}:
            while views[0]["seq"] != views[1]["seq"]:
                low = min((0, 1), key=lambda i: views[i]["seq"])
                views[low] = next_view((a, b)[low])
            i = to_move(views)
            (a, b)[i].send_json({"type": "act", "action": views[i]["legal"][0], "seq": views[i]["seq"]})
            moved.add(i)
            views = [next_view(a), next_view(b)]


def counted(c: TestClient, event: str) -> float:
    """How many table events of this kind the server's ``/metrics`` counted (docs/deploy.md)."""
    got = c.app.state.metrics.registry.get_sample_value("gamester_table_events_total", {"event": event})  # type: ignore[attr-defined]
    return float(got or 0.0)


def test_a_rated_walk_out_forfeits_and_moves_both_ratings(c: TestClient) -> None:
    tid, names, toks = account_pair(c)
    _both_move(c, tid, toks)
    abandoned, ended = counted(c, "abandoned"), counted(c, "ended")
    with c.websocket_connect(f"/ws/tables/{tid}?token={toks[0]}") as ann:
        next_view(ann)
        assert c.post(f"/api/tables/{tid}/leave", json={"token": toks[1]}).status_code == 200
        assert until(ann, event("abandoned"))["event"]["then"] == "forfeit"
        v = until(ann, lambda m: m["type"] == "view" and m["status"] == "over")
        assert v["forfeit"] == 1 and v["returns"] == [1.0, -1.0]
    got = table(c, tid)
    assert got["result"] == "forfeit" and got["forfeit"] == 1
    wait_for(lambda: counted(c, "ended") > ended)
    assert counted(c, "abandoned") >= abandoned + 1  # other tables of the module may be abandoned meanwhile
    wait_for(lambda: rating(c, names[1]).get("games") == 1)
    stay, left = rating(c, names[0]), rating(c, names[1])
    print(f"\nrated walk-out: {names[0]} (stays) {stay}, {names[1]} (left) {left}")
    assert stay["rating"] > 1500 > left["rating"], (stay, left)
    recent = c.get(f"/api/players/{names[1]}").json()["recent"][0]
    assert recent["id"] == tid and recent["forfeit"] == 1 and recent["status"] == "over"


@pytest.mark.slow  # waits for abandon_seconds
def test_a_rated_seat_gone_after_everyone_moved_forfeits(c: TestClient) -> None:
    tid, names, toks = account_pair(c)
    _both_move(c, tid, toks)
    with c.websocket_connect(f"/ws/tables/{tid}") as spectator:
        next_view(spectator)
        # Nobody's socket is open: the seat the game waits on is gone after GONE seconds, alone.
        m = until(spectator, event("abandoned"))["event"]
        assert m["how"] == "gone" and m["then"] == "forfeit"
        v = until(spectator, lambda x: x["type"] == "view" and x["status"] == "over")
        assert v["forfeit"] == m["seat"]
    wait_for(lambda: rating(c, names[m["seat"]]).get("games") == 1)
    assert rating(c, names[1 - m["seat"]])["rating"] > 1500 > rating(c, names[m["seat"]])["rating"]


# -- every person gone; a slow clock -----------------------------------------------------------------
def test_a_table_whose_people_all_left_ends_and_is_not_listed(c: TestClient) -> None:
    tid = new_table(c, "penneech", ["human", "random"])
    tok = join(c, tid, 0, "Ann")

    def listed(m: dict[str, Any]) -> bool:
        return m["type"] == "tables" and any(t["id"] == tid for t in m["waiting"] + m["playing"])

    with c.websocket_connect(f"/ws/tables/{tid}") as spectator, c.websocket_connect("/ws/lobby") as lobby:
        next_view(spectator)
        until(lobby, listed)
        assert c.post(f"/api/tables/{tid}/leave", json={"token": tok}).status_code == 200
        assert until(spectator, event("abandoned"))["event"]["then"] == "aborted"
        until(lobby, lambda m: m["type"] == "tables" and not listed(m))  # the lobby socket's lists too
    got = table(c, tid)
    assert got["status"] == "over" and got["result"] == "aborted"
    for status in ("waiting", "playing"):
        assert tid not in [t["id"] for t in c.get(f"/api/tables?status={status}").json()["tables"]]


@pytest.mark.slow  # waits for abandon_seconds
def test_a_slow_clock_waits_while_a_table_without_one_does_not(c: TestClient) -> None:
    """Two tables whose seat to move has no socket from the same moment: the one without a clock
    abandons it after GONE seconds; the one with an hour a move still waits for its player then."""
    slow, _, _ = account_pair(c, rated=False, clock={"seconds_per_move": 3600, "on_timeout": "bot"})
    plain = new_table(c, "penneech", ["human", "human"])
    join(c, plain, 0), join(c, plain, 1)
    with c.websocket_connect(f"/ws/tables/{plain}") as spectator:
        next_view(spectator)
        until(spectator, event("abandoned"))
    got = table(c, slow)
    assert got["abandoned"] == [] and got["status"] == "playing" and got["seq"] == 0


def test_a_game_over_when_dealt_ends_at_once(c: TestClient) -> None:
    for _ in range(200):  # about a deal in four reaches a target of 1 by itself
        body = {"game": "penneech", "options": {"target": 1}, "seats": ["human", "random"]}
        r = c.post("/api/tables", json=body)
        assert r.status_code == 201, r.text
        if r.json()["status"] == "over":
            break
    made = r.json()
    assert made["status"] == "over" and made["result"] == "played" and made["returns"] is not None
    with c.websocket_connect(f"/ws/tables/{made['id']}") as spectator:
        v = next_view(spectator)
        assert v["status"] == "over" and v["returns"] == made["returns"] and v["legal"] == []
    assert c.get(f"/api/tables/{made['id']}/record").status_code == 200


# -- the store's part, on both databases -------------------------------------------------------------
def test_the_store_writes_an_abandonment_once_and_moves_an_absent_seats_wait_on(db_url: str) -> None:  # noqa: F811
    """On a database of its own (no server runs its tables)."""
    from gamester.store import open_repository
    from gamester.store.port import Abandonment, Ending, SeatRow, TableRow

    repo = open_repository(db_url)
    try:
        tid = "store"
        seats = [SeatRow(seat=i, kind="human", name=f"P{i}", token_hash=f"h{i}") for i in (0, 1)]
        repo.create(TableRow(id=tid, game="penneech", options={}, seed=1, chance=[], clock=None,
                             status="playing", seq=0, created=100.0, moved=100.0, seats=seats))  # fmt: skip

        def abandon(seat: int, how: str, held: str | None, seq: int = 0, end: Ending | None = None) -> bool:
            agent = None if end is not None else "heuristic"
            then = "bot" if end is None else "aborted"
            return repo.abandon(tid, seq, Abandonment(seat, how, then, agent, end, how == "gone"), held)

        assert not abandon(1, "left", "wrong"), "not the seat's token"
        assert not abandon(1, "left", "h1", seq=5), "not the table's seq"
        assert abandon(1, "left", "h1")
        assert not abandon(1, "gone", None), "once"
        row = repo.get(tid)
        assert row is not None
        s = row.seats[1]
        assert (s.abandoned, s.agent, s.token_hash, s.name) == ("left", "heuristic", None, "P1")
        assert repo.take_back(tid, 1, "Cy", "hc", None, 150.0)
        assert not repo.take_back(tid, 1, "Dan", "hd", None, 151.0), "taken once"
        row = repo.get(tid)
        assert row is not None and row.seats[1].abandoned is None and row.seats[1].name == "Cy"
        repo.mark_seen([(tid, 0)], 200.0)
        # A lease handed back at 300 and taken over at 310: the 10 s nobody ran it do not count.
        assert repo.take_lease(tid, "a", 301.0, 300.0)
        repo.release_leases("a", 300.0)
        assert repo.take_lease(tid, "b", 320.0, 310.0)
        row = repo.get(tid)
        assert row is not None and row.moved == pytest.approx(110.0)
        assert row.seats[0].seen == pytest.approx(210.0) and row.seats[1].seen == pytest.approx(160.0)
        aborted = Ending(None, None, "aborted")
        assert abandon(0, "gone", None, end=aborted)
        row = repo.get(tid)
        assert row is not None and (row.status, row.result, row.rating_applied) == ("over", "aborted", True)
        assert not abandon(1, "gone", None, end=aborted), "over"
    finally:
        repo.dispose()
