"""A Penneech player's rules of thumb, reading only the seat's observation.

* **Redeal**: an eligible hand holds no honour and no card above a Ten, so it wins few tricks and
  scores nothing itself: always throw it in (a fresh deal is worth about zero on average).
* **Following**: if some legal card wins the trick, win with the cheapest winner when the trick is worth
  it (the points in it, the turn-up the winner makes — about 1.35 points on average — and progress
  toward the four-trick bonus), else give up the least useful card, never an honour when a plain card
  will do.
* **Leading**: for every legal card, estimate from the unseen cards the chance the opponent can beat it
  (a higher card of its suit, or a trump when that suit is not trump) and lead the card with the best
  expected gain: sure winners carrying points first, otherwise a low plain card of a long suit.

Cards keep a *hold value* (how likely they are to win a later trick: rank within suit) so that strong
cards are not spent on worthless tricks.

The decision is written once, :func:`decide`, over a :class:`~gamester.games.penneech.game.SeatKnowledge`
record (what the seat knows, as masks). :func:`choose` builds the record from the seat's observation;
:func:`fast_choose`, which playouts call at every card, has the world build it from its fields
(``PenneechState.seat_knowledge``, the same record: ``tests/test_penneech_kit.py``). The rules it
needs (who wins, what a card scores) are those of ``rules.py``.
"""

from __future__ import annotations

import random
from math import comb
from typing import Any, Final

from gamester.core.kit import View
from gamester.games.penneech.game import (
    REDEAL,
    PenneechGame,
    PenneechState,
    SeatKnowledge,
    seat_knowledge_from_observation,
)
from gamester.games.penneech.rules import ABOVE, BEATERS, POWER, SUIT_MASKS, TRICK_POINTS, TURNUP_POINTS

TURNUP_EV: Final = sum(TURNUP_POINTS) / 52  # a turn-up's average points: the honours of a pack over its cards
_ALL: Final = (1 << 52) - 1
_ROWS: Final = (TRICK_POINTS["any"], TRICK_POINTS["trump"])  # by trick_honours=trump (False, True)


def hold_value(card: int, unseen: int) -> float:
    """How valuable keeping ``card`` is: the fewer unseen cards (mask) above it in its suit, the better."""
    return max(0.0, 2.0 - 0.6 * (unseen & ABOVE[card]).bit_count())


def p_holds_any(group: int, unknown: int, k: int) -> float:
    """Chance that ``k`` cards drawn from ``unknown`` include at least one of ``group`` of them."""
    if group <= 0 or k <= 0:
        return 0.0
    if unknown - group < k:
        return 1.0
    return 1.0 - comb(unknown - group, k) / comb(unknown, k)


# p_holds_any by (group, unknown, k), filled as asked (at most 52 x 52 x 8 entries, the same floats).
_P_HOLDS: Final[dict[tuple[int, int, int], float]] = {}


def decide(k: SeatKnowledge, legal: list[int]) -> int:
    """The heuristic's card among ``legal`` for the seat whose knowledge is ``k``. (Expression order
    matters: floating-point ties break by it, and the agents' fingerprints pin the choices.)

    Each choice is a loop keeping the first best card, as ``min``/``max`` with a key would (strict
    comparisons; a tuple key compared field by field): no key function called per card, which a
    compiled build cannot inline."""
    _seat, _hand, seen, trump, led, voids, n, mine, trump_only, follow_suit = k
    unseen = _ALL & ~seen
    row = _ROWS[trump_only][trump]
    # Winning a trick: its turn-up, and a step toward the 4-trick card bonus.
    trick_bonus = TURNUP_EV + (1.0 if mine < 4 else 0.5)
    if led >= 0:
        beat = BEATERS[trump][led]
        # The winner cheapest to spend: least hold value less the points it carries.
        best = -1
        best_v = 0.0
        for c in legal:
            if beat >> c & 1:
                v = hold_value(c, unseen) - row[c]
                if best < 0 or v < best_v:
                    best = c
                    best_v = v
        if best >= 0:
            gain = row[led] + row[best] + trick_bonus
            if gain >= hold_value(best, unseen) or row[led] > 0:
                return best
        # Else the least useful card: (2.5 x points + hold value, power), least first.
        best = -1
        best_v = 0.0
        best_p = 0
        for c in legal:
            v = 2.5 * row[c] + hold_value(c, unseen)
            p = POWER[c]
            if best < 0 or v < best_v or (v == best_v and p < best_p):
                best = c
                best_v = v
                best_p = p
        return best
    possible = unseen
    for s in range(4):
        if voids >> s & 1:
            possible &= ~SUIT_MASKS[s]
    n_possible = possible.bit_count()
    trumps = (possible & SUIT_MASKS[trump]).bit_count()
    cache = _P_HOLDS
    # The lead of most value, (value, -power) greatest first.
    best = -1
    best_v = 0.0
    best_p = 0
    for c in legal:
        higher = (possible & ABOVE[c]).bit_count()
        if c // 13 != trump:
            # Under follow=suit a trump beats it only when the opponent lacks the suit: count it half.
            higher += trumps // 2 if follow_suit else trumps
        key = (higher, n_possible, n)
        p_lose = cache.get(key)
        if p_lose is None:
            p_lose = cache[key] = p_holds_any(higher, n_possible, n)
        stake = row[c] + trick_bonus
        # The opponent who wins throws a low card; the one who loses throws his cheapest.
        v = (1 - p_lose) * stake - p_lose * stake - 0.5 * hold_value(c, unseen)
        p = POWER[c]
        if best < 0 or v > best_v or (v == best_v and p < best_p):
            best = c
            best_v = v
            best_p = p
    return best


def choose(view: View, obs: dict[str, Any], legal: list[int], rng: random.Random) -> int:
    """The heuristic's choice from the seat's observation: an eligible hand is always thrown in."""
    if REDEAL in legal:
        return REDEAL
    game = view.game
    assert isinstance(game, PenneechGame)
    return decide(seat_knowledge_from_observation(obs, game), legal)


def fast_choose(state: PenneechState, legal: list[int]) -> int:
    """:func:`choose` for the seat to play a card in a sampled world, from the world's own record of
    what that seat knows (the opponent's hand is only counted)."""
    return decide(state.seat_knowledge(), legal)
