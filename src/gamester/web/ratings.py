"""How a finished rated table moves its players' ratings (docs/web.md, Ratings).

Each game has its own rating per account, by Glicko-2 (:mod:`gamester.web.glicko`), one table being
one rating period. A table of more than two is read as pairwise results: every player is compared
with every other whose return differs from its own — a win over those it finished above, a loss to
those above it. Equal returns at a table of two are a draw; at a bigger table they mean the same side
(Pentyrch's partners, Piquesept's three defenders) or a shared place, and are not compared. Each of a
player's comparisons weighs 1/k (k: how many it has), so one table counts as one game however many sat
at it: Piquesept's soloist is compared with three defenders at a third each, each defender with the
soloist alone, at full weight.

Computer players are rated too, under ``bot:`` + their agent spec written one way
(:func:`canonical_spec`: one rating per agent however the spec is written): a human's win over a bot
is a win over a player of the bot's rating, and the bot's rating moves like anyone's. They are kept
off the leaderboards.

What counts (docs/web.md, Fair play): a table where a person never made a move of their own was not
played and counts for nobody (:func:`movers`); between the same two players at most
:data:`PAIR_RESULTS_A_DAY` results a day move ratings, later ones leave that pair out of the table's
result (a puppet account losing on purpose moves its farmer three times a day, not without end).
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from gamester.store.port import Participant, Rating
from gamester.web.glicko import update

INITIAL = Rating(rating=1500.0, deviation=350.0, volatility=0.06, games=0)
PAIR_RESULTS_A_DAY = 3
"""Rated results between the same two players in a day that move their ratings."""


def _number(text: Any) -> str:
    """A parameter's value written one way: ``02000`` and ``2000.0`` as ``2000``, ``0.50`` as ``0.5``."""
    try:
        x = float(str(text).strip())
    except ValueError:
        return str(text).strip()
    if x != x or x in (float("inf"), float("-inf")):
        return str(text).strip()
    return str(int(x)) if x == int(x) and abs(x) < 1e15 else repr(x)


@functools.cache
def _defaults(name: str) -> dict[str, str]:
    """The agent's parameters and their defaults as its factory declares them (read from its
    signature: the agent is not built)."""
    from gamester.agents.base import agent_factory

    try:
        signature = inspect.signature(agent_factory(name))
    except (ValueError, TypeError, LookupError):
        return {}
    return {
        k: _number(p.default)
        for k, p in signature.parameters.items()
        if k not in ("game", "seed") and p.default is not inspect.Parameter.empty and p.default is not None
    }


def canonical_spec(spec: str) -> str:
    """An agent spec written one way: its parameters in name order, numbers without leading zeros
    or trailing ``.0``, and a parameter given at its default left out, so every way of writing one
    agent is one rating.

    >>> canonical_spec("ismcts:iterations=02000") == canonical_spec(" ismcts:iterations=2000.0 ")
    True
    >>> canonical_spec("ismcts:seconds=1,iterations=300"), canonical_spec("futures:worlds=300")
    ('ismcts:iterations=300,seconds=1', 'futures')
    """
    from gamester.agents.base import parse_agent_spec

    try:
        name, params = parse_agent_spec(spec)
    except ValueError:
        return spec.strip()
    defaults = _defaults(name)
    kept = {k: _number(v) for k, v in params.items() if k != "seed"}
    kept = {k: v for k, v in kept.items() if defaults.get(k) != v}
    return name + (":" + ",".join(f"{k}={kept[k]}" for k in sorted(kept)) if kept else "")


def comparisons(
    results: list[float], left_out: set[frozenset[int]] | None = None
) -> list[list[tuple[int, float]]]:
    """For each seat, the (other seat, score) pairs it is rated on.

    >>> comparisons([1.0, -1.0])
    [[(1, 1.0)], [(0, 0.0)]]
    >>> comparisons([0.0, 0.0])
    [[(1, 0.5)], [(0, 0.5)]]
    >>> comparisons([3.0, -1.0, -1.0, -1.0])[0], comparisons([3.0, -1.0, -1.0, -1.0])[1]
    ([(1, 1.0), (2, 1.0), (3, 1.0)], [(0, 0.0)])
    >>> comparisons([3.0, -1.0, -1.0, -1.0], {frozenset((0, 1))})[0]
    [(2, 1.0), (3, 1.0)]
    """
    n = len(results)
    out: list[list[tuple[int, float]]] = []
    for i, mine in enumerate(results):
        row = []
        for j, theirs in enumerate(results):
            if j == i or (n > 2 and theirs == mine) or (left_out and frozenset((i, j)) in left_out):
                continue
            row.append((j, 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0))
        out.append(row)
    return out


def rate(
    people: list[Participant], left_out: set[frozenset[int]] | None = None
) -> list[tuple[Rating, float] | None]:
    """The Glicko-2 rule of the module docstring: each participant's new rating (all from the ratings
    before the table) and its score at the table from 0 to 1. The pairs of seats in ``left_out``
    (their results of the day are used up) are not compared; a participant with nothing left to
    compare but such pairs gets None (its rating stays as it was, the game uncounted)."""
    pairs = comparisons([p.result for p in people], left_out)
    every = comparisons([p.result for p in people])
    out: list[tuple[Rating, float] | None] = []
    for p, row, whole in zip(people, pairs, every, strict=True):
        b = p.before
        if not row and whole:  # only used-up pairs to compare with: this table does not count for it
            out.append(None)
            continue
        if not row:  # nobody to compare with (everyone on one side): only the game is counted
            out.append((Rating(b.rating, b.deviation, b.volatility, b.games + 1), 0.5))
            continue
        w = 1.0 / len(row)
        games = [(people[j].before.rating, people[j].before.deviation, s, w) for j, s in row]
        r, rd, vol = update(b.rating, b.deviation, b.volatility, games)
        out.append((Rating(r, rd, vol, b.games + 1), sum(s for _, s in row) / len(row)))
    return out


def movers(game: str, options: dict[str, Any], seed: int, actions: list[str]) -> set[int]:
    """The seats that made at least one of ``actions`` (a finished table's, replayed from its seed):
    a rated table where a person made none was not played. A move the best agent made for a seat
    whose clock ran out (``on_timeout: bot``) is counted as the seat's: the table's actions do not
    say who chose them."""
    from gamester.core.registry import load_game

    state = load_game(game, **options).new_initial_state(seed=seed)
    out: set[int] = set()
    for text in actions:
        out.add(state.current_player())
        state.apply_action(state.string_to_action(text))
    return out
