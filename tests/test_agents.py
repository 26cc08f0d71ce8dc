"""Agents: they cannot cheat, they are deterministic when seeded, their specs are checked, they play
legal actions, and the PIMC solvers are exact (checked against brute force over the real engine)."""

from __future__ import annotations

import random

import pytest

import gamester
from gamester.agents import best_agent_spec, make_agent
from gamester.agents.base import View
from gamester.core.errors import AgentError
from gamester.core.protocol import State
from gamester.core.rng import derive, make_rng

# Every game these tests cover. A game that is not registered or fails to import is an error here,
# never a game silently left out (test_the_games_here_are_registered_and_load).
GAMES = ["penneech", "piquesept", "pentyrch"]

# Small budgets: these tests check behaviour, not strength.
AGENTS = {
    "penneech": [
        "random",
        "heuristic",
        "ismcts:iterations=60",
        "pimc:worlds=2",
        "rollout:worlds=3",
        "futures:worlds=3,bank=50",
    ],
    "piquesept": ["random", "heuristic", "ismcts:iterations=40", "rollout:worlds=3"],
    "pentyrch": ["random", "heuristic", "ismcts:iterations=8", "lookahead:worlds=2"],
}


CASES = [(g, spec) for g in GAMES for spec in AGENTS[g]]


def test_the_games_here_are_registered_and_load() -> None:
    """Each game of this suite is registered and builds (an import error fails here, loudly)."""
    assert set(GAMES) <= set(gamester.game_names())
    assert set(AGENTS) == set(GAMES)
    for name in GAMES:
        assert gamester.load_game(name).name == name


def _positions(name: str, count: int, seed: int = 0) -> list[State]:
    """Decision points (more than one legal action) from seeded random games, cheap ones first."""
    game = gamester.load_game(name)
    rng = random.Random(seed)
    out: list[State] = []
    g = 0
    while len(out) < count:
        state = game.new_initial_state(seed=derive(seed, g))
        g += 1
        steps = 0
        while not state.is_terminal() and len(out) < count and steps < 400:
            la = state.legal_actions()
            if len(la) > 1 and rng.random() < 0.15:
                out.append(state.clone())
            state.apply_action(la[rng.randrange(len(la))])
            steps += 1
    return out


def _late(states: list[State], name: str) -> list[State]:
    """PIMC solves the rest of a Piquesept deal: keep it to positions it answers quickly."""
    if name != "piquesept":
        return states
    return [s for s in states if s.observation(0)["trick_number"] >= 5]


@pytest.mark.parametrize(("name", "spec"), CASES)
def test_cannot_cheat(name: str, spec: str) -> None:
    """Two states that look the same to the seat (one a determinization of the other: same
    observation, other hidden cards) lead the same seeded agent to the same action."""
    checked = 0
    for state in _positions(name, 6, seed=1):
        p = state.current_player()
        for k in range(5):
            other = state.determinize(p, random.Random(100 + k))
            if (
                other.observation(p) == state.observation(p)
                and other.legal_actions() == state.legal_actions()
            ):
                break
        else:
            continue
        a = make_agent(spec, game=state.game, seed=7).step(View(state, p))
        b = make_agent(spec, game=state.game, seed=7).step(View(other, p))
        assert a == b
        checked += 1
    assert checked >= 2


def test_hidden_cards_differ_in_the_twin_states() -> None:
    """The cheat test is meaningful: the twin states really hide different cards."""
    state = _positions("penneech", 1, seed=3)[0]
    p = state.current_player()
    twins = [state.determinize(p, random.Random(k)) for k in range(6)]
    assert any(t.observation(1 - p)["hand"] != state.observation(1 - p)["hand"] for t in twins)


@pytest.mark.parametrize(("name", "spec"), CASES)
def test_legal_and_deterministic(name: str, spec: str) -> None:
    states = _positions(name, 5, seed=2)
    if spec.startswith("pimc"):
        states = _late(states, name) or states[:2]
    for state in states:
        p = state.current_player()
        legal = state.legal_actions()
        first = make_agent(spec, game=state.game, seed=11).step(View(state, p))
        again = make_agent(spec, game=state.game, seed=11).step(View(state.clone(), p))
        assert first in legal
        assert first == again


def test_pimc_piquesept_late_positions() -> None:
    states = _late(_positions("piquesept", 40, seed=4), "piquesept")[:3]
    assert states
    for state in states:
        p = state.current_player()
        twin = state.determinize(p, random.Random(9))
        assert twin.observation(p) == state.observation(p)
        a = make_agent("pimc:worlds=2", game=state.game, seed=1).step(View(state, p))
        b = make_agent("pimc:worlds=2", game=state.game, seed=1).step(View(twin, p))
        assert a in state.legal_actions()
        assert a == b


def test_spec_errors_list_valid_choices() -> None:
    with pytest.raises(AgentError, match="valid agents: .*heuristic.*ismcts.*pimc.*random"):
        make_agent("nosuch")
    with pytest.raises(AgentError, match="valid parameters: iterations, seconds, c, rollout, seed"):
        make_agent("ismcts:depth=3")
    with pytest.raises(AgentError, match="whole number"):
        make_agent("ismcts:iterations=many")
    with pytest.raises(AgentError, match="not both"):
        make_agent("ismcts:iterations=5,seconds=1")
    with pytest.raises(AgentError, match="valid parameters: worlds, seconds, seed"):
        make_agent("pimc:samples=3")
    with pytest.raises(AgentError, match="valid parameters: worlds, seconds, prune, seed"):
        make_agent("rollout:iterations=3")
    with pytest.raises(AgentError, match="'pentyrch' offers no solver"):
        make_agent("pimc", game=gamester.load_game("pentyrch"))


def test_best_agent_evaluate_reports_win_probability() -> None:
    for name in GAMES:
        state = _positions(name, 1, seed=5)[0]
        spec = best_agent_spec(name).replace("seconds=1", "iterations=30")
        info = make_agent(spec, game=state.game, seed=1).evaluate(View(state, state.current_player()))
        assert info is not None
        assert info["action"] in state.legal_actions()
        assert 0.0 <= info["win_probability"] <= 1.0


def test_ismcts_seconds_budget() -> None:
    state = _positions("penneech", 1, seed=6)[0]
    agent = make_agent("ismcts:seconds=0.05", game=state.game, seed=1)
    assert agent.step(View(state, state.current_player())) in state.legal_actions()


@pytest.mark.parametrize("name", ["penneech", "piquesept"])
def test_rollout_values_are_heuristic_playouts(name: str) -> None:
    """With one world, each action's value is exactly the return (Penneech: the race estimate at the
    deal's end) of that world finished by the heuristic in every seat, for the agent's seat (a
    Piquesept defender's return is his side's)."""
    kit = gamester.load_game(name).kit()
    policy = kit.heuristic
    model = kit.rollout_model
    checked = 0
    for state in _positions(name, 6, seed=8):
        p = state.current_player()
        if 53 in state.legal_actions() and name == "penneech":
            continue
        info = make_agent("rollout:worlds=1", game=state.game, seed=4).evaluate(View(state, p))
        rng = make_rng(4)
        world = View(state, p).determinize(rng)
        tie_seed = rng.getrandbits(32)
        for a in state.legal_actions():
            w = world.clone()
            w.apply_action(a)
            marker = model.start(w) if model else None
            ties = make_rng(tie_seed)
            steps = 0
            while not w.is_terminal() and not (model and model.stop(w, marker, steps)):
                q = w.current_player()
                la = w.legal_actions()
                w.apply_action(la[0] if len(la) == 1 else policy(View(w, q), w.observation(q), la, ties))
                steps += 1
            want = w.returns()[p] if w.is_terminal() else model.value(w)[p]  # type: ignore[union-attr]
            assert info["values"][state.action_to_string(a)] == pytest.approx(want, abs=1e-4)
            checked += 1
    assert checked >= 6


def test_rollout_seconds_budget() -> None:
    state = _positions("penneech", 1, seed=6)[0]
    agent = make_agent("rollout:seconds=0.05", game=state.game, seed=1)
    info = agent.evaluate(View(state, state.current_player()))
    assert info["action"] in state.legal_actions() and info["worlds"] >= 1


# -- PIMC solvers against brute force ---------------------------------------------------------------
# -- Pentyrch lookahead -----------------------------------------------------------------------------
def test_pentyrch_lookahead_evaluate_and_budgets() -> None:
    game = gamester.load_game("pentyrch")
    state = _positions("pentyrch", 1, seed=8)[0]
    view = View(state, state.current_player())
    info = make_agent("lookahead:worlds=3", game=game, seed=2).evaluate(view)
    assert info["action"] in state.legal_actions()
    assert 0.0 <= info["win_probability"] <= 1.0
    assert info["worlds"] == 3 and info["candidates"]
    assert make_agent("lookahead:seconds=0.05", game=game, seed=2).step(view) in state.legal_actions()
    cut = make_agent("lookahead:worlds=2,horizon=8,candidates=3", game=game, seed=2).evaluate(view)
    assert len(cut["candidates"]) <= 3 and -1.0 <= cut["mean_return"] <= 1.0
    with pytest.raises(AgentError, match="not both"):
        make_agent("lookahead:worlds=2,seconds=1")
    with pytest.raises(AgentError, match="valid parameters: worlds, seconds, candidates, horizon, seed"):
        make_agent("lookahead:depth=2")
    for other in ("penneech", "piquesept"):
        with pytest.raises(AgentError, match=f"{other!r} offers none"):
            make_agent("lookahead", game=gamester.load_game(other))
