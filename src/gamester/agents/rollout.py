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
* Where a rollout ends: Penneech at the end of the current deal, scored by the race model of
  ``solvers.penneech`` (each seat's chance of reaching the target first from the scores; reaching it
  inside the deal is a win on the spot); Piquesept at the end of the deal (a game is one deal, or
  with ``deals=N`` at the end of the match). Pentyrch games are too long to finish a few hundred
  times a second; use ``ismcts`` there.
* Decisions the heuristic makes by rule (Penneech redeal offers) are left to it.
* Pruning (``prune=1``, the default; ``prune=0`` searches every action in every world): after each
  quarter of the ``worlds`` budget (at least 8 worlds; every 16 worlds under ``seconds=``) an action
  is dropped when, compared world by world with the current best, its mean difference plus two
  standard errors is below zero. The budget goes to the actions still in contention.
* ``seconds=`` caps the time instead of ``worlds=`` (at least one world); ``evaluate`` reports the
  chosen action, its mean return, its share of won rollouts (``win_probability``), every action's
  mean and how many worlds each was searched in.

With exact estimates and opponents who play like the base policy, one step of rollout does at least as
well as the base policy; with a finite number of worlds the gain is what the tournaments in
``docs/agents.md`` measure.
"""

from __future__ import annotations

import importlib
import math
import random
import time
from collections.abc import Callable
from math import comb
from typing import Any

from gamester.agents.base import EvaluatingAgent, View, float_param, int_param, seed_param
from gamester.agents.evaluators import RolloutModel, rollout_model
from gamester.agents.heuristics.penneech import HONOUR, TURNUP_EV
from gamester.core.errors import AgentError
from gamester.core.protocol import Game, State
from gamester.games.penneech.game import POWER, SEVEN_D

GAMES = ("penneech", "piquesept")
_REDEAL = 53  # Penneech's redeal action (games/penneech/game.py)


def _win_share(r: float) -> float:
    return 1.0 if r >= 1.0 else 0.0 if r <= -1.0 else 0.5 + 0.5 * r


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
    ) -> None:
        self.worlds = int_param("worlds", worlds, 1)
        self.prune = int_param("prune", prune) > 0
        self.seconds = float_param("seconds", seconds) if seconds is not None else None
        self.rng = random.Random(seed_param(seed))
        if game is not None and game.name not in GAMES:
            raise AgentError(
                f"agent 'rollout' needs a heuristic to roll out with: it plays "
                f"{', '.join(GAMES)}, not {game.name!r}; try 'ismcts'"
            )

    def evaluate(self, view: View) -> dict[str, Any]:
        name = view.game.name
        if name not in GAMES:
            raise AgentError(f"agent 'rollout' plays {', '.join(GAMES)}, not {name!r}")
        legal = view.legal_actions()
        if not legal:
            raise AgentError("agent 'rollout': it is not this seat's turn")
        policy = importlib.import_module(f"gamester.agents.heuristics.{name}").choose
        me = view.player
        if name == "penneech" and _REDEAL in legal:
            # docs/rules/penneech.md, Dealing: the heuristic always throws an eligible hand in. A fresh deal
            # is worth about nothing, so the estimate is the race from the present scores.
            return {
                "action": _REDEAL,
                "win_probability": _race_now(view),
                "worlds": 0,
                "values": {},
                "player": me,
            }
        model = rollout_model(view.game)

        def sample() -> tuple[State, Finish, int]:
            world = view.determinize(self.rng)
            tie_seed = self.rng.getrandbits(32)
            return world, lambda w: _finish(w, me, policy, model, random.Random(tie_seed)), 0

        out, _ = search_actions(view, legal, sample, self.worlds, self.seconds, self.prune)
        return out


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


def _race_now(view: View) -> float:
    """This seat's chance to win the Penneech race from the present scores (0.5 for one deal)."""
    from gamester.agents.solvers.penneech import race

    obs = view.observation()
    if view.game.options.objective == "deal":
        return 0.5
    mine, theirs = obs["scores"][view.player], obs["scores"][1 - view.player]
    return race(mine, theirs, obs["target"])


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


def _finish(state: State, me: int, policy: Any, model: RolloutModel | None, rng: random.Random) -> float:
    """Play ``state`` on with the heuristic in every seat; ``me``'s (estimated) return."""
    marker = model.start(state) if model is not None else None
    fast = penneech_heuristic if state.game.name == "penneech" else None
    steps = 0
    while not state.is_terminal():
        if model is not None and model.stop(state, marker, steps):
            return float(model.value(state)[me])
        p = state.current_player()
        legal = state.legal_actions()
        if len(legal) == 1:
            state.apply_action(legal[0])
        elif fast is not None and legal[0] < 52:
            state.apply_action(fast(state, legal))
        else:
            state.apply_action(policy(View(state, p), state.observation(p), legal, rng))
        steps += 1
    return float(state.returns()[me])


# -- the Penneech heuristic on bitmasks ---------------------------------------------------------------
# ``heuristics/penneech.py`` reads the observation (strings, sets); a rollout calls it a dozen times, so
# here is the same rule, computed from the current seat's knowledge in a sampled world's fields: its
# hand, the cards played, the turn-ups, the opponent's known voids and hand size. Every expression is
# the heuristic's own, in the same order (floating-point ties break the same way), and
# ``tests/test_agents.py`` checks that both choose the same card in thousands of positions.
_SEVEN_D, _POWER, _HONOUR, _TURNUP_EV = SEVEN_D, POWER, HONOUR, TURNUP_EV
_SUIT = [0x1FFF << (13 * s) for s in range(4)]
# Cards of the same suit ranking above each card (the heuristic's "higher" and "above").
_ABOVE = [sum(1 << u for u in range(52) if u // 13 == c // 13 and _POWER[u] > _POWER[c]) for c in range(52)]
_ALL = (1 << 52) - 1


def _points_row(trump: int, trump_only: bool) -> list[int]:
    row = []
    for c in range(52):
        if c == _SEVEN_D:
            row.append(7 if trump == 1 else 0)
        elif trump_only and c // 13 != trump:
            row.append(0)
        else:
            row.append(_HONOUR[c])
    return row


_ROWS = {flag: [_points_row(t, flag) for t in range(4)] for flag in (False, True)}


def _hold(card: int, unseen: int) -> float:
    return max(0.0, 2.0 - 0.6 * (unseen & _ABOVE[card]).bit_count())


def penneech_heuristic(state: Any, legal: list[int]) -> int:
    """``heuristics.penneech.choose`` for the seat to play in a PLAY phase, from the world's fields
    that this seat may know (``state`` is a sampled world; the opponent's hand is only counted)."""
    me = state._cur
    opp = 1 - me
    opts = state.game.options
    trump_only = opts.trick_honours == "trump"
    follow_suit = opts.follow == "suit"
    trump: int = state._trump
    hands = state._hands
    dealt = state._dealt
    hand = hands[me]
    seen = hand | (dealt[0] & ~hands[0]) | (dealt[1] & ~hands[1])
    pack = state._pack
    for i in range(14, state._pos):
        seen |= 1 << pack[i]
    unseen = _ALL & ~seen
    row = _ROWS[trump_only][trump]
    mine: int = state._tricks[me]
    trick_bonus = _TURNUP_EV + (1.0 if mine < 4 else 0.5)
    led: int = state._led
    if led >= 0:
        ls = led // 13
        winners = [c for c in legal if (_POWER[c] > _POWER[led] if c // 13 == ls else c // 13 == trump)]
        if winners:
            best = min(winners, key=lambda c: _hold(c, unseen) - row[c])
            gain = row[led] + row[best] + trick_bonus
            if gain >= _hold(best, unseen) or row[led] > 0:
                return best
        return min(legal, key=lambda c: (2.5 * row[c] + _hold(c, unseen), _POWER[c]))
    voids = state._voids[opp]
    possible = unseen
    for s in range(4):
        if voids >> s & 1:
            possible &= ~_SUIT[s]
    n_possible = possible.bit_count()
    k: int = hands[opp].bit_count()
    trumps = (possible & _SUIT[trump]).bit_count()

    def value(c: int) -> float:
        suit = c // 13
        higher = (possible & _ABOVE[c]).bit_count()
        if suit != trump:
            higher += trumps // 2 if follow_suit else trumps
        p_lose = _p_holds_any(higher, n_possible, k)
        stake = row[c] + trick_bonus
        return (1 - p_lose) * stake - p_lose * stake - 0.5 * _hold(c, unseen)

    return max(legal, key=lambda c: (value(c), -_POWER[c]))


def _p_holds_any(group: int, unknown: int, k: int) -> float:
    if group <= 0 or k <= 0:
        return 0.0
    if unknown - group < k:
        return 1.0
    return float(1.0 - comb(unknown - group, k) / comb(unknown, k))
