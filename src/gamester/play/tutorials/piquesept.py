"""The Piquesept lesson: one deal, you a defender on the soloist's left, with two computer partners.

It teaches, each when it first matters: the soloist's forced first trick (the 7S led, every defender's
highest spade), the draw and the give, card points, the defenders' duty to follow and else to trump,
and the count to 66.
"""

from __future__ import annotations

from gamester.core.cards import SUIT_NAMES, SUITS
from gamester.play.tutorials import Moment, Step, Tutorial

POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}
SEATS = ("West", "North", "East", "South")


def _points(card: str) -> int:
    return 10 if card == "7S" else POINTS.get(card[0], 0)


def _suit(letter: str) -> str:
    return SUIT_NAMES[SUITS.index(letter)]


def _soloist(m: Moment) -> str:
    return f"{SEATS[m.obs['soloist']]} (player {m.obs['soloist']})"


def _following(m: Moment) -> bool:
    return m.obs["phase"] == "play" and bool(m.obs["trick"])


def _led(m: Moment) -> str:
    return str(m.obs["trick"][0][1])


def _of(m: Moment, suit: str) -> set[str]:
    return {c for c in m.obs["hand"] if c[1] == suit}


def _give_expect(m: Moment) -> list[str]:
    """The cards worth nothing to the soloist's count (the lesson's advice, not a rule)."""
    return [c for c in m.legal if _points(c) == 0 and c[1] != "S"]


def _first_trick_text(m: Moment) -> str:
    return (
        f"{_soloist(m)} held the 7S, so he is the soloist, alone against the three of you, and he "
        "had to lead it. In this first trick every defender must play his highest spade, or with no "
        f"spade his highest card: yours is {' or '.join(m.legal)}. The soloist wins this trick."
    )


def _give_text(m: Moment) -> str:
    return (
        f"You sit on the soloist's left, so you drew one of his cards at random: {m.obs['trade']['drawn']}"
        ". Now give him any one card of yours, the drawn one too if you like. The others did not see "
        "either card. Give him one that counts nothing for him: "
        f"{' or '.join(_give_expect(m))}."
    )


def _count_text(m: Moment) -> str:
    soloist, defenders = m.obs["side_points"]  # the soloist's side first
    return (
        "After the last trick each side counts its card points: the side with 66 or more of the 130 "
        f"wins, and 65 each is a draw. So far your side has {defenders}, the soloist {soloist}."
    )


STEPS = [
    Step(
        "first_trick",
        when=lambda m: m.obs["phase"] == "first_trick",
        text=_first_trick_text,
        expect=lambda m: list(m.legal),
    ),
    Step(
        "draw_and_give",
        when=lambda m: m.obs["phase"] == "give",
        text=_give_text,
        expect=_give_expect,
        wrong=lambda m, move: (
            f"You may give {move}, but it brings the soloist {_points(move)} card points"
            + (" and a trump" if move[1] == "S" else "")
            + f": give {' or '.join(_give_expect(m))}."
        ),
    ),
    Step(
        "card_points",
        when=lambda m: any(e["type"] == "trick" and e["points"] > 0 for e in m.events),
        text=lambda m: (
            "Each trick carries its card points to its winner: Ace 11, the 7S 10, Ten 10, King 4, "
            "Queen 3, Jack 2, the rest nothing. The pack holds 130."
        ),
    ),
    Step(
        "follow",
        when=lambda m: (
            _following(m) and bool(_of(m, _led(m))) and set(m.legal) == _of(m, _led(m)) != set(m.obs["hand"])
        ),
        text=lambda m: (
            f"{_suit(_led(m)).capitalize()} were led and you hold some: a defender must follow suit. "
            "(The soloist alone may play any card at any time.)"
        ),
    ),
    Step(
        "trump",
        when=lambda m: (
            _following(m)
            and not _of(m, _led(m))
            and bool(_of(m, "S"))
            and _led(m) != "S"
            and set(m.legal) == _of(m, "S") != set(m.obs["hand"])
        ),
        text=lambda m: (
            f"You hold no {_suit(_led(m))}: a defender who cannot follow must play a spade, the trump "
            "in every trick, if he has one. The highest spade wins."
        ),
    ),
    Step(
        "count",
        when=lambda m: m.obs["phase"] == "play" and max(m.obs["side_points"]) >= 40,
        text=_count_text,
    ),
]

TUTORIALS = [
    Tutorial(
        id="piquesept",
        game="piquesept",
        title="Piquesept: defending against the soloist",
        options={},
        seed=52,
        seat=0,
        intro=(
            "Piquesept is played by four with a 32-card pack, eight cards each. Whoever holds the "
            "7S, the highest spade, plays alone against the other three; spades are always trumps. "
            "You are West, a defender; your partners are computer players."
        ),
        steps=STEPS,
        outro=(
            "That was one deal, and a deal is a whole game. With three players the book's three-hand "
            "game removes two Eights. Play a real game next: a new table in the lobby, or "
            "gamester play piquesept at a terminal."
        ),
    )
]
