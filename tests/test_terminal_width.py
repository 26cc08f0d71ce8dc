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
    """Penneech's redeal message (seed 3 of the command line throws a hand in) and Piquesept's list
    of three opponents were wider than 80 columns; a ten-card list of moves is wrapped, not cut."""
    r = subprocess.run(
        [sys.executable, "-m", "gamester", "play", "penneech", "--seed", "3", "--vs", "random"],
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
