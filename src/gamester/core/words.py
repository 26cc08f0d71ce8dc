"""Words for players: names, cards with suit symbols, verbs that agree, engine messages as a player
reads them.

The vocabulary every game's terminal drawing (``games/<game>/render.py``) and the terminal, the replay
walk-through and ``gamester rules`` share; it sits in the core so that a game's own folder can hold its
drawing without importing an interface. Nothing here knows a rule. Writing them on a console without
suit symbols is ``gamester.play.words``'s business.

>>> pretty("JH a4-b4 3S+TD")
'J♥ a4-b4 3♠+10♦'
>>> n = Names(0, ("you", "player 1"))
>>> n.subject(1, "draw"), n.subject(0, "draw"), n(1, cap=True)
('player 1 draws', 'you draw', 'Player 1')
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from gamester.core.cards import SUIT_SYMBOLS, SUITS

_CODE = re.compile(r"(?<![A-Za-z0-9])(10|[2-9TJQKA])([CDHS])(?![A-Za-z0-9])")


def card(code: str) -> str:
    """A card code for people: rank then suit symbol, the ten as ``10`` (``TD`` -> ``10♦``)."""
    return pretty(code)


def cards(codes: Sequence[str], empty: str = "-") -> str:
    return " ".join(card(c) for c in codes) if codes else empty


def pretty(notation: str) -> str:
    """Every card code inside a piece of notation written with its suit symbol."""
    return _CODE.sub(lambda m: ("10" if m[1] == "T" else m[1]) + SUIT_SYMBOLS[SUITS.index(m[2])], notation)


@dataclass(frozen=True)
class Names:
    """How one screen names the players: ``me`` (the person at the screen, or None when watching
    from above) is "you"; every other player has a label, e.g. "player 1" or "West"."""

    me: int | None
    labels: tuple[str, ...]
    owners: tuple[int | None, ...] = ()  # Pentyrch: the player at each seat

    def __call__(self, p: int, cap: bool = False) -> str:
        text = "you" if p == self.me else self.labels[p]
        return text[0].upper() + text[1:] if cap else text

    def subject(self, p: int, verb: str, cap: bool = False) -> str:
        """The player and the verb agreeing with it: "you draw", "player 1 draws"."""
        return f"{self(p, cap)} {verb if p == self.me else third_person(verb)}"

    def possessive(self, p: int) -> str:
        return "your" if p == self.me else f"{self.labels[p]}'s"


_IRREGULAR = {"have": "has", "be": "is", "do": "does", "go": "goes"}


def third_person(verb: str) -> str:
    """The verb after "he" or "it".

    >>> third_person("pass"), third_person("carry"), third_person("win")
    ('passes', 'carries', 'wins')
    """
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb.endswith(("s", "sh", "ch", "x", "z")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in ("a", "e", "o", "u"):
        return verb[:-1] + "ies"
    return verb + "s"


def and_list(items: Sequence[str]) -> str:
    """The items as a sentence lists them.

    >>> and_list(["a"]), and_list(["a", "b"]), and_list(["a", "b", "c"])
    ('a', 'a and b', 'a, b and c')
    """
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def player_message(message: str, me: int, names: Names | None = None) -> str:
    """An engine error as a player reads it: no list of legal moves, no position dump at the end
    (the screen shows both already), and the player's own seat as "your"."""
    text = message.split("; legal:")[0]
    text = _strip_trailing_parens(text).rstrip(" ;,")
    for word in ("seat", "player"):
        text = re.sub(rf"\b{word} {me}'s\b", "your", text)
        text = re.sub(rf"\b{word.capitalize()} {me}'s\b", "Your", text)
    return text


def _strip_trailing_parens(text: str) -> str:
    text = text.rstrip()
    while text.endswith(")"):
        depth = 0
        for i in range(len(text) - 1, -1, -1):
            if text[i] == ")":
                depth += 1
            elif text[i] == "(":
                depth -= 1
                if depth == 0:
                    break
        else:
            return text
        head = text[:i].rstrip()
        if not head:
            return text
        text = head
    return text
