"""What a web table may seat and which options it may use (docs/web.md, On the internet).

A seat is ``"human"`` or an agent from the game's menu (``GET /api/games`` lists it under
``agents``). A spec is checked here by reading it, never by building the agent: the bots are built
in the worker processes, and nothing (no agent, no bank, no cache file) is made in the web process
to check a request. A spec may change only the parameters listed in ``CAPS``, each within its range;
so one request cannot ask for a search that runs for minutes or fills the memory.

Options whose values would make a game last days are capped for the web by the game itself (each
such option's ``web_maximum`` in its options dataclass, ``gamester.core.options.web_caps``): the
command line and the Python API keep the whole range.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
from typing import Any

from gamester.agents import agent_refuses, best_agent_spec
from gamester.agents.base import parse_agent_spec
from gamester.agents.belief import INFER
from gamester.agents.futures import INFER as FUTURES_INFER
from gamester.core.errors import GameError
from gamester.core.options import web_caps
from gamester.core.protocol import Game
from gamester.core.registry import game_class, load_game

# Per agent: parameter -> (lowest, highest, whole number?). An agent missing here takes no parameter.
# ``pool``: policy inference's candidate worlds a batch (with ``infer`` of CHOICES below).
_POOL = (2, 64, True)
CAPS: dict[str, dict[str, tuple[float, float, bool]]] = {
    "ismcts": {"iterations": (1, 2000, True), "seconds": (0.05, 2.0, False), "pool": _POOL},
    "rollout": {"worlds": (1, 100, True), "seconds": (0.05, 2.0, False), "pool": _POOL},
    "pimc": {"worlds": (1, 100, True), "seconds": (0.05, 2.0, False), "pool": _POOL},
    "futures": {"worlds": (1, 400, True), "seconds": (0.05, 2.0, False), "pool": _POOL},
    "lookahead": {"worlds": (1, 16, True), "seconds": (0.05, 2.0, False), "pool": _POOL},
}

# Per agent: parameter -> the words it may be set to (the menu's own specs use them; never ``oracle``,
# which is no menu agent and refuses every table).
CHOICES: dict[str, dict[str, tuple[str, ...]]] = {
    name: {"infer": INFER} for name in ("ismcts", "rollout", "pimc", "lookahead")
}
CHOICES["futures"] = {"infer": FUTURES_INFER}

# The stars (``strength``): 0 plays any legal move; 1 is the level of the game's heuristic; 2 is
# measured clearly above the heuristic without being the best; 3 is the game's best agent at about a
# second a move (``best_agent_spec``). An agent gets the level its measurements support, and where they
# do not separate it from the heuristic it gets the heuristic's (docs/web.md, "The computer players",
# names each measurement). Per game: agent name -> stars (random, heuristic and the best are fixed).
MEASURED: dict[str, dict[str, int]] = {
    # docs/learning.md ("Teachers for Penneech and Pentyrch"): learned - heuristic +0.079 [+0.036, +0.122]
    # and +0.077 [+0.037, +0.117], same seat, on two sets of 2000 fresh deals: clearly above.
    # docs/agents.md: ismcts:iterations=1000 won 49.2% against heuristic.
    "penneech": {"learned": 2, "ismcts": 1},
    # docs/learning.md ("A teacher"): learned - heuristic +0.195 [+0.121, +0.269] as defenders, +1.320
    # [+1.066, +1.574] as soloist, 600 fresh deals: clearly above in both roles.
    # docs/agents.md: ismcts:iterations=200 - heuristic +2.6 [+1.5, +3.8] as soloist and
    # +0.00 [-0.20, +0.20] as defenders: above the heuristic in one role, level in the other.
    "piquesept": {"learned": 2, "ismcts": 2},
    # docs/learning.md ("Afterstate features, turned"): learned vs heuristic, every seating, +0.031
    # [+0.014, +0.048] on 400 fresh deals, +0.024 [-0.010, +0.058] on 100 others: separated on one set
    # only (Penneech's 2 rest on two), so it keeps the heuristic's level.
    # docs/agents.md: ismcts:iterations=300 alone against three heuristic, see docs/web.md.
    "pentyrch": {"learned": 1, "ismcts": 1},
}


def _strength(game_name: str, spec: str) -> int:
    """The stars of a menu agent other than random, heuristic and the best: as measured, or for a game
    with no measurements (a game from elsewhere) the defaults below."""
    name = parse_agent_spec(spec)[0]
    return MEASURED.get(game_name, {}).get(name, {"learned": 1}.get(name, 2))


@functools.cache
def _menu(game_name: str) -> tuple[dict[str, Any], ...]:
    game = load_game(game_name)
    best = best_agent_spec(game)
    out: list[dict[str, Any]] = [{"spec": "random", "label": "Beginner: plays any legal move", "strength": 0}]
    if game.kit().has_heuristic:
        out.append({"spec": "heuristic", "label": "Casual: plays by simple rules of thumb", "strength": 1})
    # Only where the agent can play the game's own defaults (a game from elsewhere has no weights).
    if agent_refuses("learned", game) is None:
        out.append(
            {
                "spec": "learned",
                "label": "Quick: a network trained by playing itself (a few milliseconds a move)",
                "strength": _strength(game_name, "learned"),
            }
        )
    club = "ismcts:iterations=300"
    out.append(
        {
            "spec": club,
            "label": "Club player: searches a few hundred games",
            "strength": _strength(game_name, club),
        }
    )
    out.append(
        {
            "spec": best,
            "label": "Expert: the strongest computer player (about a second a move)",
            "strength": 3,
        }
    )
    out.sort(key=lambda e: int(e["strength"]))  # weakest first; equals keep the order above
    variants = _variants(game)
    for entry in out:
        name = parse_agent_spec(entry["spec"])[0]
        entry["params"] = {k: {"min": lo, "max": hi} for k, (lo, hi, _) in CAPS.get(name, {}).items()}
        entry["params"].update({k: {"choices": list(v)} for k, v in CHOICES.get(name, {}).items()})
        entry["cannot_play"] = _cannot_play(entry["spec"], variants)
    return tuple(out)


def _variants(game: Game) -> list[tuple[dict[str, Any], Game]]:
    """The game with one option changed from its defaults, for every option whose values are listed
    (a choice or a yes/no), and with each rule set: what the lobby lets a person pick."""
    cls = type(game)
    options = cls.options_class
    out: list[tuple[dict[str, Any], Game]] = []
    for rs in cls.rulesets.values():
        if rs.options:  # as the options it sets, which is how the lobby compares them
            out.append((dict(rs.options), load_game(game.name, ruleset=rs.name)))
    for f in dataclasses.fields(options):
        if f.name == "ruleset":
            continue
        default = getattr(game.options, f.name)
        choices = f.metadata.get("choices")
        values = list(choices) if choices is not None else [True, False] if isinstance(default, bool) else []
        for value in values:
            if value == default:
                continue
            try:
                out.append(({f.name: value}, load_game(game.name, **{f.name: value})))
            except (GameError, TypeError, ValueError):
                continue  # a value the game refuses alone: no table can have it
    return out


def _cannot_play(spec: str, variants: list[tuple[dict[str, Any], Game]]) -> list[dict[str, Any]]:
    """The option values (each a change from the defaults) that the agent says it cannot play, each
    with its reason: the lobby offers the agent only where none of them is chosen."""
    out: list[dict[str, Any]] = []
    for options, game in variants:
        why = agent_refuses(spec, game)
        if why is not None and all(e["options"] != options for e in out):
            out.append({"options": options, "why": why})
    return out


def agent_menu(game_name: str) -> list[dict[str, Any]]:
    """The computer players a table can seat, weakest first, with a label for people (only those the
    game's kit supports: ``heuristic`` needs its heuristic, ``learned`` its weights), the stars their
    measurements give them, the parameters a spec may change and the option values each cannot play
    (``cannot_play``: ``[{"options": {...}, "why": "..."}]``, the options a table must not all have)."""
    return copy.deepcopy(list(_menu(game_name)))


class MenuError(ValueError):
    """A seat or option the web does not take, in one line naming the limit."""


def check_seat(game: Game, spec: str, menu: list[dict[str, Any]]) -> None:
    """``spec`` is on the menu, or a menu agent with parameters within ``CAPS``, and the agent can play
    ``game`` with the table's options (asked of the agent, never by making it)."""
    game_name = game.name
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
    choices = CHOICES.get(name, {})
    for key, text in params.items():
        if key in choices:
            if text not in choices[key]:
                raise MenuError(f"{name}: {key} must be one of {', '.join(choices[key])} on this server")
            continue
        if key not in caps:
            allowed = ", ".join([*caps, *choices]) or "none"
            raise MenuError(f"{name}: parameter {key!r} cannot be set here (settable: {allowed})")
        lo, hi, whole = caps[key]
        try:
            value = float(text)
        except ValueError:
            raise MenuError(f"{name}: {key}={text[:20]!r} is not a number") from None
        if not math.isfinite(value) or not lo <= value <= hi or (whole and value != int(value)):
            kind = "a whole number" if whole else "a number"
            raise MenuError(f"{name}: {key} must be {kind} from {lo:g} to {hi:g} on this server")
    why = agent_refuses(spec, game)
    if why is not None:
        raise MenuError(f"{name} cannot play these options: {why}")


def check_options(game_name: str, options: dict[str, Any]) -> None:
    """No option above its web cap (the game checks everything else when the table is made)."""
    for key, cap in caps_json(game_name).items():
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
    """Each option the game caps for web tables, with its cap (``web_maximum`` in its options)."""
    return web_caps(game_class(game_name).options_class)
