"""Statistics: comparing systems and system orderings, and the uncertainty of a reproduced figure.

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
Interval, bootstrap_interval, ratio_interval, paired_difference_interval, spread_interval
                       a figure's estimate with its interval over trials or seeds (:mod:`.intervals`).

Modules: :mod:`.significance` (t-tests, pair classification), :mod:`.agreement` (orderings, correlation,
error), :mod:`.intervals`, :mod:`.inputs` (shared input checks).

Conventions
-----------
* Matrices indexed ``[i, j]`` describe "row run i compared with column run j": ``mean_diff[i, j]``
  is ``mean_t(scores[i, t] - scores[j, t])``; a positive sign means run i scores higher.
* Significance is ``p < alpha`` (strict), two-tailed unless stated otherwise.
* Identical runs (every per-topic difference exactly zero) get ``t = 0``, ``p_two_sided = 1`` and
  ``p_greater = p_less = 0.5``; scipy returns nan there (0/0). Everything else, including a
  constant non-zero difference (``t = +-inf``, ``p = 0``), follows scipy exactly.
"""

from evalkit.stats.agreement import (
    dist,
    kendall_tau,
    kendall_tau_rows,
    pairwise_relationship_strength,
    pearson,
    rms_error,
    tau_distance,
)
from evalkit.stats.intervals import (
    Interval,
    bootstrap_interval,
    paired_difference_interval,
    ratio_interval,
    spread_interval,
)
from evalkit.stats.significance import (
    CATEGORY_NAMES,
    PairClassification,
    PairedTTests,
    classify_pairs,
    classify_significance,
    paired_ttests,
    significant_pairs,
)

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
    "Interval",
    "bootstrap_interval",
    "ratio_interval",
    "paired_difference_interval",
    "spread_interval",
]
