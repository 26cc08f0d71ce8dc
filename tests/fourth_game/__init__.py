"""Minitrick, a fourth game that lives only in the tests: twelve cards, a hidden hand, a turn-up for
trump, two or three players (``rules.md`` here).

It exists to show that a game is one folder plus its entry point: nothing in ``src/`` names it. An
installed package would declare it as ``[project.entry-points."gamester.games"] minitrick =
"tests.fourth_game:MiniTrickGame"``; the tests register it with ``register_game`` (or a temporary
entry point) instead.
"""

from tests.fourth_game.game import MiniTrickGame, MiniTrickState
from tests.fourth_game.options import MiniTrickOptions

__all__ = ["MiniTrickGame", "MiniTrickOptions", "MiniTrickState"]
