"""Text views of Piquesept for the terminal: a board from one seat's observation, and narration.

Everything here is built from what one seat may know (``state.observation(seat)`` and
``state.last_events()`` filtered by their ``seats``); no rule is re-implemented.
"""

from __future__ import annotations

from typing import Any

from gamester.core.cards import card_symbol, parse_card


def _sym(code: str) -> str:
    return card_symbol(parse_card(code))


def _cards(codes: list[str]) -> str:
    return " ".join(_sym(c) for c in codes) if codes else "-"


def _who(seat: int, me: int) -> str:
    return "you" if seat == me else f"seat {seat}"


def board(obs: dict[str, Any]) -> str:
    """A multi-line view of the table for the seat that owns ``obs``."""
    me = obs["seat"]
    n = obs["players"]
    solo = obs["soloist"]
    lines = [f"Piquesept, deal {min(obs['deal'] + 1, obs['deals'])} of {obs['deals']} "
             f"(dealer: {_who(obs['dealer'], me)}; spades are trump)"]
    role = "you are the soloist" if solo == me else f"you defend against seat {solo}"
    lines.append(f"Soloist: {_who(solo, me)}, who holds the 7♠ ({role})")
    lines.append(f"Your hand: {_cards(obs['hand'])}")
    sizes = ", ".join(f"{_who(q, me)} {obs['hand_sizes'][q]}" for q in range(n))
    lines.append(f"Cards in hand: {sizes}")
    trade = obs["trade"]
    drawer = _who(obs["drawer"], me)
    if trade["stage"] == "pending":
        lines.append(f"Trade: after the first trick {drawer} draws a card from the soloist's hand")
    else:
        drawn = _sym(trade["drawn"]) if trade["drawn"] else "a hidden card"
        text = f"Trade: {drawer} drew {drawn}"
        if trade["stage"] == "given":
            given = _sym(trade["given"]) if trade["given"] else "a hidden card"
            text += f" and gave back {given}"
        else:
            text += " and must now give one card back"
        lines.append(text)
    if obs["tricks"]:
        last = obs["tricks"][-1]
        lines.append(f"Last trick (led by {_who(last['leader'], me)}): {_cards(last['cards'])}, won by "
                     f"{_who(last['winner'], me)} for {last['points']} points")
    if obs["phase"] in ("first_trick", "play"):
        leader = _who(obs["leader"], me)
        lines.append(f"Trick {obs['trick_number']}, led by {leader}: {_cards(obs['trick'])}")
    sp, dp = obs["side_points"]
    lines.append(f"Card points this deal: soloist {sp}, defenders {dp} (66 of 130 wins)")
    lines.append("Scores: " + ", ".join(f"{_who(q, me)} {obs['scores'][q]}" for q in range(n)))
    if obs["past_deals"]:
        lines.append("Results so far: " + ", ".join(f"{_who(q, me)} {obs['returns_so_far'][q]:+d}"
                                                  for q in range(n)))
    cp = obs["current_player"]
    if cp is None:
        lines.append("The game is over.")
    elif cp == me:
        task = "give the soloist one card" if obs["phase"] == "give" else "play a card"
        lines.append(f"Your turn: {task}")
    else:
        lines.append(f"Waiting for seat {cp}.")
    return "\n".join(lines)


def narrate(event: dict[str, Any], seat: int) -> str | None:
    """One sentence about ``event`` as ``seat`` sees it; None if the event is not for that seat."""
    if "seats" in event and seat not in event["seats"]:
        return None
    kind = event.get("type")
    if kind == "deal":
        return f"Deal {event['deal'] + 1}: {_who(event['dealer'], seat).capitalize()} dealt."
    if kind == "soloist":
        if event["seat"] == seat:
            return "You hold the 7♠: you play alone against everyone else."
        return f"Seat {event['seat']} holds the 7♠ and plays alone against the rest."
    if kind == "trick":
        return (f"{_who(event['winner'], seat).capitalize()} won the trick {_cards(event['cards'])} "
                f"for {event['points']} points.")
    if kind in ("draw", "give"):
        r, s, card = event["drawer"], event["soloist"], event.get("card")
        shown = _sym(card) if card else "a card"
        if kind == "draw":
            return f"{_who(r, seat).capitalize()} drew {shown} from {_who(s, seat)}."
        return f"{_who(r, seat).capitalize()} gave {shown} to {_who(s, seat)}."
    if kind == "deal_over":
        sp, dp = event["card_points"]
        outcome = "a draw" if sp == dp else "the soloist wins" if sp >= 66 else "the defenders win"
        return f"The deal is over: soloist {sp}, defenders {dp}; {outcome}."
    if kind == "game_over":
        r = event["returns"]
        lines = [f"The game is over; your result: {r[seat]:+g}."]
        deals = event.get("deals", [])
        if len(deals) > 1:  # a match: each deal's result, and this seat's share
            for i, d in enumerate(deals, 1):
                sp, dp = d["card_points"]
                soloist = "you" if d["soloist"] == seat else f"seat {d['soloist']}"
                lines.append(f"  deal {i}: {soloist} alone, {sp} to {dp}, "
                             f"your result {d['returns'][seat]:+d}")
        return "\n".join(lines)
    return None
