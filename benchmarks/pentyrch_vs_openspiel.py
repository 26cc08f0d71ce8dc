"""Pentyrch random playouts against OpenSpiel's ``maedn`` (a race game), both driven from Python.

Player actions per second through each public API, interleaved in one process (``interleave``: six
rounds of about 0.5 s each) so machine noise hits both alike. OpenSpiel's chance nodes are sampled
uniformly from ``chance_outcomes()`` and are not counted; Pentyrch's chance (the two packs of each
deal) happens inside ``new_initial_state``. Target: Pentyrch at least 0.25 x OpenSpiel per action.

Run: ``python3 benchmarks/pentyrch_vs_openspiel.py [--spec pentyrch(players=2)]``
"""

from __future__ import annotations

import argparse
import random
import time

import gamester
from gamester.sim.bench import Tally, interleave, random_playouts


def openspiel_runner(name: str = "maedn") -> tuple[str, object]:
    import pyspiel  # noqa: PLC0415 - optional peer, only for this benchmark

    game = pyspiel.load_game(name)
    rng = random.Random(0)

    def run(seconds: float) -> Tally:
        randrange = rng.randrange
        actions = games = 0
        clock = time.perf_counter
        start = clock()
        deadline = start + seconds
        while clock() < deadline:
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

    return name, run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", default="pentyrch")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--seconds", type=float, default=0.5)
    args = ap.parse_args()
    game = gamester.load_game(args.spec)
    seed = [0]

    def ours(seconds: float) -> Tally:
        seed[0] += 1000
        return random_playouts(game, seconds, seed=seed[0])

    peer, theirs = openspiel_runner()
    totals = interleave({args.spec: ours, f"openspiel {peer}": theirs},  # type: ignore[dict-item]
                        rounds=args.rounds, seconds=args.seconds)
    for name, t in totals.items():
        print(f"{name:24s} {t.actions_per_second:10.0f} player actions/s  "
              f"{t.games_per_second:8.1f} games/s  ({t.actions} actions, {t.games} games, "
              f"{t.seconds:.1f} s)")
    a = totals[args.spec].actions_per_second
    b = totals[f"openspiel {peer}"].actions_per_second
    print(f"ratio {args.spec} / openspiel {peer}: {a / b:.2f}x per player action (target >= 0.25x)")


if __name__ == "__main__":
    main()
