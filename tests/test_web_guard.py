"""The names and sites a server answers (web/guard.py, web/server.py's ``answers_to``; issue 22):
``--allow-origin`` lets another site's pages in, and a server on the loopback answers only to
``localhost``, addresses in digits and ``--allow-host``'s names, so that no page rebound to 127.0.0.1
(DNS rebinding) reaches it."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from gamester.web import create_app  # noqa: E402
from gamester.web.guard import hostname  # noqa: E402
from gamester.web.limits import OFF  # noqa: E402
from gamester.web.server import answers_to  # noqa: E402

BODY = {"game": "penneech", "seats": ["human", "random"]}


def test_hostname_drops_the_port_and_case() -> None:
    assert hostname("Games.Example.org:8443") == "games.example.org"
    assert hostname("example.org.") == "example.org"
    assert hostname("[::1]:8000") == "::1" and hostname("::1") == "::1"
    assert hostname("127.0.0.1:80") == "127.0.0.1" and hostname("") == ""


def test_which_names_a_server_answers_to() -> None:
    assert answers_to("127.0.0.1", []) == {"localhost"}
    assert answers_to("::1", ["Games.example.org"]) == {"localhost", "games.example.org"}
    assert answers_to("localhost", []) == {"localhost"}
    assert answers_to("0.0.0.0", []) is None, "a public address: any name (its own, or a proxy's)"
    assert answers_to("0.0.0.0", ["games.example.org"]) == {"localhost", "games.example.org"}


def test_the_host_check_refuses_a_rebound_name_and_takes_the_allowed_ones(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path}/g.db", limits=OFF, allow_hosts=["localhost", "games.example.org"])
    with TestClient(app, base_url="http://localhost:8000") as c:
        evil = {"host": "evil.example:8000", "origin": "http://evil.example:8000"}
        r = c.post("/api/tables", json=BODY, headers=evil)
        assert r.status_code == 403 and r.json()["error"] == "bad_host"
        assert c.get("/api/health", headers={"host": "evil.example"}).status_code == 403
        for host in ("localhost:8000", "127.0.0.1:8000", "[::1]:8000", "10.1.2.3", "GAMES.example.org"):
            assert c.get("/api/health", headers={"host": host}).status_code == 200, host
        table = c.post("/api/tables", json=BODY).json()["id"]
        with (
            pytest.raises(WebSocketDisconnect) as closed,
            c.websocket_connect(f"/ws/tables/{table}", headers=evil),
        ):
            pass
        assert closed.value.code == 1008 and closed.value.reason == "bad_host"


def test_allow_origin_lets_that_site_in_and_no_other(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path}/o.db", limits=OFF, allow_origins=["https://friend.example"])
    with TestClient(app) as c:
        ok = c.post("/api/tables", json=BODY, headers={"origin": "https://friend.example"})
        assert ok.status_code == 201
        other = c.post("/api/tables", json=BODY, headers={"origin": "https://other.example"})
        assert other.status_code == 403 and other.json()["error"] == "bad_origin"
        own = c.post("/api/tables", json=BODY, headers={"origin": "http://testserver"})
        assert own.status_code == 201, "the server's own pages"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[1, 2]", "expected a JSON object of limits"),
        ('{"tables_per_minute": 0}', "tables_per_minute: expected a whole number from 1 to 100000"),
        ('{"tables_per_minute": 2.5}', "tables_per_minute: expected a whole number"),
        ('{"request_seconds": NaN}', "request_seconds: expected a number from 0.5 to 600"),
        ('{"waiting_per_address": true}', "waiting_per_address: expected a whole number"),
        ('{"per_address": "no"}', "per_address: expected true or false"),
        ('{"tables_a_minute": 3}', "unknown limit 'tables_a_minute'"),
        ("{not json", "not JSON"),
    ],
)
def test_a_bad_limits_file_is_one_line_naming_what_is_wrong(tmp_path: Path, text: str, says: str) -> None:
    from gamester.web.limits import LimitsError, load

    path = tmp_path / "limits.json"
    path.write_text(text)
    with pytest.raises(LimitsError) as bad:
        load(str(path))
    assert says in str(bad.value) and "\n" not in str(bad.value), str(bad.value)
    with pytest.raises(LimitsError, match="no such file"):
        load(str(tmp_path / "missing.json"))


def test_a_limits_file_sets_what_it_names_and_keeps_the_rest(tmp_path: Path) -> None:
    from gamester.web.limits import Limits, load

    path = tmp_path / "limits.json"
    path.write_text('{"tables_per_minute": 10, "waiting_per_address": 3, "request_seconds": 2.5}')
    got = load(str(path))
    assert (got.tables_per_minute, got.waiting_per_address, got.request_seconds) == (10, 3, 2.5)
    assert got.sockets_per_address == Limits().sockets_per_address and got.per_address
    assert load("off").per_address is False and load("default") == Limits()
