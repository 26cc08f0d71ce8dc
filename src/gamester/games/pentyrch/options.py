"""Pentyrch options and rule sets (``docs/rules/pentyrch.md``: every reading the source allows otherwise).

Source: Mal Jones, *Pentyrch* (contributed rules, 2003); the readings in ``docs/rules/pentyrch.md``
are the project's reconstruction and decide every doubtful point.
"""

from __future__ import annotations

from dataclasses import dataclass

from gamester.core.options import OpenValue, RuleSet, option

SOURCE = "Mal Jones, Pentyrch (contributed rules, 2003), read by docs/rules/pentyrch.md"


@dataclass(frozen=True)
class PentyrchOptions:
    players: int = option(
        4,
        choices=(2, 3, 4),
        doc="number of players: 4 (one seat each), 3 (West, North, East; one hand card set aside) or "
        "2 (player A plays West and East, player B North and South, one hand each)",
    )
    partners: bool = option(
        False, doc="four players only: West and East play together against North and South"
    )
    cover_any_direction: bool = option(False, doc="covering steps (onto court cards) may also go backward")
    combine: str = option(
        "when_needed",
        choices=("when_needed", "always"),
        doc="when several hand cards may pay for one exchange: 'when_needed' (only if no single card "
        "is high enough) or 'always'",
    )
    overpay: bool = option(
        False, doc="a combination may hold cards that could be left out (default: it may not)"
    )
    show: bool = option(
        True, doc="on a one-card pile, showing a hand card of equal value may replace the exchange"
    )
    reveal_on_pass: bool = option(
        True, doc="a seat that cannot move shows its hand to everyone when it passes"
    )
    max_rounds: int = option(
        200,
        minimum=1,
        maximum=100_000,
        web_maximum=300,
        doc="the game ends after this many rounds (West to the dealer); the usual end decides",
    )
    games: int = option(
        1,
        minimum=1,
        maximum=1000,
        web_maximum=8,
        doc="games in a match; seats rotate each game and scores and returns are summed",
    )

    def validate(self) -> None:
        # docs/rules/pentyrch.md, Seats, court cards and hands: partnerships are West+East against
        # North+South, four players only.
        if self.partners and self.players != 4:
            raise ValueError(
                f"partners=true needs players=4 (got players={self.players}): "
                "partnerships are West+East against North+South"
            )


RULESETS: dict[str, RuleSet] = {
    "standard": RuleSet(
        "standard", {}, source=SOURCE, reading="four players, each for himself; every option at its default"
    ),
    "partnership": RuleSet(
        "partnership",
        {"partners": True},
        source=SOURCE,
        reading="players sitting opposite partner each other (the text's partnership game)",
    ),
    "two_player": RuleSet(
        "two_player",
        {"players": 2},
        source=SOURCE,
        reading="two players, each with two sets of court cards of one colour",
    ),
}

# The readings the text leaves open (docs/rules/pentyrch.md, "Why these readings"): ``gamester
# explore pentyrch`` plays every combination the options allow (``partners=true`` needs four
# players). ``max_rounds`` (a safety stop) and ``games`` (a match's length) are not readings.
OPEN_SPACE: dict[str, tuple[OpenValue, ...]] = {
    "players": (
        OpenValue(4, "the text: a game for up to four, one suit each"),
        OpenValue(3, "the text's 'up to four': West, North and East, one hand card set aside"),
        OpenValue(2, "the rulings: two players, each with both suits of one colour"),
    ),
    "partners": (
        OpenValue(False, "the text: each for himself"),
        OpenValue(True, "the text's partnership game: opposite seats together (four players)"),
    ),
    "cover_any_direction": (
        OpenValue(False, "the rulings: covering keeps the forward-or-sideways limit of every step"),
        OpenValue(True, "the text's trapping rule, which speaks only of 'adjacent' cards"),
    ),
    "combine": (
        OpenValue("when_needed", "the text: several cards only when no single card reaches the value"),
        OpenValue("always", "the rulings' other reading: several cards whenever they reach it"),
    ),
    "overpay": (
        OpenValue(False, "the rulings: no card that could be left out (else a whole hand is dumped)"),
        OpenValue(True, "the text, silent on surplus cards: any combination that reaches the value"),
    ),
    "show": (
        OpenValue(True, "the text: showing an equal card may replace the exchange on a one-card pile"),
        OpenValue(False, "the rulings' variant: always the plain exchange"),
    ),
    "reveal_on_pass": (
        OpenValue(True, "the text lets the others see a hand that cannot move; the rulings show it"),
        OpenValue(False, "the rulings' other reading: nobody asks, the hand stays hidden"),
    ),
}
