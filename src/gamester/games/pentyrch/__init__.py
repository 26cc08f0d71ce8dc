"""Pentyrch (Mal Jones, 2003): up to four players race their court cards across a cross of Ace-6 cards,
paying with 7-10 hand cards, trapping and protecting.

Rules: ``docs/rules/pentyrch.md`` (the project's words, and the rulings it follows).
"""

from gamester.games.pentyrch.game import PentyrchGame, PentyrchState
from gamester.games.pentyrch.options import PentyrchOptions

__all__ = ["PentyrchGame", "PentyrchOptions", "PentyrchState"]
