"""Computer players. An agent sees a :class:`View` of its own seat, never the true state.

``make_agent("random")``, ``make_agent("random:seed=3")``: agents are named by spec strings usable
everywhere (Python, ``play --vs``, ``simulate``, ``tournament``).
"""

from gamester.agents.base import Agent, View, agent_names, make_agent, register_agent

# The strongest agent of each game at about a second a move (docs/agents.md, "Strength").
BEST_AGENTS = {
    "penneech": "futures:worlds=300",
    "piquesept": "rollout:worlds=30",
    "pentyrch": "lookahead:worlds=8",
}


def best_agent_spec(game_name: str) -> str:
    """The spec of the best agent for ``game_name`` (what ``gamester play`` and ``--hint`` use);
    its ``evaluate(view)`` returns ``{"action", "win_probability", ...}``."""
    return BEST_AGENTS.get(game_name, "ismcts:seconds=1")


__all__ = ["BEST_AGENTS", "Agent", "View", "agent_names", "best_agent_spec", "make_agent", "register_agent"]
