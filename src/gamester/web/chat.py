"""Table chat's rules (docs/web.md, People): what a line may say, and whether one is taken now.

A seat or a spectator sends ``{"type": "chat", "text": "…"}``; every socket of the table, on every
server, gets ``{"type": "chat", "seat": N|null, "name", "text", "at", "account"}`` (``account``: the
speaker's account name, null for a guest), except the sockets of accounts that block the speaker
(docs/web.md, Blocks, reports and bans; a block made meanwhile counts from its notice on: the room's
``Reblock``). A banned account's line is refused (``banned``). When the moderator deletes lines
(``gamester admin chat-delete``) every socket gets ``{"type": "chat_deleted"}`` and then the lines
left. Text is 1 to 500 characters after trimming, one line, with no control, invisible or
text-turning character, and something a reader can see (not only blank letters or combining marks);
each address, account and seat at a table may send 5 at once and then one every 2 s (else
``rate_limited``): the allowances are buckets in the database (:func:`allowance`, over web/fair.py's
``chat_keys``), so a reconnected socket keeps its count. Lines are stored with the table (``gm_chat``,
its last 500); a socket that connects gets the last 100, then the table's rematch if there is one.

Chat is part of the table's room (web/room.py): a line said goes through the room's queue like a
move, so it reaches every socket in the order the table lived it, and lines said through another
server come in as that room's notices. This module holds only the decisions, with no I/O:
:func:`chat_text` (what is stored) and :func:`allowance` (whose allowances a line spends).
"""

from __future__ import annotations

import unicodedata
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from gamester.store.port import Bucket
from gamester.web.errors import BadInput
from gamester.web.names import only_filler

MAX_CHAT = 500
HISTORY = 100
BURST = 5.0
EVERY = 2.0
_REFUSED = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")


def chat_text(text: Any) -> str:
    """The text to store (trimmed), or ``BadInput`` (``bad_chat``) saying why not."""
    if not isinstance(text, str):
        raise BadInput("chat: text: expected text", code="bad_chat")
    t = text.strip()
    if not 1 <= len(t) <= MAX_CHAT:
        raise BadInput(f"chat: text: 1 to {MAX_CHAT} characters after trimming", code="bad_chat")
    for ch in t:
        if unicodedata.category(ch) in _REFUSED:
            raise BadInput(
                f"chat: the character U+{ord(ch):04X} is not allowed (control, invisible or text-turning)",
                code="bad_chat",
            )
    if only_filler(t):
        raise BadInput("chat: text: nothing a reader could see (blank or combining marks)", code="bad_chat")
    return t


def allowance(keys: list[str]) -> list[Bucket]:
    """The buckets a line spends, one per key (web/fair.py's ``chat_keys``), all or none: ``BURST`` at
    once, then one every ``EVERY`` seconds each."""
    return [Bucket("chat", k[:120], BURST, EVERY) for k in keys]


@dataclass(eq=False)
class Speaker:
    """One socket of a table, as the chat knows it: who its lines go under, whose allowances they
    spend (``keys``: the address's, the account's and the seat's at the table, web/fair.py's
    ``chat_keys``), and the lines it has been sent (so a line heard twice, from history and from a
    notice, shows once)."""

    seat: int | None
    name: str
    keys: list[str]
    seen: OrderedDict[int, None] = field(default_factory=OrderedDict)
    account: str | None = None  # the key of the account speaking through it (None: a guest)
    blocked: frozenset[str] = frozenset()  # the accounts it blocks: their lines never reach it

    def hears(self, line: dict[str, Any]) -> bool:
        """Whether a stored line may reach this socket: not one said by an account it blocks."""
        return line.get("account") is None or line["account"] not in self.blocked

    def fresh(self, line_id: int) -> bool:
        """Whether the line ``line_id`` is new to this socket (and note that it has it now)."""
        if line_id in self.seen:
            return False
        self.seen[line_id] = None
        while len(self.seen) > 4 * HISTORY:
            self.seen.popitem(last=False)
        return True
