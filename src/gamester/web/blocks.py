"""Blocks, reports and bans: what a player and a moderator may do about someone (docs/web.md,
Blocks, reports and bans).

- A logged-in player blocks an account by name (at most ``MAX_BLOCKS``): from then on that
  account's chat never reaches the blocker's sockets, their seeks never share a table, and neither
  may sit down at a table where the other sits (``409 blocked``). Not oneself; blocking twice is
  harmless.
- A logged-in player reports an account, optionally naming the table, with a reason: at most
  ``REPORTS_A_DAY`` a day per account. The moderator reads them with ``gamester admin reports``.
- A banned account (``gamester admin ban``) cannot log in (``403 banned``, with until when and why),
  its sessions are void on every server the moment the ban is written, so it cannot sit, seek or
  chat as itself; its past results stay.

The routes are in :mod:`gamester.web.lobby`; the store behind :class:`ModerationRepository`.
"""

from __future__ import annotations

import time
import unicodedata
from typing import Any

from gamester.store.port import ModerationRepository
from gamester.web.errors import BadInput, NotAllowed, NotFound

MAX_BLOCKS = 200
REPORTS_A_DAY = 5
MAX_REASON = 1000
_REFUSED = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")


def refuse_banned(moderation: ModerationRepository, key: str, now: float | None = None) -> None:
    """``banned`` (403) if the account is banned now (blocking: a database read)."""
    at = time.time() if now is None else now
    ban = moderation.ban_of(key, at)
    if ban is None:
        return
    until = (
        "for good"
        if ban.until is None
        else "until " + time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(ban.until))
    )
    why = f": {ban.reason}" if ban.reason else ""
    raise NotAllowed(f"this account is banned {until}{why}"[:300], code="banned")


def reason_text(value: Any) -> str:
    """A report's reason as it will be kept (trimmed), or ``bad_reason`` saying why not."""
    if not isinstance(value, str):
        raise BadInput("reason: expected text saying what happened", code="bad_reason")
    text = " ".join(value.split())
    if not 1 <= len(text) <= MAX_REASON:
        raise BadInput(f"reason: 1 to {MAX_REASON} characters", code="bad_reason")
    for ch in text:
        if unicodedata.category(ch) in _REFUSED:
            raise BadInput(f"reason: the character U+{ord(ch):04X} is not allowed", code="bad_reason")
    return text


def other_account(store: ModerationRepository, name: Any, me: str, what: str) -> tuple[str, str]:
    """The key of the account named ``name``, which is not ``me``, and its name as written:
    ``no_player`` (404) or ``bad_<what>`` (422) otherwise."""
    from gamester.web.accounts import NAME

    if not isinstance(name, str) or not NAME.match(name):
        raise NotFound(f"no player {str(name)[:40]!r}", code="no_player")
    key = name.casefold()
    shown = store.account_name(key)
    if shown is None:
        raise NotFound(f"no player {name!r}", code="no_player")
    if key == me:
        raise BadInput(f"{what}: not yourself", code=f"bad_{what}")
    return key, shown
