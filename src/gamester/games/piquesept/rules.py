"""Piquesept's rules of play, each written once: the engine (``game.py``), the worlds (``worlds.py``),
the solver and the heuristic all use these.

Cards are dense actions ``suit * 8 + r`` (suits ``C D H S``, ``r`` 0-7 for ``7 8 9 T J Q K A``) and a
hand is a 32-bit mask of them. Each rule cites its section of ``docs/rules/piquesept.md``.

Where a hot loop needs a rule thousands of times a second it reads a table made here from the rule's
one definition (``PTS``, ``VAL``, ``TOP_RANK``; ``Final``, so a compiled build reads them without a
dictionary lookup), never a second spelling of the rule: ``apply_action`` and the solver call
:func:`playable` (in the compiled build, the default, a native call between compiled functions), and
the engine's end of a trick is one method. The tests still check the engine's legal cards against
:func:`playable` at every step of random games, and the solver against a brute force over them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

NUM_ACTIONS: Final = 32
ALL_CARDS: Final = (1 << NUM_ACTIONS) - 1
SPADE: Final = 3
SPADES: Final = 0xFF << 24
SUIT_MASK: Final[tuple[int, ...]] = tuple(0xFF << (8 * s) for s in range(4))
RANK_MASK: Final[tuple[int, ...]] = tuple(sum(1 << (s * 8 + r) for s in range(4)) for r in range(8))
SEVEN_S: Final = 24  # the 7S: suit 3, r 0

# -- The cards -------------------------------------------------------------------------------------
# docs/rules/piquesept.md, The cards: Ace 11, 7S 10, Ten 10, King 4, Queen 3, Jack 2, others 0.
_POINTS_BY_R: Final[tuple[int, ...]] = (0, 0, 0, 10, 2, 3, 4, 11)


def card_points(card: int) -> int:
    """docs/rules/piquesept.md, The cards: what a card counts for whoever wins it in a trick."""
    return 10 if card == SEVEN_S else _POINTS_BY_R[card & 7]


PTS: Final[tuple[int, ...]] = tuple(card_points(a) for a in range(NUM_ACTIONS))
TOTAL_POINTS: Final = sum(PTS)  # 130
assert TOTAL_POINTS == 130


def trick_points(cards: Iterable[int]) -> int:
    """The card points of a trick's cards."""
    total = 0
    for c in cards:
        total += PTS[c]
    return total


# docs/rules/piquesept.md, The cards: spades rank 7 A K Q J T 9 8 (the Seven jumps to the top), the
# other suits A K Q J T 9 8 7.
SPADE_POWER: Final[tuple[int, ...]] = tuple(8 if r == 0 else r for r in range(8))


def card_value(card: int, led: int) -> int:
    """docs/rules/piquesept.md, The remaining tricks: a trick goes to its highest spade, else to the
    highest card of the suit led. The card with the greatest value in a trick led in suit ``led``
    wins it: spades 16-24 by spade order, the led suit 0-7 by rank, any other card -1 (never wins)."""
    if card >> 3 == SPADE:
        return 16 + SPADE_POWER[card & 7]
    return card & 7 if card >> 3 == led else -1


# VAL[led suit][card] = card_value(card, led): what every trick in the engine and the solver compares.
VAL: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(card_value(a, ls) for a in range(NUM_ACTIONS)) for ls in range(4)
)


def winning_index(cards: Sequence[int]) -> int:
    """The position in ``cards`` (a trick so far, led by ``cards[0]``) of the card winning it."""
    val = VAL[cards[0] >> 3]
    best = 0
    for i in range(1, len(cards)):
        if val[cards[i]] > val[cards[best]]:
            best = i
    return best


def beats_all(card: int, led: int, others: int) -> bool:
    """No card of the mask ``others`` would win a trick led in suit ``led`` over ``card``."""
    val = VAL[led]
    v = val[card]
    m = others
    while m:
        low = m & -m
        if val[low.bit_length() - 1] >= v:
            return False
        m ^= low
    return True


# -- The soloist and the opening trick ------------------------------------------------------------
def soloist_of(hands: Sequence[int]) -> int:
    """docs/rules/piquesept.md, The soloist and the opening trick: the holder of the 7S."""
    for seat, h in enumerate(hands):
        if h >> SEVEN_S & 1:
            return seat
    raise ValueError("no hand holds the 7S")


def drawer_of(soloist: int, players: int) -> int:
    """docs/rules/piquesept.md, The draw and the trade: the defender on the soloist's left draws."""
    return (soloist + 1) % players


# "Highest card" orders for a defender with no spade, as r values from high to low
# (docs/rules/piquesept.md, The soloist and the opening trick; option first_trick_highest).
FIRST_ORDER: Final[dict[str, tuple[int, ...]]] = {
    "rank": (7, 6, 5, 4, 3, 2, 1, 0),
    "points": tuple(sorted(range(8), key=lambda r: (_POINTS_BY_R[r], r), reverse=True)),
}
# For each order and each set of ranks held (8 bits), the highest rank held in that order (-1: none).
TOP_RANK: Final[dict[str, tuple[int, ...]]] = {
    name: tuple(next((r for r in order if m >> r & 1), -1) for m in range(256))
    for name, order in FIRST_ORDER.items()
}


def forced_first_masks(hands: Sequence[int], top: tuple[int, ...]) -> list[int]:
    """docs/rules/piquesept.md, The soloist and the opening trick: each hand's legal cards in trick 1.

    The soloist's 7S; a defender's highest spade (spade order 7 A K Q J T 9 8); with no spade, every
    card of his highest rank in the order of ``top`` (a ``TOP_RANK`` table): equally high cards of
    different suits are a real choice. (One call for all the hands of a deal: the engine deals often.)
    """
    out = []
    for hand in hands:
        sp = hand & SPADES
        if sp:
            out.append(1 << SEVEN_S if sp >> SEVEN_S & 1 else 1 << (sp.bit_length() - 1))
        else:
            r = top[(hand | hand >> 8 | hand >> 16) & 0xFF]
            out.append(hand & RANK_MASK[r] if r >= 0 else 0)
    return out


def forced_first_mask(hand: int, top: tuple[int, ...]) -> int:
    """:func:`forced_first_masks` of one hand."""
    return forced_first_masks((hand,), top)[0]


# docs/rules/piquesept.md, The soloist and the opening trick: the 7S cannot be beaten, whatever was led,
# so the soloist, who leads it, takes the first trick (the engine counts on it).
SEVEN_S_UNBEATEN: Final = all(
    VAL[ls][SEVEN_S] > VAL[ls][a] for ls in range(4) for a in range(NUM_ACTIONS) if a != SEVEN_S
)
assert SEVEN_S_UNBEATEN


def first_trick_allowed(card: int, order: tuple[int, ...]) -> int:
    """The cards a defender may have held when :func:`forced_first_mask` let him play ``card`` in the
    first trick (as a mask); ``order`` is a ``FIRST_ORDER`` entry."""
    if card >> 3 == SPADE:
        # His highest spade: no spade above it (the 7S is the soloist's).
        p = SPADE_POWER[card & 7]
        higher = sum(1 << (24 + r) for r in range(8) if SPADE_POWER[r] > p)
        return ALL_CARDS & ~higher
    # No spade at all, and nothing higher in ``order`` than the card's rank.
    pos = order.index(card & 7)
    allowed = 0
    for r in order[pos:]:
        allowed |= RANK_MASK[r]
    return allowed & ~SPADES


# -- The remaining tricks --------------------------------------------------------------------------
def playable(hand: int, led: int, soloist: bool) -> int:
    """docs/rules/piquesept.md, The remaining tricks: the cards of ``hand`` a seat may play to a trick
    led in suit ``led`` (-1: he leads). The soloist and the leader play any card; a defender follows
    suit, else plays a spade, else any card."""
    if soloist or led < 0:
        return hand
    return hand & SUIT_MASK[led] or hand & SPADES or hand


def shown_void(card: int, led: int) -> int:
    """The cards a defender can no longer hold once he played ``card`` to a trick led in ``led``:
    what :func:`playable` lets one conclude (off suit: void in it; off suit and no spade: no spade
    either)."""
    if card >> 3 == led:
        return 0
    return SUIT_MASK[led] | (SPADES if card >> 3 != SPADE else 0)


# -- Scoring ---------------------------------------------------------------------------------------
WIN_POINTS: Final = TOTAL_POINTS // 2 + 1  # 66


def deal_sign(soloist_points: int) -> int:
    """docs/rules/piquesept.md, Scoring: +1 if the soloist's side wins the deal (66 or more), 0 for
    65-65, -1 if the defenders win."""
    if soloist_points >= WIN_POINTS:
        return 1
    return 0 if 2 * soloist_points == TOTAL_POINTS else -1


# The soloist's point totals at which his result steps up, highest first: (66, 65).
RESULT_STEPS: Final[tuple[int, ...]] = tuple(
    p for p in range(TOTAL_POINTS, 0, -1) if deal_sign(p) != deal_sign(p - 1)
)


def seat_return(soloist_points: int, is_soloist: bool, players: int) -> int:
    """docs/rules/piquesept.md, Scoring: a seat's return for a deal, zero-sum: the soloist gets
    ``+-(players - 1)``, each defender ``-+1``, nobody anything for a draw."""
    sign = deal_sign(soloist_points)
    return sign * (players - 1) if is_soloist else -sign


def deal_returns(soloist: int, soloist_points: int, players: int) -> tuple[int, ...]:
    """Every seat's :func:`seat_return` for a deal (the same sums, the sign computed once)."""
    sign = deal_sign(soloist_points)
    out = [-sign] * players
    out[soloist] = sign * (players - 1)
    return tuple(out)
