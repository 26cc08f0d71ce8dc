"""The fixed facts a game's drawing reads instead of restating the rules (issue 27): each game's
``drawing()`` (the ``drawing`` of its entry in ``GET /api/games``) equals the engine's own definition,
and the views carry the changing facts (hand sizes) the drawings no longer guess."""

from __future__ import annotations

import random

import gamester
from gamester.core.cards import card_code
from gamester.core.registry import game_class, game_names
from gamester.games.penneech import PenneechGame
from gamester.games.penneech.rules import POWER
from gamester.games.piquesept import PiqueseptGame
from gamester.games.piquesept.deal import CODE
from gamester.games.piquesept.render import board, narrate
from gamester.games.piquesept.rules import TOTAL_POINTS, VAL, WIN_POINTS, seat_return
from gamester.web.service import games


def test_games_api_entry_carries_each_games_drawing_facts() -> None:
    entries = {g["name"]: g for g in games()}
    for name in game_names():
        assert entries[name]["drawing"] == game_class(name).drawing()


def test_piquesept_drawing_points_are_the_engines_win_and_total() -> None:
    facts = PiqueseptGame.drawing()
    assert facts["win_points"] == WIN_POINTS and facts["total_points"] == TOTAL_POINTS
    # The soloist wins with win_points and not with one fewer: the engine's scoring, not a copy.
    assert seat_return(facts["win_points"], True, 4) > 0 >= seat_return(facts["win_points"] - 1, True, 4)


def test_piquesept_drawing_card_order_runs_each_suit_down_by_trick_power() -> None:
    order = PiqueseptGame.drawing()["card_order"]
    assert sorted(order) == sorted(CODE)
    action = {c: a for a, c in enumerate(CODE)}
    for i in range(len(order) - 1):
        a, b = action[order[i]], action[order[i + 1]]
        if a >> 3 == b >> 3:  # the same suit: the first beats the second in a trick led in that suit
            assert VAL[a >> 3][a] > VAL[a >> 3][b]
    assert order.index("7S") < order.index("AS")  # the Seven jumps to the top of spades


def test_piquesept_drawing_trump_is_the_suit_the_engine_lets_beat_any_lead() -> None:
    """docs/rules/piquesept.md, The cards: the drawing's trump suit (which the page marks and names)
    is the one whose every card beats every card of another suit led, by the engine's own VAL."""
    trump = PiqueseptGame.drawing()["trump"]
    action = {c: a for a, c in enumerate(CODE)}
    suit = {c[1]: action[c] >> 3 for c in CODE}
    for led in set(suit.values()) - {suit[trump]}:
        for c in CODE:
            if c[1] == trump:
                assert all(VAL[led][action[c]] > VAL[led][action[o]] for o in CODE if o[1] != trump)
    others = [s for s in suit if s != trump]
    for s in others:  # no other suit does the same
        c = next(x for x in CODE if x[1] == s)
        led = suit[trump]
        assert not all(VAL[led][action[c]] > VAL[led][action[o]] for o in CODE if o[1] == trump)


def test_penneech_drawing_card_order_runs_each_suit_down_by_power() -> None:
    order = PenneechGame.drawing()["card_order"]
    assert sorted(order) == sorted(card_code(c) for c in range(52))
    ids = {card_code(c): c for c in range(52)}
    for x, y in zip(order, order[1:], strict=False):
        if ids[x] // 13 == ids[y] // 13:
            assert POWER[ids[x]] > POWER[ids[y]]
    diamonds = [c for c in order if c[1] == "D"]
    assert diamonds[:2] == ["7D", "AD"]  # the 7D tops diamonds, from the engine's POWER


def test_penneech_every_view_carries_both_hand_sizes() -> None:
    """The drawing's fallback guess of a hand's size is gone: a seat's and a spectator's view always
    carry ``hand_sizes``, and a seat's own entry is its hand's length."""
    rng = random.Random(5)
    for seed in range(3):
        st = gamester.load_game("penneech").new_initial_state(seed=seed)
        while not st.is_terminal():
            spectator = st.public_observation()
            for seat in (0, 1):
                v = st.observation(seat)
                assert v["hand_sizes"] == spectator["hand_sizes"]
                assert v["hand_sizes"][seat] == len(v["hand"])
            legal = st.legal_actions()
            st.apply_action(legal[rng.randrange(len(legal))])


def test_piquesept_terminal_reads_points_and_outcomes_from_the_engine() -> None:
    st = gamester.load_game("piquesept").new_initial_state(seed=3)
    rng = random.Random(3)
    assert f"({WIN_POINTS} of {TOTAL_POINTS} wins)" in board(st.observation(0))
    over = None
    while not st.is_terminal():
        legal = st.legal_actions()
        st.apply_action(legal[rng.randrange(len(legal))])
        over = next((e for e in st.last_events() if e["type"] == "deal_over"), over)
    assert over is not None
    sign = over["returns"][over["soloist"]]
    text = narrate(over, 0)
    assert text is not None
    expected = "a draw" if sign == 0 else "the soloist wins" if sign > 0 else "the defenders win"
    assert text.endswith(f"{expected}.")
    # The outcome is the engine's: a deal's returns and its card points tell the same story.
    sp = over["card_points"][0]
    assert (sign > 0) == (sp >= WIN_POINTS) and (sign == 0) == (2 * sp == TOTAL_POINTS)


def test_pentyrch_drawing_geometry_and_points_are_the_boards() -> None:
    from gamester.games.pentyrch import PentyrchGame
    from gamester.games.pentyrch.board import CELL_NAMES, FREE, GOAL, HOME, ROWS, SEAT_NAMES
    from gamester.games.pentyrch.cards import COURT_IDS, POINTS, VALUE

    facts = PentyrchGame.drawing()
    assert [tuple(r) for r in facts["rows"]] == list(ROWS) and facts["free"] == CELL_NAMES[FREE]
    assert facts["seats"] == list(SEAT_NAMES)
    assert facts["homes"] == [CELL_NAMES[c] for c in HOME] and facts["goals"] == [CELL_NAMES[c] for c in GOAL]
    # Each seat's suit is the suit of its court cards.
    assert facts["seat_suits"] == [card_code(COURT_IDS[3 * s])[1] for s in range(4)]
    assert facts["court_points"] == {"J": POINTS[0], "Q": POINTS[1], "K": POINTS[2]}
    assert all(facts["card_values"][card_code(c)] == VALUE[c] for c in range(52) if VALUE[c])
    assert facts["card_values"]["AS"] == 1 and facts["card_values"]["TS"] == 10


def test_pentyrch_drawing_court_points_add_up_to_the_engines_scores() -> None:
    """The page scores a seat from its court cards in safety; summed per player that is the view's
    ``scores`` (the engine's game_points), at the end of random games."""
    from gamester.games.pentyrch import PentyrchGame

    points = PentyrchGame.drawing()["court_points"]
    seats = PentyrchGame.drawing()["seats"]
    rng = random.Random(7)
    scored = 0
    for spec in ("pentyrch", "pentyrch(players=2)"):
        st = gamester.load_game(spec).new_initial_state(seed=4)
        while not st.is_terminal():
            legal = st.legal_actions()
            st.apply_action(legal[rng.randrange(len(legal))])
            v = st.public_observation()
            per_player = [0] * v["players"]
            for s, name in enumerate(seats):
                if v["owners"][s] is not None:
                    per_player[v["owners"][s]] += sum(points[c[0]] for c in v["safe"].get(name, []))
            if v["results"]:  # a new game of a match resets the safety; compare within one game
                break
            assert per_player == v["scores"]
            scored = max(scored, sum(per_player))
    assert scored > 0  # some court card reached safety: the check compared something
