"""A human (random moves over the WebSocket) against bots in each of the three games, to the end, with a
spectator watching: every view each of them received is exactly the game's own view of that position
for that viewer (``observation(seat)`` / ``public_observation()``), with that viewer's events; the
spectator never sees a hand; the record is refused before the end and replays to the final position."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402

from gamester.core.record import replay  # noqa: E402
from tests.web_helpers import (  # noqa: E402
    check_views_against_record,
    client_on,
    drain_until_over,
    join,
    new_table,
    play_seat,
)

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def c(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client_on(tmp_path_factory.mktemp("games") / "games.db") as client:
        yield client


CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("penneech", {"target": 31}, ["human", "heuristic"]),
    ("piquesept", {}, ["random", "human", "heuristic", "random"]),
    ("pentyrch", {"players": 3}, ["human", "random", "heuristic"]),
]


@pytest.mark.parametrize(("game", "options", "seats"), CASES, ids=[c[0] for c in CASES])
def test_human_against_bots_to_the_end(
    c: TestClient, game: str, options: dict[str, Any], seats: list[str]
) -> None:
    tid = new_table(c, game, seats, options=options)
    me = seats.index("human")
    with c.websocket_connect(f"/ws/tables/{tid}") as spectator:
        token = join(c, tid, me)
        assert c.get(f"/api/tables/{tid}/record").status_code == 403
        with c.websocket_connect(f"/ws/tables/{tid}?token={token}") as ws:
            mine = play_seat(ws, random.Random(7))
        watched = drain_until_over(spectator)
    info = c.get(f"/api/tables/{tid}").json()
    assert info["status"] == "over" and info["returns"] is not None
    r = c.get(f"/api/tables/{tid}/record")
    assert r.status_code == 200
    record = r.json()
    final = replay(record)
    assert final.is_terminal() and list(final.returns()) == info["returns"]
    assert len(record["actions"]) == info["seq"]
    for viewer, msgs in ((me, mine), (None, watched)):
        views = [m for m in msgs if m["type"] == "view"]
        for a, b in zip(views, views[1:], strict=False):
            # in seq order; the same position twice only when its status changed (waiting -> playing)
            assert a["seq"] < b["seq"] or (a["seq"] == b["seq"] and a["status"] != b["status"])
        assert views[-1]["seq"] == info["seq"]
        assert check_views_against_record(record, viewer, msgs) == len(views)
    assert all("hand" not in m["view"] for m in watched if m["type"] == "view")
    acted = sum(1 for m in mine if m["type"] == "view" and m["legal"])
    assert acted > 0, "the human seat had moves to make"
