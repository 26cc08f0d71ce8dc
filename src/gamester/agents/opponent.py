"""The opponent model of policy inference (``infer=policy``, ``gamester.agents.belief``): how likely
a player was to make a move, judged from that player's own view of a world.

The model is the game's ``learned`` network (docs/learning.md): it scores every legal action of a
view with an estimated return ``q``, and reads the heuristic's move as one of its inputs. Its
choices become probabilities through a softmax with a temperature, a bonus for the heuristic's move
and a floor:

    P(a | view) = (1 - floor) * softmax(q / temperature + bonus * [a is the heuristic's move])[a]
                  + floor / (number of legal actions)

The three numbers are fitted by maximum likelihood on games of the computer players that sit at
our tables (``gamester.learn.opponent``; docs/agents.md, "The opponent model") and stored in
``weights/opponent.json`` under the name of the weights file they were fitted for. The floor keeps
one surprising move (a human, a random player, a search's odd choice) from ruling a world out.

Everything here is numpy, at play time too: the decisions of many worlds are scored in one forward
pass (``Model.values``). A decision reads only the mover's own view of the world (its observation
tensor, its legal actions, the heuristic's move from its view), and the world is one the searching
seat drew from its own view, so nothing of the true hidden cards reaches the weights.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from gamester.agents.base import View
from gamester.agents.learned import Model, cached_model, weights_for
from gamester.core.errors import AgentError
from gamester.core.protocol import Game, State
from gamester.core.rng import make_rng

FITS = Path(__file__).with_name("weights") / "opponent.json"
HISTORY = 64
"""How many of the deal's latest actions are read (the decisions of other players among them):
all of a Penneech or Piquesept deal; the last 64 moves of a long Pentyrch game."""
AFTERSTATE_HISTORY = 12
"""The same for a network that reads afterstates (Pentyrch's): each decision then costs a position
per legal move, so only the latest 12 actions are read."""


@dataclass(frozen=True)
class Fit:
    """The softmax's parameters (see the module's docstring)."""

    temperature: float = 0.1
    bonus: float = 2.0
    floor: float = 0.05

    def __post_init__(self) -> None:
        if not (self.temperature > 0 and math.isfinite(self.temperature)):
            raise AgentError(f"opponent model: temperature {self.temperature!r} must be above 0")
        if not math.isfinite(self.bonus):
            raise AgentError(f"opponent model: bonus {self.bonus!r} must be a number")
        if not 0.0 < self.floor <= 1.0:
            raise AgentError(f"opponent model: floor {self.floor!r} must be in (0, 1]")


@cache
def _fits() -> dict[str, Any]:
    try:
        data = json.loads(FITS.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def fitted(model_path: str | Path) -> Fit:
    """The fit stored for a weights file (by its file name), or the defaults if none is."""
    entry = _fits().get(Path(model_path).name)
    if not isinstance(entry, dict):
        return Fit()
    return Fit(float(entry["temperature"]), float(entry["bonus"]), float(entry["floor"]))


class Batch:
    """The decisions of many worlds, laid out for one forward pass: per decision its observation
    rows, its action rows, which row is the heuristic's move and which the move made."""

    __slots__ = ("obs", "owner", "acts", "starts", "sizes", "heur", "played", "world")

    def __init__(self) -> None:
        self.obs: list[Any] = []  # observation rows (lists of floats or float32 arrays)
        self.owner: list[int] = []  # per action row: its observation row
        self.acts: list[list[int]] = []  # per action row: its active action inputs
        self.starts: list[int] = []  # per decision: its first action row
        self.sizes: list[int] = []  # per decision: its number of legal actions
        self.heur: list[int] = []  # per decision: the heuristic's row (-1: none)
        self.played: list[int] = []  # per decision: the row of the move made
        self.world: list[int] = []  # per decision: the world (or game) it belongs to

    def __len__(self) -> int:
        return len(self.starts)


class PolicyModel:
    """The opponent model for one game: ``learned``'s network (``model``: a weights file, else the
    shipped one that fits the game) with its fitted softmax (``fit``, else the stored one)."""

    def __init__(self, game: Game, model: str | None = None, fit: Fit | None = None) -> None:
        path = weights_for(game, model)
        self.net: Model = cached_model(path)
        self.net.check(game)
        self.fit = fitted(path) if fit is None else fit
        self.game = game
        self.kit = game.kit()
        # The fast way in: the observation tensor and the action's id, the heuristic's move from
        # the kit's playout on the world (the same choice as the heuristic from the mover's view,
        # its ties broken the same way: the kits' tests check it). Otherwise the network's own
        # reading of a View (notation tokens, afterstates).
        net = self.net
        self.fast = (
            not net.afterstate
            and net.vocab is None
            and (net.heuristic_input is None or self.kit.has_heuristic)
        )
        self.history = AFTERSTATE_HISTORY if net.afterstate else HISTORY

    def add(self, batch: Batch, state: State, player: int, legal: list[int], played: int, world: int) -> None:
        """One decision of ``player`` in ``state`` (a world's position), with the move made."""
        net = self.net
        start = len(batch.owner)
        heur = -1
        if self.fast:
            row = len(batch.obs)
            batch.obs.append(state.observation_tensor(player))
            batch.owner.extend([row] * len(legal))
            batch.acts.extend([a] for a in legal)
            if net.heuristic_input is not None:
                heur = start + legal.index(self.kit.playout(state, legal, make_rng(0)))
        else:
            view = View(state, player)
            obs, owner = net.observations(view, legal)
            rows, h = net.rows(view, legal)
            base = len(batch.obs)
            batch.obs.extend(obs)
            batch.owner.extend(int(i) + base for i in owner)
            batch.acts.extend(rows)
            if h is not None and net.heuristic_input is not None:
                heur = start + legal.index(h)
        batch.starts.append(start)
        batch.sizes.append(len(legal))
        batch.heur.append(heur)
        batch.played.append(start + legal.index(played))
        batch.world.append(world)

    def values(self, batch: Batch) -> Any:
        """The network's value of every action row (float64): ``Model.values``, or on the fast way
        in the same layers with each row's one action input (and the heuristic's, where it is on)
        added as rows of the first layer's weights, without ``Model.values``' per-row sums."""
        net = self.net
        obs = np.asarray(batch.obs, dtype=np.float32)
        owner = np.asarray(batch.owner, dtype=np.intp)
        if not self.fast:
            return net.values(obs, owner, batch.acts).astype(np.float64)
        h = (obs @ net.w1o + net.b1)[owner]
        h += net.w1a[np.fromiter((r[0] for r in batch.acts), dtype=np.intp, count=len(batch.acts))]
        col = net.heuristic_input
        heur = np.asarray(batch.heur, dtype=np.intp)
        heur = heur[heur >= 0]
        if col is not None and len(heur):
            h[heur] += net.w1a[col]
        np.maximum(h, 0.0, out=h)
        h2 = h @ net.w2 + net.b2
        np.maximum(h2, 0.0, out=h2)
        return ((h2 @ net.w3 + net.b3) * net.scale).astype(np.float64)

    def log_probs(self, batch: Batch, q: Any = None) -> Any:
        """The log-probability of the move made at each decision (float64 array)."""
        if not len(batch):
            return np.zeros(0)
        if q is None:
            q = self.values(batch)
        return move_log_probs(q, batch, self.fit)

    def log_likelihoods(self, view: View, worlds: list[State]) -> list[float]:
        """For each world, the log of the product over the other players' decisions of its deal
        (among its latest :data:`HISTORY` actions, or :data:`AFTERSTATE_HISTORY`) of the
        probability of the move made, each judged from the mover's view of that world. The worlds
        must be ``view``'s own draws."""
        batch = Batch()
        for w, world in enumerate(worlds):
            start, actions = self.kit.deal_history(world)
            for s, p, legal, a in weighed_decisions(start, actions, view.player, self.history):
                self.add(batch, s, p, legal, a, w)
        if not len(batch):
            return [0.0] * len(worlds)
        lp = self.log_probs(batch)
        out = np.bincount(np.asarray(batch.world, dtype=np.intp), weights=lp, minlength=len(worlds))
        return [float(x) for x in out]


def weighed_decisions(
    start: State, actions: list[int], me: int, history: int
) -> Iterator[tuple[State, int, list[int], int]]:
    """The decisions the model weighs in a deal history (``kit.deal_history``): every other player's
    decision with a choice among the latest ``history`` actions, as (the state then, the mover, the
    legal actions, the move made). ``start`` is played on in place through ``actions``."""
    first = len(actions) - history
    for i, a in enumerate(actions):
        p = start.current_player()
        if i >= first and p != me:
            legal = start.legal_actions()
            if len(legal) > 1:
                yield start, p, legal, a
        start.apply_action(a)


def move_log_probs(q: Any, batch: Batch, fit: Fit) -> Any:
    """``log P(move made)`` at each decision of ``batch`` for action values ``q`` (one per action
    row) under ``fit`` (the module's formula)."""
    starts = np.asarray(batch.starts, dtype=np.intp)
    sizes = np.asarray(batch.sizes, dtype=np.intp)
    z = q / fit.temperature
    heur = np.asarray(batch.heur, dtype=np.intp)
    heur = heur[heur >= 0]
    if len(heur):
        z = z.copy()
        z[heur] += fit.bonus
    top = np.maximum.reduceat(z, starts)
    e = np.exp(z - np.repeat(top, sizes))
    total = np.add.reduceat(e, starts)
    p = e[np.asarray(batch.played, dtype=np.intp)] / total
    return np.log((1.0 - fit.floor) * p + fit.floor / sizes)


_MODELS: dict[tuple[Game, str | None], PolicyModel] = {}


def policy_model(game: Game, model: str | None = None) -> PolicyModel:
    """The opponent model of ``game`` (made once per game and weights file in a process)."""
    key = (game, model)
    found = _MODELS.get(key)
    if found is None:
        found = _MODELS[key] = PolicyModel(game, model)
    return found
