"""``benchmarks/web_load.py`` still runs: a tiny run of the plain load and of the busy-table phases.

The figures are never asserted (they are for people to read, docs/web.md "Speed"); what is checked is
that the script starts a real server, plays, prints its tables with a row per phase, and meets no
error, so the commands the docs give keep working.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "web_load.py"


def _run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _rows(out: str, first: str) -> list[list[str]]:
    lines = [line for line in out.splitlines() if line.startswith(first)]
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines]


def test_plain_load_plays_without_errors() -> None:
    out = _run("--tables", "3", "--seconds", "3", "--think", "0.2")
    row, heard = _rows(out, "| sqlite |")  # the run, then who hears a move first
    assert heard[1].endswith("%"), out  # the share of moves whose mover heard first
    assert row[1] == "3"  # tables at once
    assert int(row[2]) > 0  # actions measured
    assert row[7] == "0"  # errors


def test_busy_table_phases_each_get_a_row() -> None:
    out = _run(
        "--tables", "3", "--seconds", "3", "--think", "0.2",
        "--spectators", "4", "--busy-bots", "1", "--bot-spec", "random",
    )  # fmt: skip
    run, _heard, *phases = _rows(out, "| sqlite |")
    phases = [run, *phases]
    assert len(phases) == 5, out  # the whole run, then baseline, spectators, bots, both
    names = [p[1] for p in phases[1:]]
    assert len(set(names)) == 4, names
    assert "bot-only tables of random" in out
    baseline, spectators, bots, both = phases[1:]
    frames = int(spectators[8].rpartition("(")[2].rstrip(")"))
    assert frames > 0, spectators  # the spectators were sent the hot table's frames
    assert int(bots[9]) > 0 and int(both[9]) > 0, out  # the busy bots stored moves in their phases
    assert int(baseline[9]) == 0, baseline  # and none before them
    assert phases[0][7] == "0", out  # no errors over the whole run
