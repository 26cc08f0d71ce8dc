"""Piquesept: the rest of a deal solved exactly in one sampled world.

The soloist plays against the defenders as one side, so the deal is a two-sided game over card
points: the soloist maximises the points his tricks will still take, the defenders minimise them.
Alpha-beta with a transposition table keyed by every hand, the trick so far and the seat to play;
values are the points still to come, so the table does not depend on the points already taken. The
rules are ``rules.py``'s (``playable``, ``VAL``, ``trick_points``,
``seat_return``; docs/rules/piquesept.md, The remaining tricks; Scoring), and a world is read through
its ``world_view()``.

A world's value for a seat is its return for the deal — ``+-(players - 1)`` for the soloist, ``-+1``
for a defender, 0 for 65-65 — plus a hundredth of its side's card points as a tie-breaker; since
the return only grows with the soloist's points, maximising points is maximising the return.
"""

from __future__ import annotations

import random
from typing import Any

from gamester.core.kit import View
from gamester.core.protocol import State
from gamester.games.piquesept.game import FIRST, GIVE, PLAY, PiqueseptState
from gamester.games.piquesept.heuristic import shed_first
from gamester.games.piquesept.rules import (
    RESULT_STEPS,
    TOTAL_POINTS,
    VAL,
    playable,
    seat_return,
    trick_points,
)
from gamester.games.piquesept.worlds import PiqueseptWorld

INF = 10_000


def fixed_choice(view: View, legal: list[int], rng: random.Random) -> int | None:
    """The first trick leaves a defender at most a choice between equally high cards of different
    suits: the heuristic's (``heuristic.shed_first``)."""
    obs = view.observation()
    if obs["phase"] != "first_trick":
        return None
    hand = 0
    for c in obs["hand"]:
        hand |= 1 << view.string_to_action(c)
    return shed_first(hand, legal)


def as_probability(value: float, view: View) -> float | None:
    """The averaged return mapped to [0, 1] (a return of +-1 per defender, +-(n-1) for the soloist)."""
    obs = view.observation()
    scale = (obs["players"] - 1) if view.player == obs["soloist"] else 1
    return max(0.0, min(1.0, 0.5 + 0.5 * value / scale))


def deal_return(points: int, is_soloist: bool, n: int) -> float:
    """The seat's return for the deal (``rules.seat_return``, docs/rules/piquesept.md, Scoring) plus
    a hundredth of its side's card points as a tie-breaker."""
    side = points if is_soloist else TOTAL_POINTS - points
    return seat_return(points, is_soloist, n) + side / 100.0


def solve_actions(world: State, me: int) -> dict[int, float]:
    """The value, for ``me``, of every legal action of ``world`` (a determinized state)."""
    assert isinstance(world, PiqueseptState)
    root = world.world_view()
    is_solo = me == root.soloist
    out: dict[int, float] = {}
    solver = Solver(root)
    for a in world.legal_actions():
        w = world.clone()
        w.apply_action(a)
        v = w.world_view()
        if v.phase == PLAY and v.deal == root.deal:
            points = solver.outcome_points(v)
        else:
            # The deal ended with this card (its last trick): the points are counted.
            points = v.last_deal_points if v.deal != root.deal else v.taken[v.soloist]
        out[a] = deal_return(points, is_solo, root.players)
    return out


class Solver:
    """Alpha-beta over the remaining cards of a deal in play; ``nodes`` counts positions searched."""

    def __init__(self, world: PiqueseptWorld) -> None:
        self.nodes = 0
        self.tt: dict[tuple[Any, ...], list[int]] = {}
        n = world.players
        self.n = n
        # docs/rules/piquesept.md, Seats and dealing: seats are numbered clockwise.
        self.nxt = tuple((s + 1) % n for s in range(n))
        self.solo = world.soloist

    def outcome_points(self, w: PiqueseptWorld) -> int:
        """The soloist's final points as far as the result needs them: 66 if he can reach 66, 65 if
        he can reach exactly a draw, else what he holds (``rules.RESULT_STEPS``) — two null-window
        searches instead of an exact score (a hundred times faster, and the tie-breaker in
        ``deal_return`` is then only coarse)."""
        taken = w.taken[w.soloist]
        for need in RESULT_STEPS:
            want = need - taken
            if want <= 0:
                return need
            v = self.search(
                list(w.hands), w.trick, w.leader, w.current, w.led, w.best, w.winner, want - 1, want
            )
            if v >= want:
                return need
        return taken

    def future(self, w: PiqueseptWorld) -> int:
        """The soloist's points still to come from ``w`` (phase PLAY), both sides playing perfectly."""
        assert w.phase not in (FIRST, GIVE)
        return self.search(list(w.hands), w.trick, w.leader, w.current, w.led, w.best, w.winner, -INF, INF)

    def search(
        self,
        hands: list[int],
        trick: tuple[int, ...],
        leader: int,
        cur: int,
        led: int,
        best: int,
        bseat: int,
        alpha: int,
        beta: int,
    ) -> int:
        self.nodes += 1
        if not any(hands) and not trick:
            return 0
        key = (tuple(hands), trick, cur)
        tt = self.tt
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
            alpha = max(alpha, lo)
            beta = min(beta, hi)
        a0, b0 = alpha, beta
        solo = self.solo
        hand = hands[cur]
        legal = playable(hand, led if trick else -1, cur == solo)
        moves = []
        m = legal
        while m:
            low = m & -m
            moves.append(low.bit_length() - 1)
            m ^= low
        if bm in moves:
            moves.remove(bm)
            moves.insert(0, bm)
        maximize = cur == solo
        bestv = -INF if maximize else INF
        best_move = moves[0]
        n = self.n
        nxt = self.nxt[cur]
        for c in moves:
            hands[cur] = hand ^ (1 << c)
            if not trick:
                ls = c >> 3
                v = self.search(hands, (c,), cur, nxt, ls, VAL[ls][c], cur, alpha, beta)
            else:
                val = VAL[led][c]
                if val > best:
                    nb, ns = val, cur
                else:
                    nb, ns = best, bseat
                t2 = trick + (c,)
                if len(t2) == n:
                    pts = trick_points(t2)
                    rest = self.search(
                        hands,
                        (),
                        ns,
                        ns,
                        -1,
                        -1,
                        ns,
                        alpha - (pts if ns == solo else 0),
                        beta - (pts if ns == solo else 0),
                    )
                    v = rest + (pts if ns == solo else 0)
                else:
                    v = self.search(hands, t2, leader, nxt, led, nb, ns, alpha, beta)
            if maximize:
                if v > bestv:
                    bestv, best_move = v, c
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
            else:
                if v < bestv:
                    bestv, best_move = v, c
                    if v < beta:
                        beta = v
                        if alpha >= beta:
                            break
        hands[cur] = hand
        lo, hi = (-INF, INF) if e is None else (e[0], e[1])
        if bestv <= a0:
            hi = min(hi, bestv)
        elif bestv >= b0:
            lo = max(lo, bestv)
        else:
            lo = hi = bestv
        tt[key] = [lo, hi, best_move]
        return bestv
