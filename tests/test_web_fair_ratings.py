"""Ratings nobody can manufacture (docs/web.md, Fair play), end to end on a real server, on SQLite and
on PostgreSQL: a farmer and a puppet account play rated tables on a two-second forfeit clock.

- The farm: the puppet never moves, so it loses every table on the clock. Such a table was not played
  and moves no rating (before: the farmer went from 1500 to 1987 in 13 tables).
- The rage-quit: the puppet makes one move, then lets its clock run out: that is its loss, and the
  farmer's win, as any forfeit once both have played.
- The pair limit: of four such tables in a day, three move the two ratings; the fourth counts for
  neither.

``python -m tests.test_web_fair_ratings --tree DIR`` runs the farm against a server of another tree.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.pg_support import pg_cluster  # noqa: F401  (a pytest fixture)
from tests.web_support import ServerProcess, WsClient, sqlite_url

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

PASSWORD = "a long pass phrase 4 tests"
CLOCK = {"seconds_per_move": 2, "on_timeout": "forfeit"}  # time to move, on a loaded machine


def _account(c: httpx.Client, name: str) -> dict[str, str]:
    c.post("/api/accounts", json={"name": name, "password": PASSWORD})
    r = c.post("/api/session", json={"name": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    c.cookies.clear()
    return {"Authorization": f"Bearer {r.json()['session']}"}


def rating(c: httpx.Client, name: str) -> dict[str, Any]:
    found: dict[str, Any] = c.get(f"/api/players/{name}").json()["ratings"].get("penneech", {})
    return found


async def _table(base: str, ws: str, farmer: dict[str, str], puppet: dict[str, str], moves: int) -> str:
    """One rated table: the farmer moves whenever it may; the puppet makes ``moves`` moves, then lets
    its clock run out. A puppet that moves at all moves on until the farmer has moved too (a Penneech
    deal may ask one player twice in a row, and a table where one of them never moved was not
    played: the rage-quit needs both to have moved)."""
    async with httpx.AsyncClient(base_url=base, timeout=60) as c:
        body = {"game": "penneech", "seats": ["human", "human"], "rated": True, "clock": CLOCK}
        t = (await c.post("/api/tables", json=body, headers=farmer)).json()
        tid = t["id"]
        tokens = []
        for seat, who in ((0, farmer), (1, puppet)):
            body = {"seat": seat, "invite": t["invites"].get(str(seat))}
            r = await c.post(f"/api/tables/{tid}/join", json=body, headers=who)
            assert r.status_code == 200, r.text
            tokens.append(r.json()["token"])
    socks = [await WsClient.open(ws, tid, tok) for tok in tokens]
    made, farmer_moved = 0, False
    try:
        views = [await s.current_view() for s in socks]
        while views[0]["status"] != "over":
            mover = next((i for i, v in enumerate(views) if v["legal"]), None)
            if mover == 0 or (mover == 1 and (made < moves or (moves > 0 and not farmer_moved))):
                made += mover
                farmer_moved = farmer_moved or mover == 0
                v = views[mover]
                await socks[mover].send({"type": "act", "action": v["legal"][0], "seq": v["seq"]})
            # The next view: after the move, or the same seq again once the clock has ended the table.
            views = [await _next_view(s, views[0]) for s in socks]
    finally:
        for s in socks:
            await s.close()
    return str(tid)


async def _next_view(s: WsClient, was: dict[str, Any]) -> dict[str, Any]:
    while True:
        m = await s.expect("view", 30)
        if m["seq"] > was["seq"] or m["status"] != was["status"]:
            return m


def settled(db_url: str, table_id: str) -> bool:
    """Whether the server has dealt with the finished rated table's result (moved the ratings, or
    found that it moves none): the flag it sets in the same transaction."""
    import sqlalchemy as sa

    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            q = sa.text("SELECT rating_applied FROM gm_tables WHERE id = :id")
            return bool(conn.execute(q, {"id": table_id}).scalar())
    finally:
        engine.dispose()


def farm(
    base: str, db_url: str, tables: int, puppet_moves: int, names: tuple[str, str]
) -> list[dict[str, Any]]:
    """``tables`` rated tables between a farmer and a puppet: the farmer's rating after each, read
    once the server has settled the table's result."""
    ws = "ws" + base.removeprefix("http")
    out = []
    with httpx.Client(base_url=base, timeout=60) as c:
        farmer, puppet = _account(c, names[0]), _account(c, names[1])
        for _ in range(tables):
            tid = asyncio.run(_table(base, ws, farmer, puppet, puppet_moves))
            end = time.monotonic() + 120  # a bound for a broken server, not a wait for the event
            while not settled(db_url, tid):
                assert time.monotonic() < end, f"table {tid}'s result was never settled"
                time.sleep(0.05)
            out.append(rating(c, names[0]))
    return out


@pytest.fixture(params=["sqlite", "postgresql"], scope="module")
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    tmp = tmp_path_factory.mktemp(request.param)
    if request.param == "sqlite":
        url = sqlite_url(tmp)
    else:
        url = request.getfixturevalue("pg_cluster").create_database()
    with ServerProcess(url, log_dir=tmp) as srv:
        yield srv


def test_a_puppet_that_never_moves_farms_nothing(server: ServerProcess) -> None:
    got = farm(server.base, server.db_url, 3, 0, ("Farmer", "Puppet"))
    print(f"\nthe farm: the farmer after each table: {got}")
    assert all(g == {} for g in got), "a table the puppet never moved at moved no rating"


def test_a_rage_quit_is_a_loss_and_a_pair_moves_three_times_a_day(server: ServerProcess) -> None:
    got = farm(server.base, server.db_url, 4, 1, ("Quitter_farm", "Quitter"))
    print(f"\nthe pair: the farmer after each table: {got}")
    assert [g["games"] for g in got] == [1, 2, 3, 3], got
    assert got[0]["rating"] > 1500 and got[2]["rating"] > got[1]["rating"] > got[0]["rating"]
    assert got[3]["rating"] == got[2]["rating"], "past three a day, the pair's results move nothing"
    with httpx.Client(base_url=server.base) as c:
        quitter = rating(c, "Quitter")
    assert quitter["games"] == 3 and quitter["rating"] < 1500


if __name__ == "__main__":
    # python -m tests.test_web_fair_ratings [--tree DIR] [TABLES]: the farm (a puppet that never moves)
    # against a server of DIR's src, or of this tree; the farmer's rating after each table.
    tree = sys.argv[sys.argv.index("--tree") + 1] if "--tree" in sys.argv else None
    tables = int(sys.argv[-1]) if sys.argv[-1].isdigit() else 13
    tmp = Path(tempfile.mkdtemp(prefix="farm-"))
    env = {"PYTHONPATH": str(Path(tree) / "src")} if tree else {}
    url = sqlite_url(tmp)
    with ServerProcess(url, log_dir=tmp, env=env) as srv:
        t0 = time.monotonic()
        after = farm(srv.base, url, tables, 0, ("Farmer", "Puppet"))
        print(json.dumps({"seconds": round(time.monotonic() - t0, 1), "farmer": after}))
