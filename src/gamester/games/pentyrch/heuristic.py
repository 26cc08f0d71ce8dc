"""A Pentyrch player's rules of thumb, written once: :func:`move_score` scores a move tuple on a board
(the stacks and piles of the cells). The ``heuristic`` agent reads the board from the seat's
observation and the moves from the notation of its legal actions; playouts (``policy.py``) read a
sampled world's board directly. Both therefore give every move the same score.

Every legal move is scored and the best is played (ties broken by the seeded generator):

* **Bear off** whenever possible: a card in safety can no longer be trapped, and it scores.
* **Progress**: a step is worth the distance it gains toward the goal (steps counted as a king moves);
  entering a new court card is worth a little less than a step forward.
* **Trap, don't free**: covering an opponent's court card traps it (a bonus); stepping away from a
  card one is trapping frees it, and stepping off one's own card unprotects it (penalties).
* **Pay cheaply**: exchanges cost the value of the cards laid and bring the old pile into the hand;
  showing an equal card costs nothing. Hand cards are the fuel of later moves, so cheap payments and
  rich piles are preferred.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

from gamester.core.cards import card_code, parse_card
from gamester.core.kit import View
from gamester.core.rng import unit
from gamester.games.pentyrch.board import CELL_NAMES, COORDS, GOAL, NUM_CELLS, OFF
from gamester.games.pentyrch.cards import COURT_IDS, COURT_OF_CARD, POINTS, VALUE, mask_value
from gamester.games.pentyrch.moves import Move
from gamester.games.pentyrch.notation import read_move

# DIST[a][b]: king-move distance between cells.
DIST: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(max(abs(COORDS[a][0] - COORDS[b][0]), abs(COORDS[a][1] - COORDS[b][1])) for b in range(NUM_CELLS))
    for a in range(NUM_CELLS)
)

Board = tuple[Sequence[Sequence[int]], Sequence[Sequence[int]]]
"""(stacks, piles): per cell, the court cards ``k`` and the card ids, top last."""


def move_score(seat: int, m: Move, stacks: Sequence[Sequence[int]], piles: Sequence[Sequence[int]]) -> float:
    """The heuristic's score of move ``m`` (``moves.py``'s tuple) for ``seat``, on the board before it."""
    k, frm, to, mode, top, rest = m
    if k < 0:
        return -1000.0
    if to == OFF:
        return 1000.0 + POINTS[k % 3]
    goal = GOAL[seat]
    dist_to = DIST[to][goal]
    value = 7.0 - 0.5 * dist_to if frm < 0 else 10.0 * (DIST[frm][goal] - dist_to)
    st = stacks[to]
    if st:
        value += 6.0 if st[-1] // 3 != seat else 1.0
    elif mode:
        if mode == 2:
            value += 1.0
        else:
            value -= 0.8 * (VALUE[top] + (mask_value(rest) if rest else 0))
        value += 0.5 * sum([VALUE[c] for c in piles[to]])
    if frm >= 0:
        below = stacks[frm]
        if len(below) >= 2:
            value -= 5.0 if below[-2] // 3 != seat else 2.0
    if dist_to == 0:
        value += 3.0
    return value


# The canonical codes an observation writes (views.py), read by lookup; anything else goes through
# parse_card. The agent decides from the observation at every turn, so this is its hot path.
_CARD_OF_CODE: Final[dict[str, int]] = {card_code(c): c for c in range(52)}
_COURT_OF_CODE: Final[dict[str, int]] = {card_code(c): k for k, c in enumerate(COURT_IDS)}
# read_move of each move text met (a move's text always reads as the same tuple).
_MOVES: Final[dict[str, Move]] = {}


def board_of(obs: dict[str, Any]) -> Board:
    """The stacks and piles of an observation's board (``views.view``), by cell index."""
    cells = obs["board"]
    stacks: list[list[int]] = []
    piles: list[list[int]] = []
    try:
        for name in CELL_NAMES:
            cell = cells[name]
            stacks.append([_COURT_OF_CODE[c] for c in cell["stack"]])
            piles.append([_CARD_OF_CODE[c] for c in cell["pile"]])
    except KeyError:  # a code written some other way
        stacks = []
        piles = []
        for name in CELL_NAMES:
            cell = cells[name]
            stacks.append([COURT_OF_CARD[parse_card(c)] for c in cell["stack"]])
            piles.append([parse_card(c) for c in cell["pile"]])
    return stacks, piles


def move_of(text: str) -> Move:
    """``notation.read_move(text)``, remembered."""
    m = _MOVES.get(text)
    if m is None:
        if len(_MOVES) > 100_000:
            _MOVES.clear()
        m = _MOVES[text] = read_move(text)
    return m


def score_move(text: str, obs: dict[str, Any], seat: int) -> float:
    """The score of the move written ``text`` (canonical notation) for ``seat`` in observation ``obs``."""
    stacks, piles = board_of(obs)
    return move_score(seat, move_of(text), stacks, piles)


def choose(view: View, obs: dict[str, Any], legal: list[int], rng: random.Random) -> int:
    seat = obs["seat_to_move"]
    stacks, piles = board_of(obs)
    name = view.action_to_string
    scored = [(move_score(seat, move_of(name(a)), stacks, piles), unit(rng), a) for a in legal]
    return max(scored)[2]
