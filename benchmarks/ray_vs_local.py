"""Local worker processes against Ray on this machine, on the same jobs (``gamester.sim.backend``).

Two workloads, run in interleaved rounds so that the load of a shared machine falls on every backend
alike:

* ``small``: many short games (random Penneech games, a few milliseconds each): what a backend costs
  per job;
* ``large``: fewer long games (Piquesept ``rollout:worlds=16`` against ``heuristic``, about a second
  each): where the work itself dominates.

Backends: ``local`` with one process (no pool), ``local`` with ``--workers`` processes, and ``ray``
with a local Ray of ``--workers`` CPUs started once before the rounds (its start-up time is printed
apart). Every backend returns exactly the same results; the script checks that too.

    python benchmarks/ray_vs_local.py [--workers 2] [--rounds 3] [--small 300] [--large 12]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from gamester.sim.backend import run_jobs
from gamester.sim.simulate import _play_args


def jobs_small(n: int) -> list[Any]:
    return [("penneech", {}, ["random", "random"], 10_000 + i) for i in range(n)]


def jobs_large(n: int) -> list[Any]:
    return [
        ("piquesept", {}, ["rollout:worlds=16", "heuristic", "heuristic", "heuristic"], 20_000 + i)
        for i in range(n)
    ]


def timed(run: Callable[[], list[Any]]) -> tuple[float, list[Any]]:
    t0 = time.perf_counter()
    out = run()
    return time.perf_counter() - t0, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--small", type=int, default=300)
    ap.add_argument("--large", type=int, default=12)
    args = ap.parse_args()

    import ray

    t0 = time.perf_counter()
    ray.init(
        num_cpus=args.workers,
        object_store_memory=100 * 1024 * 1024,
        include_dashboard=False,
        log_to_driver=False,
        _node_ip_address="127.0.0.1",
    )
    print(f"ray.init (local, {args.workers} CPUs): {time.perf_counter() - t0:.1f} s")
    backends: dict[str, dict[str, Any]] = {
        "local, 1 process": {"backend": "local", "workers": 1},
        f"local, {args.workers} processes": {"backend": "local", "workers": args.workers},
        f"ray, {args.workers} CPUs": {"backend": "ray", "workers": args.workers},
    }
    workloads = {"small": jobs_small(args.small), "large": jobs_large(args.large)}
    totals = {(w, b): 0.0 for w in workloads for b in backends}
    reference: dict[str, list[Any]] = {}
    try:
        for _ in range(args.rounds):
            for w, jobs in workloads.items():
                for b, kw in backends.items():
                    secs, out = timed(
                        lambda kw=kw, jobs=jobs: list(run_jobs(_play_args, jobs, progress=False, **kw))
                    )
                    totals[(w, b)] += secs
                    if w in reference:
                        assert out == reference[w], f"{b} gave different results on {w}"
                    else:
                        reference[w] = out
    finally:
        ray.shutdown()
    for w, jobs in workloads.items():
        base = totals[(w, "local, 1 process")]
        print(f"{w}: {len(jobs)} games x {args.rounds} rounds")
        for b in backends:
            t = totals[(w, b)]
            print(
                f"  {b:22s} {t:7.2f} s  {len(jobs) * args.rounds / t:8.1f} games/s  speed-up {base / t:4.2f}x"
            )


if __name__ == "__main__":
    main()
