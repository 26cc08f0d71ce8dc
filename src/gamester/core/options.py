"""Game options: a frozen dataclass per game, fields described by :func:`option`, and named rule sets.

A game declares::

    @dataclass(frozen=True)
    class PenneechOptions:
        target: int = option(61, doc="points that win the game", minimum=1)
        follow: str = option("suit_or_trump", choices=("suit_or_trump", "suit"), doc="...")

and a mapping of :class:`RuleSet`. :func:`build_options` applies a rule set, then explicit options, and
coerces every value (JSON-typed or a string: ``0`` or ``"0"``), failing with an :class:`OptionError`
that lists what is valid.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from gamester.core.errors import OptionError, quote

T = TypeVar("T")


@dataclass(frozen=True)
class RuleSet:
    """A named reading of the rules: option overrides plus the source they follow."""

    name: str
    options: Mapping[str, Any]
    source: str
    reading: str


class OpenValue(NamedTuple):
    """One value of an option that the sources leave open, with where that reading comes from.

    A game's ``open_space`` maps each such option to its values (``gamester explore`` plays every
    combination; docs/explore.md)."""

    value: Any
    source: str


def option(
    default: Any,
    *,
    doc: str,
    choices: tuple[Any, ...] | None = None,
    minimum: int | None = None,
    maximum: int | None = None,
    parse: Callable[[Any], Any] | None = None,
    describe: str | None = None,
    web_maximum: int | None = None,
) -> Any:
    """A dataclass field with what :func:`build_options` needs to coerce and explain it.

    ``parse`` (for values of their own shape) must return the coerced value or raise ``ValueError``
    with a message saying what is valid; ``describe`` says in words what values are accepted.
    ``web_maximum``: the highest value a web table may use, for an option whose larger values would
    make one table last for days (the command line and the Python API keep ``maximum``).
    """
    meta = {
        "doc": doc,
        "choices": choices,
        "minimum": minimum,
        "maximum": maximum,
        "parse": parse,
        "describe": describe,
        "web_maximum": web_maximum,
    }
    return dataclasses.field(default=default, metadata=meta)


def _truth(value: Any) -> bool:
    # JSON-typed (true, or 0 and 1) or a string; nothing else is read as a truth value.
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and len(value) <= 20:
        s = value.strip().lower()
        if s in ("1", "true", "yes", "on"):
            return True
        if s in ("0", "false", "no", "off"):
            return False
    raise ValueError("true or false")


_MAX_DIGITS = 30  # more digits than any option's range needs; longer strings are refused unread


def parse_whole_number(value: Any) -> int:
    """A JSON int (never a bool: ``true`` is not 1) or a string of ASCII digits with an optional sign.

    ``int()`` alone would take ``"６１"`` (full-width digits), ``"6_1"`` (underscores) and ``" 61 "``
    padded with any Unicode space; the rules only know plain numbers. Raises ``ValueError``.
    """
    if isinstance(value, bool):
        raise ValueError("not a whole number")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        s = value.strip(" \t\r\n")
        body = s[1:] if s[:1] in ("+", "-") else s
        if 0 < len(body) <= _MAX_DIGITS and body.isascii() and body.isdigit():
            return int(s)
    raise ValueError("not a whole number")


def describe_values(f: dataclasses.Field[Any]) -> str:
    m = f.metadata
    if m.get("describe"):
        return str(m["describe"])
    if m.get("choices") is not None:
        return "one of " + ", ".join(str(c) for c in m["choices"])
    if f.type in (bool, "bool"):
        return "true or false"
    if f.type in (int, "int"):
        lo, hi = m.get("minimum"), m.get("maximum")
        if lo is not None and hi is not None:
            return f"a whole number from {lo} to {hi}"
        if lo is not None:
            return f"a whole number, at least {lo}"
        return "a whole number"
    return "a value"


def coerce(f: dataclasses.Field[Any], value: Any) -> Any:
    """Coerce one raw option value for field ``f`` or raise ``ValueError`` saying what is valid."""
    m = f.metadata
    if m.get("parse") is not None:
        return m["parse"](value)
    choices = m.get("choices")
    if choices is not None:
        text = value.strip().lower() if isinstance(value, str) and len(value) <= 100 else None
        for c in choices:
            # The value itself (0 for the choice 0, never true for 1) or its text ("0", "Draw").
            if type(value) is type(c) and value == c or text is not None and text == str(c).lower():
                return c
        raise ValueError(describe_values(f))
    if f.type in (bool, "bool"):
        try:
            return _truth(value)
        except ValueError:
            raise ValueError(describe_values(f)) from None
    if f.type in (int, "int"):
        try:
            n = parse_whole_number(value)
        except ValueError:
            raise ValueError(describe_values(f)) from None
        lo, hi = m.get("minimum"), m.get("maximum")
        if (lo is not None and n < lo) or (hi is not None and n > hi):
            raise ValueError(describe_values(f))
        return n
    return value


def parse_spec(spec: object) -> tuple[str, dict[str, str]]:
    """Split ``"name(k=v,k2=v2)"`` into the name and its raw options."""
    if not isinstance(spec, str):
        raise OptionError(f"a game spec is text like 'penneech(target=41)', got {quote(spec)}")
    spec = spec.strip()
    if "(" not in spec:
        return spec, {}
    if not spec.endswith(")"):
        raise OptionError(
            f"{quote(spec)}: a game spec looks like name(option=value,...), closing ')' missing"
        )
    name, _, body = spec[:-1].partition("(")
    return name.strip(), key_values(
        body, lambda part: OptionError(f"{quote(spec)}: {quote(part)} is not option=value")
    )


def key_values(body: str, bad: Callable[[str], Exception]) -> dict[str, str]:
    """``"k=v,k2=v2"`` as a dict, each side stripped and empty pieces skipped: the options of a game
    spec and the parameters of an agent spec; a piece without ``=`` raises ``bad(piece)``."""
    out: dict[str, str] = {}
    for part in body.split(","):
        part = part.strip()
        if not part:
            continue
        if "=" not in part:
            raise bad(part)
        k, _, v = part.partition("=")
        out[k.strip()] = v.strip()
    return out


def build_options(cls: type[T], rulesets: Mapping[str, RuleSet], raw: Mapping[Any, Any], game: str) -> T:
    """Options of ``cls`` from a rule set (``raw['ruleset']``, default ``standard``) and overrides.

    ``raw`` may come from a stranger's record: every name and value is checked before use, and
    messages quote them through :func:`~gamester.core.errors.quote` (short, never failing).
    """
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    for k in raw:
        if not isinstance(k, str):
            raise OptionError(
                f"{game}: option names are text, got {quote(k)} "
                f"({type(k).__name__}); valid options: ruleset, " + ", ".join(fields)
            )
    raw = dict(raw)
    rs = raw.pop("ruleset", "standard")
    rs_name = rs.strip() if isinstance(rs, str) else None
    if rs_name not in rulesets:
        raise OptionError(f"{game}: unknown rule set {quote(rs)}; valid rule sets: " + ", ".join(rulesets))
    assert rs_name is not None
    values: dict[str, Any] = {}
    for source, items in (("rule set " + rs_name, rulesets[rs_name].options), ("option", raw)):
        for k, v in items.items():
            if k not in fields:
                raise OptionError(
                    f"{game}: unknown option {quote(k)}; valid options: ruleset, " + ", ".join(fields)
                )
            try:
                values[k] = coerce(fields[k], v)
            except ValueError as e:
                raise OptionError(f"{game}: {source} {k}={quote(v)} is not valid: {k} must be {e}") from None
    opts = cls(**values)
    check = getattr(opts, "validate", None)
    if check is not None:
        try:
            check()
        except ValueError as e:
            raise OptionError(f"{game}: {e}") from None
    return opts


def web_caps(cls: type[Any]) -> dict[str, int]:
    """The options of the options class ``cls`` that a web table may set only up to a cap, with the
    cap (each field's ``web_maximum``)."""
    return {
        f.name: int(f.metadata["web_maximum"])
        for f in dataclasses.fields(cls)
        if f.metadata.get("web_maximum") is not None
    }


def options_to_json(opts: Any) -> dict[str, Any]:
    """Every option with its value, JSON-typed (tuples become lists)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(opts):
        v = getattr(opts, f.name)
        out[f.name] = list(v) if isinstance(v, tuple) else v
    return out


def describe_options(cls: type[Any]) -> list[tuple[str, Any, str, str]]:
    """``(name, default, accepted values, doc)`` for each option, for ``gamester rules``."""
    out = []
    for f in dataclasses.fields(cls):
        d = f.default
        out.append(
            (f.name, list(d) if isinstance(d, tuple) else d, describe_values(f), f.metadata.get("doc", ""))
        )
    return out
