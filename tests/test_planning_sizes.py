"""Topic set sizes (evalkit.planning.topic_set_size) against statsmodels' power solvers, scipy and hand-computed
cases: the paired and unpaired t-test, the one-way ANOVA, the CI width, the inverse question, and the bias."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.power import FTestAnovaPower, TTestIndPower, TTestPower

from evalkit.planning import topic_set_size as tss

GRID = [(delta, variance, alpha, power) for delta in (0.02, 0.05, 0.1) for variance in (0.005, 0.02, 0.06)
        for alpha, power in ((0.05, 0.8), (0.01, 0.9))]


def test_ttest_power_hand_computed():
    # one-sample (paired) t-test, Cohen's d = 1 (delta 1, sigma_d^2 = 2 * 0.5), n = 10, two-sided alpha 0.05:
    # 0.8030962 (G*Power's published figure for this case)
    assert tss.ttest_power(10, 1.0, 0.5) == pytest.approx(0.8030962, abs=2e-6)
    # by hand: the two tails of the noncentral t with 9 df and noncentrality sqrt(10)
    crit = stats.t.isf(0.025, 9)
    by_hand = stats.nct.sf(crit, 9, math.sqrt(10)) + stats.nct.cdf(-crit, 9, math.sqrt(10))
    assert tss.ttest_power(10, 1.0, 0.5) == pytest.approx(by_hand, abs=1e-12)


@pytest.mark.parametrize("delta, variance, alpha, power", GRID)
def test_paired_ttest_topics_equal_statsmodels(delta, variance, alpha, power):
    n = tss.ttest_topics(delta, variance, alpha, power, paired=True)
    solved = TTestPower().solve_power(effect_size=delta / math.sqrt(2 * variance), nobs=None, alpha=alpha,
                                      power=power, alternative="two-sided")
    assert n == math.ceil(solved)
    assert tss.ttest_power(n, delta, variance, alpha) >= power > tss.ttest_power(n - 1, delta, variance, alpha)
    assert tss.ttest_power(n, delta, variance, alpha) == pytest.approx(
        TTestPower().power(effect_size=delta / math.sqrt(2 * variance), nobs=n, alpha=alpha), abs=1e-10)


@pytest.mark.parametrize("delta, variance, alpha, power", GRID)
def test_unpaired_ttest_topics_equal_statsmodels(delta, variance, alpha, power):
    n = tss.ttest_topics(delta, variance, alpha, power, paired=False)
    solved = TTestIndPower().solve_power(effect_size=delta / math.sqrt(variance), nobs1=None, alpha=alpha,
                                         power=power, ratio=1.0)
    assert n == math.ceil(solved)
    assert tss.ttest_power(n, delta, variance, alpha, paired=False) == pytest.approx(
        TTestIndPower().power(effect_size=delta / math.sqrt(variance), nobs1=n, alpha=alpha), abs=1e-10)


@pytest.mark.parametrize("systems", [2, 5, 20])
@pytest.mark.parametrize("delta, variance, alpha, power", GRID[::3])
def test_anova_topics_equal_statsmodels(delta, variance, alpha, power, systems):
    # Sakai's least favourable configuration: lambda = n delta^2 / (2 sigma^2); statsmodels' f^2 * nobs with
    # nobs = m n, so f = delta / (sigma sqrt(2 m))
    f = delta / math.sqrt(2 * systems * variance)
    n = tss.anova_topics(delta, variance, systems, alpha, power)
    total = FTestAnovaPower().solve_power(effect_size=f, nobs=None, alpha=alpha, power=power, k_groups=systems)
    assert n == math.ceil(total / systems - 1e-9)
    assert tss.anova_power(n, delta, variance, systems, alpha) == pytest.approx(
        FTestAnovaPower().power(effect_size=f, nobs=n * systems, alpha=alpha, k_groups=systems), abs=1e-10)
    assert tss.anova_power(n - 1, delta, variance, systems, alpha) < power


def test_anova_of_two_systems_is_the_unpaired_ttest():
    for delta, variance, alpha, power in GRID:
        assert tss.anova_topics(delta, variance, 2, alpha, power) == tss.ttest_topics(delta, variance, alpha, power,
                                                                                      paired=False)


def test_ci_width_hand_computed():
    # paired, n = 10, sigma^2 = 0.02: sigma_d = 0.2; E[s] = sigma c(9), c(9) = sqrt(2/9) Gamma(5) / Gamma(4.5)
    c9 = math.sqrt(2 / 9) * math.gamma(5) / math.gamma(4.5)
    expected = 2 * stats.t.isf(0.025, 9) * c9 * 0.2 / math.sqrt(10)
    assert tss.ci_width(10, 0.02) == pytest.approx(expected, rel=1e-12)
    assert tss.ci_width(10, 0.02, expected=False) == pytest.approx(2 * stats.t.isf(0.025, 9) * 0.2 / math.sqrt(10))
    # unpaired: sd of the difference sigma sqrt(2/n), 2(n - 1) = 18 df
    c18 = math.sqrt(2 / 18) * math.gamma(9.5) / math.gamma(9)
    assert tss.ci_width(10, 0.02, paired=False) == pytest.approx(
        2 * stats.t.isf(0.025, 18) * c18 * math.sqrt(0.02 * 2 / 10), rel=1e-12)


def test_expected_ci_width_matches_simulation():
    rng = np.random.default_rng(7)
    n, variance = 12, 0.03
    d = rng.normal(0.0, math.sqrt(2 * variance), size=(200_000, n))
    widths = 2 * stats.t.isf(0.025, n - 1) * d.std(axis=1, ddof=1) / math.sqrt(n)
    assert widths.mean() == pytest.approx(tss.ci_width(n, variance), rel=3e-3)


@pytest.mark.parametrize("width", [0.05, 0.1, 0.2])
def test_ci_topics_is_the_smallest_n(width):
    for paired in (True, False):
        n = tss.ci_topics(width, 0.02, 0.05, paired)
        assert tss.ci_width(n, 0.02, 0.05, paired) <= width < tss.ci_width(n - 1, 0.02, 0.05, paired)


def test_nagata_approximation_by_hand():
    z_a, z_b = stats.norm.isf(0.025), stats.norm.isf(0.2)
    assert tss.ttest_topics_approx(0.05, 0.02) == pytest.approx((z_a + z_b) ** 2 * 0.04 / 0.0025 + z_a**2 / 2)
    assert abs(tss.ttest_topics_approx(0.05, 0.02) - tss.ttest_topics(0.05, 0.02)) <= 1


@pytest.mark.parametrize("n", [10, 50, 200])
def test_detectable_difference_equals_statsmodels(n):
    variance = 0.02  # statsmodels' root finder stops at about 1e-5 relative; ours reaches the power to 1e-9
    ours = tss.detectable_difference(n, variance)
    effect = TTestPower().solve_power(effect_size=None, nobs=n, alpha=0.05, power=0.8)
    assert ours == pytest.approx(effect * math.sqrt(2 * variance), rel=1e-4)
    assert tss.ttest_power(n, ours, variance) == pytest.approx(0.8, abs=1e-9)
    ours = tss.detectable_difference(n, variance, paired=False)
    effect = TTestIndPower().solve_power(effect_size=None, nobs1=n, alpha=0.05, power=0.8)
    assert ours == pytest.approx(effect * math.sqrt(variance), rel=1e-4)
    assert tss.ttest_power(n, ours, variance, paired=False) == pytest.approx(0.8, abs=1e-9)
    ours = tss.detectable_difference(n, variance, test="anova", systems=5)
    f = FTestAnovaPower().solve_power(effect_size=None, nobs=5 * n, alpha=0.05, power=0.8, k_groups=5)
    assert ours == pytest.approx(f * math.sqrt(2 * 5 * variance), rel=1e-4)
    assert tss.anova_power(n, ours, variance, 5) == pytest.approx(0.8, abs=1e-9)
    assert tss.detectable_difference(n, variance, test="ci") == tss.ci_width(n, variance)
    # and the inverse of the inverse
    assert tss.ttest_topics(tss.detectable_difference(n, variance) * 1.000001, variance) == n


def test_vectorized_equals_one_by_one():
    deltas, variances = np.array([0.02, 0.05, 0.1]), np.array([0.01, 0.02, 0.04])
    together = tss.ttest_topics(deltas, variances)
    assert list(together) == [tss.ttest_topics(d, v) for d, v in zip(deltas, variances)]


def test_bias_zero_is_sakai_and_bias_caps_the_power():
    assert tss.ttest_topics_with_bias(0.05, 0.02, 0.0) == tss.ttest_topics(0.05, 0.02)
    assert tss.ttest_power_with_bias(128, 0.05, 0.02, 0.0) == pytest.approx(
        stats.nct.sf(stats.t.isf(0.025, 127), 127, 0.05 / math.sqrt(0.04 / 128)), abs=1e-9)
    sizes = [tss.ttest_topics_with_bias(0.05, 0.02, b) for b in (0.0, 0.005, 0.01, 0.02)]
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1]
    # the ceiling: Phi(delta / (sqrt 2 b)); b = 0.04 gives Phi(0.884) = 0.81 > 0.8 (reachable), b = 0.05 does not
    assert math.isfinite(tss.ttest_topics_with_bias(0.05, 0.02, 0.04))
    assert tss.ttest_topics_with_bias(0.05, 0.02, 0.05) == math.inf
    assert tss.ttest_power_with_bias(10**9, 0.05, 0.02, 0.04) == pytest.approx(stats.norm.cdf(0.05 / (2**0.5 * 0.04)),
                                                                               abs=1e-3)


def test_bias_power_equals_the_expectation_over_the_bias():
    # the closed form (a noncentral t scaled by k) against a brute-force expectation over eta ~ N(0, 2 b^2)
    n, delta, variance, bias = 40, 0.05, 0.02, 0.015
    se, df = math.sqrt(2 * variance / n), n - 1
    eta = np.linspace(-8, 8, 20001) * math.sqrt(2) * bias
    weight = stats.norm.pdf(eta, scale=math.sqrt(2) * bias)
    right = stats.nct.sf(stats.t.isf(0.025, df), df, (delta + eta) / se)
    brute = np.trapezoid(right * weight, eta)
    assert tss.ttest_power_with_bias(n, delta, variance, bias) == pytest.approx(brute, abs=1e-6)


def test_topic_set_sizes_table():
    table = tss.topic_set_sizes(0.02, 0.03, delta=0.05, width=0.1, systems=(2, 5))
    assert table.loc["paired t-test", "topics"] == tss.ttest_topics(0.05, 0.02)
    assert table.loc["unpaired t-test (per system)", "topics"] == tss.ttest_topics(0.05, 0.03, paired=False)
    assert table.loc["one-way ANOVA, 5 systems", "topics"] == tss.anova_topics(0.05, 0.03, 5)
    assert table.loc["paired CI", "topics"] == tss.ci_topics(0.1, 0.02)


@pytest.mark.parametrize("call, name", [
    (lambda: tss.ttest_topics(0.05, 0.02, alpha=1.5), "alpha"),
    (lambda: tss.ttest_topics(0.05, 0.02, power=0.01), "power"),
    (lambda: tss.ttest_topics(-0.05, 0.02), "delta"),
    (lambda: tss.ci_topics(0.0, 0.02), "width"),
    (lambda: tss.ttest_topics(0.05, float("nan")), "variance"),
    (lambda: tss.anova_topics(0.05, 0.02, 1), "systems"),
    (lambda: tss.ttest_power(1, 0.05, 0.02), "n"),
])
def test_bad_parameters_are_named(call, name):
    with pytest.raises(ValueError, match=f"^{name} "):
        call()


def test_unreachable_is_inf():
    assert tss.ttest_topics(1e-9, 0.5) == math.inf


@pytest.mark.parametrize("guess", [None, 2, 30, 36, 37, 38, 45, 1000, np.nan])
def test_smallest_n_whatever_the_guess(guess):
    reaches = lambda k: np.asarray(k) >= 37  # noqa: E731
    assert tss._smallest_n(reaches, (), guess=None if guess is None else np.asarray(guess, float)) == 37
    together = tss._smallest_n(lambda k: np.asarray(k) >= np.array([5, 37, 400]), (3,),
                               guess=None if guess is None else np.full(3, guess, float))
    assert list(together) == [5, 37, 400]
    assert tss._smallest_n(lambda k: np.asarray(k) < 0, (), guess=None if guess is None else
                           np.asarray(guess, float)) == math.inf


@pytest.mark.parametrize("given, name", [
    ({"alpha": 0.7}, "alpha"), ({"alpha": True}, "alpha"), ({"power": 0.04}, "power"), ({"delta": 1.5}, "delta"),
    ({"delta": float("nan")}, "delta"), ({"ci_width": 0}, "ci_width"), ({"budget": -5}, "budget"),
    ({"budget": float("inf")}, "budget"), ({"budget": "half"}, "budget"), ({"seed": -1}, "seed"),
    ({"seed": 2.5}, "seed"), ({"measure": "no-such-measure"}, "measure"), ({"measure": "infAP"}, "measure"),
    ({"measures": "AP"}, "measures"), ({"measures": []}, "measures"), ({"measures": ["AP", "AP"]}, "measures"),
    ({"measures": ["AP"] * 9}, "measures"),
])
def test_the_planner_names_a_bad_parameter_in_one_sentence(given, name):
    """bp.plan checks every parameter before it reads the collection (none is needed to refuse a bad value)."""
    from evalkit.papers.budget_planner import plan

    arguments = {"measure": "AP", "measures": ["AP"], **given}
    with pytest.raises(ValueError, match=f"^Parameter {name}: ") as error:
        plan(None, **arguments)
    assert str(error.value).replace("e.g. ", "").count(". ") == 0 and str(error.value).endswith(".")


@pytest.mark.parametrize("given, name", [
    ({"replicates": 0}, "replicates"), ({"replicates": 1.5}, "replicates"), ({"population_topics": 50},
                                                                              "population_topics"),
    ({"validation_draws": True}, "validation_draws"), ({"fast": "yes"}, "fast"), ({"trials": 3}, "trials"),
])
def test_the_planner_sizes_name_a_bad_value(given, name):
    from evalkit.papers.budget_planner import settings

    with pytest.raises(ValueError, match=f"^Parameter {name}: "):
        settings("class", **given)
    assert settings("class", replicates=3).replicates == 3 and settings("class").replicates == 5
