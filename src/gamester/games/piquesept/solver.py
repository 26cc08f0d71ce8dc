"""Piquesept: the rest of a deal solved exactly in one sampled world.

The soloist plays against the defenders as one side, so the deal is a two-sided game over card
points: the soloist maximises the points his tricks will still take, the defenders minimise them.
Alpha-beta with a transposition table keyed by every hand, the trick so far and the seat to play;
values are the points still to come, so the table does not depend on the points already taken. Rules
follow ``games/piquesept/game.py`` (docs/rules/piquesept.md, The remaining tricks; Scoring).

A world's value for a seat is its return for the deal — ``+-(players - 1)`` for the soloist, ``-+1``
for a defender, 0 for 65-65 — plus a hundredth of its side's card points as a tie-breaker; since
the return only grows with the soloist's points, maximising points is maximising the return.
"""

from __future__ import annotations

import random
from typing import Any

from gamester.core.kit import View
from gamester.games.piquesept.game import (
    FIRST,
    GIVE,
    PLAY,
    PTS,
    SPADES,
    SUIT_MASK,
    TOTAL_POINTS,
    VAL,
    WIN_POINTS,
    PiqueseptState,
)

INF = 10_000


def fixed_choice(view: View, legal: list[int], rng: random.Random) -> int | None:
    """The first trick leaves a defender at most a choice between equally high cards of different
    suits: shed the one from the shortest suit (a void lets him trump later)."""
    obs = view.observation()
    if obs["phase"] != "first_trick":
        return None
    hand = [view.string_to_action(c) for c in obs["hand"]]
    length = {s: sum(1 for a in hand if a >> 3 == s) for s in range(4)}
    return min(legal, key=lambda a: (length[a >> 3], a))


def as_probability(value: float, view: View) -> float | None:
    """The averaged return mapped to [0, 1] (a return of +-1 per defender, +-(n-1) for the soloist)."""
    obs = view.observation()
    scale = (obs["players"] - 1) if view.player == obs["soloist"] else 1
    return max(0.0, min(1.0, 0.5 + 0.5 * value / scale))


def deal_return(points: int, is_soloist: bool, n: int) -> float:
    """docs/rules/piquesept.md, Scoring."""
    sign = 1 if points >= WIN_POINTS else 0 if 2 * points == TOTAL_POINTS else -1
    side = points if is_soloist else TOTAL_POINTS - points
    return (sign * (n - 1) if is_soloist else -sign) + side / 100.0


def solve_actions(world: Any, me: int) -> dict[int, float]:
    """The value, for ``me``, of every legal action of ``world`` (a determinized state)."""
    assert isinstance(world, PiqueseptState)
    n = world._n
    is_solo = me == world._soloist
    out: dict[int, float] = {}
    solver = Solver(world)
    for a in world.legal_actions():
        w = world.clone()
        w.apply_action(a)
        if w._phase == PLAY and w._deal_no == world._deal_no:
            points = solver.outcome_points(w)
        else:
            # The deal ended with this card (its last trick): the points are counted.
            points = w._past[-1][6] if w._deal_no != world._deal_no else w._taken[w._soloist]
        out[a] = deal_return(points, is_solo, n)
    return out


class Solver:
    """Alpha-beta over the remaining cards of a deal in play; ``nodes`` counts positions searched."""

    def __init__(self, world: PiqueseptState) -> None:
        self.nodes = 0
        self.tt: dict[tuple[Any, ...], list[int]] = {}
        self.n = world._n
        self.nxt = world._next
        self.solo = world._soloist

    def outcome_points(self, w: PiqueseptState) -> int:
        """The soloist's final points as far as the result needs them: 66 if he can reach 66, 65 if
        he can reach exactly a draw, else 0 — two null-window searches instead of an exact score
        (a hundred times faster, and the tie-breaker in ``deal_return`` is then only coarse)."""
        taken = w._taken[w._soloist]
        for need in (WIN_POINTS, TOTAL_POINTS - WIN_POINTS + 1):
            want = need - taken
            if want <= 0:
                return need
            v = self.search(
                list(w._hands), tuple(w._trick), w._leader, w._cur, w._led, w._best, w._bseat, want - 1, want
            )
            if v >= want:
                return need
        return taken

    def future(self, w: PiqueseptState) -> int:
        """The soloist's points still to come from ``w`` (phase PLAY), both sides playing perfectly."""
        assert w._phase not in (FIRST, GIVE)
        return self.search(
            list(w._hands), tuple(w._trick), w._leader, w._cur, w._led, w._best, w._bseat, -INF, INF
        )

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
        # docs/rules/piquesept.md, The remaining tricks: a defender follows suit, else trumps, else plays
        # anything.
        legal = (hand & SUIT_MASK[led] or hand & SPADES or hand) if trick and cur != solo else hand
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
                    pts = sum(map(PTS.__getitem__, t2))
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
