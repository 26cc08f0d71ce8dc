"""Where a search's worlds come from, and what the other players' moves say about them (``infer=``).

Every search agent draws its worlds from the seat's view with ``view.determinize(rng)``: the game's
exact sampler, which deals the hidden cards afresh among every arrangement consistent with what the
seat knows (voids shown, cards seen, trades). With ``infer=none`` (the default) those are the worlds
searched, each as likely as the next, as though the other players' choices said nothing about their
hands.

``infer=policy`` reads the choices too (policy-based inference: Solinas, Rebstock, Buro and
Sturtevant, "Improving Search with Supervised Learning in Trick-Based Card Games", 2019, for Skat).
Worlds are drawn in batches of ``pool`` candidates from the same exact sampler; each is weighted by the
product, over the moves every other player made in this deal, of the probability an opponent model
gives the move actually made, judged from that player's own view *of that world*
(``gamester.agents.opponent``: the ``learned`` network through a fitted softmax); then a batch's
worth of worlds is kept by systematic resampling, in proportion to the weights, and searched; a
candidate kept more than once comes back each further time with what no seat has seen yet (the chance
still to come: the Penneech stock's order) drawn afresh (``kit.redraw_unseen``), since no player's
moves say anything about it. A world is still one the sampler drew, so every world searched stays
consistent with the seat's knowledge; the weighting only changes how often each is met. When a
batch's weights are all equal (no other player has chosen anything yet this deal) it is kept as drawn.

What it costs and what it may read: a candidate costs one replay of the deal so far in that world
(``game.kit().deal_history``) and, for each other player's decision with a real choice, that
player's observation and the heuristic's move; the network then scores every decision of the batch
in one numpy forward pass. The weights read only the world (itself drawn from the seat's view) and
the moves in it, so two real states the seat cannot tell apart give, for the same generator, the same
weighted worlds (``tests/test_leaks.py``); the weights are checked against the product worked out
by hand (``tests/test_belief.py``).
"""

from __future__ import annotations

import importlib
import math
import random
import time
from typing import Any, Protocol

from gamester.agents.base import int_param
from gamester.core.errors import AgentError
from gamester.core.kit import View
from gamester.core.protocol import Game, State
from gamester.core.rng import unit

INFER = ("none", "policy")
POOL = 16
"""Candidate worlds drawn per batch (``pool=``): small enough that a batch is a few milliseconds of
a tenth of a second's search, large enough that its effective size is worth resampling."""


class Weigher(Protocol):
    """What weighs candidate worlds: the log of each one's likelihood given the moves seen."""

    def log_likelihoods(self, view: View, worlds: list[State]) -> list[float]: ...


def infer_param(agent: str, value: Any, choices: tuple[str, ...] = INFER) -> str:
    """``infer=`` checked: one of ``choices``, or one line saying what is wrong."""
    text = str(value).strip()
    if text not in choices:
        raise AgentError(f"agent {agent!r}: infer={text[:40]!r}: choose from {', '.join(choices)}")
    return text


def pool_param(value: Any) -> int:
    """``pool=``: candidate worlds per batch, at least 2."""
    return int_param("pool", value, 2)


def policy_weigher(game: Game, model: str | None = None) -> Weigher:
    """The game's opponent model (``gamester.agents.opponent``). Imported by name: it needs numpy,
    which the compiled modules never import."""
    module: Any = importlib.import_module("gamester.agents.opponent")
    weigher: Weigher = module.policy_model(game, model)
    return weigher


class Worlds:
    """The worlds of one decision, drawn one at a time (``draw``); this base draws each afresh from
    the exact sampler, every world as likely as the next (``infer=none``)."""

    def __init__(self, view: View, rng: random.Random) -> None:
        self.view = view
        self.rng = rng

    def draw(self) -> State:
        """A world of the seat's own (an unshared state: the caller may play on in it)."""
        return self.view.determinize(self.rng)

    def stats(self) -> dict[str, Any] | None:
        """What the inference did, for ``evaluate`` (None: no inference)."""
        return None


class InferredWorlds(Worlds):
    """Worlds resampled by their likelihood under an opponent model (the module's docstring)."""

    def __init__(self, view: View, rng: random.Random, weigher: Weigher, pool: int) -> None:
        super().__init__(view, rng)
        self.weigher = weigher
        self.size = pool
        self._pool: list[State] = []
        self.drawn = 0
        self.kept = 0
        self.distinct = 0
        self.batches = 0
        self._ess = 0.0
        self.seconds = 0.0

    def draw(self) -> State:
        if not self._pool:
            self._refill()
        return self._pool.pop()

    def _refill(self) -> None:
        start = time.perf_counter()
        view, rng = self.view, self.rng
        batch = [view.determinize(rng) for _ in range(self.size)]
        logs = self.weigher.log_likelihoods(view, batch)
        top = max(logs)
        weights = [math.exp(x - top) for x in logs]
        # fsum, not sum: a compiled sum() of floats is typed as possibly an int (its empty value).
        total = math.fsum(weights)
        self._ess += total * total / math.fsum(w * w for w in weights)
        self.drawn += len(batch)
        self.batches += 1
        if all(x == top for x in logs):
            kept = batch
            self.distinct += len(batch)
        else:
            # A batch's worth of worlds in proportion to the weights; a candidate kept again comes
            # back with what no seat has seen (the chance still to come) drawn afresh, since no one's
            # moves say anything about it: the same hands, another future.
            redraw = view.game.kit().redraw_unseen
            kept = []
            last = -1
            for i in systematic(rng, weights, len(batch)):
                kept.append(batch[i] if i != last else redraw(batch[i], rng))
                self.distinct += i != last
                last = i
        self.kept += len(kept)
        kept.reverse()  # handed out from the end: in the order drawn
        self._pool = kept
        self.seconds += time.perf_counter() - start

    def stats(self) -> dict[str, Any]:
        return {
            "candidates": self.drawn,
            "kept": self.kept,
            "distinct": self.distinct,
            "effective_candidates": round(self._ess / max(1, self.batches), 2),
            "seconds": round(self.seconds, 4),
        }


def systematic(rng: random.Random, weights: list[float], count: int) -> list[int]:
    """``count`` indices drawn in proportion to ``weights`` by systematic resampling: one uniform
    offset, then evenly spaced points along the running total (each index kept about
    ``count * weight / total`` times, never further from it than one)."""
    total = math.fsum(weights)
    step = total / count
    point = unit(rng) * step
    out: list[int] = []
    run = 0.0
    i = 0
    last = len(weights) - 1
    for _ in range(count):
        while i < last and run + weights[i] <= point:
            run += weights[i]
            i += 1
        out.append(i)
        point += step
    return out


def world_source(view: View, rng: random.Random, infer: str, pool: int, model: str | None = None) -> Worlds:
    """The worlds of one decision: plain draws, or (``infer="policy"``) inferred ones."""
    if infer == "none":
        return Worlds(view, rng)
    return InferredWorlds(view, rng, policy_weigher(view.game, model), pool)


def with_inference(out: dict[str, Any], worlds: Worlds) -> dict[str, Any]:
    """An evaluation with what the inference did added (``inference``), if there was any."""
    stats = worlds.stats()
    if stats is not None:
        out["inference"] = stats
    return out
