"""Faults of a live table checked on real ``gamester serve`` processes (from outside: HTTP and
WebSockets only):

- a token that leaves is void at once on every socket, however the sockets' opening and the leave
  interleave (many tables, sockets opened in a burst around each leave);
- leaving never waits on a client that does not answer its close (sockets that never read again);
- the time no server ran a table does not count against the seat to move (a server killed, the
  clock's deadline passed while it was down, a server started again: the seat has not lost).
"""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import InvalidStatus

from tests.web_support import Api, ServerProcess, WsClient, open_table, sqlite_url

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    directory = tmp_path_factory.mktemp("faults")
    srv = ServerProcess(sqlite_url(directory), log_dir=directory)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


async def _hold(ws_base: str, table_id: str, token: str) -> tuple[str, int | None]:
    """Open a seat socket and read until it is closed: ("refused"/"closed", code) — or ("open", None)
    if it is still open when the test stops listening."""
    try:
        client = await WsClient.open(ws_base, table_id, token)
    except (InvalidStatus, OSError):
        return "refused", None
    code = await client.closed_code(timeout=8.0)
    if code is None:
        await client.close()
        return "open", None
    return "closed", code


async def leave_race(server: ServerProcess, rounds: int, burst: int) -> list[str]:
    problems: list[str] = []
    api = Api(server.base)
    try:
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as http:
            for r in range(rounds):
                table_id, tokens = open_table(api, "penneech", ["human", "human"])
                token = tokens[0]
                leave = asyncio.create_task(http.post(f"/api/tables/{table_id}/leave", json={"token": token}))
                opens: list[asyncio.Task[tuple[str, int | None]]] = []
                # sockets opened one after the other while the leave is on its way, and a few after
                while not leave.done() and len(opens) < burst:
                    opens.append(asyncio.create_task(_hold(server.ws_base, table_id, token)))
                    await asyncio.sleep(0.002)
                left = await leave
                assert left.status_code == 200, left.text
                opens += [asyncio.create_task(_hold(server.ws_base, table_id, token)) for _ in range(2)]
                # the seat is taken by someone else at once: nothing of theirs may reach the old token
                # (with the seat's invite: a seat left is kept for whoever has its code, as before)
                body = {"seat": 0, "name": "next", "invite": api.invites[table_id]["0"]}
                joined = await http.post(f"/api/tables/{table_id}/join", json=body)
                if joined.status_code != 200:
                    problems.append(f"round {r}: the seat could not be taken again: {joined.text}")
                for k, (how, code) in enumerate(await asyncio.gather(*opens)):
                    if how == "open" or (how == "closed" and code != 1008):
                        problems.append(f"round {r} socket {k}: {how} (code {code}) after its token left")
    finally:
        api.close()
    return problems


def test_a_token_that_leaves_is_void_on_every_socket(server: ServerProcess) -> None:
    problems = asyncio.run(leave_race(server, rounds=40, burst=12))
    assert not problems, "\n".join(problems[:10])


def _silent_socket(port: int, path: str) -> socket.socket:
    """A WebSocket client that completes the handshake and then never reads or answers again."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(
        (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        assert chunk, "the server closed during the handshake"
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head[:100]
    return s


def test_leaving_does_not_wait_on_sockets_that_do_not_answer(server: ServerProcess) -> None:
    api = Api(server.base)
    silent: list[socket.socket] = []
    try:
        table_id, tokens = open_table(api, "penneech", ["human", "human"])
        silent = [_silent_socket(server.port, f"/ws/tables/{table_id}?token={tokens[0]}") for _ in range(4)]
        api.table(table_id)  # the sockets are registered (the server answered after their handshakes)
        # Each socket, asked to close, would be waited on until its close handshake timed out (many
        # seconds each). The leave must answer without waiting for any of them.
        r = httpx.post(f"{server.base}/api/tables/{table_id}/leave", json={"token": tokens[0]}, timeout=5.0)
        assert r.status_code == 200 and r.json()["seat"] == 0, r.text
        # and the server still answers everyone else at once
        assert httpx.get(f"{server.base}/api/tables/{table_id}", timeout=5.0).status_code == 200
    finally:
        for s in silent:
            s.close()
        api.close()


async def _clock_of(server: ServerProcess, table_id: str, token: str) -> dict[str, Any]:
    client = await WsClient.open(server.ws_base, table_id, token)
    try:
        view = await client.expect("view")
        return view
    finally:
        await client.close()


def test_time_while_no_server_runs_a_table_does_not_count(tmp_path: Path) -> None:
    srv = ServerProcess(sqlite_url(tmp_path), log_dir=tmp_path)
    srv.start()
    api = Api(srv.base)
    try:
        table_id, tokens = open_table(
            api, "penneech", ["human", "human"], clock={"seconds_per_move": 4, "on_timeout": "forfeit"}
        )
        view = asyncio.run(_clock_of(srv, table_id, tokens[0]))
        clock = view["clock"]
        assert view["status"] == "playing" and clock["deadline"], view
        srv.kill9()
        # wait, with no server running, until the seat's deadline has passed
        while time.time() < clock["deadline"] + 1.0:
            time.sleep(0.1)
        srv.start()
        # wait for the table to be run again: its deadline moved on, or (the fault) it was forfeited
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            view = asyncio.run(_clock_of(srv, table_id, tokens[0]))
            if view["status"] != "playing" or view["clock"]["deadline"] != clock["deadline"]:
                break
            time.sleep(0.1)
        assert view["status"] == "playing", f"the seat to move lost on time while no server ran: {view}"
        assert view["forfeit"] is None
        assert view["clock"]["deadline"] > clock["deadline"]
        assert view["clock"]["remaining"] > 0
    finally:
        api.close()
        srv.stop()
