"""Pentyrch invariants, checked after every action by the conformance suite: ``check(state)``.

rules/pentyrch.md, The playing surface and Hands: the 40 non-court cards are always somewhere (a pile,
a hand, the set-aside card), once each; every pile but the free space's holds at least one card; the
twelve court cards are each off the board, on exactly one stack or in safety; stacks hold at most three
and follow the covering order (King over Queen over Jack, reversed on d4); home cells hold only the
court cards allowed there.
"""

from __future__ import annotations

from gamester.core.protocol import State
from gamester.games.pentyrch.board import FREE, HOME_OK, NUM_CELLS
from gamester.games.pentyrch.game import NONCOURT, SAFE, PentyrchState


def check(state: State) -> None:
    assert isinstance(state, PentyrchState)
    s = state
    seen: list[int] = []
    for c in range(NUM_CELLS):
        pile = s._piles[c]
        if c == FREE:
            assert pile == [], "the free space holds no card"
        else:
            assert pile, f"cell {c} lost its pile"
        seen += pile
    for h in s._hands:
        seen += [c for c in range(52) if h >> c & 1]
    if s._setaside >= 0:
        seen.append(s._setaside)
    assert sorted(seen) == sorted(NONCOURT), "the 40 non-court cards are not conserved"
    for q, h in enumerate(s._hands):
        assert s._hidden[q] & ~h == 0, "a hidden card is not in its hand"
        assert h.bit_count() <= 16
    on_board: list[int] = []
    for c in range(NUM_CELLS):
        st = s._stacks[c]
        assert len(st) <= 3, "a stack holds more than three court cards"
        ranks = [k % 3 for k in st]
        if c == FREE:
            assert ranks == sorted(ranks, reverse=True), "covering order reversed on the free space"
        else:
            assert ranks == sorted(ranks), "covering order King over Queen over Jack"
            assert len(set(ranks)) == len(ranks)
        for k in st:
            assert HOME_OK[k // 3][c], "a home cell holds a stranger's court card"
            assert s._cpos[k] == c
        on_board += st
    for k in range(12):
        p = s._cpos[k]
        if 0 <= p < NUM_CELLS:
            assert on_board.count(k) == 1
        else:
            assert p in (-1, -2, SAFE) and k not in on_board
    assert len(on_board) + sum(1 for p in s._cpos if p in (-1, -2, SAFE)) == 12, (
        "the 12 court cards are not conserved"
    )


INVARIANTS = {"pentyrch": check}
