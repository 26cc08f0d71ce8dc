"""``--backend ray``: the same seed gives the same records and summaries as ``--backend local``.

One local Ray for the whole module (Ray takes seconds to start): two CPUs, a small object store.
A command-line run joins that running cluster through ``--ray-address``, as it would a real one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray")

from gamester.sim.analyse import Analysis, run_analysis  # noqa: E402
from gamester.sim.backend import run_jobs  # noqa: E402
from gamester.sim.simulate import simulate  # noqa: E402
from gamester.sim.tournament import play_tournament  # noqa: E402


@pytest.fixture(scope="session")
def cluster() -> Iterator[str]:
    ctx = ray.init(
        num_cpus=2,
        object_store_memory=100 * 1024 * 1024,  # capped: the machine is shared
        include_dashboard=False,
        log_to_driver=False,
        _node_ip_address="127.0.0.1",  # loopback only
    )
    try:
        yield str(ctx.address_info["gcs_address"])
    finally:
        ray.shutdown()


def _square(x: int) -> int:
    return x * x


@pytest.mark.slow
def test_results_come_back_in_job_order(cluster: str) -> None:
    assert list(run_jobs(_square, list(range(20)), backend="ray", progress=False)) == [
        x * x for x in range(20)
    ]
    assert ray.is_initialized()  # a Ray the caller started is left running


@pytest.mark.slow
def test_simulate_same_records(cluster: str) -> None:
    local = list(simulate("penneech(target=21)", {}, ["heuristic", "random"], 6, 11, workers=1))
    remote = list(simulate("penneech(target=21)", {}, ["heuristic", "random"], 6, 11, backend="ray"))
    assert remote == local


def _untimed(summary: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in summary.items() if k not in ("wall_seconds", "backend", "workers")}
    out["agents"] = {
        a: {k: v for k, v in e.items() if k != "seconds_per_move"} for a, e in summary["agents"].items()
    }
    return out


@pytest.mark.slow
def test_tournament_same_summary_and_results(cluster: str) -> None:
    args = ("piquesept(players=3)", ["heuristic", "random"], 2)
    local, lres = play_tournament(*args, seed=4, workers=1, progress=False)
    remote, rres = play_tournament(*args, seed=4, progress=False, backend="ray")
    assert _untimed(remote) == _untimed(local)
    strip = [{k: v for k, v in r.items() if k != "think_seconds"} for r in lres]
    assert [{k: v for k, v in r.items() if k != "think_seconds"} for r in rres] == strip


@pytest.mark.slow
def test_analyse_same_summary(cluster: str, tmp_path: Path) -> None:
    a = dict(
        game="pentyrch",
        rulesets=["two_player"],
        options={"max_rounds": "30"},
        games=2,
        agents="heuristic",
        seed=3,
        worlds=1,
        skill_games=1,
        skill_ladder="lookahead:worlds={},candidates=2",
        skill_budgets=(1, 2),
        info_games=1,
        info_agent="lookahead:worlds=1,candidates=2",
        progress=False,
    )
    local = run_analysis(Analysis(**a, workers=1), str(tmp_path / "local"))  # type: ignore[arg-type]
    remote = run_analysis(Analysis(**a, backend="ray"), str(tmp_path / "ray"))  # type: ignore[arg-type]
    assert remote == local
    for name in ("summary.json", "two_player/records.jsonl"):
        assert (tmp_path / "ray" / name).read_text() == (tmp_path / "local" / name).read_text()


@pytest.mark.slow
def test_cli_joins_a_running_cluster_with_a_progress_bar(cluster: str, tmp_path: Path) -> None:
    out = tmp_path / "ray.jsonl"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "gamester",
            "simulate",
            "piquesept",
            "--agents",
            "heuristic",
            "--games",
            "4",
            "--seed",
            "2",
            "--backend",
            "ray",
            "--ray-address",
            cluster,
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert r.returncode == 0, r.stderr
    assert "simulate piquesept" in r.stderr and "4/4" in r.stderr  # the bar reached the end
    local = [rec for rec, _, _ in simulate("piquesept", {}, ["heuristic"] * 4, 4, 2)]
    assert [json.loads(x) for x in out.read_text().splitlines()] == local


@pytest.mark.slow
def test_a_cluster_that_is_not_there_is_one_line() -> None:
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "gamester",
            "simulate",
            "penneech",
            "--agents",
            "random",
            "--games",
            "1",
            "--backend",
            "ray",
            "--ray-address",
            "127.0.0.1:1",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "cannot start or join the Ray cluster at 127.0.0.1:1" in r.stderr
