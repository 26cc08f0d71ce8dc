"""What the OpenSpiel adapter costs, and how fast OpenSpiel's ISMCTS searches our games.

    pip install -e '.[interop]'
    python benchmarks/interop_overhead.py                  # all three games
    python benchmarks/interop_overhead.py piquesept --rounds 6 --simulations 100

1. **Adapter overhead.** Random complete games of the same game, once through OpenSpiel's API on the
   adapter (``pyspiel.load_game("gamester_<name>")``: legal actions, a uniform pick, apply; chance
   nodes sampled one card at a time from ``chance_outcomes()``) and once on our engine directly
   (``new_initial_state(seed)``, the same loop without chance steps). Only player actions are counted.
   The two loops alternate in short slices, so machine noise hits both alike; the ratio is what counts.
2. **ISMCTS iterations per second.** OpenSpiel's Python ``ISMCTSBot`` through the adapter (the
   ``openspiel-ismcts`` agent: random rollouts, worlds from ``determinize``) against our ``ismcts``
   (its default rollouts and ``rollout=random``), each deciding the same positions from the same view.

Never asserted in a test: the figures are for people to read.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

import pyspiel

import gamester
from gamester.agents import make_agent
from gamester.agents.base import View
from gamester.core.protocol import Game, State
from gamester.interop import openspiel as gos

DEFAULT_SPECS = {"penneech": "penneech(objective=deal)", "piquesept": "piquesept", "pentyrch": "pentyrch"}


def engine_slice(game: Game, rng: random.Random, seconds: float) -> tuple[int, float]:
    """Random games on our engine for about ``seconds``: (player actions, time)."""
    n = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        s = game.new_initial_state(seed=rng.getrandbits(63))
        while not s.is_terminal():
            legal = s.legal_actions()
            s.apply_action(legal[rng.randrange(len(legal))])
            n += 1
    return n, time.perf_counter() - t0


def openspiel_slice(game: pyspiel.Game, rng: random.Random, seconds: float) -> tuple[int, float]:
    """Random games through OpenSpiel's API on the adapter: (player actions, time)."""
    n = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                outcomes = s.chance_outcomes()  # uniform: every card left is equally likely
                s.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                legal = s.legal_actions()
                s.apply_action(legal[rng.randrange(len(legal))])
                n += 1
    return n, time.perf_counter() - t0


def overhead(spec: str, rounds: int, seconds: float) -> dict[str, float]:
    engine = gamester.load_game(spec)
    osgame = gos.for_engine(engine)
    rng = random.Random(1)
    totals = {"ours": [0, 0.0], "openspiel": [0, 0.0]}
    for _ in range(rounds):
        for key, fn, g in (("ours", engine_slice, engine), ("openspiel", openspiel_slice, osgame)):
            n, t = fn(g, rng, seconds)  # type: ignore[operator]
            totals[key][0] += n
            totals[key][1] += t
    ours = totals["ours"][0] / totals["ours"][1]
    theirs = totals["openspiel"][0] / totals["openspiel"][1]
    return {"ours": ours, "openspiel": theirs, "ratio": ours / theirs}


def _positions(spec: str, count: int) -> list[State]:
    game = gamester.load_game(spec)
    rng = random.Random(2)
    out: list[State] = []
    g = 0
    while len(out) < count:
        s = game.new_initial_state(seed=1000 + g)
        g += 1
        while not s.is_terminal() and len(out) < count:
            legal = s.legal_actions()
            if len(legal) > 1 and rng.random() < 0.1:
                out.append(s.clone())
            s.apply_action(rng.choice(legal))
    return out


def search_rates(spec: str, positions: int, simulations: int) -> dict[str, float]:
    """Iterations per second of each search over the same positions."""
    states = _positions(spec, positions)
    agents: dict[str, tuple[str, Any]] = {
        "openspiel-ismcts": (f"openspiel-ismcts:simulations={simulations}", None),
        "ismcts": (f"ismcts:iterations={simulations}", None),
        "ismcts rollout=random": (f"ismcts:iterations={simulations},rollout=random", None),
    }
    rates: dict[str, float] = {}
    for label, (agent_spec, _) in agents.items():
        total = 0.0
        for i, s in enumerate(states):
            agent = make_agent(agent_spec, game=s.game, seed=i)
            t0 = time.perf_counter()
            agent.step(View(s, s.current_player()))
            total += time.perf_counter() - t0
        rates[label] = simulations * len(states) / total
    return rates


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="*", help="penneech, piquesept or pentyrch (default: all three)")
    ap.add_argument("--rounds", type=int, default=4, help="alternating slices per loop")
    ap.add_argument("--seconds", type=float, default=0.5, help="length of one slice")
    ap.add_argument("--positions", type=int, default=3, help="positions searched per agent")
    ap.add_argument("--simulations", type=int, default=100, help="iterations per search")
    args = ap.parse_args()
    unknown = [g for g in args.games if g not in DEFAULT_SPECS]
    if unknown:
        ap.error(f"unknown game {unknown[0]!r}; choose from {', '.join(DEFAULT_SPECS)}")
    print("random games, player actions per second")
    print(f"{'game':<28} {'ours':>10} {'via OpenSpiel':>14} {'ratio':>7}")
    for name in args.games or DEFAULT_SPECS:
        r = overhead(DEFAULT_SPECS[name], args.rounds, args.seconds)
        print(f"{DEFAULT_SPECS[name]:<28} {r['ours']:>10,.0f} {r['openspiel']:>14,.0f} {r['ratio']:>6.1f}x")
    print(f"\nsearch iterations per second ({args.simulations} per decision, {args.positions} positions)")
    print(f"{'game':<28} {'openspiel-ismcts':>17} {'ismcts':>9} {'ismcts rollout=random':>22}")
    for name in args.games or DEFAULT_SPECS:
        r = search_rates(DEFAULT_SPECS[name], args.positions, args.simulations)
        print(
            f"{DEFAULT_SPECS[name]:<28} {r['openspiel-ismcts']:>17,.0f} {r['ismcts']:>9,.0f} "
            f"{r['ismcts rollout=random']:>22,.0f}"
        )


if __name__ == "__main__":
    main()
