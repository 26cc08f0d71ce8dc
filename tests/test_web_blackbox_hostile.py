"""Hostile clients against a real ``gamester serve`` (issue 10, docs/web.md).

Every malformed or malicious WebSocket message must get ``{"type": "error"}`` or a clean close (1000,
1003, 1008, 1009) and change nothing: after each case a fresh connection of the same seat must see the
same ``seq`` and the same view. A wrong token is refused (close 1008, or a refused handshake), never taken
for a spectator. Every bad HTTP request gets a 4xx with a JSON body, never a 5xx, and never a success.

Positive controls keep these tests honest: the seat on turn can still act with a correct message at the
end, and the good requests next to each bad one succeed.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tests.web_support import Api, ServerProcess, WsClient, open_table, sqlite_url

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

CLEAN_CLOSES = {1000, 1003, 1008, 1009}


@dataclass
class Tally:
    cases: int = 0
    errors: int = 0
    closes: int = 0
    failures: list[str] = field(default_factory=list)

    def report(self, what: str) -> None:
        print(
            f"\n{what}: {self.cases} cases, {self.errors} answered with an error, "
            f"{self.closes} closed cleanly, {len(self.failures)} failed"
        )
        assert not self.failures, f"{len(self.failures)} of {self.cases} {what} cases failed:\n" + "\n".join(
            self.failures
        )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory: Path = tmp_path_factory.mktemp("hostile")
    with ServerProcess(sqlite_url(directory), log_dir=directory) as srv:
        yield srv


@pytest.fixture(scope="module")
def api(server: ServerProcess) -> Iterator[Api]:
    client = Api(server.base)
    yield client
    client.close()


async def seat_state(server: ServerProcess, table_id: str, token: str | None) -> tuple[int, Any, list[str]]:
    """(seq, view, legal) as a fresh connection of that seat (or a spectator) sees it on connect."""
    client = await WsClient.open(server.ws_base, table_id, token)
    try:
        msg = await client.current_view()
        return msg["seq"], msg["view"], msg["legal"]
    finally:
        await client.close()


async def outcome(client: WsClient, timeout: float = 8.0) -> tuple[str, Any]:
    """What the server did after a hostile message: ("error", msg), ("close", code), ("view", msg) …"""
    try:
        while True:
            msg = await client.recv(timeout)
            if msg["type"] in ("table", "pong"):
                continue
            return msg["type"], msg
    except ConnectionClosed:
        return "close", client.ws.close_code
    except TimeoutError:
        return "silence", None
    except (AssertionError, ValueError) as exc:
        return "garbage", str(exc)


def judge(
    tally: Tally,
    name: str,
    got: tuple[str, Any],
    before: tuple[int, Any, list[str]],
    after: tuple[int, Any, list[str]],
    want_code: str | None = None,
) -> None:
    tally.cases += 1
    kind, detail = got
    if kind == "error":
        tally.errors += 1
        if not isinstance(detail.get("code"), str) or not isinstance(detail.get("message"), str):
            tally.failures.append(f"{name}: error without code/message: {detail}")
        elif want_code is not None and detail["code"] != want_code:
            tally.failures.append(f"{name}: error code {detail['code']!r}, expected {want_code!r}")
    elif kind == "close":
        tally.closes += 1
        if detail not in CLEAN_CLOSES:
            tally.failures.append(f"{name}: closed with code {detail} (not a clean close)")
    else:
        tally.failures.append(f"{name}: got {kind} {str(detail)[:200]} instead of an error or a clean close")
    if after[0] != before[0] or after[1] != before[1]:
        tally.failures.append(f"{name}: the table changed (seq {before[0]} -> {after[0]})")


def message_cases(seq: int, legal: str, other_legal: str | None) -> list[tuple[str, str | bytes, str | None]]:
    """(name, raw payload, expected error code or None for any) for the seat on turn at ``seq``."""
    act = {"type": "act", "action": legal, "seq": seq}

    def j(obj: Any) -> str:
        return json.dumps(obj)

    def raw_seq(literal: str) -> str:
        return j({**act, "seq": "@@"}).replace('"@@"', literal)

    cases: list[tuple[str, str | bytes, str | None]] = [
        ("not json", "hello", None),
        ("empty text", "", None),
        ("truncated json", '{"type": "act", "action": ', None),
        ("json null", "null", None),
        ("json list", j([act]), None),
        ("json number", "42", None),
        ("json string", j("act"), None),
        ("no type", j({"action": legal, "seq": seq}), None),
        ("type int", j({"type": 5, "action": legal, "seq": seq}), None),
        ("type null", j({"type": None, "action": legal, "seq": seq}), None),
        ("type list", j({"type": ["act"], "action": legal, "seq": seq}), None),
        ("unknown type", j({"type": "resign", "seq": seq}), None),
        ("type wrong case", j({"type": "ACT", "action": legal, "seq": seq}), None),
        ("act without action", j({"type": "act", "seq": seq}), None),
        ("act without seq", j({"type": "act", "action": legal}), "bad_message"),
        ("seq null", j({**act, "seq": None}), "bad_message"),
        ("seq float", j({**act, "seq": float(seq)}), "bad_message"),
        ("seq float fraction", j({**act, "seq": seq + 0.5}), "bad_message"),
        ("seq string", j({**act, "seq": str(seq)}), "bad_message"),
        ("seq bool", j({**act, "seq": True}), "bad_message"),
        ("seq list", j({**act, "seq": [seq]}), "bad_message"),
        ("seq negative", j({**act, "seq": -1}), None),
        ("seq future", j({**act, "seq": seq + 1}), None),
        ("seq huge", j({**act, "seq": 2**70}), None),
        ("seq 5000 digits", raw_seq("9" * 5000), None),
        ("seq NaN", raw_seq("NaN"), None),
        ("seq Infinity", raw_seq("Infinity"), None),
        ("seq 1e400", raw_seq("1e400"), None),
        ("action int", j({**act, "action": 3}), None),
        ("action null", j({**act, "action": None}), None),
        ("action list", j({**act, "action": [legal]}), None),
        ("action dict", j({**act, "action": {"card": legal}}), None),
        ("action empty", j({**act, "action": ""}), None),
        ("action nonsense", j({**act, "action": "ZZ"}), None),
        ("action not a card of the game", j({**act, "action": "1X"}), None),
        ("action with NUL", j({**act, "action": legal + "\x00"}), None),
        ("action lone surrogate", j({**act, "action": "@@"}).replace('"@@"', '"\\ud800"'), None),
        ("action 20k chars", j({**act, "action": legal * 10_000}), None),
        ("deeply nested json", "[" * 30_000 + "]" * 30_000, None),
        (
            "deeply nested action",
            j({**act, "action": None})[:-1] + ', "x": ' + "[" * 20_000 + "]" * 20_000 + "}",
            None,
        ),
        ("duplicate keys", j({**act, "seq": "x"})[:-1] + ', "seq": "y"}', None),
        ("over 64 KiB", j({**act, "pad": "x" * 70_000}), None),
        ("1 MiB", j({**act, "pad": "x" * 2**20}), None),
        ("binary frame", b"\x00\x01\x02\xff", None),
        ("binary json", j(act).encode(), None),
        ("hint with bad seq", j({"type": "hint", "seq": "x"}), None),
    ]
    if seq > 0:
        cases.append(("stale seq", j({**act, "seq": seq - 1}), "stale"))
    if other_legal is not None and other_legal != legal:
        cases.append(("a card the seat does not hold", j({**act, "action": other_legal}), "illegal_action"))
    return cases


async def run_message_cases(server: ServerProcess, api: Api) -> Tally:
    table_id, tokens = open_table(api, "penneech", ["human", "human"])
    tally = Tally()
    states = {s: await seat_state(server, table_id, t) for s, t in tokens.items()}
    on_turn = next(s for s, st in states.items() if st[2])
    off_turn = 1 - on_turn
    # Move the game on a few plies with correct messages, so that a stale seq exists.
    for _ in range(3):
        states = {s: await seat_state(server, table_id, t) for s, t in tokens.items()}
        on_turn = next(s for s, st in states.items() if st[2])
        client = await WsClient.open(server.ws_base, table_id, tokens[on_turn])
        view = await client.current_view()
        await client.send({"type": "act", "action": view["legal"][0], "seq": view["seq"]})
        after = await client.view(view["seq"] + 1)
        assert after["type"] == "view" and after["seq"] == view["seq"] + 1, f"positive control: {after}"
        await client.close()
    states = {s: await seat_state(server, table_id, t) for s, t in tokens.items()}
    on_turn = next(s for s, st in states.items() if st[2])
    off_turn = 1 - on_turn
    before = states[on_turn]
    seq, legal = before[0], before[2][0]
    other_hand = [c for c in before[1].get("hand", []) if c not in before[2]]  # held but not legal now
    not_held = [c for c in states[off_turn][1].get("hand", [])]
    for name, payload, code in message_cases(seq, legal, not_held[0] if not_held else None):
        client = await WsClient.open(server.ws_base, table_id, tokens[on_turn], name)
        await client.current_view()
        try:
            await client.send_raw(payload)
            got = await outcome(client)
        except ConnectionClosed:
            got = ("close", client.ws.close_code)
        await client.close()
        judge(tally, f"ws {name}", got, before, await seat_state(server, table_id, tokens[on_turn]), code)
    if other_hand:
        client = await WsClient.open(server.ws_base, table_id, tokens[on_turn], "held, not legal")
        await client.current_view()
        await client.send({"type": "act", "action": other_hand[0], "seq": seq})
        judge(
            tally,
            "ws a held card the rules forbid now",
            await outcome(client),
            before,
            await seat_state(server, table_id, tokens[on_turn]),
            "illegal_action",
        )
        await client.close()
    # The seat not on turn tries the on-turn seat's legal move, and its own cards.
    for action in {legal, *(states[off_turn][1].get("hand", [])[:2])}:
        client = await WsClient.open(server.ws_base, table_id, tokens[off_turn], "off turn")
        await client.current_view()
        await client.send({"type": "act", "action": action, "seq": seq})
        judge(
            tally,
            f"ws off-turn seat plays {action}",
            await outcome(client),
            before,
            await seat_state(server, table_id, tokens[on_turn]),
            "not_your_turn",
        )
        await client.close()
    # A spectator tries to act and to ask for a hint.
    for obj in ({"type": "act", "action": legal, "seq": seq}, {"type": "hint", "seq": seq}):
        client = await WsClient.open(server.ws_base, table_id, None, "spectator")
        await client.current_view()
        await client.send(obj)
        judge(
            tally,
            f"ws spectator sends {obj['type']}",
            await outcome(client),
            before,
            await seat_state(server, table_id, tokens[on_turn]),
        )
        await client.close()
    # Positive control: the same seat, same seq, a correct message moves the game on.
    client = await WsClient.open(server.ws_base, table_id, tokens[on_turn])
    view = await client.current_view()
    assert view["seq"] == seq
    await client.send({"type": "act", "action": legal, "seq": seq})
    after = await client.view(seq + 1)
    assert after["type"] == "view" and after["seq"] == seq + 1, f"positive control after the cases: {after}"
    await client.close()
    return tally


def test_hostile_websocket_messages(server: ServerProcess, api: Api) -> None:
    tally = asyncio.run(run_message_cases(server, api))
    tally.report("hostile WebSocket messages")


async def run_flood(server: ServerProcess, api: Api) -> Tally:
    table_id, tokens = open_table(api, "penneech", ["human", "human"])
    tally = Tally()
    states = {s: await seat_state(server, table_id, t) for s, t in tokens.items()}
    on_turn = next(s for s, st in states.items() if st[2])
    before = states[on_turn]
    floods: list[tuple[str, Any]] = [
        ("flood of pings", {"type": "ping"}),
        ("flood of stale acts", {"type": "act", "action": before[2][0], "seq": before[0] + 7}),
        ("flood of garbage", "x"),
    ]
    for name, obj in floods:
        client = await WsClient.open(server.ws_base, table_id, tokens[on_turn], name)
        await client.current_view()
        closed: int | None = None
        try:
            for _ in range(120):
                await client.send_raw(obj if isinstance(obj, str) else json.dumps(obj))
        except ConnectionClosed:
            closed = client.ws.close_code
        replies = await client.quiet(1.0) if closed is None else []
        if closed is None and client.ws.close_code is not None:
            closed = client.ws.close_code
        await client.close()
        kinds = {m["type"] for m in client.messages[1:]}
        tally.cases += 1
        if closed is not None:
            tally.closes += 1
            if closed not in CLEAN_CLOSES:
                tally.failures.append(f"{name}: closed with {closed}")
        elif "error" in kinds:
            tally.errors += 1
            codes = {m.get("code") for m in client.messages if m["type"] == "error"}
            if name == "flood of pings" and "rate_limited" not in codes:
                tally.failures.append(f"{name}: 120 pings at once neither limited nor closed ({codes})")
        elif name != "flood of pings" or not replies:
            tally.failures.append(f"{name}: no error and no close ({len(replies)} replies: {kinds})")
        else:
            tally.failures.append(f"{name}: 120 messages at once were all answered, no rate limit")
        after = await seat_state(server, table_id, tokens[on_turn])
        if after[:2] != before[:2]:
            tally.failures.append(f"{name}: the table changed (seq {before[0]} -> {after[0]})")
    # Many connections at once to one table: all served, nothing changes.
    clients = await asyncio.gather(
        *(WsClient.open(server.ws_base, table_id, None, f"s{i}") for i in range(20))
    )
    views = await asyncio.gather(*(c.current_view() for c in clients))
    await asyncio.gather(*(c.close() for c in clients))
    tally.cases += 1
    if any(v["seq"] != before[0] for v in views):
        tally.failures.append("20 spectators: some saw another seq")
    assert httpx.get(f"{server.base}/api/health").json().items() >= {"ok": True, "database": "ok"}.items()
    return tally


def test_floods(server: ServerProcess, api: Api) -> None:
    tally = asyncio.run(run_flood(server, api))
    tally.report("WebSocket floods")


async def try_token(server: ServerProcess, table_id: str, token: str) -> tuple[str, Any]:
    """Connect with a token that must be refused: ("refused", code/status) or what went wrong."""
    try:
        client = await asyncio.wait_for(WsClient.open(server.ws_base, table_id, token, "bad token"), 8)
    except InvalidStatus as exc:
        return "refused-handshake", exc.response.status_code
    except TimeoutError:
        return "no answer", "the opening handshake got no answer within 8 s"
    code = await client.closed_code(8.0)
    views = [m for m in client.messages if m.get("type") == "view"]
    if views:
        return "taken", f"received a view (seat {views[0].get('seat')}) before close {code}"
    if code is None:
        await client.close()
        return "open", "connection stayed open"
    return "closed", code


async def run_tokens(server: ServerProcess, api: Api) -> Tally:
    table_id, tokens = open_table(api, "penneech", ["human", "human"])
    other_id, other_tokens = open_table(api, "penneech", ["human", "heuristic"])
    tally = Tally()
    before = await seat_state(server, table_id, tokens[0])
    good = tokens[0]
    flipped = good[:-1] + ("A" if good[-1] != "A" else "B")
    bad = {
        "empty token": (table_id, ""),
        "short token": (table_id, "x"),
        "one character changed": (table_id, flipped),
        "prefix of the token": (table_id, good[: len(good) // 2]),
        "token plus a character": (table_id, good + "A"),
        "another table's token": (table_id, other_tokens[0]),
        "token in upper case": (table_id, good.upper() if good.upper() != good else good.lower() + "x"),
        "10k-character token": (table_id, "A" * 10_000),
        "url-encoded junk": (table_id, "%00%ff%2F..%2F"),
        "good token, unknown table": ("no-such-table", good),
        "good token, other table": (other_id, good),
    }
    for name, (tid, token) in bad.items():
        tally.cases += 1
        kind, detail = await try_token(server, tid, token)
        if kind == "closed" and detail == 1008 or kind == "refused-handshake" and 400 <= detail < 500:
            tally.closes += 1
        else:
            tally.failures.append(f"wrong token ({name}): {kind} {detail}; refused: close 1008")
    after = await seat_state(server, table_id, tokens[0])
    if after[:2] != before[:2]:
        tally.failures.append("the table changed after the wrong tokens")
    # Positive control: the right token is accepted as that seat.
    client = await WsClient.open(server.ws_base, table_id, good)
    view = await client.current_view()
    await client.close()
    assert view.get("seat", 0) == 0 and "hand" in view["view"], f"right token: {view}"
    return tally


def test_wrong_tokens_are_refused(server: ServerProcess, api: Api) -> None:
    tally = asyncio.run(run_tokens(server, api))
    tally.report("wrong tokens")


async def run_waiting_table(server: ServerProcess, api: Api) -> Tally:
    table = api.create_table("penneech", ["human", "human"])
    token = api.join(table["id"], 0, "early")
    tally = Tally()
    client = await WsClient.open(server.ws_base, table["id"], token)
    view = await client.current_view()
    assert view["status"] == "waiting" and view["legal"] == [], view
    hand = view["view"].get("hand") or ["AS"]
    await client.send({"type": "act", "action": hand[0], "seq": 0})
    got = await outcome(client)
    await client.close()
    judge(
        tally,
        "act at a waiting table",
        got,
        (0, view["view"], []),
        await seat_state(server, table["id"], token),
    )
    return tally


def test_acting_at_a_waiting_table(server: ServerProcess, api: Api) -> None:
    tally = asyncio.run(run_waiting_table(server, api))
    tally.report("waiting table")


# -- HTTP -----------------------------------------------------------------------------------------------

GOOD: dict[str, Any] = {"game": "penneech", "options": {}, "seats": ["human", "heuristic"], "clock": None}


def bad_http_cases(table_id: str, bot_table_id: str, token: str) -> list[tuple[str, str, str, Any]]:
    """(name, method, path, body); body is a dict (sent as JSON), a str/bytes (sent raw) or None."""
    t = f"/api/tables/{table_id}"
    cases: list[tuple[str, str, str, Any]] = [
        ("unknown api path", "GET", "/api/nope", None),
        ("unknown deep path", "GET", "/api/tables/x/y/z", None),
        ("unknown table", "GET", "/api/tables/does-not-exist", None),
        ("sql-looking id", "GET", "/api/tables/1'%20OR%20'1'='1", None),
        ("very long id", "GET", "/api/tables/" + "a" * 5000, None),
        ("dot-dot id", "GET", "/api/tables/..%2F..%2Fetc%2Fpasswd", None),
        ("record of unknown table", "GET", "/api/tables/nope/record", None),
        ("record before the end", "GET", f"{t}/record", None),
        ("join unknown table", "POST", "/api/tables/nope/join", {"seat": 0, "name": "x"}),
        ("wrong method on health", "POST", "/api/health", {}),
        ("wrong method on tables", "DELETE", "/api/tables", None),
        ("wrong method on a table", "PUT", t, {"x": 1}),
        ("create: not json", "POST", "/api/tables", "this is not json"),
        ("create: empty body", "POST", "/api/tables", ""),
        ("create: truncated json", "POST", "/api/tables", '{"game": "penneech", '),
        ("create: json list", "POST", "/api/tables", "[]"),
        ("create: json null", "POST", "/api/tables", "null"),
        ("create: json string", "POST", "/api/tables", '"penneech"'),
        ("create: binary junk", "POST", "/api/tables", b"\xff\xfe\x00\x01"),
        ("create: deeply nested", "POST", "/api/tables", "[" * 30_000 + "]" * 30_000),
        (
            "create: NaN clock",
            "POST",
            "/api/tables",
            '{"game": "penneech", "seats": ["human", "random"], "clock": {"seconds_per_move": NaN, '
            '"on_timeout": "bot"}}',
        ),
        ("create: body over 64 KiB", "POST", "/api/tables", {**GOOD, "pad": "x" * 100_000}),
        ("create: body of 2 MiB", "POST", "/api/tables", {**GOOD, "pad": "x" * 2**21}),
        ("create: no game", "POST", "/api/tables", {"seats": ["human", "random"]}),
        ("create: game int", "POST", "/api/tables", {**GOOD, "game": 5}),
        ("create: game null", "POST", "/api/tables", {**GOOD, "game": None}),
        ("create: unknown game", "POST", "/api/tables", {**GOOD, "game": "chess"}),
        ("create: empty game", "POST", "/api/tables", {**GOOD, "game": ""}),
        ("create: game spec syntax", "POST", "/api/tables", {**GOOD, "game": "penneech(target="}),
        ("create: game spec bad option", "POST", "/api/tables", {**GOOD, "game": "penneech(nope=1)"}),
        ("create: options a list", "POST", "/api/tables", {**GOOD, "options": ["ruleset"]}),
        ("create: options a string", "POST", "/api/tables", {**GOOD, "options": "ruleset=cotton"}),
        ("create: unknown option", "POST", "/api/tables", {**GOOD, "options": {"nope": 1}}),
        ("create: unknown rule set", "POST", "/api/tables", {**GOOD, "options": {"ruleset": "nope"}}),
        ("create: option bad value", "POST", "/api/tables", {**GOOD, "options": {"target": "abc"}}),
        ("create: option wrong type", "POST", "/api/tables", {**GOOD, "options": {"target": [1, 2]}}),
        ("create: option object", "POST", "/api/tables", {**GOOD, "options": {"target": {"x": 1}}}),
        ("create: bad choice", "POST", "/api/tables", {**GOOD, "options": {"redeal": "always"}}),
        ("create: seats missing", "POST", "/api/tables", {"game": "penneech"}),
        ("create: seats a string", "POST", "/api/tables", {**GOOD, "seats": "human"}),
        ("create: seats empty", "POST", "/api/tables", {**GOOD, "seats": []}),
        ("create: too few seats", "POST", "/api/tables", {**GOOD, "seats": ["human"]}),
        ("create: too many seats", "POST", "/api/tables", {**GOOD, "seats": ["human", "human", "human"]}),
        ("create: 10k seats", "POST", "/api/tables", {**GOOD, "seats": ["random"] * 10_000}),
        ("create: seat int", "POST", "/api/tables", {**GOOD, "seats": ["human", 5]}),
        ("create: seat null", "POST", "/api/tables", {**GOOD, "seats": ["human", None]}),
        ("create: seat object", "POST", "/api/tables", {**GOOD, "seats": ["human", {"agent": "random"}]}),
        ("create: unknown agent", "POST", "/api/tables", {**GOOD, "seats": ["human", "nonexistent"]}),
        ("create: empty agent", "POST", "/api/tables", {**GOOD, "seats": ["human", ""]}),
        (
            "create: agent bad parameter",
            "POST",
            "/api/tables",
            {**GOOD, "seats": ["human", "ismcts:iterations=abc"]},
        ),
        (
            "create: agent unknown parameter",
            "POST",
            "/api/tables",
            {**GOOD, "seats": ["human", "random:zzz=1"]},
        ),
        (
            "create: agent negative budget",
            "POST",
            "/api/tables",
            {**GOOD, "seats": ["human", "ismcts:iterations=-5"]},
        ),
        ("create: agent spec junk", "POST", "/api/tables", {**GOOD, "seats": ["human", "::=,,"]}),
        (
            "create: players option vs seats",
            "POST",
            "/api/tables",
            {
                "game": "piquesept",
                "options": {"players": 3},
                "seats": ["human", "random", "random", "random"],
            },
        ),
        ("create: clock a string", "POST", "/api/tables", {**GOOD, "clock": "fast"}),
        ("create: clock a number", "POST", "/api/tables", {**GOOD, "clock": 30}),
        ("create: clock no seconds", "POST", "/api/tables", {**GOOD, "clock": {"on_timeout": "bot"}}),
        (
            "create: clock negative",
            "POST",
            "/api/tables",
            {**GOOD, "clock": {"seconds_per_move": -1, "on_timeout": "bot"}},
        ),
        (
            "create: clock zero",
            "POST",
            "/api/tables",
            {**GOOD, "clock": {"seconds_per_move": 0, "on_timeout": "bot"}},
        ),
        (
            "create: clock string seconds",
            "POST",
            "/api/tables",
            {**GOOD, "clock": {"seconds_per_move": "30", "on_timeout": "bot"}},
        ),
        (
            "create: clock 1e308",
            "POST",
            "/api/tables",
            {**GOOD, "clock": {"seconds_per_move": 1e308, "on_timeout": "bot"}},
        ),
        (
            "create: clock bad on_timeout",
            "POST",
            "/api/tables",
            {**GOOD, "clock": {"seconds_per_move": 30, "on_timeout": "explode"}},
        ),
        ("create: form-encoded", "POST", "/api/tables", "game=penneech&seats=human"),
        ("join: not json", "POST", f"{t}/join", "seat=0"),
        ("join: no seat", "POST", f"{t}/join", {"name": "x"}),
        ("join: seat string", "POST", f"{t}/join", {"seat": "1", "name": "x"}),
        ("join: seat float", "POST", f"{t}/join", {"seat": 1.5, "name": "x"}),
        ("join: seat null", "POST", f"{t}/join", {"seat": None, "name": "x"}),
        ("join: seat negative", "POST", f"{t}/join", {"seat": -1, "name": "x"}),
        ("join: seat out of range", "POST", f"{t}/join", {"seat": 2, "name": "x"}),
        ("join: seat 2**70", "POST", f"{t}/join", {"seat": 2**70, "name": "x"}),
        ("join: name int", "POST", f"{t}/join", {"seat": 1, "name": 5}),
        ("join: name 10k chars", "POST", f"{t}/join", {"seat": 1, "name": "n" * 10_000}),
        ("join: seat taken", "POST", f"{t}/join", {"seat": 0, "name": "thief"}),
        ("join: bot seat", "POST", f"/api/tables/{bot_table_id}/join", {"seat": 1, "name": "x"}),
        ("leave: wrong token", "POST", f"{t}/leave", {"token": "nope"}),
        ("leave: no token", "POST", f"{t}/leave", {}),
        ("leave: token int", "POST", f"{t}/leave", {"token": 5}),
        ("list: bad status", "GET", "/api/tables?status=bogus", None),
        ("list: bad limit", "GET", "/api/tables?limit=abc", None),
        ("list: negative limit", "GET", "/api/tables?limit=-1", None),
        ("replay before the end", "GET", f"{t}/replay", None),
        ("replay bad seat", "GET", f"{t}/replay?seat=abc", None),
        ("rules of unknown game", "GET", "/api/games/chess/rules", None),
    ]
    return cases


def test_bad_http_requests(server: ServerProcess, api: Api) -> None:
    table = api.create_table("penneech", ["human", "human"])
    token = api.join(table["id"], 0, "owner")
    bot_table = api.create_table("penneech", ["human", "heuristic"])
    tally = Tally()
    http = httpx.Client(base_url=server.base, timeout=30.0)
    for name, method, path, body in bad_http_cases(table["id"], bot_table["id"], token):
        tally.cases += 1
        kwargs: dict[str, Any] = {}
        if isinstance(body, dict):
            kwargs["content"] = json.dumps(body)
            kwargs["headers"] = {"content-type": "application/json"}
        elif body is not None:
            kwargs["content"] = body
            kwargs["headers"] = {"content-type": "application/json"}
        try:
            r = http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            tally.failures.append(f"{name}: {method} {path[:60]}: connection failed ({exc!r})")
            continue
        try:
            payload = r.json()
            json_ok = isinstance(payload, dict)
        except ValueError:
            json_ok = False
        if not 400 <= r.status_code < 500:
            tally.failures.append(f"{name}: {method} {path[:60]} -> {r.status_code} {r.text[:150]!r}")
        elif not json_ok:
            tally.failures.append(
                f"{name}: {method} {path[:60]} -> {r.status_code} without a JSON object body"
            )
        else:
            tally.errors += 1
    http.close()
    # Nothing a bad request did changed the table: seat 0 still ours, seat 1 still free, nothing created.
    after = api.table(table["id"])
    assert after["status"] == "waiting" and after["seats"][0]["name"] == "owner", after
    assert after["seats"][1]["name"] in (None, ""), after
    assert api.join(table["id"], 1, "late") and api.wait_status(table["id"], "playing")["status"] == "playing"
    # docs/web.md: the record is handed out only once the game is over (403 before).
    assert api.record(table["id"]).status_code == 403
    assert httpx.get(f"{server.base}/api/health").json().items() >= {"ok": True, "database": "ok"}.items()
    tally.report("bad HTTP requests")


async def run_connect_current(server: ServerProcess, api: Api) -> list[str]:
    table_id, tokens = open_table(api, "penneech", ["human", "human"])
    problems: list[str] = []
    for ply in range(4):
        for seat, token in tokens.items():
            client = await WsClient.open(server.ws_base, table_id, token)
            got = [m for m in await client.quiet(0.4) if m["type"] == "view"]
            await client.close()
            if [m["seq"] for m in got] != [ply]:
                problems.append(f"seat {seat} connecting at seq {ply} got views {[m['seq'] for m in got]}")
            if got and got[-1]["legal"]:
                mover, view = token, got[-1]
        client = await WsClient.open(server.ws_base, table_id, mover)
        await client.expect("view")
        await client.send({"type": "act", "action": view["legal"][0], "seq": ply})
        await client.view(ply + 1)
        await client.close()
    return problems


def test_connect_gets_the_current_view_only(server: ServerProcess, api: Api) -> None:
    """A view on connect, the current one (docs/web.md: "on (re)connect the current one")."""
    problems = asyncio.run(run_connect_current(server, api))
    assert not problems, "\n".join(problems)
