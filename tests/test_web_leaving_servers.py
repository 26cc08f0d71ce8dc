"""Abandoned seats across servers and restarts (issue 43; docs/web.md, Leaving and abandoned seats).

Two servers on one PostgreSQL: a player whose socket is on the server that does not run the table is
not counted as gone (every server marks the seats it holds as seen), and once that socket goes, the
seat is abandoned once (one event on each server's sockets, one stand-in). A server killed in the
middle of an absence and started again on the same database carries the wait on where it stood: the
time no server ran the table does not count, the time before does (checked against a table whose wait
starts at the restart, never against a fixed time).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402

from gamester.web import create_app  # noqa: E402
from gamester.web.limits import Limits  # noqa: E402
from tests.pg_support import pg_cluster  # noqa: E402, F401  (a pytest fixture)
from tests.web_helpers import join, new_table, next_view  # noqa: E402
from tests.web_support import Api, ServerProcess, open_table, sqlite_url  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

GONE = 2.0
GONE_HERE = 6  # abandon_seconds of the restarted server


def wait_for(pred: Callable[[], bool], seconds: float = 60.0) -> None:
    end = time.monotonic() + seconds
    while not pred():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)


@pytest.fixture
def two(pg_cluster: Any) -> Iterator[tuple[TestClient, TestClient, Any]]:  # noqa: F811
    """Two servers (their own ids) on one fresh PostgreSQL database, and a repository to read it."""
    from gamester.store import open_repository

    url = pg_cluster.create_database()
    limits = Limits(per_address=False, abandon_seconds=GONE)
    a = TestClient(create_app(url, limits=limits, lease_seconds=1.5, server_id="srv-a"))
    b = TestClient(create_app(url, limits=limits, lease_seconds=1.5, server_id="srv-b"))
    repo = open_repository(url)
    try:
        with a, b:
            yield a, b, repo
    finally:
        repo.dispose()


def mover(c: TestClient, tid: str) -> int:
    with c.websocket_connect(f"/ws/tables/{tid}") as spectator:
        p: int = next_view(spectator)["view"]["current_player"]
        return p


def abandoned(c: TestClient, tid: str) -> list[int]:
    got: list[int] = c.get(f"/api/tables/{tid}").json()["abandoned"]
    return got


def test_two_servers_count_a_player_on_either_and_abandon_a_seat_once(
    two: tuple[TestClient, TestClient, Any],
) -> None:
    a, b, repo = two
    tid = new_table(a, "penneech", ["human", "human"])
    toks = [join(a, tid, 0, "Ann"), join(a, tid, 1, "Bob")]
    wait_for(lambda: repo.get(tid).lease_owner is not None)
    holder = repo.get(tid).lease_owner
    other = b if holder == "srv-a" else a
    p = mover(a, tid)
    # The player the game waits on is at the table through the server that does not run it (the
    # other player through the one that does: its turn comes once the stand-in has moved).
    there = other.websocket_connect(f"/ws/tables/{tid}?token={toks[p]}")
    next_view(there.__enter__())
    stays = (a if other is b else b).websocket_connect(f"/ws/tables/{tid}?token={toks[1 - p]}")
    next_view(stays.__enter__())
    try:
        # A peer whose player never came is gone after GONE s, and another after it: meanwhile the
        # first has been waited on for twice that, through the other server, and is not gone.
        for _ in range(2):
            peer = new_table(a, "penneech", ["human", "human"])
            join(a, peer, 0), join(a, peer, 1)
            wait_for(lambda t=peer: abandoned(a, t) != [])
        assert abandoned(a, tid) == [] and repo.get(tid).lease_owner == holder
        with (
            a.websocket_connect(f"/ws/tables/{tid}") as on_a,
            b.websocket_connect(f"/ws/tables/{tid}") as on_b,
        ):
            next_view(on_a), next_view(on_b)
            there.__exit__(None, None, None)  # the player's page closes
            there = None
            got: dict[str, list[dict[str, Any]]] = {"a": [], "b": []}
            for name, ws in (("a", on_a), ("b", on_b)):
                while True:  # until the stand-in's first move, after the abandonment
                    m = ws.receive_json()
                    got[name].append(m)
                    if m["type"] == "view" and m["events"] and m["events"][0]["type"] == "stand_in":
                        break
            for name, messages in got.items():
                events = [m["event"] for m in messages if m["type"] == "event"]
                assert events == [
                    {"type": "abandoned", "seat": p, "name": ("Ann", "Bob")[p], "how": "gone", "then": "bot",
                     "agent": "heuristic"}
                ], (name, events)  # fmt: skip
    finally:
        if there is not None:
            there.__exit__(None, None, None)
        stays.__exit__(None, None, None)
    row = repo.get(tid)
    assert row is not None and row.seats[p].abandoned == "gone" and row.seq >= 1  # the stand-in played


def test_an_absence_carries_on_through_a_restart(tmp_path: Path) -> None:
    """Seat absent from the start, abandon_seconds 6: the server is killed (``kill -9``) about 3 s in
    and started again about 2 s later. The table is abandoned about 3 s after the restart: before a
    table whose wait starts at the restart (the 3 s before counted), and not before 6 s minus what
    ran before the kill (the 2 s down did not count)."""
    limits = tmp_path / "limits.json"
    limits.write_text(json.dumps({"abandon_seconds": GONE_HERE}))
    server = ServerProcess(sqlite_url(tmp_path), limits=str(limits), log_dir=tmp_path)
    api: Api | None = None
    try:
        server.start()
        api = Api(server.base)
        tid, _ = open_table(api, "penneech", ["human", "human"])  # nobody connects: absent from now
        began = time.time()
        time.sleep(GONE_HERE / 2)  # the middle of the absence, on purpose
        server.kill9()
        down = time.time()
        time.sleep(2.0)  # the time no server runs the table, on purpose
        server.start()
        up = time.time()
        peer, _ = open_table(api, "penneech", ["human", "human"])
        first: dict[str, float] = {}
        deadline = time.monotonic() + 60
        while len(first) < 2:
            assert time.monotonic() < deadline, f"not abandoned: {first}{server.log_tail()}"
            for name, t in (("table", tid), ("peer", peer)):
                if name not in first and api.table(t)["abandoned"]:
                    first[name] = time.time()
            time.sleep(0.05)
        counted = down - began  # at most this much of the absence ran before the stop
        print(f"\nran {counted:.1f} s, down {up - down:.1f} s; abandoned {first['table'] - up:.1f} s "
              f"after the restart, the peer {first['peer'] - up:.1f} s")  # fmt: skip
        assert first["table"] < first["peer"], "the time before the stop counted"
        assert first["table"] - up >= GONE_HERE - counted - 0.3, (
            "the time no server ran the table did not count"
        )
    finally:
        if api is not None:
            api.close()
        server.stop()
