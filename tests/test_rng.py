"""The core's randomness: the state's generator (HashRandom), the exact shuffler, partial packs."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from hashlib import blake2b
from math import factorial

import pytest

from gamester.core.rng import Chance, HashRandom, Shuffler, make_rng, shuffled


class Fixed(random.Random):
    """A 'generator' that always returns one number."""

    def __init__(self, value: int) -> None:
        self.value = value

    def getrandbits(self, k: int) -> int:
        return self.value


def block(seed: int, i: int) -> int:
    """Block i of the stream, written out from the definition (not from the implementation)."""
    key = seed.to_bytes((seed.bit_length() + 8) // 8, "little", signed=True)
    return int.from_bytes(blake2b(i.to_bytes(8, "little") + key).digest(), "little")


@pytest.mark.parametrize("seed", [0, 7, -3, 2**63 - 1, 10**40])
def test_hash_random_hands_out_the_blake2b_blocks_in_order(seed: int) -> None:
    r = HashRandom(seed)
    stream = block(seed, 0) | block(seed, 1) << 512 | block(seed, 2) << 1024
    sizes = [1, 64, 100, 400, 3, 0, 520, 7]
    got = [r.getrandbits(k) for k in sizes]
    expected, shift = [], 0
    for k in sizes:
        expected.append(stream >> shift & ((1 << k) - 1))
        shift += k
    assert got == expected


def test_hash_random_is_a_random_random_and_pinned() -> None:
    """A state owns its own random.Random. The stream is pinned: a change would silently
    change every seeded game, so it must be a deliberate one (rename the state tag)."""
    r = make_rng(7)
    assert isinstance(r, random.Random)
    assert r.getrandbits(32) == block(7, 0) & 0xFFFFFFFF == 0xBA6A9EF4
    assert 0 <= r.random() < 1 and r.randrange(52) in range(52)
    with pytest.raises(TypeError, match="int seed"):
        HashRandom("seven")  # type: ignore[arg-type]


def test_hash_random_state_round_trip_and_copies_are_independent() -> None:
    a = HashRandom(11)
    a.getrandbits(100)
    b = HashRandom(0)
    b.setstate(a.getstate())
    assert [a.getrandbits(70) for _ in range(20)] == [b.getrandbits(70) for _ in range(20)]
    with pytest.raises(ValueError, match="not a HashRandom state"):
        b.setstate(random.Random(1).getstate())


def test_chance_copies_share_the_generator_until_one_draws() -> None:
    c = Chance(make_rng(3))
    d = c.copy()
    pack = list(range(10))
    first = c.pack(pack, int)
    assert d.pack(pack, int) == first  # the same future on both sides
    assert c.pack(pack, int) == d.pack(pack, int)


@pytest.mark.parametrize(("n", "used"), [(4, 4), (5, 5), (6, 2), (6, 3)])
def test_shuffler_maps_the_numbers_below_the_product_one_to_one(n: int, used: int) -> None:
    """Exactness: every number below P (the product of the radices) gives a different draw, so a
    uniform number gives a uniform shuffle (a uniform ordered draw of ``used`` items)."""
    last = min(used, n - 1)
    product = factorial(n) // factorial(n - last)
    fn = Shuffler(n, used)
    r = Fixed(0)
    seen = set()
    for x in range(product):
        r.value = x
        order, rest = fn(r, list(range(n)))
        assert sorted(order) == list(range(n)) and rest == 0
        seen.add(tuple(order[:last]))
    assert len(seen) == product


def test_shuffler_redraws_numbers_at_or_above_the_largest_multiple() -> None:
    fn = Shuffler(5, 5)
    bits = (factorial(5)).bit_length() + 64
    limit = (1 << bits) // 120 * 120
    draws = iter([limit, (1 << bits) - 1, 7])

    class Scripted(random.Random):
        def getrandbits(self, k: int) -> int:
            assert k == bits
            return next(draws)

    assert fn(Scripted(), [0, 1, 2, 3, 4]) == fn(Fixed(7), [0, 1, 2, 3, 4])
    assert next(draws, None) is None


def test_shuffles_are_uniform_on_a_small_pack() -> None:
    """All 24 orders of four cards, 24,000 seeded shuffles: a chi-square far below any alarm."""
    r = make_rng(2024)
    counts = Counter(tuple(shuffled(r, [0, 1, 2, 3])) for _ in range(24000))
    assert set(counts) == set(itertools.permutations(range(4)))
    chi2 = sum((c - 1000) ** 2 / 1000 for c in counts.values())
    assert chi2 < 60  # 23 degrees of freedom: p < 1e-4 beyond 55


def test_partial_packs_keep_their_top_and_complete_to_a_permutation() -> None:
    c = Chance(make_rng(5))
    top = c.pack(list(range(52)), int, used=22)
    entry = c.log[0]
    assert isinstance(entry, tuple)  # a partial pack: (pack, used, rest_seed)
    full = c.full_pack(0)
    assert full[:22] == top[:22] and sorted(full) == list(range(52))
    assert c.entries() == [full]
    again = Chance(make_rng(5))
    again.pack(list(range(52)), int, used=22)
    assert again.entries() == [full]  # the rest of the pack comes from the seed too


def test_hash_random_pickles_and_deep_copies_with_its_position() -> None:
    import copy
    import pickle

    r = make_rng(5)
    r.getrandbits(10)
    twins = [pickle.loads(pickle.dumps(r)), copy.deepcopy(r)]
    expected = r.getrandbits(600)
    assert [t.getrandbits(600) for t in twins] == [expected, expected]


def test_every_random_random_method_works_on_hash_random() -> None:
    """The docstring's promise, in both builds: random.py's own methods run on a HashRandom (compiled as
    a native class, gauss() failed on random.py's gauss_next and random.Random.seed crashed)."""
    r = make_rng(9)
    assert isinstance(r.gauss(0, 1), float) and isinstance(r.gauss(0, 1), float)  # the pair's second
    assert isinstance(r.normalvariate(0, 1), float) and 0 <= r.betavariate(2, 3) <= 1
    assert 1 <= r.uniform(1, 2) <= 2 and r.randint(1, 6) in range(1, 7) and r.choice("ab") in "ab"
    assert sorted(r.sample(range(10), 10)) == list(range(10))
    items = list(range(20))
    r.shuffle(items)
    assert sorted(items) == list(range(20))
    assert 0 <= r.randbytes(3)[0] < 256
    random.Random.seed(r, 7)  # random.py's own seed on our object: no crash (our stream is ours)
    r.seed(9)
    assert r.getrandbits(32) == make_rng(9).getrandbits(32)


# -- derive: seeds made from seeds (docs/randomness.md, "gamester-derive-1") ----------------------
def derive_by_hand(seed: int, *keys: int | str) -> int:
    """derive written out from docs/randomness.md (not from the implementation)."""
    h = blake2b(digest_size=8, person=b"gamester-derive1")
    for k in (seed, *keys):
        if isinstance(k, str):
            b = k.encode("utf-8")
            h.update(b"s" + len(b).to_bytes(4, "little") + b)
        else:
            b = k.to_bytes((k.bit_length() + 8) // 8, "little", signed=True)
            h.update(b"i" + bytes([len(b)]) + b)
    return int.from_bytes(h.digest(), "little") >> 2


def test_derive_matches_its_documented_vectors_and_definition() -> None:
    """The table of docs/randomness.md, pinned: a change to any of them changes every derived seed,
    so it must come with a new version name."""
    from gamester.core.rng import DERIVE, derive

    assert DERIVE == "gamester-derive-1"
    vectors = {
        (7, "agent", 0): 1627231003756495534,
        (7, "agent", 1): 1428243162608789235,
        (0,): 2910144893260520610,
        (-1, "x"): 88420853055134582,
    }
    for (seed, *keys), expected in vectors.items():
        assert derive(seed, *keys) == expected == derive_by_hand(seed, *keys)
    for args in [(2**62 - 1, 3, "hint", 10**30), (-(2**70),), (5, "", 0, -1, "é")]:
        assert derive(*args) == derive_by_hand(*args)


def test_derive_same_keys_same_seed_and_other_keys_another() -> None:
    """Deterministic (also across processes: no Python hash involved); every change of a key, of
    their order, of their number or of their kind gives another seed, below 2**62."""
    from gamester.core.rng import derive

    assert derive(11, "agent", 3) == derive(11, "agent", 3)
    cases = [
        (11,),
        (11, "agent"),
        (11, "agent", 3),
        (11, "agent", 4),
        (12, "agent", 3),
        (11, 3, "agent"),
        (11, "agent", "3"),
        (11, "agent3"),
        (11, "agen", "t3"),
        (11, 0),
        (11, 0, 0),
        (11, 256),
        (11, -1),
    ]
    seeds = [derive(*c) for c in cases]
    assert len(set(seeds)) == len(cases)
    assert all(0 <= s < 2**62 for s in seeds)
    with pytest.raises(TypeError, match="int and str"):
        derive(1, 2.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="int and str"):
        derive(1, True)


def test_derived_streams_are_unrelated() -> None:
    """Neighbouring keys (seats 0-63 of one deal, deals 100-163 of one seat) give streams that look
    independent: each stream's first 64 bits are balanced, and no two of the 128 streams agree on
    more than about half their bits (the expected 32 of 64, with a margin of six standard
    deviations), where the old arithmetic (seed*16+i) gave neighbouring seeds differing in one bit."""
    from gamester.core.rng import derive

    words = [make_rng(derive(5, "agent", s)).getrandbits(64) for s in range(64)]
    words += [make_rng(derive(d, "agent", 1)).getrandbits(64) for d in range(100, 164)]
    assert len(set(words)) == len(words)
    for i, a in enumerate(words):
        for b in words[i + 1 :]:
            assert abs((a ^ b).bit_count() - 32) <= 24
    ones = sum(w.bit_count() for w in words)
    assert abs(ones - 64 * len(words) / 2) < 6 * (64 * len(words) / 4) ** 0.5
