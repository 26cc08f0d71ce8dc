"""Penneech options and rule sets (``docs/rules/penneech.md``: every reading a source allows otherwise)."""

from __future__ import annotations

from dataclasses import dataclass

from gamester.core.options import OpenValue, RuleSet, option


@dataclass(frozen=True)
class PenneechOptions:
    first_dealer: str | int = option(
        "draw",
        choices=("draw", 0, 1),
        doc="who deals first: 'draw' (each seat draws a card from a shuffled pack, the lower deals, "
        "Ace low) or a seat",
    )
    redeal: str = option(
        "above_ten",
        choices=("above_ten", "no_ace_or_face", "off"),
        doc="which hands may ask for a new deal: 'above_ten' (no card above a Ten of its suit: no A, K, "
        "Q, J and not the 7D; the modern summary), 'no_ace_or_face' (no A, K, Q, J; Cotton), 'off'",
    )
    follow: str = option(
        "suit_or_trump",
        choices=("suit_or_trump", "suit"),
        doc="duty of the second player: 'suit_or_trump' (holding the led suit, play it or a trump), "
        "'suit' (follow suit if able)",
    )
    trick_honours: str = option(
        "any",
        choices=("any", "trump"),
        doc="which honours in a won trick score: 'any' (every A, K, Q, J; the 7D only when diamonds "
        "are trump) or 'trump' (only the trick's trump suit)",
    )
    target: int = option(61, minimum=1, maximum=10_000, web_maximum=201, doc="points that win the game")
    objective: str = option(
        "game",
        choices=("game", "deal"),
        doc="'game': first to the target wins (+1/-1); 'deal': one deal played out, returns the score "
        "difference",
    )


RULESETS: dict[str, RuleSet] = {
    "standard": RuleSet(
        "standard",
        {},
        source="modern summary: Penneech and Piquesept, CatsAtCards.com (2015)",
        reading="all defaults: the modern summary of the game",
    ),
    "cotton": RuleSet(
        "cotton",
        {"trick_honours": "trump", "redeal": "no_ace_or_face"},
        source="Charles Cotton, The Compleat Gamester (1674), ch. XXII",
        reading="only honours of the trick's trump count; a hand with neither Ace nor face may be thrown up",
    ),
    "pagat": RuleSet(
        "pagat",
        {"trick_honours": "trump", "follow": "suit"},
        source="pagat.com's reconstruction of Penneech",
        reading="only trump honours count and the second player must follow suit",
    ),
}

# The readings the sources leave open (docs/rules/penneech.md): ``gamester explore penneech`` plays
# every combination. ``first_dealer``, ``target`` and ``objective`` are not in doubt: every source
# plays to 61, and who deals first is a seat's luck, not a reading.
OPEN_SPACE: dict[str, tuple[OpenValue, ...]] = {
    "redeal": (
        OpenValue(
            "above_ten", "the modern summary (CatsAtCards, 2015): no card above a Ten, the 7D included"
        ),
        OpenValue(
            "no_ace_or_face", "Cotton (1674): a hand with 'neither Ace nor Face'; the 7D does not spoil it"
        ),
        OpenValue("off", "the rulings' third reading: no new deal, whatever the hand"),
    ),
    "follow": (
        OpenValue("suit_or_trump", "the modern summary and Parlett: follow suit or trump"),
        OpenValue("suit", "pagat.com's reconstruction: follow suit when able"),
    ),
    "trick_honours": (
        OpenValue("any", "the modern summary's honours table: every honour in a won trick scores"),
        OpenValue(
            "trump", "Cotton's 'Coat-Card Trumps', followed by pagat.com: only the trick's trump honours"
        ),
    ),
}
