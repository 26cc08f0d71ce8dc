"""The table repository's contract, run on SQLite and on a real PostgreSQL (tests/pg_support.py).

Both adapters must give the same answers: a table round-trips, ``append_action`` is guarded by
``seq`` (two writers of action n: exactly one wins), joins take a seat once and start the table when
the last human seat is taken, and leases go to one owner until they expire.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")

from gamester.store import SeatRow, SqlTableRepository, TableRow, open_repository  # noqa: E402
from tests.pg_support import pg_cluster, postgres_url  # noqa: E402, F401  (pytest fixtures)


@pytest.fixture(params=["sqlite", "postgresql"])
def repo(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SqlTableRepository]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'store.db'}"
    else:
        cluster = request.getfixturevalue("pg_cluster")
        url = cluster.create_database()
    r = open_repository(url)
    try:
        yield r
    finally:
        r.dispose()


def _table(tid: str = "t1", humans: int = 1) -> TableRow:
    seats = [SeatRow(seat=i, kind="human") for i in range(humans)]
    seats.append(SeatRow(seat=humans, kind="bot", agent="random"))
    return TableRow(
        id=tid,
        game="penneech",
        options={"target": 61},
        seed=2**61 + 5,
        chance=[["AS", "KD"]],
        clock={"seconds_per_move": 30, "on_timeout": "bot"},
        status="waiting",
        seq=0,
        created=100.0,
        seats=seats,
    )


def test_round_trip_and_listing(repo: SqlTableRepository) -> None:
    repo.create(_table("a"))
    t2 = _table("b")
    t2.created = 200.0
    repo.create(t2)
    got = repo.get("a")
    assert got is not None
    assert (got.game, got.options, got.seed, got.chance, got.clock, got.status, got.seq) == (
        "penneech",
        {"target": 61},
        2**61 + 5,
        [["AS", "KD"]],
        {"seconds_per_move": 30, "on_timeout": "bot"},
        "waiting",
        0,
    )
    assert [(s.seat, s.kind, s.agent) for s in got.seats] == [(0, "human", None), (1, "bot", "random")]
    assert repo.get("nope") is None
    assert [t.id for t in repo.list_tables(None, 10)] == ["b", "a"]  # newest first
    assert [t.id for t in repo.list_tables("waiting", 1)] == ["b"]
    assert repo.list_tables("over", 10) == []


def test_join_stores_what_the_caller_decides_about_starting(repo: SqlTableRepository) -> None:
    # The rule (the table starts once no human seat is free) is the decisions'; the repository asks
    # it inside the join's transaction, with the seat already taken, and stores the answer.
    repo.create(_table("j", humans=2))
    asked: list[list[str | None]] = []

    def rule(row: TableRow) -> float | bool | None:
        asked.append([s.token_hash for s in row.seats])
        return 123.0 if all(s.token_hash for s in row.seats if s.kind == "human") else False

    assert repo.join("j", 0, "Ann", "h0", rule) is not None
    assert repo.join("j", 0, "Bob", "hx", rule) is None, "a taken seat cannot be joined again"
    assert repo.join("j", 2, "Bob", "hx", rule) is None, "a bot seat cannot be joined"
    assert repo.get("j").status == "waiting"  # type: ignore[union-attr]
    got = repo.join("j", 1, "Bob", "h1", rule)
    assert got is not None and got.status == "playing" and got.deadline == 123.0
    assert asked[-1][:2] == ["h0", "h1"], "the rule sees the row with the new seat taken"
    t = repo.get("j")
    assert t is not None and t.status == "playing" and t.deadline == 123.0
    assert not repo.leave("j", 1, "wrong")
    assert repo.leave("j", 1, "h1")
    assert repo.get("j").seats[1].token_hash is None  # type: ignore[union-attr]


def test_append_action_is_guarded_by_seq(repo: SqlTableRepository) -> None:
    t = _table("s", humans=0)
    t.status = "playing"
    repo.create(t)
    assert repo.append_action("s", 0, "keep", 1.0, chance=None, status="playing", deadline=5.0, returns=None)
    assert not repo.append_action(
        "s", 0, "QH", 1.0, chance=None, status="playing", deadline=None, returns=None
    ), "a second action 1 must be refused"
    assert repo.append_action(
        "s", 1, "QH", 2.0, chance=[["AS"], ["KD"]], status="over", deadline=None, returns=[1.0, -1.0]
    )
    got = repo.get("s")
    assert got is not None
    assert (got.seq, got.status, got.chance, got.returns) == (2, "over", [["AS"], ["KD"]], [1.0, -1.0])
    assert repo.actions("s") == ["keep", "QH"]
    assert repo.actions("s", after=1) == ["QH"]
    assert not repo.append_action(
        "s", 2, "x", 3.0, chance=None, status="over", deadline=None, returns=None
    ), "no action after the end"


def test_concurrent_writers_of_one_seq(repo: SqlTableRepository) -> None:
    t = _table("c", humans=0)
    t.status = "playing"
    repo.create(t)
    wins: list[bool] = []
    barrier = threading.Barrier(6)

    def write(i: int) -> None:
        barrier.wait()
        wins.append(
            repo.append_action(
                "c", 0, f"a{i}", 1.0, chance=None, status="playing", deadline=None, returns=None
            )
        )

    threads = [threading.Thread(target=write, args=(i,)) for i in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(wins) == [False] * 5 + [True]
    assert len(repo.actions("c")) == 1 and repo.seq_of("c") == 1


def test_leases(repo: SqlTableRepository) -> None:
    t = _table("l", humans=0)
    t.status = "playing"
    repo.create(t)
    assert [i.id for i in repo.unleased(10.0, 10)] == ["l"]
    assert repo.take_lease("l", "A", until=20.0, now=10.0)
    assert not repo.take_lease("l", "B", until=25.0, now=15.0), "held by A until 20"
    assert repo.take_lease("l", "A", until=30.0, now=15.0), "the owner may renew"
    assert repo.unleased(25.0, 10) == []
    assert repo.take_lease("l", "B", until=45.0, now=31.0), "expired: B takes over"
    assert repo.take_lease("l", "C", until=50.0, now=32.0, dead_owner="B"), "a dead owner's lease is taken"
    repo.renew_leases("C", 99.0)
    assert repo.get("l").lease_expiry == 99.0  # type: ignore[union-attr]
    assert repo.leased_by("C") == ["l"]
    repo.release_leases("C")
    assert repo.leased_by("C") == []


def test_time_without_a_lease_holder_does_not_count_against_the_clock(repo: SqlTableRepository) -> None:
    t = _table("k", humans=0)
    t.status, t.clock, t.deadline = "playing", {"seconds_per_move": 30, "on_timeout": "forfeit"}, 130.0
    repo.create(t)
    assert repo.take_lease("k", "A", until=110.0, now=100.0)
    assert repo.get("k").deadline == 130.0, "a first lease shifts nothing"  # type: ignore[union-attr]
    assert repo.take_lease("k", "A", until=115.0, now=105.0)
    assert repo.get("k").deadline == 130.0, "renewing shifts nothing"  # type: ignore[union-attr]
    repo.release_leases("A", now=106.0)  # A stops at 106, 24 s left on the clock
    assert repo.take_lease("k", "B", until=510.0, now=500.0)
    assert repo.get("k").deadline == 524.0, "the 394 s nobody ran it are given back"  # type: ignore[union-attr]
    # B dies after its renewal at 500 (lease until 510); C takes over at 600: 100 s given back
    assert repo.take_lease("k", "C", until=610.0, now=600.0, dead_owner="B")
    assert repo.get("k").deadline == 624.0  # type: ignore[union-attr]
    # C's lease lapses without a renewal (expiry 610); D takes it at 700: given back since 600
    assert repo.take_lease("k", "D", until=710.0, now=700.0)
    assert repo.get("k").deadline == 724.0  # type: ignore[union-attr]


def test_migrations_are_idempotent(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'twice.db'}"
    open_repository(url).dispose()
    r = open_repository(url)
    r.create(_table("x"))
    r.dispose()
    assert open_repository(url).get("x") is not None


@pytest.mark.parametrize("url", ["mysql://x/y", "sqlite://", "nonsense", "sqlite:///{tmp}"])
def test_bad_urls_are_one_line_errors(url: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError) as e:
        open_repository(url.replace("{tmp}", str(tmp_path)))
    assert "\n" not in str(e.value) and "--db" in str(e.value)


def test_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    p = tmp_path / "junk.db"
    p.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(ValueError, match="not a usable gamester database|cannot open"):
        open_repository(f"sqlite:///{p}")


def test_delete_abandoned_refuses_a_table_more_have_joined(repo: SqlTableRepository) -> None:
    for t in "xyz":
        repo.create(_table(t, humans=3))
    assert repo.join("y", 0, "Ann", "h0", lambda _row: False) is not None
    assert repo.join("z", 0, "Ann", "h1", lambda _row: False) is not None
    assert repo.join("z", 1, "Bob", "h2", lambda _row: False) is not None
    assert {t.id for t in repo.waiting_since(1e18, 10)} == {"x", "y", "z"}
    assert repo.waiting_since(50.0, 10) == [], "only tables created before the time given"
    assert not repo.delete_abandoned("y", 0), "one seat taken, none allowed"
    assert repo.delete_abandoned("x", 1) and repo.get("x") is None
    assert repo.delete_abandoned("y", 1) and repo.get("y") is None, "its creator alone"
    assert not repo.delete_abandoned("z", 1), "two have sat down: a gathering is not deleted"
    assert repo.get("z") is not None


def test_lesson_tables_are_kept_but_never_listed(repo: SqlTableRepository) -> None:
    lesson = _table("lesson")
    lesson.lesson = "penneech"
    repo.create(lesson)
    repo.create(_table("plain"))
    got = repo.get("lesson")
    assert got is not None and got.lesson == "penneech"
    assert [t.id for t in repo.list_tables(None, 10)] == ["plain"]


def test_a_review_is_claimed_once_then_stored(repo: SqlTableRepository) -> None:
    repo.create(_table("r"))
    assert repo.review("r", 0) is None
    assert repo.claim_review("r", 0, "server-a", 1000.0, 400.0)
    assert not repo.claim_review("r", 0, "server-b", 1001.0, 401.0)  # under way on server-a
    assert repo.claim_review("r", 1, "server-b", 1001.0, 401.0)  # another seat is another review
    row = repo.review("r", 0)
    assert row is not None and (row.status, row.owner, row.started) == ("working", "server-a", 1000.0)
    repo.finish_review("r", 0, "server-b", "done", {"seat": 0})  # not its review: ignored
    assert repo.review("r", 0).status == "working"  # type: ignore[union-attr]
    repo.finish_review("r", 0, "server-a", "done", {"seat": 0, "steps": []})
    done = repo.review("r", 0)
    assert done is not None and done.status == "done" and done.result == {"seat": 0, "steps": []}
    assert not repo.claim_review("r", 0, "server-b", 5000.0, 4000.0)  # done: never again


def test_a_review_left_by_a_dead_server_or_failed_is_taken_over(repo: SqlTableRepository) -> None:
    repo.create(_table("s"))
    assert repo.claim_review("s", 0, "dead", 100.0, -500.0)
    assert not repo.claim_review("s", 0, "alive", 200.0, 50.0)  # started at 100, not stale before 50
    assert repo.claim_review("s", 0, "alive", 800.0, 200.0)  # stale: started before 200
    assert repo.review("s", 0).owner == "alive"  # type: ignore[union-attr]
    repo.finish_review("s", 0, "alive", "failed", "the review could not be made: ValueError")
    assert repo.claim_review("s", 0, "again", 900.0, 300.0)
