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
            legal = view.legal_actions()
            if len(legal) == 1:
                state.apply_action(legal[0])
                continue
            moves = [0] * len(agents)
            for k in range(len(agents)):
                i = (turn + k) % len(agents)
                t0 = time.perf_counter()
                moves[i] = agents[i].step(view)
                times[i].append(time.perf_counter() - t0)
            turn += 1
            state.apply_action(moves[0])  # the first agent's timed move drives the game
    print(f"{args.game}: {len(times[0])} decisions with a choice in {args.games} games, seeds {args.seed}+")
    print(f"{'agent':44} {'median':>9} {'mean':>9} {'p99':>9} {'largest':>9} {'x median':>9} {'x mean':>8}")
    base_median, base_mean = statistics.median(times[0]), statistics.fmean(times[0])
    for spec, ts in zip(specs, times, strict=True):
        median, mean = statistics.median(ts), statistics.fmean(ts)
        print(
            f"{spec[-44:]:44} {median * 1e3:7.3f}ms {mean * 1e3:7.3f}ms {percentile(ts, 0.99) * 1e3:7.2f}ms "
            f"{max(ts) * 1e3:7.2f}ms {median / base_median:9.2f} {mean / base_mean:8.2f}"
        )


if __name__ == "__main__":
    main()
