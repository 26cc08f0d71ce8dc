"""PostgreSQL restarting under two ``gamester serve`` processes (from outside: HTTP and WebSockets).

Every server on the database hears of every change through LISTEN/NOTIFY. When PostgreSQL restarts,
every listening connection is lost, and so is any notice sent while it is down: a server whose
listener comes back must catch up on every table it serves (compare what it has with the database)
and push what its sockets missed. Checked: a table whose seats sit on different servers, PostgreSQL
restarted mid-game, then every move made through one server reaches the seat on the other, to the
end of the game. Two paths bring a missed change: the listener's catch-up when it is back, and the
lease round's comparison of every watched table's seq with the database (which needs no listener).
"""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

import httpx
import pytest

from tests.pg_support import PgCluster
from tests.pg_support import pg_cluster as pg_cluster  # noqa: F401  (a pytest fixture, used by name)
from tests.web_support import Api, ServerProcess, Truth, WsClient

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def restart_postgres(cluster: PgCluster) -> None:
    """Stop PostgreSQL at once (every connection is cut) and start it again on the same port."""
    # restart reuses the options the server was started with (its port, its socket directory)
    cluster._run(
        "pg_ctl", "-D", str(cluster.data), "-l", str(cluster.log), "-m", "immediate", "-w", "restart"
    )


def wait_healthy(server: ServerProcess, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            if httpx.get(f"{server.base}/api/health", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"server not healthy again{server.log_tail()}")


async def play_across_a_restart(
    a: ServerProcess, b: ServerProcess, cluster: PgCluster
) -> tuple[str, list[str]]:
    api = Api(a.base)
    try:
        table_id = api.create_table("penneech", ["human", "human"])["id"]
        tokens = {0: api.join(table_id, 0, "on A"), 1: Api(b.base).join(table_id, 1, "on B")}
    finally:
        api.close()
    seat_server = {0: a, 1: b}
    clients = {
        s: await WsClient.open(seat_server[s].ws_base, table_id, tokens[s], f"seat {s}") for s in (0, 1)
    }
    problems: list[str] = []
    rng = random.Random(5)
    try:
        views = {s: await clients[s].view(0) for s in (0, 1)}
        assert all(v["type"] == "view" for v in views.values()), views
        # a move or two before the restart, then PostgreSQL goes away and comes back
        restarted = False
        seq = views[0]["seq"]
        while True:
            mover = next((s for s in (0, 1) if views[s]["legal"]), None)
            if views[0]["status"] == "over":
                break
            if mover is None:
                problems.append(f"seq {seq}: nobody may move: {views}")
                break
            if seq >= 2 and not restarted:
                await asyncio.to_thread(restart_postgres, cluster)
                await asyncio.to_thread(wait_healthy, a)
                await asyncio.to_thread(wait_healthy, b)
                restarted = True
            await clients[mover].send(
                {"type": "act", "action": rng.choice(views[mover]["legal"]), "seq": seq}
            )
            # The mover's answer first: a move refused while the database was still coming back is
            # an error to the mover only, and the other seat would wait for a view that never comes.
            for s in (mover, 1 - mover):
                try:
                    got = await clients[s].view(seq + 1, timeout=15)
                except TimeoutError:
                    when = ", after the restart" if restarted else ""
                    problems.append(
                        f"seat {s} on {'AB'[s]} never saw seq {seq + 1} (made through {'AB'[mover]}{when})"
                    )
                    return table_id, problems
                if got["type"] == "error":
                    if got["code"] == "unavailable":  # the database was still coming back: try again
                        break
                    problems.append(f"seat {s}: error {got}")
                    return table_id, problems
                views[s] = got
            else:
                seq += 1
                continue
            await asyncio.sleep(0.2)
        assert restarted, "the game ended before PostgreSQL was restarted"
    finally:
        for c in clients.values():
            await c.close()
    return table_id, problems


def keep_commits(cluster: PgCluster, url: str) -> None:
    """The test cluster runs with ``synchronous_commit=off``: a commit returns before its WAL is
    written, and an immediate restart then loses the last fraction of a second of them (a move the
    players saw, even a table). A restart test needs the database to keep what it confirmed."""
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(
        host="127.0.0.1", port=cluster.port, user=cluster.user, dbname="postgres", autocommit=True
    ) as conn:
        conn.execute(f'ALTER DATABASE "{name}" SET synchronous_commit = on')  # our own hex name


def test_servers_catch_up_after_postgres_restarts(pg_cluster: PgCluster, tmp_path: Path) -> None:  # noqa: F811
    url = pg_cluster.create_database()
    keep_commits(pg_cluster, url)
    a = ServerProcess(url, log_dir=tmp_path)
    b = ServerProcess(url, log_dir=tmp_path)
    try:
        a.start()
        b.start()
        table_id, problems = asyncio.run(play_across_a_restart(a, b, pg_cluster))
        assert not problems, "\n".join(problems) + a.log_tail(10) + b.log_tail(10)
        api = Api(b.base)
        record = api.record(table_id)
        api.close()
        assert record.status_code == 200 and Truth(record.json()).final.is_terminal()
    finally:
        b.stop()
        a.stop()


def test_health_and_writes_say_so_while_postgres_is_down(pg_cluster: PgCluster, tmp_path: Path) -> None:  # noqa: F811
    """Issue 21: with PostgreSQL down, ``/api/health`` answers 503 ``"ok": false`` with one line, and
    a write is refused with ``unavailable``, not a hang or a 500; once it is back, both work again."""
    url = pg_cluster.create_database()
    server = ServerProcess(url, log_dir=tmp_path)
    body = {"game": "penneech", "seats": ["human", "random"]}
    try:
        server.start()
        with pg_cluster.down():
            health = httpx.get(f"{server.base}/api/health", timeout=60)
            assert health.status_code == 503, health.text
            answer = health.json()
            assert answer["ok"] is False and answer["database"] and "\n" not in answer["database"]
            made = httpx.post(f"{server.base}/api/tables", json=body, timeout=60)
            assert made.status_code == 503 and made.json()["error"] == "unavailable", made.text
        wait_healthy(server)
        assert httpx.post(f"{server.base}/api/tables", json=body, timeout=60).status_code == 201
    finally:
        server.stop()
