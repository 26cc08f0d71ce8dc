"""Reviews of finished tables on the server: ``POST /api/tables/{id}/review {"seat": N}`` → 202, then
``GET /api/tables/{id}/review?seat=N`` → ``{"status": "working"}`` or ``{"status": "done", …}`` with
the JSON ``gamester review --json`` prints (:mod:`gamester.agents.review`).

A review is seconds of search, so it runs in a process of its own, never in the web process or the
bot workers (a review never delays a bot's move). Each seat of a table is reviewed once: the outcome is
stored with the table, so every server answers the ``GET`` and a second request costs nothing. At most
``max_waiting`` reviews wait or run on one server at once; beyond that the request is refused
(``429 rate_limited``) rather than queued without end. A review left ``working`` by a server that died
is taken over by the next request after ``stale_seconds``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from concurrent.futures import Executor
from typing import Any

from gamester.agents.review import decisions
from gamester.web.bots import make_pool
from gamester.web.commands import Public, Record
from gamester.web.errors import BadInput, NotFound, RateLimited
from gamester.web.registry import Registry

log = logging.getLogger("gamester.web")


def review_in_worker(record: dict[str, Any], player: int, seed: int) -> dict[str, Any]:
    """Run in the review worker: the review of ``player`` in a complete record, decision by decision
    (the same jobs ``gamester review`` spreads over its workers, so the same answer)."""
    from gamester.agents import best_agent_spec
    from gamester.agents.review import WORLDS, review_job, review_json
    from gamester.core.record import replay

    spec = best_agent_spec(replay({**record, "actions": []}).game)
    jobs = [(record, player, i, spec, WORLDS, seed) for i in decisions(record, player)]
    return review_json(player, [review_job(job) for job in jobs])


class ReviewDesk:
    """Takes review requests, runs them one worker process at a time, stores what they found."""

    def __init__(
        self,
        registry: Registry,
        *,
        max_waiting: int = 4,
        stale_seconds: float = 600.0,
        clock: Any = time.time,
    ) -> None:
        self.reg = registry
        self.server_id = registry.server_id
        self.max_waiting = max_waiting
        self.stale_seconds = stale_seconds
        self.now = clock
        self._pool: Executor | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def queued(self) -> int:
        """Reviews waiting or running on this server."""
        return len(self._tasks)

    async def _seat(self, table_id: str, seat: Any) -> int:
        n = len((await self.reg.call(table_id, Public()))["seats"])
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise BadInput(f"seat: expected a player number from 0 to {n - 1}", code="bad_seat")
        return seat

    async def status(self, table_id: str, seat: Any) -> dict[str, Any]:
        """What ``GET …/review?seat=N`` answers (404 ``no_review`` if none was asked for)."""
        seat = await self._seat(table_id, seat)
        row = await self.reg.db(self.reg.repo.review, table_id, seat)
        if row is None:
            raise NotFound(f"no review of seat {seat} was asked for; POST it first", code="no_review")
        if row.status == "done":
            return {"status": "done", **row.result}
        if row.status == "failed":
            return {"status": "failed", "message": str(row.result)}
        return {"status": "working"}

    async def request(self, table_id: str, seat: Any) -> dict[str, Any]:
        """``POST …/review``: ``{"status": "working"|"done"}``, the review claimed and started here
        unless it is done or under way."""
        record = await self.reg.call(table_id, Record())  # NotOver until the game is over
        seat = await self._seat(table_id, seat)
        now = self.now()
        row = await self.reg.db(self.reg.repo.review, table_id, seat)
        if row is not None and (
            row.status == "done" or (row.status == "working" and row.started >= now - self.stale_seconds)
        ):
            return {"status": row.status}
        if len(self._tasks) >= self.max_waiting:
            raise RateLimited(f"{self.max_waiting} reviews are already waiting here; ask again later")
        claim = self.reg.repo.claim_review
        if await self.reg.db(
            claim, table_id, seat, self.server_id, now, now - self.stale_seconds, write=True
        ):
            task = asyncio.get_running_loop().create_task(self._run(table_id, seat, record))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return {"status": "working"}

    async def _run(self, table_id: str, seat: int, record: dict[str, Any]) -> None:
        loop = asyncio.get_running_loop()
        if self._pool is None:
            self._pool = make_pool(1)
        try:
            out: Any = await loop.run_in_executor(self._pool, review_in_worker, record, seat, 0)
            status = "done"
        except Exception as e:  # noqa: BLE001 - a failed review is stored as failed, never raised
            log.warning("review of %s seat %d failed: %s", table_id, seat, e)
            status, out = "failed", f"the review could not be made: {type(e).__name__}"
        with contextlib.suppress(Exception):
            await self.reg.db(
                self.reg.repo.finish_review, table_id, seat, self.server_id, status, out, write=True
            )

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._pool is not None:
            # A review deep in its search would hold the server's exit up (issue 44): end it.
            procs = list((getattr(self._pool, "_processes", None) or {}).values())
            self._pool.shutdown(wait=False, cancel_futures=True)
            for p in procs:
                with contextlib.suppress(Exception):
                    p.terminate()
            self._pool = None
