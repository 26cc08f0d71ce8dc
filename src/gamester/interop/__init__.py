"""Adapters to other libraries: OpenSpiel (``gamester.interop.openspiel``) and PettingZoo
(``gamester.interop.pettingzoo``), plus OpenSpiel's ISMCTS as an agent (``gamester.interop.agents``).

Each needs its optional extra (``pip install 'gamester[interop]'``); importing this package alone
imports neither library. ``gamester.interop.chance`` (pure Python) turns the engine's chance requests
into explicit chance steps with exact probabilities.
"""
