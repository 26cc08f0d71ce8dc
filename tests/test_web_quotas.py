"""The quota of tables a minute per address is counted in the database (web/guard.py, table_wait):
two servers on one database, and a server started later, count the same creations, so a client
cannot multiply its quota by the number of servers behind a balancer."""

from __future__ import annotations

import time
from typing import Any

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from gamester.web import create_app  # noqa: E402
from gamester.web.fair import FairGate, address_key  # noqa: E402
from gamester.web.limits import Limits  # noqa: E402
from tests.pg_support import pg_cluster, postgres_url  # noqa: E402, F401  (pytest fixtures)
from tests.test_web_people import db_url  # noqa: E402, F401  (a fixture: SQLite and PostgreSQL)

THREE = Limits(tables_per_minute=3)
BODY = {"game": "penneech", "seats": ["human", "human"]}


def freeze(*clients: TestClient) -> None:
    """No table comes back to the bucket during the test, however slow the machine."""
    for c in clients:
        c.app.state.table_quota.every = 1e6  # type: ignore[attr-defined]


def test_two_servers_on_one_database_share_the_tables_quota(db_url: str) -> None:  # noqa: F811
    with (
        TestClient(create_app(db_url, limits=THREE)) as one,
        TestClient(create_app(db_url, limits=THREE)) as two,
    ):
        freeze(one, two)
        answers: list[Any] = [(one, two)[i % 2].post("/api/tables", json=BODY) for i in range(4)]
        assert [r.status_code for r in answers] == [201, 201, 201, 429]
        refused = answers[-1]
        assert refused.json()["error"] == "rate_limited" and int(refused.headers["retry-after"]) >= 1
        assert "at most 3 a minute" in refused.json()["message"]
        assert one.post("/api/tutorials/penneech").status_code == 429, "a lesson's table counts too"
    with TestClient(create_app(db_url, limits=THREE)) as three:
        freeze(three)
        assert three.post("/api/tables", json=BODY).status_code == 429, "a restart forgets nothing"


def test_without_per_address_limits_there_is_no_tables_quota(db_url: str) -> None:  # noqa: F811
    off = Limits(tables_per_minute=1, per_address=False)
    with TestClient(create_app(db_url, limits=off)) as c:
        assert [c.post("/api/tables", json=BODY).status_code for _ in range(3)] == [201] * 3


def test_a_table_keeps_whose_turn_its_bots_take_over_a_restart(
    db_url: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A table's bots take turns at the workers as the address that made it (web/fair.py): the key is
    kept with the table, so a restarted server, or another on the database, still counts those bots
    as that address's and not as a newcomer's; the address itself is not stored."""
    keys: list[str] = []
    run = FairGate.run

    async def recording(self: FairGate, key: str, fn: Any, *, urgent: bool = True) -> Any:
        keys.append(key)
        return await run(self, key, fn, urgent=urgent)

    monkeypatch.setattr(FairGate, "run", recording)
    mine = address_key("testclient")
    bots = {"game": "penneech", "seats": ["random", "random"], "options": {"objective": "deal"}}
    with TestClient(create_app(db_url, limits=THREE)) as one:
        made = one.post("/api/tables", json=bots)
        assert made.status_code == 201, made.text
        tid = made.json()["id"]
        while one.get(f"/api/tables/{tid}").json()["seq"] < 3:  # the bots have moved
            time.sleep(0.05)
        row = one.app.state.people.store.repo.get(tid)  # type: ignore[attr-defined]
        assert row.turns_key == mine and "testclient" not in row.turns_key
    assert keys and set(keys) == {mine}, "every bot move took its turn as the creator's address"
    with TestClient(create_app(db_url, limits=THREE)) as two:
        assert two.app.state.people.store.repo.get(tid).turns_key == mine  # type: ignore[attr-defined]


def test_an_address_holds_only_a_few_tables_waiting_for_players(db_url: str) -> None:  # noqa: F811
    """Issue 22: tables made and left waiting from one address (each with its creator seated, so
    they are not abandoned early) cannot push everyone else's out of the lobby: past the quota the
    address is refused until one of its tables starts or goes; other addresses are not held up."""
    few = Limits(waiting_per_address=2)
    join = {**BODY, "join": {"seat": 0, "name": "Ann"}}
    with TestClient(create_app(db_url, limits=few)) as c:
        made = [c.post("/api/tables", json=join) for _ in range(3)]
        assert [r.status_code for r in made] == [201, 201, 429]
        refused = made[-1].json()
        assert refused["error"] == "rate_limited" and "at most 2" in refused["message"], refused
        bots = c.post("/api/tables", json={"game": "penneech", "seats": ["random", "random"]})
        assert bots.status_code == 201, "a table that starts at once waits for nobody"
        first = made[0].json()
        friend = {"seat": 1, "name": "Bob", "invite": first["invites"]["1"]}
        assert c.post(f"/api/tables/{first['id']}/join", json=friend).status_code == 200
        assert c.post("/api/tables", json=join).status_code == 201, "a table that started frees a place"
    with TestClient(create_app(db_url, limits=few), client=("10.0.0.9", 5000)) as other:
        assert other.post("/api/tables", json=join).status_code == 201, "another address is not held up"
