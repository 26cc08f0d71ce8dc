"""Two agents against the same opponent, from two tournaments on the same deals, paired deal by deal.

    python benchmarks/compare_runs.py RUN_A RUN_B [--opponent SPEC]

``RUN_A`` and ``RUN_B`` are ``gamester tournament --out`` directories of the same game and seed, each
with two agents: the agent measured and a common opponent (``--opponent``; by default the spec both
runs share). For every deal and role the agent's mean return is taken over its games there with
every other seat the opponent's (Piquesept: ``soloist vs OPPONENT`` and ``defender vs OPPONENT``; two
players: every game of the agent), and the two agents' means are subtracted deal by deal: the
change an agent makes in the same seat, against the same opponent, on the same cards, as the
tournament's own paired rows do for the two agents of one run. Prints, per role, the deals paired and
the mean difference A - B with its 95% interval.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from gamester.sim.stats import mean_ci


def _games(run: Path) -> list[dict[str, Any]]:
    with open(run / "records.jsonl") as f:
        return [json.loads(line) for line in f if line.strip()]


def per_deal(games: list[dict[str, Any]], opponent: str) -> tuple[str, dict[str, dict[int, float]]]:
    """The measured agent's spec and, per role, its mean return per deal against ``opponent``."""
    specs = {s for g in games for s in g["seating"]}
    others = sorted(specs - {opponent})
    if len(others) != 1:
        raise SystemExit(f"expected one agent besides {opponent!r}, found {others}")
    agent = others[0]
    sums: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for g in games:
        seating = g["seating"]
        for seat, spec in enumerate(seating):
            if spec != agent:
                continue
            role = g["roles"][seat]
            if len(seating) == 2:
                role = "same seat"
            elif not role.endswith(f" vs {opponent}"):
                continue
            sums[role][g["deal"]].append(float(g["returns"][seat]))
    return agent, {role: {d: sum(v) / len(v) for d, v in deals.items()} for role, deals in sums.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_a", type=Path)
    ap.add_argument("run_b", type=Path)
    ap.add_argument("--opponent", default=None)
    args = ap.parse_args()
    ga, gb = _games(args.run_a), _games(args.run_b)
    opponent = args.opponent
    if opponent is None:
        common = {s for g in ga for s in g["seating"]} & {s for g in gb for s in g["seating"]}
        if len(common) != 1:
            raise SystemExit(f"give --opponent: the runs share {sorted(common)}")
        opponent = common.pop()
    a, da = per_deal(ga, opponent)
    b, db = per_deal(gb, opponent)
    print(f"A = {a}\nB = {b}\nagainst {opponent}, paired deal by deal (same seed, same cards)")
    print(f"{'role':28} {'deals':>5}  A - B [95% CI]")
    for role in sorted(set(da) & set(db)):
        deals = sorted(set(da[role]) & set(db[role]))
        m, lo, hi = mean_ci([da[role][d] - db[role][d] for d in deals])
        print(f"{role:28} {len(deals):5}  {m:+.3f} [{lo:+.3f}, {hi:+.3f}]")


if __name__ == "__main__":
    main()
