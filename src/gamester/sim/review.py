"""``gamester review RECORD.json --seat N``: every decision of one player reviewed from its own view
(the estimator, its marks and its cost: ``gamester.agents.review`` and docs/review.md).

The decisions are independent jobs, each carrying the record, the index and the seeds, so they run in
worker processes (``--workers``) with a progress bar and give the same review wherever they run.
"""

from __future__ import annotations

from typing import Any

from gamester.agents import best_agent_spec
from gamester.agents.base import make_agent
from gamester.agents.review import WORLDS, Job, Step, decisions, measure_of, review_job, review_json
from gamester.core.errors import GameError
from gamester.core.record import replay
from gamester.sim.backend import run_jobs


def review_record(
    record: dict[str, Any],
    player: int,
    *,
    agent: str | None = None,
    worlds: int = WORLDS,
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
) -> dict[str, Any]:
    """The review of ``player``'s decisions in ``record`` as ``gamester review --json`` prints it."""
    steps = review_steps(record, player, agent, worlds, seed, workers, progress)
    return review_json(player, steps, measure=measure_of(record["game"]))


def review_steps(
    record: Any,
    player: int,
    agent: str | None = None,
    worlds: int = WORLDS,
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
) -> list[Step]:
    state = replay(record)  # checks every field first
    game = state.game
    n = game.num_players
    if not 0 <= player < n:
        raise GameError(f"--seat must be 0 to {n - 1} for this {game.name} record, not {player}")
    if worlds < 1:
        raise GameError(f"--worlds must be at least 1, not {worlds}")
    spec = agent or best_agent_spec(game)
    make_agent(spec, game=game)  # a bad spec fails here, in one line, before any work
    jobs: list[Job] = [(record, player, i, spec, worlds, seed) for i in decisions(record, player)]
    return list(
        run_jobs(review_job, jobs, workers=workers, desc=f"review player {player}", progress=progress)
    )
