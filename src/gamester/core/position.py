"""What every game's position notation shares (docs/positions.md): one line of text, the game's spec
and then ``field=value`` words, written by ``State.position()`` and read by ``Game.read_position``.

A game decides its own fields; this module holds the grammar, the readers of the common kinds of
value (whole numbers, seats, cards, lists of them) that name the field in every refusal, and the two
fields every game ends with: ``rng``, the state's generator where it stands (the chance still to
come), and ``next``, the outcomes still to come when the state replays a record's ``chance``.

    penneech(ruleset=cotton) dealer=1 deal=0 scores=0,0 dealt=... stock=... plays=keep,QH rng=7

Every refusal is a :class:`~gamester.core.errors.PositionError` (a ``ValueError``) of one line that
starts with ``position:`` and the field it is about.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final

from gamester.core.cards import CODES, parse_card
from gamester.core.errors import GameError, OptionError, PositionError, quote
from gamester.core.options import build_options, parse_spec
from gamester.core.rng import BitStream, Chance, HashRandom, Origin, seed_bytes

if TYPE_CHECKING:
    from gamester.core.protocol import Game, State

MAX_LENGTH: Final = 20_000
"""A position's text is refused unread beyond this many characters (the longest a game writes, a
Pentyrch match position, is about 2,000)."""

EMPTY: Final = "-"
"""How an empty list is written (no cards, no plays)."""

CHANCE_FIELDS: Final = ("rng", "next")


def split(text: object) -> tuple[str, dict[str, str]]:
    """The game spec a position starts with, and its fields in order (each value as written).

    The spec runs to the first space, or to its closing parenthesis when it has options (an option's
    value may hold spaces); each field after it is ``name=value`` with no space in the value.
    """
    if not isinstance(text, str):
        raise PositionError(f"position: expected one line of text, got {quote(text)}")
    if len(text) > MAX_LENGTH:
        raise PositionError(
            f"position: {len(text)} characters is longer than any position (at most {MAX_LENGTH})"
        )
    line = text.strip()
    if not line:
        raise PositionError("position: empty; a position starts with its game, e.g. 'penneech dealer=0 …'")
    if "\n" in line or "\r" in line:
        raise PositionError("position: a position is one line of text (this one holds a line break)")
    paren = line.find("(")
    space = line.find(" ")
    if paren >= 0 and (space < 0 or paren < space):
        close = line.find(")", paren)
        if close < 0:
            raise PositionError(f"position: the game's options {quote(line[paren:], 40)} have no closing ')'")
        spec, rest = line[: close + 1], line[close + 1 :]
        if rest and not rest.startswith(" "):
            raise PositionError(f"position: expected a space after the game {quote(spec, 40)}")
    else:
        spec, rest = (line, "") if space < 0 else (line[:space], line[space:])
    fields: dict[str, str] = {}
    for word in rest.split():
        name, eq, value = word.partition("=")
        if not eq or not name:
            raise PositionError(f"position: fields are written name=value, got {quote(word, 40)}")
        if name in fields:
            raise PositionError(f"position: field {name!r} is given twice")
        fields[name] = value
    return spec, fields


def open_fields(game: Game, text: object, known: Sequence[str]) -> Fields:
    """The fields of ``text``, a position of ``game`` (its spec must name this game with these
    options, as ``game.spec()`` writes them or in any other spelling ``load_game`` takes)."""
    spec, fields = split(text)
    try:
        name, raw = parse_spec(spec)
        cls = type(game)
        if name != game.name:
            raise PositionError(f"position: {quote(spec, 40)} is not a {game.name} position")
        options: object = build_options(cls.options_class, cls.rulesets, raw, name)
    except OptionError as e:
        raise PositionError(f"position: {e}") from None
    if options != game.options:
        raise PositionError(f"position: a position of {quote(spec, 60)}, not of {game.spec()}")
    return Fields(game.name, fields, known)


def join(spec: str, fields: Iterable[tuple[str, str]]) -> str:
    """A position's text: the spec, then each field as ``name=value``."""
    return " ".join([spec, *(f"{k}={v}" for k, v in fields)])


def cards_text(cards: Iterable[int]) -> str:
    """Card ids as codes joined by commas (``-`` for none)."""
    return ",".join(CODES[c] for c in cards) or EMPTY


def ints_text(values: Iterable[int]) -> str:
    return ",".join(str(v) for v in values) or EMPTY


class Fields:
    """The fields of one position, read one by one; each reader names its field when it refuses."""

    def __init__(self, game: str, fields: dict[str, str], known: Sequence[str]) -> None:
        self.game = game
        self.fields = fields
        allowed = [*known, *CHANCE_FIELDS]
        for name in fields:
            if name not in allowed:
                raise PositionError(
                    f"position: unknown field {quote(name, 30)}; a {game} position has " + ", ".join(allowed)
                )

    def has(self, name: str) -> bool:
        return name in self.fields

    def text(self, name: str, default: str | None = None) -> str:
        value = self.fields.get(name)
        if value is None:
            if default is None:
                raise PositionError(f"position: field {name!r} is missing")
            return default
        return value

    def fail(self, name: str, why: str) -> PositionError:
        return PositionError(f"position: {name}={quote(self.fields.get(name, ''), 40)}: {why}")

    def number(self, name: str, lo: int, hi: int, default: int | None = None) -> int:
        if default is not None and name not in self.fields:
            return default
        return self._number(name, self.text(name), lo, hi)

    def _number(self, name: str, text: str, lo: int, hi: int) -> int:
        body = text[1:] if text[:1] == "-" else text
        if not (0 < len(body) <= 30 and body.isascii() and body.isdigit()):
            raise self.fail(name, f"expected a whole number from {lo} to {hi}")
        n = int(text)
        if not lo <= n <= hi:
            raise self.fail(name, f"{n} is not from {lo} to {hi}")
        return n

    def numbers(self, name: str, count: int, lo: int, hi: int, default: list[int] | None = None) -> list[int]:
        """``count`` whole numbers, comma-separated (``-`` for none when ``count`` is 0)."""
        if default is not None and name not in self.fields:
            return default
        text = self.text(name)
        parts = [] if text == EMPTY else text.split(",")
        if len(parts) != count:
            raise self.fail(name, f"expected {count} whole numbers separated by commas")
        return [self._number(name, p, lo, hi) for p in parts]

    def flag(self, name: str, default: bool | None = None) -> bool:
        if default is not None and name not in self.fields:
            return default
        text = self.text(name)
        if text not in ("0", "1"):
            raise self.fail(name, "expected 1 (yes) or 0 (no)")
        return text == "1"

    def cards(self, name: str, text: str | None = None) -> list[int]:
        """Card codes joined by commas (``-`` for none); no card twice."""
        text = self.text(name) if text is None else text
        if text == EMPTY:
            return []
        out = []
        for code in text.split(","):
            try:
                out.append(parse_card(code))
            except GameError:
                raise self.fail(name, f"{quote(code, 10)} is not a card code") from None
        if len(set(out)) != len(out):
            raise self.fail(name, "a card is listed twice")
        return out

    def groups(self, name: str, count: int | None = None, default: str | None = None) -> list[str]:
        """The ``/``-separated parts of a field (``count`` of them when given)."""
        text = self.text(name, default)
        parts = [] if text == EMPTY else text.split("/")
        if count is not None and len(parts) != count:
            raise self.fail(name, f"expected {count} parts separated by '/'")
        return parts

    def card_groups(self, name: str, count: int) -> list[list[int]]:
        """``count`` lists of cards separated by ``/`` (one per seat, say)."""
        return [self.cards(name, part) for part in self.groups(name, count)]


# -- the chance still to come ------------------------------------------------------------------------
def chance_fields(chance: Chance, parse: Callable[[Any], int]) -> list[tuple[str, str]]:
    """``rng`` (the generator's stream where it stands: ``SEED``, or ``SEED:BLOCK:BITS:BUFFER`` in hex
    once it has been drawn from) and, for a state replaying a record's list, ``next`` (the outcomes
    still listed, ``/``-separated; ``-`` for none)."""
    stream = chance._stream
    if stream is None:
        rng = chance._rng
        if type(rng) is not HashRandom:
            raise GameError(
                "this state draws its chance from a generator of its own (not gamester's HashRandom): "
                "a position cannot say what it draws next"
            )
        stream = rng._stream
    seed, block, buf, bits = stream.seed, stream.block, stream.buf, stream.bits
    out = [("rng", str(seed) if block == 0 and bits == 0 else f"{seed}:{block}:{bits}:{buf:x}")]
    if chance.given is not None:
        # A record's entries as it wrote them (a pack: a list of codes, or one string of them).
        rest = []
        for e in chance.given[chance._given_index() :]:
            parts = e.replace(",", " ").split() if isinstance(e, str) else e
            cards = [parse(c) for c in parts] if isinstance(parts, list) else [parse(parts)]
            rest.append(",".join(CODES[c] for c in cards))
        out.append(("next", "/".join(rest) or EMPTY))
    return out


def read_chance(f: Fields, given: Sequence[Any] | None) -> tuple[int, BitStream, list[Any] | None]:
    """(seed, stream, outcomes to come) from ``rng`` and ``next``; ``given`` (a record's ``chance``
    after the position) wins over ``next``. Without ``rng``, a fresh generator of seed 0."""
    text = f.text("rng", "0")
    parts = text.split(":")
    if len(parts) not in (1, 4):
        raise f.fail("rng", "expected SEED or SEED:BLOCK:BITS:BUFFER")
    seed = f._number("rng", parts[0], -(2**1023), 2**1023)
    stream = BitStream(seed)
    if len(parts) == 4:
        block = f._number("rng", parts[1], 0, 2**62)
        bits = f._number("rng", parts[2], 0, 511)
        hexa = parts[3]
        if not (0 < len(hexa) <= 128 and all(c in "0123456789abcdef" for c in hexa)):
            raise f.fail("rng", "the buffer is written in lower-case hex")
        buf = int(hexa, 16)
        if buf >> bits or (bits and not block):
            raise f.fail("rng", f"not a stream's state: {bits} bits left of block {block}")
        stream.block, stream.bits, stream.buf = block, bits, buf
        if block:
            stream.key = seed_bytes(seed)
    if given is not None:
        return seed, stream, list(given)
    if not f.has("next"):
        return seed, stream, None
    nxt: list[Any] = []
    for part in f.groups("next"):
        codes = part.split(",")
        nxt.append(codes[0] if len(codes) == 1 else codes)
    return seed, stream, nxt


def settle(state: State, future: list[Any] | None) -> None:
    """After a state being read has taken the position's own outcomes (a deal's pack, handed out by
    a ``Chance`` given them) and actions: chance now comes from ``future`` (a record's list after the
    position) or from its generator, and its record starts here (:class:`Origin`, holding the
    position as the game writes it)."""
    chance = state.chance
    chance.given = None  # the position as the game writes it, its generator included, no list
    mark = Origin("", len(state.history_strings()), len(chance.log))
    chance.origin = mark
    chance.origin = mark._replace(position=state.position())
    chance.given = future
