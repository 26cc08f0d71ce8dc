"""Every game's open space (``Game.open_space``, docs/explore.md): the options whose value a source, a
variant or a ruling leaves in doubt, each value with its source. Checked through the protocol alone,
so a new game that declares a space is held to the same contract."""

from __future__ import annotations

import dataclasses

import pytest

from gamester.core.options import OpenValue, coerce, options_to_json
from gamester.core.registry import game_class, game_names, load_game

GAMES = game_names()


@pytest.mark.parametrize("name", GAMES)
def test_every_value_in_the_space_is_a_valid_option_value(name: str) -> None:
    cls = game_class(name)
    fields = {f.name: f for f in dataclasses.fields(cls.options_class)}
    for option, values in cls.open_space.items():
        assert option in fields, f"{name}: open option {option!r} is not an option of the game"
        assert len(values) >= 2, f"{name}: {option} has fewer than two readings: nothing is open"
        seen = []
        for v in values:
            assert isinstance(v, OpenValue)
            assert v.source.strip(), f"{name}: {option}={v.value!r} names no source"
            # The value as the option parser takes it, unchanged (no silent coercion: True is not 1).
            assert coerce(fields[option], v.value) == v.value
            assert type(coerce(fields[option], v.value)) is type(v.value)
            # And a game loads with it, playing that value.
            game = load_game(name, **{option: v.value})
            assert options_to_json(game.options)[option] == v.value
            seen.append(v.value)
        assert len(set(seen)) == len(seen), f"{name}: {option} lists a value twice"


@pytest.mark.parametrize("name", ["penneech", "piquesept", "pentyrch"])
def test_the_three_games_declare_a_space_that_holds_their_rule_sets(name: str) -> None:
    """Each named rule set is one reading of the space (docs/rules/<game>.md, Rule sets): the space is
    at least as wide as the readings the project already names."""
    cls = game_class(name)
    assert cls.open_space, f"{name} declares no open space"
    for rs_name in cls.rulesets:
        game = load_game(name, ruleset=rs_name)
        opts = options_to_json(game.options)
        for option, values in cls.open_space.items():
            assert opts[option] in [v.value for v in values], (rs_name, option, opts[option])


def test_the_defaults_are_in_the_space() -> None:
    """The default of each open option is one of its readings (the rulings' choice is in doubt too)."""
    for name in GAMES:
        cls = game_class(name)
        defaults = options_to_json(cls.options_class())
        for option, values in cls.open_space.items():
            assert defaults[option] in [v.value for v in values], (name, option)
