"""The Pentyrch lesson: a four-player race, you West (hearts) against three computer players.

It teaches, each when it first matters: entering on your home cell by exchange, stepping forward and
sideways, paying with several cards, showing an equal card, the free space, trapping and protecting
by covering, the reversed order on the centre, and bearing off at your goal.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from gamester.play.tutorials import Moment, Step, Tutorial

_MOVE = re.compile(r"^([JQK][CDHS]) (?:@([a-g][1-7])|([a-g][1-7])-([a-g][1-7])|(off))(?: (\S+))?$")
VALUE = {"A": 1, "T": 10}
GOAL = {"H": "g4", "C": "d1", "D": "a4", "S": "d7"}
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
    return VALUE.get(card[0]) or int(card[0])


def _cell(m: Moment, cell: str) -> dict[str, list[str]]:
    board: dict[str, dict[str, list[str]]] = m.obs["board"]
    return board[cell]


def _mine(m: Moment, court: str) -> bool:
    return court[1] == "H"  # the pupil is West, whose suit is hearts


def _covers(m: Moment, move: Move) -> str | None:
    """The court card ``move`` covers, if it is a covering move."""
    if move.target is None or move.payment is not None:
        return None
    stack = _cell(m, move.target)["stack"]
    return stack[-1] if stack else None


def _moves(m: Moment) -> list[tuple[str, Move]]:
    out = []
    for text in m.legal:
        mv = parse(text)
        if mv is not None:
            out.append((text, mv))
    return out


def _where(m: Moment, pred: object) -> list[str]:
    return [t for t, mv in _moves(m) if pred(mv)]  # type: ignore[operator]


def _combined(m: Moment) -> list[str]:
    return _where(m, lambda mv: mv.payment is not None and "+" in mv.payment)


def _shown(m: Moment) -> list[str]:
    return _where(m, lambda mv: mv.payment is not None and mv.payment.startswith("="))


def _free(m: Moment) -> list[str]:
    return _where(m, lambda mv: mv.target == "d4" and mv.source is not None and not _cell(m, "d4")["stack"])


def _trapping(m: Moment) -> list[str]:
    return _where(
        m,
        lambda mv: (c := _covers(m, mv)) is not None and not _mine(m, c) and mv.target != "d4",
    )


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
    return f"{pile[-1]}, worth {_value(pile[-1])}" if pile else "nothing"


def _enter_text(m: Moment) -> str:
    return (
        "Your court cards, J, Q and K of hearts, start off the board and come in on your home cell "
        f"a4, then race to your goal g4 across the cross. To enter one, you take the pile on a4 (top "
        f"{_top_value(m, 'a4')}) into your hand and lay a card worth at least as much from your hand; "
        "your court card then stands on it. Your hand starts with 7s to 10s; Aces count 1."
    )


def _name(court: str) -> str:
    return NAMES[court[0]]


def _some(moves: list[str]) -> str:
    """A few of ``moves``, for a sentence."""
    return " or ".join(moves) if len(moves) <= 3 else ", ".join(moves[:3]) + " or another like them"


def _combine_text(m: Moment) -> str:
    mv = parse(_combined(m)[0])
    assert mv is not None and mv.target is not None
    return (
        f"No single card of yours pays for {mv.target} (top {_top_value(m, mv.target)}), so you "
        "may pay with two or more cards that add up to at least that, none of them spare (the first "
        f"one listed ends on top): {_some(_combined(m))}."
    )


STEPS = [
    Step(
        "enter",
        when=lambda m: bool(m.legal) and all((p := parse(t)) and p.source is None for t in m.legal),
        text=_enter_text,
    ),
    Step(
        "step",
        when=lambda m: bool(_steps(m)),
        text=lambda m: (
            "A court card on the board moves one cell forward, diagonally forward or sideways "
            "(for you, toward the g-file), never back; stepping onto a cell with no court card is "
            "paid for as you entered, by exchange."
        ),
    ),
    Step(
        "combine",
        when=lambda m: bool(_combined(m)),
        text=_combine_text,
        expect=_combined,
        wrong=lambda m, move: (
            f"{move} may be played, but this step is about paying with several cards: {_some(_combined(m))}."
        ),
    ),
    Step(
        "show",
        when=lambda m: bool(_shown(m)),
        text=lambda m: (
            "Where a pile is a single card and you hold a card of the same value, you may show it "
            "instead of paying: nothing changes hands. That keeps your hand for later: "
            f"{_some(_shown(m))}."
        ),
        expect=_shown,
        wrong=lambda m, move: (
            f"{move} may be played, but showing costs you nothing here: {_some(_shown(m))}."
        ),
    ),
    Step(
        "free_space",
        when=lambda m: bool(_free(m)),
        text=lambda m: "The centre, d4, is the free space: it holds no pile, so stepping onto it is free.",
    ),
    Step(
        "trap",
        when=lambda m: bool(_trapping(m)),
        text=lambda m: (
            "A court card may cover another on a stack of fewer than three, a King over a Queen or "
            "Jack, a Queen over a Jack. Covering an opponent's card traps it: it cannot move until "
            f"yours has moved on. Trap one: {_some(_trapping(m))}."
        ),
        expect=_trapping,
        wrong=lambda m, move: (
            f"{move} may be played, but this step is about trapping: {_some(_trapping(m))}."
        ),
    ),
    Step(
        "protect",
        when=lambda m: bool(_protecting(m)),
        text=lambda m: (
            "Covering your own card protects it: nothing can cover it while yours is on top "
            f"({_some(_protecting(m))} would do it)."
        ),
    ),
    Step(
        "centre",
        when=lambda m: bool(_centre(m)),
        text=lambda m: (
            "On the free space the order is reversed: there a Jack covers a Queen or a King, and a "
            f"Queen covers a King ({_some(_centre(m))})."
        ),
    ),
    Step(
        "home",
        when=lambda m: bool(_off(m)),
        text=lambda m: (
            f"Your {_name(parse(_off(m)[0]).court)} stands on your goal g4: bear it off to safety. "  # type: ignore[union-attr]
            "Whoever has all three in safety first finishes, and the round is played out."
        ),
        expect=_off,
        wrong=lambda m, move: (
            f"{move} may be played, but a card on its goal is best borne off: {_some(_off(m))}."
        ),
    ),
]

TUTORIALS = [
    Tutorial(
        id="pentyrch",
        game="pentyrch",
        title="Pentyrch: the race across the cross",
        options={},
        seed=143,
        seat=0,
        intro=(
            "Pentyrch is a race for four. Twenty-four Ace-6 cards make a cross with a free space in the "
            "middle; each player brings a Jack, Queen and King from a home cell at one end to the home "
            "cell opposite, paying for each cell with the 7-10 cards in hand. You are West: hearts, "
            "from a4 to g4."
        ),
        steps=STEPS,
        outro=(
            "Most court cards in safety wins; a whole round without a move also ends the game. "
            "Play a real game next: a new table in the lobby, or gamester play pentyrch at a terminal."
        ),
    )
]
