"""The rules of fair play, one by one, without a server process (docs/web.md, Fair play; the attacks
themselves, on a real server beside a victim: tests/test_web_fair_play.py and test_web_fair_ratings.py).

Names that read alike, common passwords, the ``__Host-`` cookie over https, bots rated under one spec,
a pair's three results a day, a private table off the player's page, the chat's 500 lines and blank
filler, a review's age from its start, the hashing line's bounds and the one place a table is charged.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("argon2")

from fastapi.testclient import TestClient  # noqa: E402

from gamester.store import SeatRow, TableRow, open_repository  # noqa: E402
from gamester.store.people import PeopleStore  # noqa: E402
from gamester.store.port import Bucket, Participant  # noqa: E402
from gamester.store.repository import SqlTableRepository  # noqa: E402
from gamester.store.schema import actions  # noqa: E402
from gamester.web import create_app  # noqa: E402
from gamester.web.accounts import password_problem  # noqa: E402
from gamester.web.chat import chat_text  # noqa: E402
from gamester.web.errors import BadInput, RateLimited  # noqa: E402
from gamester.web.fair import FairGate, TableQuota, chat_keys  # noqa: E402
from gamester.web.limits import OFF, Limits  # noqa: E402
from gamester.web.names import name_problem, skeleton  # noqa: E402
from gamester.web.ratings import INITIAL, canonical_spec, rate  # noqa: E402
from tests.pg_support import pg_cluster  # noqa: E402, F401  (a pytest fixture)
from tests.web_helpers import invited, remember  # noqa: E402

PASSWORD = "a long pass phrase 4 tests"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def repo(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[SqlTableRepository]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'rules.db'}"
    else:
        url = request.getfixturevalue("pg_cluster").create_database()
    r = open_repository(url)
    try:
        yield r
    finally:
        r.dispose()


@pytest.fixture
def c(tmp_path: Any) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'c.db'}", limits=OFF)) as client:
        yield client


# -- names -----------------------------------------------------------------------------------------
def test_names_that_read_alike_have_one_skeleton() -> None:
    same = [
        "bob_1",
        "b0b_1",
        "Bob 1",
        "BOB-1",
        "\u0432ob1".replace("\u0432", "b"),
        "\u042c\u043eb1",
        "ｂｏｂ１",
    ]
    assert {skeleton(n) for n in same} == {skeleton("bob1")}
    assert skeleton("Bób") == skeleton("bob"), "marks are folded"
    assert skeleton("rnary") == skeleton("mary") and skeleton("vvill") == skeleton("will")
    assert skeleton("alice") != skeleton("bob")


@pytest.mark.parametrize(
    "name",
    ["You", "Y0U", "Y\u043eu", "spectator", "Sp3ctator", "Expert", "Club player", "heur1stic", "Seat 2"],
)
def test_a_guest_may_not_read_like_the_page_or_a_bot(name: str) -> None:
    assert name_problem(name) is not None


def test_guests_and_new_accounts_may_not_read_like_an_account(c: TestClient) -> None:
    assert c.post("/api/accounts", json={"name": "bob_1", "password": PASSWORD}).status_code == 201
    alike = c.post("/api/accounts", json={"name": "B0b1", "password": PASSWORD})
    assert (
        alike.status_code == 409
        and alike.json()["error"] == "name_taken"
        and "bob_1" in alike.json()["message"]
    )
    table = {"game": "penneech", "seats": ["human", "human"]}
    for guest in ("b0b_1", "Bob 1", "\u042c\u043eb_1"):  # the last in Cyrillic letters
        r = c.post("/api/tables", json={**table, "join": {"seat": 0, "name": guest}})
        assert r.status_code == 422 and r.json()["error"] == "bad_name", (guest, r.text)
    tid = remember(c.post("/api/tables", json=table)).json()["id"]
    r = c.post(f"/api/tables/{tid}/join", json=invited(tid, {"seat": 0, "name": "bob 1"}))
    assert r.status_code == 422 and "bob_1" in r.json()["message"]
    assert (
        c.post(f"/api/tables/{tid}/join", json=invited(tid, {"seat": 0, "name": "Robert"})).status_code == 200
    )
    assert c.post("/api/tutorials/penneech", json={"name": "b0b-1"}).status_code == 422


def test_common_passwords_are_refused(c: TestClient) -> None:
    for weak in ("password", "Password1", "12345678", "iloveyou", "qwertyuiop"):
        assert password_problem(weak) is not None, weak
        r = c.post("/api/accounts", json={"name": "Weak_one", "password": weak})
        assert r.status_code == 422 and r.json()["error"] == "weak_password", (weak, r.text)
    assert password_problem("Weak_one", "weak_one") is not None, "the name itself"
    assert password_problem(PASSWORD) is None


# -- cookies ---------------------------------------------------------------------------------------
@pytest.mark.slow  # two apps start
def test_over_https_the_cookies_are_host_only_and_secure(tmp_path: Any) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'h.db'}", limits=OFF)
    with TestClient(app, base_url="https://testserver") as c:
        c.post("/api/accounts", json={"name": "Sec", "password": PASSWORD})
        r = c.post("/api/session", json={"name": "Sec", "password": PASSWORD})
        cookies = r.headers.get_list("set-cookie")
        session = next(h for h in cookies if h.startswith("__Host-gamester_session="))
        assert (
            "Secure" in session and "Path=/" in session and "Domain" not in session and "HttpOnly" in session
        )
        assert any(h.startswith("__Host-gamester_device=") for h in cookies)
        assert c.get("/api/session").json()["name"] == "Sec"
        # A cookie without the prefix (what a plain-http page elsewhere on the host could set) is not read.
        c.cookies.clear()
        c.cookies.set("gamester_session", r.json()["session"])
        assert c.get("/api/session").json()["name"] is None
    with TestClient(create_app(f"sqlite:///{tmp_path / 'h.db'}", limits=OFF)) as plain:
        r = plain.post("/api/session", json={"name": "Sec", "password": PASSWORD})
        assert any(h.startswith("gamester_session=") for h in r.headers.get_list("set-cookie"))


# -- ratings ---------------------------------------------------------------------------------------
def test_a_bot_spec_written_any_way_is_one_rating() -> None:
    one = {
        canonical_spec(s)
        for s in (
            "ismcts:iterations=2000",
            "ismcts:iterations=02000",
            " ismcts:iterations=2000.0",
            "ismcts: iterations=2000 ",
        )
    }
    assert one == {"ismcts:iterations=2000"}
    assert canonical_spec("ismcts:seconds=1,iterations=300") == canonical_spec(
        "ismcts:iterations=300,seconds=1.0"
    )
    assert canonical_spec("futures:worlds=300") == canonical_spec("futures") == "futures", (
        "a default spelled out"
    )
    assert canonical_spec("rollout:worlds=30") != canonical_spec("rollout")


def _rated(
    repo: SqlTableRepository, tid: str, seats: list[SeatRow], returns: list[float], private: bool = False
) -> None:
    from gamester.core.registry import load_game

    row = TableRow(id=tid, game="penneech", options={}, seed=1, chance=[], clock=None, status="over", seq=9,
                   created=1.0, returns=returns, rated=True, private=private, seats=seats)  # fmt: skip
    repo.create(row)
    state, moves = load_game("penneech").new_initial_state(seed=1), []
    for _ in range(4):
        a = state.legal_actions()[0]
        moves.append(state.action_to_string(a))
        state.apply_action(a)
    with repo.write() as conn:
        conn.execute(
            actions.insert(),
            [{"table_id": tid, "seq": i + 1, "action": m, "at": 1.0} for i, m in enumerate(moves)],
        )


def _people(keys: list[str]) -> list[SeatRow]:
    return [SeatRow(seat=i, kind="human", name=k, token_hash=f"h{i}", account=k) for i, k in enumerate(keys)]


def test_bots_under_one_spec_and_three_results_a_day_per_pair(repo: SqlTableRepository) -> None:
    store = PeopleStore(repo, INITIAL)
    for i, spec in enumerate(["ismcts:iterations=2000", "ismcts:iterations=02000"]):
        bot = SeatRow(seat=1, kind="bot", agent=spec)
        _rated(repo, f"b{i}", [*_people(["ann"])[:1], bot], [1.0, -1.0])
        assert store.apply_rating(
            f"b{i}", rate, 100.0 + i, bot_key=canonical_spec, movers={0, 1}, pair_limit=3
        )
    assert store.ratings_of("bot:ismcts:iterations=2000")["penneech"].games == 2, (
        "one rating for both spellings"
    )
    day = 24 * 3600.0
    for i in range(5):
        _rated(repo, f"p{i}", _people(["cat", "dan"]), [1.0, -1.0])
        store.apply_rating(f"p{i}", rate, 1000.0 + i, movers={0, 1}, pair_limit=3)
    assert store.ratings_of("cat")["penneech"].games == 3 and store.ratings_of("dan")["penneech"].games == 3
    _rated(repo, "next_day", _people(["cat", "dan"]), [1.0, -1.0])
    store.apply_rating("next_day", rate, 1000.0 + day + 1, movers={0, 1}, pair_limit=3)
    assert store.ratings_of("cat")["penneech"].games == 4, "a day later the pair counts again"
    _rated(repo, "unplayed", _people(["eve", "fay"]), [1.0, -1.0])
    store.apply_rating("unplayed", rate, 5000.0, movers={0}, pair_limit=3)
    assert store.ratings_of("eve") == {}, "a person who never moved: the table counts for nobody"


def test_a_table_of_three_leaves_out_only_the_used_up_pair() -> None:
    people = [Participant(i, k, r, INITIAL) for i, (k, r) in enumerate([("a", 1.0), ("b", 0.0), ("c", -1.0)])]
    full, capped = rate(people), rate(people, {frozenset((0, 1))})
    assert full[2] == capped[2], "c's comparisons are untouched"
    b_full, b_capped = full[1], capped[1]
    assert b_full is not None and b_capped is not None
    assert b_capped[0].rating > b_full[0].rating, "b's loss to a is left out: only its win over c counts"
    assert rate(people[:2], {frozenset((0, 1))}) == [None, None]


def test_a_private_table_is_off_the_players_page(repo: SqlTableRepository) -> None:
    store = PeopleStore(repo, INITIAL)
    _rated(repo, "open_one", _people(["gus", "hal"]), [1.0, -1.0])
    _rated(repo, "secret", _people(["gus", "hal"]), [1.0, -1.0], private=True)
    for tid in ("open_one", "secret"):
        store.apply_rating(tid, rate, 10.0, movers={0, 1})
    assert [h["table"] for h in store.history_of("gus", 10)] == ["open_one"]
    assert [t["id"] for t in store.tables_of("gus", 10)] == ["open_one"]


def test_voiding_an_accounts_seat_tokens_rekeys_every_seat_it_holds(repo: SqlTableRepository) -> None:
    """Log out everywhere (and a new password): the account's sessions end, and each of its seats
    takes the token of a new key, in one transaction; the tables not over are named (their sockets
    holding the old tokens are closed)."""
    from gamester.store.port import AccountRow, Rekey

    store = PeopleStore(repo, INITIAL)
    assert store.create_account(AccountRow("kim", "Kim", "h", "00" * 32, 1.0, "klm")) is None
    store.add_session("s" * 64, "kim", 1.0, 1e12)
    for tid, status in (("live", "playing"), ("done", "over")):
        seats = [SeatRow(seat=0, kind="human", name="Kim", token_hash="old", account="kim"),
                 SeatRow(seat=1, kind="human", name="Lou", token_hash="lou's")]  # fmt: skip
        repo.create(TableRow(id=tid, game="penneech", options={}, seed=1, chance=[], clock=None,
                             status=status, seq=0, created=1.0, seats=seats))  # fmt: skip
    done = store.log_out_everywhere("kim", Rekey("11" * 32, lambda t, s: f"new:{t}:{s}"))
    assert done.sessions == 1 and done.tables == ["live"]
    for tid in ("live", "done"):
        row = repo.get(tid)
        assert row is not None and [s.token_hash for s in row.seats] == [f"new:{tid}:0", "lou's"]
    account = store.account("kim")
    assert account is not None and account.seat_key == "11" * 32
    assert store.session_account("s" * 64, 2.0) is None


# -- chat ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "filler", ["\u3164", "\u3164 \u3164", "\u0301\u0302", "\u2800\u2800", "\u115f\u1160", " \u034f "]
)
def test_a_chat_line_of_filler_only_is_refused(filler: str) -> None:
    with pytest.raises(BadInput) as e:
        chat_text(filler)
    assert e.value.code == "bad_chat"
    assert chat_text("e\u0301") == "e\u0301", "a mark on a letter is a letter"


def test_a_table_keeps_its_last_500_chat_lines_and_allowances_outlive_sockets(
    repo: SqlTableRepository,
) -> None:
    store = PeopleStore(repo, INITIAL)
    repo.create(TableRow(id="t", game="penneech", options={}, seed=1, chance=[], clock=None, status="playing",
                         seq=0, created=1.0, seats=_people(["a", "b"])))  # fmt: skip
    for i in range(520):
        store.add_chat("t", 0, "a", f"line {i}", 10.0 + i)
    assert store.chat_count("t") == 500 and store.last_chat("t", 1)[0]["text"] == "line 519"
    keys = chat_keys("t", address="127.0.0.2", account=None, seat=None, socket="one", per_address=True)
    again = chat_keys("t", address="127.0.0.2", account=None, seat=None, socket="two", per_address=True)
    assert keys == again, "another socket of the same address spends the same allowance"
    allowance = [Bucket("chat", k, 5, 2.0) for k in keys]
    said = [store.add_chat("t", None, "x", "hi", 1000.0, allowance) for _ in range(6)]
    assert all(isinstance(i, int) for i in said[:5]) and said[5] is None, "five at once, then none"
    assert chat_keys("t", address="x", account="ann", seat=0, socket="s", per_address=False) == [
        "t|u:ann",
        "t|s:0",
    ]


# -- reviews ---------------------------------------------------------------------------------------
def test_a_review_is_aged_from_its_start(repo: SqlTableRepository) -> None:
    repo.create(TableRow(id="r", game="penneech", options={}, seed=1, chance=[], clock=None, status="over",
                         seq=0, created=1.0, seats=_people(["a", "b"])))  # fmt: skip
    assert repo.claim_review("r", 0, "me", 0.0, -600.0)  # asked at 0, waited in line
    assert repo.start_review("r", 0, "me", 700.0)  # runs from 700
    assert not repo.claim_review("r", 0, "other", 800.0, 800.0 - 600.0), "not stale: it started at 700"
    assert repo.claim_review("r", 0, "other", 1400.0, 1400.0 - 600.0), "stale 600 s after its start"
    assert not repo.start_review("r", 0, "me", 1401.0), "taken over: the first server does not run it again"


# -- the shares ------------------------------------------------------------------------------------
def test_the_hashing_line_is_bounded_and_a_newcomer_goes_first() -> None:
    async def run() -> tuple[list[str], list[str]]:
        gate = FairGate(1, 1, max_waiting=3, max_per_key=2)
        release, order, refused = asyncio.Event(), [], []

        async def job(name: str) -> None:
            order.append(name)
            if name == "a0":
                await release.wait()

        async def ask(key: str, name: str) -> None:
            try:
                await gate.run(key, lambda: job(name))
            except RateLimited as e:
                refused.append(f"{name} {e.code} {e.retry_after}")

        tasks = [asyncio.ensure_future(ask("a", f"a{i}")) for i in range(3)]
        await asyncio.sleep(0)
        tasks.append(asyncio.ensure_future(ask("b", "b0")))
        await asyncio.sleep(0)
        release.set()
        await asyncio.gather(*tasks)
        return order, refused

    order, refused = asyncio.run(run())
    assert order == ["a0", "b0", "a1"], "b was never served: it goes before a's second"
    assert [r.rsplit(" ", 1)[0] for r in refused] == ["a2 busy"], "a third of a's at once is turned away"


def test_every_way_of_making_a_table_is_charged_in_one_place() -> None:
    class Bucket:
        burst, every, left = 2.0, 30.0, 2

        def take(self, key: str, now: float) -> float:
            self.left -= 1
            return 0.0 if self.left >= 0 else 30.0

    async def run() -> list[str]:
        waiting = {"n": 0}

        async def count(key: str) -> int:
            return waiting["n"]

        quota = TableQuota(Bucket(), count, per_minute=2, waiting_cap=1)
        out = []
        for waits in (True, True, False):
            try:
                async with quota.making("1.2.3.4", waiting=waits):
                    waiting["n"] += waits
                out.append("made")
            except RateLimited as e:
                out.append(e.message.split(":")[0])
        return out

    assert asyncio.run(run()) == ["made", "this address already has 1 tables waiting for players (at most 1)",
                                  "too many tables created from this address"]  # fmt: skip


@pytest.mark.slow  # waits for the expiry rounds
def test_a_lesson_nobody_plays_expires(tmp_path: Any) -> None:
    limits = Limits(**{**OFF.json(), "unjoined_minutes": 0.01})  # 0.6 s
    with TestClient(create_app(f"sqlite:///{tmp_path / 'l.db'}", limits=limits, lease_seconds=0.6)) as c:
        tid = c.post("/api/tutorials/penneech", json={}).json()["table"]
        end = time.monotonic() + 30
        while c.get(f"/api/tables/{tid}").status_code != 404:
            assert time.monotonic() < end, "an idle lesson never expired"
            time.sleep(0.1)
