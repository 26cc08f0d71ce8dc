"""Pentyrch: the game (options, action space, the combination payment tables its states share).

The engine is split by idea: ``board.py`` (cells, homes, goals), ``cards.py`` (values, court cards,
hand masks), ``moves.py`` (the action encoding, move generation and decoding), ``combos.py``
(overpay payments counted), ``notation.py`` and ``reasons.py`` (moves written and read, why one is
illegal), ``scoring.py`` (the end of a game), ``views.py`` (what a seat sees), ``worlds.py``
(determinize and the world view for search) and ``state.py`` (:class:`PentyrchState`, the turn). Every
rule cites its section of ``docs/rules/pentyrch.md``. The names other code uses are importable from
here.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from typing import Any, Final

from gamester.core.cards import SUIT_SYMBOLS, SUITS, card_code, parse_card
from gamester.core.protocol import Game
from gamester.core.rng import Chance
from gamester.games.pentyrch import notation, position
from gamester.games.pentyrch.board import (
    CELL_NAMES,
    FREE,
    GOAL,
    HOME,
    ROWS,
    SEAT_NAMES,
    SEAT_SUIT,
    seat_owners,
)
from gamester.games.pentyrch.cards import (
    BIT,
    CANON,
    COURT_IDS,
    COURT_OF_CARD,
    EQ,
    GE,
    HAND_CARDS,
    IDX40,
    LAYOUT_CARDS,
    NONCOURT,
    POINTS,
    SIG,
    VALUE,
    canon_cards,
    canon_tuple,
    canon_walk,
    cards_at,
    cards_of_mask,
    mask_value,
    signature,
)
from gamester.games.pentyrch.combos import OverpayPayments
from gamester.games.pentyrch.moves import (
    COMBO_BASE,
    MAX_EXCHANGE_MOVES,
    MAX_MINIMAL_COMBOS,
    MAX_OVERPAY_COMBOS,
    PASS,
    PAYS,
    SAFE,
    SHOW_CODE,
    Move,
)
from gamester.games.pentyrch.moves import combo_positions as _combo_positions
from gamester.games.pentyrch.moves import payments as _payments
from gamester.games.pentyrch.options import OPEN_SPACE, RULESETS, PentyrchOptions
from gamester.games.pentyrch.state import PentyrchState
from gamester.games.pentyrch.views import OBS_SIZE, Event
from gamester.games.pentyrch.worlds import FALLBACKS, PentyrchWorld

__all__ = [
    "BIT",
    "CANON",
    "COMBO_BASE",
    "COURT_IDS",
    "COURT_OF_CARD",
    "EQ",
    "FALLBACKS",
    "GE",
    "HAND_CARDS",
    "IDX40",
    "LAYOUT_CARDS",
    "MAX_EXCHANGE_MOVES",
    "MAX_MINIMAL_COMBOS",
    "MAX_OVERPAY_COMBOS",
    "NONCOURT",
    "OBS_SIZE",
    "PASS",
    "PAYS",
    "POINTS",
    "SAFE",
    "SHOW_CODE",
    "SIG",
    "VALUE",
    "Event",
    "Move",
    "PentyrchGame",
    "PentyrchState",
    "PentyrchWorld",
    "_combo_positions",
    "_payments",
    "cards_of_mask",
    "mask_value",
]


# How many minimal combination tables a game keeps at hand (PentyrchGame._slots), a power of two: a
# few thousand value counts come up in thousands of random games.
_SLOTS: Final = 1 << 14


class PentyrchGame(Game[PentyrchOptions]):
    name = "pentyrch"
    title = "Pentyrch"
    blurb = "Up to four players race their court cards across a cross of Ace–6 cards, paying with 7–10s."
    rules_version = 1
    options_class = PentyrchOptions
    rulesets = RULESETS
    open_space = OPEN_SPACE
    clone_shares = {
        "PentyrchState._events[]": "the outer list is copied; its entries are finished events",
        "PentyrchState._taken": "the pile the last exchange took, off the board: replaced, never changed",
        "PentyrchState._owner": "seat owners, set once per game of a match, replaced not changed",
        "PentyrchState._unit": "finishing units, set once per game of a match, replaced not changed",
        "PentyrchState._unit_seats": "finishing units' seats, set once per game, replaced not changed",
        "PentyrchState._results[][]": "the outer list and each dict are copied; the values are finished",
        "PentyrchState._past_games": "a tuple of finished games, replaced not changed",
    }

    def __init__(self, options: PentyrchOptions) -> None:
        super().__init__(options)
        per_move = MAX_OVERPAY_COMBOS if options.overpay else MAX_MINIMAL_COMBOS
        self._num_actions = COMBO_BASE + MAX_EXCHANGE_MOVES * per_move
        self._overpay = options.overpay
        self._tables: dict[int, tuple[tuple[int, int], ...]] = {}
        # The tables last asked for, each in the slot a hash of its key picks: what move generation
        # (combo_count) and decoding (combo_at) read, without a key boxed and looked up in the
        # dictionary above at every exchange no single card pays for (_combo_table).
        self._slots: list[tuple[int, tuple[tuple[int, int], ...]] | None] = [None] * _SLOTS
        # With overpay the payments are counted, never listed (combos.py): half a million for one
        # exchange would take seconds to list and tens of megabytes to keep.
        self._spaces: dict[int, OverpayPayments] = {}
        # The last hand combo_at decoded for and its cards in canonical order (one tuple, replaced
        # whole: states in several threads may share the game).
        self._walked: tuple[int, tuple[int, ...]] = (-1, ())

    @classmethod
    def drawing(cls) -> dict[str, Any]:
        """docs/rules/pentyrch.md, The cross, Seats and The end: the board's rows of cells (top row
        first), the free space, each seat's name, suit, home and goal, what a pile or hand card is
        worth and what each court card scores in safety, so that no drawing restates them."""
        return {
            "rows": [list(row) for row in ROWS],
            "free": CELL_NAMES[FREE],
            "seats": list(SEAT_NAMES),
            "seat_suits": [SUITS[s] for s in SEAT_SUIT],
            "homes": [CELL_NAMES[c] for c in HOME],
            "goals": [CELL_NAMES[c] for c in GOAL],
            "card_values": {card_code(c): VALUE[c] for c in NONCOURT},
            "court_points": {card_code(COURT_IDS[k])[0]: POINTS[k] for k in range(3)},
        }

    def action_parts(self, action: str) -> dict[str, Any] | None:
        """docs/rules/pentyrch.md, Notation: a move's court card, cells, payment or shown card, as
        the notation says them (``notation.action_parts``), for the page to draw without reading
        the notation."""
        return notation.action_parts(action)

    def hides_information(self) -> bool:
        """docs/rules/pentyrch.md, What each player knows: with two players the two hands are the whole
        hand pack and the piles lie face up, so each player knows the other's cards as a set."""
        return self.options.players != 2

    @classmethod
    def seat_labels(cls, players: int) -> list[str]:
        """Each player's seats in the first game, with their suits: "West ♥", "West & East (♥ ♦)"."""
        owners = seat_owners(players, 0)
        out = []
        for p in range(players):
            seats = [s for s, o in enumerate(owners) if o == p]
            names = " & ".join(SEAT_NAMES[s] for s in seats)
            suits = " ".join(SUIT_SYMBOLS[SEAT_SUIT[s]] for s in seats)
            out.append(f"{names} {suits}" if len(seats) == 1 else f"{names} ({suits})")
        return out

    @property
    def num_players(self) -> int:
        return self.options.players

    @property
    def num_distinct_actions(self) -> int:
        return self._num_actions

    @property
    def observation_tensor_size(self) -> int:
        return OBS_SIZE

    # -- combination payments (docs/rules/pentyrch.md, Moving, Exchange) -------------------------
    def _combo_table(self, hand: int, v: int) -> tuple[int, tuple[tuple[int, int], ...]]:
        """The cards a combination may use (as a mask) and its positional table, cached by the
        value counts of those cards: suits change which cards, never the ways to combine them."""
        m = hand if self._overpay else hand & ~GE[v]
        x = SIG[m & 8191] + SIG[m >> 13 & 8191] + SIG[m >> 26 & 8191] + SIG[m >> 39]
        if x & 255 < v:
            return m, ()  # the cards do not reach v: half the hands move generation asks about
        key = (x >> 8) * 10 + v - 1  # the signature of m (SIG) and v
        i = key & (_SLOTS - 1)
        hit = self._slots[i]
        if hit is not None and hit[0] == key:
            return m, hit[1]
        table = self._tables.get(key)
        if table is None:
            table = self._tables[key] = _combo_positions(
                tuple(VALUE[c] for c in canon_cards(m)), v, self._overpay
            )
        self._slots[i] = (key, table)
        return m, table

    def _overpay_payments(self, hand: int, v: int) -> OverpayPayments:
        """The overpay payments of ``hand`` on a pile worth ``v``, cached by the hand's value counts."""
        key = signature(hand) * 10 + v - 1
        space = self._spaces.get(key)
        if space is None:
            if len(self._spaces) > 20_000:
                self._spaces.clear()
            space = self._spaces[key] = OverpayPayments(tuple(VALUE[c] for c in canon_cards(hand)), v)
        return space

    def combo_count(self, hand: int, v: int) -> int:
        """How many combination payments ``hand`` has on a pile worth ``v``."""
        if self._overpay:
            return self._overpay_payments(hand, v).count
        # _combo_table's first lines inline: this runs for every exchange no single card pays, the
        # playouts' hot loop
        m = hand & ~GE[v]
        x = SIG[m & 8191] + SIG[m >> 13 & 8191] + SIG[m >> 26 & 8191] + SIG[m >> 39]
        if x & 255 < v:
            return 0
        key = (x >> 8) * 10 + v - 1
        hit = self._slots[key & (_SLOTS - 1)]
        if hit is not None and hit[0] == key:
            return len(hit[1])
        return len(self._combo_table(hand, v)[1])

    def combo_at(self, hand: int, v: int, r: int) -> tuple[int, int]:
        """The ``r``-th combination payment (top card, rest mask) in canonical order."""
        if self._overpay:
            m = hand
            top, rest = self._overpay_payments(hand, v).unrank(r)
        else:
            m, table = self._combo_table(hand, v)
            top, rest = table[r]
        walked = self._walked
        if walked[0] != m:  # search decodes the combinations of one exchange one after another
            walked = self._walked = (m, canon_walk(m))
        return cards_at(walked[1], top, rest)

    def combo_rank(self, hand: int, v: int, top: int, rest: int) -> int:
        """The rank of payment (``top`` card, ``rest`` mask of cards) among ``hand``'s combination
        payments on a pile worth ``v`` (as :meth:`combo_at` numbers them), or -1 if it is not one."""
        m = hand if self._overpay else hand & ~GE[v]
        if not rest or (rest | BIT[top]) & ~m or rest & BIT[top]:
            return -1
        cards = canon_tuple(m)
        pos = {c: i for i, c in enumerate(cards)}
        t = pos[top]
        rm = 0
        for c in canon_tuple(rest):
            rm |= 1 << pos[c]
        if self._overpay:
            return self._overpay_payments(hand, v).rank(t, rm)
        table = self._combo_table(hand, v)[1]

        def order(entry: tuple[int, int]) -> tuple[int, list[int]]:
            # canonical order: top, then the other positions as an ascending list (combos.py)
            return entry[0], [i for i in range(len(cards)) if entry[1] >> i & 1]

        i = bisect_left(table, order((t, rm)), key=order)
        return i if i < len(table) and table[i] == (t, rm) else -1

    def combo_payments(self, hand: int, v: int) -> list[str]:
        """Every combination payment of ``hand`` on a pile worth ``v`` in rank order, in notation
        (``top+other+…``): one pass, for listing a position's moves."""
        m = hand if self._overpay else hand & ~GE[v]
        names = [card_code(c) for c in canon_cards(m)]
        if self._overpay:
            return self._overpay_payments(hand, v).walk(names)
        return [
            "+".join([names[t]] + [names[i] for i in range(len(names)) if r >> i & 1])
            for t, r in self._combo_table(hand, v)[1]
        ]

    def _new_state(self, seed: int, chance: Chance) -> PentyrchState:
        return PentyrchState(self, seed, chance)

    def blank_state(self, seed: int, chance: Chance) -> PentyrchState:
        """A state with no field set but the protocol's, for this package's readers to fill."""
        return PentyrchState(self, seed, chance, _blank=True)

    def read_position(self, text: str, chance: Sequence[Any] | None = None) -> PentyrchState:
        """docs/positions.md: the board, the hands and what has been seen of them (``position.py``)."""
        return position.read(self, text, None if chance is None else list(chance))

    def bounds(self) -> tuple[float, float, int]:
        """docs/rules/pentyrch.md: winners +1, the others -w/(n - w): at worst -(n - 1); one move per
        seat per round, at most ``max_rounds`` rounds a game."""
        o = self.options
        n = self.num_players
        seats = 3 if o.players == 3 else 4
        worst = 1.0 if o.partners or n == 2 else float(n - 1)
        return -worst * o.games, 1.0 * o.games, o.max_rounds * seats * o.games

    def parse_chance(self, entry: Any) -> int:
        return parse_card(entry)

    def format_chance(self, entry: Any) -> Any:
        return [card_code(c) for c in entry]
