"""The agents' fast paths against the plain code they stand in for (docs/compiled.md: a hot loop may
spell something out once more only if a test ties the two).

Each pair must give exactly the same numbers, so that the agents' decisions stay what
``tests/test_agent_fingerprints.py`` pins, in the pure and in the compiled build.
"""

from __future__ import annotations

import random
from bisect import bisect_left

import pytest

from gamester.agents import futures
from gamester.agents.base import make_agent
from gamester.core.registry import load_game


def _race_by_bisection(bank: futures.Bank, dealer: int, need0: int, need1: int) -> float:
    """The race as the bank's docstring defines it: in each game the first event at which each seat
    reaches what it needs; the earlier wins, the same event (or never) is half each."""
    runs0, runs1 = bank[dealer]
    won = 0.0
    for run0, run1 in zip(runs0, runs1, strict=True):
        i0 = bisect_left(run0, need0)
        i1 = bisect_left(run1, need1)
        won += 1.0 if i0 < i1 else 0.5 if i0 == i1 else 0.0
    return won / len(runs0)


def _random_bank(rng: random.Random, games: int) -> futures.Bank:
    bank: futures.Bank = []
    for _ in range(2):
        runs0, runs1 = [], []
        for _ in range(games):
            t0 = t1 = 0
            run0, run1 = [], []
            for _ in range(rng.randrange(0, 30)):
                if rng.random() < 0.5:
                    t0 += rng.randrange(1, 15)
                else:
                    t1 += rng.randrange(1, 15)
                run0.append(t0)
                run1.append(t1)
            runs0.append(run0)
            runs1.append(run1)
        bank.append((runs0, runs1))
    return bank


def test_the_race_index_gives_the_bisection_shares_exactly() -> None:
    rng = random.Random(7)
    for games in (1, 3, 64, 257):
        bank = _random_bank(rng, games)
        index = futures._RaceIndex(bank)
        for dealer in (0, 1):
            for need0 in (-3, 0, 1, 2, 5, 17, 40, 61, 200):
                for need1 in (0, 1, 3, 9, 33, 61, 500):
                    assert index.share(dealer, need0, need1) == _race_by_bisection(bank, dealer, need0, need1)


def test_the_race_index_of_the_shipped_bank() -> None:
    game = load_game("penneech")
    bank = futures._bank(game, 2000)
    index = futures._race_index(bank)
    assert futures._race_index(bank) is index
    target = game.options.target
    for dealer in (0, 1):
        for s0 in range(0, target, 7):
            for s1 in range(0, target, 5):
                want = _race_by_bisection(bank, dealer, target - s0, target - s1)
                assert index.share(dealer, target - s0, target - s1) == want


def test_make_agent_still_refuses_unknown_parameters_after_caching() -> None:
    game = load_game("piquesept")
    for _ in range(2):  # the second call reads the cached parameter names
        make_agent("heuristic:seed=3", game=game)
        with pytest.raises(ValueError, match="unknown parameter 'depth'"):
            make_agent("heuristic:depth=2", game=game)
