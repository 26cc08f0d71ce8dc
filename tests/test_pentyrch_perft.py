"""Pentyrch perft: counts of legal move sequences from fixed positions, pinned as constants.

The positions come from the fixed deal of tests/test_pentyrch.py, then a fixed number of moves chosen
by ``random.Random(7)`` from the sorted notation of the legal moves; the counts were computed by brute
force over ``legal_actions`` and clones.
Any change in move generation (directions, stacks, payments, passing, turn order) changes them.
"""

from __future__ import annotations

import random

import pytest

import gamester
from gamester.core.protocol import State
from tests.invariants_pentyrch import check
from tests.test_pentyrch import HANDS, LAYOUT


def perft(s: State, depth: int) -> int:
    if depth == 0 or s.is_terminal():
        return 1
    n = 0
    for a in s.legal_actions():
        c = s.clone()
        c.apply_action(a)
        n += perft(c, depth - 1)
    return n


def position(spec: str, steps: int) -> State:
    s = gamester.load_game(spec).new_initial_state(chance=[LAYOUT, HANDS])
    r = random.Random(7)
    for _ in range(steps):
        # Chosen among the moves' notation, sorted, so the path does not depend on the encoding.
        moves = sorted(s.action_to_string(a) for a in s.legal_actions())
        s.apply_action(s.string_to_action(moves[r.randrange(len(moves))]))
        check(s)
    return s


@pytest.mark.parametrize(
    "spec,steps,counts",
    [
        # docs/rules/pentyrch.md, Moving (2): at the start every court card enters by exchange, one card each.
        ("pentyrch", 0, [12, 144, 1728, 20736]),
        ("pentyrch(players=2)", 0, [24, 576, 13824]),
        ("pentyrch(players=3)", 0, [15, 225, 3375]),
        # The two deepest counts take a few seconds each: in the full run, not the quick loop.
        pytest.param("pentyrch", 40, [15, 119, 1178, 10157, 151531], marks=pytest.mark.slow),
        ("pentyrch", 90, [1, 1, 24, 24]),
        pytest.param("pentyrch(players=2)", 60, [129, 1810, 9561, 90839], marks=pytest.mark.slow),
        ("pentyrch(players=3,combine=always)", 50, [1, 13, 119, 119]),
        ("pentyrch(cover_any_direction=true,show=false)", 40, [29, 29, 243, 2858, 46928]),
        ("pentyrch(partners=true,overpay=true)", 30, [29, 136, 7408]),
    ],
)
def test_perft(spec: str, steps: int, counts: list[int]) -> None:
    """Legal move sequences from fixed positions (docs/rules/pentyrch.md, Moving, Exchange, Stacks)."""
    s = position(spec, steps)
    assert [perft(s, d) for d in range(1, len(counts) + 1)] == counts


def test_perft_through_notation() -> None:
    """Every legal action's notation parses back to it, two plies deep (docs/rules/pentyrch.md, Notation)."""
    s = position("pentyrch", 40)
    n = 0
    for a in s.legal_actions():
        assert s.string_to_action(s.action_to_string(a)) == a
        c = s.clone()
        c.apply_action(c.string_to_action(s.action_to_string(a)))
        for b in c.legal_actions():
            assert c.string_to_action(c.action_to_string(b)) == b
            n += 1
    assert n == 119
