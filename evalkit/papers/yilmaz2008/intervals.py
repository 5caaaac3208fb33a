"""Yilmaz, Kanoulas & Aslam 2008: the uncertainty of every reproduced figure (:mod:`evalkit.stats.intervals`).

A figure that comes from random samples is reported, and graded, with its interval, never from one draw:

* over the **trials** of the validation (coverage of the intervals, the bias of infAP, the ratio of the empirical to
  the estimated sd, smoothing's effect on the variance) and of the sweeps (Figures 3-4: how much xinfAP beats its
  rivals, infNDCG's bias): a percentile bootstrap over trials (:func:`evalkit.stats.bootstrap_interval`);
  statistics of a run's spread over the trials (an sd) are recomputed on every resample through the trials'
  resampling weights (:func:`trial_weights`);
* over the **blocks** of the validation (the KS test's pass rate: each block of 100 samples is one repetition of
  the paper's experiment): the spread over blocks (:func:`evalkit.stats.spread_interval`);
* over the **seeds** of Figure 2 (one depth-k + random sample each): the spread over seeds.

Every resampling takes a seed (the notebook's); the same seed gives the same interval.
"""

from __future__ import annotations

import hashlib
import warnings
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from evalkit.papers.yilmaz2008.experiment import (
    DEFAULT_SEED,
    CIValidation,
    Figure2Trials,
    Sweep,
)
from evalkit.papers.yilmaz2008.tables import coverage_per_trial, ks_blocks
from evalkit.stats.intervals import (
    Interval,
    bootstrap_interval,
    paired_difference_interval,
    spread_interval,
)

#: an interval over trials needs at least this many (a percentile bootstrap of fewer says little)
MIN_TRIALS = 10
#: an sd estimated from n samples is off by about 1/sqrt(2n): 10% (the 'comparable' margin) at n = 50, so a ratio of
#: sds is rated from this many samples on
MIN_SD_SAMPLES = 50
#: a spread over seeds needs at least this many seeds (the paper preset runs 20)
MIN_SEEDS = 5
#: a KS pass rate is the paper's only with blocks of this many samples (its 100); fewer cannot reject
PAPER_BLOCK = 100
#: and its spread needs at least this many blocks (repetitions of the paper's experiment)
MIN_BLOCKS = 2


_WEIGHTS: dict[tuple, np.ndarray] = {}


def trial_weights(index: np.ndarray, n: int) -> np.ndarray:
    """(resamples, n) how often each of the ``n`` trials is drawn in each bootstrap resample, from the (resamples,
    n) index matrix the bootstrap draws. The last few matrices are kept (the same seed draws the same index matrix
    for every figure of a validation)."""
    index = np.atleast_2d(index).astype(np.int64)
    key = (index.shape, n, hashlib.blake2b(index.tobytes(), digest_size=16).digest())
    hit = _WEIGHTS.get(key)
    if hit is not None:
        return hit
    weights = np.zeros((index.shape[0], n))
    rows = np.repeat(np.arange(index.shape[0]), index.shape[1])
    np.add.at(weights, (rows, index.ravel()), 1.0)
    if len(_WEIGHTS) >= 4:
        _WEIGHTS.pop(next(iter(_WEIGHTS)))
    _WEIGHTS[key] = weights
    return weights


def bootstrap_trials(n: int, statistic: Callable[[np.ndarray], np.ndarray], seed=DEFAULT_SEED,
                     unit: str = "trials") -> Interval:
    """Bootstrap interval over ``n`` trials of a statistic of the whole trial set: ``statistic(weights)`` gets the
    (resamples, n) resampling weights (one row of ones for the estimate) and returns one value per row."""
    return bootstrap_interval(np.arange(n), lambda index, axis=1: statistic(trial_weights(index, n)), seed=seed,
                              unit=unit)


_MEMO: dict[tuple, tuple] = {}


def _memo(validation: CIValidation, key: tuple, compute: Callable[[], Interval]) -> Interval:
    """An interval of ``validation`` computed once (the claims, the sensitivity table and the findings read the same
    intervals): keyed by the validation object and ``key``; the last few validations are kept."""
    full = (id(validation),) + key
    hit = _MEMO.get(full)
    if hit is not None and hit[0] is validation:
        return hit[1]
    if len({k[0] for k in _MEMO}) >= 3 and id(validation) not in {k[0] for k in _MEMO}:
        oldest = next(iter(_MEMO))[0]
        for k in [k for k in _MEMO if k[0] == oldest]:
            del _MEMO[k]
    interval = compute()
    _MEMO[full] = (validation, interval)
    return interval


def _median_over_runs(ratio: np.ndarray) -> np.ndarray:
    """(resamples,) median over the runs of each row, NaN for a row without a finite value (no warning)."""
    if np.isfinite(ratio).all():
        return np.median(ratio, axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmedian(ratio, axis=1)


def _weighted_sd(weights: np.ndarray, values: np.ndarray) -> np.ndarray:
    """(resamples, S) sd over trials (ddof 1) of (n, S) ``values`` under each row of resampling weights."""
    n = weights.sum(axis=1, keepdims=True)
    mean = weights @ values / n
    var = (weights @ (values * values) / n - mean * mean) * n / np.maximum(n - 1, 1)
    return np.sqrt(np.maximum(var, 0.0))


def _index(values: Sequence, value, what: str) -> int:
    try:
        return list(values).index(value)
    except ValueError:
        raise KeyError(f"{what} {value!r} not in this result ({list(values)})") from None


# ------------------------------------------------------------------------------------- the validation


def coverage_interval(validation: CIValidation, p: float, form: str, seed=DEFAULT_SEED) -> Interval:
    """The share of runs whose interval covers MAP, mean over the samples, with its bootstrap over samples."""
    def compute():
        per_trial = coverage_per_trial(validation)
        values = per_trial[(per_trial.p == p) & (per_trial.form == form)]["covered"]
        return bootstrap_interval(values, seed=seed, unit="samples")

    return _memo(validation, ("coverage", p, form, seed), compute)


def bias_interval(validation: CIValidation, p: float, seed=DEFAULT_SEED) -> Interval:
    """E[mean infAP] - MAP, averaged over runs, with its bootstrap over samples."""
    i = _index(validation.p_values, p, "p")
    per_trial = (validation.mean[:, i, :] - validation.map[None, :]).mean(axis=1)
    return _memo(validation, ("bias", p, seed), lambda: bootstrap_interval(per_trial, seed=seed, unit="samples"))


def sd_ratio_interval(validation: CIValidation, p: float, form: str, seed=DEFAULT_SEED) -> Interval:
    """Median over runs of (empirical sd of mean infAP over the samples) / (root mean estimated variance), minus 1
    (0 when the variance form is right; 0.25 = the true sd is 25% larger than the estimate), with its bootstrap
    over samples (both sds recomputed on every resample)."""
    i, j = _index(validation.p_values, p, "p"), _index(validation.forms, form, "form")
    mean, var = validation.mean[:, i, :], validation.sd[:, i, j, :] ** 2

    def statistic(weights):
        empirical = _weighted_sd(weights, mean)
        estimated = np.sqrt(weights @ var / weights.sum(axis=1, keepdims=True))
        ratio = np.divide(empirical, estimated, out=np.full(empirical.shape, np.nan), where=estimated > 0)
        return _median_over_runs(ratio) - 1.0

    return _memo(validation, ("sd ratio", p, form, seed),
                 lambda: bootstrap_trials(validation.trials, statistic, seed, "samples"))


def smoothing_variance_interval(validation: CIValidation, p: float, seed=DEFAULT_SEED) -> Interval:
    """Footnote 4: median over runs of (sd over the samples of mean infAP with trec_eval's smoothing) / (the same
    without smoothing) minus 1, with its bootstrap over samples."""
    if validation.unsmoothed is None:
        raise ValueError("this validation did not record infAP without smoothing (run ci_validation again)")
    i = _index(validation.p_values, p, "p")
    smoothed, plain = validation.mean[:, i, :], validation.unsmoothed[:, i, :]

    def statistic(weights):
        a, b = _weighted_sd(weights, smoothed), _weighted_sd(weights, plain)
        ratio = np.divide(a, b, out=np.full(a.shape, np.nan), where=b > 0)
        return _median_over_runs(ratio) - 1.0

    return _memo(validation, ("smoothing", p, seed),
                 lambda: bootstrap_trials(validation.trials, statistic, seed, "samples"))


def ks_interval(validation: CIValidation, p: float, form: str, column: str = "not rejected",
                alpha: float = 0.05) -> Interval:
    """A KS pass rate (``column``: "not rejected" or "not rejected (bias removed)") over the blocks: its median
    and range (or central 95% range from 20 blocks on)."""
    blocks = ks_blocks(validation, alpha)
    values = blocks[(blocks.p == p) & (blocks.form == form)][column]
    blocks = "block" if max(validation.blocks, 1) == 1 else "blocks"
    return spread_interval(values, unit=f"{blocks} of {validation.block_size} samples")


def validation_intervals(validation: CIValidation, forms: Sequence[str] | None = None, alpha: float = 0.05,
                         seed=DEFAULT_SEED) -> pd.DataFrame:
    """Every graded figure of the validation with its interval, one row per p, form and figure: estimate, low,
    high, how (bootstrap over samples, spread over blocks) and the :class:`~evalkit.stats.Interval` itself."""
    forms = list(validation.forms if forms is None else forms)
    rows = []

    def add(p, form, figure, interval):
        rows.append({"p": p, "form": form, "figure": figure, "estimate": interval.estimate, "low": interval.low,
                     "high": interval.high, "how": interval.method, "interval": interval})

    for p in validation.p_values:
        add(p, "", "bias (mean infAP - MAP)", bias_interval(validation, p, seed))
        if validation.unsmoothed is not None:
            add(p, "", "smoothing's effect on the sd (ratio - 1)", smoothing_variance_interval(validation, p, seed))
        for form in forms:
            add(p, form, "coverage of the 95% intervals", coverage_interval(validation, p, form, seed))
            add(p, form, "empirical / estimated sd - 1", sd_ratio_interval(validation, p, form, seed))
            add(p, form, "KS not rejected", ks_interval(validation, p, form, "not rejected", alpha))
            add(p, form, "KS not rejected (bias removed)",
                ks_interval(validation, p, form, "not rejected (bias removed)", alpha))
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------- figure 2


def figure2_interval(trials: Figure2Trials, k: int, statistic: str, smoothing: str | None = None) -> Interval:
    """A statistic of Figure 2 (``"mean error"``, ``"RMS"``, ``"tau"``, ``"rho"``, ``"RMS (unjudged)"``, ...) at
    depth k: its median and range over the seeds. ``smoothing``: one of the trials' (default the kit's, first)."""
    stats = trials.stats()
    smoothing = trials.smoothings[0] if smoothing is None else smoothing
    values = stats[(stats.k == int(k)) & (stats.smoothing == smoothing)]
    if statistic == "RMS (unjudged) - RMS (judged)":
        column = values["RMS (unjudged)"] - values["RMS (judged)"]
    else:
        column = values[statistic]
    return spread_interval(column, unit="seeds")


def figure2_spread(trials: Figure2Trials) -> pd.DataFrame:
    """Per k and smoothing: the median and range over seeds of the mean error, RMS, tau and rho of mean xinfAP
    against MAP, and of RMS / tau over the runs that did not build the pool (the pluses)."""
    stats = trials.stats()
    rows = []
    for (k, smoothing), g in stats.groupby(["k", "smoothing"], sort=False):
        row = {"k": k, "smoothing": smoothing, "seeds": len(g), "share": g["share"].iloc[0]}
        for column in ("mean error", "RMS", "tau", "rho", "RMS (judged)", "RMS (unjudged)", "tau (unjudged)"):
            interval = spread_interval(g[column], unit="seeds")
            row[column] = interval.estimate
            row[f"{column} range"] = interval.bounds(".4f" if column in ("mean error", "RMS") else ".3f")
        rows.append(row)
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------- figures 3 and 4


def tied_depths(sweep: Sweep, atol: float = 1e-4) -> list[int]:
    """The depths k at which every estimator gives every run the same mean (within ``atol``) in every trial: the
    design judged the whole pool, so each is the truth (tau 1 and RMS 0 for all) and there is nothing to compare.
    The tolerance is the smoothing constants' (1e-5 in (r + a)/(n + b)): on a fully judged pool they move xinfAP
    and infAP by less than 1e-4."""
    out = []
    for i, k in enumerate(sweep.depths):
        means = sweep.means[:, i]  # (trials, E, S)
        same = {}
        for e, measure in enumerate(sweep.measure_of):
            same.setdefault(measure, []).append(means[:, e])
        if len(means) and all(np.allclose(group[0], g, rtol=0, atol=atol) for group in same.values() for g in group):
            out.append(int(k))
    return out


def sweep_margins(sweep: Sweep, winner: str, losers: Sequence[str], statistics: Sequence[str] = ("tau", "rho", "RMS"),
                  seed=DEFAULT_SEED) -> pd.DataFrame:
    """Per k, rival and statistic: by how much ``winner`` beats the rival, over the sweep's trials (paired: the
    same trial's samples), with its bootstrap interval. tau and rho: winner - rival (positive = winner better);
    RMS: the rival's RMS minus the winner's (``RMS``), and the same relative to the rival's RMS (``RMS relative``:
    0.25 = the winner's error is 25% smaller). Columns: k, rival, statistic, estimate, low, high, interval."""
    stats = sweep.stats.copy()
    stats["estimator"] = stats["estimator"].astype(str)
    rows = []
    for k, g in stats.groupby("k", sort=False):
        w = g[g.estimator == winner].set_index("trial")
        for rival in losers:
            r = g[g.estimator == rival].set_index("trial").reindex(w.index)
            for statistic in statistics:
                if statistic == "RMS":
                    pairs = {"RMS": (r["RMS"].to_numpy(), w["RMS"].to_numpy())}
                    gain = np.divide(r["RMS"] - w["RMS"], r["RMS"], out=np.full(len(w), np.nan),
                                     where=r["RMS"].to_numpy() > 0)
                    pairs["RMS relative"] = (np.asarray(gain), np.zeros(len(w)))
                else:
                    pairs = {statistic: (w[statistic].to_numpy(), r[statistic].to_numpy())}
                for name, (a, b) in pairs.items():
                    interval = paired_difference_interval(a, b, seed=seed)
                    rows.append({"k": int(k), "rival": rival, "statistic": name, "estimate": interval.estimate,
                                 "low": interval.low, "high": interval.high, "interval": interval})
    return pd.DataFrame(rows)


def sweep_bias(sweep: Sweep, estimator: str, seed=DEFAULT_SEED) -> pd.DataFrame:
    """Per k: the mean over runs of ``estimator`` minus the truth (its bias), with its bootstrap over trials."""
    stats = sweep.stats
    rows = []
    for k, g in stats[stats.estimator.astype(str) == estimator].groupby("k", sort=False):
        interval = bootstrap_interval(g["mean error"], seed=seed)
        rows.append({"k": int(k), "estimate": interval.estimate, "low": interval.low, "high": interval.high,
                     "interval": interval})
    return pd.DataFrame(rows)
