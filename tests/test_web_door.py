"""The room's door (issue 49): typed commands, refusals mapped at the edge, the jobs' lost-job rule,
chat through the room's queue, and SQLite writes that never make the event loop wait for a thread.

- every command class is one the room takes, and its ``match`` has a case for each; anything else is
  refused before it reaches the queue;
- every refusal class (web/errors.py) has its own HTTP status, and one WebSocket answer;
- a job is lost after ``jobs.lost_after`` its budget, the one rule both the room and the worker pool
  read;
- a chat line and a move from the same socket reach every socket in the order they were sent;
- a SQLite write asked for on the event loop while a thread holds the writer goes to a thread.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from gamester.core.errors import GameError
from gamester.store.port import StoreUnavailable
from gamester.web import chat, commands, edge, errors, jobs
from tests.web_helpers import client_on, join, new_table, next_view

SRC = Path(__file__).resolve().parent.parent / "src" / "gamester" / "web"


# -- commands ------------------------------------------------------------------------------------
def _command_classes() -> list[type[Any]]:
    return [
        c
        for _, c in inspect.getmembers(commands, inspect.isclass)
        if issubclass(c, commands.Command) and c is not commands.Command and c.__module__ == commands.__name__
    ]


def test_every_command_is_one_the_room_takes_and_is_frozen() -> None:
    found = _command_classes()
    assert len(found) >= 18, found
    assert set(found) == set(commands.COMMANDS), "a command class missing from RoomCommand (or one extra)"
    for c in found:
        assert c.__dataclass_params__.frozen, f"{c.__name__} is not a frozen dataclass"  # type: ignore[attr-defined]


def test_the_rooms_match_has_one_case_per_command() -> None:
    """The type checker holds the match exhaustive (``assert_never``); this holds each case to exist
    once, so no command is handled twice or by a catch-all."""
    tree = ast.parse((SRC / "room.py").read_text(encoding="utf-8"))
    run = next(n for n in ast.walk(tree) if isinstance(n, ast.AsyncFunctionDef) and n.name == "_run")
    match = next(n for n in ast.walk(run) if isinstance(n, ast.Match))
    cases = [
        c.pattern.cls.id
        for c in match.cases
        if isinstance(c.pattern, ast.MatchClass) and isinstance(c.pattern.cls, ast.Name)
    ]
    assert sorted(cases) == sorted(c.__name__ for c in commands.COMMANDS)
    last = match.cases[-1].pattern
    assert isinstance(last, ast.MatchAs) and last.pattern is None, "the match ends in `case _: assert_never`"


def test_a_room_refuses_what_is_not_a_command() -> None:
    from gamester.web.room import Room

    async def go() -> None:
        room = Room("nope", host=None)  # type: ignore[arg-type]
        try:
            with pytest.raises(TypeError):
                await room.call("act")  # type: ignore[arg-type]
            assert room._queue.empty()
        finally:
            room.stop()

    asyncio.run(go())


# -- refusals at the edge ------------------------------------------------------------------------
def _refusal_classes() -> list[type[errors.Refused]]:
    return [
        c
        for _, c in inspect.getmembers(errors, inspect.isclass)
        if issubclass(c, errors.Refused) and c.__module__ == errors.__name__
    ]


def test_every_refusal_has_its_own_http_status_and_a_socket_answer() -> None:
    classes = _refusal_classes()
    assert len(classes) >= 15
    for c in classes:
        assert c in edge.HTTP_STATUS, f"{c.__name__} has no line in edge.HTTP_STATUS"
        e = c("why, in one line")
        assert 400 <= edge.http_status(e) < 500
        assert c.code and c.code.islower()
        if c in edge.WS_CLOSE:
            assert edge.ws_close(e) == edge.WS_CLOSE[c]
        else:
            assert edge.ws_close(e) is None
            assert edge.ws_error(e) == {"type": "error", "code": c.code, "message": "why, in one line"}
    assert set(edge.HTTP_STATUS) == set(classes), "a status for a class errors.py does not define"


def test_the_wire_of_a_few_refusals_is_as_before() -> None:
    """The statuses and codes the API has always given (docs/web.md)."""
    seen = {
        errors.SeatTaken("seat 1 is taken"): (409, "seat_taken"),
        errors.NoTable("no table 'x'"): (404, "no_table"),
        errors.BadToken("not a seat's token"): (403, "bad_token"),
        errors.NotOver("once it is over"): (403, "not_over"),
        errors.Conflict("once it is over", code="not_over"): (409, "not_over"),
        errors.BadInput("seat: a number", code="bad_seat"): (422, "bad_seat"),
        errors.Malformed("not JSON", code="bad_json"): (400, "bad_json"),
        errors.RateLimited("slow down"): (429, "rate_limited"),
        errors.NotLoggedIn("log in"): (401, "not_logged_in"),
        errors.NotPlaying("over", code="game_over"): (400, "game_over"),
    }
    for e, (status, code) in seen.items():
        assert (edge.http_status(e), e.code) == (status, code)
    assert edge.ws_close(errors.Left("left")) == 1008


def test_other_failures_over_a_socket() -> None:
    assert edge.ws_error(GameError("bad card"))["code"] == "bad_message"
    assert edge.ws_error(StoreUnavailable("the database is unavailable; try again")) == {
        "type": "error",
        "code": "unavailable",
        "message": "the database is unavailable; try again",
    }
    bug = edge.ws_error(KeyError("secret position detail"))
    assert bug["code"] == "server_error" and "secret" not in bug["message"]


# -- the jobs' lost-job rule ---------------------------------------------------------------------
def test_a_job_is_lost_after_three_budgets_and_ten_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    assert jobs.lost_after(10.0) == 40.0 and jobs.lost_after(0.0) == 10.0
    now = [100.0]
    monkeypatch.setattr(jobs.time, "monotonic", lambda: now[0])
    out = jobs.Out()
    assert not out.waiting(3, 1.0), "nothing out yet"
    out.send(3)
    now[0] += jobs.lost_after(1.0)
    assert out.waiting(3, 1.0) and not out.waiting(4, 1.0)
    now[0] += 0.01
    assert not out.waiting(3, 1.0), "past lost_after: asked again"
    out.back(4)
    assert out.seq == 3
    out.back(3)
    assert out.seq is None


def test_the_worker_pool_gives_a_lost_job_up_by_the_same_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registry.in_worker reads jobs.lost_after (not a copy of it): a job that never answers gives its
    turn at the workers back once the rule says it is lost."""
    from gamester.web.notifier import LocalNotifier
    from gamester.web.registry import Registry

    asked: list[float] = []

    def quick(budget: float) -> float:
        asked.append(budget)
        return 0.05

    monkeypatch.setattr(jobs, "lost_after", quick)

    async def never(self: Registry, fn: Any, *args: Any) -> Any:
        await asyncio.Event().wait()

    monkeypatch.setattr(Registry, "_in_pool", never)

    async def go() -> None:
        reg = Registry(None, None, LocalNotifier(), server_id="t", inline_writes=False, hint_seconds=7.0)  # type: ignore[arg-type]
        with pytest.raises(TimeoutError):
            await reg.in_worker(print, key="k", kind="hint")
        assert reg.gate.busy == 0, "the lost job's slot was not given back"

    asyncio.run(go())
    assert asked == [7.0]


# -- chat ----------------------------------------------------------------------------------------
def test_a_speakers_allowance() -> None:
    """A line spends the allowances of the speaker's address, account and seat at the table, all or
    none (web/fair.py's chat_keys; the store takes them: tests/test_web_fair_rules.py)."""
    keys = ["t|a:1", "t|u:ann", "t|s:0"]
    buckets = chat.allowance(keys)
    assert [b.key for b in buckets] == keys and {(b.kind, b.burst, b.every) for b in buckets} == {
        ("chat", chat.BURST, chat.EVERY)
    }


def _next_of(ws: Any, *kinds: str) -> dict[str, Any]:
    for _ in range(200):
        m: dict[str, Any] = ws.receive_json()
        if m["type"] in kinds:
            return m
    raise AssertionError(f"no {kinds}")


@pytest.mark.slow  # a server and three sockets
def test_chat_and_moves_reach_every_socket_in_the_order_they_were_sent(tmp_path: Path) -> None:
    """Chat goes through the room's queue like a move: a line sent before a move is seen before its
    view by every socket, one sent after it after (with a chat hub beside the room, a line could
    overtake the move it followed)."""
    with client_on(tmp_path / "c.db") as c:
        tid = new_table(c, "penneech", ["human", "human"])
        toks = [join(c, tid, 0, "Ann"), join(c, tid, 1, "Bob")]
        with (
            c.websocket_connect(f"/ws/tables/{tid}?token={toks[0]}") as ann,
            c.websocket_connect(f"/ws/tables/{tid}?token={toks[1]}") as bob,
            c.websocket_connect(f"/ws/tables/{tid}") as spy,
        ):
            views = [next_view(ws) for ws in (ann, bob, spy)]
            mover, other = (ann, bob) if views[0]["legal"] else (bob, ann)
            legal = (views[0]["legal"] or views[1]["legal"])[0]
            mover.send_json({"type": "chat", "text": "here goes"})
            mover.send_json({"type": "act", "action": legal, "seq": 0})
            mover.send_json({"type": "chat", "text": "your turn"})
            for ws in (mover, other, spy):
                seen = []
                while len(seen) < 3:
                    m = _next_of(ws, "chat", "view")
                    seen.append(m["text"] if m["type"] == "chat" else f"view {m['seq']}")
                assert seen == ["here goes", "view 1", "your turn"], seen


# -- SQLite writes and the event loop ------------------------------------------------------------
def test_a_write_goes_to_a_thread_while_a_thread_holds_the_writer(tmp_path: Path) -> None:
    """On SQLite a write runs on the event loop only when the writer is free; while a thread holds it
    (an account's write, a rating), the write waits in a thread and the loop goes on serving."""
    from gamester.store import open_repository
    from gamester.web.notifier import LocalNotifier
    from gamester.web.registry import Registry

    repo = open_repository(f"sqlite:///{tmp_path / 'w.db'}")
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with repo.write():
            held.set()
            release.wait(30)

    async def go() -> None:
        reg = Registry(repo, None, LocalNotifier(), server_id="t", inline_writes=True)  # type: ignore[arg-type]
        loop_thread = threading.current_thread()
        ran_on: list[threading.Thread] = []

        def write() -> None:
            with repo.write():
                ran_on.append(threading.current_thread())

        await reg.db(write, write=True)
        assert ran_on == [loop_thread], "a free writer: inline"
        holder = threading.Thread(target=hold)
        holder.start()
        assert await asyncio.to_thread(held.wait, 30)
        pending = asyncio.ensure_future(reg.db(write, write=True))
        ticks = 0
        start = time.monotonic()
        while ticks < 20 and time.monotonic() - start < 30:  # the loop is not blocked meanwhile
            await asyncio.sleep(0.005)
            ticks += 1
        assert ticks == 20 and not pending.done(), "the write waited for the thread's, off the loop"
        release.set()
        await pending
        assert ran_on[1] is not loop_thread
        holder.join()

    try:
        asyncio.run(go())
    finally:
        release.set()
        repo.dispose()


# -- one command at a time, in order, whoever runs it ---------------------------------------------
class _Host:
    """Just enough of the registry for a room with no database: every write waits for ``gate``."""

    lease_seconds = 10.0
    server_id = "t"

    def __init__(self) -> None:
        from gamester.web.pace import ThinkTimes

        self.gate = asyncio.Event()
        self.think_times = ThinkTimes()
        self.repo = self
        self.chat = self

    def append_action(self, *args: Any, **kwargs: Any) -> bool:
        return True

    async def db(self, fn: Any, *args: Any, write: bool = False, **kwargs: Any) -> Any:
        if write:
            await self.gate.wait()
        return fn(*args, **kwargs)

    def publish(self, table_id: str, kind: str) -> None:
        pass

    def now(self) -> float:
        return time.time()

    def ended(self, table_id: str) -> None:
        pass

    def job_seconds(self, kind: str) -> float:
        return 1.0

    async def in_worker(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("no jobs here")


def test_a_command_runs_at_once_when_the_room_is_free_and_in_order_when_not() -> None:
    """The first move runs in its caller's task; a command arriving while it awaits its write waits in
    the queue, and one arriving after it finished still runs after the queued one."""
    from gamester.web import decisions as d
    from gamester.web.room import Room

    row, state = d.new_table("penneech", {}, ["human", "human"], None, table_id="t", seed=7, now=0.0)
    row.status = "playing"
    mover = state.current_player()
    action = sorted(state.legal_action_strings())[0]

    async def go() -> list[str]:
        host = _Host()
        room = Room("t", host, row=row, state=state)  # type: ignore[arg-type]
        ran: list[str] = []
        real = room._run

        async def run(cmd: Any) -> object:
            ran.append(type(cmd).__name__ if not isinstance(cmd, commands.Public) else f"Public{len(ran)}")
            return await real(cmd)

        room._run = run  # type: ignore[method-assign]
        caller = asyncio.current_task()
        tasks: list[asyncio.Task[Any]] = []

        async def act() -> int:
            assert asyncio.current_task() is not caller
            seq = await room.call(commands.Act(mover, action, 0))
            return seq

        tasks.append(asyncio.ensure_future(act()))
        await asyncio.sleep(0.01)  # the act runs now, in its own task, and waits for its write
        assert ran == ["Act"] and room._turn.locked()
        queued = asyncio.ensure_future(room.call(commands.Public(fresh=False)))
        await asyncio.sleep(0.01)
        assert ran == ["Act"], "a command arriving meanwhile waits"
        host.gate.set()
        # Its first step comes right after the act's last one, when the room's task has taken the
        # queued command but not yet run it: this one must not slip in before it.
        later = asyncio.ensure_future(room.call(commands.Public(fresh=False)))
        assert await tasks[0] == 1
        first, second = await queued, await later
        assert first["seq"] == second["seq"] == 1
        room.stop()
        return ran

    assert asyncio.run(go()) == ["Act", "Public1", "Public2"]
