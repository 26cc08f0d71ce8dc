"""Bot moves and hints in worker processes, each with a time budget.

The worker gets the table's record (to rebuild the position) and the player it acts for, and hands
the agent only ``View(state, player)``: what that seat knows. A budget is enforced inside the worker
with a timer signal; a bot that overruns it plays the heuristic agent's move instead (and, should that
fail too, a seeded random legal move), so a table never stalls on a slow or broken agent.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from typing import Any, cast

from gamester.agents import View, make_agent
from gamester.core.record import replay
from gamester.core.rng import choice, make_rng


class _OverBudget(BaseException):
    """Raised by the timer inside a worker; a BaseException so agents' ``except Exception`` miss it."""


def _alarm(_sig: int, _frame: Any) -> None:
    raise _OverBudget


def _with_budget(seconds: float, fn: Any, *args: Any) -> Any:
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, max(0.01, seconds))
    try:
        return fn(*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def choose(
    record: dict[str, Any], player: int, spec: str, budget: float, seed: int, lesson: str | None = None
) -> str:
    """The move (in notation) of agent ``spec`` for ``player`` in the record's position; at a lesson's
    table (``lesson``: the lesson's id) the lesson's own move there (its line, web/lessons.py)."""
    state = replay(record)
    if lesson is not None:
        from gamester.web.lessons import bot_move

        return bot_move(lesson, state)
    view = View(state, player)
    legal = view.legal_actions()
    if not legal:
        raise ValueError(f"player {player} has no move here")
    if len(legal) == 1:
        return state.action_to_string(legal[0])

    def think(s: str) -> int:
        return int(make_agent(s, game=state.game, seed=seed).step(View(state.clone(), player)))

    for s, limit in ((spec, budget), ("heuristic", max(1.0, budget / 4))):
        try:
            a = _with_budget(limit, think, s)
        except (_OverBudget, Exception):  # noqa: BLE001 - any failure falls back to a safer agent
            continue
        if a in legal:
            return state.action_to_string(a)
    return state.action_to_string(choice(make_rng(seed), legal))


def evaluate(record: dict[str, Any], player: int, spec: str, budget: float, seed: int) -> dict[str, Any]:
    """The hint for ``player``: the agent's action (notation) and its estimated win probability."""
    state = replay(record)
    view = View(state, player)
    if not view.legal_actions():
        raise ValueError(f"player {player} has no move here")

    def think() -> dict[str, Any] | None:
        agent = make_agent(spec, game=state.game, seed=seed)
        out = agent.evaluate(View(state.clone(), player))
        if out is None:
            return {"action": agent.step(View(state.clone(), player)), "win_probability": None}
        return out

    result = _with_budget(budget, think)
    if result is None:
        raise ValueError("no evaluation")
    action = int(result["action"])
    wp = result.get("win_probability")
    return {
        "action": state.action_to_string(action),
        "win_probability": None if wp is None else round(float(wp), 4),
    }


def warm_up() -> bool:
    """Imported and ready (the first job should not pay for the imports)."""
    return True


def _worker_init() -> None:
    # Ctrl-C reaches the whole process group: the server stops its workers itself, quietly.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class _Spawning:
    """The ``spawn`` context (the server has threads and an event loop, which fork would copy half-way)
    that keeps the worker processes it starts, so their pool can end them."""

    def __init__(self) -> None:
        self._ctx = multiprocessing.get_context("spawn")
        self.started: list[BaseProcess] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ctx, name)

    def Process(self, *args: Any, **kwargs: Any) -> BaseProcess:  # noqa: N802 - the context's name
        p = self._ctx.Process(*args, **kwargs)
        self.started.append(p)
        return p


class WorkerPool(ProcessPoolExecutor):
    """The bot (or review) workers: a process pool that can be stopped at once."""

    def __init__(self, workers: int) -> None:
        self._spawning = _Spawning()
        context = cast(BaseContext, self._spawning)
        super().__init__(max_workers=max(1, workers), mp_context=context, initializer=_worker_init)

    def stop_now(self) -> None:
        """Stop without waiting: queued jobs are dropped and a worker deep in a search is ended."""
        self.shutdown(wait=False, cancel_futures=True)
        for p in self._spawning.started:
            with contextlib.suppress(Exception):
                if p.is_alive():
                    p.terminate()


def make_pool(workers: int) -> WorkerPool:
    return WorkerPool(workers)
