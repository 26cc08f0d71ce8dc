"""Random playouts through the public API, for ``gamester bench`` and ``benchmarks/``.

Only ratios between peers run in the same process mean anything on a shared machine, so every
function here returns counts and elapsed time and leaves the comparing to its caller.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gamester.core.columns import labelled
from gamester.core.errors import GameError
from gamester.core.protocol import Game, State
from gamester.core.rng import below, make_rng, unit


@dataclass
class Tally:
    actions: int = 0
    games: int = 0
    seconds: float = 0.0

    @property
    def actions_per_second(self) -> float:
        return self.actions / self.seconds if self.seconds else 0.0

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    def add(self, other: Tally) -> None:
        self.actions += other.actions
        self.games += other.games
        self.seconds += other.seconds


def random_playouts(game: Game, seconds: float, seed: int = 0) -> Tally:
    """Uniformly random complete games (dealing included) for about ``seconds``."""
    rng = make_rng(seed)
    randrange = rng.randrange
    actions = games = 0
    clock = time.perf_counter
    start = clock()
    deadline = start + seconds
    new = game.new_initial_state
    while clock() < deadline:
        for _ in range(20):
            s = new(seed=seed + games)
            games += 1
            while not s.is_terminal():
                la = s.legal_actions()
                s.apply_action(la[randrange(len(la))])
                actions += 1
    return Tally(actions, games, clock() - start)


def interleave(
    runners: dict[str, Callable[[float], Tally]], rounds: int = 6, seconds: float = 0.5
) -> dict[str, Tally]:
    """Run each runner for ``seconds``, in turn, ``rounds`` times, so machine noise hits all alike."""
    totals = {name: Tally() for name in runners}
    for _ in range(rounds):
        for name, run in runners.items():
            totals[name].add(run(seconds))
    return totals


def search_speed(
    game: Game, agent_spec: str = "ismcts", seconds: float = 3.0, seed: int = 0
) -> dict[str, float | int | str]:
    """Search iterations per second of a searching agent (``ismcts``), from a few positions of a
    seeded random game; prints nothing. Returns ``{"agent", "iterations", "seconds",
    "iterations_per_second", "positions"}``."""
    from gamester.agents.base import View, make_agent, parse_agent_spec

    name, params = parse_agent_spec(agent_spec)
    if name != "ismcts":
        from gamester.core.errors import AgentError

        raise AgentError(f"search_speed measures 'ismcts' (iterations per second), not {name!r}")
    rng = make_rng(seed)
    positions: list[State] = []
    state = game.new_initial_state(seed=seed)
    while not state.is_terminal() and len(positions) < 4:
        if len(state.legal_actions()) > 1 and unit(rng) < 0.3:
            positions.append(state.clone())
        la = state.legal_actions()
        state.apply_action(la[below(rng, len(la))])
    if not positions:
        positions.append(game.new_initial_state(seed=seed))
    per = seconds / len(positions)
    spec = "ismcts:" + ",".join(
        [f"{k}={v}" for k, v in params.items() if k not in ("iterations", "seconds")] + [f"seconds={per}"]
    )
    agent = make_agent(spec, game=game, seed=seed)
    iterations = 0
    clock = time.perf_counter
    start = clock()
    for pos in positions:
        agent.evaluate(View(pos, pos.current_player()))
        iterations += int(getattr(agent, "last_iterations", 0))
    elapsed = clock() - start
    return {
        "agent": "ismcts",
        "iterations": iterations,
        "seconds": elapsed,
        "iterations_per_second": iterations / elapsed if elapsed else 0.0,
        "positions": len(positions),
    }


# The OpenSpiel game each of ours is measured against (benchmarks/, `gamester bench --compare`).
OPENSPIEL_PEERS = {
    "penneech": "oh_hell(players=3,num_tricks_fixed=7)",
    "piquesept": "euchre",
    "pentyrch": "maedn",
}


def openspiel_playouts(game: Any, seconds: float, seed: int = 0) -> Tally:
    """Uniformly random games of a pyspiel game, in a loop of the same shape as
    :func:`random_playouts`; chance nodes are sampled from ``chance_outcomes()`` and not counted."""
    rng = make_rng(seed)
    randrange = rng.randrange
    actions = games = 0
    clock = time.perf_counter
    start = clock()
    deadline = start + seconds
    new = game.new_initial_state
    while clock() < deadline:
        for _ in range(20):
            s = new()
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


def compare_with_openspiel(
    game: Game, peer: str | None = None, rounds: int = 6, seconds: float = 0.5
) -> dict[str, Tally]:
    """Interleaved random playouts of ``game`` and its OpenSpiel peer (needs the ``bench`` extra)."""
    import pyspiel  # type: ignore[import-not-found, unused-ignore]  # the optional `bench` extra

    peer = peer or OPENSPIEL_PEERS.get(game.name)
    if peer is None:
        raise GameError(
            f"no OpenSpiel peer is known for {game.name!r}; name one, e.g. --peer euchre "
            f"(the peers of the games shipped here: {', '.join(OPENSPIEL_PEERS.values())})"
        )
    if peer.partition("(")[0] not in pyspiel.registered_names():
        # Checked first: OpenSpiel prints its whole list of games to stderr when loading fails.
        raise GameError(f"OpenSpiel has no game {peer.partition('(')[0]!r} (see pyspiel.registered_names())")
    try:
        theirs = pyspiel.load_game(peer)
    except pyspiel.SpielError as e:
        first = str(e).strip().splitlines()[0]
        raise GameError(f"OpenSpiel cannot load the peer {peer!r}: {first}") from None
    return interleave(
        {
            game.spec(): lambda s: random_playouts(game, s),
            f"openspiel {peer}": lambda s: openspiel_playouts(theirs, s),
        },
        rounds=rounds,
        seconds=seconds,
    )


def format_comparison(totals: dict[str, Tally]) -> str:
    """Each side's speed, then the ratio; a long peer (an OpenSpiel game with its parameters) wraps
    under itself, the figures stay in their columns."""
    rows = [(f"{t.actions_per_second:,.0f}", f"{t.games:,}", name) for name, t in totals.items()]
    w0 = max(len("actions/s"), *(len(r[0]) for r in rows))
    w1 = max(len("games"), *(len(r[1]) for r in rows))
    lines = [f"{'actions/s':>{w0}}  {'games':>{w1}}  player actions per second, random playouts"]
    lines += [labelled(f"{r[0]:>{w0}}  {r[1]:>{w1}}  ", r[2]) for r in rows]
    ours, theirs = (t.actions_per_second for t in totals.values())
    lines.append(f"ratio gamester / OpenSpiel per player action: {ours / theirs:.2f}x")
    return "\n".join(lines)
