"""Tests for evalkit.papers.yilmaz2008 (Yilmaz, Kanoulas & Aslam 2008): truth, designs, figures, KS test.

All on the small synthetic collection (fast mode): invariants that hold whatever the simulator's parameters.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import evalkit
from evalkit.data.pools import pool
from evalkit.measures.evaluation import score_matrix
from evalkit.measures.inferred import inferred_measures
from evalkit.papers import yilmaz2008 as y
from evalkit.stats import kendall_tau, pearson, rms_error


@pytest.fixture(scope="module")
def collection():
    return evalkit.load_dataset("synthetic", fast=True)


@pytest.fixture(scope="module")
def gold(collection):
    return y.prepare(collection)


def _judged(qrels) -> np.ndarray:
    return np.bincount(qrels.topic[qrels.grade >= 0], minlength=qrels.n_topics)


# ------------------------------------------------------------------------------------------- truth


def test_gold_is_the_depth100_pool_of_the_judged_runs(collection, gold):
    p = pool(collection, 100)
    assert len(gold.qrels) == len(p) == gold.n_pooled
    assert (gold.qrels.grade >= 0).all() and (gold.qrels.stratum == 1).all()
    np.testing.assert_array_equal(gold.qrels.keys, p.keys)
    np.testing.assert_array_equal(gold.judged, collection.judged_runs)
    assert 0 < gold.judged.sum() < collection.n_runs  # dots and pluses both present
    np.testing.assert_allclose(gold.ap, score_matrix(collection, "AP", gold.qrels), atol=0)
    np.testing.assert_allclose(gold.ndcg, score_matrix(collection, "nDCG", gold.qrels), atol=1e-12)
    np.testing.assert_allclose(gold.map, gold.ap.mean(axis=1))  # every run retrieves every topic here
    assert gold.runs_frame().shape == (collection.n_runs, 3)


def test_plain_ndcg_equals_trec_eval_on_samples(collection, gold):
    q = y.random_judgments(gold, 0.3, seed=1)
    np.testing.assert_allclose(y.plain_ndcg(gold, q), score_matrix(collection, "nDCG", q), atol=1e-12)
    g100 = y.prepare(collection, ndcg_cutoff=100)
    assert g100.ndcg_name == "nDCG@100" and g100.infndcg_name == "infNDCG@100"
    np.testing.assert_allclose(y.plain_ndcg(g100, q), score_matrix(collection, "nDCG@100", q), atol=1e-12)
    # relevant documents outside the pool: the general path
    full = collection.qrels
    np.testing.assert_allclose(y.plain_ndcg(gold, full), score_matrix(collection, "nDCG", full), atol=1e-12)


def test_agreement_matches_the_stats_module(gold):
    rng = np.random.default_rng(0)
    est = gold.map + rng.normal(0, 0.02, size=(3, len(gold.map)))
    a = y.agreement(gold.map, est)
    for i in range(3):
        assert a["tau"][i] == pytest.approx(kendall_tau(gold.map, est[i]))
        assert a["rho"][i] == pytest.approx(pearson(gold.map, est[i]))
        assert a["rms"][i] == pytest.approx(rms_error(gold.map, est[i]))


# ------------------------------------------------------------------------------------------ designs


def test_random_judgments_take_p_of_each_topic(gold):
    q = y.random_judgments(gold, 0.2, seed=3)
    np.testing.assert_array_equal(_judged(q), np.floor(0.2 * gold.pool_size + 0.5))
    assert len(q) == gold.n_pooled  # the unsampled pooled documents stay in the qrels with grade -1
    assert y.random_judgments(gold, 1.0) is gold.qrels


def test_depth_random_judges_the_depth_k_pool_and_as_many_again(collection, gold):
    k = 5
    q = y.depth_random_judgments(gold, k, seed=4)
    depth_k = pool(collection, k)
    grade = q.lookup(depth_k.topic, depth_k.doc)
    assert (grade >= 0).all()  # the depth-k pool is fully judged
    np.testing.assert_array_equal(_judged(q), np.minimum(2 * depth_k.sizes(), gold.pool_size))
    assert y.depth_random_judgments(gold, 100) is gold.qrels
    s = y.depth_strata_judgments(gold, k, seed=4)
    assert (s.lookup(depth_k.topic, depth_k.doc) >= 0).all()
    assert np.abs(_judged(s) - np.minimum(2 * depth_k.sizes(), gold.pool_size)).max() <= 2  # rounding per stratum
    assert set(np.unique(s.stratum)) == {1, 2, 3, 4}


def test_full_pool_gives_the_truth(collection, gold):
    """Judging the whole pool: infAP = xinfAP = AP (up to the smoothing constants), infNDCG = nDCG."""
    m = inferred_measures(collection, y.depth_random_judgments(gold, 100), ["infAP", "trec_infAP", "infNDCG"])
    np.testing.assert_allclose(m["infAP"], gold.ap, atol=1e-4)
    np.testing.assert_allclose(m["trec_infAP"], gold.ap, atol=1e-4)
    np.testing.assert_allclose(m["infNDCG"], gold.ndcg, atol=1e-9)


# ------------------------------------------------------------------------------------------ figure 1


def test_figure1_shapes_and_full_sample(gold):
    frame = y.figure1(gold, [0.2, 1.0], seed=1)
    n_forms = len(y.VARIANCE_FORMS)
    assert len(frame) == 2 * n_forms * len(gold.map)
    assert set(frame.columns) >= {"p", "form", "run", "judged", "MAP", "mean_infAP", "sd", "ci_low", "ci_high",
                                  "covers", "judgments", "share"}
    full = frame[frame.p == 1.0]
    np.testing.assert_allclose(full["mean_infAP"], full["MAP"], atol=1e-4)  # p = 100%: infAP == AP
    np.testing.assert_allclose(full["ci_high"] - full["ci_low"], 0.0, atol=0)  # and the interval has width 0
    assert (full["judgments"] == gold.n_pooled).all()
    part = frame[frame.p == 0.2]
    assert (part["ci_high"] > part["ci_low"]).all()
    np.testing.assert_array_equal(part["covers"], (part.ci_low <= part.MAP) & (part.MAP <= part.ci_high))
    summary = y.figure1_summary(frame)
    assert len(summary) == 2 * n_forms
    assert (summary.loc[summary.p == 1.0, "RMS"] < 1e-4).all()
    # the covariance form only adds (positive) covariances; the estimate itself does not depend on the form
    wide = part.pivot(index="run", columns="form", values="sd")
    assert (wide["unbiased, covariance"] >= wide["unbiased, independent"] - 1e-15).all()
    assert part.groupby("run")["mean_infAP"].nunique().max() == 1


def test_figure1_is_deterministic(gold):
    a = y.figure1(gold, [0.1], seed=7, forms=[y.DEFAULT_FORM])
    b = y.figure1(gold, [0.1, 0.3], seed=7, forms=[y.DEFAULT_FORM])
    pd.testing.assert_frame_equal(a, b[b.p == 0.1].reset_index(drop=True))  # one p does not depend on the others
    c = y.figure1(gold, [0.1], seed=8, forms=[y.DEFAULT_FORM])
    assert not np.allclose(a["mean_infAP"], c["mean_infAP"])


# ------------------------------------------------------------------------------------- CI validation


def test_ks_test_normal_matches_scipy():
    rng = np.random.default_rng(0)
    rows = np.vstack([rng.normal(0, 1, 40), rng.normal(0.5, 1, 40), rng.normal(0, 2, 40)])
    d, p = y.ks_test_normal(rows)
    for i, row in enumerate(rows):
        ref = sps.kstest(row, "norm")
        assert d[i] == pytest.approx(ref.statistic, abs=1e-12)
        assert p[i] == pytest.approx(ref.pvalue, rel=1e-9)


def test_ci_validation_shapes_and_tables(gold):
    forms = ["unbiased, independent", "paper plug-in, independent"]
    v = y.ci_validation(gold, [0.2, 1.0], trials=4, seed=3, forms=forms, progress=False,
                        scheduler="serial")
    S = len(gold.map)
    assert v.mean.shape == (4, 2, S) and v.sd.shape == (4, 2, 2, S) and v.z.shape == (4, 2, 2, S)
    assert (v.sd[:, 1] == 0).all() and np.isnan(v.z[:, 1]).all()  # p = 100%: no variance, no z
    dev = v.deviations()
    assert len(dev) == 4 * 2 * 2 * S
    per_run = y.ks_per_run(v)
    assert len(per_run) == 2 * 2 * S
    table = y.ks_table(v)
    assert len(table) == 4
    assert (table.loc[table.p == 1.0, "runs not tested"] == S).all()
    part = table[table.p == 0.2]
    assert (part["runs tested"] == S).all()
    assert ((part["not rejected"] >= 0) & (part["not rejected"] <= 1)).all()
    # z by hand for one run and trial
    i = 5
    expected = (v.mean[2, 0, i] - gold.map[i]) / v.sd[2, 0, 0, i]
    assert v.z[2, 0, 0, i] == pytest.approx(expected)


def test_ci_validation_same_on_every_executor(gold):
    kw = {"p_values": [0.2], "trials": 2, "seed": 11, "forms": [y.DEFAULT_FORM], "progress": False}
    a = y.ci_validation(gold, scheduler="serial", **kw)
    b = y.ci_validation(gold, scheduler="local", n_jobs=2, **kw)
    np.testing.assert_array_equal(a.mean, b.mean)
    np.testing.assert_array_equal(a.sd, b.sd)


# ------------------------------------------------------------------------------------- figures 2-4


def test_figure2(collection, gold):
    frame = y.figure2(gold, [10, 1], seed=2)
    assert len(frame) == 2 * collection.n_runs
    summary = y.figure2_summary(frame)
    assert list(summary.k) == [10, 1]
    for k in (10, 1):
        expected = np.minimum(2 * pool(collection, k).sizes(), gold.pool_size).sum()
        assert (frame.loc[frame.k == k, "judgments"] == expected).all()
    assert summary.loc[summary.k == 10, "paper share"].item() == y.PAPER_FIGURE2_SHARE[10]
    assert summary.loc[0, "share"] > summary.loc[1, "share"]


def test_smoothing_study(gold):
    frame = y.smoothing_study(gold, [1, 100], trials=2, seed=1)
    assert len(frame) == 2 * len(y.SMOOTHINGS)
    full = frame[frame.k == 100]
    assert (full["RMS"] < 1e-4).all()  # the whole pool judged: every smoothing gives AP (up to the constants)
    assert set(frame.smoothing) == set(y.SMOOTHINGS)


def test_figure3_deterministic_and_shaped(collection, gold):
    kw = {"depths": (1, 5), "trials": 2, "seed": 5, "progress": False}
    a = y.figure3(gold, scheduler="serial", **kw)
    b = y.figure3(gold, scheduler="local", n_jobs=2, **kw)
    np.testing.assert_array_equal(a.means, b.means)
    pd.testing.assert_frame_equal(a.stats, b.stats)
    assert a.means.shape == (2, 2, 3, collection.n_runs)
    assert len(a.stats) == 2 * 2 * 3
    assert list(a.stats.estimator.cat.categories) == list(y.FIGURE3_ESTIMATORS)
    # the same judgments for xinfAP and infAP-on-depth+random; a random sample of the same total size
    j = a.judgments
    np.testing.assert_array_equal(j[:, :, 0], j[:, :, 2])
    assert np.abs(j[:, :, 1] - j[:, :, 0]).max() <= collection.n_topics
    s = a.summary()
    assert len(s) == 2 * 3 and {"tau", "rho", "RMS", "share"} <= set(s.columns)
    # xinfAP uses the strata, infAP on the same judgments does not: they differ
    assert not np.allclose(a.means[:, :, 0], a.means[:, :, 2])


def test_figure3_at_full_depth_is_exact(gold):
    sweep = y.figure3(gold, depths=(100,), trials=1, seed=1, progress=False, scheduler="serial")
    xinf = sweep.stats[sweep.stats.estimator == "xinfAP (depth+random)"]
    assert xinf["RMS"].item() < 1e-4 and xinf["tau"].item() > 0.99
    assert (sweep.judgments == gold.n_pooled).all()


def test_figure4(collection, gold):
    sweep = y.figure4(gold, depths=(2,), trials=2, seed=9, progress=False, scheduler="serial")
    assert sweep.means.shape == (2, 1, 4, collection.n_runs)
    assert list(sweep.measure_of) == ["AP", "AP", "nDCG", "nDCG"]
    j = sweep.judgments
    assert np.abs(j[:, :, 1] - j[:, :, 0]).max() <= collection.n_topics
    s = sweep.summary()
    assert set(s.estimator) == set(y.FIGURE4_ESTIMATORS)
    other = y.figure4(gold, depths=(2,), trials=2, seed=9, ratio=(1, 1, 1), progress=False, scheduler="serial")
    assert not np.allclose(other.means[:, :, 0], sweep.means[:, :, 0])


def test_widgets_build(gold):
    pytest.importorskip("ipywidgets")
    import matplotlib

    matplotlib.use("Agg")
    assert y.random_sample_explorer(gold) is not None
    assert y.stratified_explorer(gold) is not None


def test_paper_constants():
    assert y.PAPER_TREC8_JUDGMENTS == 86830
    assert y.PAPER_KS_NOT_REJECTED == 0.90
    assert set(y.PAPER_FIGURE2_SHARE) == set(y.FIGURE2_DEPTHS)
    assert "TREC-9" in y.PAPER_UNAVAILABLE


# ------------------------------------------------------------------ the validation's findings (issue 14)


def _one_ranking(grades_complete, sampled):
    """A collection of one run on one topic ranking d1..dn, the complete qrels, and the sampled qrels (grade -1 where
    not sampled)."""
    from evalkit.data.collection import Collection
    from evalkit.data.trec_files import Qrels, Run

    n = len(grades_complete)
    docnos = np.array([f"d{i + 1}" for i in range(n)], object)
    run = Run("r", np.array(["1"] * n, object), docnos, np.arange(n, 0, -1, dtype=float))
    complete = Qrels.from_frame(pd.DataFrame({"topic": "1", "docno": docnos, "grade": grades_complete}))
    c = Collection.from_runs([run], complete, name="one")
    sample = Qrels.from_frame(pd.DataFrame({"topic": "1", "docno": docnos,
                                            "grade": np.where(sampled, grades_complete, -1)}))
    return c, c.align_qrels(sample), c.qrels


def test_infap_with_true_precision_where_nothing_above_is_sampled_by_hand():
    from evalkit.measures.inferred import trec_infap, trec_infap_oracle_above

    # d1 N, d2 N, d3 R, d4 R, d5 N; only d3 and d4 sampled
    c, sample, complete = _one_ranking([0, 0, 1, 1, 0], [False, False, True, True, False])
    # trec_eval: at d3 nothing above is sampled: PC = (1 + 2 * 1/2) / 3 = 2/3; at d4: (1 + 3 (1+e)/(1+2e)) / 4
    e = 0.00001
    infap = (2 / 3 + (1 + 3 * (1 + e) / (1 + 2 * e)) / 4) / 2
    assert trec_infap(c, sample)[0, 0] == pytest.approx(infap, abs=1e-12)
    # with the true number of relevant documents above d3 (0): PC = 1/3; d4 unchanged
    oracle = (1 / 3 + (1 + 3 * (1 + e) / (1 + 2 * e)) / 4) / 2
    assert trec_infap_oracle_above(c, sample, complete)[0, 0] == pytest.approx(oracle, abs=1e-12)
    # every document sampled: nothing is ever "unsampled above", so the two agree
    c, full, complete = _one_ranking([0, 0, 1, 1, 0], [True] * 5)
    assert trec_infap_oracle_above(c, full, complete)[0, 0] == pytest.approx(trec_infap(c, full)[0, 0], abs=1e-15)


def _hand_validation(mean, sd, map_, parts=None, **extra):
    mean = np.asarray(mean, float)
    n, P, S = mean.shape
    return y.CIValidation(p_values=tuple(0.1 * (i + 1) for i in range(P)), forms=(y.PAPER_FORM, y.DEFAULT_FORM)[:sd.shape[2]],
                          runs=np.array([f"r{i}" for i in range(S)], object), judged=np.array([True] * S),
                          map=np.asarray(map_, float), mean=mean, sd=np.asarray(sd, float),
                          judgments=np.ones((n, P), np.int64), n_pooled=10, trials=n, seed=0, confidence=0.95,
                          parts=parts, empty_topics=np.zeros((n, P), np.int64), **extra)


def test_bias_breakdown_by_hand():
    # 4 trials, one p, two runs; run 0 always 0.1 low with tiny spread, run 1 unbiased
    mean = np.array([[[0.40, 0.50]], [[0.41, 0.52]], [[0.39, 0.48]], [[0.40, 0.50]]])
    sd = np.full((4, 1, 1, 2), 0.05)
    parts = np.zeros((4, 1, 2, 2))
    parts[:, 0, 0, 0] = -0.06  # topics without a sampled relevant document
    parts[:, 0, 1, 0] = -0.03  # smoothing
    v = _hand_validation(mean, sd, [0.5, 0.5], parts)
    per_run = y.bias_per_run(v).set_index("run")
    assert per_run.loc["r0", "bias"] == pytest.approx(-0.1)
    assert per_run.loc["r0", y.BIAS_PARTS[2]] == pytest.approx(-0.01)  # the rest
    assert per_run.loc["r0", list(y.BIAS_PARTS)].sum() == pytest.approx(per_run.loc["r0", "bias"])
    sd0 = np.std([0.40, 0.41, 0.39, 0.40], ddof=1)
    assert per_run.loc["r0", "bias / SE"] == pytest.approx(-0.1 / sd0 * 2)
    b = y.bias_breakdown(v).iloc[0]
    assert b["bias"] == pytest.approx(-0.05) and b[y.BIAS_PARTS[0]] == pytest.approx(-0.03)
    assert b["runs low by > 2 SE"] == 0.5 and b["runs high by > 2 SE"] == 0.0


def test_coverage_over_trials_by_hand():
    # z per trial for 4 runs: trial 0 covers 4/4, trial 1 covers 1/4 (|z| <= 1.96)
    mean = np.array([[[0.5, 0.5, 0.5, 0.5]], [[0.5, 0.7, 0.3, 0.9]]])
    sd = np.full((2, 1, 1, 4), 0.1)
    v = _hand_validation(mean, sd, [0.5, 0.5, 0.5, 0.5])
    cov = y.coverage_over_trials(v).iloc[0]
    assert cov["mean"] == pytest.approx((1.0 + 0.25) / 2) and cov["min"] == 0.25 and cov["max"] == 1.0
    assert cov["sd"] == pytest.approx(np.std([1.0, 0.25], ddof=1))


def test_without_empty_topics_and_head_by_hand():
    mean = np.array([[[0.40]], [[0.30]]])
    sd = np.full((2, 1, 1, 1), 0.1)
    v = _hand_validation(mean, sd, [0.5], mean_nonempty=np.array([[[0.45]], [[0.35]]]),
                         truth_nonempty=np.array([[[0.50]], [[0.40]]]), sd_nonempty=np.full((2, 1, 1, 1), 0.05))
    w = v.without_empty_topics()
    np.testing.assert_allclose(w.z[:, 0, 0, 0], [-1.0, -1.0])  # (0.45 - 0.50) / 0.05, (0.35 - 0.40) / 0.05
    np.testing.assert_allclose(v.z[:, 0, 0, 0], [-1.0, -2.0])
    h = v.head(1)
    assert h.trials == 1 and h.mean.shape == (1, 1, 1) and h.mean_nonempty.shape == (1, 1, 1)


def test_validation_records_the_parts_of_the_error(gold):
    from evalkit.measures.inferred import trec_infap, trec_infap_oracle_above

    v = y.ci_validation(gold, [0.1, 0.3], trials=3, seed=5, forms=[y.PAPER_FORM, y.DEFAULT_FORM], progress=False,
                        scheduler="serial")
    # trial 1, p = 10%, recomputed directly
    from evalkit.parallel import trial_seeds

    seed = trial_seeds(5, 3)[1]
    q = y.random_judgments(gold, 0.1, y.sample_seed(seed, "validation", 0.1))
    inf = trec_infap(gold.collection, q)
    fixed = trec_infap_oracle_above(gold.collection, q, gold.qrels)
    empty = (q.counts(1) == 0)[None, :] & gold.scored
    kept = gold.scored & ~empty
    n = gold.scored.sum(axis=1)
    np.testing.assert_allclose(v.parts[1, 0, 0], -(gold.ap * empty).sum(axis=1) / n, atol=1e-12)
    np.testing.assert_allclose(v.parts[1, 0, 1], ((inf - fixed) * kept).sum(axis=1) / n, atol=1e-12)
    np.testing.assert_allclose(v.mean[1, 0], (inf * gold.scored).sum(axis=1) / n, atol=1e-12)
    assert v.empty_topics[1, 0] == int(empty.any(axis=0).sum())
    np.testing.assert_allclose(v.truth_nonempty[1, 0], (gold.ap * kept).sum(axis=1) / kept.sum(axis=1), atol=1e-12)
    # the first trials of a longer validation are the same trials: the "10 trials" variant is a prefix
    two = y.ci_validation(gold, [0.1, 0.3], trials=2, seed=5, forms=[y.PAPER_FORM, y.DEFAULT_FORM],
                          progress=False, scheduler="serial")
    np.testing.assert_array_equal(v.head(2).mean, two.mean)
    np.testing.assert_array_equal(v.head(2).parts, two.parts)
    table = y.ks_variants(v, few_trials=2)
    assert set(table["variant"]) == {"as read: fixed-size uniform samples, all runs", "judged runs only",
                                     "topics without a sampled relevant document dropped", "first 2 trials"}
    assert set(table["form"]) == {y.PAPER_FORM, y.DEFAULT_FORM}
    judged = table[table.variant == "judged runs only"]
    assert (judged["runs tested"] <= int(gold.judged.sum())).all()
    text = y.findings_markdown(v)
    assert "-0." in text and "KS test" in text


def test_bernoulli_samples_vary_in_size(gold):
    sizes = np.bincount(gold.qrels.topic, minlength=gold.qrels.n_topics)
    q = y.random_judgments(gold, 0.3, seed=4, method="bernoulli")
    judged = _judged(q)
    assert (judged != np.floor(0.3 * sizes + 0.5)).any()  # not a fixed round(p N) per topic
    assert judged.sum() == pytest.approx(0.3 * sizes.sum(), rel=0.1)
    v = y.ci_validation(gold, [0.3], trials=2, seed=1, forms=[y.DEFAULT_FORM], method="bernoulli", progress=False,
                        scheduler="serial")
    assert v.method == "bernoulli"


def test_claims_keep_the_bias_and_the_variance_apart(gold):
    """Simulated validations with a known bias and a known variance error get the verdicts they deserve."""
    rng = np.random.default_rng(0)
    n, S, sd = 200, 40, 0.01
    map_ = rng.uniform(0.1, 0.5, S)

    def validation(bias):
        mean = map_[None, None, :] + bias + sd * rng.standard_normal((n, 1, S))
        sds = np.stack([np.full((n, 1, S), sd / 1.5), np.full((n, 1, S), sd)], axis=2)  # paper's form 1.5x too small
        parts = np.zeros((n, 1, 2, S))
        parts[:, :, 0] = bias
        return _hand_validation(mean, sds, map_, parts, block=100)  # two repetitions of the paper's 100 samples

    def verdicts(v):
        rows = y.claims(gold, validation=v)
        assert all(not row.not_rated for row in rows if row.claim.startswith(("KS", "the variance of", "infAP")))
        return {row.claim.split(" (")[0].split(",")[0]: row.agrees for row in rows}

    biased = verdicts(validation(-3 * sd))
    assert biased["infAP is an unbiased estimator of AP"] == "no"
    assert biased["KS test of the deviations"] == "no"
    assert biased["the variance of infAP"] == "no"  # bias removed, the paper's sds are still 1.5x too small
    unbiased = verdicts(validation(0.0))
    assert unbiased["infAP is an unbiased estimator of AP"] == "yes"
    assert unbiased["KS test of the deviations"] == "yes"  # the kit's form is right
    cov = y.coverage_over_trials(validation(0.0), [y.DEFAULT_FORM])
    assert cov["mean"].iloc[0] == pytest.approx(0.95, abs=0.01)
