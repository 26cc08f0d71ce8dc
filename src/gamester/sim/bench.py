"""Random playouts through the public API, for ``gamester bench`` and ``benchmarks/``.

Only ratios between peers run in the same process mean anything on a shared machine, so every
function here returns counts and elapsed time and leaves the comparing to its caller.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from gamester.core.protocol import Game


@dataclass
class Tally:
    actions: int = 0
    games: int = 0
    seconds: float = 0.0

    @property
    def actions_per_second(self) -> float:
        return self.actions / self.seconds if self.seconds else 0.0

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    def add(self, other: Tally) -> None:
        self.actions += other.actions
        self.games += other.games
        self.seconds += other.seconds


def random_playouts(game: Game, seconds: float, seed: int = 0) -> Tally:
    """Uniformly random complete games (dealing included) for about ``seconds``."""
    rng = random.Random(seed)
    randrange = rng.randrange
    actions = games = 0
    clock = time.perf_counter
    start = clock()
    deadline = start + seconds
    new = game.new_initial_state
    while clock() < deadline:
        for _ in range(20):
            s = new(seed=seed + games)
            games += 1
            legal = s.legal_actions
            apply = s.apply_action
            while not s.is_terminal():
                la = legal()
                apply(la[randrange(len(la))])
                actions += 1
    return Tally(actions, games, clock() - start)


def interleave(runners: dict[str, Callable[[float], Tally]], rounds: int = 6,
               seconds: float = 0.5) -> dict[str, Tally]:
    """Run each runner for ``seconds``, in turn, ``rounds`` times, so machine noise hits all alike."""
    totals = {name: Tally() for name in runners}
    for _ in range(rounds):
        for name, run in runners.items():
            totals[name].add(run(seconds))
    return totals
