"""Information-set Monte Carlo tree search (single-observer ISMCTS), generic over every game.

Cowling, Powley and Whitehouse (2012), "Information Set Monte Carlo Tree Search". The agent searches
one tree for its own seat. Each iteration draws a fresh world with ``view.determinize(rng)`` (a full
state consistent with what the seat knows), walks the tree with UCB restricted to the actions legal in
that world (each child counts how often it was *available*, the ISMCTS correction for actions that exist
in some worlds only), adds one node, finishes the game with a rollout, and backs the returns up.

* A node is reached by a sequence of actions from the root, so it stands for every world in which that
  sequence was played: chance (deals, turn-ups, draws) happens inside ``apply_action`` and is whatever
  the sampled world holds, so the tree averages over it without chance nodes.
* Every edge keeps the statistics of the player who chose it, from that player's own returns, so the
  search handles 3 and 4 players (and partnerships, whose returns already coincide): each player
  maximises his own return at his own nodes.
* Rollouts are uniformly random to the end of the game (``rollout=random``), or follow the game's
  rollout model (``rollout=model``, the default; ``game.kit().rollout_model``): Penneech stops at
  the end of the current deal, scores the race to the target and plays with a cheap policy.
* ``infer=policy`` (``pool=N``) draws each iteration's world from worlds resampled by how likely an
  opponent model makes the other players' moves in them (``gamester.agents.belief``).
* The move played is the root child visited most; ``evaluate`` also reports its share of winning
  rollouts, which is what ``--hint`` shows.

Compared with OpenSpiel's ``ismcts.py``: nodes here are keyed by action paths rather than information
state strings (building observation strings costs more than a whole Penneech playout), and the game
supplies the resampler through ``determinize`` exactly as there.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

from gamester.agents.base import Agent, View, float_param, int_param, seed_param
from gamester.agents.belief import infer_param, pool_param, with_inference, world_source
from gamester.core.errors import AgentError
from gamester.core.kit import RolloutModel
from gamester.core.protocol import Game, State
from gamester.core.rng import below_of, make_rng


class _Edge:
    """Statistics of one action at one node, and the subtree below it."""

    __slots__ = ("n", "w", "wins", "avail", "children")

    def __init__(self) -> None:
        self.n = 0
        self.w = 0.0
        self.wins = 0.0
        self.avail = 1
        self.children: dict[int, _Edge] = {}


class ISMCTSAgent(Agent):
    """``ismcts:iterations=2000`` or ``ismcts:seconds=1``; ``c`` is the UCB exploration constant."""

    name = "ismcts"

    def __init__(
        self,
        game: Game | None = None,
        iterations: Any = None,
        seconds: Any = None,
        c: Any = 0.7,
        rollout: Any = "model",
        seed: Any = None,
        infer: Any = "none",
        pool: Any = 16,  # belief.POOL, spelt out: a compiled signature shows only literal defaults
    ) -> None:
        if iterations is not None and seconds is not None:
            raise AgentError("agent 'ismcts': give iterations= or seconds=, not both")
        self.iterations = int_param("iterations", iterations, 1) if iterations is not None else None
        self.seconds = float_param("seconds", seconds) if seconds is not None else None
        if self.iterations is None and self.seconds is None:
            self.iterations = 1000
        self.c = float_param("c", c)
        if rollout not in ("model", "random"):
            raise AgentError(
                f"agent 'ismcts': rollout={rollout!r}; valid: model (the game's playout "
                "policy and cut-off, if it has them), random (uniform to the end)"
            )
        self.rollout = rollout
        self.infer = infer_param(self.name, infer)
        self.pool = pool_param(pool)
        self.rng = make_rng(seed_param(seed))
        self.last_iterations = 0

    def step(self, view: View) -> int:
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        return int(self.search(view)["action"])

    def evaluate(self, view: View) -> dict[str, Any]:
        return self.search(view)

    def search(self, view: View) -> dict[str, Any]:
        """Run one search from ``view``; the chosen action, its win share and the root statistics."""
        legal = view.legal_actions()
        if not legal:
            raise AgentError("agent 'ismcts': it is not this seat's turn")
        me = view.player
        root = _Edge()
        rng = self.rng
        model = view.game.kit().rollout_model if self.rollout == "model" else None
        c = self.c
        spread = [math.inf, -math.inf]  # lowest and highest return seen, to scale exploration
        clock = time.perf_counter
        deadline = None if self.seconds is None else clock() + self.seconds
        limit = self.iterations
        worlds = world_source(view, rng, self.infer, self.pool)
        done = 0
        while True:
            if limit is not None and done >= limit:
                break
            if deadline is not None and done and clock() >= deadline:
                break
            _iterate(worlds.draw(), root, rng, c, spread, model)
            done += 1
        self.last_iterations = done
        stats = {a: root.children[a] for a in legal if a in root.children}
        best = max(legal, key=lambda a: (stats[a].n, stats[a].w) if a in stats else (-1, 0.0))
        e = stats.get(best)
        n = e.n if e else 0
        return with_inference(
            {
                "action": best,
                "win_probability": (e.wins / n) if e and n else 0.5,
                "mean_return": (e.w / n) if e and n else 0.0,
                "iterations": done,
                "visits": {view.action_to_string(a): s.n for a, s in sorted(stats.items())},
                "player": me,
            },
            worlds,
        )


def _iterate(
    state: State, root: _Edge, rng: random.Random, c: float, spread: list[float], model: RolloutModel | None
) -> None:
    path: list[tuple[_Edge, int]] = []
    node = root
    log = math.log
    sqrt = math.sqrt
    scale = c * (spread[1] - spread[0]) if spread[1] > spread[0] else c
    draw = below_of(rng)
    # Selection and expansion.
    while not state.is_terminal():
        p = state.current_player()
        legal = state.legal_actions()
        children = node.children
        untried = [a for a in legal if a not in children]
        if untried:
            a = untried[draw(len(untried))] if len(untried) > 1 else untried[0]
            for b in legal:
                e = children.get(b)
                if e is not None:
                    e.avail += 1
            child = children[a] = _Edge()
            state.apply_action(a)
            path.append((child, p))
            break
        best_score = -math.inf
        child = node
        a = legal[0]
        for b in legal:
            e = children[b]
            e.avail += 1
            score = e.w / e.n + scale * sqrt(log(e.avail) / e.n)
            if score > best_score:
                best_score = score
                child = e
                a = b
        state.apply_action(a)
        path.append((child, p))
        node = child
    # Rollout.
    if model is None:
        while not state.is_terminal():
            la = state.legal_actions()
            state.apply_action(la[draw(len(la))] if len(la) > 1 else la[0])
        returns = state.returns()
    else:
        estimate = model_rollout(state, model, rng)
        returns = state.returns() if estimate is None else estimate
    lo = min(returns)
    hi = max(returns)
    if lo < spread[0]:
        spread[0] = lo
    if hi > spread[1]:
        spread[1] = hi
    # Backpropagation: each edge learns its chooser's return.
    for edge, p in path:
        r = returns[p]
        edge.n += 1
        edge.w += r
        # The share of a win: returns above 0 win, below lose (estimates count in proportion).
        edge.wins += 1.0 if r >= 1.0 else 0.0 if r <= -1.0 else 0.5 + 0.5 * r


def model_rollout(
    state: State, model: RolloutModel, rng: random.Random, events: list[dict[str, Any]] | None = None
) -> list[float] | None:
    """Play ``state`` on with the model's policy (uniform where it has none) until the game ends
    (None) or the model stops the playout (then its estimated returns). The playout's events are
    added to ``events`` when it is given (a review reads them)."""
    marker = model.start(state)
    stop = model.stop
    policy = model.policy
    draw = below_of(rng)
    steps = 0
    while not state.is_terminal():
        if stop(state, marker, steps):
            return model.value(state)
        la = state.legal_actions()
        if len(la) == 1:
            state.apply_action(la[0])
        elif policy is None:
            state.apply_action(la[draw(len(la))])
        else:
            state.apply_action(policy(state, la, rng))
        if events is not None:
            events.extend(state.last_events())
        steps += 1
    return None
