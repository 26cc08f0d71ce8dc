"""``pimc``: perfect-information Monte Carlo — sample worlds, solve each exactly, vote.

For Penneech and Piquesept. Each decision draws ``worlds`` full states with ``view.determinize(rng)``
(the opponents' cards and, in Penneech, the stock order — hence every future trump of the deal), solves
every legal action in each world by alpha-beta with a transposition table over the remaining tricks of
the current deal, and plays the action whose value, averaged over the worlds, is best. ``seconds=``
caps the time instead: worlds are solved until it runs out (at least one).

Any game whose kit offers an exact solver (``game.kit().solver``) can be played. What a world is worth
(see the games' solvers, ``games/<game>/solver.py``):

* Penneech: the game is a race to the target, so a deal's end is scored by an estimate of seat 0's
  chance to win the game from the scores it leaves (a normal race model: points still needed against
  the spread of the deals still to come), and reaching the target inside the deal counts 1 or 0 on
  the spot. Far from the target this orders outcomes like the point difference; near it, it knows that
  a point that wins is worth more than ten that do not. With ``objective=deal`` the value is the
  deal's point difference.
* Piquesept: the side's card points decide the deal (66 wins); the value is the return the seat gets,
  with the card points as a small tie-breaker.

``infer=policy`` (``pool=N``) solves worlds resampled by how likely an opponent model makes the other
players' moves in them (``gamester.agents.belief``).

``evaluate`` returns the chosen action and its averaged value as the win probability (Penneech) — an
optimistic figure, since each world is solved as if every card were seen.
"""

from __future__ import annotations

import time
from typing import Any

from gamester.agents.base import EvaluatingAgent, View, float_param, int_param, seed_param
from gamester.agents.belief import infer_param, pool_param, with_inference, world_source
from gamester.core.errors import AgentError
from gamester.core.kit import Solver
from gamester.core.protocol import Game
from gamester.core.rng import make_rng


def solver_of(game: Game) -> Solver:
    solver = game.kit().solver
    if solver is None:
        raise AgentError(
            f"agent 'pimc' solves sampled worlds exactly, and {game.name!r} offers no solver; try 'ismcts'"
        )
    return solver


class PIMCAgent(EvaluatingAgent):
    name = "pimc"

    def __init__(
        self,
        game: Game | None = None,
        worlds: Any = 20,
        seconds: Any = None,
        seed: Any = None,
        infer: Any = "none",
        pool: Any = 16,  # belief.POOL, spelt out: a compiled signature shows only literal defaults
    ) -> None:
        self.worlds = int_param("worlds", worlds, 1)
        self.infer = infer_param(self.name, infer)
        self.pool = pool_param(pool)
        self.seconds = float_param("seconds", seconds) if seconds is not None else None
        self.rng = make_rng(seed_param(seed))
        if game is not None:
            solver_of(game)

    def evaluate(self, view: View) -> dict[str, Any]:
        solver = solver_of(view.game)
        legal = view.legal_actions()
        if not legal:
            raise AgentError("agent 'pimc': it is not this seat's turn")
        fixed = solver.fixed_choice(view, legal, self.rng)
        if fixed is not None:
            return {"action": fixed, "win_probability": None, "worlds": 0, "values": {}}
        totals = dict.fromkeys(legal, 0.0)
        clock = time.perf_counter
        deadline = None if self.seconds is None else clock() + self.seconds
        worlds = world_source(view, self.rng, self.infer, self.pool)
        done = 0
        while done < self.worlds if deadline is None else (done == 0 or clock() < deadline):
            world = worlds.draw()
            values = solver.solve_actions(world, view.player)
            for a in legal:
                totals[a] += values[a]
            done += 1
        means = {a: totals[a] / done for a in legal}
        best = max(legal, key=lambda a: (round(means[a], 9), -legal.index(a)))
        return with_inference(
            {
                "action": best,
                "win_probability": solver.as_probability(means[best], view),
                "value": means[best],
                "worlds": done,
                "values": {view.action_to_string(a): round(v, 4) for a, v in means.items()},
            },
            worlds,
        )
