"""Fast Pentyrch playout knowledge for search: the ``heuristic`` agent's move scores computed on a
sampled world's internal fields, and a static evaluation of a position.

Everything here reads a *determinized* state, a world the searching agent drew itself through
``view.determinize`` (see ``gamester.agents.evaluators``), so reading its fields is no cheating.

* :func:`move_score` gives exactly the score ``agents/heuristics/pentyrch.py`` gives the same move
  (distance gained toward the goal, the trapping bonus, the payment and the pile taken, the
  unprotecting penalty, bearing off first), but from the move tuple rather than its notation and the
  observation dictionary: about thirty times faster, which is what makes heuristic playouts affordable.
  ``tests/test_agents.py`` checks the two agree on every legal move of many positions.
* :func:`heuristic_move` plays like the heuristic agent (best score, ties broken by the generator), so
  a playout in which every seat follows it simulates three ``heuristic`` opponents faithfully.
* :func:`race_values` scores a position for the seats still racing: each seat's work left (steps to
  its goal, entries, bearing off, cards trapped under others) turned into shares of the win.
"""

from __future__ import annotations

import math
import random

from gamester.core.protocol import State
from gamester.games.pentyrch.board import COORDS, GOAL, HOME, NUM_CELLS, OFF
from gamester.games.pentyrch.game import POINTS, VALUE, Move, PentyrchState, mask_value

# DIST[a][b]: king-move distance between cells (what the heuristic calls ``distance``).
DIST: tuple[tuple[int, ...], ...] = tuple(
    tuple(max(abs(COORDS[a][0] - COORDS[b][0]), abs(COORDS[a][1] - COORDS[b][1])) for b in range(NUM_CELLS))
    for a in range(NUM_CELLS)
)
_SAFE = OFF
_ENTER_SCORE = tuple(7.0 - 0.5 * DIST[HOME[s]][GOAL[s]] for s in range(4))


def move_score(state: PentyrchState, seat: int, m: Move) -> float:
    """The heuristic agent's score of move ``m`` for ``seat`` in ``state`` (before the move)."""
    k, frm, to, mode, top, rest = m
    if k < 0:
        return -1000.0
    if to == OFF:
        return 1000.0 + POINTS[k % 3]
    goal = GOAL[seat]
    dist_to = DIST[to][goal]
    value = _ENTER_SCORE[seat] if frm < 0 else 10.0 * (DIST[frm][goal] - dist_to)
    stacks = state._stacks
    st = stacks[to]
    if st:
        value += 6.0 if st[-1] // 3 != seat else 1.0
    elif mode:
        if mode == 2:
            value += 1.0
        else:
            value -= 0.8 * (VALUE[top] + (mask_value(rest) if rest else 0))
        value += 0.5 * sum([VALUE[c] for c in state._piles[to]])
    if frm >= 0:
        below = stacks[frm]
        if len(below) >= 2:
            value -= 5.0 if below[-2] // 3 != seat else 2.0
    if dist_to == 0:
        value += 3.0
    return value


def scored_moves(state: PentyrchState, legal: list[int]) -> list[tuple[float, int, Move]]:
    """(heuristic score, action, move) of every legal action of the seat to move."""
    if state._legal is None:
        state._generate()
    seat = state._seat
    decode = state._decode
    out = []
    for a in legal:
        m = decode(a)
        out.append((move_score(state, seat, m), a, m))
    return out


def heuristic_move(state: PentyrchState, legal: list[int], rng: random.Random) -> int:
    """The action the heuristic agent would choose (ties broken by ``rng``)."""
    seat = state._seat
    decode = state._decode
    best = -math.inf
    choice = legal[0]
    tie = 0.0
    rand = rng.random
    for a in legal:
        s = move_score(state, seat, decode(a))
        if s > best:
            best = s
            choice = a
            tie = rand()
        elif s == best:
            r = rand()
            if r > tie:
                tie = r
                choice = a
    return choice


def work_left(state: PentyrchState, seat: int) -> float:
    """The turns ``seat`` still needs at best: steps to the goal and bearing off for each card on the
    board (more when it is pinned under another seat's card), entering and crossing for the rest."""
    cpos = state._cpos
    stacks = state._stacks
    goal = GOAL[seat]
    total = 0.0
    for k in range(seat * 3, seat * 3 + 3):
        p = cpos[k]
        if p == _SAFE:
            continue
        if p < 0:
            total += 1.0 + DIST[HOME[seat]][goal] + 1.0
            continue
        total += DIST[p][goal] + 1.0
        st = stacks[p]
        if st[-1] != k:
            above = st[-1] // 3
            total += 3.0 if above != seat else 1.0
    return total


def race_values(state: State, temperature: float = 2.5) -> list[float]:
    """Estimated returns of a position where a playout stopped: each unfinished seat's chance to win
    is a softmax of minus its work left (``temperature`` turns of work per factor e), turned into the
    game's zero-sum returns (a win +1, a loss -1/(n-1) in the four-player game)."""
    assert isinstance(state, PentyrchState)
    n = state._n
    owner = state._owner
    weights = [0.0] * n
    for s in range(4):
        q = owner[s]
        if q < 0:
            continue
        weights[q] += math.exp(-work_left(state, s) / temperature)
    total = sum(weights)
    if total <= 0.0:
        return [0.0] * n
    shares = [w / total for w in weights]
    # A player's share p of the win is worth p * 1 + (1 - p) * (-1 / (n - 1)).
    lose = 1.0 / (n - 1)
    return [p - (1.0 - p) * lose for p in shares]
