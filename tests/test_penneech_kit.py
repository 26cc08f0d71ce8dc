"""Penneech's kit: the rule primitives (games/penneech/rules.py) on hand-made cards, one ruling each;
the tables built from them; the heuristic's one decision and its two knowledge extractors; the exact
solver against brute force over the real engine; the read-only world view."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import gamester
from gamester.agents.base import View
from gamester.core.cards import CLUBS, DIAMONDS, HEARTS, SPADES, cards_of, mask_of, parse_card
from gamester.core.protocol import State
from gamester.core.rng import derive
from gamester.games.penneech import heuristic, rules
from gamester.games.penneech.game import PenneechGame, PenneechState, seat_knowledge_from_observation
from gamester.games.penneech.solver import Solver, race


def c(code: str) -> int:
    return parse_card(code)


def m(codes: str) -> int:
    return mask_of(parse_card(x) for x in codes.split())


def codes(mask: int) -> list[str]:
    return sorted(gamester.core.cards.card_code(x) for x in cards_of(mask))


# -- The cards --------------------------------------------------------------------------------------
def test_seven_of_diamonds_ranks_above_the_diamond_ace() -> None:
    """docs/rules/penneech.md, The cards: diamonds run 7 A K Q J T 9 8 6 ..., trump or not."""
    assert rules.power(c("7D")) > rules.power(c("AD")) > rules.power(c("KD")) > rules.power(c("8D"))
    assert rules.power(c("8D")) > rules.power(c("6D"))
    assert rules.power(c("AC")) > rules.power(c("KC")) > rules.power(c("2C"))
    assert tuple(rules.power(x) for x in range(52)) == rules.POWER


# -- Tricks: who wins ---------------------------------------------------------------------------------
def test_highest_trump_wins_else_the_higher_card_of_the_suit_led() -> None:
    """docs/rules/penneech.md, Tricks: the highest trump wins; with no trump in it, the higher card of
    the suit led; an off-suit card that is not trump never wins."""
    assert rules.beats(c("2S"), c("AH"), SPADES)  # a trump beats the led Ace
    assert not rules.beats(c("KS"), c("AH"), CLUBS)  # off suit, not trump
    assert rules.beats(c("KH"), c("QH"), CLUBS) and not rules.beats(c("QH"), c("KH"), CLUBS)
    assert rules.beats(c("AS"), c("KS"), SPADES)  # both trumps: the higher
    assert rules.beats(c("7D"), c("AD"), HEARTS)  # the 7D tops diamonds when diamonds are not trump
    assert not rules.beats(c("AD"), c("7D"), DIAMONDS)
    # Seat 1 leads the Ace of hearts under spades; seat 0's Two of spades takes it.
    assert rules.trick_winner(1, c("AH"), c("2S"), SPADES) == 0
    assert rules.trick_winner(1, c("AH"), c("KC"), SPADES) == 1


def test_beaters_and_above_tables_are_the_beats_rule() -> None:
    for trump in range(4):
        for led in range(52):
            assert rules.BEATERS[trump][led] == mask_of(x for x in range(52) if rules.beats(x, led, trump))
    assert codes(rules.ABOVE[c("AD")]) == ["7D"]
    assert codes(rules.ABOVE[c("QS")]) == ["AS", "KS"]
    assert rules.ABOVE[c("AS")] == 0


# -- Tricks: what the second player must play -----------------------------------------------------------
HAND = m("AH 2H 3S 4S 8D 9C TC")


def test_follow_suit_or_trump_allows_a_trump_instead() -> None:
    """docs/rules/penneech.md, Tricks (follow=suit_or_trump): holding the led suit, a card of it or a
    trump; a card of neither is legal only when void (and shows the void)."""
    assert codes(rules.legal_mask(HAND, c("KH"), SPADES, False)) == ["2H", "3S", "4S", "AH"]
    assert rules.needs_void(c("8D"), c("KH"), SPADES, False)
    assert not rules.needs_void(c("3S"), c("KH"), SPADES, False)


def test_follow_suit_obliges_the_led_suit() -> None:
    """docs/rules/penneech.md, Tricks (follow=suit): follow suit when able; any other card needs a
    void, trumps included."""
    assert codes(rules.legal_mask(HAND, c("KH"), SPADES, True)) == ["2H", "AH"]
    assert rules.needs_void(c("3S"), c("KH"), SPADES, True)


@pytest.mark.parametrize("follow_suit", [False, True])
def test_a_void_follower_or_a_leader_may_play_any_card(follow_suit: bool) -> None:
    """docs/rules/penneech.md, Tricks: without the led suit, any card; the leader plays any card."""
    no_hearts = m("3S 4S 8D 9C TC")
    assert rules.legal_mask(no_hearts, c("KH"), SPADES, follow_suit) == no_hearts
    assert rules.legal_mask(HAND, -1, SPADES, follow_suit) == HAND


def test_follow_tables_are_the_follow_rule() -> None:
    for fs in (False, True):
        for trump in range(4):
            for ls in range(4):
                allowed = rules.FOLLOW_MASKS[fs][trump][ls]
                assert allowed == rules.follow_mask(13 * ls, trump, fs)
                assert rules.FOLLOW_TABLE[16 * fs + 4 * trump + ls] == allowed


# -- Points -------------------------------------------------------------------------------------------
def test_turn_up_points() -> None:
    """docs/rules/penneech.md, Turn-ups and trumps (table in The cards): 7D 14, A 5, K 4, Q 3, J 2."""
    assert [rules.turnup_points(c(x)) for x in ["7D", "AS", "KC", "QH", "JD", "TD", "7H"]] == [
        14,
        5,
        4,
        3,
        2,
        0,
        0,
    ]


def test_honours_in_a_won_trick() -> None:
    """docs/rules/penneech.md, Tricks (trick_honours): 'any' scores every A/K/Q/J of the trick, 'trump'
    only the trump suit's; the 7D scores 7 only when diamonds are trump, under either."""
    assert rules.trick_points(c("AH"), c("QS"), SPADES, False) == 5 + 3
    assert rules.trick_points(c("AH"), c("QS"), SPADES, True) == 3
    assert rules.card_points(c("7D"), DIAMONDS, True) == rules.card_points(c("7D"), DIAMONDS, False) == 7
    assert rules.card_points(c("7D"), HEARTS, False) == 0
    for honours, trump_only in (("any", False), ("trump", True)):
        for trump in range(4):
            assert rules.TRICK_POINTS[honours][trump] == rules.points_row(trump, trump_only)


def test_trick_outcomes_table_is_the_three_rules() -> None:
    for honours in ("any", "trump"):
        for fs in (False, True):
            table = rules.outcomes(honours, fs)
            for trump in range(4):
                for led in range(0, 52, 5):
                    for x in range(52):
                        v = table[trump][led * 52 + x]
                        assert bool(v & 1) == rules.beats(x, led, trump)
                        assert bool(v & 2) == rules.needs_void(x, led, trump, fs)
                        assert v >> 2 == rules.trick_points(led, x, trump, honours == "trump")


# -- End of the deal ------------------------------------------------------------------------------------
def test_card_bonus_is_two_per_trick_less_seven_from_four_tricks() -> None:
    """docs/rules/penneech.md, End of the deal: 4+ tricks score 2 x tricks - 7 (1 for four, 7 for all
    seven); the other seat scores no bonus."""
    assert [rules.card_bonus(t) for t in range(8)] == [0, 0, 0, 0, 1, 3, 5, 7]
    assert rules.deal_bonus([3, 4]) == (1, 1)
    assert rules.deal_bonus([7, 0]) == (0, 7)
    assert tuple(rules.card_bonus(t) for t in range(8)) == rules.CARD_BONUS


# -- Dealing: asking for a new deal -----------------------------------------------------------------------
def test_redeal_eligibility_per_option() -> None:
    """docs/rules/penneech.md, Dealing: above_ten: no A/K/Q/J and not the 7D; no_ace_or_face: the 7D
    does not spoil it; off: never."""
    low = m("2C 3C 4H 5H 6S TS 9D")
    with_7d = m("2C 3C 4H 5H 6S TS 7D")
    with_jack = m("2C 3C 4H 5H 6S JS 9D")
    b = rules.REDEAL_BLOCKERS
    assert rules.redeal_eligible(low, b["above_ten"]) and rules.redeal_eligible(low, b["no_ace_or_face"])
    assert not rules.redeal_eligible(with_7d, b["above_ten"])
    assert rules.redeal_eligible(with_7d, b["no_ace_or_face"])
    assert not rules.redeal_eligible(with_jack, b["no_ace_or_face"])
    assert not rules.redeal_eligible(low, b["off"])


# -- The engine answers as the primitives do ---------------------------------------------------------------
SPECS = ("penneech", "penneech(ruleset=pagat)", "penneech(ruleset=cotton)")


def _card_positions(spec: str, games: int, seed: int) -> list[PenneechState]:
    """Positions where a seat plays a card with a choice, from seeded random games."""
    game = gamester.load_game(spec)
    rng = random.Random(seed)
    out: list[PenneechState] = []
    for g in range(games):
        s = game.new_initial_state(seed=derive(seed, g))
        assert isinstance(s, PenneechState)
        while not s.is_terminal():
            la = s.legal_actions()
            if len(la) > 1 and la[0] < 52:
                out.append(s.clone())
            s.apply_action(la[rng.randrange(len(la))])
    return out


@pytest.mark.parametrize("spec", SPECS)
def test_engine_legal_cards_are_the_follow_rule(spec: str) -> None:
    for s in _card_positions(spec, 15, 1):
        k = s.seat_knowledge()
        assert s.legal_actions() == cards_of(rules.legal_mask(k.hand, k.led, k.trump, k.follow_suit))


# -- One heuristic, two extractors ------------------------------------------------------------------------
@pytest.mark.parametrize("spec", SPECS)
def test_both_knowledge_extractors_agree_and_so_do_both_heuristic_entries(spec: str) -> None:
    """The world's record of what the seat to play knows equals the one built from its observation;
    so the playouts' ``fast_choose`` picks exactly what ``choose`` picks from the observation."""
    rng = random.Random(5)
    checked = 0
    for s in _card_positions(spec, 40, 2):
        p = s.current_player()
        la = s.legal_actions()
        game = s.game
        assert isinstance(game, PenneechGame)
        k = s.seat_knowledge()
        assert k == seat_knowledge_from_observation(s.observation(p), game)
        assert heuristic.fast_choose(s, la) == heuristic.choose(View(s, p), s.observation(p), la, rng)
        checked += 1
    assert checked >= 600


def test_the_heuristic_throws_an_eligible_hand_in() -> None:
    """docs/rules/penneech.md, Dealing: offered a redeal, the heuristic always takes it."""
    game = gamester.load_game("penneech")
    for seed in range(300):
        s = game.new_initial_state(seed=seed)
        if 53 in s.legal_actions():
            p = s.current_player()
            assert heuristic.choose(View(s, p), s.observation(p), s.legal_actions(), random.Random(0)) == 53
            return
    pytest.fail("no redeal offer in 300 seeded deals")


# -- The exact solver against brute force ------------------------------------------------------------------
def _brute(state: State) -> float:
    """Seat 0's value by full search over the real engine: a win 1, a loss 0, a deal that ends
    without a winner scored by the race from its final scores (the next deal's turn-up taken back)."""
    assert isinstance(state, PenneechState)
    events = state.last_events()
    next_deal = any(e["type"] == "deal" for e in events)
    if state.is_terminal() and not next_deal:
        return 1.0 if state.returns()[0] > 0 else 0.0
    if next_deal:
        scores = list(state.scores())
        seen_deal = False
        for e in events:  # the next deal's opening turn-up is not this deal's
            if e["type"] == "deal":
                seen_deal = True
            elif e["type"] == "turn_up" and seen_deal:
                scores[e["seat"]] -= e["points"]
        return race(scores[0], scores[1], state.game.options.target)
    values = []
    for a in state.legal_actions():
        nxt = state.clone()
        nxt.apply_action(a)
        values.append(_brute(nxt))
    return max(values) if state.current_player() == 0 else min(values)


def test_penneech_solver_is_exact() -> None:
    """End positions (the last three tricks of seeded deals, target in reach or not) solved by the
    PIMC solver and by brute force over the real engine agree action by action."""
    checked = 0
    for spec in ("penneech", "penneech(target=15)", "penneech(ruleset=pagat)"):
        game = gamester.load_game(spec)
        for seed in range(12):
            s = game.new_initial_state(seed=seed)
            assert isinstance(s, PenneechState)
            rng = random.Random(seed)
            while not s.is_terminal():
                if s.legal_actions()[0] < 52 and sum(s.observation(0)["hand_sizes"]) <= 6:
                    break
                la = s.legal_actions()
                s.apply_action(la[rng.randrange(len(la))])
            if s.is_terminal():
                continue
            for a, v in Solver(s).root().items():
                nxt = s.clone()
                nxt.apply_action(a)
                assert v == pytest.approx(_brute(nxt))
                checked += 1
    assert checked >= 20


# -- The read-only world view and the race pieces ----------------------------------------------------------
@pytest.mark.parametrize("spec", SPECS)
def test_world_view_says_what_the_observations_say_and_the_stock(spec: str) -> None:
    game = gamester.load_game(spec)
    kit = game.kit()
    for s in _card_positions(spec, 5, 3):
        w = kit.world_view(s)  # type: ignore[attr-defined]
        o0, o1 = s.observation(0), s.observation(1)
        assert [codes(h) for h in w.hands] == [sorted(o0["hand"]), sorted(o1["hand"])]
        assert [codes(w.dealt[p] & ~w.hands[p]) for p in (0, 1)] == [sorted(x) for x in o0["played"]]
        shown = [gamester.core.cards.card_code(x) for x in w.turned]
        assert shown == o0["earlier_turn_ups"] + [o0["turn_up"]]
        assert len(w.stock) == o0["stock_size"] and not mask_of(w.stock) & (
            mask_of(w.turned) | w.dealt[0] | w.dealt[1]
        )
        assert "CDHS"[w.trump] == o0["trump"] and w.current == s.current_player()
        assert ([] if w.led < 0 else [gamester.core.cards.card_code(w.led)]) == o0["trick"]
        assert list(w.tricks) == o0["tricks_won"] and list(w.scores) == o0["scores"] == s.scores()
        assert (w.dealer, w.deal, w.leader) == (o0["dealer"], o0["deal"], o0["leader"])
        assert (s.dealer, s.deal_number) == (w.dealer, w.deal)
        assert [[s for s in "CDHS" if w.voids[p] >> "CDHS".index(s) & 1] for p in (0, 1)] == o1["known_voids"]


def test_deal_opening_replays_to_the_world_and_restock_keeps_what_was_seen() -> None:
    game = gamester.load_game("penneech")
    race_ = game.kit().race
    assert race_ is not None
    for s in _card_positions("penneech", 4, 4)[::7]:
        start, plays = race_.deal_replay(s)
        assert isinstance(start, PenneechState)
        for a in plays:
            start.apply_action(a)
        now, replayed = s.world_view(), start.world_view()
        # The opening keeps the present scores (the deal is replayed for its plays, not its points).
        assert replayed._replace(target=now.target, scores=now.scores) == now
        fresh = race_.restock(s, random.Random(1))
        assert isinstance(fresh, PenneechState)
        w = fresh.world_view()
        assert w._replace(stock=now.stock) == now and sorted(w.stock) == sorted(now.stock)


# -- Citations -----------------------------------------------------------------------------------------------
ROOT = Path(__file__).resolve().parent.parent
SECTIONS = [
    line[3:].strip()
    for line in (ROOT / "docs/rules/penneech.md").read_text().splitlines()
    if line.startswith("## ")
]


def _cited(text: str) -> list[str]:
    return re.findall(r"docs/rules/penneech\.md,\s+([A-Z][a-z-]+(?: [a-z-]+)*)", text)


def test_error_messages_cite_sections_that_exist() -> None:
    """The engine's messages name docs/rules/penneech.md and one of its sections."""
    game = gamester.load_game("penneech")
    msgs = []
    for seed in range(300):
        s = game.new_initial_state(seed=seed)
        if s.legal_actions() == [52, 53]:
            with pytest.raises(gamester.core.errors.IllegalActionError) as e:
                s.apply_action(0)
            msgs.append(str(e.value))
            break
    for s in _card_positions("penneech", 3, 5):
        if s.world_view().led >= 0 and len(s.legal_actions()) < sum(s.observation(0)["hand_sizes"]) // 2:
            with pytest.raises(gamester.core.errors.IllegalActionError) as e:
                s.apply_action(52)
            msgs.append(str(e.value))
            k = s.seat_knowledge()
            bad = next(x for x in cards_of(k.hand) if x not in s.legal_actions())
            with pytest.raises(gamester.core.errors.IllegalActionError) as e:
                s.apply_action(bad)
            msgs.append(str(e.value))
            break
    assert len(msgs) == 3
    for msg in msgs:
        assert "(docs/rules/penneech.md, " in msg and _cited(msg), msg
        assert all(any(sec.startswith(name) for sec in SECTIONS) for name in _cited(msg)), msg


def test_the_package_cites_only_sections_that_exist() -> None:
    names = set()
    for path in (ROOT / "src/gamester/games/penneech").glob("*.py"):
        names.update(_cited(" ".join(path.read_text().split())))
    assert names, "no citation found"
    missing = sorted(n for n in names if not any(sec.startswith(n) for sec in SECTIONS))
    assert not missing, f"cited sections not in docs/rules/penneech.md: {missing}"
