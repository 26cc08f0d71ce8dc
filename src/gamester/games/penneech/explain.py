"""Why a Penneech move is refused, in one sentence a player understands (the rulings of
``docs/rules/penneech.md``: Redeal, Tricks). The engine's own error message names the position for a
log; this one speaks to the person at the table, and names only the mover's own cards."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gamester.core.cards import RANK_NAMES, SUIT_NAMES

if TYPE_CHECKING:
    from gamester.games.penneech.game import PenneechState


def card_words(card: int) -> str:
    """``"the queen of hearts"``."""
    return f"the {RANK_NAMES[card % 13]} of {SUIT_NAMES[card // 13]}"


def explain_illegal(state: PenneechState, action: int) -> str:
    """One sentence naming the rule that forbids ``action`` here (or that it is legal)."""
    from gamester.games.penneech.deal import KEEP, OVER, REDEAL, REDEAL_PHASE

    if state._phase == OVER:
        return "The game is over: no more moves can be made."
    if action in state.legal_actions():
        return "That move is allowed here."
    if state._phase == REDEAL_PHASE:
        return (
            "Before the first turn-up you must first answer whether you keep this hand or ask for a redeal."
        )
    if action in (KEEP, REDEAL):
        redeal = state.game.options.redeal
        if redeal == "off":
            return "Redeals are not played under these rules (redeal=off)."
        which = (
            "no ace, king, queen or jack"
            if redeal == "no_ace_or_face"
            else "no card above a ten (no ace, king, queen, jack or the seven of diamonds)"
        )
        return f"A redeal may be asked only before the first turn-up, and only by a hand holding {which}."
    if not 0 <= action < 52:
        return "That is not a move of this game."
    seat = state._cur
    if not state._hands[seat] >> action & 1:
        return f"You do not hold {card_words(action)}."
    led = state._led
    suit = SUIT_NAMES[led // 13]
    if state.game.follow_suit:
        return f"You hold {suit}, so you must follow suit to {card_words(led)} with one of your {suit}."
    trump = SUIT_NAMES[state._trump]
    return (
        f"You hold {suit}, so to {card_words(led)} you must play one of your {suit} or a trump ({trump}); "
        "any card is allowed only when you have none of the suit led."
    )
