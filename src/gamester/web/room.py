"""One live table on this server: a room that takes every command in order from one queue.

A :class:`Room` is the only code that touches its table's row, state, frames, sockets, timer and
lease. Commands — a human's act, a bot's or a timed-out seat's move, a timer, a join or leave, a
socket arriving or going, a notice from another server — are queued and run one at a time: each
awaits the repository, applies what :mod:`gamester.web.decisions` decided, then pushes frames to
the room's sockets. Nothing is locked: while the room awaits the database the event loop serves every
other table, and this table's next command simply waits its turn in the queue.

Bot and timeout moves are one path: after every command the room asks :func:`decisions.due` what is
due and, if a move is, hands a job to the worker pool; its answer comes back as a ``move`` command.
A :class:`Connection` sends from its own outbox, so a socket that does not read never holds the room.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from starlette.websockets import WebSocket

from gamester.core.protocol import State
from gamester.core.registry import load_game
from gamester.store.port import TableRepository, TableRow
from gamester.web import decisions as d
from gamester.web.decisions import SPECTATOR, ServiceError
from gamester.web.fair import address_key
from gamester.web.pace import ThinkTimes

log = logging.getLogger("gamester.web")

CLOSE_SECONDS = 2.0
"""How long closing a socket may wait for its client (a client that never answers its close, or
stopped reading, must not hold anything up)."""

MAX_OUTBOX = 256
"""Messages waiting for a socket that does not read; past this it is closed (1013)."""


async def close_socket(ws: WebSocket, code: int) -> None:
    """Close ``ws`` with ``code``, waiting for the client at most ``CLOSE_SECONDS``."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(ws.close(code=code), CLOSE_SECONDS)


class Connection:
    """One WebSocket and the viewer it speaks for. Everything sent to it goes through its outbox
    (one writer task), so views, errors and pongs keep their order and nobody waits for the client."""

    def __init__(self, ws: WebSocket, table_id: str) -> None:
        self.ws = ws
        self.table_id = table_id
        client = ws.client
        self.address = client.host if client is not None else "?"  # the client's, for turns at workers
        self.viewer = SPECTATOR
        self.token_hash: str | None = None
        self.closed = False
        self.last_seq = -1  # the room's: the last view sent
        self.last_status = ""
        self.hinting = False
        self._outbox: asyncio.Queue[str | int] = asyncio.Queue()
        self._writer = asyncio.ensure_future(self._write())

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        if self._outbox.qsize() >= MAX_OUTBOX:  # not reading: stop trying
            self.close(1013)
            return
        self._outbox.put_nowait(text)

    def send(self, message: dict[str, Any]) -> None:
        self.send_text(d.dumps(message))

    def close(self, code: int) -> None:
        """Stop sending now; the close itself happens in the background, bounded."""
        if not self.closed:
            self.closed = True
            self._outbox.put_nowait(code)

    async def _write(self) -> None:
        while True:
            item = await self._outbox.get()
            if isinstance(item, int):
                await close_socket(self.ws, item)
                return
            try:
                await self.ws.send_text(item)
            except Exception:  # noqa: BLE001 - the socket went away; the receive loop will notice
                self.closed = True
                return

    async def finish(self) -> None:
        """The receive loop ended: let queued sends go (bounded), then stop the writer."""
        if not self._writer.done():
            self._outbox.put_nowait(1000)
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(self._writer), CLOSE_SECONDS)
            self._writer.cancel()
        self.closed = True


class Host(Protocol):
    """What a room needs from the server around it (the registry)."""

    repo: TableRepository
    server_id: str
    lease_seconds: float
    think_times: ThinkTimes

    def db(
        self, fn: Callable[..., Any], *args: Any, write: bool = False, **kwargs: Any
    ) -> Awaitable[Any]: ...

    def publish(self, table_id: str, kind: str) -> None: ...

    def in_worker(
        self, fn: Callable[..., Any], *args: Any, key: str = "", urgent: bool = True, kind: str = "bot"
    ) -> Awaitable[Any]: ...

    def job_seconds(self, kind: str) -> float: ...

    def now(self) -> float: ...

    def ended(self, table_id: str) -> None:
        """A rated table ended here (its ratings move: docs/web.md, People)."""
        ...


class RoomClosed(Exception):
    """The room was evicted before this command ran: ask the registry again."""


@dataclass
class _Command:
    kind: str
    args: tuple[Any, ...] = ()
    done: asyncio.Future[Any] | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)


class Room:
    def __init__(self, table_id: str, host: Host, *, row: TableRow | None = None, state: State | None = None):
        self.id = table_id
        self.host = host
        self.row: TableRow | None = row
        self.state: State | None = state
        self.frames: OrderedDict[int, d.Frame] = OrderedDict()
        self.chance_len = 0
        if row is not None and state is not None:
            self.frames[0] = d.frame(state, None, None, len(row.seats), row.lesson)
            self.chance_len = len(state.chance.entries())
        self.conns: set[Connection] = set()
        self.lease_until = 0.0
        self.closed = False
        self.used = time.monotonic()
        self._queue: asyncio.Queue[_Command] = asyncio.Queue()
        self._timer: asyncio.TimerHandle | None = None
        self._thinking: int | None = None  # the seq a bot or timeout move is being worked out for
        self._thinking_since = 0.0  # when that job was sent (monotonic)
        self._hints: dict[tuple[int, int], set[Connection]] = {}
        self._poked = False
        self.forget: Callable[[], None] = lambda: None  # set by the registry: drop this room
        self._task = asyncio.ensure_future(self._loop())

    # -- the queue -----------------------------------------------------------------------------
    async def call(self, kind: str, *args: Any, **kwargs: Any) -> Any:
        """Run a command in the room's order and return its result (or raise its ServiceError)."""
        if self.closed:
            raise RoomClosed
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Command(kind, args, fut, kwargs))
        return await fut

    def post(self, kind: str, *args: Any) -> None:
        """Queue a command nobody waits for."""
        if not self.closed:
            self._queue.put_nowait(_Command(kind, args))

    def poke(self) -> None:
        """Look again at what is due (a timer, the lease loop); at most one such look queued."""
        if not self._poked and not self.closed:
            self._poked = True
            self.post("tick")

    def idle(self) -> bool:
        return not self.conns and self._queue.empty() and self._thinking is None and not self._hints

    def stop(self, *, cancel: bool = True) -> None:
        """No more commands: the queued ones are refused (``RoomClosed``: their callers ask again)."""
        self.closed = True
        self._cancel_timer()
        if cancel:
            self._task.cancel()
        while not self._queue.empty():
            cmd = self._queue.get_nowait()
            if cmd.done is not None and not cmd.done.done():
                cmd.done.set_exception(RoomClosed())

    async def _loop(self) -> None:
        while True:
            cmd = await self._queue.get()
            self.used = time.monotonic()
            try:
                if self.row is None:
                    await self._load()
                result = await getattr(self, "_do_" + cmd.kind)(*cmd.args, **cmd.kwargs)
            except asyncio.CancelledError:
                if cmd.done is not None and not cmd.done.done():
                    cmd.done.set_exception(RoomClosed())
                raise
            except Exception as e:  # noqa: BLE001 - one failing command must not stop the room
                if cmd.done is not None and not cmd.done.done():
                    cmd.done.set_exception(e)
                elif not isinstance(e, ServiceError):
                    # The type only: an engine's message may describe the position.
                    log.warning("gamester: table %s: %s failed: %s", self.id, cmd.kind, type(e).__name__)
            else:
                if cmd.done is not None and not cmd.done.done():
                    cmd.done.set_result(result)
            if self.row is None:  # the table does not exist (or could not be read): nothing to keep
                self.stop(cancel=False)
                self.forget()
                return
            try:
                await self._schedule()
            except Exception as e:  # noqa: BLE001 - retried at the next lease round
                log.warning(
                    "gamester: table %s: %s; retried at the next lease round", self.id, type(e).__name__
                )

    # -- reading the table ---------------------------------------------------------------------
    async def _load(self) -> None:
        row = await self.host.db(self.host.repo.get, self.id)
        if row is None:
            raise ServiceError("no_table", f"no table {self.id!r}", 404)
        acts = await self.host.db(self.host.repo.actions, self.id) if row.seq else []
        # CPU only, but a long game takes a while to replay: off the event loop.
        self.row, self.state, self.frames, self.chance_len = await asyncio.to_thread(_build, row, acts)

    async def _sync(self) -> bool:
        """Read the row again and apply the actions stored since; True if the table changed beyond
        its moves."""
        row, state = self.row, self.state
        assert row is not None and state is not None
        fresh = await self.host.db(self.host.repo.get, self.id)
        if fresh is None:
            raise ServiceError("no_table", f"no table {self.id!r}", 404)
        # What the ``table`` message shows (a move alone is told by its view): the status, the seats,
        # or a deadline moved without a move (a lease taken over, the clock's pause).
        changed = fresh.status != row.status or _seats(fresh) != _seats(row)
        changed = changed or (fresh.deadline != row.deadline and fresh.seq == row.seq)
        if fresh.seq > row.seq:
            texts = await self.host.db(self.host.repo.actions, self.id, row.seq)
            n = len(row.seats)
            for text in texts[: fresh.seq - row.seq]:
                a = state.string_to_action(text)
                before = state.clone()
                state.apply_action(a)
                row.seq += 1
                d.keep(self.frames, row.seq, d.frame(state, before, a, n, row.lesson))
            self.chance_len = len(state.chance.entries())
        fresh.seq = row.seq
        self.row = fresh
        return changed

    def connected(self) -> dict[int, int]:
        out: dict[int, int] = {}
        for c in self.conns:
            if c.viewer != SPECTATOR and not c.closed:
                out[c.viewer] = out.get(c.viewer, 0) + 1
        return out

    def public(self) -> dict[str, Any]:
        assert self.row is not None
        return d.public(self.row, self.connected())

    # -- pushing -------------------------------------------------------------------------------
    def _send_view(self, c: Connection, seq: int) -> None:
        assert self.row is not None and self.state is not None
        got = d.view_text(self.row, self.state, self.frames, seq, c.viewer, self.host.now())
        if got is not None:
            c.send_text(got[0])
            c.last_status = got[1]

    def _push(self, *, again: bool = False) -> None:
        """Every socket gets the views from the last one it had up to the table's seq (``again``:
        the current one once more if its status changed, e.g. waiting → playing or a forfeit)."""
        assert self.row is not None
        cur = self.row.seq
        for c in list(self.conns):
            if c.closed:
                continue
            first = max(c.last_seq + 1, cur - d.KEEP_FRAMES + 1, 0)
            if cur <= c.last_seq:
                first = cur if again and self.row.status != c.last_status else cur + 1
            for s in range(first, cur + 1):
                self._send_view(c, s)
            c.last_seq = max(c.last_seq, cur)

    def _announce(self) -> None:
        """The table (seats, who is connected, status) to every socket."""
        self._to_all({"type": "table", "table": self.public()})

    def _to_all(self, message: dict[str, Any]) -> None:
        """``message`` to every socket of the table (encoded once)."""
        text = d.dumps(message)
        for c in self.conns:
            c.send_text(text)

    def _drop_left(self) -> None:
        """Sockets whose token no longer holds their seat speak for nobody: closed."""
        assert self.row is not None
        for c in list(self.conns):
            if c.token_hash is not None and not d.holds(self.row, c.viewer, c.token_hash):
                c.close(1008)
                self.conns.discard(c)

    # -- commands ------------------------------------------------------------------------------
    async def _do_tick(self) -> None:
        self._poked = False

    async def _do_attach(self, conn: Connection, token: str | None) -> int | None:
        """A socket arrives: with a token it is that seat's (read fresh: a token that just left
        through any server is refused), else a spectator's. It gets the current view."""
        assert self.row is not None
        seat = None
        if token is not None:
            await self._sync()
            seat = d.authenticate(self.row, token)
            if seat is None:
                raise ServiceError("bad_token", "not a seat's token at this table", 403)
            conn.viewer = seat
            conn.token_hash = d.hash_token(token)  # the token it came with, not the seat's now
        self.conns.add(conn)
        self._send_view(conn, self.row.seq)
        conn.last_seq = self.row.seq
        if seat is not None:
            self._announce()
        return seat

    async def _do_detach(self, conn: Connection) -> None:
        if conn in self.conns:
            self.conns.discard(conn)
            if conn.viewer != SPECTATOR:
                self._announce()

    async def _do_act(
        self, player: int, text: Any, seq: Any, *, source: str = "human", token_hash: str | None = None
    ) -> int:
        row, state = self.row, self.state
        assert row is not None and state is not None
        move = d.act(
            row,
            state,
            self.chance_len,
            player,
            text,
            seq,
            self.host.now(),
            source=source,
            token_hash=token_hash,
        )
        ok = await self.host.db(
            self.host.repo.append_action,
            self.id,
            move.seq,
            move.text,
            self.host.now(),
            chance=move.chance,
            status=move.status,
            deadline=move.deadline,
            returns=move.returns,
            write=True,
        )
        if not ok:  # another server moved first
            await self._sync()
            self._push()
            raise ServiceError("stale", "another move was made first; the view is out of date")
        d.applied(row, move)
        self.state = move.state
        self.chance_len = move.chance_len
        d.keep(self.frames, row.seq, move.frame)
        self._push()
        if row.status == "over" and row.rated:
            self.host.ended(self.id)
        self.host.publish(self.id, "act")
        return row.seq

    async def _do_move(self, seq: int, player: int, text: str, source: str) -> None:
        """A worker's move (a bot's, or the best agent's for a seat out of time)."""
        if self._thinking == seq:
            self._thinking = None
        with contextlib.suppress(ServiceError):  # the position moved on meanwhile: look again
            await self._do_act(player, text, seq, source=source)

    async def _do_join(
        self, seat: Any, name: Any, token: Any, owner: Any = None, invite: Any = None
    ) -> dict[str, Any]:
        row, state = self.row, self.state
        assert row is not None and state is not None
        await self._sync()
        assert self.row is not None
        plan = d.join(self.row, seat, name, token, secrets.token_urlsafe(24), owner, invite)
        if not plan.new:
            return {"seat": plan.seat, "token": plan.token, "table": self.id}
        now = self.host.now()
        fresh = await self.host.db(
            self.host.repo.join,
            self.id,
            plan.seat,
            plan.name,
            d.hash_token(plan.token),
            lambda r: d.starts(r, state, now),
            account=plan.account,
            write=True,
        )
        if fresh is None:
            await self._sync()
            raise ServiceError("seat_taken", f"seat {plan.seat} is taken", 409)
        fresh.seq = self.row.seq if self.row is not None else fresh.seq
        self.row = fresh
        self._announce()
        self._push(again=True)
        self.host.publish(self.id, "table")
        return {"seat": plan.seat, "token": plan.token, "table": self.id}

    async def _do_leave(self, token: Any) -> dict[str, Any]:
        assert self.row is not None
        await self._sync()
        seat, held = d.leave(self.row, token)
        if not await self.host.db(self.host.repo.leave, self.id, seat, held, write=True):
            raise ServiceError("bad_token", "token: not a seat's token at this table", 403)
        s = self.row.seats[seat]
        name = s.name
        s.name, s.token_hash = None, None
        self._drop_left()
        # Every viewer's log says so (a name is public: the table shows it to all).
        self._to_all({"type": "event", "event": {"type": "left", "seat": seat, "name": name}})
        self._announce()
        self.host.publish(self.id, "table")
        return {"ok": True, "seat": seat}

    async def _do_notice(self, kind: str) -> None:
        """Another server changed the table (or this one's listener came back): read it again."""
        changed = await self._sync()
        self._drop_left()
        if kind == "table" or changed:
            self._announce()
        self._push(again=True)

    async def _do_public(self, fresh: bool = True) -> dict[str, Any]:
        if fresh:
            await self._sync()
        return self.public()

    async def _do_watch(self, invite: Any, token: Any, account: str | None) -> None:
        """Refused (``private_table``) unless these may see a private table (:func:`d.may_watch`)."""
        assert self.row is not None
        if not d.may_watch(self.row, invite, token, account):
            await self._sync()  # a seat taken a moment ago through another server counts too
            assert self.row is not None
            d.check_watch(self.row, invite, token, account)

    async def _do_invites(self, token: Any) -> dict[str, Any]:
        assert self.row is not None
        await self._sync()
        assert self.row is not None
        return d.invites_for(self.row, token)

    async def _do_record(self) -> dict[str, Any]:
        await self._sync()
        assert self.row is not None and self.state is not None
        return d.record(self.row, self.state)

    async def _do_replay(self, seat: Any) -> dict[str, Any]:
        assert self.row is not None
        d.check_replay_seat(self.row, seat)
        rec = await self._do_record()
        assert self.row is not None
        row = self.row
        return await asyncio.to_thread(d.replay, row, rec, seat)

    async def _do_lease(self, until: float) -> None:
        """This server just took the table's lease: taking it over may have moved the clock on."""
        self.lease_until = until
        if await self._sync():
            self._announce()
            self._push(again=True)

    async def _do_hint(self, conn: Connection, seat: int, seq: Any) -> None:
        """A hint for ``seat``: one search per seat and position, answered to every socket of that
        seat that asked."""
        assert self.row is not None and self.state is not None
        d.check_hint(self.row, self.state, seat, seq)
        key = (seat, seq)
        waiting = self._hints.get(key)
        if waiting is not None:
            waiting.add(conn)
            return
        job = d.job(self.row, self.state, "hint")
        if job is None:
            raise ServiceError("stale", "the position changed; ask again")
        self._hints[key] = {conn}
        game = self.state.game

        async def work() -> None:
            from gamester.web import bots

            try:
                out = await self.host.in_worker(
                    bots.evaluate,
                    job.record,
                    job.player,
                    job.spec,
                    self.host.job_seconds("hint"),
                    job.seed,
                    key=address_key(conn.address),  # a hint takes turns as the address that asked
                    kind="hint",
                )
                answer: dict[str, Any] = {
                    "type": "hint",
                    "seq": seq,
                    "action": out["action"],
                    **d.hint_parts(game, out["action"]),
                    "win_probability": out["win_probability"],
                }
            except Exception:  # noqa: BLE001 - over budget or no evaluation
                answer = {
                    "type": "error",
                    "code": "hint_unavailable",
                    "message": "no hint could be computed in time",
                }
            self.post("hinted", key, answer)

        _spawn(work())

    async def _do_hinted(self, key: tuple[int, int], answer: dict[str, Any]) -> None:
        for c in self._hints.pop(key, set()):
            c.hinting = False
            c.send(answer)

    # -- what is due ---------------------------------------------------------------------------
    async def _schedule(self) -> None:
        row, state = self.row, self.state
        assert row is not None and state is not None
        now = self.host.now()
        due = d.due(row, state, now)
        if due.kind == "none":
            self._cancel_timer()
            return
        if not await self._lease(now):
            self._cancel_timer()
            return
        # Taking the lease over reads the row again (the clock moved on by the time no server ran the
        # table): what is due is decided again on that row, never on the one from before.
        row, state = self.row, self.state
        assert row is not None and state is not None
        now = self.host.now()
        due = d.due(row, state, now)
        if due.kind == "none":
            self._cancel_timer()
            return
        if due.kind == "wait":
            assert due.at is not None
            self._cancel_timer()
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(max(0.0, due.at - now) + 0.02, self.poke)
            return
        self._cancel_timer()
        if due.kind == "forfeit":
            end = d.forfeit(row, state, now)
            if end is None:
                return
            returns, p = end
            if await self.host.db(self.host.repo.finish, self.id, row.seq, returns, p, write=True):
                row.status, row.returns, row.forfeit, row.deadline = "over", returns, p, None
                if row.rated:
                    self.host.ended(self.id)
                self._announce()
                self._push(again=True)
                self.host.publish(self.id, "table")
            else:
                await self._sync()
                self._push(again=True)
            return
        # A job not answered within its budget and then some is taken as lost (a worker that never
        # answered): asked again, so a table never waits for ever. A late answer to the first is
        # then refused as stale or applied once, never twice (the seq guard).
        overdue = time.monotonic() - self._thinking_since > 3 * self.host.job_seconds("bot") + 10.0
        if self._thinking == row.seq and not overdue:
            return
        source = "bot" if due.kind == "bot" else "timeout"
        job = d.job(row, state, source)
        if job is None:
            return
        self._thinking = row.seq
        self._thinking_since = time.monotonic()
        people = any(s.kind == "human" for s in row.seats)  # someone waits for this move
        turns = row.turns_key or f"table:{self.id}"  # its turn at the workers (an older table: its own)
        # Only a bot's own move is held when forced (web/pace.py): no legal list for a timed-out seat.
        forced = source == "bot" and len(state.legal_actions()) == 1

        async def think() -> None:
            from gamester.web import bots

            started = time.monotonic()
            try:
                text = await self.host.in_worker(
                    bots.choose,
                    job.record,
                    job.player,
                    job.spec,
                    self.host.job_seconds("bot"),
                    job.seed,
                    job.lesson,
                    key=turns,
                    urgent=people,
                )
            except Exception as e:  # noqa: BLE001 - the lease loop looks again
                log.warning("gamester: table %s: bot move failed: %s", self.id, type(e).__name__)
                self.post("unthink", job.seq)
                return
            if source == "bot":  # its timing must not tell how many moves it had (web/pace.py)
                took, times = time.monotonic() - started, self.host.think_times
                if forced:
                    await asyncio.sleep(times.hold(job.spec, took, self.host.job_seconds("bot")))
                else:
                    times.thought(job.spec, took)
            self.post("move", job.seq, job.player, text, source)

        _spawn(think())

    async def _do_unthink(self, seq: int) -> None:
        if self._thinking == seq:
            self._thinking = None

    async def _lease(self, now: float) -> bool:
        """Whether this server holds the table's lease (taken now if it is free)."""
        host = self.host
        if self.lease_until > now + host.lease_seconds / 2:
            return True
        until = now + host.lease_seconds
        fresh = self.lease_until == 0.0
        ok = await host.db(host.repo.take_lease, self.id, host.server_id, until, now, write=True)
        if not ok:
            self.lease_until = 0.0
            return False
        self.lease_until = until
        if fresh and await self._sync():  # taken over: the clock may have moved on
            self._announce()
            self._push(again=True)
        return True

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


_background: set[asyncio.Task[Any]] = set()


def _spawn(coro: Any) -> None:
    task = asyncio.ensure_future(coro)
    _background.add(task)
    task.add_done_callback(_background.discard)


def _seats(row: TableRow) -> list[tuple[str | None, str | None]]:
    return [(s.name, s.token_hash) for s in row.seats]


def _build(row: TableRow, acts: list[str]) -> tuple[TableRow, State, OrderedDict[int, d.Frame], int]:
    """The state at ``row.seq`` rebuilt from the seed and the stored actions, with the last frames."""
    game = load_game(row.game, **row.options)
    # From the seed, not the stored chance: a state given a chance list cannot draw past its end,
    # and the table's next deal needs new packs. The stored chance is checked against it below.
    state = game.new_initial_state(seed=row.seed)
    n = game.num_players
    frames: OrderedDict[int, d.Frame] = OrderedDict()
    start = max(0, len(acts) - d.KEEP_FRAMES)
    if start == 0:
        frames[0] = d.frame(state, None, None, n, row.lesson)
    for i, text in enumerate(acts):
        a = state.string_to_action(text)
        if i + 1 > start:
            before = state.clone()
            state.apply_action(a)
            frames[i + 1] = d.frame(state, before, a, n, row.lesson)
        else:
            state.apply_action(a)
    row.seq = len(acts)
    now = d.chance_of(state)
    if now[: len(row.chance)] != row.chance[: len(now)]:
        raise ServiceError("corrupt", f"table {row.id}: its stored chance does not match its seed", 409)
    return row, state, frames, len(now)
