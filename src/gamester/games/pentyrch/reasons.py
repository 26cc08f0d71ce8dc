"""Why a Pentyrch move is illegal, in words: the move, the rule it breaks (a section of
``docs/rules/pentyrch.md``) and the position (never the mover's cards: a message may reach a seat that
is not the hand's owner)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gamester.core.errors import quote
from gamester.games.pentyrch.board import (
    CELL_NAMES,
    ENTER_SLOT,
    FREE,
    GOAL,
    HOME,
    HOME_OK,
    NUM_CELLS,
    OFF,
    OFF_SLOT,
    SEAT_NAMES,
    SLOTS,
    STEPS,
    neighbour,
)
from gamester.games.pentyrch.cards import (
    BIT,
    COURT_RANK_NAMES,
    NONCOURT,
    VALUE,
    court_code,
    mask_value,
)
from gamester.games.pentyrch.moves import COMBO_BASE, PASS, PAYS, SAFE, SHOW_CODE, exchange_payers

if TYPE_CHECKING:
    from gamester.games.pentyrch.state import PentyrchState

RULES = "docs/rules/pentyrch.md"


def where(state: PentyrchState) -> str:
    """The position in a few words: game and round, the seat to move and its court cards."""
    if state._over:
        return f"the match is over, scores {state._total_scores}"
    seat = state._seat
    courts = []
    for k in range(seat * 3, seat * 3 + 3):
        p = state._cpos[k]
        courts.append(court_code(k) + ":" + ("off" if p == -1 else "safe" if p == SAFE else CELL_NAMES[p]))
    # The hand's size only: messages reach whoever typed the move, not always its owner.
    size = state._hands[state._owner[seat]].bit_count()
    g = f"game {state._g + 1} of {state._games}, " if state._games > 1 else ""
    return (
        f"{g}round {state._round + 1}, {SEAT_NAMES[seat]} (player {state._owner[seat]}) to move, "
        f"{' '.join(courts)}, {size} cards in hand"
    )


def why_illegal(state: PentyrchState, action: object) -> str:
    """The message of an action that is not legal in ``state``."""
    if state._over:
        return f"{quote(action)} is not legal: the game is over ({where(state)})"
    num = state.game.num_distinct_actions
    if not isinstance(action, int) or not 0 <= action < num:
        return f"{quote(action)} is not a Pentyrch action (0-{num - 1}) ({where(state)})"
    a = action
    text = state.action_to_string(a)
    legal = state.legal_actions()
    if a == PASS:
        return (
            f"'pass' is not legal: {SEAT_NAMES[state._seat]} has {len(legal)} legal move(s) and "
            f"must move ({RULES}, Moving, No move: a seat must move when it can; {where(state)})"
        )
    if a >= COMBO_BASE:
        return (
            f"{text}: there are only {sum(1 for x in legal if x >= COMBO_BASE)} combination "
            f"payments here ({RULES}, Moving, Exchange; {where(state)})"
        )
    return why_illegal_parts(state, text, *decode(state, a), 0)


def decode(state: PentyrchState, a: int) -> tuple[int, int, int, int, int]:
    """A single-card or free move's parts: (court card, from, to, mode, top payment card)."""
    slot, code = divmod(a - 1, PAYS)
    k, d = divmod(slot, SLOTS)
    pos = state._cpos[k]
    if d == OFF_SLOT:
        to, frm = OFF, pos
    elif d == ENTER_SLOT:
        to, frm = HOME[k // 3], -1
    else:
        frm = pos
        to = neighbour(pos, d) if 0 <= pos < NUM_CELLS else -1
    mode = 0 if code == 0 else (1 if code < SHOW_CODE else 2)
    top = -1 if code == 0 else NONCOURT[(code - 1) % 40]
    return k, frm, to, mode, top


def why_illegal_parts(
    state: PentyrchState, text: str, k: int, frm: int, to: int, mode: int, top: int, rest: int
) -> str:
    """The rule a move breaks, in words: the action, the rule and the position."""
    rule, why = reason(state, k, frm, to, mode, top, rest)
    return f"{quote(text)} is not legal: {why} ({RULES}, {rule}; {where(state)})"


def reason(
    state: PentyrchState, k: int, frm: int, to: int, mode: int, top: int, rest: int
) -> tuple[str, str]:
    """(section of the rules, what is wrong) for the move ``(k, frm, to, mode, top, rest)``."""
    seat = state._seat
    court = court_code(k)
    if k // 3 != seat:
        return "Moving", f"it is {SEAT_NAMES[seat]}'s turn and {court} is not one of its court cards"
    pos = state._cpos[k]
    if pos == SAFE:
        return "Moving", f"{court} is already in safety"
    if to == OFF:
        if pos != GOAL[seat]:
            return "Moving (1)", f"{court} bears off only from its goal {CELL_NAMES[GOAL[seat]]}"
        return "Moving, Stacks", f"{court} is covered and only the top card may move"
    if frm < 0 and pos >= 0:
        return "Moving (2)", f"{court} is already on the board, on {CELL_NAMES[pos]}"
    if frm >= 0 and pos < 0:
        return "Moving (2)", f"{court} is off the board and must first enter on its home cell"
    if to < 0:
        return "Moving (3)", f"{court} would leave the board"
    stacks = state._stacks
    if frm >= 0 and stacks[frm][-1] != k:
        return "Moving, Stacks", f"{court} is covered on {CELL_NAMES[frm]}; only the top card may move"
    if not HOME_OK[seat][to]:
        return "Moving", (
            f"{CELL_NAMES[to]} is a home cell that only its owner and the seat whose goal it is may stand on"
        )
    fwd = frm < 0 or any(t == to and f for _d, t, f in STEPS[seat][frm])
    st = stacks[to]
    if st:
        if mode:
            return "Moving (3)", f"{CELL_NAMES[to]} holds court cards, so it is covered, not paid for"
        if not fwd and not state._cover_any:
            return "Moving", "a step never goes backward (cover_any_direction=false)"
        if len(st) >= 3:
            return "Moving, Stacks", f"the stack on {CELL_NAMES[to]} already holds three court cards"
        under = COURT_RANK_NAMES[st[-1] % 3]
        order = (
            "on the free space a Jack covers a Queen or King and a Queen a King"
            if to == FREE
            else "a King covers a Queen or Jack and a Queen a Jack"
        )
        return "Moving, Stacks", f"a {COURT_RANK_NAMES[k % 3]} may not cover a {under}: {order}"
    if not fwd:
        return "Moving", "a step goes forward, diagonally forward or sideways, never backward"
    if to == FREE:
        return "Moving (3)", "the empty free space is entered free of charge, with no payment"
    if mode == 0:
        return "Moving, Exchange", f"a step onto {CELL_NAMES[to]} needs a payment (no court card is there)"
    hand = state._hands[state._owner[seat]]
    pile = state._piles[to]
    v = VALUE[pile[-1]]
    laid = rest | BIT[top]
    if laid & ~hand:
        # Not which card: the message may reach a seat other than the hand's owner.
        return "Moving, Exchange", "the payment must come from the mover's hand: a card named is not in it"
    # The move is refused, so the first clause of the exchange rule it fails is the reason: asked of
    # the rule itself (moves.exchange_payers, combos.py), never spelt out again here.
    always = state._always
    if mode == 2:
        if not state._show:  # the option itself: no card is ever shown
            return "Moving, Showing (show=false)", "showing is not allowed (show=false)"
        if exchange_payers(hand, v, True, state._show, always)[1] & BIT[top]:  # it would on one card
            return (
                "Moving, Showing",
                f"the pile on {CELL_NAMES[to]} has {len(pile)} cards; only a "
                f"single card may be matched by showing",
            )
        return "Moving, Showing", f"the shown card must equal the pile's value {v}"
    if not rest:
        return "Moving, Exchange", f"a single card must be worth at least the pile's top value {v}"
    total = mask_value(laid)
    if total < v:
        # not even a payment with overpay=true, which takes any two or more cards that reach v
        # (combos.py); a sum needs no table of payments
        return "Moving, Exchange", f"the cards add up to {total}, less than the pile's top value {v}"
    if not exchange_payers(hand, v, len(pile) == 1, state._show, always)[2]:
        return (
            "Moving, Exchange (combine=when_needed)",
            "a single card would do, so no combination is allowed",
        )
    return "Moving, Exchange (overpay=false)", "a card of the combination could be left out"
