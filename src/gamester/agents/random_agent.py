"""The uniformly random agent: the baseline every other agent must beat."""

from __future__ import annotations

from typing import Any

from gamester.agents.base import Agent, View, seed_param
from gamester.core.protocol import Game
from gamester.core.rng import below, make_rng


class RandomAgent(Agent):
    name = "random"

    def __init__(self, game: Game | None = None, seed: Any = None) -> None:
        self.rng = make_rng(seed_param(seed))

    def step(self, view: View) -> int:
        legal = view.legal_actions()
        return legal[below(self.rng, len(legal))]
