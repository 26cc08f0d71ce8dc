"""Tournaments: duplicate deals, seatings, statistics, outputs, the command line."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

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


def test_summary_counted_by_hand(tmp_path: Path) -> None:
    """Issue 9: games count games (not seats), a two-player seat is counted once, and Penneech gets
    its same-deal comparison: each checked against the records of a tiny tournament."""
    summary = run_tournament(
        "penneech(target=11)",
        ["heuristic", "random"],
        games=3,
        seed=7,
        workers=1,
        out_dir=str(tmp_path),
        progress=False,
    )
    lines = [json.loads(x) for x in (tmp_path / "records.jsonl").read_text().splitlines()]
    assert len(lines) == 6 and summary["games"] == 6
    for agent in ("heuristic", "random"):
        e = summary["agents"][agent]
        assert e["games"] == 6 and e["seats"] == 6 and e["deals"] == 3
        for s in (0, 1):
            seat = e["by_seat"][f"seat {s}"]
            assert seat["games"] == 3 and seat["seats"] == 3
            won = sum(1 for r in lines if r["seating"][s] == agent and s in r["winners"])
            assert math.isclose(seat["win_rate"]["mean"], won / 3)
        wins = sum(1 for r in lines for s, a in enumerate(r["seating"]) if a == agent and s in r["winners"])
        assert math.isclose(e["win_rate"]["mean"], wins / 6)
    # Same seat, same deal: heuristic's return in seat s minus random's in seat s on that deal.
    (row,) = [p for p in summary["paired"] if p["role"] == "same seat"]
    assert (row["agent"], row["baseline"], row["deals"]) == ("heuristic", "random", 3)
    diffs = []
    for d in range(3):
        games = [r for r in lines if r["deal"] == d]
        per_seat = []
        for s in (0, 1):
            h = next(r["returns"][s] for r in games if r["seating"][s] == "heuristic")
            x = next(r["returns"][s] for r in games if r["seating"][s] == "random")
            per_seat.append(h - x)
        diffs.append(sum(per_seat) / 2)
    assert math.isclose(row["return_difference"]["mean"], sum(diffs) / 3)


@pytest.mark.skipif("piquesept" not in gamester.game_names(), reason="piquesept not here yet")
def test_an_agent_holding_three_seats_plays_one_game() -> None:
    summary = run_tournament("piquesept", ["heuristic", "random"], games=1, seed=3, workers=1, progress=False)
    # 10 seatings: each agent alone in each seat (8), then each alone at the table (2).
    h = summary["agents"]["heuristic"]
    assert summary["games"] == 10 and h["games"] == 9 and h["seats"] == 4 * 1 + 4 * 3 + 4


def test_tournament_bad_input_and_missing_extras(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    base = dict(game="penneech", agents="random", seed=0, workers=1, backend="local", option=[], quiet=True)
    for games, seed, out, words in (
        (0, 0, None, "--games"),
        (-5, 0, None, "--games"),
        (1, -1, None, "--seed"),
        (1, 0, str(tmp_path / "no" / "dir"), "does not exist"),
    ):
        ns = argparse.Namespace(**{**base, "games": games, "seed": seed, "out": out})
        assert run_cli(ns) == 2
        err = capsys.readouterr().err
        assert words in err and len(err.strip().splitlines()) == 1
    afile = tmp_path / "file"
    afile.write_text("x")
    assert run_cli(argparse.Namespace(**{**base, "games": 1, "out": str(afile)})) == 2
    assert "is a file" in capsys.readouterr().err
    # Without the sim extra: say once what is missing, and never claim a chart that was not written.
    import gamester.sim.tournament as T
    import gamester.sim.tournament_output as output

    monkeypatch.setattr(T, "missing_extras", lambda: ["openskill", "matplotlib"])
    monkeypatch.setattr(output, "write_chart", lambda path, summary: False)  # what write_outputs calls
    out = tmp_path / "res"
    assert run_cli(argparse.Namespace(**{**base, "games": 1, "out": str(out)})) == 0
    text = capsys.readouterr().out
    assert text.count("pip install 'gamester[sim]'") == 1
    assert "chart.png" in text.split("note:")[1].splitlines()[0]  # named as missing …
    assert "chart.png" not in text.split("wrote")[1]  # … and not as written
    assert not (out / "chart.png").exists() and (out / "summary.json").exists()


def test_without_the_sim_extra_for_real(tmp_path: Path) -> None:
    """With openskill and matplotlib made unimportable: ratings `-`, no chart, and one line saying
    what is missing and how to install it."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['matplotlib'] = None; sys.modules['openskill'] = None\n"
        "from gamester.sim.tournament import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    out = tmp_path / "res"
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "penneech",
            "--agents",
            "heuristic,random",
            "--games",
            "1",
            "--workers",
            "1",
            "--quiet",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("pip install 'gamester[sim]'") == 1
    assert "no ratings and no chart.png" in r.stdout
    assert not (out / "chart.png").exists() and "chart.png" not in r.stdout.split("wrote")[1]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["agents"]["heuristic"]["rating"] is None
