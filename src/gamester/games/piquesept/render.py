"""Text views of Piquesept for the terminal: a board from one seat's observation, and narration.

Everything here is built from what one seat may know (``state.observation(seat)`` and
``state.last_events()`` filtered by their ``seats``); no rule is re-implemented: the points to win
and the total are the engine's (``rules.py``), a deal's outcome is the sign of its returns.
"""

from __future__ import annotations

from typing import Any

from gamester.core.words import Names
from gamester.core.words import card as _sym
from gamester.core.words import cards as _cards
from gamester.games.piquesept.rules import TOTAL_POINTS, WIN_POINTS

HELP = f"""How to write a move in Piquesept:
  a card: its rank then its suit, e.g. 7S or 7♠ (seven of spades), 10H or TH,
    QD, AC
  Ranks 7 8 9 10 J Q K A; suits C ♣ clubs, D ♦ diamonds, H ♥ hearts, S ♠ spades
  (spades are trump).
  The holder of 7♠ plays alone and leads it; after the first trick the defender
  on the soloist's left draws a card from the soloist's hand and gives one back
  (type the card to give). {WIN_POINTS} card points of {TOTAL_POINTS} win the deal (see gamester
  rules piquesept)."""


def _default(me: int, n: int, names: Names | None) -> Names:
    return names or Names(me if me >= 0 else None, tuple(f"player {p}" for p in range(n)))


def board(obs: dict[str, Any], names: Names | None = None) -> str:
    """A multi-line view of the table for the seat that owns ``obs``."""
    me = obs["seat"]
    n = obs["players"]
    nm = _default(me, n, names)
    solo = obs["soloist"]
    lines = [
        f"Piquesept, deal {min(obs['deal'] + 1, obs['deals'])} of {obs['deals']} "
        f"(dealer: {nm(obs['dealer'])}; spades are trumps)"
    ]
    role = "you play alone against everyone else" if solo == me else f"you defend against {nm(solo)}"
    lines.append(f"Soloist: {nm(solo)}, who held the 7♠ ({role})")
    lines.append(f"Your hand: {_cards(obs['hand'])}")
    sizes = ", ".join(f"{nm(q)} {obs['hand_sizes'][q]}" for q in range(n))
    lines.append(f"Cards in hand: {sizes}")
    trade = obs["trade"]
    drawer = obs["drawer"]
    if trade["stage"] == "pending":
        lines.append(
            f"Trade after trick 1: {nm(drawer)} {'take' if drawer == me else 'takes'} a card "
            f"from the soloist, {'give' if drawer == me else 'gives'} one back"
        )
    else:
        drawn = _sym(trade["drawn"]) if trade["drawn"] else "a hidden card"
        text = f"Trade: {nm(drawer)} drew {drawn}"
        if trade["stage"] == "given":
            given = _sym(trade["given"]) if trade["given"] else "a hidden card"
            text += f" and gave back {given}"
        else:
            text += " and must now give one card back"
        lines.append(text)
    if obs["tricks"]:
        last = obs["tricks"][-1]
        lines.append(
            f"Last trick (led by {nm(last['leader'])}): {_cards(last['cards'])}, won by "
            f"{nm(last['winner'])} for {last['points']} points"
        )
    if obs["phase"] in ("first_trick", "play"):
        lines.append(f"Trick {obs['trick_number']}, led by {nm(obs['leader'])}: {_cards(obs['trick'])}")
    sp, dp = obs["side_points"]
    if obs["phase"] != "over":
        wins = f"{WIN_POINTS} of {TOTAL_POINTS} wins"
        lines.append(f"Card points this deal: soloist {sp}, defenders {dp} ({wins})")
    lines.append("Scores: " + ", ".join(f"{nm(q)} {obs['scores'][q]}" for q in range(n)))
    if obs["past_deals"]:
        lines.append(
            "Results so far: " + ", ".join(f"{nm(q)} {obs['returns_so_far'][q]:+d}" for q in range(n))
        )
    cp = obs["current_player"]
    if cp is None:
        lines.append("The game is over.")
    elif cp == me:
        task = "give the soloist one card" if obs["phase"] == "give" else "play a card"
        lines.append(f"Your turn: {task}")
    else:
        lines.append(f"Waiting for {nm(cp)}.")
    return "\n".join(lines)


def narrate(event: dict[str, Any], seat: int, names: Names | None = None) -> str | None:
    """One sentence about ``event`` as ``seat`` sees it; None if the event is not for that seat."""
    if "seats" in event and seat not in event["seats"]:
        return None
    n = len(event["returns"]) if "returns" in event else 4
    nm = _default(seat, n, names)
    kind = event.get("type")
    if kind == "deal":
        return f"Deal {event['deal'] + 1}: {nm(event['dealer'], cap=True)} dealt."
    if kind == "soloist":
        if event["seat"] == nm.me:
            return "You hold the 7♠: you play alone against everyone else."
        return f"{nm(event['seat'], cap=True)} holds the 7♠ and plays alone against the rest."
    if kind == "trick":
        return (
            f"{nm(event['winner'], cap=True)} won the trick {_cards(event['cards'])} "
            f"for {event['points']} points."
        )
    if kind in ("draw", "give"):
        r, s, card = event["drawer"], event["soloist"], event.get("card")
        shown = _sym(card) if card else "a card"
        if kind == "draw":
            return f"{nm(r, cap=True)} drew {shown} from {nm(s)}."
        return f"{nm(r, cap=True)} gave {shown} to {nm(s)}."
    if kind == "deal_over":
        sp, dp = event["card_points"]
        won = event["returns"][event["soloist"]]
        outcome = "a draw" if won == 0 else "the soloist wins" if won > 0 else "the defenders win"
        return f"The deal is over: soloist {sp}, defenders {dp}; {outcome}."
    if kind == "game_over":
        r = event["returns"]
        if nm.me is None:
            lines = ["The game is over: " + ", ".join(f"{nm(q)} {r[q]:+g}" for q in range(len(r))) + "."]
        else:
            lines = [f"The game is over; your result: {r[nm.me]:+g}."]
        deals = event.get("deals", [])
        if len(deals) > 1 and nm.me is not None:  # a match: each deal's result, and this seat's share
            for i, d in enumerate(deals, 1):
                sp, dp = d["card_points"]
                lines.append(
                    f"  deal {i}: {nm(d['soloist'])} alone, {sp} to {dp}, "
                    f"your result {d['returns'][nm.me]:+d}"
                )
        return "\n".join(lines)
    return None


def final(obs: dict[str, Any], names: Names | None = None) -> str:
    """Who won the game and by how much: each deal's card points, then every player's result."""
    me = obs["seat"]
    n = obs["players"]
    nm = _default(me, n, names)
    parts = []
    for d in obs["past_deals"]:
        s = d["soloist"]
        sp, dp = d["card_points"]
        if sp == dp:
            parts.append(f"{nm(s)} alone and the defenders drew, {sp} card points each")
        elif d["returns"][s] > 0:
            parts.append(f"{nm(s)} won alone, {sp} card points to {dp}")
        else:
            parts.append(f"the defenders beat {nm(s)}, {dp} card points to {sp}")
    head = "; ".join(parts) if len(parts) < 3 else f"after {len(parts)} deals"
    results = ", ".join(f"{nm(q)} {obs['returns_so_far'][q]:+d}" for q in range(n))
    return f"Game over: {head[0].upper() + head[1:]}. Result: {results}."
