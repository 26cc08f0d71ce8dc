# The type checker's view of _mypyc.py (see its docstring): defaults need typing_extensions on
# Python 3.11, and mypyc recognises mypyc_attr by its home, mypy_extensions; neither is needed at run time.
from typing import Any

from mypy_extensions import mypyc_attr as mypyc_attr
from typing_extensions import TypeVar

from gamester.core.protocol import Game

GameT = TypeVar("GameT", bound=Game, default=Game, covariant=True)
OptionsT = TypeVar("OptionsT", default=Any, covariant=True)
