"""A review of one player's decisions in a game: the best agent's move and the chance of winning
after the move played and after the best one, each estimated from that player's view only.

A *decision* is a turn of the reviewed player with more than one legal action (a forced move teaches
nothing). At each one (docs/review.md):

* **best**: what the best agent for the game (``best_agent_spec``, or the spec given) plays from a
  :class:`View` of the reviewed player, seeded from the review's seed and the action's index.
* **p_played, p_best**: the chance of winning after each of the two moves, measured by the same
  yardstick: ``worlds`` worlds drawn with ``view.determinize(rng)`` (what the player knew then, never
  the hidden cards of the real game); in each world both moves are played, then the game is finished
  by the game's cheap playout (the kit's rollout model to its stopping point, else the heuristic in
  every seat to the end) with the same generator for
  both moves (common random numbers, so the difference is measured with little noise). When the move
  played is the best one, both chances are the same number.
* **mistake, blunder**: the drop ``p_best - p_played`` of at least :data:`MISTAKE` or :data:`BLUNDER`,
  and more than twice the standard error of the paired difference (a drop the worlds cannot tell from
  noise is not held against the player).

Everything a step reads is the View and the generators seeded from ``(seed, index)``: two games the
player cannot tell apart get the same review, and one step can be computed in any process, in any order.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from gamester.agents import best_agent_spec
from gamester.agents.base import View, make_agent
from gamester.agents.ismcts import model_rollout
from gamester.core.errors import GameError
from gamester.core.protocol import State
from gamester.core.record import replay, winners
from gamester.core.rng import below, derive, make_rng

MISTAKE = 0.10
"""A drop in the chance of winning of at least this much (and clear of noise) is a mistake."""
BLUNDER = 0.25
"""A drop of at least this much (and clear of noise) is a blunder."""
WORLDS = 64
"""Worlds per decision for the two chances, by default."""


@dataclass(frozen=True)
class Step:
    """One decision reviewed."""

    index: int
    """The action's position in the record (from 0)."""
    action: str
    best: str
    p_played: float
    p_best: float
    stderr: float
    """The standard error of the paired difference ``p_best - p_played`` (0 when they are one move)."""

    @property
    def drop(self) -> float:
        return max(0.0, self.p_best - self.p_played)

    @property
    def mark(self) -> str:
        """``"blunder"``, ``"mistake"`` or ``""``."""
        d = self.drop
        if d <= 2.0 * self.stderr:
            return ""
        if d >= BLUNDER - 1e-9:
            return "blunder"
        if d >= MISTAKE - 1e-9:
            return "mistake"
        return ""

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "action": self.action,
            "best": self.best,
            "p_played": round(self.p_played, 4),
            "p_best": round(self.p_best, 4),
            "mark": self.mark,
        }


def summarise(steps: list[Step]) -> dict[str, Any]:
    """``accuracy``: the mean over decisions of ``1 - drop / BLUNDER`` (at least 0), so 1.0 is every
    move as good as the best and a blunder scores 0; None with no decision. ``mistakes``,
    ``blunders``: how many steps carry each mark."""
    marks = [s.mark for s in steps]
    accuracy = round(sum(max(0.0, 1.0 - s.drop / BLUNDER) for s in steps) / len(steps), 4) if steps else None
    return {"accuracy": accuracy, "mistakes": marks.count("mistake"), "blunders": marks.count("blunder")}


def review_json(player: int, steps: list[Step]) -> dict[str, Any]:
    """The review as ``gamester review --json`` prints it."""
    return {"seat": player, "steps": [s.to_json() for s in steps], "summary": summarise(steps)}


Job = tuple[dict[str, Any], int, int, str, int, int]
"""A decision to review: the record, the player, the action's index, the agent spec, worlds, seed."""


def decisions(record: dict[str, Any], player: int) -> list[int]:
    """The indices of the record's actions that were ``player``'s decisions (more than one legal
    action). The record must replay (a :class:`RecordError` names what is wrong)."""
    state = replay({**record, "actions": []})
    out = []
    for i, text in enumerate(record.get("actions", [])):
        if state.current_player() == player and len(state.legal_actions()) > 1:
            out.append(i)
        state.apply_action(state.string_to_action(text))
    return out


def review_job(job: Job) -> Step:
    """One decision of a record reviewed: ``(record, player, index, spec, worlds, seed)``; a job that
    runs the same in any process and any order."""
    record, player, index, spec, worlds, seed = job
    state = replay({**record, "actions": record["actions"][:index]})
    played = state.string_to_action(record["actions"][index])
    return review_step(state, player, index, played, spec, worlds, seed)


def step_seeds(seed: int, index: int) -> tuple[int, int]:
    """The agent's seed and the worlds' seed of the decision at ``index``."""
    return derive(seed, "review", index, "agent"), derive(seed, "review", index, "worlds")


def review_step(
    state: State, player: int, index: int, played: int, spec: str | None, worlds: int, seed: int
) -> Step:
    """Review ``played``, the move ``player`` made in ``state`` (the position before action
    ``index``), from ``View(state, player)`` only."""
    if worlds < 1:
        raise GameError(f"a review needs at least one world per decision (got {worlds})")
    view = View(state, player)
    legal = view.legal_actions()
    if played not in legal:
        raise GameError(f"action {index} is not a legal move of player {player}")
    agent_seed, world_seed = step_seeds(seed, index)
    agent = make_agent(spec or best_agent_spec(state.game), game=state.game, seed=agent_seed)
    best = agent.step(view)
    if best not in legal:
        raise GameError(f"agent {spec!r} chose an illegal move at action {index}")
    text = view.action_to_string
    if best == played:
        p = chances(view, [played], worlds, make_rng(world_seed))[played]
        m = sum(p) / len(p)
        return Step(index, text(played), text(best), m, m, 0.0)
    got = chances(view, [played, best], worlds, make_rng(world_seed))
    a, b = got[played], got[best]
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    n = len(diffs)
    mean = sum(diffs) / n
    err = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n) if n > 1 else math.inf
    return Step(index, text(played), text(best), sum(a) / n, sum(b) / n, err)


def chances(view: View, actions: list[int], worlds: int, rng: random.Random) -> dict[int, list[float]]:
    """For each action, ``view.player``'s chance of winning after it in each of ``worlds`` worlds
    drawn from the view; every action meets the same worlds and the same playout generator."""
    me = view.player
    out: dict[int, list[float]] = {a: [] for a in actions}
    for _ in range(worlds):
        world = view.determinize(rng)
        playout_seed = rng.getrandbits(64)
        for a in actions:
            w = world.clone()
            w.apply_action(a)
            out[a].append(_playout(w, me, make_rng(playout_seed)))
    return out


def _terminal_chance(state: State, player: int) -> float:
    return 1.0 if player in winners(state) else 0.0


def _playout(world: State, me: int, rng: random.Random) -> float:
    """``me``'s chance of winning in a sampled world, played on by the game's cheap playout: the
    kit's rollout model where it has one (Penneech: to the deal's end, then its race model), else
    the heuristic in every seat, each from its own view of the world, to the end (as ``rollout`` and
    ``lookahead`` finish their worlds); a game without a heuristic is played on at random."""
    kit = world.game.kit()
    model = kit.rollout_model
    if model is not None:
        value = model_rollout(world, model, rng)
        if value is None:
            return _terminal_chance(world, me)
        return max(0.0, min(1.0, (value[me] + 1.0) / 2.0))  # zero-sum +1/-1: a chance p is 2p - 1
    while not world.is_terminal():
        legal = world.legal_actions()
        if len(legal) == 1:
            world.apply_action(legal[0])
        elif kit.has_heuristic:
            world.apply_action(kit.playout(world, legal, rng))
        else:
            world.apply_action(legal[below(rng, len(legal))])
    return _terminal_chance(world, me)
