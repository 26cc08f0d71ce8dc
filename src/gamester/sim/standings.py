"""A tournament's standings from its games' results: per agent, role and seat, win rates and mean
returns with 95% intervals over per-deal means, the paired (duplicate) comparisons, and openskill
ratings (docs/tournaments.md). The games themselves are played by ``gamester.sim.tournament``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gamester.core.protocol import Game
from gamester.sim.stats import mean_ci


def _interval(values: Sequence[float], bounds: tuple[float, float] | None = None) -> dict[str, float]:
    """Mean and 95% interval; ``bounds`` clips the interval to what the quantity can be (a rate)."""
    m, lo, hi = mean_ci(values)
    if bounds is not None:
        lo, hi = max(bounds[0], lo), min(bounds[1], hi)
    return {"mean": m, "low": lo, "high": hi}


def summarize(
    game: Game, specs: Sequence[str], results: Sequence[dict[str, Any]], seed: int
) -> dict[str, Any]:
    labels = list(dict.fromkeys(specs))
    n = game.num_players
    # Per agent, per deal: the wins and returns of every seat it held in every seating.
    per_deal: dict[str, dict[int, list[tuple[float, float]]]] = {a: {} for a in labels}
    per_group: dict[tuple[str, str], dict[int, list[tuple[float, float]]]] = {}
    # The games (deal, seating) each agent, and each agent in each role or seat, took part in: an
    # agent holding three seats of one game has played one game, not three.
    played: dict[tuple[str, str], set[tuple[int, int]]] = {}
    think = {a: [0.0, 0] for a in labels}
    for r in results:
        winners = set(r["winners"])
        key = (int(r["deal"]), int(r.get("seating_index", 0)))
        for s, a in enumerate(r["seating"]):
            item = (1.0 if s in winners else 0.0, float(r["returns"][s]))
            per_deal[a].setdefault(r["deal"], []).append(item)
            played.setdefault((a, ""), set()).add(key)
            # A set: in two-player games the role *is* the seat, and must count once.
            for group in dict.fromkeys((r["roles"][s], f"seat {s}")):
                per_group.setdefault((a, group), {}).setdefault(r["deal"], []).append(item)
                played.setdefault((a, group), set()).add(key)
            think[a][0] += r["think_seconds"][s]
            think[a][1] += r["moves"][s]

    def stats(deals: dict[int, list[tuple[float, float]]], who: tuple[str, str]) -> dict[str, Any]:
        wins = [sum(w for w, _ in v) / len(v) for v in deals.values()]
        rets = [sum(x for _, x in v) / len(v) for v in deals.values()]
        return {
            "games": len(played.get(who, ())),
            "seats": sum(len(v) for v in deals.values()),
            "deals": len(deals),
            "win_rate": _interval(wins, (0.0, 1.0)),
            "mean_return": _interval(rets),
        }

    ratings = _openskill(labels, results)
    agents: dict[str, Any] = {}
    for a in labels:
        entry = stats(per_deal[a], (a, ""))
        entry["seconds_per_move"] = think[a][0] / think[a][1] if think[a][1] else 0.0
        entry["rating"] = ratings.get(a)
        entry["by_role"] = {
            g: stats(d, (b, g))
            for (b, g), d in sorted(per_group.items())
            if b == a and not g.startswith("seat ")
        }
        entry["by_seat"] = {
            g: stats(d, (b, g)) for (b, g), d in sorted(per_group.items()) if b == a and g.startswith("seat ")
        }
        agents[a] = entry
    paired = _paired(labels, per_group)
    if len(labels) == n:
        paired += _paired_same_seat(labels, per_group, n)
    return {
        "format": "gamester-tournament",
        "paired": paired,
        "version": 1,
        "game": game.spec(),
        "num_players": n,
        "agents": agents,
        "seatings": [list(x) for x in dict.fromkeys(tuple(r["seating"]) for r in results)],
        "deals": len({r["deal"] for r in results}),
        "games": len(results),
        "seed": seed,
        "ci": "95% normal interval over per-deal means (each deal's seatings averaged first)",
    }


def _paired(
    labels: Sequence[str], per_group: dict[tuple[str, str], dict[int, list[tuple[float, float]]]]
) -> list[dict[str, Any]]:
    """Duplicate comparisons role by role: agent A in role ``R vs X`` against agent X itself in the
    same role against itself, on the same deals (each deal's difference of mean returns, then a 95%
    interval over deals). E.g. ``pimc`` as soloist against three heuristic defenders, compared with
    ``heuristic`` as soloist on the very same cards against the same defenders."""
    out = []
    for (a, role), deals in sorted(per_group.items()):
        if " vs " not in role or role.startswith("seat "):
            continue
        x = role.rsplit(" vs ", 1)[1]
        if x == a or x not in labels:
            continue
        base = per_group.get((x, role))
        if not base:
            continue
        diffs = []
        for d, items in deals.items():
            if d in base:
                mine = sum(r for _, r in items) / len(items)
                theirs = sum(r for _, r in base[d]) / len(base[d])
                diffs.append(mine - theirs)
        if diffs:
            out.append(
                {
                    "agent": a,
                    "baseline": x,
                    "role": role,
                    "deals": len(diffs),
                    "return_difference": _interval(diffs),
                }
            )
    return out


def _paired_same_seat(
    labels: Sequence[str], per_group: dict[tuple[str, str], dict[int, list[tuple[float, float]]]], n: int
) -> list[dict[str, Any]]:
    """Duplicate comparisons seat by seat, for tournaments with one agent per seat (every seating a
    permutation or rotation): on each deal, A's mean return in seat s minus B's in the same seat on
    the same cards, averaged over the seats; then a 95% interval over deals. In Penneech this is the
    classic duplicate score of A against B."""
    out = []
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            diffs = []
            for d in sorted(per_group.get((a, "seat 0"), {})):
                per_seat = []
                for s in range(n):
                    mine = per_group.get((a, f"seat {s}"), {}).get(d)
                    theirs = per_group.get((b, f"seat {s}"), {}).get(d)
                    if mine and theirs:
                        per_seat.append(
                            sum(r for _, r in mine) / len(mine) - sum(r for _, r in theirs) / len(theirs)
                        )
                if per_seat:
                    diffs.append(sum(per_seat) / len(per_seat))
            if diffs:
                out.append(
                    {
                        "agent": a,
                        "baseline": b,
                        "role": "same seat",
                        "deals": len(diffs),
                        "return_difference": _interval(diffs),
                    }
                )
    return out


def _openskill(labels: Sequence[str], results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Plackett–Luce ratings: each game ranks its seats by return; an agent holding several seats
    takes the average of their updated ratings. Empty if openskill is not installed."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        return {}
    model = PlackettLuce()
    rating = {a: model.rating(name=a) for a in labels}
    for r in results:
        seats = r["seating"]
        teams = [[model.rating(mu=rating[a].mu, sigma=rating[a].sigma)] for a in seats]
        ranks = [-float(x) for x in r["returns"]]
        new = model.rate(teams, ranks=ranks)
        for a in set(seats):
            mine = [new[s][0] for s, b in enumerate(seats) if b == a]
            rating[a] = model.rating(
                mu=sum(x.mu for x in mine) / len(mine), sigma=sum(x.sigma for x in mine) / len(mine)
            )
    return {a: {"mu": rt.mu, "sigma": rt.sigma, "ordinal": rt.ordinal()} for a, rt in rating.items()}
