"""Reviews of finished tables on the server: ``POST /api/tables/{id}/review {"seat": N}`` → 202, then
``GET /api/tables/{id}/review?seat=N`` → ``{"status": "working"}`` or ``{"status": "done", …}`` with
the JSON ``gamester review --json`` prints (:mod:`gamester.agents.review`).

A review is seconds of search, so it runs in a process of its own, never in the web process or the
bot workers (a review never delays a bot's move). Each seat of a table is reviewed once: the outcome is
stored with the table, so every server answers the ``GET`` and a second request costs nothing.

What one client may take of it (docs/web.md, Fair play):

- At most ``max_waiting`` reviews wait or run on one server at once, and at most ``per_address`` of
  them for one client address (``429 rate_limited`` beyond); addresses take turns at the review
  worker, so four requests from one address do not keep everyone else's waiting behind them.
- A review has a time budget (``budget_seconds``, ``GAMESTER_REVIEW_SECONDS``, default 60): when the
  first decisions show that the whole game would not fit, the rest are reviewed on fewer worlds,
  and when even those do not, the review stops at the budget and covers the decisions before; it
  then says so (``"limited": {"worlds", "reviewed", "decisions"}``). A worker still busy well past the
  budget is stopped and the review stored as failed.
- A review's age counts from when it started to run, not from when it was asked for: one waiting in
  line is never taken for a server's that died, and a review left ``working`` by a server that died is
  taken over by the next request only ``stale_seconds`` after it started.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from typing import Any

from gamester.agents.review import decisions
from gamester.web import lessons
from gamester.web.bots import WorkerPool, make_pool
from gamester.web.commands import Public, Record
from gamester.web.errors import BadInput, NotFound, RateLimited
from gamester.web.fair import FairGate, address_key
from gamester.web.registry import Registry

log = logging.getLogger("gamester.web")

GRACE_SECONDS = 30.0
"""How long past its budget a review worker may take to stop by itself (one decision's search)."""


MIN_WORLDS = 8
"""The fewest worlds a decision is reviewed on, however long the game."""


def review_in_worker(
    record: dict[str, Any], player: int, seed: int, budget: float = math.inf, lesson: str | None = None
) -> dict[str, Any]:
    """Run in the review worker: the review of ``player`` in a complete record, decision by decision
    (the same jobs ``gamester review`` spreads over its workers, so the same answer when it fits in
    ``budget`` seconds). When the decisions reviewed so far say the rest will not fit, the rest are
    reviewed on fewer worlds (never under :data:`MIN_WORLDS`), and no decision draws a world past the
    budget; when the budget runs out, the review stops there. Either way it says so under
    ``limited``. At a lesson's table the pupil's review judges only the choices the lesson left to
    the pupil (web/lessons.py, ``reviewable``); the moves the lesson made for it are counted, not
    judged."""
    from gamester.agents import best_agent_spec
    from gamester.agents.review import WORLDS, measure_of, review_job, review_json
    from gamester.core.record import replay

    spec = best_agent_spec(replay({**record, "actions": []}).game)
    every = decisions(record, player)
    todo = every
    if lesson is not None and player == lessons.pupil(lesson):
        todo = lessons.reviewable(lesson, record["actions"])
    start = time.monotonic()
    worlds, fewest, last, steps = WORLDS, WORLDS, 0.0, []
    for n, i in enumerate(todo):
        spent = time.monotonic() - start
        if n and spent >= budget:
            break
        share = (budget - spent) / (len(todo) - n)  # what is left, shared by what is left to review
        if last > share:  # the last decision took more than that: fewer worlds from here on
            worlds = max(MIN_WORLDS, min(worlds, int(worlds * share / last)))
        fewest = min(fewest, worlds)
        began = time.monotonic()
        steps.append(review_job((record, player, i, spec, worlds, seed), deadline=start + budget))
        last = time.monotonic() - began
    lesson_moves = len(every) - len(todo) if todo is not every else None
    out = review_json(player, steps, lesson_moves=lesson_moves, measure=measure_of(record["game"]))
    if fewest < WORLDS or len(steps) < len(todo):
        out["limited"] = {"worlds": fewest, "reviewed": len(steps), "decisions": len(todo)}
    return out


class ReviewDesk:
    """Takes review requests, runs them one worker process at a time, stores what they found."""

    def __init__(
        self,
        registry: Registry,
        *,
        max_waiting: int = 8,
        per_address: int = 2,
        budget_seconds: float = 60.0,
        stale_seconds: float = 600.0,
        clock: Any = time.time,
    ) -> None:
        self.reg = registry
        self.server_id = registry.server_id
        self.max_waiting = max_waiting
        self.per_address = per_address
        self.budget = budget_seconds
        self.stale_seconds = stale_seconds
        self.now = clock
        self._pool: WorkerPool | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._by_address: dict[str, int] = {}
        # Addresses take turns at the one review worker (web/fair.py).
        self.line = FairGate(1, 1)

    def queued(self) -> int:
        """Reviews waiting or running on this server."""
        return len(self._tasks)

    async def _seat(self, table_id: str, seat: Any) -> tuple[int, dict[str, Any]]:
        """The seat asked for, checked against the table, and the table as anyone sees it."""
        public: dict[str, Any] = await self.reg.call(table_id, Public())
        n = len(public["seats"])
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise BadInput(f"seat: expected a player number from 0 to {n - 1}", code="bad_seat")
        return seat, public

    async def status(self, table_id: str, seat: Any) -> dict[str, Any]:
        """What ``GET …/review?seat=N`` answers (404 ``no_review`` if none was asked for)."""
        seat, _ = await self._seat(table_id, seat)
        row = await self.reg.db(self.reg.repo.review, table_id, seat)
        if row is None:
            raise NotFound(f"no review of seat {seat} was asked for; POST it first", code="no_review")
        if row.status == "done":
            return {"status": "done", **row.result}
        if row.status == "failed":
            return {"status": "failed", "message": str(row.result)}
        return {"status": "working"}

    async def request(self, table_id: str, seat: Any, address: str = "?") -> dict[str, Any]:
        """``POST …/review``: ``{"status": "working"|"done"}``, the review claimed and queued here
        unless it is done or under way; refused (``RateLimited``) past the server's line or
        ``address``'s share of it."""
        record = await self.reg.call(table_id, Record())  # NotOver until the game is over
        seat, public = await self._seat(table_id, seat)
        now = self.now()
        row = await self.reg.db(self.reg.repo.review, table_id, seat)
        if row is not None and (
            row.status == "done" or (row.status == "working" and row.started >= now - self.stale_seconds)
        ):
            return {"status": row.status}
        wait = self.budget * (len(self._tasks) + 1)
        if len(self._tasks) >= self.max_waiting:
            raise RateLimited(
                f"{self.max_waiting} reviews are already waiting here; ask again later", retry_after=wait
            )
        key = address_key(address)
        if self._by_address.get(key, 0) >= self.per_address:
            raise RateLimited(
                f"this address already has {self.per_address} reviews waiting here; ask again later",
                retry_after=wait,
            )
        claim = self.reg.repo.claim_review
        if await self.reg.db(
            claim, table_id, seat, self.server_id, now, now - self.stale_seconds, write=True
        ):
            self._by_address[key] = self._by_address.get(key, 0) + 1
            lesson = public.get("tutorial")
            task = asyncio.get_running_loop().create_task(self._queued(key, table_id, seat, record, lesson))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return {"status": "working"}

    async def _queued(
        self, key: str, table_id: str, seat: int, record: dict[str, Any], lesson: str | None
    ) -> None:
        try:
            await self.line.run(key, lambda: self._run(table_id, seat, record, lesson))
        finally:
            left = self._by_address.get(key, 1) - 1
            if left > 0:
                self._by_address[key] = left
            else:
                self._by_address.pop(key, None)

    async def _run(self, table_id: str, seat: int, record: dict[str, Any], lesson: str | None) -> None:
        """Its turn: still ours (not taken over meanwhile), its age starts now, and it has the budget."""
        start = self.reg.repo.start_review
        if not await self.reg.db(start, table_id, seat, self.server_id, self.now(), write=True):
            return  # another server took it over while it waited here: not made twice
        loop = asyncio.get_running_loop()
        if self._pool is None:
            self._pool = make_pool(1)
        try:
            job = loop.run_in_executor(self._pool, review_in_worker, record, seat, 0, self.budget, lesson)
            out: Any = await asyncio.wait_for(job, self.budget + GRACE_SECONDS)
            status = "done"
        except TimeoutError:  # the worker did not stop at its budget: stopped, so the next one runs
            self._stop_pool()
            status, out = "failed", "the review ran over its time budget"
        except Exception as e:  # noqa: BLE001 - a failed review is stored as failed, never raised
            log.warning("review of %s seat %d failed: %s", table_id, seat, e)
            status, out = "failed", f"the review could not be made: {type(e).__name__}"
        with contextlib.suppress(Exception):
            await self.reg.db(
                self.reg.repo.finish_review, table_id, seat, self.server_id, status, out, write=True
            )

    def _stop_pool(self) -> None:
        if self._pool is not None:
            self._pool.stop_now()
            self._pool = None

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._stop_pool()
