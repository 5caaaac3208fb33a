"""Statistics for comparing systems and system orderings.

Everything here works on score matrices ``scores[run, topic]`` (float64, shape S x T) or on
vectors of per-run values (usually the per-run means ``scores.mean(axis=1)``), and is
vectorized over all run pairs at once.

Contents
--------
paired_ttests          Student's paired t-test for every ordered pair of runs (equals
                       ``scipy.stats.ttest_rel`` pair by pair).
significant_pairs      sign matrix of significant differences (+1 / -1 / 0).
classify_pairs         Voorhees (2014) five-way classification of run pairs (true positive,
                       true negative, miss, false alarm, inversion) and pair accuracy.
kendall_tau            Kendall's tau-b (equals ``scipy.stats.kendalltau``);
kendall_tau_rows       the same for many rankings at once.
tau_distance           normalized Kendall tau distance of Lu, Moffat and Culpepper (2017), Sec. 5.
pairwise_relationship_strength
                       the delta_{i,j} of Lu et al. (2017), Sec. 5, from one-tailed t-tests.
dist                   Lu et al. (2017) Eq. 11, a t-test-weighted distance between orderings.
pearson, rms_error     Pearson's r (equals ``scipy.stats.pearsonr``) and root mean squared error.

Conventions
-----------
* Matrices indexed ``[i, j]`` describe "row run i compared with column run j": ``mean_diff[i, j]``
  is ``mean_t(scores[i, t] - scores[j, t])``; a positive sign means run i scores higher.
* Significance is ``p < alpha`` (strict), two-tailed unless stated otherwise.
* Identical runs (every per-topic difference exactly zero) get ``t = 0``, ``p_two_sided = 1`` and
  ``p_greater = p_less = 0.5``; scipy returns nan there (0/0). Everything else, including a
  constant non-zero difference (``t = +-inf``, ``p = 0``), follows scipy exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

__all__ = [
    "PairedTTests",
    "paired_ttests",
    "significant_pairs",
    "PairClassification",
    "CATEGORY_NAMES",
    "classify_pairs",
    "classify_significance",
    "kendall_tau",
    "kendall_tau_rows",
    "tau_distance",
    "pairwise_relationship_strength",
    "dist",
    "pearson",
    "rms_error",
]


# --------------------------------------------------------------------------------------------
# input checking
# --------------------------------------------------------------------------------------------


def _as_score_matrix(scores, name: str = "scores") -> np.ndarray:
    matrix = np.asarray(scores, dtype=np.float64)
    if matrix.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array scores[run, topic]; got shape {matrix.shape}")
    if matrix.shape[1] < 1:
        raise ValueError(f"{name} needs at least one topic; got shape {matrix.shape}")
    return matrix


def _as_vector(values, name: str) -> np.ndarray:
    vector = np.asarray(values, dtype=np.float64)
    if vector.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got shape {vector.shape}")
    return vector


def _as_matching_vectors(x, y) -> tuple[np.ndarray, np.ndarray]:
    x_vec = _as_vector(x, "x")
    y_vec = _as_vector(y, "y")
    if x_vec.shape != y_vec.shape:
        raise ValueError(f"x and y must have the same length; got {x_vec.shape[0]} and {y_vec.shape[0]}")
    return x_vec, y_vec


# --------------------------------------------------------------------------------------------
# paired t-tests over all run pairs
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairedTTests:
    """Paired t-tests for every ordered pair of runs; every array is S x S, indexed [row, column].

    Attributes
    ----------
    mean_diff : mean over topics of ``scores[row] - scores[column]`` (antisymmetric).
    t : the t statistic ``mean_diff / (sd / sqrt(T))`` with ``sd`` the ddof=1 standard deviation
        of the per-topic differences (antisymmetric).
    p_two_sided : two-tailed p-value (symmetric).
    p_greater : one-tailed p-value for H1: mean(row - column) > 0.
    p_less : one-tailed p-value for H1: mean(row - column) < 0 (equals ``p_greater.T``).
    n_topics : T; the tests have ``T - 1`` degrees of freedom.
    """

    mean_diff: np.ndarray
    t: np.ndarray
    p_two_sided: np.ndarray
    p_greater: np.ndarray
    p_less: np.ndarray
    n_topics: int

    @property
    def degrees_of_freedom(self) -> int:
        return self.n_topics - 1

    def significance_signs(self, alpha: float = 0.05) -> np.ndarray:
        """S x S int8 matrix: +1 row significantly better than column, -1 significantly worse,
        0 not significant (two-tailed, ``p_two_sided < alpha``). The diagonal is 0."""
        _check_alpha(alpha)
        significant = self.p_two_sided < alpha  # nan compares False: never significant
        direction = np.sign(self.mean_diff).astype(np.int8)
        return np.where(significant, direction, np.int8(0)).astype(np.int8)


def _check_alpha(alpha: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1); got {alpha}")


def paired_ttests(scores) -> PairedTTests:
    """Student's paired (dependent-samples) t-test between every pair of runs, all at once.

    For runs i and j with per-topic differences ``d_t = scores[i, t] - scores[j, t]``,
    t = 1..T::

        t_ij = mean(d) / (s_d / sqrt(T)),   s_d^2 = sum_t (d_t - mean(d))^2 / (T - 1)

    and the p-values come from Student's t distribution with T - 1 degrees of freedom
    (``scipy.special.stdtr``): ``p_greater = P(T_{T-1} >= t_ij)``, ``p_less = P(T_{T-1} <= t_ij)``,
    ``p_two_sided = 2 P(T_{T-1} >= |t_ij|)``. This is the test Voorhees (2014, Sec. 3) uses to
    define significantly different run pairs and the "paired one-tail statistical test across
    topics" of Lu et al. (2017, Sec. 5). The arithmetic is the same as ``scipy.stats.ttest_rel``
    (mean of differences, ddof=1 variance about that mean) and agrees with it to ~1e-12 for
    every pair.

    Degenerate pairs (documented deviation from scipy):
      * all differences exactly zero (identical runs, and the diagonal): scipy gives nan (0/0);
        here ``t = 0``, ``p_two_sided = 1``, ``p_greater = p_less = 0.5`` -- no evidence of any
        difference. Needs T >= 2.
      * constant non-zero difference: zero variance, ``t = +-inf`` and ``p_two_sided = 0``,
        exactly as scipy.
      * T = 1: no degrees of freedom, everything but ``mean_diff`` is nan, as in scipy.

    Parameters
    ----------
    scores : array (S, T), scores[run, topic].

    Returns
    -------
    PairedTTests with S x S arrays ``mean_diff`` (row minus column), ``t``, ``p_two_sided``,
    ``p_greater`` (H1: row > column), ``p_less`` (H1: row < column).

    Memory is O(S^2 T) (one S x S x T float64 array of differences).
    """
    matrix = _as_score_matrix(scores)
    n_runs, n_topics = matrix.shape
    differences = matrix[:, None, :] - matrix[None, :, :]  # d[i, j, t], exactly antisymmetric
    mean_diff = differences.mean(axis=2)
    deviations = differences - mean_diff[:, :, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        variance = (deviations * deviations).mean(axis=2) * (np.float64(n_topics) / np.float64(n_topics - 1))
        standard_error = np.sqrt(variance / n_topics)
        t_stat = np.divide(mean_diff, standard_error)
    degrees_of_freedom = float(n_topics - 1)

    if n_topics >= 2:
        identical = ~np.any(differences != 0.0, axis=2)
        t_stat = np.where(identical, 0.0, t_stat)

    p_greater = special.stdtr(degrees_of_freedom, -t_stat)
    p_less = special.stdtr(degrees_of_freedom, t_stat)
    p_two_sided = 2.0 * special.stdtr(degrees_of_freedom, -np.abs(t_stat))
    return PairedTTests(
        mean_diff=mean_diff,
        t=t_stat,
        p_two_sided=p_two_sided,
        p_greater=p_greater,
        p_less=p_less,
        n_topics=n_topics,
    )


_CANCELLATION = 1e-6  # Gram-form sums of squares below this share of |c_i|^2 + |c_j|^2 are recomputed directly


def significant_pairs(scores, alpha: float = 0.05) -> np.ndarray:
    """Sign matrix of significant differences between runs (two-tailed paired t-test, ``p < alpha``).

    ``result[i, j]`` is +1 if run i is significantly better than run j, -1 if significantly worse, 0 if not
    significant (identical runs never are); antisymmetric, int8, S x S, zero diagonal. The same signs as
    ``paired_ttests(scores).significance_signs(alpha)`` (which equals scipy's ttest_rel), computed faster from the
    Gram matrix of the row-centred scores: the sum of
    squared deviations of the differences of runs i and j is ``|c_i|^2 + |c_j|^2 - 2 c_i.c_j``, one (S, T) x
    (T, S) product instead of an (S, S, T) array. Where that form cancels (nearly identical runs: the result is
    below 1e-6 of ``|c_i|^2 + |c_j|^2``) the pair is recomputed from its differences as ``paired_ttests`` does,
    so the signs agree with :func:`paired_ttests` (checked by the tests, borderline and nearly identical runs
    included); about 20 times faster for 129 runs x 50 topics, which matters inside repeated trials.
    """
    from scipy import special

    x = np.asarray(scores, np.float64)
    S, T = x.shape
    if T < 2:
        return paired_ttests(x).significance_signs(alpha)
    mean = x.mean(axis=1)
    c = x - mean[:, None]
    sq = np.einsum("st,st->s", c, c)
    scale = sq[:, None] + sq[None, :]
    # einsum, not c @ c.T: a multi-threaded BLAS call on a busy 2-core machine costs 100x more than the work
    ss = scale - 2.0 * np.einsum("st,ut->su", c, c)
    mean_diff = mean[:, None] - mean[None, :]
    suspect = ss <= _CANCELLATION * scale
    np.fill_diagonal(suspect, False)
    i, j = np.nonzero(np.triu(suspect, 1))
    if len(i):
        d = x[i] - x[j]
        md = d.mean(axis=1)
        dev = d - md[:, None]
        exact = (dev * dev).sum(axis=1)
        identical = ~np.any(d != 0.0, axis=1)
        md = np.where(identical, 0.0, md)
        ss[i, j] = ss[j, i] = exact
        mean_diff[i, j], mean_diff[j, i] = md, -md
    ss = np.maximum(ss, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(mean_diff) / np.sqrt(ss / (T - 1) / T)
    t = np.where(mean_diff == 0.0, 0.0, t)
    # p < alpha  <=>  |t| > t_crit; the p-value itself only where |t| is within 1e-9 of t_crit
    df = T - 1.0
    t_crit = -special.stdtrit(df, alpha / 2.0)
    significant = t > t_crit
    near = np.abs(t - t_crit) <= 1e-9 * t_crit
    if near.any():
        significant[near] = 2.0 * special.stdtr(df, -t[near]) < alpha
    signs = np.where(significant, np.sign(mean_diff), 0.0).astype(np.int8)
    np.fill_diagonal(signs, 0)
    return signs



# --------------------------------------------------------------------------------------------
# Voorhees (2014) pair classification
# --------------------------------------------------------------------------------------------

#: category codes used in :attr:`PairClassification.category`
CATEGORY_NAMES = ("true_positive", "true_negative", "miss", "false_alarm", "inversion")
_TRUE_POSITIVE, _TRUE_NEGATIVE, _MISS, _FALSE_ALARM, _INVERSION = range(5)


@dataclass(frozen=True)
class PairClassification:
    """Counts of unordered run pairs in Voorhees' (2014) five categories, and pair accuracy.

    ``category`` is an S x S int8 matrix (symmetric) holding for each pair the index into
    :data:`CATEGORY_NAMES` (-1 on the diagonal).
    """

    true_positive: int
    true_negative: int
    miss: int
    false_alarm: int
    inversion: int
    accuracy: float
    category: np.ndarray

    @property
    def n_pairs(self) -> int:
        return self.true_positive + self.true_negative + self.miss + self.false_alarm + self.inversion

    @property
    def correct(self) -> int:
        return self.true_positive + self.true_negative

    @property
    def incorrect(self) -> int:
        """Misses + false alarms + 2 x inversions (an inversion is both a miss and a false alarm)."""
        return self.miss + self.false_alarm + 2 * self.inversion

    def as_dict(self) -> dict:
        """The counts and the accuracy as a flat dict (one row of a per-trial DataFrame)."""
        return {
            "true_positive": self.true_positive,
            "true_negative": self.true_negative,
            "miss": self.miss,
            "false_alarm": self.false_alarm,
            "inversion": self.inversion,
            "n_pairs": self.n_pairs,
            "accuracy": self.accuracy,
        }


def classify_significance(gold_signs, test_signs) -> PairClassification:
    """Voorhees (2014) classification from two significance sign matrices (see
    :func:`classify_pairs`; the sign matrices are those of :func:`significant_pairs`).

    Only the upper triangle (i < j) is read: each unordered pair is counted once.
    """
    gold = np.asarray(gold_signs)
    test = np.asarray(test_signs)
    if gold.ndim != 2 or gold.shape[0] != gold.shape[1] or gold.shape != test.shape:
        raise ValueError(
            f"gold_signs and test_signs must be square matrices of the same shape; got {gold.shape} and {test.shape}"
        )
    gold = np.sign(gold).astype(np.int8)
    test = np.sign(test).astype(np.int8)
    gold_significant = gold != 0
    test_significant = test != 0
    category = np.full(gold.shape, -1, dtype=np.int8)
    category[gold_significant & test_significant & (gold == test)] = _TRUE_POSITIVE
    category[~gold_significant & ~test_significant] = _TRUE_NEGATIVE
    category[gold_significant & ~test_significant] = _MISS
    category[~gold_significant & test_significant] = _FALSE_ALARM
    category[gold_significant & test_significant & (gold != test)] = _INVERSION

    n_runs = gold.shape[0]
    upper_rows, upper_cols = np.triu_indices(n_runs, k=1)
    upper = category[upper_rows, upper_cols]
    counts = np.bincount(upper, minlength=5)
    # make the matrix symmetric from the upper triangle, diagonal -1
    category = np.full(gold.shape, -1, dtype=np.int8)
    category[upper_rows, upper_cols] = upper
    category[upper_cols, upper_rows] = upper

    true_positive, true_negative, miss, false_alarm, inversion = (int(c) for c in counts)
    correct = true_positive + true_negative
    incorrect = miss + false_alarm + 2 * inversion
    accuracy = correct / (correct + incorrect) if (correct + incorrect) > 0 else float("nan")
    return PairClassification(
        true_positive=true_positive,
        true_negative=true_negative,
        miss=miss,
        false_alarm=false_alarm,
        inversion=inversion,
        accuracy=accuracy,
        category=category,
    )


def classify_pairs(gold_scores, test_scores, alpha: float = 0.05) -> PairClassification:
    """Accuracy of reproducing the set of significantly different run pairs (Voorhees 2014, Sec. 3).

    Significance in both collections is a two-tailed paired t-test at ``alpha`` (Voorhees uses
    alpha = 0.05) across topics, see :func:`significant_pairs`. Each unordered pair of runs falls
    into exactly one of five categories (the paper's definitions; "same/opposite direction"
    is which run of the pair has the larger mean):

    * true positive: significantly different in both, same direction;
    * true negative: not significantly different in either;
    * miss: significantly different in the gold (base) collection, not in the test collection;
    * false alarm: not significantly different in the gold collection, significant in the test;
    * inversion: significantly different in both, opposite directions.

    Accuracy, quoting the paper: "the number of correct classifications over the sum of correct
    and incorrect classifications where inversions are counted as both a false alarm and a
    miss", i.e.::

        accuracy = (TP + TN) / (TP + TN + miss + false_alarm + 2 * inversion)

    (nan when there are no pairs).

    Parameters
    ----------
    gold_scores : (S, T_gold) scores of the S runs on the gold-standard (base) collection.
    test_scores : (S, T_test) scores of the same S runs, same order, on the test collection.
    alpha : significance level, ``p < alpha``.
    """
    gold = _as_score_matrix(gold_scores, "gold_scores")
    test = _as_score_matrix(test_scores, "test_scores")
    if gold.shape[0] != test.shape[0]:
        raise ValueError(f"gold_scores and test_scores must have the same runs; got {gold.shape[0]} and {test.shape[0]}")
    return classify_significance(significant_pairs(gold, alpha), significant_pairs(test, alpha))


# --------------------------------------------------------------------------------------------
# Kendall's tau and tau distance
# --------------------------------------------------------------------------------------------


def _pair_signs(values: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """sign(values[..., second] - values[..., first]) as int8, computed by comparison."""
    a = values[..., first]
    b = values[..., second]
    return (b > a).astype(np.int8) - (b < a).astype(np.int8)


def _rows_in_chunks(n_rows: int, n_pairs: int, max_elements: int = 2**22):
    chunk = max(1, max_elements // max(n_pairs, 1))
    for start in range(0, n_rows, chunk):
        yield slice(start, min(start + chunk, n_rows))


def kendall_tau_rows(x_rows, y_rows) -> np.ndarray:
    """Kendall's tau-b between ``x_rows[k]`` and ``y_rows[k]`` for every row k.

    ``x_rows`` and ``y_rows`` are (K, n) arrays (one may be 1-D, then it is compared with every
    row of the other). Tau-b, as ``scipy.stats.kendalltau(variant='b')``::

        tau_b = (C - D) / sqrt((n0 - n_x) (n0 - n_y))

    with C / D the concordant / discordant pairs, n0 = n(n-1)/2, n_x / n_y the pairs tied in x /
    in y. Computed exactly from integer pair counts (O(n^2) per row, vectorized); nan where a row
    is constant or contains nan (scipy's behaviour).
    """
    x_arr = np.asarray(x_rows, dtype=np.float64)
    y_arr = np.asarray(y_rows, dtype=np.float64)
    if x_arr.ndim == 1 and y_arr.ndim == 1:
        x_arr = x_arr[None, :]
    x_arr, y_arr = np.broadcast_arrays(np.atleast_2d(x_arr), np.atleast_2d(y_arr))
    if x_arr.ndim != 2:
        raise ValueError(f"kendall_tau_rows expects (K, n) arrays; got {x_arr.shape}")
    n_rows, n_items = x_arr.shape
    first, second = np.triu_indices(n_items, k=1)
    tau = np.empty(n_rows, dtype=np.float64)
    for rows in _rows_in_chunks(n_rows, first.size):
        sign_x = _pair_signs(x_arr[rows], first, second)
        sign_y = _pair_signs(y_arr[rows], first, second)
        concordant_minus_discordant = np.einsum("kp,kp->k", sign_x, sign_y, dtype=np.int64)
        untied_x = np.abs(sign_x).sum(axis=1, dtype=np.int64)  # n0 - n_x
        untied_y = np.abs(sign_y).sum(axis=1, dtype=np.int64)  # n0 - n_y
        with np.errstate(divide="ignore", invalid="ignore"):
            chunk_tau = concordant_minus_discordant / np.sqrt(untied_x) / np.sqrt(untied_y)
        chunk_tau = np.clip(chunk_tau, -1.0, 1.0)
        chunk_tau[(untied_x == 0) | (untied_y == 0)] = np.nan
        has_nan = np.isnan(x_arr[rows]).any(axis=1) | np.isnan(y_arr[rows]).any(axis=1)
        chunk_tau[has_nan] = np.nan
        tau[rows] = chunk_tau
    return tau


def kendall_tau(x, y) -> float:
    """Kendall's tau-b between two vectors; equals ``scipy.stats.kendalltau(x, y).statistic``.

    See :func:`kendall_tau_rows` for the formula and tie handling. Returns nan for a constant
    vector, for nan input, or for fewer than two items.
    """
    x_vec, y_vec = _as_matching_vectors(x, y)
    if x_vec.size < 2:
        return float("nan")
    return float(kendall_tau_rows(x_vec, y_vec)[0])


def tau_distance(x, y) -> float:
    """Normalized Kendall tau distance (Lu, Moffat and Culpepper 2017, Sec. 5).

    With ``sigma_ij = sign(x_i - x_j)`` and ``sigma'_ij = sign(y_i - y_j)`` in {-1, 0, 1} (x and y
    are, e.g., the per-system mean scores under two measurement regimes)::

        tau_distance = |{ i < j : sigma_ij * sigma'_ij < 0 }| / (n (n - 1) / 2)

    the fraction of discordant pairs; 0 means identical orderings, 1 fully reversed.
    Ties: a pair tied in x or in y (product 0) is *not* discordant and counts only in the
    denominator, as in the paper's definition. Without ties this equals ``(1 - tau) / 2``.
    """
    x_vec, y_vec = _as_matching_vectors(x, y)
    n_items = x_vec.size
    if n_items < 2:
        raise ValueError("tau_distance needs at least two items")
    if np.isnan(x_vec).any() or np.isnan(y_vec).any():
        return float("nan")
    first, second = np.triu_indices(n_items, k=1)
    products = _pair_signs(x_vec, first, second) * _pair_signs(y_vec, first, second)
    return float(np.count_nonzero(products < 0) / first.size)


# --------------------------------------------------------------------------------------------
# Lu, Moffat and Culpepper (2017), Eq. 11
# --------------------------------------------------------------------------------------------


def pairwise_relationship_strength(scores) -> np.ndarray:
    """delta_{i,j} of Lu, Moffat and Culpepper (2017, Sec. 5), for all pairs; S x S, antisymmetric.

    With S̄_i the mean score of system i over topics and p_{i,j} the p-value of a paired
    one-tailed t-test across topics for H1: S_i > S_j::

                     | 0.5 - p_{i,j}   if S̄_i > S̄_j
        delta_{i,j} = | 0               if S̄_i = S̄_j
                     | p_{j,i} - 0.5   if S̄_i < S̄_j

    so -0.5 <= delta_{i,j} <= 0.5 carries direction and strength. Because
    ``p_{j,i} = 1 - p_{i,j}`` for the t-test, both branches equal ``0.5 - p_{i,j}``, which is
    also 0 when the means are equal (t = 0); the case split is still applied on the sign of
    ``mean(S_i - S_j)`` (the numerator of the t statistic) so that identical systems get 0.
    A constant non-zero difference gives +-0.5.
    """
    tests = paired_ttests(scores)
    strength = np.where(
        tests.mean_diff > 0,
        0.5 - tests.p_greater,
        np.where(tests.mean_diff < 0, tests.p_greater.T - 0.5, 0.0),  # p_{j,i} = p_greater[j, i]
    )
    return strength


def dist(reference_scores, estimated_scores, omega=1.0) -> float:
    """Weighted ordering distance ``dist`` of Lu, Moffat and Culpepper (2017), Eq. 11.

    Eq. 11, reconstructed from the paper::

        dist = sum_{1 <= i < j <= n} omega * | delta_{i,j} - delta'_{i,j} |

    where delta_{i,j} is computed from the reference scores and delta'_{i,j} from the estimated
    scores (:func:`pairwise_relationship_strength`, one-tailed paired t-tests across topics),
    and omega >= 0 is a scaling factor. The paper uses omega = 1 in its experiments and
    suggests omega = |delta_{i,j}| (the reference strength) as an alternative. The sum is not
    normalized (the paper does not divide by the number of pairs). dist = 0 when both regimes
    agree on direction and strength for every pair.

    Parameters
    ----------
    reference_scores, estimated_scores : (S, T) score matrices of the same S systems (same
        order); the topic sets may differ.
    omega : float >= 0, an (S, S) array of per-pair weights (read at i < j), or the string
        "reference" for omega_{i,j} = |delta_{i,j}| of the reference.
    """
    reference = _as_score_matrix(reference_scores, "reference_scores")
    estimated = _as_score_matrix(estimated_scores, "estimated_scores")
    if reference.shape[0] != estimated.shape[0]:
        raise ValueError(
            f"reference_scores and estimated_scores must have the same systems; got {reference.shape[0]} and {estimated.shape[0]}"
        )
    delta_reference = pairwise_relationship_strength(reference)
    delta_estimated = pairwise_relationship_strength(estimated)
    n_systems = reference.shape[0]
    first, second = np.triu_indices(n_systems, k=1)
    if isinstance(omega, str):
        if omega != "reference":
            raise ValueError(f"omega must be a number, an (S, S) array or 'reference'; got {omega!r}")
        weights = np.abs(delta_reference[first, second])
    else:
        omega_arr = np.asarray(omega, dtype=np.float64)
        if omega_arr.ndim == 0:
            weights = np.full(first.size, float(omega_arr))
        elif omega_arr.shape == (n_systems, n_systems):
            weights = omega_arr[first, second]
        else:
            raise ValueError(f"omega must be a scalar or an ({n_systems}, {n_systems}) array; got shape {omega_arr.shape}")
        if np.any(weights < 0):
            raise ValueError("omega must be >= 0")
    absolute_change = np.abs(delta_reference[first, second] - delta_estimated[first, second])
    return float(np.sum(weights * absolute_change))


# --------------------------------------------------------------------------------------------
# correlation and error
# --------------------------------------------------------------------------------------------


def pearson(x, y) -> float:
    """Pearson's product-moment correlation r; equals ``scipy.stats.pearsonr(x, y).statistic``.

    ``r = <x - x̄, y - ȳ> / (||x - x̄|| ||y - ȳ||)``, clipped to [-1, 1]; nan if x or y is constant
    (scipy also returns nan, with a warning). Raises ValueError for fewer than two points.
    """
    x_vec, y_vec = _as_matching_vectors(x, y)
    if x_vec.size < 2:
        raise ValueError("pearson needs at least two points")
    x_centered = x_vec - x_vec.mean()
    y_centered = y_vec - y_vec.mean()
    x_max = np.max(np.abs(x_centered))
    y_max = np.max(np.abs(y_centered))
    if x_max == 0 or y_max == 0 or np.all(x_vec == x_vec[0]) or np.all(y_vec == y_vec[0]):
        return float("nan")
    x_norm = x_max * np.linalg.norm(x_centered / x_max)
    y_norm = y_max * np.linalg.norm(y_centered / y_max)
    r = np.dot(x_centered / x_norm, y_centered / y_norm)
    return float(np.clip(r, -1.0, 1.0))


def rms_error(x, y) -> float:
    """Root mean squared error ``sqrt(mean((x - y)^2))`` between two equally shaped arrays
    (e.g. estimated vs. gold per-run mean scores, Lu et al. 2017 Sec. 6 "RMSE")."""
    x_arr = np.asarray(x, dtype=np.float64)
    y_arr = np.asarray(y, dtype=np.float64)
    if x_arr.shape != y_arr.shape:
        raise ValueError(f"x and y must have the same shape; got {x_arr.shape} and {y_arr.shape}")
    if x_arr.size == 0:
        raise ValueError("rms_error needs at least one value")
    difference = x_arr - y_arr
    return float(np.sqrt(np.mean(difference * difference)))
