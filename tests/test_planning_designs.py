"""Judging designs and plans (evalkit.planning.designs, evalkit.planning.plan) on a collection read from files:
costs counted independently, the reference design equal to the full judgments, planted biases recovered, seeds
honoured, plans that pick what they say they pick."""

from __future__ import annotations

import numpy as np
import pytest

from evalkit.data.pools import pool
from evalkit.data.simulator import write_collection
from evalkit.judging.stratified_sampling import Strategy, Stratum, sample
from evalkit.planning import designs as pd_
from evalkit.planning.plan import plan
from evalkit.planning.topic_set_size import ci_topics, ttest_topics
from evalkit.planning.variance import within_system_variance


@pytest.fixture(scope="module")
def shallow(tmp_path_factory):
    from evalkit.data.datasets import load_directory

    folder = write_collection(tmp_path_factory.mktemp("planning") / "shallow", "shallow", n_runs=40, depth=50)
    return load_directory(folder, cache=False)


@pytest.fixture(scope="module")
def variances(shallow):
    return pd_.design_variances(shallow, "AP", replicates=2, seed=3)


def test_measure_names():
    assert pd_.measure_names("AP").sampled == "infAP"
    assert pd_.measure_names("nDCG@20").sampled == "infNDCG@20"
    assert pd_.measure_names("P@10").sampled == "infP@10"
    assert pd_.measure_names("RBP(p=0.95)").rbp_p == 0.95
    assert pd_.measure_names("Rprec").sampled is None
    with pytest.raises(ValueError, match="infAP"):
        pd_.measure_names("infAP")


def test_grid_follows_the_judged_depth(shallow, variances):
    assert variances.attrs["judged_depth"] == 7 and variances.attrs["sample_depth"] == 7
    assert variances["family"].iloc[0] == "full"
    pools = variances[variances.family == "pool"]
    assert list(pools.level) == [1, 2, 3, 5, 7]
    assert set(variances.family) == {"full", "pool", "uniform", "stratified"}  # AP: no estimated design
    strat = variances[variances.family == "stratified"]
    assert (strat.design.str.startswith("[1-1] + ")).all()  # 10 * 7 / 100 rounds to 1


def test_pool_at_the_judged_depth_is_the_full_judgments(variances):
    full = variances.iloc[0]
    deepest = variances[(variances.family == "pool") & (variances.level == 7)].iloc[0]
    assert deepest["variance"] == pytest.approx(full["variance"], rel=1e-12)
    assert deepest["attenuation"] == pytest.approx(1.0)
    assert deepest["bias sd"] == pytest.approx(0.0, abs=1e-12)
    assert deepest["judgments per topic"] == pytest.approx(full["judgments per topic"])


def test_pool_costs_counted_by_hand(shallow, variances):
    judged = np.flatnonzero(shallow.judged_runs)
    for depth in (1, 3, 5):
        sizes = [len({int(d) for d in shallow.docs[judged, t, :depth].ravel() if d >= 0})
                 for t in range(shallow.n_topics)]
        row = variances[(variances.family == "pool") & (variances.level == depth)].iloc[0]
        assert row["judgments per topic"] == pytest.approx(np.mean(sizes))


def test_full_variance_is_the_two_way_residual(shallow, variances):
    from evalkit.measures.evaluation import score_matrix

    assert variances.iloc[0]["variance"] == pytest.approx(within_system_variance(score_matrix(shallow, "AP")))


def test_a_pool_given_once_gives_the_same_sample(shallow):
    strategy = Strategy("s", (Stratum(1, 2, 1.0), Stratum(3, 7, 0.3)))
    alone = sample(shallow, strategy, seed=11)
    shared = sample(shallow, strategy, seed=11, pooled=pool(shallow, 7))
    for field in ("topic", "doc", "grade", "stratum"):
        assert np.array_equal(getattr(alone.qrels, field), getattr(shared.qrels, field))
    shallower = Strategy("t", (Stratum(1, 1, 1.0), Stratum(2, 4, 0.5)))  # from a deeper pool: cut to its depth
    assert np.array_equal(sample(shallow, shallower, seed=12).qrels.doc,
                          sample(shallow, shallower, seed=12, pooled=pool(shallow, 7)).qrels.doc)
    with pytest.raises(ValueError, match="pooled"):
        sample(shallow, strategy, seed=11, pooled=pool(shallow, 3))


def test_sample_costs_follow_the_rate(variances):
    uniform = variances[variances.family == "uniform"].set_index("level")
    full = variances.iloc[0]["judgments per topic"]
    for rate, row in uniform.iterrows():
        assert row["judgments per topic"] == pytest.approx(rate * full, rel=0.25)


def test_same_seed_same_numbers(shallow, variances):
    again = pd_.design_variances(shallow, "AP", replicates=2, seed=3)
    columns = ["judgments per topic", "variance", "attenuation", "bias sd"]
    assert np.array_equal(again[columns].to_numpy(), variances[columns].to_numpy())
    other = pd_.design_variances(shallow, "AP", replicates=2, seed=4)
    random = (variances.family == "uniform").to_numpy()
    assert not np.array_equal(other.loc[random, "variance"].to_numpy(), variances.loc[random, "variance"].to_numpy())
    deterministic = (variances.family == "pool").to_numpy()
    assert np.array_equal(other.loc[deterministic, "variance"].to_numpy(),
                          variances.loc[deterministic, "variance"].to_numpy())


def test_planted_attenuation_and_bias_are_recovered():
    rng = np.random.default_rng(5)
    S, T = 60, 4000
    x = rng.beta(2, 5, (S, 1)) + rng.normal(0, 0.1, (1, T)) + rng.normal(0, 0.1, (S, T))
    bias = rng.normal(0, 0.02, S)
    y = 0.5 * x + bias[:, None] + rng.normal(0, 0.05, (S, T))
    assert pd_.attenuation(y, x) == pytest.approx(0.5, abs=0.05)
    assert np.sqrt(pd_.bias_variance(y, x, 0.5)) == pytest.approx(np.std(bias, ddof=1), rel=0.1)
    unbiased = 0.5 * x + rng.normal(0, 0.05, (S, T))
    assert pd_.bias_variance(unbiased, x, 0.5) < 1e-5
    # few topics: the per-topic noise inflates the run means' spread by MS_residual / T, which the estimator removes
    few = 0.5 * x[:, :20] + rng.normal(0, 0.05, (S, 20))
    assert pd_.bias_variance(few, x[:, :20], 0.5) < 4e-5 < 0.05**2 / 20


def test_bias_variance_is_the_anova_system_component():
    from statsmodels.formula.api import ols
    from statsmodels.stats.anova import anova_lm
    import pandas as pd

    rng = np.random.default_rng(8)
    x = rng.beta(2, 5, (9, 1)) + rng.normal(0, 0.1, (9, 15))
    y = 0.8 * x + rng.normal(0, 0.03, (9, 1)) + rng.normal(0, 0.05, (9, 15))
    d = y - 0.8 * x
    frame = pd.DataFrame({"d": d.ravel(), "system": np.repeat(np.arange(9), 15).astype(str),
                          "topic": np.tile(np.arange(15), 9).astype(str)})
    table = anova_lm(ols("d ~ C(system) + C(topic)", data=frame).fit(), typ=2)
    ms = table["sum_sq"] / table["df"]
    assert pd_.bias_variance(y, x, 0.8) == pytest.approx((ms["C(system)"] - ms["Residual"]) / 15, rel=1e-9)


def test_rbp_plans_include_lu_estimates(shallow):
    from evalkit.estimation import reference_scores

    with pytest.raises(ValueError, match=r"on graded qrels RBP\(p=x\) is graded"):
        pd_.design_variances(shallow, "RBP(p=0.8)", replicates=1, families=("pool",))
    frame = pd_.design_variances(shallow, "RBP(p=0.8,rel=1)", replicates=1, families=("pool", "estimated"))
    assert set(frame.family) == {"full", "pool", "estimated"}
    full = reference_scores(shallow, 7, runs=np.ones(shallow.n_runs, bool), p=0.8).score
    assert frame.iloc[0]["variance"] == pytest.approx(within_system_variance(full))
    assert frame[frame.family == "estimated"]["scored with"].str.contains("RM estimate").all()
    pools = frame[frame.family == "pool"].set_index("level")["judgments per topic"]
    estimated = frame[frame.family == "estimated"].set_index("level")["judgments per topic"]
    assert np.allclose(estimated.to_numpy(), pools.loc[estimated.index].to_numpy())  # an estimate costs its pool
    # a pool is scored to the metric depth D = 7 (unjudged below k nonrelevant), not to its own depth k
    qrels = pool(shallow, 2).judged_set(shallow.qrels)
    scores, _ = pd_.design_scores(shallow, pd_.Design("pool", 2, 2), "RBP(p=0.8,rel=1)", metric_depth=7)
    assert np.allclose(scores, reference_scores(shallow, 7, runs=np.ones(shallow.n_runs, bool), p=0.8,
                                                qrels=qrels).score)
    assert frame[(frame.family == "pool") & (frame.level == 2)]["variance"].iloc[0] == pytest.approx(
        within_system_variance(scores))


def test_plan_sizes_and_choices(variances):
    table = plan(variances, delta=0.05, power=0.8, budget=5000)
    full = table.iloc[0]
    assert full["topics"] == ttest_topics(0.05, variances.iloc[0]["effective variance"], 0.05, 0.8)
    meets = table[table["meets requirement"]]
    assert table.loc[table.cheapest, "total judgments"].iloc[0] == meets["total judgments"].min()
    affordable = table[table["affordable topics"] >= 2]
    assert table.loc[table.best, "power within budget"].iloc[0] == affordable["power within budget"].max()
    assert (table["affordable topics"] == np.floor(5000 / table["judgments per topic"])).all()
    assert "within 5,000 judgments" in table.attrs["requirement"]


def test_ci_plan_adds_the_bias_band(variances):
    table = plan(variances, ci_width=0.2)
    unbiased = table.iloc[0]
    assert unbiased["topics"] == ci_topics(0.2, unbiased["effective variance"])
    biased = table[table["bias sd"] > 0.05]
    assert (biased["topics"] == np.inf).all()  # a band 2 z sqrt(2) bias wider than the cap: infeasible


@pytest.mark.parametrize("kwargs, message", [
    ({}, "exactly one of delta"),
    ({"delta": 0.05, "ci_width": 0.1}, "exactly one of delta"),
    ({"delta": 0.05, "test": "ci"}, "test 'ci' takes ci_width"),
    ({"delta": 0.05, "test": "wilcoxon"}, "test must be one of"),
    ({"delta": 0.05, "budget": -3}, "budget must be"),
    ({"delta": 0.05, "power": 2}, "power must be"),
])
def test_plan_refuses_bad_requirements(variances, kwargs, message):
    with pytest.raises(ValueError, match=message):
        plan(variances, **kwargs)
