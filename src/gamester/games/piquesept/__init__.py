"""Piquesept (rule book of 1798): one soloist, holder of the 7S, against the other players; spades are
always trump; card points, 66 of 130 to win.

Rules: ``docs/rules/piquesept.md`` (the project's words, and the rulings it follows).
"""

from gamester.games.piquesept.game import PiqueseptGame, PiqueseptState
from gamester.games.piquesept.options import PiqueseptOptions

__all__ = ["PiqueseptGame", "PiqueseptOptions", "PiqueseptState"]
