"""The validation (evalkit.planning.validation) in fast size: the vectorized paired t-tests against scipy, the
population judged like the collection it stands for, and a realised power and coverage that are what they say."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evalkit.planning.designs import Design
from evalkit.planning.validation import pair_ttests, realised_intervals, simulate_population, validate


def test_pair_ttests_equal_scipy():
    rng = np.random.default_rng(1)
    x = rng.normal(0.3, 0.1, (6, 1)) + rng.normal(0, 0.15, (6, 25))
    x[5] = x[4]  # identical runs: half-width 0, no test
    diff, half = pair_ttests(x, 0.05)
    for i in range(5):
        for j in range(i + 1, 5):
            test = stats.ttest_rel(x[i], x[j])
            ci = test.confidence_interval(0.95)
            assert diff[i, j] == pytest.approx(x[i].mean() - x[j].mean(), abs=1e-12)
            assert diff[i, j] - half[i, j] == pytest.approx(ci.low, abs=1e-10)
            assert (abs(diff[i, j]) > half[i, j]) == (test.pvalue < 0.05)
    assert half[4, 5] == 0


@pytest.fixture(scope="module")
def population():
    return simulate_population("shallow", n_topics=60, seed=3, runs_depth=30, n_runs=20, cache=False)


def test_population_is_judged_like_its_collection(population):
    from evalkit.data.pools import pool

    assert population.metadata["judged_depth"] == 7 and population.n_topics == 60 and population.n_runs == 20
    expected = pool(population, 7, population.judged_runs)
    assert len(population.qrels) == len(expected)
    assert (population.qrels.grade >= 0).all()
    again = simulate_population("shallow", n_topics=60, seed=3, runs_depth=30, n_runs=20, cache=False)
    assert np.array_equal(again.docs, population.docs) and np.array_equal(again.qrels.grade, population.qrels.grade)


def test_validation_fast(population):
    design = Design("pool", 3, 3)
    result = validate(population, "AP", delta=0.05, designs=[design], plan_topics=20, plan_draws=1, draws=15,
                      replicates=1, seed=2)
    summary = result.summary.set_index("design")
    assert list(summary.index) == ["full judgments", "pool depth 3"]
    for _, row in summary.iterrows():
        assert 0 <= row["realised power at delta"] <= 1 and 0.5 <= row["realised coverage"] <= 1
        assert row["target coverage"] == 0.95
        assert row["power delivered"].split()[0] in ("yes", "above", "below")
    assert (result.by_draw["planned topics"] >= 2).all()
    # the pairs "at delta": true differences (population means, reference judgments) in [delta, 1.25 delta)
    from evalkit.planning.designs import full_scores

    means = full_scores(population, "AP", 7).mean(axis=1)
    gaps = np.abs(means[:, None] - means[None, :])[np.triu_indices(len(means), 1)]
    assert (summary["pairs at delta"] == ((gaps >= 0.05) & (gaps < 0.0625)).sum()).all()
    # the same seed, the same tables
    again = validate(population, "AP", delta=0.05, designs=[design], plan_topics=20, plan_draws=1, draws=15,
                     replicates=1, seed=2)
    assert again.summary.equals(result.summary)
    checks = result.assumptions.set_index("design")
    assert (checks["independence"].str.contains("not tested")).all()


def test_realised_power_is_counted_as_it_says(population):
    """Recount the full judgments' realised power at delta for one plan draw by hand (scipy's paired t-test on
    the same topic draws)."""
    from evalkit.planning.designs import full_scores

    result = validate(population, "AP", delta=0.05, designs=[], plan_topics=20, plan_draws=1, draws=3, seed=5)
    row = result.by_draw.iloc[0]
    n = int(row["planned topics"])
    x = full_scores(population, "AP", 7)
    truth = x.mean(axis=1)[:, None] - x.mean(axis=1)[None, :]
    rng = np.random.default_rng(np.random.SeedSequence([5, 3029, 0]))
    hits = tried = 0
    for _ in range(3):
        idx = rng.integers(0, population.n_topics, size=n)
        for i in range(x.shape[0]):
            for j in range(i + 1, x.shape[0]):
                if 0.05 <= abs(truth[i, j]) < 1.25 * 0.05:
                    test = stats.ttest_rel(x[i, idx], x[j, idx])
                    tried += 1
                    hits += bool(test.pvalue < 0.05 and np.sign(test.statistic) == np.sign(truth[i, j]))
    assert tried > 0
    assert row["realised power at delta"] == pytest.approx(hits / tried)


def test_bad_population_arguments():
    with pytest.raises(ValueError, match="unknown population"):
        simulate_population("robust04", 100)
    with pytest.raises(ValueError, match="n_topics"):
        simulate_population("shallow", 1)


def test_realised_intervals_pool_the_topic_sets_and_rate_the_claims(population):
    """The realised power and coverage with their bootstrap interval over the realised topic sets: the estimate is
    the summary's pooled figure, the interval brackets it, and the claims rows read it by a written rule (scope
    beyond: the kit's own check)."""
    from evalkit.papers.budget_planner.claims import _validation_claims

    result = validate(population, "AP", delta=0.05, designs=[Design("pool", 3, 3)], plan_topics=20, plan_draws=2,
                      draws=12, replicates=1, seed=4)
    summary = result.summary.set_index("design")
    assert len(result.realisations) == 2 * 2 * 12
    for design, row in summary.iterrows():
        found = realised_intervals(result, design, seed=0)
        assert found["power"].estimate == pytest.approx(row["realised power at delta"], abs=1e-12)
        assert found["coverage"].estimate == pytest.approx(row["realised coverage"], abs=1e-12)
        for interval in found.values():
            assert interval.low <= interval.estimate <= interval.high and interval.n == 24
            assert "bootstrap over 24 topic sets" in interval.text()
    rows = _validation_claims(result)
    assert len(rows) == 4 and {r.scope for r in rows} == {"beyond"}
    assert all(r.rule and "over its whole interval" in r.rule and "bootstrap over 24" in r.interval for r in rows)
    assert all(r.agrees in ("yes", "no", "inconclusive") for r in rows)


def test_a_realised_power_is_rated_on_its_interval_not_its_point():
    """Within the tolerance over the whole interval: yes; entirely outside: no; straddling it: inconclusive."""
    from evalkit.papers.budget_planner.claims import _within
    from evalkit.stats import Interval

    assert _within(Interval(0.82, 0.79, 0.84), 0.80, 0.05, "p").agrees == "yes"
    assert _within(Interval(0.70, 0.68, 0.72), 0.80, 0.05, "p").agrees == "no"
    assert _within(Interval(0.95, 0.90, 0.99), 0.80, 0.05, "p").agrees == "no"  # conservative
    assert _within(Interval(0.80, 0.70, 0.90), 0.80, 0.05, "p").agrees == "inconclusive"
