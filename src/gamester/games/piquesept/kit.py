"""What Piquesept offers search (``gamester.core.kit``): the heuristic (``heuristic.py``) and the exact
solver of the rest of a deal (``solver.py``)."""

from __future__ import annotations

import random
from typing import Any

from gamester.core.kit import Kit, View
from gamester.games.piquesept import heuristic, solver
from gamester.games.piquesept.game import PiqueseptGame


class PiqueseptKit(Kit):
    has_heuristic = True
    recommended_agent = "rollout:worlds=30"
    skill_ladder = "rollout:worlds={}"

    def __init__(self, game: PiqueseptGame) -> None:
        super().__init__(game)
        self.solver = solver  # the module offers the Solver protocol's three functions

    def heuristic(self, view: View, obs: dict[str, Any], legal: list[int], rng: random.Random) -> int:
        return heuristic.choose(view, obs, legal, rng)
