"""The exceptions every game, interface and record reader raises.

All of them are ``ValueError`` subclasses (except :class:`GameError` itself), so callers that only care
that *the input* was bad can catch ``ValueError``; interfaces catch :class:`GameError` and turn it into
a friendly message.
"""

from __future__ import annotations


class GameError(Exception):
    """Base class of every error gamester raises on purpose."""


class InvalidActionError(GameError, ValueError):
    """An action string (or int) that cannot be parsed at all: not a card, not a move of this game."""


class IllegalActionError(GameError, ValueError):
    """A well-formed action that the rules forbid in this position."""


class OptionError(GameError, ValueError):
    """An unknown game, option, rule set or option value; the message lists the valid ones."""


class RecordError(GameError, ValueError):
    """A malformed or inconsistent record; the message names the first offending field."""


class AgentError(GameError, ValueError):
    """An unknown agent name or parameter; the message lists the valid ones."""
