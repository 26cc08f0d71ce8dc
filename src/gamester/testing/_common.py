"""What the checks share: a game from a spec, seeded random play, and failing with a message."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import gamester
from gamester.core.protocol import Game, State
from gamester.core.rng import below, make_rng

GameLike = Game[Any] | str
"""A game object, or a spec such as ``"penneech(ruleset=ohio)"`` for a registered game."""


class CheckFailed(AssertionError):
    """A check of :mod:`gamester.testing` found the game breaking the protocol; the message says how.
    An ``AssertionError``, so test runners report it as a failed test."""


def expect(condition: object, message: object = "") -> None:
    """Fail with ``message`` unless ``condition`` holds (unlike ``assert``, never switched off by -O)."""
    if not condition:
        raise CheckFailed(str(message))


def as_game(game: GameLike) -> Game[Any]:
    return gamester.load_game(game) if isinstance(game, str) else game


def play_random(state: State, rng: random.Random, max_actions: int = 100_000) -> State:
    """Play uniformly random legal actions until the game ends."""
    n = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[below(rng, len(legal))])
        n += 1
        expect(n < max_actions, f"{state.game.spec()}: no end after {max_actions} actions")
    return state


def random_positions(game: GameLike, seed: int, every: int = 1) -> Iterator[State]:
    """Positions of one seeded random game (every ``every``-th one), up to and including the end.
    The same state object moves on: clone one to keep it."""
    g = as_game(game)
    rng = make_rng(seed)
    state = g.new_initial_state(seed=seed)
    i = 0
    while True:
        if i % every == 0 or state.is_terminal():
            yield state
        if state.is_terminal():
            return
        legal = state.legal_actions()
        state.apply_action(legal[below(rng, len(legal))])
        i += 1
