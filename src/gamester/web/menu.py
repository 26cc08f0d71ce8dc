"""What a web table may seat and which options it may use (docs/web.md, On the internet).

A seat is ``"human"`` or an agent from the game's menu (``GET /api/games`` lists it under
``agents``). A spec is checked here by reading it, never by building the agent: the bots are built
in the worker processes, and nothing (no agent, no bank, no cache file) is made in the web process
to check a request. A spec may change only the parameters listed in ``CAPS``, each within its range;
so one request cannot ask for a search that runs for minutes or fills the memory.

Options whose values would make a game last days are capped for the web (``OPTION_CAPS``): the
command line and the Python API keep the whole range.
"""

from __future__ import annotations

import math
from typing import Any

from gamester.agents import best_agent_spec
from gamester.agents.base import parse_agent_spec
from gamester.core.registry import load_game

# Per agent: parameter -> (lowest, highest, whole number?). An agent missing here takes no parameter.
CAPS: dict[str, dict[str, tuple[float, float, bool]]] = {
    "ismcts": {"iterations": (1, 2000, True), "seconds": (0.05, 2.0, False)},
    "rollout": {"worlds": (1, 100, True), "seconds": (0.05, 2.0, False)},
    "pimc": {"worlds": (1, 100, True), "seconds": (0.05, 2.0, False)},
    "futures": {"worlds": (1, 400, True), "seconds": (0.05, 2.0, False)},
    "lookahead": {"worlds": (1, 16, True), "seconds": (0.05, 2.0, False)},
}

# Per game: option -> highest value a web table may use.
OPTION_CAPS: dict[str, dict[str, int]] = {
    "penneech": {"target": 201},
    "piquesept": {"deals": 16},
    "pentyrch": {"max_rounds": 300, "games": 8},
}


def agent_menu(game_name: str) -> list[dict[str, Any]]:
    """The computer players a table can seat, weakest first, with a label for people (only those the
    game's kit supports: ``heuristic`` needs its heuristic) and the parameters a spec may change."""
    game = load_game(game_name)
    best = best_agent_spec(game)
    out: list[dict[str, Any]] = [{"spec": "random", "label": "Beginner: plays any legal move", "strength": 0}]
    if game.kit().has_heuristic:
        out.append({"spec": "heuristic", "label": "Casual: plays by simple rules of thumb", "strength": 1})
    out.append(
        {"spec": "ismcts:iterations=300", "label": "Club player: searches a few hundred games", "strength": 2}
    )
    out.append(
        {
            "spec": best,
            "label": "Expert: the strongest computer player (about a second a move)",
            "strength": 3,
        }
    )
    for entry in out:
        name = parse_agent_spec(entry["spec"])[0]
        entry["params"] = {k: {"min": lo, "max": hi} for k, (lo, hi, _) in CAPS.get(name, {}).items()}
    return out


class MenuError(ValueError):
    """A seat or option the web does not take, in one line naming the limit."""


def check_seat(game_name: str, spec: str, menu: list[dict[str, Any]]) -> None:
    """``spec`` is on the menu, or a menu agent with parameters within ``CAPS``."""
    names = [parse_agent_spec(e["spec"])[0] for e in menu]
    try:
        name, params = parse_agent_spec(spec)
    except ValueError as e:
        raise MenuError(str(e)) from None
    if name not in names:
        listed = ", ".join(dict.fromkeys(names))
        raise MenuError(
            f"{name!r} is not a computer player of this server for {game_name}; choose one of {listed}"
        )
    caps = CAPS.get(name, {})
    for key, text in params.items():
        if key not in caps:
            allowed = ", ".join(caps) or "none"
            raise MenuError(f"{name}: parameter {key!r} cannot be set here (settable: {allowed})")
        lo, hi, whole = caps[key]
        try:
            value = float(text)
        except ValueError:
            raise MenuError(f"{name}: {key}={text[:20]!r} is not a number") from None
        if not math.isfinite(value) or not lo <= value <= hi or (whole and value != int(value)):
            kind = "a whole number" if whole else "a number"
            raise MenuError(f"{name}: {key} must be {kind} from {lo:g} to {hi:g} on this server")


def check_options(game_name: str, options: dict[str, Any]) -> None:
    """No option above its web cap (the game checks everything else when the table is made)."""
    for key, cap in OPTION_CAPS.get(game_name, {}).items():
        value = options.get(key)
        if value is None:
            continue
        try:
            number = float(value)
        except (TypeError, ValueError):
            continue  # not a number: the game's own check names it
        if not math.isfinite(number) or number > cap:
            raise MenuError(f"options.{key}: at most {cap} on this server")


def caps_json(game_name: str) -> dict[str, int]:
    return dict(OPTION_CAPS.get(game_name, {}))
