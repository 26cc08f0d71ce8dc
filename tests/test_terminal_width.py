"""Terminal play fits a standard terminal: no line of a game's first screens is wider than 80
columns (the banner with its list of opponents, the narration of the first deal, the board, the
help text and the first few moves), for every game, rule set and player count, over several deals."""

from __future__ import annotations

import io
import json
import random
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

import gamester
from gamester.agents import make_agent
from gamester.core import registry
from gamester.core.record import make_record
from gamester.play.rules_text import for_terminal, rules_text
from gamester.play.terminal import WIDTH, TerminalGame, fit, listing
from gamester.testing._common import play_random


def configurations() -> list[str]:
    out = []
    for name in ("penneech", "piquesept", "pentyrch"):
        cls = registry.game_class(name)
        out += [f"{name}(ruleset={rs})" for rs in cls.rulesets]
        counts = cls.player_counts()
        out += [f"{name}(players={n})" for n in counts if len(counts) > 1]
    return sorted(set(out))


def first_screens(spec: str, seed: int) -> str:
    state = gamester.load_game(spec).new_initial_state(seed=seed)
    n = state.game.num_players
    answers: Iterator[str] = iter(["help", "1", "1", "1", "quit"])
    out = io.StringIO()
    TerminalGame(
        state,
        0,
        [None, *(make_agent("random", seed=p) for p in range(1, n))],
        inp=lambda _: next(answers, "n"),
        out=out,
        specs=[None, *(["random"] * (n - 1))],
    ).run()
    return out.getvalue()


@pytest.mark.parametrize("spec", configurations())
def test_first_screens_fit_80_columns(spec: str) -> None:
    wide = []
    for seed in range(12):
        for line in first_screens(spec, seed).splitlines():
            if len(line) > WIDTH:
                wide.append(f"seed {seed}, {len(line)} columns: {line}")
    assert not wide, "\n".join(wide[:5])


def test_the_lines_once_too_wide_are_there_and_fit() -> None:
    """Penneech's redeal message (seed 29 of the command line throws a hand in) and Piquesept's list
    of three opponents were wider than 80 columns; a ten-card list of moves is wrapped, not cut."""
    r = subprocess.run(
        [sys.executable, "-m", "gamester", "play", "penneech", "--seed", "29", "--vs", "random"],
        input="quit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    redeal = [x for x in r.stdout.splitlines() if "throws in a hand" in x]
    assert redeal and "the same dealer deals again." in r.stdout
    assert max(len(x) for x in r.stdout.splitlines()) <= WIDTH
    assert "Player 1, player 2 and player 3: the computer, random" in first_screens("piquesept", 0)
    # Three hands of ten: the first list of moves is the whole hand.
    screens = [first_screens("piquesept(ruleset=three_hand)", seed) for seed in range(4)]
    wrapped = [
        line
        for text in screens
        for line in text.splitlines()
        if line.startswith(" " * len("Your moves: ") + "[")
    ]
    assert wrapped, "no list of moves needed a second line"
    assert any("[10]" in line for line in wrapped)


def test_listing_wraps_between_items() -> None:
    assert listing("Moves: ", ["[1] AA", "[2] BB", "[3] CC"], width=22) == (
        "Moves: [1] AA  [2] BB\n       [3] CC"
    )
    assert listing("Moves: ", ["[1] " + "X" * 30], width=20) == "Moves: [1] " + "X" * 30
    assert fit("  " + "word " * 30, width=40).splitlines()[1].startswith("    word")


@pytest.mark.parametrize("name", ["penneech", "piquesept", "pentyrch"])
def test_the_rules_fit_80_columns_and_lose_no_word(name: str) -> None:
    """``gamester rules GAME`` rewraps the Markdown for the terminal: no line over 80 columns, and
    every word of the page is still there (a table's bars and rule lines are all it drops)."""
    markdown = rules_text(name)
    r = subprocess.run(
        [sys.executable, "-m", "gamester", "rules", name], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0 and r.stdout.rstrip("\n") == for_terminal(markdown)
    wide = [line for line in r.stdout.splitlines() if len(line) > WIDTH]
    assert not wide, "\n".join(wide[:5])
    assert max(len(line) for line in markdown.splitlines()) > WIDTH  # the page itself is wider
    shown = Counter(re.findall(r"\w+", r.stdout))
    assert not Counter(re.findall(r"\w+", markdown)) - shown
    assert r.stdout.startswith(f"# {registry.game_class(name).title}\n\n## How to win\n")


def test_for_terminal_keeps_code_and_fills_items_and_tables() -> None:
    md = (
        "# T\n\nA paragraph that\nruns on.\n\n- an item with words enough to wrap\n  its continuation\n"
        "\n```\nkeep   this    line as it is, however long it may happen to be\n```\n\n"
        "| a | b |\n| --- | --- |\n| x | a long cell that needs wrapping |\n"
    )
    assert for_terminal(md, width=24).splitlines() == [
        "# T",
        "",
        "A paragraph that runs",
        "on.",
        "",
        "- an item with words",
        "  enough to wrap its",
        "  continuation",
        "",
        "```",
        "keep   this    line as it is, however long it may happen to be",
        "```",
        "",
        "a  b",
        "-------------------",
        "x  a long cell that",
        "   needs wrapping",
    ]
    # Too little room beside the first columns: one item per row, each cell with its heading.
    wide_first = "| name | what |\n| --- | --- |\n| " + "n" * 30 + " | w |\n"
    assert for_terminal(wide_first, width=40) == "- name: " + "n" * 30 + ";\n  what: w"


def refused_screens(spec: str, seed: int) -> str:
    """The screens of a person who types nonsense, a number out of range, a move the rules refuse
    and asks for a hint, then plays the first move twice and quits."""
    state = gamester.load_game(spec).new_initial_state(seed=seed)
    n = state.game.num_players

    def refused() -> str:
        legal = set(state.legal_actions())
        for a in range(min(state.game.num_distinct_actions, 5000)):
            if a not in legal:
                try:
                    text = state.action_to_string(a)
                    if state.string_to_action(text) == a:
                        return text
                except ValueError:
                    continue
        return "pass"

    answers: Iterator[str | None] = iter(["xx", "99", None, "hint", "1", "1", "1", "quit"])

    def inp(_: str) -> str:
        answer = next(answers, "n")
        return refused() if answer is None else answer

    out = io.StringIO()
    TerminalGame(
        state,
        0,
        [None, *(make_agent("random", seed=p) for p in range(1, n))],
        inp=inp,
        out=out,
        specs=[None, *(["random"] * (n - 1))],
        hint_agent=make_agent("heuristic"),
    ).run()
    return out.getvalue()


@pytest.mark.parametrize("spec", configurations())
def test_refusals_and_hints_fit_80_columns(spec: str) -> None:
    """Every message fits, not only the first screen: 'Not understood' quotes the whole notation,
    'Not allowed' names the rule, a hint its estimate (issue 27: terminal lines fit everywhere)."""
    text = "\n".join(refused_screens(spec, seed) for seed in range(3))
    assert "Not understood: 'xx'" in text and "There is no move number 99" in text
    assert "Not allowed" in text and "Hint: " in text
    wide = [line for line in text.splitlines() if len(line) > WIDTH]
    assert not wide, "\n".join(wide[:5])


def test_a_tutorial_with_a_seed_is_refused_in_one_line_that_fits() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "gamester", "play", "penneech", "--tutorial", "--seed", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and "drop --seed" in lines[0]
    assert len(lines[0]) <= WIDTH


@pytest.mark.parametrize("spec", ["penneech", "piquesept", "pentyrch", "pentyrch(players=2)"])
def test_a_replay_walk_through_fits_80_columns(tmp_path: Path, spec: str) -> None:
    """``gamester replay`` from above (every hand: Piquesept's four ran to 149 columns) and from a
    seat; the winners read "you, player 2 and player 3"."""
    state = play_random(gamester.load_game(spec).new_initial_state(seed=3), random.Random(3))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(make_record(state)))
    for view in ([], ["--seat", "0"]):
        r = subprocess.run(
            [sys.executable, "-m", "gamester", "replay", str(path), *view],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 0 and "Game over: " in r.stdout, r.stderr
        assert " and player 2 and " not in r.stdout
        wide = [line for line in r.stdout.splitlines() if len(line) > WIDTH]
        assert not wide, "\n".join(wide[:5])


# -- every command's human output (issue 27: terminal lines fit 80 columns everywhere) -------------
LONG_SPEC = "random:seed=" + "1234567890" * 9  # a user-supplied value wider than the terminal


class Terminal(io.StringIO):
    """What a person's terminal is to the command: UTF-8 (so ``±`` and the suits are printed as
    they are) and a tty (so the messages meant for people are the ones printed)."""

    encoding = "utf-8"

    def isatty(self) -> bool:
        return True


def command_lines(monkeypatch: pytest.MonkeyPatch, *argv: str) -> tuple[int, list[str]]:
    """Run ``gamester ARGV`` in this process on an 80-column terminal: its exit status and every
    line it printed, on stdout and on stderr."""
    from gamester.play.cli import main

    monkeypatch.setenv("COLUMNS", "80")
    out, err = Terminal(), Terminal()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    try:
        code = main(list(argv))
    except SystemExit as e:
        code = int(e.code or 0)
    return code, (out.getvalue() + err.getvalue()).splitlines()


def too_wide(lines: list[str]) -> str:
    return "\n".join(f"{len(x)} columns: {x}" for x in lines if len(x) > WIDTH)


def subcommands() -> list[str]:
    from gamester.play.cli import COMMANDS

    return sorted(COMMANDS)


@pytest.mark.parametrize("command", ["", *subcommands()])
def test_help_fits_80_columns(monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    code, lines = command_lines(monkeypatch, *([command] if command else []), "--help")
    assert code == 0 and len(lines) > 5
    assert not too_wide(lines), too_wide(lines)


QUICK = "--quiet --workers 1"
# Each command on a tiny budget (argv split on spaces; RECORD is a finished Pentyrch game's record).
COMMAND_RUNS = {
    "simulate, four agents, long specs": "simulate piquesept --games 1 --quiet "
    f"--agents ismcts:iterations=5,c=0.3,rollout:worlds=2,heuristic,{LONG_SPEC}",
    "tournament, two agents": f"tournament penneech --agents rollout:worlds=3,heuristic --games 2 {QUICK}",
    "tournament, two agents, roles": "tournament piquesept --agents rollout:worlds=2,heuristic "
    f"--games 1 {QUICK}",
    "tournament, three agents, a very long spec": "tournament piquesept --games 1 "
    f"--agents random,rollout:worlds=30,{LONG_SPEC} {QUICK}",
    "tournament, four agents": "tournament pentyrch --games 1 "
    f"--agents random,heuristic,random:seed=3,heuristic:seed=5 {QUICK}",
    "tournament, Pentyrch for two": "tournament pentyrch --option players=2 --agents random,heuristic "
    f"--games 1 {QUICK}",
    "analyse, four seats and two roles": "analyse piquesept --games 2 --agents random --worlds 1 "
    f"--skill-games 1 --skill-budgets 1,2 --info-games 0 {QUICK}",
    "review": "review RECORD --seat 1 --agent heuristic --worlds 2 --quiet",
    "replay": "replay RECORD",
    "bench": "bench penneech --seconds 0.05",
    "bench, a search": "bench pentyrch --seconds 0.05 --agent ismcts",
    "error: a bad agent parameter": "simulate penneech --agents rollout:wrlds=3 --games 1",
    "error: an unknown agent": f"tournament penneech --agents nosuch:worlds=3 {QUICK}",
    "error: a bad option": "play piquesept --option players=9",
    "error: a bad argument": "tournament penneech --games many --agents random",
    "error: train without its extra": "train penneech --out OUT --games 1",
}


@pytest.fixture
def record(tmp_path: Path) -> Path:
    state = play_random(gamester.load_game("pentyrch").new_initial_state(seed=3), random.Random(3))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(make_record(state)))
    return path


@pytest.mark.parametrize("name", sorted(COMMAND_RUNS))
def test_command_output_fits_80_columns(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, record: Path, name: str
) -> None:
    """Every line of each command's table, summary or one-line error, on a terminal."""
    if name.endswith("without its extra"):
        monkeypatch.setitem(sys.modules, "torch", None)  # importing it raises ImportError, as if missing
    words = {"RECORD": str(record), "OUT": str(tmp_path / "out")}
    code, lines = command_lines(monkeypatch, *(words.get(a, a) for a in COMMAND_RUNS[name].split()))
    assert code == (2 if name.startswith("error") else 0), "\n".join(lines)
    assert lines and not too_wide(lines), too_wide(lines)


@pytest.mark.parametrize(
    "argv",
    [
        f"tournament penneech --agents random,heuristic --games 1 --out tournament-out {QUICK}",
        "analyse penneech --games 1 --agents random --worlds 1 --skill-games 0 --info-games 0 "
        f"--out analyse-out {QUICK}",
        "explore penneech --budget 4 --agents random --worlds 1 --option follow=suit "
        f"--option redeal=off --out explore-out {QUICK}",
    ],
    ids=["tournament", "analyse", "explore"],
)
def test_the_files_written_fit_80_columns(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, argv: str) -> None:
    """The lines naming the files written (an analysis of three rule sets writes six) wrap between
    names."""
    monkeypatch.chdir(tmp_path)
    code, lines = command_lines(monkeypatch, *argv.split())
    assert code == 0 and any(x.startswith("wrote ") for x in lines), "\n".join(lines)
    assert not too_wide(lines), too_wide(lines)


def test_errors_wrap_on_a_terminal_and_stay_one_line_in_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    """A message about bad input is one line for scripts, several that fit for a person."""
    argv = ["explore", "pentyrch", "--budget", "8", "--out", "x"]
    code, lines = command_lines(monkeypatch, *argv)
    assert code == 2 and len(lines) > 1 and lines[0].startswith("gamester explore: --budget 8 is too small")
    assert not too_wide(lines), too_wide(lines)
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    from gamester.play.cli import main

    assert main(argv) == 2
    assert err.getvalue().count("\n") == 1 and err.getvalue().rstrip() == " ".join(x.strip() for x in lines)


def test_the_tournament_table_on_a_console_without_symbols(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table is plain ASCII (the rating and its sigma in two columns, no ``±`` that a console
    without it would print as three letters), so it keeps its columns everywhere."""
    monkeypatch.setenv("GAMESTER_ASCII", "1")
    code, lines = command_lines(
        monkeypatch, *f"tournament piquesept --agents random,heuristic --games 1 {QUICK}".split()
    )
    assert code == 0 and all(x.isascii() for x in lines)
    assert not too_wide(lines), too_wide(lines)


def test_the_tournament_table_names_every_agent_once_and_keeps_its_columns() -> None:
    """Agents are letters in the table and named once, in the legend; a spec wider than the
    legend's last column wraps under itself and every figure stays in its column."""
    from gamester.sim.tournament import play_tournament
    from gamester.sim.tournament_output import format_table, letters

    assert [letters(i) for i in (0, 1, 25, 26, 27, 701, 702)] == ["A", "B", "Z", "AA", "AB", "ZZ", "AAA"]
    specs = ["rollout:worlds=2", LONG_SPEC]
    summary, _ = play_tournament("piquesept", specs, 1, seed=0, workers=1, progress=False)
    lines = format_table(summary).splitlines()
    assert not too_wide(lines), too_wide(lines)
    top = lines.index("   rating  sigma  s/move  agent")
    assert lines[top + 1].startswith("A  ") and lines[top + 1].endswith("  rollout:worlds=2")
    assert lines[top + 2].startswith("B  ")
    column = lines[top].index("agent")
    pieces = [lines[top + 2][column:]]
    for line in lines[top + 3 :]:
        if not line:
            break
        assert line[:column].strip() == ""  # the continuation sits under the spec
        pieces.append(line[column:])
    assert "".join(pieces) == LONG_SPEC and len(pieces) > 1
    below = "\n".join(lines[top + 2 + len(pieces) :])
    assert "rollout" not in below and "random:" not in below  # below the legend: letters only
    assert "  as soloist vs B " in below and "  as defender vs A " in below and "A - B" in below
    # Every figure in its column: the win rates' "%" and the brackets line up in every row.
    rows = [x for x in lines if "% [" in x]
    assert len(rows) > 4 and len({x.index("% [") for x in rows}) == 1
    assert len({x.rindex("[") for x in rows}) == 1


def test_bench_comparison_fits_80_columns() -> None:
    from gamester.sim.bench import Tally, format_comparison

    text = format_comparison(
        {
            "piquesept(ruleset=three_hand)": Tally(1_000_000, 9_000, 2.0),
            "openspiel oh_hell(players=3,num_tricks_fixed=7,off_bid_penalty=true,points_per_trick=2)": Tally(
                500_000, 4_000, 2.0
            ),
        }
    )
    assert not too_wide(text.splitlines()), text
    assert text.splitlines()[-1] == "ratio gamester / OpenSpiel per player action: 2.00x"


@pytest.mark.parametrize("name", ["penneech", "piquesept", "pentyrch"])
def test_the_help_is_written_for_80_columns(name: str) -> None:
    """'help' in play: the notation and the commands are written in lines that fit, so nothing has
    to be wrapped for them (wrapped by :func:`fit`, their lines once broke mid-phrase)."""
    from gamester.play.terminal import COMMANDS_HELP, renderer

    help_text = getattr(renderer(name), "HELP", "")
    assert help_text.startswith("How to ")
    for text in (help_text, COMMANDS_HELP):
        assert fit(text) == text, "\n".join(x for x in text.splitlines() if len(x) > WIDTH)


def test_a_review_of_long_payments_fits_80_columns() -> None:
    """Pentyrch for two pays with up to six cards (``QC d5-c5 2C+2D+2H+2S+AD+AS``, 26 columns): the
    played and the best move, side by side, ran to 86 columns; now a long move continues under
    itself and the chances stay in their columns."""
    from gamester.agents.review import Step, review_json
    from gamester.sim.review_cli import format_review

    steps = [
        Step(12, "QC d5-c5 2C+2D+2H+2S+AD+AS", "KC d5-c5 3C+3D+3H+3S+2D+AH", 0.25, 0.75, 0.01),
        Step(40, "JC off", "JC off", 0.5, 0.5, 0.0),
    ]
    lines = format_review(review_json(0, steps), steps).splitlines()
    assert not too_wide(lines), too_wide(lines)
    head = lines[2]  # after the two lines naming the seat and the numbers
    first, more = lines[3], lines[4]
    assert first.split()[0] == "12" and first.rstrip().endswith("blunder")
    assert more[: head.index("played")].strip() == ""  # the continuation sits under its move
    moved = first[head.index("played") :].split("  ")[0] + more.strip().split("  ")[0]
    assert moved == "QC d5-c5 2C+2D+2H+2S+AD+AS"
    assert first.index("25%") + 3 == head.index("chance") + len("chance")
    assert lines[5].split()[:2] == ["40", "JC"] and " = " in lines[5]


def test_the_explore_ranking_of_pentyrch_fits_80_columns() -> None:
    """Pentyrch's open space has seven options: its longest reading, after the rank, the score and
    the games, ran to 156 columns. Its options wrap after a comma, under themselves."""
    import itertools

    from gamester.sim.explore import reading_key
    from gamester.sim.explore_cli import ranking

    space = {k: [v.value for v in vs] for k, vs in registry.game_class("pentyrch").open_space.items()}
    combos = [dict(zip(space, c, strict=True)) for c in itertools.product(*space.values())]
    longest = max(combos, key=lambda c: len(reading_key(c)))
    rows = [{"options": c, "score": 0.5, "ci": [0.25, 0.75], "games": 1000} for c in [longest, *combos[:11]]]
    text = ranking({"space": space, "readings": rows}, "explore-out")
    lines = text.splitlines()
    assert not too_wide(lines), too_wide(lines)
    column = lines[0].index(next(iter(space)))
    joined = lines[0][column:] + "".join(x[column:] for x in lines[1:] if not x[:column].strip())
    assert joined.startswith(reading_key(longest)) and len(reading_key(longest)) > WIDTH - column
    assert "… 2 more in explore-out/explore.json" in text
