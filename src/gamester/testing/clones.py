"""``clone()`` copies every field of a state, and shares nothing mutable it should not.

For several positions of seeded random games, each field of the clone (found by walking the fields
over the class's MRO, so a field added later is covered without being named) equals the original's,
and no mutable object is reachable from both unless the field is listed in ``shared`` with the reason
it may be shared. Shared objects are then checked to really stay unchanged: the clone plays on and the
original must still equal a deep snapshot taken before; the original then plays the same actions and
must end where the clone did.

What a clone may share is declared by the game (``Game.clone_shares``, on top of the protocol's own
:data:`BASE_SHARED`); a caller's ``shared`` adds to it. Each maps ``"Class.field"`` (the whole field
may be shared) or ``"Class.field[]"`` (the container must be copied, its entries may be shared;
``"[][]"``: two levels copied …) to the reason.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator, Mapping
from typing import Any

from gamester.core.protocol import State
from gamester.core.rng import choice, derive, make_rng
from gamester.testing._common import GameLike, as_game, expect

BASE_SHARED: dict[str, str] = {
    "State.game": "the game: immutable configuration, one object for all its states",
    "Chance._rng": "copy on write: Chance.copy() marks both sides not owning it; drawing copies first",
    "Chance._stream": "the generator's stream, copy on write like Chance._rng",
    "Chance.given": "the record's chance list, read only",
    "Chance.log[]": "the outer list is copied; its entries (packs handed out) are never changed",
}
"""What the protocol's own classes let a clone share (every game inherits these)."""

IMMUTABLE = (int, float, complex, str, bytes, bool, type(None), range, frozenset)
_MISSING = object()


def declared_fields(k: type) -> tuple[str, ...] | None:
    """The fields class ``k`` itself declares: its ``__slots__``; for a class compiled by mypyc (which
    keeps no ``__slots__``), the attributes of its ``__mypyc_attrs__`` that no base class has; None
    if it declares neither (it would then give its instances a ``__dict__``)."""
    if "__slots__" in k.__dict__:
        declared = k.__dict__["__slots__"]
        return (declared,) if isinstance(declared, str) else tuple(declared)
    if "__mypyc_attrs__" in k.__dict__:
        inherited = {a for base in k.__mro__[1:] for a in base.__dict__.get("__mypyc_attrs__", ())}
        return tuple(a for a in k.__dict__["__mypyc_attrs__"] if a not in inherited and a != "__dict__")
    return None


def has_fields(cls: type) -> bool:
    """Whether instances of ``cls`` keep their fields in slots (or mypyc's native attributes)."""
    return hasattr(cls, "__slots__") or hasattr(cls, "__mypyc_attrs__")


def slots_of(cls: type) -> list[tuple[str, str]]:
    """(declaring class name, slot) for every slot over the MRO, base first."""
    out: list[tuple[str, str]] = []
    for k in reversed(cls.__mro__):
        for s in declared_fields(k) or ():
            out.append((k.__name__, s))
    return out


def fields(obj: object) -> Iterator[tuple[str, str, Any]]:
    for owner, slot in slots_of(type(obj)):
        yield owner, slot, getattr(obj, slot, _MISSING)


def differences(a: Any, b: Any, path: str) -> list[str]:
    """Where two values differ; objects without their own __eq__ are compared slot by slot."""
    if type(a) is not type(b):
        return [f"{path}: {type(a).__name__} != {type(b).__name__}"]
    if isinstance(a, random.Random):
        return [] if a.getstate() == b.getstate() else [f"{path}: generator states differ"]
    if isinstance(a, list | tuple):
        if len(a) != len(b):
            return [f"{path}: length {len(a)} != {len(b)}"]
        return [
            d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in differences(x, y, f"{path}[{i}]")
        ]
    if isinstance(a, dict):
        if a.keys() != b.keys():
            return [f"{path}: keys differ"]
        return [d for k in a for d in differences(a[k], b[k], f"{path}[{k!r}]")]
    if "__eq__" not in {k for c in type(a).__mro__[:-1] for k in c.__dict__} and has_fields(type(a)):
        out = []
        for (_, slot, x), (_, _, y) in zip(fields(a), fields(b), strict=True):
            if (x is _MISSING) != (y is _MISSING):
                out.append(f"{path}.{slot}: set on one side only")
            elif x is not _MISSING:
                out += differences(x, y, f"{path}.{slot}")
        return out
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def allowance(shared: Mapping[str, str], cls: str, slot: str) -> int | None:
    """How many container levels of this field a clone must copy (None: all of them)."""
    for key in shared:
        if key.split("[")[0] == f"{cls}.{slot}":
            return key.count("[]")
    return None


def shared_parts(
    a: Any, b: Any, path: str, fresh: int | None, seen: set[int], shared: Mapping[str, str]
) -> list[str]:
    """Paths of mutable objects reachable from both ``a`` and ``b`` that ``shared`` does not allow:
    the first ``fresh`` container levels (all if None) must be new objects."""
    if fresh == 0 or isinstance(a, IMMUTABLE) or id(a) in seen:
        return []
    seen.add(id(a))
    if a is b and not isinstance(a, tuple):
        return [f"{path} ({type(a).__name__})"]
    deeper = None if fresh is None else fresh - 1
    if isinstance(a, list | tuple) and isinstance(b, list | tuple) and len(a) == len(b):
        return [
            p
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for p in shared_parts(x, y, f"{path}[{i}]", deeper, seen, shared)
        ]
    if isinstance(a, dict) and isinstance(b, dict):
        return [
            p for k in a if k in b for p in shared_parts(a[k], b[k], f"{path}[{k!r}]", deeper, seen, shared)
        ]
    if type(a) is type(b) and has_fields(type(a)) and not isinstance(a, random.Random):
        out = []
        for (cls, slot, x), (_, _, y) in zip(fields(a), fields(b), strict=True):
            out += shared_parts(x, y, f"{path}.{slot}", allowance(shared, cls, slot), seen, shared)
        return out
    return []


def spread_positions(game: GameLike, seed: int, count: int) -> Iterator[tuple[State, random.Random]]:
    """``count`` fresh positions spread over one seeded random game, the last one terminal (each
    replayed from the start, so the caller may play on with it)."""
    g = as_game(game)
    rng = make_rng(seed)
    actions: list[int] = []
    s = g.new_initial_state(seed=seed)
    while not s.is_terminal():
        actions.append(choice(rng, s.legal_actions()))
        s.apply_action(actions[-1])
    for i in sorted({round(k * len(actions) / (count - 1)) for k in range(count)}):
        s = g.new_initial_state(seed=seed)
        for a in actions[:i]:
            s.apply_action(a)
        yield s, make_rng(derive(seed, "clone", i))


def snapshot(state: State) -> dict[str, Any]:
    memo: dict[int, Any] = {id(state.game): state.game}
    return {f"{cls}.{slot}": copy.deepcopy(v, memo) for cls, slot, v in fields(state)}


def views(state: State) -> dict[str, Any]:
    """Everything the protocol shows of a state (to compare a clone with its original)."""
    n = state.game.num_players
    out: dict[str, Any] = {
        "record": state.record(),
        "public": state.public_observation(),
        "terminal": state.is_terminal(),
        "returns": state.returns(),
        "scores": state.scores(),
        "history": state.history_strings(),
    }
    if not state.is_terminal():
        out["player"] = state.current_player()
        out["legal"] = state.legal_actions()
    for p in range(n):
        out[f"observation {p}"] = state.observation(p)
        out[f"tensor {p}"] = state.observation_tensor(p)
    return out


def check_clone_copies_every_field(
    game: GameLike, shared: Mapping[str, str] | None = None, seeds: range = range(3), count: int = 5
) -> None:
    """See the module's docstring: :data:`BASE_SHARED`, the game's ``clone_shares`` and ``shared``."""
    g = as_game(game)
    allowed = {**BASE_SHARED, **g.clone_shares, **(shared or {})}
    state = g.new_initial_state(seed=0)
    known = {f"{cls}.{slot}" for cls, slot in slots_of(type(state))}
    for key in g.clone_shares:
        expect(
            key.split("[")[0] in known,
            f"{g.spec()}: clone_shares names {key}, which is not a field of {type(state).__name__}",
        )
    for seed in seeds:
        for state, rng in spread_positions(g, seed, count):
            clone = state.clone()
            expect(type(clone) is type(state), f"{g.spec()}: clone() returns a {type(clone).__name__}")
            where = f"{g.spec()} seed {seed} after {len(state.history_strings())} actions"
            for (cls, slot, a), (_, _, b) in zip(fields(state), fields(clone), strict=True):
                expect(a is not _MISSING, f"{where}: {cls}.{slot} is not set on the original")
                expect(b is not _MISSING, f"{where}: clone() does not set {cls}.{slot}")
                diff = differences(a, b, f"{cls}.{slot}")
                expect(not diff, f"{where}: the clone differs: {diff[:3]}")
                parts = shared_parts(a, b, f"{cls}.{slot}", allowance(allowed, cls, slot), set(), allowed)
                expect(not parts, f"{where}: the clone shares mutable {parts[:3]}")
            before = snapshot(state)
            actions = []
            for _ in range(12):
                if clone.is_terminal():
                    break
                a = choice(rng, clone.legal_actions())
                actions.append(a)
                clone.apply_action(a)
            after = snapshot(state)
            for key, value in before.items():
                diff = differences(value, after[key], key)
                expect(not diff, f"{where}: playing the clone changed the original: {diff[:3]}")
            for a in actions:
                state.apply_action(a)
            expect(views(state) == views(clone), f"{where}: clone and original diverged after {actions}")
