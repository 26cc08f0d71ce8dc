"""The research harness's one door to the true state: the view it gives an ``oracle`` agent.

``gamester.agents.oracle`` runs a search that sees every hand, to measure how much a seat would gain
by knowing them (the inference gap, docs/agents.md). No :class:`View` holds the true state, so a
tournament or a simulation asks :func:`seat_view` for each seat's view: an agent that declares
``sees_all`` gets an :class:`OracleView`, whose worlds are the true position with only the chance
still to come drawn afresh (``game.kit().redraw_unseen``); every other agent gets the seat's own
``View``. The web and the terminal never call this: they build ``View`` themselves.
"""

from __future__ import annotations

import random

from gamester.agents.base import Agent, View
from gamester.core.protocol import State


class OracleView(View):
    """A seat's view whose ``determinize`` shows every hand (research only, never a player's)."""

    __slots__ = ()
    sees_all = True

    def determinize(self, rng: random.Random) -> State:
        state = self._state
        return state.game.kit().redraw_unseen(state, rng)


def seat_view(agent: Agent, state: State, player: int) -> View:
    """The view ``agent`` plays ``player``'s seat from: :class:`OracleView` for an oracle, else the
    seat's own."""
    if getattr(agent, "sees_all", False):
        return OracleView(state, player)
    return View(state, player)
