"""Piquesept against OpenSpiel's `euchre`, both driven from Python, in one process.

    pip install -e '.[bench]'
    python benchmarks/piquesept_vs_openspiel.py [--rounds 6] [--seconds 0.5] [--spec 'piquesept']

Random complete games through each public API, dealing included, in loops of the same shape
(`gamester.sim.bench.random_playouts` and `openspiel_playouts`): legal actions, a uniform pick,
apply, until the end. Only player actions are counted (OpenSpiel's chance nodes are sampled from
`chance_outcomes()`). Runs alternate in short slices so machine noise hits both alike; the ratio is
what counts. Never asserted in a test: the figure is for people to read.
"""

from __future__ import annotations

import argparse

import gamester
from gamester.sim.bench import compare_with_openspiel, format_comparison


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--seconds", type=float, default=0.5)
    ap.add_argument("--spec", default="piquesept")
    args = ap.parse_args()
    game = gamester.load_game(args.spec)
    print(format_comparison(compare_with_openspiel(game, rounds=args.rounds, seconds=args.seconds)))


if __name__ == "__main__":
    main()
