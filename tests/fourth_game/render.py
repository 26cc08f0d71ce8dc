"""Text views of Minitrick for the terminal (the interface every game's ``render.py`` keeps:
``board``, ``narrate``, ``HELP``), built only from one seat's observation and its events.

Shipped in the game's folder, as every game ships it; the terminal finds it through the registry.
"""

from __future__ import annotations

from typing import Any

from gamester.core.words import Names
from gamester.core.words import cards as _cards

HELP = """How to write a move in Minitrick:
  a card: its rank then its suit, e.g. QS (queen of spades), KH, AD
  Ranks Q K A; suits C clubs, D diamonds, H hearts, S spades. Follow suit if you can
  (see gamester rules minitrick)."""


def _names(me: int | None, n: int, names: Names | None) -> Names:
    return names or Names(me, tuple(f"player {p}" for p in range(n)))


def board(obs: dict[str, Any], names: Names | None = None) -> str:
    """A few lines for the seat (or spectator) that owns ``obs``."""
    n = obs["players"]
    nm = _names(obs["seat"], n, names)
    trump = obs["trump"] or "none"
    lines = [
        f"Minitrick, deal {min(obs['deal'] + 1, obs['deals'])} of {obs['deals']} "
        f"(dealer: {nm(obs['dealer'])}; turned up {obs['turnup']}, trump {trump})",
    ]
    if "hand" in obs:
        lines.append(f"Your hand: {_cards(obs['hand'])}")
    lines.append("Tricks: " + ", ".join(f"{nm(p)} {obs['scores'][p]}" for p in range(n)))
    if obs["trick"]:
        lines.append(f"On the table (led by {nm(obs['leader'])}): {_cards(obs['trick'])}")
    return "\n".join(lines)


def narrate(event: dict[str, Any], seat: int, names: Names | None = None) -> str | None:
    """One line for an event, or None for events not worth a line."""
    nm = names or Names(seat if seat >= 0 else None, tuple(f"player {p}" for p in range(3)))
    kind = event["type"]
    if kind == "trick":
        return f"{nm.subject(event['winner'], 'win', cap=True)} the trick ({_cards(event['cards'])})."
    if kind == "deal":
        return f"{nm.subject(event['dealer'], 'deal', cap=True)}; the turn-up is {event['turnup']}."
    if kind == "game_over":
        return "Game over: tricks " + ", ".join(str(s) for s in event["scores"]) + "."
    return None
