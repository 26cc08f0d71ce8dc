"""Penneech in words and text, for the terminal: built from one seat's observation only."""

from __future__ import annotations

from typing import Any

from gamester.core.cards import SUIT_NAMES, SUIT_SYMBOLS, SUITS, card_symbol, parse_card


def sym(code: str) -> str:
    return card_symbol(parse_card(code))


def cards(codes: list[str]) -> str:
    return " ".join(sym(c) for c in codes) if codes else "-"


def suit_name(letter: str) -> str:
    return SUIT_NAMES[SUITS.index(letter)]


def who(p: int, seat: int) -> str:
    return "You" if p == seat else f"Seat {p}"


def board(obs: dict[str, Any]) -> str:
    seat = obs["seat"]
    opp = 1 - seat
    lines = [
        f"Scores: you {obs['scores'][seat]}, seat {opp} {obs['scores'][opp]} (game to {obs['target']})"
        f" | deal {obs['deal'] + 1}, {who(obs['dealer'], seat).lower()} dealt"
        f" | tricks: you {obs['tricks_won'][seat]}, seat {opp} {obs['tricks_won'][opp]}",
    ]
    if obs["turn_up"]:
        t = obs["trump"]
        lines.append(f"Turn-up {sym(obs['turn_up'])}: {suit_name(t)} {SUIT_SYMBOLS[SUITS.index(t)]} are "
                     f"trumps for this trick")
    if obs["trick"]:
        lines.append(f"On the table: {cards(obs['trick'])} led by {who(obs['leader'], seat).lower()}")
    voids = obs["known_voids"][opp]
    if voids:
        lines.append(f"Seat {opp} has shown no {', '.join(suit_name(v) for v in voids)}")
    lines.append(f"Your hand: {cards(obs['hand'])}   (seat {opp} holds {obs['opponent_hand_size']})")
    return "\n".join(lines)


def narrate(event: dict[str, Any], seat: int) -> str | None:
    if "seats" in event and seat not in event["seats"]:
        return None
    kind = event["type"]
    if kind == "draw":
        c0, c1 = event["cards"]
        if event["dealer"] is None:
            return f"Drawing for deal: seat 0 {sym(c0)}, seat 1 {sym(c1)}: equal, draw again."
        return (f"Drawing for deal: seat 0 {sym(c0)}, seat 1 {sym(c1)}: the lower card deals, "
                f"{who(event['dealer'], seat).lower()}.")
    if kind == "deal":
        dealer = "you deal" if event["dealer"] == seat else f"seat {event['dealer']} deals"
        return f"Deal {event['deal'] + 1}: {dealer}."
    if kind == "redeal":
        return (f"{who(event['seat'], seat)} threw in a hand with no high card "
                f"({cards(event['cards'])}); the same dealer deals again.")
    if kind == "keep":
        return f"{who(event['seat'], seat)} kept the hand."
    if kind == "turn_up":
        s = (f"{who(event['seat'], seat)} turned up {sym(event['card'])}: "
             f"{suit_name(event['trump'])} are trumps")
        if event["points"]:
            s += f", and {'score' if event['seat'] == seat else 'scores'} {event['points']}"
            if event["card"] == "7D":
                s += " for Penneech itself"
        return s + "."
    if kind == "trick":
        s = f"{who(event['winner'], seat)} won the trick {cards(event['cards'])}"
        if event["points"]:
            s += f" with {event['points']} in honours"
        return s + "."
    if kind == "card_bonus":
        return f"{who(event['seat'], seat)} took the most tricks and scores {event['points']} for cards."
    if kind == "game_over":
        w = event["winner"]
        sc = event["scores"]
        if w is None:
            return f"The deal ends level, {sc[0]}-{sc[1]}."
        return f"{'You win' if w == seat else f'Seat {w} wins'}, {sc[w]} to {sc[1 - w]}."
    return None
