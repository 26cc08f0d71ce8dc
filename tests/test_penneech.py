"""Penneech: one test per ruling of ``docs/rules/penneech.md``, each on a hand-made pack."""

from __future__ import annotations

import random

import pytest

import gamester
from gamester.core.cards import CODES
from gamester.core.errors import IllegalActionError, InvalidActionError, OptionError, RecordError
from gamester.games.penneech.game import KEEP, REDEAL, PenneechState


def deal_pack(non_dealer: str, dealer: str, stock: str = "") -> list[str]:
    """A pack dealing these hands (one at a time, non-dealer first) with ``stock`` on top of the rest."""
    nd, d, st = non_dealer.split(), dealer.split(), stock.split()
    assert len(nd) == len(d) == 7
    pack: list[str] = []
    for a, b in zip(nd, d, strict=True):
        pack += [a, b]
    pack += st
    assert len(set(pack)) == len(pack), "a card is given twice"
    pack += [c for c in CODES if c not in pack]
    return pack


def new(chance: list[list[str]], **options: object) -> PenneechState:
    options.setdefault("first_dealer", 0)
    state = gamester.load_game("penneech", **options).new_initial_state(chance=chance)
    assert isinstance(state, PenneechState)
    return state


def play(state: PenneechState, moves: str) -> None:
    for m in moves.split():
        state.apply_action(state.string_to_action(m))


def legal(state: PenneechState) -> list[str]:
    return sorted(state.action_to_string(a) for a in state.legal_actions())


# Seat 0 deals, so seat 1 is the non-dealer and leads trick 1.
HANDS_ND = "AH 2H 3C 4C 5C 6S 8S"  # seat 1
HANDS_D = "3H KC 9D 4S 5S 2C 6C"  # seat 0
PLAIN_STOCK = "7C 8H 9H TH 2D 3D 4D 5D"  # turn-ups: no honours among them


# -- Cards --------------------------------------------------------------------------------------


def test_card_codes_parse_leniently_and_print_two_characters() -> None:
    """docs/rules/penneech.md, The cards: parsers accept 10S, suit symbols and lower case; output is 2
    chars."""
    s = new([deal_pack(HANDS_ND, HANDS_D, PLAIN_STOCK)], redeal="off")
    assert s.string_to_action("10S") == s.string_to_action("TS") == s.string_to_action("t♠")
    assert s.action_to_string(s.string_to_action("q♥")) == "QH"
    with pytest.raises(InvalidActionError, match="'1X' is not a Penneech action"):
        s.string_to_action("1X")


def test_seven_of_diamonds_tops_diamonds_when_not_trump() -> None:
    """docs/rules/penneech.md, The cards: the 7D ranks above the diamond Ace whether or not diamonds are
    trump."""
    nd, d = "AD 2H 3C 4C 5C 6S 8S", "7D KC 9C 4S 5S 2C 6C"
    s = new([deal_pack(nd, d, "8H 9H TH 2D 3D 4D 5D 7H")], redeal="off")  # hearts are trump
    play(s, "AD 7D")
    assert s.observation(0)["tricks_won"] == [1, 0]
    # Won in a trick while hearts are trump, the 7D scores nothing; the Ace scores 5 (any honour).
    assert s.scores() == [5, 0]


# -- Seats, dealing --------------------------------------------------------------------------------


def test_deal_alternates_cards_non_dealer_first() -> None:
    """docs/rules/penneech.md, Dealing: pack[0] to the non-dealer, pack[1] to the dealer, … ."""
    s = new([deal_pack(HANDS_ND, HANDS_D, PLAIN_STOCK)], redeal="off")
    assert s.observation(1)["hand"] == sorted(HANDS_ND.split(), key=CODES.index)
    assert s.observation(0)["hand"] == sorted(HANDS_D.split(), key=CODES.index)
    assert s.observation(0)["stock_size"] == 52 - 14 - 1
    assert s.current_player() == 1


@pytest.mark.parametrize(
    ("c0", "c1", "dealer"),
    [
        ("AS", "2C", 0),  # Ace counts 1: lowest
        ("KH", "QH", 1),  # King 13 is higher than Queen 12
        ("7D", "8C", 0),  # the 7D is a plain seven in the draw
        ("9C", "9H", None),  # equal: go on to the next pair
    ],
)
def test_first_dealer_draw_lower_card_deals(c0: str, c1: str, dealer: int | None) -> None:
    """docs/rules/penneech.md, Dealing: seat 0 takes pack[0], seat 1 pack[1]; the lower deals (A=1 …
    K=13, 7D plain); equal ranks go on to pack[2] and pack[3]."""
    draw = [c0, c1, "3S", "4S"] + [c for c in CODES if c not in (c0, c1, "3S", "4S")]
    deal = deal_pack(HANDS_ND, HANDS_D, PLAIN_STOCK)
    s = gamester.load_game("penneech", redeal="off").new_initial_state(chance=[draw, deal])
    expected = 0 if dealer is None else dealer  # 3S beats 4S: seat 0 deals after a tie
    assert s.observation(0)["dealer"] == expected
    assert s.current_player() == 1 - expected  # the non-dealer leads
    events = [e for e in s.last_events() if e["type"] == "draw"]
    assert len(events) == (2 if dealer is None else 1)


def test_dealer_alternates_each_deal() -> None:
    """docs/rules/penneech.md, Dealing: the dealer alternates each deal."""
    s = new(
        [deal_pack(HANDS_ND, HANDS_D, PLAIN_STOCK), deal_pack(HANDS_ND, HANDS_D, PLAIN_STOCK)], redeal="off"
    )
    rng = random.Random(0)
    while s.observation(0)["deal"] == 0:
        la = s.legal_actions()
        s.apply_action(la[rng.randrange(len(la))])
    assert s.observation(0)["dealer"] == 1
    assert s.current_player() == 0


# -- Redeal -------------------------------------------------------------------------------------------

LOW_ND = "2H 4H 3C 4C 5C 8S 9S"  # no card above a Ten
LOW_WITH_7D = "7D 2H 4H 5H 8S 9S TS"
LOW_D = "6D 8D 9D TD 6H 7H 7S"  # eligible only under no_ace_or_face


def test_redeal_above_ten_counts_the_seven_of_diamonds() -> None:
    """docs/rules/penneech.md, Dealing (asking for a new deal): under above_ten the 7D makes a hand
    ineligible; under no_ace_or_face it does not."""
    pack = deal_pack(LOW_WITH_7D, HANDS_D, PLAIN_STOCK)
    s = new([pack], redeal="above_ten")
    assert s.observation(1)["phase"] == "play"
    s = new([pack], redeal="no_ace_or_face")
    assert s.observation(1)["phase"] == "redeal" and s.current_player() == 1
    assert legal(s) == ["keep", "redeal"]


def test_redeal_shows_the_hand_and_the_same_dealer_deals_a_new_pack() -> None:
    """docs/rules/penneech.md, Dealing (asking for a new deal): on redeal the hand is public and the same
    dealer deals again."""
    first = deal_pack(LOW_ND, HANDS_D, PLAIN_STOCK)
    second = deal_pack(HANDS_ND, HANDS_D, PLAIN_STOCK)
    s = new([first, second])
    assert s.current_player() == 1
    s.apply_action(REDEAL)
    obs = s.observation(0)
    assert obs["shown_hands"] == [{"seat": 1, "cards": sorted(LOW_ND.split(), key=CODES.index)}]
    assert obs["dealer"] == 0 and obs["deal"] == 1
    assert s.observation(1)["hand"] == sorted(HANDS_ND.split(), key=CODES.index)
    assert len(s.record()["chance"]) == 2


def test_dealer_chooses_only_after_non_dealer_keeps() -> None:
    """docs/rules/penneech.md, Dealing (asking for a new deal): both eligible, the non-dealer chooses
    first; the dealer only after a keep; being asked tells the other seat the hand holds no high card."""
    both_low_d = LOW_D
    s = new([deal_pack(LOW_ND, both_low_d, PLAIN_STOCK)])
    assert s.current_player() == 1
    assert s.observation(0)["redeal_eligible"] == [None, True]
    s.apply_action(KEEP)
    assert s.current_player() == 0
    assert s.observation(1)["redeal_eligible"] == [True, True]
    s.apply_action(KEEP)
    assert s.observation(0)["phase"] == "play" and s.current_player() == 1


def test_only_eligible_dealer_is_asked_and_others_learn_it() -> None:
    """docs/rules/penneech.md, Dealing (asking for a new deal): a seat not asked is known to hold a
    blocking card."""
    s = new([deal_pack(HANDS_ND, LOW_D, PLAIN_STOCK)])
    assert s.current_player() == 0 and legal(s) == ["keep", "redeal"]
    assert s.observation(0)["redeal_eligible"] == [True, False]


def test_redeal_off_never_asks() -> None:
    """docs/rules/penneech.md, Dealing (asking for a new deal): redeal=off."""
    s = new([deal_pack(LOW_ND, LOW_D, PLAIN_STOCK)], redeal="off")
    assert s.observation(0)["phase"] == "play"
    with pytest.raises(IllegalActionError, match="redeal may be asked only before the first turn-up"):
        s.apply_action(REDEAL)


# -- Turn-ups ----------------------------------------------------------------------------------------


def test_dealer_turns_up_first_and_scores_an_honour() -> None:
    """docs/rules/penneech.md, Turn-ups and trumps: the dealer turns the first card and scores an honour
    at once."""
    s = new([deal_pack(HANDS_ND, HANDS_D, "KD 8H 9H TH 2D 3D 4D 5D")], redeal="off")
    assert s.scores() == [4, 0]
    assert s.observation(1)["trump"] == "D"


def test_seven_of_diamonds_turned_up_scores_fourteen() -> None:
    """docs/rules/penneech.md, The cards: the 7D turned up scores 14."""
    nd = "AH 2H 3C 4C 5C 6S 8S"
    s = new([deal_pack(nd, HANDS_D, "7D 8H 9H TH 2D 3D 4D 5D")], redeal="off")
    assert s.scores() == [14, 0]


def test_trick_winner_turns_up_next_and_final_turn_up_scores() -> None:
    """docs/rules/penneech.md, Turn-ups and trumps: the winner of each trick turns the next card; after
    trick 7 its winner turns an eighth card, which scores but sets no trump."""
    # Seat 1 (non-dealer) holds all the high clubs; clubs are trump throughout via the turn-ups.
    nd = "AC KC QC JC TC 9C 8C"
    d = "2H 3H 4H 5H 6H 8H 9H"
    stock = "2C 3C 4C 5C 6C 7C 2S AS"  # seven plain turn-ups, the eighth an Ace
    s = new([deal_pack(nd, d, stock)], redeal="off", objective="deal")
    play(s, "AC 2H")
    # Seat 1 won: honours A (5) scored under 'any'; then seat 1 turned up 3C (nothing).
    assert s.scores() == [0, 5]
    play(s, "KC 3H QC 4H JC 5H TC 6H 9C 8H 8C 9H")
    # Honours 5+4+3+2 = 14; card bonus 7 for all seven tricks; final turn-up AS scores 5 to seat 1.
    assert s.scores() == [0, 14 + 5 + 7]
    ev = [e["type"] for e in s.last_events()]
    assert ev == ["trick", "turn_up", "card_bonus", "game_over"]


# -- Tricks: following ------------------------------------------------------------------------------

FOLLOW_ND = "AH 2C 3C 4C 5C 6C 8C"  # seat 1 leads AH
FOLLOW_D = "2H 3S 4S 5S 6S 7S 8D"  # seat 0 holds a heart and spades


def _follow_state(follow: str) -> PenneechState:
    # First turn-up 9S: spades are trump for trick 1.
    return new([deal_pack(FOLLOW_ND, FOLLOW_D, "9S 8H 9H TH 2D 3D 4D 5D")], redeal="off", follow=follow)


def test_follow_suit_or_trump_allows_a_trump_instead() -> None:
    """docs/rules/penneech.md, Tricks (follow=suit_or_trump): holding the led suit, play it or a trump."""
    s = _follow_state("suit_or_trump")
    play(s, "AH")
    assert legal(s) == ["2H", "3S", "4S", "5S", "6S", "7S"]
    with pytest.raises(
        IllegalActionError,
        match=r"8D is not legal: seat 0 holding hearts must play "
        r"hearts or a trump \(spades\)",
    ):
        s.apply_action(s.string_to_action("8D"))


def test_follow_suit_obliges_the_led_suit() -> None:
    """docs/rules/penneech.md, Tricks (follow=suit): follow suit if able."""
    s = _follow_state("suit")
    play(s, "AH")
    assert legal(s) == ["2H"]
    with pytest.raises(IllegalActionError, match="must follow suit"):
        s.apply_action(s.string_to_action("3S"))


@pytest.mark.parametrize("follow", ["suit", "suit_or_trump"])
def test_void_follower_may_play_anything(follow: str) -> None:
    """docs/rules/penneech.md, Tricks: a follower void in the led suit may play any card."""
    s = _follow_state(follow)
    play(s, "AH 2H")  # seat 1 wins trick 1 with AH and leads again
    play(s, "2C")
    assert legal(s) == sorted(["3S", "4S", "5S", "6S", "7S", "8D"])


def test_highest_trump_wins_else_highest_of_led_suit() -> None:
    """docs/rules/penneech.md, Tricks: the highest trump wins; with no trump, the highest of the led suit;
    an off-suit card that is not trump never wins."""
    s = _follow_state("suit_or_trump")
    play(s, "AH 3S")  # spades trump: the 3S beats the Ace
    assert s.observation(0)["tricks_won"] == [1, 0]
    assert s.observation(1)["known_voids"] == [[], []]  # a trump reveals nothing
    # Seat 0 turned up 8H (hearts trump) and leads; seat 1 plays off-suit: the leader wins.
    play(s, "8D 2C")
    assert s.observation(0)["tricks_won"] == [2, 0]
    assert s.observation(0)["known_voids"] == [[], ["D"]]


def test_follow_suit_void_is_revealed_by_any_off_suit_card() -> None:
    """docs/rules/penneech.md, Tricks (follow=suit): any card off the led suit shows a void."""
    s = _follow_state("suit")
    play(s, "AH 2H 2C 3S")
    assert s.observation(1)["known_voids"] == [["C"], []]


# -- Honours in tricks ---------------------------------------------------------------------------------

HON_ND = "AH KS 3C 4C 5C 6C 8C"
HON_D = "2H QS 4S 5S 6S 7S 8D"


@pytest.mark.parametrize(("trick_honours", "points"), [("any", 5 + 3), ("trump", 3)])
def test_trick_honours_any_or_trump(trick_honours: str, points: int) -> None:
    """docs/rules/penneech.md, Tricks (trick_honours): 'any' scores every A/K/Q/J in the trick, 'trump' only
    those of the trick's trump suit."""
    s = new([deal_pack(HON_ND, HON_D, "9S 8H 9H TH 2D 3D 4D 5D")], redeal="off", trick_honours=trick_honours)
    play(s, "AH QS")  # spades trump: seat 0 trumps the Ace with the Queen
    assert s.scores() == [points, 0]


@pytest.mark.parametrize(("trump_card", "points"), [("9D", 7 + 5), ("9S", 5)])
def test_seven_of_diamonds_won_scores_seven_only_when_diamonds_trump(trump_card: str, points: int) -> None:
    """docs/rules/penneech.md, The cards: the 7D won in a trick scores 7 only when diamonds are trump."""
    nd = "7D 2C 3C 4C 5C 6C 8C"
    d = "AD 2H 4S 5S 6S 7S 8D"
    s = new([deal_pack(nd, d, trump_card + " 8H 9H TH 2D 3D 4D 5D")], redeal="off")
    play(s, "7D AD")  # the 7D wins either way
    assert s.scores() == [0, points]


# -- End of deal -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("tricks", [4, 5, 6, 7])
def test_card_bonus_is_two_tricks_minus_seven(tricks: int) -> None:
    """docs/rules/penneech.md, End of the deal: the seat with 4+ tricks scores 2 x tricks - 7."""
    # Seat 1 holds only clubs, seat 0 only hearts, no honours anywhere. The leader keeps winning
    # until a heart is turned up, when seat 0 trumps and then keeps the lead with diamonds trump.
    nd, d = "2C 3C 4C 5C 6C 7C 8C", "2H 3H 4H 5H 6H 7H 8H"
    turn_ups = ["9C", "TC", "9S", "TS", "2S", "3S", "4S"][:tricks] + ["9H"]
    turn_ups += ["2D", "3D", "4D", "5D", "6D", "8D"][: 8 - len(turn_ups)]
    s = new([deal_pack(nd, d, " ".join(turn_ups))], redeal="off", objective="deal")
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[0])
    assert s.observation(0)["tricks_won"] == [7 - tricks, tricks]
    assert s.scores() == [0, 2 * tricks - 7]
    assert s.last_events()[-2] == {"type": "card_bonus", "seat": 1, "points": 2 * tricks - 7}


def test_card_bonus_exact_for_five_tricks() -> None:
    """docs/rules/penneech.md, End of the deal: five tricks score 3; scoring follows the order of events."""
    nd = "AC 2C 3C 4C 5C 2D 3D"
    d = "2H 3H 4H 5H 6H 7H 8H"
    # Clubs trump for the first five tricks (seat 1 wins them), then hearts for the last two.
    s = new(
        [deal_pack(nd, d, "6C 7C 8C 9C TC 9H TH JS")], redeal="off", trick_honours="trump", objective="deal"
    )
    play(s, "AC 2H 2C 3H 3C 4H 4C 5H 5C 6H")
    assert s.scores() == [0, 5]
    play(s, "2D 7H")  # hearts trump now: seat 0 trumps
    play(s, "8H 3D")
    # Final turn-up JS by seat 0 scores 2 (any honour turned up); bonus 2*5-7 = 3 to seat 1.
    assert s.scores() == [2, 5 + 3]


# -- Winning ---------------------------------------------------------------------------------------------


def test_reaching_the_target_wins_at_once_mid_deal() -> None:
    """docs/rules/penneech.md, Winning: the first to the target wins at that instant, even mid-deal; nothing
    more happens, not even the trick's turn-up."""
    s = new([deal_pack(HON_ND, HON_D, "9S 8H 9H TH 2D 3D 4D 5D")], redeal="off", target=8)
    play(s, "AH QS")  # 8 points of honours to seat 0: exactly the target
    assert s.is_terminal()
    assert s.returns() == [1.0, -1.0]
    assert s.observation(0)["stock_size"] == 52 - 14 - 1  # the winner did not turn up
    assert [e["type"] for e in s.last_events()] == ["trick", "game_over"]
    with pytest.raises(IllegalActionError, match="the game is over"):
        s.apply_action(s.string_to_action("2C"))


def test_turn_up_can_win_the_game() -> None:
    """docs/rules/penneech.md, Winning: a turn-up that reaches the target ends the game before any play."""
    s = new([deal_pack(HANDS_ND, HANDS_D, "7D 8H 9H TH 2D 3D 4D 5D")], redeal="off", target=14)
    assert s.is_terminal() and s.returns() == [1.0, -1.0] and s.legal_actions() == []


def test_objective_deal_plays_through_and_returns_the_difference() -> None:
    """docs/rules/penneech.md, Winning (objective=deal): one deal, played through its card bonus whatever
    the target; returns the score difference."""
    s = new([deal_pack(HON_ND, HON_D, "9S 8H 9H TH 2D 3D 4D 5D")], redeal="off", target=8, objective="deal")
    play(s, "AH QS")
    assert not s.is_terminal()
    rng = random.Random(1)
    while not s.is_terminal():
        la = s.legal_actions()
        s.apply_action(la[rng.randrange(len(la))])
    d = s.scores()[0] - s.scores()[1]
    assert s.returns() == [float(d), float(-d)]
    assert len(s.record()["chance"]) == 1


def test_match_to_any_target_ends_exactly_at_target() -> None:
    """docs/rules/penneech.md, Winning: games to any target; the winner is the first to reach it."""
    for target in (5, 31, 121):
        g = gamester.load_game("penneech", target=target)
        s = g.new_initial_state(seed=target)
        rng = random.Random(target)
        while not s.is_terminal():
            la = s.legal_actions()
            s.apply_action(la[rng.randrange(len(la))])
        w = gamester.summary(s)["winners"][0]
        assert s.scores()[w] >= target > s.scores()[1 - w]


# -- Rule sets and options ----------------------------------------------------------------------------


def test_rule_sets_and_overrides() -> None:
    """docs/rules/penneech.md, Rule sets: cotton and pagat bundles; explicit options override them."""
    assert gamester.load_game("penneech(ruleset=cotton)").options.trick_honours == "trump"
    assert gamester.load_game("penneech(ruleset=cotton)").options.redeal == "no_ace_or_face"
    assert gamester.load_game("penneech(ruleset=pagat)").options.follow == "suit"
    g = gamester.load_game("penneech(ruleset=cotton,target=41)", trick_honours="any")
    assert (g.options.target, g.options.trick_honours) == (41, "any")
    assert gamester.load_game("penneech", first_dealer="1").options.first_dealer == 1
    assert gamester.load_game(g.spec()) == g


@pytest.mark.parametrize(
    ("spec", "kwargs", "message"),
    [
        ("chess", {}, "unknown game 'chess'; valid games: .*penneech"),
        ("penneech", {"trumps": 1}, "unknown option 'trumps'; valid options: ruleset, first_dealer"),
        ("penneech", {"follow": "any"}, "follow must be one of suit_or_trump, suit"),
        ("penneech", {"target": "0"}, "target must be a whole number from 1 to 10000"),
        ("penneech(ruleset=hoyle)", {}, "unknown rule set 'hoyle'; valid rule sets: standard, cotton, pagat"),
    ],
)
def test_bad_options_fail_listing_valid_ones(spec: str, kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(OptionError, match=message):
        gamester.load_game(spec, **kwargs)


# -- Errors and records ----------------------------------------------------------------------------


def test_illegal_card_message_names_card_rule_and_position() -> None:
    s = new([deal_pack(HANDS_ND, HANDS_D, PLAIN_STOCK)], redeal="off")
    with pytest.raises(IllegalActionError) as e:
        s.apply_action(s.string_to_action("KC"))
    msg = str(e.value)
    assert "KC is not in seat 1's hand" in msg and "legal: " in msg and "trump C" in msg
    assert isinstance(e.value, ValueError)


def test_record_errors_name_the_field() -> None:
    good = new([deal_pack(HANDS_ND, HANDS_D, PLAIN_STOCK)], redeal="off").record()
    bad_action = dict(good, actions=["AH", "ZZ"])
    with pytest.raises(RecordError, match=r"actions\[1\]: 'ZZ' is not a Penneech action"):
        gamester.replay(bad_action)
    illegal = dict(good, actions=["AH", "KC", "QS"])
    with pytest.raises(RecordError, match=r"actions\[2\]: QS is not in seat"):
        gamester.replay(illegal)
    dup = dict(good, chance=[["AH"] * 52])
    with pytest.raises(RecordError, match=r"chance\[0\] must list each of the 52 cards"):
        gamester.replay(dup)
    missing = dict(good, chance=[], seed=None)
    with pytest.raises(RecordError, match=r"chance\[0\] is missing"):
        gamester.replay(missing)
    with pytest.raises(RecordError, match="format"):
        gamester.replay(dict(good, format="pgn"))
    with pytest.raises(RecordError, match="options: penneech: unknown option"):
        gamester.replay(dict(good, options={"x": 1}))


def test_record_that_ends_a_deal_must_carry_the_next_pack() -> None:
    """docs/records.md: chance is consumed the moment the game needs it."""
    s = new(
        [deal_pack(HANDS_ND, HANDS_D, PLAIN_STOCK), deal_pack(HANDS_ND, HANDS_D, PLAIN_STOCK)],
        redeal="off",
        target=200,
    )
    rng = random.Random(4)
    while s.observation(0)["deal"] == 0:
        la = s.legal_actions()
        s.apply_action(la[rng.randrange(len(la))])
    rec = s.record()
    assert len(rec["chance"]) == 2
    rec["chance"] = rec["chance"][:1]
    with pytest.raises(RecordError, match=r"chance\[1\] is missing"):
        gamester.replay(rec)


# -- What each seat knows -----------------------------------------------------------------------------


def test_observation_hides_the_other_hand_and_the_stock() -> None:
    """docs/rules/penneech.md, What each player knows."""
    s = new([deal_pack(HANDS_ND, HANDS_D, PLAIN_STOCK)], redeal="off")
    text = repr(s.observation(0))
    for c in HANDS_ND.split():
        assert f"'{c}'" not in text
    for c in PLAIN_STOCK.split()[1:]:
        assert f"'{c}'" not in text


def test_determinize_respects_voids_and_redeal_knowledge() -> None:
    """docs/rules/penneech.md, What each player knows: worlds keep the opponent's revealed voids and what the
    redeal choices told."""
    s = _follow_state("suit_or_trump")
    play(s, "AH 2H 2C 3S")  # hearts are trump for trick 2: the 3S is no trump, so seat 0 has no clubs
    voids = s.observation(1)["known_voids"][0]
    assert voids == ["C"]
    for k in range(50):
        w = s.determinize(1, random.Random(k))
        assert not any(c.endswith("C") for c in w.observation(0)["hand"])
    # A seat asked about a redeal holds no blocking card in every world.
    s = new([deal_pack(LOW_ND, HANDS_D, PLAIN_STOCK)])
    s.apply_action(KEEP)
    for k in range(50):
        w = s.determinize(0, random.Random(k))
        assert all(c[0] in "23456789T" and c != "7D" for c in w.observation(1)["hand"])
    # A seat not asked holds at least one blocking card in every world.
    s = new([deal_pack(HANDS_ND, LOW_D, PLAIN_STOCK)])
    for k in range(50):
        w = s.determinize(0, random.Random(k))
        assert any(c[0] in "AKQJ" or c == "7D" for c in w.observation(1)["hand"])


def test_observation_tensor_marks_hand_and_trump() -> None:
    s = new([deal_pack(HANDS_ND, HANDS_D, PLAIN_STOCK)], redeal="off")
    t = s.observation_tensor(1)
    assert sum(t[:52]) == 7 and t[52 + s.string_to_action("7C")] == 1.0
    assert s.legal_actions_mask()[s.string_to_action("AH")] == 1


class _OwnShuffle(random.Random):
    """A generator whose shuffle, sample and random are its own: worlds must not use them."""

    def shuffle(self, x: list[int]) -> None:  # type: ignore[override]
        x.reverse()

    def sample(self, population: list[int], k: int) -> list[int]:  # type: ignore[override]
        return list(population[:k])

    def random(self) -> float:
        return 0.0


def test_worlds_draw_only_the_generators_bits() -> None:
    """determinize and restocked draw with our draws (core/rng.py, "gamester-draws-1"), which read
    only getrandbits: a generator's own shuffle and sample change nothing, so a seed's worlds are the
    same on every Python version."""
    s = new([deal_pack(HANDS_ND, LOW_D, PLAIN_STOCK)])
    for k in range(20):
        a, b = s.determinize(0, _OwnShuffle(k)), s.determinize(0, random.Random(k))
        assert a.observation(1)["hand"] == b.observation(1)["hand"]
        assert a.restocked(_OwnShuffle(k))._pack == b.restocked(random.Random(k))._pack
