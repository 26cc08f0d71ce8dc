"""Penneech's rule primitives, each written once (docs/rules/penneech.md).

The engine (``game.py``), the exact solver, the heuristic and the rollout policy all decide tricks,
follows and points through these definitions. Hot loops read the tables built here from them
(``BEATERS``, ``TRICK_POINTS``, ``FOLLOW_MASKS``, :func:`outcomes`, ``CARD_BONUS``): a lookup costs what
the inline test it replaces cost, and no table restates a rule. The follow rule is
:func:`legal_mask`, called by the engine's ``legal_actions`` and ``apply_action`` and by the solver.

Cards are the ids of ``gamester.core.cards`` (suit x 13 + rank, clubs first, Two low); hands and card
sets are 52-bit masks. A trump of ``-1`` means no trump (before the first turn-up).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from gamester.core.cards import ACE, DIAMONDS, JACK, KING, QUEEN, SEVEN, make_card, mask_of
from gamester.core.cards import SUIT_MASKS as _SUIT_MASKS

# The tables are ``Final`` so that a compiled build reads them as C values, not by name at every use;
# SUIT_MASKS is core's, bound here under a Final name for the same reason.
SUIT_MASKS: Final[tuple[int, ...]] = _SUIT_MASKS
SEVEN_D: Final = make_card(SEVEN, DIAMONDS)
TRICKS: Final = 7
"""docs/rules/penneech.md, Tricks: seven tricks a deal."""

_HONOUR_BY_RANK: Final = {ACE: 5, KING: 4, QUEEN: 3, JACK: 2}


def power(card: int) -> int:
    """docs/rules/penneech.md, The cards: a card's place in its suit, Two 0 ... Ace 12; the 7D is 13,
    above the diamond Ace, whether or not diamonds are trump."""
    return 13 if card == SEVEN_D else card % 13


POWER: Final[tuple[int, ...]] = tuple(power(c) for c in range(52))


def beats(card: int, led: int, trump: int) -> bool:
    """docs/rules/penneech.md, Tricks: whether ``card``, played to the ``led`` card, wins the trick
    under ``trump``: the highest trump wins, with no trump in it the higher card of the suit led."""
    if card // 13 == led // 13:
        return POWER[card] > POWER[led]
    return card // 13 == trump


def trick_winner(leader: int, led: int, card: int, trump: int) -> int:
    """docs/rules/penneech.md, Tricks: the seat that wins the trick ``leader`` led with ``led`` and
    the other seat answered with ``card``."""
    return 1 - leader if beats(card, led, trump) else leader


def follow_mask(led: int, trump: int, follow_suit: bool) -> int:
    """docs/rules/penneech.md, Tricks, what the second player must play: the cards a follower who holds
    the led suit may play: that suit, and under ``follow=suit_or_trump`` (``follow_suit`` False) the
    trumps too. A follower void in the led suit may play any card."""
    mask = SUIT_MASKS[led // 13]
    if not follow_suit and trump >= 0:
        mask |= SUIT_MASKS[trump]
    return mask


def legal_mask(hand: int, led: int, trump: int, follow_suit: bool) -> int:
    """docs/rules/penneech.md, Tricks: the cards of ``hand`` that may be played; ``led`` is the card
    led to this trick, or -1 when the seat leads (any card)."""
    if led < 0:
        return hand
    ls = led // 13
    if not hand & SUIT_MASKS[ls]:
        return hand
    if trump < 0:
        return hand & follow_mask(led, trump, follow_suit)
    # follow_mask, by table (the engine's hot path): FOLLOW_TABLE, one flat lookup.
    return hand & FOLLOW_TABLE[(16 if follow_suit else 0) + 4 * trump + ls]


def needs_void(card: int, led: int, trump: int, follow_suit: bool) -> bool:
    """docs/rules/penneech.md, What each player knows: whether answering ``led`` with ``card`` is legal
    only for a follower void in the led suit (and so shows that void)."""
    return not follow_mask(led, trump, follow_suit) >> card & 1


def turnup_points(card: int) -> int:
    """docs/rules/penneech.md, Turn-ups and trumps (the table in The cards): what turning ``card`` up
    scores: 14 for the 7D, 5/4/3/2 for an Ace/King/Queen/Jack, else nothing."""
    return 14 if card == SEVEN_D else _HONOUR_BY_RANK.get(card % 13, 0)


TURNUP_POINTS: Final[tuple[int, ...]] = tuple(turnup_points(c) for c in range(52))


def trump_of(turned: int) -> int:
    """docs/rules/penneech.md, Turn-ups and trumps: the suit of the card turned up is trump until the
    next turn-up."""
    return turned // 13


def reaches_target(score: int, target: int, deal_only: bool) -> bool:
    """docs/rules/penneech.md, Winning: points are pegged as they arise, and a seat whose score reaches
    the target wins at once; a game of one deal (``objective=deal``) has no target."""
    return score >= target and not deal_only


def card_points(card: int, trump: int, trump_only: bool) -> int:
    """docs/rules/penneech.md, Tricks (honours in a won trick): what ``card`` scores the winner of a
    trick played under ``trump``: the 7D 7 only when diamonds are trump; an Ace/King/Queen/Jack 5/4/3/2,
    under ``trick_honours=trump`` (``trump_only``) only when of the trump suit."""
    if card == SEVEN_D:
        return 7 if trump == DIAMONDS else 0
    if trump_only and card // 13 != trump:
        return 0
    return _HONOUR_BY_RANK.get(card % 13, 0)


def trick_points(led: int, card: int, trump: int, trump_only: bool) -> int:
    """docs/rules/penneech.md, Tricks: the points of a trick (its two cards) to its winner."""
    return card_points(led, trump, trump_only) + card_points(card, trump, trump_only)


def card_bonus(tricks_won: int) -> int:
    """docs/rules/penneech.md, End of the deal: four or more tricks score 2 x tricks - 7 (one point
    per card taken beyond the seven dealt); fewer score nothing."""
    return 2 * tricks_won - 7 if tricks_won >= 4 else 0


HIGH_MASK: Final = mask_of(c for c in range(52) if c % 13 in _HONOUR_BY_RANK)
REDEAL_BLOCKERS: Final[dict[str, int]] = {
    "above_ten": HIGH_MASK | (1 << SEVEN_D),
    "no_ace_or_face": HIGH_MASK,
    "off": 0,
}
"""docs/rules/penneech.md, Dealing (asking for a new deal): per ``redeal`` option, the cards any one
of which makes a hand ineligible (``off``: no card set; no hand is ever eligible)."""


def redeal_eligible(hand: int, blockers: int) -> bool:
    """docs/rules/penneech.md, Dealing: whether ``hand`` may be thrown in, ``blockers`` being
    ``REDEAL_BLOCKERS[options.redeal]``."""
    return bool(blockers) and not hand & blockers


# -- tables, built once from the definitions above ----------------------------------------------------
def _beaters(led: int, trump: int) -> int:
    return mask_of(c for c in range(52) if beats(c, led, trump))


BEATERS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(_beaters(led, t) for led in range(52)) for t in range(4)
)
"""``BEATERS[trump][led]``: the mask of the answers to ``led`` that win the trick (:func:`beats`)."""

ABOVE: Final[tuple[int, ...]] = tuple(_beaters(c, -1) for c in range(52))
"""``ABOVE[card]``: the cards of its suit that beat it (:func:`beats` with no trump)."""


def points_row(trump: int, trump_only: bool) -> tuple[int, ...]:
    """:func:`card_points` of every card under ``trump``."""
    return tuple(card_points(c, trump, trump_only) for c in range(52))


TRICK_POINTS: Final[dict[str, tuple[tuple[int, ...], ...]]] = {
    "any": tuple(points_row(t, False) for t in range(4)),
    "trump": tuple(points_row(t, True) for t in range(4)),
}
"""``TRICK_POINTS[options.trick_honours][trump][card]``: :func:`card_points`."""

FOLLOW_MASKS: Final[dict[bool, tuple[tuple[int, ...], ...]]] = {
    fs: tuple(tuple(follow_mask(13 * ls, t, fs) for ls in range(4)) for t in range(4)) for fs in (False, True)
}
"""``FOLLOW_MASKS[follow_suit][trump][led suit]``: :func:`follow_mask`."""

FOLLOW_TABLE: Final[tuple[int, ...]] = tuple(
    FOLLOW_MASKS[fs][t][ls] for fs in (False, True) for t in range(4) for ls in range(4)
)
"""``FOLLOW_TABLE[16 * follow_suit + 4 * trump + led suit]``: ``FOLLOW_MASKS`` flat (what
:func:`legal_mask` reads: one tuple lookup instead of a dictionary's and two tuples')."""


CARD_BONUS: Final[tuple[int, ...]] = tuple(card_bonus(t) for t in range(TRICKS + 1))
"""``CARD_BONUS[tricks won]``: :func:`card_bonus`."""


def deal_bonus(tricks: Sequence[int]) -> tuple[int, int]:
    """docs/rules/penneech.md, End of the deal: (seat, points) of the card bonus after seven tricks
    (exactly one seat won four or more): :func:`card_bonus`, read from its table."""
    bonus = CARD_BONUS[tricks[0]]
    if bonus:
        return 0, bonus
    return 1, CARD_BONUS[tricks[1]]


def trick_outcomes(points: Sequence[Sequence[int]], follow_suit: bool) -> tuple[tuple[int, ...], ...]:
    """Per trump suit, for every (led card, answer) pair at ``led * 52 + answer``: bit 0 set when the
    answer wins the trick (:func:`beats`), bit 1 when it is legal only for a follower void in the led
    suit (:func:`needs_void`), and the trick's points (``points[trump]``, a :data:`TRICK_POINTS` table)
    above those two bits. One lookup does the engine's rule checks of a trick."""
    return tuple(
        tuple(
            beats(c, led, t) | needs_void(c, led, t, follow_suit) << 1 | (points[t][led] + points[t][c]) << 2
            for led in range(52)
            for c in range(52)
        )
        for t in range(4)
    )


_OUTCOMES: Final[dict[tuple[str, bool], tuple[tuple[int, ...], ...]]] = {}


def outcomes(trick_honours: str, follow_suit: bool) -> tuple[tuple[int, ...], ...]:
    """:func:`trick_outcomes` for these options, built on first use (about 30 ms) and kept."""
    key = (trick_honours, follow_suit)
    table = _OUTCOMES.get(key)
    if table is None:
        table = _OUTCOMES[key] = trick_outcomes(TRICK_POINTS[trick_honours], follow_suit)
    return table
