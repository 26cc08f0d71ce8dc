"""Penneech (Cotton, 1674): two players, a new trump turned up before every trick.

Rules: ``docs/rules/penneech.md`` (the project's words, and the rulings it follows).
"""

from gamester.games.penneech.game import PenneechGame, PenneechState
from gamester.games.penneech.options import PenneechOptions

__all__ = ["PenneechGame", "PenneechOptions", "PenneechState"]
