"""Fair play between strangers (docs/web.md, Fair play): every shared resource has a share per client.

One real ``gamester serve`` for the module, with small limits. Each test runs an attack as a stranger
would — from loopback addresses of its own (127.0.0.2, 127.0.0.3 … through ``local_address``, so the
per-address shares are real) — while a victim plays at another table, and checks what the attack
achieves now. The attacks are plain functions returning what they achieved, so the same code measures
a server of another tree (``python -m tests.test_web_fair_play --tree DIR``, as docs/web.md reports
before and after).
"""

from __future__ import annotations

import asyncio
import collections
import json
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.pg_support import free_port
from tests.test_web_strangers import Victim
from tests.web_support import ServerProcess, WsClient, sqlite_url

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

LIMITS = {
    "tables_per_minute": 8,
    "waiting_per_address": 3,
    "sockets_per_address": 24,
    "connections_per_address": 64,
    "requests_per_second": 40,
    "request_burst": 300,
}
ENV = {"GAMESTER_REVIEW_SECONDS": "3", "GAMESTER_BOT_WORKERS": "1"}
PASSWORD = "a long pass phrase 4 tests"
P99_BOUND = 1.5


def ip(n: int) -> str:
    return f"127.0.0.{n}"


def client(base: str, n: int) -> httpx.Client:
    """An HTTP client whose requests come from 127.0.0.n."""
    return httpx.Client(base_url=base, timeout=120.0, transport=httpx.HTTPTransport(local_address=ip(n)))


def aclient(base: str, n: int) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=ip(n))
    return httpx.AsyncClient(base_url=base, timeout=120.0, transport=transport)


def ws_base(base: str) -> str:
    return "ws" + base.removeprefix("http")


def sign_up(base: str, n: int, name: str) -> None:
    with client(base, n) as c:
        r = c.post("/api/accounts", json={"name": name, "password": PASSWORD})
        assert r.status_code in (201, 409), r.text


def session(base: str, n: int, name: str) -> dict[str, str]:
    with client(base, n) as c:
        r = c.post("/api/session", json={"name": name, "password": PASSWORD})
        assert r.status_code == 200, r.text
        return {"Authorization": f"Bearer {r.json()['session']}"}


class AddressVictim(Victim):
    """The strangers' suite's victim (two players moving as fast as their views come), its table made
    from an address of its own so that it spends no attacker's quota."""

    def __init__(self, server: ServerProcess, n: int) -> None:
        with client(server.base, n) as c:
            made = c.post("/api/tables", json={"game": "penneech", "seats": ["human", "human"],
                                               "join": {"seat": 0, "name": "Vic"}})  # fmt: skip
            assert made.status_code == 201, made.text
            table = made.json()
            joined = c.post(f"/api/tables/{table['id']}/join",
                            json={"seat": 1, "name": "Val", "invite": table["invites"]["1"]})  # fmt: skip
            assert joined.status_code == 200, joined.text
        super().__init__(server, (table["id"], {0: table["token"], 1: joined.json()["token"]}))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    tmp = tmp_path_factory.mktemp("fair")
    limits = tmp / "limits.json"
    limits.write_text(json.dumps(LIMITS))
    with ServerProcess(sqlite_url(tmp), log_dir=tmp, limits=str(limits), env=ENV) as srv:
        yield srv


_victims = iter(range(100, 200))


def beside_a_victim(server: ServerProcess, what: str) -> AddressVictim:
    return AddressVictim(server, next(_victims))


def p99(xs: list[float]) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(0.99 * len(s)))]


# -- log-in ----------------------------------------------------------------------------------------
async def _log_in(c: httpx.AsyncClient, name: str, password: str = PASSWORD) -> tuple[int, str, float]:
    t0 = time.perf_counter()
    r = await c.post("/api/session", json={"name": name, "password": password})
    code = r.json().get("error", "") if r.status_code != 200 else ""
    return r.status_code, code, time.perf_counter() - t0


def login_flood(base: str, flooders: list[int], in_flight: int, calm: int, rounds: int = 3) -> dict[str, Any]:
    """Each flooder address keeps ``in_flight`` right-password log-ins of its own account going while
    the ``calm`` address logs in ``rounds`` times: the calm log-ins' times, alone and under the flood,
    and the flood's answers."""
    for n in flooders:
        sign_up(base, n, f"Flood{n}")
    sign_up(base, calm, "Calm")

    async def run() -> dict[str, Any]:
        async with aclient(base, calm) as c:
            alone = [(await _log_in(c, "Calm"))[2] for _ in range(2)]
        stop = asyncio.Event()
        codes: collections.Counter[str] = collections.Counter()

        async def flood(n: int) -> None:
            async with aclient(base, n) as c:
                while not stop.is_set():
                    status, code, _ = await _log_in(c, f"Flood{n}")
                    codes[f"{status} {code}".strip()] += 1
                    if status == 429:
                        await asyncio.sleep(0.05)

        tasks = [asyncio.create_task(flood(n)) for n in flooders for _ in range(in_flight)]
        await asyncio.sleep(1.0)  # the flood is under way
        under, reads = [], []
        async with aclient(base, calm) as c:
            for _ in range(rounds):
                t0 = time.perf_counter()
                await c.get("/api/session")  # a request that hashes nothing, for comparison
                reads.append(time.perf_counter() - t0)
                status, code, took = await _log_in(c, "Calm")
                under.append(took)
                assert status == 200, (status, code)
        stop.set()
        await asyncio.gather(*tasks)
        return {
            "alone": alone,
            "under_flood": under,
            "a_read_under_flood": reads,
            "flood_answers": dict(codes),
        }

    return asyncio.run(run())


def test_a_log_in_flood_leaves_other_addresses_their_log_in(server: ServerProcess) -> None:
    """Three addresses each keep 12 right-password log-ins in flight: each gets its share of the
    hashing line (two at a time) and its address's tries, the rest are turned away at once (429
    ``busy`` or ``rate_limited``, with Retry-After), and another address's log-in waits a few hashes,
    not the flood's hundred."""
    flooders = [2, 3, 4]  # docs/web.md reports five, each with 20 (measure, below)
    with beside_a_victim(server, "log-in flood") as victim:
        got = login_flood(server.base, flooders=flooders, in_flight=12, calm=7, rounds=2)
    victim.check("log-in flood")
    alone = min(got["alone"])
    # What the flood costs every request alike (a read that hashes nothing, asked just before), taken
    # off: the rest is the log-in's wait in the hashing line.
    waited = max(t - r for t, r in zip(got["under_flood"], got["a_read_under_flood"], strict=True))
    print(f"\nlog-in flood: calm log-in alone {alone:.2f} s; under the flood {got['under_flood']}")
    print(f"log-in flood: a read under the flood {got['a_read_under_flood']}; {got['flood_answers']}")
    answers = got["flood_answers"]
    assert answers.get("429 busy", 0) + answers.get("429 rate_limited", 0) > answers.get("200", 0)
    # Addresses take turns: at most one hash of each flooding address ahead of it, not the flood's
    # hundred (before: 29 times a log-in alone).
    assert waited < 2 * (len(flooders) + 1) * alone + 2.0, got


def lockout(base: str, owner_at: int, attacker_at: int, elsewhere: int) -> dict[str, Any]:
    """The owner logs in once from ``owner_at`` (its device keeps the cookie), then an attacker at the
    same address guesses wrong passwords for the owner's name: what the attacker, the owner's device
    and the owner from another address get."""
    sign_up(base, owner_at, "Owner")
    with (
        client(base, owner_at) as device,
        client(base, attacker_at) as attacker,
        client(base, elsewhere) as away,
    ):
        first = device.post("/api/session", json={"name": "Owner", "password": PASSWORD}).status_code
        guesses = [
            attacker.post("/api/session", json={"name": "Owner", "password": f"guess number {i}"}).status_code
            for i in range(8)
        ]
        return {
            "first": first,
            "guesses": guesses,
            "attacker_right_password": attacker.post(
                "/api/session", json={"name": "Owner", "password": PASSWORD}
            ).status_code,
            "owner_device": device.post(
                "/api/session", json={"name": "Owner", "password": PASSWORD}
            ).status_code,
            "owner_elsewhere": away.post(
                "/api/session", json={"name": "Owner", "password": PASSWORD}
            ).status_code,
        }


def test_wrong_passwords_from_one_address_lock_out_nobody_else(server: ServerProcess) -> None:
    got = lockout(server.base, owner_at=8, attacker_at=8, elsewhere=9)
    print(f"\nlock-out: {got}")
    assert got["first"] == 200 and got["guesses"][:5] == [401] * 5 and set(got["guesses"][5:]) == {429}
    assert got["attacker_right_password"] == 429, "that (name, address) is throttled"
    assert got["owner_device"] == 200, "a device that logged in before keeps its own allowance"
    assert got["owner_elsewhere"] == 200, "another address is not locked out of the name"


# -- tables made, whatever makes them ----------------------------------------------------------------
def _finish_by_forfeit(c: httpx.Client, tid: str, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while c.get(f"/api/tables/{tid}").json()["status"] != "over":
        assert time.monotonic() < end, "the clock never ended the table"
        time.sleep(0.1)


def rematch_chain(base: str, n: int, seconds: float, chains: int) -> dict[str, Any]:
    """From one address, ``chains`` chains of rematches for ``seconds``: a table of two seats the
    address holds, on a one-second forfeit clock, and as soon as it ends its rematch, one seat asking
    (the rematch then waits for the other) and then the other. Tables made and refused, and how many
    of them were waiting for players at once at the end."""
    made, refused, waiting_ids = [0], collections.Counter[str](), set[str]()
    lock = threading.Lock()
    clock = {"seconds_per_move": 1, "on_timeout": "forfeit"}
    body = {
        "game": "penneech",
        "seats": ["human", "human"],
        "clock": clock,
        "join": {"seat": 0, "name": "Chain"},
    }

    def chain() -> None:
        end = time.monotonic() + seconds
        with client(base, n) as c:
            r = c.post("/api/tables", json=body)
            if r.status_code != 201:
                with lock:
                    refused[r.json()["error"]] += 1
                return
            t = r.json()
            friend = {"seat": 1, "name": "Link", "invite": t["invites"]["1"]}
            tokens = [t["token"], c.post(f"/api/tables/{t['id']}/join", json=friend).json()["token"]]
            tid = t["id"]
            with lock:
                made[0] += 1
            while time.monotonic() < end:
                _finish_by_forfeit(c, tid)
                first = c.post(f"/api/tables/{tid}/rematch", json={"token": tokens[0]})
                if first.status_code != 200:
                    with lock:
                        refused[first.json()["error"]] += 1
                    time.sleep(0.5)
                    continue
                new = first.json()["table"]
                with lock:
                    made[0] += 1
                    waiting_ids.add(new)
                if time.monotonic() >= end:
                    break
                second = c.post(f"/api/tables/{tid}/rematch", json={"token": tokens[1]})
                with lock:
                    waiting_ids.discard(new)
                tid, tokens = new, [first.json()["token"], second.json()["token"]]

    threads = [threading.Thread(target=chain) for _ in range(chains)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(seconds + 120)
    with client(base, n) as c:
        still = sum(c.get(f"/api/tables/{t}").json().get("status") == "waiting" for t in waiting_ids)
    return {"made": made[0], "refused": dict(refused), "waiting_at_end": still, "seconds": seconds}


def test_rematches_count_as_tables_made(server: ServerProcess) -> None:
    """Chained rematches from one address (quota 8 a minute, 3 waiting): before, every rematch was
    free of both quotas; now each is a table made by the address that asked."""
    with beside_a_victim(server, "rematch chain") as victim:
        got = rematch_chain(server.base, 10, seconds=6.0, chains=3)
    victim.check("rematch chain")
    print(f"\nrematch chain: {got}")
    assert got["made"] <= LIMITS["tables_per_minute"] + 1, got  # a table may come back to the bucket
    assert got["waiting_at_end"] <= LIMITS["waiting_per_address"], got
    assert got["refused"].get("rate_limited", 0) >= 1, got
    with client(server.base, 10) as c:
        lesson = c.post("/api/tutorials/penneech", json={})
        assert lesson.status_code == 429 and int(lesson.headers["retry-after"]) >= 1, "a lesson counts too"


# -- chat ------------------------------------------------------------------------------------------
async def _chat_burst(url: str, n: int, text: str, lines: int) -> tuple[int, list[str]]:
    """One socket from 127.0.0.n: ``lines`` chat lines; how many came back stored, and the errors."""
    ok, errors = 0, []
    async with connect(url, local_addr=(ip(n), 0), open_timeout=20, close_timeout=2) as ws:
        for i in range(lines):
            await ws.send(json.dumps({"type": "chat", "text": f"{text} {i}" if lines > 1 else text}))
        deadline = time.monotonic() + 3.0
        while ok + len(errors) < lines and time.monotonic() < deadline:
            try:
                m = json.loads(await asyncio.wait_for(ws.recv(), 3.0))
            except (TimeoutError, ConnectionClosed):
                break
            if m["type"] == "chat" and m["text"].startswith(text):
                ok += 1
            elif m["type"] == "error":
                errors.append(m["code"])
    return ok, errors


def chat_reconnects(base: str, n: int, seconds: float) -> dict[str, Any]:
    """A spectator from one address reconnects again and again, five lines a socket: lines stored a
    second; and whether a line of invisible filler is taken."""
    with client(base, n) as c:
        t = c.post("/api/tables", json={"game": "penneech", "seats": ["human", "human"]}).json()
    url = f"{ws_base(base)}/ws/tables/{t['id']}"

    async def run() -> dict[str, Any]:
        stored, refused, start = 0, 0, time.monotonic()
        while time.monotonic() - start < seconds:
            ok, errors = await _chat_burst(url, n, f"spam{stored}", 5)
            stored, refused = stored + ok, refused + len(errors)
        took = time.monotonic() - start
        _, filler = await _chat_burst(url, n + 1, "\u3164\u3164", 1)
        return {"lines_a_second": stored / took, "stored": stored, "refused": refused,
                "filler_refused": filler == ["bad_chat"]}  # fmt: skip

    return asyncio.run(run())


def test_reconnecting_does_not_reset_the_chat_allowance(server: ServerProcess) -> None:
    with beside_a_victim(server, "chat reconnects") as victim:
        got = chat_reconnects(server.base, 11, seconds=4.0)
    victim.check("chat reconnects")
    print(f"\nchat reconnects: {got}")
    assert got["stored"] <= 5 + 4.0 / 2 + 2, got  # five at once, then one every two seconds
    assert got["filler_refused"], got


# -- reads -----------------------------------------------------------------------------------------
def read_flood(base: str, n: int, other: int, requests: int) -> dict[str, Any]:
    """``requests`` leaderboard and health reads from one address, sixteen at a time: its answers,
    and another address's read afterwards."""
    codes: collections.Counter[int] = collections.Counter()

    async def run() -> None:
        async with aclient(base, n) as c:

            async def reader(k: int) -> None:
                for i in range(k, requests, 16):
                    r = await c.get("/api/leaderboard/penneech" if i % 2 else "/api/health")
                    codes[r.status_code] += 1

            await asyncio.gather(*(reader(k) for k in range(16)))

    asyncio.run(run())
    with client(base, other) as c:
        others = c.get("/api/leaderboard/penneech").status_code
    return {"answers": dict(codes), "other_address": others}


def test_reads_are_rate_limited_per_address(server: ServerProcess) -> None:
    with beside_a_victim(server, "read flood") as victim:
        got = read_flood(server.base, 12, 13, 800)
    victim.check("read flood")
    print(f"\nread flood: {got}")
    assert got["answers"].get(429, 0) >= 100 and got["other_address"] == 200, got


# -- reviews ---------------------------------------------------------------------------------------
def review_flood(base: str, n: int, other: int, asks: int) -> dict[str, Any]:
    """``asks`` reviews of finished bot tables from one address, then one from another address."""
    body = {"game": "penneech", "seats": ["random", "random"], "options": {"objective": "deal"}}
    with client(base, n) as c:
        ids = [c.post("/api/tables", json=body).json()["id"] for _ in range(asks + 1)]
        for tid in ids:
            end = time.monotonic() + 60
            while c.get(f"/api/tables/{tid}").json()["status"] != "over":
                assert time.monotonic() < end
                time.sleep(0.1)
        mine = [c.post(f"/api/tables/{tid}/review", json={"seat": 0}).status_code for tid in ids[:asks]]
    with client(base, other) as c:
        theirs = c.post(f"/api/tables/{ids[-1]}/review", json={"seat": 0}).status_code
    return {"one_address": mine, "another_address": theirs, "tables": ids}


def test_one_address_cannot_fill_the_review_line(server: ServerProcess) -> None:
    got = review_flood(server.base, 14, 15, 4)
    print(f"\nreview flood: {got}")
    assert got["one_address"] == [202, 202, 429, 429] and got["another_address"] == 202, got
    with client(server.base, 15) as c:  # each review keeps to its budget (3 s here) and ends
        end = time.monotonic() + 120
        while (r := c.get(f"/api/tables/{got['tables'][-1]}/review?seat=0").json())["status"] == "working":
            assert time.monotonic() < end, "the review never ended"
            time.sleep(0.2)
        assert r["status"] == "done" and "summary" in r, r


# -- tokens ----------------------------------------------------------------------------------------
def test_a_password_change_closes_the_sockets_of_the_old_seat_tokens(server: ServerProcess) -> None:
    """A stolen seat token stops working when the account's owner changes the password or logs out
    everywhere: its sockets are closed (1008), it is refused, and the owner's rejoin gets a new one."""
    sign_up(server.base, 16, "Tok")
    headers = session(server.base, 16, "Tok")

    async def run() -> None:
        with client(server.base, 16) as c:
            body = {"game": "penneech", "seats": ["human", "human"], "join": {"seat": 0, "name": "x"}}
            t = c.post("/api/tables", headers=headers, json=body).json()
            old = t["token"]
            thief = await WsClient.open(server.ws_base, t["id"], old, "thief")
            await thief.view()
            r = c.post("/api/me/password", headers=headers, json={"old": PASSWORD, "new": PASSWORD + "!"})
            assert r.status_code == 200, r.text
            assert await thief.closed_code(10) == 1008, "the old token's socket is closed"
            again = c.post(f"/api/tables/{t['id']}/join", headers=headers, json={"seat": 0})
            new = again.json()["token"]
            assert again.status_code == 200 and new != old, again.text
            refused = await WsClient.open(server.ws_base, t["id"], old, "thief again")
            assert await refused.closed_code(10) == 1008
            mine = await WsClient.open(server.ws_base, t["id"], new, "owner")
            await mine.view()
            out = c.request("DELETE", "/api/session?everywhere=true", headers=headers)
            assert out.status_code == 200
            assert await mine.closed_code(10) == 1008, "log out everywhere voids the seat tokens too"

    asyncio.run(run())


# -- measuring another tree --------------------------------------------------------------------------
def measure(base: str) -> dict[str, Any]:
    """Every attack above against the server at ``base`` (no victim, no assertion): what it achieves."""
    out: dict[str, Any] = {}
    out["login_flood"] = login_flood(base, flooders=[2, 3, 4, 5, 6], in_flight=20, calm=7)
    out["lockout"] = lockout(base, owner_at=8, attacker_at=8, elsewhere=9)
    out["rematch_chain"] = rematch_chain(base, 10, seconds=6.0, chains=3)
    out["chat"] = chat_reconnects(base, 11, seconds=4.0)
    out["reads"] = read_flood(base, 12, 13, 800)
    out["reviews"] = {k: v for k, v in review_flood(base, 14, 15, 4).items() if k != "tables"}
    return out


if __name__ == "__main__":
    # python -m tests.test_web_fair_play [--tree DIR]: the attacks against a server of DIR's src (or
    # of this tree), with the module's limits; prints what each achieved as JSON.
    import tempfile

    tree = sys.argv[sys.argv.index("--tree") + 1] if "--tree" in sys.argv else None
    tmp = Path(tempfile.mkdtemp(prefix="fair-"))
    new = ("requests_per_second", "request_burst")  # limits a tree of before may not know
    (tmp / "limits.json").write_text(
        json.dumps({k: v for k, v in LIMITS.items() if not tree or k not in new})
    )
    env = dict(ENV, **({"PYTHONPATH": str(Path(tree) / "src")} if tree else {}))
    with ServerProcess(
        sqlite_url(tmp), log_dir=tmp, limits=str(tmp / "limits.json"), env=env, port=free_port()
    ) as srv:
        print(json.dumps(measure(srv.base), indent=1))
