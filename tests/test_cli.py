"""The command line (README.md, The command line), run as a user would: in a subprocess."""

from __future__ import annotations

import io
import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import gamester
from gamester.agents import make_agent
from gamester.core.words import pretty
from gamester.play.terminal import TerminalGame


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gamester", *args], input=stdin, capture_output=True, text=True, timeout=120
    )


def test_help_loads_no_heavy_library_and_no_game() -> None:
    code = (
        "import sys\nfrom gamester.play.cli import main\ntry:\n    main(['--help'])\n"
        "except SystemExit:\n    pass\n"
        "heavy = {'numpy', 'pyspiel', 'matplotlib', 'tqdm', 'openskill', 'ray', 'sqlalchemy'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy "
        "or m.startswith('gamester.games.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.slow
def test_simulate_writes_complete_records_and_replay_reads_them(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    r = run(
        "simulate",
        "penneech",
        "--agents",
        "random",
        "--games",
        "6",
        "--seed",
        "3",
        "--out",
        str(out),
        "--quiet",
    )
    assert r.returncode == 0, r.stderr
    lines = out.read_text().splitlines()
    assert len(lines) == 6
    for line in lines:
        rec = json.loads(line)
        assert gamester.replay(rec).is_terminal()
    # The same seed gives game i the same chance whatever the agents.
    out2 = tmp_path / "again.jsonl"
    run(
        "simulate",
        "penneech",
        "--agents",
        "random:seed=9,random",
        "--games",
        "6",
        "--seed",
        "3",
        "--out",
        str(out2),
        "--quiet",
    )
    first = [json.loads(x)["chance"][0] for x in lines]
    second = [json.loads(x)["chance"][0] for x in out2.read_text().splitlines()]
    assert first == second
    path = tmp_path / "one.json"
    path.write_text(lines[0])
    r = run("replay", str(path), "--json")
    assert r.returncode == 0
    s = json.loads(r.stdout)
    assert s["is_terminal"] is True and s["current_player"] is None and s["legal_actions"] == []
    assert len(s["scores"]) == 2 and len(s["winners"]) == 1 and s["returns"] in ([1, -1], [-1, 1])
    r = run("replay", str(path), "--seat", "1")
    assert r.returncode == 0 and "Game over" in r.stdout
    winner = s["winners"][0]
    assert ("You win" if winner == 1 else "Player 0 wins") in r.stdout


def test_replay_json_of_a_position_in_progress(tmp_path: Path) -> None:
    rec = gamester.load_game("penneech", redeal="off").new_initial_state(seed=4).record()
    path = tmp_path / "start.json"
    path.write_text(json.dumps(rec))
    s = json.loads(run("replay", str(path), "--json").stdout)
    assert s["is_terminal"] is False and s["returns"] is None and s["winners"] == []
    assert s["legal_actions"] == sorted(s["legal_actions"]) and len(s["legal_actions"]) == 7
    assert s["current_player"] in (0, 1)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not valid JSON"),
        (
            json.dumps(
                {
                    "format": "gamester-record",
                    "version": 1,
                    "game": "penneech",
                    "seed": 1,
                    "actions": ["QQ", "AH"],
                }
            ),
            "actions[0]: 'QQ'",
        ),
        (
            json.dumps({"format": "gamester-record", "version": 1, "game": "go", "seed": 1}),
            "game: unknown game 'go'",
        ),
        (
            json.dumps(
                {
                    "format": "gamester-record",
                    "version": 1,
                    "game": "penneech",
                    "seed": 1,
                    "options": {"target": "lots"},
                }
            ),
            "options: penneech: option target='lots'",
        ),
    ],
)
def test_bad_records_get_one_line_and_exit_2(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    r = run("replay", str(path), "--json")
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]


def test_missing_record_file_exits_2(tmp_path: Path) -> None:
    r = run("replay", str(tmp_path / "nope.json"))
    assert r.returncode == 2 and "cannot read" in r.stderr


def test_rules_lists_every_option_and_rule_set_with_sources() -> None:
    r = run("rules", "penneech")
    assert r.returncode == 0
    for word in (
        "first_dealer",
        "redeal",
        "follow",
        "trick_honours",
        "target",
        "objective",
        "cotton",
        "pagat",
        "Cotton",
        "The Compleat Gamester",
    ):
        assert word in r.stdout


def test_unknown_game_and_bad_option_exit_2() -> None:
    r = run("rules", "chess")
    assert r.returncode == 2 and "valid games" in r.stderr
    r = run("bench", "penneech", "--option", "follow=never", "--seconds", "0.1")
    assert r.returncode == 2 and "follow must be one of" in r.stderr


def test_bench_prints_rates() -> None:
    r = run("bench", "penneech", "--seconds", "0.3", "--option", "objective=deal")
    assert r.returncode == 0 and "player actions per second" in r.stdout


def test_play_in_a_subprocess_to_the_end_and_save(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    # 'zz' and '99' are explained and asked again; then the first legal move every time.
    answers = "zz\n99\nhelp\n" + "1\n" * 400
    r = run("play", "penneech", "--seed", "2", "--vs", "random", "--save", str(save), stdin=answers)
    assert r.returncode == 0, r.stderr
    assert "Not understood: 'zz' is not a Penneech action" in r.stdout
    assert "There is no move number 99" in r.stdout
    assert "Game over" in r.stdout
    rec = json.loads(save.read_text())
    assert gamester.replay(rec).is_terminal()


def test_play_end_of_input_leaves_cleanly() -> None:
    r = run("play", "penneech", "--seed", "2", stdin="")
    assert r.returncode == 0 and "leaving the game" in r.stdout.lower()
    assert "Traceback" not in r.stderr


def test_terminal_game_shows_only_the_players_own_cards() -> None:
    game = gamester.load_game("penneech", redeal="off")
    state = game.new_initial_state(seed=12)
    hidden = set(state.observation(1)["hand"])
    out = io.StringIO()
    answers = iter(["quit"])
    TerminalGame(state, 0, [None, make_agent("random", seed=1)], inp=lambda _: next(answers), out=out).run()
    text = out.getvalue()
    shown = text[text.index("Your hand") :].splitlines()[0]
    from gamester.core.words import card

    assert all(card(c) not in shown for c in hidden)
    assert "Your moves: [1]" in text


def test_illegal_move_in_terminal_is_explained() -> None:
    game = gamester.load_game("penneech", redeal="off", first_dealer=1)
    state = game.new_initial_state(seed=12)  # seat 0 leads
    hand = state.observation(0)["hand"]
    other = next(c for c in gamester.core.cards.CODES if c not in hand)
    out = io.StringIO()
    answers = iter([other, "quit"])
    TerminalGame(state, 0, [None, make_agent("random", seed=1)], inp=lambda _: next(answers), out=out).run()
    text = out.getvalue()
    assert "Not allowed: You do not hold the " in text
    assert "legal:" not in text and "scores 0-0" not in text  # no state dump for a player


@pytest.mark.slow
def test_replay_for_a_seat_hides_the_card_given_in_the_piquesept_trade(tmp_path: Path) -> None:
    """rules/piquesept.md, The draw and trade: only the drawer and the soloist see the given card."""
    game = gamester.load_game("piquesept")
    state = game.new_initial_state(seed=3)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    rec = state.record()
    path = tmp_path / "p.json"
    path.write_text(json.dumps(rec))
    soloist = gamester.summary(state)["soloist"]
    drawer = (soloist + 1) % 4
    given = rec["actions"][4]
    for seat in range(4):
        lines = [
            x
            for x in run("replay", str(path), "--seat", str(seat)).stdout.splitlines()
            if x.startswith(("Player ", "You: "))
        ]
        assert lines[4].startswith("You: " if seat == drawer else f"Player {drawer}: ")
        if seat in (soloist, drawer):
            assert lines[4].endswith(pretty(given))
        else:
            assert "hidden card" in lines[4] and given not in lines[4]


def test_hint_shows_the_best_agents_move_and_chance_of_winning() -> None:
    """Issue: --hint shows what the best agent would play and its estimated chance of winning."""
    game = gamester.load_game("penneech", redeal="off", first_dealer=1)
    state = game.new_initial_state(seed=12)  # seat 0 leads at once
    out = io.StringIO()
    answers = iter(["quit"])
    hint = make_agent("ismcts:iterations=200", game=game, seed=1)
    TerminalGame(
        state, 0, [None, make_agent("random", seed=1)], inp=lambda _: next(answers), out=out, hint_agent=hint
    ).run()
    line = next(x for x in out.getvalue().splitlines() if x.startswith("Hint: "))
    shown = line.split()[1]
    assert shown in [pretty(c) for c in state.observation(0)["hand"]]
    assert "estimated chance of winning" in line


def test_a_plain_install_needs_no_optional_library_to_play() -> None:
    """`pip install .` has no extras: the games, every agent and the play/replay/simulate commands
    must import without numpy, matplotlib, openskill, tqdm or OpenSpiel (tournament charts and
    ratings, progress bars and --compare load theirs only when used)."""
    modules = [
        "gamester.play.cli",
        "gamester.play.terminal",
        "gamester.sim.simulate",
        "gamester.sim.tournament",
        "gamester.sim.bench",
    ]
    modules += [f"gamester.games.{g}" for g in ("penneech", "piquesept", "pentyrch")]
    modules += [
        f"gamester.agents.{a}"
        for a in ("random_agent", "heuristic", "ismcts", "pimc", "rollout", "futures", "lookahead")
    ]
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in modules)
        + "optional = {'numpy', 'matplotlib', 'openskill', 'tqdm', 'pyspiel'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in optional))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


# -- every command-line failure path (issue 9): one line naming what was wrong, exit 2 ----------------


def _one_line_exit_2(r: subprocess.CompletedProcess[str], *words: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr
    for w in words:
        assert w in lines[0], lines[0]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["play", "penneech", "--seed", "-1"], ["--seed", "0 or more", "-1"]),
        (["simulate", "penneech", "--agents", "random", "--seed", "-1"], ["--seed", "-1"]),
        (["tournament", "penneech", "--agents", "random", "--games", "0"], ["--games", "at least 1", "0"]),
        (["tournament", "penneech", "--agents", "random", "--games", "-5"], ["--games", "-5"]),
        (["simulate", "penneech", "--agents", "random", "--games", "0"], ["--games", "0"]),
        (["play", "penneech", "--option", "target"], ["--option 'target'", "KEY=VALUE"]),
        (["bench", "penneech", "--option", "target"], ["--option 'target'"]),
        (["play", "penneech", "--seat", "2"], ["--seat must be 0 to 1", "2"]),
        (["play", "penneech", "--seat", "x"], ["--seat", "'x'"]),
        (["play", "chess"], ["unknown game 'chess'"]),
    ],
)
def test_bad_arguments_get_one_line_and_exit_2(args: list[str], words: list[str]) -> None:
    _one_line_exit_2(run(*args), *words)


@pytest.mark.slow
def test_bad_paths_get_one_line_and_exit_2(tmp_path: Path) -> None:
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    missing = tmp_path / "missing"
    _one_line_exit_2(run("play", "penneech", "--save", str(missing / "g.json")), "--save", "does not exist")
    _one_line_exit_2(
        run(
            "simulate",
            "penneech",
            "--agents",
            "random",
            "--games",
            "1",
            "--quiet",
            "--out",
            str(missing / "g.jsonl"),
        ),
        "--out",
        "does not exist",
    )
    _one_line_exit_2(
        run("simulate", "penneech", "--agents", "random", "--games", "1", "--quiet", "--out", str(tmp_path)),
        "--out",
        "is a folder",
    )
    _one_line_exit_2(
        run("tournament", "penneech", "--agents", "random", "--games", "1", "--out", str(a_file)),
        "--out",
        "is a file, not a folder",
    )
    _one_line_exit_2(
        run("tournament", "penneech", "--agents", "random", "--games", "1", "--out", str(missing / "deeper")),
        "--out",
        "does not exist",
    )
    _one_line_exit_2(run("replay", str(tmp_path)), "is a folder")
    _one_line_exit_2(run("replay", str(missing / "r.json")), "cannot read", "No such file")
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"game": "pen\xe9ech"}')
    _one_line_exit_2(run("replay", str(latin)), "not UTF-8")
    _one_line_exit_2(run("replay", str(a_file), "--index", "3"), "a_file")
    assert not missing.exists()


def test_a_console_without_suit_symbols_prints_letters() -> None:
    env = {**os.environ, "PYTHONIOENCODING": "cp1252"}
    r = subprocess.run(
        [sys.executable, "-m", "gamester", "rules", "penneech"], capture_output=True, env=env, timeout=60
    )
    assert r.returncode == 0 and b"Traceback" not in r.stderr
    assert b"\xe2\x99" not in r.stdout  # no UTF-8 suit symbol bytes
    r = subprocess.run(
        [sys.executable, "-m", "gamester", "play", "penneech", "--seed", "2", "--vs", "random"],
        input=b"quit\n",
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert r.returncode == 0 and b"Traceback" not in r.stderr
    hand = next(x for x in r.stdout.decode("cp1252").splitlines() if x.startswith("Your hand: "))
    assert all(c in "0123456789TJQKACDHS " for c in hand.split(":")[1].split("(")[0])


@pytest.mark.slow
def test_ctrl_c_in_a_simulation_with_workers_exits_130_without_tracebacks() -> None:
    """Ctrl-C once the workers are playing (the progress bar has counted games), not after a fixed
    time: on a loaded machine the workers may not have started by then. Far more games than any
    build plays before the interrupt."""
    p = subprocess.Popen(
        [sys.executable, "-m", "gamester", "simulate", "penneech", "--agents", "heuristic"]
        + ["--games", "1000000", "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    assert p.stderr is not None
    err = b""
    try:
        # The bar redraws itself with "\r" (a plain "simulate penneech: N/1000000" line when stderr is
        # not a terminal, as here): read what comes until it shows games played.
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


# -- replay ---------------------------------------------------------------------------------------


def _finished(name: str, seed: int, **options: str) -> dict[str, object]:
    state = gamester.load_game(name, **options).new_initial_state(seed=seed)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    return state.record()


@pytest.mark.slow
def test_replay_reads_jsonl_with_index(tmp_path: Path) -> None:
    recs = [_finished("penneech", s) for s in (1, 2, 3)]
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    for i, rec in enumerate(recs):
        s = json.loads(run("replay", str(path), "--index", str(i), "--json").stdout)
        assert s == gamester.summary(gamester.replay(rec))
    first = json.loads(run("replay", str(path), "--json").stdout)
    assert first == gamester.summary(gamester.replay(recs[0]))  # default index 0
    _one_line_exit_2(run("replay", str(path), "--index", "3"), "--index 3", "0 to 2")
    path.write_text(json.dumps(recs[0]) + "\n{oops\n")
    _one_line_exit_2(run("replay", str(path), "--index", "1"), "line 2")


def test_replay_json_for_a_seat_lists_no_moves_when_it_is_not_its_turn(tmp_path: Path) -> None:
    state = gamester.load_game("penneech", redeal="off").new_initial_state(seed=4)
    path = tmp_path / "start.json"
    path.write_text(json.dumps(state.record()))
    to_act = state.current_player()
    mine = json.loads(run("replay", str(path), "--json", "--seat", str(to_act)).stdout)
    other = json.loads(run("replay", str(path), "--json", "--seat", str(1 - to_act)).stdout)
    assert len(mine["legal_actions"]) == 7 and other["legal_actions"] == []


def test_replay_shows_hands_at_each_step_and_the_pentyrch_board(tmp_path: Path) -> None:
    rec = _finished("penneech", 5)
    path = tmp_path / "p.json"
    path.write_text(json.dumps(rec))
    plain = run("replay", str(path)).stdout
    seat1 = run("replay", str(path), "--seat", "1").stdout
    state = gamester.load_game("penneech").new_initial_state(seed=5, chance=rec["chance"])
    assert plain.count("(hands: player 0 ") == len(rec["actions"])
    assert seat1.count("(your hand: ") == len(rec["actions"])
    # seat 1 sees its own hand and never seat 0's, which the plain replay shows
    hand0 = " ".join(pretty(c) for c in state.observation(0)["hand"])
    hand1 = " ".join(pretty(c) for c in state.observation(1)["hand"])
    assert f"player 0 {hand0}" in plain and f"player 1 {hand1}" in plain
    assert f"(your hand: {hand1})" in seat1 and hand0 not in seat1

    rec = gamester.load_game("pentyrch").new_initial_state(seed=2).record()
    walk = gamester.replay(rec)
    for _ in range(20):
        walk.apply_action(walk.legal_actions()[0])
    path.write_text(json.dumps(walk.record()))
    text = run("replay", str(path)).stdout
    assert "a         b         c         d         e         f         g" in text
    assert "(hands: West " in text and "Position after 20 actions" in text
    assert "West: " in text and "North: " in text  # players named by their seats, as on the board
