"""The cold start of ``gamester play penneech`` (issue 12): the default opponent, ``futures``, needs a
bank of 4,000 simulated games; it is read from a file rather than built, and a file that no longer
matches what the code plays is never used."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

import gamester
from gamester.agents import futures, make_agent
from gamester.core import build

# These count calls by replacing a function of the futures module; the compiled module calls its own
# functions directly, past the replacement, so they run on the pure build only (same behaviour).
pytestmark = pytest.mark.skipif(
    "gamester.agents.futures" in build.compiled_modules(),
    reason="counts calls through a monkeypatched module function, which compiled code does not look up",
)


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[int]:
    """Counts the games ``futures`` simulates to build banks (the checks of a file included)."""
    monkeypatch.setenv("GAMESTER_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(futures, "_BANKS", {})
    sizes: list[int] = []
    real = futures._build

    def counting(game: Any, size: int, dealers: tuple[int, ...] = (0, 1)) -> Any:
        sizes.append(size * len(dealers))
        return real(game, size, dealers)

    monkeypatch.setattr(futures, "_build", counting)
    return sizes


@pytest.mark.slow
def test_the_default_bank_ships_with_the_package_and_matches_the_code(builds: list[int]) -> None:
    game = gamester.load_game("penneech")
    make_agent("futures", game=game, seed=1)
    # only the check games: the bank itself came from the file
    assert builds == [futures._CHECK], (
        "the shipped futures bank no longer matches what the code "
        "plays: regenerate it with python -m gamester.agents.futures"
    )
    shipped = futures._SHIPPED / futures._bank_name(game, 2000)
    assert shipped.exists()
    # the whole shipped bank is what the code would build today
    assert futures._BANKS.popitem()[1] == futures._build(game, 2000)


def test_another_bank_is_built_once_then_read_from_the_cache(builds: list[int], tmp_path: Path) -> None:
    game = gamester.load_game("penneech", target=41)
    built = futures._bank(game, 50)
    assert builds == [100]
    assert (tmp_path / futures._bank_name(game, 50)).exists()
    futures._BANKS.clear()
    assert futures._bank(game, 50) == built
    assert builds == [100, futures._CHECK]


def test_a_stale_or_broken_file_is_rebuilt_not_used(builds: list[int], tmp_path: Path) -> None:
    game = gamester.load_game("penneech", target=41)
    path = tmp_path / futures._bank_name(game, 50)
    good = futures._bank(game, 50)
    stale = [([[x + 1 for x in run] for run in r0], r1) for r0, r1 in good]  # as if the rules changed
    path.write_bytes(gzip.compress(json.dumps(stale).encode()))
    futures._BANKS.clear()
    assert futures._bank(game, 50) == good
    path.write_bytes(b"not gzip at all")
    futures._BANKS.clear()
    assert futures._bank(game, 50) == good
    assert builds.count(100) == 3
