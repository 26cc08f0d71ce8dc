"""``lookahead``: one-ply Monte Carlo search over sampled worlds with heuristic playouts.

For games whose kit scores every legal action and tells what it does on the board
(``kit.scored_actions``; Pentyrch).

Each decision:

1. **Candidates.** The legal moves are grouped by what they do on the board (which court card goes
   where); within a group the payment is the one the heuristic prefers (the cheapest card, showing
   when it may). The ``candidates`` groups the heuristic scores highest are searched. Bearing off is
   always among them when legal.
2. **Worlds.** Worlds are drawn with ``view.determinize(rng)``: the hidden hand cards dealt afresh,
   consistent with what the seat has seen (with ``infer=policy``, ``pool=N``, resampled by how
   likely an opponent model makes the other players' moves in them: ``gamester.agents.belief``).
   Each world is tried with every candidate still in the running (common random numbers: the
   candidates meet the same hidden cards and the same playout seed, so their difference is measured
   with little noise).
3. **Playouts.** After the candidate move every seat, ours included, plays like the ``heuristic``
   agent (``kit.playout``: Pentyrch's heuristic move scores on the world's move tuples), to the end of
   the game, or for ``horizon`` actions and then scored by the kit's evaluation (``kit.static_value``;
   Pentyrch: work left per seat, turned into shares of the win). Against ``heuristic`` opponents the playouts
   are a faithful model of the table, so the search is a policy improvement on the heuristic.
4. **Pruning.** After every ``worlds // 4`` worlds (at least 2; 6 under ``seconds=``), a candidate
   is dropped when its mean return plus two standard errors falls below the best candidate's mean
   minus two standard errors, while more than two remain (successive rejection), so the budget goes
   to the moves that might be best.

The move with the best mean return is played. ``evaluate`` reports it with its share of won playouts
(``win_probability``), its mean return and every candidate's statistics, for ``--hint``.

Budget: ``worlds=N`` (default 24; each world costs one playout per surviving candidate) or
``seconds=S`` (worlds until the clock runs out). A seeded agent with ``worlds=`` is deterministic.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Hashable
from typing import Any

from gamester.agents.base import Agent, View, float_param, int_param, seed_param
from gamester.agents.belief import infer_param, pool_param, with_inference, world_source
from gamester.core.errors import AgentError
from gamester.core.kit import Kit
from gamester.core.protocol import Game, State
from gamester.core.rng import make_rng


def _kit(game: Game) -> Kit:
    kit = game.kit()
    if not kit.has_move_scores:
        raise AgentError(
            f"agent 'lookahead' needs the game's move scores and position evaluation, and {game.name!r} "
            "offers none; try 'ismcts'"
        )
    return kit


class _Candidate:
    __slots__ = ("action", "label", "prior", "n", "total", "squares", "wins")

    def __init__(self, action: int, label: str, prior: float) -> None:
        self.action = action
        self.label = label
        self.prior = prior
        self.n = 0
        self.total = 0.0
        self.squares = 0.0
        self.wins = 0.0

    def add(self, r: float, win: float) -> None:
        self.n += 1
        self.total += r
        self.squares += r * r
        self.wins += win

    def mean(self) -> float:
        return self.total / self.n if self.n else -math.inf

    def stderr(self) -> float:
        if self.n < 2:
            return math.inf
        m = self.total / self.n
        var = max(0.0, self.squares / self.n - m * m)
        return math.sqrt(var / (self.n - 1))


class LookaheadAgent(Agent):
    """``lookahead:worlds=24`` or ``lookahead:seconds=0.5``; ``candidates``, ``horizon``."""

    name = "lookahead"

    def __init__(
        self,
        game: Game | None = None,
        worlds: Any = None,
        seconds: Any = None,
        candidates: Any = 8,
        horizon: Any = 0,
        seed: Any = None,
        infer: Any = "none",
        pool: Any = 16,  # belief.POOL, spelt out: a compiled signature shows only literal defaults
    ) -> None:
        if worlds is not None and seconds is not None:
            raise AgentError("agent 'lookahead': give worlds= or seconds=, not both")
        self.worlds = int_param("worlds", worlds, 1) if worlds is not None else None
        self.seconds = float_param("seconds", seconds) if seconds is not None else None
        if self.worlds is None and self.seconds is None:
            self.worlds = 24
        self.candidates = int_param("candidates", candidates, 1)
        self.horizon = int_param("horizon", horizon, 0)
        self.infer = infer_param(self.name, infer)
        self.pool = pool_param(pool)
        self.rng = make_rng(seed_param(seed))
        if game is not None:
            _kit(game)

    def step(self, view: View) -> int:
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        return int(self.search(view, estimate=False)["action"])

    def evaluate(self, view: View) -> dict[str, Any]:
        return self.search(view, estimate=True)

    def search(self, view: View, estimate: bool) -> dict[str, Any]:
        """Search from ``view``: the chosen action and the candidates' statistics. With ``estimate``
        False the search stops as soon as one candidate is left (nothing to choose)."""
        kit = _kit(view.game)
        legal = view.legal_actions()
        if not legal:
            raise AgentError("agent 'lookahead': it is not this seat's turn")
        me = view.player
        rng = self.rng
        worlds = world_source(view, rng, self.infer, self.pool)
        first = worlds.draw()
        cands = self._candidates(kit, first, legal, view)
        clock = time.perf_counter
        deadline = None if self.seconds is None else clock() + self.seconds
        limit = self.worlds
        alive = list(cands)
        done = 0
        playouts = 0
        world = first
        check = max(2, (limit or 24) // 4)
        while len(alive) > 1 or (estimate and alive):
            if limit is not None and done >= limit:
                break
            if deadline is not None and done and clock() >= deadline:
                break
            if done:
                world = worlds.draw()
            seed = rng.getrandbits(64)
            for c in alive:
                s = world.clone()
                s.apply_action(c.action)
                r = self._playout(kit, s, make_rng(seed))
                c.add(r[me], _share(r[me], len(r)))
                playouts += 1
            done += 1
            if done % check == 0 and len(alive) > 2:
                best = max(alive, key=lambda c: c.mean())
                bar = best.mean() - 2.0 * max(best.stderr(), 1e-9)
                alive = [c for c in alive if c is best or c.mean() + 2.0 * c.stderr() >= bar]
        pick = max(alive, key=lambda c: (c.mean(), c.n, c.prior))
        n = pick.n
        out: dict[str, Any] = {
            "action": pick.action,
            "win_probability": pick.wins / n if n else None,
            "mean_return": pick.total / n if n else None,
            "worlds": done,
            "playouts": playouts,
            "candidates": {
                c.label: {
                    "n": c.n,
                    "mean_return": round(c.mean(), 4) if c.n else None,
                    "win_share": round(c.wins / c.n, 4) if c.n else None,
                }
                for c in cands
            },
            "player": me,
        }
        return with_inference(out, worlds)

    def _candidates(self, kit: Kit, world: State, legal: list[int], view: View) -> list[_Candidate]:
        """One action per board effect (Pentyrch: court card and destination), the heuristic's
        favourite payment; the best ``candidates`` of them by heuristic score."""
        groups: dict[Hashable, tuple[float, int]] = {}
        scored = kit.scored_actions(world, legal)
        assert scored is not None
        for score, a, key in scored:
            old = groups.get(key)
            if old is None or score > old[0] or (score == old[0] and a < old[1]):
                groups[key] = (score, a)
        ranked = sorted(groups.values(), key=lambda x: (-x[0], x[1]))
        keep = ranked[: self.candidates]
        return [_Candidate(a, view.action_to_string(a), score) for score, a in keep]

    def _playout(self, kit: Kit, state: State, rng: random.Random) -> list[float]:
        horizon = self.horizon
        playout = kit.playout
        steps = 0
        while not state.is_terminal():
            if horizon and steps >= horizon:
                value = kit.static_value(state)
                assert value is not None
                return value
            la = state.legal_actions()
            state.apply_action(la[0] if len(la) == 1 else playout(state, la, rng))
            steps += 1
        return state.returns()


def _share(r: float, n: int) -> float:
    """A return's share of a win: +1 is a win, -1/(n-1) a loss, in between in proportion."""
    lose = -1.0 / (n - 1) if n > 1 else -1.0
    if r >= 1.0:
        return 1.0
    if r <= lose:
        return 0.0
    return (r - lose) / (1.0 - lose)
