"""A fast, typed, read-only record of where a Piquesept deal stands (``PiqueseptState.deal_view``).

Search code (the solver, the heuristic's playout) reads a world through this instead of the state's
private fields. It shows every hand, so it is for worlds an agent sampled itself (``determinize``),
never for the real game: there a seat gets ``observation`` only.
"""

from __future__ import annotations

from typing import NamedTuple


class DealView(NamedTuple):
    """One moment of a deal; cards are dense actions, hands and masks 32-bit masks of them."""

    players: int
    phase: int
    """A ``game.Phase`` value (first trick, play, give, over)."""
    deal: int
    """Deals started before this one (0 for the first)."""
    current: int
    """The seat to act (``TERMINAL`` once the game is over)."""
    hands: tuple[int, ...]
    soloist: int
    drawer: int
    leader: int
    """Who led the trick in progress (or leads the next one)."""
    trick: tuple[int, ...]
    """The trick so far, in playing order from ``leader``."""
    led: int
    """The suit led to the trick in progress, -1 before its first card."""
    best: int
    """``rules.VAL[led][card]`` of the card winning the trick so far (-1 before its first card)."""
    winner: int
    """The seat winning the trick so far."""
    tricks_played: int
    drawn: int
    """The card drawn from the soloist in the trade (-1 not yet)."""
    given: int
    """The card the drawer gave back (-1 not yet)."""
    taken: tuple[int, ...]
    """Card points each seat has won in this deal's tricks."""
    last_deal_points: int
    """The soloist's side's card points in the last finished deal (-1 before the first ends)."""
