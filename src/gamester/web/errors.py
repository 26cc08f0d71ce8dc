"""What the server refuses, as the decisions say it: one small hierarchy, each with a machine ``code``.

A :class:`Refused` carries the ``code`` a client can act on (``stale``, ``seat_taken``…) and one line
for a person (``message``); it knows nothing of HTTP or WebSockets. The decisions, the room, chat,
rematches, reviews and the request checks raise these; the edge (:mod:`gamester.web.edge`) turns each
class into an HTTP status and a WebSocket answer in one table, so a refusal reads the same whichever
door it came through.

A class whose refusals name the field at fault takes its ``code`` per instance (``BadInput`` with
``bad_seat``, ``NotFound`` with ``no_game``); the others have one fixed code.
"""

from __future__ import annotations


class Refused(Exception):
    """A request refused: ``code`` for machines, ``message`` (one line) for people."""

    code: str = "refused"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


# -- what was sent is wrong ------------------------------------------------------------------------
class Malformed(Refused):
    """Not a request at all: a body that is not JSON, a socket message that is not one of ours."""

    code = "bad_message"


class BadInput(Refused):
    """A field's value is not valid (``code``: ``bad_`` and the field, e.g. ``bad_seat``)."""

    code = "bad_request"


class NotFound(Refused):
    """Nothing by that name (``code``: ``no_`` and what, e.g. ``no_game``)."""

    code = "not_found"


class NoTable(NotFound):
    code = "no_table"


# -- who is asking ---------------------------------------------------------------------------------
class NotLoggedIn(Refused):
    """An account is needed and none is logged in (or its session is not valid)."""

    code = "not_logged_in"


class NotAllowed(Refused):
    """This asker may not (``code``: ``private_table``, ``invite_needed``, ``bad_invite``…)."""

    code = "not_allowed"


class BadToken(NotAllowed):
    """Not a seat's token at this table."""

    code = "bad_token"


class NotOver(NotAllowed):
    """What is given out once the game is over (the record, the replay, a review)."""

    code = "not_over"


# -- the table is not where the asker thinks --------------------------------------------------------
class Conflict(Refused):
    """The table (or account) is not in a state that allows it (``code``: ``seat_taken``…)."""

    code = "conflict"


class SeatTaken(Conflict):
    code = "seat_taken"


class RateLimited(Refused):
    """Too many, too fast: ask again in ``retry_after`` seconds (whole, at least 1; HTTP's
    ``Retry-After``)."""

    code = "rate_limited"

    def __init__(self, message: str, *, code: str | None = None, retry_after: float = 1.0) -> None:
        super().__init__(message, code=code)
        self.retry_after = max(1, round(retry_after))


class Overloaded(RateLimited):
    """The server's share of something everybody shares is full (a few password hashes may wait):
    ask again in a moment."""

    code = "busy"


# -- a move or a hint, over the socket -------------------------------------------------------------
class Stale(Refused):
    """The position moved on: the asker's view is out of date."""

    code = "stale"


class NotYourTurn(Refused):
    code = "not_your_turn"


class NotPlaying(Refused):
    """The table is not playing (``code``: ``not_playing`` while it waits, ``game_over`` after)."""

    code = "not_playing"


class IllegalAction(Refused):
    code = "illegal_action"


class NotTheLesson(Refused):
    """A lesson's pupil tried a move the lesson is not about: explained, never played."""

    code = "not_the_lesson"


class Left(Refused):
    """The socket's token has left its seat: the socket speaks for nobody any more."""

    code = "left"


class Spectator(Refused):
    """A spectator asked for what only a seat may (a move, a hint)."""

    code = "spectator"


class Busy(Refused):
    """One at a time: the last one is still being worked out."""

    code = "busy"
