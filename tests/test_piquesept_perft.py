"""Perft for Piquesept: counts of legal action sequences from fixed deals, to depth k.

Each count is computed twice, by the engine (``legal_actions`` on clones) and by ``RefDeal``, a small
independent model of docs/rules/piquesept.md written with sets of card codes, and pinned as a literal so a
change of behaviour shows. The random draw is chance, fixed by the deal's record.
"""

from __future__ import annotations

import pytest

import gamester
from gamester.core.protocol import State
from tests.test_piquesept import HANDS, pack_from

SPADE_ORDER = "7AKQJT98"  # docs/rules/piquesept.md, The cards: high to low
PLAIN_ORDER = "AKQJT987"
POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}


class RefDeal:
    """An independent, slow model of one Piquesept deal (players = len(hands))."""

    def __init__(self, hands: list[str], drawn: str, highest: str = "rank") -> None:
        self.hands = [set(h.split()) for h in hands]
        self.n = len(hands)
        self.soloist = next(s for s, h in enumerate(self.hands) if "7S" in h)
        self.drawn = drawn
        self.highest = highest
        self.turn = self.soloist
        self.trick: list[tuple[int, str]] = []
        self.tricks_done = 0
        self.giving = False

    def copy(self) -> RefDeal:
        c = RefDeal.__new__(RefDeal)
        c.__dict__.update(self.__dict__)
        c.hands = [set(h) for h in self.hands]
        c.trick = list(self.trick)
        return c

    def _key(self, card: str) -> tuple[int, ...]:
        r = PLAIN_ORDER[::-1].index(card[0])
        return (POINTS.get(card[0], 0), r) if self.highest == "points" else (r,)

    def moves(self) -> list[str]:
        hand = self.hands[self.turn]
        if self.giving:
            return sorted(hand)
        if self.tricks_done == 0:
            if self.turn == self.soloist:
                return ["7S"]
            spades = [c for c in hand if c[1] == "S"]
            if spades:
                return [min(spades, key=lambda c: SPADE_ORDER.index(c[0]))]
            best = max(self._key(c) for c in hand)
            return sorted(c for c in hand if self._key(c) == best)
        if not self.trick or self.turn == self.soloist:
            return sorted(hand)
        led = self.trick[0][1][1]
        for suit in (led, "S"):
            same = [c for c in hand if c[1] == suit]
            if same:
                return sorted(same)
        return sorted(hand)

    def play(self, card: str) -> None:
        assert card in self.moves()
        self.hands[self.turn].remove(card)
        if self.giving:
            self.hands[self.soloist].add(card)
            self.giving = False
            self.turn = self.soloist
            return
        self.trick.append((self.turn, card))
        if len(self.trick) < self.n:
            self.turn = (self.turn + 1) % self.n
            return
        spades = [(SPADE_ORDER.index(c[0]), s) for s, c in self.trick if c[1] == "S"]
        led = self.trick[0][1][1]
        if spades:
            winner = min(spades)[1]
        else:
            winner = min((PLAIN_ORDER.index(c[0]), s) for s, c in self.trick if c[1] == led)[1]
        self.trick = []
        self.tricks_done += 1
        if self.tricks_done == 1:
            drawer = (self.soloist + 1) % self.n
            self.hands[self.soloist].remove(self.drawn)
            self.hands[drawer].add(self.drawn)
            self.giving = True
            self.turn = drawer
        else:
            self.turn = winner


def ref_perft(d: RefDeal, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for m in d.moves():
        c = d.copy()
        c.play(m)
        total += ref_perft(c, depth - 1)
    return total


def engine_perft(st: State, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for a in st.legal_actions():
        c = st.clone()
        c.apply_action(a)
        total += engine_perft(c, depth - 1)
    return total


THREE = ["QS JS QC TC AD KD QD 8D 9H 7H", "7S AS 9S AC KC QH 7D 9D TD AH", "KS TS 8S JC 9C 7C JH TH KH JD"]

# (spec, hands, dealer, drawn card, expected counts at depth 1, 2, ...)
CASES = [
    ("piquesept", HANDS, 0, "AS", [1, 1, 1, 3, 24, 168, 378, 666, 2460, 14760]),
    ("piquesept(first_trick_highest=points)", HANDS, 0, "7H", [1, 1, 1, 1, 8, 56, 112, 194, 569, 3414]),
    ("piquesept(players=3,removed_eights=8C 8H)", THREE, 2, "AC", [1, 1, 1, 10, 90, 181, 394, 3152]),
]


@pytest.mark.parametrize("spec,hands,dealer,drawn,expected", CASES)
def test_perft(spec: str, hands: list[str], dealer: int, drawn: str, expected: list[int]) -> None:
    """docs/rules/piquesept.md, all play rules: the engine and the reference model agree, depth by depth."""
    game = gamester.load_game(spec, first_dealer=dealer)
    st = game.new_initial_state(seed=0, chance=[pack_from(hands, dealer), drawn])
    ref = RefDeal(hands, drawn, game.options.first_trick_highest)
    got = [engine_perft(st, k) for k in range(1, len(expected) + 1)]
    assert got == [ref_perft(ref, k) for k in range(1, len(expected) + 1)]
    assert got == expected
