"""Illegal moves explained in one sentence, in a player's words, naming the rule that forbids them
(``state.explain_illegal(action)``, shown by the terminal when it refuses a move).

Penneech positions are dealt from packs written here; Piquesept and Pentyrch positions are reached by
seeded random play (the same every run), each test checking the premise before the sentence.
"""

from __future__ import annotations

import io
import random

import pytest

import gamester
from gamester.agents import make_agent
from gamester.core.cards import CODES
from gamester.core.protocol import State
from gamester.play.terminal import TerminalGame


def penneech_deal(seat0: str, seat1: str, turn_up: str, **options: object) -> State:
    """A Penneech deal with seat 1 dealing: seat 0 (non-dealer, who leads) gets ``seat0``, seat 1
    ``seat1``, and ``turn_up`` is the first trump."""
    game = gamester.load_game("penneech", first_dealer=1, **options)
    a, b = seat0.split(), seat1.split()
    pack = [c for pair in zip(a, b, strict=True) for c in pair]
    pack += [turn_up] + [c for c in CODES if c not in pack and c != turn_up]
    return game.new_initial_state(chance=[pack])


def test_penneech_must_follow_suit_or_trump() -> None:
    """rules/penneech.md, Tricks (follow=suit_or_trump): holding the led suit, play it or a trump."""
    st = penneech_deal("AH KH 2C 3C 4C 5C 6C", "2H 3D 4D 5D 6D 7S 8S", "9C", redeal="off")
    st.apply_action(st.string_to_action("AH"))
    assert st.legal_action_strings() == ["2H"]  # premise: a heart, no club in seat 1's hand
    text = st.explain_illegal(st.string_to_action("3D"))
    assert "you must play one of your hearts or a trump (clubs)" in text
    assert text.count(".") == 1 and text.endswith(".")


def test_penneech_must_follow_suit() -> None:
    """rules/penneech.md, Tricks (follow=suit): holding the led suit, follow it; a trump will not do."""
    st = penneech_deal("AH KH 2C 3C 4C 5C 6C", "2H 7C 4D 5D 6D 7S 8S", "9C", redeal="off", follow="suit")
    st.apply_action(st.string_to_action("AH"))
    assert "7C" not in st.legal_action_strings()  # premise: the trump is refused under follow=suit
    assert st.explain_illegal(st.string_to_action("7C")) == (
        "You hold hearts, so you must follow suit to the ace of hearts with one of your hearts."
    )


def test_penneech_card_not_held() -> None:
    st = penneech_deal("AH KH 2C 3C 4C 5C 6C", "2H 3D 4D 5D 6D 7S 8S", "9C", redeal="off")
    assert st.explain_illegal(st.string_to_action("AS")) == "You do not hold the ace of spades."


def test_penneech_redeal_answer_first_and_only_before_the_first_turn_up() -> None:
    """rules/penneech.md, Redeal: an eligible hand answers keep or redeal before the first turn-up;
    a redeal asked at any other time is refused."""
    st = penneech_deal("2H 3H 4C 5C 6D 7S 8S", "AH KH QC JC AD KS QS", "9C", redeal="above_ten")
    assert sorted(st.legal_action_strings()) == ["keep", "redeal"]  # premise: seat 0 may ask
    assert "keep this hand or ask for a redeal" in st.explain_illegal(st.string_to_action("2H"))
    st.apply_action(st.string_to_action("keep"))
    assert "only before the first turn-up" in st.explain_illegal(st.string_to_action("redeal"))
    assert "no card above a ten" in st.explain_illegal(st.string_to_action("redeal"))


def walk(game_name: str, seed: int, want: object, limit: int = 400) -> State:
    """The first position of a seeded random game for which ``want(state)`` holds."""
    st = gamester.load_game(game_name).new_initial_state(seed=seed)
    rng = random.Random(seed)
    for _ in range(limit):
        if want(st):  # type: ignore[operator]
            return st
        legal = st.legal_actions()
        st.apply_action(legal[rng.randrange(len(legal))])
        if st.is_terminal():
            st = st.game.new_initial_state(seed=seed + 1000)
    raise AssertionError("no such position")


def _piquesept_phase(st: State) -> str:
    return str(st.public_observation()["phase"])


def test_piquesept_soloist_leads_the_seven_of_spades() -> None:
    """rules/piquesept.md, The soloist and the first trick: the soloist must lead 7S."""
    st = walk(
        "piquesept", 0, lambda s: _piquesept_phase(s) == "first_trick" and s.legal_action_strings() == ["7S"]
    )
    hand = st.observation(st.current_player())["hand"]
    other = next(c for c in hand if c != "7S")
    assert st.explain_illegal(st.string_to_action(other)) == (
        "The soloist must open the first trick with the seven of spades."
    )


def test_piquesept_defender_plays_his_highest_spade_in_the_first_trick() -> None:
    """rules/piquesept.md, The soloist and the first trick: a defender plays his highest spade."""

    def spade_holder(s: State) -> bool:
        hand = s.observation(s.current_player()).get("hand", [])
        legal = s.legal_action_strings()
        return (
            _piquesept_phase(s) == "first_trick" and legal != ["7S"] and len(hand) > 1 and legal[0][1] == "S"
        )

    st = walk("piquesept", 0, spade_holder)
    hand = st.observation(st.current_player())["hand"]
    other = next(c for c in hand if c not in st.legal_action_strings())
    text = st.explain_illegal(st.string_to_action(other))
    assert text.startswith("In the first trick every defender must play his highest spade: here the ")


def test_piquesept_defenders_follow_suit_then_trump() -> None:
    """rules/piquesept.md, Later tricks: a defender follows suit if able, else plays a spade."""

    def refusing(holds_led: bool):  # type: ignore[no-untyped-def]
        def want(s: State) -> bool:
            obs = s.observation(s.current_player()) if not s.is_terminal() else {}
            if (
                _piquesept_phase(s) != "play"
                or not obs.get("trick")
                or s.current_player() == obs.get("soloist")
            ):
                return False
            led = obs["trick"][0][-1]
            has_led = any(c[-1] == led for c in obs["hand"])
            return has_led == holds_led and len(s.legal_action_strings()) < len(obs["hand"])

        return want

    st = walk("piquesept", 0, refusing(True))
    bad = next(c for c in st.observation(st.current_player())["hand"] if c not in st.legal_action_strings())
    text = st.explain_illegal(st.string_to_action(bad))
    assert text.startswith("A defender must follow suit: you hold ")
    st = walk("piquesept", 1, refusing(False))
    bad = next(c for c in st.observation(st.current_player())["hand"] if c not in st.legal_action_strings())
    text = st.explain_illegal(st.string_to_action(bad))
    assert text.startswith("A defender who cannot follow suit must trump: you have no ")
    assert text.endswith("so you must play a spade.")


# Pentyrch positions: (seed, ply of seeded random play, the move tried, the rule's words).
PENTYRCH = [
    (0, 4, "QH a4-b5 AD", "A single card must be worth at least the pile's top value 5."),
    (0, 4, "JH @a4 2C", "Cell a4 holds court cards, so it is covered, not paid for."),
    (0, 4, "JH @a4", "A Jack may not cover a Queen: a King covers a Queen or Jack and a Queen a Jack."),
    (0, 8, "QH b3-a4", "A step goes forward, diagonally forward or sideways, never backward."),
    (0, 36, "QH d3-e3", "The stack on e3 already holds three court cards."),
    (0, 40, "QH d3-d4", "QH is covered on d3; only the top card may move."),
]


@pytest.mark.parametrize(("seed", "ply", "move", "words"), PENTYRCH)
def test_pentyrch_rules_in_words(seed: int, ply: int, move: str, words: str) -> None:
    """rules/pentyrch.md, A turn and Stacks: paying at least the pile's value, stepping onto an
    occupied cell (covered, not paid), the stacking order, no step backward, three to a stack, only
    the top card moves."""
    st = gamester.load_game("pentyrch").new_initial_state(seed=seed)
    rng = random.Random(seed)
    for _ in range(ply):
        legal = sorted(st.legal_actions())
        st.apply_action(legal[rng.randrange(len(legal))])
    assert st.current_player() == 0
    action = st.string_to_action(move)
    assert action not in st.legal_actions()
    assert st.explain_illegal(action) == words


def test_the_terminal_says_the_rule_when_it_refuses_a_move() -> None:
    st = penneech_deal("AH KH 2C 3C 4C 5C 6C", "2H 3D 4D 5D 6D 7S 8S", "9C", redeal="off")
    out = io.StringIO()
    answers = iter(["3D", "quit"])
    # Seat 1 plays; seat 0 (a bot) leads the AH first: the bot picks its own card, so lead it by hand.
    st.apply_action(st.string_to_action("AH"))
    TerminalGame(st, 1, [make_agent("random", seed=1), None], inp=lambda _: next(answers), out=out).run()
    text = " ".join(out.getvalue().split())  # the terminal wraps its messages at 80 columns
    assert "Not allowed: You hold hearts, so to the ace of hearts you must play one of your hearts" in text
