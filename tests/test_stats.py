"""Tests for evalkit.stats: scipy as the oracle on seeded random data, hand-computed tiny cases
for the paper-specific definitions (Voorhees 2014 pair accuracy, Lu et al. 2017 tau distance and
dist)."""

import math
import warnings

import numpy as np
import pytest
import scipy.stats

from evalkit import stats
from evalkit.stats import paired_ttests, significant_pairs

TOLERANCE = 1e-12


def _scipy_pairwise(scores, alternative):
    """Reference S x S matrices of t and p from scipy.stats.ttest_rel, one pair at a time."""
    n_runs = scores.shape[0]
    t_ref = np.full((n_runs, n_runs), np.nan)
    p_ref = np.full((n_runs, n_runs), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(n_runs):
            for j in range(n_runs):
                if i != j:
                    result = scipy.stats.ttest_rel(scores[i], scores[j], alternative=alternative)
                    t_ref[i, j] = result.statistic
                    p_ref[i, j] = result.pvalue
    return t_ref, p_ref


# ---------------------------------------------------------------- paired t-tests


@pytest.mark.parametrize("n_runs,n_topics,seed", [(25, 50, 0), (12, 7, 1), (6, 2, 2)])
def test_paired_ttests_equal_scipy_for_every_pair(n_runs, n_topics, seed):
    rng = np.random.default_rng(seed)
    # runs with different means so that p-values span many orders of magnitude
    scores = rng.beta(2, 5, size=(n_runs, n_topics)) + np.linspace(0, 0.3, n_runs)[:, None]
    result = stats.paired_ttests(scores)
    off_diagonal = ~np.eye(n_runs, dtype=bool)
    for alternative, ours in [
        ("two-sided", result.p_two_sided),
        ("greater", result.p_greater),
        ("less", result.p_less),
    ]:
        t_ref, p_ref = _scipy_pairwise(scores, alternative)
        np.testing.assert_allclose(result.t[off_diagonal], t_ref[off_diagonal], rtol=TOLERANCE, atol=0)
        np.testing.assert_allclose(ours[off_diagonal], p_ref[off_diagonal], rtol=TOLERANCE, atol=0)
    mean_ref = scores[:, None, :].mean(axis=2) - scores[None, :, :].mean(axis=2)
    np.testing.assert_allclose(result.mean_diff, mean_ref, rtol=0, atol=1e-14)
    assert result.degrees_of_freedom == n_topics - 1


def test_paired_ttests_symmetries():
    scores = np.random.default_rng(3).random((10, 20))
    result = stats.paired_ttests(scores)
    np.testing.assert_array_equal(result.mean_diff, -result.mean_diff.T)
    np.testing.assert_array_equal(result.t, -result.t.T)
    np.testing.assert_allclose(result.p_two_sided, result.p_two_sided.T, rtol=0, atol=0)
    np.testing.assert_allclose(result.p_less, result.p_greater.T, rtol=0, atol=0)
    np.testing.assert_allclose(result.p_greater + result.p_less, 1.0, rtol=0, atol=1e-15)


def test_paired_ttests_hand_computed_two_topics():
    # T = 2 -> df = 1, Student t(1) is Cauchy: sf(t) = 1/2 - arctan(t)/pi.
    # differences (3, 1): mean 2, sd = sqrt(2), se = 1, t = 2.
    scores = np.array([[3.0, 1.0], [0.0, 0.0]])
    result = stats.paired_ttests(scores)
    assert result.t[0, 1] == pytest.approx(2.0, rel=1e-14)
    assert result.p_greater[0, 1] == pytest.approx(0.5 - math.atan(2.0) / math.pi, rel=1e-13)
    assert result.p_two_sided[0, 1] == pytest.approx(1.0 - 2.0 * math.atan(2.0) / math.pi, rel=1e-13)


def test_paired_ttests_degenerate_cases():
    base = np.array([0.25, 0.5, 0.125, 0.75])  # dyadic: base + 0.25 - base == 0.25 exactly
    scores = np.vstack([base, base, base + 0.25])  # runs 0 and 1 identical; run 2 = run 0 + const
    result = stats.paired_ttests(scores)
    # identical runs (and the diagonal): deliberate deviation from scipy's nan
    for i, j in [(0, 1), (1, 0), (0, 0), (2, 2)]:
        assert result.t[i, j] == 0.0
        assert result.p_two_sided[i, j] == 1.0
        assert result.p_greater[i, j] == 0.5
        assert result.p_less[i, j] == 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(scipy.stats.ttest_rel(base, base).pvalue)  # what we deviate from
        scipy_constant = scipy.stats.ttest_rel(scores[2], scores[0])
    # constant non-zero difference: zero variance, follows scipy (t = +-inf, p = 0)
    assert result.t[2, 0] == np.inf and result.t[0, 2] == -np.inf
    assert result.t[2, 0] == scipy_constant.statistic
    assert result.p_two_sided[2, 0] == scipy_constant.pvalue == 0.0
    assert result.p_greater[2, 0] == 0.0 and result.p_less[2, 0] == 1.0
    np.testing.assert_array_equal(stats.significant_pairs(scores), [[0, 0, -1], [0, 0, -1], [1, 1, 0]])


def test_paired_ttests_single_topic_is_nan_like_scipy():
    result = stats.paired_ttests(np.array([[0.1], [0.3]]))
    assert np.isnan(result.p_two_sided).all()
    assert result.mean_diff[1, 0] == pytest.approx(0.2)


def test_significant_pairs_matches_scipy_decisions():
    rng = np.random.default_rng(4)
    scores = rng.random((15, 30)) + np.linspace(0, 0.4, 15)[:, None]
    signs = stats.significant_pairs(scores, alpha=0.05)
    _, p_ref = _scipy_pairwise(scores, "two-sided")
    mean_diff = scores.mean(axis=1)[:, None] - scores.mean(axis=1)[None, :]
    expected = np.where(p_ref < 0.05, np.sign(mean_diff), 0)
    np.fill_diagonal(expected, 0)
    np.testing.assert_array_equal(signs, expected)
    assert 0 < np.count_nonzero(signs) < signs.size - 15  # both outcomes occur: the test can fail
    np.testing.assert_array_equal(signs, -signs.T)


# ---------------------------------------------------------------- Voorhees 2014 classification


def _runs_from_offsets_and_noise(offsets_and_noise):
    """Run = offset + noise * (1, -1, 1, -1). For two runs the mean difference is the offset
    difference; the variance of the difference is zero iff the noise levels are equal. So
    a pair is significant (t = +-inf) iff equal noise and different offsets; with noise levels 10
    apart and offsets < 2 apart, |t| <= sqrt(3) * 2 / 10 ~ 0.35 (df = 3): not significant."""
    pattern = np.array([1.0, -1.0, 1.0, -1.0])
    return np.array([offset + noise * pattern for offset, noise in offsets_and_noise])


def test_classify_pairs_hand_constructed_every_category():
    #                                 A        B        C        D         E
    gold = _runs_from_offsets_and_noise([(0, 0), (1, 0), (2, 0), (0, 10), (0.5, 20)])
    test = _runs_from_offsets_and_noise([(0, 0), (1, 0), (0, 0), (0, 0), (0.5, 20)])
    # gold: A<B, A<C, B<C significant; everything with D or E not significant.
    # test: A<B significant; B>C significant (inversion); B>D significant (false alarm);
    #       A=C=D identical (A-C: miss); E not significant with anyone.
    result = stats.classify_pairs(gold, test, alpha=0.05)
    assert result.true_positive == 1  # A-B
    assert result.miss == 1  # A-C
    assert result.inversion == 1  # B-C
    assert result.false_alarm == 1  # B-D
    assert result.true_negative == 6  # A-D, C-D, A-E, B-E, C-E, D-E
    assert result.n_pairs == 10
    # accuracy = (TP + TN) / (TP + TN + miss + FA + 2 * inversion) = 7 / 11
    assert result.accuracy == pytest.approx(7 / 11, rel=1e-15)
    names = stats.CATEGORY_NAMES
    assert names[result.category[1, 2]] == "inversion" and names[result.category[2, 1]] == "inversion"
    assert names[result.category[0, 2]] == "miss"
    assert names[result.category[1, 3]] == "false_alarm"
    assert names[result.category[0, 1]] == "true_positive"
    assert result.as_dict()["accuracy"] == result.accuracy


def test_classify_significance_from_sign_matrices():
    def antisymmetric(upper):
        matrix = np.array(upper)
        return matrix - matrix.T

    gold = antisymmetric([[0, 1, 1, 0], [0, 0, -1, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    test = antisymmetric([[0, 1, -1, 1], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0]])
    # pairs: 01 TP, 02 inversion, 03 FA, 12 miss, 13 TN, 23 FA
    result = stats.classify_significance(gold, test)
    assert (result.true_positive, result.true_negative, result.miss, result.false_alarm, result.inversion) == (
        1,
        1,
        1,
        2,
        1,
    )
    assert result.accuracy == pytest.approx(2 / (2 + 1 + 2 + 2))
    same = stats.classify_significance(gold, gold)
    assert same.accuracy == 1.0 and same.inversion == same.miss == same.false_alarm == 0


# ---------------------------------------------------------------- Kendall's tau


@pytest.mark.parametrize("seed,ties", [(0, False), (1, True), (2, True)])
def test_kendall_tau_equals_scipy(seed, ties):
    rng = np.random.default_rng(seed)
    n_items = 60
    if ties:
        x = rng.integers(0, 6, n_items).astype(float)
        y = x + rng.integers(-2, 3, n_items)
    else:
        x = rng.random(n_items)
        y = x + 0.3 * rng.random(n_items)
    expected = scipy.stats.kendalltau(x, y).statistic
    assert abs(stats.kendall_tau(x, y) - expected) <= TOLERANCE


def test_kendall_tau_hand_computed_and_degenerate():
    # x = 1 2 3 4, y = 1 3 2 2: C = 3, D = 2, one pair tied in y -> (3 - 2) / sqrt(6 * 5)
    assert stats.kendall_tau([1, 2, 3, 4], [1, 3, 2, 2]) == pytest.approx(1 / math.sqrt(30), rel=1e-15)
    assert stats.kendall_tau([1, 2, 3], [3, 2, 1]) == -1.0
    assert np.isnan(stats.kendall_tau([1, 1, 1], [1, 2, 3]))
    assert np.isnan(stats.kendall_tau([1, np.nan, 3], [1, 2, 3]))


def test_kendall_tau_rows_equals_scipy_row_by_row():
    rng = np.random.default_rng(5)
    reference = rng.random(40)
    estimates = reference + rng.normal(0, 0.2, size=(30, 40))
    estimates[3] = np.round(estimates[3], 1)  # ties in one row
    taus = stats.kendall_tau_rows(estimates, reference)
    expected = [scipy.stats.kendalltau(row, reference).statistic for row in estimates]
    np.testing.assert_allclose(taus, expected, rtol=0, atol=TOLERANCE)


# ---------------------------------------------------------------- tau distance


def test_tau_distance_hand_computed_with_ties():
    # pairs (0,1) (0,2) (0,3) concordant; (1,2) (1,3) discordant; (2,3) tied in y: not discordant
    assert stats.tau_distance([1, 2, 3, 4], [1, 3, 2, 2]) == pytest.approx(2 / 6, rel=1e-15)
    assert stats.tau_distance([1, 2, 3], [3, 2, 1]) == 1.0
    assert stats.tau_distance([1, 2, 3], [1, 2, 3]) == 0.0
    assert stats.tau_distance([1, 1, 1], [3, 2, 1]) == 0.0  # all tied: nothing discordant


def test_tau_distance_is_half_one_minus_tau_without_ties():
    rng = np.random.default_rng(6)
    x = rng.random(50)
    y = x + rng.normal(0, 0.3, 50)
    expected = (1 - scipy.stats.kendalltau(x, y).statistic) / 2
    assert stats.tau_distance(x, y) == pytest.approx(expected, abs=TOLERANCE)


# ---------------------------------------------------------------- Lu et al. 2017 delta and dist


# Hand case, T = 2 topics -> df = 1 (Cauchy): for per-topic differences (a, b), t = (a + b) / |a - b|
# and delta = 0.5 - p_greater = arctan(t) / pi.
REFERENCE_SCORES = np.array([[2.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
ESTIMATED_SCORES = np.array([[2.0, 1.0], [0.0, 0.0], [2.0, 1.0]])
# reference: d01 = (2, 0) t = 1 -> 1/4; d02 = (1, -1) t = 0 -> 0; d12 = (-1, -1) t = -inf -> -1/2
# estimate:  d01 = (2, 1) t = 3 -> atan(3)/pi; d02 = (0, 0) identical -> 0; d12 = (-2, -1) t = -3
ATAN3 = math.atan(3.0) / math.pi


def test_pairwise_relationship_strength_hand_computed():
    delta = stats.pairwise_relationship_strength(REFERENCE_SCORES)
    expected = np.array([[0.0, 0.25, 0.0], [-0.25, 0.0, -0.5], [0.0, 0.5, 0.0]])
    np.testing.assert_allclose(delta, expected, rtol=0, atol=1e-15)
    delta_estimated = stats.pairwise_relationship_strength(ESTIMATED_SCORES)
    np.testing.assert_allclose(delta_estimated[0, 1], ATAN3, rtol=1e-14)
    np.testing.assert_allclose(delta_estimated[1, 2], -ATAN3, rtol=1e-14)
    assert delta_estimated[0, 2] == 0.0


def test_pairwise_relationship_strength_matches_scipy_one_tailed():
    rng = np.random.default_rng(7)
    scores = rng.random((8, 25)) + np.linspace(0, 0.2, 8)[:, None]
    delta = stats.pairwise_relationship_strength(scores)
    means = scores.mean(axis=1)
    for i in range(8):
        for j in range(8):
            if i == j:
                continue
            if means[i] > means[j]:
                expected = 0.5 - scipy.stats.ttest_rel(scores[i], scores[j], alternative="greater").pvalue
            else:
                expected = scipy.stats.ttest_rel(scores[j], scores[i], alternative="greater").pvalue - 0.5
            assert delta[i, j] == pytest.approx(expected, abs=TOLERANCE)


def test_dist_hand_computed():
    # |1/4 - atan3/pi| + |0 - 0| + |-1/2 + atan3/pi| = (atan3/pi - 1/4) + (1/2 - atan3/pi) = 1/4
    assert stats.dist(REFERENCE_SCORES, ESTIMATED_SCORES) == pytest.approx(0.25, rel=1e-14)
    assert stats.dist(REFERENCE_SCORES, ESTIMATED_SCORES, omega=2.0) == pytest.approx(0.5, rel=1e-14)
    # omega = |delta_ij| of the reference: 1/4 (atan3/pi - 1/4) + 0 + 1/2 (1/2 - atan3/pi)
    expected_weighted = 0.25 * (ATAN3 - 0.25) + 0.5 * (0.5 - ATAN3)
    assert stats.dist(REFERENCE_SCORES, ESTIMATED_SCORES, omega="reference") == pytest.approx(
        expected_weighted, rel=1e-13
    )
    assert stats.dist(REFERENCE_SCORES, REFERENCE_SCORES) == 0.0
    # dist is symmetric in its arguments when omega is a constant
    assert stats.dist(ESTIMATED_SCORES, REFERENCE_SCORES) == pytest.approx(0.25, rel=1e-14)


def test_dist_rejects_bad_omega():
    with pytest.raises(ValueError):
        stats.dist(REFERENCE_SCORES, ESTIMATED_SCORES, omega=-1.0)
    with pytest.raises(ValueError):
        stats.dist(REFERENCE_SCORES, ESTIMATED_SCORES, omega="estimate")


# ---------------------------------------------------------------- pearson, rms_error


def test_pearson_equals_scipy():
    rng = np.random.default_rng(8)
    x = rng.random(47)
    y = 0.5 * x + rng.normal(0, 0.1, 47)
    assert abs(stats.pearson(x, y) - scipy.stats.pearsonr(x, y).statistic) <= TOLERANCE
    assert stats.pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert np.isnan(stats.pearson([1, 1, 1], [1, 2, 3]))


def test_rms_error_hand_computed():
    # differences (3, -4, 0, 0): mean square 25 / 4 -> 2.5
    assert stats.rms_error([3, 0, 1, 1], [0, 4, 1, 1]) == pytest.approx(2.5, rel=1e-15)
    with pytest.raises(ValueError):
        stats.rms_error([1, 2], [1, 2, 3])


def test_significant_pairs_fast_form_equals_ttests():
    rng = np.random.default_rng(0)
    x = rng.random((40, 25))
    x[1] = x[0]  # identical runs
    x[2] = x[0] + 0.01  # constant difference: t = inf, significant
    x[3] = x[0].copy()
    x[3][4] += 1e-13  # nearly identical: cancellation in the Gram form
    x[5] = x[4] * (1 + 1e-9)
    x[6, :] = 0.5  # a constant run
    x[7] = x[8] + rng.normal(0, 1e-3, 25) + 0.0004  # borderline pairs
    for alpha in (0.05, 0.01, 0.2):
        np.testing.assert_array_equal(significant_pairs(x, alpha), paired_ttests(x).significance_signs(alpha))
    for seed in range(20):  # many borderline p-values
        y = np.random.default_rng(seed).normal(0, 1, (30, 10)) + np.linspace(0, 0.6, 30)[:, None]
        np.testing.assert_array_equal(significant_pairs(y), paired_ttests(y).significance_signs(0.05))


def test_significant_pairs_on_sampled_scores():
    from evalkit.data.datasets import load_dataset
    from evalkit.judging.stratified_sampling import sample
    from evalkit.measures.inferred import inferred_measures
    from evalkit.papers import voorhees2014 as v

    synthetic = load_dataset("synthetic", fast=True)
    gold = v.prepare(synthetic)
    half = v.split_judged_runs(gold.judged, 11)
    for name in ("1stratum", "3strata", "pool15"):
        q = sample(synthetic, name, runs=half, seed=2).qrels
        for scores in inferred_measures(synthetic, q, ["infAP", "infNDCG@100", "infP@10"]).values():
            np.testing.assert_array_equal(significant_pairs(scores), paired_ttests(scores).significance_signs(0.05))
