"""The Piquesept lessons (docs/tutorials.md): one deal each, against computer players that play the
lesson's line.

1. *Defending against the soloist* (four players, you West, the defender on the soloist's left): the
   soloist's forced first trick (the 7S led, every defender's highest spade), the draw and the give,
   card points, the defenders' duty to follow and else to trump, and the count to 66.
2. *Alone against two* (the three-hand game, you the soloist): the two Eights out of the pack, leading
   the 7S, the draw from your hand and the card you get back, the soloist's freedom to play any card,
   and making 66 alone.

Rules: rules.md beside this file.
"""

from __future__ import annotations

from gamester.core.cards import suit_name
from gamester.core.lesson import Lesson, Moment, Step, or_list, seat
from gamester.games.piquesept.deal import ACTION_OF_CODE
from gamester.games.piquesept.rules import PTS


def _points(card: str) -> int:
    """What ``card`` (a code) counts for whoever wins it: the engine's table (rules.py)."""
    return PTS[ACTION_OF_CODE[card]]


def _following(m: Moment) -> bool:
    return m.obs["phase"] == "play" and bool(m.obs["trick"])


def _led(m: Moment) -> str:
    return str(m.obs["trick"][0][1])


def _of(m: Moment, suit: str) -> set[str]:
    return {c for c in m.obs["hand"] if c[1] == suit}


def _give_expect(m: Moment) -> list[str]:
    """The cards that bring the soloist least: no trump, the fewest card points (the lesson's advice,
    not a rule)."""
    pool = [c for c in m.legal if c[1] != "S"] or list(m.legal)
    least = min(_points(c) for c in pool)
    return [c for c in pool if _points(c) == least]


def _first_trick_text(m: Moment) -> str:
    soloist = seat(m.obs["soloist"])
    return (
        f"{soloist} held the 7S, so plays alone against the three of you, and had to lead it. Each "
        "defender must answer with his highest spade (with no spade, his highest card): yours is "
        f"{or_list(m.legal)}. The soloist wins this trick."
    )


def _give_text(m: Moment) -> str:
    soloist = seat(m.obs["soloist"])
    return (
        f"You sit on the soloist's left, so you drew one of {soloist}'s cards at random: "
        f"{m.obs['trade']['drawn']}. Now give the soloist any one card of yours, the drawn one too if "
        "you like. Your partners saw neither card. Give one that brings the soloist least, no trump "
        f"and {_points(_give_expect(m)[0]) or 'no'} card points: {or_list(_give_expect(m))}."
    )


def _count_text(m: Moment) -> str:
    soloist, defenders = m.obs["side_points"]  # the soloist's side first
    ours = "your side" if m.obs["soloist"] != m.obs["seat"] else "the defenders"
    mine = "the soloist" if m.obs["soloist"] != m.obs["seat"] else "you"
    return (
        "After the last trick each side counts its card points: the side with 66 or more of the 130 "
        f"wins, and 65 each is a draw. So far {ours} {'has' if ours == 'your side' else 'have'} "
        f"{defenders}, {mine} {soloist}."
    )


def _card_points_text(m: Moment) -> str:
    return (
        "Each trick carries its card points to its winner: Ace 11, the 7S 10, Ten 10, King 4, "
        "Queen 3, Jack 2, the rest nothing. The pack holds 130."
    )


def _card_points_moment(m: Moment) -> bool:
    return any(e["type"] == "trick" and e["points"] > 0 for e in m.events)


FIRST_STEPS = [
    Step(
        "first_trick",
        "the forced first trick",
        when=lambda m: m.obs["phase"] == "first_trick",
        text=_first_trick_text,
        expect=lambda m: list(m.legal),
    ),
    Step(
        "draw_and_give",
        "the draw and the give",
        when=lambda m: m.obs["phase"] == "give",
        text=_give_text,
        expect=_give_expect,
        wrong=lambda m, move: (
            f"You may give {move}, but it brings the soloist {_points(move)} card points"
            + (" and a trump" if move[1] == "S" else "")
            + f": give {or_list(_give_expect(m))}."
        ),
    ),
    Step("card_points", "card points", when=_card_points_moment, text=_card_points_text),
    Step(
        "follow",
        "a trick where a defender must follow suit",
        when=lambda m: (
            _following(m) and bool(_of(m, _led(m))) and set(m.legal) == _of(m, _led(m)) != set(m.obs["hand"])
        ),
        text=lambda m: (
            f"{suit_name(_led(m)).capitalize()} were led and you hold some: a defender must follow suit. "
            "(The soloist alone may play any card at any time.)"
        ),
    ),
    Step(
        "trump",
        "a trick where a defender must trump",
        when=lambda m: (
            _following(m)
            and not _of(m, _led(m))
            and bool(_of(m, "S"))
            and _led(m) != "S"
            and set(m.legal) == _of(m, "S") != set(m.obs["hand"])
        ),
        text=lambda m: (
            f"You hold no {suit_name(_led(m))}: a defender who cannot follow must play a spade, the trump "
            "in every trick, if he has one. The highest spade wins."
        ),
    ),
    Step(
        "count",
        "the count to 66",
        when=lambda m: m.obs["phase"] == "play" and max(m.obs["side_points"]) >= 40,
        text=_count_text,
    ),
]


def _trade(m: Moment) -> tuple[str, str] | None:
    """The card drawn from the pupil (the soloist) and the card given back, once both are known."""
    drawn = next((e["card"] for e in m.events if e["type"] == "draw"), None)
    given = next((e["card"] for e in m.events if e["type"] == "give"), None)
    return (drawn, given) if drawn and given else None


def _trade_text(m: Moment) -> str:
    drawn, given = _trade(m) or ("", "")
    drawer = seat(m.obs["drawer"])
    back = "the very card drawn" if drawn == given else given
    return (
        f"After the first trick the defender on your left, {drawer}, drew one of your cards at random "
        f"({drawn}) and gave you one of his: {back}. The other defender saw neither card. Now you lead "
        "the second trick; from then on the winner of each trick leads the next."
    )


def _free_moment(m: Moment) -> bool:
    """The soloist following with the led suit in hand, and other cards playable too."""
    return _following(m) and bool(_of(m, _led(m))) and set(m.legal) != _of(m, _led(m))


def _free_expect(m: Moment) -> list[str]:
    """Any card but the led suit: the soloist's freedom, shown."""
    return [c for c in m.legal if c[1] != _led(m)]


SECOND_STEPS = [
    Step(
        "three_hand",
        "leading the 7S as the soloist",
        when=lambda m: m.obs["phase"] == "first_trick" and "7S" in m.legal,
        text=lambda m: (
            "With three players the two red Eights (8H and 8D) leave the pack: 30 cards, ten each. "
            "You hold the 7S, the highest spade, so you are the soloist, alone against the other two; "
            "spades are trumps in every trick. The soloist must open with the 7S, and each defender "
            "must answer with his highest spade. Lead it."
        ),
        expect=lambda m: ["7S"],
    ),
    Step("trade", "the draw from your hand", when=lambda m: _trade(m) is not None, text=_trade_text),
    Step("card_points", "card points", when=_card_points_moment, text=_card_points_text),
    Step(
        "soloist_free",
        "the soloist's freedom to play any card",
        when=_free_moment,
        text=lambda m: (
            f"{suit_name(_led(m)).capitalize()} were led and you hold some, yet the soloist may play any "
            "card at any time: the defenders must follow suit, or else trump, but you need not. "
            f"Play another suit this time: {or_list(_free_expect(m))}."
        ),
        expect=_free_expect,
        wrong=lambda m, move: (
            f"{move} follows suit, which is allowed; this step shows the soloist's freedom: "
            f"play {or_list(_free_expect(m))}."
        ),
    ),
    Step(
        "count",
        "the count to 66",
        when=lambda m: m.obs["phase"] == "play" and max(m.obs["side_points"]) >= 40,
        text=_count_text,
    ),
]

LESSONS = [
    Lesson(
        id="piquesept",
        game="piquesept",
        title="Piquesept: defending against the soloist",
        options={},
        seed=244,
        seat=0,
        intro=(
            "Piquesept is played by four with 32 cards, eight each; spades are always trumps. Whoever "
            "holds the 7S plays alone against the other three. You are a defender; the other three "
            f"seats, {seat(1)}, {seat(2)} and {seat(3)}, are computer players."
        ),
        steps=FIRST_STEPS,
        outro=(
            "That was one deal, and a deal is a whole game. The second Piquesept lesson puts you in "
            "the soloist's seat, in the three-hand game; or play a real game: a new table in the "
            "lobby, or gamester play piquesept at a terminal."
        ),
        line=(
            "7S",
            "AS",
            "AH",
            "KS",
            "7C",
            "7C",
            "TC",
            "AD",
            "AC",
            "QS",
            "8D",
            "TS",
            "TD",
            "7H",
            "9C",
            "8H",
            "TH",
            "7D",
            "JD",
            "9D",
            "JS",
            "8C",
            "JH",
            "QC",
            "KC",
            "9H",
            "8S",
            "KD",
            "KH",
            "9S",
            "QD",
            "QH",
            "JC",
        ),
    ),
    Lesson(
        id="piquesept-3",
        game="piquesept",
        title="Piquesept: alone against two",
        options={"players": 3},
        seed=8,
        seat=0,
        intro=(
            f"The second Piquesept lesson: the three-hand game of the 1798 book, against {seat(1)} "
            f"and {seat(2)}, computer players. This time the 7S is yours."
        ),
        steps=SECOND_STEPS,
        outro=(
            "Playing alone is a matter of counting: 66 of the 130 card points, with every defender's "
            "trick working against you. Play a real game next: a new table in the lobby, or gamester "
            "play piquesept --players 3 at a terminal."
        ),
        line=(
            "7S",
            "JS",
            "AS",
            "7C",
            "TS",
            "9S",
            "8S",
            "AH",
            "7H",
            "9H",
            "7C",
            "KC",
            "AC",
            "7D",
            "QS",
            "KD",
            "QC",
            "8C",
            "TC",
            "JC",
            "9C",
            "9D",
            "QD",
            "TD",
            "AD",
            "JD",
            "KS",
            "JH",
            "QH",
            "TH",
            "KH",
        ),
    ),
]
