"""The uniformly random agent: the baseline every other agent must beat."""

from __future__ import annotations

import random
from typing import Any

from gamester.agents.base import Agent, View, seed_param
from gamester.core.protocol import Game


class RandomAgent(Agent):
    name = "random"

    def __init__(self, game: Game | None = None, seed: Any = None) -> None:
        self.rng = random.Random(seed_param(seed))

    def step(self, view: View) -> int:
        legal = view.legal_actions()
        return legal[self.rng.randrange(len(legal))]
