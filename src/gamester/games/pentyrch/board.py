"""The Pentyrch board: 25 cells of a cross, named like chess squares, and their geometry.

``docs/rules/pentyrch.md``, The board: a five-by-five square without its corners, plus a home
cell beyond the middle of each side; d4 is the free space. Cells are numbered 0-24 in laying-out order
(row by row from the top, left to right), d4 included, so layout card ``i`` lies on cell ``i`` for
``i < 12`` and on cell ``i + 1`` after the free space.

Every table here is computed once at import: neighbours by compass direction, which steps each seat may
take from each cell, home cells and goals.
"""

from __future__ import annotations

from typing import Final

ROWS: tuple[tuple[str, ...], ...] = (
    ("d7",),
    ("c6", "d6", "e6"),
    ("b5", "c5", "d5", "e5", "f5"),
    ("a4", "b4", "c4", "d4", "e4", "f4", "g4"),
    ("b3", "c3", "d3", "e3", "f3"),
    ("c2", "d2", "e2"),
    ("d1",),
)
CELL_NAMES: Final[tuple[str, ...]] = tuple(name for row in ROWS for name in row)
NUM_CELLS: Final = len(CELL_NAMES)  # 25
CELL_INDEX: Final[dict[str, int]] = {name: i for i, name in enumerate(CELL_NAMES)}
FREE: Final = CELL_INDEX["d4"]  # 12: the free space, never holds a pile
PILE_CELLS: Final[tuple[int, ...]] = tuple(c for c in range(NUM_CELLS) if c != FREE)
OFF: Final = 25  # the target of bearing off (a court card in safety)

# x = file (a = 0 … g = 6), y = rank (1 … 7).
COORDS: Final[tuple[tuple[int, int], ...]] = tuple((ord(n[0]) - ord("a"), int(n[1])) for n in CELL_NAMES)
_AT: dict[tuple[int, int], int] = {xy: i for i, xy in enumerate(COORDS)}

# Compass directions, numbered for the dense action encoding (north = toward rank 7).
DIRS: Final[tuple[tuple[int, int], ...]] = (
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
)
DIR_NAMES: Final = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
ENTER_SLOT: Final = 8  # direction slot of entering from off the board
OFF_SLOT: Final = 9  # direction slot of bearing off
SLOTS: Final = 10
PAYS: Final = 81  # actions a slot: no payment, one of 40 cards laid, one of 40 shown (moves.py)

# Seats: 0 West (hearts), 1 North (clubs), 2 East (diamonds), 3 South (spades).
SEAT_NAMES: Final = ("West", "North", "East", "South")
SEAT_SUIT: Final = (2, 0, 1, 3)


def seat_owners(players: int, game: int) -> list[int]:
    """The player at each of the four seats in game ``game`` of a match (-1: an empty seat).
    docs/rules/pentyrch.md, Seats, court cards and hands; The end (games): in game g player p sits at
    seat (p - g) mod n; with two players each has two seats of one colour, and the colours swap each
    game."""
    if players == 2:
        return [(s % 2 + game) % 2 for s in range(4)]
    if players == 3:
        return [(s + game) % 3 for s in range(3)] + [-1]
    return [(s + game) % 4 for s in range(4)]


HOME: Final[tuple[int, ...]] = (CELL_INDEX["a4"], CELL_INDEX["d7"], CELL_INDEX["g4"], CELL_INDEX["d1"])
GOAL: Final[tuple[int, ...]] = (CELL_INDEX["g4"], CELL_INDEX["d1"], CELL_INDEX["a4"], CELL_INDEX["d7"])
# docs/rules/pentyrch.md, Moving: each seat's forward, from its home toward its goal.
FORWARD: Final[tuple[tuple[int, int], ...]] = ((1, 0), (0, -1), (-1, 0), (0, 1))

# docs/rules/pentyrch.md, Moving: a home cell holds only its owner's court cards and those of the seat
# whose goal it is. HOME_OK[seat][cell] is False for the home cells that seat may never stand on.
HOME_OK: Final[tuple[tuple[bool, ...], ...]] = tuple(
    tuple(not (c in HOME and c != HOME[s] and c != GOAL[s]) for c in range(NUM_CELLS)) for s in range(4)
)


def neighbour(cell: int, d: int) -> int:
    """The cell one step from ``cell`` in direction ``d``, or -1 off the board."""
    x, y = COORDS[cell]
    dx, dy = DIRS[d]
    return _AT.get((x + dx, y + dy), -1)


# NEIGH[cell][d]: the neighbour in direction d, or -1.
NEIGH: Final[tuple[tuple[int, ...], ...]] = tuple(tuple(neighbour(c, d) for d in range(8)) for c in range(25))
NEIGHBOURS: Final[tuple[tuple[tuple[int, int], ...], ...]] = tuple(
    tuple((d, neighbour(c, d)) for d in range(8) if neighbour(c, d) >= 0) for c in range(NUM_CELLS)
)


def is_forward_or_side(seat: int, d: int) -> bool:
    """docs/rules/pentyrch.md, Moving: forward, diagonally forward or sideways; never any backward."""
    fx, fy = FORWARD[seat]
    dx, dy = DIRS[d]
    return dx * fx + dy * fy >= 0


# STEPS[seat][cell]: ((direction, target, forward_ok), …) in direction order, every neighbour listed;
# forward_ok says whether the step is allowed without the cover_any_direction option.
STEPS: Final[tuple[tuple[tuple[tuple[int, int, bool], ...], ...], ...]] = tuple(
    tuple(tuple((d, t, is_forward_or_side(s, d)) for d, t in NEIGHBOURS[c]) for c in range(NUM_CELLS))
    for s in range(4)
)

# STEP_CODES[seat * NUM_CELLS + cell]: STEPS[seat][cell] less the steps onto a home cell the seat may
# never stand on (HOME_OK), each step packed in one int, ``d * PAYS | target << 10 | forward_ok << 15``
# (``d * PAYS``: what the step adds to the court card's first action, moves.py): what move generation
# walks at every court card of every turn. Made from STEPS and HOME_OK, not a second statement of them:
# compiled, one int read from a tuple costs a fraction of unpacking a 3-tuple (tests/test_pentyrch_kit.py
# checks the two tables agree).
STEP_CODES: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(d * PAYS | t << 10 | int(fwd) << 15 for d, t, fwd in STEPS[s][c] if HOME_OK[s][t])
    for s in range(4)
    for c in range(NUM_CELLS)
)
# ENTER_CODES[seat]: docs/rules/pentyrch.md, A turn (2), entering, as move generation walks it: the one
# way from off the board, onto the seat's home cell (slot ENTER_SLOT), packed as STEP_CODES are and
# forward, so that it is taken as a step onto that cell is: by exchange if no court card is there,
# else by covering the top card.
ENTER_CODES: Final[tuple[tuple[int, ...], ...]] = tuple(
    (ENTER_SLOT * PAYS | HOME[s] << 10 | 1 << 15,) for s in range(4)
)

# DIR_BETWEEN[a][b]: the direction from cell a to the adjacent cell b, or -1.
DIR_BETWEEN: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(next((d for d, t in NEIGHBOURS[a] if t == b), -1) for b in range(NUM_CELLS))
    for a in range(NUM_CELLS)
)


def layout_cell(i: int) -> int:
    """docs/rules/pentyrch.md, The board: pack[i] lies on this cell (row by row, skipping d4)."""
    return i if i < FREE else i + 1


def parse_cell(text: str) -> int:
    """The index of a cell name (``a4``), or -1."""
    return CELL_INDEX.get(text.strip().lower(), -1)
