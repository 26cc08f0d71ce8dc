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
    PositionError,
    RecordError,
    game_names,
    load_game,
    read_position,
    replay,
    summary,
)
from gamester.core.build import compiled as _compiled

__version__ = "0.2.0"
"""The release (semantic versioning, CHANGELOG.md); ``pyproject.toml`` reads it from here."""
compiled: bool = _compiled()
"""True in the build mypyc compiled (``pip install .`` with a C compiler), False in pure Python."""
__all__ = [
    "TERMINAL",
    "compiled",
    "GameError",
    "IllegalActionError",
    "InvalidActionError",
    "OptionError",
    "PositionError",
    "RecordError",
    "game_names",
    "load_game",
    "read_position",
    "replay",
    "summary",
]
