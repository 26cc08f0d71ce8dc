"""The pace of bots at a table.

What a bot's timing may tell (issue 22): a bot that answers at once when it has one legal move
tells the table how many it had, and in a card game that is hidden (one card left in the suit led).
So a forced move is held back until it took as long as that agent's recent real decisions on this
server (their median), at most the bot's budget. Only the time is kept, per agent spec: nothing about
any table or position. Before the server has seen an agent decide, a spec with ``seconds=S`` is taken
to think for ``S``; any other waits only as long as it took.

A finished trick is seen (issue 43): every page keeps a completed trick drawn for at least
:data:`TRICK_HOLD` before it draws the next move (docs/web-ui.md). :func:`trick_wait` is how long a
bot that moves right after a trick holds its answer, counted from the move that completed it, so that
its move, and the clock of a person whose turn that move starts, come when the pages show the table
again: nobody's clock runs while their page still holds the trick."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from statistics import median
from typing import Any

from gamester.agents.base import parse_agent_spec
from gamester.core.errors import AgentError

KEEP = 25  # recent decisions kept per agent spec
TRICK_HOLD = 1.5  # seconds a completed trick stays drawn before the next move (table.js TRICK_HOLD)


def completes_trick(events: Iterable[Mapping[str, Any]]) -> bool:
    """Whether a move's public events (``state.last_events_seen_by(None)`` after it) complete a
    trick: a game says so with a ``trick`` event, as Penneech and Piquesept do."""
    return any(e.get("type") == "trick" for e in events)


def trick_wait(moved_at: float, events: Iterable[Mapping[str, Any]], now: float) -> float:
    """Seconds a bot still waits at ``now`` before its move goes out, after the move made at
    ``moved_at`` whose public events are ``events``: what is left of :data:`TRICK_HOLD` if that move
    completed a trick, else 0. (The bot thinks meanwhile: only its answer waits.)"""
    return max(0.0, moved_at + TRICK_HOLD - now) if completes_trick(events) else 0.0


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
