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

from gamester.core.cards import SUITS, parse_card
from gamester.core.kit import View
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


# -- the Penneech heuristic on bitmasks ---------------------------------------------------------------
# :func:`choose` reads the observation (strings, sets); a rollout calls it a dozen times, so here is
# the same rule, computed from the current seat's knowledge in a sampled world's fields: its
# hand, the cards played, the turn-ups, the opponent's known voids and hand size. Every expression is
# the heuristic's own, in the same order (floating-point ties break the same way), and
# ``tests/test_agents.py`` checks that both choose the same card in thousands of positions.
_SEVEN_D, _POWER, _HONOUR, _TURNUP_EV = SEVEN_D, POWER, HONOUR, TURNUP_EV
_SUIT = [0x1FFF << (13 * s) for s in range(4)]
# Cards of the same suit ranking above each card (the heuristic's "higher" and "above").
_ABOVE = [sum(1 << u for u in range(52) if u // 13 == c // 13 and _POWER[u] > _POWER[c]) for c in range(52)]
_ALL = (1 << 52) - 1


def _points_row(trump: int, trump_only: bool) -> list[int]:
    row = []
    for c in range(52):
        if c == _SEVEN_D:
            row.append(7 if trump == 1 else 0)
        elif trump_only and c // 13 != trump:
            row.append(0)
        else:
            row.append(_HONOUR[c])
    return row


_ROWS = {flag: [_points_row(t, flag) for t in range(4)] for flag in (False, True)}


def _hold(card: int, unseen: int) -> float:
    return max(0.0, 2.0 - 0.6 * (unseen & _ABOVE[card]).bit_count())


def fast_choose(state: Any, legal: list[int]) -> int:
    """:func:`choose` for the seat to play in a PLAY phase, from the world's fields
    that this seat may know (``state`` is a sampled world; the opponent's hand is only counted)."""
    me = state._cur
    opp = 1 - me
    opts = state.game.options
    trump_only = opts.trick_honours == "trump"
    follow_suit = opts.follow == "suit"
    trump: int = state._trump
    hands = state._hands
    dealt = state._dealt
    hand = hands[me]
    seen = hand | (dealt[0] & ~hands[0]) | (dealt[1] & ~hands[1])
    pack = state._pack
    for i in range(14, state._pos):
        seen |= 1 << pack[i]
    unseen = _ALL & ~seen
    row = _ROWS[trump_only][trump]
    mine: int = state._tricks[me]
    trick_bonus = _TURNUP_EV + (1.0 if mine < 4 else 0.5)
    led: int = state._led
    if led >= 0:
        ls = led // 13
        winners = [c for c in legal if (_POWER[c] > _POWER[led] if c // 13 == ls else c // 13 == trump)]
        if winners:
            best = min(winners, key=lambda c: _hold(c, unseen) - row[c])
            gain = row[led] + row[best] + trick_bonus
            if gain >= _hold(best, unseen) or row[led] > 0:
                return best
        return min(legal, key=lambda c: (2.5 * row[c] + _hold(c, unseen), _POWER[c]))
    voids = state._voids[opp]
    possible = unseen
    for s in range(4):
        if voids >> s & 1:
            possible &= ~_SUIT[s]
    n_possible = possible.bit_count()
    k: int = hands[opp].bit_count()
    trumps = (possible & _SUIT[trump]).bit_count()

    def value(c: int) -> float:
        suit = c // 13
        higher = (possible & _ABOVE[c]).bit_count()
        if suit != trump:
            higher += trumps // 2 if follow_suit else trumps
        p_lose = p_holds_any(higher, n_possible, k)
        stake = row[c] + trick_bonus
        return (1 - p_lose) * stake - p_lose * stake - 0.5 * _hold(c, unseen)

    return max(legal, key=lambda c: (value(c), -_POWER[c]))
