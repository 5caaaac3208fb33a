"""Within-system variance (evalkit.planning.variance) against a direct two-way ANOVA (statsmodels' OLS with
system and topic factors), hand-computed cases, and the identity behind Sakai's paired estimate."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from evalkit.planning import variance as pv


def _scores(seed=0, m=7, n=11):
    rng = np.random.default_rng(seed)
    return rng.beta(2, 5, size=(m, 1)) + rng.normal(0, 0.1, size=(1, n)) + rng.normal(0, 0.05, size=(m, n))


def test_two_way_anova_equals_statsmodels():
    from statsmodels.formula.api import ols
    from statsmodels.stats.anova import anova_lm

    x = _scores()
    m, n = x.shape
    frame = pd.DataFrame({"score": x.ravel(), "system": np.repeat(np.arange(m), n).astype(str),
                          "topic": np.tile(np.arange(n), m).astype(str)})
    oracle = anova_lm(ols("score ~ C(system) + C(topic)", data=frame).fit(), typ=2)
    table = pv.two_way_anova(x)
    for ours, theirs in (("system", "C(system)"), ("topic", "C(topic)"), ("residual", "Residual")):
        assert table.loc[ours, "SS"] == pytest.approx(oracle.loc[theirs, "sum_sq"], rel=1e-10)
        assert table.loc[ours, "df"] == oracle.loc[theirs, "df"]
    for ours, theirs in (("system", "C(system)"), ("topic", "C(topic)")):
        assert table.loc[ours, "F"] == pytest.approx(oracle.loc[theirs, "F"], rel=1e-10)
    assert pv.within_system_variance(x) == pytest.approx(oracle.loc["Residual", "sum_sq"] / oracle.loc["Residual",
                                                                                                          "df"])
    assert table["SS"][["system", "topic", "residual"]].sum() == pytest.approx(table.loc["total", "SS"])


def test_one_way_equals_statsmodels_and_pooled_variances():
    from statsmodels.formula.api import ols
    from statsmodels.stats.anova import anova_lm

    x = _scores(1)
    m, n = x.shape
    frame = pd.DataFrame({"score": x.ravel(), "system": np.repeat(np.arange(m), n).astype(str)})
    oracle = anova_lm(ols("score ~ C(system)", data=frame).fit())
    assert pv.within_system_variance(x, paired=False) == pytest.approx(oracle.loc["Residual", "mean_sq"], rel=1e-10)
    assert pv.within_system_variance(x, paired=False) == pytest.approx(x.var(axis=1, ddof=1).mean(), rel=1e-12)


def test_hand_computed_two_by_three():
    x = np.array([[0.1, 0.4, 0.7], [0.3, 0.4, 0.8]])
    # grand 0.45; system means 0.4, 0.5; topic means 0.2, 0.4, 0.75
    # residuals x - row - col + grand: [[0.1-0.4-0.2+0.45, 0.4-0.4-0.4+0.45, 0.7-0.4-0.75+0.45],
    #                                   [0.3-0.5-0.2+0.45, 0.4-0.5-0.4+0.45, 0.8-0.5-0.75+0.45]]
    #                                 = [[-0.05, 0.05, 0.0], [0.05, -0.05, 0.0]]: SS_E = 0.01, df 2
    assert pv.within_system_variance(x) == pytest.approx(0.005)
    assert pv.two_way_anova(x).loc["system", "SS"] == pytest.approx(3 * (0.05**2 + 0.05**2))
    assert pv.total_variance(x) == pytest.approx(np.var(x, ddof=1))


def test_paired_estimate_is_the_mean_half_variance_of_the_pairs_differences():
    """V_E = mean over the pairs of runs of Var_t(x_it - x_jt) / 2: Sakai's 2 sigma^2 is exact on average over the
    pairs (what it hides is how the pairs spread around it: evalkit.planning.validation)."""
    x = _scores(2, m=9, n=13)
    halves = [np.var(x[i] - x[j], ddof=1) / 2 for i, j in itertools.combinations(range(len(x)), 2)]
    assert pv.within_system_variance(x) == pytest.approx(np.mean(halves), rel=1e-12)


def test_estimates_table_orders_the_estimates():
    table = pv.variance_estimates(_scores(3))
    assert table.loc["paired", "variance"] < table.loc["unpaired", "variance"] < table.loc["total", "variance"]
    assert list(table.index) == ["paired", "unpaired", "total"]


def test_bad_matrices_are_refused_by_name():
    x = _scores()
    x[2, 5] = np.nan
    with pytest.raises(ValueError, match="system 2, topic 5"):
        pv.within_system_variance(x)
    with pytest.raises(ValueError, match="at least 2 systems"):
        pv.two_way_anova(np.ones((1, 5)))
    with pytest.raises(ValueError, match="2-D"):
        pv.total_variance(np.ones(5))
