"""A review of one player's decisions in a game: the best agent's move, the player's expected share of
the best result after the move played and after the best one, each estimated from that player's view
only, and for a mistake the reason in words.

A *decision* is a turn of the reviewed player with more than one legal action (a forced move teaches
nothing). At each one (docs/review.md):

* **best**: what the best agent for the game (``best_agent_spec``, or the spec given) plays from a
  :class:`View` of the reviewed player, seeded from the review's seed and the action's index.
* **p_played, p_best**: the player's expected *share of the best result* after each of the two moves,
  measured by the same yardstick: ``worlds`` worlds drawn with ``view.determinize(rng)`` (what the
  player knew then, never the hidden cards of the real game); in each world both moves are played,
  then the game is finished by the game's cheap playout (the kit's rollout model to its stopping
  point, else the heuristic in every seat to the end) with the same generator for both moves (common
  random numbers, so the difference is measured with little noise). The share of a finished game is
  the game's own (``share`` in its ``review`` part: Pentyrch's is its place, so a lost game's moves
  still rank), else 1 for a win, half for a draw, 0 for a loss: the chance of winning. When the move
  played is the best one, both are the same number.
* **mistake, blunder**: the drop ``p_best - p_played`` of at least :data:`MISTAKE` or :data:`BLUNDER`,
  and more than twice the standard error of the paired difference (a drop the worlds cannot tell from
  noise is not held against the player).
* **why**: one sentence, from the same playouts: the game's ``review`` part reads each playout's
  *facts* for the player (the trick the move goes into, the points taken, the court cards brought
  home) and says what the best move does that the played one does not; without such a sentence, the
  two shares in words.

Everything a step reads is the View and the generators seeded from ``(seed, index)``: two games the
player cannot tell apart get the same review, why included, and one step can be computed in any
process, in any order. A caller may cap a step's work with a ``deadline`` (fewer worlds, so a
different answer) or choose the ``worlds``.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from gamester.agents import best_agent_spec
from gamester.agents.base import View, make_agent
from gamester.agents.ismcts import model_rollout
from gamester.core.errors import GameError
from gamester.core.protocol import Game, State
from gamester.core.record import replay, winners
from gamester.core.registry import game_part
from gamester.core.rng import below, derive, make_rng

MISTAKE = 0.10
"""A drop in the expected share of at least this much (and clear of noise) is a mistake."""
BLUNDER = 0.25
"""A drop of at least this much (and clear of noise) is a blunder."""
WORLDS = 64
"""Worlds per decision for the two shares, by default."""


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
    why: str | None = None
    """What the best move does that the played one does not (None when they are one move)."""

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
        out: dict[str, Any] = {
            "index": self.index,
            "action": self.action,
            "best": self.best,
            "p_played": round(self.p_played, 4),
            "p_best": round(self.p_best, 4),
            "mark": self.mark,
        }
        if self.mark and self.why:
            out["why"] = self.why
        return out


def summarise(steps: list[Step]) -> dict[str, Any]:
    """``accuracy``: the mean over decisions of ``1 - drop / BLUNDER`` (at least 0), so 1.0 is every
    move as good as the best and a blunder scores 0; None with no decision. ``mistakes``,
    ``blunders``: how many steps carry each mark."""
    marks = [s.mark for s in steps]
    accuracy = round(sum(max(0.0, 1.0 - s.drop / BLUNDER) for s in steps) / len(steps), 4) if steps else None
    return {"accuracy": accuracy, "mistakes": marks.count("mistake"), "blunders": marks.count("blunder")}


def review_json(
    player: int, steps: list[Step], lesson_moves: int | None = None, measure: str = "chance"
) -> dict[str, Any]:
    """The review as ``gamester review --json`` prints it: ``measure`` says what the numbers are
    (:func:`measure_of`); a lesson's review also counts the pupil's decisions the lesson made for it
    (``summary.lesson_moves``), which are not judged."""
    summary = summarise(steps)
    if lesson_moves is not None:
        summary["lesson_moves"] = lesson_moves
    return {"seat": player, "measure": measure, "steps": [s.to_json() for s in steps], "summary": summary}


def measure_of(game: str) -> str:
    """``"share"`` for a game (by name) reviewed by its own share of the best result (places:
    Pentyrch), ``"chance"`` for one reviewed by the chance of winning."""
    return "share" if hasattr(game_part(game, "review"), "share") else "chance"


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


def review_job(job: Job, deadline: float | None = None) -> Step:
    """One decision of a record reviewed: ``(record, player, index, spec, worlds, seed)``; a job that
    runs the same in any process and any order (``deadline``: a ``time.monotonic()`` after which no
    more worlds are drawn)."""
    record, player, index, spec, worlds, seed = job
    state = replay({**record, "actions": record["actions"][:index]})
    played = state.string_to_action(record["actions"][index])
    return review_step(state, player, index, played, spec, worlds, seed, deadline)


def review_decisions(
    record: dict[str, Any],
    player: int,
    spec: str | None = None,
    worlds: int = WORLDS,
    seed: int = 0,
    *,
    only: list[int] | None = None,
    deadline: float | None = None,
) -> list[Step]:
    """Every decision of ``player`` (or those at the indices ``only``) reviewed in this process, one
    after another, the judge ``spec`` (default: the game's best agent). Past ``deadline`` (a
    ``time.monotonic()``) each remaining decision is measured on two worlds: a caller with a time
    budget gets an answer, a coarser one."""
    game = replay({**record, "actions": []}).game
    spec = spec or best_agent_spec(game)
    indices = decisions(record, player) if only is None else only
    return [review_job((record, player, i, spec, worlds, seed), deadline) for i in indices]


def step_seeds(seed: int, index: int) -> tuple[int, int]:
    """The agent's seed and the worlds' seed of the decision at ``index``."""
    return derive(seed, "review", index, "agent"), derive(seed, "review", index, "worlds")


def review_step(
    state: State,
    player: int,
    index: int,
    played: int,
    spec: str | None,
    worlds: int,
    seed: int,
    deadline: float | None = None,
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
        p = [v for v, _ in outcomes(view, [played], worlds, make_rng(world_seed), deadline)[played]]
        m = sum(p) / len(p)
        return Step(index, text(played), text(best), m, m, 0.0)
    got = outcomes(view, [played, best], worlds, make_rng(world_seed), deadline)
    a, b = [v for v, _ in got[played]], [v for v, _ in got[best]]
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    n = len(diffs)
    mean = sum(diffs) / n
    err = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n) if n > 1 else math.inf
    why = explain(view, text(played), text(best), got[played], got[best])
    return Step(index, text(played), text(best), sum(a) / n, sum(b) / n, err, why)


Outcome = tuple[float, dict[str, float]]
"""One playout after a move: the player's share, and the facts the game's review part reads in it."""


def chances(view: View, actions: list[int], worlds: int, rng: random.Random) -> dict[int, list[float]]:
    """For each action, ``view.player``'s share after it in each of ``worlds`` worlds drawn from the
    view; every action meets the same worlds and the same playout generator."""
    return {a: [v for v, _ in got] for a, got in outcomes(view, actions, worlds, rng).items()}


def outcomes(
    view: View, actions: list[int], worlds: int, rng: random.Random, deadline: float | None = None
) -> dict[int, list[Outcome]]:
    """:func:`chances` with each playout's facts; past ``deadline`` no world is drawn beyond the
    second."""
    me = view.player
    part = review_part(view.game)
    out: dict[int, list[Outcome]] = {a: [] for a in actions}
    for k in range(worlds):
        if deadline is not None and k >= 2 and time.monotonic() > deadline:
            break
        world = view.determinize(rng)
        playout_seed = rng.getrandbits(64)
        for a in actions:
            w = world.clone()
            w.apply_action(a)
            # The events of the playout, for a part that reads them (Pentyrch's reads the end alone).
            events = list(w.last_events()) if part is not None and getattr(part, "EVENTS", True) else None
            value = _playout(w, me, make_rng(playout_seed), events)
            seen = part.facts(world, w, events or [], me) if part is not None else {}
            out[a].append((value, seen))
    return out


def review_part(game: Game) -> ModuleType | None:
    """The game's ``review`` part (its share of a result, the facts of a playout, the sentence), if it
    has one with ``facts`` and ``why``."""
    part = game_part(game.name, "review")
    return part if part is not None and hasattr(part, "facts") and hasattr(part, "why") else None


def share(state: State, player: int) -> float:
    """``player``'s share of the best result in a finished game (the module docstring)."""
    part = game_part(state.game.name, "review")
    if part is not None and hasattr(part, "share"):
        return float(part.share(state, player))
    if player in winners(state):
        return 1.0
    r = state.returns()
    return 0.5 if all(x == r[0] for x in r) else 0.0


def _means(got: list[Outcome]) -> dict[str, float]:
    """The mean of each fact over the worlds that have it in every world, and of the share."""
    keys = set(got[0][1]) if got else set()
    for _, seen in got:
        keys &= set(seen)
    out = {k: sum(seen[k] for _, seen in got) / len(got) for k in sorted(keys)}
    out["share"] = sum(v for v, _ in got) / len(got)
    return out


def explain(view: View, played: str, best: str, a: list[Outcome], b: list[Outcome]) -> str:
    """Why ``best`` beats ``played``, in one sentence: the game's words from the playouts' facts, else
    the two shares."""
    p, q = _means(a), _means(b)
    part = review_part(view.game)
    said = part.why(view.observation(), played, best, p, q) if part is not None else None
    if said:
        return str(said)
    if measure_of(view.game.name) == "share":
        return f"{best} is worth {q['share']:.0%} of a win on average, {played} {p['share']:.0%}."
    return f"{best} keeps a {q['share']:.0%} chance of winning the game, {played} {p['share']:.0%}."


def _playout(world: State, me: int, rng: random.Random, events: list[dict[str, Any]] | None) -> float:
    """``me``'s share in a sampled world, played on by the game's cheap playout: the kit's rollout
    model where it has one (Penneech: to the deal's end, then its race model's chance), else the
    heuristic in every seat, each from its own view of the world, to the end (as ``rollout`` and
    ``lookahead`` finish their worlds); a game without either is played on at random. The events of
    the playout are added to ``events`` when it is given."""
    kit = world.game.kit()
    model = kit.rollout_model
    if model is not None:
        value = model_rollout(world, model, rng, events)
        if value is not None:  # zero-sum +1/-1 returns: a chance p of winning is 2p - 1
            return max(0.0, min(1.0, (value[me] + 1.0) / 2.0))
        return share(world, me)
    while not world.is_terminal():
        legal = world.legal_actions()
        if len(legal) == 1:
            action = legal[0]
        elif kit.has_heuristic:
            action = kit.playout(world, legal, rng)
        else:
            action = legal[below(rng, len(legal))]
        world.apply_action(action)
        if events is not None:
            events.extend(world.last_events())
    return share(world, me)
