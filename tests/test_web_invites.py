"""Invites, open and private tables (docs/web.md, "Invites"): a seat kept for a friend is taken only
with its code, a lobby poller cannot snipe it, a private table is unlisted and watched only with a
code, on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from fastapi.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from gamester.web import create_app  # noqa: E402
from gamester.web.limits import OFF  # noqa: E402
from tests.pg_support import pg_cluster  # noqa: E402, F401
from tests.web_helpers import next_view, play_to_end  # noqa: E402

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def c(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestClient]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'invites.db'}"
    else:
        url = request.getfixturevalue("pg_cluster").create_database()
    with TestClient(create_app(url, limits=OFF)) as client:
        yield client


def create(c: TestClient, seats: list[str], **extra: Any) -> dict[str, Any]:
    body = {"game": "piquesept", "seats": seats, **extra}
    r = c.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    made: dict[str, Any] = r.json()
    return made


def join(c: TestClient, tid: str, body: dict[str, Any]) -> Any:
    return c.post(f"/api/tables/{tid}/join", json=body)


def test_each_other_human_seat_gets_an_invite_and_only_its_code_takes_it(c: TestClient) -> None:
    made = create(c, ["human", "human", "random", "human"], join={"seat": 0, "name": "Ann"})
    tid, invites = made["id"], made["invites"]
    assert set(invites) == {"1", "3"}, "the creator's seat and the bot need none"
    assert "watch" not in made and made["open"] is False and made["private"] is False
    assert invites["1"] != invites["3"]
    # A stranger polling the lobby sees the waiting table and tries every free seat.
    listed = c.get("/api/tables", params={"status": "waiting"}).json()["tables"]
    assert tid in [t["id"] for t in listed]
    for seat in (1, 3):
        r = join(c, tid, {"seat": seat, "name": "Sniper"})
        assert r.status_code == 403 and r.json()["error"] == "invite_needed", r.text
        for wrong in ("x", invites["1" if seat == 3 else "3"], "A" * 5000, 17, ["x"]):
            r = join(c, tid, {"seat": seat, "name": "Sniper", "invite": wrong})
            assert r.status_code == 403 and r.json()["error"] == "bad_invite", (wrong, r.text)
    assert [s["joined"] for s in c.get(f"/api/tables/{tid}").json()["seats"]] == [True, False, True, False]
    r = join(c, tid, {"seat": 1, "name": "Bob", "invite": invites["1"]})
    assert r.status_code == 200 and r.json()["seat"] == 1
    again = join(c, tid, {"seat": 1, "name": "Eve", "invite": invites["1"]})
    assert again.status_code == 409, "an invite used once does not take the seat from its holder"
    assert join(c, tid, {"seat": 3, "name": "Cy", "invite": invites["3"]}).status_code == 200
    assert c.get(f"/api/tables/{tid}").json()["status"] == "playing"


def test_a_table_made_without_sitting_down_gives_an_invite_for_every_human_seat(c: TestClient) -> None:
    made = create(c, ["human", "random", "human", "random"])
    assert set(made["invites"]) == {"0", "2"} and "token" not in made
    r = join(c, made["id"], {"seat": 2, "name": "Bob", "invite": made["invites"]["2"]})
    assert r.status_code == 200


def test_an_open_table_takes_anyone_and_says_so(c: TestClient) -> None:
    made = create(c, ["human", "human", "random", "random"], join={"seat": 0, "name": "Ann"}, open=True)
    assert made["invites"] == {} and made["open"] is True
    listed = {t["id"]: t for t in c.get("/api/tables").json()["tables"]}
    assert listed[made["id"]]["open"] is True
    assert join(c, made["id"], {"seat": 1, "name": "Passer-by"}).status_code == 200


def test_access_flags_are_checked(c: TestClient) -> None:
    for body, code in (
        ({"open": True, "private": True}, "bad_access"),
        ({"open": "yes"}, "bad_access"),
        ({"private": 1}, "bad_access"),
    ):
        r = c.post("/api/tables", json={"game": "penneech", "seats": ["human", "human"], **body})
        assert r.status_code == 422 and r.json()["error"] == code, (body, r.text)


def test_the_creator_can_ask_for_the_codes_again_and_nobody_else_can(c: TestClient) -> None:
    made = create(c, ["human", "human", "human", "random"], join={"seat": 0, "name": "Ann"}, private=True)
    tid = made["id"]
    again = c.post(f"/api/tables/{tid}/invites", json={"token": made["token"]})
    assert again.status_code == 200
    assert again.json() == {"invites": made["invites"], "watch": made["watch"]}
    bob = join(c, tid, {"seat": 1, "name": "Bob", "invite": made["invites"]["1"]}).json()["token"]
    assert c.post(f"/api/tables/{tid}/invites", json={"token": bob}).json() == {"invites": {}}
    for bad in ("nope", None, 5, made["invites"]["2"]):
        r = c.post(f"/api/tables/{tid}/invites", json={"token": bad})
        assert r.status_code == 403 and r.json()["error"] == "bad_token", (bad, r.text)


def test_a_private_table_is_unlisted_and_watched_only_with_a_code(c: TestClient) -> None:
    made = create(c, ["human", "human", "random", "random"], join={"seat": 0, "name": "Ann"}, private=True)
    tid, watch, invite = made["id"], made["watch"], made["invites"]["1"]
    assert made["private"] is True and watch and invite
    for status in (None, "waiting"):
        params = {} if status is None else {"status": status}
        assert tid not in [t["id"] for t in c.get("/api/tables", params=params).json()["tables"]]
    r = c.get(f"/api/tables/{tid}")
    assert r.status_code == 403 and r.json()["error"] == "private_table"
    assert c.get(f"/api/tables/{tid}", params={"invite": "guess"}).status_code == 403
    for cred in ({"invite": watch}, {"invite": invite}, {"token": made["token"]}):
        assert c.get(f"/api/tables/{tid}", params=cred).status_code == 200, cred
    with c.websocket_connect(f"/ws/tables/{tid}") as ws, pytest.raises(WebSocketDisconnect) as e:
        ws.receive_json()
    assert e.value.code == 1008, "a spectator without a code is closed, not shown the table"
    bob = join(c, tid, {"seat": 1, "name": "Bob", "invite": invite}).json()["token"]
    with c.websocket_connect(f"/ws/tables/{tid}?invite={watch}") as spectator:
        seen = next_view(spectator)
        assert "hand" not in seen["view"] and seen["legal"] == []
        play_to_end(c, tid, [made["token"], bob], seed=3)
        while seen["status"] != "over":  # the spectator sees the game to its end
            seen = next_view(spectator)
    assert c.get(f"/api/tables/{tid}/record").status_code == 403
    assert c.get(f"/api/tables/{tid}/replay").status_code == 403
    assert c.get(f"/api/tables/{tid}/record", params={"invite": watch}).status_code == 200
    assert c.get(f"/api/tables/{tid}/replay", params={"invite": invite, "seat": 1}).status_code == 200
    r = c.post(f"/api/tables/{tid}/review", json={"seat": 1})
    assert r.status_code == 403 and r.json()["error"] == "private_table"


def test_a_rematch_seat_is_kept_for_its_old_holder(c: TestClient) -> None:
    made = create(c, ["human", "human", "random", "random"], join={"seat": 0, "name": "Ann"})
    tid = made["id"]
    bob = join(c, tid, {"seat": 1, "name": "Bob", "invite": made["invites"]["1"]}).json()["token"]
    play_to_end(c, tid, [made["token"], bob], seed=5)
    first = c.post(f"/api/tables/{tid}/rematch", json={"token": made["token"]})
    assert first.status_code == 200, first.text
    nxt = first.json()["table"]
    sniped = join(c, nxt, {"seat": 1, "name": "Sniper"})
    assert sniped.status_code == 403 and sniped.json()["error"] == "invite_needed"
    second = c.post(f"/api/tables/{tid}/rematch", json={"token": bob})
    assert second.status_code == 200 and second.json()["table"] == nxt and second.json()["seat"] == 1
    assert c.get(f"/api/tables/{nxt}").json()["status"] == "playing"
