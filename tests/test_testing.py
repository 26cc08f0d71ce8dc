"""``gamester.testing.check_game``: the checks a new game's author runs, on games broken on purpose.

Each broken game below is Minitrick (tests/fourth_game) with one fault; check_game must name the
check that catches it. The unbroken game passes (tests/test_fourth_game.py runs it on every spec).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gamester.core import registry
from gamester.core.protocol import State
from gamester.testing import CheckFailed, check_game, game_specs
from tests.fourth_game import MiniTrickGame
from tests.fourth_game.game import MiniTrickState

ROOT = Path(__file__).resolve().parent.parent


def _registered(cls: type[MiniTrickGame]) -> Iterator[None]:
    before = registry._GAMES.get(cls.name)
    registry.register_game(cls)
    yield
    if before is None:
        del registry._GAMES[cls.name]
    else:
        registry._GAMES[cls.name] = before


class LeakyState(MiniTrickState):
    """Shows the spectator every hand."""

    __slots__ = ()

    def public_observation(self) -> dict[str, Any]:
        out = super().public_observation()
        out["cards"] = [self.observation(p)["hand"] for p in range(self.game.num_players)]
        return out


class LeakyGame(MiniTrickGame):
    name = "leakytrick"

    def _new_state(self, seed: int, chance: Any) -> State:
        return _as(LeakyState, super()._new_state(seed, chance))


class SharingState(MiniTrickState):
    """clone() hands the copy the original's own list of hands."""

    __slots__ = ()

    def clone(self) -> MiniTrickState:
        twin = super().clone()
        twin._hands = self._hands
        return _as(SharingState, twin)


class SharingGame(MiniTrickGame):
    name = "sharingtrick"

    def _new_state(self, seed: int, chance: Any) -> State:
        return _as(SharingState, super()._new_state(seed, chance))


class SortlessState(MiniTrickState):
    """Lists its legal moves backwards."""

    __slots__ = ()

    def legal_actions(self, player: int | None = None) -> list[int]:
        return list(reversed(super().legal_actions()))


class SortlessGame(MiniTrickGame):
    name = "sortlesstrick"

    def _new_state(self, seed: int, chance: Any) -> State:
        return _as(SortlessState, super()._new_state(seed, chance))


def _as(cls: type[MiniTrickState], state: State) -> MiniTrickState:
    assert isinstance(state, MiniTrickState)
    state.__class__ = cls
    return state


@pytest.mark.parametrize(
    ("cls", "check", "words"),
    [
        (LeakyGame, "leaks", "the spectator is shown"),
        (SharingGame, "clone", "shares mutable"),
        (SortlessGame, "conformance", "not sorted"),
    ],
)
def test_a_broken_game_fails_the_check_that_names_its_fault(
    cls: type[MiniTrickGame], check: str, words: str
) -> None:
    for _ in _registered(cls):
        with pytest.raises(
            CheckFailed, match=rf"^{check} check on {cls.name}\(ruleset=standard\): .*{words}"
        ):
            check_game(cls.name, checks=[check])


def test_the_unbroken_game_passes_and_each_rule_set_is_named() -> None:
    for _ in _registered(MiniTrickGame):
        assert game_specs(MiniTrickGame, ["minitrick(players=3)"]) == [
            *(f"minitrick(ruleset={rs})" for rs in MiniTrickGame.rulesets),
            "minitrick(players=3)",
        ]
        assert check_game("minitrick", only=["minitrick(ruleset=match)"], checks=["clone", "records"]) == [
            "clone: minitrick(ruleset=match)",
            "records: minitrick(ruleset=match)",
        ]
        with pytest.raises(ValueError, match="unknown check 'speed'"):
            check_game("minitrick", checks=["speed"])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["penneech", "piquesept", "pentyrch"])
def test_check_game_passes_on_every_shipped_game_with_no_arguments(name: str) -> None:
    """What a game declares (the fields its clones may share, whether it hides anything) is all the
    checks need: each shipped game passes every check on every named rule set, as a new game would."""
    passed = check_game(name)
    assert passed == [
        f"{check}: {spec}"
        for spec in game_specs(name)
        for check in ("conformance", "records", "leaks", "clone")
    ]


def test_check_game_needs_no_pytest() -> None:
    """An author may run the checks from a plain script (or unittest): nothing imports pytest, and
    the checks hold under ``python -O`` too (they do not rely on ``assert``)."""
    code = (
        "import sys, json\n"
        "from gamester.core import registry\n"
        "from tests.fourth_game import MiniTrickGame\n"
        "registry.register_game(MiniTrickGame)\n"
        "sys.modules['pytest'] = None\n"
        "from gamester.testing import check_game\n"
        "print(json.dumps(check_game('minitrick', only=['minitrick'], checks=['conformance'])))\n"
    )
    r = subprocess.run(
        [sys.executable, "-O", "-c", code], capture_output=True, text=True, timeout=300, cwd=str(ROOT)
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == ["conformance: minitrick"]
