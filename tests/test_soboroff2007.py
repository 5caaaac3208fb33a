"""Soboroff (2007): relevance-based sampling (evalkit.judging.relevance_sampling) and the paper's analyses
(the package evalkit.papers.soboroff2007: experiment, tables, claims; used here through its re-exports)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from evalkit.data.collection import Collection
from evalkit.data.pools import judged_depth, pool
from evalkit.data.trec_files import Qrels, Run
from evalkit.judging.relevance_sampling import (
    pool_subsamples,
    relevance_sample,
    sampling_design,
    subsample_qrels,
)
from evalkit.measures.evaluation import score_matrix
from evalkit.measures.inferred import trec_infap
from evalkit.papers import soboroff2007 as sb


def make_collection(seed=0, n_groups=4, runs_per_group=2, n_topics=3, n_docs=300, depth=80, p_rel=0.2,
                    judged_depth=None, unjudged_group=None):
    """Random runs in groups (run ``g{g}r{i}``); qrels judge the depth-``judged_depth`` pool of all runs
    (default: everything retrieved). ``unjudged_group`` marks one group's runs as not pooled."""
    rng = np.random.default_rng(seed)
    docnos = np.array([f"D{i:05d}" for i in range(n_docs)], object)
    runs, info = [], []
    for g in range(n_groups):
        for i in range(runs_per_group):
            topics, docs, scores = [], [], []
            for t in range(n_topics):
                # runs of a group share a preference so that groups contribute their own documents
                weights = np.exp(rng.normal(0, 1, n_docs) + (np.arange(n_docs) % n_groups == g) * 1.5)
                chosen = rng.choice(n_docs, depth, replace=False, p=weights / weights.sum())
                topics += [str(401 + t)] * depth
                docs += list(docnos[chosen])
                scores += list(np.linspace(100, 1, depth))
            name = f"g{g}r{i}"
            runs.append(Run(name, np.array(topics, object), np.array(docs, object), np.array(scores), ordered=False))
            info.append({"run": name, "group": f"g{g}", "judged": g != unjudged_group})
    depth_j = depth if judged_depth is None else judged_depth
    pairs = set()
    for run in runs:
        frame = run.to_frame()
        top = frame[frame["rank"] <= depth_j]
        pairs.update(zip(top.topic, top.docno))
    pairs = sorted(pairs)
    rows = [(t, d, int(rng.random() < p_rel)) for t, d in pairs]
    qrels = Qrels.from_frame(pd.DataFrame(rows, columns=["topic", "docno", "grade"]))
    info = pd.DataFrame(info).set_index("run")
    collection = Collection.from_runs(runs, qrels, "soboroff-test", runs_info=info[["group"]])
    collection.runs_info["judged"] = info["judged"].reindex(collection.run_names).to_numpy()
    return collection


@pytest.fixture(scope="module")
def small():
    return make_collection()


# ------------------------------------------------------------------------------------------------ the design


def test_design_hand_computed():
    # |J| = 500, |R| = 100: P = 0.2; x = 50 + 50 (0.2 - 0.1) / 0.02 = 300; size = 500 * 300 / 50 = 3000
    # |J| = 400, |R| = 20: P = 0.05; x = 50 + 50 (-0.05) / 0.02 = -75; size = -600 -> floor 600; depth 75
    # |J| = 1500, |R| = 150: P = 0.1; x = 50; size 1500 -> floor 1700; depth ceil(1700 * 50 / 1500 = 56.7) = 57
    d = sampling_design([500, 400, 1500], [100, 20, 150])
    assert d.p_rel.tolist() == pytest.approx([0.2, 0.05, 0.1])
    assert d.x.tolist() == pytest.approx([300, -75, 50])
    assert d.size_fit.tolist() == pytest.approx([3000, -600, 1500])
    assert d.pool_size.tolist() == pytest.approx([3000, 600, 1700])
    assert d.floor.tolist() == [False, True, True]
    assert d.depth.tolist() == [300, 75, 57]
    assert not d.capped.any()


def test_design_cap_slope_rpt_and_empty_topic():
    d = sampling_design([500, 400, 0], [100, 20, 0], max_depth=100)
    assert d.depth_uncapped.tolist() == [300, 75, 100]
    assert d.depth.tolist() == [100, 75, 100]
    assert d.capped.tolist() == [True, False, False]
    # slope 0.05: x = 50 + 50 * 0.1 / 0.05 = 150
    assert sampling_design([500], [100], slope=0.05).depth.iloc[0] == 150
    # rpt 0.15, budget 100: x = 50 + 50 * 0.05 / 0.02 = 175; floor 600 -> depth 175
    assert sampling_design([500], [100], rpt=0.15, budget=100).depth.iloc[0] == 175
    # phase-1 depth 20: x = 20 + 20 * 0.1 / 0.02 = 120; floor: (500 + 200) * 20 / 500 = 28
    assert sampling_design([500], [100], phase1_depth=20).depth.iloc[0] == 120
    assert sampling_design([500], [10], phase1_depth=20).depth.iloc[0] == 28
    with pytest.raises(ValueError):
        sampling_design([500], [100], slope=0)
    with pytest.raises(ValueError):
        sampling_design([500], [100], max_depth=30)


def test_sample_matches_a_direct_computation(small):
    s = relevance_sample(small, phase1_depth=10, budget=40, slope=0.05, max_depth=None, seed=3)
    docs, qrels = small.docs, small.qrels
    pooled_runs = np.flatnonzero(small.judged_runs)
    for t in range(small.n_topics):
        first_rank = {}
        for r in range(small.depth):
            for run in pooled_runs:
                d = int(docs[run, t, r])
                if d >= 0 and d not in first_rank:
                    first_rank[d] = r + 1
        phase1 = [d for d, r in first_rank.items() if r <= 10]
        grades = {d: int(qrels.lookup(np.array([t]), np.array([d]))[0]) for d in first_rank}
        J, R = len(phase1), sum(grades[d] > 0 for d in phase1)
        x = 10 + 10 * (R / J - 0.1) / 0.05
        size = max(J * x / 10, J + 40)
        depth = math.ceil(size * 10 / J - 1e-9)
        row = s.table.iloc[t]
        assert (row.judged, row.relevant, row.depth) == (J, R, min(depth, small.depth))
        in_pool = [d for d, r in first_rank.items() if r <= row.depth]
        beyond = [d for d in in_pool if first_rank[d] > 10]
        assert row.pool_docs == len(in_pool) and row.beyond_pool == len(beyond)
        assert row.rate == pytest.approx(min(1.0, 40 / len(beyond)))
        mine = s.qrels.topic == t
        assert sorted(s.qrels.doc[mine].tolist()) == sorted(in_pool)
        sampled = s.qrels.grade[mine] >= 0
        assert row.sampled == sampled.sum()
        for d, g in zip(s.qrels.doc[mine], s.qrels.grade[mine]):
            assert g == -1 or g == grades[int(d)]
        assert row.sampled_beyond == sum(first_rank[int(d)] > 10 for d in s.qrels.doc[mine][sampled])
    assert (s.qrels.stratum == 1).all()
    assert s.n_judged == s.table.sampled.sum()
    # the phase-1 pool qrels are the depth-10 pool with its grades
    p = pool(small, 10)
    assert np.array_equal(s.pool_qrels.doc, p.doc) and np.array_equal(s.pool_qrels.topic, p.topic)


def test_rate_one_samples_everything(small):
    s = relevance_sample(small, phase1_depth=10, budget=10_000, max_depth=None, seed=0)
    assert (s.rate == 1).all()
    assert (s.qrels.grade >= 0).all()  # every pooled document judged here
    # with every pooled document sampled, trec infAP equals AP on the same (deeper) pool
    full = score_matrix(small, "AP", s.qrels)
    assert np.allclose(trec_infap(small, s.qrels), full, atol=1e-4)


def test_determinism(small):
    a = relevance_sample(small, phase1_depth=10, budget=20, seed=11)
    b = relevance_sample(small, phase1_depth=10, budget=20, seed=11)
    c = relevance_sample(small, phase1_depth=10, budget=20, seed=12)
    assert np.array_equal(a.qrels.grade, b.qrels.grade)
    pd.testing.assert_frame_equal(a.table, b.table)
    assert not np.array_equal(a.qrels.grade, c.qrels.grade)
    g1 = pool_subsamples(a.pool_qrels, a.rate, 4, seed=5)
    g2 = pool_subsamples(a.pool_qrels, a.rate, 4, seed=5)
    assert np.array_equal(g1, g2)


def test_judged_depth_caps_the_sample():
    c = make_collection(seed=2, judged_depth=30)
    assert judged_depth(c) == 30
    s = relevance_sample(c, phase1_depth=10, seed=0)
    assert s.params["max_depth"] == 30
    assert (s.depth <= 30).all()
    assert (s.table.capped == (s.table.depth_uncapped > 30)).all()
    assert (s.table.sampled_unjudged == 0).all()
    with pytest.raises(ValueError):
        relevance_sample(c, phase1_depth=40, seed=0)


def test_pool_subsamples_rates(small):
    s = relevance_sample(small, phase1_depth=10, seed=0)
    q = s.pool_qrels
    grades = pool_subsamples(q, np.array([1.0, 0.0, 0.5]), 200, seed=1)
    t = q.topic
    assert (grades[:, t == 0] == q.grade[t == 0]).all()
    assert (grades[:, t == 1] == -1).all()
    kept = (grades[:, t == 2] >= 0).mean()
    assert 0.45 < kept < 0.55
    sub = subsample_qrels(q, grades[0])
    assert sub.sampled and len(sub) == len(q)


# -------------------------------------------------------------------------------------- leave one group out


def test_leave_one_group_out_matches_rebuilding_without_the_group():
    c = make_collection(seed=4, unjudged_group=3)
    s = relevance_sample(c, phase1_depth=10, slope=0.05, seed=1)
    frame = sb.leave_one_group_out(c, s)
    assert set(frame.group) == {"g0", "g1", "g2"}  # g3 did not pool: not held out
    groups = c.runs_info["group"].to_numpy()
    for g in ("g0", "g1", "g2"):
        rest = c.judged_runs & (groups != g)
        mine = np.flatnonzero(groups == g)
        # the pool without g: the depth-10 pool of the other pooling runs
        p = pool(c, 10, rest).judged_set(c.qrels)
        expect_map = score_matrix(c, "AP", p)[mine].mean(axis=1)
        # the sample without g: the sampled qrels restricted to the other runs' depth-d pool
        deep = pool(c, int(s.depth.max()), rest)
        keep_keys = set(zip(deep.topic[deep.rank <= s.depth[deep.topic]].tolist(),
                            deep.doc[deep.rank <= s.depth[deep.topic]].tolist()))
        keep = np.array([(t, d) in keep_keys for t, d in zip(s.qrels.topic.tolist(), s.qrels.doc.tolist())])
        q = s.qrels
        from evalkit.data.collection import JudgedSet

        reduced = JudgedSet(q.topic[keep], q.doc[keep], q.grade[keep], q.stratum[keep], q.n_topics, q.n_docs)
        expect_inf = trec_infap(c, reduced)[mine].mean(axis=1)
        got = frame.loc[c.run_names[mine]]
        assert np.allclose(got.MAP_held_out, expect_map)
        assert np.allclose(got.infAP_held_out, expect_inf)
    # ranks: against the other runs' full scores
    full = sb.figure1(c, s)
    run = frame.index[0]
    held = frame.loc[run, "MAP_held_out"]
    others = full.MAP_pool.drop(run)
    assert frame.loc[run, "MAP_rank_held_out"] == 1 + (others > held).sum()
    assert frame.loc[run, "MAP_rank_full"] == 1 + (others > full.MAP_pool[run]).sum()
    summary = sb.logo_summary(frame)
    assert summary.loc["MAP (pool)", "mean |score change|"] == pytest.approx(frame.MAP_change.abs().mean())


def test_leave_one_group_out_leaves_the_collection_alone():
    c = make_collection(seed=7, n_groups=3, runs_per_group=1)  # single-run groups
    before = c.docs.copy()
    s = relevance_sample(c, phase1_depth=10, slope=0.05, seed=1)
    sb.leave_one_group_out(c, s)
    assert np.array_equal(c.docs, before)


def test_unique_group():
    c = make_collection(seed=5)
    codes = np.array([int(g[1]) for g in c.runs_info["group"]])
    p = pool(c, 15)
    sole = sb.unique_group(c, None, 15, codes, p.topic, p.doc)
    for t, d, got in zip(p.topic[:200], p.doc[:200], sole[:200]):
        hits = {codes[s] for s in range(c.n_runs) if d in c.docs[s, t, :15]}
        assert got == (hits.pop() if len(hits) == 1 else -1)
    assert (sb.unique_group(c, None, 15, codes, np.array([0]), np.array([len(c.vocabulary) - 1])) >= -2).all()


# ------------------------------------------------------------------------------------------------- ANOVA


def test_anova_against_statsmodels():
    smf = pytest.importorskip("statsmodels.formula.api")
    from statsmodels.stats.anova import anova_lm

    rng = np.random.default_rng(0)
    K, S, T = 3, 2, 4
    y = rng.random((K, S, T)) + np.arange(T)[None, None, :] * 0.3
    k, s, t = np.meshgrid(np.arange(K), np.arange(S), np.arange(T), indexing="ij")
    frame = pd.DataFrame({"y": y.ravel(), "sample": k.ravel(), "run": s.ravel(), "topic": t.ravel()})
    result = sb.anova_topic_sample(y)
    fit = smf.ols("y ~ C(topic) + C(sample)", frame).fit()
    ref = anova_lm(fit, typ=2)
    for mine, theirs in (("topic", "C(topic)"), ("sample", "C(sample)"), ("residual", "Residual")):
        assert result.table.loc[mine, "SS"] == pytest.approx(ref.loc[theirs, "sum_sq"])
        assert result.table.loc[mine, "df"] == pytest.approx(ref.loc[theirs, "df"])
    assert result.table.loc["sample", "F"] == pytest.approx(ref.loc["C(sample)", "F"])
    assert result.sample_p == pytest.approx(ref.loc["C(sample)", "PR(>F)"])
    assert result.topic_p == pytest.approx(ref.loc["C(topic)", "PR(>F)"])
    # per-topic effects: sum-to-zero coding gives the first T - 1 topic effects and their t tests
    fit_sum = smf.ols("y ~ C(topic, Sum) + C(sample)", frame).fit()
    names = [n for n in fit_sum.params.index if n.startswith("C(topic, Sum)")]
    assert result.topics.effect.iloc[: T - 1].to_numpy() == pytest.approx(fit_sum.params[names].to_numpy())
    assert result.topics.p.iloc[: T - 1].to_numpy() == pytest.approx(fit_sum.pvalues[names].to_numpy())
    # the interaction model's sums of squares
    inter = anova_lm(smf.ols("y ~ C(topic) * C(sample)", frame).fit(), typ=2)
    assert result.mixed.loc["topic:sample", "SS"] == pytest.approx(inter.loc["C(topic):C(sample)", "sum_sq"])
    assert result.mixed.loc["within", "SS"] == pytest.approx(inter.loc["Residual", "sum_sq"])
    f_mixed = (result.mixed.loc["sample", "SS"] / (K - 1)) / (inter.loc["C(topic):C(sample)", "sum_sq"]
                                                             / inter.loc["C(topic):C(sample)", "df"])
    assert result.mixed.loc["sample", "F"] == pytest.approx(f_mixed)


def test_anova_per_run_against_statsmodels():
    smf = pytest.importorskip("statsmodels.formula.api")
    from statsmodels.stats.anova import anova_lm

    rng = np.random.default_rng(1)
    K, S, T = 4, 3, 5
    y = rng.random((K, S, T))
    per_run = sb.anova_per_run(y, ["a", "b", "c"])
    for s, name in enumerate("abc"):
        k, t = np.meshgrid(np.arange(K), np.arange(T), indexing="ij")
        frame = pd.DataFrame({"y": y[:, s, :].ravel(), "sample": k.ravel(), "topic": t.ravel()})
        ref = anova_lm(smf.ols("y ~ C(topic) + C(sample)", frame).fit(), typ=2)
        assert per_run.loc[name, "F_sample"] == pytest.approx(ref.loc["C(sample)", "F"])
        assert per_run.loc[name, "p_sample"] == pytest.approx(ref.loc["C(sample)", "PR(>F)"])
        assert per_run.loc[name, "p_topic"] == pytest.approx(ref.loc["C(topic)", "PR(>F)"])
        assert per_run.loc[name, "max_sample_mean"] == pytest.approx(y[:, s, :].mean(axis=1).max())
    constant = sb.anova_per_run(np.ones((3, 1, 4)))
    assert np.isnan(constant.p_sample.iloc[0])


# ---------------------------------------------------------------------------------------------- titlestat


def test_titlestat_made_up_example():
    ex = sb.titlestat_example()
    pool_stat = sb.titlestat(ex["titles"], ex["pool"], ex["texts"])
    below = sb.titlestat(ex["titles"], ex["sample_below"], ex["texts"])
    assert pool_stat.titlestat.tolist() == pytest.approx([(2 / 3 + 1) / 2, 1.0])
    assert pool_stat.titlestat.mean() == pytest.approx(0.9166667, abs=1e-6)
    assert below.titlestat.tolist() == pytest.approx([0.25, 1 / 6])
    assert below.titlestat.mean() == pytest.approx(0.2083333, abs=1e-6)
    assert pool_stat.title_words.tolist() == ["solar eclipse", "honey bee decline"]
    # a callable text source, a stemmer, a topic without documents
    stemmed = sb.titlestat({"1": "eclipses"}, {"1": ["d5"], "2": []}, ex["texts"].get, stem=lambda w: w.rstrip("s"))
    assert stemmed.titlestat.iloc[0] == 1.0
    empty = sb.titlestat({"9": "anything"}, {}, ex["texts"])
    assert np.isnan(empty.titlestat.iloc[0])


def test_titlestat_rel_reads_relevant_documents_from_qrels():
    c = make_collection(seed=6, n_topics=2)
    q = c.qrels
    texts = {d: ("alpha beta" if i % 2 else "alpha") for i, d in enumerate(c.vocabulary)}
    frame = sb.titlestat_rel(c, q, {"401": "alpha beta", "402": "beta"}, texts)
    for t, topic in enumerate(("401", "402")):
        rel = c.vocabulary[q.doc[(q.topic == t) & (q.grade > 0)]]
        beta = np.mean([texts[d] == "alpha beta" for d in rel])
        expect = (1 + beta) / 2 if topic == "401" else beta
        assert frame.loc[topic, "titlestat"] == pytest.approx(expect)
        assert frame.loc[topic, "documents"] == len(rel)


# ------------------------------------------------------------------------------------------- the whole study


def test_run_study_smoke():
    from evalkit.data.datasets import load_dataset

    c = load_dataset("synthetic", fast=True)
    study = sb.run_study(c, n_subsamples=3, seed=0)
    assert study.subsample_scores.shape == (3, c.n_runs, c.n_topics)
    assert len(study.figure1) == c.n_runs
    assert set(study.statistics.index) >= {"depth_min", "depth_mean", "topics_capped"}
    assert study.figure1.MAP_pool.between(0, 1).all() and study.figure1.infAP_sample.between(0, 1).all()
    assert len(sb.claims(study, "synthetic")) > 5
    ex = sb.titlestat_example()
    assert ex["titles"]
