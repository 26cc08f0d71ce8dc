"""``GET /api/health``: whether this server can store a move now.

The answer comes from a real write to the database (a row written and rolled back, see
:meth:`~gamester.store.port.TableRepository.probe`), bounded in time: a database that is down, full,
read-only, locked or whose file was deleted under the server gives ``503`` with ``"ok": false`` and
one line saying why, within about ``HEALTH_SECONDS``. One probe runs at a time; callers that arrive
while it runs share its answer (a flood of health checks costs one probe, not a thread each).
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.concurrency import run_in_threadpool

from gamester.store.port import TableRepository

HEALTH_SECONDS = 3.0


class DatabaseHealth:
    def __init__(self, repo: TableRepository, seconds: float = HEALTH_SECONDS) -> None:
        self.repo = repo
        self.seconds = seconds
        self._running: asyncio.Future[str | None] | None = None

    async def problem(self) -> str | None:
        """None if the database takes a write now, else why not."""
        if self._running is None or self._running.done():
            self._running = asyncio.ensure_future(self._probe())
        return await asyncio.shield(self._running)

    async def _probe(self) -> str | None:
        try:
            return await asyncio.wait_for(run_in_threadpool(self.repo.probe, self.seconds), self.seconds + 1)
        except TimeoutError:
            return f"the database did not answer within {self.seconds + 1:g} s"
        except Exception as e:  # noqa: BLE001 - any failure to probe is an unhealthy database
            return f"the database cannot be reached ({type(e).__name__})"

    async def answer(self) -> tuple[int, dict[str, Any]]:
        """(HTTP status, body) of ``/api/health``."""
        from gamester import __version__  # the release (docs/deploy.md, Upgrades)

        problem = await self.problem()
        if problem is None:
            return 200, {"ok": True, "database": "ok", "version": __version__}
        return 503, {"ok": False, "database": problem, "version": __version__}
