"""Penneech: the rest of a deal solved exactly in one sampled world.

The world is a determinized state (both hands and the stock order known), read through its
``world_view()`` without changing it. Alpha-beta over the remaining cards, with a transposition table
of value bounds keyed by both hands, the stock position, the card led, the player to move, the tricks
and the scores. Tricks, follows and points are the tables of ``rules.py`` (docs/rules/penneech.md,
Tricks, Turn-ups and trumps, End of the deal); the scoring order and the target are the engine's
(Winning); ``tests/test_penneech_kit.py`` checks this solver against brute force over the real engine.

Values are seat 0's: a win inside the deal is 1 and a loss 0; a deal that ends without a winner is
scored by :func:`race`, the chance that seat 0 wins the race to the target from those scores. With
``objective=deal`` the value is the final point difference ``score0 - score1``.
"""

from __future__ import annotations

import math
import random
from typing import Any

from gamester.core.kit import RolloutModel, View
from gamester.core.rng import below, unit
from gamester.games.penneech.game import PLAY, REDEAL, PenneechState
from gamester.games.penneech.rules import BEATERS, CARD_BONUS, POWER, TRICKS, TURNUP_POINTS, legal_mask
from gamester.games.penneech.rules import outcomes as outcomes_of

# The race model: each deal gives a seat about MU points, the difference between the seats varies
# by about SIGMA per deal (measured loosely on heuristic play; only the shape matters).
MU = 14.0
SIGMA = 12.0
INF = float("inf")
# A list's __getitem__ is a fast method; a tuple's (rules.POWER) a slower slot wrapper: a sort key here.
_power = list(POWER).__getitem__


def race(s0: int, s1: int, target: int) -> float:
    """Seat 0's chance of reaching ``target`` first from scores ``s0``, ``s1`` at a deal's end."""
    n0 = max(target - s0, 0)
    n1 = max(target - s1, 0)
    deals = max(0.4, (n0 + n1) / (2.0 * MU))
    z = (n1 - n0) / (SIGMA * math.sqrt(deals))
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def fixed_choice(view: View, legal: list[int], rng: random.Random) -> int | None:
    """Decisions the solver does not make: a redeal offer is always taken (an eligible hand holds no
    honour and no card above a Ten, worth less than the average fresh deal)."""
    return REDEAL if REDEAL in legal else None


def as_probability(value: float, view: View) -> float | None:
    if view.game.options.objective == "deal":
        return None
    return max(0.0, min(1.0, value))


def solve_actions(world: Any, me: int) -> dict[int, float]:
    """The exact value, for ``me``, of every legal action of ``world`` (a determinized state)."""
    assert isinstance(world, PenneechState)
    values0 = Solver(world).root()
    if world.game.options.objective == "deal":
        return {a: (v if me == 0 else -v) for a, v in values0.items()}
    return {a: (v if me == 0 else 1.0 - v) for a, v in values0.items()}


class Solver:
    """Alpha-beta over one world's remaining tricks; ``nodes`` counts the positions searched."""

    def __init__(self, world: PenneechState) -> None:
        self.world = world
        self.nodes = 0

    def root(self) -> dict[int, float]:
        world = self.world
        w = world.world_view()
        assert w.phase == PLAY, "the solver plays out the tricks of a deal"
        game = world.game
        # pack[i]: the card that sets the trump for a trick, pack[i + 1] its winner's turn-up; the
        # search starts at pos 1 (pack[0] the trump of the trick in progress).
        pack = w.turned[-1:] + w.stock
        outcomes = outcomes_of(game.options.trick_honours, game.follow_suit)
        follow_suit = game.follow_suit
        target = w.target
        deal_only = game.options.objective == "deal"
        tt: dict[tuple[int, ...], tuple[float, float, int]] = {}
        leaf_cache: dict[tuple[int, int], float] = {}
        win0, win1 = (INF, -INF) if deal_only else (1.0, 0.0)
        target_on = not deal_only

        def leaf(s0: int, s1: int) -> float:
            if deal_only:
                return float(s0 - s1)
            k = (s0, s1)
            v = leaf_cache.get(k)
            if v is None:
                v = leaf_cache[k] = race(s0, s1, target)
            return v

        def trick(
            h0: int,
            h1: int,
            pos: int,
            led: int,
            c: int,
            follower: int,
            t0: int,
            t1: int,
            s0: int,
            s1: int,
            alpha: float,
            beta: float,
        ) -> float:
            # docs/rules/penneech.md, Tricks: who wins and the points, looked up (rules.outcomes).
            v = outcomes[pack[pos - 1] // 13][led * 52 + c]
            win = follower if v & 1 else 1 - follower
            pts = v >> 2
            # docs/rules/penneech.md, Winning: the target wins at once, even mid-deal.
            if win == 0:
                t0 += 1
                s0 += pts
                if target_on and s0 >= target:
                    return win0
            else:
                t1 += 1
                s1 += pts
                if target_on and s1 >= target:
                    return win1
            # docs/rules/penneech.md, Turn-ups and trumps: the winner turns the next card (after trick 7 too).
            tp = TURNUP_POINTS[pack[pos]]
            if tp:
                if win == 0:
                    s0 += tp
                    if target_on and s0 >= target:
                        return win0
                else:
                    s1 += tp
                    if target_on and s1 >= target:
                        return win1
            if t0 + t1 < TRICKS:
                return search(h0, h1, pos + 1, -1, win, t0, t1, s0, s1, alpha, beta)
            # docs/rules/penneech.md, End of the deal: 4+ tricks score 2 x tricks - 7 (rules.card_bonus).
            bonus = CARD_BONUS[t0]
            if bonus:
                s0 += bonus
                if target_on and s0 >= target:
                    return win0
            else:
                s1 += CARD_BONUS[t1]
                if target_on and s1 >= target:
                    return win1
            return leaf(s0, s1)

        def search(
            h0: int,
            h1: int,
            pos: int,
            led: int,
            cur: int,
            t0: int,
            t1: int,
            s0: int,
            s1: int,
            alpha: float,
            beta: float,
        ) -> float:
            self.nodes += 1
            key = (h0, h1, pos, led, cur, t0, s0, s1)
            e = tt.get(key)
            bm = -1
            if e is not None:
                lo, hi, bm = e
                if lo >= beta:
                    return lo
                if hi <= alpha:
                    return hi
                if lo == hi:
                    return lo
                if lo > alpha:
                    alpha = lo
                if hi < beta:
                    beta = hi
            a0, b0 = alpha, beta
            hand = h0 if cur == 0 else h1
            if led >= 0:
                # docs/rules/penneech.md, Tricks: what the second player must play.
                hand = legal_mask(hand, led, pack[pos - 1] // 13, follow_suit)
            moves = []
            m = hand
            while m:
                low = m & -m
                moves.append(low.bit_length() - 1)
                m ^= low
            if led < 0:
                moves.sort(key=_power, reverse=True)
            if bm >= 0 and bm in moves:
                moves.remove(bm)
                moves.insert(0, bm)
            maximize = cur == 0
            best = -INF if maximize else INF
            best_move = moves[0]
            for c in moves:
                bit = 1 << c
                if led < 0:
                    if cur == 0:
                        v = search(h0 ^ bit, h1, pos, c, 1, t0, t1, s0, s1, alpha, beta)
                    else:
                        v = search(h0, h1 ^ bit, pos, c, 0, t0, t1, s0, s1, alpha, beta)
                elif cur == 0:
                    v = trick(h0 ^ bit, h1, pos, led, c, 0, t0, t1, s0, s1, alpha, beta)
                else:
                    v = trick(h0, h1 ^ bit, pos, led, c, 1, t0, t1, s0, s1, alpha, beta)
                if maximize:
                    if v > best:
                        best = v
                        best_move = c
                        if v > alpha:
                            alpha = v
                            if alpha >= beta:
                                break
                else:
                    if v < best:
                        best = v
                        best_move = c
                        if v < beta:
                            beta = v
                            if alpha >= beta:
                                break
            lo, hi = (-INF, INF) if e is None else (e[0], e[1])
            if best <= a0:
                hi = min(hi, best)
            elif best >= b0:
                lo = max(lo, best)
            else:
                lo = hi = best
            tt[key] = (lo, hi, best_move)
            return best

        h0, h1 = w.hands
        cur = w.current
        led = w.led
        t0, t1 = w.tricks
        s0, s1 = w.scores
        out: dict[int, float] = {}
        for a in world.legal_actions():
            bit = 1 << a
            nh0, nh1 = (h0 ^ bit, h1) if cur == 0 else (h0, h1 ^ bit)
            if led < 0:
                out[a] = search(nh0, nh1, 1, a, 1 - cur, t0, t1, s0, s1, -INF, INF)
            else:
                out[a] = trick(nh0, nh1, 1, led, a, cur, t0, t1, s0, s1, -INF, INF)
        return out


# -- rollout knowledge for ISMCTS (the kit's rollout_model) -----------------------------------------------
# The policy runs at every step of every rollout, so it reads the world's fields directly (one
# world_view() measured 4 us on the loaded 2-core test machine, against 15 ns for a field); the rest
# reads the deal_number property, world_view() and the public API.
def _rollout_start(state: Any) -> int:
    assert isinstance(state, PenneechState)
    return state.deal_number


def _rollout_stop(state: Any, deal_no: int, steps: int) -> bool:
    return bool(state.deal_number != deal_no)


def _rollout_value(state: Any) -> list[float]:
    """docs/rules/penneech.md, Winning: +1/-1 returns, estimated from the race to the target."""
    s0, s1 = state.scores()
    options = state.game.options
    if options.objective == "deal":
        d = float(s0 - s1)
        return [d, -d]
    p = race(s0, s1, options.target)
    return [2.0 * p - 1.0, 1.0 - 2.0 * p]


def _rollout_policy(state: Any, legal: list[int], rng: random.Random) -> int:
    """A cheap playout policy that reads both hands (a perfect-information rollout in a sampled world)."""
    led = state._led
    if legal[0] >= 52:
        return legal[below(rng, len(legal))]
    trump = state._trump  # the last turn-up's suit (rules.trump_of)
    if led < 0:
        # Lead a card the opponent cannot beat when there is one, else the lowest plain card.
        if unit(rng) < 0.25:
            return legal[below(rng, len(legal))]
        row = state._points[trump]
        other = state._hands[1 - state._cur]
        beaters = BEATERS[trump]
        for c in sorted(legal, key=lambda c: -row[c]):
            if other & beaters[c]:  # the opponent holds a card that would beat it (rules.beats)
                continue
            return c
        return min(legal, key=lambda c: (row[c], c // 13 == trump, POWER[c]))
    row = state._points[trump]
    beat = BEATERS[trump][led]
    winners = [c for c in legal if beat >> c & 1]
    if winners and (row[led] or unit(rng) < 0.6):
        return min(winners, key=lambda c: (row[c] == 0, POWER[c]))
    return min(legal, key=lambda c: (row[c], POWER[c]))


ROLLOUT = RolloutModel(_rollout_start, _rollout_stop, _rollout_value, _rollout_policy)
