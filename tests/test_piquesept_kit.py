"""Piquesept's kit: the rule primitives of ``games/piquesept/rules.py`` (one test per ruling, from
hand-made cards, citing docs/rules/piquesept.md), the engine and the solver using them, the deal view
of a sampled world, and the heuristic's two extractors (observation, world) agreeing everywhere.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import gamester
from gamester.core.errors import IllegalActionError
from gamester.core.kit import Kit, View
from gamester.core.rng import derive
from gamester.games.piquesept import heuristic, rules
from gamester.games.piquesept.game import CODE, FIRST, GIVE, PLAY, PiqueseptState
from gamester.games.piquesept.kit import PiqueseptKit
from gamester.games.piquesept.solver import Solver, deal_return

A = {c: a for a, c in enumerate(CODE)}  # card code -> dense action


def cards(text: str) -> list[int]:
    return [A[c] for c in text.split()]


def mask(text: str) -> int:
    m = 0
    for a in cards(text):
        m |= 1 << a
    return m


def codes(m: int) -> str:
    return " ".join(CODE[a] for a in range(32) if m >> a & 1)


def random_positions(count: int, seed: int, **options: object) -> list[PiqueseptState]:
    """States reached by random play, one per step of several games (terminal ones left out)."""
    game = gamester.load_game("piquesept", **options)
    rng = random.Random(seed)
    out: list[PiqueseptState] = []
    g = 0
    while len(out) < count:
        st = game.new_initial_state(seed=derive(seed, g))
        assert isinstance(st, PiqueseptState)
        g += 1
        while not st.is_terminal() and len(out) < count:
            out.append(st.clone())
            la = st.legal_actions()
            st.apply_action(la[rng.randrange(len(la))])
    return out


# -- The cards ---------------------------------------------------------------------------------------
def test_card_points() -> None:
    """docs/rules/piquesept.md, The cards: Ace 11, 7S 10, Ten 10, King 4, Queen 3, Jack 2, the rest 0;
    130 in the pack, so 66 is a majority."""
    assert [rules.card_points(a) for a in cards("AH 7S TC KD QS JH 9S 8C 7H")] == [
        11,
        10,
        10,
        4,
        3,
        2,
        0,
        0,
        0,
    ]
    assert rules.trick_points(cards("AH 7S TC KD")) == 35
    assert rules.TOTAL_POINTS == 130 and rules.WIN_POINTS == 66
    assert tuple(rules.card_points(a) for a in range(32)) == rules.PTS


def test_trick_winner_highest_spade_else_highest_of_led_suit() -> None:
    """docs/rules/piquesept.md, The cards and The remaining tricks: spades rank 7 A K Q J T 9 8 and beat
    every other card; without a spade the highest card of the suit led wins; a discard never wins."""
    assert rules.winning_index(cards("9H AH KC TH")) == 1  # the AH; the KC is a discard
    assert rules.winning_index(cards("AH 8S KH 7S")) == 3  # the 7S tops the 8S
    assert rules.winning_index(cards("9D AS 7S KS")) == 2
    assert rules.winning_index(cards("8C AD AH")) == 0  # three players: nothing followed, the led 8C wins
    assert rules.winning_index(cards("KS AS")) == 1  # spades led: the Ace over the King
    spade_order = cards("7S AS KS QS JS TS 9S 8S")
    for led in range(4):
        vals = [rules.VAL[led][a] for a in spade_order]
        assert vals == sorted(vals, reverse=True) and min(vals) >= 16
    assert rules.VAL[2][A["AH"]] > rules.VAL[2][A["7H"]] >= 0 > rules.VAL[2][A["AC"]]
    assert rules.card_value(A["7S"], 0) == 24 and rules.card_value(A["8S"], 2) == 17
    assert rules.card_value(A["KD"], 1) == 6 and rules.card_value(A["KD"], 0) == -1
    assert rules.beats_all(A["AH"], 2, mask("KH QH AC 7D"))
    assert not rules.beats_all(A["AH"], 2, mask("KH 8S"))  # any spade overtakes


# -- The soloist and the opening trick --------------------------------------------------------------
def test_soloist_and_drawer() -> None:
    """docs/rules/piquesept.md, The soloist and the opening trick: the holder of the 7S is the soloist;
    The draw and the trade: the defender on his left draws."""
    hands = [mask("AS KS"), mask("AH 9D"), mask("7S 8C"), mask("QD JD")]
    assert rules.soloist_of(hands) == 2
    assert rules.drawer_of(2, 4) == 3 and rules.drawer_of(3, 4) == 0 and rules.drawer_of(2, 3) == 0


def test_forced_first_trick() -> None:
    """docs/rules/piquesept.md, The soloist and the opening trick: the soloist's 7S; each defender his
    highest spade; with no spade his highest card by rank (or by points), a choice between suits."""
    top_rank, top_points = rules.TOP_RANK["rank"], rules.TOP_RANK["points"]
    assert codes(rules.forced_first_mask(mask("7S AS 9S AC"), top_rank)) == "7S"
    assert codes(rules.forced_first_mask(mask("KS 8S AH"), top_rank)) == "KS"
    assert codes(rules.forced_first_mask(mask("TS AS 8S"), top_rank)) == "AS"
    deal = [mask("7S AS 9S AC"), mask("KS 8S AH"), mask("JC 9C JH TH JD"), mask("QD")]
    assert [codes(m) for m in rules.forced_first_masks(deal, top_rank)] == ["7S", "KS", "JC JD JH", "QD"]
    # The 7S beats every card whatever was led, so the soloist, who leads it, takes the first trick.
    assert rules.SEVEN_S_UNBEATEN and rules.winning_index(cards("7S AS TH 8S")) == 0
    no_spade = mask("JC 9C JH TH JD")
    assert codes(rules.forced_first_mask(no_spade, top_rank)) == "JC JD JH"
    assert codes(rules.forced_first_mask(no_spade, top_points)) == "TH"  # A T K Q J 9 8 7
    # What the play shows: a defender who played the KS held no AS (nor the 7S); one who played a
    # Jack without spades held no spade and nothing above a Jack by that order.
    assert not rules.first_trick_allowed(A["KS"], rules.FIRST_ORDER["rank"]) & mask("AS 7S")
    assert rules.first_trick_allowed(A["KS"], rules.FIRST_ORDER["rank"]) & mask("QS AH") == mask("QS AH")
    jack = rules.first_trick_allowed(A["JH"], rules.FIRST_ORDER["rank"])
    assert jack & mask("JC TD 7H") == mask("JC TD 7H") and not jack & mask("QH AC 8S")
    jack_pts = rules.first_trick_allowed(A["JH"], rules.FIRST_ORDER["points"])
    assert not jack_pts & mask("TC") and jack_pts & mask("9C")


# -- The remaining tricks ----------------------------------------------------------------------------
def test_follow_rule() -> None:
    """docs/rules/piquesept.md, The remaining tricks: a defender follows suit, else plays a spade,
    else anything; the soloist and the leader play anything."""
    hand = mask("8S TS AH KH TD")
    clubs, hearts, diamonds = 0, 2, 1
    assert codes(rules.playable(hand, hearts, False)) == "KH AH"
    assert codes(rules.playable(hand, clubs, False)) == "8S TS"
    assert rules.playable(mask("AH KH TD"), clubs, False) == mask("AH KH TD")
    assert rules.playable(hand, clubs, True) == hand  # the soloist
    assert rules.playable(hand, -1, False) == hand  # leading
    assert codes(rules.playable(hand, diamonds, False)) == "TD"
    # What a card shows: off suit, void in it; off suit and no spade, no spade either.
    assert rules.shown_void(A["KH"], hearts) == 0
    assert rules.shown_void(A["8S"], clubs) == rules.SUIT_MASK[clubs]
    assert rules.shown_void(A["AH"], clubs) == rules.SUIT_MASK[clubs] | rules.SPADES


def test_shown_void_is_what_playable_allows() -> None:
    """Every card a defender may play to a led suit is consistent with his hand under ``shown_void``:
    the hand that played it holds nothing ``shown_void`` excludes."""
    rng = random.Random(3)
    for _ in range(3000):
        hand = sum(1 << a for a in rng.sample(range(32), rng.randrange(1, 9)))
        led = rng.randrange(4)
        legal = rules.playable(hand, led, False)
        for a in range(32):
            if legal >> a & 1:
                assert not (hand & ~(1 << a)) & rules.shown_void(a, led)


# -- Scoring -----------------------------------------------------------------------------------------
def test_deal_scoring() -> None:
    """docs/rules/piquesept.md, Scoring: 66 wins for the soloist, 65-65 is a draw, 64 loses; returns
    +-3 / -+1 with four players, +-2 / -+1 with three, zero-sum."""
    assert [rules.deal_sign(p) for p in (130, 66, 65, 64, 0)] == [1, 1, 0, -1, -1]
    assert rules.RESULT_STEPS == (66, 65)
    assert rules.deal_returns(1, 66, 4) == (-1, 3, -1, -1)
    assert rules.deal_returns(0, 65, 4) == (0, 0, 0, 0)
    assert rules.deal_returns(2, 64, 3) == (1, 1, -2)
    for p in range(131):
        assert sum(rules.deal_returns(0, p, 4)) == 0 == sum(rules.deal_returns(1, p, 3))
        for n in (3, 4):
            for s in range(n):
                assert rules.deal_returns(s, p, n) == tuple(rules.seat_return(p, q == s, n) for q in range(n))
    assert deal_return(70, True, 4) == pytest.approx(3.70)
    assert deal_return(70, False, 4) == pytest.approx(-1 + 0.60)


# -- The engine uses them ----------------------------------------------------------------------------
@pytest.mark.parametrize("options", [{}, {"players": 3}, {"first_trick_highest": "points"}])
def test_engine_legal_cards_are_the_rules(options: dict[str, object]) -> None:
    """At every step of random games the engine's legal cards are ``forced_first_mask`` in the first
    trick, ``playable`` later, any card of the drawer's in the trade; tricks go to ``winning_index``
    and score ``trick_points``; deals score ``deal_returns``."""
    game = gamester.load_game("piquesept", **options)
    top = rules.TOP_RANK[str(options.get("first_trick_highest", "rank"))]
    rng = random.Random(11)
    steps = 0
    for seed in range(60):
        st = game.new_initial_state(seed=seed)
        assert isinstance(st, PiqueseptState)
        while not st.is_terminal():
            v = st.world_view()
            me = v.current
            hand = v.hands[me]
            if v.phase == FIRST:
                expected = rules.forced_first_mask(hand, top)
            elif v.phase == PLAY:
                expected = rules.playable(hand, v.led, me == v.soloist)
            else:
                assert v.phase == GIVE and me == v.drawer == rules.drawer_of(v.soloist, v.players)
                expected = hand
            assert sum(1 << a for a in st.legal_actions()) == expected
            if v.phase == FIRST and not v.trick:
                assert rules.soloist_of(v.hands) == v.soloist
            la = st.legal_actions()
            st.apply_action(la[rng.randrange(len(la))])
            steps += 1
            for t in st.observation(0)["tricks"]:
                tc = cards(" ".join(t["cards"]))
                assert t["winner"] == (t["leader"] + rules.winning_index(tc)) % v.players
                assert t["points"] == rules.trick_points(tc)
        past = st.observation(0)["past_deals"][-1]
        assert tuple(past["returns"]) == rules.deal_returns(
            past["soloist"], past["card_points"][0], v.players
        )
    assert steps > 1500


# -- The deal view of a world ------------------------------------------------------------------------
def test_world_view_matches_the_observations() -> None:
    """The kit's typed view says what the observations say (and every hand)."""
    game = gamester.load_game("piquesept", deals=2)
    kit = game.kit()
    assert isinstance(kit, PiqueseptKit)
    last = -1
    for st in random_positions(400, seed=5, deals=2):
        v = kit.world_view(st)
        obs = st.observation(v.current)
        assert v.players == obs["players"] == len(v.hands)
        assert ("first_trick", "play", "give", "over")[v.phase] == obs["phase"]
        assert (v.deal, v.soloist, v.drawer, v.leader) == (
            obs["deal"],
            obs["soloist"],
            obs["drawer"],
            obs["leader"],
        )
        assert codes(v.hands[v.current]).split() == sorted(obs["hand"], key=A.__getitem__)
        assert [CODE[a] for a in v.trick] == obs["trick"]
        assert list(v.taken) == obs["card_points"]
        assert v.tricks_played == len(obs["tricks"])
        if v.trick:
            assert v.led == v.trick[0] >> 3
            i = rules.winning_index(v.trick)
            assert v.best == rules.VAL[v.led][v.trick[i]] and v.winner == (v.leader + i) % v.players
        else:
            assert v.led == v.best == -1
        if obs["past_deals"]:
            assert v.last_deal_points == obs["past_deals"][-1]["card_points"][0]
            last = v.last_deal_points
        else:
            assert v.last_deal_points == -1
        with pytest.raises(AttributeError):
            v.soloist = 0  # type: ignore[misc]
    assert last >= 0


# -- The heuristic: one decision, two extractors -----------------------------------------------------
@pytest.mark.parametrize("options", [{}, {"players": 3}, {"trade_visible": True}, {"deals": 2}])
def test_heuristic_extractors_agree(options: dict[str, object]) -> None:
    """For the seat to move, the record built from its observation and the one built from the world
    are equal, so ``kit.playout`` chooses exactly what the heuristic chooses from that seat's view
    (the same generator calls too: the two generators stay in step)."""
    game = gamester.load_game("piquesept", **options)
    kit = game.kit()
    positions = random_positions(1500, seed=7, **options)
    checked = 0
    for i, st in enumerate(positions):
        p = st.current_player()
        view = View(st, p)
        obs = st.observation(p)
        assert heuristic.seen_from_observation(view, obs) == heuristic.seen_from_world(st)
        legal = st.legal_actions()
        if len(legal) < 2:
            continue
        r1, r2 = random.Random(i), random.Random(i)
        fast = kit.playout(st, legal, r1)
        slow = Kit.playout(kit, st, legal, r2)  # the kit protocol's default: View + observation
        assert fast == slow == kit.heuristic(view, obs, legal, random.Random(i))
        assert r1.getstate() == r2.getstate()
        checked += 1
    assert checked > 500


def test_seen_record_by_hand() -> None:
    """The soloist counts the traded cards as seen; a defender only his hand and the cards played."""
    st = gamester.load_game("piquesept").new_initial_state(seed=3)
    assert isinstance(st, PiqueseptState)
    while st.world_view().phase != PLAY:
        st.apply_action(st.legal_actions()[0])
    v = st.world_view()
    solo = heuristic.seen_from_world(st)
    assert solo.seat == v.soloist and solo.hand == v.hands[v.soloist]
    played = rules.ALL_CARDS & ~(v.hands[0] | v.hands[1] | v.hands[2] | v.hands[3])
    assert played.bit_count() == 4  # the first trick
    assert solo.unseen == rules.ALL_CARDS & ~solo.hand & ~played & ~(1 << v.drawn) & ~(1 << v.given)
    lead = st.legal_actions()[0]
    st.apply_action(lead)
    d = heuristic.seen_from_world(st)
    assert d.seat == v.drawer and d.trick == (lead,)
    # The drawer does not count the card he gave as seen (nor anything in another hand).
    assert d.unseen == rules.ALL_CARDS & ~d.hand & ~played & ~(1 << lead)


# -- The solver --------------------------------------------------------------------------------------
def test_piquesept_solver_is_exact() -> None:
    """The soloist's remaining points from the last tricks, solved and brute-forced (docs/rules/
    piquesept.md, The remaining tricks; Scoring)."""

    def brute(s: PiqueseptState) -> int:
        v = s.world_view()
        if v.phase != PLAY:
            return v.last_deal_points
        vals = []
        for a in s.legal_actions():
            c = s.clone()
            c.apply_action(a)
            vals.append(brute(c))
        return max(vals) if s.current_player() == v.soloist else min(vals)

    checked = 0
    for players, tricks in ((4, 5), (3, 6)):
        game = gamester.load_game("piquesept", players=players)
        for seed in range(12):
            s = game.new_initial_state(seed=seed)
            assert isinstance(s, PiqueseptState)
            rng = random.Random(seed)
            while s.world_view().phase != PLAY or s.world_view().tricks_played < tricks:
                la = s.legal_actions()
                s.apply_action(la[rng.randrange(len(la))])
            for _ in range(seed % players):  # start inside a trick too
                la = s.legal_actions()
                s.apply_action(la[rng.randrange(len(la))])
            v = s.world_view()
            exact = v.taken[v.soloist] + Solver(v).future(v)
            assert exact == brute(s)
            checked += 1
    assert checked == 24


# -- Citations ---------------------------------------------------------------------------------------
ROOT = Path(__file__).resolve().parent.parent
SECTIONS = {
    line[3:].strip()
    for line in (ROOT / "docs/rules/piquesept.md").read_text().splitlines()
    if line.startswith("## ")
}
CITE = re.compile(r"docs/rules/piquesept\.md,\s+([A-Z][a-z]+(?: [a-z]+)*)")


def _cited(text: str) -> list[str]:
    return [" ".join(m.split()) for m in CITE.findall(text)]


def test_illegal_action_messages_cite_docs_sections() -> None:
    """The engine's illegal-card messages name docs/rules/piquesept.md and one of its sections."""
    game = gamester.load_game("piquesept")
    st = game.new_initial_state(seed=1)
    assert isinstance(st, PiqueseptState)
    seen = set()
    rng = random.Random(2)
    while not st.is_terminal():
        hand = st.world_view().hands[st.current_player()]
        for a in range(32):
            if hand >> a & 1 and a not in st.legal_actions():
                with pytest.raises(IllegalActionError) as e:
                    st.apply_action(a)
                names = _cited(str(e.value))
                assert names and set(names) <= SECTIONS, str(e.value)
                seen.update(names)
        la = st.legal_actions()
        st.apply_action(la[rng.randrange(len(la))])
    assert seen == {"The soloist and the opening trick", "The remaining tricks"}


def test_source_citations_name_docs_sections() -> None:
    """Every ``docs/rules/piquesept.md, Section`` in the game's modules names a section of the page."""
    found = 0
    for path in sorted((ROOT / "src/gamester/games/piquesept").glob("*.py")):
        for name in _cited(path.read_text()):
            assert any(name.startswith(s) for s in SECTIONS), f"{path.name}: {name!r}"
            found += 1
    assert found >= 20
