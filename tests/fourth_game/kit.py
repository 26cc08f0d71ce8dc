"""What Minitrick offers search (``gamester.core.kit``): a heuristic read from the seat's view, a
cheap playout policy and, in games of several deals, a rollout model that stops at the end of the
deal. No exact solver and no move scores: ``pimc`` and ``lookahead`` refuse the game, as they should.

The heuristic uses the engine's own rule primitives (``card_power``, ``trick_winner``), so no rule
is written twice.
"""

from __future__ import annotations

import random
from typing import Any

from gamester.core.kit import Kit, RolloutModel, View
from gamester.core.protocol import State
from tests.fourth_game.game import SUITS, MiniTrickGame, MiniTrickState, card_power, suit_of, trick_winner


def choose(trick: list[int], legal: list[int], trump: int, rng: random.Random) -> int:
    """Lead: an Ace of a plain suit if one is held, else the weakest card. Follow: the cheapest card
    that takes the trick, else the weakest card. Ties (equal cards of different suits) by ``rng``."""
    if not trick:
        aces = [a for a in legal if a % 3 == 2 and suit_of(a) != trump]
        if aces:
            return aces[rng.randrange(len(aces))] if len(aces) > 1 else aces[0]
        return _weakest(legal, -1, trump, rng)
    led = suit_of(trick[0])
    winners = [a for a in legal if trick_winner([*trick, a], trump) == len(trick)]
    if winners:
        return _weakest(winners, led, trump, rng)
    return _weakest(legal, led, trump, rng)


def _weakest(cards: list[int], led: int, trump: int, rng: random.Random) -> int:
    # Weakest by trick power; among cards of equal power, the lower rank, then any (rng).
    low = min((card_power(a, led, trump), a % 3) for a in cards)
    pick = [a for a in cards if (card_power(a, led, trump), a % 3) == low]
    return pick[rng.randrange(len(pick))] if len(pick) > 1 else pick[0]


def _trump_of(obs: dict[str, Any]) -> int:
    t = obs["trump"]
    return -1 if t is None else SUITS.index(t)


def _deal_number(state: State) -> int:
    assert isinstance(state, MiniTrickState)
    return state.deal_number()


def _stop(state: State, marker: Any, steps: int) -> bool:
    return bool(_deal_number(state) != marker)


def _value(state: State) -> list[float]:
    """Returns estimated from the tricks counted so far against the tricks still to play."""
    assert isinstance(state, MiniTrickState)
    scores = state.scores()
    g = state.game
    left = (g.options.deals - state.deal_number()) * g.hand_size
    out = []
    for p, s in enumerate(scores):
        lead = s - max(x for q, x in enumerate(scores) if q != p)
        out.append(max(-1.0, min(1.0, lead / (1.0 + left / 2.0))))
    return out


def _policy(state: State, legal: list[int], rng: random.Random) -> int:
    assert isinstance(state, MiniTrickState)
    return choose(state.trick_cards(), legal, state.trump_suit(), rng)


class MiniTrickKit(Kit):
    has_heuristic = True
    recommended_agent = "rollout:worlds=12"
    skill_ladder = "rollout:worlds={}"

    def __init__(self, game: MiniTrickGame) -> None:
        super().__init__(game)
        if game.options.deals > 1:
            self.rollout_model = RolloutModel(start=_deal_number, stop=_stop, value=_value, policy=_policy)

    def heuristic(self, view: View, obs: dict[str, Any], legal: list[int], rng: random.Random) -> int:
        trick = [view.string_to_action(c) for c in obs["trick"]]
        return choose(trick, legal, _trump_of(obs), rng)
