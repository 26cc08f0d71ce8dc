"""A Piquesept player's rules of thumb, reading only the seat's observation.

Card points decide a deal (66 of 130 wins), so the rules are about winning points and not losing them:

* **Trade** (the drawer gives the soloist a card): give the least useful card — no points, not a spade,
  the lowest rank.
* **First trick**: the play is forced except between equally high cards; shed from the shortest suit.
* **Leading**, soloist: cash a card that no unseen card can beat (the top spade first while defenders
  may hold spades, then side-suit winners); otherwise lead the cheapest card of his longest side suit.
* **Leading**, defender: while the soloist may still hold spades, lead a low spade to draw them (the
  soloist can trump anything, even when he could follow); otherwise lead a side-suit card that no
  unseen card beats, else the cheapest card.
* **Following**: when his own side already wins the trick and no opponent plays after him, throw points
  on it (the richest legal card); when the other side wins, take the trick with the cheapest card
  that wins it if no opponent can still overtake (nobody after him, or a card no unseen card beats);
  otherwise play the cheapest card.
"""

from __future__ import annotations

import random
from typing import Any

from gamester.core.kit import View
from gamester.games.piquesept.game import PTS, SPADE, VAL

_ALL = range(32)


def _beats_all(card: int, led: int, others: set[int]) -> bool:
    """No card in ``others`` would win a trick led in suit ``led`` over ``card``."""
    v = VAL[led][card]
    return all(VAL[led][o] < v for o in others)


def choose(view: View, obs: dict[str, Any], legal: list[int], rng: random.Random) -> int:
    act = view.string_to_action
    hand = [act(c) for c in obs["hand"]]
    phase = obs["phase"]
    if phase == "give":
        return min(legal, key=lambda a: (PTS[a], a >> 3 == SPADE, a & 7, a))
    if phase == "first_trick":
        length = {s: sum(1 for a in hand if a >> 3 == s) for s in range(4)}
        return min(legal, key=lambda a: (length[a >> 3], a))
    n = obs["players"]
    me = obs["seat"]
    solo = obs["soloist"]
    played = {act(c) for t in obs["tricks"] for c in t["cards"]}
    trick = [act(c) for c in obs["trick"]]
    played.update(trick)
    known = set(hand) | played
    for c in (obs["trade"]["drawn"], obs["trade"]["given"]):
        if c is not None and me == solo:
            known.add(act(c))  # the card he lost is elsewhere; the card he got is in his hand
    unseen = {a for a in _ALL if a not in known and a not in hand}
    unseen_spades = {a for a in unseen if a >> 3 == SPADE}
    cheap = lambda a: (PTS[a], a >> 3 == SPADE, a & 7)  # noqa: E731 - a sort key

    if not trick:
        if me == solo:
            for a in sorted(legal, key=lambda a: (a >> 3 != SPADE, -PTS[a])):
                if a >> 3 == SPADE and not unseen_spades:
                    continue
                if _beats_all(a, a >> 3, unseen) and (
                    a >> 3 == SPADE or not unseen_spades or rng.random() < 0.5
                ):
                    return a
            side = [a for a in legal if a >> 3 != SPADE] or legal
            length = {s: sum(1 for a in hand if a >> 3 == s) for s in range(4)}
            return min(side, key=lambda a: (PTS[a], -length[a >> 3], a & 7))
        spades = [a for a in legal if a >> 3 == SPADE]
        if spades and unseen_spades:
            return min(spades, key=cheap)
        winners = [a for a in legal if a >> 3 != SPADE and _beats_all(a, a >> 3, unseen)]
        if winners and not unseen_spades:
            return max(winners, key=lambda a: PTS[a])
        return min(legal, key=cheap)

    led = trick[0] >> 3
    leader = obs["leader"]
    seats = [(leader + i) % n for i in range(len(trick))]
    best_i = max(range(len(trick)), key=lambda i: VAL[led][trick[i]])
    winning_seat = seats[best_i]
    best_val = VAL[led][trick[best_i]]
    after = [(leader + i) % n for i in range(len(trick) + 1, n)]
    i_am_solo = me == solo

    def my_side(s: int) -> bool:
        return bool((s == solo) == i_am_solo)

    opponents_after = [s for s in after if not my_side(s)]
    if my_side(winning_seat):
        safe = not opponents_after or _beats_all(trick[best_i], led, unseen)
        if safe:
            return max(legal, key=lambda a: (PTS[a], -(a >> 3 == SPADE), -(a & 7)))
        return min(legal, key=cheap)
    winners = [a for a in legal if VAL[led][a] > best_val]
    if winners:
        if not opponents_after:
            return min(winners, key=lambda a: (VAL[led][a] >= 16, PTS[a] < 3, VAL[led][a]))
        sure = [a for a in winners if _beats_all(a, led, unseen)]
        if sure:
            return min(sure, key=lambda a: (VAL[led][a], -PTS[a]))
    return min(legal, key=cheap)
