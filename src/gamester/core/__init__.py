"""The shared core: cards, errors, options, the game protocol, chance, records and the registry.

It imports nothing from games, agents or interfaces.
"""

from gamester.core.errors import (
    AgentError,
    GameError,
    IllegalActionError,
    InvalidActionError,
    OptionError,
    PositionError,
    RecordError,
)
from gamester.core.protocol import TERMINAL, Game, State
from gamester.core.record import read_position, replay, summary
from gamester.core.registry import game_names, load_game, register_game

__all__ = [
    "AgentError",
    "Game",
    "GameError",
    "IllegalActionError",
    "InvalidActionError",
    "OptionError",
    "PositionError",
    "RecordError",
    "State",
    "TERMINAL",
    "game_names",
    "load_game",
    "read_position",
    "register_game",
    "replay",
    "summary",
]
