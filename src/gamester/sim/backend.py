"""Where the games of ``simulate``, ``tournament`` and ``analyse`` run: this process, local worker
processes, or a Ray cluster.

Every job is a plain picklable tuple handed to a module-level function, and every job carries its own
seeds, so a job's result does not depend on where, when or in which order it runs: the same seed gives
the same records and summaries under ``--backend local`` and ``--backend ray``. :func:`run_jobs`
yields the results in the order of the jobs, whatever order they finish in, and moves a progress bar
as they finish.

Ray is an optional extra (``pip install 'gamester[ray]'``). With ``ray_address`` the jobs go to a
running cluster (``ray.init(address=...)``); without it a local Ray is started for the run and shut
down after it (a Ray that the caller has already started is used as it is and left running).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from gamester.core.errors import GameError
from gamester.sim.progress import progress_bar

J = TypeVar("J")
R = TypeVar("R")

BACKENDS = ("local", "ray")
RAY_HINT = "pip install 'gamester[ray]'"


class BackendError(GameError):
    """A backend that cannot run here (Ray missing, a cluster that cannot be reached, a bad name)."""


def check_backend(backend: str, ray_address: str | None = None) -> None:
    """Fail early, in one line, when ``backend`` cannot be used."""
    if backend not in BACKENDS:
        raise BackendError(f"unknown backend {backend!r}; valid backends: {', '.join(BACKENDS)}")
    if backend == "ray":
        _import_ray()
    elif ray_address:
        raise BackendError("--ray-address needs --backend ray")


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise BackendError(f"--backend ray needs Ray, which is not installed: {RAY_HINT}") from None
    return ray


def run_jobs(
    fn: Callable[[J], R],
    jobs: Sequence[J],
    *,
    backend: str = "local",
    workers: int = 1,
    ray_address: str | None = None,
    desc: str = "games",
    progress: bool = True,
) -> Iterator[R]:
    """``fn(job)`` for every job, yielded in job order.

    ``local`` runs in this process when ``workers <= 1``, else in ``workers`` forked processes;
    ``ray`` submits one task per job to Ray (``workers`` is then Ray's business: the cluster's CPUs).
    ``fn`` must be a module-level function so that it pickles by name.
    """
    check_backend(backend, ray_address)
    bar = progress_bar(len(jobs), desc) if progress and jobs else None
    try:
        if backend == "ray":
            yield from _run_ray(fn, jobs, ray_address, workers, bar)
        elif workers <= 1 or len(jobs) <= 1:
            for j in jobs:
                r = fn(j)
                if bar is not None:
                    bar.update(1)
                yield r
        else:
            method = "spawn" if sys.platform == "darwin" else "fork"
            with mp.get_context(method).Pool(min(workers, len(jobs))) as pool:
                for r in pool.imap(fn, jobs, chunksize=1):
                    if bar is not None:
                        bar.update(1)
                    yield r
    finally:
        if bar is not None:
            bar.close()


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """Ray retries a dead address for minutes; a ``host:port`` (or ``ray://host:port``) that
    accepts no connection is refused at once instead. Other forms (``auto``) go to Ray as they are."""
    import socket

    hostport = address.removeprefix("ray://")
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit() or not host:
        return
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as e:
        raise BackendError(
            f"cannot start or join the Ray cluster at {address}: nothing answers there "
            f"({e.strerror or type(e).__name__})"
        ) from None


def _call(fn: Callable[[Any], Any], job: Any) -> Any:
    return fn(job)


@contextlib.contextmanager
def ray_session(address: str | None, workers: int) -> Iterator[Any]:
    """Ray for the block: the one already running (left running), else a cluster joined at
    ``address`` or a private one on the loopback interface with ``workers`` CPUs, shut down after
    the block. One place for every command that runs on Ray (a BackendError says what failed)."""
    ray = _import_ray()
    if ray.is_initialized():
        yield ray
        return
    if address:
        _check_reachable(address)
    try:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(
                num_cpus=max(1, workers),
                include_dashboard=False,
                log_to_driver=False,
                _node_ip_address="127.0.0.1",
            )
    except Exception as e:  # Ray raises ConnectionError, RuntimeError, ValueError …
        where = f"the Ray cluster at {address}" if address else "a local Ray"
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise BackendError(f"cannot start or join {where}: {first}") from None
    try:
        yield ray
    finally:
        ray.shutdown()


def _run_ray(
    fn: Callable[[J], R], jobs: Sequence[J], address: str | None, workers: int, bar: Any
) -> Iterator[R]:
    with ray_session(address, workers) as ray:
        task = ray.remote(_call)
        fn_ref = ray.put(fn)
        refs = [task.remote(fn_ref, j) for j in jobs]
        index = {ref: i for i, ref in enumerate(refs)}
        done: dict[int, R] = {}
        pending = list(refs)
        nxt = 0
        while nxt < len(refs):
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                done[index[ref]] = ray.get(ref)
                if bar is not None:
                    bar.update(1)
            while nxt in done:
                yield done.pop(nxt)
                nxt += 1
