"""Records (the one interchange format), replay and summaries.

A record is ``{"format": "gamester-record", "version": 1, "game", "options", "seed", "chance",
"actions"}`` (README.md, The Python API); we add ``rules_version`` so a reader can tell which rules produced
it. ``replay`` checks every field and names the first bad one in a :class:`RecordError`.
"""

from __future__ import annotations

import json
from typing import Any

from gamester.core.errors import GameError, OptionError, PositionError, RecordError, quote
from gamester.core.position import split as split_position
from gamester.core.protocol import RECORD_FORMAT, RECORD_VERSION, TERMINAL, Game, State
from gamester.core.registry import game_class, load_game, make_game

FORMAT = RECORD_FORMAT
VERSION = RECORD_VERSION


def make_record(state: State) -> dict[str, Any]:
    """``state.record()``: a record is written by the protocol (below the registry), read here."""
    return state.record()


_MAX_JSON_DIGITS = 1000  # longer JSON numbers are refused (Python's own limit, 4,300, raises oddly)
_MAX_ACTION_TEXT = 200  # no action of any game is written in more characters than this
_MAX_SEED_BITS = 1024


def _json_number(text: str) -> int:
    if len(text) > _MAX_JSON_DIGITS:
        raise RecordError(
            f"a number with {len(text)} digits is longer than any record holds (at most {_MAX_JSON_DIGITS})"
        )
    return int(text)


def _json_float(text: str) -> float:
    if len(text) > _MAX_JSON_DIGITS:
        raise RecordError(f"a number of {len(text)} characters is longer than any record holds")
    return float(text)


def _json_constant(name: str) -> Any:
    raise RecordError(f"{name} is not a JSON value (no record holds it)")


def load_record_text(data: object, what: str = "the record") -> Any:
    """Parse one JSON value from a file's text or bytes, or raise a one-line :class:`RecordError`.

    Safe on anything: bytes that are not UTF-8 (a UTF-8 byte-order mark is allowed), numbers too long
    to read, nesting too deep for the parser, ``NaN``/``Infinity``, and text that is not JSON at all
    each get a message naming the problem and where it is. ``what`` names the input in messages
    (``"line 3"`` for one line of a ``.jsonl`` file). The value is returned as parsed; hand it to
    :func:`replay`, which checks every field.
    """
    if isinstance(data, (bytes, bytearray)):
        try:
            text = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise RecordError(
                f"{what} is not UTF-8 text (byte {bytes(data)[e.start]:#04x} at offset "
                f"{e.start} cannot be read)"
            ) from None
    elif isinstance(data, str):
        text = data[1:] if data.startswith("\ufeff") else data
    else:
        raise RecordError(f"{what}: expected text or bytes, got {type(data).__name__}")
    try:
        return json.loads(
            text, parse_int=_json_number, parse_float=_json_float, parse_constant=_json_constant
        )
    except RecordError as e:
        raise RecordError(f"{what}: {e}") from None
    except json.JSONDecodeError as e:
        raise RecordError(f"{what} is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except RecursionError:
        raise RecordError(
            f"{what} is nested too deeply to be a record (lists or objects inside each "
            f"other hundreds of levels deep)"
        ) from None
    except ValueError as e:  # anything else the parser refuses
        raise RecordError(f"{what} is not valid JSON: {quote(str(e), 80)}") from None


def load_record_lines(data: object) -> list[Any]:
    """Every record of a ``.jsonl`` file (one JSON value a line, blank lines skipped), parsed by
    :func:`load_record_text`; a bad line is named by its number (from 1)."""
    if isinstance(data, (bytes, bytearray)):
        try:
            text = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as e:
            line = bytes(data)[: e.start].count(b"\n") + 1
            raise RecordError(
                f"line {line} is not UTF-8 text (byte {bytes(data)[e.start]:#04x} cannot be read)"
            ) from None
    elif isinstance(data, str):
        text = data
    else:
        raise RecordError(f"records: expected text or bytes, got {type(data).__name__}")
    return [
        load_record_text(line, f"line {n}") for n, line in enumerate(text.splitlines(), 1) if line.strip()
    ]


def _is_int(x: Any) -> bool:
    # A JSON number without a fraction; bool is an int to Python, never to a record.
    return isinstance(x, int) and not isinstance(x, bool)


def replay(record: Any) -> State:
    """The state a record leads to (a record may stop anywhere).

    Any value is accepted and checked: whatever is wrong gives a :class:`RecordError` naming the
    first offending field, never another exception.
    """
    try:
        return _replay(record)
    except RecursionError:
        # Every field is type-checked before use, so this means a game met something nested past
        # what it can walk; say so instead of failing.
        raise RecordError("the record holds values nested too deeply to read") from None


def _replay(record: Any) -> State:
    if not isinstance(record, dict):
        raise RecordError(f"a record must be a JSON object, not {type(record).__name__}")
    for key in record:
        if not isinstance(key, str):
            raise RecordError(f"record field names are text, got {quote(key)} ({type(key).__name__})")
    fmt = record.get("format")
    if not (isinstance(fmt, str) and fmt == FORMAT):
        raise RecordError(f"format: expected {FORMAT!r}, got {quote(fmt)}")
    version = record.get("version")
    if not (_is_int(version) and version == VERSION):
        raise RecordError(f"version: this gamester reads version {VERSION}, got {quote(version)}")
    name = record.get("game")
    if not isinstance(name, str):
        raise RecordError(f"game: expected a game name, got {quote(name)}")
    # Each handler names its exception differently: compiled, one name keeps the type it was first
    # given (an OptionError variable refusing the GameError of a later handler).
    try:
        cls = game_class(name)
    except OptionError as bad_game:
        raise RecordError(f"game: {bad_game}") from None
    rv = record.get("rules_version", cls.rules_version)
    if not (_is_int(rv) and rv == cls.rules_version):
        raise RecordError(
            f"rules_version: this gamester plays {name} rules version "
            f"{cls.rules_version}, the record was made with {quote(rv)}"
        )
    options = record.get("options", {})
    if not isinstance(options, dict):
        raise RecordError(f"options: expected an object of option values, got {quote(options)}")
    try:
        game = make_game(name, options)
    except OptionError as bad_options:
        raise RecordError(f"options: {bad_options}") from None
    seed = record.get("seed")
    if seed is not None and not _is_int(seed):
        raise RecordError(f"seed: expected a whole number or null, got {quote(seed)}")
    if seed is not None and seed.bit_length() > _MAX_SEED_BITS:
        raise RecordError(f"seed: {quote(seed)} is too large (at most {_MAX_SEED_BITS} bits)")
    chance = record.get("chance")
    if chance is not None and not isinstance(chance, list):
        raise RecordError(f"chance: expected a list, got {type(chance).__name__}")
    position = record.get("position")
    if position is not None and not isinstance(position, str):
        raise RecordError(f"position: expected a position's text, got {quote(position)}")
    if seed is None and chance is None and position is None:
        raise RecordError("seed, chance: a record needs at least one of them to replay")
    actions = record.get("actions", [])
    if not isinstance(actions, list):
        raise RecordError(f"actions: expected a list of action strings, got {type(actions).__name__}")
    for i, text in enumerate(actions):
        if not isinstance(text, str):
            raise RecordError(f"actions[{i}]: expected an action string, got {quote(text)}")
        if len(text) > _MAX_ACTION_TEXT:
            raise RecordError(
                f"actions[{i}]: {quote(text)} is too long for an action ({len(text)} characters)"
            )
    if position is not None:
        # A record that starts at a position (docs/positions.md): its chance is what came after.
        try:
            state = game.read_position(position, chance)
        except RecordError:
            raise
        except GameError as bad_position:
            text = str(bad_position)
            raise RecordError(text if text.startswith("position") else f"position: {text}") from None
    else:
        try:
            state = game.new_initial_state(seed=seed if seed is not None else 0, chance=chance)
        except RecordError:
            raise
        except GameError as bad_chance:
            raise RecordError(f"chance: {bad_chance}") from None
    for i, text in enumerate(actions):
        if state.is_terminal():
            raise RecordError(f"actions[{i}]: {quote(text)} comes after the game is over")
        try:
            state.apply_action(state.string_to_action(text))
        except RecordError:
            raise
        except GameError as bad_action:
            raise RecordError(f"actions[{i}]: {bad_action}") from None
    if chance is not None:
        origin = state.chance.origin
        _check_unused_chance(game, chance, len(state.chance.log) - (0 if origin is None else origin.entries))
    return state


def read_position(text: object, chance: list[Any] | None = None) -> State:
    """The state a position's text describes, for any registered game (the spec it starts with
    names the game): ``game.read_position(text, chance)`` (docs/positions.md). Bad text raises a
    one-line :class:`~gamester.core.errors.PositionError`."""
    spec, _ = split_position(text)
    try:
        game = load_game(spec)
    except OptionError as e:
        raise PositionError(f"position: {e}") from None
    return game.read_position(str(text), chance)


def _check_unused_chance(game: Game, chance: list[Any], used: int) -> None:
    """docs/records.md, What is checked: entries left unused at the end are allowed, but only well-formed
    ones: a card code, or a pack (a list of codes, or one string of them) holding no card twice."""
    for i in range(used, len(chance)):
        entry = chance[i]
        if isinstance(entry, str) and len(entry) <= 4 * 104:
            parts: Any = entry.replace(",", " ").split()
            if len(parts) == 1:
                parts = parts[0]
        else:
            parts = entry
        try:
            if isinstance(parts, str):
                game.parse_chance(parts)
                continue
            if not isinstance(parts, list) or not parts or len(parts) > 104:
                raise RecordError(
                    f"chance[{i}] (unused) must be a card code or a pack of card codes, "
                    f"got {quote(entry, 30)}"
                )
            cards = [game.parse_chance(c) for c in parts]
        except RecordError:
            raise
        except GameError as e:
            raise RecordError(f"chance[{i}] (unused): {e}") from None
        if len(set(cards)) != len(cards):
            raise RecordError(f"chance[{i}] (unused): a pack lists a card twice")


def winners(state: State) -> list[int]:
    if not state.is_terminal():
        return []
    r = state.returns()
    best = max(r)
    if all(x == best for x in r):
        return []
    return [p for p, x in enumerate(r) if x == best]


def summary(state: State, seat: int | None = None) -> dict[str, Any]:
    """What ``gamester replay --json`` prints; with ``seat`` (``--seat N``), what that player may see:
    ``legal_actions`` stays empty unless it is that player's turn (they would name its hand)."""
    terminal = state.is_terminal()
    cp = state.current_player()
    mine = seat is None or seat == cp
    out: dict[str, Any] = {
        "game": state.game.name,
        "is_terminal": terminal,
        "current_player": None if terminal or cp == TERMINAL else cp,
        "legal_actions": sorted(state.legal_action_strings()) if mine else [],
        "scores": list(state.scores()),
        "returns": list(state.returns()) if terminal else None,
        "winners": winners(state),
    }
    out.update(state.summary_extra())
    return out
