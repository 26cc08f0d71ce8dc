"""Game-design metrics of a set of played games, each with a 95% interval (``docs/analysis.md``).

The metrics adapt those of Browne (2008) and of Ludii's evaluation module to card games with hidden
information: the evaluation-based ones read each seat's *own* estimated chance of winning at every
decision (never an evaluation of the full state). Every function here takes plain per-game data
(:class:`GameData`), so it can be tested on games built by hand.

Intervals: Wilson's interval for shares of games (completion, drawishness, timeouts), a normal
interval for a mean of independent games (duration), and a percentile bootstrap over games (resampling
whole games, seeded, so the same games always give the same interval) where no formula fits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

# The shared statistics (gamester.sim.stats), importable from here as before.
from gamester.sim.stats import BOOTSTRAP as BOOTSTRAP
from gamester.sim.stats import Z95 as Z95
from gamester.sim.stats import Interval, bootstrap, mean_normal, wilson
from gamester.sim.stats import interval as interval


@dataclass
class GameData:
    """What the metrics need from one played game."""

    returns: list[float]
    winners: list[int]
    """The players with the highest return; empty when all returns are equal."""
    legal: list[int] = field(default_factory=list)
    """The number of legal actions at each decision, in order."""
    estimates: list[list[float]] = field(default_factory=list)
    """At each decision, each seat's estimated chance of winning from its own view."""
    timeout: bool = False
    roles: list[str] = field(default_factory=list)
    """Each seat's role when the game has roles (Piquesept: soloist, defender); else empty."""


# -- from the results ------------------------------------------------------------------------------
def completion(games: Sequence[GameData]) -> Interval:
    return wilson(sum(1 for g in games if g.winners), len(games))


def drawishness(games: Sequence[GameData]) -> Interval:
    return wilson(sum(1 for g in games if len(set(g.returns)) == 1), len(games))


def timeouts(games: Sequence[GameData]) -> Interval:
    return wilson(sum(1 for g in games if g.timeout), len(games))


def _seat_rates(games: Sequence[GameData]) -> list[float]:
    n = len(games[0].returns)
    wins = [0] * n
    for g in games:
        for w in g.winners:
            wins[w] += 1
    return [w / len(games) for w in wins]


def balance(games: Sequence[GameData], seed: int = 0) -> Interval:
    """1 - the largest gap between two seats' win rates (Ludii's Balance)."""

    def stat(gs: Sequence[GameData]) -> float:
        rates = _seat_rates(gs)
        return 1.0 - (max(rates) - min(rates))

    return bootstrap(games, stat, seed)


def seat_win_rates(games: Sequence[GameData]) -> dict[str, Any]:
    """``{"value": {key: rate}, "ci": {key: [lo, hi]}}``: keys ``seat 0`` … and each role."""
    value: dict[str, float | None] = {}
    ci: dict[str, list[float | None]] = {}
    if not games:
        return {"value": value, "ci": ci}
    n = len(games[0].returns)
    for s in range(n):
        iv = wilson(sum(1 for g in games if s in g.winners), len(games))
        value[f"seat {s}"], ci[f"seat {s}"] = iv["value"], iv["ci"]
    roles = sorted({r for g in games for r in g.roles})
    for role in roles:
        # A role's rate per seat holding it: three defenders who win together count three seats.
        held = sum(1 for g in games for r in g.roles if r == role)
        won = sum(1 for g in games for s, r in enumerate(g.roles) if r == role and s in g.winners)
        iv = wilson(won, held)
        value[role], ci[role] = iv["value"], iv["ci"]
    return {"value": value, "ci": ci}


def duration_actions(games: Sequence[GameData]) -> Interval:
    return mean_normal([float(len(g.legal)) for g in games])


def branching_factor(games: Sequence[GameData], seed: int = 0) -> Interval:
    """Mean number of legal actions at a decision, over all decisions of all games."""

    def stat(gs: Sequence[GameData]) -> float | None:
        d = sum(len(g.legal) for g in gs)
        return sum(sum(g.legal) for g in gs) / d if d else None

    return bootstrap(games, stat, seed)


def decision_moves(games: Sequence[GameData], seed: int = 0) -> Interval:
    """Share of decisions with more than one legal action (bootstrap over games: decisions of one
    game are not independent)."""

    def stat(gs: Sequence[GameData]) -> float | None:
        d = sum(len(g.legal) for g in gs)
        return sum(1 for g in gs for k in g.legal if k > 1) / d if d else None

    return bootstrap(games, stat, seed)


# -- from the hidden-information estimates ---------------------------------------------------------
def game_lead_change(est: Sequence[Sequence[float]]) -> float | None:
    """Share of consecutive decisions at which the leader (the seat with the highest estimate of its
    own chance) changes. A tie keeps the previous leader if it is among the tied."""
    if len(est) < 2:
        return None
    leader = -1
    changes = 0
    for t, row in enumerate(est):
        top = max(row)
        tied = [s for s, v in enumerate(row) if v == top]
        if leader in tied:
            continue
        if t > 0:
            changes += 1
        leader = tied[0]
    return changes / (len(est) - 1)


def _winner_curve(g: GameData) -> list[float]:
    return [sum(row[w] for w in g.winners) / len(g.winners) for row in g.estimates]


def game_drama(g: GameData) -> float | None:
    """Mean, over decisions where no eventual winner leads, of the leader's estimate minus the
    winners' (0 when a winner always leads); None without a winner."""
    if not g.winners or not g.estimates:
        return None
    gaps = []
    for row, w in zip(g.estimates, _winner_curve(g), strict=True):
        top = max(row)
        if all(row[s] < top for s in g.winners):
            gaps.append(top - w)
    return sum(gaps) / len(gaps) if gaps else 0.0


def game_decisiveness(g: GameData) -> float | None:
    """Share of the game's decisions left when the winners' estimate first exceeds the highest
    estimate any loser ever had (0 when it never does); None without a winner."""
    if not g.winners or not g.estimates:
        return None
    losers = [s for s in range(len(g.returns)) if s not in g.winners]
    if not losers:
        return None
    threshold = max(row[s] for row in g.estimates for s in losers)
    for t, w in enumerate(_winner_curve(g)):
        if w > threshold:
            return (len(g.estimates) - t) / len(g.estimates)
    return 0.0


def game_stability(g: GameData) -> float | None:
    """Mean over seats of the variance of the seat's estimate over the game (Ludii's Stability:
    0 for estimates that never move)."""
    if len(g.estimates) < 2:
        return None
    n = len(g.estimates[0])
    out = 0.0
    for s in range(n):
        xs = [row[s] for row in g.estimates]
        m = sum(xs) / len(xs)
        out += sum((x - m) ** 2 for x in xs) / len(xs)
    return out / n


def per_game_mean(
    games: Sequence[GameData], f: Callable[[GameData], float | None], seed: int = 0
) -> Interval:
    """The mean of a per-game value over the games where it is defined, bootstrapped over games."""
    values = [v for v in (f(g) for g in games) if v is not None]

    def stat(vs: Sequence[float]) -> float | None:
        return sum(vs) / len(vs) if vs else None

    return bootstrap(values, stat, seed)


def lead_change(games: Sequence[GameData], seed: int = 0) -> Interval:
    return per_game_mean(games, lambda g: game_lead_change(g.estimates), seed)


def drama(games: Sequence[GameData], seed: int = 0) -> Interval:
    return per_game_mean(games, game_drama, seed)


def decisiveness(games: Sequence[GameData], seed: int = 0) -> Interval:
    return per_game_mean(games, game_decisiveness, seed)


def stability(games: Sequence[GameData], seed: int = 0) -> Interval:
    return per_game_mean(games, game_stability, seed)


# -- from probe matches ---------------------------------------------------------------------------
def skill_trace(rungs: Sequence[dict[int, list[float]]], seed: int = 0) -> Interval:
    """Skill against luck from a ladder of doubling budgets (adapted from Ludii's SkillTrace).

    ``rungs[i]`` maps a deal to the per-game advantages of the agent with budget ``2b`` over the one
    with ``b`` on that deal (the stronger seat's win, 0 or 1, minus the weaker seats' mean win, one
    value per seat the stronger agent took). A rung's gain is the mean advantage over deals, floored
    at 0; the score is the mean gain over the rungs, in [0, 1]: 0 when doubling the effort never
    helps (luck decides), 1 when the doubled agent always wins at every rung. The bootstrap resamples
    deals, the same deals in every rung.
    """
    deals = sorted(set().union(*[set(r) for r in rungs])) if rungs else []

    def stat(ds: Sequence[int]) -> float | None:
        gains = []
        for r in rungs:
            vals = [sum(r[d]) / len(r[d]) for d in ds if r.get(d)]
            if vals:
                gains.append(max(0.0, sum(vals) / len(vals)))
        return sum(gains) / len(gains) if gains else None

    return bootstrap(deals, stat, seed)


def rung_gains(rungs: Sequence[dict[int, list[float]]]) -> list[Interval]:
    """Each rung's mean advantage (not floored) with a normal interval over deals."""
    return [mean_normal([sum(v) / len(v) for v in r.values() if v]) for r in rungs]


def paired_difference(diffs: Sequence[float], seed: int = 0) -> Interval:
    """A mean of paired per-deal differences (``info_value``) with a bootstrap interval."""

    def stat(vs: Sequence[float]) -> float | None:
        return sum(vs) / len(vs) if vs else None

    return bootstrap(list(diffs), stat, seed)


RESULT_METRICS = (
    "completion",
    "drawishness",
    "timeouts",
    "balance",
    "seat_win_rates",
    "duration_actions",
    "branching_factor",
    "decision_moves",
)
ESTIMATE_METRICS = ("lead_change", "drama", "decisiveness", "stability")
PROBE_METRICS = ("skill_trace", "info_value")
METRICS = RESULT_METRICS + ESTIMATE_METRICS + PROBE_METRICS


def game_metrics(games: Sequence[GameData], seed: int = 0) -> dict[str, Any]:
    """Every metric that the games themselves give (all but ``skill_trace`` and ``info_value``)."""
    return {
        "completion": completion(games),
        "drawishness": drawishness(games),
        "timeouts": timeouts(games),
        "balance": balance(games, seed),
        "seat_win_rates": seat_win_rates(games),
        "duration_actions": duration_actions(games),
        "branching_factor": branching_factor(games, seed),
        "decision_moves": decision_moves(games, seed),
        "lead_change": lead_change(games, seed),
        "drama": drama(games, seed),
        "decisiveness": decisiveness(games, seed),
        "stability": stability(games, seed),
    }
