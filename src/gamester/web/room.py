"""One live table on this server: a room that takes every command in order from one queue.

A :class:`Room` is the only code that touches its table's row, state, frames, sockets, chat, timer
and lease. Its door is :mod:`gamester.web.commands`: a person's move, a worker's move, a timer, a join
or leave, a socket arriving or going, a chat line, a notice from another server — each a typed
command, run one at a time and in the order they came by one ``match`` (:meth:`Room._run`). Each
awaits the repository, applies what :mod:`gamester.web.decisions` decided, then pushes frames to the
room's sockets. Nothing is shared between tables: while the room awaits the database the event loop
serves every other table, and this table's next command waits its turn in the queue. A command that
finds the room with nothing queued or running runs at once in its caller's task (most moves, so a
move's views reach the sockets one turn of the event loop sooner); the others wait in the queue for
the room's own task. A refusal is a
:class:`~gamester.web.errors.Refused`, raised to whoever waits for the command; the edge says it.

After every command the room looks at what is due (:meth:`Room._schedule`): a timer to set, a seat
that forfeits, or a move for the workers (web/jobs.py), whose answer comes back as a ``Move``.
A :class:`~gamester.web.sockets.Connection` sends from its own outbox, so a socket that does not read
never holds the room.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, assert_never, cast

from gamester.core.protocol import State
from gamester.store.port import ChatRepository, StoreUnavailable, TableRepository, TableRow
from gamester.web import absence, chat, jobs, messages, rebuild
from gamester.web import decisions as d
from gamester.web.commands import (
    COMMANDS,
    Act,
    Attach,
    ChatDeleted,
    Command,
    Detach,
    Heard,
    Hint,
    Hinted,
    Invites,
    Join,
    Joined,
    Lease,
    Leave,
    LeftSeat,
    Move,
    Notice,
    Public,
    Reblock,
    Record,
    Rematched,
    Replay,
    RoomCommand,
    Say,
    Tick,
    Unthink,
    Watch,
    done,
    gives,
)
from gamester.web.decisions import SPECTATOR
from gamester.web.errors import (
    BadToken,
    NoTable,
    NotAllowed,
    RateLimited,
    Refused,
    SeatTaken,
    Stale,
)
from gamester.web.fair import chat_keys
from gamester.web.sockets import Connection

log = logging.getLogger("gamester.web")

T = TypeVar("T")

CHAT_HEARD = 50
"""Chat lines read back when another server says some were stored (a burst larger than this between
two notices is not expected: each socket says at most one every few seconds)."""


_Views = dict[tuple[int, int], tuple[str, str] | None]
"""The views made during one push, by (seq, viewer): ``view_text``'s answer."""


class Host(jobs.Workers, Protocol):
    """What a room needs from the server around it (the registry)."""

    repo: TableRepository
    chat: ChatRepository
    server_id: str
    lease_seconds: float
    abandon_seconds: float

    def db(
        self, fn: Callable[..., Any], *args: Any, write: bool = False, **kwargs: Any
    ) -> Awaitable[Any]: ...

    def publish(self, table_id: str, kind: str) -> None: ...

    def now(self) -> float: ...

    def ended(self, table_id: str) -> None:
        """A rated table ended here (its ratings move: docs/web.md, People)."""
        ...


class RoomClosed(Exception):
    """The room was evicted before this command ran: ask the registry again."""


@dataclass
class _Queued:
    cmd: RoomCommand
    done: asyncio.Future[Any] | None


class Room:
    def __init__(self, table_id: str, host: Host, *, row: TableRow | None = None, state: State | None = None):
        self.id = table_id
        self.host = host
        self.row: TableRow | None = row
        self.state: State | None = state
        self.frames: OrderedDict[int, d.Frame] = OrderedDict()
        if row is not None and state is not None:
            self.frames[0] = d.frame(state, None, None, len(row.seats), row.lesson)
        self.conns: set[Connection] = set()
        self.lease_until = 0.0
        self.closed = False
        self.used = time.monotonic()
        self._queue: asyncio.Queue[_Queued] = asyncio.Queue()
        self._timer: asyncio.TimerHandle | None = None
        self._out = jobs.Out()  # the move job out at the workers
        self._hints: dict[tuple[int, int], set[Connection]] = {}
        self._poked = False
        self._turn = asyncio.Lock()  # held while a command runs, from the queue or in its caller's task
        self._claimed = False  # the room's task took a command from the queue and waits for its turn
        self._unsure = False  # a command run in its caller's task was cancelled: read the table first
        self.forget: Callable[[], None] = lambda: None  # set by the registry: drop this room
        self._task = asyncio.ensure_future(self._loop())

    # -- the queue -----------------------------------------------------------------------------
    async def call(self, cmd: Command[T]) -> T:
        """Run ``cmd`` in the room's order and return its answer (or raise its refusal). With nothing
        queued or running, it runs at once in the caller's task: handing it to the room's task would
        cost every view it pushes one more turn of the event loop, which at saturation is most of the
        latency (docs/web.md, At saturation). Either way one command runs at a time, in order."""
        if not isinstance(cmd, COMMANDS):
            raise TypeError(f"not a room command: {type(cmd).__name__}")
        if self.closed:
            raise RoomClosed
        command = cast(RoomCommand, cmd)
        if self.row is not None and self._queue.empty() and not self._claimed and not self._turn.locked():
            async with self._turn:
                return cast(T, await self._step(command))
        fut: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Queued(command, fut))
        return await fut

    def post(self, cmd: RoomCommand) -> None:
        """Queue a command nobody waits for."""
        if not self.closed:
            self._queue.put_nowait(_Queued(cmd, None))

    def poke(self) -> None:
        """Look again at what is due (a timer, the lease loop); at most one such look queued."""
        if not self._poked and not self.closed:
            self._poked = True
            self.post(Tick())

    def idle(self) -> bool:
        running = self._turn.locked() or self._claimed
        return (
            not self.conns
            and self._queue.empty()
            and not running
            and self._out.seq is None
            and not self._hints
        )

    def stop(self, *, cancel: bool = True) -> None:
        """No more commands: the queued ones are refused (``RoomClosed``: their callers ask again)."""
        self.closed = True
        self._cancel_timer()
        if cancel:
            self._task.cancel()
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if item.done is not None and not item.done.done():
                item.done.set_exception(RoomClosed())

    async def _loop(self) -> None:
        while not self.closed:
            item = await self._queue.get()
            self._claimed = True  # from here until it has run: a caller arriving now queues behind it
            try:
                async with self._turn:
                    self._claimed = False
                    result = await self._step(item.cmd)
            except asyncio.CancelledError:
                if item.done is not None and not item.done.done():
                    item.done.set_exception(RoomClosed())
                raise
            except Exception as e:  # noqa: BLE001 - one failing command must not stop the room
                if item.done is not None and not item.done.done():
                    item.done.set_exception(e)
                elif not isinstance(e, Refused):
                    # The type only: an engine's message may describe the position.
                    name = type(item.cmd).__name__
                    log.warning("gamester: table %s: %s failed: %s", self.id, name, type(e).__name__)
            else:
                if item.done is not None and not item.done.done():
                    item.done.set_result(result)
            finally:
                self._claimed = False

    async def _step(self, cmd: RoomCommand) -> object:
        """One command, then what is due: the one way a command runs, from the queue or in its
        caller's task (the room's turn held)."""
        self.used = time.monotonic()
        try:
            if self._unsure:  # the last command may have stored what the room never applied
                self._unsure = False
                await self._notice(Notice("table"))
            if self.row is None:
                await self._load()
            result = await self._run(cmd)
        except asyncio.CancelledError:
            self._unsure = True
            raise
        except Exception:
            await self._after()
            raise
        await self._after()
        return result

    async def _after(self) -> None:
        """After every command: what is due (a table that could not be read: the room closes)."""
        if self.row is None:  # the table does not exist (or could not be read): nothing to keep
            self.stop(cancel=False)
            self.forget()
            return
        try:
            await self._schedule()
        except Exception as e:  # noqa: BLE001 - retried at the next lease round
            log.warning("gamester: table %s: %s; retried at the next lease round", self.id, type(e).__name__)

    async def _run(self, cmd: RoomCommand) -> object:
        """The one dispatch: each command to its handler."""
        match cmd:
            case Act():
                return gives(cmd, await self._play(cmd.player, cmd.action, cmd.seq, "human", cmd.token_hash))
            case Move():
                await self._move(cmd)
            case Unthink():
                self._out.back(cmd.seq)
            case Tick():
                self._poked = False
            case Attach():
                return gives(cmd, await self._attach(cmd))
            case Detach():
                await self._detach(cmd)
            case Hint():
                self._hint(cmd)
            case Hinted():
                self._hinted(cmd)
            case Say():
                await self._say(cmd)
            case Heard():
                await self._heard()
            case Reblock():
                await self._reblock(cmd)
            case ChatDeleted():
                await self._chat_deleted()
            case Rematched():
                await self._rematched(cmd)
            case Join():
                return gives(cmd, await self._join(cmd))
            case Leave():
                return gives(cmd, await self._leave(cmd))
            case Public():
                if cmd.fresh:
                    await self._sync()
                return gives(cmd, self.public())
            case Watch():
                await self._watch(cmd)
            case Invites():
                await self._sync()
                return gives(cmd, d.invites_for(self._row(), cmd.token))
            case Record():
                return gives(cmd, await self._record())
            case Replay():
                return gives(cmd, await self._replay(cmd))
            case Notice():
                await self._notice(cmd)
            case Lease():
                await self._leased(cmd)
            case _:
                assert_never(cmd)
        done(cmd)
        return None

    # -- reading the table ---------------------------------------------------------------------
    def _row(self) -> TableRow:
        assert self.row is not None
        return self.row

    def _state(self) -> State:
        assert self.state is not None
        return self.state

    async def _load(self) -> None:
        row = await self.host.db(self.host.repo.get, self.id)
        if row is None:
            raise NoTable(f"no table {self.id!r}")
        acts = await self.host.db(self.host.repo.actions, self.id) if row.seq else []
        # CPU only, but a long game takes a while to replay: off the event loop.
        self.row, self.state, self.frames = await asyncio.to_thread(rebuild.build, row, acts)

    async def _sync(self) -> bool:
        """Read the row again and apply the actions stored since; True if the table changed beyond
        its moves."""
        row, state = self._row(), self._state()
        fresh = await self.host.db(self.host.repo.get, self.id)
        if fresh is None:
            raise NoTable(f"no table {self.id!r}")
        # What the ``table`` message shows (a move alone is told by its view): the status, the seats,
        # or a deadline moved without a move (a lease taken over, the clock's pause).
        news = absence.seat_news(row)
        changed = fresh.status != row.status or _seats(fresh) != _seats(row)
        changed = changed or (fresh.deadline != row.deadline and fresh.seq == row.seq)
        if fresh.seq > row.seq:
            texts = await self.host.db(self.host.repo.actions, self.id, row.seq)
            rebuild.catch_up(row, fresh, state, self.frames, texts)
        fresh.seq = row.seq
        self.row = fresh
        self._tell(news)  # a seat abandoned or taken back through another server: told here too
        return changed

    def spectator_events(self, seq: int) -> list[Any] | None:
        """The events of move ``seq`` as spectators were told them (None: no longer kept)."""
        frame = self.frames.get(seq)
        if frame is None or SPECTATOR not in frame:
            return None
        events: list[Any] = json.loads(frame[SPECTATOR][1])
        return events

    def connected(self) -> dict[int, int]:
        out: dict[int, int] = {}
        for c in self.conns:
            if c.viewer != SPECTATOR and not c.closed:
                out[c.viewer] = out.get(c.viewer, 0) + 1
        return out

    def public(self) -> dict[str, Any]:
        return d.public(self._row(), self.connected())

    # -- pushing -------------------------------------------------------------------------------
    def _send_view(self, c: Connection, seq: int, made: _Views) -> None:
        """``c``'s view of ``seq``, put together once per viewer for every socket of ``made`` (one
        push): the text is the same for all the sockets of a seat, or of the spectators."""
        key = (seq, c.viewer)
        if key not in made:
            made[key] = d.view_text(self._row(), self._state(), self.frames, seq, c.viewer, self.host.now())
        got = made[key]
        if got is not None:
            c.send_text(got[0])
            c.last_status = got[1]

    def _push(self, *, again: bool = False) -> None:
        """Every socket gets the views from the last one it had up to the table's seq (``again``:
        the current one once more if its status changed, e.g. waiting → playing or a forfeit)."""
        row = self._row()
        cur = row.seq
        made: _Views = {}
        for c in list(self.conns):
            if c.closed:
                continue
            first = max(c.last_seq + 1, cur - d.KEEP_FRAMES + 1, 0)
            if cur <= c.last_seq:
                first = cur if again and row.status != c.last_status else cur + 1
            for s in range(first, cur + 1):
                self._send_view(c, s, made)
            c.last_seq = max(c.last_seq, cur)

    def _announce(self) -> None:
        """The table (seats, who is connected, status) to every socket."""
        self._to_all(messages.table(self.public()))

    def _tell(self, before: absence.SeatNews) -> None:
        """Every socket is told of the seats abandoned or taken back since ``before``."""
        for event in absence.seat_events(before, self._row()):
            self._to_all(messages.event(event))

    def _to_all(self, message: messages.Outbound) -> None:
        """``message`` to every socket of the table (encoded once)."""
        text = messages.encode(message)
        for c in self.conns:
            c.send_text(text)

    def _drop_left(self) -> None:
        """Sockets whose token no longer holds their seat speak for nobody: closed."""
        row = self._row()
        for c in list(self.conns):
            if c.token_hash is not None and not d.holds(row, c.viewer, c.token_hash):
                c.close(1008)
                self.conns.discard(c)

    # -- moves ---------------------------------------------------------------------------------
    async def _play(self, player: int, text: Any, seq: Any, source: str, token_hash: str | None) -> int:
        """A move for ``player`` (a person's, a bot's or a timed-out seat's): decided, stored, pushed."""
        row, state, host = self._row(), self._state(), self.host
        absent = source == "timeout" and player not in self.connected()
        move = d.act(
            row,
            state,
            len(state.chance.log),  # the chance drawn so far: a move that draws more stores it
            player,
            text,
            seq,
            host.now(),
            source=source,
            token_hash=token_hash,
            absent=absent,
        )
        ok = await host.db(
            host.repo.append_action,
            self.id,
            move.seq,
            move.text,
            move.at,
            chance=move.chance,
            status=move.status,
            deadline=move.deadline,
            returns=move.returns,
            played=move.played,
            waited=move.waited,
            write=True,
        )
        if not ok:  # another server moved first
            await self._sync()
            self._push()
            raise Stale("another move was made first; the view is out of date")
        d.applied(row, move)
        self.state = move.state
        d.keep(self.frames, row.seq, move.frame)
        self._push()
        if row.status == "over" and row.rated:
            host.ended(self.id)
        host.publish(self.id, "act")
        return row.seq

    async def _move(self, cmd: Move) -> None:
        """A worker's move (a bot's, or the best agent's for a seat out of time)."""
        self._out.back(cmd.seq)
        with contextlib.suppress(Refused):  # the position moved on meanwhile: what is due is looked at again
            await self._play(cmd.player, cmd.text, cmd.seq, cmd.source, None)

    # -- sockets -------------------------------------------------------------------------------
    async def _attach(self, cmd: Attach) -> int | None:
        """A socket arrives: with a token it is that seat's (read fresh: a token that just left
        through any server is refused), else a spectator's. It gets the current view, then the last
        chat lines and the table's rematch, if any."""
        conn, seat = cmd.conn, None
        if cmd.token is not None:
            await self._sync()
            seat = d.authenticate(self._row(), cmd.token)
            if seat is None:
                raise BadToken("not a seat's token at this table")
            conn.viewer = seat
            conn.token_hash = d.hash_token(cmd.token)  # the token it came with, not the seat's now
            # A socket may still see a table whose database cannot take a write now.
            with contextlib.suppress(StoreUnavailable):
                await self._arrived(seat)
        row = self._row()
        name = cmd.name if seat is None else row.seats[seat].name or f"Player {seat + 1}"
        account = cmd.account if seat is None else row.seats[seat].account
        blocked = frozenset() if account is None else await self.host.db(self.host.chat.blocked_by, account)
        keys = chat_keys(
            self.id,
            address=conn.address,
            account=account,
            seat=seat,
            socket=secrets.token_hex(8),
            per_address=cmd.per_address,
        )
        conn.speaker = chat.Speaker(seat, name, keys, account=account, blocked=blocked)
        self.conns.add(conn)
        self._send_view(conn, row.seq, {})
        conn.last_seq = row.seq
        if seat is not None:
            self._announce()
        for line in await self.host.db(self.host.chat.last_chat, self.id, chat.HISTORY):
            conn.give_chat(line)
        if row.status == "over" and row.rematch is None:
            row.rematch = await self.host.db(self.host.chat.rematch_of, self.id)
        if row.rematch is not None:
            conn.send(messages.rematch(row.rematch))
        return seat

    async def _detach(self, cmd: Detach) -> None:
        if cmd.conn in self.conns:
            self.conns.discard(cmd.conn)
            if cmd.conn.viewer != SPECTATOR:
                self._announce()
                # Its last socket here: seen until now (if the database cannot take it, the mark of
                # the socket's arrival or of the last lease round stands, a little older).
                if cmd.conn.viewer not in self.connected():
                    with contextlib.suppress(StoreUnavailable):
                        await self._seen([cmd.conn.viewer])

    async def _arrived(self, seat: int) -> None:
        """A seat's socket arrived: the seat is seen now (its wait without a socket starts again on
        every server), and a seat that had gone takes itself back from its stand-in."""
        row = self._row()
        if row.status != "playing":
            return
        if absence.comes_back(row, seat):
            s = row.seats[seat]
            assert s.name is not None and s.token_hash is not None
            await self._take_back(seat, s.name, s.token_hash, s.account)
        else:
            await self._seen([seat])

    async def _seen(self, seats: list[int]) -> None:
        """``seats`` had a socket here until now (at a table still playing)."""
        row, now = self._row(), self.host.now()
        if row.status != "playing" or not seats:
            return
        await self.host.db(self.host.repo.mark_seen, [(self.id, p) for p in seats], now, write=True)
        for p in seats:
            row.seats[p].seen, row.seats[p].waited = now, 0.0

    def present(self) -> int | None:
        """The seat the game waits on if it has a socket here (the lease loop marks it seen on every
        server's behalf, so the server running the table knows it is there); else None."""
        if self.row is None or self.state is None:
            return None
        p = absence.waiting_on(self.row, self.state)
        return p if p is not None and p in self.connected() else None

    # -- chat ----------------------------------------------------------------------------------
    async def _say(self, cmd: Say) -> None:
        """A chat line: checked, taken if the speaker has the allowance, stored, and passed to every
        socket of the table here (and, through the notice, to those of other servers)."""
        speaker = cmd.conn.speaker
        if speaker is None or cmd.conn not in self.conns:
            return
        text = chat.chat_text(cmd.text)
        now = self.host.now()
        if speaker.account is not None and await self.host.db(self.host.chat.is_banned, speaker.account, now):
            raise NotAllowed("chat: this account is banned", code="banned")
        spent = chat.allowance(speaker.keys)  # the address's, the account's, the seat's: all or none
        line_id = await self.host.db(
            self.host.chat.add_chat,
            self.id,
            speaker.seat,
            speaker.name,
            text,
            now,
            spent,
            account=speaker.account,
            write=True,
        )
        if line_id is None:
            raise RateLimited(f"chat: at most one message every {chat.EVERY:g} s; slow down")
        line = {
            "id": line_id, "seat": speaker.seat, "name": speaker.name, "text": text, "at": now,
            "account": speaker.account,
        }  # fmt: skip
        for c in self.conns:
            c.give_chat(line)
        self.host.publish(self.id, "chat")

    async def _heard(self) -> None:
        if not self.conns:
            return
        for line in await self.host.db(self.host.chat.last_chat, self.id, CHAT_HEARD):
            for c in self.conns:
                c.give_chat(line)

    async def _reblock(self, cmd: Reblock) -> None:
        """Whom ``cmd.account`` blocks changed: its sockets here hear by the new list from now on."""
        mine = [c.speaker for c in self.conns if c.speaker is not None and c.speaker.account == cmd.account]
        if mine:
            blocked = await self.host.db(self.host.chat.blocked_by, cmd.account)
            for speaker in mine:
                speaker.blocked = blocked

    async def _chat_deleted(self) -> None:
        """The moderator deleted lines: every socket is told, then given the lines left."""
        lines = await self.host.db(self.host.chat.last_chat, self.id, chat.HISTORY)
        for c in self.conns:
            if c.speaker is not None:
                c.speaker.seen.clear()
            c.send(messages.chat_deleted())
            for line in lines:
                c.give_chat(line)

    async def _rematched(self, cmd: Rematched) -> None:
        row = self._row()
        if row.rematch is not None:
            return
        row.rematch = cmd.table or await self.host.db(self.host.chat.rematch_of, self.id)
        if row.rematch is not None:
            self._to_all(messages.rematch(row.rematch))

    # -- seats ---------------------------------------------------------------------------------
    async def _join(self, cmd: Join) -> Joined:
        await self._sync()
        row, state = self._row(), self._state()
        plan = d.join(row, cmd.seat, cmd.name, cmd.token, secrets.token_urlsafe(24), cmd.owner, cmd.invite)
        if not plan.new:
            return {"seat": plan.seat, "token": plan.token, "table": self.id}
        if plan.back:
            await self._take_back(plan.seat, plan.name, d.hash_token(plan.token), plan.account)
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
            at=now,
            write=True,
        )
        if fresh is None:
            await self._sync()
            raise SeatTaken(f"seat {plan.seat} is taken")
        fresh.seq = self._row().seq
        self.row = fresh
        self._announce()
        self._push(again=True)
        self.host.publish(self.id, "table")
        return {"seat": plan.seat, "token": plan.token, "table": self.id}

    async def _leave(self, cmd: Leave) -> LeftSeat:
        await self._sync()
        row = self._row()
        seat, held = d.leave(row, cmd.token)
        if row.status == "playing" and row.seats[seat].abandoned is None:
            # Leaving a game in progress abandons the seat (docs/web.md, Leaving and abandoned seats).
            if not await self._abandon(seat, "left", held):
                raise BadToken("token: not a seat's token at this table")
            return {"ok": True, "seat": seat}
        if not await self.host.db(self.host.repo.leave, self.id, seat, held, write=True):
            raise BadToken("token: not a seat's token at this table")
        s = row.seats[seat]
        name = s.name
        s.name, s.token_hash = None, None
        self._drop_left()
        # Every viewer's log says so (a name is public: the table shows it to all).
        self._to_all(messages.left(seat, name))
        self._announce()
        self.host.publish(self.id, "table")
        return {"ok": True, "seat": seat}

    async def _abandon(self, seat: int, how: str, held: str | None = None) -> bool:
        """Seat ``seat`` is abandoned (``left``: through leave, with its token ``held``; ``gone``: no
        socket for the time allowed), decided on the row as it stands: a stand-in plays it, or the
        table ends (an abort, a forfeit). True once stored; False if the seat cannot be (another
        server abandoned it first, the game ended, the token no longer holds it)."""
        host = self.host
        for _ in range(3):  # a move stored meanwhile through another server: decide again on it
            row, state = self._row(), self._state()
            if row.status != "playing" or row.seats[seat].abandoned is not None:
                return False
            if how == "gone" and self._decide().kind != "abandon":
                return False  # back, or seen through another server since: nothing to do
            plan = absence.abandon(row, state, seat, how)
            before = absence.seat_news(row)
            ok = await host.db(host.repo.abandon, self.id, row.seq, plan, held, write=True)
            if ok:
                absence.abandoned(row, plan)
                self._drop_left()
                self._tell(before)
                self._announce()
                if plan.end is not None:
                    self._push(again=True)
                    if row.rated and plan.end.result is None:
                        host.ended(self.id)
                host.publish(self.id, "table")
                return True
            await self._sync()
        return False

    async def _take_back(self, seat: int, name: str, token_hash: str, account: str | None) -> None:
        """A person sits down at the abandoned seat ``seat``: its stand-in stops (a move it is still
        thinking of is refused when it comes), and the seat is the person's from now on."""
        host, now = self.host, self.host.now()
        before = absence.seat_news(self._row())
        if not await host.db(host.repo.take_back, self.id, seat, name, token_hash, account, now, write=True):
            await self._sync()
            raise SeatTaken(f"seat {seat} is taken")
        s = self._row().seats[seat]
        s.abandoned, s.agent, s.name, s.token_hash, s.account = None, None, name, token_hash, account
        s.seen, s.waited = now, 0.0
        self._drop_left()  # the sockets of a token that was only gone and is not this one
        self._tell(before)
        self._announce()
        self._push(again=True)  # its legal moves, if it is the seat's turn
        host.publish(self.id, "table")

    async def _watch(self, cmd: Watch) -> None:
        """Refused (``private_table``) unless these may see a private table (:func:`d.may_watch`)."""
        if not d.may_watch(self._row(), cmd.invite, cmd.token, cmd.account):
            await self._sync()  # a seat taken a moment ago through another server counts too
            d.check_watch(self._row(), cmd.invite, cmd.token, cmd.account)

    async def _record(self) -> dict[str, Any]:
        await self._sync()
        return rebuild.record(self._row(), self._state())

    async def _replay(self, cmd: Replay) -> dict[str, Any]:
        rebuild.check_replay_seat(self._row(), cmd.seat)
        rec = await self._record()
        return await asyncio.to_thread(rebuild.replay, self._row(), rec, cmd.seat)

    # -- between servers -----------------------------------------------------------------------
    async def _notice(self, cmd: Notice) -> None:
        """Another server changed the table (or this one's listener came back): read it again."""
        changed = await self._sync()
        self._drop_left()
        if cmd.kind == "table" or changed:
            self._announce()
        self._push(again=True)

    async def _leased(self, cmd: Lease) -> None:
        """This server just took the table's lease: taking it over may have moved the clock on."""
        self.lease_until = cmd.until
        if await self._sync():
            self._announce()
            self._push(again=True)

    # -- hints ---------------------------------------------------------------------------------
    def _hint(self, cmd: Hint) -> None:
        """A hint for ``seat``: one search per seat and position, answered to every socket of that
        seat that asked."""
        row, state = self._row(), self._state()
        d.check_hint(row, state, cmd.seat, cmd.seq)
        key = (cmd.seat, row.seq)
        waiting = self._hints.get(key)
        if waiting is not None:
            waiting.add(cmd.conn)
            return
        job = d.job(row, state, "hint")
        if job is None:
            raise Stale("the position changed; ask again")
        self._hints[key] = {cmd.conn}
        jobs.spawn(self._ask_hint(key, job, state, cmd.conn.address))

    async def _ask_hint(self, key: tuple[int, int], job: d.Job, state: State, address: str) -> None:
        self.post(Hinted(key, await jobs.hint(self.host, job, state.game, address=address)))

    def _hinted(self, cmd: Hinted) -> None:
        for c in self._hints.pop(cmd.key, set()):
            c.hinting = False
            c.send(cmd.answer)

    # -- what is due ---------------------------------------------------------------------------
    async def _schedule(self) -> None:
        """After every command: what is due now, and do it."""
        due = await self._due()
        self._cancel_timer()
        if due.kind == "wait":
            assert due.at is not None
            self._set_timer(due.at)
        elif due.kind == "forfeit":
            await self._forfeit()
        elif due.kind == "abandon":
            assert due.seat is not None
            await self._abandon(due.seat, "gone")
        elif due.kind == "over":
            await self._game_over()
        elif due.kind in ("bot", "timeout"):
            self._send_move(due.kind)

    async def _due(self) -> d.Due:
        """What is due, decided on the row as it stands once this server holds the lease (nothing,
        if another server holds it). Clocks, bots and absent seats share this one path: each is a
        deadline on the table row (or a bot to move), and the timer is set for the nearest."""
        due = self._decide()
        if due.kind == "none" or not await self._lease(self.host.now()):
            return d.Due("none")
        # Taking the lease over reads the row again (the clock moved on by the time no server ran the
        # table): what is due is decided again on that row, never on the one from before.
        due = self._decide()
        if due.kind == "abandon":  # other servers mark the seats they hold as seen: read them first
            await self._sync()
            due = self._decide()
        return due

    def _decide(self) -> d.Due:
        host = self.host
        return d.due(self._row(), self._state(), host.now(), self.connected(), host.abandon_seconds)

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

    def _set_timer(self, at: float) -> None:
        delay = max(0.0, at - self.host.now()) + 0.02
        self._timer = asyncio.get_running_loop().call_later(delay, self.poke)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def _forfeit(self) -> None:
        """The seat to move ran out of time under ``on_timeout: forfeit``: the table ends."""
        end = d.forfeit(self._row(), self._state(), self.host.now())
        if end is not None:
            await self._end(*end)

    async def _game_over(self) -> None:
        """The game is over but the row still says playing (a table made before games over when
        dealt ended at once): the table ends with the game's returns."""
        await self._end(list(self._state().returns()), None)

    async def _end(self, returns: list[float], forfeit: int | None) -> None:
        """The table ends now, with ``returns`` (and the seat that forfeits), unless it moved on."""
        row, host = self._row(), self.host
        if await host.db(host.repo.finish, self.id, row.seq, returns, forfeit, write=True):
            row.status, row.returns, row.forfeit, row.deadline = "over", returns, forfeit, None
            if row.rated:
                host.ended(self.id)
            self._announce()
            self._push(again=True)
            host.publish(self.id, "table")
        else:
            await self._sync()
            self._push(again=True)

    def _send_move(self, source: str) -> None:
        """A bot's move, or the best agent's for a seat out of time, to the workers (unless one is
        out for this position and not yet lost: web/jobs.py)."""
        row, state = self._row(), self._state()
        if self._out.waiting(row.seq, self.host.job_seconds("bot")):
            return
        job = d.job(row, state, source)
        if job is None:
            return
        self._out.send(row.seq)
        people = any(s.kind == "human" for s in row.seats)  # someone waits for this move
        turns = row.turns_key or f"table:{self.id}"  # its turn at the workers (an older table: its own)
        # Only a bot's own move is held when forced (web/pace.py): no legal list for a timed-out seat.
        forced = source == "bot" and len(state.legal_actions()) == 1
        jobs.spawn(self._think(job, turns, people, forced))

    async def _think(self, job: d.Job, turns: str, urgent: bool, forced: bool) -> None:
        try:
            text = await jobs.move(self.host, job, turns=turns, urgent=urgent, forced=forced)
        except Exception as e:  # noqa: BLE001 - the lease loop looks again
            log.warning("gamester: table %s: bot move failed: %s", self.id, type(e).__name__)
            self.post(Unthink(job.seq))
            return
        self.post(Move(job.seq, job.player, text, "bot" if job.kind == "bot" else "timeout"))


def _seats(row: TableRow) -> list[tuple[str | None, str | None]]:
    return [(s.name, s.token_hash) for s in row.seats]
