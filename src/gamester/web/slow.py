"""Slow games: clocks of hours or days a move, between accounts (docs/web.md, Slow games).

A clock of up to ``GUEST_SECONDS`` a move may seat anyone. A longer one (up to ``MAX_SECONDS``,
three days) is a *slow* table: correspondence play, where a player comes back from another device
hours later, so every person at it is an account (a guest's seat lives in one browser's storage);
its creator must be logged in, and a guest who tries to sit down is told to log in
(``account_needed``). Quick play's seeks follow the same rule.

The rule for abandonment (:func:`clock_keeps_waiting`): a table whose clock is running has not been
abandoned, however long it has been quiet. Whoever decides that a table is abandoned (a player
gone, a table to close) asks it first; the clock itself ends the wait when it runs out.
"""

from __future__ import annotations

from typing import Any

from gamester.store.port import TableRow

GUEST_SECONDS = 600
"""The longest clock a table with guests may have (ten minutes a move)."""

MAX_SECONDS = 3 * 24 * 3600
"""The longest clock any table may have (three days a move)."""


def is_slow(clock: Any) -> bool:
    """Whether a clock (checked or as it came) makes a slow table: accounts only."""
    if not isinstance(clock, dict):
        return False
    seconds = clock.get("seconds_per_move")
    return isinstance(seconds, int | float) and not isinstance(seconds, bool) and seconds > GUEST_SECONDS


def clock_keeps_waiting(row: TableRow, now: float) -> bool:
    """True while a player's clock is running at this table: the table waits for that player (for up
    to three days at a slow table) and is not abandoned, however long since the last move. False
    when no clock runs (waiting, over, a bot to move, no clock) or once it has run out (then the
    clock's own ``on_timeout`` decides)."""
    return row.status == "playing" and row.deadline is not None and row.deadline > now
