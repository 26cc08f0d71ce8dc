"""OpenSpiel's own search as a gamester agent: ``openspiel-ismcts:simulations=N`` or ``:seconds=S``.

The agent runs OpenSpiel's Python ``ISMCTSBot`` (random rollouts, UCT) on our games through the
OpenSpiel adapter. It never sees the true state: the root and every sampled world come from its
seat's :class:`~gamester.agents.base.View` (``view.determinize``), given to the bot through its
resampler hook. With ``seconds`` the bot's own search steps (``sample_root_state``,
``run_simulation``, ``get_final_policy``) are driven until the time is up instead of for a fixed
count. Registered through the ``gamester.agents`` entry-point group (``pyproject.toml``), so the
agents package never imports this one.
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found, unused-ignore]  # no stubs: the openspiel extra
from open_spiel.python.algorithms import (  # type: ignore[import-untyped, unused-ignore]
    ismcts,
    mcts,
)

from gamester.agents.base import Agent, View, float_param, int_param, seed_param
from gamester.core.errors import AgentError
from gamester.core.protocol import Game
from gamester.interop.openspiel import GamesterGame, for_engine


class SearchBot(ismcts.ISMCTSBot):  # type: ignore[misc]  # open_spiel has no type information
    """``ISMCTSBot`` usable by ``evaluate_bots`` (it keeps nothing between moves) and, with
    ``seconds``, searching for a time instead of a number of simulations."""

    def __init__(
        self,
        game: pyspiel.Game,
        *,
        simulations: int = 1000,
        seconds: float | None = None,
        uct_c: float = 2.0,
        seed: int | None = None,
    ) -> None:
        rs = np.random.RandomState(seed)
        super().__init__(game, mcts.RandomRolloutEvaluator(1, rs), uct_c, simulations, random_state=rs)
        self.seconds = seconds
        self.simulations_done = 0

    def restart_at(self, state: pyspiel.State) -> None:
        pass  # nothing is kept from one move to the next

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        pass

    def run_search(self, state: pyspiel.State) -> list[tuple[int, float]]:
        if self.seconds is None:
            self.simulations_done = self._max_simulations
            policy: list[tuple[int, float]] = super().run_search(state)
            return policy
        self.reset()
        legal = state.legal_actions()
        if len(legal) == 1:
            return [(legal[0], 1.0)]
        root = self.create_new_node(state)
        deadline = time.perf_counter() + self.seconds
        n = 0
        while n < 2 or time.perf_counter() < deadline:  # (two: the first only expands the root)
            self.run_simulation(self.sample_root_state(state))
            n += 1
        self.simulations_done = n
        policy = self.get_final_policy(state, root)
        return policy


class OpenSpielISMCTSAgent(Agent):
    """OpenSpiel's ISMCTS with random rollouts, searching worlds drawn from its own seat's view."""

    name = "openspiel-ismcts"

    def __init__(
        self,
        game: Game | None = None,
        simulations: Any = None,
        seconds: Any = None,
        uct_c: Any = 2.0,
        seed: Any = None,
    ) -> None:
        if simulations is not None and seconds is not None:
            raise AgentError("openspiel-ismcts: give simulations=N or seconds=S, not both")
        self.simulations = 1000 if simulations is None else int_param("simulations", simulations, 1)
        self.seconds = None if seconds is None else float_param("seconds", seconds)
        if self.seconds is not None and self.seconds <= 0:
            raise AgentError(f"parameter seconds={seconds!r} must be more than 0")
        self.uct_c = float_param("uct_c", uct_c)
        seed_value = seed_param(seed)
        self._rng = random.Random(seed_value)
        self._seeded = seed_value is not None  # then each bot's numpy seed comes from _rng
        self.name = (
            f"openspiel-ismcts:seconds={self.seconds:g}"
            if self.seconds is not None
            else f"openspiel-ismcts:simulations={self.simulations}"
        )
        self._games: dict[Game, GamesterGame] = {}
        self.last_simulations = 0

    def _game(self, game: Game) -> GamesterGame:
        g = self._games.get(game)
        if g is None:
            g = self._games[game] = for_engine(game)
        return g

    def step(self, view: View) -> int:
        legal = view.legal_actions()
        if not legal:
            raise AgentError("openspiel-ismcts: asked to move when it is not its turn")
        if len(legal) == 1:
            return legal[0]
        game = self._game(view.game)
        rng = self._rng
        bot = SearchBot(
            game,
            simulations=self.simulations,
            seconds=self.seconds,
            uct_c=self.uct_c,
            seed=rng.getrandbits(32) if self._seeded else None,
        )
        # Every world, the root's included, is dealt from the seat's view: the bot never sees the
        # true state, and its information-state keys are those of the seat.
        bot.set_resampler(lambda _state, _player: game.state_at(view.determinize(rng)))
        root = game.state_at(view.determinize(rng))
        action = int(bot.step(root))
        self.last_simulations = bot.simulations_done
        if action not in legal:
            raise AgentError(f"openspiel-ismcts chose {action}, which is not legal here")
        return action


def make(
    game: Game | None = None, simulations: Any = None, seconds: Any = None, uct_c: Any = 2.0, seed: Any = None
) -> OpenSpielISMCTSAgent:
    """The ``openspiel-ismcts`` agent spec's factory (``gamester.agents`` entry point)."""
    return OpenSpielISMCTSAgent(game, simulations, seconds, uct_c, seed)
