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
"""

from __future__ import annotations

import random
from math import comb
from typing import Any

from gamester.agents.base import View
from gamester.core.cards import SUITS, parse_card
from gamester.games.penneech.game import POWER, SEVEN_D, TURNUP_POINTS

# The A/K/Q/J honours as the rules value them (the 7D's worth depends on the trump: see pts()).
HONOUR = [0 if c == SEVEN_D else TURNUP_POINTS[c] for c in range(52)]
TURNUP_EV = 70 / 52  # the honours of a pack (4 x 14 + the 7D's 14) spread over its cards
KEEP, REDEAL = 52, 53


def trick_points(card: int, trump: int, trump_only: bool) -> int:
    """docs/rules/penneech.md, Tricks: what ``card`` scores its trick's winner."""
    if card == SEVEN_D:
        return 7 if trump == 1 else 0
    if trump_only and card // 13 != trump:
        return 0
    return HONOUR[card]


def beats(card: int, led: int, trump: int) -> bool:
    cs, ls = card // 13, led // 13
    if cs == ls:
        return POWER[card] > POWER[led]
    return cs == trump


def hold_value(card: int, unseen: set[int]) -> float:
    """How valuable keeping ``card`` is: the fewer unseen cards above it in its suit, the better."""
    suit = card // 13
    above = sum(1 for u in unseen if u // 13 == suit and POWER[u] > POWER[card])
    return max(0.0, 2.0 - 0.6 * above)


def p_holds_any(group: int, unknown: int, k: int) -> float:
    """Chance that ``k`` cards drawn from ``unknown`` include at least one of ``group`` of them."""
    if group <= 0 or k <= 0:
        return 0.0
    if unknown - group < k:
        return 1.0
    return 1.0 - comb(unknown - group, k) / comb(unknown, k)


def choose(view: View, obs: dict[str, Any], legal: list[int], rng: random.Random) -> int:
    if REDEAL in legal:
        return REDEAL
    opts = view.game.options
    trump_only = opts.trick_honours == "trump"
    follow_suit = opts.follow == "suit"
    trump = SUITS.index(obs["trump"])
    hand = {parse_card(c) for c in obs["hand"]}
    seen = set(hand)
    for pile in obs["played"]:
        seen.update(parse_card(c) for c in pile)
    seen.update(parse_card(c) for c in obs["earlier_turn_ups"])
    if obs["turn_up"]:
        seen.add(parse_card(obs["turn_up"]))
    if obs["trick"]:
        seen.add(parse_card(obs["trick"][0]))
    unseen = set(range(52)) - seen
    me = obs["seat"]
    voids = {SUITS.index(s) for s in obs["known_voids"][1 - me]}
    possible = {u for u in unseen if u // 13 not in voids}
    k = obs["opponent_hand_size"]
    mine = obs["tricks_won"][me]
    # Winning a trick: its turn-up, and a step toward the 4-trick card bonus.
    trick_bonus = TURNUP_EV + (1.0 if mine < 4 else 0.5)

    def pts(c: int) -> int:
        return trick_points(c, trump, trump_only)

    if obs["trick"]:
        led = parse_card(obs["trick"][0])
        winners = [c for c in legal if beats(c, led, trump)]
        if winners:
            best = min(winners, key=lambda c: hold_value(c, unseen) - pts(c))
            gain = pts(led) + pts(best) + trick_bonus
            if gain >= hold_value(best, unseen) or pts(led) > 0:
                return best
        return min(legal, key=lambda c: (2.5 * pts(c) + hold_value(c, unseen), POWER[c]))

    def value(c: int) -> float:
        suit = c // 13
        higher = sum(1 for u in possible if u // 13 == suit and POWER[u] > POWER[c])
        if suit != trump:
            trumps = sum(1 for u in possible if u // 13 == trump)
            if follow_suit:
                # A trump beats it only when the opponent lacks the suit; count it half.
                higher += trumps // 2
            else:
                higher += trumps
        p_lose = p_holds_any(higher, len(possible), k)
        stake = pts(c) + trick_bonus
        # The opponent who wins throws a low card; the one who loses throws his cheapest.
        return (1 - p_lose) * stake - p_lose * stake - 0.5 * hold_value(c, unseen)

    return max(legal, key=lambda c: (value(c), -POWER[c]))
