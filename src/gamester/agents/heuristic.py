"""``heuristic``: a good human player's rules of thumb for each game (see ``docs/agents.md``).

The agent dispatches on ``view.game.name`` to a per-game module in ``gamester.agents.heuristics``;
each reads only ``view.observation()`` and the legal actions. Ties are broken by the seeded
generator, so a seeded heuristic is deterministic.
"""

from __future__ import annotations

import importlib
import random
from typing import Any

from gamester.agents.base import Agent, View, seed_param
from gamester.core.errors import AgentError
from gamester.core.protocol import Game

GAMES = ("penneech", "piquesept", "pentyrch")


class HeuristicAgent(Agent):
    name = "heuristic"

    def __init__(self, game: Game | None = None, seed: Any = None) -> None:
        self.rng = random.Random(seed_param(seed))
        if game is not None and game.name not in GAMES:
            raise AgentError(f"agent 'heuristic' knows {', '.join(GAMES)}, not {game.name!r}")

    def step(self, view: View) -> int:
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        name = view.game.name
        if name not in GAMES:
            raise AgentError(f"agent 'heuristic' knows {', '.join(GAMES)}, not {name!r}")
        module = importlib.import_module(f"gamester.agents.heuristics.{name}")
        action: int = module.choose(view, view.observation(), legal, self.rng)
        return action
