"""What Piquesept offers search (``gamester.core.kit``): the heuristic (``heuristic.py``) and its fast
playout on a sampled world, the exact solver of the rest of a deal (``solver.py``), and a typed
read-only view of a sampled world (:meth:`PiqueseptKit.world_view`).

Everything here that reads a world reads a state the agent sampled itself through ``determinize``.
"""

from __future__ import annotations

import random
from typing import Any

from gamester.core.kit import Kit, View
from gamester.core.protocol import State
from gamester.games.piquesept import heuristic, position, solver
from gamester.games.piquesept.game import PiqueseptGame, PiqueseptState
from gamester.games.piquesept.worlds import PiqueseptWorld


class PiqueseptKit(Kit):
    has_heuristic = True
    recommended_agent = "rollout:worlds=30"
    skill_ladder = "rollout:worlds={}"

    def __init__(self, game: PiqueseptGame) -> None:
        super().__init__(game)
        self.solver = solver  # the module offers the Solver protocol's three functions

    def heuristic(self, view: View, obs: dict[str, Any], legal: list[int], rng: random.Random) -> int:
        return heuristic.choose(view, obs, legal, rng)

    def playout(self, world: State, legal: list[int], rng: random.Random) -> int:
        """The heuristic's choice for the seat to move, from what that seat knows in ``world``, without
        building its observation (``heuristic.seen_from_world``)."""
        assert isinstance(world, PiqueseptState)
        return heuristic.decide(heuristic.seen_from_world(world), legal, rng)

    def deal_history(self, world: State) -> tuple[State, list[int]]:
        """The world replayed from its packs to the start of its current deal (earlier deals of a
        match played through, until the engine deals this one), and the actions of this deal: the
        first trick, the give, the rest. A state read from a position (a world of one is a position
        of its own) starts at the position's deal as dealt."""
        assert isinstance(world, PiqueseptState)
        start, done = self.record_start(world)
        assert isinstance(start, PiqueseptState)
        if world.chance.origin is not None:
            # The position holds its deal's plays: the deal as dealt is the position without them,
            # read with every outcome after the deal's pack (the trade's card, later deals).
            chance = [world.game.format_chance(e) for e in world.chance.entries()]
            text = position.write(start, plays=[], drawn=-1, seed=0)
            start, done = position.read(world.game, text, chance[1:]), 0
        actions = world._actions()
        while start._deal_no < world._deal_no:
            start.apply_action(actions[done])
            done += 1
        return start, actions[done:]

    def world_view(self, world: State) -> PiqueseptWorld:
        """A read-only snapshot of a sampled ``world``, every hand in the open (:class:`PiqueseptWorld`)."""
        assert isinstance(world, PiqueseptState)
        return world.world_view()


KIT = PiqueseptKit
"""The kit the game's engine finds by name (``Game._make_kit``)."""
