"""Helpers for the server's own tests (tests/test_web_*.py): an app on a temporary SQLite file, and
a human seat played over the TestClient's WebSocket."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from gamester.core.record import replay
from gamester.web import create_app
from gamester.web.limits import OFF


@contextmanager
def client_on(path: Path, **kwargs: Any) -> Iterator[TestClient]:
    """An app on a SQLite file; per-address quotas off unless ``limits`` is given (these tests make
    many tables from one client)."""
    kwargs.setdefault("limits", OFF)
    with TestClient(create_app(f"sqlite:///{path}", **kwargs)) as c:
        yield c


def new_table(
    c: TestClient,
    game: str,
    seats: list[str],
    options: dict[str, Any] | None = None,
    clock: dict[str, Any] | None = None,
) -> str:
    r = c.post("/api/tables", json={"game": game, "options": options or {}, "seats": seats, "clock": clock})
    assert r.status_code == 201, r.text
    tid: str = remember(r).json()["id"]
    return tid


INVITES: dict[str, dict[str, str]] = {}
"""The invite codes of every table ``new_table`` made, by table id (as its creator was told)."""


def remember(r: Any) -> Any:
    """A ``POST /api/tables`` response, its invites kept in ``INVITES`` for :func:`invited`."""
    if r.status_code == 201:
        INVITES[r.json()["id"]] = r.json()["invites"]
    return r


def invited(tid: str, body: dict[str, Any]) -> dict[str, Any]:
    """A join request's body with the invite of its seat (as the creator sent it to a friend)."""
    return {**body, "invite": INVITES.get(tid, {}).get(str(body.get("seat")))}


def join(c: TestClient, tid: str, seat: int, name: str = "Ann") -> str:
    """Take ``seat`` with its invite, as the friend the creator sent it to would."""
    r = c.post(f"/api/tables/{tid}/join", json=invited(tid, {"seat": seat, "name": name}))
    assert r.status_code == 200, r.text
    token: str = r.json()["token"]
    return token


def next_view(ws: Any) -> dict[str, Any]:
    """The next ``view`` message (other types skipped)."""
    while True:
        m: dict[str, Any] = ws.receive_json()
        if m["type"] == "view":
            return m


def play_seat(ws: Any, rng: random.Random, limit: int = 5000) -> list[dict[str, Any]]:
    """Answer every view that has legal moves with a random one until the game is over; returns every
    message received."""
    got: list[dict[str, Any]] = []
    for _ in range(limit):
        m: dict[str, Any] = ws.receive_json()
        got.append(m)
        if m["type"] != "view":
            continue
        if m["status"] == "over":
            return got
        if m["legal"]:
            ws.send_json({"type": "act", "action": rng.choice(m["legal"]), "seq": m["seq"]})
    raise AssertionError("the game did not end")


def drain_until_over(ws: Any, limit: int = 5000) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = []
    for _ in range(limit):
        m: dict[str, Any] = ws.receive_json()
        got.append(m)
        if m["type"] == "view" and m["status"] == "over":
            return got
    raise AssertionError("no final view")


def check_views_against_record(
    record: dict[str, Any], viewer: int | None, messages: list[dict[str, Any]]
) -> int:
    """Every view message equals the game's own view of that position for ``viewer`` (and its legal
    list is that seat's legal moves on its turn, else empty); returns how many were checked."""
    positions = [
        replay({**record, "actions": record["actions"][:k]}) for k in range(len(record["actions"]) + 1)
    ]
    checked = 0
    for m in messages:
        if m["type"] != "view":
            continue
        st = positions[m["seq"]]
        want = st.public_observation() if viewer is None else st.observation(viewer)
        assert m["view"] == want, f"seq {m['seq']}: view differs from the game's view for {viewer}"
        if viewer is None:
            assert "hand" not in m["view"] and m["legal"] == []
        elif m["status"] == "playing" and st.current_player() == viewer:
            assert sorted(m["legal"]) == sorted(st.action_to_string(a) for a in st.legal_actions())
        else:
            assert m["legal"] == []
        if m["seq"] > 0:
            before = positions[m["seq"] - 1]
            a = before.string_to_action(record["actions"][m["seq"] - 1])
            assert m["events"] == [before.action_event_seen_by(a, viewer), *st.last_events_seen_by(viewer)]
        checked += 1
    return checked


def head_revision() -> str:
    """The newest migration's revision: what every database is upgraded to when a server starts."""
    from importlib import resources

    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("gamester.store").joinpath("migrations")))
    head = ScriptDirectory.from_config(cfg).get_current_head()
    assert head is not None
    return head


def database_at(url: str, revision: str, *statements: str) -> None:
    """A database of ``url`` migrated only to ``revision`` (an older schema), with ``statements`` (SQL)
    run on it: what a server of that time left, for the upgrade tests."""
    from importlib import resources

    import sqlalchemy as sa
    from alembic import command
    from alembic.config import Config

    engine = sa.create_engine(url)
    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("gamester.store").joinpath("migrations")))
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, revision)
            for sql in statements:
                conn.execute(sa.text(sql))
    finally:
        engine.dispose()


def play_to_end(c: TestClient, tid: str, tokens: list[str], seed: int = 1) -> dict[str, Any]:
    """Play random legal moves for every human seat (by token) until the table is over."""
    rng = random.Random(seed)
    socks = [c.websocket_connect(f"/ws/tables/{tid}?token={t}") for t in tokens]
    entered = [s.__enter__() for s in socks]
    try:
        views = [next_view(w) for w in entered]
        for _ in range(5000):
            seq = max(v["seq"] for v in views)
            for i, w in enumerate(entered):
                while views[i]["seq"] < seq:
                    views[i] = next_view(w)
            if all(v["status"] == "over" for v in views):
                break
            movers = [i for i, v in enumerate(views) if v["legal"] and v["status"] == "playing"]
            if not movers:  # a bot is to move: wait for the next position
                views[0] = next_view(entered[0])
                continue
            i = movers[0]
            entered[i].send_json({"type": "act", "action": rng.choice(views[i]["legal"]), "seq": seq})
            views[i] = next_view(entered[i])
        else:
            raise AssertionError("the game did not end")
    finally:
        for s in socks:
            s.__exit__(None, None, None)
    table: dict[str, Any] = c.get(f"/api/tables/{tid}", params={"token": tokens[0]}).json()
    assert table["status"] == "over"
    return table
