"""What a bot's timing may tell (issue 22): a bot that answers at once when it has one legal move
tells the table how many it had, and in a card game that is hidden (one card left in the suit led).
So a forced move is held back until it took as long as that agent's recent real decisions on this
server (their median), at most the bot's budget. Only the time is kept, per agent spec: nothing about
any table or position.

Before the server has seen an agent decide, a spec with ``seconds=S`` is taken to think for ``S``;
any other waits only as long as it took."""

from __future__ import annotations

from collections import deque
from statistics import median

from gamester.agents.base import parse_agent_spec
from gamester.core.errors import AgentError

KEEP = 25  # recent decisions kept per agent spec


def _budget_of(spec: str) -> float:
    """The ``seconds=`` of an agent spec (0.0 without one: the menu's specs always parse)."""
    try:
        return max(0.0, float(parse_agent_spec(spec)[1].get("seconds", 0.0)))
    except (AgentError, ValueError):
        return 0.0


class ThinkTimes:
    def __init__(self, keep: int = KEEP) -> None:
        self.keep = keep
        self._seen: dict[str, deque[float]] = {}

    def thought(self, spec: str, seconds: float) -> None:
        """A real decision (more than one legal move) of ``spec`` took ``seconds``."""
        self._seen.setdefault(spec, deque(maxlen=self.keep)).append(max(0.0, seconds))

    def hold(self, spec: str, took: float, cap: float) -> float:
        """Seconds to hold back a forced move of ``spec`` that took ``took`` so far."""
        seen = self._seen.get(spec)
        usual = median(seen) if seen else _budget_of(spec)
        return max(0.0, min(usual, cap) - took)
