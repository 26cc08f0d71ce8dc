"""Load on a real ``gamester serve``: many human-against-human tables at once, and bot moves per second.

    pip install -e '.[test]'
    python benchmarks/web_load.py                                  # 100 tables, SQLite, 20 s
    python benchmarks/web_load.py --tables 500 --seconds 30 --db sqlite --db postgres
    python benchmarks/web_load.py --bots-only --db sqlite           # bot moves served per second
    python benchmarks/web_load.py --tables 500 --profile prof.txt   # py-spy the server meanwhile
    python benchmarks/web_load.py --tables 500 --db sqlite --db postgres --tree old=/tmp/a/src --tree new=src

For each database the script starts a server subprocess on 127.0.0.1 (``--db postgres`` also starts a
throw-away PostgreSQL, as the tests do), creates ``--tables`` Penneech tables with two human seats, joins
both seats and connects one WebSocket per seat, all from this one asyncio process. A seat that is shown
legal moves waits a think time (uniform in ``[0, 2 × --think]``), sends a random legal one and measures
the time until the view with the next ``seq`` reaches it: the act-to-view latency. A finished table is
replaced by a new one, so ``--tables`` games run at once throughout. Reported: tables, actions, actions
per second, latency p50 / p99 / max, errors (error replies, drops, views not arriving within 10 s).

``--tree LABEL=SRC`` (repeatable) runs the server from that source tree (its ``PYTHONPATH``), one tree
after the other for each database, so two builds are measured in one run on the same machine load.

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
    errors: dict[str, int] = field(default_factory=dict)
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


async def seat_loop(
    ws: ClientConnection, rng: random.Random, think: float, stats: Stats, stop: float
) -> bool:
    """Play one seat until the game ends (True) or time is up (False)."""
    sent_at: float | None = None
    waiting_for = -1
    while True:
        timeout = 10.0 if sent_at is not None else max(0.1, stop - time.monotonic() + 10.0)
        try:
            data = await asyncio.wait_for(ws.recv(), timeout)
        except TimeoutError:
            if sent_at is not None:
                stats.error("view not within 10 s")
            return False
        msg = json.loads(data)
        kind = msg.get("type")
        if kind == "error":
            stats.error(f"error {msg.get('code')}")
            continue
        if kind != "view":
            continue
        if sent_at is not None and msg["seq"] >= waiting_for:
            stats.latencies.append(time.perf_counter() - sent_at)
            stats.times.append(time.monotonic())
            sent_at = None
        if msg["status"] == "over":
            return True
        if time.monotonic() > stop:
            return False
        if msg["legal"] and msg["status"] == "playing":
            await asyncio.sleep(rng.uniform(0, 2 * think))
            waiting_for = msg["seq"] + 1
            sent_at = time.perf_counter()
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
) -> None:
    """Open one table (both seats joined and connected), wait for ``go``, play it until it ends or
    until ``stop[0]``."""
    try:
        async with ready:  # a bounded number of tables being set up at once
            table_id, tokens = await create_pair(http, game)
            url = f"{server.ws_base}/ws/tables/{table_id}?token="
            w0 = await connect(url + tokens[0], open_timeout=60, ping_interval=None, max_size=2**22)
            w1 = await connect(url + tokens[1], open_timeout=60, ping_interval=None, max_size=2**22)
        stats.ready += 1
        await go.wait()
        try:
            results = await asyncio.gather(
                seat_loop(w0, rng, think, stats, stop[0]), seat_loop(w1, rng, think, stats, stop[0])
            )
            if all(results):
                stats.games += 1
        finally:
            await w0.close()
            await w1.close()
    except ConnectionClosed as exc:
        stats.error(f"closed {exc.rcvd.code if exc.rcvd else None}")
    except httpx.HTTPStatusError as exc:
        stats.error(f"HTTP {exc.response.status_code} {exc.response.text[:80]}")
    except (httpx.HTTPError, OSError, TimeoutError) as exc:
        stats.error(type(exc).__name__)


async def loop_lag(stats: Stats, stop: float) -> None:
    """How late this (client) event loop wakes from a 10 ms sleep: if it is late, part of a measured
    latency is the client's own delay, not the server's."""
    while time.monotonic() < stop:
        t = time.perf_counter()
        await asyncio.sleep(0.01)
        stats.lags.append(time.perf_counter() - t - 0.01)


async def human_load(
    server: ServerProcess,
    tables: int,
    seconds: float,
    think: float,
    game: str,
    seed: int,
    on_go: Callable[[], None] = lambda: None,
) -> Stats:
    """Set every table up first (not measured), then play them all at once for ``seconds``."""
    stats = Stats()
    limits = httpx.Limits(max_connections=20)
    async with httpx.AsyncClient(base_url=server.base, timeout=60.0, limits=limits) as http:
        rng = random.Random(seed)
        ready, go, stop = asyncio.Semaphore(20), asyncio.Event(), [0.0]
        t0 = time.monotonic()
        slots = [
            asyncio.create_task(
                table_slot(server, http, game, random.Random(rng.random()), think, stats, ready, go, stop)
            )
            for _ in range(tables)
        ]
        while stats.ready + sum(stats.errors.values()) < tables:
            await asyncio.sleep(0.1)
        stats.setup = time.monotonic() - t0
        stats.started = time.monotonic()
        stop[0] = stats.started + seconds
        on_go()
        go.set()
        lag = asyncio.create_task(loop_lag(stats, stop[0]))
        await asyncio.gather(*slots)
        await lag
    return stats


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
    raise_fd_limit()
    rows = []
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
                port = f"--port {server.port} "
                # the cluster's postmaster, and its backends for the load's database (other clusters on
                # the machine, and their background processes, are not counted)
                data_dir = str(cluster.data) if cluster is not None else None
                db_name = url.rsplit("/", 1)[1] if cluster is not None else None
                marks: list[tuple[float, float, float]] = []

                def mark(
                    srv: str = port,
                    pg: str | None = data_dir,
                    name: str | None = db_name,
                    marks: list[tuple[float, float, float]] = marks,
                ) -> None:
                    marks.append(
                        (
                            time.monotonic(),
                            # the server and its bot workers (spawned children name no port: counted
                            # by the multiprocessing marker instead)
                            cpu_seconds(lambda c: srv in c or ("multiprocessing" in c and "gamester" in c)),
                            cpu_seconds(lambda c: pg is not None and (pg in c or f" {name} " in c)),
                        )
                    )

                def go(start_profile: Callable[[], None] = start_profile) -> None:
                    mark()
                    start_profile()

                t0, c0 = time.monotonic(), time.process_time()
                stats = asyncio.run(
                    human_load(server, args.tables, args.seconds, args.think, args.game, args.seed, go)
                )
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


if __name__ == "__main__":
    main()
