"""Quick play with several servers on one database (docs/web.md, Quick play): real ``gamester serve``
processes (tests/web_support.py), two on one PostgreSQL and two on one SQLite file.

- A seek made on one server is seated with a seek made on the other, and a lobby socket on the
  second hears of a seek made on the first (PostgreSQL's notices). (On one SQLite file only the race
  below: several servers on one SQLite file work, but PostgreSQL is the database for that.)
- Many seeks at once, through both servers, from many threads: every seek is seated exactly once,
  every table seats exactly the seeks that say they sit there, no seat twice.
- A seek with bots after a few seconds is filled by bots when only the *other* server is asked.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("httpx")

import httpx  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402

from tests.pg_support import pg_cluster  # noqa: E402, F401  (a pytest fixture)
from tests.web_support import ServerProcess, sqlite_url  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]
SEEKERS = 30


def two_servers(url: str) -> Iterator[list[ServerProcess]]:
    first = ServerProcess(url).start()  # the first migrates the database; the second finds it ready
    second = ServerProcess(url).start()
    try:
        yield [first, second]
    finally:
        second.stop()
        first.stop()


@pytest.fixture(scope="module")
def servers(pg_cluster: Any) -> Iterator[list[ServerProcess]]:  # noqa: F811
    """Two servers on one PostgreSQL (the database for several servers)."""
    yield from two_servers(pg_cluster.create_database())


@pytest.fixture(scope="module")
def sqlite_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[ServerProcess]]:
    """Two servers on one SQLite file: the single-writer path between processes."""
    yield from two_servers(sqlite_url(Path(tmp_path_factory.mktemp("two"))))


def seek(base: str, body: dict[str, Any]) -> dict[str, Any]:
    r = httpx.post(f"{base}/api/seeks", json=body, timeout=30)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def wait_seated(base: str, s: dict[str, Any], timeout: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    with httpx.Client(base_url=base, timeout=30) as client:
        while True:
            got: dict[str, Any] = client.get(f"/api/seeks/{s['seek']}", params={"token": s["token"]}).json()
            if got["status"] != "waiting" or time.monotonic() > deadline:
                return got
            time.sleep(0.1)


def test_a_seek_on_one_server_meets_a_seek_on_the_other(servers: list[ServerProcess]) -> None:
    a, b = servers
    body = {"game": "penneech", "options": {"target": 31}}

    async def lobby_on_b_hears_a() -> None:
        async with connect(f"{b.ws_base}/ws/lobby", open_timeout=20) as ws:
            while json.loads(await ws.recv())["type"] != "tables":
                pass
            made = await asyncio.to_thread(seek, a.base, body)
            while True:
                m = json.loads(await asyncio.wait_for(ws.recv(), 20))
                if m["type"] == "seeks" and any(s["id"] == made["seek"] for s in m["seeks"]):
                    break
            other = await asyncio.to_thread(seek, b.base, body)
            assert other["status"] == "matched", other
            got = await asyncio.to_thread(wait_seated, a.base, made)
            assert got["status"] == "matched" and got["table"] == other["table"]
            while True:  # the new table reaches the lobby's lists too
                m = json.loads(await asyncio.wait_for(ws.recv(), 20))
                if m["type"] == "tables" and any(t["id"] == other["table"] for t in m["playing"]):
                    break

    asyncio.run(lobby_on_b_hears_a())


@pytest.mark.parametrize("which", ["servers", "sqlite_servers"])
def test_many_seeks_at_once_are_each_seated_once(which: str, request: pytest.FixtureRequest) -> None:
    servers: list[ServerProcess] = request.getfixturevalue(which)
    body = {"game": "penneech", "options": {"target": 41}}
    results: list[dict[str, Any]] = []
    errors: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(SEEKERS)

    def seeker(i: int) -> None:
        rng = random.Random(i)
        try:
            start.wait(timeout=60)
            made = seek(rng.choice(servers).base, body)
            got = wait_seated(rng.choice(servers).base, made)
            with lock:
                results.append({**got, "token": made["token"]})
        except Exception as e:  # noqa: BLE001 - reported below
            with lock:
                errors.append(f"{type(e).__name__}: {e}")

    threads = [threading.Thread(target=seeker, args=(i,)) for i in range(SEEKERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=200)
    assert not errors, errors
    assert len(results) == SEEKERS and all(r["status"] == "matched" for r in results), results
    by_table: dict[str, list[dict[str, Any]]] = {}
    for r in results:
        by_table.setdefault(r["table"], []).append(r)
    assert len(by_table) == SEEKERS // 2, "every table seats two of the seeks, none three or one"
    for tid, sat in by_table.items():
        assert sorted(r["seat"] for r in sat) == [0, 1], (tid, sat)
        table = httpx.get(f"{servers[0].base}/api/tables/{tid}", timeout=30).json()
        assert table["status"] == "playing" and all(s["joined"] for s in table["seats"])
        for r in sat:  # each seat token opens its own seat, on either server
            r2 = httpx.post(
                f"{servers[1].base}/api/tables/{tid}/invites", json={"token": r["seat_token"]}, timeout=30
            )
            assert r2.status_code == 200, r2.text


def test_bots_fill_a_seek_whoever_is_asked(servers: list[ServerProcess]) -> None:
    a, b = servers
    made = seek(a.base, {"game": "piquesept", "options": {"deals": 3}, "bots_after": 1.5})
    started = time.monotonic()
    got = wait_seated(b.base, made)
    assert got["status"] == "matched" and time.monotonic() - started >= 1.0
    table = httpx.get(f"{b.base}/api/tables/{got['table']}", timeout=30).json()
    assert [s["kind"] for s in table["seats"]].count("bot") == 3
