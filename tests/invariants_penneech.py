"""Penneech invariants checked after every action of the conformance games."""

from __future__ import annotations

from gamester.core.protocol import State
from gamester.games.penneech.game import PenneechState


def check(state: State) -> None:
    """Cards conserved: each deal's 52 cards are in exactly one place (a hand, played, turned up or
    still in the stock); trick counts and hand sizes agree."""
    assert isinstance(state, PenneechState)
    s = state
    pack = s._pack
    assert sorted(pack[: s._pos]) == sorted(set(pack[: s._pos]))
    hands, dealt = s._hands, s._dealt
    assert hands[0] & hands[1] == 0
    assert dealt[0] & dealt[1] == 0 and (dealt[0] | dealt[1]).bit_count() == 14
    for seat in (0, 1):
        assert hands[seat] & ~dealt[seat] == 0
    played = (dealt[0] & ~hands[0]).bit_count() + (dealt[1] & ~hands[1]).bit_count()
    tricks = sum(s._tricks)
    if not s.is_terminal():
        assert played == 2 * tricks + (1 if s._led >= 0 else 0)
        assert s._pos - 14 == (0 if s._phase == 0 else tricks + 1)
    assert all(x >= 0 for x in s.scores())
