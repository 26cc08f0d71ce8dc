"""State that must survive the server: a restarted app on the same database continues every table
where it stood (positions, clock deadlines, bots that carry on), and two apps on one PostgreSQL serve
the same tables (an action through one reaches the other's sockets; one process runs a table's bots,
and the other takes over once it stops)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402

from gamester.web import create_app  # noqa: E402
from tests.pg_support import pg_cluster, postgres_url  # noqa: E402, F401  (pytest fixtures)
from tests.web_helpers import join, new_table, next_view  # noqa: E402

pytestmark = pytest.mark.timeout(180)


def _wait(pred: Callable[[], bool], seconds: float = 30.0) -> None:
    end = time.monotonic() + seconds
    while not pred():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.1)


def test_restart_keeps_positions_deadlines_and_bots(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'restart.db'}"
    with TestClient(create_app(url)) as c:
        clocked = new_table(
            c, "penneech", ["human", "human"], clock={"seconds_per_move": 600, "on_timeout": "bot"}
        )
        toks = [join(c, clocked, 0), join(c, clocked, 1)]
        for tok in toks:
            with c.websocket_connect(f"/ws/tables/{clocked}?token={tok}") as ws:
                v = next_view(ws)
                if v["legal"]:
                    ws.send_json({"type": "act", "action": v["legal"][0], "seq": 0})
                    moved = next_view(ws)
                    break
        before = c.get(f"/api/tables/{clocked}").json()
        deadline = moved["clock"]["deadline"] if moved["clock"]["deadline"] else None
        # a bot table that is mid-game when the server stops
        bots = new_table(c, "penneech", ["random", "random"], options={"objective": "deal"})
        _wait(lambda: c.get(f"/api/tables/{bots}").json()["seq"] >= 3)
        # Taken before the server stops: it hands its leases back while stopping, and the pause of
        # the clock starts then, a moment before this block has finished closing.
        stopped = time.time()
    with TestClient(create_app(url)) as c:
        after = c.get(f"/api/tables/{clocked}").json()
        assert after["seq"] == before["seq"] == 1 and after["status"] == "playing"
        for tok in toks:
            with c.websocket_connect(f"/ws/tables/{clocked}?token={tok}") as ws:
                v = next_view(ws)
                assert v["seq"] == 1
                if v["seat"] == moved["seat"]:
                    assert v["view"] == moved["view"], "the same position after the restart"
                # The deadline survives the restart, moved on by at most the time no server ran
                # the table (that time does not count against the seat to move).
                assert deadline <= v["clock"]["deadline"] <= deadline + (time.time() - stopped), (
                    deadline,
                    v["clock"],
                )
        _wait(lambda: c.get(f"/api/tables/{bots}").json()["status"] == "over")
        assert c.get(f"/api/tables/{bots}/record").status_code == 200


@pytest.mark.slow
def test_two_servers_on_one_postgres(pg_cluster) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    url = pg_cluster.create_database()
    a = TestClient(create_app(url, lease_seconds=2.0))
    b = TestClient(create_app(url, lease_seconds=2.0))
    with a, b:
        tid = new_table(a, "penneech", ["human", "human"])
        t0, t1 = join(a, tid, 0), join(b, tid, 1)
        with (
            a.websocket_connect(f"/ws/tables/{tid}?token={t0}") as w0,
            b.websocket_connect(f"/ws/tables/{tid}?token={t1}") as w1,
            b.websocket_connect(f"/ws/tables/{tid}") as spec_b,
        ):
            v0, v1 = next_view(w0), next_view(w1)
            next_view(spec_b)
            mover, seq = (w0, 0) if v0["legal"] else (w1, 0)
            legal = (v0 if v0["legal"] else v1)["legal"]
            mover.send_json({"type": "act", "action": legal[0], "seq": seq})
            # the action reaches the sockets of both servers
            for ws in (w0, w1, spec_b):
                m = next_view(ws)
                while m["seq"] < 1:
                    m = next_view(ws)
                assert m["seq"] == 1
        # a bot table: exactly one server holds its lease; stopping it hands the table to the other
        bots = new_table(b, "penneech", ["random", "random"], options={"objective": "deal"})
        _wait(lambda: a.get(f"/api/tables/{bots}").json()["seq"] >= 2)
    c = TestClient(create_app(url, lease_seconds=2.0))
    with c:
        _wait(lambda: c.get(f"/api/tables/{bots}").json()["status"] == "over", 60)
        rec = c.get(f"/api/tables/{bots}/record").json()
        assert len(rec["actions"]) == c.get(f"/api/tables/{bots}").json()["seq"]


@pytest.mark.slow
def test_lease_moves_to_the_other_server_when_one_stops(pg_cluster) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    url = pg_cluster.create_database()
    a = TestClient(create_app(url, lease_seconds=2.0, server_id="server-a"))
    b = TestClient(create_app(url, lease_seconds=2.0, server_id="server-b"))
    with b:
        with a:
            tid = new_table(a, "penneech", ["human", "random"], options={"objective": "deal"})
            tok = join(a, tid, 0)
            from gamester.store import open_repository

            repo = open_repository(url)
            _wait(lambda: repo.get(tid).lease_owner is not None)  # type: ignore[union-attr]
            first = repo.get(tid).lease_owner  # type: ignore[union-attr]
            assert first in ("server-a", "server-b")
        if first == "server-a":
            _wait(lambda: repo.get(tid).lease_owner == "server-b", 20)  # type: ignore[union-attr]
        # the surviving server plays the bot's moves for a human acting through it
        with b.websocket_connect(f"/ws/tables/{tid}?token={tok}") as ws:
            for _ in range(6):
                v = next_view(ws)
                while not v["legal"] and v["status"] == "playing":
                    v = next_view(ws)
                if v["status"] != "playing":
                    break
                ws.send_json({"type": "act", "action": v["legal"][0], "seq": v["seq"]})
        assert b.get(f"/api/tables/{tid}").json()["seq"] >= 6
        repo.dispose()


def _play_all_humans(c: TestClient, tid: str, tokens: list[str], moves: int | None) -> dict[str, object]:
    """Every seat human over its own socket; play ``moves`` random moves (None: to the end)."""
    import random

    rng = random.Random(3)
    socks = [c.websocket_connect(f"/ws/tables/{tid}?token={t}") for t in tokens]
    wss = [s.__enter__() for s in socks]
    try:
        views = [next_view(ws) for ws in wss]
        n = 0
        while views[0]["status"] == "playing" and (moves is None or n < moves):
            mover = next(i for i, v in enumerate(views) if v["legal"])
            v = views[mover]
            wss[mover].send_json({"type": "act", "action": rng.choice(v["legal"]), "seq": v["seq"]})
            views = [next_view(ws) for ws in wss]
            assert all(x["seq"] == v["seq"] + 1 for x in views)
            n += 1
        return views[0]
    finally:
        for s in socks:
            s.__exit__(None, None, None)


@pytest.mark.parametrize("game", ["piquesept", "penneech"])
def test_restart_mid_game_then_play_to_the_end(tmp_path: Path, game: str) -> None:
    """After a restart the table draws its next packs (and the Piquesept trade) from its seed."""
    url = f"sqlite:///{tmp_path / 'mid.db'}"
    n = 4 if game == "piquesept" else 2
    options = {"objective": "deal"} if game == "penneech" else {}
    with TestClient(create_app(url)) as c:
        tid = new_table(c, game, ["human"] * n, options=options)
        tokens = [join(c, tid, i, f"p{i}") for i in range(n)]
        _play_all_humans(c, tid, tokens, 3)
    with TestClient(create_app(url)) as c:
        last = _play_all_humans(c, tid, tokens, None)
        assert last["status"] == "over"
        rec = c.get(f"/api/tables/{tid}/record").json()
        from gamester.core.record import replay

        assert replay(rec).is_terminal() and len(rec["actions"]) == last["seq"]


@pytest.mark.slow
def test_leaving_through_one_server_closes_the_seat_on_the_other(pg_cluster) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    from starlette.websockets import WebSocketDisconnect

    url = pg_cluster.create_database()
    a = TestClient(create_app(url, lease_seconds=2.0))
    b = TestClient(create_app(url, lease_seconds=2.0))
    with a, b:
        tid = new_table(a, "penneech", ["human", "human"])
        tok = join(a, tid, 0)
        with b.websocket_connect(f"/ws/tables/{tid}?token={tok}") as ws:
            next_view(ws)
            assert a.post(f"/api/tables/{tid}/leave", json={"token": tok}).status_code == 200
            with pytest.raises(WebSocketDisconnect) as e:
                while True:
                    ws.receive_json()
            assert e.value.code == 1008
