"""The table's own events (docs/web.md, "Table events"): a clock run out (the best agent plays for the
seat) arrives as a ``timeout`` event at the head of that move's view, for every viewer; a seat left
arrives as an ``event`` message to every socket still at the table. On SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from fastapi.testclient import TestClient  # noqa: E402

from gamester.web import create_app  # noqa: E402
from gamester.web.limits import OFF  # noqa: E402
from tests.pg_support import pg_cluster, postgres_url  # noqa: E402, F401  (pytest fixtures)
from tests.test_web_people import db_url  # noqa: E402, F401  (a fixture: SQLite and PostgreSQL)
from tests.web_helpers import join, new_table, next_view  # noqa: E402

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def c(db_url: str) -> Iterator[TestClient]:  # noqa: F811
    with TestClient(create_app(db_url, limits=OFF)) as client:
        yield client


def test_a_clock_run_out_is_told_to_seats_and_spectators(c: TestClient) -> None:
    tid = new_table(c, "penneech", ["human", "human"], clock={"seconds_per_move": 1, "on_timeout": "bot"})
    toks = [join(c, tid, 0, "Ann"), join(c, tid, 1, "Bob")]
    with (
        c.websocket_connect(f"/ws/tables/{tid}?token={toks[0]}") as seat0,
        c.websocket_connect(f"/ws/tables/{tid}") as spectator,
    ):
        views: dict[str, dict[str, Any]] = {}
        for name, ws in (("seat", seat0), ("spectator", spectator)):
            v = next_view(ws)
            while v["seq"] < 1:  # nobody moves: the clock runs out and the bot plays seq 0's move
                v = next_view(ws)
            views[name] = v
        mover = views["spectator"]["events"][1]["player"]
        for name, v in views.items():
            first = v["events"][0]
            assert first == {"type": "timeout", "seat": mover}, (name, v["events"])
            assert v["events"][1]["type"] == "action", "the move the bot made for the seat follows"


def test_a_seat_left_is_told_to_everyone_still_there(c: TestClient) -> None:
    """Left while the table waits: the seat is free again (``left``). Left mid-game: the seat is
    abandoned, and a stand-in plays it at this unrated table (``abandoned``, then ``bot``)."""
    waiting = new_table(c, "piquesept", ["human"] * 4)
    toks = [join(c, waiting, 0, "Ann"), join(c, waiting, 1, "Bob")]
    tid = new_table(c, "penneech", ["human", "human"])
    mid = [join(c, tid, 0, "Ann"), join(c, tid, 1, "Bob")]
    for table, tokens, want in (
        (waiting, toks, {"type": "left", "seat": 1, "name": "Bob"}),
        (
            tid,
            mid,
            {
                "type": "abandoned",
                "seat": 1,
                "name": "Bob",
                "how": "left",
                "then": "bot",
                "agent": "heuristic",
            },
        ),
    ):
        with (
            c.websocket_connect(f"/ws/tables/{table}?token={tokens[0]}") as ann,
            c.websocket_connect(f"/ws/tables/{table}") as spectator,
        ):
            next_view(ann)
            next_view(spectator)
            r = c.post(f"/api/tables/{table}/leave", json={"token": tokens[1]})
            assert r.status_code == 200
            for ws in (ann, spectator):
                m = ws.receive_json()
                while m["type"] != "event":
                    assert m["type"] in ("view", "table", "chat"), m
                    m = ws.receive_json()
                assert m["event"] == want
                assert tokens[1] not in str(m)
