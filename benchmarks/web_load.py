"""Load on a real ``gamester serve``: many human-against-human tables at once, and bot moves per second.

    pip install -e '.[test]'
    python benchmarks/web_load.py                                  # 100 tables, SQLite, 20 s
    python benchmarks/web_load.py --tables 500 --seconds 30 --db sqlite --db postgres
    python benchmarks/web_load.py --bots-only --db sqlite           # bot moves served per second
    python benchmarks/web_load.py --tables 500 --profile prof.txt   # py-spy the server meanwhile
    python benchmarks/web_load.py --tables 500 --db sqlite --db postgres --tree old=/tmp/a/src --tree new=src
    python benchmarks/web_load.py --tables 50 --seconds 15 --spectators 200 --busy-bots 2   # isolation

For each database the script starts a server subprocess on 127.0.0.1 (``--db postgres`` also starts a
throw-away PostgreSQL, as the tests do), creates ``--tables`` Penneech tables with two human seats, joins
both seats and connects one WebSocket per seat, all from this one asyncio process. A seat that is shown
legal moves waits a think time (uniform in ``[0, 2 × --think]``), sends a random legal one and measures
the time until the view with the next ``seq`` reaches it: the act-to-view latency. A finished table is
replaced by a new one, so ``--tables`` games run at once throughout. Reported: tables, actions, actions
per second, latency p50 / p99 / max, errors (error replies, drops, views not arriving within 10 s), and
who hears a move first: how often the mover's own view reaches it before the other seat's reaches
that seat, and by how much (both sockets are read by this one process, so it is the order the server
wrote them in, plus this process's own reading order).

``--tree LABEL=SRC`` (repeatable) runs the server from that source tree (its ``PYTHONPATH``), one tree
after the other for each database, so two builds are measured in one run on the same machine load.

``--spectators N`` and ``--busy-bots K`` ask whether one busy table delays the others. The run is then
cut into phases of ``--seconds`` each, one after the other on the same server while the human tables go
on playing: a baseline; N spectator WebSockets on one of the human tables (the hot table; they read and
parse every frame, and follow it when its game ends); K extra bot-only tables seating the strongest
computer player of the lobby's menu for the game (``GET /api/games``, the highest ``strength``),
replaced when they end (``--bot-spec`` names another agent of the menu); then both. The bots come after
the spectators because a bot-only table cannot be stopped. Each phase starts once its spectators hold
their first frame and a bot move is stored, plus a second. Per phase: the other tables' act-to-view
latency p50 / p99 / max and its p99 over the baseline's, the hot table's own seats, the spectators'
frame delay (the hot seat's act sent -> that frame at a spectator), the bot moves stored, the client
loop's lag and the CPU of the server with its bot workers.

``--bots-only`` instead fills ``--tables`` tables with bots only (``--agent``, default ``random``) and
counts the moves the server stores per second (``seq`` summed over the tables through the API).

The clients share the machine's cores with the server: on a 2-core machine they take part of the CPU the
server would otherwise have, so the figures are a lower bound for the server alone. Never asserted in a
test: the figures are for people to read.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository's tests/ helpers
from tests.pg_support import PgCluster, find_pg_bin  # noqa: E402
from tests.web_support import ServerProcess  # noqa: E402


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)
    lag_times: list[float] = field(default_factory=list)
    # (act sent, monotonic; latency; at the hot table?) for reading the run by phase
    samples: list[tuple[float, float, bool]] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    # Who hears first: for each move seen by both seats, the mover's view's arrival minus the other
    # seat's (negative: the mover heard first), seconds.
    heard: list[float] = field(default_factory=list)
    games: int = 0
    ready: int = 0
    setup: float = 0.0
    started: float = 0.0

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


def cpu_seconds(match: Callable[[str], bool]) -> float:
    """User + system CPU seconds of every process whose command line ``match``es (Linux /proc)."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            if not match(cmd):
                continue
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def tree_cpu_seconds(root: int) -> float:
    """User + system CPU seconds of process ``root`` and every process descended from it (the
    server's bot workers are spawned children whose command line names neither gamester nor port)."""
    parents: dict[int, int] = {}
    used: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(d.name)] = int(fields[1])
        used[int(d.name)] = (int(fields[11]) + int(fields[12])) / tick
    total = 0.0
    for pid, seconds in used.items():
        p = pid
        while p > 1 and p != root:
            p = parents.get(p, 0)
        if p == root:
            total += seconds
    return total


def renice_workers(root: int, increment: int) -> int:
    """Add ``increment`` to the niceness of the server's bot workers (its spawned children); how many."""
    done = 0
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) != root:
                continue
            if b"spawn_main" not in (d / "cmdline").read_bytes():
                continue
            pid = int(d.name)
            os.setpriority(os.PRIO_PROCESS, pid, os.getpriority(os.PRIO_PROCESS, pid) + increment)
            done += 1
        except OSError:
            continue
    return done


def rate(times: list[float]) -> float:
    """Actions per second in the steady part of the run (from the 10th to the 90th percentile time)."""
    if len(times) < 20:
        return float("nan")
    ordered = sorted(times)
    lo, hi = ordered[len(ordered) // 10], ordered[9 * len(ordered) // 10]
    return (0.8 * len(ordered)) / max(hi - lo, 1e-9)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def create_pair(http: httpx.AsyncClient, game: str) -> tuple[str, list[str]]:
    r = await http.post(
        "/api/tables", json={"game": game, "options": {}, "seats": ["human", "human"], "clock": None}
    )
    r.raise_for_status()
    table_id = r.json()["id"]
    invites = r.json().get("invites", {})  # a tree from before invites gives none and needs none
    tokens = []
    for seat in (0, 1):
        body = {"seat": seat, "name": f"load{seat}", "invite": invites.get(str(seat))}
        j = await http.post(f"/api/tables/{table_id}/join", json=body)
        j.raise_for_status()
        tokens.append(j.json()["token"])
    return table_id, tokens


@dataclass
class Hot:
    """The table the spectators watch: its current id (a finished one is replaced) and when each of
    its acts was sent, by (table, the seq it should produce), for the spectators' frame delay."""

    table_id: str | None = None
    acts: dict[tuple[str, int], float] = field(default_factory=dict)
    delays: list[tuple[float, float]] = field(default_factory=list)  # (received, monotonic; delay)
    watching: int = 0


async def seat_loop(
    ws: ClientConnection,
    rng: random.Random,
    think: float,
    stats: Stats,
    stop: list[float],
    hot: Hot | None = None,
    pair: dict[int, tuple[float, bool]] | None = None,
) -> bool:
    """Play one seat until the game ends (True) or time (``stop[0]``, which may move) is up (False).
    ``pair`` (shared with the table's other seat): each view's arrival, to tell who heard it first."""
    sent_at: float | None = None
    sent_mono = 0.0
    waiting_for = -1
    while True:
        try:
            data = await asyncio.wait_for(ws.recv(), 10.0 if sent_at is not None else 1.0)
        except TimeoutError:
            if sent_at is not None:
                stats.error("view not within 10 s")
                return False
            if time.monotonic() > stop[0]:
                return False
            continue  # the other seat is thinking
        msg = json.loads(data)
        kind = msg.get("type")
        if kind == "error":
            stats.error(f"error {msg.get('code')}")
            continue
        if kind != "view":
            continue
        mover = sent_at is not None and msg["seq"] >= waiting_for
        if pair is not None:
            arrived = time.perf_counter()
            other = pair.pop(msg["seq"], None)
            if other is None:
                pair[msg["seq"]] = (arrived, mover)
            elif mover != other[1]:  # one of the two made the move: mover's arrival - the other's
                stats.heard.append(arrived - other[0] if mover else other[0] - arrived)
        if mover:
            latency = time.perf_counter() - sent_at
            stats.latencies.append(latency)
            stats.times.append(time.monotonic())
            stats.samples.append((sent_mono, latency, hot is not None))
            sent_at = None
        if msg["status"] == "over":
            return True
        if time.monotonic() > stop[0]:
            return False
        if msg["legal"] and msg["status"] == "playing":
            await asyncio.sleep(rng.uniform(0, 2 * think))
            waiting_for = msg["seq"] + 1
            sent_mono, sent_at = time.monotonic(), time.perf_counter()
            if hot is not None and hot.table_id is not None:
                hot.acts[(hot.table_id, waiting_for)] = sent_at
            await ws.send(json.dumps({"type": "act", "action": rng.choice(msg["legal"]), "seq": msg["seq"]}))


async def table_slot(
    server: ServerProcess,
    http: httpx.AsyncClient,
    game: str,
    rng: random.Random,
    think: float,
    stats: Stats,
    ready: asyncio.Semaphore,
    go: asyncio.Event,
    stop: list[float],
    hot: Hot | None = None,
) -> None:
    """Open one table (both seats joined and connected), wait for ``go``, play it until it ends or
    until ``stop[0]``; a table that ends before then is replaced by a new one."""
    while True:
        try:
            async with ready:  # a bounded number of tables being set up at once
                table_id, tokens = await create_pair(http, game)
                url = f"{server.ws_base}/ws/tables/{table_id}?token="
                w0 = await connect(url + tokens[0], open_timeout=60, ping_interval=None, max_size=2**22)
                w1 = await connect(url + tokens[1], open_timeout=60, ping_interval=None, max_size=2**22)
            if hot is not None:
                hot.table_id = table_id
            stats.ready += 1
            await go.wait()
            try:
                pair: dict[int, tuple[float, bool]] = {}
                results = await asyncio.gather(
                    seat_loop(w0, rng, think, stats, stop, hot, pair),
                    seat_loop(w1, rng, think, stats, stop, hot, pair),
                )
                if not all(results):
                    return
                stats.games += 1
            finally:
                await w0.close()
                await w1.close()
        except ConnectionClosed as exc:
            stats.error(f"closed {exc.rcvd.code if exc.rcvd else None}")
            return
        except httpx.HTTPStatusError as exc:
            stats.error(f"HTTP {exc.response.status_code} {exc.response.text[:80]}")
            return
        except (httpx.HTTPError, OSError, TimeoutError) as exc:
            stats.error(type(exc).__name__)
            return
        if time.monotonic() > stop[0]:
            return


async def loop_lag(stats: Stats, stop: list[float]) -> None:
    """How late this (client) event loop wakes from a 10 ms sleep: if it is late, part of a measured
    latency is the client's own delay, not the server's."""
    while time.monotonic() < stop[0]:
        t = time.perf_counter()
        await asyncio.sleep(0.01)
        stats.lags.append(time.perf_counter() - t - 0.01)
        stats.lag_times.append(time.monotonic())


@dataclass
class Phase:
    """One measured window of a ``--spectators`` / ``--busy-bots`` run."""

    name: str
    spectators: int
    bots: bool
    start: float = 0.0
    end: float = 0.0
    bot_moves: int = 0
    server_cpu: float = 0.0  # percent of one core over the window, the server and its bot workers
    db_cpu: float = 0.0


def plan_phases(spectators: int, busy_bots: int) -> list[Phase]:
    """Baseline first; then the spectators alone, the busy bots alone, both. The bots cannot be
    stopped once they play (a bot-only table has no seat to leave), so they come last."""
    phases = [Phase("baseline", 0, False)]
    if spectators:
        phases.append(Phase(f"{spectators} spectators", spectators, False))
    if busy_bots:
        phases.append(Phase(f"{busy_bots} busy bot tables", 0, True))
    if spectators and busy_bots:
        phases.append(Phase("both", spectators, True))
    return phases


async def best_spec(http: httpx.AsyncClient, game: str) -> str:
    """The strongest (and slowest) computer player of the lobby's menu for ``game``."""
    r = await http.get("/api/games")
    r.raise_for_status()
    entry = next(g for g in r.json()["games"] if g["name"] == game)
    return str(max(entry["agents"], key=lambda a: a["strength"])["spec"])


async def spectator(server: ServerProcess, hot: Hot, opening: asyncio.Semaphore, stats: Stats) -> None:
    """Watch the hot table and read every frame (until cancelled), following it to its replacement."""
    while True:
        tid = hot.table_id
        if tid is None:
            await asyncio.sleep(0.1)
            continue
        counted = False
        try:
            async with opening:
                ws = await connect(
                    f"{server.ws_base}/ws/tables/{tid}", open_timeout=60, ping_interval=None, max_size=2**22
                )
            try:
                async for data in ws:
                    msg = json.loads(data)
                    if msg.get("type") != "view":
                        continue
                    if not counted:
                        counted = True
                        hot.watching += 1
                    sent = hot.acts.get((tid, msg["seq"]))
                    if sent is not None:
                        hot.delays.append((time.monotonic(), time.perf_counter() - sent))
                    if msg["status"] == "over":
                        break
            finally:
                if counted:
                    hot.watching -= 1
                await ws.close()
        except ConnectionClosed as exc:
            stats.error(f"spectator closed {exc.rcvd.code if exc.rcvd else None}")
        except (OSError, TimeoutError) as exc:
            stats.error(f"spectator {type(exc).__name__}")
        while hot.table_id == tid:  # the game ended (or the socket dropped): wait for the next table
            await asyncio.sleep(0.1)


async def busy_table(http: httpx.AsyncClient, game: str, spec: str, moved: list[int], stats: Stats) -> None:
    """Keep one bot-only table playing (until cancelled), counting the moves it stores."""
    seats = [spec] * 2
    try:
        while True:
            r = await http.post(
                "/api/tables", json={"game": game, "options": {}, "seats": seats, "clock": None}
            )
            r.raise_for_status()
            tid, seen = r.json()["id"], 0
            while True:
                await asyncio.sleep(0.5)
                table = (await http.get(f"/api/tables/{tid}")).json()
                moved[0] += table["seq"] - seen
                seen = table["seq"]
                if table["status"] == "over":
                    break
    except httpx.HTTPStatusError as exc:
        stats.error(f"bot table HTTP {exc.response.status_code} {exc.response.text[:80]}")
    except httpx.HTTPError as exc:
        stats.error(f"bot table {type(exc).__name__}")


async def run_phases(
    server: ServerProcess,
    http: httpx.AsyncClient,
    game: str,
    phases: list[Phase],
    busy_bots: int,
    seconds: float,
    hot: Hot,
    stats: Stats,
    cpu: Callable[[], tuple[float, float]],
    bot_spec: str | None = None,
) -> str:
    """Play the phases one after the other while the human tables go on; returns the bots' spec.
    Between phases the spectators open or close and the bots start; each window begins once they are
    in place (every spectator has its first frame, a bot move is stored) and a second has passed."""
    spec = (bot_spec or await best_spec(http, game)) if busy_bots else ""
    watchers: list[asyncio.Task[None]] = []
    bots: list[asyncio.Task[None]] = []
    moved = [0]
    opening = asyncio.Semaphore(20)
    try:
        for phase in phases:
            if len(watchers) != phase.spectators:
                for w in watchers:
                    w.cancel()
                await asyncio.gather(*watchers, return_exceptions=True)
                watchers = [
                    asyncio.create_task(spectator(server, hot, opening, stats))
                    for _ in range(phase.spectators)
                ]
            if phase.bots and not bots:
                bots = [
                    asyncio.create_task(busy_table(http, game, spec, moved, stats)) for _ in range(busy_bots)
                ]
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and (
                hot.watching < phase.spectators or (phase.bots and moved[0] == 0)
            ):
                await asyncio.sleep(0.1)
            await asyncio.sleep(1.0)
            phase.start, (s0, d0), m0 = time.monotonic(), cpu(), moved[0]
            await asyncio.sleep(seconds)
            phase.end, (s1, d1) = time.monotonic(), cpu()
            phase.bot_moves = moved[0] - m0
            span = max(1e-9, phase.end - phase.start)
            phase.server_cpu, phase.db_cpu = 100 * (s1 - s0) / span, 100 * (d1 - d0) / span
    finally:
        for t in watchers + bots:
            t.cancel()
        await asyncio.gather(*watchers, *bots, return_exceptions=True)
    return spec


async def human_load(
    server: ServerProcess,
    tables: int,
    seconds: float,
    think: float,
    game: str,
    seed: int,
    on_go: Callable[[], None] = lambda: None,
    phases: list[Phase] | None = None,
    busy_bots: int = 0,
    cpu: Callable[[], tuple[float, float]] = lambda: (0.0, 0.0),
    bot_spec: str | None = None,
) -> tuple[Stats, Hot, str]:
    """Set every table up first (not measured), then play them all at once for ``seconds`` (or for
    each of ``phases``, one after the other; the first table is the hot one the spectators watch)."""
    stats, hot = Stats(), Hot()
    spec = ""
    limits = httpx.Limits(max_connections=20)
    async with httpx.AsyncClient(base_url=server.base, timeout=60.0, limits=limits) as http:
        rng = random.Random(seed)
        ready, go, stop = asyncio.Semaphore(20), asyncio.Event(), [0.0]
        t0 = time.monotonic()
        slots = [
            asyncio.create_task(
                table_slot(
                    server,
                    http,
                    game,
                    random.Random(rng.random()),
                    think,
                    stats,
                    ready,
                    go,
                    stop,
                    hot if phases and i == 0 else None,
                )
            )
            for i in range(tables)
        ]
        while stats.ready + sum(stats.errors.values()) < tables:
            await asyncio.sleep(0.1)
        stats.setup = time.monotonic() - t0
        stats.started = time.monotonic()
        # with phases, a bound far off until they are done
        stop[0] = stats.started + (seconds if not phases else len(phases) * (seconds + 120))
        on_go()
        go.set()
        lag = asyncio.create_task(loop_lag(stats, stop))
        if phases:
            try:
                spec = await run_phases(
                    server, http, game, phases, busy_bots, seconds, hot, stats, cpu, bot_spec
                )
            finally:
                stop[0] = time.monotonic()
        await asyncio.gather(*slots)
        await lag
    return stats, hot, spec


def phase_rows(name: str, phases: list[Phase], stats: Stats, hot: Hot, db: bool) -> list[str]:
    """One row per phase: the other tables' latency (and its p99 against the baseline's), the hot
    table's seats, the spectators' frame delay, the bots' moves, the client's loop lag, CPU."""

    def ms(values: list[float], q: float) -> str:
        return f"{1000 * percentile(values, q):.1f}" if values else "-"

    rows, base_p99 = [], float("nan")
    for phase in phases:

        def inside(t: float, phase: Phase = phase) -> bool:
            return phase.start <= t < phase.end

        others = [lat for t, lat, is_hot in stats.samples if not is_hot and inside(t)]
        seats = [lat for t, lat, is_hot in stats.samples if is_hot and inside(t)]
        frames = [d for t, d in hot.delays if inside(t)]
        lags = [lag for t, lag in zip(stats.lag_times, stats.lags, strict=True) if inside(t)]
        p99 = percentile(others, 0.99)
        if phase.name == "baseline":
            base_p99 = p99
        rows.append(
            f"| {name} | {phase.name} | {len(others)} | {ms(others, 0.5)} | {ms(others, 0.99)} | "
            f"{ms(others, 1.0)} | {p99 / base_p99:.2f} | {ms(seats, 0.5)} / {ms(seats, 0.99)} | "
            f"{ms(frames, 0.5)} / {ms(frames, 0.99)} ({len(frames)}) | {phase.bot_moves} | "
            f"{ms(lags, 0.99)} | {phase.server_cpu:.0f}% | " + (f"{phase.db_cpu:.0f}% |" if db else "- |")
        )
    return rows


async def bot_load(
    server: ServerProcess, tables: int, seconds: float, agent: str, game: str
) -> tuple[int, float]:
    async with httpx.AsyncClient(base_url=server.base, timeout=60.0) as http:
        ids: list[str] = []
        start = time.monotonic()
        moves = 0
        stop = start + seconds
        while time.monotonic() < stop:
            while len(ids) < tables:
                r = await http.post(
                    "/api/tables", json={"game": game, "options": {}, "seats": [agent, agent], "clock": None}
                )
                r.raise_for_status()
                ids.append(r.json()["id"])
            await asyncio.sleep(1.0)
            for t in list(ids):
                table = (await http.get(f"/api/tables/{t}")).json()
                if table["status"] == "over":
                    moves += table["seq"]
                    ids.remove(t)
        elapsed = time.monotonic() - start
        for t in ids:
            moves += (await http.get(f"/api/tables/{t}")).json()["seq"]
    return moves, elapsed


def raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def profile(server: ServerProcess, seconds: float, out: Path) -> subprocess.Popen[bytes] | None:
    assert server.proc is not None
    try:
        return subprocess.Popen(
            [
                "py-spy",
                "record",
                "--pid",
                str(server.proc.pid),
                "--duration",
                str(int(seconds)),
                "--gil",
                "--format",
                "raw",
                "--output",
                str(out),
                "--nonblocking",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
    except FileNotFoundError:
        print("py-spy not installed: no profile")
        return None


def summarize_profile(path: Path, top: int = 25) -> str:
    """Self and total sample counts per function from py-spy's raw (collapsed stack) output."""
    total: dict[str, int] = {}
    own: dict[str, int] = {}
    samples = 0
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not count_text.isdigit():
            continue
        count = int(count_text)
        samples += count
        frames = stack.split(";")
        for f in set(frames):
            total[f] = total.get(f, 0) + count
        own[frames[-1]] = own.get(frames[-1], 0) + count
    lines = [f"{samples} samples; top functions by own time (py-spy --gil: the thread holding the GIL)"]
    for f, c in sorted(own.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"  {100 * c / samples:5.1f}% own {100 * total[f] / samples:5.1f}% total  {f}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--db", action="append", choices=["sqlite", "postgres"], help="repeatable (default sqlite)"
    )
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--think", type=float, default=1.0, help="mean think time per move, seconds")
    ap.add_argument("--game", default="penneech")
    ap.add_argument("--bots-only", action="store_true")
    ap.add_argument("--agent", default="random")
    ap.add_argument("--workers", type=int, default=1, help="the server's bot worker processes")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--spectators",
        type=int,
        default=0,
        help="N sockets watching one of the human tables, in a phase of their own (see the docstring)",
    )
    ap.add_argument(
        "--busy-bots",
        type=int,
        default=0,
        help="K extra bot-only tables of the menu's strongest agent, in a phase of their own",
    )
    ap.add_argument(
        "--worker-nice",
        type=int,
        default=0,
        help="add this to the server's bot workers' niceness (do they delay the server by the CPU alone?)",
    )
    ap.add_argument(
        "--bot-spec",
        help="the busy bots' agent instead of the menu's strongest (within the menu's caps, "
        "e.g. ismcts:seconds=2 for a search that always takes its two seconds)",
    )
    ap.add_argument("--profile", type=Path, help="py-spy the server during the run; summary to this file")
    ap.add_argument(
        "--tree",
        action="append",
        default=[],
        help="LABEL=SRC: run the server from this source tree (repeatable)",
    )
    args = ap.parse_args()
    trees: list[tuple[str, str | None]] = []
    for t in args.tree:
        label, sep, src = t.partition("=")
        if not sep or not Path(src, "gamester").is_dir():
            ap.error(f"--tree {t!r}: expected LABEL=SRC with SRC holding the gamester package")
        trees.append((label, str(Path(src).resolve())))
    if not 1 <= args.tables <= 2000 or not 1 <= args.seconds <= 600:
        ap.error("--tables must be 1..2000 and --seconds 1..600")
    if not 0 <= args.spectators <= 5000 or not 0 <= args.busy_bots <= 100:
        ap.error("--spectators must be 0..5000 and --busy-bots 0..100")
    extras = bool(args.spectators or args.busy_bots)
    if extras and args.bots_only:
        ap.error("--spectators and --busy-bots measure the human tables: not with --bots-only")
    raise_fd_limit()
    rows: list[str] = []
    heard_rows: list[str] = []
    phase_table: list[str] = []
    bot_spec = ""
    for db, (label, tree) in [(db, t) for db in args.db or ["sqlite"] for t in trees or [("", None)]]:
        cluster: PgCluster | None = None
        work = Path(tempfile.mkdtemp(prefix="gamester-load-"))
        if db == "postgres":
            bin_dir = find_pg_bin()
            if bin_dir is None:
                print("postgres: PostgreSQL binaries not installed, skipped")
                continue
            cluster = PgCluster(bin_dir)
            cluster.start()
            url = cluster.create_database()
        else:
            url = f"sqlite:///{work / 'load.db'}"
        env = {"GAMESTER_BOT_WORKERS": str(args.workers)}
        if tree is not None:
            env["PYTHONPATH"] = tree
        server = ServerProcess(url, log_dir=work, env=env)
        name = f"{db} {label}".strip()
        try:
            server.start()
            if args.worker_nice:
                assert server.proc is not None
                print(f"{renice_workers(server.proc.pid, args.worker_nice)} bot workers reniced")
            spies: list[subprocess.Popen[bytes] | None] = []

            def start_profile(
                spies: list[subprocess.Popen[bytes] | None] = spies,
                srv: ServerProcess = server,
                out: Path = work,
            ) -> None:
                if args.profile:
                    spies.append(profile(srv, args.seconds, out / "profile.raw"))

            if args.bots_only:
                start_profile()
                moves, elapsed = asyncio.run(
                    bot_load(server, args.tables, args.seconds, args.agent, args.game)
                )
                rows.append(
                    f"| {name} | {args.tables} bot tables ({args.agent}) | {moves} moves | "
                    f"{moves / elapsed:.0f} bot moves/s |"
                )
            else:
                assert server.proc is not None
                # the cluster's postmaster, and its backends for the load's database (other clusters on
                # the machine, and their background processes, are not counted)
                data_dir = str(cluster.data) if cluster is not None else None
                db_name = url.rsplit("/", 1)[1] if cluster is not None else None
                marks: list[tuple[float, float, float]] = []

                def cpu_now(
                    srv: int = server.proc.pid, pg: str | None = data_dir, name: str | None = db_name
                ) -> tuple[float, float]:
                    return (
                        tree_cpu_seconds(srv),  # the server and its bot workers (its children)
                        cpu_seconds(lambda c: pg is not None and (pg in c or f" {name} " in c)),
                    )

                def mark(
                    marks: list[tuple[float, float, float]] = marks,
                    cpu_now: Callable[[], tuple[float, float]] = cpu_now,
                ) -> None:
                    marks.append((time.monotonic(), *cpu_now()))

                def go(start_profile: Callable[[], None] = start_profile) -> None:
                    mark()
                    start_profile()

                t0, c0 = time.monotonic(), time.process_time()
                phases = plan_phases(args.spectators, args.busy_bots) if extras else None
                stats, hot, spec = asyncio.run(
                    human_load(
                        server,
                        args.tables,
                        args.seconds,
                        args.think,
                        args.game,
                        args.seed,
                        go,
                        phases,
                        args.busy_bots,
                        cpu_now,
                        args.bot_spec,
                    )
                )
                if phases:
                    bot_spec = spec or bot_spec
                    phase_table.extend(phase_rows(name, phases, stats, hot, cluster is not None))
                mark()
                wall, cpu = time.monotonic() - t0, time.process_time() - c0
                span = max(1e-9, marks[1][0] - marks[0][0])
                server_cpu = 100 * (marks[1][1] - marks[0][1]) / span
                db_cpu = 100 * (marks[1][2] - marks[0][2]) / span
                lat = stats.latencies
                errors = sum(stats.errors.values())
                rows.append(
                    f"| {name} | {args.tables} | {len(lat)} | {rate(stats.times):.0f} | "
                    f"{1000 * percentile(lat, 0.5):.1f} | {1000 * percentile(lat, 0.99):.1f} | "
                    f"{1000 * max(lat, default=float('nan')):.1f} | {errors} {stats.errors or ''} | "
                    f"{stats.games} | {stats.setup:.0f} s | {100 * cpu / wall:.0f}% | "
                    f"{1000 * percentile(stats.lags, 0.99):.0f} ms | {server_cpu:.0f}% | "
                    + (f"{db_cpu:.0f}% |" if cluster is not None else "- |")
                )
                if stats.heard:
                    first = sum(h < 0 for h in stats.heard) / len(stats.heard)
                    heard_rows.append(
                        f"| {name} | {100 * first:.0f}% | {1000 * percentile(stats.heard, 0.5):+.1f} ms | "
                        f"{1000 * percentile([abs(h) for h in stats.heard], 0.99):.1f} ms |"
                    )
            spy = spies[0] if spies else None
            if spy is not None:
                spy.wait(timeout=args.seconds + 60)
                summary = summarize_profile(work / "profile.raw")
                args.profile.write_text(summary + "\n")
                print(f"profile ({db}) written to {args.profile}")
        finally:
            server.stop()
            if cluster is not None:
                cluster.stop()
    load = os.getloadavg()
    print(
        f"machine: {os.cpu_count()} cores, load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} "
        "(1 / 5 / 15 min) at the end: other work on the machine slows every figure below"
    )
    if args.bots_only:
        print("| db | tables | moves | rate |\n|---|---|---|---|")
    else:
        print(f"think {args.think} s mean, {args.seconds:.0f} s per run, game {args.game}")
        print(
            "| db | tables at once | actions | actions/s | p50 ms | p99 ms | max ms | errors | games ended | "
            "setup | client CPU | client loop lag p99 | server CPU | PostgreSQL CPU |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        )
    print("\n".join(rows))
    if heard_rows:
        print(
            "\nwho hears first: of each move both seats saw, how often the mover's view arrived first, and "
            "the mover's arrival minus the other seat's (p50; p99 of the gap either way)"
        )
        print("| db | mover first | mover - other p50 | gap p99 |\n|---|---|---|---|")
        print("\n".join(heard_rows))
    if phase_table:
        print(
            f"\nphases of {args.seconds:.0f} s in the same run: the hot table (one of the {args.tables}) "
            f"watched by {args.spectators} spectators, {args.busy_bots} bot-only tables of {bot_spec or '-'} "
            f"({'--bot-spec' if args.bot_spec else 'the menu strongest'}) playing; "
            "latency of the other tables' seats, act sent -> own next view"
        )
        print(
            "| db | phase | other tables: actions | p50 ms | p99 ms | max ms | p99 / baseline p99 | "
            "hot table seats p50 / p99 ms | spectator frame p50 / p99 ms (frames) | bot moves | "
            "client loop lag p99 ms | server + bot workers CPU | PostgreSQL CPU |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        )
        print("\n".join(phase_table))


if __name__ == "__main__":
    main()
