"""Checks any registered game must pass, for the author of a new game (docs/new-game.md).

``check_game("mygame")`` plays seeded random games of every named rule set of the game (and any
extra specs given) and runs on each:

- **conformance** (:mod:`gamester.testing.conformance`): the protocol kept at every position, records
  round-tripping at every stop and from the seed alone, clones independent, worlds consistent with
  what their seat sees, determinism whatever the global generators hold, a result at the end;
- **leaks** (:mod:`gamester.testing.leaks`): what the spectator and each seat are shown, told and
  answered names no card hidden from them; twins a seat cannot tell apart look the same and give it
  the same worlds; a world's seed rebuilds nothing;
- **clone** (:mod:`gamester.testing.clones`): ``clone()`` copies every field and shares nothing
  mutable the game has not declared (``Game.clone_shares``).

A failure raises :class:`CheckFailed` (an ``AssertionError``) naming the check, the spec and what was
wrong. Each check is also a function of its module, to run alone or with other arguments. The game's
tests call them from pytest, unittest or a script alike; nothing here needs pytest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from gamester.core import registry
from gamester.core.protocol import Game, State
from gamester.testing import clones, conformance, leaks
from gamester.testing._common import CheckFailed, GameLike, as_game, expect, play_random, random_positions

__all__ = [
    "CHECKS",
    "CheckFailed",
    "GameLike",
    "as_game",
    "check_game",
    "expect",
    "game_specs",
    "play_random",
    "random_positions",
]


def _conformance(spec: str, invariant: Callable[[State], None] | None, seeds: Iterable[int]) -> None:
    for seed in seeds:
        conformance.check_random_game(spec, seed, invariant)
    conformance.check_seed_alone_replays(spec)
    conformance.check_clones_independent(spec)
    conformance.check_determinize(spec)
    conformance.check_determinism(spec)


def _records(spec: str, invariant: Callable[[State], None] | None, seeds: Iterable[int]) -> None:
    conformance.check_records_round_trip(spec)
    conformance.check_seed_alone_replays(spec)


def _leaks(spec: str, invariant: Callable[[State], None] | None, seeds: Iterable[int]) -> None:
    leaks.check_public_view(spec)
    leaks.check_events_and_moves(spec)
    leaks.check_seat_summary(spec)
    leaks.check_twins(spec)
    leaks.check_error_messages(spec)
    leaks.check_worlds_do_not_rebuild_the_deal(spec)


CHECKS: dict[str, Callable[[str, Callable[[State], None] | None, Iterable[int]], None]] = {
    "conformance": _conformance,
    "records": _records,
    "leaks": _leaks,
}
"""The named groups of checks :func:`check_game` runs (``clone`` is run with the fields the game
declares its clones may share, ``Game.clone_shares``)."""


def game_specs(game: str | type[Game[Any]] | Game[Any], extra: Iterable[str] = ()) -> list[str]:
    """Every named rule set of a registered game as a spec, then ``extra``."""
    name = game if isinstance(game, str) else game.name
    cls = registry.game_class(name)
    if not isinstance(game, str) and (game if isinstance(game, type) else type(game)) is not cls:
        raise CheckFailed(f"{name}: another class is registered under this name ({cls.__qualname__})")
    return [f"{name}(ruleset={rs})" for rs in cls.rulesets] + list(extra)


def check_game(
    game: str | type[Game[Any]] | Game[Any],
    *,
    specs: Iterable[str] = (),
    only: Iterable[str] | None = None,
    invariant: Callable[[State], None] | None = None,
    shared: Mapping[str, str] | None = None,
    seeds: Iterable[int] = range(3),
    checks: Iterable[str] = ("conformance", "records", "leaks", "clone"),
) -> list[str]:
    """Run the checks on every named rule set of ``game`` (a registered game's name, class or object)
    and on ``specs`` (or on the specs ``only``, instead); return the ``"check: spec"`` lines that
    passed, or raise :class:`CheckFailed`.

    ``invariant(state)``: the game's own invariant (cards conserved …), called after every action of
    the conformance games. ``shared``: fields a clone may share with its original beyond those the
    game declares (``Game.clone_shares``), each with its reason (see :mod:`gamester.testing.clones`).
    ``seeds``: of the random conformance games.
    """
    all_specs = game_specs(game, specs)
    if only is not None:
        all_specs = list(only)
        name = all_specs and as_game(all_specs[0]).name
        expect(all(as_game(s).name == name for s in all_specs), "only: specs of one game")
    wanted = list(checks)
    unknown = [c for c in wanted if c not in (*CHECKS, "clone")]
    if unknown:
        raise ValueError(f"unknown check {unknown[0]!r}; known: {', '.join([*CHECKS, 'clone'])}")
    seeds = list(seeds)
    passed: list[str] = []
    for spec in all_specs:
        as_game(spec)  # a spec that does not load is the author's error, raised as it is
        for name in wanted:
            try:
                if name == "clone":
                    clones.check_clone_copies_every_field(spec, shared)
                else:
                    CHECKS[name](spec, invariant, seeds)
            except AssertionError as e:
                raise CheckFailed(f"{name} check on {spec}: {e}") from e
            passed.append(f"{name}: {spec}")
    return passed
