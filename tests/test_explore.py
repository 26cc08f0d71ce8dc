"""``gamester explore`` on small budgets (docs/explore.md): every reading is in the space, the games add
up to the budget, the ranking follows the score, the same seed gives the same ``explore.json``, local
and Ray agree, and a reading's metrics are ``analyse``'s for the same options and seeds."""

from __future__ import annotations

import itertools
import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gamester.core.registry import load_game
from gamester.play.cli import main
from gamester.sim.analyse import Analysis, run_analysis
from gamester.sim.explore import (
    SCORES,
    Exploration,
    _score_of,
    kept,
    min_budget,
    open_space,
    readings,
    rounds_for,
    run_exploration,
    score_from_metrics,
    score_name,
)

# Penneech with heuristic players and one sampled world: a few milliseconds a game.
FAST = {"game": "penneech", "agents": "heuristic", "worlds": 1, "workers": 1, "progress": False}


def _explore(tmp: Path, name: str, **kw: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    args = {**FAST, **kw}
    out = tmp / name
    doc = run_exploration(Exploration(**args), str(out))
    rounds = json.loads((out / "rounds.json").read_text())
    assert json.loads((out / "explore.json").read_text()) == doc
    return doc, rounds


@pytest.fixture(scope="module")
def penneech_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, dict[str, Any], list[dict[str, Any]]]:
    tmp = tmp_path_factory.mktemp("explore")
    doc, rounds = _explore(tmp, "a", budget=61, seed=5)
    return tmp / "a", doc, rounds


def test_the_schedule_halves_to_two_in_ceil_log2_rounds() -> None:
    """Successive halving (Karnin et al. 2013): ceil(log2 n) rounds, the better half kept, two at the end."""
    assert [rounds_for(n) for n in (1, 2, 3, 4, 5, 8, 12, 128)] == [1, 1, 2, 2, 3, 3, 4, 7]
    for n in (3, 5, 8, 12, 128):
        sizes = [n]
        while len(sizes) < rounds_for(n):
            sizes.append(kept(sizes[-1]))
        assert sizes[-1] == 2, (n, sizes)
    assert min_budget(12) == 48


@pytest.mark.slow
def test_every_reading_is_in_the_space_and_every_combination_is_played(
    penneech_run: tuple[Path, dict[str, Any], list[dict[str, Any]]],
) -> None:
    out, doc, _ = penneech_run
    assert list(doc) == ["game", "space", "score", "readings"]
    assert doc["space"] == {
        "redeal": ["above_ten", "no_ace_or_face", "off"],
        "follow": ["suit_or_trump", "suit"],
        "trick_honours": ["any", "trump"],
    }
    seen = set()
    for r in doc["readings"]:
        assert list(r) == ["options", "games", "score", "ci", "metrics"]
        for k, values in doc["space"].items():
            assert r["options"][k] in values
        seen.add(tuple(r["options"][k] for k in doc["space"]))
        assert r["games"] >= 1
    assert seen == set(itertools.product(*doc["space"].values()))
    assert len(doc["readings"]) == 12
    # Every reading's games are stored, one complete record a line, in seed order.
    for r in doc["readings"]:
        key = ",".join(f"{k}={r['options'][k]}" for k in doc["space"])
        lines = (out / "records" / f"{key}.jsonl").read_text().splitlines()
        assert len(lines) == r["games"]
        assert [json.loads(x)["seed"] for x in lines] == list(range(5, 5 + r["games"]))
    assert (out / "report.md").read_text().startswith("# Exploring the readings of Penneech")
    assert (out / "explore.png").stat().st_size > 1000


@pytest.mark.parametrize("budget", [48, 61, 100])
@pytest.mark.slow
def test_the_games_add_up_to_the_budget(tmp_path: Path, budget: int) -> None:
    doc, rounds = _explore(tmp_path, "b", budget=budget, seed=1)
    assert sum(r["games"] for r in doc["readings"]) == budget
    assert sum(h["games_played"] for h in rounds) == budget
    # The readings still in contention get the games: the later a reading was dropped, the more it has.
    by_round = {x["reading"]: h["round"] for h in rounds for x in h["readings"]}
    games = {x["reading"]: x["games"] for h in rounds for x in h["readings"]}
    for a, b in itertools.permutations(games, 2):
        if by_round[a] > by_round[b]:
            assert games[a] >= games[b]


@pytest.mark.slow
def test_the_ranking_follows_the_score(
    penneech_run: tuple[Path, dict[str, Any], list[dict[str, Any]]],
) -> None:
    _, doc, rounds = penneech_run
    for h in rounds:
        scores = [x["score"]["value"] for x in h["readings"]]
        assert scores == sorted(scores, reverse=True), h["round"]
        if h["kept"]:
            assert h["kept"] == [x["reading"] for x in h["readings"][: len(h["kept"])]]
            nxt = rounds[h["round"]]
            assert [x["reading"] for x in nxt["readings"]] != [] and {
                x["reading"] for x in nxt["readings"]
            } == set(h["kept"])
    # explore.json: the last round's readings first, by score; then each earlier round's dropped.
    reached = {x["reading"]: h["round"] for h in rounds for x in h["readings"]}
    keys = [",".join(f"{k}={r['options'][k]}" for k in doc["space"]) for r in doc["readings"]]
    order = [(-reached[k], -r["score"]) for k, r in zip(keys, doc["readings"], strict=True)]
    assert order == sorted(order)
    # Penneech's seats are alike (the first dealer is drawn): the score leaves seat balance out.
    assert doc["score"] == SCORES["without-balance"]
    for r in doc["readings"]:
        # The score is the declared formula of analyse's metric values (docs/analysis.md).
        assert r["score"] == pytest.approx(score_from_metrics(r["metrics"], balanced=False), abs=1e-5)
        lo, hi = r["ci"]
        assert lo <= r["score"] <= hi


def test_the_score_by_hand_with_and_without_seat_balance() -> None:
    """Four two-seat games: seat 0 wins three, the fourth ends level; decisiveness 0.5 and 0.25 in
    the two games the analysis could time, none in the others. Balance 1 - 3/4, completion 3/4,
    suspense 1 - 0.375 (docs/analysis.md, The exploration score)."""
    items = [((0,), 0.5), ((0,), 0.25), ((0,), None), ((), None)]
    assert _score_of(items, 2, True) == pytest.approx((0.25 + 0.75 + 0.625) / 3)
    assert _score_of(items, 2, False) == pytest.approx((0.75 + 0.625) / 2)
    # The seat that won nothing weighs only with balance: the other score is the same for any seats.
    assert _score_of(items, 4, False) == _score_of(items, 2, False)
    assert _score_of(items, 4, True) == pytest.approx((0.25 + 0.75 + 0.625) / 3)
    metrics = {"balance": {"value": 0.25}, "completion": {"value": 0.75}, "decisiveness": {"value": 0.375}}
    assert score_from_metrics(metrics) == _score_of(items, 2, True)
    assert score_from_metrics(metrics, balanced=False) == _score_of(items, 2, False)


@pytest.mark.parametrize(
    ("game", "options", "alike"),
    [
        ("penneech", {}, True),  # the first dealer is drawn
        ("penneech", {"first_dealer": 0}, False),  # seat 0 always has the first turn-up
        ("piquesept", {}, True),  # the soloist is whoever is dealt the 7S
        ("piquesept", {"players": 3}, True),
        ("pentyrch", {}, False),  # seats own fixed homes and goals, and seat 0 moves first
    ],
)
def test_auto_leaves_balance_out_only_where_every_seat_is_alike(
    game: str, options: dict[str, Any], alike: bool
) -> None:
    assert load_game(game, **options).seats_alike() is alike
    rs, _ = readings(game, {k: str(v) for k, v in options.items()})
    e = Exploration(game=game, options={k: str(v) for k, v in options.items()})
    assert score_name(e, rs) == ("without-balance" if alike else "with-balance")
    for name in SCORES:
        assert score_name(Exploration(game=game, score=name), rs) == name


def test_with_balance_ranks_by_the_three_part_score(tmp_path: Path) -> None:
    doc, _ = _explore(tmp_path, "wb", budget=48, seed=3, score="with-balance")
    assert doc["score"] == SCORES["with-balance"]
    for r in doc["readings"]:
        assert r["score"] == pytest.approx(score_from_metrics(r["metrics"]), abs=1e-5)
    out = (tmp_path / "wb" / "report.md").read_text()
    assert SCORES["with-balance"] in out


@pytest.mark.slow
def test_the_same_seed_gives_the_same_explore_json(tmp_path: Path) -> None:
    _explore(tmp_path, "x", budget=60, seed=9)
    _explore(tmp_path, "y", budget=60, seed=9, workers=2)  # however many processes play
    _explore(tmp_path, "z", budget=60, seed=10)
    x, y, z = ((tmp_path / d / "explore.json").read_bytes() for d in "xyz")
    assert x == y
    assert x != z


@pytest.mark.slow
def test_a_readings_metrics_are_analyses_for_the_same_options_and_seeds(
    penneech_run: tuple[Path, dict[str, Any], list[dict[str, Any]]],
) -> None:
    _, doc, _ = penneech_run
    for r in (doc["readings"][0], doc["readings"][-1]):
        a = Analysis(
            game="penneech",
            rulesets=["standard"],
            options=r["options"],
            games=r["games"],
            agents="heuristic",
            seed=5,
            worlds=1,
            skill_games=0,
            info_games=0,
            workers=1,
            progress=False,
        )
        summary = run_analysis(a)
        (rs,) = summary["rulesets"].values()
        assert rs["options"] == r["options"]
        assert rs["metrics"] == r["metrics"]


def test_fixed_options_leave_the_space_and_refused_combinations_are_not_readings() -> None:
    """docs/rules/pentyrch.md: partners=true needs four players, so those combinations are no game."""
    rs, refused = readings("pentyrch", {})
    assert len(rs) == 128 and len(refused) == 64
    assert all("partners=true needs players=4" in why for _, why in refused)
    rs2, refused2 = readings("pentyrch", {"players": "2"})
    assert "players" not in open_space("pentyrch", {"players": "2"})
    assert len(rs2) == 32 and len(refused2) == 32
    assert all(r.game.num_players == 2 for r in rs2)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["nogame"], "unknown game"),
        (["penneech", "--budget", "0"], "--budget must be at least 1"),
        (["penneech", "--budget", "47"], "too small for 12 readings"),
        (["penneech", "--seed", "-2"], "--seed must be 0 or more"),
        (["penneech", "--option", "follow=sideways"], "follow must be one of"),
        (["penneech", "--option", "ruleset=cotton"], "not rule sets"),
        (["penneech", "--agents", "nobody"], "unknown agent"),
        (["penneech", "--worlds", "0"], "--worlds must be at least 1"),
        (["penneech", "--score", "fairest"], "--score must be one of auto, with-balance, without-balance"),
        (["pentyrch", "--option", "players=3", "--option", "partners=true"], "partners=true needs"),
    ],
)
def test_bad_input_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], words: str
) -> None:
    assert main(["explore", *args, "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and words in err and err.startswith("gamester explore: ")
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_cli_explore_prints_the_ranking(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["explore", "piquesept", "--out", str(tmp_path / "p"), "--budget", "24", "--agents", "heuristic"]
        + ["--worlds", "1", "--workers", "1", "--quiet", "--option", "players=3"]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert re.search(r"^  1\. [0-9.]+ \[[0-9.]+, [0-9.]+\] +\d+ games  first_trick_highest=", out, re.M)
    doc = json.loads((tmp_path / "p" / "explore.json").read_text())
    assert doc["space"] == {"first_trick_highest": ["rank", "points"], "trade_visible": [False, True]}
    assert all(r["options"]["players"] == 3 for r in doc["readings"])


@pytest.mark.slow
def test_ctrl_c_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    """Interrupted once the games are under way (the bar has counted one), never after a fixed time."""
    out = tmp_path / "c"
    p = subprocess.Popen(
        [sys.executable, "-m", "gamester", "explore", "penneech", "--out", str(out)]
        + ["--budget", "1000000", "--agents", "heuristic", "--worlds", "1", "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert p.stderr is not None
    err = b""
    try:
        deadline = time.monotonic() + 120
        while not re.search(rb"[|:] *[1-9][0-9]*/1000000", err):
            assert time.monotonic() < deadline and p.poll() is None, err.decode(errors="replace")[-500:]
            if select.select([p.stderr], [], [], 1.0)[0]:
                err += os.read(p.stderr.fileno(), 4096)
        os.killpg(p.pid, signal.SIGINT)  # what a terminal does on Ctrl-C: the whole job
        _, rest = p.communicate(timeout=60)
        err += rest
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    text = err.decode(errors="replace")
    assert p.returncode == 130, text[-500:]
    assert "Traceback" not in text and "KeyboardInterrupt" not in text
    last = [x for x in re.split(r"[\r\n]", text) if x.strip()][-1]
    assert re.fullmatch(
        r"gamester explore: interrupted after \d+ of 1000000 games; nothing written to .*", last
    )
    assert not out.exists()


# -- Ray -------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def a_ray() -> Iterator[None]:
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        ray.init(
            num_cpus=2,
            object_store_memory=100 * 1024 * 1024,  # capped: the machine is shared
            include_dashboard=False,
            log_to_driver=False,
            _node_ip_address="127.0.0.1",
        )
    try:
        yield
    finally:
        if started:
            ray.shutdown()


@pytest.mark.slow
def test_local_and_ray_give_the_same_exploration(tmp_path: Path, a_ray: None) -> None:
    _explore(tmp_path, "local", budget=48, seed=3, workers=2)
    _explore(tmp_path, "ray", budget=48, seed=3, backend="ray")
    for name in ("explore.json", "rounds.json"):
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "ray" / name).read_bytes()
