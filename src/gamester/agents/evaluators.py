"""Per-game rollout knowledge for search: where a rollout may stop, how to score it there, and a
cheap playout policy.

``rollout_model(game)`` returns a :class:`RolloutModel` or None (then rollouts are uniformly random to
the end of the game). Every function here reads a *determinized* state — a world the agent sampled
itself through ``view.determinize`` — so reading its fields is no cheating.

* Penneech: a rollout stops when the deal in which it started is over and the scores are turned into
  each seat's chance of winning the race to the target (``solvers.penneech.race``); playing three more
  random deals would only add noise. The playout policy is a follower's reflex: win the trick with the
  cheapest card that wins it when it carries points, otherwise throw the lowest card; leads are random.
* Piquesept and Pentyrch: uniformly random playouts to the end (a random Pentyrch game lasts about
  150 actions, a Piquesept deal 32).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gamester.core.protocol import Game, State


@dataclass(frozen=True)
class RolloutModel:
    start: Callable[[State], Any]
    """A marker taken when the rollout begins (e.g. the deal number)."""
    stop: Callable[[State, Any, int], bool]
    """Whether to stop: (state, marker, actions so far)."""
    value: Callable[[State], list[float]]
    """Estimated returns of a non-terminal state where the rollout stopped."""
    policy: Callable[[State, list[int], random.Random], int] | None = None
    """The playout policy (None: uniformly random)."""


def rollout_model(game: Game) -> RolloutModel | None:
    if game.name == "penneech":
        from gamester.agents.solvers import penneech

        model: RolloutModel = penneech.ROLLOUT
        return model
    return None
