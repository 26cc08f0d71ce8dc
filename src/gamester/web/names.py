"""Which player names a table accepts, and how a name reads (docs/web.md, On the internet and People).

A name is what other people read at the table, so it may not hide or reorder text: no control
characters, no direction overrides or isolates (which turn text around), no zero-width or other
invisible format characters. Letters of any script, digits, spaces and ordinary punctuation are fine.

Nor may a guest's name *read like* somebody else: an account, a computer player (its spec's name or
the label the page shows for it), or a word the page uses for the reader ("You", "Spectator").
Whether two names read alike is decided on their :func:`skeleton`, after Unicode's idea of
confusable characters (UTS #39): case, compatibility forms and marks folded, every character that
reads like a Latin letter or digit replaced by it (``data/lookalikes.txt``, made from Unicode's
confusables data by ``tests/make_web_lists.py``), spaces and punctuation dropped, and the Latin look-
alikes folded (``0`` and ``o``, ``1``, ``i`` and ``l``, ``rn`` and ``m``). So ``b0b_1``, ``Bob 1``
and ``Ьоb1`` (Cyrillic) all read as ``bobl``.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from importlib import resources

MAX_NAME = 40
RESERVED = {"you", "me", "spectator", "system", "gamester", "computer", "deleted"}
"""Words the page uses itself, for the reader and for seats nobody holds."""
_REFUSED = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")
# Latin characters read alike (after case folding): a digit for a letter, i for l, rn for m.
_LATIN = str.maketrans(
    {"0": "o", "1": "l", "i": "l", "|": "l", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b"}
)
_PAIRS = (("rn", "m"), ("vv", "w"))


@functools.cache
def _lookalikes() -> dict[int, str]:
    text = resources.files("gamester.web").joinpath("data/lookalikes.txt").read_text("utf-8")
    out: dict[int, str] = {}
    for line in text.splitlines():
        code, _, letter = line.partition(" ")
        if code.startswith("U+") and letter:
            out[int(code[2:], 16)] = letter
    return out


def skeleton(name: str) -> str:
    """``name`` as it reads: two names with one skeleton are taken for one.

    >>> skeleton("Y0u"), skeleton("Rand_0rn"), skeleton("he-ur1stic") == skeleton("heuristic")
    ('you', 'random', True)
    >>> skeleton("b0b_1") == skeleton("Bob 1") == skeleton("\\u042cоb1")  # Cyrillic Ь and о
    True
    """
    look = _lookalikes()
    text = unicodedata.normalize("NFKC", name).casefold().translate(look)
    text = "".join(ch for ch in unicodedata.normalize("NFD", text) if unicodedata.category(ch)[0] != "M")
    text = "".join(ch for ch in text.translate(look) if ch.isalnum()).translate(_LATIN)
    for pair, letter in _PAIRS:
        text = text.replace(pair, letter)
    return text


@functools.cache
def reserved_skeletons() -> frozenset[str]:
    """The skeletons nobody's name may have: the page's own words, "Seat N" and "Player N", every
    computer player's name and the labels the page shows for the computer players."""
    from gamester.agents import agent_names
    from gamester.core.registry import game_names

    words = set(RESERVED) | set(agent_names())
    words.update(f"{w} {n}" for w in ("seat", "player") for n in range(1, 17))
    for game in game_names():
        try:
            from gamester.web.menu import agent_menu

            menu = agent_menu(game)
        except Exception:  # noqa: BLE001 - a broken third-party game lists no label
            continue
        words.update(str(entry["label"]).split(":")[0] for entry in menu)
    return frozenset(skeleton(w) for w in words)


def name_problem(name: str) -> str | None:
    """Why ``name`` (already a string) cannot be a player's name, in one line; None when it can.
    (Whether it reads like an account's is the database's to say: ``People.guest_name_problem``.)"""
    text = " ".join(name.split())
    if not text:
        return "name: expected a name of 1 to 40 characters"
    if len(text) > MAX_NAME:
        return f"name: at most {MAX_NAME} characters"
    for ch in name:
        cat = unicodedata.category(ch)
        if cat in _REFUSED:
            return f"name: the character U+{ord(ch):04X} is not allowed (control, invisible or text-turning)"
    sk = skeleton(text)
    if not sk:
        return "name: expected a letter or a digit"
    if sk in reserved_skeletons():
        return f"name: {text!r} reads like a word the table uses itself, or a computer player; choose another"
    return None


FILLER = re.compile(r"^[\s\u034f\u115f\u1160\u17b4\u17b5\u180e\u2800\u3164\uffa0]*$")


def only_filler(text: str) -> bool:
    """Whether ``text`` shows nothing a reader can see: spaces, combining marks with nothing to mark,
    and the blank letters (Hangul fillers, the Braille blank) that are letters to Unicode but show
    nothing."""
    bare = "".join(ch for ch in text if unicodedata.category(ch)[0] != "M")
    return FILLER.match(bare) is not None
