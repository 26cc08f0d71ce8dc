"""Penneech in words and text, for the terminal: built from one seat's observation only."""

from __future__ import annotations

from typing import Any

from gamester.core.cards import suit_name
from gamester.core.words import Names, card, cards, plural

HELP = """How to write a move in Penneech:
  a card: its rank then its suit, e.g. 7D or 7♦ (seven of diamonds), 10S or TS,
    QH, AC
  keep / redeal: keep a hand with nothing above a ten, or throw it in for a
    new deal
  Ranks 2-10, J, Q, K, A; suits C ♣ clubs, D ♦ diamonds, H ♥ hearts, S ♠ spades.
  A new trump is turned up before every trick; you must follow suit if you can
  (see gamester rules penneech for the rule set in use)."""


NARRATED_ACTIONS = ("keep", "redeal")  # their events say it all: no "X played keep." line


def _names(seat: int, names: Names | None) -> Names:
    return names or Names(seat if seat >= 0 else None, ("player 0", "player 1"))


def board(obs: dict[str, Any], names: Names | None = None) -> str:
    seat = obs["seat"]
    nm = _names(seat, names)
    opp = 1 - seat
    sc, tw = obs["scores"], obs["tricks_won"]
    dealt = "you dealt" if obs["dealer"] == seat else f"{nm(obs['dealer'])} dealt"
    lines = [
        f"Penneech, deal {obs['deal'] + 1} ({dealt}); the game is to {obs['target']}",
        f"Score: you {sc[seat]}, {nm(opp)} {sc[opp]}.   Tricks this deal: you {tw[seat]}, "
        f"{nm(opp)} {tw[opp]}",
    ]
    if obs["turn_up"] and obs.get("phase") != "over":
        lines.append(f"Turn-up {card(obs['turn_up'])}: {suit_name(obs['trump'])} are trumps for this trick")
    if obs["trick"]:
        lines.append(f"On the table: {cards(obs['trick'])}, led by {nm(obs['leader'])}")
    voids = obs["known_voids"][opp]
    if voids:
        lines.append(f"{nm(opp, cap=True)} has shown no {' or '.join(suit_name(v) for v in voids)}")
    lines.append(
        f"Your hand: {cards(obs['hand'])}   ({nm(opp)} holds {plural(obs['opponent_hand_size'], 'card')})"
    )
    return "\n".join(lines)


def hands(state_hands: list[list[str]], names: Names) -> str:
    """Every hand, for a replay seen from above (the full record shows them all)."""
    return "  Hands: " + "; ".join(f"{names(p)} {cards(h)}" for p, h in enumerate(state_hands))


def narrate(event: dict[str, Any], seat: int, names: Names | None = None) -> str | None:
    if "seats" in event and seat not in event["seats"]:
        return None
    nm = _names(seat, names)
    kind = event["type"]
    if kind == "draw":
        c0, c1 = event["cards"]
        drawn = f"{nm(0)} {card(c0)}, {nm(1)} {card(c1)}"
        if event["dealer"] is None:
            return f"Drawing for the deal: {drawn}: equal, so draw again."
        return f"Drawing for the deal: {drawn}; the lower card deals: {nm(event['dealer'])}."
    if kind == "deal":
        return f"Deal {event['deal'] + 1}: {nm.subject(event['dealer'], 'deal')}."
    if kind == "redeal":
        return (
            f"{nm.subject(event['seat'], 'throw', cap=True)} in a hand with nothing above a ten "
            f"({cards(event['cards'])}); the same dealer deals again."
        )
    if kind == "keep":
        return f"{nm.subject(event['seat'], 'keep', cap=True)} the hand."
    if kind == "turn_up":
        s = f"{nm.subject(event['seat'], 'turn', cap=True)} up {card(event['card'])}"
        if not event.get("_last"):
            s += f": {suit_name(event['trump'])} are trumps"
        if event["points"]:
            s += f", and {'score' if event['seat'] == nm.me else 'scores'} {event['points']}"
            if event["card"] == "7D":
                s += " for Penneech itself"
        return s + "."
    if kind == "trick":
        s = f"{nm.subject(event['winner'], 'win', cap=True)} the trick {cards(event['cards'])}"
        if event["points"]:
            s += f", with {event['points']} for honours"
        return s + "."
    if kind == "card_bonus":
        return (
            f"{nm.subject(event['seat'], 'take', cap=True)} the most tricks and "
            f"{'score' if event['seat'] == nm.me else 'scores'} {event['points']} for cards."
        )
    if kind == "game_over":
        w = event["winner"]
        sc = event["scores"]
        if w is None:
            return f"The deal ends level, {sc[0]} to {sc[1]}."
        return (
            f"{nm.subject(w, 'win', cap=True)} the game, {sc[w]} points to {sc[1 - w]} "
            f"(by {sc[w] - sc[1 - w]})."
        )
    return None


def narrate_all(events: list[dict[str, Any]], seat: int, names: Names | None = None) -> list[str]:
    """The events of one action in order. A turn-up that ends the game announces no trump: there
    is no trick left to play under it."""
    out = []
    over = any(e["type"] in ("game_over",) for e in events)
    for e in events:
        if e["type"] == "turn_up" and over:
            e = dict(e, _last=True)
        line = narrate(e, seat, names)
        if line:
            out.append(line)
    return out
