"""Pentyrch in text: the board for one player's observation, and one sentence per event.

Everything here is built from ``PentyrchState.observation(player)`` and ``last_events()``; nothing
re-implements a rule (rules/pentyrch.md lives in ``gamester.games.pentyrch``).
"""

from __future__ import annotations

from typing import Any

SEAT_NAMES = ("West", "North", "East", "South")
_ROWS = (("d7",), ("c6", "d6", "e6"), ("b5", "c5", "d5", "e5", "f5"),
         ("a4", "b4", "c4", "d4", "e4", "f4", "g4"), ("b3", "c3", "d3", "e3", "f3"),
         ("c2", "d2", "e2"), ("d1",))
_HOMES = {"a4": "W", "d7": "N", "g4": "E", "d1": "S"}
_WIDTH = 11


def _value(code: str) -> str:
    r = code[0]
    return "A" if r == "A" else "10" if r == "T" else r


def _cell_text(name: str, cell: dict[str, Any]) -> str:
    pile = cell["pile"]
    if name == "d4":
        top = "free"
    else:
        top = _value(pile[-1]) + (f"x{len(pile)}" if len(pile) > 1 else "") if pile else "-"
    stack = "/".join(cell["stack"])
    mark = "*" if name in _HOMES else ""
    text = f"{mark}{top}" + (f" {stack}" if stack else "")
    return text[:_WIDTH].center(_WIDTH)


def board(obs: dict[str, Any]) -> str:
    """The cross as text for one player's view: each cell's pile top value (``5x3``: a 5 on a pile of
    three) and its court stack bottom to top; home cells starred; then whose turn it is, the hand and
    what is known of the other hands."""
    cells = obs["board"]
    lines = []
    for rank, row in zip(range(7, 0, -1), _ROWS, strict=True):
        pad = (7 - len(row)) // 2
        parts = [" " * _WIDTH] * pad + [_cell_text(n, cells[n]) for n in row] + [" " * _WIDTH] * pad
        lines.append(f"{rank} " + "|".join(parts))
    lines.append("  " + "|".join(f.center(_WIDTH) for f in "abcdefg"))
    lines.append("  * home cells: a4 West, d7 North, g4 East, d1 South (each the goal of the "
                 "seat opposite)")
    seat = obs.get("seat_to_move")
    if seat is None:
        lines.append("The game is over.")
    else:
        lines.append(f"Round {obs['round'] + 1}: {SEAT_NAMES[seat]} (player {obs['current_player']}) "
                     f"to move.")
    lines.append(f"You are player {obs['player']} ({', '.join(SEAT_NAMES[s] for s in obs['my_seats'])}); "
                 f"your hand: {' '.join(obs['hand']) or '(empty)'}")
    for h in obs["hands"]:
        if h["player"] == obs["player"]:
            continue
        known = " ".join(h["known"]) or "nothing"
        lines.append(f"  player {h['player']}: known {known}, {h['unknown']} unseen")
    safe = "; ".join(f"{s}: {' '.join(c)}" for s, c in obs["safe"].items() if c)
    lines.append(f"In safety: {safe or 'nothing yet'}. Scores: {obs['scores']}")
    return "\n".join(lines)


def narrate(event: dict[str, Any], seat: int) -> str | None:
    """One English sentence for an event, or None when ``seat`` may not see it."""
    allowed = event.get("seats")
    if allowed is not None and seat not in allowed:
        return None
    kind = event.get("type")
    who = SEAT_NAMES[event["seat"]] if "seat" in event else ""
    if kind == "new_game":
        return f"Game {event['game'] + 1} begins: the cross is laid out and the hands are dealt."
    if kind in ("move", "enter"):
        how = {"free": "onto the free space", "cover": "covering the stack there",
               "exchange": "by exchange", "show": "by showing a card"}[event["how"]]
        if kind == "enter":
            return f"{who} enters {event['card']} on {event['to']} {how}."
        return f"{who} moves {event['card']} from {event['from']} to {event['to']} {how}."
    if kind == "exchange":
        return (f"{who} takes {' '.join(event['taken'])} from {event['cell']} and lays "
                f"{' '.join(event['laid'])} ({event['laid'][0]} on top).")
    if kind == "show":
        return f"{who} shows {event['card']} instead of exchanging on {event['cell']}."
    if kind == "bear_off":
        return f"{who} bears {event['card']} off from {event['from']} to safety."
    if kind == "pass":
        if event.get("all_safe"):
            return f"{who} passes: all its court cards are in safety."
        if event.get("hand") is not None:
            return f"{who} cannot move and passes, showing {' '.join(event['hand']) or 'an empty hand'}."
        return f"{who} cannot move and passes."
    if kind == "finished":
        names = " and ".join(SEAT_NAMES[s] for s in event["finished_seats"])
        return f"{names} {'has' if len(event['finished_seats']) == 1 else 'have'} finished."
    if kind == "game_over":
        reason = {"finished": "the round is complete", "blocked": "a whole round passed without a move",
                  "max_rounds": "the round limit was reached"}[event["reason"]]
        if event["winners"]:
            return f"Game {event['game'] + 1} is over ({reason}); winners: players " \
                   f"{', '.join(str(p) for p in event['winners'])}."
        return f"Game {event['game'] + 1} is over ({reason}); it is a draw."
    return None
