"""The exceptions every game, interface and record reader raises.

All of them are ``ValueError`` subclasses (except :class:`GameError` itself), so callers that only care
that *the input* was bad can catch ``ValueError``; interfaces catch :class:`GameError` and turn it into
a friendly message.
"""

from __future__ import annotations

import reprlib
from typing import Any


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


class PositionError(GameError, ValueError):
    """A position's text that does not read as a position of its game: the message names the field
    that is wrong and why (docs/positions.md)."""


class AgentError(GameError, ValueError):
    """An unknown agent name or parameter; the message lists the valid ones."""


class _ShortRepr(reprlib.Repr):
    """``reprlib`` limits (nesting, lengths) plus numbers too long to print."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.maxlevel = 3
        self.maxstring = self.maxother = self.maxlong = limit
        self.maxlist = self.maxtuple = self.maxdict = self.maxset = self.maxfrozenset = 6

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 128:  # str() of a huge int is slow, and refused past 4,300 digits
            return f"<a {x.bit_length() * 0.30103:.0f}-digit number>"
        return repr(x)


_QUOTERS: dict[int, _ShortRepr] = {}


def quote(value: Any, limit: int = 60) -> str:
    """A short, always printable repr of ``value`` for an error message.

    Messages quote what the user gave, and what they gave may be hostile: a string of a million
    characters, a list nested ten thousand deep, an int of a million digits, an object whose
    ``__repr__`` raises. Each is cut to about ``limit`` characters; this never raises.
    """
    q = _QUOTERS.get(limit)
    if q is None:
        q = _QUOTERS[limit] = _ShortRepr(limit)
    try:
        text = q.repr(value)
    except Exception:  # noqa: BLE001 - an object's own __repr__ may fail in any way
        return f"<a {type(value).__name__}>"
    return text if len(text) <= 2 * limit else text[: 2 * limit] + "..."
