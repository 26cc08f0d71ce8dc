"""Penneech options and rule sets (``docs/rules/penneech.md``: every reading a source allows otherwise)."""

from __future__ import annotations

from dataclasses import dataclass

from gamester.core.options import RuleSet, option


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
    target: int = option(61, minimum=1, maximum=10_000, doc="points that win the game")
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
