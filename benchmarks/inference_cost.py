"""What policy inference (``infer=policy``) costs a move: drawing, weighing and keeping candidate worlds.

    OPENBLAS_NUM_THREADS=1 python benchmarks/inference_cost.py piquesept --games 6 --pool 32
    OPENBLAS_NUM_THREADS=1 python benchmarks/inference_cost.py penneech --games 3

Games are played by the heuristic in every seat, seeds ``--seed`` upwards. At each decision with a
choice, a batch of ``--pool`` candidate worlds is drawn from the seat's view (``determinize``, timed)
and weighed by the opponent model (``log_likelihoods``, timed), and one world of the plain search is
timed beside it: every legal action played out by the heuristic as ``rollout`` plays it out (what it
spends on a world). It prints, by how many moves of the deal had been made, the other players'
decisions weighed per candidate, the milliseconds per candidate drawn and weighed, the milliseconds
a world's playouts take, the effective number of candidates of a batch, and what a searched world
costs with the weighing against without it: the search keeps the whole batch, so a world costs its
draw, its share of the weighing and its playouts, against a draw and the playouts (draws of worlds
kept again, ``kit.redraw_unseen``, are not counted: they cost less than a first draw). Set
``OPENBLAS_NUM_THREADS=1`` on a shared machine.
"""

from __future__ import annotations

import argparse
import math
import time

from gamester.agents.base import View
from gamester.agents.opponent import policy_model, weighed_decisions
from gamester.agents.rollout import play_out
from gamester.core.registry import load_game
from gamester.core.rng import make_rng

BUCKETS = (0, 4, 8, 16, 32, 64)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--pool", type=int, default=32)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    game = load_game(args.game)
    kit = game.kit()
    model = policy_model(game)
    clock = time.perf_counter
    # per bucket of moves seen: [decisions, candidates, draw s, weigh s, ess sum, batches, plain s]
    rows = [[0.0] * 7 for _ in BUCKETS]
    for g in range(args.games):
        state = game.new_initial_state(seed=args.seed + g)
        tie = make_rng(g)
        while not state.is_terminal():
            legal = state.legal_actions()
            p = state.current_player()
            if len(legal) > 1:
                view = View(state, p)
                rng = make_rng(len(state.history_strings()))
                t0 = clock()
                worlds = [view.determinize(rng) for _ in range(args.pool)]
                t1 = clock()
                logs = model.log_likelihoods(view, worlds)
                t2 = clock()
                for a in legal:
                    s = worlds[0].clone()
                    s.apply_action(a)
                    play_out(s, p, kit, tie)
                t3 = clock()
                start, actions = kit.deal_history(worlds[0])
                seen = len(actions)
                top = max(logs)
                w = [math.exp(x - top) for x in logs]
                r = rows[max(i for i, b in enumerate(BUCKETS) if seen >= b)]
                r[0] += sum(1 for _ in weighed_decisions(start, actions, p, model.history))
                r[1] += args.pool
                r[2] += t1 - t0
                r[3] += t2 - t1
                r[4] += math.fsum(w) ** 2 / math.fsum(x * x for x in w)
                r[5] += 1
                r[6] += t3 - t2
            state.apply_action(legal[0] if len(legal) == 1 else kit.playout(state, legal, tie))
    print(f"{game.spec()}: {args.games} heuristic games, batches of {args.pool} candidates")
    print("moves seen  decisions weighed  draw ms  weigh ms  playouts ms  effective  world cost")
    print("this deal   per candidate      per candidate      per world    per batch  weighed / plain")
    for i, r in enumerate(rows):
        batches = r[5]
        if not batches:
            continue
        draw, weigh, play = r[2] / r[1], r[3] / r[1], r[6] / batches
        label = f"{BUCKETS[i]}+" if i == len(BUCKETS) - 1 else f"{BUCKETS[i]}-{BUCKETS[i + 1] - 1}"
        print(
            f"{label:10}  {r[0] / batches:17.1f}  {1e3 * draw:7.3f}  {1e3 * weigh:8.3f}  {1e3 * play:11.3f}  "
            f"{r[4] / batches:9.1f}  {(draw + weigh + play) / (draw + play):8.2f}x"
        )


if __name__ == "__main__":
    main()
