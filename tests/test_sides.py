"""Roles and teams are declared by each game (``State.roles``, ``State.teams``), and what a game
declares agrees with what its views show and with how its games end: the tournaments and analyses read
them instead of a view's keys, so a wrong declaration would mislabel every per-role result."""

from __future__ import annotations

import pytest

import gamester
from gamester.core.protocol import State
from gamester.core.rng import make_rng
from gamester.sim.tournament import roles as tournament_roles
from gamester.testing import play_random, random_positions
from gamester.testing.conformance import check_sides


@pytest.mark.parametrize("spec", ["piquesept", "piquesept(players=3)", "piquesept(deals=3)"])
def test_piquesept_roles_and_teams_are_the_soloist_the_view_names(spec: str) -> None:
    """docs/rules/piquesept.md, The soloist: the view's ``soloist`` is the one player of role
    ``soloist``, alone in his team; every other player defends, all in one team."""
    for seed in range(3):
        for state in random_positions(spec, seed, every=5):
            check_sides(state, spec)
            view = state.public_observation()
            solo = view["soloist"]
            assert state.roles() == [("soloist" if p == solo else "defender") for p in range(view["players"])]
            assert sorted(state.teams()) == sorted([[solo], [p for p in range(view["players"]) if p != solo]])


@pytest.mark.parametrize("spec", ["piquesept", "piquesept(players=3)", "pentyrch(partners=true)"])
def test_a_team_shares_its_result(spec: str) -> None:
    """docs/rules/piquesept.md, Scoring; docs/rules/pentyrch.md, The end (partners): at the end of a
    one-deal (one-game) match, the players of a team have one return."""
    for seed in range(4):
        state = play_random(gamester.load_game(spec).new_initial_state(seed=seed), make_rng(seed))
        returns = state.returns()
        for team in state.teams():
            assert len({returns[p] for p in team}) == 1, (seed, team, returns)
        assert len(state.teams()) > 1


@pytest.mark.parametrize(
    ("spec", "teams"),
    [
        ("pentyrch", [[0], [1], [2], [3]]),
        ("pentyrch(players=3)", [[0], [1], [2]]),
        ("pentyrch(players=2)", [[0], [1]]),
        ("pentyrch(partners=true)", [[0, 2], [1, 3]]),
        ("penneech", [[0], [1]]),
    ],
)
def test_games_without_roles_declare_their_teams(spec: str, teams: list[list[int]]) -> None:
    """docs/rules/pentyrch.md, Seats; The end (partners): partners sit opposite (the view's owners
    of seats 0 and 2); a two-player player holds two seats but is one player. Penneech: two alone."""
    state = gamester.load_game(spec).new_initial_state(seed=3)
    assert state.roles() == []
    assert state.teams() == teams
    if spec == "pentyrch(partners=true)":
        owners = state.public_observation()["owners"]
        assert [sorted({owners[s], owners[s + 2]}) for s in (0, 1)] == teams


def test_tournament_labels_come_from_the_declared_roles() -> None:
    """``soloist vs X`` and ``defender vs X`` for pure sides, ``(mixed)`` otherwise, read from
    ``State.roles``/``teams``; a game without roles keeps ``alone vs X`` / ``seat s``."""
    state: State = gamester.load_game("piquesept").new_initial_state(seed=0)
    solo = state.public_observation()["soloist"]
    lineup = ["b"] * 4
    lineup[solo] = "a"
    labels = tournament_roles(state, lineup)
    assert labels[solo] == "soloist vs b"
    assert all(labels[p] == "defender vs a" for p in range(4) if p != solo)
    mixed = ["a", "b", "a", "b"]  # the defenders are never all one agent here
    assert tournament_roles(state, mixed) == [
        "soloist (mixed)" if p == solo else "defender (mixed)" for p in range(4)
    ]
    pentyrch = gamester.load_game("pentyrch").new_initial_state(seed=0)
    assert tournament_roles(pentyrch, ["a", "b", "b", "b"]) == ["alone vs b", "seat 1", "seat 2", "seat 3"]
