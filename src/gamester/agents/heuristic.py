"""``heuristic``: a good human player's rules of thumb for each game (see ``docs/agents.md``).

The rules are the game's own, offered by its kit (``game.kit().heuristic``); each reads only the
seat's view (its observation and the legal actions). Ties are broken by the seeded generator, so a
seeded heuristic is deterministic.
"""

from __future__ import annotations

import random
from typing import Any

from gamester.agents.base import Agent, View, seed_param
from gamester.core.errors import AgentError
from gamester.core.kit import Kit
from gamester.core.protocol import Game
from gamester.core.rng import make_rng


def heuristic_kit(name: str, game: Game) -> Kit:
    """``game``'s kit, if it offers a heuristic; else the error agent ``name`` gives."""
    kit = game.kit()
    if not kit.has_heuristic:
        raise AgentError(
            f"agent {name!r} needs the game's heuristic, and {game.name!r} offers none; try 'ismcts'"
        )
    return kit


class HeuristicAgent(Agent):
    name = "heuristic"

    def __init__(self, game: Game | None = None, seed: Any = None) -> None:
        self.rng: random.Random = make_rng(seed_param(seed))
        if game is not None:
            heuristic_kit(self.name, game)

    def step(self, view: View) -> int:
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        kit = heuristic_kit(self.name, view.game)
        return kit.heuristic(view, view.observation(), legal, self.rng)
