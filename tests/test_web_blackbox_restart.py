"""``kill -9`` the server at random moments during play and start it again on the same SQLite file.

docs/web.md, Nothing lost: an action is stored durably before any message about it leaves the server,
so a server killed at any moment continues every table where it stood.
Checked from outside, on a real process:

- no action lost: after each restart every table's ``seq`` is at least the highest ``seq`` any client
  had been shown before the kill, and at the end every view any client ever received, before or after a
  kill, is exactly the engine's view at that ``seq`` of the one final record (a lost or repeated action
  would make some earlier view disagree with the record);
- same positions: a client reconnecting after the restart gets the view it had (or a later one);
- clocks: a pending deadline is never earlier after a restart (the time no server ran the table
  does not count against the seat to move, so it moves on by at most that); a 1-second ``bot`` clock for an
  absent human keeps moving the game through the restarts;
- bots carry on, and every game finishes.
"""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tests.web_support import Api, ServerProcess, Truth, WsClient, sqlite_url

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]

KILLS = 3


class Seat:
    """A human seat that plays random legal moves and reconnects whenever the server goes away."""

    def __init__(
        self,
        server: ServerProcess,
        table_id: str,
        token: str,
        seat: int,
        rng: random.Random,
        think: float = 0.0,
    ) -> None:
        self.server, self.table_id, self.token, self.seat = server, table_id, token, seat
        self.rng, self.think = rng, think
        self.messages: list[dict[str, Any]] = []
        self.connects = 0
        self.max_seq = -1
        self.done = False

    async def run(self, deadline: float) -> None:
        while not self.done and time.monotonic() < deadline:
            try:
                client = await WsClient.open(
                    self.server.ws_base, self.table_id, self.token, f"seat {self.seat}"
                )
            except (OSError, InvalidStatus, TimeoutError):
                await asyncio.sleep(0.2)
                continue
            self.connects += 1
            try:
                while time.monotonic() < deadline:
                    msg = await client.recv(30)
                    self.messages.append(msg)
                    if msg["type"] == "error" and msg.get("code") != "stale":
                        raise AssertionError(f"seat {self.seat}: {msg}")
                    if msg["type"] != "view":
                        continue
                    self.max_seq = max(self.max_seq, msg["seq"])
                    if msg["status"] == "over":
                        self.done = True
                        break
                    if msg["legal"]:
                        await asyncio.sleep(self.rng.uniform(0, 2 * self.think))
                        await client.send(
                            {"type": "act", "action": self.rng.choice(msg["legal"]), "seq": msg["seq"]}
                        )
            except (ConnectionClosed, TimeoutError, OSError):
                await asyncio.sleep(0.1)
            finally:
                await client.close()

    def views(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == "view"]


async def drive(
    server: ServerProcess, api: Api, seats: list[Seat], kills: int, rng: random.Random, tables: list[str]
) -> list[dict[str, Any]]:
    """Run the seats while killing and restarting the server; returns one note per kill."""
    deadline = time.monotonic() + 150
    tasks = [asyncio.create_task(s.run(deadline)) for s in seats]
    notes: list[dict[str, Any]] = []
    try:
        for k in range(kills):
            await asyncio.sleep(rng.uniform(0.4, 1.8))
            seen = {t: max([s.max_seq for s in seats if s.table_id == t], default=-1) for t in tables}
            server.kill9()
            await asyncio.sleep(rng.uniform(0.0, 0.5))
            await asyncio.to_thread(server.start)
            after = {t: (await asyncio.to_thread(api.table, t))["seq"] for t in tables}
            notes.append({"kill": k, "seen_before": seen, "seq_after": after})
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=max(1.0, deadline - time.monotonic()))
    finally:
        for t in tasks:
            t.cancel()
    return notes


async def clock_deadline(server: ServerProcess, table_id: str, token: str) -> Any:
    client = await WsClient.open(server.ws_base, table_id, token)
    try:
        view = await client.expect("view")
        return view["seq"], view.get("clock")
    finally:
        await client.close()


def test_kill_9_and_restart(tmp_path: Path) -> None:
    rng = random.Random(20261201)
    server = ServerProcess(sqlite_url(tmp_path), log_dir=tmp_path)
    server.start()
    api = Api(server.base)
    try:
        # Tables played by scripted clients (Penneech two humans, Piquesept one human and three bots,
        # Pentyrch two humans and a bot), one moved only by a 1-second bot clock for a human who never
        # comes, and one whose long clock must keep its deadline while nobody moves.
        t_pen = api.create_table("penneech", ["human", "human"])["id"]
        t_piq = api.create_table("piquesept", ["human", "heuristic", "random", "heuristic"], {"deals": 2})[
            "id"
        ]
        t_pty = api.create_table("pentyrch", ["human", "random", "human"], {"players": 3, "max_rounds": 15})[
            "id"
        ]
        t_clk = api.create_table(
            "penneech",
            ["human", "random"],
            {"objective": "deal"},
            {"seconds_per_move": 1, "on_timeout": "bot"},
        )["id"]
        t_hold = api.create_table(
            "penneech", ["human", "human"], {}, {"seconds_per_move": 600, "on_timeout": "forfeit"}
        )
        hold_id = t_hold["id"]
        tok = {
            (t, s): api.join(t, s, f"p{s}")
            for t, s in [
                (t_pen, 0),
                (t_pen, 1),
                (t_piq, 0),
                (t_pty, 0),
                (t_pty, 2),
                (t_clk, 0),
                (hold_id, 0),
                (hold_id, 1),
            ]
        }
        # Think times that keep every game going through all the kills (~15-25 s of play each).
        think = {t_pen: 0.3, t_piq: 0.6, t_pty: 0.2}
        seats = [
            Seat(server, t, tok[(t, s)], s, random.Random(rng.random()), think[t])
            for t, s in [(t_pen, 0), (t_pen, 1), (t_piq, 0), (t_pty, 0), (t_pty, 2)]
        ]
        # The holding table: nobody moves, so its clock's deadline is pending through every restart.
        hold_read = time.time()
        hold_seq, hold_clock = asyncio.run(clock_deadline(server, hold_id, tok[(hold_id, 0)]))
        assert hold_clock and hold_clock.get("deadline"), (
            f"a playing table with a clock shows no deadline: {hold_clock}"
        )
        tables = [t_pen, t_piq, t_pty]
        notes = asyncio.run(drive(server, api, seats, KILLS, rng, tables))
        # No action a client was shown was lost by a kill.
        for note in notes:
            for t in tables:
                assert note["seq_after"][t] >= note["seen_before"][t], f"action lost at kill {note}"
        # Every game finishes: the played ones, and the one moved only by its bot clock.
        for t in [*tables, t_clk]:
            table = api.wait_status(t, "over", 90)
            assert table["status"] == "over", f"table {t} did not finish after the restarts: {table}"
        # Every view any client received agrees with the one final record.
        problems: list[str] = []
        for t in tables:
            r = api.record(t)
            assert r.status_code == 200, r.text
            truth = Truth(r.json())
            for s in (s for s in seats if s.table_id == t):
                for v in s.views():
                    n = v["seq"]
                    if v["status"] != "waiting" and v["view"] != truth.views[n][s.seat]:
                        problems.append(f"table {t} seat {s.seat} seq {n}: view differs from the record's")
                if s.connects < 2:
                    problems.append(f"table {t} seat {s.seat} never had to reconnect ({s.connects} connects)")
        clk = Truth(api.record(t_clk).json())
        assert clk.final.is_terminal()
        # The pending deadline survived every restart, moved on by at most the time since it was read
        # (the time no server ran the table is given back to the seat to move).
        seq_now, clock_now = asyncio.run(clock_deadline(server, hold_id, tok[(hold_id, 0)]))
        assert seq_now == hold_seq, "a table nobody played moved"
        assert clock_now and hold_clock["deadline"] <= clock_now["deadline"], (hold_clock, clock_now)
        assert clock_now["deadline"] - hold_clock["deadline"] <= time.time() - hold_read, (
            hold_clock,
            clock_now,
        )
        moves = {t: len(Truth(api.record(t).json()).record["actions"]) for t in tables}
        print(
            f"\nkill -9 x{KILLS}, restarted on the same SQLite file: {notes}\nactions per table {moves}, "
            f"clock table {len(clk.record['actions'])} actions, connects {[s.connects for s in seats]}"
        )
        assert not problems, "\n".join(problems[:20])
    finally:
        api.close()
        server.stop()
