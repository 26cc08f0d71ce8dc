"""Playing cards: a card is a small int, with a frozen wrapper and codes for people.

A card id is ``suit * 13 + rank`` with suits ``C D H S`` (0–3) and ranks ``2 … A`` (0–12), so the 52
ids are dense and sorted by suit, then rank. Games that use part of the pack keep these ids for their
cards (and map them to their own dense actions if they wish).

Codes are two characters, rank then suit (``7D``, ``TS``). Parsing also accepts ``10`` for the ten,
the suit symbols ``♣♦♥♠`` (and their outline forms) and lower case.

>>> parse_card("10s"), card_code(parse_card("7♦"))
(47, '7D')
>>> Card.parse("qh")
Card('QH')
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from gamester.core.errors import InvalidActionError, quote

SUITS = "CDHS"
RANKS = "23456789TJQKA"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_NAMES = (
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
    "ace",
)
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
# Rank indices, named for readability in game modules.
TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(13)

_SUIT_ALIASES = {
    "c": 0,
    "d": 1,
    "h": 2,
    "s": 3,
    "♣": 0,
    "♦": 1,
    "♥": 2,
    "♠": 3,
    "♧": 0,
    "♢": 1,
    "♡": 2,
    "♤": 3,
}
_RANK_ALIASES = {r.lower(): i for i, r in enumerate(RANKS)}
_RANK_ALIASES["10"] = TEN

CODES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
_PARSE_CACHE: dict[str, int] = {c: i for i, c in enumerate(CODES)}


def make_card(rank: int, suit: int) -> int:
    """The id of the card of ``rank`` (0 = two … 12 = ace) in ``suit`` (0 = clubs … 3 = spades)."""
    return suit * 13 + rank


def card_rank(card: int) -> int:
    return card % 13


def card_suit(card: int) -> int:
    return card // 13


def card_code(card: int) -> str:
    """The canonical two-character code of a card id."""
    return CODES[card]


def suit_name(letter: str) -> str:
    """The suit of a code's letter in words: ``"D"`` -> ``"diamonds"``."""
    return SUIT_NAMES[SUITS.index(letter)]


def card_symbol(card: int) -> str:
    """Rank and suit symbol for people, e.g. ``7♦``."""
    return RANKS[card % 13] + SUIT_SYMBOLS[card // 13]


def parse_card(text: object) -> int:
    """Parse a card code leniently (``7D``, ``10s``, ``Q♥``) into its id.

    Raises :class:`InvalidActionError` quoting the text when it is not a card.
    """
    if not isinstance(text, str):
        raise InvalidActionError(f"{quote(text)} is not a card code (expected text like '7D' or '10S')")
    hit = _PARSE_CACHE.get(text)
    if hit is not None:
        return hit
    s = text.strip().lower()
    if len(s) >= 2:
        suit = _SUIT_ALIASES.get(s[-1])
        rank = _RANK_ALIASES.get(s[:-1])
        if suit is not None and rank is not None:
            return suit * 13 + rank
    raise InvalidActionError(
        f"{quote(text)} is not a card: write rank then suit, ranks {' '.join(RANKS)} (or 10), "
        f"suits {' '.join(SUITS)} or {' '.join(SUIT_SYMBOLS)}, e.g. '7D' or '10S'"
    )


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Parse cards given as a list of codes or as one string separated by commas, '+' or spaces."""
    if isinstance(text, str):
        parts = [p for p in text.replace(",", " ").replace("+", " ").split() if p]
    else:
        parts = list(text)
    return [parse_card(p) for p in parts]


def mask_of(cards: Iterable[int]) -> int:
    """The bitmask holding ``cards`` (bit ``id`` set for each)."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[int]:
    """The card ids in a bitmask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def iter_cards(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


SUIT_MASKS: tuple[int, ...] = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
FULL_PACK: tuple[int, ...] = tuple(range(52))


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """A readable, hashable wrapper around a card id, for people and doctests."""

    id: int

    def __post_init__(self) -> None:
        # Card('QH') pastes back from its repr; Card(46) wraps an id.
        if isinstance(self.id, str):
            object.__setattr__(self, "id", parse_card(self.id))
        elif not isinstance(self.id, int) or not 0 <= self.id < 52:
            raise InvalidActionError(f"{quote(self.id)} is not a card id (0-51)")

    @classmethod
    def parse(cls, text: str) -> Card:
        return cls(parse_card(text))

    @property
    def rank(self) -> int:
        return self.id % 13

    @property
    def suit(self) -> int:
        return self.id // 13

    @property
    def code(self) -> str:
        return CODES[self.id]

    def __str__(self) -> str:
        return CODES[self.id]

    def __repr__(self) -> str:
        return f"Card({CODES[self.id]!r})"
