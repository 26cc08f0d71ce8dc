"""Tournaments on duplicate deals: every agent in every seat, the luck of the cards cancelled.

Deal ``i`` is the chance of seed ``seed + i`` (docs/tournaments.md: the same seed gives game i the same chance
whatever the agents). Each deal is replayed under every *seating*:

* as many agents as seats: every permutation for 2 and 3 players, the rotations for 4;
* two agents in a 3- or 4-player game: each agent alone in each seat against copies of the other
  ("one against three"), plus each agent in every seat (the baseline of the paired comparisons);
* otherwise the cyclic line-ups ``seat s -> agents[(s + t) % k]``, ``t = 0 … k-1``, which put each
  agent in each seat once.

Per agent (agents with the same spec are one agent): win rate and mean return with 95% confidence
intervals computed over *per-deal means* — a deal's seatings are averaged first, so the pairing is
respected and the interval reflects the skill difference rather than the cards — an openskill
(Plackett–Luce) rating, seconds per decision, and results per seat and per role (Piquesept: soloist or
defender). Outputs: a terminal table, ``summary.json``, ``records.jsonl`` (each game's record with
its seating and returns), ``chart.png`` (matplotlib, if installed).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import sys
import time
from collections.abc import Iterable, Sequence
from typing import Any

from gamester.agents.base import View, make_agent, split_agents
from gamester.core.errors import GameError
from gamester.core.protocol import Game, State
from gamester.core.registry import load_game
from gamester.sim.backend import check_backend, run_jobs

Z95 = 1.959963984540054


# -- seatings --------------------------------------------------------------------------------
def seatings(agents: Sequence[str], num_players: int) -> list[tuple[str, ...]]:
    """The line-ups each deal is played under (see the module docstring)."""
    n = num_players
    k = len(agents)
    if k == 0:
        raise GameError("a tournament needs at least one agent")
    if k == 1:
        return [tuple(agents) * n]
    if k == n:
        if n <= 3:
            out: list[tuple[str, ...]] = []
            for p in itertools.permutations(agents):
                if p not in out:
                    out.append(p)
            return out
        return [tuple(agents[(s + t) % n] for s in range(n)) for t in range(n)]
    if k == 2 and n > 2:
        a, b = agents
        out = []
        for solo, rest in ((a, b), (b, a)):
            for s in range(n):
                out.append(tuple(solo if i == s else rest for i in range(n)))
        # The two agents alone at the table: the baselines of the paired comparisons.
        out += [(a,) * n, (b,) * n]
        return out
    if k > n:
        raise GameError(f"{k} agents for a {n}-player game: give at most {n}")
    return [tuple(agents[(s + t) % k] for s in range(n)) for t in range(k)]


# -- one game --------------------------------------------------------------------------------
def agent_seed(deal_seed: int, seat: int) -> int:
    return (deal_seed * 1_000_003 + seat * 7_919 + 17) % (1 << 62)


def play_game(game: Game, lineup: Sequence[str], deal_seed: int) -> dict[str, Any]:
    """One game of ``game`` with ``lineup[s]`` in seat ``s``; the chance of ``deal_seed``."""
    state = game.new_initial_state(seed=deal_seed)
    agents = [make_agent(spec, game=game, seed=agent_seed(deal_seed, s)) for s, spec in enumerate(lineup)]
    think = [0.0] * len(lineup)
    moves = [0] * len(lineup)
    clock = time.perf_counter
    while not state.is_terminal():
        p = state.current_player()
        t0 = clock()
        a = agents[p].step(View(state, p))
        think[p] += clock() - t0
        moves[p] += 1
        state.apply_action(a)
    returns = state.returns()
    return {
        "seating": list(lineup),
        "seed": deal_seed,
        "returns": returns,
        "scores": state.scores(),
        "winners": _winners(returns),
        "roles": roles(state, lineup),
        "think_seconds": think,
        "moves": moves,
        "record": state.record(),
    }


def _winners(returns: Sequence[float]) -> list[int]:
    top = max(returns)
    if all(r == top for r in returns):
        return []
    return [i for i, r in enumerate(returns) if r == top]


def roles(state: State, lineup: Sequence[str]) -> list[str]:
    """Each seat's role in the game, for per-role results.

    A game with a soloist (its public view names a ``soloist`` seat: Piquesept): ``soloist vs X`` when
    the defenders are all agent X, ``defender vs X`` when the defenders are all this seat's agent and
    the soloist is X (a pure side), else ``soloist (mixed)`` / ``defender (mixed)``. Other games with
    3-4 players: ``alone vs X`` for a seat facing only copies of agent X; otherwise ``seat s``.
    """
    n = state.game.num_players
    if n > 2:
        solo = _soloist(state)
        if solo is not None:
            defenders = {lineup[s] for s in range(n) if s != solo}
            out = []
            for s in range(n):
                if s == solo:
                    out.append(f"soloist vs {defenders.pop()}" if len(defenders) == 1 else "soloist (mixed)")
                    defenders = {lineup[t] for t in range(n) if t != solo}
                elif defenders == {lineup[s]}:
                    out.append(f"defender vs {lineup[solo]}")
                else:
                    out.append("defender (mixed)")
            return out
    out = []
    for s in range(n):
        others = {lineup[t] for t in range(n) if t != s}
        out.append(
            f"alone vs {others.pop()}"
            if n > 2 and len(others) == 1 and lineup[s] not in others
            else f"seat {s}"
        )
    return out


def _soloist(state: State) -> int | None:
    solo = state.public_observation().get("soloist")
    return solo if isinstance(solo, int) and not isinstance(solo, bool) else None


# -- the tournament --------------------------------------------------------------------------
def _task(args: tuple[str, tuple[str, ...], int, int, int]) -> dict[str, Any]:
    game_spec, lineup, deal, seating_index, deal_seed = args
    game = load_game(game_spec)
    res = play_game(game, lineup, deal_seed)
    res["deal"] = deal
    res["seating_index"] = seating_index
    return res


def run_tournament(
    game_spec: str,
    agent_specs: Sequence[str],
    games: int,
    seed: int = 0,
    workers: int = 2,
    out_dir: str | None = None,
    progress: bool = True,
    *,
    backend: str = "local",
    ray_address: str | None = None,
) -> dict[str, Any]:
    """Play ``games`` deals, each under every seating; return (and write) the summary.

    ``backend`` is ``local`` (``workers`` processes) or ``ray`` (``ray_address``: a running cluster,
    default a local Ray); the same seed gives the same results and summary on either."""
    summary, results = play_tournament(
        game_spec,
        agent_specs,
        games,
        seed,
        workers,
        out_dir,
        progress,
        backend=backend,
        ray_address=ray_address,
    )
    if out_dir:
        write_outputs(out_dir, summary, results)
    return summary


def play_tournament(
    game_spec: str,
    agent_specs: Sequence[str],
    games: int,
    seed: int = 0,
    workers: int = 2,
    out_dir: str | None = None,
    progress: bool = True,
    *,
    backend: str = "local",
    ray_address: str | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The summary and the per-game results (``out_dir`` is only checked, not written)."""
    game = load_game(game_spec)
    if games < 1:
        raise GameError(f"--games must be at least 1 (got {games})")
    if seed < 0:
        raise GameError(f"--seed must be 0 or more (got {seed})")
    specs = [s.strip() for s in agent_specs if s.strip()]
    for s in dict.fromkeys(specs):
        make_agent(s, game=game, seed=0)  # fail early, listing the valid names and parameters
    check_backend(backend, ray_address)
    if out_dir:
        check_out_dir(out_dir)
    lineups = seatings(specs, game.num_players)
    tasks = [(game.spec(), lineup, d, j, seed + d) for d in range(games) for j, lineup in enumerate(lineups)]
    started = time.perf_counter()
    results = list(
        run_jobs(
            _task,
            tasks,
            backend=backend,
            workers=workers,
            ray_address=ray_address,
            desc=f"{game.name} tournament",
            progress=progress,
        )
    )
    results.sort(key=lambda r: (r["deal"], r["seating_index"]))
    summary = summarize(game, specs, results, seed)
    summary["wall_seconds"] = round(time.perf_counter() - started, 2)
    summary["workers"] = workers
    summary["backend"] = backend
    return summary, results


def check_out_dir(out_dir: str) -> None:
    """``--out DIR``: a folder that exists or can be made inside an existing one; never a file."""
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise GameError(f"--out {out_dir} is a file, not a folder")
    parent = os.path.dirname(os.path.abspath(out_dir))
    if not os.path.isdir(parent):
        raise GameError(f"--out {out_dir}: the folder {parent} does not exist")


# -- statistics ------------------------------------------------------------------------------
def mean_ci(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and a normal-approximation 95% interval (values are per-deal means, independent)."""
    n = len(values)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    m = sum(values) / n
    if n == 1:
        return (m, m, m)
    var = sum((v - m) ** 2 for v in values) / (n - 1)
    h = Z95 * math.sqrt(var / n)
    return (m, m - h, m + h)


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


# -- output ----------------------------------------------------------------------------------
def format_table(summary: dict[str, Any]) -> str:
    rows = [("agent", "games", "win rate [95% CI]", "mean return [95% CI]", "rating mu±sigma", "s/move")]

    def iv(x: dict[str, float], pct: bool) -> str:
        if pct:
            return f"{100 * x['mean']:5.1f}% [{100 * x['low']:5.1f}, {100 * x['high']:5.1f}]"
        return f"{x['mean']:+.3f} [{x['low']:+.3f}, {x['high']:+.3f}]"

    for a, e in summary["agents"].items():
        rt = e.get("rating")
        rows.append(
            (
                a,
                str(e["games"]),
                iv(e["win_rate"], True),
                iv(e["mean_return"], False),
                f"{rt['mu']:.1f}±{rt['sigma']:.1f}" if rt else "-",
                f"{e['seconds_per_move']:.3f}",
            )
        )
        for role, r in e["by_role"].items():
            rows.append(
                (
                    f"  as {role}",
                    str(r["games"]),
                    iv(r["win_rate"], True),
                    iv(r["mean_return"], False),
                    "",
                    "",
                )
            )
    for p in summary.get("paired", []):
        rows.append(
            (
                f"{p['agent']} - {p['baseline']}",
                str(p["deals"]),
                f"as {p['role']}",
                iv(p["return_difference"], False),
                "(paired)",
                "",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        f"{summary['game']}: {summary['deals']} deals x {len(summary['seatings'])} seatings "
        f"= {summary['games']} games (duplicate deals; CI over per-deal means)"
    ]
    for j, r in enumerate(rows):
        lines.append("  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip())
        if j == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def write_outputs(out_dir: str, summary: dict[str, Any], results: Iterable[dict[str, Any]]) -> list[str]:
    """Write the summary, the records and (with matplotlib) the chart; return the files written."""
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    with open(os.path.join(out_dir, "records.jsonl"), "w", encoding="utf-8") as f:
        for r in results:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
    written = ["summary.json", "records.jsonl"]
    if write_chart(os.path.join(out_dir, "chart.png"), summary):
        written.append("chart.png")
    return written


def missing_extras() -> list[str]:
    """What the ``sim`` extra would add here and is missing: ``openskill`` (ratings), ``matplotlib``
    (chart.png)."""
    import importlib.util

    return [m for m in ("openskill", "matplotlib") if importlib.util.find_spec(m) is None]


SIM_HINT = "pip install 'gamester[sim]'"


def write_chart(path: str, summary: dict[str, Any]) -> bool:
    """A bar chart of win rates and mean returns with their intervals; False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    names = list(summary["agents"])
    fig, axes = plt.subplots(1, 2, figsize=(4 + 1.6 * len(names), 4))
    for ax, key, title in ((axes[0], "win_rate", "win rate"), (axes[1], "mean_return", "mean return")):
        vals = [summary["agents"][a][key] for a in names]
        means = [v["mean"] for v in vals]
        err = [
            [m - v["low"] for m, v in zip(means, vals, strict=True)],
            [v["high"] - m for m, v in zip(means, vals, strict=True)],
        ]
        ax.bar(range(len(names)), means, yerr=err, capsize=6, color="#4878a8")
        ax.set_xticks(range(len(names)), names, rotation=20, ha="right", fontsize=8)
        ax.set_title(f"{title} (95% CI)")
        ax.axhline(0 if key == "mean_return" else 1 / summary["num_players"], color="grey", lw=0.8)
    fig.suptitle(f"{summary['game']}: {summary['games']} games on {summary['deals']} duplicate deals")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


# -- command line ----------------------------------------------------------------------------
def run_cli(args: argparse.Namespace) -> int:
    """``gamester tournament``: args has game, agents, games, seed, workers, out, backend, option
    (and optionally ray_address)."""
    backend = getattr(args, "backend", "local") or "local"
    options = list(getattr(args, "option", None) or [])
    game_spec = args.game
    if options:
        for o in options:
            if "=" not in o:
                print(f"gamester tournament: --option {o!r} is not K=V", file=sys.stderr)
                return 2
        inner = ",".join(options)
        game_spec = f"{game_spec[:-1]},{inner})" if game_spec.endswith(")") else f"{game_spec}({inner})"
    agents = split_agents(str(args.agents or ""))
    games = 100 if args.games is None else int(args.games)
    seed = 0 if args.seed is None else int(args.seed)
    workers = 2 if args.workers is None else int(args.workers)
    out = getattr(args, "out", None)
    try:
        summary, results = play_tournament(
            game_spec,
            agents,
            games,
            seed=seed,
            workers=workers,
            out_dir=out,
            progress=not getattr(args, "quiet", False),
            backend=backend,
            ray_address=getattr(args, "ray_address", None),
        )
        written = write_outputs(out, summary, results) if out else []
    except GameError as e:
        print(f"gamester tournament: {e}", file=sys.stderr)
        return 2
    print(format_table(summary))
    missing = missing_extras()
    if missing:
        what = {"openskill": "ratings", "matplotlib": "chart.png"}
        print(
            f"note: no {' and no '.join(what[m] for m in missing)}: {', '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} not installed ({SIM_HINT})"
        )
    if out:
        print(f"wrote {', '.join(os.path.join(out, w) for w in written)}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m gamester.sim.tournament")
    p.add_argument("game")
    p.add_argument("--agents", required=True)
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out")
    p.add_argument("--backend", default="local")
    p.add_argument("--ray-address", default=None)
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--option", action="append", default=[])
    return run_cli(p.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
