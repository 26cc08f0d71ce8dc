"""What a review of a Piquesept decision says (``gamester review``, docs/review.md): the facts one
playout of a sampled world gives for the reviewed player's side, and the sentence that tells why the
best move beats the one played.

Every fact is read in a world the review drew from the player's own view, so the sentence never rests
on a card the player could not see. Rules: rules.md beside this file (Card points, The draw and trade).
"""

from __future__ import annotations

from typing import Any

from gamester.core.protocol import State

POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}


def _points(card: str) -> int:
    return 10 if card == "7S" else POINTS.get(card[0], 0)


def _side(state: State, player: int) -> set[int]:
    soloist = state.observation(player)["soloist"]
    n = state.game.num_players
    if player == soloist:
        return {player}
    return {q for q in range(n) if q != soloist}


def facts(before: State, after: State, events: list[dict[str, Any]], player: int) -> dict[str, float]:
    """``trick``: 1 when the player's side wins the trick this move goes into; ``points``: the card
    points the player's side takes from the move to the end of the deal."""
    side = _side(before, player)
    out: dict[str, float] = {}
    trick = next((e for e in events if e["type"] == "trick"), None)
    if trick is not None:
        out["trick"] = 1.0 if trick["winner"] in side else 0.0
    b, a = before.scores(), after.scores()
    out["points"] = float(sum(a[q] - b[q] for q in side))
    return out


def why(obs: dict[str, Any], played: str, best: str, p: dict[str, float], b: dict[str, float]) -> str | None:
    """One sentence: the card points the give saves, the trick the best move wins, or the points it
    brings your side."""
    if obs.get("phase") == "give":
        trump = {c: " and a trump" if c[1] == "S" else "" for c in (played, best)}
        if (_points(best), best[1] == "S") < (_points(played), played[1] == "S"):
            return (
                f"{best} brings the soloist {_points(best)} card points{trump[best]}, {played} "
                f"{_points(played)}{trump[played]}."
            )
    if "trick" in p and "trick" in b and b["trick"] >= 0.5 and b["trick"] - p["trick"] >= 0.25:
        if b["trick"] > 0.99 and p["trick"] < 0.01:
            return (
                f"With {best} your side takes this trick whatever the hidden cards are; with {played} "
                "it does not."
            )
        return (
            f"With {best} your side takes this trick in {b['trick']:.0%} of the deals that fit what "
            f"you saw, with {played} in {p['trick']:.0%}."
        )
    gain = b["points"] - p["points"]
    if gain >= 2:
        return (
            f"{best} brings your side {gain:.0f} more card points over the deal on average "
            f"({b['points']:.0f} against {p['points']:.0f})."
        )
    return None
