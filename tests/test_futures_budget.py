"""``futures:seconds=S`` spends its time budget on drawing worlds too, not only on playouts."""

from __future__ import annotations

import random
from typing import Any

import pytest

import gamester
from gamester.agents import futures, make_agent
from gamester.agents.base import View
from gamester.core import build

# These count calls by replacing a function of the futures module; the compiled module calls its own
# functions directly, past the replacement, so they run on the pure build only (same behaviour).
pytestmark = pytest.mark.skipif(
    "gamester.agents.futures" in build.compiled_modules(),
    reason="counts calls through a monkeypatched module function, which compiled code does not look up",
)


class CountingView(View):
    __slots__ = ("draws",)

    def __init__(self, state: Any, player: int) -> None:
        super().__init__(state, player)
        self.draws = 0

    def determinize(self, rng: random.Random) -> Any:
        self.draws += 1
        return super().determinize(rng)


def _decision() -> Any:
    """A Penneech position where seat 0 has a real choice after the opponent has played."""
    state = gamester.load_game("penneech").new_initial_state(seed=4)
    rng = random.Random(1)
    while not (state.current_player() == 0 and len(state.legal_actions()) > 1 and state.history_strings()):
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_drawing_worlds_stops_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    # No world is ever consistent with the opponent's plays: rejection sampling would use its whole
    # budget of draws (tries x worlds = 2,400) before the first playout, whatever seconds= said.
    monkeypatch.setattr(futures, "_mismatches", lambda kit, race, world, seat, limit, tie: 1)
    view = CountingView(_decision(), 0)
    make_agent("futures:seconds=0", seed=1).evaluate(view)
    assert 1 <= view.draws <= 3


def test_without_seconds_the_draw_budget_is_spent_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(futures, "_mismatches", lambda kit, race, world, seat, limit, tie: 1)
    view = CountingView(_decision(), 0)
    out = make_agent("futures:worlds=2,tries=3", seed=1).evaluate(view)
    assert view.draws == 2 * 3 + 1 and out["worlds"] == 2
