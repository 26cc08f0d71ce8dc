"""Plain-letter consoles: suit symbols and typographic marks as letters where a console cannot print
them. The words themselves (names, cards, verbs) are :mod:`gamester.core.words`.

>>> to_ascii("Q♥ 10♠ … a4→b4")
'QH 10S ... a4->b4'
"""

from __future__ import annotations

import io
import os
from typing import TextIO

_ASCII = {
    "♣": "C",
    "♦": "D",
    "♥": "H",
    "♠": "S",
    "♧": "C",
    "♢": "D",
    "♡": "H",
    "♤": "S",
    "…": "...",
    "→": "->",
    "←": "<-",
    "×": "x",
    "–": "-",
    "—": "--",
    "≥": ">=",
    "≤": "<=",
    "±": "+/-",
    "·": ".",
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
    "é": "e",
    "⁠": "",
}
_ASCII_TABLE = str.maketrans(_ASCII)
_SAMPLE = "♣♦♥♠…→"


def to_ascii(text: str) -> str:
    """``text`` with suit symbols as letters and typographic marks as plain ones."""
    return text.translate(_ASCII_TABLE)


def can_print_symbols(stream: TextIO) -> bool:
    """Whether ``stream`` can print the suit symbols (``GAMESTER_ASCII=1`` says no in any case)."""
    if os.environ.get("GAMESTER_ASCII", "").strip() not in ("", "0"):
        return False
    enc = getattr(stream, "encoding", None) or "ascii"
    try:
        _SAMPLE.encode(enc)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


class LetterStream(io.TextIOBase):
    """A text stream that writes suit symbols as letters (and anything else the console cannot
    encode as ``?``), so a console without them reads ``7S`` instead of crashing on ``7♠``."""

    def __init__(self, inner: TextIO) -> None:
        super().__init__()
        self.inner = inner

    def write(self, s: str) -> int:
        text = to_ascii(s)
        enc = getattr(self.inner, "encoding", None) or "ascii"
        try:
            text.encode(enc)
        except (UnicodeEncodeError, LookupError):
            text = text.encode(enc if _known(enc) else "ascii", "replace").decode(
                enc if _known(enc) else "ascii"
            )
        self.inner.write(text)
        return len(s)

    def flush(self) -> None:
        self.inner.flush()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]  # io.TextIOBase declares it read-only
        return getattr(self.inner, "encoding", None) or "ascii"


def _known(enc: str) -> bool:
    try:
        "".encode(enc)
    except LookupError:
        return False
    return True
