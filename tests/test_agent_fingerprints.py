"""Every agent still chooses exactly as before for fixed seeds (issue 15, the fingerprint test).

``tests/data/agent_fingerprints.json`` holds what the agents did at fixed positions (a fresh seeded
agent's step and evaluation) and in whole games between seeded agents. It was made on the code before
the agent refactor of issue 15 (0eb4823), and made again once when the agents' draws became our own
("gamester-draws-1", issue 27). Here every entry is replayed on the current code and must come out
the same (numbers to 9 digits). ``tests/make_agent_fingerprints.py`` says what is fixed and how the
file was made; regenerate it only for an intentional change of an agent's behaviour, never to make a
refactor pass.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from tests.make_agent_fingerprints import (
    CONFIGS,
    FORMAT,
    GOLDEN,
    VERSION,
    decide,
    play_game,
    record,
)

SHOW = 12  # differences listed in a failure message


def _golden() -> dict[str, Any]:
    # A missing or unreadable golden file is a failure, never a skip: the test is the safety net.
    if not GOLDEN.exists():
        pytest.fail(
            f"{GOLDEN} is missing: see tests/make_agent_fingerprints.py for how it is made "
            "(PYTHONPATH=src python tests/make_agent_fingerprints.py)"
        )
    data: dict[str, Any] = json.loads(GOLDEN.read_text())
    if data.get("format") != FORMAT or data.get("version") != VERSION:
        pytest.fail(f"{GOLDEN}: not a {FORMAT} file of version {VERSION}")
    return data


@pytest.fixture(autouse=True)
def _fresh_bank_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The futures agent's banks: the shipped one, or one built now, never a user's cached file.
    monkeypatch.setenv("GAMESTER_CACHE_DIR", str(tmp_path / "cache"))


def _first_difference(expected: Any, got: Any, path: str = "") -> str | None:
    """Where two reduced outputs first differ (floats equal within rounding to 9 digits)."""
    if isinstance(expected, dict) and isinstance(got, dict):
        for k in list(expected) + [k for k in got if k not in expected]:
            if k not in got:
                return f"{path}.{k}: expected {expected[k]!r}, got nothing"
            if k not in expected:
                return f"{path}.{k}: expected nothing, got {got[k]!r}"
            d = _first_difference(expected[k], got[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(expected, list) and isinstance(got, list):
        for i, (e, g) in enumerate(zip(expected, got, strict=False)):
            d = _first_difference(e, g, f"{path}[{i}]")
            if d:
                return d
        if len(expected) != len(got):
            return f"{path}: expected {len(expected)} items, got {len(got)}"
        return None
    if (
        isinstance(expected, float)
        and isinstance(got, (int, float))
        and not isinstance(got, bool)
        and math.isclose(expected, got, rel_tol=0.0, abs_tol=1.5e-9)
    ):
        return None
    if type(expected) is type(got) and expected == got:
        return None
    return f"{path or 'value'}: expected {expected!r}, got {got!r}"


def _where(game: str, options: dict[str, Any], seed: int, actions: list[str]) -> str:
    tail = " | ".join(actions[-4:])
    return (
        f"{game} {json.dumps(options)} deal seed {seed}, after {len(actions)} actions (last: {tail or '-'})"
    )


def _report(title: str, diffs: list[str], total: int) -> str:
    lines = [f"{title}: {len(diffs)} of {total} differ from the code before the refactor"]
    lines += diffs[:SHOW]
    if len(diffs) > SHOW:
        lines.append(f"... and {len(diffs) - SHOW} more")
    return "\n".join(lines)


def test_golden_file_covers_every_config_and_agent() -> None:
    data = _golden()
    have = {(p["game"], json.dumps(p["options"], sort_keys=True)) for p in data["positions"]}
    want = {(g, json.dumps(o, sort_keys=True)) for g, o in CONFIGS}
    assert want <= have, f"configs without positions in the golden file: {sorted(want - have)}"
    for game, options in CONFIGS:
        specs = {
            s
            for p in data["positions"]
            if p["game"] == game and p["options"] == options
            for s in p["decisions"]
        }
        names = {s.partition(":")[0] for s in specs}
        assert {"random", "heuristic", "ismcts"} <= names, (game, options, sorted(names))
    assert len(data["games"]) >= 6
    assert sum(len(p["decisions"]) for p in data["positions"]) >= 500


def test_registered_agents_are_still_there() -> None:
    from gamester.agents import agent_names

    data = _golden()
    used = {s.partition(":")[0] for p in data["positions"] for s in p["decisions"]}
    missing = sorted(used - set(agent_names()))
    assert not missing, f"agents fingerprinted before but no longer registered: {missing}"


@pytest.mark.parametrize(
    ("game", "options"), CONFIGS, ids=[f"{g}-{json.dumps(o, sort_keys=True)}" for g, o in CONFIGS]
)
@pytest.mark.slow
def test_decisions_at_fixed_positions(game: str, options: dict[str, Any]) -> None:
    from gamester import replay

    data = _golden()
    entries = [p for p in data["positions"] if p["game"] == game and p["options"] == options]
    assert entries, f"the golden file has no positions for {game} {options}"
    diffs: list[str] = []
    total = 0
    for p in entries:
        where = _where(game, options, p["seed"], p["actions"])
        try:
            state = replay(record(game, options, p["seed"], p["actions"]))
        except Exception as e:  # a position that no longer replays is a difference too
            diffs.append(f"{where}: the position no longer replays: {type(e).__name__}: {e}")
            continue
        if state.current_player() != p["player"]:
            diffs.append(f"{where}: player to move {state.current_player()}, expected {p['player']}")
            continue
        for spec, expected in p["decisions"].items():
            total += 1
            try:
                got = decide(spec, state, p["agent_seed"])
            except Exception as e:
                diffs.append(
                    f"{where}, agent {spec!r} seed {p['agent_seed']}: raised {type(e).__name__}: {e}"
                )
                continue
            d = _first_difference(expected, got)
            if d:
                diffs.append(f"{where}, agent {spec!r} seed {p['agent_seed']}: {d}")
    if diffs:
        pytest.fail(_report(f"{game} {json.dumps(options)} decisions", diffs, total), pytrace=False)


@pytest.mark.slow
def test_whole_games() -> None:
    data = _golden()
    diffs: list[str] = []
    for g in data["games"]:
        name = f"{g['game']} {json.dumps(g['options'])} deal seed {g['seed']}, agents {g['agents']}"
        try:
            got = play_game(g["game"], g["options"], g["seed"], g["agents"])
        except Exception as e:
            diffs.append(f"{name}: raised {type(e).__name__}: {e}")
            continue
        exp = g["actions"]
        if got != exp:
            i = next(
                (i for i, (a, b) in enumerate(zip(exp, got, strict=False)) if a != b), min(len(exp), len(got))
            )
            before = " | ".join(exp[max(0, i - 4) : i]) or "-"
            want = exp[i] if i < len(exp) else "the end"
            have = got[i] if i < len(got) else "the end"
            diffs.append(f"{name}: action {i} expected {want!r}, got {have!r} (after {before})")
    if diffs:
        pytest.fail(_report("whole games", diffs, len(data["games"])), pytrace=False)
