"""``openspiel-ismcts`` (issue 13): OpenSpiel's ISMCTSBot as a gamester agent, from its seat's view
only, usable wherever agent specs are (Python, ``simulate``, ``tournament``, ``play --vs``)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")

import gamester  # noqa: E402
from gamester.agents import agent_names, make_agent  # noqa: E402
from gamester.agents.base import View  # noqa: E402
from gamester.core.errors import AgentError  # noqa: E402
from gamester.core.protocol import State  # noqa: E402
from gamester.core.rng import derive

SPECS = {"penneech": "penneech", "piquesept": "piquesept", "pentyrch": "pentyrch(max_rounds=40)"}


def _positions(spec: str, count: int, seed: int) -> list[State]:
    game = gamester.load_game(spec)
    rng = random.Random(seed)
    out: list[State] = []
    g = 0
    while len(out) < count:
        s = game.new_initial_state(seed=derive(seed, g))
        g += 1
        while not s.is_terminal() and len(out) < count:
            legal = s.legal_actions()
            if len(legal) > 1 and rng.random() < 0.2:
                out.append(s.clone())
            s.apply_action(rng.choice(legal))
    return out


def test_spec_is_registered_through_the_entry_point_group() -> None:
    assert "openspiel-ismcts" in agent_names()
    agent = make_agent("openspiel-ismcts:simulations=5", seed=1)
    assert agent.name == "openspiel-ismcts:simulations=5"
    assert make_agent("openspiel-ismcts:seconds=0.5").name == "openspiel-ismcts:seconds=0.5"
    for bad in (
        "openspiel-ismcts:simulations=0",
        "openspiel-ismcts:seconds=-1",
        "openspiel-ismcts:simulations=5,seconds=1",
        "openspiel-ismcts:depth=3",
    ):
        with pytest.raises(AgentError):
            make_agent(bad)


def test_agents_package_does_not_import_interop() -> None:
    code = (
        "import sys, gamester.agents as a; a.agent_names(); "
        "print(any(m.startswith(('gamester.interop', 'pyspiel', 'open_spiel')) for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("name", sorted(SPECS))
def test_cannot_cheat(name: str) -> None:
    """Two states that look the same to the seat (one a determinization of the other) lead the same
    seeded agent to the same action: it searches worlds from the view, never the true state."""
    checked = 0
    for state in _positions(SPECS[name], 4, seed=1):
        p = state.current_player()
        other = state.determinize(p, random.Random(5))
        if other.observation(p) != state.observation(p) or other.legal_actions() != state.legal_actions():
            continue
        a = make_agent("openspiel-ismcts:simulations=6", game=state.game, seed=3).step(View(state, p))
        b = make_agent("openspiel-ismcts:simulations=6", game=state.game, seed=3).step(View(other, p))
        assert a == b and a in state.legal_actions()
        checked += 1
    assert checked >= 2


def test_seconds_budget_searches_and_plays_legally() -> None:
    state = _positions("piquesept", 1, seed=4)[0]
    agent = make_agent("openspiel-ismcts:seconds=0.05", seed=2)
    assert agent.step(View(state, state.current_player())) in state.legal_actions()
    assert agent.last_simulations >= 2  # type: ignore[attr-defined]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gamester", *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


@pytest.mark.slow
def test_simulate_and_tournament_run_it(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    r = _cli(
        "simulate",
        "piquesept",
        "--agents",
        "openspiel-ismcts:simulations=4,random,random,random",
        "--games",
        "1",
        "--seed",
        "3",
        "--workers",
        "1",
        "--out",
        str(out),
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    record = json.loads(out.read_text().splitlines()[0])
    assert gamester.replay(record).is_terminal()
    r = _cli(
        "tournament",
        "penneech",
        "--agents",
        "openspiel-ismcts:simulations=3,random",
        "--games",
        "1",
        "--seed",
        "5",
        "--workers",
        "1",
        "--option",
        "objective=deal",
        "--out",
        str(tmp_path / "t"),
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert "openspiel-ismcts:simulations=3" in r.stdout
    r = _cli(
        "simulate", "penneech", "--agents", "openspiel-ismcts:simulations=x", "--games", "1", cwd=tmp_path
    )
    assert r.returncode == 2 and "simulations" in r.stderr and "Traceback" not in r.stderr


def test_play_vs_accepts_it(tmp_path: Path) -> None:
    """``play --vs``: the terminal game starts against it (quit at the first prompt)."""
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "gamester",
            "play",
            "penneech",
            "--vs",
            "openspiel-ismcts:simulations=3",
            "--seed",
            "1",
            "--seat",
            "1",
        ],
        input="quit\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert "Traceback" not in r.stderr
    assert r.returncode in (0, 130), r.stderr
    assert "Player 0 played" in r.stdout  # the agent (seat 0, leading) made its move
