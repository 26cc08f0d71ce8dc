"""Conformance: every game and rule set obeys the protocol (docs/new-game.md, Checking it).

The checks are ``gamester.testing.conformance``'s, the ones ``gamester.testing.check_game`` runs for
any game; here they run on every registered game, its rule sets and the variants below. Seeded random
games of every game and configuration: legal actions sorted, in range and non-empty until the end;
notation round-trips; illegal actions refused without changing anything; records round-trip; clones
independent; observations JSON-able, of fixed tensor size, consistent with ``determinize``;
determinism under disturbed global RNGs. Game-specific invariants (cards conserved …) live in each
game's own tests, through ``INVARIANTS``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import gamester
from gamester.core.protocol import State
from gamester.testing import conformance

# Extra configurations beyond each game's named rule sets (which are always covered).
VARIANTS: dict[str, list[str]] = {
    "penneech": [
        "penneech(objective=deal)",
        "penneech(first_dealer=1,redeal=off,target=31)",
        "penneech(follow=suit,trick_honours=any,redeal=no_ace_or_face)",
    ],
    "piquesept": [
        "piquesept(players=3)",
        "piquesept(deals=3,first_dealer=2)",
        "piquesept(trade_visible=true,first_trick_highest=points)",
        "piquesept(players=3,removed_eights=8C 8H,deals=2,first_dealer=1)",
    ],
    "pentyrch": [
        "pentyrch(players=3)",
        "pentyrch(combine=always)",
        "pentyrch(overpay=true,max_rounds=1)",
        "pentyrch(show=false,cover_any_direction=true)",
        "pentyrch(reveal_on_pass=false)",
        "pentyrch(players=3,reveal_on_pass=false,combine=always)",
        "pentyrch(players=2,games=2,max_rounds=30)",
        "pentyrch(games=2,partners=true,max_rounds=12)",
    ],
}

# Game-specific invariants, checked after every action: check(state) raises AssertionError. A game
# with a tests/invariants_<game>.py must have it load (an error there is an error of the suite); a game
# registered by another package may have none.
INVARIANTS: dict[str, Callable[[State], None]] = {}
for _name in gamester.game_names():
    if (Path(__file__).parent / f"invariants_{_name}.py").exists():
        INVARIANTS[_name] = importlib.import_module(f"tests.invariants_{_name}").check


def all_specs() -> list[str]:
    specs = []
    for name in gamester.game_names():
        # A registered game that fails to import is an error of the whole suite, never left out.
        cls = gamester.core.registry.game_class(name)
        specs += [f"{name}(ruleset={rs})" for rs in cls.rulesets]
        specs += VARIANTS.get(name, [])
    return specs


SPECS = all_specs()
SEEDS = range(4)


def test_every_registered_game_loads() -> None:
    """Every entry point of the ``gamester.games`` group loads to a game class of that name, and the
    suite covers each one (with its invariants for the games of this package)."""
    points = list(entry_points(group="gamester.games"))
    assert {"penneech", "piquesept", "pentyrch"} <= {ep.name for ep in points}
    for ep in points:
        cls = ep.load()
        assert cls.name == ep.name, f"entry point {ep.name!r} loads a game named {cls.name!r}"
        assert cls.rulesets, f"{ep.name} has no rule set"
        assert any(spec.startswith(ep.name + "(") for spec in SPECS), f"{ep.name} is not in SPECS"
    assert {"penneech", "piquesept", "pentyrch"} <= set(INVARIANTS)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("seed", SEEDS)
def test_random_games_obey_protocol(spec: str, seed: int) -> None:
    conformance.check_random_game(spec, seed, INVARIANTS.get(spec.partition("(")[0]))


@pytest.mark.parametrize("spec", SPECS)
def test_records_round_trip_at_every_stop(spec: str) -> None:
    conformance.check_records_round_trip(spec)


@pytest.mark.parametrize("spec", SPECS)
def test_seed_alone_replays_same_game(spec: str) -> None:
    """A record with a seed and no chance replays identically (chance comes from the seed)."""
    conformance.check_seed_alone_replays(spec)


@pytest.mark.parametrize("spec", SPECS)
def test_clones_are_independent(spec: str) -> None:
    conformance.check_clones_independent(spec)


@pytest.mark.parametrize("spec", SPECS)
def test_determinize_agrees_with_observation_and_hides_nothing(spec: str) -> None:
    conformance.check_determinize(spec)


@pytest.mark.parametrize("spec", SPECS)
def test_determinism_under_disturbed_global_rngs(spec: str) -> None:
    conformance.check_determinism(spec)
