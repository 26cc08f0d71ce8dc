"""What one move costs each agent, timed on the same positions, as ratios to the first agent.

    python benchmarks/agent_move.py pentyrch --agents heuristic,learned,learned:model=DIR/model.npz
    python benchmarks/agent_move.py penneech --games 20 --agents heuristic,learned

Games are played by the first agent in every seat, seeds ``--seed`` upwards. At each decision with
more than one legal action, every agent is asked for its move on that same view, in an order that
turns from one decision to the next, so a machine's load falls on all of them alike. It prints each
agent's median, mean, 99th percentile and largest time, and its median and mean as multiples of the
first agent's on the same decisions (the ratios, not the milliseconds, are what one machine can
compare with another). Set ``OPENBLAS_NUM_THREADS=1`` on a shared machine (docs/learning.md).
"""

from __future__ import annotations

import argparse
import statistics
import time

from gamester.agents.base import View, make_agent, split_agents
from gamester.core.registry import load_game
from gamester.sim.progress import progress


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("--agents", default="heuristic,learned", help="comma-separated specs; the first drives")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    game = load_game(args.game)
    specs = split_agents(args.agents)
    agents = [make_agent(s, game=game, seed=args.seed) for s in specs]
    times: list[list[float]] = [[] for _ in specs]
    turn = 0
    for g in progress(range(args.games), args.games, f"{args.game} moves"):
        state = game.new_initial_state(seed=args.seed + g)
        while not state.is_terminal():
            view = View(state, state.current_player())
            if len(view.legal_actions()) > 1:
                order = list(range(len(agents)))
                order = order[turn % len(order) :] + order[: turn % len(order)]
                turn += 1
                for i in order:
                    t0 = time.perf_counter()
                    agents[i].step(view)
                    times[i].append(time.perf_counter() - t0)
            state.apply_action(agents[0].step(view))
    base = times[0]
    print(f"{args.game}: {len(base)} decisions with a choice in {args.games} games, seeds {args.seed}+")
    print(f"{'agent':44} {'median':>9} {'mean':>9} {'p99':>9} {'largest':>9} {'x median':>9} {'x mean':>8}")
    for spec, ts in zip(specs, times, strict=True):
        ratio_median = statistics.median(ts) / statistics.median(base)
        ratio_mean = statistics.fmean(ts) / statistics.fmean(base)
        median, mean = statistics.median(ts) * 1e3, statistics.fmean(ts) * 1e3
        p99, largest = percentile(ts, 0.99) * 1e3, max(ts) * 1e3
        print(
            f"{spec[-44:]:44} {median:7.3f}ms {mean:7.3f}ms {p99:7.2f}ms {largest:7.2f}ms "
            f"{ratio_median:9.2f} {ratio_mean:8.2f}"
        )


if __name__ == "__main__":
    main()
