"""Shared helpers for the test suite."""

from __future__ import annotations

import random

from gamester.core.protocol import State


def play_random(state: State, rng: random.Random, max_actions: int = 100_000) -> State:
    """Play uniformly random legal actions until the game ends."""
    n = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
        n += 1
        assert n < max_actions, "game did not end"
    return state
