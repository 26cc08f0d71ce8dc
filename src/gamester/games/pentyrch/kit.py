"""What Pentyrch offers search (``gamester.core.kit``): the heuristic (``heuristic.py``), its fast copy
on a sampled world's move tuples, the board effect of each move and a race evaluation (``policy.py``),
and a read-only view of a sampled world (:meth:`PentyrchKit.world_view`)."""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Any

from gamester.core.kit import Kit, View
from gamester.core.protocol import State
from gamester.games.pentyrch import heuristic, policy, views
from gamester.games.pentyrch.game import PentyrchState
from gamester.games.pentyrch.worlds import PentyrchWorld


class PentyrchKit(Kit):
    has_heuristic = True
    has_move_scores = True
    has_observation_turn = True
    recommended_agent = "lookahead:worlds=8"
    skill_ladder = "lookahead:worlds={}"

    def heuristic(self, view: View, obs: dict[str, Any], legal: list[int], rng: random.Random) -> int:
        return heuristic.choose(view, obs, legal, rng)

    def world_view(self, world: State) -> PentyrchWorld:
        """A read-only view of a sampled ``world``'s board and the hand to move (:class:`PentyrchWorld`)."""
        assert isinstance(world, PentyrchState)
        return world.world_view()

    def playout(self, world: State, legal: list[int], rng: random.Random) -> int:
        assert isinstance(world, PentyrchState)
        return policy.heuristic_move(world, legal, rng)

    def scored_actions(self, world: State, legal: list[int]) -> list[tuple[float, int, Hashable]]:
        """The heuristic's score of each legal action, and what it does on the board (which court card
        goes where; payments differ only in their cost)."""
        assert isinstance(world, PentyrchState)
        return [(score, a, (m[0], m[2])) for score, a, m in policy.scored_moves(world, legal)]

    def static_value(self, world: State) -> list[float]:
        return policy.race_values(world)

    def observation_turn(self, world: State) -> tuple[int, ...]:
        """The board turned to the seat to move (``views.TURNS``): every seat's home, goal and
        forward are the others' turned a quarter, and suits never matter but to name a card."""
        assert isinstance(world, PentyrchState)
        return views.TURNS[world.current_seat()]


KIT = PentyrchKit
"""The kit the game's engine finds by name (``Game._make_kit``)."""
