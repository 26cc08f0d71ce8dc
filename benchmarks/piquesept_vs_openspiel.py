"""Piquesept single deals against OpenSpiel's ``euchre``, both driven from Python, in one process.

Random complete games through each public API (dealing included); only player actions are counted
(OpenSpiel's chance nodes are played by picking uniformly from ``chance_outcomes()``, not counted).
The runs are interleaved in ~0.5 s slices so machine noise hits both alike; the ratio is what counts.

    python3 benchmarks/piquesept_vs_openspiel.py [--rounds 6] [--seconds 0.5] [--spec piquesept]
"""

from __future__ import annotations

import argparse
import random
import time

import pyspiel

import gamester
from gamester.sim.bench import Tally, interleave, random_playouts


def openspiel_playouts(game: pyspiel.Game, seconds: float, seed: int = 0) -> Tally:
    """Uniformly random euchre games through pyspiel, counting player actions only."""
    rng = random.Random(seed)
    randrange = rng.randrange
    actions = games = 0
    clock = time.perf_counter
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        for _ in range(20):
            s = game.new_initial_state()
            games += 1
            while not s.is_terminal():
                if s.is_chance_node():
                    outcomes = s.chance_outcomes()
                    s.apply_action(outcomes[randrange(len(outcomes))][0])
                else:
                    la = s.legal_actions()
                    s.apply_action(la[randrange(len(la))])
                    actions += 1
    return Tally(actions, games, clock() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--seconds", type=float, default=0.5)
    ap.add_argument("--spec", default="piquesept")
    args = ap.parse_args()
    ours = gamester.load_game(args.spec)
    theirs = pyspiel.load_game("euchre")
    totals = interleave({
        args.spec: lambda sec: random_playouts(ours, sec),
        "openspiel euchre": lambda sec: openspiel_playouts(theirs, sec),
    }, rounds=args.rounds, seconds=args.seconds)
    for name, t in totals.items():
        print(f"{name:>20}: {t.actions_per_second:>11,.0f} player actions/s "
              f"({t.games_per_second:,.0f} games/s, {t.actions:,} actions in {t.seconds:.1f} s)")
    a = totals[args.spec].actions_per_second
    b = totals["openspiel euchre"].actions_per_second
    print(f"ratio {args.spec} / openspiel euchre: {a / b:.2f}x per player action")


if __name__ == "__main__":
    main()
