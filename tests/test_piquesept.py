"""Piquesept: one test per ruling and option (docs/rules/piquesept.md), each from a hand-made deal.

Unless a test says otherwise the deal is ``HANDS`` with seat 0 dealing, so seat 1 gets the pack's first
card and seat 0 (holder of the 7S) is the soloist, seat 1 the drawer.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

import gamester
from gamester.core.cards import CODES
from gamester.core.errors import IllegalActionError, InvalidActionError, OptionError, RecordError
from gamester.games.piquesept import PiqueseptGame, PiqueseptOptions, PiqueseptState, worlds
from gamester.games.piquesept.game import codes
from gamester.games.piquesept.render import narrate
from tests.conftest import play_random
from tests.invariants_piquesept import check

HANDS = [
    "7S AS 9S AC KC QH 7H 8D",  # seat 0: the soloist
    "KS TS 8S AH KH TD 9D 7D",  # seat 1: the drawer (the soloist's left)
    "QS JS QC TC AD KD QD 8H",  # seat 2
    "JC 9C 8C 7C JH TH 9H JD",  # seat 3: no spade; highest rank J in three suits, highest points TH
]


def pack_from(hands: list[str], dealer: int = 0) -> list[str]:
    """The pack (top first) that deals ``hands``: pack[i] goes to seat (dealer + 1 + i) mod n."""
    split = [h.split() for h in hands]
    n = len(split)
    size = len(split[0])
    return [split[(dealer + 1 + i) % n][i // n] for i in range(n * size)]


def new(
    hands: list[str] | None = None, drawn: str | None = "AS", dealer: int = 0, **options: Any
) -> PiqueseptState:
    game = gamester.load_game("piquesept", first_dealer=dealer, **options)
    chance: list[Any] = [pack_from(hands or HANDS, dealer)]
    if drawn is not None:
        chance.append(drawn)
    st = game.new_initial_state(seed=0, chance=chance)
    assert isinstance(st, PiqueseptState)
    return st


def play(st: PiqueseptState, moves: str) -> PiqueseptState:
    for m in moves.split():
        st.apply_action(st.string_to_action(m))
        check(st)
    return st


def legal(st: PiqueseptState) -> list[str]:
    return [st.action_to_string(a) for a in st.legal_actions()]


FIRST_TRICK = "7S KS QS JC"


# -- The cards, seats and dealing -------------------------------------------------------------------


def test_deal_one_card_at_a_time_from_dealers_left() -> None:
    """docs/rules/piquesept.md, Seats and dealing: pack[i] goes to seat (dealer + 1 + i) mod 4, eight each."""
    st = new(dealer=2)
    for seat in range(4):
        assert set(st.observation(seat)["hand"]) == set(HANDS[seat].split())
    pack = pack_from(HANDS, 2)
    assert pack[0] in HANDS[3].split() and pack[1] in HANDS[0].split()


def test_pack_has_32_cards_and_130_points() -> None:
    """docs/rules/piquesept.md, The cards: the piquet pack, card points A 11, 7S 10, T 10, K 4, Q 3, J 2."""
    from gamester.games.piquesept.rules import PTS, TOTAL_POINTS

    g = gamester.load_game("piquesept")
    assert isinstance(g, PiqueseptGame)
    assert len(g.pack_ids) == 32 and sum(PTS) == TOTAL_POINTS == 130
    assert g.num_distinct_actions == 32
    st = g.new_initial_state(seed=1)
    assert [st.action_to_string(a) for a in range(8)] == ["7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC"]
    with pytest.raises(RecordError, match="chance\\[0\\]"):
        g.new_initial_state(chance=[[CODES[c] for c in range(52)]])


def test_notation_and_invalid_actions() -> None:
    """docs/rules/piquesept.md, Notation and actions: a card code; cards outside the piquet pack are no
    action."""
    st = new()
    assert st.string_to_action("10s") == st.string_to_action("TS") == st.string_to_action("T♠")
    for bad in ("2C", "6H", "xx", ""):
        with pytest.raises(InvalidActionError, match="Piquesept"):
            st.string_to_action(bad)
    with pytest.raises(InvalidActionError):
        st.action_to_string(32)


# -- The soloist and the opening trick ---------------------------------------------------------------


def test_holder_of_7s_is_soloist_and_must_lead_it() -> None:
    """docs/rules/piquesept.md, The soloist and the opening trick: the holder of 7S leads it, nothing else."""
    st = new(dealer=3)
    assert st.current_player() == 0 and st.observation(2)["soloist"] == 0
    assert legal(st) == ["7S"]
    before = st.record()
    with pytest.raises(IllegalActionError) as e:
        st.apply_action(st.string_to_action("AS"))
    msg = str(e.value)
    assert "AS" in msg and "must lead the 7S" in msg and "docs/rules/piquesept.md" in msg and "seat 0" in msg
    assert "trick 1" in msg
    assert st.record() == before


def test_defender_plays_highest_spade() -> None:
    """docs/rules/piquesept.md, The soloist and the opening trick: a defender with spades plays his highest
    (spade order 7 A K Q J T 9 8)."""
    st = play(new(), "7S")
    assert legal(st) == ["KS"]
    with pytest.raises(IllegalActionError, match="TS is not legal.*highest spade.*seat 1"):
        st.apply_action(st.string_to_action("TS"))
    play(st, "KS")
    assert legal(st) == ["QS"]


def test_no_spade_highest_rank_with_a_choice_between_suits() -> None:
    """docs/rules/piquesept.md, The soloist and the opening trick (first_trick_highest=rank): with no spade,
    the highest card by rank; equally high cards of different suits are a real choice."""
    st = play(new(), "7S KS QS")
    assert legal(st) == ["JC", "JH", "JD"] or sorted(legal(st)) == ["JC", "JD", "JH"]
    with pytest.raises(IllegalActionError, match="TH is not legal.*no spade.*highest card by rank"):
        st.apply_action(st.string_to_action("TH"))
    for choice in ("JC", "JD", "JH"):
        twin = play(st.clone(), choice)
        assert twin.current_player() == 1  # the trick is over: the drawer now gives


def test_first_trick_highest_by_points() -> None:
    """docs/rules/piquesept.md, The soloist and the opening trick (first_trick_highest=points): by card
    points, then rank, so the Ten outranks the Jacks."""
    st = play(new(first_trick_highest="points"), "7S KS QS")
    assert legal(st) == ["TH"]
    tie = [
        "7S AS 9S AC KC QH 7H 8D",
        "KS TS 8S AH KH TD 9D 7D",
        "QS JS QC TC AD KD QD 8H",
        "JC 9C 8C 7C JH JD 9H TH",
    ]
    assert legal(play(new(tie, first_trick_highest="points"), "7S KS QS")) == ["TH"]
    # Without a Ten or Ace, King before Queen as by rank.
    hands = [
        "7S AS 9S AC TC QH 7H 8D",
        "KS TS 8S AH TH TD 9D 7D",
        "QS JS QC KC AD KD QD 8H",
        "JC 9C 8C 7C JH KH 9H JD",
    ]
    assert sorted(legal(play(new(hands, first_trick_highest="points"), "7S KS QS"))) == ["KH"]


def test_soloist_wins_first_trick_then_random_draw() -> None:
    """docs/rules/piquesept.md, The draw and the trade: after the first trick (the soloist's) the defender on
    his left draws a card from the soloist's hand; the record holds the drawn card's code."""
    st = play(new(drawn="QH"), FIRST_TRICK)
    assert st.scores() == [10 + 4 + 3 + 2, 0, 0, 0]
    assert st.current_player() == 1 and st.observation(1)["phase"] == "give"
    assert "QH" in st.observation(1)["hand"] and "QH" not in st.observation(0)["hand"]
    assert len(st.observation(0)["hand"]) == 6 and len(st.observation(1)["hand"]) == 8
    rec = st.record()
    assert rec["chance"][1] == "QH" and rec["actions"] == FIRST_TRICK.split()


def test_draw_must_come_from_soloists_hand() -> None:
    """docs/rules/piquesept.md, The draw and the trade: the drawn card is one of the soloist's cards."""
    with pytest.raises(RecordError, match="chance\\[1\\]"):
        play(new(drawn="KH"), FIRST_TRICK)
    with pytest.raises(RecordError, match="chance\\[1\\] is missing"):
        play(new(drawn=None), FIRST_TRICK)


def test_draw_is_uniform_over_soloists_hand() -> None:
    """docs/rules/piquesept.md, The draw and the trade: uniform over the soloist's cards (from seeds)."""
    g = gamester.load_game("piquesept")
    counts: Counter[int] = Counter()
    for seed in range(1400):
        st = g.new_initial_state(seed=seed)
        assert isinstance(st, PiqueseptState)
        s = st.current_player()
        while st.trade_stage() == 0:
            st.apply_action(st.legal_actions()[0])
        rec = st.record()
        before = set(st.observation(s)["hand"]) | {rec["chance"][1]}
        assert rec["chance"][1] not in st.observation(s)["hand"] and len(before) == 7
        counts[sorted(before, key=st.string_to_action).index(rec["chance"][1])] += 1
    assert sorted(counts) == list(range(7))
    assert all(120 < c < 280 for c in counts.values()), counts


def test_give_any_card_including_the_drawn_one() -> None:
    """docs/rules/piquesept.md, The draw and the trade: the drawer gives any one card, maybe the one drawn."""
    st = play(new(), FIRST_TRICK)
    assert sorted(legal(st)) == sorted(["AS", "TS", "8S", "AH", "KH", "TD", "9D", "7D"])
    back = play(st.clone(), "AS")
    assert "AS" in back.observation(0)["hand"] and back.current_player() == 0
    other = play(st.clone(), "7D")
    assert "7D" in other.observation(0)["hand"] and "AS" in other.observation(1)["hand"]
    with pytest.raises(IllegalActionError, match="QS is not in seat 1's hand.*the trade"):
        st.apply_action(st.string_to_action("QS"))


# -- The remaining tricks ----------------------------------------------------------------------------


def test_defender_follows_suit_else_trumps() -> None:
    """docs/rules/piquesept.md, The remaining tricks: a defender follows the led suit; void, he must play
    a spade."""
    st = play(new(), FIRST_TRICK + " 7D AC")  # seat 1 (AS TS 8S AH KH TD 9D) has no club
    assert legal(st) == ["8S", "TS", "AS"]
    with pytest.raises(IllegalActionError) as e:
        st.apply_action(st.string_to_action("AH"))
    msg = str(e.value)
    assert "AH" in msg and "void in clubs must play a spade" in msg and "trick 2" in msg
    play(st, "8S")
    assert legal(st) == ["TC", "QC"]
    with pytest.raises(IllegalActionError, match="holding clubs must follow suit"):
        st.apply_action(st.string_to_action("AD"))
    play(st, "TC")
    assert legal(st) == ["7C", "8C", "9C"]
    play(st, "9C")
    # docs/rules/piquesept.md, The remaining tricks: the highest spade wins; the winner leads.
    assert st.current_player() == 1 and st.observation(0)["tricks"][-1]["winner"] == 1


def test_defender_void_of_suit_and_spades_plays_anything() -> None:
    """docs/rules/piquesept.md, The remaining tricks: no card of the led suit and no spade: any card."""
    st = play(new(drawn="8D"), FIRST_TRICK + " 9D QH AH 8H 9H")  # seat 1 gave 9D and wins with AH
    # Trick 3: seat 1 leads a spade; seat 2 must play his JS; seat 3, with no spade, anything.
    play(st, "TS")
    assert legal(st) == ["JS"]
    play(st, "JS")
    assert sorted(legal(st)) == sorted(["9C", "8C", "7C", "JH", "TH", "JD"])
    play(st, "JD")


def test_soloist_never_has_to_follow() -> None:
    """docs/rules/piquesept.md, The remaining tricks: the soloist may play any card at any time."""
    st = play(new(), FIRST_TRICK + " 7D 8D 9D AD JD")  # seat 2 wins with AD
    assert st.current_player() == 2
    play(st, "8H JH")
    assert st.current_player() == 0
    assert sorted(legal(st)) == sorted(["9S", "AC", "KC", "QH", "7H", "7D"])
    play(st, "AC")  # a club to a heart lead, holding hearts: allowed for the soloist
    play(st, "AH")
    assert st.observation(0)["tricks"][-1]["winner"] == 1  # AH beats the JH; the AC counts nothing


def test_spade_order_seven_tops_ace() -> None:
    """docs/rules/piquesept.md, The cards: spade order 7 A K Q J T 9 8; any spade beats the led suit."""
    from gamester.games.piquesept.rules import VAL

    g = gamester.load_game("piquesept")
    st = g.new_initial_state(seed=0)
    a = st.string_to_action
    order = [a(c) for c in ["7S", "AS", "KS", "QS", "JS", "TS", "9S", "8S"]]
    assert [VAL[0][x] for x in order] == sorted((VAL[0][x] for x in order), reverse=True)
    assert VAL[0][a("8S")] > VAL[0][a("AC")] > VAL[0][a("7C")] > VAL[0][a("AH")]


# -- Scoring -----------------------------------------------------------------------------------------


def _replay(chance: list[Any], actions: list[str], **options: Any) -> PiqueseptState:
    rec = {
        "format": "gamester-record",
        "version": 1,
        "game": "piquesept",
        "options": options,
        "seed": None,
        "chance": chance,
        "actions": actions,
    }
    st = gamester.replay(rec)
    assert isinstance(st, PiqueseptState)
    return st


DRAW_65 = (
    [
        [
            "KD",
            "9D",
            "JC",
            "KH",
            "AD",
            "8D",
            "TD",
            "AS",
            "AC",
            "7H",
            "7C",
            "KS",
            "AH",
            "QD",
            "9S",
            "7S",
            "9C",
            "TS",
            "JD",
            "KC",
            "QC",
            "8C",
            "QH",
            "7D",
            "TC",
            "9H",
            "JS",
            "JH",
            "TH",
            "8H",
            "QS",
            "8S",
        ],
        "KS",
    ],
    [
        "7S",
        "AD",
        "TS",
        "QS",
        "9C",
        "KH",
        "AH",
        "8H",
        "QH",
        "QC",
        "8C",
        "7C",
        "9C",
        "KS",
        "QD",
        "9S",
        "KC",
        "TC",
        "8D",
        "JC",
        "7D",
        "JD",
        "JH",
        "KD",
        "9D",
        "AC",
        "9H",
        "JS",
        "8S",
        "TD",
        "AS",
        "TH",
        "7H",
    ],
)
LOSS_64 = (
    [
        [
            "KC",
            "JH",
            "9C",
            "AD",
            "QS",
            "TC",
            "8H",
            "KH",
            "AH",
            "JD",
            "AC",
            "QD",
            "8D",
            "TD",
            "9D",
            "7H",
            "9S",
            "KD",
            "JC",
            "9H",
            "8S",
            "7C",
            "QH",
            "7S",
            "KS",
            "TH",
            "QC",
            "JS",
            "AS",
            "7D",
            "8C",
            "TS",
        ],
        "QD",
    ],
    [
        "7S",
        "AS",
        "KD",
        "AC",
        "QD",
        "JS",
        "8S",
        "TD",
        "QH",
        "AD",
        "8D",
        "JD",
        "9D",
        "7H",
        "AH",
        "JH",
        "8H",
        "KS",
        "TC",
        "8C",
        "TS",
        "QS",
        "TH",
        "JC",
        "QD",
        "9S",
        "7D",
        "9C",
        "KH",
        "KC",
        "7C",
        "QC",
        "9H",
    ],
)
WIN_66 = (
    [
        [
            "QC",
            "9D",
            "9S",
            "JD",
            "8D",
            "KC",
            "TH",
            "7C",
            "AS",
            "7S",
            "TC",
            "QH",
            "9C",
            "KD",
            "KH",
            "AH",
            "8H",
            "TS",
            "AD",
            "JS",
            "9H",
            "KS",
            "QD",
            "8S",
            "JH",
            "TD",
            "JC",
            "QS",
            "7D",
            "8C",
            "7H",
            "AC",
        ],
        "TD",
    ],
    [
        "7S",
        "9S",
        "QS",
        "AS",
        "TC",
        "KD",
        "TD",
        "JD",
        "8D",
        "KC",
        "JC",
        "AC",
        "9C",
        "8S",
        "8H",
        "TC",
        "TH",
        "JS",
        "QC",
        "8C",
        "7H",
        "7C",
        "9H",
        "KS",
        "KH",
        "9D",
        "AD",
        "AH",
        "7D",
        "QD",
        "QH",
        "JH",
        "TS",
    ],
)


def test_65_65_is_a_draw() -> None:
    """docs/rules/piquesept.md, Scoring: 65-65 is a draw, returns 0 to all."""
    st = _replay(*DRAW_65)
    assert st.is_terminal() and gamester.summary(st)["card_points"] == [65, 65]
    assert st.returns() == [0.0, 0.0, 0.0, 0.0] and gamester.summary(st)["winners"] == []


def test_66_wins_for_the_soloist() -> None:
    """docs/rules/piquesept.md, Scoring: 66 wins; soloist +3, each defender -1."""
    st = _replay(*WIN_66)
    assert gamester.summary(st)["card_points"] == [66, 64]
    s = gamester.summary(st)["soloist"]
    assert st.returns() == [3.0 if p == s else -1.0 for p in range(4)]
    assert sum(st.scores()) == 130 and st.scores()[s] == 66


def test_64_loses_for_the_soloist() -> None:
    """docs/rules/piquesept.md, Scoring: the defenders' 66 wins; soloist -3, each defender +1."""
    st = _replay(*LOSS_64)
    s = gamester.summary(st)["soloist"]
    assert gamester.summary(st)["card_points"] == [64, 66]
    assert st.returns() == [-3.0 if p == s else 1.0 for p in range(4)]
    assert sorted(gamester.summary(st)["winners"]) == [p for p in range(4) if p != s]


def test_returns_zero_until_over_and_scores_are_own_tricks() -> None:
    """docs/rules/piquesept.md, Scoring: scores are each seat's own trick points."""
    st = play(new(), FIRST_TRICK + " 7D AC 8S TC 9C")
    assert st.returns() == [0.0] * 4
    assert st.scores() == [19, 11 + 10, 0, 0]
    assert st.observation(2)["side_points"] == [19, 21]


# -- Three players -----------------------------------------------------------------------------------


def test_three_player_pack_removes_two_eights() -> None:
    """docs/rules/piquesept.md, Seats and dealing (players=3): 8H and 8D out, 30 cards, ten each, mod 3."""
    g = gamester.load_game("piquesept(players=3)")
    assert g.num_players == 3 and g == gamester.load_game("piquesept", ruleset="three_hand")
    assert isinstance(g, PiqueseptGame) and len(g.pack_ids) == 30
    st = g.new_initial_state(seed=4)
    pack = st.record()["chance"][0]
    assert len(pack) == 30 and "8H" not in pack and "8D" not in pack
    assert all(len(st.observation(p)["hand"]) == 10 for p in range(3))
    with pytest.raises(RecordError, match="not in this pack \\[8D 8H\\]"):
        g.new_initial_state(chance=[[CODES[c] for c in g.pack_ids] + ["8H", "8D"]])


def test_three_player_hand_made_deal() -> None:
    """docs/rules/piquesept.md, Seats and dealing and Scoring (players=3, removed_eights=8C 8H): soloist +2,
    defenders -1 each; the drawer is the soloist's left."""
    hands = [
        "QS JS QC TC AD KD QD 8D 9H 7H",
        "7S AS 9S AC KC QH 7D 9D TD AH",
        "KS TS 8S JC 9C 7C JH TH KH JD",
    ]
    st = new(hands, drawn="AC", dealer=2, players=3, removed_eights="8C 8H")
    assert st.current_player() == 1 and st.observation(0)["drawer"] == 2
    play(st, "7S")
    assert legal(st) == ["KS"]
    play(st, "KS QS")
    assert st.current_player() == 2 and "AC" in st.observation(2)["hand"]
    play_random(st, random.Random(1))
    side = gamester.summary(st)["card_points"]
    r = st.returns()
    assert sum(side) == 130 and sum(r) == 0
    assert r[1] == (2.0 if side[0] >= 66 else -2.0 if side[0] < 65 else 0.0)


def test_removed_eights_option_forms_and_errors() -> None:
    """docs/rules/piquesept.md, Seats and dealing (removed_eights): two codes with a comma or a space, or a
    JSON list; two different non-spade Eights."""
    a = gamester.load_game("piquesept", players=3, removed_eights="8D,8H")
    b = gamester.load_game("piquesept", players=3, removed_eights=["8H", "8D"])
    c = gamester.load_game("piquesept", players=3, removed_eights='["8d", "8h"]')
    assert a == b == c == gamester.load_game("piquesept(players=3)")
    assert a.options.removed_eights == ("8H", "8D")
    d = gamester.load_game("piquesept(players=3,removed_eights=8C 8D)")
    assert gamester.load_game(d.spec()) == d
    for bad in ("8S,8H", "8H", "8H,8H", "7H,8D", "8H,8D,8C", "nonsense", "[1, 2"):
        with pytest.raises(OptionError, match="removed_eights"):
            gamester.load_game("piquesept", players=3, removed_eights=bad)


def test_option_errors() -> None:
    """docs/rules/piquesept.md: every option exists with its default; bad values are refused clearly."""
    o = PiqueseptOptions()
    assert (o.players, o.first_dealer, o.removed_eights, o.first_trick_highest, o.trade_visible, o.deals) == (
        4,
        0,
        ("8H", "8D"),
        "rank",
        False,
        1,
    )
    for spec, word in (
        ("piquesept(players=5)", "players"),
        ("piquesept(deals=0)", "deals"),
        ("piquesept(first_trick_highest=suit)", "first_trick_highest"),
        ("piquesept(trade_visible=maybe)", "trade_visible"),
        ("piquesept(players=3,first_dealer=3)", "first_dealer"),
        ("piquesept(colour=red)", "valid options"),
        ("piquesept(ruleset=cotton)", "valid rule sets"),
    ):
        with pytest.raises(OptionError, match=word):
            gamester.load_game(spec)


# -- Matches -----------------------------------------------------------------------------------------


def test_match_of_deals_rotates_dealer_and_sums() -> None:
    """docs/rules/piquesept.md, Scoring (deals): N deals, the dealer moving clockwise; scores
    and returns summed; each deal's chance is its pack then the drawn card."""
    g = gamester.load_game("piquesept(deals=3,first_dealer=2)")
    st = g.new_initial_state(seed=8)
    assert isinstance(st, PiqueseptState)
    dealers = []
    rng = random.Random(2)
    while not st.is_terminal():
        if st.observation(0)["dealer"] not in dealers[-1:]:
            dealers.append(st.observation(0)["dealer"])
        st.apply_action(st.legal_actions()[rng.randrange(len(st.legal_actions()))])
        check(st)
    assert dealers == [2, 3, 0]
    rec = st.record()
    assert [type(e).__name__ for e in rec["chance"]] == ["list", "str"] * 3
    results = gamester.summary(st)["deal_results"]
    assert len(results) == 3 and sum(st.scores()) == 390
    assert st.returns() == [float(sum(r["returns"][p] for r in results)) for p in range(4)]
    assert gamester.replay(json.loads(json.dumps(rec))).record() == rec
    # The terminal's last words break the match down by deal.
    over = st.last_events()[-1]
    assert over["type"] == "game_over" and over["deals"] == results
    text = narrate(over, 1)
    assert text is not None and [line.split(":")[0].strip() for line in text.splitlines()[1:]] == [
        "deal 1",
        "deal 2",
        "deal 3",
    ]
    assert f"your result {results[0]['returns'][1]:+d}" in text.splitlines()[1]


def test_next_pack_is_drawn_when_a_deal_ends() -> None:
    """docs/records.md: a record whose last action ends a deal already carries the next pack."""
    st = _replay([*DRAW_65[0], pack_from(HANDS, 1)], DRAW_65[1], deals=2)
    assert not st.is_terminal() and st.observation(3)["dealer"] == 1
    assert st.current_player() == 0 and legal(st) == ["7S"]
    assert st.observation(0)["past_deals"] == [
        {"dealer": 0, "soloist": 0, "card_points": [65, 65], "returns": [0, 0, 0, 0]}
    ]


# -- What each player knows --------------------------------------------------------------------------


def test_trade_seen_by_drawer_and_soloist_only() -> None:
    """docs/rules/piquesept.md, The draw and the trade (trade_visible=false): the drawer and the soloist see
    the drawn and the given card; the other defenders see neither."""
    st = play(new(), FIRST_TRICK + " 7D")
    for seat in (0, 1):
        assert st.observation(seat)["trade"] == {"stage": "given", "drawn": "AS", "given": "7D"}
    for seat in (2, 3):
        assert st.observation(seat)["trade"] == {"stage": "given", "drawn": None, "given": None}
    vis = play(new(trade_visible=True), FIRST_TRICK + " 7D")
    for seat in range(4):
        assert vis.observation(seat)["trade"] == {"stage": "given", "drawn": "AS", "given": "7D"}


def test_a_hidden_give_is_still_checked_as_an_action() -> None:
    """action_seen_by names a give "a hidden card" to the seats outside the trade, but only for a real
    action: anything else is refused the same way for every viewer (it used to read "a hidden card")."""
    st = play(new(), FIRST_TRICK)
    give = st.string_to_action("7D")
    assert st.action_seen_by(give, 2) == st.action_seen_by(give, None) == "a hidden card"
    assert st.action_seen_by(give, 1) == "7D"
    for bad in (32, -1, "7D", None, 1.5, True):
        for viewer in (1, 2, None):
            with pytest.raises(InvalidActionError, match="not a Piquesept action"):
                st.action_seen_by(bad, viewer)
    for bad in (b"7D", None, 7, ["7D"]):
        with pytest.raises(InvalidActionError, match="not a Piquesept action"):
            st.string_to_action(bad)


def test_observation_hides_other_hands() -> None:
    """docs/rules/piquesept.md, What each player knows: own hand and played cards only."""
    st = play(new(), FIRST_TRICK + " 7D AC")

    def card_strings(x: Any) -> set[str]:
        if isinstance(x, str):
            return {x} if x in CODES else set()
        if isinstance(x, dict):
            return set().union(*(card_strings(v) for v in x.values())) if x else set()
        if isinstance(x, list):
            return set().union(*(card_strings(v) for v in x)) if x else set()
        return set()

    played = set((FIRST_TRICK + " AC").split())
    for p in range(4):
        obs = st.observation(p)
        seen = card_strings(obs)
        trade = {"AS", "7D"} if p in (0, 1) else set()
        assert seen == played | set(obs["hand"]) | trade
        json.dumps(obs)


def test_events_respect_trade_visibility() -> None:
    """docs/rules/piquesept.md, The draw and the trade: narration of the draw and the give names the card only
    to the drawer and the soloist (everyone with trade_visible)."""
    st = play(new(), "7S KS QS")
    st.apply_action(st.string_to_action("JC"))
    ev = st.last_events()
    assert ev[0]["type"] == "trick" and ev[0]["winner"] == 0 and ev[0]["points"] == 19
    draws = [e for e in ev if e["type"] == "draw"]
    assert {"card": "AS", "seats": [1, 0]}.items() <= draws[0].items()
    assert draws[1]["card"] is None and draws[1]["seats"] == [2, 3]
    st.apply_action(st.string_to_action("7D"))
    gives = st.last_events()
    assert [e["card"] for e in gives] == ["7D", None]
    st.apply_action(st.string_to_action("AC"))
    assert st.last_events() == []
    vis = play(new(trade_visible=True), "7S KS QS JC")
    assert [e for e in vis.last_events() if e["type"] == "draw"] == [
        {"type": "draw", "drawer": 1, "soloist": 0, "card": "AS"}
    ]
    start = new()
    assert [e["type"] for e in start.last_events()] == ["deal", "soloist"]


def test_observation_tensor_and_mask() -> None:
    """The tensor has the game's fixed size and encodes the hand; the mask matches legal actions."""
    for spec in ("piquesept", "piquesept(players=3)"):
        g = gamester.load_game(spec)
        st = g.new_initial_state(seed=3)
        for _ in range(7):
            t = st.observation_tensor(1)
            assert len(t) == g.observation_tensor_size
            hand = [st.string_to_action(c) for c in st.observation(1)["hand"]]
            assert [i for i in range(32) if t[i]] == sorted(hand)
            assert [i for i, m in enumerate(st.legal_actions_mask()) if m] == st.legal_actions()
            st.apply_action(st.legal_actions()[-1])


# -- determinize -------------------------------------------------------------------------------------


def _worlds(st: PiqueseptState, seat: int, k: int = 40) -> list[PiqueseptState]:
    out = []
    before = worlds.FALLBACKS[0]
    for i in range(k):
        w = st.determinize(seat, random.Random(i))
        assert isinstance(w, PiqueseptState)
        assert w.observation(seat) == st.observation(seat)
        assert w.observation_tensor(seat) == st.observation_tensor(seat)
        assert gamester.replay(w.record()).record() == w.record()
        check(w)
        out.append(w)
    assert worlds.FALLBACKS[0] == before
    return out


def _hand(w: PiqueseptState, seat: int) -> set[str]:
    return set(codes(w._hands[seat]))


def test_determinize_first_trick_inference() -> None:
    """docs/rules/piquesept.md, The soloist and the opening trick: a defender who played a spade held no
    higher one; one who played a Jack held no spade and nothing above a Jack."""
    st = play(new(), "7S KS QS JC")
    ws = _worlds(st, 2)
    for w in ws:
        three = _hand(w, 3)
        assert not any(c[1] == "S" or c[0] in "AKQ" for c in three)
        # Seat 1 held no AS before the draw: he may hold it now only as the drawn card.
        one = _hand(w, 1)
        assert "AS" not in one or w.observation(1)["trade"]["drawn"] == "AS"
    assert len({frozenset(_hand(w, 3)) for w in ws}) > 1  # really random


def test_determinize_voids_from_later_tricks() -> None:
    """docs/rules/piquesept.md, The remaining tricks: a defender who did not follow is void in the led
    suit; who also did not trump is void in spades."""
    st = play(new(), FIRST_TRICK + " 7D AC 8S TC 9C")  # seat 1 showed no clubs
    st2 = play(new(), FIRST_TRICK + " 9D QH AH 8H JH AS JS 9C")
    for seat in (2, 3):
        for w in _worlds(st, seat):
            assert not any(c.endswith("C") for c in _hand(w, 1))
    for w in _worlds(st2, 0):  # seat 3 played no spade to a spade lead
        assert not any(c.endswith("S") for c in _hand(w, 3))


def test_determinize_trade_knowledge() -> None:
    """docs/rules/piquesept.md, The draw and the trade: the soloist's and the drawer's worlds keep the true
    trade; other seats' worlds vary it unless trade_visible."""
    st = play(new(), FIRST_TRICK + " 7D AC")
    for seat in (0, 1):
        for w in _worlds(st, seat, 15):
            assert (w._x, w._y) == (st._x, st._y)
            assert "7D" in _hand(w, 0)
            if seat == 0:
                assert "AS" in _hand(w, 1)  # the soloist knows where his Ace went
    trades = {(w._x, w._y) for w in _worlds(st, 2)}
    assert len(trades) > 3
    vis = play(new(trade_visible=True), FIRST_TRICK + " 7D AC")
    assert {(w._x, w._y) for w in _worlds(vis, 2, 15)} == {(vis._x, vis._y)}
    # During the give the drawn card is known to the drawer and the soloist only.
    give = play(new(), FIRST_TRICK)
    assert {w._x for w in _worlds(give, 3)} != {give._x}
    assert {w._x for w in _worlds(give, 0, 10)} == {give._x}


def test_determinize_everywhere_in_random_games() -> None:
    """Every world agrees with the seat's observation and replays, at every step, for every seat."""
    for spec in ("piquesept", "piquesept(players=3,deals=2)", "piquesept(first_trick_highest=points)"):
        g = gamester.load_game(spec)
        for seed in range(6):
            st = g.new_initial_state(seed=seed)
            assert isinstance(st, PiqueseptState)
            rng = random.Random(seed)
            while not st.is_terminal():
                for p in range(g.num_players):
                    w = st.determinize(p, rng)
                    assert w.observation(p) == st.observation(p)
                    if p == st.current_player():
                        assert w.legal_actions() == st.legal_actions()
                la = st.legal_actions()
                st.apply_action(la[rng.randrange(len(la))])
    assert worlds.FALLBACKS[0] == 0


# -- records and determinism -------------------------------------------------------------------------


def test_record_round_trip_and_summary() -> None:
    """docs/records.md; replay --json adds soloist and card_points (soloist's side, defenders')."""
    st = play(new(), FIRST_TRICK + " 7D AC 8S")
    rec = json.loads(json.dumps(st.record()))
    assert rec["chance"] == [pack_from(HANDS), "AS"]
    again = gamester.replay(rec)
    assert again.record() == rec
    summ = gamester.summary(again)
    assert summ["soloist"] == 0 and summ["card_points"] == [19, 0] and summ["current_player"] == 2


def test_same_seed_same_game_whatever_the_global_rng() -> None:
    """A state's own generator decides; the global one does not."""

    def run() -> dict[str, Any]:
        st = gamester.load_game("piquesept(deals=2)").new_initial_state(seed=42)
        play_random(st, random.Random(7))
        return st.record()

    random.seed(1)
    first = run()
    random.seed(99)
    random.random()
    assert run() == first
    rec = first
    del rec["chance"]
    assert gamester.replay(rec).record() == run()


def test_first_trick_inference_matches_the_rule() -> None:
    """docs/rules/piquesept.md, The soloist and the opening trick: the engine's forced cards are those of
    ``forced_first_mask``, and whatever a defender may play there, his dealt hand fits the inference
    ``first_trick_allowed`` that determinize relies on."""
    from gamester.games.piquesept.game import mask_to_actions
    from gamester.games.piquesept.rules import (
        FIRST_ORDER,
        SEVEN_S,
        TOP_RANK,
        first_trick_allowed,
        forced_first_mask,
    )

    for how in ("rank", "points"):
        g = gamester.load_game("piquesept", first_trick_highest=how)
        for seed in range(300):
            st = g.new_initial_state(seed=seed)
            assert isinstance(st, PiqueseptState)
            for q in range(4):
                hand = st._dealt[q]
                if q == st._soloist:
                    assert st._forced[q] == 1 << SEVEN_S
                    continue
                assert st._forced[q] == forced_first_mask(hand, TOP_RANK[how]) != 0
                for c in mask_to_actions(st._forced[q]):
                    assert hand & ~first_trick_allowed(c, FIRST_ORDER[how]) == 0
