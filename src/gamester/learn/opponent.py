"""Fitting the opponent model of policy inference (``gamester.agents.opponent``) by maximum likelihood.

``python -m gamester.learn.opponent GAME --games N [--seed S] [--agents A,B,...] [--out FILE]`` plays
``N`` games with a seat's agent drawn at random for every seat from ``--agents`` (by default the
computer players of the web's menu for the game, less ``random``: the players a search meets at our
tables), and records every decision with a choice: the mover's view (observation tensor, legal
actions, the heuristic's move) and the move made. The network scores every decision once; then the
temperature, the heuristic's bonus and the floor of

    P(a | view) = (1 - floor) * softmax(q / temperature + bonus * [a is the heuristic's move])[a]
                  + floor / (number of legal actions)

are chosen to maximise the log-likelihood of the moves made (Nelder-Mead over log temperature,
bonus and logit floor, from a grid's best point). It prints, per agent and overall, the mean
log-likelihood per decision of the fit and of two simpler models (uniform over the legal moves; the
heuristic's move alone, with its own bonus and floor), so the network's share of the fit is seen;
``--out FILE`` stores the fit there under the weights file's name (the shipped fits are
``gamester/agents/weights/opponent.json``).

Only numpy is needed (no torch); the games run in this process, one after the other.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from gamester.agents.base import View, agent_seed, make_agent, split_agents
from gamester.agents.learned import weights_for
from gamester.agents.opponent import Batch, Fit, PolicyModel, move_log_probs
from gamester.core.protocol import Game
from gamester.core.registry import load_game
from gamester.core.rng import below, make_rng


def menu_agents(game: Game) -> list[str]:
    """The computer players a table of ``game`` may seat, ``random`` left out: the web's menu
    (``gamester.web.menu`` reads the same kit and weights; this list is built here so the learn extra
    does not import the web)."""
    from gamester.agents import agent_refuses, best_agent_spec

    out = ["heuristic"] if game.kit().has_heuristic else []
    if agent_refuses("learned", game) is None:
        out.append("learned")
    out += ["ismcts:iterations=300", best_agent_spec(game)]
    return out


def collect(game: Game, agents: list[str], games: int, seed: int, log: Any = None) -> tuple[Batch, list[str]]:
    """Play ``games`` games (each seat's agent drawn from ``agents``) and record every decision with a
    choice; returns the decisions and, per decision, the spec of the agent that made it."""
    model = PolicyModel(game)
    batch = Batch()
    who: list[str] = []
    rng = make_rng(seed)
    for g in range(games):
        lineup = [agents[below(rng, len(agents))] for _ in range(game.num_players)]
        deal = rng.getrandbits(48)
        players = [make_agent(spec, game=game, seed=agent_seed(deal, s)) for s, spec in enumerate(lineup)]
        state = game.new_initial_state(seed=deal)
        while not state.is_terminal():
            p = state.current_player()
            legal = state.legal_actions()
            action = players[p].step(View(state, p))
            if len(legal) > 1:
                model.add(batch, state, p, legal, action, g)
                who.append(lineup[p])
            state.apply_action(action)
        if log is not None:
            print(f"game {g + 1}/{games}: {len(batch)} decisions", file=log, flush=True)
    return batch, who


def fit_model(q: Any, batch: Batch, *, heuristic_only: bool = False) -> tuple[Fit, float]:
    """The maximum-likelihood fit and its total log-likelihood (``heuristic_only``: the network's
    values left out, the heuristic's bonus and the floor fitted alone)."""
    qq = np.zeros_like(q) if heuristic_only else q

    def as_fit(x: Any) -> Fit:  # log temperature, bonus, logit floor
        return Fit(math.exp(x[0]), float(x[1]), 1.0 / (1.0 + math.exp(-x[2])))

    def loss(x: Any) -> float:
        return -float(move_log_probs(qq, batch, as_fit(x)).sum())

    best = min(
        (
            np.array([math.log(t), b, math.log(f / (1 - f))])
            for t in (0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
            for b in (0.0, 1.0, 2.0, 4.0)
            for f in (0.01, 0.05, 0.2)
        ),
        key=loss,
    )
    x = nelder_mead(loss, best, fixed=[0] if heuristic_only else [])
    return as_fit(x), -loss(x)


def nelder_mead(f: Any, x0: Any, fixed: list[int], steps: int = 400, size: float = 0.5) -> Any:
    """A minimum of ``f`` near ``x0`` (Nelder and Mead's simplex), coordinates in ``fixed`` held."""
    free = [i for i in range(len(x0)) if i not in fixed]

    def full(y: Any) -> Any:
        x = np.array(x0, dtype=float)
        x[free] = y
        return x

    pts = [np.array(x0, dtype=float)[free]]
    for i in range(len(free)):
        p = pts[0].copy()
        p[i] += size
        pts.append(p)
    vals = [f(full(p)) for p in pts]
    for _ in range(steps):
        order = np.argsort(vals)
        pts = [pts[i] for i in order]
        vals = [vals[i] for i in order]
        if abs(vals[-1] - vals[0]) < 1e-7:
            break
        centre = np.mean(pts[:-1], axis=0)
        refl = centre + (centre - pts[-1])
        fr = f(full(refl))
        if fr < vals[0]:
            exp = centre + 2.0 * (centre - pts[-1])
            fe = f(full(exp))
            pts[-1], vals[-1] = (exp, fe) if fe < fr else (refl, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = refl, fr
        else:
            con = centre + 0.5 * (pts[-1] - centre)
            fc = f(full(con))
            if fc < vals[-1]:
                pts[-1], vals[-1] = con, fc
            else:
                pts = [pts[0] + 0.5 * (p - pts[0]) for p in pts]
                vals = [f(full(p)) for p in pts]
    return full(pts[int(np.argmin(vals))])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m gamester.learn.opponent", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("game")
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--agents", default=None, help="the players whose moves are fitted (default: the menu's)")
    ap.add_argument("--out", metavar="FILE", default=None, help="add the fit to this JSON file")
    args = ap.parse_args(argv)
    game = load_game(args.game)
    agents = split_agents(args.agents) if args.agents else menu_agents(game)
    batch, who = collect(game, agents, args.games, args.seed, log=sys.stderr)
    model = PolicyModel(game)
    q = model.values(batch)
    fit, total = fit_model(q, batch)
    hfit, htotal = fit_model(q, batch, heuristic_only=True)
    n = len(batch)
    sizes = np.asarray(batch.sizes, dtype=float)
    uniform = -float(np.log(sizes).sum())
    print(f"{args.game}: {n} decisions of {args.games} games by {', '.join(agents)}")
    print(f"fit: temperature {fit.temperature:.4f}, bonus {fit.bonus:.3f}, floor {fit.floor:.4f}")
    print(f"heuristic alone: bonus {hfit.bonus:.3f}, floor {hfit.floor:.4f}")
    print("mean log-likelihood per decision: uniform, heuristic alone, network")
    lp = move_log_probs(q, batch, fit)
    hp = move_log_probs(np.zeros_like(q), batch, hfit)
    names = np.asarray(who)
    width = max(len(a) for a in [*agents, "all"])
    for name in [*agents, "all"]:
        m = np.ones(n, dtype=bool) if name == "all" else names == name
        k = int(m.sum())
        if k:
            print(
                f"  {name:{width}} {k:6}  {-float(np.log(sizes[m]).mean()):+.4f}  "
                f"{float(hp[m].mean()):+.4f}  {float(lp[m].mean()):+.4f}"
            )
    print(f"  totals: uniform {uniform:.1f}, heuristic alone {htotal:.1f}, network {total:.1f}")
    if args.out:
        out = Path(args.out)
        data = json.loads(out.read_text()) if out.exists() else {}
        name = Path(weights_for(game, None)).name
        data[name] = {
            "temperature": round(fit.temperature, 6),
            "bonus": round(fit.bonus, 6),
            "floor": round(fit.floor, 6),
            "decisions": n,
            "games": args.games,
            "seed": args.seed,
            "agents": agents,
            "mean_log_likelihood": {
                "uniform": round(uniform / n, 4),
                "heuristic_alone": round(htotal / n, 4),
                "network": round(total / n, 4),
            },
        }
        out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
