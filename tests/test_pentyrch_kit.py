"""Pentyrch's kit: one definition of the heuristic's move score, read through the seat's view (the
notation of its legal actions and its observation's board) or through a sampled world's read-only
PentyrchWorld, and both agree; the world view shows the state's board as the public API does."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import gamester
from gamester.core.kit import View
from gamester.core.rng import derive
from gamester.games.pentyrch import heuristic, policy
from gamester.games.pentyrch.board import CELL_NAMES, OFF
from gamester.games.pentyrch.cards import codes, court_code
from gamester.games.pentyrch.moves import SAFE
from gamester.games.pentyrch.notation import read_move
from gamester.games.pentyrch.state import PentyrchState

SPECS = [
    "pentyrch",
    "pentyrch(players=2)",
    "pentyrch(players=3)",
    "pentyrch(partners=true)",
    "pentyrch(combine=always,show=false)",
    "pentyrch(overpay=true,max_rounds=6)",
]


def positions(spec: str, games: int, seed: int) -> Iterator[PentyrchState]:
    """Every position of a few games played half by the heuristic's playout policy, half at random."""
    game = gamester.load_game(spec)
    rng = random.Random(seed)
    for g in range(games):
        state = game.new_initial_state(seed=derive(seed, g))
        assert isinstance(state, PentyrchState)
        while not state.is_terminal():
            yield state
            legal = state.legal_actions()
            if len(legal) > 2000:  # overpay: keep the test quick, move on from huge positions
                state.apply_action(legal[rng.randrange(len(legal))])
                continue
            a = policy.heuristic_move(state, legal, rng) if rng.random() < 0.5 else rng.choice(legal)
            state.apply_action(a)


@pytest.mark.parametrize("spec", SPECS)
def test_both_paths_give_every_move_the_same_score(spec: str) -> None:
    """The playout path (decoded move tuples on the world's board) and the view path (notation read
    back into the tuple, the observation's board) score every legal move identically, and both
    choosers pick a move of the best score."""
    rng = random.Random(3)
    checked = 0
    for state in positions(spec, 2, seed=7):
        legal = state.legal_actions()
        if len(legal) > 2000:
            continue
        p = state.current_player()
        obs = state.observation(p)
        stacks, piles = heuristic.board_of(obs)
        world = state.world_view()
        assert [list(s) for s in world.stacks] == stacks and [list(x) for x in world.piles] == piles
        scores = {}
        for score, a, m in policy.scored_moves(state, legal):
            read = read_move(state.action_to_string(a))
            # Bearing off is written without its cell; everything else reads back exactly.
            assert read == (m if m[2] != OFF else (m[0], -1, OFF, 0, -1, 0))
            assert score == heuristic.score_move(state.action_to_string(a), obs, obs["seat_to_move"])
            assert score == heuristic.move_score(world.seat, read, stacks, piles)
            scores[a] = score
            checked += 1
        best = max(scores.values())
        assert scores[policy.heuristic_move(state, legal, rng)] == best
        assert scores[heuristic.choose(View(state, p), obs, legal, rng)] == best
        assert scores[state.game.kit().playout(state, legal, rng)] == best
    assert checked > 300


@pytest.mark.parametrize("spec", ["pentyrch", "pentyrch(players=2)", "pentyrch(players=3)"])
def test_world_view_shows_the_board_the_public_api_shows(spec: str) -> None:
    for i, state in enumerate(positions(spec, 1, seed=11)):
        if i % 5:
            continue
        world = state.world_view()
        for c, name in enumerate(CELL_NAMES):
            assert codes(list(world.piles[c])) == state.pile(name)
            assert [court_code(k) for k in world.stacks[c]] == state.stack(name)
        for k in range(12):
            where = state.where_is(court_code(k))
            p = world.cpos[k]
            assert where == (
                "off" if p == -1 else "safe" if p == SAFE else "out" if p == -2 else CELL_NAMES[p]
            )
        obs = state.public_observation()
        assert [None if q < 0 else q for q in world.owner] == obs["owners"]
        assert world.players == obs["players"]
        assert world.seat == state.current_seat() == obs["seat_to_move"]
        player = state.current_player()
        assert sorted(codes([c for c in range(52) if world.hand >> c & 1])) == sorted(state.hand(player))
        partners = [world.unit[s] for s in range(4) if world.owner[s] >= 0]
        assert len(set(partners)) == (2 if obs["players"] == 2 else obs["players"])


def test_race_values_are_zero_sum_shares() -> None:
    for spec in ("pentyrch", "pentyrch(players=2)", "pentyrch(players=3)"):
        for i, state in enumerate(positions(spec, 1, seed=5)):
            if i % 7:
                continue
            values = policy.race_values(state)
            assert len(values) == state.game.num_players
            assert sum(values) == pytest.approx(0.0, abs=1e-9)
            assert all(-1.0 <= v <= 1.0 for v in values)


def test_the_search_knowledge_reads_no_private_field_of_the_state() -> None:
    """heuristic.py, policy.py and kit.py read a state only through its public methods, PentyrchWorld and
    the engine's functions (``moves.decode``), never a private field."""
    here = Path(gamester.__file__).parent / "games" / "pentyrch"
    for name in ("heuristic.py", "policy.py", "kit.py"):
        text = (here / name).read_text()
        assert re.findall(r"\b(?!self\b)[a-z_]+\._[a-z]", text) == [], name


@pytest.mark.parametrize("spec", SPECS)
def test_generated_exchanges_are_the_exchange_rule(spec: str) -> None:
    """docs/rules/pentyrch.md, Moving, Exchange and Showing: move generation (``moves.generate``, its
    combination counts kept per hand and the ranks decoded) offers, for every court card and empty
    cell it can reach, exactly the payments the rulings allow, read here straight from their text:
    one card worth at least the pile's top; two or more only when no single card would do (or with
    combine=always), as ``moves.payments`` lists them (``combo_positions``); a card of equal value
    shown instead on a one-card pile with show=true. ``moves.exchange_payers`` (the rule's one
    definition read back as cards, what ``payments`` and the reasons of a refusal ask) agrees."""
    from gamester.games.pentyrch.cards import VALUE
    from gamester.games.pentyrch.moves import decode, exchange_payers, payments

    checked = 0
    for state in positions(spec, 2, 11):
        legal = state.legal_actions()
        if len(legal) > 2000:
            continue
        laid: dict[tuple[int, int], set[tuple[int, int, int]]] = {}
        for a in legal:
            k, _frm, to, mode, top, rest = decode(state, a)
            if mode:
                laid.setdefault((k, to), set()).add((mode, top, rest))
        hand = state._hands[state._owner[state._seat]]
        held = [c for c in range(52) if hand >> c & 1]
        for (_k, to), got in laid.items():
            pile = state._piles[to]
            v = VALUE[pile[-1]]
            singles = {c for c in held if VALUE[c] >= v}
            shown = {c for c in held if VALUE[c] == v} if state._show and len(pile) == 1 else set()
            combine = state._always or not singles
            _singles, _shows, combos = payments(hand, v, state._always, state.game._overpay)
            want = {(1, c, 0) for c in singles} | {(2, c, 0) for c in shown}
            want |= {(1, top, rest) for top, rest in combos} if combine else set()
            assert got == want, (spec, CELL_NAMES[to], state.hand(state._owner[state._seat]))
            masks = exchange_payers(hand, v, len(pile) == 1, state._show, state._always)
            assert masks == (sum(1 << c for c in singles), sum(1 << c for c in shown), combine)
            checked += 1
    assert checked > 20


def test_step_codes_are_steps_and_home_ok() -> None:
    """docs/rules/pentyrch.md, Moving: move generation walks ``board.STEP_CODES``, a packed form of
    ``STEPS`` (every neighbour, with whether the step is forward or sideways) less the home cells
    ``HOME_OK`` forbids the seat; unpacked, it is exactly those steps, in the same order."""
    from gamester.games.pentyrch.board import (
        ENTER_CODES,
        ENTER_SLOT,
        HOME,
        HOME_OK,
        NUM_CELLS,
        PAYS,
        STEP_CODES,
        STEPS,
    )

    assert len(STEP_CODES) == 4 * NUM_CELLS
    for seat in range(4):
        for cell in range(NUM_CELLS):
            got = [(c & 1023, c >> 10 & 31, c >= 32768) for c in STEP_CODES[seat * NUM_CELLS + cell]]
            assert got == [(d * PAYS, t, f) for d, t, f in STEPS[seat][cell] if HOME_OK[seat][t]]
            assert all(c < 65536 for c in STEP_CODES[seat * NUM_CELLS + cell])
        # Entering is walked as one forward "step" onto the home cell.
        (code,) = ENTER_CODES[seat]
        assert (code & 1023, code >> 10 & 31, code >= 32768) == (ENTER_SLOT * PAYS, HOME[seat], True)


def test_canonical_masks_are_the_canonical_order() -> None:
    """docs/rules/pentyrch.md, Notation: payments and piles read the canonical order (value high to
    low, then suit C D H S) off ``cards.canon_mask`` rather than sorting; its bits, lowest first, are
    the cards of ``canon_cards`` in order (``canon_walk``), and ``cards_at`` picks positions of that order."""
    from gamester.games.pentyrch.cards import (
        CARD_OF_CANON,
        NONCOURT,
        VALUE,
        canon_cards,
        canon_mask,
        canon_walk,
        cards_at,
        signature,
    )

    rnd = random.Random(3)
    for _ in range(500):
        cards = rnd.sample(NONCOURT, rnd.randint(0, 16))
        mask = sum(1 << c for c in cards)
        cm = canon_mask(mask)
        order = canon_cards(mask)
        assert [CARD_OF_CANON[i] for i in range(40) if cm >> i & 1] == order
        if len(order) >= 2:
            top = rnd.randrange(len(order))
            rest = rnd.randrange(1, 1 << len(order)) & ~(1 << top)
            want = sum(1 << order[i] for i in range(len(order)) if rest >> i & 1)
            assert canon_walk(mask) == tuple(order)
            assert cards_at(canon_walk(mask), top, rest) == (order[top], want)
        # the value signature: the count of each value as a digit in base 5
        assert signature(mask) == sum(5 ** (VALUE[c] - 1) for c in cards)


def test_the_board_looks_the_same_from_every_seat() -> None:
    """What ``Kit.observation_turn`` rests on (rules: The board; Moving): turn the board so that seat
    ``r`` sits at seat 0, and every seat's home, goal, home cells it may stand on and steps (forward,
    sideways, backward) are exactly those of the seat it is turned into."""
    from gamester.games.pentyrch.board import GOAL, HOME, HOME_OK, NUM_CELLS, STEPS
    from gamester.games.pentyrch.views import _turn_cell

    assert [CELL_NAMES[_turn_cell(c, 1)] for c in HOME] == ["d1", "a4", "d7", "g4"]
    for r in range(4):
        turn = [_turn_cell(c, r) for c in range(NUM_CELLS)]
        assert sorted(turn) == list(range(NUM_CELLS))
        for s in range(4):
            s2 = (s - r) % 4
            assert turn[HOME[s]] == HOME[s2] and turn[GOAL[s]] == GOAL[s2]
            for c in range(NUM_CELLS):
                assert HOME_OK[s][c] == HOME_OK[s2][turn[c]]
                steps = {(turn[t], fwd) for _, t, fwd in STEPS[s][c]}
                assert steps == {(t, fwd) for _, t, fwd in STEPS[s2][turn[c]]}


@pytest.mark.parametrize("spec", ["pentyrch", "pentyrch(players=2)", "pentyrch(players=3)"])
def test_the_turned_observation_puts_the_seat_to_move_at_west(spec: str) -> None:
    """``observation_turn`` on real positions: with East to move, East's court cards are read as
    West's, a card on g4 (East's home) as one on a4 (West's), West's on a4 as East's on g4; the piles
    turn with their cells, the seat-to-move entry is West's, and nothing is lost or made up."""
    from gamester.core.cards import parse_card
    from gamester.games.pentyrch import views
    from gamester.games.pentyrch.board import CELL_INDEX, PILE_CELLS
    from gamester.games.pentyrch.cards import IDX40
    from gamester.games.pentyrch.views import TURNS, _turn_cell

    assert TURNS[0] == tuple(range(views.OBS_SIZE))
    game = gamester.load_game(spec)
    kit = game.kit()
    assert kit.has_observation_turn
    seen = set()
    for state in positions(spec, 2, seed=5):
        if state.is_terminal():
            continue
        seat, p = state.current_seat(), state.current_player()
        t = state.observation_tensor(p)
        order = kit.observation_turn(state)
        assert order == TURNS[seat]
        u = [t[i] for i in order]
        assert sorted(u) == sorted(t)
        assert u[views._O_SEATS] == 1.0  # the seat to move is now the first
        for k in range(12):
            where = state.where_is(court_code(k))
            if where in CELL_INDEX:
                k2 = (k // 3 - seat) % 4 * 3 + k % 3
                cell = _turn_cell(CELL_INDEX[where], seat)
                assert u[views._O_COURT + k2 * 27 + cell] == 1.0
                seen.add(seat)
        for c in PILE_CELLS:
            slot = PILE_CELLS.index(_turn_cell(c, seat))
            for card in state.pile(CELL_NAMES[c]):
                i = IDX40[parse_card(card)]
                assert u[i * views._PLACES + slot] == 1.0
    assert len(seen) >= 2, "court cards on the board seen from too few seats"
    assert _turn_cell(CELL_INDEX["g4"], 2) == CELL_INDEX["a4"]
    assert _turn_cell(CELL_INDEX["a4"], 2) == CELL_INDEX["g4"]
