"""Tests for evalkit.estimation (Lu, Moffat and Culpepper 2017) and evalkit.papers.lu2017.

Hand-computed cases for every equation (RBP residuals Eq. 2, RM Eq. 4, InfRBP Eq. 5, Eq. 3 errors, Chao-Lee
gamma Eq. 10 with the paper's own example, the losses Eqs. 7-8 against a naive double loop), oracles where the kit
has one (evalkit.measures.rbp and average_precision), parameter recovery for the gain models, the two simplex
solvers against each other, and TREC-8 checks (marked ``trec8``) for the paper's qualitative claims and the
time budget.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import random_collection

from evalkit.data.collection import ABSENT, GRADE_DTYPE, UNJUDGED, UNSAMPLED, Collection
from evalkit.data.trec_files import Qrels, Run
from evalkit.estimation import (
    DEFAULT_THETA,
    ESTIMATORS,
    GAIN_MODELS,
    ap_at_k,
    chao_lee_gamma,
    contributing_runs,
    design,
    estimate_scores,
    fit_framework,
    fit_frameworks,
    fit_gain_model,
    gain_curve,
    inf_rbp,
    inf_weighted_precision,
    observed_gain_vector,
    pool_gamma,
    pool_qrels,
    rbp,
    rbp_weights,
    reference_scores,
    relevant_multiplicities,
    rmse_accuracy,
    score_range_error,
    sdcg,
    sdcg_weights,
    simplex_lstsq,
    system_matrix,
    two_strata_qrels,
    weighted_precision,
)

# ------------------------------------------------------------------------------------------------ fixtures


def pooled_collection(seed=0, n_runs=8, n_topics=6, n_docs=300, length=80, pool_depth=40, n_contrib=6):
    """Runs of varying quality over one vocabulary; the qrels judge the depth-``pool_depth`` pool of the first
    ``n_contrib`` runs (the contributing runs); groups of two runs; one run is shorter than ``pool_depth`` on one
    topic."""
    rng = np.random.default_rng(seed)
    docnos = np.array([f"D{i:04d}" for i in range(n_docs)], object)
    topics = [str(401 + t) for t in range(n_topics)]
    relevant = rng.random((n_topics, n_docs)) < rng.uniform(0.05, 0.25, size=(n_topics, 1))
    quality = rng.uniform(0.5, 2.5, size=n_runs)
    runs, tops = [], np.zeros((n_runs, n_topics, length), int)
    for s in range(n_runs):
        t_col, d_col, s_col = [], [], []
        for t, topic in enumerate(topics):
            score = quality[s] * relevant[t] + rng.normal(size=n_docs)
            order = np.argsort(-score)[:length]
            k = 25 if (s == 1 and t == 0) else length
            tops[s, t, :k] = order[:k]
            tops[s, t, k:] = -1
            t_col += [topic] * k
            d_col += list(docnos[order[:k]])
            s_col += list(score[order[:k]])
        runs.append(Run(f"r{s}", np.array(t_col, object), np.array(d_col, object), np.array(s_col)))
    rows = []
    for t, topic in enumerate(topics):
        pooled = np.unique(tops[:n_contrib, t, :pool_depth])
        pooled = pooled[pooled >= 0]
        rows += [(topic, docnos[d], int(relevant[t, d])) for d in pooled]
    qrels = Qrels.from_frame(pd.DataFrame(rows, columns=["topic", "docno", "grade"]))
    info = pd.DataFrame({"group": [f"g{s // 2}" for s in range(n_runs)],
                         "judged": [s < n_contrib for s in range(n_runs)]},
                        index=pd.Index([f"r{s}" for s in range(n_runs)], name="run"))
    return Collection.from_runs(runs, qrels, name=f"pooled{seed}", runs_info=info)


@pytest.fixture(scope="module")
def pooled():
    return pooled_collection()


# ------------------------------------------------------------------------------------------------ metrics


def test_rbp_and_sdcg_weights():
    w = rbp_weights(0.8, 10)
    assert w[0] == pytest.approx(0.2) and w[3] == pytest.approx(0.2 * 0.8**3)
    assert w.sum() + 0.8**10 == pytest.approx(1.0)
    s = sdcg_weights(5)
    assert s.sum() == pytest.approx(1.0)
    assert s[0] / s[2] == pytest.approx(np.log2(4) / np.log2(2))
    with pytest.raises(ValueError):
        rbp_weights(1.0, 5)


def test_rbp_by_hand():
    # ranks: rel, nonrel, unjudged, rel (grade 2 -> gain 1 with max_grade 1), unsampled, then the run ends
    g = np.array([[[1, 0, UNJUDGED, 2, UNSAMPLED, ABSENT, ABSENT]]], GRADE_DTYPE)
    p = 0.5
    w = (1 - p) * p ** np.arange(7)
    r = rbp(g, p=p, depth=7)
    assert r.score[0, 0] == pytest.approx(w[0] + w[3])
    assert r.unjudged_residual[0, 0] == pytest.approx(w[2] + w[4])
    assert r.tail_residual[0, 0] == pytest.approx(w[5] + w[6] + p**7)  # tail starts where the ranking stops
    assert r.residual[0, 0] == pytest.approx(w[2] + w[4] + p**5)
    closed = rbp(g, p=p, depth=7, short_runs="closed")
    assert closed.tail_residual[0, 0] == pytest.approx(p**7)
    graded = rbp(g, p=p, depth=7, max_grade=2)
    assert graded.score[0, 0] == pytest.approx(0.5 * w[0] + w[3])


def test_rbp_matches_evalkit_measures():
    from evalkit.measures import rbp as measures_rbp

    c = random_collection(3)
    g = c.grades()
    for p, depth in ((0.95, 20), (0.8, None)):
        mine = rbp(g, p=p, depth=depth)
        score, residual = measures_rbp(g, p, depth)
        np.testing.assert_allclose(mine.score, score, atol=1e-12)
        np.testing.assert_allclose(mine.residual, residual, atol=1e-12)


def test_sdcg_properties():
    g = np.array([[[1, 1, 1, 1], [0, UNJUDGED, 1, 0]]], GRADE_DTYPE)
    r = sdcg(g, depth=4)
    assert r.score[0, 0] == pytest.approx(1.0)
    assert np.all(r.tail_residual == 0)
    w = sdcg_weights(4)
    assert r.score[0, 1] == pytest.approx(w[2])
    assert r.unjudged_residual[0, 1] == pytest.approx(w[1])


def test_ap_at_k_sakai_and_trec_ap():
    from evalkit.measures import average_precision

    # AP@3 with R = 5: (1/1 + 2/3) / min(3, 5)
    g = np.array([[[1, 0, 1, 1]]], np.int16)
    assert ap_at_k(g, 3, np.array([5]))[0, 0] == pytest.approx((1 + 2 / 3) / 3)
    assert ap_at_k(g, 4, np.array([0]))[0, 0] == 0.0
    # with the whole ranking (depth >= R) it is trec_eval's AP
    c = random_collection(5)
    grades = c.grades()
    R = c.qrels.counts()
    np.testing.assert_allclose(ap_at_k(grades, grades.shape[-1], R), average_precision(grades, R), atol=1e-12)


# ------------------------------------------------------------------------------------------------ pools


def test_pool_qrels_and_contributing_runs(pooled):
    c = pooled
    mask = contributing_runs(c)
    assert mask.tolist() == [True] * 6 + [False] * 2
    full = pool_qrels(c, 40)
    assert len(full) == len(c.qrels)
    sizes = [len(pool_qrels(c, d)) for d in (5, 10, 20, 40)]
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1]
    shallow = pool_qrels(c, 10)
    top = c.docs[mask][:, :, :10]
    for t in range(c.n_topics):
        pooled_docs = set(top[:, t][top[:, t] >= 0].tolist())
        assert set(shallow.doc[shallow.topic == t].tolist()) == pooled_docs


def test_two_strata_sample(pooled):
    c = pooled
    a = two_strata_qrels(c, 10, 40, 0.25, seed=7)
    b = two_strata_qrels(c, 10, 40, 0.25, seed=7)
    other = two_strata_qrels(c, 10, 40, 0.25, seed=8)
    assert np.array_equal(a.keys, b.keys) and np.array_equal(a.grade, b.grade)
    assert not np.array_equal(a.grade, other.grade)
    first = pool_qrels(c, 10)
    s1 = a.stratum == 1
    assert np.array_equal(np.sort(a.keys[s1]), first.keys) and np.all(a.grade[s1] >= 0)
    deep = pool_qrels(c, 40)
    s2 = a.stratum == 2
    assert len(a) == len(deep)  # every pooled document is listed, sampled or not
    for t in range(c.n_topics):
        n2 = int((s2 & (a.topic == t)).sum())
        drawn = int((s2 & (a.topic == t) & (a.grade >= 0)).sum())
        assert drawn == int(np.rint(0.25 * n2))
    assert set(np.unique(a.grade[s2])) <= {UNSAMPLED, 0, 1}
    with pytest.raises(ValueError):
        two_strata_qrels(c, 10, 40, 0.1, seed=None)


# ------------------------------------------------------------------------------------------------ Eq. 10


def test_chao_lee_gamma_paper_example():
    # Sec. 4: D8 and D1 relevant, f1 = 1, f3 = 1 -> R = 2, C = 4
    gamma_sq = (2 / (1 - 1 / 4)) * (3 * 2 * 1) / (4 * 3) - 1
    assert chao_lee_gamma([1, 3]) == pytest.approx(np.sqrt(gamma_sq))
    assert chao_lee_gamma([1, 3], n_runs=5) == pytest.approx(np.sqrt(gamma_sq) / 5)
    assert chao_lee_gamma([]) == 0.0
    assert chao_lee_gamma([1, 1, 1]) == 0.0  # zero coverage estimate: not adjusted
    assert chao_lee_gamma([2, 2, 2]) == 0.0  # equal multiplicities: gamma^2 < 0 -> 0


def test_pool_gamma_matches_per_topic_counts(pooled):
    c = pooled
    q = pool_qrels(c, 10)
    gamma = pool_gamma(c, q, 10)
    mask = contributing_runs(c)
    for t in range(c.n_topics):
        counts = {}
        for s in np.flatnonzero(mask):
            for d in c.docs[s, t, :10]:
                if d >= 0 and q.lookup(np.array([t]), np.array([d]))[0] >= 1:
                    counts[d] = counts.get(d, 0) + 1
        assert gamma[t] == pytest.approx(chao_lee_gamma(list(counts.values()), n_runs=int(mask.sum())))
    topic, m = relevant_multiplicities(c, q, 10)
    assert m.min() >= 1 and m.max() <= mask.sum()


# ------------------------------------------------------------------------------------------------ gain models


def test_gain_models_recover_their_own_curves():
    ranks = np.arange(1, 21, dtype=float)
    truth = {
        "linear": {"a": 0.6, "b": -0.02},
        "zipf": {"a": 0.7, "c": 0.6},
        "weibull": {"lambda": 3.0, "alpha": 8.0, "beta": 0.8},
    }
    for model, params in truth.items():
        y = gain_curve(model, params, 20)
        fitted = fit_gain_model(model, y)
        np.testing.assert_allclose(gain_curve(model, fitted, 100), gain_curve(model, params, 100), atol=2e-4)
    fitted = fit_gain_model("linear", 0.1 + 0.01 * ranks)  # increasing: the slope is bounded at 0
    assert fitted["b"] == 0.0 and fitted["a"] == pytest.approx(np.mean(0.1 + 0.01 * ranks))
    for model in GAIN_MODELS:
        assert np.all(gain_curve(model, fit_gain_model(model, np.zeros(10)), 50) == 0)
        curve = gain_curve(model, fit_gain_model(model, np.linspace(1.0, 0.7, 10)), 1000)
        assert curve.min() >= 0 and curve.max() <= 1


def test_observed_gain_vector_skips_absent_ranks():
    gains = np.array([[[1.0, 0.0]], [[0.0, 0.0]], [[1.0, 9.0]]])
    present = np.array([[[True, True]], [[True, True]], [[True, False]]])
    np.testing.assert_allclose(observed_gain_vector(gains, present), [[2 / 3, 0.0]])


# ------------------------------------------------------------------------------------------------ framework


def test_simplex_solvers_agree():
    rng = np.random.default_rng(0)
    for n, rows in ((5, 30), (20, 20), (40, 200)):
        A = rng.random((rows, n)) * (rng.random((rows, n)) < 0.5)
        b = rng.random(rows)
        w_n = simplex_lstsq(A, b, "nnls")
        w_s = simplex_lstsq(A, b, "slsqp")
        for w in (w_n, w_s):
            assert w.min() >= 0 and w.sum() == pytest.approx(1.0)
        loss = lambda w: np.sum((A @ w - b) ** 2)  # noqa: E731
        assert loss(w_n) <= loss(w_s) * (1 + 1e-6) + 1e-12
        assert loss(w_s) <= loss(w_n) * (1 + 1e-4) + 1e-12
    # an interior solution is recovered exactly
    A = rng.random((50, 4))
    w_true = np.array([0.1, 0.2, 0.3, 0.4])
    np.testing.assert_allclose(simplex_lstsq(A, A @ w_true), w_true, atol=1e-6)
    assert np.allclose(simplex_lstsq(np.zeros((3, 4)), np.ones(3)), 0.25)


def test_losses_match_naive_double_loop():
    """Eq. 7 and Eq. 8 evaluated literally equal ||A w - b||^2 of :func:`design`."""
    rng = np.random.default_rng(1)
    n, k, n_docs = 4, 6, 12
    ranks = np.zeros((n_docs, n), int)
    for i in range(n):  # each run ranks k distinct documents
        chosen = rng.choice(n_docs, k, replace=False)
        ranks[chosen, i] = np.arange(1, k + 1)
    W = rbp_weights(0.7, k)
    g0 = np.linspace(0.6, 0.1, k)
    judged = rng.random(n_docs) < 0.6
    r = (rng.random(n_docs) < 0.4).astype(float)
    G = np.where(ranks > 0, g0[np.maximum(ranks, 1) - 1], g0[k - 1])
    Wm = np.where(ranks > 0, W[np.maximum(ranks, 1) - 1], 0.0)
    w = rng.dirichlet(np.ones(n))
    h = G @ w
    La = 0.0
    for i in range(n):
        inner = 0.0
        for j in range(1, k + 1):
            D = np.flatnonzero(ranks[:, i] == j)[0]
            if judged[D]:
                inner += W[j - 1] * (h[D] - r[D])
        La += inner**2
    Lb = sum(sum(Wm[D, i] * (h[D] - r[D]) for i in range(n)) ** 2 for D in range(n_docs) if judged[D])
    for loss, expected in (("a", La), ("b", Lb)):
        A, b = design(loss, G[judged], Wm[judged], r[judged])
        assert np.sum((A @ w - b) ** 2) == pytest.approx(expected, rel=1e-12)


def test_framework_on_a_hand_made_topic(pooled):
    c = pooled
    shallow = pool_qrels(c, 10)
    m = system_matrix(c, 40, rank_depth=60)
    assert m.n_runs == 6 and m.depth == 40 and m.rank_depth == 60
    tm = m.topics[0]
    # every document of the contributing runs' top 40 is listed, ranks agree with the runs
    s = 0
    for j, d in enumerate(c.docs[s, 0, :60]):
        if d >= 0 and d in set(tm.docs.tolist()):
            assert tm.ranks[np.searchsorted(tm.docs, d), 0] == j + 1
    curves = np.tile(np.linspace(0.8, 0.05, 60), (c.n_topics, 3, 1)) * np.array([1.0, 0.7, 0.4])[None, :, None]
    W = rbp_weights(0.9, 40)
    fits = fit_frameworks(m, shallow, curves, W, ("a", "b"))
    for fit in fits.values():
        for t, f in enumerate(fit.topics):
            assert np.allclose(f.w1.sum(axis=1), 1) and np.all(f.w1 >= 0)
            assert f.w2.sum() == pytest.approx(1) and np.all(f.w2 >= 0)
            # Eq. 6: h1 of a document = weighted average of the model gains at its ranks, g0(K) where unretrieved
            tmt = m.topics[t]
            G0 = np.where(tmt.ranks > 0, curves[t, 0][np.maximum(tmt.ranks, 1) - 1], curves[t, 0][59])
            np.testing.assert_allclose(f.g1[:, 0], G0 @ f.w1[0])
            np.testing.assert_allclose(f.h2, f.g1 @ f.w2)
            assert f.h2_default == pytest.approx(curves[t, :, 59] @ f.w2)
    single = fit_framework(m, shallow, curves, W, "b")
    np.testing.assert_allclose(single.topics[2].h2, fits["b"].topics[2].h2)
    unknown_doc = np.array([len(c.vocabulary) + 5])
    assert fits["a"].document_gains(0, unknown_doc)[0] == fits["a"].topics[0].h2_default


# ------------------------------------------------------------------------------------------------ estimators


def test_complete_judgments_leave_nothing_to_estimate(pooled):
    c = pooled
    est = estimate_scores(c, c.qrels, 40, depth=40, p=0.9)
    ref = reference_scores(c, 40, p=0.9)
    lb = est.scores["LB"]
    np.testing.assert_allclose(lb, ref.score)
    for name in ("Lin", "Zipf", "Wei", "La", "Lb"):
        np.testing.assert_allclose(est.score(name, None), lb)
    # RM spreads the judged rate over the residual (here the tail, and the short run's missing ranks): Eq. 4
    np.testing.assert_allclose(est.scores["RM"], ref.score / (1 - ref.residual))


def test_lb_is_rbp_with_shallow_judgments_and_gating(pooled):
    c = pooled
    shallow = pool_qrels(c, 10)
    est = estimate_scores(c, shallow, 10, depth=40, p=0.9)
    grades = c.grades(shallow)[contributing_runs(c)]
    np.testing.assert_allclose(est.scores["LB"], rbp(grades, 0.9, 40).score)
    assert est.estimators == ESTIMATORS
    for name in ("Lin", "La", "Lb"):
        assert np.array_equal(est.score(name, theta=10.0), est.scores["LB"])  # nothing adjusted
        gated = est.score(name, DEFAULT_THETA)
        adjusted = est.adjusted(DEFAULT_THETA)
        np.testing.assert_array_equal(gated[:, adjusted], est.scores[name][:, adjusted])
        np.testing.assert_array_equal(gated[:, ~adjusted], est.scores["LB"][:, ~adjusted])
        # estimated gains only add to the lower bound
        assert np.all(est.scores[name] >= est.scores["LB"] - 1e-12)
    assert np.all(est.scores["RM"] >= est.scores["LB"])


def test_rm_background_rate_when_nothing_is_judged():
    # one run, one topic; nothing of it is judged: eps = 1, so RM = the background rate
    runs = [Run("a", np.array(["1"] * 3, object), np.array(["x", "y", "z"], object), np.array([3.0, 2.0, 1.0])),
            Run("b", np.array(["1"] * 3, object), np.array(["u", "v", "w"], object), np.array([3.0, 2.0, 1.0]))]
    qrels = Qrels.from_frame(pd.DataFrame({"topic": ["1"] * 3, "docno": ["u", "v", "w"], "grade": [1, 0, 0]}))
    info = pd.DataFrame({"judged": [False, True]}, index=pd.Index(["a", "b"], name="run"))
    c = Collection.from_runs(runs, qrels, runs_info=info)
    est = estimate_scores(c, c.qrels, 3, score_runs=[0, 1], depth=3, p=0.5, estimators=("LB", "RM"))
    assert est.scores["RM"][0, 0] == pytest.approx(1 / 3)  # mean gain of the judged documents
    # run b: M = 0.5, eps = tail 0.125 -> M / (1 - eps)
    assert est.scores["RM"][1, 0] == pytest.approx(0.5 / (1 - 0.125))
    est = estimate_scores(c, c.qrels, 3, score_runs=[0], depth=3, p=0.5, estimators=("RM",), background_rate=0.2)
    assert est.scores["RM"][0, 0] == pytest.approx(0.2)


def test_score_range_error_and_aggregates():
    score = np.array([0.2, 0.2, 0.2, 0.2])
    residual = np.array([0.1, 0.1, 0.1, 0.0])
    estimate = np.array([0.1, 0.25, 0.35, 0.2])
    np.testing.assert_allclose(score_range_error(estimate, score, residual), [0.1, 0.0, 0.05, 0.0])
    rmse, acc = rmse_accuracy([0.1, 0.0, 0.05, 0.0])
    assert rmse == pytest.approx(np.sqrt((0.01 + 0.0025) / 4)) and acc == 50.0


def test_inf_rbp_by_hand_and_limits(pooled):
    W = rbp_weights(0.5, 4)
    grades = np.array([[[1, 0, 1, UNSAMPLED]]], GRADE_DTYPE)
    strata = np.array([[[1, 2, 2, 2]]])
    alpha = (W[1] + W[2] + W[3]) / (W[1] + W[2])
    expected = W[0] + alpha * W[2]
    assert inf_weighted_precision(grades, strata, W)[0, 0] == pytest.approx(expected)
    c = pooled
    everything = two_strata_qrels(c, 10, 40, 1.0, seed=0)  # the whole second stratum sampled: InfRBP = RBP@40
    np.testing.assert_allclose(inf_rbp(c, everything, 40, 0.9), reference_scores(c, 40, p=0.9).score, atol=1e-12)
    nothing = two_strata_qrels(c, 10, 40, 0.0, seed=0)  # nothing sampled: InfRBP = LB of the first stratum
    lb = rbp(c.grades(nothing)[contributing_runs(c)], 0.9, 40).score
    np.testing.assert_allclose(inf_rbp(c, nothing, 40, 0.9), lb, atol=1e-12)


def test_framework_on_two_strata_judgments(pooled):
    c = pooled
    sample = two_strata_qrels(c, 10, 40, 0.3, seed=3)
    est = estimate_scores(c, sample, 10, depth=40, p=0.9, estimators=("LB", "La", "Lb"))
    assert est.scores["Lb"].shape == (6, c.n_topics)
    assert np.all(np.isfinite(est.scores["Lb"])) and np.all(est.scores["La"] >= est.scores["LB"] - 1e-12)


def test_estimates_for_sdcg(pooled):
    c = pooled
    shallow = pool_qrels(c, 10)
    est = estimate_scores(c, shallow, 10, depth=40, metric="sdcg", estimators=("LB", "RM", "Lin", "Lb"))
    grades = c.grades(shallow)[contributing_runs(c)]
    np.testing.assert_allclose(est.scores["LB"], sdcg(grades, 40).score)
    ref = reference_scores(c, 40, metric="sdcg")
    assert np.all(ref.tail_residual[:, 1:] == 0)  # no tail beyond the cut-off (run r1 is short on topic 0)
    assert np.all(est.scores["Lb"] <= 1 + 1e-12)


def test_weighted_precision_pads_short_grades():
    g = np.array([[[1, 0]]], np.int16)
    r = weighted_precision(g, rbp_weights(0.5, 4), tail=0.5**4)
    assert r.score[0, 0] == pytest.approx(0.5) and r.tail_residual[0, 0] == pytest.approx(0.25)


# ------------------------------------------------------------------------------------------------ experiments


def test_paper_tables_transcribed():
    from evalkit.papers.lu2017 import PAPER_TABLE2, PAPER_TABLE3, table2_layout

    assert len(PAPER_TABLE2) == 6 * 3 * 8
    row = PAPER_TABLE2.query("collection == 'TB04' and depth == 10 and estimator == 'La' and theta == 0")
    assert row["rmse"].item() == 0.072 and row["acc"].item() == 15
    row = PAPER_TABLE2.query("collection == 'TREC9' and depth == 20 and estimator == 'RM'")
    assert row["rmse"].item() == 0.025 and row["acc"].item() == 32
    layout = table2_layout(PAPER_TABLE2)
    assert layout.loc[("Rob04", 10), "Lb θ=0.018"] == "0.035 (20)"
    assert len(PAPER_TABLE3) == 20


def test_experiment_functions_on_synthetic(pooled):
    from evalkit.papers import lu2017 as L

    data = L.prepare(pooled, depth=40, p=0.9)
    t2 = L.table2(data, depths=(5, 10))
    assert set(t2["estimator"]) == set(L.TABLE2_ESTIMATORS)
    assert len(t2) == 2 * (2 + 3 * 2)
    assert t2["rmse"].ge(0).all() and t2["acc"].between(0, 100).all()
    assert L.table2_layout(t2).shape == (2, 8)
    assert len(L.rmse_ordering(t2)) == 4
    f3 = L.figure3_gamma_by_depth(data, depths=(5, 10, 20))
    assert list(f3["depth"]) == [5, 10, 20]
    assert len(L.figure3_gamma_per_topic(data, 5)) == pooled.n_topics
    f3c = L.figure3_rmse_vs_theta(data, depth=5, thetas=[0.0, 0.5])
    big = f3c[f3c["theta"] == 0.5].set_index("estimator")["rmse"]
    assert big["Lin"] == pytest.approx(big["LB"])  # no topic adjusted
    f4 = L.figure4(data, depths=(5, 10))
    assert len(f4) == 10 and f4["tau_distance"].between(0, 1).all()
    t3 = L.table3(data, depth=5)
    assert set(t3["estimator"]) == set(L.TABLE2_ESTIMATORS) and (t3["n_groups"] == 3).all()
    per_group = L.table3(data, depth=5, per_group=True)
    assert set(per_group["group"]) == {"g0", "g1", "g2"}
    f6 = L.figure6(data, n_repetitions=2, depth1=5, rate=0.2)
    assert len(f6) == 2 * 4 and f6["dist"].ge(0).all()
    again = L.figure6(data, n_repetitions=2, depth1=5, rate=0.2)
    pd.testing.assert_frame_equal(f6, again)


# ------------------------------------------------------------------------------------------------ TREC-8


@pytest.mark.trec8
def test_trec8_claims_and_budget(trec8):
    from evalkit.papers import lu2017 as L

    c = trec8
    assert contributing_runs(c).sum() == 72
    data = L.prepare(c)
    t2 = L.table2(data)  # its time is a bench row (bench/bench_lu2017.py), not a timed assertion
    def rmse(depth, estimator, theta=None):
        rows = t2[(t2["depth"] == depth) & (t2["estimator"] == estimator)]
        rows = rows[rows["theta"].isna()] if theta is None else rows[np.isclose(rows["theta"], theta)]
        return rows["rmse"].item()

    for d in (10, 20, 30):
        assert rmse(d, "RM") == t2.query("depth == @d")["rmse"].max()  # RM worst on a news collection
        assert rmse(d, "Lb", DEFAULT_THETA) < rmse(d, "LB")  # the framework beats the lower bound
    assert rmse(10, "LB") < rmse(10, "Lin", 0.0)  # Fig. 3: at theta = 0 no model beats LB ...
    assert rmse(10, "Lin", DEFAULT_THETA) < rmse(10, "Lin", 0.0)  # ... the threshold brings them close
    assert len(t2.query("depth == 10")) == 8
    gamma = L.figure3_gamma_by_depth(data, depths=(10, 30, 100))["mean_gamma"].to_numpy()
    assert gamma[0] > gamma[1] > gamma[2]  # Hypothesis 1


@pytest.mark.trec8
def test_trec8_optimizer_weights_sum_to_one(trec8):
    """The optimizer's speed is a bench row (bench/bench_lu2017.py); here only what it returns."""
    c = trec8
    shallow = pool_qrels(c, 10)
    m = system_matrix(c, 100)
    tm = m.topics[0]
    grade = shallow.lookup(np.zeros(len(tm.docs), np.int32), tm.docs)
    judged = grade >= 0
    W = np.concatenate([[0.0], rbp_weights(0.95, 100), np.zeros(m.rank_depth - 100)])[tm.ranks[judged]]
    G = np.linspace(0.5, 0.0, m.rank_depth)[np.where(tm.ranks > 0, tm.ranks, m.rank_depth) - 1][judged]
    r = (grade[judged] > 0).astype(float)
    for loss in ("a", "b"):
        A, b = design(loss, G, W, r)
        w = simplex_lstsq(A, b)
        assert w.sum() == pytest.approx(1.0) and (w >= -1e-12).all()
