"""Two ``gamester serve`` processes on one real PostgreSQL (issue 10, "More than one server").

- An action made through one server reaches the clients connected to the other: whole games whose
  seats, spectators and bots are spread over both processes, every message checked against the record
  (same check as the leak test: exact views, every seq seen, no hidden card).
- A table's bots and clock run in exactly one process, and the other takes over when that one dies
  (``kill -9``): tables whose moves are made only by bots and by 1-second ``bot`` clocks keep moving
  after their process is killed, and finish.

The lease is checked in one gray-box place, read-only: the ``gm_tables.lease_owner`` column, whose value
is ``host:pid:…`` (the server's documented owner id), tells which process runs a table. Everything else
goes through HTTP and WebSockets only.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tests.pg_support import PgCluster
from tests.pg_support import pg_cluster as pg_cluster  # noqa: F401  (a pytest fixture, used by name)
from tests.web_support import (
    Api,
    ServerProcess,
    Truth,
    WsClient,
    play_seat,
    random_chooser,
    watch,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def two_servers(
    pg_cluster: PgCluster,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    url = pg_cluster.create_database()
    directory: Path = tmp_path_factory.mktemp("pg2")
    a = ServerProcess(url, log_dir=directory)
    b = ServerProcess(url, log_dir=directory)
    try:
        a.start()
        b.start()
        yield a, b
    finally:
        b.stop()
        a.stop()


async def cross_play(
    a: ServerProcess, b: ServerProcess, game: str, options: dict[str, Any], seats: list[str], seed: int
) -> tuple[str, dict[str, tuple[int | None, WsClient]]]:
    """Create on A, join alternately through A and B, connect alternately to B and A, watch on both."""
    api_a, api_b = Api(a.base), Api(b.base)
    try:
        table_id = api_a.create_table(game, seats, options)["id"]
        spectators = [
            asyncio.create_task(watch(srv.ws_base, table_id, f"spectator@{n}", 30))
            for n, srv in (("A", a), ("B", b))
        ]
        await asyncio.sleep(0.3)
        humans = [i for i, kind in enumerate(seats) if kind == "human"]
        tokens = {
            i: (api_a if k % 2 == 0 else api_b).join(table_id, i, f"g{i}") for k, i in enumerate(humans)
        }
        servers = {i: (b if k % 2 == 0 else a) for k, i in enumerate(humans)}
        rng = random.Random(seed)
        clients = await asyncio.gather(
            *(
                play_seat(
                    servers[i].ws_base,
                    table_id,
                    tokens[i],
                    random_chooser(random.Random(rng.random())),
                    f"seat {i}",
                    30,
                )
                for i in humans
            )
        )
        watchers = await asyncio.gather(*spectators)
    finally:
        api_a.close()
        api_b.close()
    got: dict[str, tuple[int | None, WsClient]] = {
        f"seat {i}@{'B' if servers[i] is b else 'A'}": (i, c) for i, c in zip(humans, clients, strict=True)
    }
    got["spectator@A"] = (None, watchers[0])
    got["spectator@B"] = (None, watchers[1])
    return table_id, got


CROSS = [
    ("penneech", {}, ["human", "human"]),
    ("piquesept", {}, ["human", "heuristic", "human", "random"]),
    ("pentyrch", {"players": 3, "max_rounds": 20}, ["human", "random", "human"]),
]


@pytest.mark.parametrize(("game", "options", "seats"), CROSS, ids=[c[0] for c in CROSS])
def test_actions_cross_between_servers(
    two_servers: tuple[ServerProcess, ServerProcess], game: str, options: dict[str, Any], seats: list[str]
) -> None:
    a, b = two_servers
    table_id, got = asyncio.run(cross_play(a, b, game, options, seats, 7))
    for srv in (a, b):
        api = Api(srv.base)
        assert api.table(table_id)["status"] == "over"
        record = api.record(table_id)
        api.close()
        assert record.status_code == 200, record.text
    truth = Truth(record.json())
    assert truth.final.is_terminal()
    problems: list[str] = []
    for label, (viewer, client) in got.items():
        found, checked = truth.check(viewer, client.messages)
        problems += [f"{label}: {p}" for p in found]
        assert checked > 0, label
    print(
        f"\n{game} over two servers: {len(truth.record['actions'])} actions, viewers "
        f"{ {k: len(c.messages) for k, (_, c) in got.items()} } messages, {len(problems)} problems"
    )
    assert not problems, "\n".join(problems[:20])


def lease_owners(url: str, ids: list[str]) -> dict[str, str | None]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                sa.text("SELECT id, lease_owner FROM gm_tables WHERE id IN :ids").bindparams(
                    sa.bindparam("ids", expanding=True)
                ),
                {"ids": ids},
            ).all()
    finally:
        engine.dispose()
    return {row[0]: row[1] for row in rows}


def owner_pid(owner: str | None) -> int | None:
    if not owner:
        return None
    parts = owner.split(":")
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None


def test_one_process_runs_a_table_and_the_other_takes_over(pg_cluster: PgCluster, tmp_path: Path) -> None:  # noqa: F811
    url = pg_cluster.create_database()
    a = ServerProcess(url, log_dir=tmp_path)
    b = ServerProcess(url, log_dir=tmp_path)
    clock = {"seconds_per_move": 1, "on_timeout": "bot"}
    try:
        a.start()
        b.start()
        api_a, api_b = Api(a.base), Api(b.base)
        # Tables moved only by bots and by the 1-second clock of a human who joined and went away,
        # created through A (which starts their clocks, so A should hold their leases).
        specs: list[tuple[str, dict[str, Any], list[str]]] = [
            ("penneech", {"objective": "deal"}, ["human", "random"]),
            ("penneech", {"objective": "deal"}, ["random", "human"]),
            ("piquesept", {}, ["human", "random", "random", "random"]),
        ]
        ids = []
        for game, options, seats in specs:
            table_id = api_a.create_table(game, seats, options, clock)["id"]
            api_a.join(table_id, seats.index("human"), "absent")
            ids.append(table_id)
        api_a.close()
        for t in ids:
            assert api_b.wait_seq(t, 1, 20)["seq"] >= 1, "no bot or clock move at all"
        # While both live, every table is run by exactly one of them, the same one throughout.
        seen: dict[str, set[int | None]] = {t: set() for t in ids}
        end = time.monotonic() + 1.5
        while time.monotonic() < end:
            for t, owner in lease_owners(url, ids).items():
                seen[t].add(owner_pid(owner))
            time.sleep(0.25)
        pids: dict[int | None, str] = {a.proc.pid if a.proc else -1: "A", b.proc.pid if b.proc else -1: "B"}
        for t, owners in seen.items():
            assert len(owners) == 1 and next(iter(owners)) in pids, f"table {t}: lease owners {owners} {pids}"
        runner = {t: pids[next(iter(o))] for t, o in seen.items()}
        # A spectator on B watches one of A's tables through the kill.
        on_a = [t for t in ids if runner[t] == "A"]
        assert on_a, f"A created every table and started its clock, yet A owns none: {runner}"
        seq_before = {t: api_b.table(t)["seq"] for t in ids}
        status_before = {t: api_b.table(t)["status"] for t in ids}
        assert any(s == "playing" for s in status_before.values()), "the games ended before the kill"
        watcher = asyncio.run(watch_through_kill(a, b, on_a[0]))
        # B took over: the tables A ran move on and finish, and B owns them now.
        for t in ids:
            table = api_b.wait_status(t, "over", 60)
            assert table["status"] == "over", f"table {t} stalled after its process was killed: {table}"
            record = api_b.record(t)
            assert record.status_code == 200 and Truth(record.json()).final.is_terminal()
        owners_after = {t: owner_pid(o) for t, o in lease_owners(url, ids).items()}
        assert all(p in (None, b.proc.pid if b.proc else -1) for p in owners_after.values()), owners_after
        views = [m for m in watcher.messages if m["type"] == "view"]
        assert views[-1]["status"] == "over"
        truth = Truth(api_b.record(on_a[0]).json())
        found, _ = truth.check(None, watcher.messages)
        assert not [p for p in found if "last view seen" not in p], found
        print(
            f"\nleases {runner}; seq at the kill {seq_before}; spectator on B saw seqs "
            f"{views[0]['seq']}..{views[-1]['seq']} of a table run by A, killed mid-game"
        )
        api_b.close()
    finally:
        b.stop()
        a.stop()


async def watch_through_kill(a: ServerProcess, b: ServerProcess, table_id: str) -> WsClient:
    client = await WsClient.open(b.ws_base, table_id, None, "spectator@B")
    first = await client.expect("view")
    while True:  # see at least one move A made reach B before the kill
        msg = await client.expect("view", 20)
        if msg["seq"] > first["seq"]:
            break
    a.kill9()
    try:
        while True:
            msg = await client.recv(30)
            if msg["type"] == "view" and msg["status"] == "over":
                break
    finally:
        await client.close()
    return client
