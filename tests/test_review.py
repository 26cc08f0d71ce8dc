"""``gamester review``: one player's decisions judged from that player's view only (docs/review.md).

Small budgets throughout (a few worlds per decision, cheap judges): these tests check the review's
shape, its legality, that it reads nothing the player did not know (the twin test), that it is
reproducible, and that bad input gets one line; docs/review.md measures it at full strength.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gamester.agents.base import View, agent_seed, make_agent
from gamester.agents.review import BLUNDER, MISTAKE, Step, summarise
from gamester.core.protocol import State
from gamester.core.record import replay
from gamester.core.registry import load_game
from gamester.sim.review import decisions, review_record

GAMES = ["penneech", "piquesept", "pentyrch"]
# Cheap judges: the games' best agents (futures, rollout, lookahead) with small budgets.
CHEAP = {"penneech": "futures:worlds=30", "piquesept": "rollout:worlds=12", "pentyrch": "lookahead:worlds=4"}
WORLDS = 8
# The judges of the no-blunder test: Pentyrch's lookahead at its shipped budget (8 worlds) does make
# moves the review measures 25 points worse (docs/review.md), so its own game is played at 24.
STRONG = {**CHEAP, "pentyrch": "lookahead:worlds=24"}


def play(game_name: str, spec: str, seed: int, stop: int | None = None) -> State:
    """A game between agents of ``spec``; with ``stop``, the position after that many actions."""
    game = load_game(game_name)
    agents = [make_agent(spec, game=game, seed=agent_seed(seed, p)) for p in range(game.num_players)]
    state = game.new_initial_state(seed=seed)
    n = 0
    while not state.is_terminal() and (stop is None or n < stop):
        p = state.current_player()
        state.apply_action(agents[p].step(View(state, p)))
        n += 1
    return state


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gamester", "review", *args], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.slow
def test_json_shape_and_every_best_move_is_legal(game_name: str) -> None:
    rec = play(game_name, "heuristic", seed=4).record()
    out = review_record(rec, 1, agent=CHEAP[game_name], worlds=WORLDS, seed=0)
    assert set(out) == {"seat", "measure", "steps", "summary"}
    assert out["seat"] == 1
    assert out["measure"] == ("share" if game_name == "pentyrch" else "chance")
    assert set(out["summary"]) == {"accuracy", "mistakes", "blunders"}
    assert out["steps"], "player 1 made no decision: the test checks nothing"
    assert [s["index"] for s in out["steps"]] == decisions(rec, 1)
    for s in out["steps"]:
        assert set(s) == {"index", "action", "best", "p_played", "p_best", "mark"} | (
            {"why"} if s["mark"] else set()
        )
        assert s["mark"] in ("", "mistake", "blunder")
        before = replay({**rec, "actions": rec["actions"][: s["index"]]})
        assert before.current_player() == 1
        legal = before.legal_action_strings()
        assert len(legal) > 1  # a decision, not a forced move
        assert s["action"] == rec["actions"][s["index"]]
        assert s["best"] in legal
        assert 0.0 <= s["p_played"] <= 1.0 and 0.0 <= s["p_best"] <= 1.0
        if s["best"] == s["action"]:
            assert s["p_best"] == s["p_played"]  # one move, one estimate
    acc = out["summary"]["accuracy"]
    assert 0.0 <= acc <= 1.0


def _twin(game_name: str, seat: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """A record stopped mid-game and its twin: the same game as ``seat`` saw it, the hidden cards
    drawn afresh by the game's own ``determinize`` for that seat."""
    full = play(game_name, "heuristic", seed=11)
    stop = 2 * len(full.record()["actions"]) // 3
    real = play(game_name, "heuristic", seed=11, stop=stop)
    twin = real.determinize(seat, random.Random(99)).record()
    return real.record(), twin


@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.slow
def test_twins_the_player_cannot_tell_apart_get_the_same_review(game_name: str) -> None:
    """The review reads only the player's view: two games that look the same to it, with other
    hidden cards elsewhere, are reviewed identically."""
    seat = 0
    real, twin = _twin(game_name, seat)
    assert real["chance"] != twin["chance"], "the twin must hide other cards, or the test checks nothing"
    n = len(real["actions"])
    assert len(twin["actions"]) == n
    # The premise: at every point of the game the player's observation is the same in both.
    a = replay({**real, "actions": []})
    b = replay({**twin, "actions": []})
    for i in range(n):
        assert a.observation(seat) == b.observation(seat), f"the twins differ for the player at action {i}"
        assert a.current_player() == b.current_player()
        a.apply_action(a.string_to_action(real["actions"][i]))
        b.apply_action(b.string_to_action(twin["actions"][i]))
    assert decisions(real, seat), "no decision to review: the test checks nothing"
    one = review_record(real, seat, agent=CHEAP[game_name], worlds=WORLDS, seed=3)
    two = review_record(twin, seat, agent=CHEAP[game_name], worlds=WORLDS, seed=3)
    assert one == two  # every number and every sentence


@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.slow
def test_twins_get_the_same_whys(game_name: str) -> None:
    """The twin test on games with mistakes to explain (a random player, judged by the heuristic):
    the two records differ in cards the player never saw, and every why is the same sentence."""
    seat = 1
    for seed in range(3, 60):
        full = play(game_name, "random", seed)
        stop = 3 * len(full.record()["actions"]) // 4
        real = play(game_name, "random", seed, stop=stop)
        twin = real.determinize(seat, random.Random(seed)).record()
        if real.record()["chance"] == twin["chance"]:
            continue
        one = review_record(real.record(), seat, agent="heuristic", worlds=6, seed=1)
        if any(s["mark"] for s in one["steps"]):
            break
    else:
        raise AssertionError("no twin game with a marked move: the test checks nothing")
    two = review_record(twin, seat, agent="heuristic", worlds=6, seed=1)
    assert one == two
    assert all(s["why"] for s in one["steps"] if s["mark"])


@pytest.mark.parametrize(
    "game_name", ["penneech", "piquesept", pytest.param("pentyrch", marks=pytest.mark.slow)]
)
@pytest.mark.slow
def test_a_game_of_the_best_agent_has_no_blunder(game_name: str) -> None:
    """The judge, seeded otherwise, reviews a game its own kind played: no move of it is a blunder."""
    spec = STRONG[game_name]
    rec = play(game_name, spec, seed=5).record()
    for seat in (0, 1):
        out = review_record(rec, seat, agent=spec, worlds=64, seed=1)
        assert out["steps"]
        assert out["summary"]["blunders"] == 0, out


def test_the_same_seed_gives_the_same_review_and_workers_change_nothing() -> None:
    rec = play("piquesept", "heuristic", seed=2).record()
    spec = CHEAP["piquesept"]
    one = review_record(rec, 0, agent=spec, worlds=WORLDS, seed=7)
    assert one == review_record(rec, 0, agent=spec, worlds=WORLDS, seed=7)
    assert one == review_record(rec, 0, agent=spec, worlds=WORLDS, seed=7, workers=2)
    random.seed(12345)  # the global generator is never used
    assert one == review_record(rec, 0, agent=spec, worlds=WORLDS, seed=7)


def test_marks_need_the_threshold_and_a_drop_clear_of_noise() -> None:
    def step(p_played: float, p_best: float, err: float) -> Step:
        return Step(0, "a", "b", p_played, p_best, err)

    assert step(0.3, 0.3 + BLUNDER, 0.01).mark == "blunder"
    assert step(0.3, 0.3 + MISTAKE, 0.01).mark == "mistake"
    assert step(0.3, 0.3 + MISTAKE / 2, 0.0).mark == ""
    assert step(0.3, 0.3 + BLUNDER + 0.1, 0.2).mark == ""  # within two standard errors: noise
    assert step(0.6, 0.3, 0.0).mark == ""  # the judge's move measured worse: no drop
    s = summarise([step(0.5, 0.5, 0.0), step(0.3, 0.3 + BLUNDER, 0.0)])
    assert s == {"accuracy": 0.5, "mistakes": 0, "blunders": 1}
    assert summarise([])["accuracy"] is None


@pytest.mark.slow
def test_text_table_and_chart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(play("piquesept", "heuristic", seed=2).record()))
    # The chart by a short relative name: "wrote PATH" echoes it, and a test's own folder (longer
    # under pytest-xdist, popen-gw0/...) is no part of what must fit 80 columns.
    monkeypatch.chdir(tmp_path)
    chart = tmp_path / "chance.png"
    r = run(str(path), "--seat", "0", "--agent", CHEAP["piquesept"], "--worlds", "4", "--plot", "chance.png")
    assert r.returncode == 0, r.stderr
    assert "Review of Seat 1 (player 0, --seat 0)" in r.stdout and "accuracy" in r.stdout
    assert max(len(line) for line in r.stdout.splitlines()) <= 80  # a terminal's width (issue 27)
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    j = run(str(path), "--seat", "0", "--agent", CHEAP["piquesept"], "--worlds", "4", "--json", "--quiet")
    assert j.returncode == 0 and r.stderr.count("Traceback") == 0
    assert set(json.loads(j.stdout)) == {"seat", "measure", "steps", "summary"}


@pytest.mark.parametrize(
    ("make", "args", "message"),
    [
        (None, ["--seat", "0"], "cannot read"),
        ("{}", ["--seat", "0"], "format"),
        ("[1, 2]", ["--seat", "0"], "a record is a JSON object"),
        ("not json", ["--seat", "0"], "json"),
        ("GOOD", ["--seat", "7"], "--seat must be 0 to 3"),
        ("GOOD", ["--seat", "x"], "--seat"),
        ("GOOD", ["--seat", "0", "--agent", "nosuchagent"], "unknown agent"),
        ("GOOD", ["--seat", "0", "--worlds", "0"], "--worlds must be at least 1"),
        ("GOOD", ["--seat", "0", "--plot", "/no/such/folder/x.png"], "does not exist"),
        ("GOOD", ["--seat", "0", "--plot", "chart.svg"], "PNG"),
    ],
)
def test_bad_input_gets_one_line_and_exit_2(
    tmp_path: Path, make: str | None, args: list[str], message: str
) -> None:
    path = tmp_path / "r.json"
    if make == "GOOD":
        path.write_text(json.dumps(play("piquesept", "heuristic", seed=2, stop=6).record()))
    elif make is not None:
        path.write_text(make)
    r = run(str(path), *args)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message.lower() in lines[0].lower(), r.stderr


@pytest.mark.slow
def test_ctrl_c_leaves_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(play("pentyrch", "heuristic", seed=1).record()))
    # The default judge (about a second a move): long enough to be interrupted.
    p = subprocess.Popen(
        [sys.executable, "-m", "gamester", "review", str(path), "--seat", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert p.stderr is not None
    seen = ""
    while "review player 0" not in seen:  # the progress bar has started: the review is running
        ch = p.stderr.read(1)
        assert ch, "the review ended before it could be interrupted"
        seen += ch
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130
    assert "Traceback" not in err
    assert "gamester review: interrupted" in err


def _marked_whys(game_name: str, seeds: range, worlds: int) -> tuple[int, list[str]]:
    """Games of a random player judged by the heuristic (mistakes aplenty): how many steps were
    marked, and the why of each."""
    marked, whys = 0, []
    for seed in seeds:
        rec = play(game_name, "random", seed).record()
        out = review_record(rec, seed % 2, agent="heuristic", worlds=worlds, seed=seed)
        for s in out["steps"]:
            if s["mark"]:
                marked += 1
                whys.append(s["why"])
            else:
                assert "why" not in s
    return marked, whys


def _plain(why: str) -> bool:
    """One sentence a player reads: no notation it does not explain, no numbers beyond 100%."""
    return why.endswith(".") and "\n" not in why and len(why) < 200 and why.count(". ") == 0


def test_a_mistake_says_why() -> None:
    marked, whys = _marked_whys("penneech", range(1, 3), 6)
    assert marked and len(whys) == marked
    assert all(_plain(w) for w in whys), whys


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game_name", "games", "worlds"), [("penneech", 10, 4), ("piquesept", 24, 6), ("pentyrch", 3, 4)]
)
def test_every_mistake_in_many_games_says_why(game_name: str, games: int, worlds: int) -> None:
    """Enough worlds that mistakes stand clear of the noise (at 4, Piquesept's random games show
    too few to check)."""
    marked, whys = _marked_whys(game_name, range(games), worlds)
    assert marked >= 3, "too few mistakes to check"
    assert len(whys) == marked and all(_plain(w) for w in whys), whys


def test_whys_name_what_the_best_move_does() -> None:
    """The games' sentences, on facts measured as the review measures them."""
    from gamester.games.penneech import review as penneech
    from gamester.games.pentyrch import review as pentyrch
    from gamester.games.piquesept import review as piquesept

    assert penneech.why({}, "5H", "QS", {"trick": 0.0, "net": -3.0}, {"trick": 1.0, "net": 2.0}) == (
        "QS wins this trick whatever the hidden cards are; 5H loses it."
    )
    keep = penneech.why({}, "AH", "2H", {"trick": 0.0, "net": -4.0}, {"trick": 0.0, "net": 1.0})
    assert keep and "keeps your AH" in keep
    give = piquesept.why({"phase": "give"}, "AH", "8C", {"points": 0.0}, {"points": 0.0})
    assert give == "8C brings the soloist 0 card points, AH 11."
    home = pentyrch.why(
        {},
        "JH a4-b4 9C",
        "KH b4-c4",
        {"home": 1.0, "points": 3.0, "share": 0.2},
        {"home": 2.0, "points": 5.0, "share": 0.5},
    )
    assert home == "KH b4-c4 brings 2.0 of your court cards home on average, JH a4-b4 9C 1.0."


@pytest.mark.slow
def test_a_lost_pentyrch_game_still_ranks_its_moves() -> None:
    """Pentyrch is reviewed by the share of the best result (its place), so once a win is out of
    reach the later moves still differ: second place is worth more than last. Over the lost games of
    ten seeded deals, no second half reads flat at 0, and most tell three or more values apart."""
    from gamester.agents.review import share

    spread = []
    for seed in range(20, 30):
        state = play("pentyrch", "heuristic", seed)
        r = state.returns()
        losers = [p for p in range(len(r)) if r[p] < max(r)]
        if not losers:
            continue
        seat = losers[0]
        assert share(state, seat) < 1.0
        out = review_record(state.record(), seat, agent="heuristic", worlds=6, seed=0)
        late = out["steps"][len(out["steps"]) // 2 :]
        values = {s["p_played"] for s in late} | {s["p_best"] for s in late}
        assert max(values) > 0.0, (seed, values)  # never the old flat 0% / 0%
        spread.append(len(values))
    assert len(spread) >= 5 and sum(n >= 3 for n in spread) >= 0.7 * len(spread), spread


def test_a_place_is_a_share_of_the_best_result() -> None:
    """Alone first is 1, alone last 0, a tie counts half of each place it shares."""
    from gamester.agents.review import share

    state = play("pentyrch", "heuristic", 21)
    n = state.game.num_players
    values = sorted(share(state, p) for p in range(n))
    assert values[-1] > values[0]
    assert abs(sum(values) - n / 2) < 1e-9  # the places share out n - 1 beatings evenly


def test_a_deadline_or_a_worlds_budget_caps_the_work() -> None:
    """A caller with a time budget (the server's review queue) passes a deadline: past it each decision
    is measured on two worlds, so the review still comes whole; a worlds budget is the ``worlds``."""
    from gamester.agents.review import review_decisions

    rec = play("piquesept", "random", 4).record()
    late = review_decisions(rec, 0, "heuristic", worlds=64, seed=0, deadline=0.0)
    assert [s.index for s in late] == decisions(rec, 0)
    assert all(0.0 <= s.p_played <= 1.0 for s in late)
    two = review_decisions(rec, 0, "heuristic", worlds=2, seed=0)
    assert [(s.p_played, s.p_best) for s in late] == [(s.p_played, s.p_best) for s in two]
