"""Lu, Moffat and Culpepper (2017): the uncertainty of the kit's figures, for the claims to be rated on an interval.

Table 2, Figure 3 and Figure 4 involve no random draw: every run is scored on every topic. Their uncertainty is
that of the topic set, a sample of the topics a collection could have had, so each figure's interval is a
percentile bootstrap over topics (Efron & Tibshirani 1993, ch. 13; the unit Sakai 2014 resamples for IR
metrics): the same (resamples x topics) draw is applied to every estimator and depth, so differences between two
figures are paired. Figure 6 and the two-strata rows of Table 1 come from repeated random samples: their
intervals are over the repetitions (:mod:`evalkit.stats.intervals`). Table 3 averages over the left-out groups:
its interval is over groups.

* :func:`topic_counts`: the multiplicity of each topic in each resample;
* :func:`resampled_rmse`: RMSE (Eq. 3's errors, root mean square over runs x topics) of each resample from the
  per-topic sums of squared errors;
* :func:`ordering_resamples`: normalized tau distance, dist (Eq. 11) and the discrimination ratio (share of run
  pairs a paired t-test separates at 0.05) on each resample, from the (runs x topics) scores, by matrix products
  (no loop over resamples or pairs);
* :func:`interval`: an :class:`~evalkit.stats.Interval` from a figure and its resampled values.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from evalkit.stats.intervals import LEVEL, Interval

#: resamples of the topic bootstrap for error figures (cheap: sums over topics) and for orderings (t-tests)
N_RESAMPLES = 1000
N_ORDERING_RESAMPLES = 200
#: the significance level of the discrimination ratio (the paper: "a significance level p = 0.05")
ALPHA = 0.05


def topic_counts(n_topics: int, n_resamples: int = N_RESAMPLES, seed=0) -> np.ndarray:
    """(n_resamples, n_topics) multiplicity of each topic in each bootstrap resample of the topics (each row sums
    to n_topics)."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    index = rng.integers(0, n_topics, size=(int(n_resamples), int(n_topics)))
    counts = np.zeros((int(n_resamples), int(n_topics)))
    np.add.at(counts, (np.arange(int(n_resamples))[:, None], index), 1.0)
    return counts


def resampled_rmse(sse, n_runs: int, counts: np.ndarray) -> np.ndarray:
    """(R,) RMSE of each resample: ``sqrt(sum_t count_t * sse_t / (n_runs * T))`` from the per-topic sums of
    squared errors ``sse`` (T,) over ``n_runs`` runs."""
    sse = np.asarray(sse, dtype=np.float64)
    return np.sqrt(counts @ sse / (float(n_runs) * sse.size))


def interval(estimate: float, resampled, unit: str = "topics", n: int = 0, level: float = LEVEL) -> Interval:
    """The figure ``estimate`` with the central ``level`` range of its ``resampled`` values (percentile bootstrap
    over ``n`` ``unit``); NaN ends when no resample is finite."""
    values = np.asarray(resampled, dtype=np.float64)
    values = values[np.isfinite(values)]
    method = f"bootstrap over {n} {unit}" if n else f"bootstrap over {unit}"
    if not values.size or not np.isfinite(estimate):
        return Interval(float(estimate), float("nan"), float("nan"), level, method, n)
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(values, [tail, 100.0 - tail])
    return Interval(float(estimate), float(min(low, estimate)), float(max(high, estimate)), level, method, n)


def _pair_tests(scores: np.ndarray, counts: np.ndarray, first: np.ndarray, second: np.ndarray):
    """(P, R) mean difference and one-tailed p-value (H1: first > second) of the paired t-test of every pair on
    every resample (a resample's topics weighted by their multiplicity)."""
    n_topics = scores.shape[1]
    differences = scores[first] - scores[second]  # (P, T)
    mean = differences @ counts.T / n_topics
    second_moment = (differences * differences) @ counts.T / n_topics
    variance = np.maximum(second_moment - mean * mean, 0.0) * (n_topics / (n_topics - 1.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / np.sqrt(variance / n_topics)
    t = np.where(np.abs(mean) <= 1e-15, 0.0, t)  # identical runs on this resample: no evidence either way
    p_greater = special.stdtr(n_topics - 1.0, -t)
    return mean, p_greater


def ordering_resamples(reference: np.ndarray, estimates: dict, counts: np.ndarray, alpha: float = ALPHA) -> dict:
    """On each topic resample (``counts``, :func:`topic_counts`): ``{"reference": {"discrimination": (R,)},
    name: {"tau_distance": (R,), "dist": (R,), "discrimination": (R,)}}`` for each (S, T) score matrix in
    ``estimates``, against ``reference`` (S, T).

    tau distance: the share of run pairs whose mean scores are ordered oppositely (ties are not discordant), as
    :func:`evalkit.stats.tau_distance`; dist: Eq. 11 with omega = 1, as :func:`evalkit.stats.dist`
    (delta = 0.5 - p of the one-tailed paired t-test, 0 for equal means); the discrimination ratio: the share of
    pairs with a two-sided p < ``alpha``."""
    from threadpoolctl import threadpool_limits

    reference = np.asarray(reference, dtype=np.float64)
    first, second = np.triu_indices(reference.shape[0], k=1)

    def statistics(scores):
        mean, p_greater = _pair_tests(scores, counts, first, second)
        delta = np.where(mean == 0.0, 0.0, 0.5 - p_greater)
        two_sided = 2.0 * np.minimum(p_greater, 1.0 - p_greater)
        return np.sign(mean), delta, (two_sided < alpha).mean(axis=0)

    # (pairs x topics) by (topics x resamples) products: one BLAS thread is faster than waking several
    with threadpool_limits(limits=1, user_api="blas"):
        key = (id(reference), id(counts))
        if _REFERENCE_CACHE.get("key") != key:  # the reference's tests, shared by every depth of a figure
            _REFERENCE_CACHE.update(key=key, value=statistics(reference), keep=(reference, counts))
        ref_sign, ref_delta, ref_discrimination = _REFERENCE_CACHE["value"]
        # the orderings compare mean scores (the sign of the mean difference), as tau_distance does
        out: dict = {"reference": {"discrimination": ref_discrimination}}
        for name, scores in estimates.items():
            sign, delta, discrimination = statistics(np.asarray(scores, dtype=np.float64))
            out[name] = {"tau_distance": ((ref_sign * sign) < 0).mean(axis=0),
                         "dist": np.abs(ref_delta - delta).sum(axis=0), "discrimination": discrimination}
    return out


#: the last reference's resampled tests (keyed by the arrays' identities, which it keeps alive)
_REFERENCE_CACHE: dict = {}


def discrimination_ratio(scores, alpha: float = ALPHA) -> float:
    """The share of run pairs that a two-sided paired t-test over topics separates at ``alpha``
    (:func:`evalkit.stats.paired_ttests`): the "discrimination ratio" of the paper's Sec. 6."""
    from evalkit.stats import paired_ttests

    tests = paired_ttests(np.asarray(scores, dtype=np.float64))
    first, second = np.triu_indices(tests.p_two_sided.shape[0], k=1)
    return float((tests.p_two_sided[first, second] < alpha).mean())
