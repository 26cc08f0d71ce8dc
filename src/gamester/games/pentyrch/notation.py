"""Pentyrch notation (docs/rules/pentyrch.md, Notation): moves written and read, actions named.

``JH a4-b4 9C`` (a step by exchange), ``JH a4-b4 3S+5D`` (a combination, the first card on top),
``QH @a4 =6C`` (entering by showing), ``QH @a4`` (entering by covering), ``JH off``, ``pass``.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING, Any

from gamester.core.cards import card_code, parse_card
from gamester.core.errors import GameError, IllegalActionError, InvalidActionError, quote
from gamester.games.pentyrch.board import (
    CELL_NAMES,
    DIR_BETWEEN,
    DIR_NAMES,
    ENTER_SLOT,
    HOME,
    NUM_CELLS,
    OFF,
    OFF_SLOT,
    SEAT_NAMES,
    SLOTS,
    neighbour,
    parse_cell,
)
from gamester.games.pentyrch.cards import BIT, COURT_OF_CARD, IDX40, NONCOURT, canon_tuple, court_code
from gamester.games.pentyrch.moves import (
    COMBO_BASE,
    PASS,
    PASS_MOVE,
    PAYS,
    SAFE,
    SHOW_CODE,
    Move,
    decode,
    generate,
)
from gamester.games.pentyrch.reasons import RULES, where, why_illegal_parts

if TYPE_CHECKING:
    from gamester.games.pentyrch.state import PentyrchState


def format_move(m: Move) -> str:
    """docs/rules/pentyrch.md, Notation, canonical form."""
    k, frm, to, mode, top, rest = m
    if k < 0:
        return "pass"
    court = court_code(k)
    if to == OFF:
        return f"{court} off"
    where_to = f"@{CELL_NAMES[to]}" if frm < 0 else f"{CELL_NAMES[frm]}-{CELL_NAMES[to]}"
    if mode == 0:
        return f"{court} {where_to}"
    if mode == 2:
        return f"{court} {where_to} ={card_code(top)}"
    pay = "+".join([card_code(top)] + [card_code(c) for c in canon_tuple(rest)])
    return f"{court} {where_to} {pay}"


def read_move(text: str) -> Move:
    """The move tuple of a move in canonical notation (what :func:`format_move` writes), read without
    the position: bearing off reads ``frm`` as -1, since the notation does not name the goal cell.
    For moves the notation of a legal action names; anything else raises ``ValueError``."""
    tokens = text.split()
    if tokens[0] == "pass":
        return PASS_MOVE
    k = COURT_OF_CARD[parse_card(tokens[0])]
    where_to = tokens[1]
    if where_to == "off":
        return (k, -1, OFF, 0, -1, 0)
    if where_to[0] == "@":
        frm, to = -1, parse_cell(where_to[1:])
    else:
        a, _, b = where_to.partition("-")
        frm, to = parse_cell(a), parse_cell(b)
    if to < 0:
        raise ValueError(f"{quote(text)} names no cell")
    if len(tokens) < 3:
        return (k, frm, to, 0, -1, 0)
    pay = tokens[2]
    if pay[0] == "=":
        return (k, frm, to, 2, parse_card(pay[1:]), 0)
    cards = pay.split("+")
    rest = 0
    for c in cards[1:]:
        rest |= BIT[parse_card(c)]
    return (k, frm, to, 1, parse_card(cards[0]), rest)


def move_parts(m: Move) -> dict[str, Any]:
    """What the notation of ``m`` says, as fields (docs/web.md, "moves"): ``kind`` (``step``,
    ``enter``, ``off`` or ``pass``) and, but for a pass, the ``court`` card, the cells ``from`` and
    ``to`` (None where the notation names none: entering names no ``from``, bearing off neither),
    the ``pay`` cards in the notation's order (top first; empty unless a payment is laid) and the
    ``show``n card (or None)."""
    k, frm, to, mode, top, rest = m
    if k < 0:
        return {"kind": "pass"}
    off = to == OFF
    return {
        "kind": "off" if off else "enter" if frm < 0 else "step",
        "court": court_code(k),
        "from": None if off or frm < 0 else CELL_NAMES[frm],
        "to": None if off else CELL_NAMES[to],
        "pay": [card_code(top)] + [card_code(c) for c in canon_tuple(rest)] if mode == 1 else [],
        "show": card_code(top) if mode == 2 else None,
    }


def action_parts(text: object) -> dict[str, Any] | None:
    """The fields of a move written in canonical notation (``PentyrchGame.action_parts``): read by
    :func:`read_move`, kept only if :func:`format_move` writes the same text back, so they say no
    more and no less than the text. None for anything else ("an illegal move", a combination named
    by its number only)."""
    if not isinstance(text, str) or not text:
        return None
    try:
        m = read_move(text)
    except (GameError, ValueError, KeyError, IndexError):
        return None
    return move_parts(m) if format_move(m) == text else None


def is_legal(state: PentyrchState, action: int) -> bool:
    if state._over:
        return False
    if state._legal is None:
        generate(state)
    legal = state._legal
    assert legal is not None
    i = bisect_left(legal, action)
    return i < len(legal) and legal[i] == action


def current_moves(state: PentyrchState) -> dict[int, Move]:
    """Every legal action with its move (for tools; notation and messages never list them all: a
    position may have hundreds of thousands with overpay)."""
    if state._legal is None:
        generate(state)
    return {a: decode(state, a) for a in state._legal}  # type: ignore[union-attr]


def combo_action(state: PentyrchState, k: int, to: int, top: int, rest: int) -> int:
    """The action of combination payment (``top``, ``rest``) for court card ``k`` moving to ``to``, or
    -1 if it is not legal here: ranked by counting, without listing the others."""
    if state._over:
        return -1
    if state._legal is None:
        generate(state)
    offset = 0
    for kk, _frm, tt, hand, v, n in state._combos:  # type: ignore[union-attr]
        if kk == k and tt == to:
            r = state.game.combo_rank(hand, v, top, rest)
            return COMBO_BASE + offset + r if r >= 0 else -1
        offset += n
    return -1


def legal_action_strings(state: PentyrchState) -> list[str]:
    """The notation of every legal action, in action order: one pass over each exchange's
    combinations (``action_to_string`` on each would rank them one by one)."""
    if state._over:
        return []
    legal = state.legal_actions()
    out = [format_move(decode(state, a)) for a in legal if a < COMBO_BASE]
    for k, frm, to, hand, v, _n in state._combos:  # type: ignore[union-attr]
        head = format_move((k, frm, to, 0, -1, 0)) + " "
        out.extend([head + pay for pay in state.game.combo_payments(hand, v)])
    return out


def action_to_string(state: PentyrchState, action: object) -> str:
    num = state.game.num_distinct_actions
    if type(action) is not int or not 0 <= action < num:
        raise InvalidActionError(f"{quote(action)} is not a Pentyrch action (0-{num - 1})")
    if action == PASS:
        return "pass"
    if is_legal(state, action):
        return format_move(decode(state, action))
    if action >= COMBO_BASE:
        return f"<combination #{action - COMBO_BASE}, not legal here>"
    return _by_id(state, action)


def action_without_hand(state: PentyrchState, action: object) -> str:
    """An action as a player other than the mover may read it (``State.action_named_for``): what
    its id says on its own. A combination is only its number (which cards it lays depends on the
    mover's hand), and nothing says whether the id is legal for the mover."""
    num = state.game.num_distinct_actions
    if type(action) is not int or not 0 <= action < num:
        raise InvalidActionError(f"{quote(action)} is not a Pentyrch action (0-{num - 1})")
    if action == PASS:
        return "pass"
    if action >= COMBO_BASE:
        return f"<combination #{action - COMBO_BASE} of the mover's hand>"
    return _by_id(state, action)


def _by_id(state: PentyrchState, action: int) -> str:
    """A single-card or no-card action spelled from its id and the public positions of the courts."""
    slot, code = divmod(action - 1, PAYS)
    k, d = divmod(slot, SLOTS)
    court = court_code(k)
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
    p = state._cpos[k]
    if 0 <= p < NUM_CELLS and neighbour(p, d) >= 0:
        return f"{court} {CELL_NAMES[p]}-{CELL_NAMES[neighbour(p, d)]}{pay}"
    return f"{court} step {DIR_NAMES[d]}{pay}"


def string_to_action(state: PentyrchState, text: object) -> int:
    if not isinstance(text, str):
        raise InvalidActionError(
            f"{quote(text)} is not a Pentyrch action: write e.g. 'JH a4-b4 9C', 'QH @a4', 'JH off' or 'pass'"
        )
    parts = text.split()
    if len(parts) == 1 and parts[0].lower() == "pass":
        return PASS
    if len(parts) < 2 or len(parts) > 3:
        raise InvalidActionError(
            f"{quote(text)} is not a Pentyrch action: write a court card, where it goes and the "
            f"payment, e.g. 'JH a4-b4 9C', 'JH a4-b4 3S+5D', 'QH @a4 =6C', 'JH c4-d4', 'JH off' "
            f"or 'pass' ({RULES}, Notation)"
        )
    card = parse_card(parts[0])
    k = COURT_OF_CARD.get(card, -1)
    if k < 0 or (state._n == 3 and k >= 9):
        raise InvalidActionError(
            f"{quote(text)}: {quote(parts[0])} is not a court card in this game "
            f"(J, Q or K of a playing seat's suit)"
        )
    where_to = parts[1].lower()
    pay = parts[2] if len(parts) == 3 else ""
    seat = k // 3
    if where_to == "off":
        if pay:
            raise InvalidActionError(f"{quote(text)}: bearing off takes no payment")
        return 1 + (k * SLOTS + OFF_SLOT) * PAYS
    if where_to.startswith("@"):
        to = parse_cell(where_to[1:])
        if to < 0:
            raise InvalidActionError(f"{quote(text)}: {quote(where_to[1:])} is not a cell (a4, d7, …)")
        if to != HOME[seat]:
            raise IllegalActionError(
                f"{quote(text)} is not legal: {parts[0]} enters only on {SEAT_NAMES[seat]}'s home cell "
                f"{CELL_NAMES[HOME[seat]]} ({RULES}, Moving (2); {where(state)})"
            )
        frm, d = -1, ENTER_SLOT
    else:
        a, sep, b = where_to.partition("-")
        frm, to = parse_cell(a), parse_cell(b)
        if not sep or frm < 0 or to < 0:
            raise InvalidActionError(
                f"{quote(text)}: {quote(where_to)} is not a step: write from-to cells, e.g. a4-b4"
            )
        d = DIR_BETWEEN[frm][to]
        if d < 0:
            raise IllegalActionError(
                f"{quote(text)} is not legal: {CELL_NAMES[frm]} and {CELL_NAMES[to]} are not adjacent; a "
                f"step goes to a neighbouring cell ({RULES}, Moving (3); {where(state)})"
            )
    pos = state._cpos[k]
    if frm != pos and not state._over:
        now = "off the board" if pos == -1 else "in safety" if pos == SAFE else f"on {CELL_NAMES[pos]}"
        raise IllegalActionError(
            f"{quote(text)} is not legal: {parts[0]} is {now}, not "
            f"{'off the board' if frm < 0 else 'on ' + CELL_NAMES[frm]} "
            f"({RULES}, Moving; {where(state)})"
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
    act = combo_action(state, k, to, top, rest)
    if act >= 0:
        return act
    raise IllegalActionError(why_illegal_parts(state, text, k, frm, to, 1, top, rest))
