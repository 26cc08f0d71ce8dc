"""A bot thinking at one table must not delay a message at another (issue 10), on a real server.

Table A seats two searching bots (each move a 2-second ISMCTS search in the worker process); table B
is two scripted humans. B's act-to-view latency (the mover's own view of its move) is measured first
with A absent, then while A's bots think. The numbers are printed; the check is relative to the bots'
thinking time: a message that had to wait for a bot would take seconds, not milliseconds.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from pathlib import Path

import pytest

pytest.importorskip("websockets")

from tests.web_support import Api, WsClient, open_table, running_server, sqlite_url  # noqa: E402

pytestmark = pytest.mark.timeout(150)

BOT_SECONDS = 2.0


async def _latencies(ws_base: str, table_id: str, tokens: dict[int, str], moves: int) -> list[float]:
    seats = {s: await WsClient.open(ws_base, table_id, t) for s, t in tokens.items()}
    views = {s: await c.current_view() for s, c in seats.items()}
    out: list[float] = []
    try:
        for _ in range(moves):
            mover = next((s for s, v in views.items() if v["legal"]), None)
            if mover is None:
                break
            v = views[mover]
            t0 = time.perf_counter()
            await seats[mover].send({"type": "act", "action": v["legal"][0], "seq": v["seq"]})
            got = await seats[mover].view(v["seq"] + 1)
            out.append(time.perf_counter() - t0)
            assert got["type"] == "view", got
            views[mover] = got
            for s, c in seats.items():
                if s != mover:
                    views[s] = await c.view(v["seq"] + 1)
            if got["status"] != "playing":
                break
            await asyncio.sleep(0.05)
    finally:
        for c in seats.values():
            await c.close()
    return out


def _summary(xs: list[float]) -> str:
    xs = sorted(xs)
    p99 = xs[min(len(xs) - 1, int(0.99 * len(xs)))]
    med = statistics.median(xs) * 1000
    return f"n={len(xs)} p50={med:.1f} ms p99={p99 * 1000:.1f} ms max={xs[-1] * 1000:.1f} ms"


@pytest.mark.slow
def test_a_thinking_bot_does_not_delay_another_table(tmp_path: Path) -> None:
    with running_server(sqlite_url(tmp_path), env={"GAMESTER_BOT_SECONDS": "20"}) as server:
        api = Api(server.base)
        try:
            quiet_id, quiet_tokens = open_table(api, "penneech", ["human", "human"])
            baseline = asyncio.run(_latencies(server.ws_base, quiet_id, quiet_tokens, 30))
            spec = f"ismcts:seconds={BOT_SECONDS}"
            busy = api.create_table("penneech", [spec, spec], {}, None)["id"]
            time.sleep(0.5)
            busy_id, busy_tokens = open_table(api, "penneech", ["human", "human"])
            start_seq = api.table(busy)["seq"]
            t0 = time.monotonic()
            during = asyncio.run(_latencies(server.ws_base, busy_id, busy_tokens, 30))
            elapsed = time.monotonic() - t0
            bot_moves = api.table(busy)["seq"] - start_seq
        finally:
            api.close()
    print(f"\nact-to-view latency, no bot thinking:        {_summary(baseline)}")
    print(
        f"act-to-view latency, bots thinking elsewhere: {_summary(during)} "
        f"({bot_moves} bot moves in the {elapsed:.1f} s window)"
    )
    assert len(baseline) >= 20 and len(during) >= 20
    assert api  # the client was used
    # Had any view waited for the bot, it would have taken up to BOT_SECONDS.
    assert max(during) < BOT_SECONDS / 2, _summary(during)
