"""Perft for Penneech: counts of legal action sequences from fixed packs.

Each count is checked twice: against a naive reference model written here from the rulings (lists of
card codes, no bitmasks, no shared code with the engine), and against a pinned literal, so that a
change of behaviour shows up even if both were to change together.
"""

from __future__ import annotations

import pytest

import gamester
from gamester.core.cards import CODES
from gamester.core.protocol import State

RANKS = "23456789TJQKA"


def power(code: str) -> int:
    return 13 if code == "7D" else RANKS.index(code[0])


def ref_legal(hand: list[str], led: str | None, trump: str, follow: str) -> list[str]:
    """docs/rules/penneech.md, Tricks: the follow rules, written the slow and obvious way."""
    if led is None:
        return hand
    same = [c for c in hand if c[1] == led[1]]
    if not same:
        return hand
    if follow == "suit":
        return same
    return same + [c for c in hand if c[1] == trump and c[1] != led[1]]


def ref_perft(
    hands: list[list[str]],
    stock: list[str],
    leader: int,
    led: str | None,
    trump: str,
    follow: str,
    depth: int,
) -> int:
    if depth == 0 or not hands[0] and not hands[1]:
        return 1
    to_move = leader if led is None else 1 - leader
    total = 0
    for c in ref_legal(hands[to_move], led, trump, follow):
        nh = [list(h) for h in hands]
        nh[to_move].remove(c)
        if led is None:
            total += ref_perft(nh, stock, leader, c, trump, follow, depth - 1)
            continue
        if c[1] == led[1]:
            winner = to_move if power(c) > power(led) else leader
        else:
            winner = to_move if c[1] == trump else leader
        total += ref_perft(nh, stock[1:], winner, None, stock[0][1], follow, depth - 1)
    return total


def engine_perft(state: State, depth: int) -> int:
    if depth == 0 or state.is_terminal():
        return 1
    total = 0
    for a in state.legal_actions():
        child = state.clone()
        child.apply_action(a)
        total += engine_perft(child, depth - 1)
    return total


PACKS = {
    "mixed": "AH 3H KC 9D 2C 4S QC 5S 5C 2D 6S 7D 8S TC 7C 8H 9H TH",
    "one_suit_each": "AC 2H KC 3H QC 4H JC 5H TC 6H 9C 7H 8C 8H 9H TH 2S 3S 4S 5S 6S 7S 8S",
}


def pack_from(spec: str) -> list[str]:
    cards = spec.split()
    return cards + [c for c in CODES if c not in cards]


# Pinned counts: (pack, follow, depth) -> legal sequences.
PINNED = {
    ("mixed", "suit_or_trump", 1): 7,
    ("mixed", "suit_or_trump", 2): 12,
    ("mixed", "suit_or_trump", 4): 226,
    ("mixed", "suit_or_trump", 6): 3984,
    ("mixed", "suit_or_trump", 8): 48720,
    ("mixed", "suit", 2): 9,
    ("mixed", "suit", 4): 124,
    ("mixed", "suit", 6): 1836,
    ("mixed", "suit", 8): 19536,
    ("one_suit_each", "suit_or_trump", 4): 1764,
    ("one_suit_each", "suit", 4): 1764,
}


@pytest.mark.parametrize(("pack", "follow", "depth"), sorted(PINNED))
def test_perft(pack: str, follow: str, depth: int) -> None:
    cards = pack_from(PACKS[pack])
    game = gamester.load_game("penneech", first_dealer=0, redeal="off", follow=follow, objective="deal")
    state = game.new_initial_state(chance=[cards])
    hands = [cards[1:14:2], cards[0:14:2]]  # seat 0 deals: seat 1 gets the even positions
    reference = ref_perft(hands, cards[15:], 1, None, cards[14][1], follow, depth)
    assert engine_perft(state, depth) == reference == PINNED[(pack, follow, depth)]
