"""Tutorials and reviews on the server (docs/tutorials.md, docs/review.md, docs/web.md): a lesson
table teaches the same words as the terminal's lesson and refuses the moves it does not want; a
finished table's review is the one ``gamester review`` prints."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gamester.core.lesson import closing, coach, free_decisions, lesson, lessons
from gamester.core.record import replay
from gamester.sim.review import decisions, review_record
from tests.web_helpers import client_on, database_at, drain_until_over, new_table, next_view

GAMES = ["penneech", "piquesept", "pentyrch"]
LESSONS = [t.id for t in lessons()]


def test_every_game_has_a_lesson_listed(tmp_path: Path) -> None:
    with client_on(tmp_path / "t.db") as c:
        r = c.get("/api/tutorials")
    assert r.status_code == 200
    listed = r.json()["tutorials"]
    assert {t["game"] for t in listed} == set(GAMES)
    assert [t["id"] for t in listed] == LESSONS
    assert all(t["id"] and t["title"] for t in listed)


def test_an_unknown_lesson_is_a_404_naming_the_lessons(tmp_path: Path) -> None:
    with client_on(tmp_path / "t.db") as c:
        r = c.post("/api/tutorials/chess")
        bad = c.post("/api/tutorials/penneech", json={"seat": 3})
    assert r.status_code == 404 and r.json()["error"] == "no_tutorial"
    assert "penneech" in r.json()["message"] and "\n" not in r.json()["message"]
    assert bad.status_code == 422


def _lesson_moves(c: TestClient, name: str) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """Play the lesson as a pupil who makes its line moves, and tries one unwanted move at the first
    request that leaves a choice; returns the start answer, every view of the pupil and the refusal's
    message."""
    line = lesson(name).line
    r = c.post(f"/api/tutorials/{name}", json={"name": "Pupil"})
    assert r.status_code == 201, r.text
    start = r.json()
    views: list[dict[str, Any]] = []
    refused = ""
    with c.websocket_connect(f"/ws/tables/{start['table']}?token={start['token']}") as ws:
        for _ in range(3000):
            m = next_view(ws)
            views.append(m)
            if m["status"] == "over":
                return start, views, refused
            if not m["legal"]:
                continue
            expect = m["tutorial"]["expect"]
            others = [a for a in m["legal"] if a not in expect]
            if expect and others and not refused:
                ws.send_json({"type": "act", "action": others[0], "seq": m["seq"]})
                err = ws.receive_json()
                while err["type"] == "table":  # a notice of the seat's connection may come first
                    err = ws.receive_json()
                assert err["type"] == "error" and err["code"] == "not_the_lesson", err
                refused = err["message"]
            ws.send_json({"type": "act", "action": line[m["seq"]], "seq": m["seq"]})
    raise AssertionError("the lesson did not end")


@pytest.mark.slow
@pytest.mark.parametrize("name", LESSONS)
def test_a_lesson_table_teaches_the_terminal_s_words(tmp_path: Path, name: str) -> None:
    """Each view of the pupil carries the lesson's note for that position, computed from the position
    alone exactly as the terminal's lesson computes it; an unwanted move is refused, never played."""
    t = lesson(name)
    with client_on(tmp_path / "t.db") as c:
        start, views, refused = _lesson_moves(c, name)
        listed = c.get("/api/tables").json()["tables"]
        public = c.get(f"/api/tables/{start['table']}").json()
        record = c.get(f"/api/tables/{start['table']}/record").json()
    assert start["seat"] == t.seat
    assert start["table"] not in {x["id"] for x in listed}  # a lesson is nobody else's table
    assert public["tutorial"] == name
    state = t.new_state()
    assert record["chance"][0] == state.record()["chance"][0]  # the lesson's fixed deal
    assert views[0]["tutorial"]["text"].startswith(t.intro[:40])
    asked = 0
    for m in views:
        position = replay({**record, "actions": record["actions"][: m["seq"]]})
        if m["status"] == "over":
            assert m["tutorial"] == {"text": closing(t, position), "expect": []}
            continue
        note = coach(t, position)
        if note is None:
            assert m["tutorial"]["expect"] == []
            continue
        assert m["tutorial"]["expect"] == note.expect
        assert note.text in m["tutorial"]["text"]
        asked += bool(note.expect)
    assert asked > 0
    assert refused and "\n" not in refused  # at least one request left a choice to refuse
    # The computer players make the lesson's moves (its line), as `gamester play GAME --tutorial`
    # does, given the pupil's moves here; this pupil made the line's moves, so the game is the line.
    position = t.new_state()
    for text in record["actions"]:
        if position.current_player() != t.seat:
            assert position.action_to_string(t.bot_move(position)) == text
        position.apply_action(position.string_to_action(text))
    assert record["actions"] == list(t.line)


def test_only_the_pupil_sees_the_lesson(tmp_path: Path) -> None:
    with client_on(tmp_path / "t.db") as c:
        start = c.post("/api/tutorials/piquesept").json()
        with c.websocket_connect(f"/ws/tables/{start['table']}") as ws:
            spectator = next_view(ws)
        with c.websocket_connect(f"/ws/tables/{start['table']}?token={start['token']}") as ws:
            pupil = next_view(ws)
    assert "tutorial" not in spectator
    assert "tutorial" in pupil and isinstance(pupil["tutorial"]["text"], str)


def _finished_bot_table(c: TestClient, game: str, seats: list[str]) -> tuple[str, dict[str, Any]]:
    tid = new_table(c, game, seats)
    with c.websocket_connect(f"/ws/tables/{tid}") as ws:
        drain_until_over(ws)
    record: dict[str, Any] = c.get(f"/api/tables/{tid}/record").json()
    return tid, record


def _wait_review(c: TestClient, tid: str, seat: int, seconds: float = 300.0) -> dict[str, Any]:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        r = c.get(f"/api/tables/{tid}/review?seat={seat}")
        assert r.status_code == 200, r.text
        if r.json()["status"] != "working":
            out: dict[str, Any] = r.json()
            return out
        time.sleep(0.2)  # polling the stored outcome, as a page does
    raise AssertionError("the review never finished")


@pytest.mark.slow
def test_a_finished_table_s_review_is_the_command_s(tmp_path: Path) -> None:
    with client_on(tmp_path / "t.db") as c:
        tid, record = _finished_bot_table(c, "piquesept", ["heuristic"] * 4)
        first = c.post(f"/api/tables/{tid}/review", json={"seat": 1})
        assert first.status_code == 202 and first.json()["status"] in ("working", "done")
        again = c.post(f"/api/tables/{tid}/review", json={"seat": 1})
        assert again.status_code == 202
        done = _wait_review(c, tid, 1)
        third = c.post(f"/api/tables/{tid}/review", json={"seat": 1})
    assert done.pop("status") == "done"
    assert done == review_record(record, 1, seed=0)
    assert third.json() == {"status": "done"}


def test_review_refusals(tmp_path: Path) -> None:
    with client_on(tmp_path / "t.db") as c:
        waiting = new_table(c, "penneech", ["human", "heuristic"])
        early = c.post(f"/api/tables/{waiting}/review", json={"seat": 0})
        tid, _ = _finished_bot_table(c, "piquesept", ["random"] * 4)
        bad_seat = c.post(f"/api/tables/{tid}/review", json={"seat": 7})
        no_seat = c.post(f"/api/tables/{tid}/review", json={})
        never = c.get(f"/api/tables/{tid}/review?seat=2")
        nonsense = c.get(f"/api/tables/{tid}/review?seat=x")
        missing = c.post("/api/tables/nosuchtable/review", json={"seat": 0})
    assert early.status_code == 403
    assert bad_seat.status_code == 422 and no_seat.status_code == 422
    assert never.status_code == 404 and never.json()["error"] == "no_review"
    assert nonsense.status_code == 422
    assert missing.status_code == 404
    for r in (early, bad_seat, no_seat, never, nonsense, missing):
        assert "\n" not in r.json()["message"]


def test_a_database_of_the_first_schema_upgrades_in_place(tmp_path: Path) -> None:
    """A database made before lessons and reviews keeps its tables, which are not lessons."""
    from gamester.store import open_repository

    url = f"sqlite:///{tmp_path / 'old.db'}"
    database_at(
        url,
        "0001",
        "INSERT INTO gm_tables (id, game, options, seed, chance, status, seq, created) "
        "VALUES ('old', 'penneech', '{}', 1, '[]', 'over', 0, 0)",
    )
    repo = open_repository(url)
    try:
        row = repo.get("old")
        assert row is not None and row.lesson is None
        assert [t.id for t in repo.list_tables(None, 10)] == ["old"]
        assert repo.review("old", 0) is None
    finally:
        repo.dispose()


@pytest.mark.slow
def test_a_lesson_s_review_judges_only_the_pupil_s_own_choices(tmp_path: Path) -> None:
    """A review of a lesson's game leaves out the moves the lesson made for the pupil (asked for or
    narrowed): it judges the choices the lesson left to the pupil, and counts the others."""
    t = lesson("penneech")
    with client_on(tmp_path / "t.db") as c:
        start, _, _ = _lesson_moves(c, t.id)
        tid = start["table"]
        record = c.get(f"/api/tables/{tid}/record").json()
        assert c.post(f"/api/tables/{tid}/review", json={"seat": t.seat}).status_code == 202
        done = _wait_review(c, tid, t.seat)
    own = free_decisions(t, record["actions"])
    assert own and [s["index"] for s in done["steps"]] == own
    assert done["summary"]["lesson_moves"] == len(decisions(record, t.seat)) - len(own) > 0
