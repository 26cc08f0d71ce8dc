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

The decision is written once, :func:`decide`, over :class:`Seen` (what the seat to decide knows).
Two extractors fill it: :func:`seen_from_observation` from the seat's observation (the heuristic
agent) and :func:`seen_from_world` from a sampled world for the seat to move (the rollout's playouts,
which then build no observation); the tests check both give the same record everywhere.
"""

from __future__ import annotations

import random
from typing import Any, NamedTuple

from gamester.core.kit import View
from gamester.core.rng import unit
from gamester.games.piquesept.game import ACTION_OF_CODE, FIRST, GIVE, PHASE_OF_NAME, PiqueseptState
from gamester.games.piquesept.rules import (
    ALL_CARDS,
    PTS,
    SPADE,
    SPADES,
    SUIT_MASK,
    VAL,
    beats_all,
    winning_index,
)


class Seen(NamedTuple):
    """What the seat to decide knows, as the heuristic uses it (cards as dense actions)."""

    phase: int
    """A ``game.Phase`` value."""
    seat: int
    players: int
    soloist: int
    leader: int
    hand: int
    """His hand, a mask."""
    trick: tuple[int, ...]
    """The trick so far, from ``leader``."""
    unseen: int
    """Every card of the 32 he has neither in his hand nor seen played this deal (nor, if he is the
    soloist, seen in the trade); with three players the two removed Eights count as unseen."""


def seen_from_observation(view: View, obs: dict[str, Any]) -> Seen:
    """The record from the seat's observation ``obs`` (its cards read with the game's own table of the
    codes its views write, ``game.ACTION_OF_CODE``)."""
    act = ACTION_OF_CODE
    hand = 0
    for c in obs["hand"]:
        hand |= 1 << act[c]
    me: int = obs["seat"]
    solo: int = obs["soloist"]
    known = hand
    for t in obs["tricks"]:
        for c in t["cards"]:
            known |= 1 << act[c]
    trick = tuple([act[c] for c in obs["trick"]])
    for a in trick:
        known |= 1 << a
    if me == solo:
        trade = obs["trade"]
        for c in (trade["drawn"], trade["given"]):
            if c is not None:
                # The card he lost is elsewhere; the card he got is in his hand.
                known |= 1 << act[c]
    phase = PHASE_OF_NAME[obs["phase"]]
    return Seen(phase, me, obs["players"], solo, obs["leader"], hand, trick, ALL_CARDS & ~known)


def seen_from_world(world: PiqueseptState) -> Seen:
    """The record for the seat to move in ``world`` (a state the agent sampled itself): the cards
    played this deal are the deal's pack less every hand. Read from the state's own fields (this runs
    at every step of every playout; ``world_view()`` would build the whole record, card points
    included, for the few fields needed here); the tests check it against the observation's record."""
    me = world._cur
    hands = world._hands
    hand = hands[me]
    held = 0
    for h in hands:
        held |= h
    known = hand | (world.game.pack_mask & ~held)
    solo = world._soloist
    if me == solo:
        if world._x >= 0:
            known |= 1 << world._x
        if world._y >= 0:
            known |= 1 << world._y
    return Seen(
        world._phase, me, world._n, solo, world._leader, hand, tuple(world._trick), ALL_CARDS & ~known
    )


def shed_first(hand: int, legal: list[int]) -> int:
    """The first trick: between equally high cards, the one from his shortest suit (a void lets him
    trump later)."""
    return min(legal, key=lambda a: ((hand & SUIT_MASK[a >> 3]).bit_count(), a))


# Sort keys that read nothing but the card (module functions: no closure is made per decision).
def _give_key(a: int) -> tuple[int, bool, int, int]:
    return PTS[a], a >> 3 == SPADE, a & 7, a


def _cheap(a: int) -> tuple[int, bool, int]:
    return PTS[a], a >> 3 == SPADE, a & 7


def _lead_order(a: int) -> tuple[bool, int]:
    return a >> 3 != SPADE, -PTS[a]


def _points(a: int) -> int:
    return PTS[a]


def _richest(a: int) -> tuple[int, int, int]:
    return PTS[a], -(a >> 3 == SPADE), -(a & 7)


def choose(view: View, obs: dict[str, Any], legal: list[int], rng: random.Random) -> int:
    """The heuristic agent's choice for ``view``'s seat (``obs``: its observation)."""
    return decide(seen_from_observation(view, obs), legal, rng)


def decide(k: Seen, legal: list[int], rng: random.Random) -> int:
    """The heuristic's choice among ``legal`` (ties between side-suit winners of the soloist's lead
    broken by ``rng``)."""
    phase = k.phase
    if phase == GIVE:
        return min(legal, key=_give_key)
    hand = k.hand
    if phase == FIRST:
        return shed_first(hand, legal)
    n = k.players
    me = k.seat
    solo = k.soloist
    trick = k.trick
    unseen = k.unseen
    unseen_spades = unseen & SPADES

    if not trick:
        if me == solo:
            for a in sorted(legal, key=_lead_order):
                if a >> 3 == SPADE and not unseen_spades:
                    continue
                if beats_all(a, a >> 3, unseen) and (a >> 3 == SPADE or not unseen_spades or unit(rng) < 0.5):
                    return a
            side = [a for a in legal if a >> 3 != SPADE] or legal
            return min(side, key=lambda a: (PTS[a], -(hand & SUIT_MASK[a >> 3]).bit_count(), a & 7))
        spades = [a for a in legal if a >> 3 == SPADE]
        if spades and unseen_spades:
            return min(spades, key=_cheap)
        winners = [a for a in legal if a >> 3 != SPADE and beats_all(a, a >> 3, unseen)]
        if winners and not unseen_spades:
            return max(winners, key=_points)
        return min(legal, key=_cheap)

    led = trick[0] >> 3
    val = VAL[led]
    leader = k.leader
    best_i = winning_index(trick)
    winning_seat = (leader + best_i) % n
    best_val = val[trick[best_i]]
    after = [(leader + i) % n for i in range(len(trick) + 1, n)]
    i_am_solo = me == solo
    # A seat is on his side when it is the soloist exactly when he is.
    opponents_after = [s for s in after if (s == solo) != i_am_solo]
    if (winning_seat == solo) == i_am_solo:
        safe = not opponents_after or beats_all(trick[best_i], led, unseen)
        if safe:
            return max(legal, key=_richest)
        return min(legal, key=_cheap)
    winners = [a for a in legal if val[a] > best_val]
    if winners:
        if not opponents_after:
            return min(winners, key=lambda a: (val[a] >= 16, PTS[a] < 3, val[a]))
        sure = [a for a in winners if beats_all(a, led, unseen)]
        if sure:
            return min(sure, key=lambda a: (val[a], -PTS[a]))
    return min(legal, key=_cheap)
