"""Glicko-2 (Glickman, "Example of the Glicko-2 system", 2012), with weighted games.

A rating is (r, RD, σ): the estimate, its deviation (how unsure it is) and its volatility (how much it
is expected to move). :func:`update` is one rating period of the paper, with one change: every game
``j`` may carry a weight ``w_j`` (the sums for ``v`` and ``Δ`` weigh each game by it), so that one
table against three opponents can count as much as one table against one (docs/web.md, Ratings).
Pure arithmetic, no dependencies.

>>> p = update(1500, 200, 0.06, [(1400, 30, 1.0, 1.0), (1550, 100, 0.0, 1.0), (1700, 300, 0.0, 1.0)])
>>> round(p[0], 2), round(p[1], 2), round(p[2], 5)
(1464.05, 151.52, 0.06)
"""

from __future__ import annotations

import math

SCALE = 173.7178
"""Glicko-2 works on (r - 1500) / SCALE."""
TAU = 0.5
"""The system constant: how fast volatility may change (the paper suggests 0.3 to 1.2)."""
EPSILON = 0.000001


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(
    rating: float,
    deviation: float,
    volatility: float,
    games: list[tuple[float, float, float, float]],
    tau: float = TAU,
) -> tuple[float, float, float]:
    """The new (rating, deviation, volatility) after ``games``: (opponent rating, opponent deviation,
    score 1/0.5/0, weight). No games: only the deviation grows, by the volatility."""
    mu = (rating - 1500.0) / SCALE
    phi = deviation / SCALE
    if not games:
        return rating, min(350.0, math.sqrt(phi * phi + volatility * volatility) * SCALE), volatility
    inv_v = 0.0
    total = 0.0
    for r_j, rd_j, score, w in games:
        mu_j, phi_j = (r_j - 1500.0) / SCALE, rd_j / SCALE
        g = _g(phi_j)
        e = _expected(mu, mu_j, phi_j)
        inv_v += w * g * g * e * (1.0 - e)
        total += w * g * (score - e)
    v = 1.0 / inv_v
    delta = v * total
    sigma = _volatility(phi, volatility, v, delta, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * total
    return 1500.0 + SCALE * mu_new, min(350.0, SCALE * phi_new), sigma


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5 of the paper: the root of f by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        d = phi * phi + v + ex
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(100):
        if abs(big_b - big_a) <= EPSILON:
            break
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)
