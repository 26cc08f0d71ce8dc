"""``gamester analyse``: the metrics on games made by hand, the own-view estimates, the clairvoyant
probe, the output files and the command line (docs/analysis.md)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import gamester
from gamester.agents.base import View, make_agent
from gamester.sim import metrics as M
from gamester.sim.analyse import Analysis, ClairvoyantView, play_probe, run_analysis
from gamester.sim.estimate import Estimator


def g(
    returns: list[float],
    winners: list[int],
    est: list[list[float]] | None = None,
    legal: list[int] | None = None,
    roles: list[str] | None = None,
) -> M.GameData:
    return M.GameData(
        returns=returns,
        winners=winners,
        legal=legal or [1] * len(est or [[]]),
        estimates=est or [],
        roles=roles or [],
    )


# -- metrics on hand-made games ------------------------------------------------------------------
def test_result_metrics_counted_by_hand() -> None:
    games = [
        g([1, -1], [0], legal=[1, 3, 2]),
        g([1, -1], [0], legal=[2, 2]),
        g([-1, 1], [1], legal=[1]),
        g([0, 0], [], legal=[4, 1, 1, 1]),
    ]
    assert M.completion(games)["value"] == 0.75
    assert M.drawishness(games)["value"] == 0.25
    assert M.timeouts(games)["value"] == 0.0
    # Seat 0 wins 2 of 4, seat 1 wins 1 of 4: the gap is 0.25.
    assert M.balance(games)["value"] == 0.75
    rates = M.seat_win_rates(games)
    assert rates["value"] == {"seat 0": 0.5, "seat 1": 0.25}
    assert M.duration_actions(games)["value"] == 2.5
    # 10 decisions, 18 legal actions in all (6 + 4 + 1 + 7), 5 with a choice.
    assert M.branching_factor(games)["value"] == 1.8
    assert M.decision_moves(games)["value"] == 0.5
    for key in ("completion", "balance", "branching_factor", "duration_actions"):
        iv = getattr(M, key)(games)
        assert iv["ci"][0] <= iv["value"] <= iv["ci"][1]


def test_roles_count_every_seat_holding_them() -> None:
    """Three defenders who win together: three defender seats won; the soloist's seat lost."""
    games = [
        g([-3, 1, 1, 1], [1, 2, 3], roles=["soloist", "defender", "defender", "defender"]),
        g([3, -1, -1, -1], [0], roles=["soloist", "defender", "defender", "defender"]),
    ]
    rates = M.seat_win_rates(games)["value"]
    assert rates["soloist"] == 0.5 and rates["defender"] == 0.5 and rates["seat 1"] == 0.5


def test_lead_change_drama_decisiveness_stability_by_hand() -> None:
    est = [[0.5, 0.5], [0.7, 0.3], [0.4, 0.6], [0.2, 0.8], [0.1, 0.9]]
    game = g([-1, 1], [1], est)
    # Leader: 0 (tie kept), 0, 1, 1, 1: one change in four steps.
    assert M.game_lead_change(est) == 0.25
    # Seat 1 (the winner) trails only at decision 1, by 0.4.
    assert M.game_drama(game) == pytest.approx(0.4)
    # The loser's best is 0.7; the winner first passes it at decision 3 of 5: 2/5 of the game left.
    assert M.game_decisiveness(game) == pytest.approx(0.4)
    xs = [0.5, 0.3, 0.6, 0.8, 0.9]
    m = sum(xs) / 5
    var = sum((x - m) ** 2 for x in xs) / 5
    assert M.game_stability(game) == pytest.approx(var)  # both seats' curves mirror each other
    # A winner who leads throughout: no drama; a game without a winner has none to measure.
    assert M.game_drama(g([1, -1], [0], [[0.6, 0.4], [0.9, 0.1]])) == 0.0
    assert M.game_drama(g([0, 0], [], est)) is None
    # Never passing the loser's best: decided at the very end.
    assert M.game_decisiveness(g([1, -1], [0], [[0.4, 0.6], [0.5, 0.5]])) == 0.0


def test_skill_trace_scores_and_floors_each_rung() -> None:
    always = {d: [1.0, 1.0] for d in range(5)}
    never = {d: [-1.0, 0.0] for d in range(5)}
    assert M.skill_trace([always, always])["value"] == 1.0
    # A rung where the doubled agent does worse counts 0, not negative.
    assert M.skill_trace([always, never])["value"] == 0.5
    iv = M.skill_trace([{d: [1.0 if d % 2 else 0.0] for d in range(40)}])
    assert iv["value"] == 0.5 and iv["ci"][0] < 0.5 < iv["ci"][1]


def test_bootstrap_is_seeded() -> None:
    xs = [random.Random(3).random() for _ in range(30)]
    stat = lambda v: sum(v) / len(v)  # noqa: E731
    assert M.bootstrap(xs, stat, seed=5) == M.bootstrap(xs, stat, seed=5)


# -- the estimates see only the seat's view ------------------------------------------------------
@pytest.mark.parametrize("spec", ["penneech", "piquesept(players=3)", "pentyrch"])
def test_a_seat_estimate_is_the_same_in_every_world_it_cannot_tell_apart(spec: str) -> None:
    """The true state and a world drawn from seat s's view look the same to s, so s's estimate
    (same generator) must be the same: it cannot depend on the hidden cards."""
    game = gamester.load_game(spec)
    state = game.new_initial_state(seed=11)
    rng = random.Random(2)
    for _ in range(7):
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    est = Estimator(game, worlds=3)
    seat = state.current_player()
    world = state.determinize(seat, random.Random(99))
    assert world.observation(seat) == state.observation(seat)
    mine = est.chance(View(state, seat), random.Random(7))
    theirs = est.chance(View(world, seat), random.Random(7))
    assert mine == theirs
    chances = est.chances(state, 1)
    assert len(chances) == game.num_players and all(0.0 <= c <= 1.0 for c in chances)


def test_clairvoyant_view_hands_out_the_true_state_and_counts() -> None:
    game = gamester.load_game("penneech")
    state = game.new_initial_state(seed=4)
    draws = [0]
    view = ClairvoyantView(state, 0, draws)
    world = view.determinize(random.Random(0))
    assert world.record() == state.record() and world is not state and draws == [1]
    # An agent that samples no worlds never asks: info_value is then not measurable.
    r = play_probe("penneech(target=11)", ["heuristic", "heuristic"], [0], 4)
    assert r["draws"] == 0
    r = play_probe("penneech(target=11)", ["rollout:worlds=2", "heuristic"], [0], 4)
    assert r["draws"] > 0


def test_seeing_every_card_helps_in_penneech() -> None:
    """A rollout agent whose worlds are the true deal knows the opponent's hand and the stock: it must
    not do worse than the same agent seeing only its seat (a sanity check of the probe)."""
    wins = {True: 0, False: 0}
    for d in range(12):
        for clair in (True, False):
            r = play_probe(
                "penneech(objective=deal)", ["rollout:worlds=4", "heuristic"], [0] if clair else [], 500 + d
            )
            wins[clair] += r["returns"][0]
    assert wins[True] >= wins[False]


# -- the run and its files ----------------------------------------------------------------------
def small(**kw: object) -> Analysis:
    base: dict[str, object] = dict(
        game="penneech",
        rulesets=["standard", "pagat"],
        options={"target": "21"},
        games=3,
        agents="heuristic",
        seed=5,
        worlds=1,
        skill_games=1,
        skill_budgets=(1, 2),
        info_games=2,
        info_agent="rollout:worlds=2",
        workers=1,
        progress=False,
    )
    base.update(kw)
    return Analysis(**base)  # type: ignore[arg-type]


@pytest.mark.slow
def test_run_writes_summary_records_plots_and_report(tmp_path: Path) -> None:
    out = tmp_path / "a"
    summary = run_analysis(small(), str(out))
    on_disk = json.loads((out / "summary.json").read_text())
    assert on_disk == summary
    assert set(summary) == {"game", "agents", "seed", "rulesets"}
    assert summary["game"] == "penneech" and summary["seed"] == 5
    assert list(summary["rulesets"]) == ["standard", "pagat"]
    for name, rs in summary["rulesets"].items():
        assert set(rs) == {"options", "games", "metrics"} and rs["games"] == 3
        assert rs["options"]["target"] == 21
        assert list(rs["metrics"]) == list(M.METRICS)
        for metric, entry in rs["metrics"].items():
            assert set(entry) == {"value", "ci"}, metric
            if metric != "seat_win_rates" and entry["value"] is not None:
                assert entry["ci"][0] <= entry["value"] <= entry["ci"][1], metric
        lines = (out / name / "records.jsonl").read_text().splitlines()
        assert len(lines) == 3
        for i, line in enumerate(lines):
            rec = json.loads(line)
            assert rec["seed"] == 5 + i
            assert gamester.replay(rec).is_terminal()
    assert summary["rulesets"]["pagat"]["options"]["follow"] == "suit"
    report = (out / "report.md").read_text()
    assert "pagat" in report and "balance" in report and "95%" in report
    for metric in ("balance", "lead_change", "seat_win_rates"):
        assert (out / f"{metric}.png").stat().st_size > 1000


def test_same_seed_same_summary_with_two_workers() -> None:
    one = run_analysis(small(workers=1, info_games=0))
    two = run_analysis(small(workers=2, info_games=0))
    assert one == two


def test_info_value_needs_a_searching_agent() -> None:
    s = run_analysis(small(rulesets=["standard"], info_agent="heuristic", skill_games=0))
    assert s["rulesets"]["standard"]["metrics"]["info_value"] == {"value": None, "ci": [None, None]}


# -- the command line ---------------------------------------------------------------------------
def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gamester", *args], capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
def test_cli_analyse(tmp_path: Path) -> None:
    out = tmp_path / "cli"
    r = run(
        "analyse",
        "piquesept",
        "--ruleset",
        "three_hand",
        "--games",
        "2",
        "--agents",
        "heuristic",
        "--worlds",
        "1",
        "--skill-games",
        "0",
        "--info-games",
        "0",
        "--workers",
        "1",
        "--quiet",
        "--out",
        str(out),
    )
    assert r.returncode == 0, r.stderr
    s = json.loads((out / "summary.json").read_text())
    rates = s["rulesets"]["three_hand"]["metrics"]["seat_win_rates"]["value"]
    assert {"seat 0", "seat 1", "seat 2", "soloist", "defender"} == set(rates)
    assert "three_hand" in r.stdout and "balance" in r.stdout


@pytest.mark.parametrize(
    "args, words",
    [
        (["nosuch"], "unknown game"),
        (["penneech", "--ruleset", "nosuch"], "unknown rule set"),
        (["penneech", "--games", "0"], "--games"),
        (["penneech", "--seed", "-3"], "seed"),
        (["penneech", "--agents", "nosuch"], "unknown agent"),
        (["penneech", "--skill-budgets", "1,x"], "--skill-budgets"),
        (["penneech", "--skill-ladder", "rollout:worlds=3"], "{}"),
        (["penneech", "--option", "target"], "KEY=VALUE"),
        (["penneech", "--out", "/nonexistent/folder/x"], "does not exist"),
    ],
)
def test_cli_analyse_bad_input_is_one_line(args: list[str], words: str) -> None:
    r = run("analyse", *args, "--quiet")
    assert r.returncode == 2, r
    assert words in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_without_ray_backend_ray_says_how_to_install() -> None:
    code = (
        "import sys; sys.modules['ray'] = None\n"
        "from gamester.play.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    for cmd in (
        ["simulate", "penneech", "--agents", "random", "--games", "2"],
        ["tournament", "penneech", "--agents", "random", "--games", "1"],
        ["analyse", "penneech", "--games", "1"],
    ):
        r = subprocess.run(
            [sys.executable, "-c", code, *cmd, "--backend", "ray"], capture_output=True, text=True, timeout=60
        )
        assert r.returncode == 2, (cmd, r.stderr)
        assert "pip install 'gamester[ray]'" in r.stderr and "Traceback" not in r.stderr


def test_make_agent_specs_of_the_default_ladders_exist() -> None:
    for name in ("penneech", "piquesept", "pentyrch"):
        game = gamester.load_game(name)
        template = game.kit().skill_ladder
        assert "{}" in template and not template.startswith("ismcts")  # each game names its own
        make_agent(template.replace("{}", "2"), game=game)
