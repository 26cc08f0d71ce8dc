"""pytest collects every module of the package for doctests; the trainer needs torch (the learn
extra), so without it the trainer is left out instead of failing collection."""

from __future__ import annotations

import importlib.util

collect_ignore = [] if importlib.util.find_spec("torch") else ["train.py"]
