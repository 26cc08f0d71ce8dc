"""No table is stuck (issue 43; docs/web.md, Leaving and abandoned seats), through a server: many
tables of every game with the smallest targets, bots alone, people who sat down and never came
(no socket at all), with and without a clock. Each moves on until it is over: a game over when dealt
is over at once, bots play, an absent seat is abandoned (its stand-in plays, or the table is aborted
once every person is gone), a clock plays for its seat. The decisions' own check over many more seeds
is tests/test_web_abandon.py (``test_no_table_is_stuck_over_many_seeds_and_small_targets``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402

from gamester.core.registry import game_names  # noqa: E402
from gamester.web import create_app  # noqa: E402
from gamester.web.limits import Limits  # noqa: E402
from tests.web_helpers import join, remember  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

GONE = 1.0  # abandon_seconds
CLOCK = {"seconds_per_move": 1.2, "on_timeout": "bot"}  # slower than GONE: the clock alone decides
SMALL = {"penneech": {"target": 1}, "piquesept": {"deals": 1}, "pentyrch": {"max_rounds": 4}}
MOVES_ON = GONE + CLOCK["seconds_per_move"] + 1.5 + 10.0  # + a trick's hold + a loaded machine


@pytest.fixture(scope="module")
def c(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("stuck") / "stuck.db"
    limits = Limits(per_address=False, abandon_seconds=GONE)
    with TestClient(create_app(f"sqlite:///{db}", limits=limits, lease_seconds=1.5, bot_workers=1)) as client:
        yield client


def kinds(n: int) -> list[tuple[list[str], dict[str, Any] | None]]:
    """The seatings tried at an ``n``-player table."""
    return [
        (["random"] * n, None),
        (["human"] + ["random"] * (n - 1), None),
        (["human"] * n, None),
        (["human"] + ["random"] * (n - 1), CLOCK),
    ]


def test_no_table_is_stuck(c: TestClient) -> None:
    """Every game at once (a table's time is mostly its tricks' holds and its clock, so they run side
    by side): each seating twice, at each player count."""
    games = {g["name"]: g for g in c.get("/api/games").json()["games"]}
    made: dict[str, dict[str, Any]] = {}
    for game in game_names():
        info = games[game]
        counted = any(o["name"] == "players" for o in info["options"])
        for count in info["players"]:
            for seats, clock in kinds(count) * 2:  # two deals of each
                options = {**SMALL.get(game, {}), **({"players": count} if counted else {})}
                body = {"game": game, "options": options, "seats": seats, "clock": clock}
                r = remember(c.post("/api/tables", json=body))
                assert r.status_code == 201, r.text
                table = r.json()
                for s in table["seats"]:
                    if s["kind"] == "human":  # sits down, and never opens the table
                        join(c, table["id"], s["seat"], f"P{s['seat']}")
                made[table["id"]] = {
                    "seq": -1,
                    "status": "",
                    "since": time.monotonic(),
                    "what": (game, seats),
                }
    deadline = time.monotonic() + 240
    while True:
        now = time.monotonic()
        listed = {t["id"]: t for t in c.get("/api/tables?status=playing&limit=200").json()["tables"]}
        for tid, seen in made.items():
            t = listed.get(tid, {"seq": None, "status": "over"})
            if (t["seq"], t["status"]) != (seen["seq"], seen["status"]):
                seen.update(seq=t["seq"], status=t["status"], since=now)
            elif t["status"] == "playing":
                assert now - seen["since"] < MOVES_ON, f"{seen['what']}: stuck at seq {t['seq']}"
        if not listed.keys() & made.keys():
            break
        assert now < deadline, f"{len(listed.keys() & made.keys())} tables still playing"
        time.sleep(0.2)
    for game in game_names():
        results = [
            c.get(f"/api/tables/{tid}").json()["result"] for tid, x in made.items() if x["what"][0] == game
        ]
        print(
            f"\n{game}: {len(results)} tables, "
            + ", ".join(f"{r} {results.count(r)}" for r in sorted(set(results)))
        )
        assert set(results) <= {"played", "aborted"}
