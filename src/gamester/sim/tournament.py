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
(Plackett–Luce) rating, seconds per decision, and results per seat and per role (as the game declares
them, ``State.roles``; Piquesept: soloist or defender). Outputs: a terminal table, ``summary.json``,
``records.jsonl`` (each game's record with its seating and returns), ``chart.png`` (matplotlib, if
installed).

This module plays the games (seatings, line-ups, the jobs) and holds the command; the standings are
``gamester.sim.standings``, the outputs ``gamester.sim.tournament_output``, the intervals
``gamester.sim.stats`` (shared with the analysis). Every name is still importable from here.
"""

from __future__ import annotations

import argparse
import itertools
import os
import time
from collections.abc import Sequence
from typing import Any

from gamester.agents.base import agent_seed, make_agent, split_agents
from gamester.core.columns import listing, say_error
from gamester.core.errors import GameError
from gamester.core.protocol import Game, State
from gamester.core.registry import load_game
from gamester.sim.backend import check_backend, run_jobs
from gamester.sim.oracle import seat_view

# Kept importable from here (the modules each idea now lives in):
from gamester.sim.standings import _interval as _interval
from gamester.sim.standings import _openskill as _openskill
from gamester.sim.standings import _paired as _paired
from gamester.sim.standings import _paired_same_seat as _paired_same_seat
from gamester.sim.standings import summarize
from gamester.sim.stats import Z95, mean_ci
from gamester.sim.tournament_output import SIM_HINT, format_table, missing_extras, write_chart, write_outputs

__all__ = [
    "SIM_HINT",
    "Z95",
    "check_out_dir",
    "format_table",
    "main",
    "mean_ci",
    "missing_extras",
    "play_game",
    "play_tournament",
    "roles",
    "run_cli",
    "run_tournament",
    "seatings",
    "summarize",
    "write_chart",
    "write_outputs",
]


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
        a = agents[p].step(seat_view(agents[p], state, p))
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

    A game that gives its players roles (``State.roles``; Piquesept: soloist, defender): ``R vs X`` for
    a player of role R whose side (``State.teams``) is all one agent and whose opponents are all agent
    X (``soloist vs heuristic``, ``defender vs rollout``), else ``R (mixed)``. Other games with 3-4
    players: ``alone vs X`` for a seat facing only copies of agent X; otherwise ``seat s``.
    """
    n = state.game.num_players
    declared = state.roles() if n > 2 else []
    if declared:
        team_of = {p: team for team in state.teams() for p in team}
        out = []
        for s in range(n):
            side = {lineup[t] for t in team_of[s]}
            others = {lineup[t] for t in range(n) if t not in team_of[s]}
            pure = len(side) == 1 and len(others) == 1
            out.append(f"{declared[s]} vs {others.pop()}" if pure else f"{declared[s]} (mixed)")
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


def run_cli(args: argparse.Namespace) -> int:
    """``gamester tournament``: args has game, agents, games, seed, workers, out, backend, option
    (and optionally ray_address)."""
    backend = getattr(args, "backend", "local") or "local"
    options = list(getattr(args, "option", None) or [])
    game_spec = args.game
    if options:
        for o in options:
            if "=" not in o:
                say_error(f"gamester tournament: --option {o!r} is not K=V")
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
        say_error(f"gamester tournament: {e}")
        return 2
    print(format_table(summary))
    missing = missing_extras()
    if missing:
        what = {"openskill": "ratings", "matplotlib": "chart.png"}
        print(
            f"note: no {' and no '.join(what[m] for m in missing)}: {' and '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} not installed\n  ({SIM_HINT} adds them)"
        )
    if out:
        print(listing("wrote ", [os.path.join(out, w) for w in written], sep=", "))
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
