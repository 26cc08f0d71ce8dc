"""``gamester serve`` exits within 10 s of SIGTERM whatever it is doing (docs/deploy.md, Restarts):
here on PostgreSQL (its listener thread running), with a review of a long Pentyrch game deep in its
worker process, bots searching in theirs, and sockets open. Before, the review's worker held the
exit until the review was done (13+ minutes for a Pentyrch match, issue 44).
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from typing import Any

import httpx
import pytest

from tests.pg_support import pg_cluster  # noqa: F401  (a pytest fixture)
from tests.web_support import Api, ServerProcess, WsClient

pytestmark = pytest.mark.slow

STOP_SECONDS = 10.0


def _gauge(base: str, name: str) -> float:
    for line in httpx.get(f"{base}/metrics", timeout=30).text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def _wait(what: str, ok: Any, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not ok():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.2)


def test_sigterm_stops_the_server_within_ten_seconds_mid_review(pg_cluster: Any, tmp_path: Any) -> None:  # noqa: F811
    server = ServerProcess(pg_cluster.create_database(), log_dir=tmp_path)
    server.start()
    api = Api(server.base)
    try:
        # A long Pentyrch game, played by random bots to its end, then reviewed.
        done = api.create_table("pentyrch", ["random", "random", "random", "random"])
        over = api.wait_status(done["id"], "over", timeout=120)
        assert over["status"] == "over", over
        r = api.client.post(f"/api/tables/{done['id']}/review", json={"seat": 0})
        assert r.status_code == 202, r.text
        # Bots searching at another table, and sockets open.
        busy = api.create_table("pentyrch", ["lookahead:worlds=8"] * 4)
        _wait("a bot thinking", lambda: _gauge(server.base, 'gamester_thinking{kind="bot"}') >= 1)
        _wait("the review under way", lambda: _gauge(server.base, "gamester_reviews_queued") >= 1)

        async def hold() -> list[WsClient]:
            return [await WsClient.open(server.ws_base, busy["id"], None, f"watcher {i}") for i in range(3)]

        loop = asyncio.new_event_loop()
        watchers = loop.run_until_complete(hold())
        time.sleep(1.0)  # the review is now deep in its search (it takes minutes)
        status = api.client.get(f"/api/tables/{done['id']}/review?seat=0").json()
        assert status["status"] == "working", status
        assert server.proc is not None
        pgid = server.proc.pid
        started = time.monotonic()
        os.kill(server.proc.pid, signal.SIGTERM)
        try:
            code = server.proc.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"still running {STOP_SECONDS} s after SIGTERM{server.log_tail()}") from None
        took = time.monotonic() - started
        assert code == 0, server.log_tail()
        # No worker was left behind: the process group is empty (the server ended its workers).
        _wait("the workers gone", lambda: _group_empty(pgid), timeout=5)
        for w in watchers:
            loop.run_until_complete(w.closed_code(5))
        loop.close()
        assert "Traceback" not in server.log_text(), server.log_tail()
        print(f"exited {took:.1f} s after SIGTERM")
    finally:
        api.close()
        server.stop()


def _group_empty(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False
