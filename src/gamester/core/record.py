"""Records (the one interchange format), replay and summaries.

A record is ``{"format": "gamester-record", "version": 1, "game", "options", "seed", "chance",
"actions"}`` (SPEC.md); we add ``rules_version`` so a reader can tell which rules produced it.
``replay`` checks every field and names the first bad one in a :class:`RecordError`.
"""

from __future__ import annotations

from typing import Any

from gamester.core.errors import GameError, OptionError, RecordError
from gamester.core.protocol import TERMINAL, State
from gamester.core.registry import game_class, load_game

FORMAT = "gamester-record"
VERSION = 1


def make_record(state: State) -> dict[str, Any]:
    g = state.game
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": g.name,
        "rules_version": g.rules_version,
        "options": g.options_json(),
        "seed": state.seed,
        "chance": [g.format_chance(e) for e in state.chance.entries()],
        "actions": state.history_strings(),
    }


def replay(record: Any) -> State:
    """The state a record leads to (a record may stop anywhere)."""
    if not isinstance(record, dict):
        raise RecordError(f"a record must be a JSON object, not {type(record).__name__}")
    if record.get("format") != FORMAT:
        raise RecordError(f"format: expected {FORMAT!r}, got {record.get('format')!r}")
    if record.get("version") != VERSION:
        raise RecordError(f"version: this gamester reads version {VERSION}, got {record.get('version')!r}")
    name = record.get("game")
    if not isinstance(name, str):
        raise RecordError(f"game: expected a game name, got {name!r}")
    try:
        cls = game_class(name)
    except OptionError as e:
        raise RecordError(f"game: {e}") from None
    rv = record.get("rules_version", cls.rules_version)
    if rv != cls.rules_version:
        raise RecordError(f"rules_version: this gamester plays {name} rules version "
                          f"{cls.rules_version}, the record was made with {rv!r}")
    options = record.get("options", {})
    if not isinstance(options, dict):
        raise RecordError(f"options: expected an object of option values, got {options!r}")
    try:
        game = load_game(name, **options)
    except OptionError as e:
        raise RecordError(f"options: {e}") from None
    seed = record.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise RecordError(f"seed: expected a whole number or null, got {seed!r}")
    chance = record.get("chance")
    if chance is not None and not isinstance(chance, list):
        raise RecordError(f"chance: expected a list, got {type(chance).__name__}")
    if seed is None and chance is None:
        raise RecordError("seed, chance: a record needs at least one of them to replay")
    actions = record.get("actions", [])
    if not isinstance(actions, list):
        raise RecordError(f"actions: expected a list of action strings, got {type(actions).__name__}")
    try:
        state = game.new_initial_state(seed=seed if seed is not None else 0, chance=chance)
    except RecordError:
        raise
    except GameError as e:
        raise RecordError(f"chance: {e}") from None
    for i, text in enumerate(actions):
        if not isinstance(text, str):
            raise RecordError(f"actions[{i}]: expected an action string, got {text!r}")
        if state.is_terminal():
            raise RecordError(f"actions[{i}]: {text!r} comes after the game is over")
        try:
            state.apply_action(state.string_to_action(text))
        except RecordError:
            raise
        except GameError as e:
            raise RecordError(f"actions[{i}]: {e}") from None
    return state


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
        "legal_actions": sorted(state.action_to_string(a) for a in state.legal_actions()) if mine else [],
        "scores": list(state.scores()),
        "returns": list(state.returns()) if terminal else None,
        "winners": winners(state),
    }
    out.update(state.summary_extra())
    return out
