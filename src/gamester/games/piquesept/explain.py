"""Why a Piquesept move is refused, in one sentence a player understands (the rulings of
``docs/rules/piquesept.md``: the soloist and the first trick, the trade, later tricks). The engine's
own error message names the position for a log; this one speaks to the person at the table and names
only the mover's own cards."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gamester.core.cards import RANK_NAMES, SUIT_NAMES

if TYPE_CHECKING:
    from gamester.games.piquesept.game import PiqueseptState


def card_words(action: int) -> str:
    """``"the king of hearts"`` for a dense Piquesept action (a card of the piquet pack)."""
    from gamester.games.piquesept.deal import A2ID

    c = A2ID[action]
    return f"the {RANK_NAMES[c % 13]} of {SUIT_NAMES[c // 13]}"


def _one_of(actions: list[int]) -> str:
    words = [card_words(a) for a in actions]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def explain_illegal(state: PiqueseptState, action: int) -> str:
    """One sentence naming the rule that forbids ``action`` here (or that it is legal)."""
    from gamester.games.piquesept.deal import FIRST, GIVE, OVER
    from gamester.games.piquesept.rules import NUM_ACTIONS, SPADES, SUIT_MASK

    if state._phase == OVER:
        return "The game is over: no more cards can be played."
    legal = state.legal_actions()
    if action in legal:
        return "That move is allowed here."
    if not 0 <= action < NUM_ACTIONS:
        return "That is not a card of the piquet pack."
    seat = state._cur
    hand = state._hands[seat]
    if not hand >> action & 1:
        if state._phase == GIVE:
            return f"You give the soloist a card of your own hand; you do not hold {card_words(action)}."
        return f"You do not hold {card_words(action)}."
    if state._phase == FIRST:
        if seat == state._soloist:
            return "The soloist must open the first trick with the seven of spades."
        if hand & SPADES:
            return f"In the first trick every defender must play his highest spade: here {_one_of(legal)}."
        how = state.game.options.first_trick_highest
        order = "by rank" if how == "rank" else "by card points, then rank"
        return (
            f"In the first trick a defender with no spade must play his highest card ({order}): "
            f"here {_one_of(legal)}."
        )
    led = SUIT_NAMES[state._led]
    if hand & SUIT_MASK[state._led]:
        return f"A defender must follow suit: you hold {led}, so you must play one of them."
    return f"A defender who cannot follow suit must trump: you have no {led}, so you must play a spade."
