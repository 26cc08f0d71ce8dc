"""Piquesept options and rule sets (``docs/rules/piquesept.md``: every reading a source allows otherwise)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from gamester.core.cards import CODES, EIGHT, SPADES, card_suit, parse_card
from gamester.core.errors import InvalidActionError
from gamester.core.options import OpenValue, RuleSet, option

_EIGHTS_DOC = "two different Eights of clubs, diamonds or hearts, e.g. '8H,8D', '8H 8D' or [\"8H\", \"8D\"]"


def parse_removed_eights(value: Any) -> tuple[str, ...]:
    """Two distinct non-spade Eights, in canonical order (hearts, diamonds, clubs).

    docs/rules/piquesept.md, Seats and dealing: written as two codes separated by a comma or a space, or as a
    JSON list. Raises ``ValueError`` saying what is valid.
    """
    # Checked shape first: a record may hold anything here (a list nested thousands deep, a string
    # of a million characters), and only text codes are ever read.
    items: list[Any]
    if isinstance(value, (list, tuple)):
        items = list(value) if len(value) <= 2 else []
    elif isinstance(value, str) and len(value) <= 100:
        text = value.strip()
        if text.startswith("["):
            try:
                loaded = json.loads(text)
            except (ValueError, RecursionError):
                raise ValueError(_EIGHTS_DOC) from None
            items = loaded if isinstance(loaded, list) else []
        else:
            items = [p for p in text.replace(",", " ").replace("+", " ").split() if p]
    else:
        raise ValueError(_EIGHTS_DOC)
    if len(items) != 2 or not all(isinstance(c, str) for c in items):
        raise ValueError(_EIGHTS_DOC)
    try:
        cards = [parse_card(c) for c in items]
    except InvalidActionError:
        raise ValueError(_EIGHTS_DOC) from None
    if len(cards) != 2 or len(set(cards)) != 2:
        raise ValueError(_EIGHTS_DOC)
    for c in cards:
        if c % 13 != EIGHT or card_suit(c) == SPADES:
            raise ValueError(_EIGHTS_DOC)
    return tuple(CODES[c] for c in sorted(cards, reverse=True))


@dataclass(frozen=True)
class PiqueseptOptions:
    players: int = option(
        4,
        choices=(4, 3),
        doc="4 (one soloist against three defenders) or 3 (the 1798 book's three-hand game: two Eights "
        "are taken out, ten cards each)",
    )
    first_dealer: int = option(
        0, minimum=0, maximum=3, doc="the seat that deals first; the deal passes clockwise after each deal"
    )
    removed_eights: tuple[str, ...] = option(
        ("8H", "8D"),
        parse=parse_removed_eights,
        describe=_EIGHTS_DOC,
        doc="with players=3, the two non-spade Eights taken out of the pack (ignored with 4 players)",
    )
    first_trick_highest: str = option(
        "rank",
        choices=("rank", "points"),
        doc="in the first trick a defender without spades plays his highest card: 'rank' (A K Q J T 9 8 7) "
        "or 'points' (by card points, then rank: A T K Q J 9 8 7)",
    )
    trade_visible: bool = option(
        False,
        doc="false: only the drawer and the soloist know the drawn and the given card; true: both "
        "are shown to everyone",
    )
    deals: int = option(
        1,
        minimum=1,
        maximum=1000,
        web_maximum=16,
        doc="deals in a match; scores and returns are summed over them",
    )

    def validate(self) -> None:
        if self.first_dealer >= self.players:
            raise ValueError(
                f"first_dealer={self.first_dealer} is not a seat of a {self.players}-player "
                f"game: first_dealer must be from 0 to {self.players - 1}"
            )


_SOURCE = (
    "the 1798 rule book as summarized in Penneech and Piquesept (CatsAtCards.com, 2015); readings "
    "from docs/rules/piquesept.md"
)

RULESETS: dict[str, RuleSet] = {
    "standard": RuleSet(
        "standard",
        {},
        source=_SOURCE,
        reading="four players, one deal, highest card by rank, the trade seen only by the "
        "two players making it",
    ),
    "three_hand": RuleSet(
        "three_hand",
        {"players": 3},
        source=_SOURCE,
        reading="the 1798 book's three-hand game: 8H and 8D removed, ten cards each",
    ),
}

# The readings the sources leave open (docs/rules/piquesept.md): ``gamester explore piquesept`` plays
# every combination. ``removed_eights`` is left out (Eights score nothing and no rule names a suit,
# so any two blank Eights give the same game up to the suits' names), as are ``first_dealer`` and
# ``deals`` (a seat's luck, a match's length).
OPEN_SPACE: dict[str, tuple[OpenValue, ...]] = {
    "players": (
        OpenValue(4, "the 1798 book (through the modern summary): the four-hand game"),
        OpenValue(3, "the 1798 book's three-hand game: two blank Eights out, ten cards each"),
    ),
    "first_trick_highest": (
        OpenValue("rank", "the rulings: 'his highest card' read by rank, A K Q J T 9 8 7"),
        OpenValue("points", "the rulings' other reading: by card points, then rank, so a Ten above a King"),
    ),
    "trade_visible": (
        OpenValue(False, "the rulings: the draw and trade are a private exchange between two players"),
        OpenValue(True, "the rulings' other reading: both traded cards are shown to the table"),
    ),
}
