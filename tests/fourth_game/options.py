"""Minitrick options and rule sets (``rules.md`` in this folder says what each one changes)."""

from __future__ import annotations

from dataclasses import dataclass

from gamester.core.options import RuleSet, option


@dataclass(frozen=True)
class MiniTrickOptions:
    players: int = option(
        2, choices=(2, 3), doc="2 (four cards each, three left in the stock) or 3 (three each, two left)"
    )
    trump: str = option(
        "turnup",
        choices=("turnup", "none"),
        doc="'turnup': the suit of the card turned up after the deal is trump; 'none': no trump "
        "(the card is still turned up and shown)",
    )
    must_trump: bool = option(False, doc="a player who cannot follow suit must play a trump if he holds one")
    deals: int = option(1, minimum=1, maximum=9, doc="deals in a game; tricks are counted over all of them")
    first_dealer: int = option(
        0, minimum=0, maximum=2, doc="the seat that deals first; the deal passes to the left after each deal"
    )

    def validate(self) -> None:
        if self.first_dealer >= self.players:
            raise ValueError(
                f"first_dealer={self.first_dealer} is not a seat of a {self.players}-player game: "
                f"first_dealer must be from 0 to {self.players - 1}"
            )


_SOURCE = "invented for gamester's tests (tests/fourth_game/rules.md): a game no book describes"

RULESETS: dict[str, RuleSet] = {
    "standard": RuleSet(
        "standard", {}, source=_SOURCE, reading="two players, one deal, the turn-up names trump"
    ),
    "three_hand": RuleSet(
        "three_hand", {"players": 3}, source=_SOURCE, reading="three players with three cards each"
    ),
    "match": RuleSet(
        "match",
        {"deals": 3, "must_trump": True},
        source=_SOURCE,
        reading="three deals, and a player void in the led suit must trump",
    ),
}
