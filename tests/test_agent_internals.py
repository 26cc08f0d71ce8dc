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
from gamester.core.rng import randbelow


def test_randbelow_draws_what_randrange_draws() -> None:
    for seed in range(40):
        a, b = random.Random(seed), random.Random(seed)
        for n in (1, 2, 3, 5, 7, 8, 9, 13, 31, 32, 33, 52, 64, 100, 1000, 2**40 + 1):
            assert [randbelow(a.getrandbits, n) for _ in range(20)] == [b.randrange(n) for _ in range(20)]
        assert a.getstate() == b.getstate()


def test_randbelow_refuses_an_empty_range() -> None:
    with pytest.raises(ValueError):
        randbelow(random.Random(0).getrandbits, 0)


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


@pytest.mark.parametrize("seed", [0, 5, 2**70, 123456789])
def test_a_lazy_random_is_the_random_of_its_seed(seed: int) -> None:
    import copy
    import pickle

    from gamester.agents.base import LazyRandom

    def draws(r: random.Random) -> list[object]:
        items = list(range(10))
        r.shuffle(items)
        return [r.random(), r.randrange(10), r.getrandbits(70), r.choice("abcdef"), r.gauss(), items]

    assert draws(LazyRandom(seed)) == draws(random.Random(seed))
    assert LazyRandom(seed).getstate() == random.Random(seed).getstate()
    assert draws(pickle.loads(pickle.dumps(LazyRandom(seed)))) == draws(random.Random(seed))
    assert draws(copy.deepcopy(LazyRandom(seed))) == draws(random.Random(seed))
    moved = LazyRandom(seed)
    moved.setstate(random.Random(seed + 1).getstate())
    assert draws(moved) == draws(random.Random(seed + 1))
    reseeded = LazyRandom(seed)
    reseeded.seed(seed + 2)
    assert draws(reseeded) == draws(random.Random(seed + 2))
    # After its first draw (when it hands draws to the generator itself), copies carry on alike.
    started, plain = LazyRandom(seed), random.Random(seed)
    assert started.random() == plain.random()
    assert started.getstate() == plain.getstate()
    twins = [pickle.loads(pickle.dumps(started)), copy.deepcopy(started), copy.copy(started)]
    want = draws(plain)
    assert [draws(t) for t in twins] == [want] * 3
    assert draws(started) == want
