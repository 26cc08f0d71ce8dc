"""docs/rules/pentyrch.md, The end: who has finished, when a game stops, points and returns.

What finishes is a *unit*: a seat, a two-player player's two seats, or a team of partners.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gamester.games.pentyrch.cards import POINTS
from gamester.games.pentyrch.moves import SAFE

if TYPE_CHECKING:
    from gamester.games.pentyrch.state import PentyrchState

FINISHED = "finished"
BLOCKED = "blocked"
MAX_ROUNDS = "max_rounds"


def unit_done(state: PentyrchState, unit: int) -> bool:
    """Whether every court card of the unit's seats is in safety."""
    cpos = state._cpos
    for s in state._unit_seats[unit]:
        for k in range(s * 3, s * 3 + 3):
            if cpos[k] != SAFE:
                return False
    return True


def unit_players(state: PentyrchState, u: int) -> list[int]:
    """The players of unit ``u`` (two seats of one player count once)."""
    return sorted({state._owner[s] for s in state._unit_seats[u]})


def game_points(state: PentyrchState) -> list[int]:
    """Jack 3, Queen 2, King 1 per card in safety, per player (this game only)."""
    pts = [0] * state._n
    owner = state._owner
    cpos = state._cpos
    for k in range(12):
        if cpos[k] == SAFE:
            pts[owner[k // 3]] += POINTS[k % 3]
    return pts


def end_reason(state: PentyrchState) -> str | None:
    """After the dealer's turn: why the game ends now (``finished``, ``blocked``, ``max_rounds``), or
    None if it goes on. ``state._round`` already counts the round just played."""
    if state._finished:
        return FINISHED
    if not state._moved:
        return BLOCKED
    if state._round >= state._max_rounds:
        return MAX_ROUNDS
    return None


def winners(state: PentyrchState, reason: str) -> list[int]:
    """The players who win the game that ends now for ``reason``."""
    if reason == FINISHED:
        # Everyone finished by the end of the round wins.
        win_units = list(state._finished)
    else:
        # Most court cards in safety, then points; a tie at the top shares it.
        cpos = state._cpos

        def merit(u: int) -> tuple[int, int]:
            count = pts = 0
            for s in state._unit_seats[u]:
                for k in range(s * 3, s * 3 + 3):
                    if cpos[k] == SAFE:
                        count += 1
                        pts += POINTS[k % 3]
            return count, pts

        merits = [merit(u) for u in range(len(state._unit_seats))]
        best = max(merits)
        win_units = [u for u, m in enumerate(merits) if m == best]
    return sorted({p for u in win_units for p in unit_players(state, u)})


def game_returns(n: int, winners: list[int]) -> list[float]:
    """The w winners +1 each, the others -w/(n-w); all tied (or nobody) gives 0."""
    w = len(winners)
    tied = w == 0 or w == n
    return [0.0 if tied else 1.0 if p in winners else -w / (n - w) for p in range(n)]


def game_result(state: PentyrchState, reason: str) -> dict[str, Any]:
    """The result of the game that ends now: reason, winners, returns and points (this game's)."""
    won = winners(state, reason)
    return {
        "game": state._g,
        "reason": reason,
        "winners": won if len(won) < state._n else [],
        "returns": game_returns(state._n, won),
        "scores": game_points(state),
    }
