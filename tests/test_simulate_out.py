"""``simulate --out FILE`` never loses an existing file (issue 9: bad paths and nothing lost)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import gamester
from gamester.sim import simulate as sim


def test_an_existing_file_is_replaced_only_when_every_game_is_written(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    out.write_text("precious\n")
    sim.run_simulation("penneech", {}, "random", 3, 0, 1, str(out), progress_bar=False)
    lines = out.read_text().splitlines()
    assert len(lines) == 3 and not (tmp_path / "games.jsonl.partial").exists()
    assert gamester.replay(json.loads(lines[0])).is_terminal()


def test_an_interrupted_run_keeps_the_old_file_and_the_games_finished_so_far(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "games.jsonl"
    out.write_text("precious\n")
    real = sim.simulate

    def interrupted(*args: Any, **kw: Any) -> Iterator[Any]:
        for i, item in enumerate(real(*args, **kw)):
            if i == 2:
                raise KeyboardInterrupt
            yield item

    monkeypatch.setattr(sim, "simulate", interrupted)
    with pytest.raises(KeyboardInterrupt):
        sim.run_simulation("penneech", {}, "random", 5, 0, 1, str(out), progress_bar=False)
    assert out.read_text() == "precious\n"
    assert len((tmp_path / "games.jsonl.partial").read_text().splitlines()) == 2
