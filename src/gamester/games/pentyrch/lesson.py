"""The Pentyrch lessons (docs/tutorials.md): you West (hearts) against three computer players, all four
walking the lesson's one line through the game (a move on the cross changes what every later move
pays, so the lesson takes the line's move at each of your decisions and says why).

1. *The race across the cross*: entering on your home cell by exchange, steps forward and sideways,
   paying with several cards, showing an equal card, the free space, and bearing off at your goal.
2. *Trapping and the centre*: covering an opponent's card to trap it, covering your own to protect it,
   the reversed order on the free space; a game cut short by the round limit.

Rules: rules.md beside this file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from gamester.core.cards import SUITS, parse_card
from gamester.core.lesson import Gloss, Lesson, Moment, Step, seat
from gamester.games.pentyrch.board import SEAT_SUIT
from gamester.games.pentyrch.cards import VALUE

_MOVE = re.compile(r"^([JQK][CDHS]) (?:@([a-g][1-7])|([a-g][1-7])-([a-g][1-7])|(off))(?: (\S+))?$")
NAMES = {"J": "Jack", "Q": "Queen", "K": "King"}


class Move(NamedTuple):
    court: str
    source: str | None  # None: entering
    target: str | None  # None: bearing off
    payment: str | None  # "9C", "3S+5D", "=6C", or None


def parse(text: str) -> Move | None:
    m = _MOVE.match(text)
    if m is None:
        return None
    court, enter, src, dst, off, pay = m.groups()
    if off:
        return Move(court, None, None, None)
    return Move(court, src, enter or dst, pay)


def _value(card: str) -> int:
    return VALUE[parse_card(card)]


def _card(code: str) -> str:
    rank = {"T": "10", "A": "A"}.get(code[0], code[0])
    return rank + code[1]


def words(text: str) -> str:
    """A move in words, its notation after it: "your Jack steps from a4 to b4, paying with 9C"."""
    mv = parse(text)
    if mv is None:
        return "pass" if text == "pass" else text
    who = f"your {NAMES[mv.court[0]]}"
    if mv.target is None:
        what = f"{who} bears off"
    elif mv.source is None:
        what = f"{who} enters on {mv.target}"
    else:
        what = f"{who} steps from {mv.source} to {mv.target}"
    if mv.payment and mv.payment.startswith("="):
        what += f", showing {mv.payment[1:]}"
    elif mv.payment:
        what += f", paying with {' and '.join(mv.payment.split('+'))}"
    return f"{what} ({text})"


def _cell(m: Moment, cell: str) -> dict[str, list[str]]:
    board: dict[str, dict[str, list[str]]] = m.obs["board"]
    return board[cell]


def _mine(m: Moment, court: str) -> bool:
    return court[1] == SUITS[SEAT_SUIT[m.obs["player"]]]


def _owner(court: str) -> int:
    return SEAT_SUIT.index(SUITS.index(court[1]))


def _covers(m: Moment, move: Move) -> str | None:
    """The court card ``move`` covers, if it is a covering move."""
    if move.target is None or move.payment is not None:
        return None
    stack = _cell(m, move.target)["stack"]
    return stack[-1] if stack else None


def _where(m: Moment, pred: Callable[[Move], bool]) -> list[str]:
    out = []
    for text in m.legal:
        mv = parse(text)
        if mv is not None and pred(mv):
            out.append(text)
    return out


def _combined(m: Moment) -> list[str]:
    return _where(m, lambda mv: mv.payment is not None and "+" in mv.payment)


def _shown(m: Moment) -> list[str]:
    return _where(m, lambda mv: mv.payment is not None and mv.payment.startswith("="))


def _free(m: Moment) -> list[str]:
    return _where(m, lambda mv: mv.target == "d4" and mv.source is not None and not _cell(m, "d4")["stack"])


def _trapping(m: Moment) -> list[str]:
    return _where(m, lambda mv: (c := _covers(m, mv)) is not None and not _mine(m, c) and mv.target != "d4")


def _protecting(m: Moment) -> list[str]:
    return _where(
        m,
        lambda mv: (
            mv.source is not None and (c := _covers(m, mv)) is not None and _mine(m, c) and mv.target != "d4"
        ),
    )


def _centre(m: Moment) -> list[str]:
    return _where(m, lambda mv: mv.target == "d4" and _covers(m, mv) is not None)


def _off(m: Moment) -> list[str]:
    return _where(m, lambda mv: mv.target is None)


def _steps(m: Moment) -> list[str]:
    return _where(m, lambda mv: mv.source is not None and mv.target is not None)


def _top_value(m: Moment, cell: str) -> str:
    pile = _cell(m, cell)["pile"]
    return f"{_card(pile[-1])}, worth {_value(pile[-1])}" if pile else "nothing"


def _name(court: str) -> str:
    return NAMES[court[0]]


def _trapped(m: Moment) -> dict[str, object] | None:
    """An event of this round in which an opponent covered one of the pupil's court cards."""
    for e in m.events:
        if e["type"] in ("move", "enter") and e.get("how") == "cover" and e.get("covered"):
            covered = str(e["covered"])
            if _mine(m, covered) and not _mine(m, str(e["card"])):
                return e
    return None


# How the notation reads, said the first time a move of each kind is shown (rules.md, Action notation).
GLOSSARY = (
    Gloss("enter", r"@([a-g][1-7])", "In the notation, @{1} is entering on {1}."),
    Gloss("step", r"([a-g][1-7])-([a-g][1-7])", "{0} is a step from {1} to {2}."),
    Gloss("pay", r"[a-g][1-7] ([2-9TA][CDHS])\b", "A card after the cell ({1}) is the payment."),
    Gloss("show", r"=([2-9TA][CDHS])", "={1} is showing the {1} instead of paying: no card changes hands."),
    Gloss(
        "combine", r"([2-9TA][CDHS])\+([2-9TA][CDHS])", "{0} is paying with both cards, {1} ending on top."
    ),
    Gloss("off", r"([JQK][CDHS]) off", "{0} is bearing the {1} off to safety."),
)


def _enter_text(m: Moment) -> str:
    return (
        f"To enter, take the pile on a4 (top {_top_value(m, 'a4')}) into your hand and lay a card worth "
        "at least as much: your court card stands on it. Your hand holds 7s to 10s; Aces count 1."
    )


def _combine_text(m: Moment) -> str:
    mv = parse(_combined(m)[0])
    assert mv is not None and mv.target is not None
    return (
        f"No single card of yours pays for {mv.target} (top {_top_value(m, mv.target)}), so you may "
        "pay with two or more cards that add up to at least that, none of them spare."
    )


def _says(text: str) -> Callable[[Moment], str]:
    return lambda m: text


def _entering(m: Moment) -> bool:
    return bool(m.legal) and all((p := parse(t)) is not None and p.source is None for t in m.legal)


def _asks(rule: str, topic: str, moves: Callable[[Moment], list[str]], text: Callable[[Moment], str]) -> Step:
    """A step whose moment is the first decision with a move of its kind, and which asks for one."""
    return Step(rule, topic, when=lambda m: bool(moves(m)), text=text, expect=moves)


def _home_text(m: Moment) -> str:
    court = parse(_off(m)[0])
    assert court is not None
    return (
        f"Your {_name(court.court)} stands on your goal g4: bear it off to safety. Whoever has all "
        "three in safety first finishes, and the round is played out to its end."
    )


def _trapped_text(m: Moment) -> str:
    ev = _trapped(m)
    assert ev is not None
    return (
        f"{seat(_owner(str(ev['card'])))} covered your {_name(str(ev['covered']))}: it is trapped until "
        "that card moves on."
    )


RACE = [
    Step("enter", "entering a court card", when=_entering, text=_enter_text),
    Step(
        "step",
        "a step across the cross",
        when=lambda m: bool(_steps(m)),
        text=_says(
            "A court card on the board moves one cell forward, diagonally forward or sideways (for "
            "you, toward the g-file), never back. Stepping onto a cell without a court card is paid "
            "for as you entered, by exchange."
        ),
    ),
    _asks("combine", "paying with several cards", _combined, _combine_text),
    _asks(
        "show",
        "showing an equal card",
        _shown,
        _says(
            "Where a pile is a single card and you hold a card of the same value, you may show it "
            "instead of paying: nothing changes hands, and your hand keeps its cards for later."
        ),
    ),
    _asks(
        "free_space",
        "the free space",
        _free,
        _says("The centre, d4, is the free space: it holds no pile, so stepping onto it is free."),
    ),
    _asks("home", "bearing off at your goal", _off, _home_text),
]

CENTRE = [
    Step(
        "recap",
        "entering a court card",
        when=_entering,
        text=_says(
            "As in the first lesson, your Jack, Queen and King of hearts enter on a4 and race to g4, "
            "paying for each cell by exchange. This lesson is about what happens when court cards meet."
        ),
    ),
    _asks(
        "trap",
        "trapping an opponent's card",
        _trapping,
        _says(
            "A court card may cover another on a stack of fewer than three: a King covers a Queen or "
            "a Jack, a Queen a Jack, and no payment is made. Covering an opponent's card traps it: it "
            "cannot move until yours has moved on."
        ),
    ),
    Step("trapped", "one of your cards trapped", when=lambda m: _trapped(m) is not None, text=_trapped_text),
    _asks(
        "protect",
        "protecting your own card",
        _protecting,
        _says("Covering your own card protects it: while yours is on top, no opponent can cover it."),
    ),
    _asks(
        "centre",
        "the reversed order on the free space",
        _centre,
        _says(
            "On the free space the order is reversed: there a Jack covers a Queen or a King, and a "
            "Queen covers a King."
        ),
    ),
]


def _seats_intro() -> str:
    return "North (clubs), East (diamonds) and South (spades) are computer players."


LESSONS = [
    Lesson(
        id="pentyrch",
        game="pentyrch",
        title="Pentyrch: the race across the cross",
        options={},
        seed=225,
        seat=0,
        intro=(
            "Pentyrch is a race for four across a cross of Ace-6 cards. You are West (hearts): bring your "
            f"Jack, Queen and King from your home a4 to your goal g4. {_seats_intro()} Each move changes "
            "what later ones cost, so the lesson names your move at every turn."
        ),
        steps=RACE,
        outro=(
            "Most court cards in safety wins; a whole round without a move also ends the game. The "
            "second Pentyrch lesson is about trapping and the centre; or play a real game: a new "
            "table in the lobby, or gamester play pentyrch at a terminal."
        ),
        line=(
            "KH @a4 7H",
            "JC @d7 7S",
            "KD @g4 8H",
            "KS @d1 8S",
            "KH a4-b4 2H",
            "JC d7-e6 7D",
            "KD g4-f3 =4C",
            "KS d1-e2 8D",
            "KH b4-c3 =AS",
            "JC e6-d5 =AH",
            "KD f3-e3 9C",
            "KS e2-f3 5C",
            "KH c3-d4",
            "JC d5-d4",
            "KD e3-d2 =4C",
            "KS f3-f4 9S",
            "QH @a4 8C",
            "QC @d7 =7C",
            "KD d2-c2 4C",
            "KS f4-f5 4S",
            "QH a4-b3 7H",
            "QC d7-e6 =7C",
            "KD c2-b3",
            "KS f5-e6",
            "JH @a4 9H",
            "KC @d7 =7C",
            "KD b3-a4",
            "QS @d1 TH",
            "QH b3-c3 =AS",
            "KC d7-d6 6C",
            "KD off",
            "QS d1-e2 =8S",
            "JH a4-b5 =6H",
            "KC d6-d5 =AH",
            "JD @g4 TD",
            "QS e2-d3 =3D",
            "QH c3-d2 6H",
            "KC d5-c4 3H",
            "JD g4-f3 =5D",
            "QS d3-e4 6S",
            "QH d2-e3 =9D",
            "KC c4-b3 =7C",
            "JD f3-e2 =8H",
            "QS e4-e5 =5H",
            "QH e3-f4 =9D",
            "JC d4-c3 =AH",
            "JD e2-d3 =3S",
            "QS e5-d6 8S",
            "QH f4-g4 9D+8C",
            "JC c3-d2 7C",
            "JD d3-c4 =3S",
            "QS d6-d7 2C+5H",
            "QH off",
            "JC d2-d1 =TC",
            "JD c4-b4 3S",
            "QS off",
            "JH b5-c5 =4H",
            "JC off",
            "JD b4-a4 TS",
            "KS e6-d7 3D",
            "JH c5-d5 =AS",
            "QC e6-d5",
            "JD off",
            "KS off",
            "KH d4-e3 TD",
            "QC d5-e4 =6H",
            "QD @g4 9H",
            "JS @d1 5H+6C",
            "KH e3-f4 =9C",
            "QC e4-e3 =TC",
            "QD g4-f3 =5D",
            "JS d1-d2 =7S",
            "KH f4-g4 =9C",
            "QC e3-d2",
            "QD f3-e2 =8C",
            "pass",
            "KH off",
            "QC d2-d1 6H",
            "QD e2-d2",
            "pass",
            "JH d5-e6 9C",
            "QC off",
            "QD d2-c3 2H",
            "JS d2-e3 =TH",
            "JH e6-f5 =4H",
            "KC b3-c2 5H",
            "QD c3-b4 5D",
            "JS e3-d4",
            "JH f5-g4 4H+7D",
            "KC c2-d1 =6C",
            "QD b4-a4 AC+9D",
            "JS d4-d5 2C",
            "JH off",
            "KC off",
            "QD off",
            "JS d5-e6 TH",
        ),
        free=False,
        glossary=GLOSSARY,
        words=words,
    ),
    Lesson(
        id="pentyrch-2",
        game="pentyrch",
        title="Pentyrch: trapping and the centre",
        options={"max_rounds": 16},
        seed=262,
        seat=0,
        intro=(
            "The second Pentyrch lesson: court cards that meet on the cross. You are West (hearts, a4 "
            f"to g4). {_seats_intro()} This game stops after sixteen rounds (the round limit): then "
            "whoever has most court cards in safety wins. The lesson names your move at each turn."
        ),
        steps=CENTRE,
        outro=(
            "In a real game there is no round limit to speak of: the race runs until someone brings "
            "all three home. Play one next: a new table in the lobby, or gamester play pentyrch at "
            "a terminal."
        ),
        line=(
            "JH @a4 7H",
            "QC @d7 8H",
            "KD @g4 7S",
            "KS @d1 7D",
            "JH a4-b3 8D",
            "QC d7-e6 9D",
            "KD g4-f3 =3S",
            "KS d1-d2 5H",
            "JH b3-c3 =6D",
            "QC e6-f5 =AS",
            "KD f3-e2 3S",
            "KS d2-c3",
            "KH @a4 9H",
            "QC f5-e4 =AS",
            "JD @g4 =7C",
            "KS c3-d4",
            "JH c3-d4",
            "QC e4-d3 =5C",
            "KD e2-d3",
            "JS @d1 8S",
            "KH a4-b5 =6D",
            "JC @d7 TD",
            "JD g4-f5 2D",
            "JS d1-e2 4H",
            "QH @a4 =9S",
            "JC d7-c6 5C",
            "JD f5-e4 =AH",
            "JS e2-f3 =3S",
            "KH b5-c6",
            "KC @d7 =TC",
            "QD @g4 =7C",
            "JS f3-f4 =3S",
            "QH a4-b5 =6D",
            "KC d7-d6 4S",
            "QD g4-f4",
            "QS @d1 =8C",
            "JH d4-e5 =6D",
            "KC d6-e5",
            "JD e4-d4",
            "QS d1-c2 3S",
            "QH b5-c4 2H",
            "KC e5-f4",
            "KD d3-c4",
            "QS c2-b3 =8C",
            "JH e5-f5 6D",
            "QC d3-d2 8H",
            "KD c4-b3",
            "pass",
            "JH f5-g4 =7H",
            "QC d2-d1 TC",
            "KD b3-a4 TH",
            "QS b3-b4 7D",
            "JH off",
            "QC off",
            "KD off",
            "QS b4-c5 5S",
            "KH c6-c5",
            "JC c6-d5 5H",
            "JD d4-c3 7C",
            "KS d4-d5",
            "KH c5-c4",
            "KC f4-f3 =3H",
            "QD f4-e5 =6C",
            "QS c5-d6 =4C",
        ),
        free=False,
        glossary=GLOSSARY,
        words=words,
    ),
]
