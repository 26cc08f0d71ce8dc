"""Pentyrch's cards: values, the pile and hand cards, the court cards and hand masks.

``docs/rules/pentyrch.md``, Seats, court cards and hands: Ace counts 1 and 2-10 their face value; suits
only name cards. Cards keep the core's 52 ids; the 40 non-court cards are the piles' and hands' cards,
and the twelve court cards are indexed ``k = seat * 3 + (0 Jack, 1 Queen, 2 King)``. A hand is a 52-bit
mask. Every table here is computed once at import.
"""

from __future__ import annotations

from typing import Final

from gamester.core.cards import card_code, cards_of
from gamester.games.pentyrch.board import SEAT_SUIT


def _value(c: int) -> int:
    r = c % 13
    return 1 if r == 12 else (r + 2 if r <= 8 else 0)


VALUE: Final[tuple[int, ...]] = tuple(_value(c) for c in range(52))
NONCOURT: Final[tuple[int, ...]] = tuple(c for c in range(52) if c % 13 not in (9, 10, 11))
IDX40: Final[tuple[int, ...]] = tuple(NONCOURT.index(c) if c in NONCOURT else -1 for c in range(52))
LAYOUT_CARDS: Final[tuple[int, ...]] = tuple(c for c in NONCOURT if VALUE[c] <= 6)  # Ace-6: 24 cards
HAND_CARDS: Final[tuple[int, ...]] = tuple(c for c in NONCOURT if VALUE[c] >= 7)  # 7-10: 16 cards
# docs/rules/pentyrch.md, Notation: canonical order is value high to low, then suit C D H S.
CANON: Final[tuple[int, ...]] = tuple((10 - VALUE[c]) * 4 + c // 13 for c in range(52))
COURT_IDS: Final[tuple[int, ...]] = tuple(SEAT_SUIT[k // 3] * 13 + 9 + k % 3 for k in range(12))
COURT_OF_CARD: Final[dict[int, int]] = {c: k for k, c in enumerate(COURT_IDS)}
COURT_RANK_NAMES: Final = ("Jack", "Queen", "King")
# docs/rules/pentyrch.md, The end: Jack 3, Queen 2, King 1.
POINTS: Final = (3, 2, 1)
BIT: Final[tuple[int, ...]] = tuple(1 << c for c in range(52))
# GE[v] / EQ[v]: the non-court cards worth at least / exactly v (v = 0 … 11).
GE: Final[tuple[int, ...]] = tuple(sum(BIT[c] for c in NONCOURT if VALUE[c] >= v) for v in range(12))
EQ: Final[tuple[int, ...]] = tuple(sum(BIT[c] for c in NONCOURT if VALUE[c] == v) for v in range(12))
# SIG[chunk]: the value counts of one suit's 13 rank bits as the digits of a number in base 5 (the count
# of value u, at most 4, one card a suit, is worth 5 ** (u - 1)), shifted left by 8 above their total
# value (at most 55 a suit). Adding the four suits' entries gives both for a hand: ``>> 8`` its value
# signature (below 5 ** 10), which is all a combination count depends on, ``& 255`` its total value.
# Base 5, not four bits a value: the signatures of the hands that come up are dense, so their low
# bits pick a slot of the game's table cache well (PentyrchGame._slots).
SIG: Final[tuple[int, ...]] = tuple(
    sum((5 ** (VALUE[r] - 1) << 8) + VALUE[r] for r in range(13) if m >> r & 1 and VALUE[r])
    for m in range(1 << 13)
)


# A hand's cards in canonical order without sorting: bit CANON[c] of canon_mask(mask) stands for card c
# (non-court cards only, CANON 0 … 39), so its set bits, lowest first, are the cards in canonical order.
# CANON_BITS[chunk] is one suit's 13 rank bits placed so; since CANON[s * 13 + r] is CANON[r] + s
# (value first, then suit), suit s's entry is shifted left by s (tests/test_pentyrch_kit.py checks it).
CANON_BITS: Final[tuple[int, ...]] = tuple(
    sum(1 << CANON[r] for r in range(13) if m >> r & 1 and IDX40[r] >= 0) for m in range(1 << 13)
)
# CARD_OF_CANON[i]: the card at bit i of a canonical mask.
CARD_OF_CANON: Final[tuple[int, ...]] = tuple(sorted(NONCOURT, key=CANON.__getitem__))


def canon_mask(mask: int) -> int:
    """The non-court cards of ``mask`` as bits of the canonical order (see :data:`CANON_BITS`)."""
    return (
        CANON_BITS[mask & 8191]
        | CANON_BITS[mask >> 13 & 8191] << 1
        | CANON_BITS[mask >> 26 & 8191] << 2
        | CANON_BITS[mask >> 39] << 3
    )


def canon_walk(mask: int) -> tuple[int, ...]:
    """``canon_cards(mask)`` as a tuple, read off the bits of ``canon_mask(mask)`` (no sort)."""
    cm = canon_mask(mask)
    out = []
    while cm:
        low = cm & -cm
        out.append(CARD_OF_CANON[low.bit_length() - 1])
        cm ^= low
    return tuple(out)


def cards_at(cards: tuple[int, ...], top: int, rest: int) -> tuple[int, int]:
    """Positions in ``cards`` turned into cards: (the card at position ``top``, the mask of the cards
    at the positions set in ``rest``)."""
    out = 0
    i = 0
    while rest:
        if rest & 1:
            out |= BIT[cards[i]]
        rest >>= 1
        i += 1
    return cards[top], out


def signature(mask: int) -> int:
    """The value counts of the cards of ``mask`` (base 5, see :data:`SIG`)."""
    return (SIG[mask & 8191] + SIG[mask >> 13 & 8191] + SIG[mask >> 26 & 8191] + SIG[mask >> 39]) >> 8


def mask_value(mask: int) -> int:
    """The total value of the cards in a hand mask (Ace 1 … Ten 10)."""
    t = 0
    while mask:
        low = mask & -mask
        t += VALUE[low.bit_length() - 1]
        mask ^= low
    return t


def cards_of_mask(mask: int) -> list[int]:
    """The cards of ``mask``, highest id first (so ``pop()`` hands them out lowest first)."""
    out = cards_of(mask)
    out.reverse()
    return out


def canon_cards(mask: int) -> list[int]:
    """The cards of ``mask`` in canonical order (docs/rules/pentyrch.md, Notation)."""
    out = cards_of(mask)
    out.sort(key=CANON.__getitem__)
    return out


_CANON_CACHE: Final[dict[int, tuple[int, ...]]] = {}


def canon_tuple(mask: int) -> tuple[int, ...]:
    """``canon_cards(mask)`` as a cached tuple: decoding combination moves sorts the same hands over
    and over (most of the cost of naming one overpay move)."""
    hit = _CANON_CACHE.get(mask)
    if hit is None:
        if len(_CANON_CACHE) > 100_000:
            _CANON_CACHE.clear()
        hit = _CANON_CACHE[mask] = tuple(canon_cards(mask))
    return hit


def codes(cards: list[int] | tuple[int, ...]) -> list[str]:
    """The codes (``9C``) of some cards, in the order given."""
    return [card_code(c) for c in cards]


def court_code(k: int) -> str:
    """The code of court card ``k`` (``JH``)."""
    return card_code(COURT_IDS[k])
