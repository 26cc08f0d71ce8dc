"""``oracle:SPEC``: the search ``SPEC`` shown every hand, for research only (docs/agents.md, "The oracle").

An oracle runs another agent (``oracle:rollout:worlds=30`` runs ``rollout:worlds=30``) whose worlds
are the true position: every card any seat holds where it is, only the chance still to come (the
Penneech stock's order, later deals) drawn afresh. Set against the same search on the seat's own
view it measures the *inference gap*: how much a seat would gain by knowing every hand, which is
the most that reading the other players' moves (``infer=policy``) could win back.

It needs the true state, which no agent's :class:`View` holds. The research harness hands it over:
``gamester tournament`` and ``simulate`` give an agent that declares ``sees_all`` a view from
``gamester.sim.oracle`` instead of the seat's own. Given an ordinary view (a web table, a hint, a
terminal game) an oracle refuses to move, and ``agent_refuses`` turns it away from every table.
"""

from __future__ import annotations

from typing import Any

from gamester.agents.base import Agent, View, make_agent, parse_agent_spec
from gamester.core.errors import AgentError
from gamester.core.protocol import Game

REFUSAL = "an oracle sees every hand: it is for research tournaments only, never a player at a table"


class OracleAgent(Agent):
    """Runs the agent of its spec's rest on a view that shows every hand (the module's docstring)."""

    name = "oracle"
    sees_all = True
    """What the research harness reads to hand this agent the true position (``gamester.sim.oracle``)."""

    def __init__(self, game: Game | None = None, agent: Any = None, seed: Any = None) -> None:
        spec = "" if agent is None else str(agent).strip()
        if not spec:
            raise AgentError("agent 'oracle': name the search it runs, e.g. oracle:rollout:worlds=30")
        if parse_agent_spec(spec)[0] == "oracle":
            raise AgentError("agent 'oracle': the search it runs cannot be an oracle itself")
        self.inner = make_agent(spec, game=game, seed=None if seed is None else int(seed))
        self.name = f"oracle:{spec}"

    @staticmethod
    def refuses(game: Game, params: dict[str, str]) -> str | None:
        """Every table: an oracle plays only where the research harness shows it every hand."""
        return REFUSAL

    def _check(self, view: View) -> None:
        if not getattr(view, "sees_all", False):
            raise AgentError(
                "agent 'oracle' plays only where the research harness shows it every hand "
                "(gamester tournament or simulate), never from a seat's view"
            )

    def step(self, view: View) -> int:
        self._check(view)
        return self.inner.step(view)

    def evaluate(self, view: View) -> dict[str, Any] | None:
        self._check(view)
        return self.inner.evaluate(view)
