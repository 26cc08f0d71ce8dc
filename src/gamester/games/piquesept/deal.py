"""The words of a Piquesept deal: dense actions and the core's card ids, the phases and the masks
that list a hand. Shared by the engine (``game.py``), what a seat sees (``views.py``) and the worlds
search draws (``worlds.py``), so none of them imports another for a word.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, Final

from gamester.core.cards import CODES
from gamester.games.piquesept.rules import NUM_ACTIONS

# Dense action <-> core card id (suit * 13 + rank, rank 5 = seven … 12 = ace).
A2ID: Final[tuple[int, ...]] = tuple((a >> 3) * 13 + (a & 7) + 5 for a in range(NUM_ACTIONS))
ID2A: Final[tuple[int, ...]] = tuple((c // 13) * 8 + c % 13 - 5 if c % 13 >= 5 else -1 for c in range(52))
# Bit of each core card id in a dense hand mask (so ``sum(map(IDBIT.__getitem__, cards))`` is a hand).
IDBIT: Final[tuple[int, ...]] = tuple(1 << ID2A[c] if ID2A[c] >= 0 else 0 for c in range(52))
CODE: Final[tuple[str, ...]] = tuple(CODES[c] for c in A2ID)
# The action of each code the views write (``CODE``): how this game's own reader of an observation (the
# heuristic) turns its cards back into actions, one dictionary lookup a card.
ACTION_OF_CODE: Final[dict[str, int]] = {c: a for a, c in enumerate(CODE)}


class Phase(IntEnum):
    """Where a deal stands: the names (``observation["phase"]``); the state keeps the plain ints below."""

    FIRST_TRICK = 0
    PLAY = 1
    GIVE = 2  # the trade after the first trick
    OVER = 3


# The phases as plain ints (``Final``): the engine compares them at every action, and an int compares
# faster than an IntEnum member in both builds (a compiled module reads a Final int as a C constant).
FIRST: Final[int] = Phase.FIRST_TRICK.value
PLAY: Final[int] = Phase.PLAY.value
GIVE: Final[int] = Phase.GIVE.value
OVER: Final[int] = Phase.OVER.value
_PHASE_NAMES: Final = tuple(p.name.lower() for p in Phase)  # observation["phase"]: "first_trick", …
PHASE_OF_NAME: Final[dict[str, int]] = {name: p for p, name in enumerate(_PHASE_NAMES)}


# Mask -> sorted action list: two 16-bit halves, so legal_actions is two lookups.
_LO: Final[list[list[int]]] = [[b for b in range(16) if m >> b & 1] for m in range(1 << 16)]
_HI: Final[list[list[int]]] = [[b + 16 for b in range(16) if m >> b & 1] for m in range(1 << 16)]


# The events of a trick ending mid-deal, made only when asked for (``views.last_events``): the engine
# leaves this shared marker (never appended to) instead of a list of its own.
LAST_TRICK: Final[list[tuple[Any, ...]]] = []


def mask_to_actions(m: int) -> list[int]:
    return _LO[m & 0xFFFF] + _HI[m >> 16]


def codes(mask: int) -> list[str]:
    """The codes of the cards in a dense hand mask, in action order (suit, then rank)."""
    return [CODE[a] for a in mask_to_actions(mask)]
