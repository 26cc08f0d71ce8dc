"""Fast Pentyrch playout knowledge for search: the heuristic's move scores on a sampled world, and a
static evaluation of a position.

Everything here reads a *determinized* state, a world the searching agent drew itself through
``view.determinize`` (see ``gamester.agents.evaluators``), through its read-only
:class:`~gamester.games.pentyrch.worlds.PentyrchWorld` and the engine's ``moves.decode``.

* :func:`scored_moves` and :func:`heuristic_move` score moves with ``heuristic.move_score``, the one
  definition the ``heuristic`` agent uses too, on the world's own stacks and piles and the decoded move
  tuples (no notation, no observation): that is what makes heuristic playouts affordable.
  :func:`heuristic_move` chooses as the heuristic agent does (best score, ties broken by the
  generator), so a playout in which every seat follows it simulates ``heuristic`` opponents.
* :func:`race_values` scores a position for the seats still racing: each seat's work left (steps to
  its goal, entries, bearing off, cards trapped under others) turned into shares of the win.
"""

from __future__ import annotations

import math
import random

from gamester.core.protocol import State
from gamester.games.pentyrch.board import GOAL, HOME
from gamester.games.pentyrch.heuristic import DIST, move_score
from gamester.games.pentyrch.moves import SAFE, Move, decode
from gamester.games.pentyrch.state import PentyrchState
from gamester.games.pentyrch.worlds import PentyrchWorld


def scored_moves(state: PentyrchState, legal: list[int]) -> list[tuple[float, int, Move]]:
    """(heuristic score, action, move) of every legal action of the seat to move."""
    seat = state.current_seat()
    stacks, piles = state.cells()
    state.legal_actions()  # the moves generated, if not yet: decode reads them
    out = []
    for a in legal:
        m = decode(state, a)
        out.append((move_score(seat, m, stacks, piles), a, m))
    return out


def heuristic_move(state: PentyrchState, legal: list[int], rng: random.Random) -> int:
    """The action the heuristic agent would choose (ties broken by ``rng``); ``legal`` are the
    state's legal actions."""
    seat = state.current_seat()
    stacks, piles = state.cells()
    best = -math.inf
    choice = legal[0]
    tie = 0.0
    rand = rng.random
    for a in legal:
        s = move_score(seat, decode(state, a), stacks, piles)
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


def work_left(world: PentyrchWorld, seat: int) -> float:
    """The turns ``seat`` still needs at best: steps to the goal and bearing off for each card on the
    board (more when it is pinned under another seat's card), entering and crossing for the rest."""
    cpos = world.cpos
    stacks = world.stacks
    goal = GOAL[seat]
    total = 0.0
    for k in range(seat * 3, seat * 3 + 3):
        p = cpos[k]
        if p == SAFE:
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
    world = state.world_view()
    n = world.players
    owner = world.owner
    weights = [0.0] * n
    for s in range(4):
        q = owner[s]
        if q < 0:
            continue
        weights[q] += math.exp(-work_left(world, s) / temperature)
    total = sum(weights)
    if total <= 0.0:
        return [0.0] * n
    shares = [w / total for w in weights]
    # A player's share p of the win is worth p * 1 + (1 - p) * (-1 / (n - 1)).
    lose = 1.0 / (n - 1)
    return [p - (1.0 - p) * lose for p in shares]
