"""Our games as PettingZoo AEC environments: ``env("penneech", ruleset="cotton")``.

Agents are ``player_0`` … in the protocol's player order; actions are the game's dense action ids
(``Discrete(num_distinct_actions)``). An observation is a ``Dict`` of ``"observation"`` (the game's
observation tensor for that player, float32) and ``"action_mask"`` (int8, 1 for the legal actions when
it is that player's turn, all 0 otherwise). Returns come as rewards when the game ends (zero before);
no game is cut short, so truncation never happens. An illegal action raises ``ValueError`` naming it
and changes nothing (no penalty move: the mask says what is legal).

Seeding: ``reset(seed=s)`` deals the game of seed ``s`` (the same cards as
``game.new_initial_state(seed=s)``); a ``reset()`` without a seed takes the next seed from the last
seeded one, so a seeded sequence of episodes repeats. ``render_mode="ansi"``: ``render()`` returns the
spectator's view as text (no hidden card). ``env.unwrapped.state`` is the gamester state.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped, unused-ignore]  # no py.typed marker
from pettingzoo.utils import wrappers  # type: ignore[import-untyped, unused-ignore]

from gamester.core.errors import GameError
from gamester.core.protocol import State
from gamester.core.registry import load_game
from gamester.core.rng import new_seed


class RawEnv(AECEnv):  # type: ignore[misc]  # pettingzoo has partial type information
    """The environment without PettingZoo's order-enforcing wrapper (``env`` adds it)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "name": "gamester", "is_parallelizable": False}

    def __init__(self, name: str, render_mode: str | None = None, **options: Any) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r}: the only render mode is 'ansi'")
        self.game = load_game(name, **options)
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"gamester_{self.game.name}_v{self.game.rules_version}")
        n = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        size = self.game.observation_tensor_size
        actions = self.game.num_distinct_actions
        # The tensors' scaling is each game's own: no common bound to promise, hence the open box.
        self._obs_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(-np.inf, np.inf, (size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (actions,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._act_spaces = {a: spaces.Discrete(actions) for a in self.possible_agents}
        self._seeds = random.Random()
        self._seeded = False
        self.state: State | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._act_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeds.seed(seed)
            self._seeded = True
            game_seed = int(seed)
        else:
            game_seed = self._seeds.getrandbits(63) if self._seeded else new_seed()
        self.state = self.game.new_initial_state(seed=game_seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    def _select(self) -> None:
        assert self.state is not None
        if self.state.is_terminal():
            if self.agents:
                self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[self.state.current_player()]

    def observe(self, agent: str) -> dict[str, np.ndarray[Any, Any]]:
        assert self.state is not None
        p = self._index[agent]
        obs = np.asarray(self.state.observation_tensor(p), dtype=np.float32)
        mask = np.zeros(self.game.num_distinct_actions, dtype=np.int8)
        if not self.state.is_terminal() and self.state.current_player() == p:
            mask[self.state.legal_actions()] = 1
        return {"observation": obs, "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self.state is not None
        a = int(action)
        if a not in self.state.legal_actions():
            raise ValueError(f"{agent}: action {a} is not legal here; legal: {self.state.legal_actions()}")
        try:
            self.state.apply_action(a)
        except GameError as e:
            raise ValueError(f"{agent}: {e}") from None
        self._cumulative_rewards[agent] = 0.0
        if self.state.is_terminal():
            returns = self.state.returns()
            for i, ag in enumerate(self.possible_agents):
                self.rewards[ag] = float(returns[i])
                self.terminations[ag] = True
        else:
            for ag in self.agents:
                self.rewards[ag] = 0.0
        self._select()
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        if self.state is None:
            return "(call reset() first)"
        s = self.state
        head = f"{s.game.spec()}: " + (
            "over, returns " + str(s.returns()) if s.is_terminal() else f"player_{s.current_player()} to move"
        )
        view = s.public_observation()
        lines = [head] + [f"  {k}: {json.dumps(v, separators=(',', ':'))}" for k, v in view.items()]
        return "\n".join(lines)

    def close(self) -> None:
        pass


def env(name: str, render_mode: str | None = None, **options: Any) -> AECEnv:
    """A PettingZoo AEC environment for game ``name`` (or a spec string) with ``options``."""
    e: AECEnv = RawEnv(name, render_mode=render_mode, **options)
    e = wrappers.OrderEnforcingWrapper(e)
    return e
