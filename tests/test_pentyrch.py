"""Pentyrch: one test per ruling and option of docs/rules/pentyrch.md, from hand-made layouts and hands.

Most tests start from the fixed deal below (``new_initial_state(chance=[LAYOUT, HANDS])``) and play
moves; tests of a particular board (a court card in mid-board, a full stack, empty hands) set the
position up with :func:`arrange`, which moves cards and court cards directly and then checks the
position with the conservation invariants (tests/invariants_pentyrch.py).
"""

from __future__ import annotations

import json
import random

import pytest

import gamester
from gamester.core.cards import card_code, parse_card
from gamester.core.errors import IllegalActionError, InvalidActionError, OptionError
from gamester.core.position import join as join_position
from gamester.core.position import split as split_position
from gamester.core.protocol import TERMINAL
from gamester.core.registry import load_game
from gamester.games.pentyrch import PentyrchGame, PentyrchOptions, PentyrchState
from gamester.games.pentyrch.board import CELL_NAMES, FREE, parse_cell
from gamester.games.pentyrch.game import (
    BIT,
    COMBO_BASE,
    NONCOURT,
    VALUE,
    _payments,
)
from tests.invariants_pentyrch import check

# Layout pack, top first: d7=AC c6=2C d6=3C e6=4C b5=5C c5=6C d5=AD e5=2D f5=3D a4=4D b4=5D c4=6D
# e4=AH f4=2H g4=3H b3=4H c3=5H d3=6H e3=AS f3=2S c2=3S d2=4S e2=5S d1=6S.
LAYOUT = [
    "AC",
    "2C",
    "3C",
    "4C",
    "5C",
    "6C",
    "AD",
    "2D",
    "3D",
    "4D",
    "5D",
    "6D",
    "AH",
    "2H",
    "3H",
    "4H",
    "5H",
    "6H",
    "AS",
    "2S",
    "3S",
    "4S",
    "5S",
    "6S",
]
# Hand pack: card i goes to seat i mod 4 (West first): West 7C 8C 9C TC, North the diamonds,
# East the hearts, South the spades.
HANDS = ["7C", "7D", "7H", "7S", "8C", "8D", "8H", "8S", "9C", "9D", "9H", "9S", "TC", "TD", "TH", "TS"]


def new(
    spec: str = "pentyrch", layout: list[str] | None = None, hands: list[str] | None = None
) -> PentyrchState:
    s = gamester.load_game(spec).new_initial_state(chance=[layout or LAYOUT, hands or HANDS])
    assert isinstance(s, PentyrchState)
    return s


def legal(s: PentyrchState) -> list[str]:
    return [s.action_to_string(a) for a in s.legal_actions()]


def play(s: PentyrchState, *moves: str) -> PentyrchState:
    for m in moves:
        s.apply_action(s.string_to_action(m))
        check(s)
    return s


def arrange(
    s: PentyrchState,
    *,
    seat: int = 0,
    courts: dict[str, str] | None = None,
    piles: dict[str, list[str]] | None = None,
    hands: dict[int, list[str]] | None = None,
) -> PentyrchState:
    """Set up a position, written in the game's position notation (docs/positions.md) and read back:
    court cards ('JH': 'c4', 'safe', 'off'; stacks listed bottom first), chosen piles (bottom first)
    and hands; every other card lies one to a pile, extras at the bottom of d7's pile, so the 40
    cards stay conserved. Cards of a given hand count as dealt and unseen."""
    spec, fields = split_position(s.position())
    aside = fields.get("aside")
    piles = piles or {}
    hands = hands or {}
    placed = [c for p in piles.values() for c in p] + [c for h in hands.values() for c in h]
    assert len(placed) == len(set(placed))
    free_cards = [card_code(c) for c in NONCOURT if card_code(c) not in placed and card_code(c) != aside]
    new_piles: list[list[str]] = [[] for _ in range(25)]
    for cell, codes in piles.items():
        new_piles[parse_cell(cell)] = list(codes)
    empty = [c for c in range(25) if c != FREE and not new_piles[c]]
    for cell in empty:
        new_piles[cell] = [free_cards.pop()]
    if free_cards:
        target = empty[0] if empty else 0
        new_piles[target] = free_cards + new_piles[target]
    stacks: list[list[str]] = [[] for _ in range(25)]
    safe = []
    for court, where in (courts or {}).items():
        if where == "safe":
            safe.append(court)
        elif where != "off":
            stacks[parse_cell(where)].append(court)
    fields["board"] = "/".join(
        (",".join(p) + ("+" + ",".join(k) if k else "")) or "-"
        for p, k in zip(new_piles, stacks, strict=True)
    )
    n = s.game.num_players
    fields["safe"] = ",".join(safe) or "-"
    fields["hands"] = "/".join(",".join(hands.get(p, [])) or "-" for p in range(n))
    fields["seen"] = "/".join("-" for _ in range(n))
    fields["seat"] = str(seat)
    s = s.game.read_position(join_position(spec, fields.items()))
    assert isinstance(s, PentyrchState)
    check(s)
    return s


def reposition(
    s: PentyrchState, *, seat: int | None = None, moves: dict[str, str] | None = None
) -> PentyrchState:
    """The same position with another seat to move, or court cards moved (``{"JC": "d4"}``: to the
    top of that cell's stack), through the position notation (docs/positions.md)."""
    spec, fields = split_position(s.position())
    if seat is not None:
        fields["seat"] = str(seat)
    cells = fields["board"].split("/")
    for court, where in (moves or {}).items():
        for i, cell in enumerate(cells):
            pile, _, stack = cell.partition("+")
            left = [k for k in stack.split(",") if k and k != court]
            cells[i] = ((pile if pile != "-" else "") + ("+" + ",".join(left) if left else "")) or "-"
        i = parse_cell(where)
        pile, _, stack = cells[i].partition("+")
        on = [k for k in stack.split(",") if k] + [court]
        cells[i] = (pile if pile != "-" else "") + "+" + ",".join(on)
    fields["board"] = "/".join(cells)
    again = s.game.read_position(join_position(spec, fields.items()))
    assert isinstance(again, PentyrchState)
    check(again)
    return again


def targets(s: PentyrchState, court: str) -> set[str]:
    out = set()
    for m in legal(s):
        parts = m.split()
        if parts[0] == court and "-" in parts[1]:
            out.add(parts[1].split("-")[1])
    return out


# -- the playing surface, seats and hands -----------------------------------------------------------
def test_layout_fills_rows_from_the_top_skipping_the_free_space() -> None:
    """docs/rules/pentyrch.md, The board: pack[0] -> d7, pack[1..3] -> c6 d6 e6, ..., pack[23] -> d1."""
    s = new()
    assert s.pile("d7") == ["AC"]
    assert [s.pile(c)[0] for c in ("c6", "d6", "e6")] == ["2C", "3C", "4C"]
    assert s.pile("c4") == ["6D"] and s.pile("e4") == ["AH"]
    assert s.pile("d4") == []
    assert s.pile("d1") == ["6S"]
    order = [c for c in CELL_NAMES if c != "d4"]
    assert [s.pile(c)[0] for c in order] == LAYOUT


def test_four_hands_dealt_one_at_a_time_from_the_dealers_left() -> None:
    """docs/rules/pentyrch.md, Seats, court cards and hands: four each with four players, West (the dealer's
    left) first."""
    s = new()
    assert s.hand(0) == ["TC", "9C", "8C", "7C"]
    assert s.hand(3) == ["TS", "9S", "8S", "7S"]
    assert s.current_player() == 0 and s.current_seat() == 0


def test_three_players_set_one_card_aside_and_south_sits_out() -> None:
    """docs/rules/pentyrch.md, Seats, court cards and hands: five each with three, the last card set aside
    unseen;
    East deals, so a round is West, North, East."""
    s = new("pentyrch(players=3)")
    assert [len(s.hand(p)) for p in range(3)] == [5, 5, 5]
    assert s._setaside == parse_card("TS")
    obs = s.observation(0)
    assert obs["set_aside"] == 1 and "TS" not in json.dumps(obs)
    with pytest.raises(InvalidActionError):
        s.string_to_action("JS @d1 9S")
    play(s, "JH @a4 TC", "JC @d7 TD", "JD @g4 TH")
    assert s.current_seat() == 0 and s._round == 1


def test_two_players_one_hand_two_seats() -> None:
    """docs/rules/pentyrch.md, Seats, court cards and hands: with two players A plays West and East, B North
    and South, one hand
    each of eight; turns go West, North, East, South; current_player is the player."""
    s = new("pentyrch(players=2)")
    assert len(s.hand(0)) == 8 and len(s.hand(1)) == 8
    assert s.hand(0) == ["TC", "TH", "9C", "9H", "8C", "8H", "7C", "7H"]
    players = []
    for m in ("JH @a4 TC", "JC @d7 TD", "JD @g4 TH", "JS @d1 TS"):
        players.append(s.current_player())
        play(s, m)
    assert players == [0, 1, 0, 1]
    # East (player A) paid from A's one hand.
    assert "TH" not in s.hand(0) and "3H" in s.hand(0)
    assert len(s.returns()) == 2 and len(s.scores()) == 2


def test_partners_only_with_four_players() -> None:
    """docs/rules/pentyrch.md, Seats, court cards and hands: option partners is for four players."""
    with pytest.raises(OptionError, match="partners"):
        gamester.load_game("pentyrch(players=3,partners=true)")
    assert gamester.load_game("pentyrch(partners=true)").num_players == 4
    with pytest.raises(OptionError):
        gamester.load_game("pentyrch(combine=sometimes)")


# -- directions and home cells ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "seat,court,cell,expected",
    [
        (0, "JH", "c4", {"c5", "d5", "d4", "d3", "c3"}),
        (1, "JC", "d5", {"c5", "e5", "c4", "d4", "e4"}),
        (2, "JD", "e4", {"e5", "d5", "d4", "d3", "e3"}),
        (3, "JS", "d3", {"c3", "e3", "c4", "d4", "e4"}),
    ],
)
def test_steps_go_forward_diagonally_forward_or_sideways(
    seat: int, court: str, cell: str, expected: set[str]
) -> None:
    """docs/rules/pentyrch.md, Moving: each seat's forward points at its goal; never backward."""
    s = arrange(new(), seat=seat, courts={court: cell}, hands={p: [HANDS[p + 12]] for p in range(4)})
    assert targets(s, court) == expected


def test_backward_step_refused_with_rule_and_position() -> None:
    """docs/rules/pentyrch.md, Moving: a backward step is illegal; the error names move, rule, place."""
    s = arrange(new(), courts={"JH": "c4"}, hands={0: ["TC"]})
    with pytest.raises(IllegalActionError) as e:
        s.apply_action(s.string_to_action("JH c4-b4 TC"))
    msg = str(e.value)
    assert (
        "JH c4-b4 TC" in msg
        and "(docs/rules/pentyrch.md, Moving;" in msg
        and "round 1" in msg
        and "West" in msg
    )


def test_home_cell_holds_only_its_owner_and_the_seat_it_is_the_goal_of() -> None:
    """docs/rules/pentyrch.md, Moving: a4 (West's home, East's goal) is closed to North and South."""
    s = arrange(new(), seat=1, courts={"JC": "b5"}, hands={1: ["TD"]})
    assert "a4" not in targets(s, "JC")
    with pytest.raises(IllegalActionError, match="home cell"):
        s.apply_action(s.string_to_action("JC b5-a4 TD"))
    s = arrange(new(), seat=2, courts={"JD": "b5"}, hands={2: ["TH"]})
    assert "a4" in targets(s, "JD")
    # Covering there is closed too: North's King may not cover East's Jack on a4.
    s = arrange(new(), seat=1, courts={"KC": "b5", "JD": "a4"}, hands={1: ["TD"]})
    assert "a4" not in targets(s, "KC")


# -- stacks -----------------------------------------------------------------------------------------
def test_covering_order_outside_the_free_space() -> None:
    """docs/rules/pentyrch.md, Moving, Stacks: a King covers a Queen or Jack, a Queen a Jack; no other way."""
    s = arrange(
        new(),
        courts={"KH": "c4", "QH": "b5", "JH": "b3", "JC": "c5", "QC": "d5", "KC": "c3"},
        hands={0: ["TC"]},
    )
    assert "KH c4-c5" in legal(s) and "KH c4-d5" in legal(s)
    assert "c3" not in targets(s, "KH")  # King on King
    assert "c5" not in targets(s, "JH")  # not adjacent anyway; Jack covers nothing
    s = arrange(new(), courts={"QH": "c4", "JC": "c5", "QC": "d5", "KC": "c3"}, hands={0: []})
    assert targets(s, "QH") == {"c5", "d4"}
    s = arrange(new(), courts={"JH": "c4", "JC": "c5", "QC": "d5", "KC": "c3"}, hands={0: []})
    assert targets(s, "JH") == {"d4"}


def test_on_the_free_space_the_order_reverses() -> None:
    """docs/rules/pentyrch.md, Moving, Stacks: on the free space a Jack covers a Queen or King, a Queen a
    King."""
    s = arrange(new(), courts={"JH": "c4", "KC": "d4"}, hands={0: []})
    assert legal(s) == ["JH c4-d4"]
    play(s, "JH c4-d4")
    assert s.stack("d4") == ["KC", "JH"]
    s = arrange(new(), courts={"KH": "c4", "JC": "d4"}, hands={0: []})
    assert "d4" not in targets(s, "KH")
    with pytest.raises(IllegalActionError, match="free space a Jack covers"):
        s.apply_action(s.string_to_action("KH c4-d4"))


def test_empty_free_space_is_free_of_charge() -> None:
    """docs/rules/pentyrch.md, Moving (3): onto an empty free space with no payment."""
    s = arrange(new(), courts={"JH": "c4"}, hands={0: ["TC"]})
    assert "JH c4-d4" in legal(s)
    assert not any(m.startswith("JH c4-d4 ") for m in legal(s))
    play(s, "JH c4-d4")
    assert s.hand(0) == ["TC"] and s.pile("d4") == []


def test_stack_of_three_is_full_and_only_the_top_moves() -> None:
    """docs/rules/pentyrch.md, Moving, Stacks: at most three; cards underneath wait until those above move
    away."""
    s = arrange(
        new(), seat=1, courts={"JH": "c4", "QH": "c4", "KC": "c4", "JC": "c5", "KD": "d5"}, hands={1: []}
    )
    assert s.stack("c4") == ["JH", "QH", "KC"]
    # North's Jack on c5 has only the free space; its King (top of c4) may move.
    s = reposition(s, seat=0)
    assert not any(m.startswith(("JH", "QH")) for m in legal(s))  # both covered
    s = arrange(new(), seat=2, courts={"JH": "e4", "QH": "e4", "KC": "e4", "KD": "f4"}, hands={2: []})
    assert "e4" not in targets(s, "KD")  # a King can never cover a King, and the stack is full
    s = arrange(new(), seat=2, courts={"KH": "d4", "QC": "d4", "JS": "d4", "JD": "e4"}, hands={2: []})
    assert "d4" not in targets(s, "JD")
    with pytest.raises(IllegalActionError, match="three"):
        s.apply_action(s.string_to_action("JD e4-d4"))


def test_cover_any_direction_lets_covers_go_backward() -> None:
    """docs/rules/pentyrch.md, Moving (3), cover_any_direction: covering steps may go backward; exchanges
    and free steps still may not."""
    kwargs = {"courts": {"KH": "c4", "JC": "b4"}, "hands": {0: ["TC"]}}
    s = arrange(new(), **kwargs)  # type: ignore[arg-type]
    assert "b4" not in targets(s, "KH")
    s = arrange(new("pentyrch(cover_any_direction=true)"), **kwargs)  # type: ignore[arg-type]
    assert "b4" in targets(s, "KH")
    assert "b5" not in targets(s, "KH") and "b3" not in targets(s, "KH")  # backward exchanges


# -- entering, bearing off --------------------------------------------------------------------------
def test_enter_by_exchange_then_by_covering() -> None:
    """docs/rules/pentyrch.md, Moving (2): enter by exchange when no court card is on the home cell, else by
    covering the top card there."""
    s = new()
    assert legal(s)[:4] == ["JH @a4 7C", "JH @a4 8C", "JH @a4 9C", "JH @a4 TC"]
    play(s, "JH @a4 9C", "JC @d7 7D", "JD @g4 7H", "JS @d1 7S")
    moves = legal(s)
    assert "QH @a4" in moves and "KH @a4" in moves
    assert not any(m.startswith("QH @a4 ") for m in moves)  # no exchange while a court card is there
    play(s, "QH @a4")
    assert s.stack("a4") == ["JH", "QH"] and s.pile("a4") == ["9C"]


def test_bear_off_from_the_goal_only_the_top_card() -> None:
    """docs/rules/pentyrch.md, Moving (1): the top court card on the goal cell goes to safety; it is a whole
    turn."""
    s = arrange(new(), courts={"JH": "g4", "KH": "f4"}, hands={0: []})
    assert "JH off" in legal(s)
    play(s, "JH off")
    assert s.where_is("JH") == "safe" and s.current_seat() == 1
    assert s.scores() == [3, 0, 0, 0]
    s = arrange(new(), courts={"JH": "g4", "QD": "g4"}, hands={0: []})
    assert "JH off" not in legal(s)
    with pytest.raises(IllegalActionError, match="covered"):
        s.apply_action(s.string_to_action("JH off"))
    s = arrange(new(), courts={"JH": "f4"}, hands={0: []})
    with pytest.raises(IllegalActionError, match="goal"):
        s.apply_action(s.string_to_action("JH off"))


# -- exchange ---------------------------------------------------------------------------------------
def test_exchange_takes_the_whole_pile_and_pays_from_the_old_hand() -> None:
    """docs/rules/pentyrch.md, Moving, Exchange: the pile goes to the hand; the payment comes from the hand
    as it
    was before the move, the chosen card on top."""
    s = arrange(new(), courts={"JH": "c4"}, piles={"d5": ["2C", "9D"], "c5": ["5S"]}, hands={0: ["TC", "3H"]})
    # A 9 on top: only the Ten will do alone; the 2C and 9D taken cannot pay for this same move.
    assert [m for m in legal(s) if m.startswith("JH c4-d5")] == ["JH c4-d5 TC"]
    play(s, "JH c4-d5 TC")
    assert s.pile("d5") == ["TC"]
    assert s.hand(0) == ["9D", "3H", "2C"]
    ev = s.last_events()
    assert ev[1] == {"type": "exchange", "seat": 0, "cell": "d5", "taken": ["2C", "9D"], "laid": ["TC"]}
    # The cards taken are public: every other player sees them in West's hand.
    known = s.observation(1)["hands"][0]
    assert known["known"] == ["9D", "2C"] and known["unknown"] == 1


def test_combination_only_when_no_single_card_will_do() -> None:
    """docs/rules/pentyrch.md, Moving, Exchange (combine=when_needed): two or more cards only if no single
    card is
    high enough; minimal: no card could be left out; the first listed ends on top."""
    s = arrange(
        new(), courts={"JH": "c4"}, piles={"c5": ["8S"], "d5": ["4C"]}, hands={0: ["5D", "3S", "2H", "AC"]}
    )
    c5 = sorted(m for m in legal(s) if m.startswith("JH c4-c5"))
    # 8 needs 5+3 (either on top) or 5+2+A (three choices of top); 5+3+A could drop the Ace.
    assert c5 == sorted(
        ["JH c4-c5 5D+3S", "JH c4-c5 3S+5D", "JH c4-c5 5D+2H+AC", "JH c4-c5 2H+5D+AC", "JH c4-c5 AC+5D+2H"]
    )
    d5 = sorted(m for m in legal(s) if m.startswith("JH c4-d5"))
    assert d5 == ["JH c4-d5 5D"]  # a single card does, so no combination
    a = s.string_to_action("JH c4-c5 3S+5D")
    assert a >= COMBO_BASE
    play(s, "JH c4-c5 3S+5D")
    assert s.pile("c5") == ["5D", "3S"]  # bottom to top: the first listed is on top
    with pytest.raises(IllegalActionError, match="single card would do"):
        s2 = arrange(new(), courts={"JH": "c4"}, piles={"d5": ["4C"]}, hands={0: ["5D", "3S", "2H"]})
        s2.string_to_action("JH c4-d5 3S+2H")


def test_combine_always_allows_combinations_beside_single_cards() -> None:
    """docs/rules/pentyrch.md, Moving, Exchange (combine=always): a combination even when one card would
    do."""
    s = arrange(
        new("pentyrch(combine=always)"),
        courts={"JH": "c4"},
        piles={"d5": ["4C"]},
        hands={0: ["5D", "3S", "2H"]},
    )
    d5 = sorted(m for m in legal(s) if m.startswith("JH c4-d5"))
    assert d5 == sorted(["JH c4-d5 5D", "JH c4-d5 3S+2H", "JH c4-d5 2H+3S"])


def test_overpay_drops_the_minimal_limit() -> None:
    """docs/rules/pentyrch.md, Moving, Exchange (overpay): cards that could be left out may be laid as
    well."""
    kw = {"courts": {"JH": "c4"}, "piles": {"c5": ["8S"]}, "hands": {0: ["5D", "3S", "AC"]}}
    s = arrange(new(), **kw)  # type: ignore[arg-type]
    assert "JH c4-c5 5D+3S+AC" not in legal(s)
    with pytest.raises(IllegalActionError, match="left out"):
        s.string_to_action("JH c4-c5 5D+3S+AC")
    s = arrange(new("pentyrch(overpay=true)"), **kw)  # type: ignore[arg-type]
    assert "JH c4-c5 5D+3S+AC" in legal(s) and "JH c4-c5 5D+3S" in legal(s)
    assert "JH c4-c5 5D+AC" not in legal(s)  # 6 is still short of 8


def test_payment_counts_from_the_payment_table() -> None:
    """docs/rules/pentyrch.md, Moving, Exchange: the worst hand (the sixteen Aces-4s) has 4,992 minimal
    combinations against a Ten, the bound the action space is sized on."""
    hand = 0
    for c in NONCOURT:
        if c % 13 in (12, 0, 1, 2):
            hand |= BIT[c]
    singles, shows, combos = _payments(hand, 10, False, False)
    assert singles == () and len(combos) == 4992


def test_show_instead_of_exchanging() -> None:
    """docs/rules/pentyrch.md, Moving, Showing: on a one-card pile, show a card of equal value; no card
    changes hands and the shown card becomes known."""
    kw = {"courts": {"JH": "c4"}, "piles": {"c5": ["7S"], "d5": ["2C", "6S"]}, "hands": {0: ["7C", "6D"]}}
    s = arrange(new(), **kw)  # type: ignore[arg-type]
    assert "JH c4-c5 =7C" in legal(s) and "JH c4-c5 7C" in legal(s)
    play(s, "JH c4-c5 =7C")
    assert s.pile("c5") == ["7S"] and s.hand(0) == ["7C", "6D"]
    assert s.observation(1)["hands"][0] == {"player": 0, "known": ["7C"], "unknown": 1}
    assert s.last_events()[1] == {"type": "show", "seat": 0, "cell": "c5", "card": "7C"}
    s = arrange(new(), **kw)  # type: ignore[arg-type]
    # Not on a pile of two cards, even though its top matches.
    assert "JH c4-d5 =6D" not in legal(s) and "JH c4-d5 6D" in legal(s)
    s = arrange(new("pentyrch(show=false)"), **kw)  # type: ignore[arg-type]
    assert not any("=" in m for m in legal(s))
    with pytest.raises(IllegalActionError, match="show=false"):
        s.apply_action(s.string_to_action("JH c4-c5 =7C"))


# -- must move, pass --------------------------------------------------------------------------------
def test_must_move_and_pass_shows_the_hand() -> None:
    """docs/rules/pentyrch.md, Moving: you must move if you can; otherwise pass, showing your hand."""
    s = arrange(
        new(),
        courts={"JH": "c4"},
        piles={"c5": ["9S"], "d5": ["TD"], "c3": ["9H"], "d3": ["TS"], "a4": ["9C"]},
        hands={0: ["3D", "2D"]},
        seat=0,
    )
    s = reposition(s, moves={"JC": "d4"})
    assert legal(s) == ["pass"]
    play(s, "pass")
    assert s.last_events() == [{"type": "pass", "seat": 0, "all_safe": False, "hand": ["3D", "2D"]}]
    assert s.observation(2)["hands"][0] == {"player": 0, "known": ["3D", "2D"], "unknown": 0}
    s = arrange(new(), courts={"JH": "c4"}, hands={0: ["TC"]})
    with pytest.raises(IllegalActionError, match="must move"):
        s.apply_action(s.string_to_action("pass"))


def test_pass_without_showing() -> None:
    """docs/rules/pentyrch.md, Moving, No move (reveal_on_pass=false): the hand stays hidden."""
    s = arrange(
        new("pentyrch(reveal_on_pass=false)"),
        courts={"JH": "c4", "QH": "c4"},
        piles={"c5": ["9S"], "d5": ["TD"], "c3": ["9H"], "d3": ["TS"], "a4": ["9C"]},
        hands={0: ["3D", "2D"]},
        seat=0,
    )
    s = reposition(s, moves={"JC": "d4"})
    assert legal(s) == ["pass"]
    play(s, "pass")
    assert s.last_events()[0]["hand"] is None
    assert s.observation(2)["hands"][0] == {"player": 0, "known": [], "unknown": 2}


# -- end --------------------------------------------------------------------------------------------
def test_first_to_finish_ends_the_game_at_the_end_of_the_round() -> None:
    """docs/rules/pentyrch.md, The end: finishing stops a seat's turns; play goes on to the dealer, and
    everyone finished by then wins: w winners +1, the others -w/(n-w)."""
    s = arrange(
        new(),
        courts={"JH": "safe", "QH": "safe", "KH": "g4", "JC": "safe", "QC": "safe", "KC": "d1"},
        hands={p: [HANDS[12 + p]] for p in range(4)},
    )
    play(s, "KH off")
    assert s.last_events()[-1]["type"] == "finished"
    assert not s.is_terminal() and s.current_seat() == 1
    play(s, "KC off")
    assert s.current_seat() == 2
    play(s, "JD @g4 TH", "JS @d1 TS")
    assert s.is_terminal() and s.current_player() == TERMINAL
    assert s.returns() == [1.0, 1.0, -1.0, -1.0]
    assert s.scores() == [6, 6, 0, 0]
    assert gamester.summary(s)["winners"] == [0, 1]


def test_blocked_round_ends_the_game_count_then_points() -> None:
    """docs/rules/pentyrch.md, The end: a round with no move ends the game: most cards in safety, then points
    (J 3, Q 2, K 1); a tie at the top is shared; nothing in safety is a draw."""

    def blocked(courts: dict[str, str]) -> PentyrchState:
        s = arrange(new(), courts=courts, hands={})
        play(s, "pass", "pass", "pass", "pass")
        assert s.is_terminal()
        assert s.last_events()[-1]["reason"] == "blocked"
        return s

    assert blocked({"KH": "safe", "QC": "safe", "KC": "safe"}).returns() == [-1 / 3, 1.0, -1 / 3, -1 / 3]
    assert blocked({"KH": "safe", "QC": "safe"}).returns() == [-1 / 3, 1.0, -1 / 3, -1 / 3]
    assert blocked({"JH": "safe", "JC": "safe"}).returns() == [1.0, 1.0, -1.0, -1.0]
    s = blocked({})
    assert s.returns() == [0.0] * 4 and gamester.summary(s)["winners"] == []


def test_a_round_with_a_move_goes_on_and_max_rounds_ends() -> None:
    """docs/rules/pentyrch.md, The end (max_rounds): after that many rounds the game ends at the round's
    end."""
    s = new("pentyrch(max_rounds=2)")
    play(s, "JH @a4 9C", "JC @d7 7D", "JD @g4 7H", "JS @d1 7S")
    assert not s.is_terminal()
    play(s, "QH @a4", "QC @d7", "QD @g4", "QS @d1")
    assert s.is_terminal() and s.returns() == [0.0] * 4
    assert s.last_events()[-1]["reason"] == "max_rounds"


def test_seat_with_all_cards_safe_passes_until_its_team_finishes() -> None:
    """docs/rules/pentyrch.md, Moving; The end (partners): a seat whose cards are safe passes; the team
    finishes when both seats have; both partners share the result."""
    s = arrange(
        new("pentyrch(partners=true)"),
        courts={"JH": "safe", "QH": "safe", "KH": "safe", "JD": "safe", "QD": "safe", "KD": "b4"},
        hands={p: [HANDS[12 + p]] for p in range(4)},
    )
    assert legal(s) == ["pass"]
    play(s, "pass")
    assert s.last_events()[0] == {"type": "pass", "seat": 0, "all_safe": True, "hand": None}
    assert s.observation(1)["hands"][0]["unknown"] == 1  # not shown: a forced pass
    play(s, "JC @d7 TD")
    s = reposition(s, moves={"KD": "a4"})  # East's King to its goal
    play(s, "KD off", "JS @d1 TS")
    assert s.is_terminal()
    assert s.returns() == [1.0, -1.0, 1.0, -1.0]


def test_two_player_finish_needs_both_seats() -> None:
    """docs/rules/pentyrch.md, Seats, court cards and hands; The end: a two-player player finishes when all
    six cards are safe."""
    s = arrange(
        new("pentyrch(players=2)"),
        courts={"JH": "safe", "QH": "safe", "KH": "g4", "JD": "safe", "QD": "safe", "KD": "b4"},
        hands={0: ["TC"], 1: ["TD"]},
    )
    play(s, "KH off")
    assert s._finished == []
    assert s.current_player() == 1


def test_match_rotates_seats_and_sums() -> None:
    """docs/rules/pentyrch.md, The end (games): in game g player p sits at seat (p - g) mod n; each game draws
    its layout pack and hand pack; scores and returns are summed."""
    game = gamester.load_game("pentyrch(games=2,max_rounds=1)")
    hands2 = HANDS[1:] + HANDS[:1]
    s = game.new_initial_state(chance=[LAYOUT, HANDS, LAYOUT, hands2])
    assert isinstance(s, PentyrchState)
    play(s, "JH @a4 9C", "JC @d7 7D", "JD @g4 7H", "JS @d1 7S")
    assert not s.is_terminal()
    assert s.current_seat() == 0 and s.current_player() == 1  # player 1 now sits West
    assert len(s.chance.log) == 4
    assert s.hand(1) == ["TD", "9D", "8D", "7D"]  # West's hand, dealt to the player sitting there
    play(s, "JH @a4 9D", "JC @d7 7H", "JD @g4 7S", "JS @d1 7C")
    assert s.is_terminal() and s.returns() == [0.0] * 4
    rec = s.record()
    assert gamester.replay(rec).record() == rec
    s3 = gamester.load_game("pentyrch(players=2,games=2,max_rounds=1)").new_initial_state(seed=1)
    assert s3._owner == [0, 1, 0, 1]
    for _ in range(4):
        s3.apply_action(s3.legal_actions()[0])
    assert s3._owner == [1, 0, 1, 0]  # A and B swap colours


# -- notation ---------------------------------------------------------------------------------------
def test_notation_round_trip_and_canonical_order() -> None:
    """docs/rules/pentyrch.md, Notation: payment cards after the top card go by value high to low,
    then suit C D H S; the parser takes any order of them."""
    s = arrange(new(), courts={"JH": "c4"}, piles={"c5": ["TS"]}, hands={0: ["4D", "3S", "2C", "AH"]})
    a = s.string_to_action("JH c4-c5 AH+2C+3S+4D")
    assert s.action_to_string(a) == "JH c4-c5 AH+4D+3S+2C"
    assert s.string_to_action("jh  c4-c5 ah+3s+4d+2c") == a
    for act in s.legal_actions():
        assert s.string_to_action(s.action_to_string(act)) == act
    assert s.string_to_action("pass") == 0
    for bad in ("", "JH", "JH c4", "JH c4-z9", "7C c4-c5", "JH c4-c5 JD", "JH off 9C", "JH @q9"):
        with pytest.raises(InvalidActionError):
            s.string_to_action(bad)
    with pytest.raises(IllegalActionError, match="not adjacent"):
        s.string_to_action("JH c4-e4")
    with pytest.raises(IllegalActionError, match="on c4, not on b4"):
        s.string_to_action("JH b4-c4 9C")


def test_action_space_size() -> None:
    """Dense actions: pass, 9,720 fixed simple moves, and the combination region (15 x 4,992, or
    15 x 524,272 with overpay)."""
    assert gamester.load_game("pentyrch").num_distinct_actions == 9721 + 15 * 4992
    assert gamester.load_game("pentyrch(overpay=true)").num_distinct_actions == 9721 + 15 * 524272
    g = gamester.load_game("pentyrch")
    assert isinstance(g, PentyrchGame) and isinstance(g.options, PentyrchOptions)


# -- knowledge --------------------------------------------------------------------------------------
def test_observation_hides_dealt_cards_and_determinize_respects_it() -> None:
    """docs/rules/pentyrch.md, What each player knows: the board and exchanged cards are public; the unplayed
    dealt cards of others and the set-aside card are not."""
    s = play(new("pentyrch(players=3)"), "JH @a4 TC", "JC @d7 TD")
    obs = s.observation(0)
    assert obs["hands"][1] == {"player": 1, "known": ["AC"], "unknown": 4}
    assert obs["board"]["a4"] == {"pile": ["TC"], "stack": ["JH"]}
    worlds = [s.determinize(0, random.Random(i)) for i in range(20)]
    assert len({tuple(w.hand(1)) for w in worlds}) > 1
    for w in worlds:
        assert w.observation(0) == obs
        assert w.hand(0) == s.hand(0) and "AC" in w.hand(1)
        assert gamester.replay(w.record()).record() == w.record()


def test_determinize_keeps_what_a_combination_revealed() -> None:
    """docs/rules/pentyrch.md, Moving, Exchange (combine=when_needed): paying with two cards shows no single
    card
    of the hand was high enough, so no world gives that hand one."""
    s = arrange(
        new(),
        seat=1,
        courts={"JC": "d5"},
        piles={"c4": ["8S"]},
        hands={0: ["TC"], 1: ["5D", "3S", "2D"], 2: ["7H", "AH"], 3: ["9S", "AS"]},
    )
    play(s, "JC d5-c4 5D+3S")
    assert s._caps[1] == 8
    seen = set()
    for i in range(40):
        w = s.determinize(0, random.Random(i))
        hidden = [c for c in w.hand(1) if c != "8S"]
        assert len(hidden) == 1 and VALUE[parse_card(hidden[0])] < 8
        seen.add(hidden[0])
    assert seen == {"2D", "7H", "AH", "AS"}


def test_summary_has_board_and_safe() -> None:
    """gamester replay --json adds the board (piles and stacks, bottom to top) and the safe cards."""
    s = play(new(), "JH @a4 9C", "JC @d7 7D", "JD @g4 7H", "JS @d1 7S", "QH @a4")
    out = gamester.summary(s)
    assert out["board"]["a4"] == {"pile": ["9C"], "stack": ["JH", "QH"]}
    assert out["board"]["d4"] == {"pile": [], "stack": []}
    assert out["safe"] == {"West": [], "North": [], "East": [], "South": []}
    json.dumps(out)


def test_determinism_and_seeded_games_end() -> None:
    """A seed fixes the game; random games end (max_rounds) and conserve every card."""

    def run(seed: int) -> dict[str, object]:
        game = gamester.load_game("pentyrch(players=3,combine=always)")
        s = game.new_initial_state(seed=seed)
        r = random.Random(seed)
        while not s.is_terminal():
            check(s)  # type: ignore[arg-type]
            la = s.legal_actions()
            s.apply_action(la[r.randrange(len(la))])
        return s.record()

    random.seed(5)
    a = run(3)
    random.seed(6)
    assert run(3) == a


def test_illegal_int_actions_name_the_rule() -> None:
    """Illegal actions raise IllegalActionError naming the move, the rule and the position."""
    s = new()
    with pytest.raises(IllegalActionError, match=r"JC @d7 7D.*West's turn.*round 1"):
        s.apply_action(s.string_to_action("JC @d7 7D"))
    with pytest.raises(IllegalActionError, match="single card must be worth"):
        s2 = arrange(new(), courts={"JH": "c4"}, piles={"c5": ["9S"]}, hands={0: ["4D", "TC"]})
        s2.apply_action(s2.string_to_action("JH c4-c5 4D"))
    # The hand is not listed (the message may reach another seat), only that a card is not in it.
    with pytest.raises(IllegalActionError, match="a card named is not in it"):
        s.apply_action(s.string_to_action("JH @a4 8D"))


def test_determinize_never_needs_its_unconstrained_fallback() -> None:
    """docs/rules/pentyrch.md, What each player knows: worlds keep what play revealed; the real deal always
    qualifies, so the redraw loop must never run out (its fallback would weaken searches)."""
    from gamester.games.pentyrch import game as pentyrch_game

    before = pentyrch_game.FALLBACKS[0]
    for spec in ("pentyrch", "pentyrch(players=3)", "pentyrch(players=2)", "pentyrch(reveal_on_pass=false)"):
        g = gamester.load_game(spec)
        for seed in range(3):
            state = g.new_initial_state(seed=seed)
            rng = random.Random(seed)
            steps = 0
            while not state.is_terminal() and steps < 400:
                if steps % 7 == 0:
                    for p in range(g.num_players):
                        state.determinize(p, rng)
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                steps += 1
    assert pentyrch_game.FALLBACKS[0] == before


@pytest.mark.parametrize("spec", ["pentyrch", "pentyrch(players=2)", "pentyrch(players=3)"])
def test_a_cover_names_the_card_it_covers_and_whether_it_protects_it(spec: str) -> None:
    """docs/rules/pentyrch.md, Stacks: covering your own card protects it, an opponent's traps it. The
    cover event names the covered card (the one just under the mover, as everyone sees the stack) and
    ``protects``, true when that card's seat has the mover's owner (a player's other seat in the
    two-player game counts as his own), so no drawing works it out from the suits."""
    game = load_game(spec)
    suits = game.drawing()["seat_suits"]
    kinds: set[bool] = set()
    for seed in range(12):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            public = state.public_observation()
            for e in state.last_events():
                if e["type"] not in ("move", "enter"):
                    continue
                if e["how"] != "cover":
                    assert "covered" not in e and "protects" not in e
                    continue
                stack = public["board"][e["to"]]["stack"]
                assert stack[-1] == e["card"] and stack[-2] == e["covered"]
                owners = public["owners"]
                assert e["protects"] == (owners[suits.index(e["covered"][1])] == owners[e["seat"]])
                kinds.add(e["protects"])
    assert kinds == {True, False}
