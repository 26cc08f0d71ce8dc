"""A Pentyrch player's rules of thumb, reading only the seat's observation and the legal moves.

Every legal move is scored and the best is played (ties broken by the seeded generator):

* **Bear off** whenever possible: a card in safety can no longer be trapped, and it scores.
* **Progress**: a step is worth the distance it gains toward the goal (steps counted as a king moves);
  entering a new court card is worth a little less than a step forward.
* **Trap, don't free**: covering an opponent's court card traps it (a bonus); stepping away from a
  card one is trapping frees it, and stepping off one's own card unprotects it (penalties).
* **Pay cheaply**: exchanges cost the value of the cards laid and bring the old pile into the hand;
  showing an equal card costs nothing. Hand cards are the fuel of later moves, so cheap payments and
  rich piles are preferred.
"""

from __future__ import annotations

import random
from typing import Any

from gamester.core.kit import View

SEAT_NAMES = ("West", "North", "East", "South")
GOALS = ("g4", "d1", "a4", "d7")
OWNER_OF_SUIT = {"H": 0, "C": 1, "D": 2, "S": 3}


def card_value(code: str) -> int:
    r = code[0]
    return 1 if r == "A" else 10 if r == "T" else int(r) if r.isdigit() else 0


def distance(a: str, b: str) -> int:
    return max(abs(ord(a[0]) - ord(b[0])), abs(int(a[1]) - int(b[1])))


def score_move(text: str, obs: dict[str, Any], seat: int) -> float:
    tokens = text.split()
    if tokens[0] == "pass":
        return -1000.0
    if tokens[1] == "off":
        return 1000.0 + {"J": 3, "Q": 2, "K": 1}.get(tokens[0][0], 0)
    goal = GOALS[seat]
    board = obs["board"]
    if tokens[1].startswith("@"):
        src = None
        dst = tokens[1][1:]
        value = 7.0 - 0.5 * distance(dst, goal)
    else:
        src, _, dst = tokens[1].partition("-")
        value = 10.0 * (distance(src, goal) - distance(dst, goal))
    cell = board.get(dst, {"pile": [], "stack": []})
    stack = cell["stack"]
    if stack:
        owner = OWNER_OF_SUIT[stack[-1][1]]
        value += 6.0 if owner != seat else 1.0
    elif len(tokens) > 2:
        pay = tokens[2]
        if pay.startswith("="):
            value += 1.0
        else:
            value -= 0.8 * sum(card_value(c) for c in pay.split("+"))
        value += 0.5 * sum(card_value(c) for c in cell["pile"])
    if src is not None:
        below = board.get(src, {"stack": []})["stack"]
        if len(below) >= 2:
            owner = OWNER_OF_SUIT[below[-2][1]]
            value -= 5.0 if owner != seat else 2.0
    if distance(dst, goal) == 0:
        value += 3.0
    return value


def choose(view: View, obs: dict[str, Any], legal: list[int], rng: random.Random) -> int:
    seat = obs["seat_to_move"]
    scored = [(score_move(view.action_to_string(a), obs, seat), rng.random(), a) for a in legal]
    return max(scored)[2]
