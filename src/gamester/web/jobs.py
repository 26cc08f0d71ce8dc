"""Work for the bot workers: a bot's move, the best agent's move for a seat out of time, a hint.

A room hands a :class:`~gamester.web.decisions.Job` to :func:`move` or :func:`hint`; each waits for
its turn at the workers (web/fair.py), runs there within its budget and comes back as the room's next
command (``Move``/``Unthink``, ``Hinted``). One rule covers every job: one not answered within
:func:`lost_after` its budget is taken as lost — the worker pool gives up on it, so its turn goes to
the next, and the room asks again, so a table never waits for ever. A late answer to a lost job is
then refused as stale or applied once, never twice (the seq guard).

A bot's move also keeps its timing from telling how many moves it had (web/pace.py): a forced one is
held as long as that agent's real decisions take.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from gamester.core.protocol import Game
from gamester.web import bots, messages
from gamester.web.decisions import Job, hint_parts
from gamester.web.fair import address_key
from gamester.web.pace import ThinkTimes


def lost_after(budget: float) -> float:
    """Seconds after which a job with ``budget`` seconds is taken as lost: three budgets and ten
    seconds (room for a loaded machine, a worker starting up, a turn at the workers)."""
    return 3 * budget + 10.0


class Workers(Protocol):
    """What a job needs of the server (the registry)."""

    think_times: ThinkTimes

    def in_worker(
        self, fn: Callable[..., Any], *args: Any, key: str = "", urgent: bool = True, kind: str = "bot"
    ) -> Awaitable[Any]: ...

    def job_seconds(self, kind: str) -> float: ...


@dataclass
class Out:
    """The one move job a room has out at the workers: for which seq, sent when (monotonic)."""

    seq: int | None = None
    since: float = 0.0

    def send(self, seq: int) -> None:
        self.seq, self.since = seq, time.monotonic()

    def back(self, seq: int) -> None:
        """The job for ``seq`` answered (or failed): nothing is out for it any more."""
        if self.seq == seq:
            self.seq = None

    def waiting(self, seq: int, budget: float) -> bool:
        """Whether a job for ``seq`` is out and not yet lost: then there is nothing to send."""
        return self.seq == seq and time.monotonic() - self.since <= lost_after(budget)


async def move(workers: Workers, job: Job, *, turns: str, urgent: bool, forced: bool) -> str:
    """The move (notation) a worker chose for ``job`` (a ``bot`` or a ``timeout`` job). ``turns``: the
    key its turn at the workers is taken under; ``urgent``: a person waits for it; ``forced``: the bot
    had one legal move (held back like a real decision)."""
    budget = workers.job_seconds("bot")
    started = time.monotonic()
    text: str = await workers.in_worker(
        bots.choose, job.record, job.player, job.spec, budget, job.seed, job.lesson, key=turns, urgent=urgent
    )
    if job.kind == "bot":  # its timing must not tell how many moves it had (web/pace.py)
        took, times = time.monotonic() - started, workers.think_times
        if forced:
            await asyncio.sleep(times.hold(job.spec, took, budget))
        else:
            times.thought(job.spec, took)
    return text


async def hint(workers: Workers, job: Job, game: Game, *, address: str) -> messages.Hint | messages.Error:
    """The hint message for ``job`` in ``game`` (its turn at the workers taken as ``address``), or
    the error saying none could be worked out in time."""
    try:
        out = await workers.in_worker(
            bots.evaluate,
            job.record,
            job.player,
            job.spec,
            workers.job_seconds("hint"),
            job.seed,
            key=address_key(address),  # a hint takes turns as the address that asked
            kind="hint",
        )
    except Exception:  # noqa: BLE001 - over budget, lost, or no evaluation
        return messages.error("hint_unavailable", "no hint could be computed in time")
    move = hint_parts(game, out["action"]).get("move")
    return messages.hint(job.seq, out["action"], out["win_probability"], move)
