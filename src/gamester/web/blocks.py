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

The routes are in :mod:`gamester.web.lobby`; the SQL in :mod:`gamester.store.moderation`.
"""

from __future__ import annotations

import time
import unicodedata
from typing import Any

from gamester.store.moderation import ModerationStore
from gamester.store.repository import SqlTableRepository
from gamester.web.decisions import ServiceError

MAX_BLOCKS = 200
REPORTS_A_DAY = 5
MAX_REASON = 1000
_REFUSED = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")


def refuse_banned(repo: SqlTableRepository, key: str, now: float | None = None) -> None:
    """``403 banned`` if the account is banned now (blocking: a database read)."""
    at = time.time() if now is None else now
    ban = ModerationStore(repo).ban_of(key, at)
    if ban is None:
        return
    until = (
        "for good"
        if ban.until is None
        else "until " + time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(ban.until))
    )
    why = f": {ban.reason}" if ban.reason else ""
    raise ServiceError("banned", f"this account is banned {until}{why}"[:300], 403)


def reason_text(value: Any) -> str:
    """A report's reason as it will be kept (trimmed), or ``bad_reason`` saying why not."""
    if not isinstance(value, str):
        raise ServiceError("bad_reason", "reason: expected text saying what happened", 422)
    text = " ".join(value.split())
    if not 1 <= len(text) <= MAX_REASON:
        raise ServiceError("bad_reason", f"reason: 1 to {MAX_REASON} characters", 422)
    for ch in text:
        if unicodedata.category(ch) in _REFUSED:
            raise ServiceError("bad_reason", f"reason: the character U+{ord(ch):04X} is not allowed", 422)
    return text


def other_account(store: ModerationStore, name: Any, me: str, what: str) -> str:
    """The key of the account named ``name``, which is not ``me``: ``no_player`` (404) or
    ``bad_<what>`` (422) otherwise."""
    from gamester.web.accounts import NAME

    if not isinstance(name, str) or not NAME.match(name):
        raise ServiceError("no_player", f"no player {str(name)[:40]!r}", 404)
    key = name.casefold()
    if store.account_name(key) is None:
        raise ServiceError("no_player", f"no player {name!r}", 404)
    if key == me:
        raise ServiceError(f"bad_{what}", f"{what}: not yourself", 422)
    return key
