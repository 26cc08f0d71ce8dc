"""A seat's view asked for a player that does not exist is a GameError, never another seat's hand."""

from __future__ import annotations

import random

import pytest

import gamester
from gamester.core.errors import GameError

BAD_PLAYERS = ["x", 10**30, None, -1, 7, True, 1.0, [0]]


@pytest.mark.parametrize("name", ["penneech", "piquesept", "pentyrch"])
@pytest.mark.parametrize("bad", BAD_PLAYERS, ids=repr)
def test_a_bad_player_is_refused_by_name(name: str, bad: object) -> None:
    # Piquesept's observation(-1) used to return the last seat's hand; "x" or 10**30 raised TypeError
    # or IndexError from deep inside the view.
    state = gamester.load_game(name).new_initial_state(seed=1)
    for ask in (
        lambda: state.observation(bad),  # type: ignore[arg-type]
        lambda: state.observation_tensor(bad),  # type: ignore[arg-type]
        lambda: state.determinize(bad, random.Random(1)),  # type: ignore[arg-type]
    ):
        with pytest.raises(GameError, match="is not a player of this game"):
            ask()


@pytest.mark.parametrize("name", ["penneech", "piquesept", "pentyrch"])
def test_every_real_player_still_gets_its_view(name: str) -> None:
    state = gamester.load_game(name).new_initial_state(seed=1)
    for p in range(state.game.num_players):
        assert "hand" in state.observation(p) and "hand" not in state.public_observation()
        assert len(state.observation_tensor(p)) == state.game.observation_tensor_size
        state.determinize(p, random.Random(p))
