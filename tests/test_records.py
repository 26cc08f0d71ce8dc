"""Hostile records and options (issue 9): every bad input is a GameError naming the field.

Also the Pentyrch ``overpay`` move listing, whose cost was quadratic in the number of legal moves:
checked here by counting the work done per move, never by timing it.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

import gamester
from gamester.core import build
from gamester.core.errors import GameError, OptionError, RecordError, quote
from gamester.core.record import load_record_lines, load_record_text
from gamester.games.pentyrch.combos import OverpayPayments
from gamester.games.pentyrch.game import COMBO_BASE, PentyrchGame, _combo_positions

DATA = Path(__file__).parent / "data"


def record_of(spec: str, seed: int = 3, moves: int = 6) -> dict[str, Any]:
    state = gamester.load_game(spec).new_initial_state(seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    return state.record()


def refused(record: Any, *fields: str) -> str:
    """The one-line message replaying ``record`` gives; it must name one of ``fields``."""
    with pytest.raises(RecordError) as info:
        gamester.replay(record)
    msg = str(info.value)
    assert "\n" not in msg and len(msg) < 1000, msg
    assert any(f in msg for f in fields), msg
    return msg


def nested(depth: int, leaf: Any = "8H") -> Any:
    x = leaf
    for _ in range(depth):
        x = [x]
    return x


# -- options -----------------------------------------------------------------------------------------
def test_an_option_named_spec_is_refused_by_name() -> None:
    """Was a TypeError: ``load_game(name, **options)`` took it for its own first argument."""
    rec = record_of("penneech")
    msg = refused({**rec, "options": {"spec": "x"}}, "options")
    assert "unknown option 'spec'" in msg
    with pytest.raises(OptionError, match="unknown option 'spec'"):
        gamester.load_game("penneech", spec="x")
    with pytest.raises(OptionError, match="unknown option 'spec'"):
        gamester.load_game("penneech(spec=1)")


def test_deeply_nested_removed_eights_is_an_option_error() -> None:
    """Was a RecursionError: ``str()`` of a list nested thousands deep, and ``json.loads`` of a string."""
    rec = record_of("piquesept(players=3)")
    for bad in (
        nested(100_000),
        "[" * 50_000 + "]" * 50_000,
        "[" * 60 + '"8H", "8D"' + "]" * 60,
        ["8H", nested(3)],
        ["8H", "8D", "8C"],
        "8H " * 10_000,
        {"8H": 1},
    ):
        msg = refused({**rec, "options": {**rec["options"], "removed_eights": bad}}, "removed_eights")
        assert "removed_eights" in msg
    with pytest.raises(OptionError, match="removed_eights"):
        gamester.load_game("piquesept", players=3, removed_eights="[" * 50_000)
    assert gamester.load_game(
        "piquesept", players=3, removed_eights='["8C", "8H"]'
    ).options.removed_eights == ("8H", "8C")


def test_option_values_of_every_hostile_shape() -> None:
    rec = record_of("penneech")
    for bad in (
        10**10_000,
        -(10**5000),
        nested(50_000),
        1.5,
        None,
        [61],
        {"a": 1},
        "6" * 5000,
        float("nan"),
        True,
        "６１",
        "6_1",
        "61.0",
        "0x3d",
        "+-61",
        "",
    ):
        msg = refused({**rec, "options": {"target": bad}}, "target")
        assert "target must be a whole number" in msg, msg


def test_strict_whole_numbers_and_truth_values() -> None:
    """rules: target is a whole number; Python's int() also reads '６１' and '6_1', bool is an int."""
    assert gamester.load_game("penneech", target="61").options.target == 61
    assert gamester.load_game("penneech", target=" +41 ").options.target == 41
    bad: Any
    for bad in ("６１", "6_1", True, False, 41.0, "٤١"):
        with pytest.raises(OptionError, match="target"):
            gamester.load_game("penneech", target=bad)
    for ok, want in (("true", True), ("Off", False), (1, True), (0, False), (True, True)):
        assert gamester.load_game("pentyrch", overpay=ok).options.overpay is want
    for bad in (2, "maybe", [True], None, 1.0, "t" * 10_000):
        with pytest.raises(OptionError, match="overpay"):
            gamester.load_game("pentyrch", overpay=bad)
    # a choice is its own value or its text: 0 and "0" are seat 0, True is not seat 1
    assert gamester.load_game("penneech", first_dealer="0").options.first_dealer == 0
    for bad in (True, 0.0, [0], "x" * 10_000):
        with pytest.raises(OptionError, match="first_dealer"):
            gamester.load_game("penneech", first_dealer=bad)


def test_option_names_and_rule_sets_of_every_hostile_shape() -> None:
    rec = record_of("pentyrch")
    refused({**rec, "options": {1: 2}}, "option names are text")
    refused({**rec, "options": {("a",): 2}}, "option names are text")
    refused({**rec, "options": {"x" * 100_000: 2}}, "unknown option")
    refused({**rec, "options": {"ruleset": nested(50_000)}}, "unknown rule set")
    refused({**rec, "options": {"ruleset": ["standard"]}}, "unknown rule set")
    with pytest.raises(OptionError, match="a game spec is text"):
        gamester.load_game(nested(10))


# -- record fields ------------------------------------------------------------------------------------
def test_version_and_rules_version_are_ints_not_bools() -> None:
    rec = record_of("penneech")
    refused({**rec, "version": True}, "version")
    refused({**rec, "version": 1.0}, "version")
    refused({**rec, "rules_version": True}, "rules_version")
    gamester.replay({**rec, "version": 1})


def test_record_fields_of_every_hostile_shape() -> None:
    rec = record_of("piquesept")
    refused({**rec, 7: 1}, "field names are text")
    refused({**rec, "format": nested(50_000)}, "format")
    refused({**rec, "game": 10**10_000}, "game")
    refused({**rec, "seed": 10**10_000}, "seed")
    refused({**rec, "seed": True}, "seed")
    refused({**rec, "chance": nested(50_000)}, "chance")
    refused({**rec, "chance": [nested(50_000)]}, "chance[0]")
    refused({**rec, "chance": ["AS " * 100_000]}, "chance[0]")
    refused({**rec, "chance": [list(range(10**6))]}, "chance[0]")
    refused({**rec, "actions": [nested(50_000)]}, "actions[0]")
    refused({**rec, "actions": ["x" * 10**6]}, "actions[0]")
    refused({**rec, "actions": [10**10_000]}, "actions[0]")
    for value in (None, 3, "text", [1, 2], 10**10_000, nested(50_000), b"{}", object()):
        refused(value, "a record must be a JSON object")


def test_unused_chance_entries_must_be_well_formed() -> None:
    """docs/records.md: entries left unused at the end are allowed, but must be well formed."""
    rec = record_of("penneech", moves=0)
    used = len(rec["chance"])
    gamester.replay({**rec, "chance": rec["chance"] + [list(rec["chance"][0]), "AS", "AS KS"]})
    bads: list[Any] = [[1, 2], ["AS", "AS"], nested(50_000), ["ZZ"], {}, 10**10_000, [], "AS AS"]
    for bad in bads:
        msg = refused({**rec, "chance": rec["chance"] + [bad]}, f"chance[{used}]")
        assert "unused" in msg


def test_messages_quote_hostile_values_briefly() -> None:
    class Loud:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    assert quote(10**100_000) == "<a 100000-digit number>"
    assert len(quote("x" * 10**6)) < 200
    assert quote(nested(100_000)) == "[[[[...]]]]"
    assert "Loud" in quote(Loud()) and len(quote(Loud())) < 100
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(4300)
    try:
        assert "digit number" in quote(10**5000)
    finally:
        sys.set_int_max_str_digits(old)


# -- files ---------------------------------------------------------------------------------------------
def test_load_record_text_refuses_what_json_loads_would_crash_on() -> None:
    rec = record_of("pentyrch")
    text = json.dumps(rec)
    assert load_record_text(text) == rec
    assert load_record_text(text.encode()) == rec
    assert load_record_text(b"\xef\xbb\xbf" + text.encode()) == rec
    for bad, why in (
        (b"\xff\xfe{}", "not UTF-8"),
        (text.encode("utf-16"), "not UTF-8"),
        ("1" * 5000, "digits"),
        ('{"seed": ' + "9" * 4400 + "}", "digits"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"seed": NaN}', "NaN"),
        ("{", "not valid JSON"),
        ("", "not valid JSON"),
        ("1e99999", "RecordError"),
    ):
        try:
            value = load_record_text(bad)
        except RecordError as e:
            assert "\n" not in str(e)
            assert why in str(e) or why == "RecordError", str(e)
        else:
            # a value that parses (1e99999 is inf) is still refused when replayed
            assert why == "RecordError"
            with pytest.raises(RecordError):
                gamester.replay(value)


def test_load_record_lines_names_the_bad_line() -> None:
    rec = json.dumps(record_of("penneech"))
    assert len(load_record_lines(f"{rec}\n\n{rec}\n")) == 2
    with pytest.raises(RecordError, match="line 3"):
        load_record_lines(f"{rec}\n\n{{\n")
    with pytest.raises(RecordError, match="line 2 is not UTF-8"):
        load_record_lines(rec.encode() + b"\n\xff\n")


# -- Pentyrch overpay: the cost of listing moves -----------------------------------------------------------
def test_overpay_ranking_matches_the_listed_order() -> None:
    """combos.py counts, ranks and unranks exactly the payments _combo_positions lists, in its order."""
    rnd = random.Random(9)
    for _ in range(300):
        n = rnd.randint(0, 9)
        values = tuple(sorted((rnd.randint(1, 10) for _ in range(n)), reverse=True))
        v = rnd.randint(1, 10)
        listed = _combo_positions(values, v, True)
        space = OverpayPayments(values, v)
        assert space.count == len(listed)
        for r, payment in enumerate(listed):
            assert space.unrank(r) == payment
            assert space.rank(*payment) == r
        names = [f"c{i}" for i in range(n)]
        assert space.walk(names) == [
            "+".join([names[t]] + [names[i] for i in range(n) if m >> i & 1]) for t, m in listed
        ]
        members = set(listed)
        for _ in range(20):
            t, m = rnd.randrange(max(n, 1)), rnd.randrange(1 << max(n, 1))
            if (t, m) not in members:
                assert space.rank(t, m) == -1


def _big_position() -> gamester.core.protocol.State:
    record = json.loads((DATA / "pentyrch_overpay_4p_6058.json").read_text())
    return gamester.replay(record)


def test_overpay_notation_decodes_each_move_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Was quadratic: every action_to_string decoded every legal move (hours for 100,000 moves)."""
    state = _big_position()
    legal = state.legal_actions()
    assert len(legal) == 6058
    calls = [0]
    real = PentyrchGame.combo_at

    def counted(self: PentyrchGame, hand: int, v: int, r: int) -> tuple[int, int]:
        calls[0] += 1
        return real(self, hand, v, r)

    monkeypatch.setattr(PentyrchGame, "combo_at", counted)
    # Compiled, the engine calls combo_at directly, past the patch (it counts nothing): the counts
    # are the source's property, checked by the pure build; the rest holds in both.
    counts = not any(m.startswith("gamester.games.pentyrch.") for m in build.compiled_modules())
    combos = [a for a in legal if a >= COMBO_BASE][::50]
    names = [state.action_to_string(a) for a in combos]
    assert calls[0] == (len(combos) if counts else 0)
    calls[0] = 0
    assert [state.string_to_action(x) for x in names] == combos
    assert calls[0] == 0
    every = state.legal_action_strings()
    assert calls[0] == 0
    assert len(every) == len(legal) == len(set(every))
    assert [every[legal.index(a)] for a in combos] == names
    assert sorted(every) == gamester.summary(state)["legal_actions"]
    with pytest.raises(GameError):
        state.string_to_action(names[0].rsplit("+", 1)[0] + "+AS")


@pytest.mark.parametrize("name", ["pentyrch_overpay_4p_47983.json", "pentyrch_overpay_2p_120508.json"])
def test_the_largest_positions_found_list_and_parse(name: str) -> None:
    """The worst records found by biased random play (benchmarks/pentyrch_overpay.py times them)."""
    state = gamester.replay(json.loads((DATA / name).read_text()))
    legal = state.legal_actions()
    assert len(legal) == int(name.rsplit("_", 1)[1].split(".")[0])
    every = state.legal_action_strings()
    assert len(set(every)) == len(legal)
    for i in range(0, len(legal), 997):
        assert state.action_to_string(legal[i]) == every[i]
        assert state.string_to_action(every[i]) == legal[i]
    mask = state.legal_actions_mask()
    assert sum(mask) == len(legal)


@pytest.mark.parametrize("spec", ["penneech", "piquesept", "pentyrch", "pentyrch(overpay=true)"])
def test_hostile_actions_from_python_get_short_game_errors(spec: str) -> None:
    """Was ValueError / RecursionError / the object's own error while quoting the action."""

    class Loud:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    state = gamester.load_game(spec).new_initial_state(seed=1)
    values: list[Any] = [
        10**5000,
        2**64,
        -1,
        nested(50_000),
        "x" * 10**6,
        None,
        1.5,
        True,
        Loud(),
        b"AS",
        {"a": 1},
        "AS " * 10_000,
        "JH a4-" + "b" * 10_000,
    ]
    for value in values:
        for call in (
            state.apply_action,
            state.action_to_string,
            state.string_to_action,
            lambda v: state.action_seen_by(v, 0),
        ):
            with pytest.raises(GameError) as info:
                call(value)
            assert len(str(info.value)) < 2000
