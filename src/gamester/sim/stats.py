"""The statistics the simulations share: 95% intervals for means, shares and anything else.

A normal interval for a mean of independent values (:func:`mean_ci`, :func:`mean_normal`), Wilson's
score interval for a share (:func:`wilson`), and a seeded percentile bootstrap where no formula fits
(:func:`bootstrap`). ``gamester.sim.metrics`` (analysis) and ``gamester.sim.standings``
(tournaments) both use these; each name is still importable from where it was.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from gamester.core.rng import below, make_rng

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""
BOOTSTRAP = 1000
"""Resamples of :func:`bootstrap`."""

T = TypeVar("T")


def mean_ci(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and a normal-approximation 95% interval ``(mean, low, high)`` of independent values; NaNs
    when there are none, the value itself for one."""
    n = len(values)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    m = sum(values) / n
    if n == 1:
        return (m, m, m)
    var = sum((v - m) ** 2 for v in values) / (n - 1)
    h = Z95 * math.sqrt(var / n)
    return (m, m - h, m + h)


Interval = dict[str, Any]


def interval(value: float | None, lo: float | None, hi: float | None) -> Interval:
    def clean(x: float | None) -> float | None:
        return None if x is None or math.isnan(x) else round(float(x), 6)

    return {"value": clean(value), "ci": [clean(lo), clean(hi)]}


def wilson(successes: float, n: int) -> Interval:
    """A share with Wilson's 95% score interval (good near 0 and 1, where the normal one fails)."""
    if n == 0:
        return interval(None, None, None)
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return interval(p, max(0.0, centre - half), min(1.0, centre + half))


def mean_normal(values: Sequence[float]) -> Interval:
    """A mean of independent values with the normal 95% interval (:func:`mean_ci`, as JSON)."""
    return interval(*mean_ci(values))


def bootstrap(
    items: Sequence[T],
    statistic: Callable[[Sequence[T]], float | None],
    seed: int = 0,
    resamples: int = BOOTSTRAP,
) -> Interval:
    """``statistic`` of the items with a percentile bootstrap 95% interval (items resampled whole)."""
    if not items:
        return interval(None, None, None)
    value = statistic(items)
    if value is None:
        return interval(None, None, None)
    rng = make_rng(seed)
    n = len(items)
    stats = []
    for _ in range(resamples):
        v = statistic([items[below(rng, n)] for _ in range(n)])
        if v is not None:
            stats.append(v)
    if not stats:
        return interval(value, None, None)
    stats.sort()
    lo = stats[int(0.025 * (len(stats) - 1))]
    hi = stats[int(math.ceil(0.975 * (len(stats) - 1)))]
    return interval(value, min(lo, value), max(hi, value))
