"""The rules pages (``gamester rules GAME``, the web's GET /api/games/{name}/rules) open for a player:
the title, then "How to win" in a few lines naming the game's target or ending as the engine has it,
then "How a turn goes"; the sources and the programmers' details come below (issue 23)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gamester.core import registry
from gamester.games.pentyrch.cards import POINTS
from gamester.games.piquesept.rules import TOTAL_POINTS, WIN_POINTS
from gamester.play.rules_text import rules_text

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("penneech", "piquesept", "pentyrch")


def sections(text: str) -> list[tuple[str, str]]:
    """The page's ``## `` sections in order, each as (heading, body); the title is not one."""
    out: list[tuple[str, str]] = []
    for line in text.splitlines():
        if line.startswith("## "):
            out.append((line[3:].strip(), ""))
        elif out:
            out[-1] = (out[-1][0], out[-1][1] + line + "\n")
    return out


def what_ends_it(name: str) -> list[str]:
    """Words the "How to win" section must hold, read from the code so the page cannot drift."""
    defaults = registry.game_class(name).options_class()
    if name == "penneech":
        # docs/rules/penneech.md, Winning: the first to the target wins at once, even mid-deal.
        return [f"{defaults.target} points", f"reaches {defaults.target}"]
    if name == "piquesept":
        # docs/rules/piquesept.md, Scoring: a side with 66 of the pack's 130 wins; a game is one deal.
        assert defaults.deals == 1, "the page says a game is one deal"
        return [f"{WIN_POINTS} or more", str(TOTAL_POINTS), "one deal", f"{WIN_POINTS - 1} each is a draw"]
    # docs/rules/pentyrch.md, The end: all three court cards in safety finishes; a blocked round or
    # max_rounds stops the game, most cards in safety winning, ties broken by points J 3, Q 2, K 1.
    jack, queen, king = POINTS
    return [
        "all three court cards in safety",
        f"{defaults.max_rounds} rounds",
        f"Jack {jack}, Queen {queen}, King {king}",
    ]


@pytest.mark.parametrize("name", GAMES)
def test_the_page_opens_with_how_to_win_then_how_a_turn_goes(name: str) -> None:
    text = rules_text(name)
    cls = registry.game_class(name)
    assert text.splitlines()[0] == f"# {cls.title}"
    parts = sections(text)
    heads = [h for h, _ in parts]
    assert heads[:2] == ["How to win", "How a turn goes"], heads
    # Nothing but blank lines between the title and "How to win".
    assert text.split("\n## ", 1)[0].strip() == f"# {cls.title}"
    win = parts[0][1]
    flat = " ".join(win.replace("**", "").split())  # as read: line breaks and bold do not count
    for words in what_ends_it(name):
        assert words in flat, f"{name}'s How to win does not say {words!r}:\n{win}"
    # A few lines for a player: no notation, no programs, no sources.
    lines = [x for x in win.splitlines() if x.strip()]
    assert len(lines) <= 16, f"How to win is {len(lines)} lines long"
    turn = parts[1][1]
    assert len([x for x in turn.splitlines() if x.strip()]) <= 12
    for top in (win, turn):
        for word in ("`", "determinize", "observation", "record", "seed", "Cotton", "Mal Jones", "1798"):
            assert word not in top, f"{word!r} in the opening of {name}'s page"


@pytest.mark.parametrize("name", GAMES)
def test_sources_and_programmers_details_stay_below(name: str) -> None:
    heads = [h for h, _ in sections(rules_text(name))]
    assert "Sources" in heads and heads.index("Sources") > heads.index("How a turn goes") + 1
    # The notation for programs and the generated option list come after the sources.
    notation = next(i for i, h in enumerate(heads) if h.startswith("Notation"))
    assert heads.index("Sources") < notation < heads.index("Options (generated from the code)")
    # Every rule section the code cites is still there, below the opening.
    for cited in {"penneech": ["Tricks", "Winning"], "piquesept": ["Scoring"], "pentyrch": ["The end"]}[name]:
        assert heads.index(cited) > 1


@pytest.mark.parametrize("name", GAMES)
def test_the_shipped_rules_are_the_docs_page(name: str) -> None:
    """src/gamester/games/<game>/rules.md (package data, what ``gamester rules`` reads) is
    docs/rules/<game>.md: a link to it in the tree, so the two cannot differ."""
    shipped = ROOT / "src" / "gamester" / "games" / name / "rules.md"
    docs = ROOT / "docs" / "rules" / f"{name}.md"
    assert shipped.read_bytes() == docs.read_bytes()
    assert shipped.is_symlink() and shipped.resolve() == docs.resolve()
