"""Hypothesis properties over every game: any legal play keeps the invariants and round-trips."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gamester
from tests.test_conformance import INVARIANTS, SPECS


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), spec=st.sampled_from(SPECS), seed=st.integers(0, 2**63 - 1))
def test_any_legal_play_keeps_invariants_and_round_trips(data: st.DataObject, spec: str, seed: int) -> None:
    game = gamester.load_game(spec)
    state = game.new_initial_state(seed=seed)
    check = INVARIANTS.get(game.name)
    steps = data.draw(st.integers(0, 120), label="steps")
    for _ in range(steps):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(data.draw(st.sampled_from(legal), label="action"))
        if check:
            check(state)
    record = json.loads(json.dumps(state.record()))
    again = gamester.replay(record)
    assert again.record() == record
    assert gamester.summary(again) == gamester.summary(state)
    for p in range(game.num_players):
        assert again.observation(p) == state.observation(p)
    twin = state.clone()
    if not twin.is_terminal():
        twin.apply_action(twin.legal_actions()[0])
    assert state.record() == record


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=12), spec=st.sampled_from(SPECS))
def test_any_text_is_parsed_or_refused_with_a_value_error(text: str, spec: str) -> None:
    state = gamester.load_game(spec).new_initial_state(seed=1)
    try:
        action = state.string_to_action(text)
    except ValueError:
        return
    assert 0 <= action < state.game.num_distinct_actions
