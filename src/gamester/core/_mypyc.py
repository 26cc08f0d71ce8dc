"""What the compiled build (mypyc, ``docs/compiled.md``) needs from the protocol, at no run-time cost.

At run time these are plain ``typing`` objects and a do-nothing decorator, so the core imports nothing
outside the standard library. ``_mypyc.pyi`` tells mypy (and so mypyc) the rest: the type variables'
defaults (a bare ``State`` means ``State[Game]``) and that ``mypyc_attr`` is mypyc's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

GameT = TypeVar("GameT", covariant=True)
OptionsT = TypeVar("OptionsT", covariant=True)
_C = TypeVar("_C")


def mypyc_attr(*attrs: str, **kwattrs: object) -> Callable[[_C], _C]:
    """mypyc reads this decorator when compiling; run as Python it leaves the class as it is."""

    def keep(cls: _C) -> _C:
        return cls

    return keep


__all__ = ["GameT", "OptionsT", "mypyc_attr"]
