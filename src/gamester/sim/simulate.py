"""``gamester simulate``: many games between agents, one complete record per line.

Game ``i`` uses seed ``seed + i`` for its chance, whatever the agents, so different seatings can be
compared on identical cards; agents get seeds derived from the same numbers, so a run is repeatable.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from typing import Any

from gamester.agents.base import agent_seed, make_agent, split_agents
from gamester.core.columns import fit, labelled
from gamester.core.errors import AgentError
from gamester.core.record import winners
from gamester.core.registry import load_game
from gamester.sim.backend import check_backend, run_jobs
from gamester.sim.oracle import seat_view


def agent_specs(agents: str, num_players: int) -> list[str]:
    specs = split_agents(agents)
    if len(specs) == 1:
        specs *= num_players
    if len(specs) != num_players:
        raise AgentError(
            f"--agents names {len(specs)} agents; this game has {num_players} players "
            f"(give one per player, or one for all)"
        )
    return specs


def play_one(
    game_spec: str, options: dict[str, str], specs: list[str], seed: int
) -> tuple[dict[str, Any], list[float], list[int]]:
    """One complete game: its record, returns and winners."""
    game = load_game(game_spec, **options)
    agents = [make_agent(s, game=game, seed=agent_seed(seed, i)) for i, s in enumerate(specs)]
    state = game.new_initial_state(seed=seed)
    while not state.is_terminal():
        p = state.current_player()
        state.apply_action(agents[p].step(seat_view(agents[p], state, p)))
    rec = state.record()
    rec["agents"] = specs
    return rec, state.returns(), winners(state)


def _play_args(
    args: tuple[str, dict[str, str], list[str], int],
) -> tuple[dict[str, Any], list[float], list[int]]:
    return play_one(*args)


def simulate(
    game_spec: str,
    options: dict[str, str],
    specs: list[str],
    games: int,
    seed: int,
    workers: int = 1,
    *,
    backend: str = "local",
    ray_address: str | None = None,
    progress: bool = False,
    desc: str = "simulate",
) -> Iterator[tuple[dict[str, Any], list[float], list[int]]]:
    """Records, returns and winners of ``games`` games, in order (any backend gives the same)."""
    jobs = [(game_spec, options, specs, seed + i) for i in range(games)]
    yield from run_jobs(
        _play_args,
        jobs,
        backend=backend,
        workers=workers,
        ray_address=ray_address,
        desc=desc,
        progress=progress,
    )


def check_out_file(out: str) -> None:
    """``--out FILE``: refuse a missing folder or a folder, in one line. An existing file is replaced
    only once every game is written (records go to ``FILE.partial`` until then), so an interrupted
    run never loses the old file; the partial one keeps the games finished so far."""
    folder = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(folder):
        raise AgentError(f"--out {out}: the folder {folder} does not exist")
    if os.path.isdir(out):
        raise AgentError(f"--out {out} is a folder; give a file name")


def run_simulation(
    game_spec: str,
    options: dict[str, str],
    agents: str,
    games: int,
    seed: int,
    workers: int,
    out: str | None,
    progress_bar: bool = True,
    *,
    backend: str = "local",
    ray_address: str | None = None,
) -> int:
    game = load_game(game_spec, **options)
    specs = agent_specs(agents, game.num_players)
    for s in set(specs):
        make_agent(s, game=game)  # fail early, before any worker starts, on a bad spec
    if games < 1:
        raise AgentError("--games must be at least 1")
    check_backend(backend, ray_address)
    if out:
        check_out_file(out)
    n = game.num_players
    totals = [0.0] * n
    wins = [0] * n
    with contextlib.ExitStack() as stack:
        partial = f"{out}.partial" if out else None
        sink = stack.enter_context(open(partial, "w", encoding="utf-8")) if partial else None
        for rec, returns, won in simulate(
            game_spec,
            options,
            specs,
            games,
            seed,
            workers,
            backend=backend,
            ray_address=ray_address,
            progress=progress_bar,
            desc=f"simulate {game.name}",
        ):
            if sink:
                sink.write(json.dumps(rec) + "\n")
            for p in range(n):
                totals[p] += returns[p]
            for w in won:
                wins[w] += 1
    if out and partial:
        os.replace(partial, out)
    print(fit(f"{games} games of {game.spec()}" + (f", records in {out}" if out else "")))
    for p in range(n):
        print(
            labelled(f"  player {p}: mean return {totals[p] / games:+.3f}, wins {wins[p]}; agent ", specs[p])
        )
    sys.stdout.flush()
    return 0
