"""Pentyrch moves and payments: the dense action encoding, move generation and decoding.

docs/rules/pentyrch.md, Moving. Dense actions (``num_distinct_actions``):

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

A move is a tuple ``(k, frm, to, mode, top, rest_mask)``: court card ``k``, ``frm`` -1 when entering,
``to`` ``OFF`` when bearing off; ``mode`` 0 no payment, 1 exchange (top card and the mask of the others),
2 show (``top`` is the shown card). The combination tables themselves (counting, ranking) are kept by
the game (:class:`~gamester.games.pentyrch.game.PentyrchGame`), shared by all its states.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, cast

from gamester.core.errors import IllegalActionError
from gamester.games.pentyrch.board import (
    ENTER_CODES,
    ENTER_SLOT,
    FREE,
    GOAL,
    HOME,
    HOME_OK,
    NEIGH,
    NUM_CELLS,
    OFF,
    OFF_SLOT,
    SLOTS,
    STEP_CODES,
    STEPS,
)
from gamester.games.pentyrch.board import (
    PAYS as PAYS,  # the encoding's, defined beside the slots; imported from here too
)
from gamester.games.pentyrch.cards import BIT, EQ, GE, IDX40, NONCOURT, VALUE, canon_cards

if TYPE_CHECKING:
    from gamester.games.pentyrch.state import PentyrchState

SAFE: Final = OFF  # cpos of a court card in safety; -1 is off the board, not yet entered, -2 out of play
PASS: Final = 0
SHOW_CODE: Final = 41
COMBO_BASE: Final = 1 + 12 * SLOTS * PAYS  # 9721
MAX_EXCHANGE_MOVES: Final = 15
MAX_MINIMAL_COMBOS: Final = 4992
MAX_OVERPAY_COMBOS: Final = 16 * (1 << 15) - 16  # sum over k >= 2 of k * C(16, k)

Move = tuple[int, int, int, int, int, int]
# One exchange's combination moves, in rank order: (k, frm, to, hand, pile value, count).
Combos = list[tuple[int, int, int, int, int, int]]
PASS_MOVE: Final[Move] = (-1, -1, -1, 0, -1, 0)
# A state's ``_counts`` holds, per player p from p * COUNTS_STRIDE, the hand the entries are for, then
# the number of combination payments of that hand on a pile worth v (1 … 10) at p * COUNTS_STRIDE + v,
# -1 while not yet asked of the game (:func:`generate`).
COUNTS_STRIDE: Final = 11
# ACTION_INTS[a] is the int a, for every action below INTERNED: what move generation appends to a legal
# list, so that compiled it holds these shared objects rather than a freshly boxed int for each entry,
# allocated with the list and freed with it (about 7% of compiled random games); in the pure build it
# is one more subscript. Combination actions past the first 1,024 are appended as they are.
INTERNED: Final = COMBO_BASE + 1024
ACTION_INTS: Final[tuple[object, ...]] = tuple(range(INTERNED))
# The combinations of a position with none, shared (generate makes a list only for an exchange with some).
_NO_COMBOS: Final[Combos] = []


# CODE_OF_BIT[c + 1]: the single-card pay code (1 + index among the 40 non-court cards) of card c, by
# the bit length of the card's mask bit (-1 for court cards, which never pay).
CODE_OF_BIT: Final[tuple[int, ...]] = (-1,) + tuple(1 + IDX40[c] if IDX40[c] >= 0 else -1 for c in range(52))


# -- The exchange rule, written once: move generation calls exchange_moves at every exchange, and
# exchange_payers reads its moves back as cards for payments() and the reasons of a refusal.
def exchange_moves(
    acts: list[object], a: int, hand: int, v: int, one_card: bool, show: bool, always: bool
) -> bool:
    """docs/rules/pentyrch.md, Moving, Exchange and Showing: what ``hand`` (a mask) may lay on a pile
    whose top card is worth ``v`` (``one_card``: the pile is that card alone), ``a`` the action of the
    move paid with nothing. Appends to ``acts`` one action per card worth ``v`` or more, laid alone,
    then with ``show`` on a one-card pile one per card worth exactly ``v``, shown instead (lowest card
    id first, so in action order); returns whether two or more cards may pay: only when no single card
    would do (combine=when_needed) or always (combine=always). Which combinations then pay is the
    combination rule, :func:`combo_positions`."""
    singles = hand & GE[v]
    bits = singles
    while bits:
        low = bits & -bits
        acts.append(ACTION_INTS[a + CODE_OF_BIT[low.bit_length()]])
        bits ^= low
    if show and one_card:
        bits = hand & EQ[v]
        while bits:
            low = bits & -bits
            acts.append(ACTION_INTS[a + 40 + CODE_OF_BIT[low.bit_length()]])  # 40 + code: SHOW_CODE + index
            bits ^= low
    return always or not singles


def exchange_payers(hand: int, v: int, one_card: bool, show: bool, always: bool) -> tuple[int, int, bool]:
    """The exchange rule's answer (:func:`exchange_moves`) as cards: (the cards that may be laid alone,
    the cards that may be shown, whether combinations may pay), the first two as masks."""
    codes: list[object] = []
    combine = exchange_moves(codes, 0, hand, v, one_card, show, always)
    singles = shown = 0
    for entry in codes:
        code = cast(int, entry)
        if code < SHOW_CODE:
            singles |= BIT[NONCOURT[code - 1]]
        else:
            shown |= BIT[NONCOURT[code - SHOW_CODE]]
    return singles, shown, combine


def combo_positions(values: tuple[int, ...], v: int, overpay: bool) -> tuple[tuple[int, int], ...]:
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


def payments(
    hand: int, v: int, always: bool, overpay: bool
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, int], ...]]:
    """docs/rules/pentyrch.md, Moving, Exchange: every payment ``hand`` may lay on a pile whose top is worth
    ``v``.

    Returns (single cards, cards that may be shown, combinations as (top card, rest mask)); a
    reference for tests and tools (play uses the cached tables of the game).
    """
    singles, shown, combine = exchange_payers(hand, v, True, True, always)  # a one-card pile, show=true
    combos: tuple[tuple[int, int], ...] = ()
    if combine:
        # A minimal combination never holds a card worth v on its own (combo_positions leaves such
        # a card out anyway; leaving it out here keeps the listing short).
        cards = canon_cards(hand if overpay else hand & ~GE[v])
        combos = tuple(
            (cards[t], sum(BIT[cards[i]] for i in range(len(cards)) if r >> i & 1))
            for t, r in combo_positions(tuple(VALUE[c] for c in cards), v, overpay)
        )
    return tuple(canon_cards(singles)), tuple(canon_cards(shown)), combos


def generate(state: PentyrchState) -> None:
    """docs/rules/pentyrch.md, Moving: every legal move of the seat to move, as sorted dense actions,
    into ``state._legal``.

    Moves paid with nothing, one card or a shown card are decoded from their action arithmetically
    (:func:`decode`); for combination moves ``state._combos`` keeps each exchange's count, in rank
    order, and the payments themselves are listed only when one is decoded.

    Written for both builds: direct calls (no bound methods kept in variables, which the compiled
    build calls as generic Python objects), entering walked as one more step (``ENTER_CODES``), so
    that there is one place for each kind of move, and the combination count of each pile value
    asked of the game once per hand (``state._counts``, see :data:`COUNTS_STRIDE`: a hand changes
    only at its own exchanges, and a seat often reaches several piles of one value).
    """
    seat = state._seat
    acts: list[object] = []  # ACTION_INTS: see there
    combos = _NO_COMBOS
    ncombos = 0
    owner = state._owner[seat]
    hand = state._hands[owner]
    counts = state._counts
    at = owner * COUNTS_STRIDE
    if counts[at] != hand:  # counted for another hand (or never): forget those counts
        counts[at] = hand
        for i in range(at + 1, at + COUNTS_STRIDE):
            counts[i] = -1
    cpos = state._cpos
    stacks = state._stacks
    piles = state._piles
    show = state._show
    always = state._always
    cover_any = state._cover_any
    cells = seat * NUM_CELLS
    goal = GOAL[seat]
    ints = ACTION_INTS  # a local: the pure build reads it at every legal move
    k0 = seat * 3
    for k in range(k0, k0 + 3):
        p = cpos[k]
        if p == SAFE:
            continue
        if p < 0:
            # docs/rules/pentyrch.md, Moving (2): enter on the home cell, by exchange or by covering.
            codes = ENTER_CODES[seat]
        elif stacks[p][-1] != k:
            continue  # docs/rules/pentyrch.md, Moving, Stacks: only the top card may move
        else:
            # The steps a seat may take from p (STEP_CODES: STEPS without the home cells HOME_OK
            # forbids, each as d * PAYS | t << 10 | forward_ok << 15).
            codes = STEP_CODES[cells + p]
        rk = k - k0
        base = 1 + k * (SLOTS * PAYS)
        for code in codes:
            t = code >> 10 & 31
            st = stacks[t]
            if st:
                # docs/rules/pentyrch.md, Moving, Stacks: at most three; K over Q or J, Q over J;
                # reversed on the free space. Covering may go backward with cover_any_direction.
                if len(st) < 3 and (code >= 32768 or cover_any):
                    top_rank = st[-1] % 3
                    if (rk < top_rank) if t == FREE else (rk > top_rank):
                        acts.append(ints[base + (code & 1023)])
            elif code < 32768:  # a backward step: only covering may go backward
                continue
            elif t == FREE:
                acts.append(ints[base + (code & 1023)])
            elif hand:
                pile = piles[t]
                v = VALUE[pile[-1]]
                if exchange_moves(acts, base + (code & 1023), hand, v, len(pile) == 1, show, always):
                    n = counts[at + v]
                    if n < 0:
                        n = counts[at + v] = state.game.combo_count(hand, v)
                    if n:
                        if not ncombos:
                            combos = []
                        combos.append((k, p, t, hand, v, n))  # p: -1 when entering
                        ncombos += n
        if p == goal:
            # docs/rules/pentyrch.md, Moving (1): bear off from the goal cell.
            acts.append(ints[base + OFF_SLOT * PAYS])
    if ncombos:
        for a in range(COMBO_BASE, COMBO_BASE + ncombos):  # a loop: compiled, range() is a generic call
            acts.append(ints[a] if a < INTERNED else a)
    elif not acts:
        # docs/rules/pentyrch.md, Moving: no legal move, so pass.
        acts.append(PASS)
    state._legal = cast("list[int]", acts)  # ints, some of them shared (ACTION_INTS)
    state._combos = combos


def decode(state: PentyrchState, action: int) -> Move:
    """The move of a legal action of ``state`` (after :func:`generate`)."""
    if action == PASS:
        return PASS_MOVE
    if action >= COMBO_BASE:
        r = action - COMBO_BASE
        combos = state._combos
        assert combos is not None  # and typed so: compiled, the loop below is then native
        for k, frm, to, hand, v, n in combos:
            if r < n:
                top, rest = state.game.combo_at(hand, v, r)
                return (k, frm, to, 1, top, rest)
            r -= n
        raise IllegalActionError(f"combination #{action - COMBO_BASE} is not legal here")
    # // and -, not divmod: a builtin call (boxed ints in the compiled build) on every move played.
    x = action - 1
    slot = x // PAYS
    code = x - slot * PAYS
    k = slot // SLOTS
    d = slot - k * SLOTS
    frm = state._cpos[k]
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


def exchange_floor(state: PentyrchState, seat: int) -> int:
    """The lowest top value among the piles ``seat`` could reach by exchange (11 if none)."""
    low = 11
    stacks = state._stacks
    piles = state._piles
    for k in range(seat * 3, seat * 3 + 3):
        p = state._cpos[k]
        if p == SAFE or p == -2:
            continue
        if p < 0:
            h = HOME[seat]
            if not stacks[h]:
                low = min(low, VALUE[piles[h][-1]])
            continue
        if stacks[p][-1] != k:
            continue
        for _d, t, fwd in STEPS[seat][p]:
            if fwd and t != FREE and not stacks[t] and HOME_OK[seat][t]:
                low = min(low, VALUE[piles[t][-1]])
    return low
