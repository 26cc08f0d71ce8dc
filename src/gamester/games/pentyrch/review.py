"""What a review of a Pentyrch decision says (``gamester review``, docs/review.md): the reviewed
player's share of the best result, the facts one playout of a sampled world gives for that player,
and the sentence that tells why the best move beats the one played.

Pentyrch is scored by places as much as by winning: a player out of the race for first still gains
by finishing second rather than last. So a finished game is worth :func:`share` to a player: the
share of the other players it finishes ahead of (a tie counts half), ordered as the rules order them
(the winners first, then most court cards in safety, then their points: Jack 3, Queen 2, King 1).
Alone first is 1, alone last 0. Rules: rules.md beside this file (End).

Every fact is read in a world the review drew from the player's own view, so the sentence never rests
on a card the player could not see.
"""

from __future__ import annotations

from typing import Any

from gamester.core.protocol import State
from gamester.games.pentyrch.moves import SAFE
from gamester.games.pentyrch.state import PentyrchState

EVENTS = False
"""The facts below read the end of a playout, not its events: the review need not collect them."""


def _home(state: State) -> list[int]:
    """Each player's court cards in safety (both seats of a two-player player)."""
    assert isinstance(state, PentyrchState)
    view = state.world_view()
    count = [0] * state.game.num_players
    for k, cell in enumerate(view.cpos):
        if cell == SAFE:
            count[view.owner[k // 3]] += 1
    return count


def share(state: State, player: int) -> float:
    """The player's place in a finished game, as a share of the best (the module docstring)."""
    n = state.game.num_players
    returns, scores, home = state.returns(), state.scores(), _home(state)

    def key(q: int) -> tuple[float, int, int]:
        return returns[q], home[q], scores[q]

    mine = key(player)
    others = [key(q) for q in range(n) if q != player]
    ahead = sum(1.0 if k < mine else 0.5 if k == mine else 0.0 for k in others)
    return ahead / len(others)


def facts(before: State, after: State, events: list[dict[str, Any]], player: int) -> dict[str, float]:
    """``home``: the player's court cards in safety at the end; ``points``: their points."""
    return {"home": float(_home(after)[player]), "points": float(after.scores()[player])}


def why(obs: dict[str, Any], played: str, best: str, p: dict[str, float], b: dict[str, float]) -> str | None:
    """One sentence: the court cards the best move brings home, else the place it keeps."""
    if b["home"] - p["home"] >= 0.25:
        return f"{best} brings {b['home']:.1f} of your court cards home on average, {played} {p['home']:.1f}."
    if b["points"] - p["points"] >= 0.5:
        return (
            f"{best} gets you {b['points']:.1f} points of court cards in safety on average, "
            f"{played} {p['points']:.1f}."
        )
    if b["share"] > p["share"]:
        return (
            f"{best} finishes you higher on average: {b['share']:.0%} of a win's worth against "
            f"{p['share']:.0%}."
        )
    return None
