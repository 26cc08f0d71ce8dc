"""What a review of a Penneech decision says (``gamester review``, docs/review.md): the facts one
playout of a sampled world gives for the reviewed player, and the sentence that tells why the best
move beats the one played.

Every fact is read in a world the review drew from the player's own view, so the sentence never rests
on a card the player could not see. Rules: rules.md beside this file (Tricks, End of deal).
"""

from __future__ import annotations

from typing import Any

from gamester.core.protocol import State

HONOURS = {"A": 5, "K": 4, "Q": 3, "J": 2}


def facts(before: State, after: State, events: list[dict[str, Any]], player: int) -> dict[str, float]:
    """``trick``: 1 when the player wins the trick this move goes into (absent for a move that is no
    card); ``net``: the player's points over the opponent's, from the move to the end of the playout
    (the end of the deal, or of the game)."""
    out: dict[str, float] = {}
    trick = next((e for e in events if e["type"] == "trick"), None)
    if trick is not None:
        out["trick"] = 1.0 if trick["winner"] == player else 0.0
    b, a = before.scores(), after.scores()
    other = 1 - player
    out["net"] = float((a[player] - b[player]) - (a[other] - b[other]))
    return out


def _is_card(move: str) -> bool:
    return len(move) == 2


def _rank_points(card: str) -> int:
    return 14 if card == "7D" else HONOURS.get(card[0], 0)


def why(obs: dict[str, Any], played: str, best: str, p: dict[str, float], b: dict[str, float]) -> str | None:
    """One sentence: the trick the best move wins, the points it saves, or the honour it keeps."""
    if "trick" in p and "trick" in b and b["trick"] >= 0.5 and b["trick"] - p["trick"] >= 0.25:
        if b["trick"] > 0.99 and p["trick"] < 0.01:
            return f"{best} wins this trick whatever the hidden cards are; {played} loses it."
        return (
            f"{best} wins this trick in {b['trick']:.0%} of the deals that fit what you saw, {played} "
            f"in {p['trick']:.0%}."
        )
    gain = b["net"] - p["net"]
    if gain < 0.5:
        return None  # the points do not tell them apart: the chance of winning does (the review's own words)
    if {played, best} == {"keep", "redeal"}:
        what = "Keeping this hand" if best == "keep" else "A new hand"
        return f"{what} brings {gain:.1f} points more over the deal on average."
    if (
        _is_card(played)
        and _is_card(best)
        and abs(b.get("trick", 0.0) - p.get("trick", 0.0)) < 0.25
        and _rank_points(played) > _rank_points(best)
    ):
        return (
            f"{best} does as much for this trick and keeps your {played} for a later one: {gain:.1f} "
            "points better over the deal on average."
        )
    return f"{best} comes out {gain:.1f} points better than {played} over the rest of the deal, on average."
