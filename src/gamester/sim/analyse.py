"""``gamester analyse``: what each rule set does to the game, measured (docs/analysis.md).

For every rule set asked for, ``games`` games are played with the analysis agents (default: the best
agent of the game in every seat). Game ``i`` uses the chance of seed ``seed + i``, as in ``simulate``.
At every decision each seat's chance of winning is estimated from that seat's own view
(:mod:`gamester.sim.estimate`). Two kinds of probe matches are played on the first deals:

* ``skill_trace``: a ladder of one search agent at doubling budgets (``rollout:worlds=1, 2, 4, 8`` by
  default), each rung's stronger agent in every seat against the weaker one;
* ``info_value``: the info agent in one seat shown every card (:class:`ClairvoyantView`: its sampled
  worlds are copies of the true state; analysis only, never a player) against the same game with the
  same agent seeing only its seat, on the same deal and seeds.

Outputs in ``DIR``: ``summary.json`` (its format in docs/analysis.md), ``NAME/records.jsonl`` (every analysed
game's complete record, in the order played), one plot per metric comparing the rule sets
(``METRIC.png``, with matplotlib) and ``report.md``. Definitions and sources: ``docs/analysis.md``.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gamester.agents import best_agent_spec
from gamester.agents.base import View, agent_seed, make_agent, split_agents
from gamester.core.errors import GameError
from gamester.core.protocol import Game, State
from gamester.core.record import winners
from gamester.core.registry import game_class, load_game
from gamester.core.rng import derive
from gamester.sim import metrics as M
from gamester.sim.backend import check_backend, run_jobs
from gamester.sim.estimate import Estimator
from gamester.sim.tournament import check_out_dir

MAX_ACTIONS = 20_000
"""A game still running after this many actions is stopped and counted as a timeout."""

LIMIT_REASONS = frozenset({"max_rounds"})
"""End reasons (in a game's public summary ``results``) that mean a limit stopped the game."""


@dataclass
class Analysis:
    """What to analyse and how (the command's options)."""

    game: str
    rulesets: list[str] = field(default_factory=list)
    options: dict[str, str] = field(default_factory=dict)
    games: int = 100
    agents: str | None = None
    seed: int = 0
    worlds: int = 8
    skill_games: int = 10
    skill_ladder: str | None = None
    skill_budgets: tuple[int, ...] = (1, 2, 4, 8)
    info_games: int = 20
    info_agent: str | None = None
    workers: int = 2
    backend: str = "local"
    ray_address: str | None = None
    progress: bool = True


# -- jobs (module-level so that every backend pickles them by name) --------------------------------
def _limited(state: State) -> bool:
    if not state.is_terminal():
        return True
    results = state.summary_extra().get("results")
    if isinstance(results, list):
        return any(isinstance(r, dict) and r.get("reason") in LIMIT_REASONS for r in results)
    return False


def play_analysed(game_spec: str, specs: Sequence[str], deal_seed: int, worlds: int) -> dict[str, Any]:
    """One game with each seat's estimated chance of winning at every decision."""
    game = load_game(game_spec)
    state = game.new_initial_state(seed=deal_seed)
    agents = [make_agent(spec, game=game, seed=agent_seed(deal_seed, s)) for s, spec in enumerate(specs)]
    estimator = Estimator(game, worlds, seed=deal_seed) if worlds > 0 else None
    legal_counts: list[int] = []
    estimates: list[list[float]] = []
    while not state.is_terminal() and len(legal_counts) < MAX_ACTIONS:
        legal_counts.append(len(state.legal_actions()))
        if estimator is not None:
            key = derive(deal_seed, "estimate", len(legal_counts))
            estimates.append([round(x, 4) for x in estimator.chances(state, key)])
        p = state.current_player()
        state.apply_action(agents[p].step(View(state, p)))
    record = state.record()
    record["agents"] = list(specs)
    return {
        "record": record,
        "returns": state.returns(),
        "winners": winners(state),
        "legal": legal_counts,
        "estimates": estimates,
        "timeout": _limited(state),
        "roles": state.roles(),
    }


class ClairvoyantView(View):
    """A view whose ``determinize`` returns a copy of the true state: the agent using it searches
    worlds that are the real position (every hand, the stock's order). For ``info_value`` only: no
    player ever gets one. ``draws`` counts the worlds handed out (0: the agent does not search)."""

    __slots__ = ("_truth", "draws")

    def __init__(self, state: State, player: int, draws: list[int]) -> None:
        super().__init__(state, player)
        self._truth = state
        self.draws = draws

    def determinize(self, rng: random.Random) -> State:
        self.draws[0] += 1
        return self._truth.clone()


def play_probe(
    game_spec: str, lineup: Sequence[str], clairvoyant: Sequence[int], deal_seed: int
) -> dict[str, Any]:
    """One game of ``lineup``; the seats in ``clairvoyant`` see the true state in their searches."""
    game = load_game(game_spec)
    state = game.new_initial_state(seed=deal_seed)
    agents = [make_agent(spec, game=game, seed=agent_seed(deal_seed, s)) for s, spec in enumerate(lineup)]
    draws = [0]
    steps = 0
    while not state.is_terminal() and steps < MAX_ACTIONS:
        p = state.current_player()
        view = ClairvoyantView(state, p, draws) if p in clairvoyant else View(state, p)
        state.apply_action(agents[p].step(view))
        steps += 1
    return {"returns": state.returns(), "winners": winners(state), "draws": draws[0]}


def _job(job: tuple[Any, ...]) -> dict[str, Any]:
    kind = job[0]
    if kind == "main":
        return play_analysed(job[1], job[2], job[3], job[4])
    return play_probe(job[1], job[2], job[3], job[4])


# -- planning --------------------------------------------------------------------------------------
def _fill(specs: list[str], n: int) -> list[str]:
    if len(specs) == 1:
        return specs * n
    if len(specs) != n:
        raise GameError(
            f"--agents names {len(specs)} agents; this game has {n} players "
            "(give one per player, or one for all)"
        )
    return specs


def ladder_specs(a: Analysis, game: Game) -> list[str]:
    template = a.skill_ladder or game.kit().skill_ladder
    if "{}" not in template:
        raise GameError(
            f"--skill-ladder {template!r} must contain {{}} where the budget goes, e.g. rollout:worlds={{}}"
        )
    return [template.replace("{}", str(b)) for b in a.skill_budgets]


def plan(a: Analysis) -> tuple[dict[str, Game], list[tuple[str, tuple[Any, ...]]]]:
    """The game of each rule set and every job (tagged by rule set), checking all input first."""
    if a.games < 1:
        raise GameError(f"--games must be at least 1 (got {a.games})")
    if a.seed < 0:
        raise GameError(f"--seed must be 0 or more (got {a.seed})")
    for name, v in (("--worlds", a.worlds), ("--skill-games", a.skill_games), ("--info-games", a.info_games)):
        if v < 0:
            raise GameError(f"{name} must be 0 or more (got {v})")
    if a.skill_games and (len(a.skill_budgets) < 2 or any(b < 1 for b in a.skill_budgets)):
        raise GameError("--skill-budgets needs at least two budgets of 1 or more, e.g. 1,2,4,8")
    check_backend(a.backend, a.ray_address)
    cls = game_class(a.game)
    names = list(dict.fromkeys(a.rulesets)) or list(cls.rulesets)
    games: dict[str, Game] = {}
    jobs: list[tuple[str, tuple[Any, ...]]] = []
    for name in names:
        game = load_game(a.game, ruleset=name, **a.options)
        games[name] = game
        n = game.num_players
        spec = game.spec()
        specs = _fill(split_agents(a.agents or best_agent_spec(game.name)), n)
        for s in dict.fromkeys(specs):
            make_agent(s, game=game, seed=0)  # a bad spec fails here, listing the valid ones
        for i in range(a.games):
            jobs.append((name, ("main", spec, tuple(specs), a.seed + i, a.worlds)))
        if a.skill_games:
            ladder = ladder_specs(a, game)
            for s in dict.fromkeys(ladder):
                make_agent(s, game=game, seed=0)
            for r in range(len(ladder) - 1):
                weak, strong = ladder[r], ladder[r + 1]
                for d in range(a.skill_games):
                    for seat in range(n):
                        lineup = tuple(strong if t == seat else weak for t in range(n))
                        jobs.append((name, ("skill", spec, lineup, (), a.seed + d, r, seat)))
        if a.info_games:
            info = a.info_agent or specs[0]
            make_agent(info, game=game, seed=0)
            for d in range(a.info_games):
                seat = d % n
                lineup = (info,) * n
                jobs.append((name, ("base", spec, lineup, (), a.seed + d, seat)))
                jobs.append((name, ("clair", spec, lineup, (seat,), a.seed + d, seat)))
    return games, jobs


# -- the run ---------------------------------------------------------------------------------------
def run_analysis(a: Analysis, out_dir: str | None = None) -> dict[str, Any]:
    """Play, measure and (with ``out_dir``) write everything; return the summary."""
    if out_dir:
        check_out_dir(out_dir)
    games, jobs = plan(a)
    started = time.perf_counter()
    results = list(
        run_jobs(
            _job,
            [j for _, j in jobs],
            backend=a.backend,
            workers=a.workers,
            ray_address=a.ray_address,
            desc=f"analyse {a.game}",
            progress=a.progress,
        )
    )
    summary: dict[str, Any] = {
        "game": a.game,
        "agents": split_agents(a.agents) if a.agents else [best_agent_spec(a.game)],
        "seed": a.seed,
        "rulesets": {},
    }
    details: dict[str, Any] = {}
    for name, game in games.items():
        mine = [(j, r) for (tag, j), r in zip(jobs, results, strict=True) if tag == name]
        main = [r for j, r in mine if j[0] == "main"]
        data = [
            M.GameData(
                returns=r["returns"],
                winners=r["winners"],
                legal=r["legal"],
                estimates=r["estimates"],
                timeout=r["timeout"],
                roles=r["roles"],
            )
            for r in main
        ]
        metric_values = M.game_metrics(data, a.seed)
        extra: dict[str, Any] = {"records": [r["record"] for r in main]}
        # skill_trace: rung -> deal -> the stronger seat's advantage in each game of that deal.
        n = game.num_players
        if a.skill_games:
            ladder = ladder_specs(a, game)
            rungs: list[dict[int, list[float]]] = [{} for _ in range(len(ladder) - 1)]
            for j, r in mine:
                if j[0] != "skill":
                    continue
                rung, seat, deal = j[5], j[6], j[4]
                won = set(r["winners"])
                others = [1.0 if t in won else 0.0 for t in range(n) if t != seat]
                adv = (1.0 if seat in won else 0.0) - sum(others) / len(others)
                rungs[rung].setdefault(deal, []).append(adv)
            metric_values["skill_trace"] = M.skill_trace(rungs, a.seed)
            extra["ladder"] = ladder
            extra["rung_gains"] = M.rung_gains(rungs)
        else:
            metric_values["skill_trace"] = M.interval(None, None, None)
        if a.info_games:
            base = {j[4]: r for j, r in mine if j[0] == "base"}
            clair = {j[4]: (j[5], r) for j, r in mine if j[0] == "clair"}
            diffs = []
            draws = 0
            for deal, (seat, r) in sorted(clair.items()):
                draws += r["draws"]
                diffs.append(
                    (1.0 if seat in r["winners"] else 0.0) - (1.0 if seat in base[deal]["winners"] else 0.0)
                )
            extra["info_agent"] = (
                a.info_agent or _fill(split_agents(a.agents or best_agent_spec(game.name)), n)[0]
            )
            extra["info_draws"] = draws
            if draws == 0:
                # The agent never samples a world, so seeing every card cannot change its play.
                metric_values["info_value"] = M.interval(None, None, None)
                extra["info_note"] = (
                    f"{extra['info_agent']} draws no worlds: info_value needs a "
                    "searching agent (--info-agent)"
                )
            else:
                metric_values["info_value"] = M.paired_difference(diffs, a.seed)
        else:
            metric_values["info_value"] = M.interval(None, None, None)
        summary["rulesets"][name] = {
            "options": game.options_json(),
            "games": len(main),
            "metrics": {k: metric_values[k] for k in M.METRICS},
        }
        details[name] = extra
    wall = time.perf_counter() - started
    if out_dir:
        write_analysis(out_dir, a, summary, details, wall)
    return summary


def write_analysis(
    out_dir: str, a: Analysis, summary: dict[str, Any], details: dict[str, Any], wall: float
) -> list[str]:
    """``summary.json``, ``NAME/records.jsonl``, plots and ``report.md``; returns the paths written."""
    from gamester.sim.plots import write_plots
    from gamester.sim.report import write_report

    os.makedirs(out_dir, exist_ok=True)
    written = []
    path = os.path.join(out_dir, "summary.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    written.append(path)
    for name, extra in details.items():
        os.makedirs(os.path.join(out_dir, name), exist_ok=True)
        path = os.path.join(out_dir, name, "records.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for rec in extra["records"]:
                f.write(json.dumps(rec, separators=(",", ":")) + "\n")
        written.append(path)
    written += write_plots(out_dir, summary)
    written.append(write_report(out_dir, a, summary, details, wall))
    return written
