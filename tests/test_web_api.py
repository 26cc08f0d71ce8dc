"""The web contract (docs/web.md, The API and The WebSocket), through FastAPI's TestClient on a
temporary SQLite database."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from tests.web_helpers import client_on, invited, join, new_table, next_view, remember  # noqa: E402

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def c(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client_on(tmp_path_factory.mktemp("web") / "api.db") as client:
        yield client


def test_health_and_games(c: TestClient) -> None:
    assert c.get("/api/health").json().items() >= {"ok": True, "database": "ok"}.items()
    games = {g["name"]: g for g in c.get("/api/games").json()["games"]}
    assert {"penneech", "piquesept", "pentyrch"} <= set(games)  # other installed games may be listed too
    for g in games.values():
        assert g["players"] and all(isinstance(n, int) for n in g["players"])
        assert g["options"] and {"name", "type", "default", "choices"} <= set(g["options"][0])
        assert g["rulesets"] and all(rs["source"] for rs in g["rulesets"])
        strengths = [a["strength"] for a in g["agents"]]
        assert strengths == sorted(strengths) and strengths[0] == 0 and all(a["label"] for a in g["agents"])
    assert games["piquesept"]["players"] == [3, 4]
    assert games["pentyrch"]["players"] == [2, 3, 4]


def test_the_lobby_reads_each_game_s_words_and_seat_names_from_the_server(c: TestClient) -> None:
    """The page restates no game: its blurb and its seats' names come with GET /api/games."""
    games = {g["name"]: g for g in c.get("/api/games").json()["games"]}
    for g in games.values():
        assert set(g["seat_labels"]) == {str(n) for n in g["players"]}
        assert all(len(g["seat_labels"][str(n)]) == n for n in g["players"])
    assert "61" in games["penneech"]["blurb"] and "66" in games["piquesept"]["blurb"]
    assert games["penneech"]["seat_labels"] == {"2": ["Seat 1", "Seat 2"]}
    # rules/pentyrch.md, seats: West ♥, North ♣, East ♦, South ♠; two players hold the two seats
    # of one colour each, West and East (red) for the first player.
    assert games["pentyrch"]["seat_labels"] == {
        "2": ["West & East (♥ ♦)", "North & South (♣ ♠)"],
        "3": ["West ♥", "North ♣", "East ♦"],
        "4": ["West ♥", "North ♣", "East ♦", "South ♠"],
    }


def test_rules(c: TestClient) -> None:
    r = c.get("/api/games/penneech/rules")
    assert r.status_code == 200 and "Rule sets" in r.json()["markdown"]
    r = c.get("/api/games/nothing/rules")
    assert r.status_code == 404 and "valid games" in r.json()["message"]


def test_create_join_status_and_rejoin(c: TestClient) -> None:
    r = c.post(
        "/api/tables",
        json={
            "game": "penneech",
            "options": {"ruleset": "cotton"},
            "seats": ["human", "human"],
            "clock": None,
        },
    )
    assert r.status_code == 201
    t = remember(r).json()
    assert t["status"] == "waiting" and len(t["id"]) >= 16
    assert [s["kind"] for s in t["seats"]] == ["human", "human"]
    tid = t["id"]
    assert c.get(f"/api/tables/{tid}").json()["status"] == "waiting"
    tok0 = join(c, tid, 0, "Ann")
    assert c.post(f"/api/tables/{tid}/join", json=invited(tid, {"seat": 0, "name": "Bob"})).status_code == 409
    assert c.get(f"/api/tables/{tid}").json()["status"] == "waiting"
    tok1 = join(c, tid, 1, "Bob")
    info = c.get(f"/api/tables/{tid}").json()
    assert info["status"] == "playing" and [s["name"] for s in info["seats"]] == ["Ann", "Bob"]
    assert "token" not in str(info) and tok0 not in str(info)
    # rejoin with the seat's token: the same token back
    r = c.post(f"/api/tables/{tid}/join", json={"seat": 0, "name": "Ann", "token": tok0})
    assert r.status_code == 200 and r.json()["token"] == tok0
    assert c.post(f"/api/tables/{tid}/join", json={"seat": 0, "token": tok1}).status_code == 403
    # leave frees the seat; the old token stops working
    assert c.post(f"/api/tables/{tid}/leave", json={"token": "nope"}).status_code == 403
    r = c.post(f"/api/tables/{tid}/leave", json={"token": tok1})
    assert r.status_code == 200 and r.json() == {"ok": True, "seat": 1}
    with c.websocket_connect(f"/ws/tables/{tid}?token={tok1}") as ws, pytest.raises(WebSocketDisconnect) as e:
        ws.receive_json()
    assert e.value.code == 1008
    tok1b = join(c, tid, 1, "Cy")
    assert tok1b != tok1


def test_bot_seat_cannot_be_joined(c: TestClient) -> None:
    tid = new_table(c, "penneech", ["human", "random"])
    r = c.post(f"/api/tables/{tid}/join", json=invited(tid, {"seat": 1, "name": "X"}))
    assert r.status_code == 409 and r.json()["error"] == "seat_taken"


def test_listing(c: TestClient) -> None:
    a = new_table(c, "piquesept", ["human", "random", "random", "random"])
    b = new_table(c, "pentyrch", ["human", "human"], options={"players": 2})
    waiting = [t["id"] for t in c.get("/api/tables?status=waiting").json()["tables"]]
    assert waiting.index(b) < waiting.index(a), "newest first"
    assert all(t["status"] == "waiting" for t in c.get("/api/tables?status=waiting").json()["tables"])
    assert len(c.get("/api/tables?limit=1").json()["tables"]) == 1
    for bad in ("status=nope", "limit=0", "limit=999", "limit=x"):
        r = c.get(f"/api/tables?{bad}")
        assert r.status_code == 422 and "error" in r.json()


BAD_CREATES: list[tuple[Any, int]] = [
    ({"game": "chess", "seats": ["human"]}, 422),
    ({"game": "penneech", "seats": ["human"]}, 422),
    ({"game": "penneech", "seats": ["human", "human", "human"]}, 422),
    ({"game": "penneech", "seats": ["human", "nobody"]}, 422),
    ({"game": "penneech", "seats": ["human", "ismcts:iterations=x"]}, 422),
    ({"game": "penneech", "seats": ["human", 3]}, 422),
    ({"game": "penneech", "seats": "human"}, 422),
    ({"game": "penneech", "options": {"target": "x"}, "seats": ["human", "random"]}, 422),
    ({"game": "penneech", "options": {"nope": 1}, "seats": ["human", "random"]}, 422),
    ({"game": "penneech", "options": {"target": {"a": 1}}, "seats": ["human", "random"]}, 422),
    ({"game": "penneech", "options": [], "seats": ["human", "random"]}, 422),
    ({"game": "penneech", "seats": ["human", "random"], "clock": {"seconds_per_move": 0}}, 422),
    ({"game": "penneech", "seats": ["human", "random"], "clock": {"seconds_per_move": True}}, 422),
    (
        {
            "game": "penneech",
            "seats": ["human", "random"],
            "clock": {"seconds_per_move": 5, "on_timeout": "x"},
        },
        422,
    ),
    ({"game": "penneech", "seats": ["human", "random"], "clock": "fast"}, 422),
    ({"game": "penneech", "seats": ["human", "random"], "extra": 1}, 422),
    ({"game": 7, "seats": ["human", "random"]}, 422),
    ({"game": "pen\u0000neech", "seats": ["human", "random"]}, 422),
    ([1, 2], 400),
    ("just text", 400),
]


@pytest.mark.parametrize(("body", "status"), BAD_CREATES)
def test_bad_create_is_a_json_4xx(c: TestClient, body: Any, status: int) -> None:
    r = c.post("/api/tables", json=body)
    assert r.status_code == status, r.text
    assert r.json()["error"] and "\n" not in r.json()["message"]


def test_bad_http_requests(c: TestClient) -> None:
    tid = new_table(c, "penneech", ["human", "random"])
    cases = [
        (c.post("/api/tables", content=b"{not json", headers={"content-type": "application/json"}), 400),
        (c.post("/api/tables", content=b"x" * 70_000, headers={"content-type": "application/json"}), 413),
        # docs/web.md, On the internet: a state-changing request must be JSON (415 otherwise).
        (c.post("/api/tables", content=b'{"game": "penneech"}'), 415),
        (c.post("/api/tables", content=b"{}", headers={"content-type": "text/plain"}), 415),
        (c.get("/api/nothing/here"), 404),
        (c.get("/api/tables/no-such-table"), 404),
        (c.get("/api/tables/" + "x" * 300), 404),
        (c.get("/api/tables/bad%20id%00"), 404),
        (c.delete("/api/tables"), 405),
        (c.put("/api/health"), 405),
        (c.post(f"/api/tables/{tid}/join", json={"seat": "0"}), 422),
        (c.post(f"/api/tables/{tid}/join", json={"seat": 5}), 422),
        (c.post(f"/api/tables/{tid}/join", json={"seat": True}), 422),
        (c.post(f"/api/tables/{tid}/join", json={"seat": 0, "name": "x" * 500}), 422),
        (c.post(f"/api/tables/{tid}/join", json={"seat": 0, "name": "a\nb"}), 422),
        (c.post(f"/api/tables/{tid}/join", content=b"[]", headers={"content-type": "application/json"}), 400),
        (c.post("/api/tables/nope/join", json={"seat": 0}), 404),
        (c.post(f"/api/tables/{tid}/leave", json={}), 403),
        (c.post(f"/api/tables/{tid}/leave", json={"token": ["x"]}), 403),
        (c.get(f"/api/tables/{tid}/record"), 403),
        (c.get(f"/api/tables/{tid}/replay"), 403),
        (c.get(f"/api/tables/{tid}/replay?seat=9"), 422),
        (c.get(f"/api/tables/{tid}/replay?seat=x"), 422),
    ]
    for i, (r, status) in enumerate(cases):
        assert r.status_code == status, (i, r.status_code, r.text)
        assert r.headers["content-type"].startswith("application/json"), i
        assert "error" in r.json(), i


def _ws_error(ws: Any, payload: Any) -> dict[str, Any]:
    if isinstance(payload, str):
        ws.send_text(payload)
    else:
        ws.send_json(payload)
    while True:
        m: dict[str, Any] = ws.receive_json()
        if m["type"] == "error":
            return m
        assert m["type"] in ("view", "table"), m


def test_websocket_view_and_bad_messages_change_nothing(c: TestClient) -> None:
    tid = new_table(c, "penneech", ["human", "human"])
    t0, t1 = join(c, tid, 0), join(c, tid, 1, "Bob")
    with (
        c.websocket_connect(f"/ws/tables/{tid}?token={t0}") as w0,
        c.websocket_connect(f"/ws/tables/{tid}?token={t1}") as w1,
    ):
        v0, v1 = next_view(w0), next_view(w1)
        assert v0["seq"] == 0 and v0["status"] == "playing" and v0["seat"] == 0
        mover, other = (w0, w1) if v0["legal"] else (w1, w0)
        v = v0 if v0["legal"] else v1
        assert v["legal"] and not (v1 if v0["legal"] else v0)["legal"]
        assert set(v) >= {"type", "seq", "status", "view", "legal", "events", "clock"}
        codes = [
            (mover, "not json", "bad_message"),
            (mover, "[1, 2]", "bad_message"),
            (mover, {"no": "type"}, "bad_message"),
            (mover, {"type": "dance"}, "bad_message"),
            (mover, {"type": "act", "action": v["legal"][0]}, "bad_message"),
            (mover, {"type": "act", "action": v["legal"][0], "seq": 0.0}, "bad_message"),
            (mover, {"type": "act", "action": v["legal"][0], "seq": "0"}, "bad_message"),
            (mover, {"type": "act", "action": v["legal"][0], "seq": True}, "bad_message"),
            (mover, {"type": "act", "action": 5, "seq": 0}, "bad_message"),
            (mover, {"type": "act", "action": v["legal"][0], "seq": 7}, "stale"),
            (mover, {"type": "act", "action": "ZZ", "seq": 0}, "illegal_action"),
            (mover, {"type": "act", "action": "x" * 1000, "seq": 0}, "bad_message"),
            (other, {"type": "act", "action": v["legal"][0], "seq": 0}, "not_your_turn"),
            (other, {"type": "hint", "seq": 0}, "not_your_turn"),
            (mover, "[" * 5000 + "]" * 5000, "bad_message"),
        ]
        for ws, payload, code in codes:
            assert _ws_error(ws, payload)["code"] == code, payload
        info = c.get(f"/api/tables/{tid}").json()
        assert info["seq"] == 0, "nothing changed"
        mover.send_json({"type": "act", "action": v["legal"][0], "seq": 0})
        assert next_view(mover)["seq"] == 1 and next_view(other)["seq"] == 1
        # a stale seq after the move
        assert _ws_error(mover, {"type": "act", "action": v["legal"][0], "seq": 0})["code"] in (
            "stale",
            "not_your_turn",
        )
        mover.send_json({"type": "ping"})
        assert any(mover.receive_json()["type"] == "pong" for _ in range(3))


def test_websocket_closes(c: TestClient) -> None:
    tid = new_table(c, "penneech", ["human", "random"])
    join(c, tid, 0)
    for url in (f"/ws/tables/{tid}?token=wrong", "/ws/tables/nope", f"/ws/tables/{tid}?token="):
        with c.websocket_connect(url) as ws, pytest.raises(WebSocketDisconnect) as e:
            ws.receive_json()
        assert e.value.code == 1008, url
    with c.websocket_connect(f"/ws/tables/{tid}") as ws:
        next_view(ws)
        ws.send_bytes(b"\x00\x01")
        with pytest.raises(WebSocketDisconnect) as e:
            while True:
                ws.receive_json()
        assert e.value.code == 1003
    with c.websocket_connect(f"/ws/tables/{tid}") as ws:
        next_view(ws)
        ws.send_text("x" * (65 * 1024))
        with pytest.raises(WebSocketDisconnect) as e:
            while True:
                ws.receive_json()
        assert e.value.code == 1009


def test_flood_is_rate_limited_then_closed(c: TestClient) -> None:
    tid = new_table(c, "penneech", ["human", "random"])
    with c.websocket_connect(f"/ws/tables/{tid}") as ws:
        next_view(ws)
        for _ in range(200):
            ws.send_text('{"type":"ping"}')
        codes = []
        with pytest.raises(WebSocketDisconnect) as e:
            while True:
                m = ws.receive_json()
                if m["type"] == "error":
                    codes.append(m["code"])
        assert e.value.code == 1008 and "rate_limited" in codes


def test_spectator_sees_no_hand_and_cannot_act(c: TestClient) -> None:
    tid = new_table(c, "piquesept", ["human", "random", "random", "random"])
    join(c, tid, 0)
    with c.websocket_connect(f"/ws/tables/{tid}") as ws:
        v = next_view(ws)
        assert v["seat"] is None and "hand" not in v["view"] and v["legal"] == []
        assert _ws_error(ws, {"type": "act", "action": "AS", "seq": v["seq"]})["code"] == "spectator"
        assert _ws_error(ws, {"type": "hint", "seq": v["seq"]})["code"] == "spectator"


def _hint(ws: Any, seq: int) -> dict[str, Any]:
    """Ask for a hint at ``seq`` and return it (an error instead fails the test)."""
    ws.send_json({"type": "hint", "seq": seq})
    while True:
        m: dict[str, Any] = ws.receive_json()
        if m["type"] == "hint":
            return m
        assert m["type"] != "error", m


def test_hint(c: TestClient) -> None:
    tid = new_table(c, "penneech", ["human", "human"])
    t0, t1 = join(c, tid, 0), join(c, tid, 1)
    for tok in (t0, t1):
        with c.websocket_connect(f"/ws/tables/{tid}?token={tok}") as ws:
            v = next_view(ws)
            if not v["legal"]:
                continue
            m = _hint(ws, v["seq"])
            assert m["seq"] == v["seq"] and m["action"] in v["legal"] and "move" not in m
            assert "moves" not in v, "Penneech's moves are cards: no parts"
            assert m["win_probability"] is None or 0.0 <= m["win_probability"] <= 1.0
            return
    raise AssertionError("nobody to move")


def test_pentyrch_moves_and_hint_carry_their_parts(c: TestClient) -> None:
    """docs/web.md: a Pentyrch view gives the parts of each legal move beside ``legal``, and the hint
    the parts of its move; what the page draws them from is the game's own ``action_parts``."""
    import gamester

    game = gamester.load_game("pentyrch(players=2)")
    tid = new_table(c, "pentyrch", ["human", "human"], options={"players": 2})
    t0, t1 = join(c, tid, 0), join(c, tid, 1)
    for tok in (t0, t1):
        with c.websocket_connect(f"/ws/tables/{tid}?token={tok}") as ws:
            v = next_view(ws)
            if not v["legal"]:
                assert "moves" not in v
                continue
            assert v["moves"] == [game.action_parts(a) for a in v["legal"]]
            m = _hint(ws, v["seq"])
            assert m["action"] in v["legal"] and m["move"] == v["moves"][v["legal"].index(m["action"])]
            return
    raise AssertionError("nobody to move")


@pytest.mark.slow
def test_clock_bot_plays_for_a_slow_seat(c: TestClient) -> None:
    tid = new_table(c, "penneech", ["human", "human"], clock={"seconds_per_move": 1, "on_timeout": "bot"})
    join(c, tid, 0)
    join(c, tid, 1)
    info = c.get(f"/api/tables/{tid}").json()
    assert info["clock"] == {"seconds_per_move": 1, "on_timeout": "bot"}
    end = time.monotonic() + 30
    while c.get(f"/api/tables/{tid}").json()["seq"] < 2:
        assert time.monotonic() < end, "the clock never ran out"
        time.sleep(0.2)


def test_clock_forfeit(c: TestClient) -> None:
    tid = new_table(c, "penneech", ["human", "human"], clock={"seconds_per_move": 1, "on_timeout": "forfeit"})
    t0 = join(c, tid, 0)
    join(c, tid, 1)
    with c.websocket_connect(f"/ws/tables/{tid}?token={t0}") as ws:
        v = next_view(ws)
        assert v["clock"]["deadline"] is not None and 0 < v["clock"]["remaining"] <= 1
        while v["status"] != "over":
            v = next_view(ws)
    info = c.get(f"/api/tables/{tid}").json()
    loser = info["forfeit"]
    assert info["status"] == "over" and loser in (0, 1)
    assert info["returns"][loser] == -1.0 and info["returns"][1 - loser] == 1.0
    rec = c.get(f"/api/tables/{tid}/record").json()
    assert rec["result"] == {"forfeit": loser, "returns": info["returns"]} and rec["actions"] == []


def test_all_bot_table_plays_itself_and_replays(c: TestClient) -> None:
    tid = new_table(c, "penneech", ["random", "heuristic"], options={"objective": "deal"})
    end = time.monotonic() + 60
    while c.get(f"/api/tables/{tid}").json()["status"] != "over":
        assert time.monotonic() < end
        time.sleep(0.2)
    rec = c.get(f"/api/tables/{tid}/record").json()
    assert rec["format"] == "gamester-record" and rec["chance"]
    n = len(rec["actions"])
    for q in ("", "?seat=0", "?seat=1"):
        rp = c.get(f"/api/tables/{tid}/replay{q}").json()
        assert [s["seq"] for s in rp["steps"]] == list(range(n + 1))
        if not q:
            assert all("hand" not in s["view"] for s in rp["steps"])
    rng = random.Random(0)
    assert rng  # the replay needs no randomness: steps come from the stored record


def test_connect_gets_only_the_current_view(c: TestClient) -> None:
    tid = new_table(c, "penneech", ["human", "human"])
    toks = [join(c, tid, 0), join(c, tid, 1)]
    for _ in range(3):
        seq = c.get(f"/api/tables/{tid}").json()["seq"]
        for tok in toks:
            with c.websocket_connect(f"/ws/tables/{tid}?token={tok}") as ws:
                v = next_view(ws)
                assert v["seq"] == seq
                if v["legal"]:
                    ws.send_json({"type": "act", "action": v["legal"][0], "seq": seq})
                    assert next_view(ws)["seq"] == seq + 1
                    break
    with c.websocket_connect(f"/ws/tables/{tid}") as ws:
        assert next_view(ws)["seq"] == 3
