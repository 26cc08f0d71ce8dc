"""The pieces of running a public server, without a server (docs/deploy.md): who the client is
behind a proxy (web/proxy.py), who may read ``/metrics`` and what it says (web/metrics.py), and the
JSON log's lines (web/logs.py). The same things end to end, behind a real nginx, are
tests/test_web_proxy.py."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from gamester.web.logs import JsonLines
from gamester.web.metrics import ServerMetrics, allowed
from gamester.web.proxy import ProxyError, decide, parse_trusted


def scope(peer: str, *headers: tuple[str, str], scheme: str = "http") -> dict[str, Any]:
    return {
        "type": "http",
        "scheme": scheme,
        "client": (peer, 5000),
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers],
    }


TRUSTED = parse_trusted(["127.0.0.1", "10.0.0.0/8", "::1"])


@pytest.mark.parametrize(
    ("peer", "headers", "client", "https"),
    [
        # Not a trusted proxy: both headers ignored, whatever they say.
        (
            "198.51.100.7",
            [("X-Forwarded-For", "1.2.3.4"), ("X-Forwarded-Proto", "https")],
            "198.51.100.7",
            False,
        ),
        ("127.0.0.2", [("X-Forwarded-For", "1.2.3.4")], "127.0.0.2", False),
        # A trusted proxy: the right-most hop that is not a trusted proxy.
        ("127.0.0.1", [("X-Forwarded-For", "6.6.6.6, 203.0.113.9")], "203.0.113.9", False),
        ("127.0.0.1", [("X-Forwarded-For", "203.0.113.9, 10.1.2.3")], "203.0.113.9", False),  # two proxies
        (
            "127.0.0.1",
            [("X-Forwarded-For", "6.6.6.6"), ("X-Forwarded-For", "203.0.113.9")],
            "203.0.113.9",
            False,
        ),
        ("127.0.0.1", [("X-Forwarded-For", "[2001:db8::5]:4711")], "2001:db8::5", False),
        ("127.0.0.1", [("X-Forwarded-For", "203.0.113.9:4711")], "203.0.113.9", False),
        ("::1", [("X-Forwarded-For", "203.0.113.9")], "203.0.113.9", False),
        ("127.0.0.1", [("X-Forwarded-For", "unknown")], "127.0.0.1", False),  # not an address: the proxy's
        ("127.0.0.1", [("X-Forwarded-For", "10.0.0.1")], "10.0.0.1", False),  # only proxies: the left-most
        ("127.0.0.1", [], "127.0.0.1", False),
        (
            "127.0.0.1",
            [("X-Forwarded-For", "203.0.113.9"), ("X-Forwarded-Proto", "https")],
            "203.0.113.9",
            True,
        ),
        ("127.0.0.1", [("X-Forwarded-Proto", "http")], "127.0.0.1", False),
    ],
)
def test_the_client_behind_a_proxy(
    peer: str, headers: list[tuple[str, str]], client: str, https: bool
) -> None:
    found = decide(scope(peer, *headers), TRUSTED)
    assert (found.address, found.https) == (client, https)


def test_tls_on_the_server_itself_is_https() -> None:
    assert decide(scope("198.51.100.7", scheme="https"), TRUSTED).https
    assert decide(scope("198.51.100.7", ("X-Forwarded-Proto", "http"), scheme="https"), TRUSTED).https


def test_a_bad_trusted_proxy_is_one_line() -> None:
    with pytest.raises(ProxyError, match=r"--trusted-proxy 'proxy.example': expected an address"):
        parse_trusted(["proxy.example"])
    with pytest.raises(ProxyError, match=r"--metrics-allow '10.0.0.0/33'"):
        parse_trusted(["10.0.0.0/33"], "--metrics-allow")


def _decided(peer: str, *headers: tuple[str, str]) -> dict[str, Any]:
    s = scope(peer, *headers)
    found = decide(s, TRUSTED)
    return {**s, "gamester.peer": s["client"], "client": (found.address, 0)}


def test_who_may_read_the_metrics() -> None:
    allow = parse_trusted(["198.51.100.0/24"])
    assert allowed(_decided("127.0.0.1"), allow, TRUSTED)
    assert allowed(_decided("127.0.0.5"), allow, TRUSTED)  # the loopback
    assert allowed(_decided("198.51.100.9"), allow, TRUSTED)  # --metrics-allow
    assert not allowed(_decided("203.0.113.9"), allow, TRUSTED)
    # Through a trusted proxy: the client decides.
    assert not allowed(_decided("127.0.0.1", ("X-Forwarded-For", "203.0.113.9")), allow, TRUSTED)
    assert allowed(_decided("127.0.0.1", ("X-Forwarded-For", "198.51.100.4")), allow, TRUSTED)
    # Through a proxy nobody trusts, the forwarded request is refused even from the loopback.
    assert not allowed(_decided("127.0.0.2", ("X-Forwarded-For", "127.0.0.1")), allow, TRUSTED)
    assert not allowed({"type": "http", "client": ("testclient", 1), "headers": []}, allow, TRUSTED)


def test_metrics_text_parses_and_probes_can_be_replaced() -> None:
    m = ServerMetrics()
    m.requests.labels("200").inc(3)
    m.refusals.labels("rate_limited", "http").inc()
    m.action_seconds.observe(0.004)
    m.probe("seeks", "Open quick-play seeks", lambda: 7)
    m.probe("thinking", "Bots and hints", lambda: {"bot": 2, "hint": 1})
    m.probe("broken", "A probe that fails", lambda: 1 / 0)  # shows nothing, breaks nothing
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for fam in text_string_to_metric_families(m.text().decode())
        for s in fam.samples
    }
    assert samples[("gamester_http_requests_total", (("code", "200"),))] == 3
    assert samples[("gamester_refusals_total", (("code", "rate_limited"), ("via", "http")))] == 1
    assert samples[("gamester_action_seconds_bucket", (("le", "0.005"),))] == 1
    assert samples[("gamester_seeks", ())] == 7
    assert samples[("gamester_thinking", (("kind", "bot"),))] == 2
    assert samples[("gamester_tables", (("status", "playing"),))] == 0  # every status, 0 until counted
    assert not any(name.startswith("gamester_broken") for name, _ in samples)
    assert not any(name.endswith("_created") for name, _ in samples)


def test_a_json_log_line_is_one_object() -> None:
    fmt = JsonLines()
    record = logging.LogRecord("gamester.requests", logging.INFO, __file__, 1, "request", None, None)
    record.fields = {"event": "request", "path": "/api/tables", "status": 201}
    line = fmt.format(record)
    assert "\n" not in line
    data = json.loads(line)
    assert data["event"] == "request" and data["level"] == "info" and data["time"].endswith("Z")
    warning = logging.LogRecord(
        "gamester.web", logging.WARNING, __file__, 1, "lease round failed: %s", ("X",), None
    )
    assert json.loads(fmt.format(warning))["message"] == "lease round failed: X"
