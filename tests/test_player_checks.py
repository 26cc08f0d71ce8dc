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


@pytest.mark.parametrize("name", ["penneech", "piquesept", "pentyrch"])
def test_a_states_repr_names_no_hand_card_and_not_the_seed(name: str) -> None:
    """A repr ends up in logs and tracebacks: it must hold neither a hand nor the seed that rebuilds
    every hand (Penneech and Piquesept printed both hands, all three games the seed)."""
    seed = 987654321
    state = gamester.load_game(name).new_initial_state(seed=seed)
    rng = random.Random(3)
    for _ in range(6):
        if state.is_terminal():
            break
        text = repr(state)
        assert str(seed) not in text
        for p in range(state.game.num_players):
            hand = state.observation(p).get("hand") or []
            for card in hand:
                assert f" {card}" not in text and f"{card} " not in text, (card, text)
        state.apply_action(rng.choice(state.legal_actions()))
