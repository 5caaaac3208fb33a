"""Tests for evalkit.confidence (Carterette 2007) and the carterette2007 experiment."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalkit.confidence import (
    ExpertAggregation,
    Universe,
    all_pairs,
    ap_coefficients,
    ap_moments,
    ap_moments_reference,
    cross_term,
    delta_ap_moments,
    delta_ap_moments_reference,
    estimate_runs,
    exact_numerator_moments,
    fit_aggregation,
    fit_platt,
    incremental_pooling,
    judged_map,
    map_moments,
    mtc,
    numerator_moments_reference,
    numerator_variance,
    preference_probabilities,
    prob_negative,
    rtc,
)
from evalkit.confidence.selection import PairEngine
from evalkit.data.collection import JudgedSet
from evalkit.measures import average_precision

# ------------------------------------------------------------------------------------------------ helpers


def random_p(rng, n, judged_share=0.3):
    p = rng.random(n)
    judged = rng.random(n) < judged_share
    p[judged] = rng.integers(0, 2, judged.sum())
    return p


def two_rankings(rng, n_universe, len_a, len_b):
    a = rng.permutation(n_universe)[:len_a]
    b = rng.permutation(n_universe)[:len_b]
    ranks_a = np.zeros(n_universe)
    ranks_a[a] = np.arange(1, len_a + 1)
    ranks_b = np.zeros(n_universe)
    ranks_b[b] = np.arange(1, len_b + 1)
    return a, b, ranks_a, ranks_b


def sample_numerator(rng, coefficients, p, n_samples):
    x = (rng.random((n_samples, len(p))) < p).astype(np.float64)
    upper = np.triu(coefficients)
    return np.einsum("si,ij,sj->s", x, upper, x)


def toy_collection(seed=0, n_runs=4, n_topics=6, depth=20, n_docs=60, rel_rate=0.25):
    """Rankings drawn from a shared pool per topic, better runs rank relevant documents higher."""
    rng = np.random.default_rng(seed)
    docs = np.full((n_runs, n_topics, depth), -1, np.int32)
    relevant = rng.random((n_topics, n_docs)) < rel_rate
    for s in range(n_runs):
        skill = 2.0 * (n_runs - s) / n_runs
        for t in range(n_topics):
            score = rng.normal(size=n_docs) + skill * relevant[t]
            length = depth if (s + t) % 5 else depth - 4
            docs[s, t, :length] = np.argsort(-score)[:length]
    topic, doc = np.nonzero(np.ones((n_topics, n_docs), bool))
    grade = relevant[topic, doc].astype(np.int16)
    keep = rng.random(len(doc)) < 0.9  # some documents missing from the qrels (= nonrelevant)
    qrels = JudgedSet.from_arrays(topic[keep], doc[keep], grade[keep], n_topics, n_docs)
    return docs, qrels


# ------------------------------------------------------------------------------------------------ AP moments


@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_ap_moments_match_paper_sums(n):
    rng = np.random.default_rng(n)
    for _ in range(5):
        p = random_p(rng, n)
        a = ap_coefficients(np.arange(1, n + 1))
        expected, variance = ap_moments(p)
        ref_e, ref_v = ap_moments_reference(a, p)
        assert expected == pytest.approx(ref_e, abs=1e-12)
        assert variance == pytest.approx(ref_v, abs=1e-12)


def test_ap_moments_with_universe_denominator_and_padding():
    rng = np.random.default_rng(1)
    p = random_p(rng, 12)
    padded = np.concatenate([p, np.zeros(5)])  # past the end of the ranking: p = 0
    extra = 3.7  # expected relevant documents the ranking did not retrieve
    e1, v1 = ap_moments(p, p.sum() + extra)
    e2, v2 = ap_moments(padded, padded.sum() + extra)
    ref_e, ref_v = ap_moments_reference(ap_coefficients(np.arange(1, 13)), p, p.sum() + extra)
    assert e1 == pytest.approx(ref_e) and e2 == pytest.approx(ref_e)
    assert v1 == pytest.approx(ref_v) and v2 == pytest.approx(ref_v)


@pytest.mark.parametrize("n", [3, 6, 10])
def test_numerator_moments_exact_by_enumeration(n):
    rng = np.random.default_rng(10 + n)
    p = random_p(rng, n, 0.2)
    a = ap_coefficients(rng.permutation(n) + 1)  # arbitrary document numbering (the paper's point)
    exact_mean, exact_var = exact_numerator_moments(a, p)
    ref_mean, ref_var = numerator_moments_reference(a, p)
    assert ref_mean == pytest.approx(exact_mean, rel=1e-12)
    assert ref_var == pytest.approx(exact_var, rel=1e-10)
    assert numerator_variance(a, p) == pytest.approx(exact_var, rel=1e-10)


def test_paper_toy_example():
    # documents A, B, C at ranks 2, 1, 3; B and C relevant: AP = (1 + 2/3) / 2
    a = ap_coefficients([2, 1, 3])
    x = np.array([0.0, 1.0, 1.0])
    assert (x @ np.triu(a) @ x) / x.sum() == pytest.approx(0.5 * (1 + 2 / 3))
    # the distribution of AP with p_A = 0.4, p_B = 0.8, p_C = 0.7, by enumeration
    p = np.array([0.4, 0.8, 0.7])
    distribution = {}
    for bits in np.ndindex(2, 2, 2):
        x = np.array(bits, float)
        ap = 0.0 if not x.any() else round(float(x @ np.triu(a) @ x / x.sum()), 10)
        distribution[ap] = distribution.get(ap, 0.0) + np.prod(np.where(x > 0, p, 1 - p))
    assert distribution[0.0] == pytest.approx(0.036)  # = 0.2 * 0.6 * 0.3, as in the paper
    # the paper's P(AP = 1/2) = 0.2 * 0.4 * 0.7 = 0.056 is the probability of A and C relevant, B not, whose AP is
    # (1/2 + 2/3) / 2; AP = 1/2 needs A alone relevant: 0.4 * 0.2 * 0.3
    assert distribution[0.5] == pytest.approx(0.024)
    assert distribution[round((0.5 + 2 / 3) / 2, 10)] == pytest.approx(0.056)


def test_ap_moments_monte_carlo():
    rng = np.random.default_rng(7)
    n = 30
    p = random_p(rng, n)
    denominator = p.sum()
    samples = sample_numerator(rng, ap_coefficients(np.arange(1, n + 1)), p, 200_000) / denominator
    expected, variance = ap_moments(p)
    se = samples.std() / np.sqrt(len(samples))
    assert abs(samples.mean() - expected) < 5 * se
    assert samples.var() == pytest.approx(variance, rel=0.02)


def test_ratio_of_expectations_against_true_ap_moments():
    # The approximation is only in the denominator. E[N]/E[|R|] is within a few percent of E[AP], but Var[N]/E[|R|]^2
    # is NOT Var[AP]: N and |R| rise together, so the ratio varies less. Documented finding: the paper's variance
    # overstates Var[AP] (here about 3x), i.e. it is conservative for one AP; for dAP the shared denominator does
    # not change the sign, which is what P(dAP < 0) is about.
    rng = np.random.default_rng(3)
    n = 40
    p = np.where(rng.random(n) < 0.5, 1.0, rng.random(n) * 0.3)
    x = (rng.random((100_000, n)) < p).astype(float)
    ap = np.einsum("si,ij,sj->s", x, np.triu(ap_coefficients(np.arange(1, n + 1))), x) / x.sum(axis=1)
    expected, variance = ap_moments(p)
    assert expected == pytest.approx(ap.mean(), rel=0.02)
    assert 1.5 * ap.var() < variance < 6 * ap.var()


def test_ap_moments_vectorized_shapes_and_zero_denominator():
    rng = np.random.default_rng(0)
    p = rng.random((3, 4, 10))
    p[0, 0] = 0.0
    e, v = ap_moments(p)
    assert e.shape == v.shape == (3, 4)
    assert e[0, 0] == 0.0 and v[0, 0] == 0.0
    for s in range(3):
        for t in range(4):
            if s or t:
                ref = ap_moments_reference(ap_coefficients(np.arange(1, 11)), p[s, t])
                assert (e[s, t], v[s, t]) == pytest.approx(ref)


# ------------------------------------------------------------------------------------------------ delta AP


@pytest.mark.parametrize("seed", range(6))
def test_delta_ap_matches_paper_sums_with_c_ij(seed):
    rng = np.random.default_rng(seed)
    n_universe = int(rng.integers(4, 14))
    len_a, len_b = int(rng.integers(1, n_universe + 1)), int(rng.integers(1, n_universe + 1))
    a, b, ranks_a, ranks_b = two_rankings(rng, n_universe, len_a, len_b)
    p = random_p(rng, n_universe)
    width = max(len_a, len_b) + 2
    index_a = np.concatenate([a, np.full(width - len_a, -1)])
    index_b = np.concatenate([b, np.full(width - len_b, -1)])
    expected, variance = delta_ap_moments(index_a, index_b, p)
    ref_e, ref_v = delta_ap_moments_reference(ranks_a, ranks_b, p)
    assert expected == pytest.approx(ref_e, abs=1e-12)
    assert variance == pytest.approx(ref_v, abs=1e-12)
    c = ap_coefficients(ranks_a) - ap_coefficients(ranks_b)
    if n_universe <= 10:
        exact_mean, exact_var = exact_numerator_moments(c, p)
        assert expected * p.sum() == pytest.approx(exact_mean, abs=1e-10)
        assert variance * p.sum() ** 2 == pytest.approx(exact_var, abs=1e-10)


def test_delta_ap_monte_carlo():
    rng = np.random.default_rng(11)
    a, b, ranks_a, ranks_b = two_rankings(rng, 40, 25, 30)
    p = random_p(rng, 40)
    c = ap_coefficients(ranks_a) - ap_coefficients(ranks_b)
    samples = sample_numerator(rng, c, p, 200_000) / p.sum()
    expected, variance = delta_ap_moments(np.concatenate([a, [-1] * 5]), b, p)
    assert abs(samples.mean() - expected) < 5 * samples.std() / np.sqrt(len(samples))
    assert samples.var() == pytest.approx(variance, rel=0.02)


def test_delta_ap_vectorized_over_topics():
    rng = np.random.default_rng(5)
    n_topics, n_universe, depth = 4, 15, 8
    index_a = np.stack([rng.permutation(n_universe)[:depth] for _ in range(n_topics)])
    index_b = np.stack([rng.permutation(n_universe)[:depth] for _ in range(n_topics)])
    index_b[1, 5:] = -1
    p = rng.random((n_topics, n_universe))
    e, v = delta_ap_moments(index_a, index_b, p)
    for t in range(n_topics):
        e1, v1 = delta_ap_moments(index_a[t], index_b[t], p[t])
        assert (e[t], v[t]) == pytest.approx((e1, v1))


def test_cross_term_brute_force():
    rng = np.random.default_rng(2)
    for _ in range(5):
        n = 12
        w = rng.random(n) * (rng.random(n) < 0.8)
        rank_b = np.where(rng.random(n) < 0.6, rng.permutation(n) + 1, 0)
        brute = 0.0
        for i in range(n):
            for j in range(i + 1, n):
                if rank_b[i] and rank_b[j]:
                    brute += w[i] * w[j] / (max(i + 1, j + 1) * max(rank_b[i], rank_b[j]))
        assert cross_term(w, rank_b) == pytest.approx(brute)
        assert cross_term(np.stack([w, w]), np.stack([rank_b, rank_b]), max_elements=10) == pytest.approx([brute, brute])


def test_identical_rankings_have_zero_delta():
    p = np.array([0.2, 0.9, 0.5, 1.0, 0.0])
    e, v = delta_ap_moments(np.arange(5), np.arange(5), p)
    assert e == 0.0 and v == pytest.approx(0.0, abs=1e-15)


def test_map_moments_and_prob_negative():
    e = np.array([[0.1, 0.3], [0.2, 0.2]])
    v = np.array([[0.01, 0.02], [0.03, 0.04]])
    mean, var = map_moments(e, v)
    assert mean == pytest.approx([0.2, 0.2])
    assert var == pytest.approx([0.03 / 4, 0.07 / 4])
    assert prob_negative(0.0, 1.0) == pytest.approx(0.5)
    assert prob_negative(-1.0, 1.0) == pytest.approx(0.8413447, abs=1e-6)
    assert prob_negative(-0.1, 0.0) == 1.0 and prob_negative(0.1, 0.0) == 0.0 and prob_negative(0.0, 0.0) == 0.5


# ------------------------------------------------------------------------------------------------ universe, engine


def test_universe_layout():
    docs = np.array([[[5, 3, 9, -1], [1, 2, -1, -1]], [[3, 7, -1, -1], [2, 4, 1, 8]]], np.int32)
    u = Universe.from_docs(docs)
    assert u.n == 4 + 4
    assert list(u.topic) == [0, 0, 0, 0, 1, 1, 1, 1] and list(u.doc) == [3, 5, 7, 9, 1, 2, 4, 8]
    assert (u.doc[u.index[docs >= 0]] == docs[docs >= 0]).all() and (u.index[docs < 0] == u.n).all()
    assert u.rank[0, u.positions([0], [9])[0]] == 3 and u.rank[1, u.positions([0], [9])[0]] == 0
    assert u.positions([0, 1, 1], [3, 3, 8]).tolist() == [0, -1, 7]
    for k, t, r in zip(*np.nonzero(docs >= 0)):
        assert u.padded[t, u.local[k, t, r]] == u.index[k, t, r]


def test_engine_matches_direct_delta_and_incremental_updates():
    docs, qrels = toy_collection(1)
    u = Universe.from_docs(docs)
    rng = np.random.default_rng(0)
    p = np.concatenate([rng.random(u.n), [0.0]])
    pairs = all_pairs(u.n_runs)
    engine = PairEngine(u, pairs, p)
    for t in range(u.n_topics):
        local_p = p[u.padded[t]]
        local_p[u.padded[t] == u.n] = 0
        for k, (a, b) in enumerate(pairs):
            e, v = delta_ap_moments(np.where(docs[a, t] >= 0, u.local[a, t], -1), np.where(docs[b, t] >= 0, u.local[b, t], -1), local_p)
            assert (engine.en[a, t] - engine.en[b, t]) / engine.dt[t] == pytest.approx(e)
            assert engine.var[k, t] / engine.dt[t] ** 2 == pytest.approx(v)
    # change some probabilities, update only their topics, compare with a fresh engine
    changed = rng.choice(u.n, 7, replace=False)
    p[changed] = rng.integers(0, 2, 7)
    engine.recompute(np.unique(u.topic[changed]))
    fresh = PairEngine(u, pairs, p)
    for name in ("en", "run_var", "var", "dt", "diff", "cross"):
        np.testing.assert_allclose(getattr(engine, name), getattr(fresh, name), atol=1e-12)
    # judgments through the O(m) incremental cross-sum update
    for position in rng.choice(u.n, 25, replace=False):
        engine.judge(int(position), float(rng.integers(0, 2)))
    fresh = PairEngine(u, pairs, p)
    for name in ("en", "run_var", "var", "dt", "diff", "cross"):
        np.testing.assert_allclose(getattr(engine, name), getattr(fresh, name), atol=1e-12)


# ------------------------------------------------------------------------------------------------ MTC / IP


def test_mtc_stops_confident_and_uses_oracle_judgments():
    docs, qrels = toy_collection(2)
    result = mtc(docs[:2], qrels, alpha=0.9)
    assert result.status in ("confident", "exhausted")
    if result.status == "confident":
        assert result.confidence[0] >= 0.9
    truth = qrels.lookup(result.order_topic, result.order_doc) >= 1
    assert (result.order_label == truth).all()
    u = Universe.from_docs(docs[:2])
    assert (u.positions(result.order_topic, result.order_doc) >= 0).all()
    assert len(set(zip(result.order_topic, result.order_doc))) == result.n_judgments
    # the incremental engine agrees with a from-scratch evaluation of the same judgments
    again = estimate_runs(docs[:2], result.judged, 0.5)
    assert again.prob_negative[0, 1] == pytest.approx(result.prob_negative[0], abs=1e-9)


def test_mtc_first_choice_is_max_weight_by_direct_computation():
    docs, qrels = toy_collection(3)
    result = mtc(docs[:2], qrels, alpha=0.99, max_judgments=1)
    u = Universe.from_docs(docs[:2])
    best, best_weight = None, -1.0
    for t in range(u.n_topics):
        positions = u.padded[t][u.padded[t] < u.n]
        ranks_a = u.rank[0, positions].astype(float)
        ranks_b = u.rank[1, positions].astype(float)
        c = ap_coefficients(ranks_a) - ap_coefficients(ranks_b)
        p = np.full(len(positions), 0.5)
        grad = np.diag(c) + c @ p - np.diag(c) * p  # c_ii + sum_{j != i} c_ij p_j
        weight = np.abs(grad) / p.sum()
        if weight.max() > best_weight + 1e-12:
            best_weight, best = weight.max(), positions[weight.argmax()]
    assert (result.order_topic[0], result.order_doc[0]) == (u.topic[best], u.doc[best])


def test_mtc_budget_and_history():
    docs, qrels = toy_collection(4)
    result = mtc(docs[:2], qrels, alpha=0.999, max_judgments=5, record_history=True)
    assert result.n_judgments <= 5 and result.history.shape == (result.n_judgments + 1, 1)
    result_var = mtc(docs[:2], qrels, alpha=0.999, max_judgments=5, weighting="variance")
    assert result_var.order_doc[0] == result.order_doc[0]  # same first choice when every p = 0.5
    with pytest.raises(ValueError):
        mtc(docs[:2], qrels, alpha=0.3)


def test_mtc_many_pairs():
    docs, qrels = toy_collection(5)
    result = mtc(docs, qrels, alpha=0.9)
    assert result.prob_negative.shape == (6,)
    if result.status == "confident":
        assert (result.confidence >= 0.9).all()


def test_estimate_runs_counts_judged_relevant_outside_universe():
    docs, qrels = toy_collection(6)
    inside = int(docs[0, 0, 0])
    outside = int(np.setdiff1d(np.arange(qrels.n_docs), docs[:2, 0]).min())
    judged = JudgedSet.from_arrays([0, 0], [inside, outside], [1, 1], docs.shape[1], qrels.n_docs)
    est = estimate_runs(docs[:2], judged, 0.0)  # every unjudged document nonrelevant
    grades = np.zeros(docs[:2].shape, np.int16)
    grades[:, 0] = docs[:2, 0] == inside
    n_relevant = np.array([2] + [0] * (docs.shape[1] - 1))  # the unretrieved relevant document counts in R
    np.testing.assert_allclose(est.expected_ap, average_precision(grades, n_relevant))
    assert (est.variance_ap == 0).all()
    assert est.prob_negative[0, 1] in (0.0, 0.5, 1.0)


def test_incremental_pooling_order_and_judged_map():
    docs, qrels = toy_collection(7)
    pooled = incremental_pooling(docs[:2], qrels, 9)
    assert len(pooled) == 9
    # rank 1 of every topic (both runs) first
    first = {(t, int(docs[s, t, 0])) for t in range(docs.shape[1]) for s in range(2)}
    assert set(zip(pooled.topic.tolist(), pooled.doc.tolist())) <= first | {(t, int(docs[s, t, 1])) for t in range(6) for s in range(2)}
    judged = incremental_pooling(docs[:2], qrels, 10**6)
    topic_index = np.broadcast_to(np.arange(docs.shape[1])[None, :, None], docs.shape)
    grades = judged.lookup(topic_index, docs)
    expected = average_precision(grades, judged.counts()).mean(axis=1)
    np.testing.assert_allclose(judged_map(docs, judged), expected)


# ------------------------------------------------------------------------------------------------ RTC model


def test_preference_probabilities_shape_and_prior():
    q = preference_probabilities(30, 0, 0)
    assert q.shape == (30,) and (np.diff(q) < 0).all()
    assert q[14] + q[15] == pytest.approx(1.0, abs=1e-6)  # symmetric prior, symmetric solution
    strong = preference_probabilities(30, 200, 1800)
    assert 0.05 < strong.mean() < 0.15 and (np.diff(strong) < 0).all()
    few = preference_probabilities(30, 3, 1)
    assert few.mean() > preference_probabilities(30, 1, 3).mean()


def test_preference_solution_is_stationary():
    from scipy import special

    n, a, b = 20, 4.0, 9.0
    theta = special.logit(preference_probabilities(n, 3, 8))
    m = special.expit(theta[:, None] - theta[None, :])
    upper = np.triu(np.ones((n, n)), 1)
    s = special.expit(theta)
    gradient = (upper * m.T).sum(1) - (upper.T * m).sum(1) + a * (1 - s) - b * s
    assert np.abs(gradient).max() < 1e-6


def test_fit_platt_recovers_sigmoid_and_handles_empty_expert():
    rng = np.random.default_rng(0)
    x = rng.random(20_000)
    y = rng.random(20_000) < 1 / (1 + np.exp(-(-2.0 + 3.0 * x)))
    a, b = fit_platt(np.stack([x, x]), y, np.stack([np.ones_like(x, bool), np.zeros_like(x, bool)]))
    assert a[0] == pytest.approx(-2.0, abs=0.15) and b[0] == pytest.approx(3.0, abs=0.25)
    assert np.isnan(a[1]) and np.isnan(b[1])


def _platt_objective(a, b, x, y, prior=(1.0, 1.0)):
    """Platt's log posterior as fit_platt defines it (smoothed targets, Beta prior on sigma(A), sigma(B))."""
    from scipy import special

    n_pos, n_neg = (y > 0).sum(), (y <= 0).sum()
    t = np.where(y > 0, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    z = a + b * x
    data = (t * -np.logaddexp(0, -z) + (1 - t) * -np.logaddexp(0, z)).sum()
    return data + sum(prior[0] * np.log(special.expit(c)) + prior[1] * np.log(special.expit(-c)) for c in (a, b))


def test_fit_platt_slope_constraint():
    from scipy import optimize

    rng = np.random.default_rng(4)
    x = rng.random(300)
    reversed_y = (rng.random(300) < 0.6 - 0.4 * x).astype(float)  # relevance falls as the score rises
    _, b_free = fit_platt(x, reversed_y, slope="free")
    assert b_free[0] < 0
    a, b = fit_platt(x, reversed_y)  # the default: B >= 0
    assert b[0] == 0.0
    # on the boundary B = 0 the intercept maximizes the objective (a 1-D check by scipy) ...
    best = optimize.minimize_scalar(lambda v: -_platt_objective(v, 0.0, x, reversed_y), bounds=(-5, 5),
                                    method="bounded", options={"xatol": 1e-10})
    assert a[0] == pytest.approx(best.x, abs=1e-6)
    # ... and no point of the half-plane B >= 0 does better
    grid = [(u, v) for u in np.linspace(-3, 3, 61) for v in np.linspace(0, 3, 31)]
    assert _platt_objective(a[0], 0.0, x, reversed_y) >= max(_platt_objective(u, v, x, reversed_y) for u, v in grid) - 1e-9
    # an expert whose ranking is right is left alone
    right_y = (rng.random(300) < 0.2 + 0.6 * x).astype(float)
    np.testing.assert_allclose(fit_platt(x, right_y), fit_platt(x, right_y, slope="free"))
    with pytest.raises(ValueError):
        fit_platt(x, right_y, slope="positive")


def test_expert_aggregation_never_reverses_an_expert():
    docs, qrels = toy_collection(3)
    u = Universe.from_docs(docs[:2])
    truth = u.relevance(qrels)
    judged = np.zeros(u.n, bool)
    judged[np.flatnonzero(u.rank[0, :u.n] == 1)] = True  # only the first run's top documents are judged
    labels = truth.astype(np.int8)
    model = ExpertAggregation()
    model(u, judged, labels)
    assert (np.nan_to_num(model.last_platt_[1]) >= 0).all()
    free = ExpertAggregation(platt_slope="free")
    free(u, judged, labels)
    assert free.last_platt_[1].shape == model.last_platt_[1].shape


def test_aggregation_covariance_is_the_inverse_hessian():
    from scipy import special

    from evalkit.confidence import aggregation_covariance

    rng = np.random.default_rng(2)
    q = rng.random((60, 2))
    y = rng.random(60) < special.expit(-0.5 + q @ np.array([1.5, -0.5]))
    prior = (3.0, 3.0)
    coef = fit_aggregation(q, y, prior=prior)
    x = np.concatenate([np.ones((60, 1)), q], axis=1)

    def log_posterior(c):
        z = x @ c
        return (y * -np.logaddexp(0, -z) + (1 - y) * -np.logaddexp(0, z)).sum() + \
            (prior[0] * np.log(special.expit(c)) + prior[1] * np.log(special.expit(-c))).sum()

    h = 1e-4
    eye = np.eye(3)
    hessian = np.array([[(log_posterior(coef + h * eye[i] + h * eye[j]) - log_posterior(coef + h * eye[i] - h * eye[j])
                          - log_posterior(coef - h * eye[i] + h * eye[j]) + log_posterior(coef - h * eye[i] - h * eye[j]))
                         / (4 * h * h) for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(aggregation_covariance(x, coef, prior), np.linalg.inv(-hessian), rtol=1e-4)


def test_coefficient_uncertainty_is_the_delta_method():
    """The extra Var[dMAP] of the option equals J Sigma J' with J = dE[dMAP]/dlambda by finite differences."""
    from scipy import special

    docs, qrels = toy_collection(5, n_runs=3, n_topics=4, depth=12)
    u = Universe.from_docs(docs)
    truth = u.relevance(qrels)
    rng = np.random.default_rng(1)
    judged_mask = rng.random(u.n) < 0.35
    judged = JudgedSet.from_arrays(u.topic[judged_mask], u.doc[judged_mask], truth[judged_mask].astype(np.int16),
                                   u.n_topics, qrels.n_docs)
    model = ExpertAggregation(prior=(2.0, 2.0), coefficient_uncertainty=True)
    with_uncertainty = estimate_runs(docs, judged, model)
    coef, covariance = model.last_coef_, model.last_covariance_
    _, q = model.expert_features(u, judged_mask, truth.astype(np.int8))
    design = np.concatenate([np.ones((u.n, 1)), q], axis=1)

    def delta_means(c):
        p = np.where(judged_mask, truth, special.expit(design @ c))
        return estimate_runs(docs, judged, p).delta_mean

    plain = estimate_runs(docs, judged, np.where(judged_mask, truth, special.expit(design @ coef)))
    np.testing.assert_allclose(with_uncertainty.delta_mean, plain.delta_mean, atol=1e-12)
    h = 1e-6
    jac = np.stack([(delta_means(coef + h * e) - delta_means(coef - h * e)) / (2 * h) for e in np.eye(len(coef))], -1)
    extra = np.einsum("ijf,fg,ijg->ij", jac, covariance, jac)
    np.testing.assert_allclose(with_uncertainty.delta_variance - plain.delta_variance, extra, rtol=1e-5, atol=1e-12)
    assert (extra[~np.eye(3, dtype=bool)] > 0).all()
    with pytest.raises(ValueError):
        ExpertAggregation(coefficient_uncertainty=True, coefficient_prior="bounded")


def test_rtc_with_coefficient_uncertainty_is_less_sure():
    docs, qrels = toy_collection(0, n_topics=12)
    plain = rtc(docs[:2], qrels, alpha=0.999, max_judgments=20, model=ExpertAggregation(), record_history=True)
    wider = rtc(docs[:2], qrels, alpha=0.999, max_judgments=20, record_history=True,
                model=ExpertAggregation(coefficient_uncertainty=True))
    assert plain.n_judgments == wider.n_judgments == 20
    np.testing.assert_array_equal(plain.order_doc, wider.order_doc)  # the weights do not use the variance
    confidence = lambda h: np.maximum(h, 1 - h)[:, 0]  # noqa: E731
    # same judgments and probabilities after the re-estimation, more variance: never more confident
    assert (confidence(wider.history[10:21]) <= confidence(plain.history[10:21]) + 1e-12).all()
    assert (confidence(wider.history[10:21]) < confidence(plain.history[10:21])).any()


def test_fit_aggregation_recovers_coefficients():
    rng = np.random.default_rng(1)
    q = rng.random((20_000, 3))
    z = -1.0 + q @ np.array([2.0, -1.0, 0.5])
    y = rng.random(20_000) < 1 / (1 + np.exp(-z))
    coef = fit_aggregation(q, y)
    np.testing.assert_allclose(coef, [-1.0, 2.0, -1.0, 0.5], atol=0.15)
    shrunk = fit_aggregation(q[:20], y[:20], prior=(100, 100))
    assert np.abs(shrunk).max() < 0.3
    bounded = fit_aggregation(q[:200], y[:200], coefficient_prior="bounded")
    assert ((bounded >= 0) & (bounded <= 1)).all()


def test_expert_aggregation_outputs():
    docs, qrels = toy_collection(8)
    u = Universe.from_docs(docs)
    truth = u.relevance(qrels)
    rng = np.random.default_rng(0)
    judged = rng.random(u.n) < 0.3
    labels = truth.astype(np.int8)
    for model in (ExpertAggregation(), ExpertAggregation(platt_input="logit"), ExpertAggregation(calibrate=False)):
        p = model(u, judged, labels)
        assert p.shape == (u.n,)
        assert (p[judged] == truth[judged]).all()
        assert ((p[~judged] > 0) & (p[~judged] < 1)).all()
    # with many judgments the model separates relevant from nonrelevant unjudged documents
    p = ExpertAggregation()(u, judged, labels)
    assert p[~judged & truth].mean() > p[~judged & ~truth].mean()


def test_rtc_reestimates_every_tenth_judgment():
    docs, qrels = toy_collection(9)
    result = rtc(docs[:2], qrels, alpha=0.999, max_judgments=35)
    assert result.n_reestimates == result.n_judgments // 10
    assert ((result.p[:-1] >= 0) & (result.p[:-1] <= 1)).all()


# ------------------------------------------------------------------------------------------------ experiment


def test_carterette_trial_and_tables():
    from evalkit.papers import carterette2007 as exp

    docs, qrels = toy_collection(10, n_runs=6, n_topics=5, depth=15)
    grades = qrels.lookup(np.broadcast_to(np.arange(5)[None, :, None], docs.shape), docs)
    data = exp.TrialData(docs=docs, qrels=qrels, true_ap=average_precision(grades, qrels.counts()),
                         run_names=np.array([f"r{i}" for i in range(6)], object), name="toy")
    results = exp.run_experiment(data, 3, seed=1, scheduler="serial", progress=False, k=5, c=2, max_judgments=60)
    assert len(results.trials) == 3 and len(results.pairs) == 30
    again = exp.run_experiment(data, 3, seed=1, scheduler="serial", progress=False, k=5, c=2, max_judgments=60)
    pd.testing.assert_frame_equal(results.pairs, again.pairs)
    table = exp.table2(results)
    assert list(table.index) == list(exp.BIN_LABELS)  # bins only: the summary rows have their own table
    shares = table[("MTC", "% in bin")]
    assert shares.sum() == pytest.approx(1.0)
    summary = exp.table2_summary(results)
    assert list(summary.index) == list(exp.TABLE2_SUMMARY_ROWS)
    assert list(summary.columns) == ["MTC", "RTC", "IP", "MTC 95% interval", "RTC 95% interval", "IP 95% interval"]
    assert summary.loc["W_bar", "RTC 95% interval"] == exp.w_bar_interval(results, "rtc").bounds(".2f")
    assert summary.loc["median judged", "RTC"] == results.trials["judged_rtc"].median()
    assert summary.loc["mean tau", "IP"] == pytest.approx(results.trials["tau_ip"].mean())
    assert exp.paper_table2().loc["1.0", ("RTC", "accuracy")] == 0.989
    assert exp.paper_table2_summary().loc["W_bar", "MTC"] == -5.34
    assert set(exp.table3(results).columns.get_level_values(0)) == {"two original", "one original", "no original"}
    assert exp.table4(results).shape[0] == 9
    assert set(exp.figure2_data(results)["algorithm"]) == {"MTC", "RTC"}
    assert len(exp.hypothesis_tests(results)) == 5
    comparison = exp.paper_comparison(results)
    assert comparison.loc["median judged", "paper ad hoc 99 (RTC)"] == 179
    assert set(exp.PAPER_ADHOC99["accuracy"]) == set(exp.BIN_LABELS)


def test_winnings_and_bins():
    from evalkit.papers.carterette2007 import confidence_bins, winnings

    assert winnings([0.75], [1])[0] == pytest.approx(1.0)  # (1 - 0.75) / 0.25
    assert winnings([0.75], [0])[0] == pytest.approx(-3.0)  # pays the odds 3
    assert winnings([0.9999], [0])[0] == -100.0 and winnings([1.0], [0])[0] == -100.0 and winnings([1.0], [1])[0] == 0.0
    assert confidence_bins([0.5, 0.599, 0.6, 0.949, 0.95, 0.99, 1.0]).tolist() == [0, 0, 1, 4, 5, 6, 6]
    # calibrated predictions break even on average
    rng = np.random.default_rng(0)
    conf = rng.uniform(0.5, 0.95, 200_000)
    assert winnings(conf, rng.random(conf.size) < conf).mean() == pytest.approx(0.0, abs=0.02)


# ------------------------------------------------------------------------------------------------ TREC-8


@pytest.fixture(scope="module")
def trec8_100(trec8):
    return trec8.truncate(100)


def test_trec8_ap_moments_whole_collection(trec8_100):
    # its speed is a budget in bench/bench_carterette2007.py, not a timed assertion here
    c = trec8_100
    u = Universe.from_docs(np.ascontiguousarray(c.docs))
    p = np.concatenate([np.full(u.n, 0.3), [0.0]])
    expected, variance = ap_moments(p[u.index], u.topic_sums(p)[None, :])
    assert expected.shape == (129, 50) and np.isfinite(variance).all()
    row = p[u.index[7, 3]]
    ref = ap_moments_reference(ap_coefficients(np.arange(1, len(row) + 1)), row, u.topic_sums(p)[3])
    assert expected[7, 3] == pytest.approx(ref[0], abs=1e-12) and variance[7, 3] == pytest.approx(ref[1], abs=1e-12)


def test_trec8_one_pair(trec8_100):
    c = trec8_100
    docs = np.ascontiguousarray(c.docs[[0, 1]])
    result = mtc(docs, c.qrels)
    assert result.status == "confident" and result.n_judgments > 0
