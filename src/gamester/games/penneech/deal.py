"""Penneech's deal as the engine lays it out: the action numbers, the phases, and where each card of a
pack goes (docs/rules/penneech.md, Dealing). Shared by the engine (``game.py``), what a
seat sees (``views.py``) and the worlds search draws (``worlds.py``), so none of them imports another
for a number.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

from gamester.core.cards import ACE
from gamester.games.penneech.rules import TRICKS

# Module constants are ``Final``: the compiled build then reads them as C values, not by name from
# the module's dict at every use (the same statements cost the same run as Python).
KEEP: Final = 52
REDEAL: Final = 53
NUM_ACTIONS: Final = 54
HAND_SIZE: Final = 7
BIT: Final[tuple[int, ...]] = tuple(1 << c for c in range(52))
DEAL_READS: Final = 2 * HAND_SIZE + TRICKS + 1
# The first-dealer draw reads two cards, four after a tie (one in 17); a second tie orders the rest.
DRAW_READS: Final = 4
# Stock position of the turn-up after trick 7. During play _pos is 14 + the tricks played + 1, so at
# the end of a trick ``_pos < LAST_TURN_UP`` says that tricks remain.
LAST_TURN_UP: Final = 2 * HAND_SIZE + TRICKS


class Phase(IntEnum):
    """Where a deal stands: ``Phase(state._phase)`` names a state's phase."""

    REDEAL = 0  # a player answers keep or redeal
    PLAY = 1
    OVER = 2


# The engine stores and compares the plain int values: Python 3.11 specializes ``==`` only for exact
# ints, and storing the members measured +1.1% instructions per action here (valgrind, 1,000 random
# deals); Piquesept, which compares less, stores the members at no measurable cost.
REDEAL_PHASE: Final = int(Phase.REDEAL)
PLAY: Final = int(Phase.PLAY)
OVER: Final = int(Phase.OVER)
_PHASE_NAMES: Final = tuple(p.name.lower() for p in Phase)  # observation["phase"]: "redeal", "play", "over"


def draw_rank(card: int) -> int:
    """Rank for the first-dealer draw: Ace 1 … King 13, the 7D a plain 7."""
    r = card % 13
    return 1 if r == ACE else r + 2


# docs/rules/penneech.md, Dealing: the draw's rank of each card (draw_rank, tabulated).
DRAW_RANK: Final[tuple[int, ...]] = tuple(draw_rank(c) for c in range(52))
