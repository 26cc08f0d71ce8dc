"""Penneech single deals against OpenSpiel's oh_hell, both driven from Python, interleaved.

    pip install -e '.[bench]'
    python benchmarks/penneech_vs_openspiel.py [--rounds 8] [--seconds 0.5]

Both loops have the same shape: ask for the legal actions, pick one uniformly, apply it, until the
game ends; dealing is included (gamester deals inside ``new_initial_state``/``apply_action``;
OpenSpiel's chance nodes are sampled from ``chance_outcomes()`` and not counted as player actions).
Runs alternate in short slices so machine noise hits both alike. Prints player actions per second
for each and the ratio. Never asserted in a test: the figure is for people to read.
"""

from __future__ import annotations

import argparse
import random
import time

import gamester
from gamester.sim.bench import Tally, interleave, random_playouts


def openspiel_playouts(game: object, seconds: float, seed: int = 0) -> Tally:
    rng = random.Random(seed)
    randrange = rng.randrange
    actions = games = 0
    clock = time.perf_counter
    start = clock()
    deadline = start + seconds
    new = game.new_initial_state  # type: ignore[attr-defined]
    while clock() < deadline:
        for _ in range(20):
            s = new()
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
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=0.5)
    ap.add_argument("--spec", default="penneech(objective=deal)")
    args = ap.parse_args()
    import pyspiel

    ours = gamester.load_game(args.spec)
    theirs = pyspiel.load_game("oh_hell(players=3,num_tricks_fixed=7)")
    totals = interleave({
        args.spec: lambda s: random_playouts(ours, s),
        "openspiel oh_hell(players=3,num_tricks_fixed=7)": lambda s: openspiel_playouts(theirs, s),
    }, rounds=args.rounds, seconds=args.seconds)
    rates = {k: t.actions_per_second for k, t in totals.items()}
    for k, t in totals.items():
        print(f"{k:50s} {t.actions_per_second:>10,.0f} player actions/s  ({t.games:,} games)")
    a, b = rates.values()
    print(f"ratio gamester / OpenSpiel: {a / b:.2f}x")


if __name__ == "__main__":
    main()
