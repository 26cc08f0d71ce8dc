"""``gamester explore``: which reading of the rules makes the better game (docs/explore.md).

A game declares its open space (``Game.open_space``): the options whose value a source, a variant or
a ruling leaves in doubt. Every combination of those values (less any option fixed by ``--option``,
less combinations the game refuses) is a *reading*. Each reading is played and measured exactly as
``gamester analyse`` plays and measures a rule set (the same jobs, :func:`gamester.sim.analyse._job`,
and the same metrics, :func:`gamester.sim.metrics.game_metrics`): game ``i`` of every reading uses the
chance of seed ``seed + i``, so the readings are compared on the same deals.

The readings are ranked by one declared score (:data:`SCORES`, defined in docs/analysis.md,
"The exploration score"): the mean of ``balance``, ``completion`` and ``1 - decisiveness``, or of
the last two alone where every seat is alike by construction (``Game.seats_alike``). The
budget of games is spent by successive halving (Karnin, Koren and Somekh, ICML 2013): ``K =
ceil(log2 R)`` rounds for ``R`` readings, each round with an equal share of the budget split among
the readings still in contention, the better half (by score, at equal numbers of games) kept for the
next round, until two are left; the last round spends whatever the budget has left.

Outputs are written by :mod:`gamester.sim.explore_output`: ``explore.json``, the records of every
reading, ``rounds.json``, a plot and ``report.md``.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gamester.agents import best_agent_spec
from gamester.agents.base import make_agent, split_agents
from gamester.core.errors import GameError, OptionError
from gamester.core.protocol import Game
from gamester.core.registry import game_class, load_game
from gamester.sim import metrics as M
from gamester.sim.analyse import _fill, _job
from gamester.sim.backend import check_backend, run_jobs
from gamester.sim.progress import progress_bar
from gamester.sim.stats import Interval, bootstrap, interval
from gamester.sim.tournament import check_out_dir

_RANKED = (
    "95% interval by bootstrap over games. Readings are ranked by the round of successive halving "
    "they reached (all the same games: the same seeds), then by score"
)
SCORES = {
    "with-balance": (
        "score = (balance + completion + (1 - decisiveness)) / 3, each as gamester analyse measures it "
        "(docs/analysis.md, The exploration score): higher is better: fair to every seat, a winner in "
        "every game, the outcome open until late; " + _RANKED
    ),
    "without-balance": (
        "score = (completion + (1 - decisiveness)) / 2, each as gamester analyse measures it "
        "(docs/analysis.md, The exploration score): higher is better: a winner in every game, the "
        "outcome open until late; seat balance is left out, as every seat is alike by construction "
        "(a gap between seats is the sample's luck); " + _RANKED
    ),
}
"""The scores ``--score`` names, each as ``explore.json`` states it (its ``score`` field)."""
SCORE_CHOICES = ("auto", *SCORES)
"""``auto`` (the default): ``without-balance`` where every reading's seats are alike, else
``with-balance``."""

SCORE_PARTS = ("balance", "completion", "decisiveness")
"""The metrics the score can be made of (``decisiveness`` enters as ``1 - decisiveness``)."""


@dataclass
class Exploration:
    """What to explore and how (the command's options)."""

    game: str
    options: dict[str, str] = field(default_factory=dict)
    budget: int = 1000
    agents: str | None = None
    seed: int = 0
    worlds: int = 8
    workers: int = 2
    backend: str = "local"
    ray_address: str | None = None
    progress: bool = True
    score: str = "auto"
    """One of :data:`SCORE_CHOICES`."""


@dataclass
class Reading:
    """One combination of the open values, its game and the games played under it so far."""

    key: str
    """``option=value,…`` over the open options, in the space's order (JSON spelling of values)."""
    values: dict[str, Any]
    game: Game
    results: list[dict[str, Any]] = field(default_factory=list)
    reached: int = 0
    """The last round (from 0) in which this reading was still in contention."""
    score: Interval = field(default_factory=lambda: interval(None, None, None))

    @property
    def data(self) -> list[M.GameData]:
        return [_game_data(r) for r in self.results]


def _game_data(r: Mapping[str, Any]) -> M.GameData:
    return M.GameData(
        returns=r["returns"],
        winners=r["winners"],
        legal=r["legal"],
        estimates=r["estimates"],
        timeout=r["timeout"],
        roles=r["roles"],
    )


# -- the space -------------------------------------------------------------------------------------
def reading_key(values: Mapping[str, Any]) -> str:
    """``redeal=off,follow=suit`` (values spelled as JSON: ``true``, ``4``, ``suit``)."""
    return ",".join(f"{k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in values.items())


def open_space(game: str, fixed: Mapping[str, str]) -> dict[str, list[Any]]:
    """The game's open options and their values, less the options ``fixed`` sets."""
    cls = game_class(game)
    return {k: [v.value for v in vs] for k, vs in cls.open_space.items() if k not in fixed}


def readings(game: str, fixed: Mapping[str, str]) -> tuple[list[Reading], list[tuple[str, str]]]:
    """Every combination of the space that the game accepts (with the fixed options), in the space's
    order, and the combinations it refuses with the reason (``partners=true`` needs four players)."""
    space = open_space(game, fixed)
    load_game(game, **fixed)  # a bad fixed option fails here, in one line, listing the valid ones
    out: list[Reading] = []
    refused: list[tuple[str, str]] = []
    for combo in itertools.product(*space.values()):
        values = dict(zip(space, combo, strict=True))
        key = reading_key(values)
        try:
            g = load_game(game, **fixed, **values)
        except OptionError as e:
            refused.append((key, str(e).removeprefix(f"{game}: ")))
            continue
        out.append(Reading(key, values, g))
    if not out:
        raise GameError(f"{game}: no reading of the open space is playable with these --option values")
    return out, refused


# -- the schedule ----------------------------------------------------------------------------------
def rounds_for(n: int) -> int:
    """Rounds of successive halving for ``n`` readings: ceil(log2 n), at least one."""
    return max(1, math.ceil(math.log2(n))) if n > 1 else 1


def kept(n: int) -> int:
    """How many of ``n`` readings go on to the next round: the better half, at least two."""
    return max(2, math.ceil(n / 2)) if n > 2 else n


def min_budget(n: int) -> int:
    """The smallest budget that gives each of ``n`` readings a game in the first round."""
    return n * rounds_for(n)


# -- the score -------------------------------------------------------------------------------------
def _score_items(data: Sequence[M.GameData]) -> list[tuple[tuple[int, ...], float | None]]:
    # Per game: its winners, and its decisiveness (M.game_decisiveness: None for a game without a
    # winner, which decisiveness, like the analyse metric, leaves out of its mean).
    return [(tuple(g.winners), M.game_decisiveness(g)) for g in data]


def _score_of(
    items: Sequence[tuple[tuple[int, ...], float | None]], seats: int, balanced: bool
) -> float | None:
    if not items:
        return None
    wins = [0] * seats
    completed = 0
    decided = []
    for w, d in items:
        for s in w:
            wins[s] += 1
        completed += 1 if w else 0
        if d is not None:
            decided.append(d)
    # balance as M.balance computes it (1 - the largest gap between seats' win rates), completion as
    # M.completion (the share of games with a winner), decisiveness as its mean over decided games.
    balance = 1.0 - (max(wins) - min(wins)) / len(items)
    completion = completed / len(items)
    # No game with a winner and a loser: nothing is ever in suspense; the term counts 0.
    suspense = 1.0 - sum(decided) / len(decided) if decided else 0.0
    if not balanced:
        return (completion + suspense) / 2.0
    return (balance + completion + suspense) / 3.0


def score(data: Sequence[M.GameData], seats: int, seed: int, balanced: bool = True) -> Interval:
    """The exploration score of these games with a bootstrap 95% interval (games resampled whole,
    seeded, as every interval of ``analyse``); ``balanced=False``: the score without seat balance."""
    items = _score_items(data)
    return bootstrap(items, lambda xs: _score_of(xs, seats, balanced), seed)


def score_from_metrics(metrics: Mapping[str, Any], balanced: bool = True) -> float | None:
    """The score from ``analyse``'s metric values (what ``score`` computes, from the games)."""
    b, c, d = (metrics[k]["value"] for k in SCORE_PARTS)
    if c is None or (balanced and b is None):
        return None
    suspense = 1.0 - d if d is not None else 0.0
    return float(b + c + suspense) / 3.0 if balanced else float(c + suspense) / 2.0


def score_name(e: Exploration, rs: Sequence[Reading]) -> str:
    """The score ``e.score`` names: ``auto`` is ``without-balance`` when every reading's seats are
    alike by construction (``Game.seats_alike``), else ``with-balance``."""
    if e.score != "auto":
        return e.score
    return "without-balance" if all(r.game.seats_alike() for r in rs) else "with-balance"


def paired_gap(a: Reading, b: Reading, seed: int, balanced: bool = True) -> Interval:
    """``a``'s score minus ``b``'s on the games both played (the same seeds), bootstrapped over those
    seeds: the two readings are compared deal by deal, which removes the luck of the deals they share."""
    n = min(len(a.results), len(b.results))
    ia, ib = _score_items(a.data[:n]), _score_items(b.data[:n])
    sa, sb = a.game.num_players, b.game.num_players
    pairs = list(zip(ia, ib, strict=True))

    def stat(ps: Sequence[tuple[Any, Any]]) -> float | None:
        x = _score_of([p for p, _ in ps], sa, balanced)
        y = _score_of([q for _, q in ps], sb, balanced)
        return None if x is None or y is None else x - y

    return bootstrap(pairs, stat, seed)


# -- the run ---------------------------------------------------------------------------------------
def _specs(e: Exploration, game: Game) -> list[str]:
    return _fill(split_agents(e.agents or best_agent_spec(game.name)), game.num_players)


def check(e: Exploration) -> tuple[list[Reading], list[tuple[str, str]]]:
    """Every input checked before anything is played; the readings and the refused combinations."""
    if e.budget < 1:
        raise GameError(f"--budget must be at least 1 game (got {e.budget})")
    if e.seed < 0:
        raise GameError(f"--seed must be 0 or more (got {e.seed})")
    if e.worlds < 1:
        raise GameError(
            f"--worlds must be at least 1 (got {e.worlds}): the score's decisiveness needs every "
            "seat's estimated chances"
        )
    if e.workers < 1:
        raise GameError(f"--workers must be at least 1 (got {e.workers})")
    if e.score not in SCORE_CHOICES:
        raise GameError(f"--score must be one of {', '.join(SCORE_CHOICES)} (got {e.score!r})")
    if "ruleset" in e.options:
        raise GameError("explore plays readings of the open space, not rule sets: drop --option ruleset=")
    check_backend(e.backend, e.ray_address)
    rs, refused = readings(e.game, e.options)
    need = min_budget(len(rs))
    if e.budget < need:
        raise GameError(
            f"--budget {e.budget} is too small for {len(rs)} readings: successive halving needs at "
            f"least {need} games ({rounds_for(len(rs))} rounds, a game for every reading in the first); "
            "fix options with --option to explore fewer"
        )
    for r in rs:
        for s in dict.fromkeys(_specs(e, r.game)):
            make_agent(s, game=r.game, seed=0)  # a bad agent spec fails here, listing the valid ones
    return rs, refused


@contextlib.contextmanager
def _one_ray(e: Exploration) -> Iterator[None]:
    """With ``--backend ray``, one Ray for every round (a local Ray costs tens of seconds to start;
    :func:`run_jobs` uses a Ray that is already running and leaves it so)."""
    if e.backend != "ray":
        yield
        return
    from gamester.sim.backend import ray_session

    with ray_session(e.ray_address, e.workers):
        yield


def _rank(rs: Sequence[Reading], order: Mapping[str, int]) -> list[Reading]:
    """Best first: the furthest round reached, then the score (a reading without one last), then the
    order of the space (so that equal scores always rank the same way)."""

    def key(r: Reading) -> tuple[int, float, int]:
        v = r.score["value"]
        return (-r.reached, -(v if v is not None else -math.inf), order[r.key])

    return sorted(rs, key=key)


@dataclass
class Progress:
    """Games played so far (for the line printed on Ctrl-C)."""

    done: int = 0
    total: int = 0


def run_exploration(
    e: Exploration, out_dir: str | None = None, progress: Progress | None = None
) -> dict[str, Any]:
    """Play the rounds, rank the readings and (with ``out_dir``) write everything; return the
    ``explore.json`` document."""
    if out_dir:
        check_out_dir(out_dir)
    rs, refused = check(e)
    balanced = score_name(e, rs) == "with-balance"
    order = {r.key: i for i, r in enumerate(rs)}
    started = time.perf_counter()
    total_rounds = rounds_for(len(rs))
    left = e.budget
    alive = list(rs)
    history: list[dict[str, Any]] = []
    prog = progress if progress is not None else Progress()
    prog.total = e.budget
    bar = progress_bar(e.budget, f"explore {e.game}") if e.progress else None
    try:
        with _one_ray(e):
            for k in range(total_rounds):
                last = k == total_rounds - 1
                share = left if last else e.budget // total_rounds
                each, extra = divmod(share, len(alive))
                if not last:
                    extra = 0  # carried to the last round, which spends every game that is left
                # Readings still in contention, best first (the first round: the space's order).
                plan = [(r, each + (1 if i < extra else 0)) for i, r in enumerate(alive)]
                jobs: list[tuple[Reading, tuple[Any, ...]]] = []
                for r, g in plan:
                    specs = tuple(_specs(e, r.game))
                    start = len(r.results)
                    for i in range(start, start + g):
                        jobs.append((r, ("main", r.game.spec(), specs, e.seed + i, e.worlds)))
                if bar is not None and hasattr(bar, "set_description"):
                    bar.set_description(f"explore {e.game} round {k + 1}/{total_rounds}")
                results = run_jobs(
                    _job,
                    [j for _, j in jobs],
                    backend=e.backend,
                    workers=e.workers,
                    ray_address=e.ray_address,
                    progress=False,
                )
                try:
                    for (r, _), res in zip(jobs, results, strict=True):
                        r.results.append(res)
                        prog.done += 1
                        left -= 1
                        if bar is not None:
                            bar.update(1)
                finally:
                    # On Ctrl-C the pool of worker processes ends here, not when collected.
                    close = getattr(results, "close", None)
                    if close is not None:
                        close()
                for r in alive:
                    r.reached = k
                    r.score = score(r.data, r.game.num_players, e.seed, balanced)
                ranked = _rank(alive, order)
                history.append(
                    {
                        "round": k + 1,
                        "games_played": sum(g for _, g in plan),
                        "readings": [
                            {"reading": r.key, "games": len(r.results), "score": r.score} for r in ranked
                        ],
                        "kept": [r.key for r in ranked[: kept(len(ranked))]] if not last else [],
                    }
                )
                if not last:
                    alive = ranked[: kept(len(ranked))]
    finally:
        if bar is not None:
            bar.close()
    doc = document(e, rs, order)
    wall = time.perf_counter() - started
    if out_dir:
        from gamester.sim.explore_output import write_exploration

        write_exploration(out_dir, e, doc, rs, refused, history, wall)
    return doc


def reading_metrics(r: Reading, seed: int) -> dict[str, Any]:
    """Every ``analyse`` metric of the reading's games (the probes, not played here, are null)."""
    values = M.game_metrics(r.data, seed)
    values["skill_trace"] = interval(None, None, None)
    values["info_value"] = interval(None, None, None)
    return {k: values[k] for k in M.METRICS}


def document(e: Exploration, rs: Sequence[Reading], order: Mapping[str, int]) -> dict[str, Any]:
    """``explore.json``: the game, the space, how readings are ranked, and every reading best first."""
    return {
        "game": e.game,
        "space": open_space(e.game, e.options),
        "score": SCORES[score_name(e, rs)],
        "readings": [
            {
                "options": r.game.options_json(),
                "games": len(r.results),
                "score": r.score["value"],
                "ci": r.score["ci"],
                "metrics": reading_metrics(r, e.seed),
            }
            for r in _rank(rs, order)
        ],
    }
