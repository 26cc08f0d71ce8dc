"""Why a Pentyrch move is refused, in one sentence a player understands: the rule of
``docs/rules/pentyrch.md`` it breaks (entering, stepping, stacks, paying, showing), from the same
reasons the engine's error messages give (``reasons.reason``), without the position dump a log needs
and without naming any card the mover does not hold."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gamester.games.pentyrch.moves import COMBO_BASE, PASS
from gamester.games.pentyrch.reasons import decode, reason

if TYPE_CHECKING:
    from gamester.games.pentyrch.state import PentyrchState


def explain_illegal(state: PentyrchState, action: int) -> str:
    """One sentence naming the rule that forbids ``action`` here (or that it is legal)."""
    if state._over:
        return "The game is over: no more moves can be made."
    legal = state.legal_actions()
    if action in legal:
        return "That move is allowed here."
    if not 0 <= action < state.game.num_distinct_actions:
        return "That is not a move of this game."
    if action == PASS:
        return "You may pass only when no move is possible, and you have a legal move."
    if action >= COMBO_BASE:
        return "That combination of cards is not one of the payments possible here."
    _section, why = reason(state, *decode(state, action), 0)
    if why[0].islower() and why[1:2].isdigit():  # it opens with a cell's name: keep it as written
        return f"Cell {why}."
    return why[0].upper() + why[1:] + "."
