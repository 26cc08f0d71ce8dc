"""Which build is under test (issue 16, docs/compiled.md).

``.ci/compiled`` runs the suites against a non-editable install with ``GAMESTER_EXPECT_COMPILED=1``:
then the install must be the compiled one, and pytest must be importing it rather than ``src/``.
``GAMESTER_EXPECT_COMPILED=0`` asserts the pure build instead; unset, only the flag's consistency is
checked (the README's editable install is pure Python).
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import gamester
from gamester.core import build

SRC = Path(__file__).resolve().parent.parent / "src"
# Modules that must be compiled in the compiled build: the protocol, each engine, the search.
HOT = [
    "gamester.core.protocol",
    "gamester.core.rng",
    "gamester.games.penneech.game",
    "gamester.games.piquesept.game",
    "gamester.games.pentyrch.state",
    "gamester.agents.ismcts",
]


def test_flag_agrees_with_the_modules() -> None:
    assert isinstance(gamester.compiled, bool)
    assert gamester.compiled == build.compiled()
    names = build.compiled_modules()
    assert bool(names) == gamester.compiled
    assert ("gamester.core.protocol" in names) == gamester.compiled
    assert build.describe().startswith("compiled" if gamester.compiled else "pure Python")


def test_build_under_test_is_the_expected_one() -> None:
    expect = os.environ.get("GAMESTER_EXPECT_COMPILED")
    if expect is None:
        pytest.skip("GAMESTER_EXPECT_COMPILED is not set (.ci/compiled sets it)")
    assert gamester.compiled == (expect == "1"), build.describe()
    if expect == "1":
        # The installed package, not the checkout's source tree.
        assert not Path(gamester.__file__).resolve().is_relative_to(SRC), gamester.__file__
        missing = [m for m in HOT if m not in build.compiled_modules()]
        assert not missing, f"not compiled: {missing}"


def test_games_pickle_in_either_build() -> None:
    """Game objects go to worker processes; compiled classes pickle only through Game.__reduce__."""
    for spec in ("penneech(target=41)", "piquesept(players=3)", "pentyrch(players=2)"):
        game = gamester.load_game(spec)
        again = pickle.loads(pickle.dumps(game))
        assert again == game and again.spec() == game.spec()
        assert again.new_initial_state(seed=3).record() == game.new_initial_state(seed=3).record()


def test_the_command_line_runs_the_same_build() -> None:
    """test_cli runs ``python -m gamester`` in a child process: from the checkout's root it must import
    the build under test too, not the checkout's src/."""
    root = SRC.parent
    code = "import gamester; print(gamester.compiled, gamester.__file__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=root)
    flag, path = out.stdout.split(maxsplit=1)
    assert flag == str(gamester.compiled), out.stdout + out.stderr
    assert Path(path.strip()).resolve() == Path(gamester.__file__).resolve()
