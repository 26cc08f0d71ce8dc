"""Which build of gamester is running: compiled by mypyc (``pip install .`` with a C compiler) or pure
Python (an editable install, ``GAMESTER_PURE=1``, or no compiler). ``docs/compiled.md`` says more.

>>> isinstance(compiled(), bool)
True
"""

from __future__ import annotations

import importlib.machinery
import os

import gamester.core.protocol

# The gamester package folder (this module is gamester/core/build, compiled or not).
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _is_extension(path: str | None) -> bool:
    return path is not None and path.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def compiled() -> bool:
    """True when the protocol itself runs compiled (then so do the core, the games and the agents
    that setup.py compiles)."""
    return _is_extension(getattr(gamester.core.protocol, "__file__", None))


def compiled_modules() -> list[str]:
    """The dotted names of the package's compiled modules, sorted (none in a pure build)."""
    out: list[str] = []
    for root, _dirs, files in os.walk(_PACKAGE):
        for f in files:
            if _is_extension(f):
                rel = os.path.relpath(os.path.join(root, f), os.path.dirname(_PACKAGE))
                out.append(rel.split(".")[0].replace(os.sep, "."))
    return sorted(out)


def describe() -> str:
    """One line for people: ``compiled (mypyc, 50 modules)`` or ``pure Python``."""
    if compiled():
        return f"compiled (mypyc, {len(compiled_modules())} modules)"
    return "pure Python"
