"""Fuzzing records (issue 9): mutated real records of every game replay to a sound state or fail cleanly.

Hypothesis takes real records (seeded random games of every rule set and player count, cut anywhere)
and mutates them: fields deleted, duplicated or retyped; values nested, huge or of the wrong kind;
cards repeated or missing in a pack; chance truncated; actions swapped, repeated or made up; odd
option names and values. Every outcome must be either

* a state whose own record replays to the same actions through positions that all pass the game's
  invariants (``tests/invariants_*.py``), and whose summary is JSON, or
* a :class:`GameError` with a one-line message naming the record field that was wrong,

and nothing else. Each replay runs under an alarm of ten seconds (generous: the target is two, and the
longest measured is printed), so a pathological input fails its test instead of stalling CI.

Counts per game (inputs tried, accepted, refused, anything else) are printed; run with ``pytest -s``
to see them. ``GAMESTER_FUZZ_EXAMPLES=N`` sets the examples per game (default 300, about 20 s).
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import json
import os
import random
import re
import signal
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gamester
from gamester.core.errors import GameError

EXAMPLES = int(os.environ.get("GAMESTER_FUZZ_EXAMPLES", "300"))
ALARM_SECONDS = 10

SPECS: dict[str, list[str]] = {
    "penneech": [
        "penneech",
        "penneech(ruleset=cotton)",
        "penneech(ruleset=pagat,first_dealer=1)",
        "penneech(objective=deal,redeal=off)",
        "penneech(target=15)",
    ],
    "piquesept": [
        "piquesept",
        "piquesept(ruleset=three_hand)",
        "piquesept(deals=2,trade_visible=true)",
        "piquesept(players=3,removed_eights=8C 8D,first_trick_highest=points)",
    ],
    "pentyrch": [
        "pentyrch",
        "pentyrch(ruleset=partnership)",
        "pentyrch(ruleset=two_player)",
        "pentyrch(players=3,max_rounds=30)",
        "pentyrch(overpay=true,combine=always,max_rounds=20)",
        "pentyrch(games=2,max_rounds=15,reveal_on_pass=false)",
    ],
}
FIELDS = ("format", "version", "game", "rules_version", "options", "seed", "chance", "actions")
# A refusal names the field it is about: the message starts with it.
NAMED = re.compile(
    r"^(format|version|game|rules_version|options|seed|chance(\[\d+\])?|actions(\[\d+\])?"
    r"|seed, chance|record field names|a record must be a JSON object)\b"
)
INVARIANTS: dict[str, Callable[[Any], None]] = {
    name: importlib.import_module(f"tests.invariants_{name}").check for name in SPECS
}
# Huge ints are built by the strategy, never stored in it (Hypothesis reprs its strategies, and repr of
# an int over 4,300 digits raises).
HUGE = st.sampled_from(
    [(10, 5000), (-10, 401), (2, 64), (2, 1025), (10, 30), (-1, 1), (0, 1), (2, 1), (52, 1), (10, 6)]
).map(lambda be: be[0] ** be[1])
ODD_TEXT = [
    "",
    " ",
    "６１",
    "6_1",
    "1e3",
    "0x10",
    "+-1",
    "true",
    "null",
    "[",
    "[]",
    "{}",
    "pass",
    "x" * 5000,
    "\x00",
    "\udcff",
    "AS AS",
    "8H,8H",
    "10S",
    "♠A",
    "ruleset",
    "spec",
]


def _base_records() -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for name, specs in SPECS.items():
        recs = []
        for i, spec in enumerate(specs):
            state = gamester.load_game(spec).new_initial_state(seed=100 + i)
            rng = random.Random(i)
            while not state.is_terminal() and len(state.history_strings()) < 400:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
            recs.append(state.record())
        out[name] = recs
    return out


BASE = _base_records()


def nest(value: Any, depth: int) -> Any:
    for _ in range(depth):
        value = [value]
    return value


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 60)
    | HUGE
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(ODD_TEXT),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
# Python values no JSON holds: the API may still be handed them.
python_values = st.sampled_from(
    [(1, 2), b"AS", {"AS"}, frozenset(), 1 + 2j, object(), range(3), {1: "a"}, {("k",): 1}, bytearray(b"x")]
)
any_values = json_values | python_values | st.builds(nest, json_values, st.integers(1, 3000))


def _card_codes(rec: dict[str, Any]) -> list[str]:
    codes = [c for e in rec.get("chance") or [] if isinstance(e, list) for c in e if isinstance(c, str)]
    return codes or ["AS"]


def mutate(data: st.DataObject, rec: dict[str, Any], game: str) -> dict[str, Any]:
    """One mutation of ``rec`` (changed in place and returned), chosen by Hypothesis."""
    kind = data.draw(
        st.sampled_from(
            [
                "delete",
                "duplicate",
                "retype",
                "nest",
                "truncate_actions",
                "truncate_chance",
                "pack_repeat",
                "pack_drop",
                "pack_extra",
                "pack_retype",
                "pack_shuffle",
                "action_swap",
                "action_repeat",
                "action_foreign",
                "action_text",
                "option_add",
                "option_retype",
                "option_drop",
                "other_game",
                "extra_chance",
                "seed_only",
            ]
        ),
        label="mutation",
    )
    chance = rec.get("chance")
    actions = rec.get("actions")
    packs = [i for i, e in enumerate(chance) if isinstance(e, list) and e] if isinstance(chance, list) else []
    if kind == "delete":
        rec.pop(data.draw(st.sampled_from(FIELDS)), None)
    elif kind == "duplicate":
        a, b = data.draw(st.sampled_from(FIELDS)), data.draw(st.sampled_from(FIELDS))
        if a in rec:
            try:
                rec[b] = copy.deepcopy(rec[a])
            except RecursionError:  # a value nested by an earlier mutation: share it
                rec[b] = rec[a]
    elif kind == "retype":
        rec[data.draw(st.sampled_from(FIELDS))] = data.draw(any_values)
    elif kind == "nest":
        field = data.draw(st.sampled_from(FIELDS))
        depth = data.draw(st.sampled_from([1, 2, 50, 1200, 5000]))
        target = rec.get(field)
        if isinstance(target, list) and target and data.draw(st.booleans()):
            i = data.draw(st.integers(0, len(target) - 1))
            target[i] = nest(target[i], depth)
        elif isinstance(target, dict) and target:
            k = data.draw(st.sampled_from(sorted(target)))
            target[k] = nest(target[k], depth)
        else:
            rec[field] = nest(target, depth)
    elif kind == "truncate_actions" and isinstance(actions, list):
        del actions[data.draw(st.integers(0, len(actions))) :]
    elif kind == "truncate_chance" and isinstance(chance, list):
        del chance[data.draw(st.integers(0, len(chance))) :]
    elif kind.startswith("pack_") and packs:
        pack = chance[data.draw(st.sampled_from(packs))]  # type: ignore[index]
        i = data.draw(st.integers(0, len(pack) - 1))
        if kind == "pack_repeat":
            pack[i] = pack[data.draw(st.integers(0, len(pack) - 1))]
        elif kind == "pack_drop":
            del pack[i]
        elif kind == "pack_extra":
            pack.insert(i, data.draw(st.sampled_from(_card_codes(rec) + ["XX", "AS", "2C", "JS"])))
        elif kind == "pack_retype":
            pack[i] = data.draw(any_values)
        else:
            random.Random(data.draw(st.integers(0, 99))).shuffle(pack)
    elif kind in ("action_swap", "action_repeat") and isinstance(actions, list) and len(actions) >= 2:
        i = data.draw(st.integers(0, len(actions) - 2))
        if kind == "action_swap":
            actions[i], actions[i + 1] = actions[i + 1], actions[i]
        else:
            actions.insert(i, actions[i])
    elif kind == "action_foreign" and isinstance(actions, list) and actions:
        other = data.draw(st.sampled_from([r for rs in BASE.values() for r in rs]))["actions"]
        if other:
            i = data.draw(st.integers(0, len(actions) - 1))
            actions[i] = data.draw(st.sampled_from(other))
    elif kind == "action_text" and isinstance(actions, list):
        i = data.draw(st.integers(0, len(actions)))
        actions.insert(i, data.draw(st.sampled_from(ODD_TEXT) | st.text(max_size=12) | any_values))
    elif kind.startswith("option_") and isinstance(rec.get("options"), dict):
        opts = rec["options"]
        if kind == "option_add" or not opts:
            opts[data.draw(st.sampled_from(ODD_TEXT) | st.text(max_size=8))] = data.draw(any_values)
        elif kind == "option_retype":
            opts[data.draw(st.sampled_from(sorted(opts)))] = data.draw(any_values | st.sampled_from(ODD_TEXT))
        else:
            del opts[data.draw(st.sampled_from(sorted(opts)))]
    elif kind == "other_game":
        rec["game"] = data.draw(st.sampled_from([g for g in SPECS if g != game] + ["Penneech", "chess"]))
    elif kind == "extra_chance" and isinstance(chance, list):
        whole: list[Any] = [list(chance[packs[0]])] if packs else [["AS"]]
        chance.append(data.draw(st.sampled_from(whole) | st.sampled_from(_card_codes(rec)) | any_values))
    elif kind == "seed_only":
        rec.pop("chance", None)
        rec["seed"] = data.draw(st.integers(-(2**70), 2**70) | HUGE)
    return rec


class Slow(Exception):
    pass


@contextmanager
def alarm(seconds: int) -> Iterator[None]:
    def ring(signum: int, frame: FrameType | None) -> None:
        raise Slow(f"took more than {seconds} s")

    old = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def outcome(record: Any, game: str) -> str:
    """``accepted`` or ``refused``; raises AssertionError for anything else (after counting)."""
    try:
        with alarm(ALARM_SECONDS):
            state = gamester.replay(record)
    except GameError as e:
        msg = str(e)
        assert "\n" not in msg and len(msg) <= 2000, f"message not one short line: {msg[:300]!r}"
        assert NAMED.match(msg), f"refusal names no field: {msg[:300]!r}"
        return "refused"
    with alarm(ALARM_SECONDS):
        check = INVARIANTS[state.game.name]
        # the invariants hold at every position the record passes through, not only the last
        again = state.record()
        walk = state.game.new_initial_state(seed=again["seed"], chance=again["chance"])
        check(walk)
        for text in again["actions"]:
            walk.apply_action(walk.string_to_action(text))
            check(walk)
        assert walk.history_strings() == again["actions"] == state.history_strings()
        json.dumps(gamester.summary(state))
        if not state.is_terminal():
            assert state.legal_actions(), "no legal action before the end"
    return "accepted"


STATS: dict[str, Counter[str]] = {}
WORST: dict[str, float] = {}


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(SPECS))
def test_mutated_records_replay_or_fail_cleanly(game: str) -> None:
    stats = STATS.setdefault(game, Counter())
    WORST.setdefault(game, 0.0)

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        rec = copy.deepcopy(data.draw(st.sampled_from(BASE[game]), label="base"))
        for _ in range(data.draw(st.integers(1, 3), label="mutations")):
            rec = mutate(data, rec, game)
        stats["tried"] += 1
        start = time.perf_counter()
        try:
            stats[outcome(rec, game)] += 1
        except BaseException:
            stats["other"] += 1
            raise
        finally:
            WORST[game] = max(WORST[game], time.perf_counter() - start)

    try:
        run()
    finally:
        print(
            f"\nfuzz {game}: tried {stats['tried']}, accepted {stats['accepted']}, refused "
            f"{stats['refused']}, other {stats['other']}; slowest {WORST[game]:.2f} s"
        )
    assert stats["other"] == 0
    assert stats["accepted"] and stats["refused"]


@settings(max_examples=max(50, EXAMPLES // 3), deadline=None, database=None, derandomize=True)
@given(value=any_values)
@pytest.mark.slow
def test_any_value_is_refused_as_a_record(value: Any) -> None:
    """``gamester.replay`` of any JSON or Python value that is not a record: a GameError, nothing else."""
    with pytest.raises(GameError), alarm(ALARM_SECONDS):
        gamester.replay(value)


OPTION_NAMES = {
    name: [f.name for f in dataclasses.fields(gamester.load_game(name).options_class)] for name in SPECS
}


def _valid_values(f: dataclasses.Field[Any]) -> list[Any]:
    """Values option ``f`` accepts, typed and spelled: part of the inputs should be accepted."""
    m = f.metadata
    if m.get("choices"):
        return [*m["choices"], *(str(c).upper() for c in m["choices"])]
    if f.type in (bool, "bool"):
        return [True, False, 0, 1, "true", "Off", " yes "]
    if f.type in (int, "int"):
        lo, hi = m.get("minimum") or 0, m.get("maximum") or 100
        return [lo, hi, str(lo), f"+{hi}", f" {lo} "]
    return [f.default, list(f.default) if isinstance(f.default, tuple) else f.default, "8C 8D", "8h,8c"]


VALID: dict[str, dict[str, list[Any]]] = {
    name: {f.name: _valid_values(f) for f in dataclasses.fields(gamester.load_game(name).options_class)}
    for name in SPECS
}


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(SPECS))
def test_option_values_typed_or_spelled_give_a_game_or_an_option_error(game: str) -> None:
    """``--option K=V`` and keyword options: any name and value give a game or a one-line OptionError."""
    stats: Counter[str] = Counter()
    names = sorted(VALID[game])

    @settings(max_examples=max(50, EXAMPLES // 2), deadline=None, database=None, derandomize=True)
    @given(data=st.data(), as_text=st.booleans())
    def run(data: st.DataObject, as_text: bool) -> None:
        # mostly real names and valid values, so that both outcomes are common
        real = data.draw(st.integers(0, 3)) > 0
        odd_name = st.sampled_from(["ruleset", "spec", ""]) | st.text(max_size=8)
        name = data.draw(st.sampled_from(names) if real else odd_name)
        valid = VALID[game].get(name, ["standard", "cotton", "three_hand", "two_player"])
        hostile = any_values | st.sampled_from(ODD_TEXT) | st.text(max_size=12)
        value = data.draw(st.sampled_from(valid) if data.draw(st.booleans()) else hostile)
        stats["tried"] += 1
        try:
            with alarm(ALARM_SECONDS):
                if as_text and isinstance(value, str):
                    gamester.load_game(f"{game}({name}={value})")
                else:
                    gamester.load_game(game, **{name: value})
        except GameError as e:
            assert "\n" not in str(e) and len(str(e)) <= 2000
            stats["refused"] += 1
        except BaseException:
            stats["other"] += 1
            raise
        else:
            stats["accepted"] += 1

    try:
        run()
    finally:
        print(
            f"\noptions {game}: tried {stats['tried']}, accepted {stats['accepted']}, refused "
            f"{stats['refused']}, other {stats['other']}"
        )
    assert stats["other"] == 0
