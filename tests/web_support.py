"""Black-box helpers for the web server (issue 10): a real ``gamester serve`` process and scripted clients.

Nothing here imports ``gamester.web``: the server is driven only through its command line, its HTTP API and
its WebSockets, as docs/web.md describes them, so these tests check the contract, not the code.

- :class:`ServerProcess` starts ``python -m gamester serve --host 127.0.0.1 --port P --db URL`` in its own
  process group on a free port, waits for ``GET /api/health``, keeps its output in a log file, and can be
  stopped politely (SIGTERM) or killed hard (SIGKILL, as ``kill -9``).
- :class:`Api` is a small synchronous HTTP client for the JSON API.
- :class:`WsClient` is an asyncio WebSocket client (the ``websockets`` package) that keeps every message it
  received; :func:`play_seat` and :func:`watch` play or watch a table to its end by the messages
  docs/web.md describes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

import gamester
from gamester.core.protocol import State
from tests.pg_support import free_port

Json = dict[str, Any]

# How a test starts the server: the real command line. GAMESTER_SERVE_CMD (a JSON list) replaces the
# command before "--host …", e.g. to test an installed build: '["/opt/venv/bin/gamester", "serve"]'.
SERVE_CMD: list[str] = json.loads(os.environ.get("GAMESTER_SERVE_CMD", "null")) or [
    sys.executable,
    "-m",
    "gamester",
    "serve",
]

# Defaults for servers started by tests: a short lease so that takeovers happen within a test's patience.
TEST_ENV = {"GAMESTER_BOT_WORKERS": "1", "GAMESTER_LEASE_SECONDS": "3"}


class ServerProcess:
    """One ``gamester serve`` subprocess on 127.0.0.1."""

    def __init__(
        self,
        db_url: str,
        *,
        env: Mapping[str, str] | None = None,
        log_dir: Path | None = None,
        port: int | None = None,
        limits: str = "off",
        args: Sequence[str] = (),
    ) -> None:
        # "off": these suites drive many tables from one address; the limits' own suite
        # (test_web_strangers.py) starts its servers with the defaults.
        self.limits = limits
        self.args = list(args)  # more options for ``serve`` (--trusted-proxy, --log-format …)
        self.db_url = db_url
        self.port = port or free_port()
        self.env = {**os.environ, **TEST_ENV, **(env or {}), "PYTHONUNBUFFERED": "1"}
        self.log_dir = log_dir or Path(tempfile.mkdtemp(prefix="gamester-serve-"))
        self.log_path = self.log_dir / f"serve-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> ServerProcess:
        assert self.proc is None or self.proc.poll() is not None, "server already running"
        self.starts += 1
        log = open(self.log_path, "ab")  # noqa: SIM115 (the child keeps it; closed when we reap it)
        log.write(f"\n===== start {self.starts} =====\n".encode())
        log.flush()
        cmd = [
            *SERVE_CMD,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--db",
            self.db_url,
            "--limits",
            self.limits,
            *self.args,
        ]
        self.proc = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, env=self.env, start_new_session=True
        )
        log.close()
        self.wait_healthy(timeout)
        return self

    def wait_healthy(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError(f"gamester serve exited with {self.proc.returncode}{self.log_tail()}")
            with contextlib.suppress(httpx.HTTPError):
                r = httpx.get(f"{self.base}/api/health", timeout=2.0)
                if r.status_code == 200 and r.json().get("ok") is True:
                    return
            time.sleep(0.1)
        raise AssertionError(f"gamester serve not healthy after {timeout} s{self.log_tail()}")

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_tail(self, lines: int = 40) -> str:
        return "\n--- server log ---\n" + "\n".join(self.log_text().splitlines()[-lines:])

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill9(self) -> None:
        """``kill -9`` the server, then its leftover children (bot workers), and reap it."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    def stop(self, timeout: float = 15.0) -> int | None:
        """SIGTERM, wait, then SIGKILL whatever is left of the process group. Returns the exit status."""
        if self.proc is None:
            return None
        code = self.proc.poll()
        if code is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.proc.pid, signal.SIGTERM)
            try:
                code = self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill9()
                code = self.proc.returncode
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        return code

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def running_server(db_url: str, **kwargs: Any) -> Iterator[ServerProcess]:
    server = ServerProcess(db_url, **kwargs)
    try:
        yield server.start()
    finally:
        server.stop()


def sqlite_url(directory: Path, name: str = "gamester.db") -> str:
    return f"sqlite:///{directory / name}"


class Api:
    """The JSON API through httpx; every method returns the response (callers check the status)."""

    invites: ClassVar[dict[str, dict[str, str]]] = {}
    """Each table's invite codes by table id, as its creator was told: shared by every client, as
    the creator would send them to friends."""

    def __init__(self, base: str) -> None:
        self.client = httpx.Client(base_url=base, timeout=30.0)

    def close(self) -> None:
        self.client.close()

    def create_table(
        self,
        game: str,
        seats: Sequence[str],
        options: Mapping[str, Any] | None = None,
        clock: Mapping[str, Any] | None = None,
    ) -> Json:
        r = self.client.post(
            "/api/tables",
            json={"game": game, "options": dict(options or {}), "seats": list(seats), "clock": clock},
        )
        assert r.status_code == 201, f"create table: {r.status_code} {r.text}"
        table: Json = r.json()
        self.invites[table["id"]] = table["invites"]
        return table

    def join(self, table_id: str, seat: int, name: str) -> str:
        """Take ``seat`` with its invite (from the table's creation), as an invited friend would."""
        invite = self.invites.get(table_id, {}).get(str(seat))
        body = {"seat": seat, "name": name, "invite": invite}
        r = self.client.post(f"/api/tables/{table_id}/join", json=body)
        assert r.status_code == 200, f"join seat {seat}: {r.status_code} {r.text}"
        body = r.json()
        assert body["seat"] == seat and isinstance(body["token"], str) and body["token"]
        token: str = body["token"]
        return token

    def table(self, table_id: str) -> Json:
        r = self.client.get(f"/api/tables/{table_id}")
        assert r.status_code == 200, f"get table: {r.status_code} {r.text}"
        table: Json = r.json()
        return table

    def record(self, table_id: str) -> httpx.Response:
        return self.client.get(f"/api/tables/{table_id}/record")

    def wait_status(self, table_id: str, status: str, timeout: float = 60.0) -> Json:
        deadline = time.monotonic() + timeout
        while True:
            table = self.table(table_id)
            if table["status"] == status or time.monotonic() > deadline:
                return table
            time.sleep(0.1)

    def wait_seq(self, table_id: str, at_least: int, timeout: float = 60.0) -> Json:
        deadline = time.monotonic() + timeout
        while True:
            table = self.table(table_id)
            if table.get("seq", -1) >= at_least or table["status"] == "over" or time.monotonic() > deadline:
                return table
            time.sleep(0.05)


def open_table(
    api: Api,
    game: str,
    seats: Sequence[str],
    options: Mapping[str, Any] | None = None,
    clock: Mapping[str, Any] | None = None,
) -> tuple[str, dict[int, str]]:
    """Create a table and join every human seat; returns the id and each human seat's token."""
    table = api.create_table(game, seats, options, clock)
    tokens = {i: api.join(table["id"], i, f"guest{i}") for i, kind in enumerate(seats) if kind == "human"}
    return table["id"], tokens


class WsClient:
    """One WebSocket connection to a table, keeping every JSON message it received (in order)."""

    def __init__(self, ws: ClientConnection, label: str, http_base: str = "", table_id: str = "") -> None:
        self.ws = ws
        self.label = label
        self.http_base = http_base
        self.table_id = table_id
        self.messages: list[Json] = []
        self.raw: list[str | bytes] = []

    @classmethod
    async def open(
        cls, ws_base: str, table_id: str, token: str | None = None, label: str = "", **connect_args: Any
    ) -> WsClient:
        """``connect_args``: more for ``websockets.connect`` (``ssl=`` for a ``wss://`` base)."""
        url = f"{ws_base}/ws/tables/{table_id}" + (f"?token={token}" if token is not None else "")
        ws = await connect(
            url, max_size=2**22, open_timeout=20, ping_interval=None, close_timeout=2, **connect_args
        )
        http_base = "http" + ws_base.removeprefix("ws")
        return cls(ws, label or ("spectator" if token is None else "seat"), http_base, table_id)

    async def close(self) -> None:
        await self.ws.close()

    async def send(self, obj: Any) -> None:
        await self.ws.send(json.dumps(obj))

    async def send_raw(self, data: str | bytes) -> None:
        await self.ws.send(data)

    async def recv(self, timeout: float = 20.0) -> Json:
        """The next message, parsed. Raises TimeoutError or ConnectionClosed."""
        data = await asyncio.wait_for(self.ws.recv(), timeout)
        self.raw.append(data)
        assert isinstance(data, str), f"{self.label}: server sent a binary frame"
        msg = json.loads(data)
        assert isinstance(msg, dict) and isinstance(msg.get("type"), str), f"{self.label}: not a typed object"
        self.messages.append(msg)
        return msg

    async def expect(self, kinds: str | Sequence[str], timeout: float = 20.0) -> Json:
        """Skip messages until one of type ``kinds`` (``table`` notices and ``pong`` are skipped)."""
        wanted = {kinds} if isinstance(kinds, str) else set(kinds)
        while True:
            msg = await self.recv(timeout)
            if msg["type"] in wanted:
                return msg

    async def view(self, min_seq: int = 0, timeout: float = 20.0) -> Json:
        """The next view with ``seq >= min_seq`` (errors are returned too, so callers see them)."""
        while True:
            msg = await self.expect(("view", "error"), timeout)
            if msg["type"] == "error" or msg["seq"] >= min_seq:
                return msg

    async def current_view(self, timeout: float = 20.0) -> Json:
        """The view of the table's current ``seq`` (read from ``GET /api/tables/{id}``), skipping older
        ones, so a test is not misled if a server sends more than the current view on connect."""
        async with httpx.AsyncClient(base_url=self.http_base, timeout=timeout) as http:
            seq = (await http.get(f"/api/tables/{self.table_id}")).json().get("seq", 0)
        return await self.view(seq, timeout)

    async def quiet(self, seconds: float = 0.3) -> list[Json]:
        """Every message that arrives within ``seconds`` of silence."""
        got: list[Json] = []
        with contextlib.suppress(TimeoutError, ConnectionClosed):
            while True:
                got.append(await self.recv(seconds))
        return got

    async def closed_code(self, timeout: float = 10.0) -> int | None:
        """Wait for the server to close; the close code (None if it did not close in time)."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                with contextlib.suppress(ConnectionClosed):
                    while True:
                        data = await self.ws.recv()
                        self.raw.append(data)
                        if isinstance(data, str):
                            with contextlib.suppress(ValueError):
                                self.messages.append(json.loads(data))
                return self.ws.close_code
        return None


Chooser = Callable[[Json], str]


def random_chooser(rng: random.Random) -> Chooser:
    return lambda view: rng.choice(view["legal"])


async def play_seat(
    ws_base: str,
    table_id: str,
    token: str,
    choose: Chooser,
    label: str = "",
    timeout: float = 60.0,
    reconnects: int = 5,
) -> WsClient:
    """Play one human seat to the end of the game: on every view with legal actions, act.

    Returns the client (its ``messages`` hold everything the seat received). A dropped connection is
    reopened (up to ``reconnects`` times): a reconnect must get the full current view.
    """
    client = await WsClient.open(ws_base, table_id, token, label)
    history: list[Json] = []
    try:
        while True:
            try:
                msg = await client.recv(timeout)
            except ConnectionClosed:
                if reconnects <= 0:
                    raise
                reconnects -= 1
                history.extend(client.messages)
                await asyncio.sleep(0.2)
                client = await WsClient.open(ws_base, table_id, token, label)
                continue
            if msg["type"] == "error":
                raise AssertionError(f"{label}: error {msg} after {client.messages[-5:-1]}")
            if msg["type"] != "view":
                continue
            if msg["status"] == "over":
                break
            if msg["legal"]:
                await client.send({"type": "act", "action": choose(msg), "seq": msg["seq"]})
    finally:
        await client.close()
    client.messages[:0] = history
    return client


async def watch(ws_base: str, table_id: str, label: str = "spectator", timeout: float = 60.0) -> WsClient:
    """A spectator watching until the game is over."""
    client = await WsClient.open(ws_base, table_id, None, label)
    try:
        while True:
            msg = await client.recv(timeout)
            if msg["type"] == "view" and msg["status"] == "over":
                break
    finally:
        await client.close()
    return client


CARD = re.compile(r"(?<![A-Za-z0-9_-])([2-9TJQKA][CDHS])(?![A-Za-z0-9_-])")


def card_codes(obj: Any) -> set[str]:
    """Every card code (``7D``, ``TS`` …) written anywhere in a JSON value, keys included."""
    found: set[str] = set()
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            found.update(CARD.findall(x))
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, list | tuple):
            stack.extend(x)
    return found


def jsonable(obj: Any) -> Any:
    """What a value looks like after a JSON round trip (tuples become lists, keys strings)."""
    return json.loads(json.dumps(obj))


class Truth:
    """The game replayed from its record: per seq and viewer, what that viewer may see."""

    def __init__(self, record: dict[str, Any]) -> None:
        self.record = record
        state = gamester.replay({**record, "actions": []})
        self.players = state.game.num_players
        self.game = state.game
        viewers: list[int | None] = [*range(self.players), None]
        self.views: list[dict[int | None, Any]] = []
        self.entitled: list[dict[int | None, set[str]]] = []
        self.legal: list[dict[int | None, list[str]]] = []
        self.hands: list[dict[int, set[str]]] = []
        self.option_codes = card_codes(jsonable(record.get("options", {})))
        pre_events: dict[int | None, Any] = {v: [] for v in viewers}
        for n in range(len(record["actions"]) + 1):
            views, entitled, legal = {}, {}, {}
            for v in viewers:
                view = jsonable(state.observation(v) if v is not None else state.public_observation())
                events = [*pre_events[v], *jsonable(state.last_events_seen_by(v))]
                moves = self._legal(state, v)
                views[v] = view
                legal[v] = moves
                entitled[v] = card_codes(view) | card_codes(events) | card_codes(moves) | self.option_codes
            self.views.append(views)
            self.entitled.append(entitled)
            self.legal.append(legal)
            self.hands.append({p: set(state.observation(p).get("hand", [])) for p in range(self.players)})
            if n < len(record["actions"]):
                action = state.string_to_action(record["actions"][n])
                pre_events = {v: [jsonable(state.action_event_seen_by(action, v))] for v in viewers}
                state.apply_action(action)
        self.final = state

    @staticmethod
    def _legal(state: State, viewer: int | None) -> list[str]:
        if viewer is None or state.is_terminal() or state.current_player() != viewer:
            return []
        return sorted(state.action_to_string(a) for a in state.legal_actions())

    def check(self, viewer: int | None, messages: list[dict[str, Any]]) -> tuple[list[str], int]:
        """Problems in what ``viewer`` received (empty: none), and how many views were checked."""
        who = "spectator" if viewer is None else f"seat {viewer}"
        problems: list[str] = []
        checked = 0
        last_seq = -1
        for i, msg in enumerate(messages):
            codes = card_codes(msg)
            if msg.get("type") != "view":
                extra = codes - self.option_codes
                if extra:
                    problems.append(f"{who} message {i} ({msg.get('type')}) names cards {sorted(extra)}")
                continue
            n = msg["seq"]
            if not isinstance(n, int) or not 0 <= n < len(self.views):
                problems.append(f"{who} message {i}: seq {n!r} outside 0..{len(self.views) - 1}")
                continue
            checked += 1
            extra = codes - self.entitled[n][viewer]
            if extra:
                owners = {c: [p for p, hand in self.hands[n].items() if c in hand] for c in sorted(extra)}
                problems.append(
                    f"LEAK to {who} at seq {n}: {sorted(extra)} (held by {owners}; "
                    f"other cards are in the stock or set aside) in {str(msg)[:300]}"
                )
            if msg.get("status") == "waiting":
                continue
            if msg.get("view") != self.views[n][viewer]:
                problems.append(f"{who} seq {n}: view differs from the engine's view for that viewer")
            if sorted(msg.get("legal", [])) != self.legal[n][viewer]:
                problems.append(f"{who} seq {n}: legal {msg.get('legal')} != {self.legal[n][viewer]}")
            # The parts of the legal moves (docs/web.md, "moves") are the parts of those very strings,
            # for a game that gives them, and come only with them.
            parts = [self.game.action_parts(a) for a in msg.get("legal", [])]
            want = parts if any(p is not None for p in parts) else None
            if msg.get("moves") != want:
                problems.append(f"{who} seq {n}: moves {msg.get('moves')} != {want}")
            if last_seq >= 0 and n not in (last_seq, last_seq + 1):
                problems.append(f"{who}: seq jumped from {last_seq} to {n}")
            last_seq = n
        if last_seq != len(self.views) - 1:
            problems.append(
                f"{who}: last view seen was seq {last_seq}, the game ended at {len(self.views) - 1}"
            )
        return problems, checked
