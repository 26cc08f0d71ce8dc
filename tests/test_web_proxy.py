"""A public server behind a real reverse proxy (docs/deploy.md): Debian's nginx with TLS in front of
``gamester serve --trusted-proxy 127.0.0.1 --log-format json``, clients on distinct loopback
addresses (each client socket bound to its own source address).

- a game is played through the proxy over HTTPS and a secure WebSocket, watched by a spectator;
- each client counts against its own quota: one reaches its tables-a-minute quota, the other does
  not; a header forged through the proxy changes nothing;
- a client that reaches the server directly is not believed when it forges ``X-Forwarded-For``
  (before: uvicorn believed any client on 127.0.0.1, issue 44);
- over HTTPS the session cookie is ``__Host-gamester_session`` and ``Secure``; directly over HTTP it
  is ``gamester_session``, not Secure;
- ``/metrics`` parses with prometheus_client's own parser, its counters move with the game, and it
  is refused to an address not allowed; the JSON log parses line by line and holds no token,
  password, invite code, session or card the spectator never saw.
"""

from __future__ import annotations

import asyncio
import json
import random
import ssl
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.proxy_support import Nginx
from tests.web_support import Json, ServerProcess, WsClient, card_codes, sqlite_url

pytestmark = pytest.mark.slow

PER_MINUTE = 3


class Site:
    def __init__(self, server: ServerProcess, nginx: Nginx) -> None:
        self.server = server
        self.nginx = nginx

    def via_proxy(self, source: str) -> httpx.Client:
        """A client of the proxy whose socket leaves from ``source``."""
        transport = httpx.HTTPTransport(local_address=source, verify=self.ssl())
        return httpx.Client(base_url=self.nginx.base, transport=transport, timeout=30)

    def direct(self, source: str) -> httpx.Client:
        transport = httpx.HTTPTransport(local_address=source)
        return httpx.Client(base_url=self.server.base, transport=transport, timeout=30)

    def ssl(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.nginx.cert))

    def metrics(self) -> dict[str, float]:
        r = httpx.get(f"{self.server.base}/metrics", timeout=30)
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].startswith("text/plain")
        out: dict[str, float] = {}
        for family in text_string_to_metric_families(r.text):
            for s in family.samples:
                labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
                out[f"{s.name}{{{labels}}}" if labels else s.name] = s.value
        return out

    def log_lines(self) -> list[Json]:
        """Every line the server wrote after start-up, each parsed as JSON (a line that is not is
        a failure)."""
        text = self.server.log_text()
        lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("===== start")]
        out = []
        for ln in lines:
            try:
                obj = json.loads(ln)
            except ValueError:
                raise AssertionError(f"not a JSON line in the log: {ln[:200]!r}") from None
            assert isinstance(obj, dict) and "event" in obj or "message" in obj, ln[:200]
            out.append(obj)
        return out


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    d = tmp_path_factory.mktemp("proxy")
    limits = d / "limits.json"
    limits.write_text(json.dumps({"tables_per_minute": PER_MINUTE}))
    server = ServerProcess(
        sqlite_url(d),
        log_dir=d,
        limits=str(limits),
        args=[
            "--trusted-proxy",
            "127.0.0.1",
            "--trusted-proxy",
            "127.0.0.5",  # a second proxy: a test speaks as it, forging whom it forwards for
            "--metrics-allow",
            "198.51.100.0/24",
            "--log-format",
            "json",
        ],
    )
    server.start()
    (d / "nginx").mkdir()
    nginx = Nginx(d / "nginx", server.port)
    nginx.start()
    try:
        yield Site(server, nginx)
    finally:
        nginx.stop()
        server.stop()


@pytest.fixture(scope="module")
def night(site: Site) -> Json:
    """One game through the proxy: an account logs in over HTTPS, makes a table against a bot,
    plays it to the end over a secure WebSocket while a spectator watches. Returns every secret it
    used and everything the spectator saw, with the metrics before and after."""
    before = site.metrics()
    password = "correct horse battery " + str(random.randrange(10**6))
    with site.via_proxy("127.0.0.6") as c:
        r = c.post("/api/accounts", json={"name": "proxied_ann", "password": password})
        assert r.status_code == 201, r.text
        r = c.post("/api/session", json={"name": "proxied_ann", "password": password})
        assert r.status_code == 200, r.text
        session = r.json()["session"]
        cookie = r.headers["set-cookie"]
        assert c.get("/api/me").status_code == 200  # the __Host- cookie is read back over https
        r = c.post(
            "/api/tables",
            json={
                "game": "penneech",
                "seats": ["human", "random"],
                "join": {"seat": 0, "name": "Ann"},
            },
        )
        assert r.status_code == 201, r.text
        table = r.json()

    async def play() -> tuple[list[Json], list[Json]]:
        rng = random.Random(5)
        seat = await WsClient.open(site.nginx.ws_base, table["id"], table["token"], "seat", ssl=site.ssl())
        spectator = await WsClient.open(site.nginx.ws_base, table["id"], None, "spectator", ssl=site.ssl())
        try:
            while True:
                msg = await seat.recv(60)
                assert msg["type"] != "error", msg
                if msg["type"] != "view":
                    continue
                if msg["status"] == "over":
                    break
                if msg["legal"]:
                    await seat.send({"type": "act", "action": rng.choice(msg["legal"]), "seq": msg["seq"]})
            while True:
                msg = await spectator.recv(60)
                if msg["type"] == "view" and msg["status"] == "over":
                    break
        finally:
            await seat.close()
            await spectator.close()
        return seat.messages, spectator.messages

    seat_msgs, seen = asyncio.run(play())
    record = httpx.get(f"{site.server.base}/api/tables/{table['id']}/record", timeout=30).json()
    # What a spectator there from the first deal saw: the replay as a spectator (docs/web.md).
    replay = httpx.get(f"{site.server.base}/api/tables/{table['id']}/replay", timeout=30).json()
    assert len(replay["steps"]) == len(record["actions"]) + 1
    return {
        "table": table,
        "password": password,
        "session": session,
        "cookie": cookie,
        "record": record,
        "seat": seat_msgs,
        "seen": [seen, replay],
        "before": before,
        "after": site.metrics(),
    }


def test_a_game_plays_through_the_proxy_with_a_secure_cookie(night: Json) -> None:
    assert night["seat"][-1]["status"] == "over"
    assert night["record"]["actions"], night["record"]
    cookie = night["cookie"]
    assert cookie.startswith("__Host-gamester_session="), cookie
    flags = {part.strip().lower() for part in cookie.split(";")}
    assert {"secure", "httponly", "path=/"} <= flags, cookie
    assert not any(f.startswith("domain=") for f in flags), cookie


def test_a_direct_http_log_in_gets_the_plain_cookie(site: Site) -> None:
    with site.direct("127.0.0.7") as c:
        assert c.post(
            "/api/accounts", json={"name": "direct_bo", "password": "a long passphrase 1"}
        ).is_success
        r = c.post("/api/session", json={"name": "direct_bo", "password": "a long passphrase 1"})
        assert r.status_code == 200, r.text
        cookie = r.headers["set-cookie"]
        assert cookie.startswith("gamester_session=") and "secure" not in cookie.lower(), cookie
        # The plain cookie means nothing over https (another port of the host could have set it).
        session = r.json()["session"]
    with site.via_proxy("127.0.0.7") as c:
        c.cookies.set("gamester_session", session)
        assert c.get("/api/me").status_code == 401


def _make_tables(c: httpx.Client, n: int, headers: dict[str, str] | None = None) -> list[int]:
    codes = []
    for i in range(n):
        h = dict(headers or {})
        if "X-Forwarded-For" in h:
            h["X-Forwarded-For"] = h["X-Forwarded-For"].format(i=i)
        r = c.post("/api/tables", json={"game": "penneech", "seats": ["random", "random"]}, headers=h)
        codes.append(r.status_code)
        if r.status_code == 429:
            assert r.json()["error"] == "rate_limited"
    return codes


def test_each_client_behind_the_proxy_has_its_own_quota(site: Site) -> None:
    with site.via_proxy("127.0.0.2") as a, site.via_proxy("127.0.0.3") as b:
        # A forges a different address on every request: the proxy appends the real one, and the
        # server takes the right-most hop that is not a trusted proxy.
        codes = _make_tables(a, PER_MINUTE + 2, {"X-Forwarded-For": "203.0.113.{i}"})
        assert codes == [201] * PER_MINUTE + [429, 429], codes
        assert _make_tables(b, 1) == [201]  # B is not A, though both come through the same proxy
    # Each request's line is written once its answer has gone: wait for the last one.
    deadline = time.monotonic() + 30
    while True:
        clients = {ln.get("client") for ln in site.log_lines() if ln.get("path") == "/api/tables"}
        if {"127.0.0.2", "127.0.0.3"} <= clients or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert {"127.0.0.2", "127.0.0.3"} <= clients and not any(str(c).startswith("203.") for c in clients)


def test_a_direct_client_cannot_forge_its_address(site: Site) -> None:
    # 127.0.0.4 is no trusted proxy: its X-Forwarded-For is ignored, however it changes.
    with site.direct("127.0.0.4") as c:
        codes = _make_tables(c, PER_MINUTE + 2, {"X-Forwarded-For": "198.51.100.{i}"})
    assert codes == [201] * PER_MINUTE + [429, 429], codes


def test_metrics_parse_and_move_with_the_game(night: Json) -> None:
    before, after = night["before"], night["after"]

    def grew(key: str) -> float:
        return after.get(key, 0.0) - before.get(key, 0.0)

    moves = len(night["record"]["actions"])
    acts = sum(1 for m in night["seat"] if m["type"] == "view" and m["legal"] and m["status"] == "playing")
    assert grew("gamester_table_events_total{event=moved}") >= moves
    assert grew("gamester_table_events_total{event=created}") >= 1
    assert grew("gamester_table_events_total{event=ended}") >= 1
    assert 1 <= grew("gamester_action_seconds_count") <= acts
    assert grew("gamester_sockets_opened_total") >= 2
    assert grew("gamester_http_requests_total{code=201}") >= 2  # the account and the table
    assert "gamester_tables{status=over}" in after
    for name in (
        "gamester_open_sockets",
        "gamester_thinking{kind=bot}",
        "gamester_hashes_waiting",
        "gamester_reviews_queued",
        "gamester_seeks",
    ):
        assert name in after, sorted(after)
    assert "gamester_database_errors_total" not in after or after["gamester_database_errors_total"] == 0


def test_tables_by_status_follow_the_database(site: Site, night: Json) -> None:
    # Counted in the database at most every few seconds: wait for the next count.
    deadline = time.monotonic() + 30
    while site.metrics()["gamester_tables{status=over}"] < 1:
        assert time.monotonic() < deadline, "gamester_tables{status=over} never counted the game"
        time.sleep(0.5)


def test_metrics_are_refused_to_an_address_not_allowed(site: Site) -> None:
    # Through nginx: the site's own rule hides /metrics from the internet.
    with site.via_proxy("127.0.0.2") as c:
        assert c.get("/metrics").status_code == 404
    # A trusted proxy forwarding for an outside address: refused, unless --metrics-allow names it.
    with site.direct("127.0.0.5") as c:
        r = c.get("/metrics", headers={"X-Forwarded-For": "203.0.113.9"})
        assert r.status_code == 403 and r.json()["error"] == "not_allowed", r.text
        r = c.get("/metrics", headers={"X-Forwarded-For": "198.51.100.7"})
        assert r.status_code == 200 and "gamester_http_requests_total" in r.text
    # A proxy nobody trusts cannot make its clients look local.
    with site.direct("127.0.0.4") as c:
        assert c.get("/metrics", headers={"X-Forwarded-For": "127.0.0.1"}).status_code == 403
        assert c.get("/metrics").status_code == 200  # the loopback itself is allowed


def _hidden_cards(night: Json) -> set[str]:
    """The cards of the record that a spectator never saw (from the first deal to the end)."""
    dealt: set[str] = set()
    for entry in night["record"]["chance"]:
        dealt |= card_codes(entry)
    return dealt - card_codes(night["seen"])


def test_the_json_log_holds_no_secret_and_no_hidden_card(site: Site, night: Json) -> None:
    lines = site.log_lines()
    text = "\n".join(json.dumps(ln) for ln in lines)
    raw = site.server.log_text()
    table = night["table"]
    secrets: dict[str, Any] = {
        "password": night["password"],
        "session": night["session"],
        "token": table["token"],
        **{f"invite {k}": v for k, v in table.get("invites", {}).items()},
    }
    for what, value in secrets.items():
        assert value and value not in raw, f"the log holds the {what}"
    hidden = _hidden_cards(night)
    assert hidden, "the game left no card unseen: nothing to look for"  # the stock's last cards
    leaked = set()
    for ln in lines:
        if ln.get("table") in (None, table["id"]):  # other tables dealt other cards
            leaked |= card_codes(ln) & hidden
    assert not leaked, f"hidden cards in the log: {sorted(leaked)}"
    events = {ln.get("event") for ln in lines if ln.get("table") == table["id"]}
    assert {"created", "moved", "ended"} <= events, events
    assert any(ln.get("event") == "request" and ln.get("client") == "127.0.0.6" for ln in lines)
    assert "?token" not in text and "?invite" not in text
    assert Path(site.server.log_path).exists()
