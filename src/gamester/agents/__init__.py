"""Computer players. An agent sees a :class:`View` of its own seat, never the true state.

``make_agent("random")``, ``make_agent("random:seed=3")``: agents are named by spec strings usable
everywhere (Python, ``play --vs``, ``simulate``, ``tournament``).
"""

from gamester.agents.base import Agent, View, agent_names, make_agent, register_agent

__all__ = ["Agent", "View", "agent_names", "make_agent", "register_agent"]
