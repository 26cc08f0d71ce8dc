"""The PettingZoo adapter (issue 13): PettingZoo's api_test and seed_test on every game and rule set,
seeding like the engine, masks, illegal moves, the ANSI render without hidden cards."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("pettingzoo")
np = pytest.importorskip("numpy")

from pettingzoo.test import api_test, seed_test  # noqa: E402

import gamester  # noqa: E402
from gamester.interop.pettingzoo import env  # noqa: E402

RULESETS = [
    (name, rs)
    for name in ("penneech", "piquesept", "pentyrch")
    for rs in sorted(gamester.load_game(name).rulesets)
]


@pytest.mark.parametrize("name,ruleset", RULESETS)
def test_api_and_seed_tests(name: str, ruleset: str) -> None:
    with warnings.catch_warnings():
        # api_test warns about the open observation box (see the module docstring) and all-zero masks
        # of players not to move; neither is an error.
        warnings.simplefilter("ignore")
        api_test(env(name, render_mode="ansi", ruleset=ruleset), num_cycles=300)
        seed_test(lambda: env(name, render_mode="ansi", ruleset=ruleset), num_cycles=100)


def test_reset_seed_deals_the_engines_game() -> None:
    e = env("piquesept")
    e.reset(seed=11)
    engine = gamester.load_game("piquesept").new_initial_state(seed=11)
    raw = e.unwrapped
    assert raw.state.observation(0) == engine.observation(0)
    obs = e.observe(e.agent_selection)
    assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
    assert list(np.flatnonzero(obs["action_mask"])) == engine.legal_actions()
    others = [a for a in e.agents if a != e.agent_selection]
    assert not e.observe(others[0])["action_mask"].any()
    # Unseeded resets after a seeded one repeat too.
    e2 = env("piquesept")
    e.reset(seed=5)
    e.reset()
    e2.reset(seed=5)
    e2.reset()
    assert e.unwrapped.state.record()["chance"] == e2.unwrapped.state.record()["chance"]


def test_game_to_the_end_gives_returns_as_rewards() -> None:
    e = env("penneech", objective="deal")
    e.reset(seed=3)
    rng = np.random.default_rng(0)
    total = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        total[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    returns = e.unwrapped.state.returns()
    assert [total[a] for a in e.possible_agents] == returns and sum(returns) == 0


def test_illegal_action_is_refused_and_changes_nothing() -> None:
    e = env("penneech")
    e.reset(seed=1)
    before = e.unwrapped.state.record()
    legal = set(e.unwrapped.state.legal_actions())
    bad = next(a for a in range(54) if a not in legal)
    with pytest.raises(ValueError, match=f"action {bad} is not legal"):
        e.step(bad)
    assert e.unwrapped.state.record() == before


def test_render_ansi_shows_no_hand() -> None:
    e = env("piquesept", render_mode="ansi")
    e.reset(seed=2)
    text = e.render()
    assert isinstance(text, str) and "player_" in text
    for seat in range(4):
        for card in e.unwrapped.state.observation(seat)["hand"]:
            assert f'"{card}"' not in text
    with pytest.raises(ValueError, match="render_mode"):
        env("piquesept", render_mode="human")
