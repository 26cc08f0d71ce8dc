"""Each seat's estimated chance of winning, from that seat's own view only (for ``analyse``).

The estimate of seat ``s`` at a decision is the share of ``worlds`` short playouts that seat ``s``
wins. Every playout starts from ``View(state, s).determinize(rng)``: a full state drawn consistent
with what ``s`` knows (its hand, the public cards, what play has revealed), never the true one; the
true state is only handed to :class:`~gamester.agents.base.View`, which exposes nothing else. So the
estimate is a function of the seat's information set (and of the generator), as the hidden-information
metrics require. The playouts come from the game's kit (``game.kit()``; ``docs/analysis.md``):

* A game with a rollout model (Penneech): its cheap policy to where the model stops (the end of the
  current deal), then the model's value (the race to the target) as a chance of winning.
* A game whose kit evaluates positions (Pentyrch): every seat plays like ``heuristic``
  (``kit.playout``) for ``horizon`` actions, then ``kit.static_value`` (each seat's work left) is
  turned into a share of the win (a team, ``State.teams``, adds its players' shares).
* Any other game (Piquesept): every seat plays like ``heuristic`` from its own view of the world to
  the end of the game (a Piquesept deal has at most 32 card plays); ``random`` without a heuristic.

A finished playout counts 1 for a seat among the winners, else 0 (a draw is not a win).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from gamester.agents.base import Agent, View, make_agent
from gamester.agents.ismcts import model_rollout
from gamester.core.errors import GameError
from gamester.core.protocol import Game, State
from gamester.core.record import winners
from gamester.core.rng import derive, make_rng

Playout = Callable[[State, int, random.Random], float]

HORIZON = 12
"""Playouts cut short by the kit's evaluation: actions played before it (Pentyrch: three rounds of four
seats)."""


def _terminal_chance(state: State, seat: int) -> float:
    return 1.0 if seat in winners(state) else 0.0


class Estimator:
    """``chances(state, key)``: each player's estimated chance of winning, each from its own view."""

    def __init__(self, game: Game, worlds: int = 8, seed: int = 0) -> None:
        if worlds < 1:
            raise GameError(f"the estimate needs at least one world per seat (got {worlds})")
        self.game = game
        self.worlds = worlds
        self.seed = seed
        self.playout = self._choose_playout(game)

    def _choose_playout(self, game: Game) -> Playout:
        kit = game.kit()
        if kit.rollout_model is not None:
            return self._model_playout
        if kit.has_move_scores:
            return self._horizon_playout
        self._policy_spec = "heuristic" if kit.has_heuristic else "random"
        self._policy: list[Agent] = []
        return self._agent_playout

    def chances(self, state: State, key: int) -> list[float]:
        """Every player's chance, each from its own view; seat ``s`` draws its worlds from a
        generator seeded by ``derive(key, "seat", s)`` alone, so its estimate depends on nothing but
        its view."""
        n = self.game.num_players
        return [self.chance(View(state, s), make_rng(derive(key, "seat", s))) for s in range(n)]

    def chance(self, view: View, rng: random.Random) -> float:
        """The share of ``worlds`` playouts from worlds drawn in ``view`` that its player wins."""
        seat = view.player
        if self.playout == self._agent_playout:
            # Fresh playout players for each estimate: their tie-breaks come from ``rng`` too.
            self._policy = [
                make_agent(self._policy_spec, game=self.game, seed=rng.getrandbits(32))
                for _ in range(self.game.num_players)
            ]
        total = 0.0
        for _ in range(self.worlds):
            total += self.playout(view.determinize(rng), seat, rng)
        return total / self.worlds

    # -- playouts (in a sampled world, which the estimator drew itself) ---------------------------
    def _model_playout(self, world: State, seat: int, rng: random.Random) -> float:
        model = world.game.kit().rollout_model
        assert model is not None
        value = model_rollout(world, model, rng)
        if value is None:
            return _terminal_chance(world, seat)
        # Zero-sum +1/-1 returns estimated from the race: a chance p is worth 2p - 1.
        return max(0.0, min(1.0, (value[seat] + 1.0) / 2.0))

    def _horizon_playout(self, world: State, seat: int, rng: random.Random) -> float:
        kit = world.game.kit()
        for _ in range(HORIZON):
            if world.is_terminal():
                return _terminal_chance(world, seat)
            legal = world.legal_actions()
            world.apply_action(legal[0] if len(legal) == 1 else kit.playout(world, legal, rng))
        if world.is_terminal():
            return _terminal_chance(world, seat)
        n = world.game.num_players
        value = kit.static_value(world)
        assert value is not None
        # Zero-sum returns r = p - (1 - p) / (n - 1); turned back into shares.
        shares = [(r * (n - 1) + 1.0) / n for r in value]
        team = next(t for t in world.teams() if seat in t)
        return max(0.0, min(1.0, sum(shares[p] for p in team)))

    def _agent_playout(self, world: State, seat: int, rng: random.Random) -> float:
        policy = self._policy
        while not world.is_terminal():
            p = world.current_player()
            legal = world.legal_actions()
            world.apply_action(legal[0] if len(legal) == 1 else policy[p].step(View(world, p)))
        return _terminal_chance(world, seat)
