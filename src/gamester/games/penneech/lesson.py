"""The Penneech lessons (docs/tutorials.md): one deal each of the standard reading, you the non-dealer
against a computer player that plays the lesson's line.

1. *Your first deal*: the turn-up that sets trumps for one trick, an honour scored by turning it up,
   following (your suit or a trump), playing any card when void, honours won in a trick, the winner's
   turn-up and lead, and the card bonus.
2. *A weak hand and the Penneech*: throwing in a hand with nothing above a Ten, and the seven of
   diamonds, the highest diamond, as trump.

Rules: rules.md beside this file (Redeal, Turn-ups, Tricks, End of deal).
"""

from __future__ import annotations

from gamester.core.cards import SUITS, parse_card, suit_name
from gamester.core.lesson import Lesson, Moment, Step, or_list, seat
from gamester.games.penneech.rules import beats

OPPONENT = seat(1)  # the pupil is seat 0, the computer player seat 1


def _follows(m: Moment) -> bool:
    return m.obs["phase"] == "play" and len(m.obs["trick"]) == 1


def _led(m: Moment) -> str:
    return str(m.obs["trick"][0][1])


def _holds_led(m: Moment) -> bool:
    return any(c[1] == _led(m) for c in m.obs["hand"])


def _restricted(m: Moment) -> bool:
    """Following with the led suit in hand, and the engine leaves out some of the hand: exactly the
    led suit and the trump are playable (rules.md, Tricks, follow=suit_or_trump)."""
    if not (_follows(m) and _holds_led(m)):
        return False
    trump = m.obs["trump"]
    allowed = {c for c in m.obs["hand"] if c[1] in (_led(m), trump)}
    return set(m.legal) == allowed and allowed != set(m.obs["hand"]) and trump != _led(m)


def _winning(m: Moment) -> list[str]:
    """The pupil's legal cards that win the trick (the engine's rule: rules.py, ``beats``)."""
    led, trump = parse_card(m.obs["trick"][0]), SUITS.index(m.obs["trump"])
    return [c for c in m.legal if beats(parse_card(c), led, trump)]


def _honour_turned(m: Moment) -> dict[str, object] | None:
    return next((e for e in m.events if e["type"] == "turn_up" and e["points"] > 0), None)


def _who(m: Moment, who: object) -> str:
    return "you" if who == m.obs["seat"] else OPPONENT


def _turn_up_text(m: Moment) -> str:
    return (
        f"The card turned up from the stock sets trumps for one trick: {m.obs['turn_up']} is up, so "
        f"{suit_name(m.obs['trump'])} are trumps now. You lead the first trick: one card each, won by the "
        "higher card of the suit led, unless a trump is played."
    )


def _honour_text(m: Moment) -> str:
    ev = _honour_turned(m)
    assert ev is not None
    return (
        f"Turning up an honour scores it at once: {_who(m, ev['seat'])} turned up {ev['card']} and "
        f"took {ev['points']} points (Ace 5, King 4, Queen 3, Jack 2; the 7D, the Penneech, 14)."
    )


def _follow_text(m: Moment) -> str:
    suit = suit_name(_led(m))
    text = (
        f"{m.obs['trick'][0]} was led. Holding {suit}, you must play one of them or a trump "
        f"({suit_name(m.obs['trump'])}); your other cards may not be played to this trick."
    )
    win = _winning(m)
    return text + (f" Win it: play {or_list(win)}." if win else " None of yours can win it.")


def _void_text(m: Moment) -> str:
    suit, trump = suit_name(_led(m)), suit_name(m.obs["trump"])
    if _led(m) == m.obs["trump"]:
        return f"You hold no {suit}, the trump suit: any card may be played, and none can win the trick."
    return (
        f"You hold no {suit}, so any card may be played; a trump ({trump}) would win the trick, any "
        "other card loses it."
    )


def _trick_text(m: Moment) -> str:
    ev = next(e for e in m.events if e["type"] == "trick" and e["points"] > 0)
    cards = " and ".join(str(c) for c in ev["cards"])
    who = _who(m, ev["winner"])
    return (
        f"{who[0].upper() + who[1:]} won {cards} and scored the honours in it: {ev['points']} points. "
        "In this reading every Ace, King, Queen and Jack in a won trick counts, and the 7D counts 7 "
        "when diamonds are trumps."
    )


FIRST_STEPS = [
    Step(
        "turn_up",
        "the turn-up that sets trumps",
        when=lambda m: m.obs["phase"] == "play" and not m.obs["trick"] and m.obs["trump"] is not None,
        text=_turn_up_text,
    ),
    Step(
        "honour_turned",
        "an honour scored as it is turned up",
        when=lambda m: _honour_turned(m) is not None,
        text=_honour_text,
    ),
    Step(
        "follow_or_trump",
        "a trick where you must follow suit or trump",
        when=_restricted,
        text=_follow_text,
        expect=_winning,
        wrong=lambda m, move: (
            f"{move} may be played, but it loses the trick: play {or_list(_winning(m))} to win it."
        ),
    ),
    Step(
        "void",
        "a trick where you hold none of the suit led",
        when=lambda m: _follows(m) and not _holds_led(m),
        text=_void_text,
    ),
    Step(
        "honours_won",
        "honours won in a trick",
        when=lambda m: any(e["type"] == "trick" and e["points"] > 0 for e in m.events),
        text=_trick_text,
    ),
    Step(
        "winner_turns",
        "the winner turning up and leading",
        when=lambda m: (
            any(e["type"] == "trick" for e in m.events) and any(e["type"] == "turn_up" for e in m.events)
        ),
        text=lambda m: (
            "The winner of a trick turns up the next card, setting trumps for the next trick, and leads it."
        ),
    ),
    Step(
        "card_bonus",
        "the card bonus",
        when=lambda m: max(m.obs["tricks_won"]) >= 3 and sum(m.obs["tricks_won"]) >= 4,
        text=lambda m: (
            "Seven tricks make a deal. Whoever wins four or more scores a point for each card above "
            "seven it took: 1 for four tricks, 3 for five, 5 for six, 7 for all seven."
        ),
    ),
]


def _holds_penneech(m: Moment) -> bool:
    return m.obs["phase"] == "play" and "7D" in m.obs["hand"]


def _penneech_trump(m: Moment) -> bool:
    return _holds_penneech(m) and m.obs["trump"] == "D" and "7D" in m.legal


def _penneech_won(m: Moment) -> dict[str, object] | None:
    return next((e for e in m.events if e["type"] == "trick" and "7D" in e["cards"]), None)


def _penneech_won_text(m: Moment) -> str:
    ev = _penneech_won(m)
    assert ev is not None
    return (
        f"{_who(m, ev['winner']).capitalize()} took {ev['points']} points for that trick: 7 of them "
        "for the 7D, won while diamonds were trumps (with another trump it counts nothing; turned up, "
        "it scores 14)."
    )


SECOND_STEPS = [
    Step(
        "redeal",
        "throwing in a weak hand",
        when=lambda m: m.obs["phase"] == "redeal" and "redeal" in m.legal,
        text=lambda m: (
            "Your hand has no card above a Ten: no Ace, King, Queen or Jack, and not the 7D. Such a "
            "hand may be thrown in before the first turn-up: it is shown to your opponent, and the "
            "same dealer shuffles and deals again. Ask for a redeal."
        ),
        expect=lambda m: ["redeal"],
        wrong=lambda m, move: "You may keep it, but a hand this weak is worth throwing in: ask for a redeal.",
    ),
    Step(
        "penneech",
        "the seven of diamonds, the Penneech",
        when=_holds_penneech,
        text=lambda m: (
            f"The new deal gave you the 7D, the Penneech. It is the highest diamond, above the Ace, "
            f"whether diamonds are trumps or not. {m.obs['turn_up']} is turned up: "
            f"{suit_name(m.obs['trump'])} are trumps for this trick. Keep the 7D until diamonds are trumps."
        ),
        expect=lambda m: [c for c in m.legal if c != "7D"] if m.obs["trump"] != "D" else [],
        wrong=lambda m, move: "Keep the 7D for a trick where diamonds are trumps: play another card.",
    ),
    Step(
        "penneech_trump",
        "the Penneech as trump",
        when=_penneech_trump,
        text=lambda m: (
            "Diamonds are trumps now, so your 7D is the highest trump there is: nothing can beat it. Play it."
        ),
        expect=lambda m: ["7D"],
        wrong=lambda m, move: f"{move} may be played, but the 7D wins this trick for certain: play 7D.",
    ),
    Step(
        "penneech_won",
        "the Penneech's seven points",
        when=lambda m: _penneech_won(m) is not None,
        text=_penneech_won_text,
    ),
]

LESSONS = [
    Lesson(
        id="penneech",
        game="penneech",
        title="Penneech: your first deal",
        options={"first_dealer": 1, "objective": "deal"},
        seed=1347,
        seat=0,
        intro=(
            "Penneech is a trick game for two, seven cards each, with a new trump turned up before "
            f"every trick. You play one deal against {OPPONENT}, a computer player; the lesson speaks "
            "up when a rule first matters."
        ),
        steps=FIRST_STEPS,
        outro=(
            "That was one deal. A game goes on, deal after deal with the dealer changing, until one "
            "player reaches 61 points, and it ends that instant, even in the middle of a deal. The "
            "second Penneech lesson shows a weak hand thrown in and the 7D as trump; or play a real "
            "game: a new table in the lobby, or gamester play penneech at a terminal."
        ),
        line=(
            "9C",
            "AS",
            "JD",
            "7D",
            "5D",
            "JS",
            "4S",
            "2H",
            "QC",
            "AC",
            "6H",
            "6C",
            "5C",
            "6S",
        ),
    ),
    Lesson(
        id="penneech-2",
        game="penneech",
        title="Penneech: a weak hand and the Penneech",
        options={"first_dealer": 1, "objective": "deal"},
        seed=251,
        seat=0,
        intro=(
            f"The second Penneech lesson, one deal against {OPPONENT}: what to do with a hand of small "
            "cards, and the card the game is named after (the first lesson teaches the tricks)."
        ),
        steps=SECOND_STEPS,
        outro=(
            "The Penneech is worth keeping for a trick where diamonds are trumps. Play a real game "
            "next: a new table in the lobby, or gamester play penneech at a terminal."
        ),
        line=(
            "redeal",
            "6D",
            "AD",
            "TD",
            "7D",
            "7S",
            "3H",
            "KD",
            "7C",
            "QD",
            "7H",
            "QH",
            "AH",
            "8H",
            "2S",
        ),
    ),
]
