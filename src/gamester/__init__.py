"""gamester: Penneech, Piquesept and Pentyrch for players and researchers.

>>> import gamester
>>> game = gamester.load_game("penneech(ruleset=cotton,target=41)")
>>> state = game.new_initial_state(seed=7)
"""

from gamester.core import (
    TERMINAL,
    GameError,
    IllegalActionError,
    InvalidActionError,
    OptionError,
    RecordError,
    game_names,
    load_game,
    replay,
    summary,
)

__version__ = "0.1.0"
__all__ = [
    "TERMINAL",
    "GameError",
    "IllegalActionError",
    "InvalidActionError",
    "OptionError",
    "RecordError",
    "game_names",
    "load_game",
    "replay",
    "summary",
]
