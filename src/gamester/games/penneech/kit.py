"""What Penneech offers search (``gamester.core.kit``): the heuristic (one decision, read from a
seat's observation or, fast, from a sampled world: ``heuristic.py``), the exact solver of a deal and
the rollout model (``solver.py``), the race of deals to the target that ``futures`` scores
(:class:`PenneechRace`) and a read-only view of a sampled world (:meth:`PenneechKit.world_view`).
The rule primitives they share are ``rules.py``.

Everything here that reads a world reads a state the agent sampled itself through ``determinize``.
"""

from __future__ import annotations

import random
from typing import Any

from gamester.core.kit import Kit, View
from gamester.core.protocol import State
from gamester.games.penneech import heuristic, solver
from gamester.games.penneech.game import REDEAL, PenneechGame, PenneechState, PenneechWorld


class PenneechRace:
    """The game as a race of deals to ``target`` (docs/rules/penneech.md, Winning)."""

    def __init__(self, target: int) -> None:
        self.target = target

    def deal_number(self, world: State) -> int:
        # Read at every step of a playout (futures): the property, not a world_view() (4 us).
        assert isinstance(world, PenneechState)
        return world.deal_number

    def next_dealer(self, world: State) -> int:
        assert isinstance(world, PenneechState)
        return world.dealer

    def scores_before_next_deal(self, world: State) -> list[int]:
        """The scores with the next deal's first turn-up taken back (docs/rules/penneech.md, Turn-ups
        and trumps: the dealer turns up the first trump as the deal starts)."""
        assert isinstance(world, PenneechState)
        return world.scores_before_this_deal()

    def deal_replay(self, world: State) -> tuple[State, list[int]]:
        """The world at the first trick of its deal (the dealt hands, the first turn-up, no tricks
        yet), its target out of reach, and the card plays made since."""
        assert isinstance(world, PenneechState)
        return world.deal_opening(target=1 << 40)

    def restock(self, world: State, rng: random.Random) -> State:
        """``world`` with the unturned stock in a fresh order and a fresh generator for later deals."""
        assert isinstance(world, PenneechState)
        return world.restocked(rng)

    def race_now(self, view: View) -> float:
        obs = view.observation()
        mine, theirs = obs["scores"][view.player], obs["scores"][1 - view.player]
        return solver.race(mine, theirs, obs["target"])

    def chance(self, scores: list[int], seat: int) -> float:
        return solver.race(scores[seat], scores[1 - seat], self.target)


class PenneechKit(Kit):
    has_heuristic = True
    # infer=policy: it beats the same search reading the moves with the heuristic as its model (the
    # default of futures) at the same budget, +0.190 [+0.055, +0.325] a game (docs/agents.md,
    # "Reading the moves: what it buys").
    recommended_agent = "futures:worlds=300,infer=policy"
    skill_ladder = "rollout:worlds={}"

    def __init__(self, game: PenneechGame) -> None:
        super().__init__(game)
        self.rollout_model = solver.ROLLOUT
        self.solver = solver  # the module offers the Solver protocol's three functions
        self.race = None if game.options.objective == "deal" else PenneechRace(game.options.target)

    def world_view(self, world: State) -> PenneechWorld:
        """A read-only snapshot of a sampled ``world``, every card in the open (:class:`PenneechWorld`)."""
        assert isinstance(world, PenneechState)
        return world.world_view()

    def heuristic(self, view: View, obs: dict[str, Any], legal: list[int], rng: random.Random) -> int:
        return heuristic.choose(view, obs, legal, rng)

    def playout(self, world: State, legal: list[int], rng: random.Random) -> int:
        if legal[0] < 52:
            assert isinstance(world, PenneechState)
            return heuristic.fast_choose(world, legal)
        return super().playout(world, legal, rng)

    def deal_history(self, world: State) -> tuple[State, list[int]]:
        """The world at the first trick of its deal, exactly as it stood then (its scores before
        the points this deal has scored since), and the card plays made since."""
        assert isinstance(world, PenneechState)
        if world.is_terminal():
            return world.clone(), []
        probe, plays = world.deal_opening(target=1 << 40)
        if not plays:
            return world.clone(), []
        for a in plays:
            probe.apply_action(a)
        now, later = world.scores(), probe.scores()
        # The probe started from today's scores and scored the deal's points again on top of them.
        then = [2 * now[i] - later[i] for i in (0, 1)]
        return world.deal_opening(scores=then)

    def redraw_unseen(self, state: State, rng: random.Random) -> State:
        """Every hand where it is; the unturned stock (the future turn-ups) and later deals drawn
        afresh: no seat has seen them."""
        assert isinstance(state, PenneechState)
        world = state.restocked(rng)
        world.chance.given = None  # a replayed record's later deals stay unseen too
        return world

    def rule_choice(self, view: View, legal: list[int]) -> tuple[int, float] | None:
        """docs/rules/penneech.md, Dealing: the heuristic always throws an eligible hand in. A fresh
        deal is worth about nothing, so the estimate is the race from the present scores."""
        if REDEAL not in legal:
            return None
        if self.race is None:
            return REDEAL, 0.5
        return REDEAL, self.race.race_now(view)


KIT = PenneechKit
"""The kit the game's engine finds by name (``Game._make_kit``)."""
