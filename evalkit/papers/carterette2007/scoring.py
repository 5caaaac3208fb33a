"""Carterette (2007), the scoring of a prediction (Sec. 4.4) and its uncertainty over trials: a pair's confidence
bin (:func:`confidence_bins`), the bookmaker's winnings W (:func:`winnings`), accuracy and W-bar per bin
(:func:`binned`); and the same per trial (:func:`trial_tallies`), the unit every interval resamples (the pairs of one
trial share its judgments, so they are not independent): W-bar, accuracy, per-bin accuracy and share with a 95%
bootstrap interval that resamples whole trials (:func:`evalkit.stats.ratio_interval`), per-trial statistics
(tau, judgments) and paired differences (:func:`evalkit.stats.bootstrap_interval`,
:func:`evalkit.stats.paired_difference_interval`), and any statistic of whole trials (:func:`statistic_interval`).
Pure functions of the per-pair / per-trial DataFrames of
:class:`~evalkit.papers.carterette2007.experiment.ExperimentResults`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalkit.papers.carterette2007.experiment import ExperimentResults
from evalkit.papers.carterette2007.paper import BIN_EDGES
from evalkit.stats import Interval, bootstrap_interval, paired_difference_interval, ratio_interval

#: the seed of every bootstrap interval of this package (the intervals resample trials; a fixed seed makes the
#: same results give the same intervals)
INTERVAL_SEED = 0


def confidence_bins(confidence, edges=BIN_EDGES) -> np.ndarray:
    """Bin index of each confidence in [0.5, 1]: left-closed bins, the last one closed on both sides."""
    confidence = np.asarray(confidence, np.float64)
    index = np.searchsorted(np.asarray(edges), confidence, side="right") - 1
    return np.clip(index, 0, len(edges) - 2)


def predictions(p_negative, true_delta):
    """(confidence, correct, usable) for P(dMAP < 0) against the true dMAP: the predicted sign is 'dMAP < 0' when
    P >= 0.5, its confidence max(P, 1 - P), right when the true dMAP has that sign; pairs whose true dMAP is 0 are
    not usable."""
    p = np.asarray(p_negative, np.float64)
    truth = np.asarray(true_delta, np.float64)
    says_negative = p >= 0.5
    confidence = np.where(says_negative, p, 1.0 - p)
    correct = np.where(says_negative, truth < 0, truth > 0)
    usable = truth != 0
    return confidence, correct, usable


def winnings(confidence, correct, cap: float = 100.0) -> np.ndarray:
    """W_i = (y_i - P_i) / (1 - P_i) for the bookmaker of Sec. 4.4, -W capped at ``cap`` (0 when P = 1, y = 1)."""
    p = np.asarray(confidence, np.float64)
    y = np.asarray(correct, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(p < 1.0, (y - p) / (1.0 - p), np.where(y > 0, 0.0, -np.inf))
    return np.maximum(w, -cap)


def binned(p_negative, true_delta, edges=BIN_EDGES):
    """Per confidence bin (``edges``) of the predictions P(dMAP < 0) against the true dMAP (pairs whose true dMAP
    is 0 left out): (share of pairs, accuracy, pairs, mean confidence) as arrays, and W-bar over all the pairs."""
    confidence, correct, usable = predictions(p_negative, true_delta)
    confidence, correct = confidence[usable], correct[usable]
    index = confidence_bins(confidence, edges)
    n_bins = len(edges) - 1
    counts = np.bincount(index, minlength=n_bins)
    hits = np.bincount(index, weights=correct, minlength=n_bins)
    sums = np.bincount(index, weights=confidence, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = np.where(counts > 0, hits / np.maximum(counts, 1), np.nan)
        mean_confidence = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    share = counts / max(counts.sum(), 1)
    w_bar = float(winnings(confidence, correct).mean()) if len(confidence) else np.nan
    return share, accuracy, counts, mean_confidence, w_bar


def trial_tallies(pairs: pd.DataFrame, algorithm: str, edges=BIN_EDGES, mask=None) -> dict:
    """Per trial (the unit every interval resamples: the pairs of one trial share its judgments), for the
    predictions of ``algorithm`` ("mtc", "rtc") on the pairs selected by ``mask`` (default all; pairs whose true
    dMAP is 0 are left out): ``trials`` the trial ids (every trial of ``pairs``, also those with no selected pair),
    ``counts`` and ``hits`` (trials x bins) pairs and right predictions per confidence bin, ``pairs`` and ``right``
    (trials,), ``w`` the sum of W_i (:func:`winnings`) and ``w_capped`` the same with the confidence capped at
    0.95 (the paper's "hack", Sec. 6)."""
    confidence, correct, usable = predictions(pairs[f"p_{algorithm}"], pairs["true_delta"])
    if mask is not None:
        usable = usable & np.asarray(mask, bool)
    trial_ids = pairs["trial"].to_numpy()
    trials = np.unique(trial_ids)
    row = np.searchsorted(trials, trial_ids)[usable]
    confidence, correct = confidence[usable], correct[usable].astype(np.float64)
    n_bins = len(edges) - 1
    flat = row * n_bins + confidence_bins(confidence, edges)
    size = len(trials) * n_bins
    counts = np.bincount(flat, minlength=size).reshape(len(trials), n_bins).astype(np.float64)
    hits = np.bincount(flat, weights=correct, minlength=size).reshape(len(trials), n_bins)
    per_trial = lambda values: np.bincount(row, weights=values, minlength=len(trials))  # noqa: E731
    return {"trials": trials, "counts": counts, "hits": hits, "pairs": counts.sum(axis=1), "right": hits.sum(axis=1),
            "w": per_trial(winnings(confidence, correct)),
            "w_capped": per_trial(winnings(np.minimum(confidence, 0.95), correct))}


def binned_sums(pairs: pd.DataFrame, algorithm: str) -> tuple[float, int]:
    """(sum of W_i, usable pairs) of ``algorithm``'s predictions: W-bar is their ratio."""
    tally = trial_tallies(pairs, algorithm)
    return float(tally["w"].sum()), int(tally["pairs"].sum())


def w_bar_interval(results: ExperimentResults, algorithm: str = "rtc", mask=None, capped: bool = False,
                   seed: int = INTERVAL_SEED) -> Interval:
    """W-bar of ``algorithm`` (over the pairs ``mask`` selects; ``capped``: the confidence capped at 0.95) with a
    95% bootstrap interval that resamples whole trials (:func:`evalkit.stats.ratio_interval`)."""
    tally = trial_tallies(results.pairs, algorithm, mask=mask)
    return ratio_interval(tally["w_capped" if capped else "w"], tally["pairs"], seed=seed)


def accuracy_interval(results: ExperimentResults, algorithm: str = "rtc", mask=None,
                      seed: int = INTERVAL_SEED) -> Interval:
    """The share of right predictions over the pairs ``mask`` selects, resampling whole trials."""
    tally = trial_tallies(results.pairs, algorithm, mask=mask)
    return ratio_interval(tally["right"], tally["pairs"], seed=seed)


def bin_intervals(results: ExperimentResults, algorithm: str = "rtc", edges=BIN_EDGES, what: str = "accuracy",
                  mask=None, seed: int = INTERVAL_SEED) -> list:
    """Per confidence bin, the accuracy (``what="accuracy"``) or the share of pairs (``"share"``) with its interval
    over trials (a bin no pair falls in: NaN)."""
    tally = trial_tallies(results.pairs, algorithm, edges, mask)
    if what == "accuracy":
        return [ratio_interval(tally["hits"][:, b], tally["counts"][:, b], seed=seed) for b in range(len(edges) - 1)]
    if what == "share":
        return [ratio_interval(tally["counts"][:, b], tally["pairs"], seed=seed) for b in range(len(edges) - 1)]
    raise ValueError(f"what must be 'accuracy' or 'share', got {what!r}")


def trial_interval(results: ExperimentResults, column: str, statistic: str = "mean",
                   seed: int = INTERVAL_SEED) -> Interval:
    """A per-trial column (``tau_rtc``, ``judged_mtc``, ...) summarized by ``statistic`` ("mean", "median") with
    its bootstrap interval over trials."""
    return bootstrap_interval(results.trials[column].astype(float), statistic, seed=seed)


def paired_interval(results: ExperimentResults, first: str, second: str, statistic: str = "mean",
                    seed: int = INTERVAL_SEED) -> Interval:
    """``statistic`` of per-trial column ``first`` minus that of ``second`` over the same trials, the trials
    resampled in pairs: the mean difference (:func:`evalkit.stats.paired_difference_interval`) or the difference of
    the medians."""
    a = results.trials[first].to_numpy(np.float64)
    b = results.trials[second].to_numpy(np.float64)
    keep = ~(np.isnan(a) | np.isnan(b))
    a, b = a[keep], b[keep]
    if statistic == "mean":
        return paired_difference_interval(a, b, seed=seed)
    return statistic_interval(lambda idx: np.median(a[idx], axis=1) - np.median(b[idx], axis=1), len(a), seed)


def statistic_interval(statistic, n_trials: int, seed: int = INTERVAL_SEED) -> Interval:
    """A statistic of whole trials with its bootstrap interval: ``statistic(index)`` maps a (resamples x trials)
    matrix of trial indices to one value a row (e.g. a ratio of two pooled ratios); the trial indices are the values
    :func:`evalkit.stats.bootstrap_interval` resamples."""
    import warnings

    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # a statistic undefined on some resamples (no pair in a group)
        return bootstrap_interval(np.arange(n_trials), lambda idx, axis=1: statistic(np.asarray(idx, np.int64)),
                                  seed=seed)


def bounds(intervals, fmt: str = ".3f") -> list:
    """Each interval's ``[low, high]`` as text ('' where it is not finite), for a table's interval column."""
    return [i.bounds(fmt) if i.finite else "" for i in intervals]
