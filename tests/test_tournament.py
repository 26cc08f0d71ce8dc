"""Tournaments: duplicate deals, seatings, statistics, outputs, the command line."""

from __future__ import annotations

import argparse
import json
import math

import pytest

import gamester
from gamester.agents.base import split_agents
from gamester.sim.tournament import mean_ci, run_cli, run_tournament, seatings


def test_seatings_put_every_agent_in_every_seat() -> None:
    assert seatings(["a", "b"], 2) == [("a", "b"), ("b", "a")]
    four = seatings(["x", "y"], 4)
    for agent in ("x", "y"):
        alone = [s for s in four if s.count(agent) == 1]
        assert sorted(s.index(agent) for s in alone) == [0, 1, 2, 3]
    rot = seatings(["a", "b", "c", "d"], 4)
    for agent in "abcd":
        assert sorted(s.index(agent) for s in rot) == [0, 1, 2, 3]
    assert len(seatings(["a", "b", "c"], 3)) == 6
    mixed = seatings(["a", "b", "c"], 4)
    for agent in "abc":
        assert {s for line in mixed for s, x in enumerate(line) if x == agent} == {0, 1, 2, 3}


def test_split_agents_keeps_parameters_together() -> None:
    assert split_agents("ismcts:iterations=50,c=0.3,heuristic") == ["ismcts:iterations=50,c=0.3", "heuristic"]
    assert split_agents("random, heuristic") == ["random", "heuristic"]


def test_mean_ci() -> None:
    m, lo, hi = mean_ci([0.0, 1.0, 1.0, 0.0])
    assert m == 0.5 and lo < 0.5 < hi
    assert mean_ci([2.0]) == (2.0, 2.0, 2.0)


def test_tournament_end_to_end_with_two_workers(tmp_path: object) -> None:
    out = str(tmp_path)
    summary = run_tournament(
        "penneech(target=21)",
        ["heuristic", "random"],
        games=6,
        seed=40,
        workers=2,
        out_dir=out,
        progress=False,
    )
    assert summary["games"] == 12 and summary["deals"] == 6
    for name in ("heuristic", "random"):
        e = summary["agents"][name]
        for key in ("win_rate", "mean_return"):
            iv = e[key]
            assert iv["low"] <= iv["mean"] <= iv["high"]
        assert e["games"] == 12
        assert set(e["rating"]) == {"mu", "sigma", "ordinal"}
    h, r = summary["agents"]["heuristic"], summary["agents"]["random"]
    assert math.isclose(h["mean_return"]["mean"], -r["mean_return"]["mean"])
    with open(f"{out}/summary.json", encoding="utf-8") as f:
        assert json.load(f)["format"] == "gamester-tournament"
    with open(f"{out}/records.jsonl", encoding="utf-8") as f:
        lines = [json.loads(x) for x in f]
    assert len(lines) == 12
    # Duplicate deals: the seatings of a deal start from the same cards.
    by_deal: dict[int, list[dict[str, object]]] = {}
    for line in lines:
        by_deal.setdefault(line["deal"], []).append(line)
    for games in by_deal.values():
        assert len(games) == 2
        a, b = games
        assert a["seating"] == list(reversed(b["seating"]))
        assert a["record"]["chance"][0] == b["record"]["chance"][0]
        assert a["record"]["seed"] == b["record"]["seed"]
    # Every record replays to its returns.
    for line in lines:
        state = gamester.replay(line["record"])
        assert state.returns() == line["returns"]


@pytest.mark.skipif("piquesept" not in gamester.game_names(), reason="piquesept not here yet")
def test_piquesept_roles_and_paired_comparisons() -> None:
    summary = run_tournament("piquesept", ["heuristic", "random"], games=3, seed=1, workers=1, progress=False)
    assert summary["games"] == 3 * 10
    roles = summary["agents"]["heuristic"]["by_role"]
    assert "soloist vs random" in roles and "defender vs random" in roles
    paired = {(p["agent"], p["role"]) for p in summary["paired"]}
    assert ("heuristic", "soloist vs random") in paired


def test_cli_errors_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    ns = argparse.Namespace(
        game="penneech",
        agents="random,nosuch",
        games=1,
        seed=0,
        workers=1,
        out=None,
        backend="local",
        option=[],
    )
    assert run_cli(ns) == 2
    assert "valid agents" in capsys.readouterr().err
    ns = argparse.Namespace(
        game="penneech", agents="random", games=1, seed=0, workers=1, out=None, backend="nosuch", option=[]
    )
    assert run_cli(ns) == 2
    ns = argparse.Namespace(
        game="penneech",
        agents="heuristic,random",
        games=2,
        seed=0,
        workers=1,
        out=None,
        backend="local",
        option=["target=11"],
    )
    assert run_cli(ns) == 0
    out = capsys.readouterr().out
    assert "penneech(target=11)" in out and "heuristic" in out and "win rate" in out
