"""Uncertainty of a reproduced figure: its estimate with an interval, over trials (bootstrap) or over seeds.

A figure computed from random trials, or from one random sample, is reported with the interval a reader needs to
judge it, and a claim is graded on that interval, never on one draw (:mod:`evalkit.claims.rules`):

* :func:`bootstrap_interval`: percentile bootstrap over independent trials (Efron & Tibshirani 1993, ch. 13); the
  statistic is computed on every resample at once, from a (resamples x trials) index matrix;
* :func:`ratio_interval`: the same for a ratio pooled over trials (sum of numerators over sum of denominators,
  e.g. accuracy over all pairs of all trials, or W-bar), resampling whole trials (a cluster bootstrap: pairs of one
  trial are not independent);
* :func:`paired_difference_interval`: the mean difference of two figures measured on the same trials;
* :func:`spread_interval`: the median and central range of a figure over seeds (each seed one draw of the whole
  experiment, e.g. one random sample of a judgment set), for figures that are one number per seed.

Every resampling takes ``seed``; the same seed gives the same interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["Interval", "bootstrap_interval", "ratio_interval", "paired_difference_interval", "spread_interval",
           "N_RESAMPLES", "LEVEL"]

#: bootstrap resamples (percentile intervals need ~2,000 for stable 2.5% tails)
N_RESAMPLES = 2000
#: the default confidence level of every interval
LEVEL = 0.95


@dataclass(frozen=True)
class Interval:
    """An estimate with its interval: ``low`` <= ``high``, at ``level`` (e.g. 0.95), found by ``method`` (words:
    "bootstrap over 300 trials", "range over 20 seeds") from ``n`` trials or seeds."""

    estimate: float
    low: float
    high: float
    level: float = LEVEL
    method: str = ""
    n: int = 0

    def __post_init__(self):
        if not (math.isnan(self.low) or math.isnan(self.high)) and self.low > self.high:
            raise ValueError(f"an interval's low end {self.low} is above its high end {self.high}")

    @property
    def finite(self) -> bool:
        return all(math.isfinite(v) for v in (self.estimate, self.low, self.high))

    def text(self, fmt: str = ".3f") -> str:
        """``-4.03 [-7.00, -1.50] (95% bootstrap over 300 trials)``."""
        how = f"{self.level:.0%} {self.method}".strip() if self.method else f"{self.level:.0%}"
        return f"{self.estimate:{fmt}} [{self.low:{fmt}}, {self.high:{fmt}}] ({how})"

    def bounds(self, fmt: str = ".3f") -> str:
        """``[-7.00, -1.50]``."""
        return f"[{self.low:{fmt}}, {self.high:{fmt}}]"

    def __str__(self) -> str:
        return self.text()


def _rng(seed) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _percentiles(values: np.ndarray, level: float) -> tuple[float, float]:
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.nanpercentile(values, [tail, 100.0 - tail])
    return float(low), float(high)


def _check_level(level: float) -> None:
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")


def bootstrap_interval(values, statistic: Callable | str = "mean", level: float = LEVEL,
                       n_resamples: int = N_RESAMPLES, seed=0, unit: str = "trials") -> Interval:
    """Percentile bootstrap of ``statistic`` over independent ``values`` (one a trial).

    ``statistic``: ``"mean"``, ``"median"`` or a function ``f(array, axis=1)`` reducing each row of a (resamples x
    n) array (numpy reductions such as ``np.mean`` qualify). The estimate is the statistic of ``values`` itself.
    NaN values are dropped first (a trial that could not compute the figure is not a draw of it).
    """
    _check_level(level)
    x = np.asarray(values, dtype=np.float64).ravel()
    x = x[~np.isnan(x)]
    reduce = {"mean": np.mean, "median": np.median}.get(statistic, statistic) if isinstance(statistic, str) \
        else statistic
    if not callable(reduce):
        raise ValueError(f"statistic must be 'mean', 'median' or a function, got {statistic!r}")
    method = f"bootstrap over {len(x)} {unit}"
    if len(x) == 0:
        return Interval(math.nan, math.nan, math.nan, level, method, 0)
    estimate = float(reduce(x[None, :], axis=1)[0])
    if len(x) == 1:
        return Interval(estimate, math.nan, math.nan, level, method, 1)
    index = _rng(seed).integers(0, len(x), size=(n_resamples, len(x)))
    low, high = _percentiles(reduce(x[index], axis=1), level)
    return Interval(estimate, min(low, estimate), max(high, estimate), level, method, len(x))


def ratio_interval(numerators, denominators, level: float = LEVEL, n_resamples: int = N_RESAMPLES, seed=0,
                   unit: str = "trials") -> Interval:
    """sum(numerators) / sum(denominators) with a bootstrap interval that resamples whole trials (one numerator and
    one denominator a trial: e.g. correct pairs and pairs of each trial, or the sum of W and the pairs)."""
    _check_level(level)
    num = np.asarray(numerators, dtype=np.float64).ravel()
    den = np.asarray(denominators, dtype=np.float64).ravel()
    if num.shape != den.shape:
        raise ValueError(f"numerators and denominators differ in length: {num.size} vs {den.size}")
    keep = ~(np.isnan(num) | np.isnan(den)) & (den != 0)
    num, den = num[keep], den[keep]
    method = f"bootstrap over {len(num)} {unit}"
    if len(num) == 0 or den.sum() == 0:
        return Interval(math.nan, math.nan, math.nan, level, method, 0)
    estimate = float(num.sum() / den.sum())
    if len(num) == 1:
        return Interval(estimate, math.nan, math.nan, level, method, 1)
    index = _rng(seed).integers(0, len(num), size=(n_resamples, len(num)))
    ratios = num[index].sum(axis=1) / den[index].sum(axis=1)
    low, high = _percentiles(ratios, level)
    return Interval(estimate, min(low, estimate), max(high, estimate), level, method, len(num))


def paired_difference_interval(first, second, level: float = LEVEL, n_resamples: int = N_RESAMPLES, seed=0,
                               unit: str = "trials") -> Interval:
    """mean(first - second) over the same trials, with a bootstrap interval (trials resampled in pairs)."""
    a = np.asarray(first, dtype=np.float64).ravel()
    b = np.asarray(second, dtype=np.float64).ravel()
    if a.shape != b.shape:
        raise ValueError(f"paired figures differ in length: {a.size} vs {b.size}")
    return bootstrap_interval(a - b, "mean", level, n_resamples, seed, unit)


def spread_interval(values, level: float = LEVEL, unit: str = "seeds") -> Interval:
    """The median of ``values`` (one per seed) and their central ``level`` range (empirical quantiles; with fewer
    than 1 / (1 - level) seeds, that is the whole range, and the method says so)."""
    _check_level(level)
    x = np.asarray(values, dtype=np.float64).ravel()
    x = x[~np.isnan(x)]
    if len(x) == 0:
        return Interval(math.nan, math.nan, math.nan, level, f"over 0 {unit}", 0)
    whole = len(x) < 1.0 / (1.0 - level)
    low, high = (float(x.min()), float(x.max())) if whole else _percentiles(x, level)
    method = f"range over {len(x)} {unit}" if whole else f"central range over {len(x)} {unit}"
    return Interval(float(np.median(x)), low, high, level, method, len(x))
