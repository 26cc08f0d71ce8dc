"""Pentyrch: the rules engine.

Every rule cites the section of ``docs/rules/pentyrch.md`` (section names in the comments). Cards keep
the core's 52 ids; the 40 non-court cards are the piles' and hands' cards, the twelve court cards are
indexed ``k = seat * 3 + (0 Jack, 1 Queen, 2 King)``. Hands are 52-bit masks, one per player.

Chance: each game draws the layout pack (the 24 Ace-6 cards, top first) and then the hand pack (the
sixteen 7-10 cards); a match of several games draws its two packs at the start of each game.

Dense actions (``num_distinct_actions``):

* ``0`` is ``pass``.
* ``1 + slot * 81 + pay`` for every move whose payment is nothing, one card or a shown card, where
  ``slot = k * 10 + d`` names the court card and where it goes (``d`` 0-7 a step in compass direction
  N NE E SE S SW W NW, 8 entering, 9 bearing off) and ``pay`` is 0 (no payment), ``1 + i`` (paying with
  non-court card ``i`` of 40) or ``41 + i`` (showing it): 9,720 actions whose meaning never changes.
* ``COMBO_BASE + r`` for payments of two or more cards: ``r`` is the rank of the move among this
  position's legal combination moves in canonical order (slot, top card, other cards). The region holds
  the most a position can have: at most 15 exchange moves (three court cards, five non-backward
  neighbours each) times the most combinations one move allows (4,992 minimal ones, for a hand of the
  sixteen Aces-4s against a Ten; 524,272 when ``overpay`` admits every subset of a 16-card hand, a hand
  holding at most 16 cards because every one of the 24 piles keeps at least one).
"""

from __future__ import annotations

import random
from bisect import bisect_left
from typing import Any

from gamester.core.cards import card_code, cards_of, parse_card
from gamester.core.errors import IllegalActionError, InvalidActionError, quote
from gamester.core.kit import Kit
from gamester.core.protocol import TERMINAL, Game, State
from gamester.core.rng import Chance, make_rng
from gamester.games.pentyrch.board import (
    CELL_NAMES,
    DIR_BETWEEN,
    DIR_NAMES,
    ENTER_SLOT,
    FREE,
    GOAL,
    HOME,
    HOME_OK,
    NEIGH,
    NUM_CELLS,
    OFF,
    OFF_SLOT,
    PILE_CELLS,
    SEAT_NAMES,
    SEAT_SUIT,
    SLOTS,
    STEPS,
    layout_cell,
    neighbour,
    parse_cell,
)
from gamester.games.pentyrch.combos import OverpayPayments
from gamester.games.pentyrch.options import RULESETS, PentyrchOptions

# -- cards ---------------------------------------------------------------------------------------
# docs/rules/pentyrch.md, Seats, court cards and hands: values Ace 1, 2-10 at face value; suits only name
# cards.
VALUE = [0] * 52
for _c in range(52):
    _r = _c % 13
    VALUE[_c] = 1 if _r == 12 else (_r + 2 if _r <= 8 else 0)
NONCOURT: tuple[int, ...] = tuple(c for c in range(52) if c % 13 not in (9, 10, 11))
IDX40 = [-1] * 52
for _i, _c in enumerate(NONCOURT):
    IDX40[_c] = _i
LAYOUT_CARDS: tuple[int, ...] = tuple(c for c in NONCOURT if VALUE[c] <= 6)  # Ace-6: 24 cards
HAND_CARDS: tuple[int, ...] = tuple(c for c in NONCOURT if VALUE[c] >= 7)  # 7-10: 16 cards
# docs/rules/pentyrch.md, Notation: canonical order is value high to low, then suit C D H S.
CANON = [(10 - VALUE[c]) * 4 + c // 13 for c in range(52)]
COURT_IDS: tuple[int, ...] = tuple(SEAT_SUIT[k // 3] * 13 + 9 + k % 3 for k in range(12))
COURT_OF_CARD = {c: k for k, c in enumerate(COURT_IDS)}
COURT_RANK_NAMES = ("Jack", "Queen", "King")
# docs/rules/pentyrch.md, The end: Jack 3, Queen 2, King 1.
POINTS = (3, 2, 1)
BIT = tuple(1 << c for c in range(52))
# GE[v] / EQ[v]: the non-court cards worth at least / exactly v (v = 0 … 11).
GE = tuple(sum(BIT[c] for c in NONCOURT if VALUE[c] >= v) for v in range(12))
EQ = tuple(sum(BIT[c] for c in NONCOURT if VALUE[c] == v) for v in range(12))
_SINGLES: dict[int, tuple[int, ...]] = {}
# SIG[chunk]: the value counts of one suit's 13 rank bits, four bits per value; adding the four suits'
# entries gives a hand's value signature, which is all a combination count depends on.
SIG = tuple(sum(1 << (4 * VALUE[r]) for r in range(13) if m >> r & 1 and VALUE[r]) for m in range(1 << 13))


def _codes_of(mask: int) -> tuple[int, ...]:
    """The single-card pay codes (``1 + index``) of the cards in ``mask``, ascending (cached)."""
    hit = _SINGLES.get(mask)
    if hit is None:
        out = []
        m = mask
        while m:
            low = m & -m
            out.append(1 + IDX40[low.bit_length() - 1])
            m ^= low
        if len(_SINGLES) > 100_000:
            _SINGLES.clear()
        hit = _SINGLES[mask] = tuple(out)
    return hit


SAFE = OFF  # cpos of a court card in safety; -1 is off the board, not yet entered

# -- actions -------------------------------------------------------------------------------------
PASS = 0
PAYS = 81
SHOW_CODE = 41
COMBO_BASE = 1 + 12 * SLOTS * PAYS  # 9721
MAX_EXCHANGE_MOVES = 15
MAX_MINIMAL_COMBOS = 4992
MAX_OVERPAY_COMBOS = 16 * (1 << 15) - 16  # sum over k >= 2 of k * C(16, k)

# Move tuples: (k, frm, to, mode, top, rest_mask); frm -1 entering, to OFF bearing off;
# mode 0 no payment, 1 exchange (top card + rest), 2 show (top is the shown card).
Move = tuple[int, int, int, int, int, int]
_PASS_MOVE: Move = (-1, -1, -1, 0, -1, 0)
_PASS_LIST = [PASS]


def _codes(cards: list[int]) -> list[str]:
    return [card_code(c) for c in cards]


def _move_event(seat: int, k: int, frm: int, to: int, how: str) -> dict[str, Any]:
    """The event of a court card entering (``frm < 0``) or moving on the board."""
    return {
        "type": "enter" if frm < 0 else "move",
        "seat": seat,
        "card": card_code(COURT_IDS[k]),
        "from": None if frm < 0 else CELL_NAMES[frm],
        "to": CELL_NAMES[to],
        "how": how,
    }


def cards_of_mask(mask: int) -> list[int]:
    """The cards of ``mask``, highest id first (so ``pop()`` hands them out lowest first)."""
    out = []
    while mask:
        c = mask.bit_length() - 1
        out.append(c)
        mask ^= 1 << c
    return out


def _rehide(
    passcons: list[tuple[int, int, int, int]], hidden: list[int], new: list[int]
) -> list[tuple[int, int, int, int]]:
    """A world's record of unseen passes: each passing hand as it would have been with the world's
    hidden cards ``new`` in place of the real ones ``hidden`` (the cards hidden then and seen
    since stay; the inference, a bound on the hand's sum, is unchanged)."""
    return [
        (q, low, (hand & ~hidden[q]) | new[q], (then & ~hidden[q]) | new[q])
        for q, low, hand, then in passcons
    ]


def _canon_cards(mask: int) -> list[int]:
    out = cards_of(mask)
    out.sort(key=CANON.__getitem__)
    return out


_CANON_CACHE: dict[int, tuple[int, ...]] = {}


def _canon_tuple(mask: int) -> tuple[int, ...]:
    """``_canon_cards(mask)`` as a cached tuple: decoding combination moves sorts the same hands over
    and over (most of the cost of naming one overpay move)."""
    hit = _CANON_CACHE.get(mask)
    if hit is None:
        if len(_CANON_CACHE) > 100_000:
            _CANON_CACHE.clear()
        hit = _CANON_CACHE[mask] = tuple(_canon_cards(mask))
    return hit


# How often determinize found no redraw meeting what play revealed and used an unconstrained draw
# (watched by the tests; the real deal always qualifies, so this should stay 0).
FALLBACKS = [0]


def mask_value(mask: int) -> int:
    """The total value of the cards in a hand mask (Ace 1 … Ten 10)."""
    t = 0
    while mask:
        low = mask & -mask
        t += VALUE[low.bit_length() - 1]
        mask ^= low
    return t


def _combo_positions(values: tuple[int, ...], v: int, overpay: bool) -> tuple[tuple[int, int], ...]:
    """docs/rules/pentyrch.md, Moving, Exchange: the combinations of cards worth ``values`` (high to low) that
    pay for a pile worth ``v``, as (top position, mask of the other positions), in canonical order.

    Minimal (overpay=false): taking cards high to low, the last (lowest) card is the one that reaches
    v, so no card could be left out; nothing is added once v is reached. With overpay, any two or
    more cards adding up to v or more.
    """
    n = len(values)
    sets: list[list[int]] = []
    if overpay:
        suffix = [0] * (n + 1)
        for i in range(n - 1, -1, -1):
            suffix[i] = suffix[i + 1] + values[i]

        def every(start: int, chosen: list[int], total: int) -> None:
            for j in range(start, n):
                if total + suffix[j] < v:
                    return
                chosen.append(j)
                t = total + values[j]
                if t >= v and len(chosen) >= 2:
                    sets.append(chosen[:])
                every(j + 1, chosen, t)
                chosen.pop()

        every(0, [], 0)
    else:

        def minimal(start: int, chosen: list[int], total: int) -> None:
            for j in range(start, n):
                t = total + values[j]
                chosen.append(j)
                if t >= v:
                    if len(chosen) >= 2:
                        sets.append(chosen[:])
                else:
                    minimal(j + 1, chosen, t)
                chosen.pop()

        minimal(0, [], 0)
    out = []
    for chosen in sets:
        for top in chosen:
            rest = [i for i in chosen if i != top]
            out.append((top, rest))
    out.sort()
    return tuple((top, sum(1 << i for i in rest)) for top, rest in out)


def _payments(
    hand: int, v: int, always: bool, overpay: bool
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, int], ...]]:
    """docs/rules/pentyrch.md, Moving, Exchange: every payment ``hand`` may lay on a pile whose top is worth
    ``v``.

    Returns (single cards, cards that may be shown, combinations as (top card, rest mask)); a
    reference for tests and tools (play uses the cached tables of :class:`PentyrchGame`).
    """
    singles = tuple(c for c in _canon_cards(hand) if VALUE[c] >= v)
    shows = tuple(c for c in singles if VALUE[c] == v)
    combos: tuple[tuple[int, int], ...] = ()
    # docs/rules/pentyrch.md, Moving, Exchange (combine): several cards only when no single card will do,
    # unless combine=always. A minimal combination never holds a card worth v on its own.
    if always or not singles:
        cards = _canon_cards(hand if overpay else hand & ~GE[v])
        combos = tuple(
            (cards[t], sum(BIT[cards[i]] for i in range(len(cards)) if r >> i & 1))
            for t, r in _combo_positions(tuple(VALUE[c] for c in cards), v, overpay)
        )
    return singles, shows, combos


class PentyrchGame(Game):
    name = "pentyrch"
    title = "Pentyrch"
    rules_version = 1
    options_class = PentyrchOptions
    rulesets = RULESETS
    options: PentyrchOptions

    def __init__(self, options: PentyrchOptions) -> None:
        super().__init__(options)
        per_move = MAX_OVERPAY_COMBOS if options.overpay else MAX_MINIMAL_COMBOS
        self._num_actions = COMBO_BASE + MAX_EXCHANGE_MOVES * per_move
        self._overpay = options.overpay
        self._tables: dict[int, tuple[tuple[int, int], ...]] = {}
        # With overpay the payments are counted, never listed (combos.py): half a million for one
        # exchange would take seconds to list and tens of megabytes to keep.
        self._spaces: dict[int, OverpayPayments] = {}

    @property
    def num_players(self) -> int:
        return self.options.players

    @property
    def num_distinct_actions(self) -> int:
        return self._num_actions

    @property
    def observation_tensor_size(self) -> int:
        return OBS_SIZE

    def _combo_table(self, hand: int, v: int) -> tuple[int, tuple[tuple[int, int], ...]]:
        """The cards a combination may use (as a mask) and its positional table, cached by the
        value counts of those cards: suits change which cards, never the ways to combine them."""
        m = hand if self._overpay else hand & ~GE[v]
        key = (SIG[m & 8191] + SIG[m >> 13 & 8191] + SIG[m >> 26 & 8191] + SIG[m >> 39]) << 4 | v
        table = self._tables.get(key)
        if table is None:
            if mask_value(m) < v:
                table = ()
            else:
                table = _combo_positions(tuple(VALUE[c] for c in _canon_cards(m)), v, self._overpay)
            self._tables[key] = table
        return m, table

    def _overpay_payments(self, hand: int, v: int) -> OverpayPayments:
        """The overpay payments of ``hand`` on a pile worth ``v``, cached by the hand's value counts."""
        m = hand
        key = (SIG[m & 8191] + SIG[m >> 13 & 8191] + SIG[m >> 26 & 8191] + SIG[m >> 39]) << 4 | v
        space = self._spaces.get(key)
        if space is None:
            if len(self._spaces) > 20_000:
                self._spaces.clear()
            space = self._spaces[key] = OverpayPayments(tuple(VALUE[c] for c in _canon_cards(m)), v)
        return space

    def combo_count(self, hand: int, v: int) -> int:
        """How many combination payments ``hand`` has on a pile worth ``v``."""
        if self._overpay:
            return self._overpay_payments(hand, v).count
        return len(self._combo_table(hand, v)[1])

    def combo_at(self, hand: int, v: int, r: int) -> tuple[int, int]:
        """The ``r``-th combination payment (top card, rest mask) in canonical order."""
        if self._overpay:
            m = hand
            top, rest = self._overpay_payments(hand, v).unrank(r)
        else:
            m, table = self._combo_table(hand, v)
            top, rest = table[r]
        cards = _canon_tuple(m)
        mask = 0
        i = 0
        while rest:
            if rest & 1:
                mask |= BIT[cards[i]]
            rest >>= 1
            i += 1
        return cards[top], mask

    def combo_rank(self, hand: int, v: int, top: int, rest: int) -> int:
        """The rank of payment (``top`` card, ``rest`` mask of cards) among ``hand``'s combination
        payments on a pile worth ``v`` (as :meth:`combo_at` numbers them), or -1 if it is not one."""
        m = hand if self._overpay else hand & ~GE[v]
        if not rest or (rest | BIT[top]) & ~m or rest & BIT[top]:
            return -1
        cards = _canon_tuple(m)
        pos = {c: i for i, c in enumerate(cards)}
        t = pos[top]
        rm = 0
        for c in _canon_tuple(rest):
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
        names = [card_code(c) for c in _canon_cards(m)]
        if self._overpay:
            return self._overpay_payments(hand, v).walk(names)
        return [
            "+".join([names[t]] + [names[i] for i in range(len(names)) if r >> i & 1])
            for t, r in self._combo_table(hand, v)[1]
        ]

    def _new_state(self, seed: int, chance: Chance) -> PentyrchState:
        return PentyrchState(self, seed, chance)

    def bounds(self) -> tuple[float, float, int]:
        """docs/rules/pentyrch.md: winners +1, the others -w/(n - w): at worst -(n - 1); one move per
        seat per round, at most ``max_rounds`` rounds a game."""
        o = self.options
        n = self.num_players
        seats = 3 if o.players == 3 else 4
        worst = 1.0 if o.partners or n == 2 else float(n - 1)
        return -worst * o.games, 1.0 * o.games, o.max_rounds * seats * o.games

    def _make_kit(self) -> Kit:
        from gamester.games.pentyrch.kit import PentyrchKit

        return PentyrchKit(self)

    def parse_chance(self, entry: Any) -> int:
        return parse_card(entry)

    def format_chance(self, entry: Any) -> Any:
        return [card_code(c) for c in entry]


# Observation tensor layout (per observing player):
#   card places 40 x 29 (24 pile cells, own hand, known in each other hand (3, relative order),
#   unknown) | top of its pile 40 | pile heights 24 | court places 12 x 27 (25 cells, off, safe)
#   | court stack level 12 x 3 | unknown counts of the other hands 3 | set-aside 1
#   | seat to move 4 | my seats 4 | seats finished 4 | owner of each seat, relative 16
#   | round, moved this round, finish pending, game of match 4 | scores, relative 4
_PLACES = 29
_O_TOP = 40 * _PLACES
_O_HEIGHT = _O_TOP + 40
_O_COURT = _O_HEIGHT + 24
_O_LEVEL = _O_COURT + 12 * 27
_O_COUNTS = _O_LEVEL + 12 * 3
_O_SEATS = _O_COUNTS + 4
_O_SCALARS = _O_SEATS + 28
OBS_SIZE = _O_SCALARS + 8
_PILE_SLOT = {c: i for i, c in enumerate(PILE_CELLS)}


class PentyrchState(State):
    game: PentyrchGame
    __slots__ = (
        "_n",
        "_always",
        "_overpay",
        "_show",
        "_reveal",
        "_cover_any",
        "_max_rounds",
        "_games",
        "_partners",
        "_g",
        "_owner",
        "_dealer",
        "_unit",
        "_unit_seats",
        "_piles",
        "_stacks",
        "_cpos",
        "_hands",
        "_hidden",
        "_dealt",
        "_setaside",
        "_seat",
        "_round",
        "_moved",
        "_finished",
        "_over",
        "_game_over",
        "_hist",
        "_events",
        "_legal",
        "_combos",
        "_total_scores",
        "_total_returns",
        "_caps",
        "_passcons",
        "_results",
        "_past_games",
    )

    def __init__(self, game: PentyrchGame, seed: int, chance: Chance, *, _blank: bool = False) -> None:
        self.game = game
        self.seed = seed
        self.chance = chance
        if _blank:
            return
        o = game.options
        self._n = o.players
        self._always = o.combine == "always"
        self._overpay = o.overpay
        self._show = o.show
        self._reveal = o.reveal_on_pass
        self._cover_any = o.cover_any_direction
        self._max_rounds = o.max_rounds
        self._games = o.games
        self._partners = o.partners
        self._hist: list[Move] = []
        self._events: list[tuple[Any, ...]] = []
        self._total_scores = [0] * self._n
        self._total_returns = [0.0] * self._n
        self._results: list[dict[str, Any]] = []
        # What each finished game of a match left hidden (determinize redraws it): see _end_game.
        self._past_games: tuple[tuple[Any, ...], ...] = ()
        self._over = False
        self._g = 0
        self._start_game()

    # -- setting up ----------------------------------------------------------------------------
    def _start_game(self) -> None:
        n = self._n
        g = self._g
        # docs/rules/pentyrch.md, Seats, court cards and hands; The end (games): in game g player p sits at
        # seat (p - g) mod n; with two players the colours swap each game.
        if n == 2:
            self._owner = [(s % 2 + g) % 2 for s in range(4)]
        elif n == 3:
            self._owner = [(s + g) % 3 for s in range(3)] + [-1]
        else:
            self._owner = [(s + g) % 4 for s in range(4)]
        # docs/rules/pentyrch.md, Seats, court cards and hands: South deals (East with three players); a round
        # runs from West to the dealer.
        self._dealer = 2 if n == 3 else 3
        # docs/rules/pentyrch.md, The end: what finishes is a seat, a two-player player's two seats, or a
        # team.
        self._unit_seats: list[tuple[int, ...]]
        if n == 2 or self._partners:
            self._unit = [0, 1, 0, 1]
            self._unit_seats = [(0, 2), (1, 3)]
        elif n == 3:
            self._unit = [0, 1, 2, -1]
            self._unit_seats = [(0,), (1,), (2,)]
        else:
            self._unit = [0, 1, 2, 3]
            self._unit_seats = [(0,), (1,), (2,), (3,)]
        parse = self.game.parse_chance
        # Chance in the order used (docs/records.md): the layout pack (24), then the hand pack (16).
        layout = self.chance.pack(LAYOUT_CARDS, parse)
        deal = self.chance.pack(HAND_CARDS, parse)
        # docs/rules/pentyrch.md, The board: top first, row by row from d7, skipping d4.
        piles: list[list[int]] = [[] for _ in range(NUM_CELLS)]
        for i, c in enumerate(layout):
            piles[layout_cell(i)].append(c)
        self._piles = piles
        self._stacks: list[list[int]] = [[] for _ in range(NUM_CELLS)]
        self._cpos = [-1] * 12
        if n == 3:  # South's court cards never play
            for k in (9, 10, 11):
                self._cpos[k] = -2
        # docs/rules/pentyrch.md, Seats, court cards and hands: one at a time from the dealer's left; with
        # three the last card is set aside face down.
        hands = [0] * n
        self._setaside = -1
        owner = self._owner
        for i, c in enumerate(deal):
            if n == 3 and i == 15:
                self._setaside = c
            else:
                hands[owner[i % n]] |= BIT[c]
        self._hands = hands
        self._hidden = hands[:]
        self._dealt = hands[:]
        self._seat = 0
        self._round = 0
        self._moved = False
        self._finished: list[int] = []
        self._game_over = False
        self._caps = [11] * n
        self._passcons: list[tuple[int, int, int, int]] = []
        self._legal: list[int] | None = None
        self._combos: list[tuple[int, int, int, int, int, int]] | None = None
        self._events.append(("new_game", g))

    # -- protocol ------------------------------------------------------------------------------
    def current_player(self) -> int:
        return TERMINAL if self._over else self._owner[self._seat]

    def current_seat(self) -> int:
        """The seat to move (0 West … 3 South), or -1 once the game is over."""
        return -1 if self._over else self._seat

    def is_terminal(self) -> bool:
        return self._over

    def _generate(self) -> None:
        """docs/rules/pentyrch.md, Moving: every legal move of the seat to move, as sorted dense actions.

        Moves paid with nothing, one card or a shown card are decoded from their action arithmetically
        (:meth:`_decode`); for combination moves ``_combos`` keeps each exchange's count, in rank
        order, and the payments themselves are listed only when one is decoded.
        """
        seat = self._seat
        acts: list[int] = []
        add = acts.append
        extend = acts.extend
        combos: list[tuple[int, int, int, int, int, int]] = []
        ncombos = 0
        hand = self._hands[self._owner[seat]]
        cpos = self._cpos
        stacks = self._stacks
        piles = self._piles
        count = self.game.combo_count
        show = self._show
        always = self._always
        codes_of = _codes_of
        cover_any = self._cover_any
        home_ok = HOME_OK[seat]
        steps = STEPS[seat]
        k0 = seat * 3
        for k in range(k0, k0 + 3):
            p = cpos[k]
            if p == SAFE:
                continue
            rk = k - k0
            base = 1 + k * (SLOTS * PAYS)
            if p < 0:
                # docs/rules/pentyrch.md, Moving (2): enter on the home cell, by exchange or by covering.
                h = HOME[seat]
                st = stacks[h]
                a = base + ENTER_SLOT * PAYS
                if st:
                    if len(st) < 3 and rk > st[-1] % 3:
                        add(a)
                elif hand:
                    pile = piles[h]
                    v = VALUE[pile[-1]]
                    sm = hand & GE[v]
                    if sm:
                        extend(map(a.__add__, codes_of(sm)))
                    if show and len(pile) == 1 and hand & EQ[v]:
                        extend(map((a + 40).__add__, codes_of(hand & EQ[v])))
                    if always or not sm:
                        n = count(hand, v)
                        if n:
                            combos.append((k, -1, h, hand, v, n))
                            ncombos += n
                continue
            if stacks[p][-1] != k:
                continue  # docs/rules/pentyrch.md, Moving, Stacks: only the top card may move
            for d, t, fwd in steps[p]:
                st = stacks[t]
                if st:
                    # docs/rules/pentyrch.md, Moving, Stacks: at most three; K over Q or J, Q over J; reversed
                    # on the free space. Covering may go backward with cover_any_direction.
                    if len(st) < 3 and (fwd or cover_any) and home_ok[t]:
                        top_rank = st[-1] % 3
                        if (rk < top_rank) if t == FREE else (rk > top_rank):
                            add(base + d * PAYS)
                elif not fwd or not home_ok[t]:
                    continue
                elif t == FREE:
                    add(base + d * PAYS)
                elif hand:
                    # The exchange rule again, as for entering above: kept inline because a shared
                    # helper costs ~9% of playout speed (measured), and this is the hot loop.
                    pile = piles[t]
                    a = base + d * PAYS
                    v = VALUE[pile[-1]]
                    sm = hand & GE[v]
                    if sm:
                        extend(map(a.__add__, codes_of(sm)))
                    if show and len(pile) == 1 and hand & EQ[v]:
                        extend(map((a + 40).__add__, codes_of(hand & EQ[v])))
                    if always or not sm:
                        n = count(hand, v)
                        if n:
                            combos.append((k, p, t, hand, v, n))
                            ncombos += n
            if p == GOAL[seat]:
                # docs/rules/pentyrch.md, Moving (1): bear off from the goal cell.
                add(base + OFF_SLOT * PAYS)
        if combos:
            acts.extend(range(COMBO_BASE, COMBO_BASE + ncombos))
        elif not acts:
            # docs/rules/pentyrch.md, Moving: no legal move, so pass.
            acts = _PASS_LIST
        self._legal = acts
        self._combos = combos

    def _decode(self, action: int) -> Move:
        """The move of a legal action (see :meth:`_generate`)."""
        if action == PASS:
            return _PASS_MOVE
        if action >= COMBO_BASE:
            r = action - COMBO_BASE
            for k, frm, to, hand, v, n in self._combos:  # type: ignore[union-attr]
                if r < n:
                    top, rest = self.game.combo_at(hand, v, r)
                    return (k, frm, to, 1, top, rest)
                r -= n
            raise IllegalActionError(self._why_illegal(action))
        slot, code = divmod(action - 1, PAYS)
        k, d = divmod(slot, SLOTS)
        frm = self._cpos[k]
        if d == OFF_SLOT:
            to = OFF
        elif d == ENTER_SLOT:
            to = HOME[k // 3]
        else:
            to = NEIGH[frm][d]
        if code == 0:
            return (k, frm, to, 0, -1, 0)
        if code < SHOW_CODE:
            return (k, frm, to, 1, NONCOURT[code - 1], 0)
        return (k, frm, to, 2, NONCOURT[code - SHOW_CODE], 0)

    def legal_actions(self) -> list[int]:
        if self._over:
            return []
        if self._legal is None:
            self._generate()
        return list(self._legal)  # type: ignore[arg-type]

    def apply_action(self, action: int) -> None:
        if self._over:
            raise IllegalActionError(self._why_illegal(action))
        legal = self._legal
        if legal is None:
            self._generate()
            legal = self._legal
        if action.__class__ is not int:
            raise IllegalActionError(self._why_illegal(action))
        assert legal is not None
        i = bisect_left(legal, action)
        if i == len(legal) or legal[i] != action:
            raise IllegalActionError(self._why_illegal(action))
        m = self._decode(action)
        self._events = []
        self._legal = None
        self._combos = None
        self._hist.append(m)
        seat = self._seat
        if m[0] < 0:
            self._pass(seat)
        else:
            self._move(seat, m)
        self._advance()

    def _move(self, seat: int, m: Move) -> None:
        k, frm, to, mode, top, rest = m
        stacks = self._stacks
        self._moved = True
        if frm >= 0:
            stacks[frm].pop()
        if to == OFF:
            # docs/rules/pentyrch.md, Moving (1): the court card goes to safety.
            self._cpos[k] = SAFE
            self._events.append(("bear_off", seat, k, frm))
            self._check_finished(seat)
            return
        if mode == 1:
            # docs/rules/pentyrch.md, Moving, Exchange: the whole pile goes to the hand; the payment comes
            # from the hand as it was before, the chosen card on top.
            p = self._owner[seat]
            pile = self._piles[to]
            taken = 0
            for c in pile:
                taken |= BIT[c]
            laid = rest | BIT[top]
            self._hands[p] = (self._hands[p] & ~laid) | taken
            self._hidden[p] &= ~laid
            if rest:
                new = _canon_cards(rest)
                new.reverse()
                new.append(top)
            else:
                new = [top]
            self._piles[to] = new
            self._events.append(("exchange", seat, k, frm, to, pile, top, rest))
            if not self._always and rest:
                # The others now know no card of this hand reached the pile's value (determinize).
                v = VALUE[pile[-1]]
                if v < self._caps[p]:
                    self._caps[p] = v
        elif mode == 2:
            # docs/rules/pentyrch.md, Moving, Showing: no card changes hands; the shown card is public.
            p = self._owner[seat]
            self._hidden[p] &= ~BIT[top]
            self._events.append(("show", seat, k, frm, to, top))
        else:
            self._events.append(("step", seat, k, frm, to, len(stacks[to])))
        stacks[to].append(k)
        self._cpos[k] = to

    def _pass(self, seat: int) -> None:
        p = self._owner[seat]
        cpos = self._cpos
        k0 = seat * 3
        all_safe = cpos[k0] == SAFE and cpos[k0 + 1] == SAFE and cpos[k0 + 2] == SAFE
        if all_safe:
            # docs/rules/pentyrch.md, Moving: a seat with all its cards in safety simply passes.
            self._events.append(("pass", seat, None, True))
            return
        if self._reveal:
            # docs/rules/pentyrch.md, Moving (reveal_on_pass): the hand is shown to all.
            self._hidden[p] = 0
            self._events.append(("pass", seat, self._hands[p], False))
            return
        self._events.append(("pass", seat, None, False))
        # The others learn that the hand could pay for none of the piles it could step onto.
        low = self._exchange_floor(seat)
        if low <= 10 and self._hidden[p]:
            self._passcons.append((p, low, self._hands[p], self._hidden[p]))

    def _exchange_floor(self, seat: int) -> int:
        """The lowest top value among the piles this seat could reach by exchange (11 if none)."""
        low = 11
        stacks = self._stacks
        for k in range(seat * 3, seat * 3 + 3):
            p = self._cpos[k]
            if p == SAFE or p == -2:
                continue
            if p < 0:
                h = HOME[seat]
                if not stacks[h]:
                    low = min(low, VALUE[self._piles[h][-1]])
                continue
            if stacks[p][-1] != k:
                continue
            for _d, t, fwd in STEPS[seat][p]:
                if fwd and t != FREE and not stacks[t] and HOME_OK[seat][t]:
                    low = min(low, VALUE[self._piles[t][-1]])
        return low

    def _unit_done(self, unit: int) -> bool:
        cpos = self._cpos
        for s in self._unit_seats[unit]:
            for k in range(s * 3, s * 3 + 3):
                if cpos[k] != SAFE:
                    return False
        return True

    def _check_finished(self, seat: int) -> None:
        # docs/rules/pentyrch.md, The end: all the unit's court cards in safety: finished, no more turns.
        u = self._unit[seat]
        if u not in self._finished and self._unit_done(u):
            self._finished.append(u)
            self._events.append(("finished", u))

    def _advance(self) -> None:
        s = self._seat
        dealer = self._dealer
        unit = self._unit
        finished = self._finished
        while True:
            if s == dealer:
                if self._end_of_round():
                    return
                s = 0
            else:
                s += 1
            if not finished or unit[s] not in finished:
                self._seat = s
                return

    def _end_of_round(self) -> bool:
        """docs/rules/pentyrch.md, The end: what happens after the dealer's turn. True if a game ended."""
        self._round += 1
        if self._finished:
            self._end_game("finished")
            return True
        if not self._moved:
            self._end_game("blocked")
            return True
        if self._round >= self._max_rounds:
            self._end_game("max_rounds")
            return True
        self._moved = False
        return False

    def _unit_players(self, u: int) -> list[int]:
        return sorted({self._owner[s] for s in self._unit_seats[u]})

    def _game_points(self) -> list[int]:
        """docs/rules/pentyrch.md, The end: Jack 3, Queen 2, King 1 per card in safety, per player."""
        pts = [0] * self._n
        owner = self._owner
        for k in range(12):
            if self._cpos[k] == SAFE:
                pts[owner[k // 3]] += POINTS[k % 3]
        return pts

    def _end_game(self, reason: str) -> None:
        n = self._n
        units = range(len(self._unit_seats))
        if reason == "finished":
            # Everyone finished by the end of the round wins.
            win_units = list(self._finished)
        else:
            # Most court cards in safety, then points; a tie at the top shares it.
            def merit(u: int) -> tuple[int, int]:
                count = pts = 0
                for s in self._unit_seats[u]:
                    for k in range(s * 3, s * 3 + 3):
                        if self._cpos[k] == SAFE:
                            count += 1
                            pts += POINTS[k % 3]
                return count, pts

            best = max(merit(u) for u in units)
            win_units = [u for u in units if merit(u) == best]
        winners = sorted({p for u in win_units for p in self._unit_players(u)})
        w = len(winners)
        # docs/rules/pentyrch.md, The end: w winners +1 each, the others -w/(n-w); all tied gives 0.
        tied = w == 0 or w == n
        rets = [0.0 if tied else 1.0 if p in winners else -w / (n - w) for p in range(n)]
        pts = self._game_points()
        for p in range(n):
            self._total_scores[p] += pts[p]
            self._total_returns[p] += rets[p]
        self._results.append(
            {
                "game": self._g,
                "reason": reason,
                "winners": winners if w < n else [],
                "returns": rets,
                "scores": pts,
            }
        )
        self._events.append(("game_over", self._g, reason, winners if w < n else [], rets))
        if self._g + 1 < self._games:
            self._past_games += (
                (
                    self._owner,
                    self._dealt[:],
                    self._hidden[:],
                    self._caps[:],
                    self._passcons[:],
                    self._setaside,
                ),
            )
            # docs/rules/pentyrch.md, The end (games): the next game of the match, seats rotated.
            self._g += 1
            self._start_game()
        else:
            self._over = True
            self._game_over = True

    def returns(self) -> list[float]:
        if not self._over:
            return [0.0] * self._n
        return list(self._total_returns)

    def scores(self) -> list[int]:
        if self._over:
            return list(self._total_scores)
        pts = self._game_points()
        return [a + b for a, b in zip(self._total_scores, pts, strict=True)]

    def clone(self) -> PentyrchState:
        s = PentyrchState(self.game, self.seed, self.chance.copy(), _blank=True)
        s._n = self._n
        s._always = self._always
        s._overpay = self._overpay
        s._show = self._show
        s._reveal = self._reveal
        s._cover_any = self._cover_any
        s._max_rounds = self._max_rounds
        s._games = self._games
        s._partners = self._partners
        s._g = self._g
        s._owner = self._owner
        s._dealer = self._dealer
        s._unit = self._unit
        s._unit_seats = self._unit_seats
        s._piles = [p[:] for p in self._piles]
        s._stacks = [p[:] for p in self._stacks]
        s._cpos = self._cpos[:]
        s._hands = self._hands[:]
        s._hidden = self._hidden[:]
        s._dealt = self._dealt[:]
        s._setaside = self._setaside
        s._seat = self._seat
        s._round = self._round
        s._moved = self._moved
        s._finished = self._finished[:]
        s._over = self._over
        s._game_over = self._game_over
        s._hist = self._hist[:]
        s._events = self._events[:]
        s._legal = self._legal
        s._combos = self._combos
        s._total_scores = self._total_scores[:]
        s._total_returns = self._total_returns[:]
        s._caps = self._caps[:]
        s._passcons = self._passcons[:]
        s._results = [dict(r) for r in self._results]
        s._past_games = self._past_games
        return s

    # -- notation ------------------------------------------------------------------------------
    @staticmethod
    def format_move(m: Move) -> str:
        """docs/rules/pentyrch.md, Notation, canonical form."""
        k, frm, to, mode, top, rest = m
        if k < 0:
            return "pass"
        court = card_code(COURT_IDS[k])
        if to == OFF:
            return f"{court} off"
        where = f"@{CELL_NAMES[to]}" if frm < 0 else f"{CELL_NAMES[frm]}-{CELL_NAMES[to]}"
        if mode == 0:
            return f"{court} {where}"
        if mode == 2:
            return f"{court} {where} ={card_code(top)}"
        pay = "+".join([card_code(top)] + [card_code(c) for c in _canon_tuple(rest)])
        return f"{court} {where} {pay}"

    def _current_moves(self) -> dict[int, Move]:
        """Every legal action with its move (for tools; notation and messages never list them all:
        a position may have hundreds of thousands with overpay)."""
        if self._legal is None:
            self._generate()
        return {a: self._decode(a) for a in self._legal}  # type: ignore[union-attr]

    def _is_legal(self, action: int) -> bool:
        if self._over:
            return False
        if self._legal is None:
            self._generate()
        legal = self._legal
        assert legal is not None
        i = bisect_left(legal, action)
        return i < len(legal) and legal[i] == action

    def _combo_action(self, k: int, to: int, top: int, rest: int) -> int:
        """The action of combination payment (``top``, ``rest``) for court card ``k`` moving to
        ``to``, or -1 if it is not legal here: ranked by counting, without listing the others."""
        if self._over:
            return -1
        if self._legal is None:
            self._generate()
        offset = 0
        for kk, _frm, tt, hand, v, n in self._combos:  # type: ignore[union-attr]
            if kk == k and tt == to:
                r = self.game.combo_rank(hand, v, top, rest)
                return COMBO_BASE + offset + r if r >= 0 else -1
            offset += n
        return -1

    def legal_action_strings(self) -> list[str]:
        """The notation of every legal action, in action order: one pass over each exchange's
        combinations (``action_to_string`` on each would rank them one by one)."""
        if self._over:
            return []
        legal = self.legal_actions()
        out = [self.format_move(self._decode(a)) for a in legal if a < COMBO_BASE]
        for k, frm, to, hand, v, _n in self._combos:  # type: ignore[union-attr]
            head = self.format_move((k, frm, to, 0, -1, 0)) + " "
            out.extend([head + pay for pay in self.game.combo_payments(hand, v)])
        return out

    def action_to_string(self, action: int) -> str:
        if action.__class__ is not int or not 0 <= action < self.game.num_distinct_actions:
            raise InvalidActionError(
                f"{quote(action)} is not a Pentyrch action (0-{self.game.num_distinct_actions - 1})"
            )
        if action == PASS:
            return "pass"
        if self._is_legal(action):
            return self.format_move(self._decode(action))
        if action >= COMBO_BASE:
            return f"<combination #{action - COMBO_BASE}, not legal here>"
        slot, code = divmod(action - 1, PAYS)
        k, d = divmod(slot, SLOTS)
        court = card_code(COURT_IDS[k])
        pay = (
            ""
            if code == 0
            else (
                f" {card_code(NONCOURT[code - 1])}"
                if code < SHOW_CODE
                else f" ={card_code(NONCOURT[code - SHOW_CODE])}"
            )
        )
        if d == OFF_SLOT:
            return f"{court} off{pay}"
        if d == ENTER_SLOT:
            return f"{court} @{CELL_NAMES[HOME[k // 3]]}{pay}"
        p = self._cpos[k]
        if 0 <= p < NUM_CELLS and neighbour(p, d) >= 0:
            return f"{court} {CELL_NAMES[p]}-{CELL_NAMES[neighbour(p, d)]}{pay}"
        return f"{court} step {DIR_NAMES[d]}{pay}"

    def string_to_action(self, text: str) -> int:
        if not isinstance(text, str):
            raise InvalidActionError(
                f"{quote(text)} is not a Pentyrch action: write e.g. 'JH a4-b4 9C', "
                f"'QH @a4', 'JH off' or 'pass'"
            )
        parts = text.split()
        if len(parts) == 1 and parts[0].lower() == "pass":
            return PASS
        if len(parts) < 2 or len(parts) > 3:
            raise InvalidActionError(
                f"{quote(text)} is not a Pentyrch action: write a court card, where it goes and the "
                f"payment, e.g. 'JH a4-b4 9C', 'JH a4-b4 3S+5D', 'QH @a4 =6C', 'JH c4-d4', 'JH off' "
                f"or 'pass' (rules/pentyrch.md, Action notation)"
            )
        card = parse_card(parts[0])
        k = COURT_OF_CARD.get(card, -1)
        if k < 0 or (self._n == 3 and k >= 9):
            raise InvalidActionError(
                f"{quote(text)}: {quote(parts[0])} is not a court card in this game "
                f"(J, Q or K of a playing seat's suit)"
            )
        where = parts[1].lower()
        pay = parts[2] if len(parts) == 3 else ""
        seat = k // 3
        if where == "off":
            if pay:
                raise InvalidActionError(f"{quote(text)}: bearing off takes no payment")
            return 1 + (k * SLOTS + OFF_SLOT) * PAYS
        if where.startswith("@"):
            to = parse_cell(where[1:])
            if to < 0:
                raise InvalidActionError(f"{quote(text)}: {quote(where[1:])} is not a cell (a4, d7, …)")
            if to != HOME[seat]:
                raise IllegalActionError(
                    f"{quote(text)} is not legal: {parts[0]} enters only on {SEAT_NAMES[seat]}'s home cell "
                    f"{CELL_NAMES[HOME[seat]]} (rules/pentyrch.md, A turn (2); {self._where()})"
                )
            frm, d = -1, ENTER_SLOT
        else:
            a, sep, b = where.partition("-")
            frm, to = parse_cell(a), parse_cell(b)
            if not sep or frm < 0 or to < 0:
                raise InvalidActionError(
                    f"{quote(text)}: {quote(where)} is not a step: write from-to cells, e.g. a4-b4"
                )
            d = DIR_BETWEEN[frm][to]
            if d < 0:
                raise IllegalActionError(
                    f"{quote(text)} is not legal: {CELL_NAMES[frm]} and {CELL_NAMES[to]} are not adjacent; a "
                    f"step goes to a neighbouring cell (rules/pentyrch.md, Directions; {self._where()})"
                )
        pos = self._cpos[k]
        if frm != pos and not self._over:
            now = "off the board" if pos == -1 else "in safety" if pos == SAFE else f"on {CELL_NAMES[pos]}"
            raise IllegalActionError(
                f"{quote(text)} is not legal: {parts[0]} is {now}, not "
                f"{'off the board' if frm < 0 else 'on ' + CELL_NAMES[frm]} "
                f"(rules/pentyrch.md, A turn; {self._where()})"
            )
        base = 1 + (k * SLOTS + d) * PAYS
        if not pay:
            return base
        if pay.startswith("="):
            c = parse_card(pay[1:])
            if IDX40[c] < 0:
                raise InvalidActionError(f"{quote(text)}: a court card cannot pay")
            return base + SHOW_CODE + IDX40[c]
        cards = [parse_card(x) for x in pay.split("+")]
        if any(IDX40[c] < 0 for c in cards) or len(set(cards)) != len(cards):
            raise InvalidActionError(f"{quote(text)}: a payment lists distinct non-court cards, top first")
        if len(cards) == 1:
            return base + 1 + IDX40[cards[0]]
        top = cards[0]
        rest = 0
        for c in cards[1:]:
            rest |= BIT[c]
        act = self._combo_action(k, to, top, rest)
        if act >= 0:
            return act
        raise IllegalActionError(self._why_illegal_parts(text, k, frm, to, 1, top, rest))

    def action_seen_by(self, action: int, viewer: int | None) -> str:
        """docs/rules/pentyrch.md, What each player knows: a move's notation is public once it is made (the
        cards it lays go on the pile), so a legal move reads the same to everyone; what an action
        id would name in a position where it is not legal is told to the mover alone, since a
        combination id is decoded against the mover's hand."""
        if viewer is not None and not self._over and viewer == self._owner[self._seat]:
            return self.action_to_string(action)
        if action.__class__ is int and (action == PASS or self._is_legal(action)):
            return self.action_to_string(action)
        return "an illegal move"

    def history_strings(self) -> list[str]:
        fmt = self.format_move
        return [fmt(m) for m in self._hist]

    # -- why a move is illegal -----------------------------------------------------------------
    def _where(self) -> str:
        if self._over:
            return f"the match is over, scores {self._total_scores}"
        seat = self._seat
        courts = []
        for k in range(seat * 3, seat * 3 + 3):
            p = self._cpos[k]
            courts.append(
                card_code(COURT_IDS[k]) + ":" + ("off" if p == -1 else "safe" if p == SAFE else CELL_NAMES[p])
            )
        # The hand's size only: messages reach whoever typed the move, not always its owner.
        size = self._hands[self._owner[seat]].bit_count()
        g = f"game {self._g + 1} of {self._games}, " if self._games > 1 else ""
        return (
            f"{g}round {self._round + 1}, {SEAT_NAMES[seat]} (player {self._owner[seat]}) to move, "
            f"{' '.join(courts)}, {size} cards in hand"
        )

    def _why_illegal(self, action: object) -> str:
        if self._over:
            return f"{quote(action)} is not legal: the game is over ({self._where()})"
        if not isinstance(action, int) or not 0 <= action < self.game.num_distinct_actions:
            return (
                f"{quote(action)} is not a Pentyrch action (0-{self.game.num_distinct_actions - 1}) "
                f"({self._where()})"
            )
        a = action
        text = self.action_to_string(a)
        legal = self.legal_actions()
        if a == PASS:
            return (
                f"'pass' is not legal: {SEAT_NAMES[self._seat]} has {len(legal)} legal move(s) and "
                f"must move (rules/pentyrch.md, A turn: you must move if any move is legal; "
                f"{self._where()})"
            )
        if a >= COMBO_BASE:
            return (
                f"{text}: there are only {sum(1 for x in legal if x >= COMBO_BASE)} combination "
                f"payments here (rules/pentyrch.md, Exchange; {self._where()})"
            )
        slot, code = divmod(a - 1, PAYS)
        k, d = divmod(slot, SLOTS)
        pos = self._cpos[k]
        if d == OFF_SLOT:
            to, frm = OFF, pos
        elif d == ENTER_SLOT:
            to, frm = HOME[k // 3], -1
        else:
            frm = pos
            to = neighbour(pos, d) if 0 <= pos < NUM_CELLS else -1
        mode = 0 if code == 0 else (1 if code < SHOW_CODE else 2)
        top = -1 if code == 0 else NONCOURT[(code - 1) % 40]
        return self._why_illegal_parts(text, k, frm, to, mode, top, 0)

    def _why_illegal_parts(self, text: str, k: int, frm: int, to: int, mode: int, top: int, rest: int) -> str:
        """The rule a move breaks, in words: the action, the rule and the position."""
        rule, why = self._reason(k, frm, to, mode, top, rest)
        return f"{quote(text)} is not legal: {why} (rules/pentyrch.md, {rule}; {self._where()})"

    def _reason(self, k: int, frm: int, to: int, mode: int, top: int, rest: int) -> tuple[str, str]:
        seat = self._seat
        court = card_code(COURT_IDS[k])
        if k // 3 != seat:
            return "A turn", f"it is {SEAT_NAMES[seat]}'s turn and {court} is not one of its court cards"
        pos = self._cpos[k]
        if pos == SAFE:
            return "A turn", f"{court} is already in safety"
        if to == OFF:
            if pos != GOAL[seat]:
                return "A turn (1)", f"{court} bears off only from its goal {CELL_NAMES[GOAL[seat]]}"
            return "Stacks", f"{court} is covered and only the top card may move"
        if frm < 0 and pos >= 0:
            return "A turn (2)", f"{court} is already on the board, on {CELL_NAMES[pos]}"
        if frm >= 0 and pos < 0:
            return "A turn (2)", f"{court} is off the board and must first enter on its home cell"
        if to < 0:
            return "Directions", f"{court} would leave the board"
        if frm >= 0 and self._stacks[frm][-1] != k:
            return "Stacks", f"{court} is covered on {CELL_NAMES[frm]}; only the top card may move"
        if not HOME_OK[seat][to]:
            return "Directions", (
                f"{CELL_NAMES[to]} is a home cell that only its owner and the seat "
                f"whose goal it is may stand on"
            )
        fwd = frm < 0 or any(t == to and f for _d, t, f in STEPS[seat][frm])
        st = self._stacks[to]
        if st:
            if mode:
                return "A turn (3)", f"{CELL_NAMES[to]} holds court cards, so it is covered, not paid for"
            if not fwd and not self._cover_any:
                return "Directions", "a step never goes backward (cover_any_direction=false)"
            if len(st) >= 3:
                return "Stacks", f"the stack on {CELL_NAMES[to]} already holds three court cards"
            under = COURT_RANK_NAMES[st[-1] % 3]
            order = (
                "on the free space a Jack covers a Queen or King and a Queen a King"
                if to == FREE
                else "a King covers a Queen or Jack and a Queen a Jack"
            )
            return "Stacks", f"a {COURT_RANK_NAMES[k % 3]} may not cover a {under}: {order}"
        if not fwd:
            return "Directions", "a step goes forward, diagonally forward or sideways, never backward"
        if to == FREE:
            return "A turn (3)", "the empty free space is entered free of charge, with no payment"
        if mode == 0:
            return "Exchange", f"a step onto {CELL_NAMES[to]} needs a payment (no court card is there)"
        hand = self._hands[self._owner[seat]]
        pile = self._piles[to]
        v = VALUE[pile[-1]]
        laid = rest | BIT[top]
        if laid & ~hand:
            # Not which card: the message may reach a seat other than the hand's owner.
            return "Exchange", "the payment must come from the mover's hand: a card named is not in it"
        if mode == 2:
            if not self._show:
                return "Exchange (show)", "showing is not allowed (show=false)"
            if len(pile) != 1:
                return (
                    "Exchange (show)",
                    f"the pile on {CELL_NAMES[to]} has {len(pile)} cards; only a "
                    f"single card may be matched by showing",
                )
            return "Exchange (show)", f"the shown card must equal the pile's value {v}"
        if not rest:
            return "Exchange", f"a single card must be worth at least the pile's top value {v}"
        total = mask_value(laid)
        if total < v:
            return "Exchange", f"the cards add up to {total}, less than the pile's top value {v}"
        if not self._always and any(VALUE[c] >= v for c in _canon_cards(hand)):
            return "Exchange (combine=when_needed)", "a single card would do, so no combination is allowed"
        return "Exchange (overpay=false)", "a card of the combination could be left out"

    # -- information ---------------------------------------------------------------------------
    def _seat_of_player(self, p: int) -> list[int]:
        return [s for s in range(4) if self._owner[s] == p]

    def observation(self, player: int) -> dict[str, Any]:
        """docs/rules/pentyrch.md, What each player knows: the board, every pile, cards that changed hands at
        exchanges, shown hands and cards; never the unplayed dealt cards of others or the set-aside."""
        self.check_player(player)
        return self._view(player)

    def public_observation(self) -> dict[str, Any]:
        """What a spectator knows: the board and the cards of every hand seen so far, no hand at all
        (``player`` None, ``my_seats`` empty)."""
        return self._view(None)

    def _view(self, player: int | None) -> dict[str, Any]:
        """The one view function: the public part, then (for a player) that player's own hand."""
        n = self._n
        board = {
            CELL_NAMES[c]: {
                "pile": _codes(self._piles[c]),
                "stack": [card_code(COURT_IDS[k]) for k in self._stacks[c]],
            }
            for c in range(NUM_CELLS)
        }
        hands = []
        for q in range(n):
            if q == player:
                hands.append({"player": q, "known": _codes(_canon_cards(self._hands[q])), "unknown": 0})
            else:
                hidden = self._hidden[q]
                hands.append(
                    {
                        "player": q,
                        "known": _codes(_canon_cards(self._hands[q] & ~hidden)),
                        "unknown": hidden.bit_count(),
                    }
                )
        seats = [s for s in range(4) if self._owner[s] >= 0]
        view: dict[str, Any] = {
            "game": "pentyrch",
            "player": player,
            "players": n,
            "my_seats": [] if player is None else self._seat_of_player(player),
            "owners": [None if self._owner[s] < 0 else self._owner[s] for s in range(4)],
            "match_game": self._g,
            "games": self._games,
            "round": self._round,
            "max_rounds": self._max_rounds,
            "dealer": self._dealer,
            "seat_to_move": None if self._over else self._seat,
            "current_player": None if self._over else self._owner[self._seat],
            "board": board,
            "off_board": {
                SEAT_NAMES[s]: [
                    card_code(COURT_IDS[k]) for k in range(s * 3, s * 3 + 3) if self._cpos[k] == -1
                ]
                for s in seats
            },
            "safe": {
                SEAT_NAMES[s]: [
                    card_code(COURT_IDS[k]) for k in range(s * 3, s * 3 + 3) if self._cpos[k] == SAFE
                ]
                for s in seats
            },
            "hands": hands,
            "set_aside": 1 if self._setaside >= 0 else 0,
            "moved_this_round": self._moved,
            "finished": [list(self._unit_seats[u]) for u in self._finished],
            "scores": self.scores(),
            "results": [dict(r) for r in self._results],
        }
        if player is not None:
            view["hand"] = _codes(_canon_cards(self._hands[player]))
        return view

    def observation_tensor(self, player: int) -> list[float]:
        """The observation as numbers (layout at ``OBS_SIZE``), for learning agents."""
        self.check_player(player)
        n = self._n
        t = [0.0] * OBS_SIZE
        for c, pile in enumerate(self._piles):
            if pile:
                slot = _PILE_SLOT[c]
                for card in pile:
                    t[IDX40[card] * _PLACES + slot] = 1.0
                t[_O_TOP + IDX40[pile[-1]]] = 1.0
                t[_O_HEIGHT + slot] = len(pile) / 16.0
        for q in range(n):
            hand = self._hands[q]
            if q == player:
                for card in _canon_cards(hand):
                    t[IDX40[card] * _PLACES + 24] = 1.0
                continue
            rel = (q - player) % n - 1
            for card in _canon_cards(hand & ~self._hidden[q]):
                t[IDX40[card] * _PLACES + 25 + rel] = 1.0
            t[_O_COUNTS + rel] = self._hidden[q].bit_count() / 16.0
        # Every card not seen anywhere is unknown to this player.
        seen = self._hands[player]
        for q in range(n):
            seen |= self._hands[q] & ~self._hidden[q]
        for pile in self._piles:
            for card in pile:
                seen |= BIT[card]
        for card in NONCOURT:
            if not seen >> card & 1:
                t[IDX40[card] * _PLACES + 28] = 1.0
        t[_O_COUNTS + 3] = 1.0 if self._setaside >= 0 else 0.0
        for k in range(12):
            p = self._cpos[k]
            if p == -2:
                continue
            t[_O_COURT + k * 27 + (25 if p == -1 else 26 if p == SAFE else p)] = 1.0
            if 0 <= p < NUM_CELLS:
                t[_O_LEVEL + k * 3 + self._stacks[p].index(k)] = 1.0
        b = _O_SEATS
        if not self._over:
            t[b + self._seat] = 1.0
        for s in range(4):
            q = self._owner[s]
            if q == player:
                t[b + 4 + s] = 1.0
            if q >= 0:
                if self._unit[s] in self._finished:
                    t[b + 8 + s] = 1.0
                t[b + 12 + s * 4 + (q - player) % n] = 1.0
        b = _O_SCALARS
        t[b] = self._round / self._max_rounds
        t[b + 1] = float(self._moved)
        t[b + 2] = float(bool(self._finished))
        t[b + 3] = self._g / self._games
        sc = self.scores()
        for q in range(n):
            t[b + 4 + (q - player) % n] = sc[q] / (12.0 * self._games)
        return t

    def determinize(self, player: int, rng: random.Random) -> PentyrchState:
        """A full state drawn uniformly from those ``player`` cannot tell apart from this one.

        Hidden: the dealt cards the other hands still hold unseen, and the set-aside card. They are
        shuffled among those same places, keeping what the play revealed: a hand that paid with a
        combination under combine=when_needed held no card worth the pile's value; a hand that passed
        without showing could pay for none of the piles in reach. Draws breaking these are redrawn
        (the real deal always qualifies, so this ends at once in practice; should 2,000 draws all be
        refused, the last one is used anyway: a world that ignores an inference is a weaker sample,
        whereas falling back on the real deal would show the hidden cards to a search).

        The world keeps nothing of the real game that ``player`` has not seen: its seed and generator
        come from ``rng``, and every hand pack of its chance log (earlier games of a match too) is
        rebuilt from the cards as drawn, each hand's cards in card order (the order they were dealt
        in is never seen); the layout packs are public (the board).
        """
        self.check_player(player)
        s = self.clone()
        s.seed = rng.getrandbits(63)
        s.chance.rng = make_rng(s.seed)
        s.chance.given = None
        log = s.chance.log
        past = []
        for g, (owner, dealt, hidden, caps, passcons, setaside) in enumerate(self._past_games):
            new, aside = self._draw_hidden(player, hidden, caps, passcons, setaside, rng)
            dealt = [(d & ~h) | m for d, h, m in zip(dealt, hidden, new, strict=True)]
            log[2 * g + 1] = self._hand_pack(owner, dealt, aside)
            past.append((owner, dealt, new, caps, _rehide(passcons, hidden, new), aside))
        s._past_games = tuple(past)
        new, aside = self._draw_hidden(player, self._hidden, self._caps, self._passcons, self._setaside, rng)
        s._passcons = _rehide(self._passcons, self._hidden, new)
        for q in range(self._n):
            old = self._hidden[q]
            s._hands[q] = (self._hands[q] & ~old) | new[q]
            s._hidden[q] = new[q]
            s._dealt[q] = (self._dealt[q] & ~old) | new[q]
        s._setaside = aside
        log[2 * self._g + 1] = self._hand_pack(self._owner, s._dealt, aside)
        s._legal = None
        s._combos = None
        return s

    def _draw_hidden(
        self,
        player: int,
        hidden: list[int],
        caps: list[int],
        passcons: list[tuple[int, int, int, int]],
        setaside: int,
        rng: random.Random,
    ) -> tuple[list[int], int]:
        """New hidden cards for every hand but ``player``'s (and a new set-aside card) drawn from the
        cards ``player`` has not seen, under the inferences of ``caps`` and ``passcons``."""
        n = self._n
        others = [q for q in range(n) if q != player and hidden[q]]
        pool = 0
        for q in others:
            pool |= hidden[q]
        if setaside >= 0:
            pool |= BIT[setaside]
        cards = sorted(_canon_cards(pool))
        sizes = [hidden[q].bit_count() for q in others]
        limits = []
        for q in others:
            bounds = []
            for pq, low, hand_t, _hidden_t in passcons:
                if pq == q:
                    # hand sum then = fixed part + what is hidden now; it stayed below `low`.
                    bounds.append(low - mask_value(hand_t) + mask_value(hidden[q]))
            limits.append((caps[q], min(bounds) if bounds else 1 << 30))
        deck = cards
        parts: list[int] = []
        for _ in range(2000):
            deck = cards[:]
            rng.shuffle(deck)
            parts = []
            i = 0
            ok = True
            for j, size in enumerate(sizes):
                m = 0
                top = 0
                for c in deck[i : i + size]:
                    m |= BIT[c]
                    if VALUE[c] > top:
                        top = VALUE[c]
                i += size
                cap, bound = limits[j]
                if top >= cap or (bound < 1 << 30 and mask_value(m) >= bound):
                    ok = False
                    break
                parts.append(m)
            if ok:
                break
        else:
            FALLBACKS[0] += 1
            parts, i = [], 0
            for size in sizes:
                parts.append(sum(BIT[c] for c in deck[i : i + size]))
                i += size
        new = hidden[:]
        for q, m in zip(others, parts, strict=True):
            new[q] = m
        return new, (deck[-1] if setaside >= 0 else -1)

    def _hand_pack(self, owner: list[int], dealt: list[int], setaside: int) -> list[int]:
        """The hand pack that deals ``dealt`` (and ``setaside``): each player's cards in card order at
        that player's places in the deal (docs/rules/pentyrch.md, Seats, court cards and hands)."""
        n = self._n
        mine = [cards_of_mask(m) for m in dealt]
        pack = []
        for i in range(len(HAND_CARDS)):
            if n == 3 and i == 15:
                pack.append(setaside)
            else:
                pack.append(mine[owner[i % n]].pop())
        return pack

    def last_events(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for e in self._events:
            kind = e[0]
            if kind == "new_game":
                out.append(
                    {"type": "new_game", "game": e[1], "owners": [None if o < 0 else o for o in self._owner]}
                )
            elif kind == "step":
                _, seat, k, frm, to, under = e
                out.append(_move_event(seat, k, frm, to, "cover" if under else "free"))
            elif kind == "exchange":
                _, seat, k, frm, to, pile, top, rest = e
                out.append(_move_event(seat, k, frm, to, "exchange"))
                out.append(
                    {
                        "type": "exchange",
                        "seat": seat,
                        "cell": CELL_NAMES[to],
                        "taken": _codes(pile),
                        "laid": [card_code(top)] + _codes(_canon_cards(rest)),
                    }
                )
            elif kind == "show":
                _, seat, k, frm, to, top = e
                out.append(_move_event(seat, k, frm, to, "show"))
                out.append({"type": "show", "seat": seat, "cell": CELL_NAMES[to], "card": card_code(top)})
            elif kind == "bear_off":
                out.append(
                    {
                        "type": "bear_off",
                        "seat": e[1],
                        "card": card_code(COURT_IDS[e[2]]),
                        "from": CELL_NAMES[e[3]],
                    }
                )
            elif kind == "pass":
                out.append(
                    {
                        "type": "pass",
                        "seat": e[1],
                        "all_safe": e[3],
                        "hand": None if e[2] is None else _codes(_canon_cards(e[2])),
                    }
                )
            elif kind == "finished":
                out.append(
                    {
                        "type": "finished",
                        "finished_seats": list(self._unit_seats[e[1]]),
                        "players": self._unit_players(e[1]),
                    }
                )
            elif kind == "game_over":
                out.append(
                    {"type": "game_over", "game": e[1], "reason": e[2], "winners": e[3], "returns": e[4]}
                )
        return out

    def summary_extra(self) -> dict[str, Any]:
        seats = [s for s in range(4) if self._owner[s] >= 0]
        return {
            "board": {
                CELL_NAMES[c]: {
                    "pile": _codes(self._piles[c]),
                    "stack": [card_code(COURT_IDS[k]) for k in self._stacks[c]],
                }
                for c in range(NUM_CELLS)
            },
            "safe": {
                SEAT_NAMES[s]: [
                    card_code(COURT_IDS[k]) for k in range(s * 3, s * 3 + 3) if self._cpos[k] == SAFE
                ]
                for s in seats
            },
            "seat_to_move": None if self._over else SEAT_NAMES[self._seat],
            "round": self._round,
            "match_game": self._g,
            "results": [dict(r) for r in self._results],
        }

    # -- helpers for tests, agents and interfaces ------------------------------------------------
    def hand(self, player: int) -> list[str]:
        """A player's hand in canonical order (not hidden-information safe: for tests and tools)."""
        return _codes(_canon_cards(self._hands[player]))

    def pile(self, cell: str) -> list[str]:
        return _codes(self._piles[parse_cell(cell)])

    def stack(self, cell: str) -> list[str]:
        return [card_code(COURT_IDS[k]) for k in self._stacks[parse_cell(cell)]]

    def where_is(self, court: str) -> str:
        """``off``, ``safe`` or the cell of a court card."""
        p = self._cpos[COURT_OF_CARD[parse_card(court)]]
        return "off" if p == -1 else "safe" if p == SAFE else "out" if p == -2 else CELL_NAMES[p]

    def __repr__(self) -> str:
        # Not the seed: it rebuilds every hidden card, and a repr ends up in logs and tracebacks.
        return f"<PentyrchState {self.game.spec()} {self._where()}>"
