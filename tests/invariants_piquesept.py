"""Piquesept invariants, checked after every action by the conformance suite: ``check(state)``.

Cards are conserved (each card of the deal's pack is in exactly one hand or played exactly once),
hand sizes follow the play and the trade, the cached legal mask matches the rules, the soloist is
the holder of the 7S, card points add up to 130 per finished deal, and returns are zero-sum.
"""

from __future__ import annotations

from gamester.core.protocol import State
from gamester.games.piquesept.game import PiqueseptState
from gamester.games.piquesept.rules import PTS, SEVEN_S, TOTAL_POINTS


def check(state: State) -> None:
    assert isinstance(state, PiqueseptState)
    g = state.game
    n = g.num_players
    assert sum(state.returns()) == 0
    # The cached legal mask of the hot path agrees with the rules computed afresh.
    assert state._lm == state._legal_mask()
    if state.is_terminal():
        assert sum(state.scores()) == TOTAL_POINTS * g.options.deals
        assert all(h == 0 for h in state._hands)
        return
    seen = 0
    total = 0
    for h in state._hands:
        assert not seen & h, "a card is in two hands"
        seen |= h
        total += h.bit_count()
    played_by = [0] * n
    tricks = [(t[0], t[1]) for t in state._done] + ([(state._leader, state._trick)] if state._trick else [])
    for leader, cards in tricks:
        seat = leader
        for c in cards:
            assert not seen >> c & 1, "a played card is also held or played twice"
            seen |= 1 << c
            played_by[seat] += 1
            seat = (seat + 1) % n
        total += len(cards)
    assert seen == g.pack_mask and total == len(g.pack_ids), "cards not conserved"
    sizes = [h.bit_count() for h in state._hands]
    for q in range(n):
        expected = g.hand_size - played_by[q]
        if state._x >= 0 and state._y < 0:
            expected += (q == state._drawer) - (q == state._soloist)
        assert sizes[q] == expected, f"seat {q} holds {sizes[q]} cards, expected {expected}"
    s = state._soloist
    assert state._dealt[s] >> SEVEN_S & 1, "the soloist was not dealt the 7S"
    done_points = sum(sum(PTS[c] for c in t[1]) for t in state._done)
    assert sum(state.scores()) == TOTAL_POINTS * state._deal_no + done_points
