"""Our games against OpenSpiel peers, both driven from Python, interleaved in one process.

    pip install -e '.[bench]'
    python benchmarks/vs_openspiel.py                       # all three games
    python benchmarks/vs_openspiel.py penneech --rounds 8   # one game (single deals by default)
    python benchmarks/vs_openspiel.py --spec 'piquesept(players=3)'

Peers (``gamester.sim.bench.OPENSPIEL_PEERS``): Penneech single deals against
``oh_hell(players=3,num_tricks_fixed=7)``, Piquesept against ``euchre``, Pentyrch against ``maedn``.
Random complete games through each public API, dealing included, in loops of exactly the same shape
(``random_playouts`` and ``openspiel_playouts``): legal actions, a uniform pick, apply, until the end.
Only player actions are counted (OpenSpiel's chance nodes are sampled from ``chance_outcomes()``).
Runs alternate in short slices so machine noise hits both alike; the ratio is what counts. Never
asserted in a test: the figures are for people to read.
"""

from __future__ import annotations

import argparse

import gamester
from gamester.sim.bench import compare_with_openspiel, format_comparison

DEFAULT_SPECS = {"penneech": "penneech(objective=deal)", "piquesept": "piquesept", "pentyrch": "pentyrch"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="*", help="penneech, piquesept or pentyrch (default: all three)")
    ap.add_argument("--spec", help="a game spec instead, e.g. 'piquesept(players=3)'")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--seconds", type=float, default=0.5)
    args = ap.parse_args()
    unknown = [g for g in args.games if g not in DEFAULT_SPECS]
    if unknown:
        ap.error(f"unknown game {unknown[0]!r}; choose from {', '.join(DEFAULT_SPECS)}")
    specs = [args.spec] if args.spec else [DEFAULT_SPECS[g] for g in (args.games or DEFAULT_SPECS)]
    for spec in specs:
        game = gamester.load_game(spec)
        print(format_comparison(compare_with_openspiel(game, rounds=args.rounds, seconds=args.seconds)))
        print()


if __name__ == "__main__":
    main()
