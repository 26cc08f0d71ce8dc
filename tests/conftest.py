"""Shared helpers for the test suite."""

from __future__ import annotations

import os
import random

from gamester.core.protocol import State

# A server's bot holds its move after a completed trick for the pages (docs/web.md): 1.5 s a trick,
# minutes over the suite's games. Off for every server the tests start (in this process or as a
# program), but the tests of the hold itself, which ask for it.
os.environ.setdefault("GAMESTER_TRICK_HOLD", "0")


def play_random(state: State, rng: random.Random, max_actions: int = 100_000) -> State:
    """Play uniformly random legal actions until the game ends."""
    n = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
        n += 1
        assert n < max_actions, "game did not end"
    return state
