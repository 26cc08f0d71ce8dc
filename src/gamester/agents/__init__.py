"""Computer players. An agent sees a :class:`View` of its own seat, never the true state.

``make_agent("random")``, ``make_agent("random:seed=3")``: agents are named by spec strings usable
everywhere (Python, ``play --vs``, ``simulate``, ``tournament``). The agents are written once for every
game: what a game knows about playing itself (heuristic, solver, rollout model) comes from its kit,
``game.kit()`` (``gamester.core.kit``).
"""

from gamester.agents.base import (
    Agent,
    View,
    agent_names,
    agent_refuses,
    agent_seed,
    make_agent,
    register_agent,
)
from gamester.core.errors import GameError
from gamester.core.protocol import Game
from gamester.core.registry import load_game


def best_agent_spec(game: Game | str) -> str:
    """The spec of the strongest agent for ``game`` (a game or its name) at about a second a move,
    as its kit recommends (what ``gamester play`` and ``--hint`` use; docs/agents.md, "Strength");
    its ``evaluate(view)`` returns ``{"action", "win_probability", ...}``."""
    if isinstance(game, str):
        try:
            game = load_game(game)
        except GameError:
            return "ismcts:seconds=1"
    return game.kit().recommended_agent


__all__ = [
    "Agent",
    "View",
    "agent_names",
    "agent_refuses",
    "agent_seed",
    "best_agent_spec",
    "make_agent",
    "register_agent",
]
