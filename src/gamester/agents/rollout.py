"""``rollout``: one-step lookahead over sampled worlds, each action finished by the heuristic.

A policy-improvement (rollout) search in the manner of Tesauro and Galperin (1996) and Bertsekas:
every decision draws ``worlds`` full states with ``view.determinize(rng)``; in each world every legal
action is played and the game is finished by the ``heuristic`` agent in *every* seat, each heuristic
seeing only its own seat of that world (``View(world, seat)``), so no seat plays as if it knew the
hidden cards — the fault of ``pimc`` — and future chance (the Penneech turn-ups, the Piquesept
draw) is whatever the world holds, averaged over the worlds. The action with the best mean return for
the agent's seat is played.

* Common random numbers: inside one world all actions meet the same hidden cards, the same stock
  order and the same tie-breaking generator, so the comparison between actions is paired and far less
  noisy than the returns themselves.
* The heuristic, its fast copy on a world and where a rollout ends all come from the game's kit
  (``game.kit()``): Penneech stops at the end of the current deal, scored by its race model (each
  seat's chance of reaching the target first from the scores; reaching it inside the deal is a win on
  the spot); Piquesept at the end of the deal (a game is one deal, or with ``deals=N`` at the end of
  the match). Any game with a heuristic can be played, but a Pentyrch game is too long to finish a
  few hundred times a second: ``lookahead`` is the better agent there.
* Decisions the heuristic makes by rule (Penneech redeal offers: ``kit.rule_choice``) are left to it.
* Pruning (``prune=1``, the default; ``prune=0`` searches every action in every world): after each
  quarter of the ``worlds`` budget (at least 8 worlds; every 16 worlds under ``seconds=``) an action
  is dropped when, compared world by world with the current best, its mean difference plus two
  standard errors is below zero. The budget goes to the actions still in contention.
* ``policy=learned`` (``model=PATH`` for other weights than the shipped ones) finishes the rollouts
  with the ``learned`` network in every seat instead of the heuristic, each seat again reading only
  its own ``View`` of the world: search guided by the network (expert iteration's other half). Each
  playout move costs a forward pass besides the heuristic's move, so fewer worlds fit in a time.
* ``infer=policy`` (``pool=N``) searches worlds resampled by how likely an opponent model makes the
  moves the other players made in them (``gamester.agents.belief``); ``infer=none``, the default,
  searches the sampler's worlds as drawn.
* ``seconds=`` caps the time instead of ``worlds=`` (at least one world); ``evaluate`` reports the
  chosen action, its mean return, its share of won rollouts (``win_probability``), every action's
  mean and how many worlds each was searched in.

With exact estimates and opponents who play like the base policy, one step of rollout does at least as
well as the base policy; with a finite number of worlds the gain is what the tournaments in
``docs/agents.md`` measure.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any

from gamester.agents.base import (
    Agent,
    EvaluatingAgent,
    View,
    float_param,
    int_param,
    make_agent,
    seed_param,
)
from gamester.agents.belief import infer_param, pool_param, with_inference, world_source
from gamester.agents.heuristic import heuristic_kit
from gamester.core.errors import AgentError
from gamester.core.kit import Kit
from gamester.core.protocol import Game, State
from gamester.core.rng import make_rng

POLICIES = ("heuristic", "learned")  # what finishes a rollout


def _win_share(r: float) -> float:
    return 1.0 if r >= 1.0 else 0.0 if r <= -1.0 else 0.5 + 0.5 * r


def rule_decision(kit: Kit, view: View, legal: list[int]) -> dict[str, Any] | None:
    """The evaluation of a decision the game's heuristic makes by rule, or None to search it."""
    ruled = kit.rule_choice(view, legal)
    if ruled is None:
        return None
    action, chance = ruled
    return {"action": action, "win_probability": chance, "worlds": 0, "values": {}, "player": view.player}


class RolloutAgent(EvaluatingAgent):
    """``rollout:worlds=24`` or ``rollout:seconds=0.5``: heuristic rollouts over sampled worlds."""

    name = "rollout"

    def __init__(
        self,
        game: Game | None = None,
        worlds: Any = 24,
        seconds: Any = None,
        prune: Any = 1,
        seed: Any = None,
        policy: Any = "heuristic",
        model: Any = None,
        infer: Any = "none",
        pool: Any = 16,  # belief.POOL, spelt out: a compiled signature shows only literal defaults
    ) -> None:
        self.worlds = int_param("worlds", worlds, 1)
        self.infer = infer_param(self.name, infer)
        self.pool = pool_param(pool)
        self.prune = int_param("prune", prune) > 0
        self.seconds = float_param("seconds", seconds) if seconds is not None else None
        self.rng = make_rng(seed_param(seed))
        if policy not in POLICIES:
            raise AgentError(
                f"agent 'rollout': policy {str(policy)[:40]!r}: choose from {', '.join(POLICIES)}"
            )
        if model is not None and policy != "learned":
            raise AgentError("agent 'rollout': model= goes with policy=learned")
        if game is not None:
            heuristic_kit(self.name, game)
        # The playout policy's agent, made once (None: the kit's heuristic playout). Made through the
        # registry: ``learned`` needs numpy, which the compiled modules never import (a compiled
        # build is type-checked without it); it loads its weights for each game it is shown.
        self.player: Agent | None = None
        if policy == "learned":
            self.player = make_agent("learned" if model is None else f"learned:model={model}", game=game)

    def evaluate(self, view: View) -> dict[str, Any]:
        kit = heuristic_kit(self.name, view.game)
        legal = view.legal_actions()
        if not legal:
            raise AgentError("agent 'rollout': it is not this seat's turn")
        me = view.player
        ruled = rule_decision(kit, view, legal)
        if ruled is not None:
            return ruled
        player = self.player
        worlds = world_source(view, self.rng, self.infer, self.pool)

        def sample() -> tuple[State, Finish, int]:
            world = worlds.draw()
            tie_seed = self.rng.getrandbits(32)
            # The playout's own tie-breaker per action.
            return world, lambda w: play_out(w, me, kit, make_rng(tie_seed), player), 0

        out, _ = search_actions(view, legal, sample, self.worlds, self.seconds, self.prune)
        return with_inference(out, worlds)


Finish = Callable[[State], float]


def search_actions(
    view: View,
    legal: list[int],
    sample: Callable[[], tuple[State, Finish, int]],
    worlds: int,
    seconds: float | None,
    prune: bool,
) -> tuple[dict[str, Any], int]:
    """Every action in the same sampled worlds (common random numbers), best average return wins.

    ``sample()`` gives a world, how to finish a game from it after an action (``me``'s return), and
    how far the world is from consistent (0 when it is). Stops after ``worlds`` worlds, or at
    ``seconds``; with ``prune``, clearly worse actions stop being searched (:func:`_survivors`).
    Returns the evaluation and the number of worlds that were not consistent.
    """
    results: dict[int, list[float]] = {a: [] for a in legal}
    active = list(legal)
    clock = time.perf_counter
    deadline = None if seconds is None else clock() + seconds
    check = 16 if deadline is not None else max(8, worlds // 4)
    done = misses = 0
    while done < worlds if deadline is None else (done == 0 or clock() < deadline):
        world, finish, miss = sample()
        misses += miss > 0
        for a in active:
            w = world.clone()
            w.apply_action(a)
            results[a].append(finish(w))
        done += 1
        if prune and len(active) > 1 and done % check == 0:
            active = _survivors(active, results)
    means = {a: sum(r) / len(r) for a, r in results.items()}
    best = max(active, key=lambda a: (round(means[a], 9), -legal.index(a)))
    return {
        "action": best,
        "win_probability": sum(map(_win_share, results[best])) / done,
        "mean_return": means[best],
        "worlds": done,
        "values": {view.action_to_string(a): round(v, 4) for a, v in means.items()},
        "searched": {view.action_to_string(a): len(r) for a, r in results.items()},
        "player": view.player,
    }, misses


def _survivors(active: list[int], results: dict[int, list[float]]) -> list[int]:
    """The actions still worth searching: each is compared with the current leader world by world
    (all active actions have met the same worlds) and dropped when the mean difference plus two
    standard errors is below zero."""
    n = len(results[active[0]])
    leader = max(active, key=lambda a: sum(results[a]))
    lead = results[leader]
    keep = []
    for a in active:
        if a == leader:
            keep.append(a)
            continue
        d = [x - y for x, y in zip(results[a], lead, strict=True)]
        m = sum(d) / n
        var = sum((x - m) ** 2 for x in d) / (n - 1)
        if m + 2.0 * math.sqrt(var / n) >= 0.0:
            keep.append(a)
    return keep


def play_out(state: State, me: int, kit: Kit, rng: random.Random, player: Agent | None = None) -> float:
    """Play ``state`` on with the heuristic in every seat (or ``player``, each seat from its own
    view of the world); ``me``'s (estimated) return."""
    model = kit.rollout_model
    marker = model.start(state) if model is not None else None
    playout = kit.playout
    steps = 0
    while not state.is_terminal():
        if model is not None and model.stop(state, marker, steps):
            return float(model.value(state)[me])
        legal = state.legal_actions()
        if len(legal) == 1:
            action = legal[0]
        elif player is not None:
            action = player.step(View(state, state.current_player()))
        else:
            action = playout(state, legal, rng)
        state.apply_action(action)
        steps += 1
    return float(state.returns()[me])
