"""Pentyrch's move parts (``PentyrchGame.action_parts``, docs/web.md "moves"): the fields the page
draws a move from say exactly what the move's notation says, for every legal move of random positions
of every seat count, and nothing for what is not a move in canonical notation."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

import gamester
from gamester.core.cards import card_code
from gamester.games.pentyrch.board import CELL_NAMES, OFF
from gamester.games.pentyrch.cards import COURT_IDS, canon_cards
from gamester.games.pentyrch.moves import Move
from gamester.games.pentyrch.notation import action_parts, current_moves

# Seat counts and the options that make other kinds of payment: combinations whenever wanted,
# overpay (many combinations), no showing.
SPECS = [
    "pentyrch",
    "pentyrch(players=2)",
    "pentyrch(players=3)",
    "pentyrch(combine=always)",
    "pentyrch(players=2,overpay=true)",
    "pentyrch(partners=true,show=false)",
]
MOST_CHECKED = 4000  # an overpay position may list 100,000 moves: beyond this, a random sample


def expected(m: Move) -> dict[str, Any]:
    """The parts of an engine move, from the move's own fields (not from any text)."""
    k, frm, to, mode, top, rest = m
    if k < 0:
        return {"kind": "pass"}
    off = to == OFF
    return {
        "kind": "off" if off else "enter" if frm < 0 else "step",
        "court": card_code(COURT_IDS[k]),
        "from": None if off or frm < 0 else CELL_NAMES[frm],  # bearing off names no cell
        "to": None if off else CELL_NAMES[to],
        "pay": [card_code(top)] + [card_code(c) for c in canon_cards(rest)] if mode == 1 else [],
        "show": card_code(top) if mode == 2 else None,
    }


def written(p: dict[str, Any]) -> str:
    """The notation the parts describe (docs/rules/pentyrch.md, Notation), as a reader would write it."""
    if p["kind"] == "pass":
        return "pass"
    where = {"off": "off", "enter": f"@{p['to']}", "step": f"{p['from']}-{p['to']}"}[p["kind"]]
    pay = f" ={p['show']}" if p["show"] else f" {'+'.join(p['pay'])}" if p["pay"] else ""
    return f"{p['court']} {where}{pay}"


@pytest.mark.parametrize("spec", SPECS)
def test_parts_say_what_the_notation_says_for_every_legal_move(spec: str) -> None:
    game = gamester.load_game(spec)
    seen: Counter[str] = Counter()
    for seed in range(6 if "overpay" in spec else 20):  # overpay positions hold thousands of moves
        rng = random.Random(seed)
        st = game.new_initial_state(seed=1000 + seed)
        while not st.is_terminal():
            legal = st.legal_actions()
            texts = st.legal_action_strings()
            assert len(texts) == len(legal)
            moves = current_moves(st)  # type: ignore[arg-type]
            picks = range(len(legal)) if len(legal) <= MOST_CHECKED else rng.sample(range(len(legal)), 200)
            for i in picks:
                a, text = legal[i], texts[i]
                parts = game.action_parts(text)
                assert parts is not None, text
                assert parts == expected(moves[a]), text
                assert written(parts) == text
                seen[parts["kind"]] += 1
                seen["show" if parts.get("show") else f"pay{min(len(parts.get('pay', [])), 2)}"] += 1
            st.apply_action(rng.choice(legal))
    # Every kind of move and payment came up (so the comparison compared something of each).
    assert {"step", "enter", "off", "pass", "pay0", "pay1", "pay2"} <= set(seen), seen
    if "show=false" not in spec:
        assert seen["show"], seen


def test_parts_are_the_texts_own_and_nothing_else_is_split() -> None:
    game = gamester.load_game("pentyrch")
    assert game.action_parts("JH a4-b4 3S+5D") == {
        "kind": "step",
        "court": "JH",
        "from": "a4",
        "to": "b4",
        "pay": ["3S", "5D"],
        "show": None,
    }
    assert game.action_parts("QH @a4 =6C") == {
        "kind": "enter",
        "court": "QH",
        "from": None,
        "to": "a4",
        "pay": [],
        "show": "6C",
    }
    assert game.action_parts("JH off") == {
        "kind": "off",
        "court": "JH",
        "from": None,
        "to": None,
        "pay": [],
        "show": None,
    }
    assert game.action_parts("pass") == {"kind": "pass"}
    # What other seats may be told instead of a move, and text that is not canonical notation: the
    # page is given no parts it could mistake for a move (it shows the text as it is).
    for text in (
        "an illegal move",
        "<combination #3 of the mover's hand>",
        "<combination #3, not legal here>",
        "JH step north 9C",
        "JH off 9C",
        "jh a4-b4 9C",
        "JH a4-b4 5D+3S+",
        "JH  a4-b4",
        "JH a4-z9",
        "7D a4-b4",
        "",
        "pass pass",
    ):
        assert action_parts(text) is None, text
        assert game.action_parts(text) is None, text
    assert action_parts(None) is None and action_parts(17) is None


def test_other_games_give_no_parts() -> None:
    for spec in ("penneech", "piquesept"):
        st = gamester.load_game(spec).new_initial_state(seed=3)
        assert all(st.game.action_parts(a) is None for a in st.legal_action_strings())
