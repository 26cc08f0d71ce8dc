"""Our draws ("gamester-draws-1", docs/randomness.md): below, unit, choice, weighted, shuffle, sample.

Known outputs come from scripted bits worked through the documented steps by hand, and from a
:class:`HashRandom`'s first block written out from the stream's definition; the uniformity checks
are chi-squares on small cases, each shown to catch a biased version of its draw.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Hashable
from hashlib import blake2b
from typing import Any

import pytest

from gamester.core import rng as rng_module
from gamester.core.rng import (
    DRAWS,
    below,
    below_of,
    choice,
    make_rng,
    sample,
    shuffle,
    unit,
    weighted,
)


class Script(random.Random):
    """Hands out the given numbers as its bits and notes how many bits each draw asked for."""

    def __init__(self, *values: int) -> None:
        self.values = list(values)
        self.asked: list[int] = []

    def getrandbits(self, k: int) -> int:
        self.asked.append(k)
        if k == 0:
            return 0
        v = self.values.pop(0)
        assert 0 <= v < 1 << k, (v, k)
        return v

    # Our draws must read nothing but getrandbits: every other method of random.Random fails here.
    def random(self) -> float:
        raise AssertionError("our draws read only getrandbits")

    def shuffle(self, x: Any) -> None:  # type: ignore[override]
        raise AssertionError("our draws read only getrandbits")


def test_the_version_is_named() -> None:
    assert DRAWS == "gamester-draws-1"


def test_below_rejects_on_just_enough_bits() -> None:
    r = Script(7, 5, 3)  # below 5: 3 bits; 7 and 5 are redrawn, 3 is kept
    assert below(r, 5) == 3 and r.asked == [3, 3, 3]
    r = Script(6)
    assert below(r, 8) == 6 and r.asked == [3]  # a power of two: never redrawn
    r = Script()
    assert below(r, 1) == 0 and r.asked == [0]  # no bit drawn (a HashRandom's stream does not move)
    with pytest.raises(ValueError, match="no number below 0"):
        below(Script(), 0)


def test_unit_is_53_bits_scaled() -> None:
    r = Script(1 << 52, (1 << 53) - 1)
    assert unit(r) == 0.5 and unit(r) == 1 - 2**-53 and r.asked == [53, 53]


def test_choice_and_weighted() -> None:
    r = Script(3, 2)
    assert choice(r, "abc") == "c" and r.asked == [2, 2]
    with pytest.raises(IndexError):
        choice(Script(), [])
    # Weights 1, 0, 3 (total 4, 2 bits): r = 2 passes x (2 >= 1) and y (1 >= 0), lands in z.
    r = Script(2)
    assert weighted(r, "xyz", [1, 0, 3]) == "z" and r.asked == [2]
    assert weighted(Script(0), "xyz", [1, 0, 3]) == "x"


def test_shuffle_is_fisher_yates_from_the_top_on_one_number() -> None:
    """Four items: P = 4·3·2 = 24, b = 5 + 64 = 69 bits. The largest multiple of 24 below 2**69 is
    redrawn; 138 = 5·24 + 18 is kept, and 18 has the digits 2 (radix 4), 1 (radix 3), 1 (radix 2):
    swap 0,2 -> c b a d; swap 1,2 -> c a b d; swap 2,3 -> c a d b."""
    limit = (1 << 69) // 24 * 24
    r = Script(limit, 138)
    x = list("abcd")
    shuffle(r, x)
    assert x == list("cadb") and r.asked == [69, 69]
    for short in ([], [9]):
        r = Script()
        shuffle(r, short)
        assert r.asked == []


def test_sample_stops_the_shuffle_after_k_steps() -> None:
    """Two of four: P = 4·3 = 12, b = 4 + 64 = 68 bits; 6 has the digits 2 (radix 4), 1 (radix 3)."""
    r = Script(6)
    pop = list("abcd")
    assert sample(r, pop, 2) == ["c", "a"] and r.asked == [68] and pop == list("abcd")
    for k, n in ((0, 5), (1, 1), (0, 0)):  # nothing to choose: nothing drawn
        r = Script()
        assert sample(r, range(n), k) == list(range(k)) and r.asked == []
    for seed in range(20):
        a, b = make_rng(seed), make_rng(seed)
        x = list(range(10))
        shuffle(a, x)
        assert sample(b, range(10), 10) == x and a.getstate() == b.getstate()
    with pytest.raises(ValueError, match="cannot take 3 of 2"):
        sample(Script(), [1, 2], 3)


def block0(seed: int) -> int:
    """A HashRandom's first 512 bits, from the stream's definition (docs/randomness.md)."""
    key = seed.to_bytes((seed.bit_length() + 8) // 8, "little", signed=True)
    return int.from_bytes(blake2b((0).to_bytes(8, "little") + key).digest(), "little")


@pytest.mark.parametrize("seed", [0, 7, 2**63 - 1])
def test_seeded_draws_follow_the_stream(seed: int) -> None:
    """below(make_rng(seed), 52) ten times, worked from the first block: 6 bits at a time, low first,
    values 52 and over skipped. The same on every Python and in either build."""
    bits = block0(seed)
    want = []
    while len(want) < 10:
        v = bits & 63
        bits >>= 6
        if v < 52:
            want.append(v)
    r = make_rng(seed)
    assert [below(r, 52) for _ in range(10)] == want
    assert unit(make_rng(seed)) == (block0(seed) & ((1 << 53) - 1)) * 2**-53


def test_a_callers_generator_is_read_only_through_getrandbits() -> None:
    """A Mersenne Twister whose shuffle, choice and random are its own gets our draws all the same."""

    class Odd(random.Random):
        def shuffle(self, x: Any) -> None:  # type: ignore[override]
            x.reverse()

        def random(self) -> float:
            return 0.0

    a, b = Odd(5), random.Random(5)
    xa, xb = list(range(30)), list(range(30))
    shuffle(a, xa)
    shuffle(b, xb)
    assert xa == xb and unit(a) == unit(b) and choice(a, "abcdefg") == choice(b, "abcdefg")


def chi2(draw: Callable[[], Hashable], outcomes: list[Hashable], n: int) -> float:
    counts = Counter(draw() for _ in range(n))
    assert set(counts) <= set(outcomes)
    e = n / len(outcomes)
    return sum((counts.get(o, 0) - e) ** 2 / e for o in outcomes)


# Chi-square alarms at p = 0.001: 23 degrees of freedom 49.7, 19 43.8, 5 20.5.
def test_shuffle_is_uniform_and_the_check_would_catch_a_biased_one() -> None:
    perms: list[Hashable] = list(itertools.permutations(range(4)))
    r = make_rng(31)

    def ours() -> Hashable:
        x = [0, 1, 2, 3]
        shuffle(r, x)
        return tuple(x)

    def naive() -> Hashable:  # every position swapped with any position: 256 paths onto 24 orders
        x = [0, 1, 2, 3]
        for i in range(4):
            j = below(r, 4)
            x[i], x[j] = x[j], x[i]
        return tuple(x)

    assert chi2(ours, perms, 24_000) < 49.7
    assert chi2(naive, perms, 24_000) > 49.7


def test_sample_below_and_weighted_are_uniform() -> None:
    r = make_rng(32)
    pairs: list[Hashable] = list(itertools.permutations(range(5), 2))
    assert chi2(lambda: tuple(sample(r, range(5), 2)), pairs, 20_000) < 43.8
    six: list[Hashable] = list(range(6))
    assert chi2(lambda: below(r, 6), six, 12_000) < 20.5
    # A modulo draw (3 bits mod 6) favours 0 and 1: the same check catches it.
    assert chi2(lambda: r.getrandbits(3) % 6, six, 12_000) > 20.5
    # Weights 1, 2, 3 as six equally likely slots.
    counts = Counter(weighted(r, "abc", [1, 2, 3]) for _ in range(12_000))
    e = {"a": 2000, "b": 4000, "c": 6000}
    assert sum((counts[k] - v) ** 2 / v for k, v in e.items()) < 13.8  # 2 degrees of freedom


def test_no_copy_of_the_librarys_draws_is_left() -> None:
    for gone in ("shuffle_as_random", "sample_as_random", "randbelow", "_standard"):
        assert not hasattr(rng_module, gone)


def test_a_hash_randoms_stream_draws_in_place_the_same_bits() -> None:
    """below, shuffle and sample read a HashRandom's stream directly (BitStream.below,
    Shuffler.from_stream); another random.Random goes through getrandbits. Both draw the same, and
    end in the same state, across block boundaries (many draws from one generator)."""

    class Plain(random.Random):  # (a subclass of HashRandom cannot be made in the compiled build)
        def __init__(self, seed: int) -> None:
            self.inner = make_rng(seed)

        def getrandbits(self, k: int) -> int:
            return self.inner.getrandbits(k)

    for seed in range(6):
        fast, slow = make_rng(seed), Plain(seed)
        for n in (0, 1, 2, 3, 7, 31, 52, 100):
            x, y = list(range(n)), list(range(n))
            shuffle(fast, x)
            shuffle(slow, y)
            assert x == y
            k = n // 3
            assert sample(fast, range(n), k) == sample(slow, range(n), k)
            assert [below(fast, n + 1) for _ in range(40)] == [below(slow, n + 1) for _ in range(40)]
            draw_fast, draw_slow = below_of(fast), below_of(slow)
            assert [draw_fast(n + 5) for _ in range(9)] == [draw_slow(n + 5) for _ in range(9)]
        assert fast.getstate() == slow.inner.getstate()
    with pytest.raises(ValueError):
        below(make_rng(0), 0)
