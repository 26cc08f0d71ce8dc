"""Which player names a table accepts (docs/web.md, On the internet).

A name is what other people read at the table, so it may not hide or reorder text: no control
characters, no direction overrides or isolates (which turn text around), no zero-width or other
invisible format characters, and not a word the page uses for the reader ("You"). Letters of any
script, digits, spaces and ordinary punctuation are fine.
"""

from __future__ import annotations

import unicodedata

MAX_NAME = 40
RESERVED = {"you", "me", "spectator", "system", "gamester"}


def name_problem(name: str) -> str | None:
    """Why ``name`` (already a string) cannot be a player's name, in one line; None when it can."""
    text = " ".join(name.split())
    if not text:
        return "name: expected a name of 1 to 40 characters"
    if len(text) > MAX_NAME:
        return f"name: at most {MAX_NAME} characters"
    for ch in name:
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            return f"name: the character U+{ord(ch):04X} is not allowed (control, invisible or text-turning)"
    if text.casefold() in RESERVED:
        return f"name: {text!r} is a word the table uses itself; choose another"
    return None
