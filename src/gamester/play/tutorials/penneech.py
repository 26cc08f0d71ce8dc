"""The Penneech lesson: one deal of the standard reading, you against a beginner computer player.

It teaches, each when it first matters: the redeal of a hand with nothing above a Ten, the turn-up
that sets trumps for one trick, an honour scored by turning it up, following (your suit or a trump),
playing any card when void, honours won in a trick, the winner's turn-up, and the card bonus.
"""

from __future__ import annotations

from gamester.core.cards import SUIT_NAMES, SUITS
from gamester.play.tutorials import Moment, Step, Tutorial

HONOURS = {"A": 5, "K": 4, "Q": 3, "J": 2}


def _suit(letter: str) -> str:
    return SUIT_NAMES[SUITS.index(letter)]


def _follows(m: Moment) -> bool:
    return m.obs["phase"] == "play" and len(m.obs["trick"]) == 1


def _led(m: Moment) -> str:
    return str(m.obs["trick"][0][1])


def _holds_led(m: Moment) -> bool:
    return any(c[1] == _led(m) for c in m.obs["hand"])


def _restricted(m: Moment) -> bool:
    """Following with the led suit in hand, and the engine leaves out some of the hand: exactly the
    led suit and the trump are playable (docs/rules/penneech.md, Tricks, follow=suit_or_trump)."""
    if not (_follows(m) and _holds_led(m)):
        return False
    trump = m.obs["trump"]
    allowed = {c for c in m.obs["hand"] if c[1] in (_led(m), trump)}
    return set(m.legal) == allowed and allowed != set(m.obs["hand"]) and trump != _led(m)


def _order(suit: str) -> str:
    return "7AKQJT98654320" if suit == "D" else "AKQJT98765432"


def _beats(mine: str, led: str, trump: str) -> bool:
    if mine[1] == led[1]:
        order = _order(led[1])
        return order.index(mine[0]) < order.index(led[0])
    return mine[1] == trump


def _winning(m: Moment) -> list[str]:
    led = m.obs["trick"][0]
    return [c for c in m.legal if _beats(c, led, m.obs["trump"])]


def _honour_turned(m: Moment) -> dict[str, object] | None:
    return next((e for e in m.events if e["type"] == "turn_up" and e["points"] > 0), None)


def _who(m: Moment, seat: object) -> str:
    return "you" if seat == m.obs["seat"] else "your opponent"


def _turn_up_text(m: Moment) -> str:
    up = m.obs["turn_up"]
    text = (
        f"Before every trick a card is turned up from the stock: its suit is trumps for that trick "
        f"only. {up} is up, so {_suit(m.obs['trump'])} are trumps now."
    )
    return text + " You lead: any card will do."


def _honour_text(m: Moment) -> str:
    ev = _honour_turned(m)
    assert ev is not None
    return (
        f"Turning up an honour scores it at once: {_who(m, ev['seat'])} turned up {ev['card']} and "
        f"took {ev['points']} points (Ace 5, King 4, Queen 3, Jack 2; the 7D, the Penneech, 14)."
    )


def _follow_text(m: Moment) -> str:
    suit = _suit(_led(m))
    text = (
        f"{m.obs['trick'][0]} was led. Holding {suit}, you must play one of them or a trump "
        f"({_suit(m.obs['trump'])}); your other cards may not be played to this trick."
    )
    win = _winning(m)
    return text + (f" Win it: play {' or '.join(win)}." if win else " None of yours can win it.")


def _void_text(m: Moment) -> str:
    suit, trump = _suit(_led(m)), _suit(m.obs["trump"])
    if _led(m) == m.obs["trump"]:
        return f"You hold no {suit}, the trump suit: any card may be played, and none can win the trick."
    return (
        f"You hold no {suit}, so any card may be played; a trump ({trump}) would win the trick, any "
        "other card loses it."
    )


def _trick_text(m: Moment) -> str:
    ev = next(e for e in m.events if e["type"] == "trick" and e["points"] > 0)
    cards = " and ".join(str(c) for c in ev["cards"])
    return (
        f"{_who(m, ev['winner']).capitalize()} won {cards} and scored the honours in it: "
        f"{ev['points']} points. In this reading every Ace, King, Queen and Jack in a won trick "
        "counts, and the 7D counts 7 when diamonds are trumps."
    )


STEPS = [
    Step(
        "redeal",
        when=lambda m: m.obs["phase"] == "redeal" and "redeal" in m.legal,
        text=lambda m: (
            "Your hand has no card above a Ten: no Ace, King, Queen or Jack, and not the 7D. Such a hand "
            "may be thrown in before the first trick. Ask for a redeal: the same dealer deals again."
        ),
        expect=lambda m: ["redeal"],
        wrong=lambda m, move: "You may keep it, but a hand this weak is worth throwing in: ask for a redeal.",
    ),
    Step(
        "turn_up",
        when=lambda m: m.obs["phase"] == "play" and not m.obs["trick"] and m.obs["trump"] is not None,
        text=_turn_up_text,
    ),
    Step(
        "honour_turned",
        when=lambda m: _honour_turned(m) is not None,
        text=_honour_text,
    ),
    Step(
        "follow_or_trump",
        when=_restricted,
        text=_follow_text,
        expect=_winning,
        wrong=lambda m, move: (
            f"{move} may be played, but it loses the trick: play {' or '.join(_winning(m))} to win it."
        ),
    ),
    Step(
        "void",
        when=lambda m: _follows(m) and not _holds_led(m),
        text=_void_text,
    ),
    Step(
        "honours_won",
        when=lambda m: any(e["type"] == "trick" and e["points"] > 0 for e in m.events),
        text=_trick_text,
    ),
    Step(
        "winner_turns",
        when=lambda m: (
            any(e["type"] == "trick" for e in m.events) and any(e["type"] == "turn_up" for e in m.events)
        ),
        text=lambda m: (
            "The winner of a trick turns up the next card, setting trumps for the next trick, and leads it."
        ),
    ),
    Step(
        "card_bonus",
        when=lambda m: max(m.obs["tricks_won"]) >= 3 and sum(m.obs["tricks_won"]) >= 4,
        text=lambda m: (
            "Seven tricks make a deal. Whoever wins four or more scores a point for each card above "
            "seven it took: 1 for four tricks, 3 for five, 5 for six, 7 for all seven."
        ),
    ),
]

TUTORIALS = [
    Tutorial(
        id="penneech",
        game="penneech",
        title="Penneech: your first deal",
        options={"first_dealer": 1, "objective": "deal"},
        seed=115,
        seat=0,
        intro=(
            "Penneech is a trick game for two with 52 cards, seven cards each. Its mark: a new trump "
            "is turned up before every trick. You play one deal against a beginner; the lesson "
            "speaks up whenever a rule first matters."
        ),
        steps=STEPS,
        outro=(
            "That was one deal. A game goes on, deal after deal with the dealer changing, until one "
            "player reaches 61 points, and it ends that instant, even in the middle of a deal. "
            "Play a real game next: a new table in the lobby, or gamester play penneech at a terminal."
        ),
    )
]
