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
    study = sb.run_study(c, n_subsamples=3, n_draws=3, logo_draws=2, seed=0)
    assert study.subsample_scores.shape == (3, c.n_runs, c.n_topics)
    assert len(study.figure1) == c.n_runs
    assert set(study.statistics.index) >= {"depth_min", "depth_mean", "topics_capped"}
    assert study.figure1.MAP_pool.between(0, 1).all() and study.figure1.infAP_sample.between(0, 1).all()
    assert len(sb.claims(study, "synthetic")) > 5
    ex = sb.titlestat_example()
    assert ex["titles"]



# ------------------------------------------------------------------------------------------- draws of the design


def test_redraw_is_relevance_sample_with_that_seed(small):
    from evalkit.judging.relevance_sampling import redraw

    a = relevance_sample(small, phase1_depth=10, budget=40, slope=0.05, seed=3)
    b = relevance_sample(small, phase1_depth=10, budget=40, slope=0.05, seed=8)
    again = redraw(a, 8)
    assert np.array_equal(again.qrels.grade, b.qrels.grade) and np.array_equal(again.qrels.doc, b.qrels.doc)
    pd.testing.assert_frame_equal(again.table, b.table)
    assert not np.array_equal(a.qrels.grade, b.qrels.grade)


def test_subsamples_and_draws_score_as_trec_infap_does(small):
    from evalkit.parallel import trial_seeds
    from evalkit.judging.relevance_sampling import redraw

    s = relevance_sample(small, phase1_depth=10, budget=40, slope=0.05, seed=1)
    scores = sb.subsample_scores(small, s, 4, seed=2)
    grades = pool_subsamples(s.pool_qrels, s.rate, 4, seed=2)
    for k in range(4):
        assert np.array_equal(scores[k], trec_infap(small, subsample_qrels(s.pool_qrels, grades[k])), equal_nan=True)
    draws = sb.figure1_draws(small, s, 3, seed=5)
    for k, seed in enumerate(trial_seeds(5, 3)):
        drawn = redraw(s, seed)
        summary = sb.figure1_summary(sb.figure1(small, drawn))["kit"]
        row = draws.per_draw.iloc[k]
        assert row.tau == pytest.approx(summary["Kendall's tau (MAP pool vs infAP sample)"])
        assert row.not_lower == summary["runs with infAP >= MAP"]
        assert row.beyond_relevant == pytest.approx(drawn.table.new_relevant.mean())
        infap, ap = trec_infap(small, drawn.qrels), sb.pooled_map(small, drawn)
        assert np.allclose(draws.topic_difference[k], np.nanmean(np.abs(infap - ap), axis=0))


def test_logo_draws_average_leave_one_group_out_over_the_draws():
    from evalkit.parallel import trial_seeds
    from evalkit.judging.relevance_sampling import redraw

    c = make_collection(seed=4, unjudged_group=3)
    s = relevance_sample(c, phase1_depth=10, slope=0.05, seed=1)
    over = sb.logo_draws(c, s, 2, seed=9)
    frames = [sb.leave_one_group_out(c, redraw(s, seed)) for seed in trial_seeds(9, 2)]
    expect = np.mean([f.infAP_change.abs().to_numpy() for f in frames], axis=0)
    assert np.allclose(over.runs["|infAP change|"].to_numpy(), expect)
    assert np.allclose(over.runs["|MAP rank change|"], frames[0].MAP_rank_change.abs())
    groups = over.by_group()
    assert groups.runs.sum() == len(over.runs) and set(groups.index) == {"g0", "g1", "g2"}


def test_uniform_comparison_spends_the_same_judgments(small):
    s = relevance_sample(small, phase1_depth=10, budget=40, slope=0.05, seed=1)
    u = sb.uniform_comparison(small, s)
    assert u.uniform_judged.sum() == pytest.approx(u.judged.sum())
    deep = pool(small, int(s.params["max_depth"]))
    grade = small.qrels.lookup(deep.topic, deep.doc)
    relevant = np.bincount(deep.topic[grade > 0], minlength=small.n_topics)
    assert np.allclose(u.uniform_relevant, u.uniform_rate.iloc[0] * relevant)
    # the relevance-based side: rate x the relevant documents of each topic's depth-d pool
    for t in range(small.n_topics):
        inside = (deep.topic == t) & (deep.rank <= s.depth[t]) & (grade > 0)
        assert u.relevant.iloc[t] == pytest.approx(s.rate[t] * inside.sum())


def test_map_adequacy_against_the_full_qrels():
    c = make_collection(seed=2, unjudged_group=1)
    s = relevance_sample(c, phase1_depth=10, seed=0)
    m = sb.map_adequacy(c, s)
    judged = c.judged_runs
    assert list(m.index) == list(c.run_names[judged])
    assert np.allclose(m.MAP_full, np.nanmean(score_matrix(c, "AP"), axis=1)[judged])
    assert np.allclose(m.MAP_pool, np.nanmean(sb.pooled_map(c, s), axis=1)[judged])
    assert np.allclose(m.relative_error, np.abs(m.MAP_pool - m.MAP_full) / m.MAP_full)


# ------------------------------------------------------------------------ reviewers' collections: degenerate designs


@pytest.fixture(scope="module")
def reviewer(tmp_path_factory):
    from evalkit.data.datasets import load_dataset
    from evalkit.data.simulator import write_collection

    root = tmp_path_factory.mktemp("reviewer02")
    folders = {name: write_collection(root / name, name) for name in ("shallow", "tiny")}
    return {name: (folder, load_dataset(str(folder))) for name, folder in folders.items()}


def _graded(study, collection, plan):
    from evalkit.claims.grading import claims_frame, grade_frame

    context = {"name": collection.name, "n_runs": collection.n_runs, "n_topics": collection.n_topics}
    frame = grade_frame(claims_frame(sb.claims(study, collection.name, plan)), context)
    return frame.set_index(pd.Index(list(sb.CLAIM_ROWS), name="key"))


def test_shallow_pools_are_degenerate_and_not_rated(reviewer):
    from evalkit.papers.soboroff2007.ratings import DEGENERATE_KEYS

    _, c = reviewer["shallow"]
    plan = sb.plan(c)
    assert (plan.phase1_depth, plan.max_depth) == (4, 7)
    assert plan.degenerate == {
        "sampling": "sampling rate 1.0 on 30 of 30 topics",
        "depth": "the judged-depth cap sets the sample depth on 30 of 30 topics",
        "near_full": "30 of 30 topics sampled at a rate >= 90%"}
    assert "budget=50 restores it" in plan.restore["sampling"]
    assert "degenerate here, so not rated: sampling (sampling rate 1.0 on 30 of 30 topics; budget=50" in str(plan)
    study = sb.run_study(c, phase1_depth=plan.phase1_depth, max_depth=plan.max_depth, n_subsamples=100,
                         n_draws=3, logo_draws=1)
    assert (study.sample.rate == 1).all() and study.sample.table.capped.all()
    # every subsample is the whole pool: no sample effect, and no F made of rounding errors
    assert study.anova.table.loc["sample", "SS"] == 0 and study.anova.sample_p == 1
    assert np.isnan(study.anova.sample_p_mixed)
    graded = _graded(study, c, plan)
    for key, parts in DEGENERATE_KEYS.items():
        first = next(p for p in parts if p in plan.degenerate)
        assert graded.loc[key, "verdict"] == f"not rated: degenerate ({plan.degenerate[first]})", key
        assert graded.loc[key, "agrees"] == ""  # no rating word beside a degenerate design
    assert graded.loc["anova_replicates", "verdict"] == "not rated: degenerate (sampling rate 1.0 on 30 of 30 topics)"
    assert graded.loc["runs_significant", "kit_value"].startswith("nothing sampled (sampling rate 1.0 on 30 of 30")
    assert "expected by chance" not in graded.loc["runs_significant", "kit_value"]
    assert graded.loc["accuracy", "verdict"] == ("not rated: degenerate (the judged-depth cap sets the sample depth "
                                                 "on 30 of 30 topics)")
    # MAP on the depth-4 pool against the depth-7 qrels is a real comparison here: rated
    assert graded.loc["map_adequacy", "verdict"].startswith("direction only: ")
    # the restoring value does restore a sample
    restored = sb.plan(c, budget=50)
    assert "sampling" not in restored.degenerate and "budget 50 set by the user" in str(restored)


def test_tiny_is_degenerate_and_withheld(reviewer):
    _, c = reviewer["tiny"]
    plan = sb.plan(c)
    assert plan.degenerate["sampling"] == "sampling rate 1.0 on 5 of 5 topics"
    assert plan.restore["near_full"] == "needs a collection of at least 6 topics"
    study = sb.run_study(c, phase1_depth=plan.phase1_depth, max_depth=plan.max_depth, n_subsamples=3, n_draws=2,
                         logo_draws=1)
    graded = _graded(study, c, plan)
    assert not graded.verdict.isin(["yes", "no", "partly"]).any()
    assert not graded.verdict.str.startswith("direction only").any()  # 3 runs, 5 topics: withheld or not rated
    # what cannot be computed is said in words, not printed as nan
    assert not graded.kit_value.str.contains(r"(?i)(?<![a-z])nan(?![a-z])").any()
    assert graded.loc["anova_mixed", "kit_value"].startswith("no p: the subsamples do not vary")
    assert graded.loc["deep_topics", "kit_value"].endswith("none on the 0 sampled deeply")


def test_the_plan_line_says_what_the_user_set(reviewer):
    _, c = reviewer["shallow"]
    plan = sb.plan(c, phase1_depth=2, budget=50)
    line = str(plan)
    assert "the paper's settings" not in line
    assert "phase-1 depth 2 set by the user (the paper's 50)" in line and "budget 50 set by the user" in line
    assert (plan.phase1_depth, plan.budget) == (2, 50)
    sizes = sb.settings("class", n_draws=7)
    line = str(sb.plan(c, slope=0.05, rpt=0.2, sizes=sizes))
    assert "slope 0.05 set by the user" in line and "rpt 0.2 set by the user" in line
    assert "n_draws 7 (given)" in line and "logo_draws 10 (paper: 20)" in line


@pytest.mark.parametrize("name", ["shallow", "tiny"])
@pytest.mark.parametrize("parameter, value", [
    ("phase1_depth", 3), ("budget", 30), ("rpt", 0.3), ("slope", 0.08), ("n_subsamples", 4), ("n_draws", 2),
    ("logo_draws", 2), ("sensitivity_slopes", [0.05]), ("seed", 5), ("preset", "class"),
])
def test_every_parameter_off_default_runs_or_says_why(reviewer, name, parameter, value):
    """The notebook's path with one parameter changed, at the fast sizes: a plan, a study, the claims, the
    deviations and the sweep, or one sentence (ValueError / NeedsNotMet); the plan reflects the value."""
    from evalkit.papers.needs import NeedsNotMet

    _, c = reviewer[name]
    notebook = {"phase1_depth": 50, "budget": 200, "rpt": 0.1, "slope": 0.02, "seed": 0}
    sizes_given = {"n_subsamples": None, "n_draws": None, "logo_draws": None, "sensitivity_slopes": None}
    preset = value if parameter == "preset" else "paper"
    if parameter in notebook:
        notebook[parameter] = value
    elif parameter in sizes_given:
        sizes_given[parameter] = value
    sizes = sb.settings(preset, fast=parameter != "preset", **sizes_given)
    try:
        plan = sb.plan(c, notebook["phase1_depth"], rpt=notebook["rpt"], slope=notebook["slope"],
                       budget=notebook["budget"], seed=notebook["seed"], sizes=sizes)
    except (ValueError, NeedsNotMet) as error:
        assert str(error).count(". ") <= 2 and parameter in str(error) or "judged" in str(error)
        return
    if parameter in ("phase1_depth", "budget", "rpt", "slope"):
        assert f"{parameter.replace('phase1_depth', 'phase-1 depth')} " in str(plan) and "set by the user" in str(plan)
        assert plan[parameter] == pytest.approx(value)
    elif parameter in sizes_given:
        assert f"{parameter} {value} (given)" in str(plan)
    elif parameter == "preset":
        assert "preset 'class'" in str(plan)
    study = sb.run_study(c, phase1_depth=plan.phase1_depth, rpt=plan.rpt, slope=plan.slope, budget=plan.budget,
                         max_depth=plan.max_depth, n_subsamples=min(plan.n_subsamples, 5),
                         n_draws=min(plan.n_draws, 2), logo_draws=1, seed=notebook["seed"])
    assert len(sb.claims(study, c.name, plan)) == len(sb.CLAIM_ROWS)
    assert list(sb.deviations(c, plan, study).columns) == ["what differs from the paper", "why", "effect"]
    sweep = sb.sensitivity(c, plan, sizes.sensitivity_slopes[:1], study=study, n_draws=1, logo_draws_n=1,
                           n_subsamples=2)
    assert plan.slope in list(sweep.index)


@pytest.mark.parametrize("parameter, value, words", [
    ("phase1_depth", 0, "phase1_depth must be >= 1"), ("phase1_depth", 2.5, "phase1_depth must be a whole number"),
    ("budget", -1, "budget must be >= 1"), ("rpt", 1.5, "rpt must be in (0, 1)"), ("rpt", "a", "rpt must be a number"),
    ("slope", 0, "slope must be > 0"), ("seed", -1, "seed must be >= 0"),
    ("n_subsamples", 1, "n_subsamples must be >= 2"),
    ("n_draws", 0, "n_draws must be >= 1"), ("logo_draws", True, "logo_draws must be a whole number"),
    ("sensitivity_slopes", [], "sensitivity_slopes must be a non-empty list"),
    ("sensitivity_slopes", [0.01, -1], "sensitivity_slopes must be > 0"),
])
def test_bad_parameters_get_one_sentence_naming_them(reviewer, parameter, value, words):
    _, c = reviewer["shallow"]
    sized = parameter in ("n_subsamples", "n_draws", "logo_draws", "sensitivity_slopes")
    sizes = sb.settings("class", **({parameter: value} if sized else {}))
    kwargs = {} if sized else {parameter: value}
    with pytest.raises(ValueError) as error:
        sb.plan(c, sizes=sizes, **kwargs)
    assert str(error.value).startswith(words)


# ------------------------------------------------------------------------------------------ ratings by the rules


def test_each_claim_is_rated_by_its_rule_on_its_interval():
    """On the small synthetic collection, the ratings are the rules' functions applied to the intervals the
    study's tables give (no hand-typed verdict), and the kit values are the tables' numbers."""
    from evalkit.claims import rules
    from evalkit.data.datasets import load_dataset
    from evalkit.papers.soboroff2007.ratings import NOT_LOWER_SHARE, PAPER_YIELD
    from evalkit.stats import bootstrap_interval, ratio_interval, spread_interval

    c = load_dataset("synthetic", fast=True)
    study = sb.run_study(c, n_subsamples=100, n_draws=100, logo_draws=2, seed=0)
    g = sb.grade_study(study, {}, min_draws=100)
    per = study.draws.per_draw
    share = spread_interval(per.not_lower / per.runs.iloc[0], unit="draws")
    assert g["not_lower"].rating == rules.at_most(share, NOT_LOWER_SHARE, "share of runs whose infAP is not below "
                                                  "MAP", ".3f")
    d = study.draws
    yield_ = ratio_interval(d.new_relevant.mean(axis=0), d.sampled_beyond.mean(axis=0) * 0.1, unit="topics")
    assert g["accuracy"].rating.agrees == rules.at_least(yield_, round(PAPER_YIELD, 2)).agrees
    assert f"{yield_.estimate:.2f} of the target" in g["accuracy"].kit_value
    assert g["anova_replicates"].rating.agrees == ("yes" if study.anova.sample_p >= 0.05 else "no")
    assert g["anova_mixed"].rating.agrees == ("yes" if study.anova.sample_p_mixed >= 0.05 else "no")
    flags = study.anova_runs.sample_significant.astype(float).where(study.anova_runs.p_sample.notna())
    assert g["runs_significant"].rating.agrees == rules.at_most(bootstrap_interval(flags.to_numpy()), 0.05).agrees
    assert g["runs_significant"].kit_value.startswith(f"{int(flags.sum())} of {int(flags.notna().sum())} runs")
    means = np.nanmean(study.subsample_scores, axis=2)
    swing = bootstrap_interval(1.96 * means.std(axis=0, ddof=1), unit="runs")
    assert g["variance"].rating == rules.small(swing, "score", "a run's mean infAP, 1.96 sd over the subsamples",
                                               ".4f")
    m = study.adequacy.relative_error
    assert g["map_adequacy"].rating.agrees == rules.small(bootstrap_interval(m.to_numpy()), "relative").agrees
    assert f"{m.mean():.3f} over {len(m)} pooling runs" in g["map_adequacy"].kit_value
    logo = study.logo_draws.by_group()
    rank = ratio_interval(logo["|MAP rank change|"] - logo["|infAP rank change|"], logo.runs,
                          unit="held-out groups")
    assert g["logo"].rating.interval.startswith(rank.text(".2f"))
    # fewer draws or subsamples than the rules need: not rated at class size, the interval still shown
    small_g = sb.grade_study(study, {}, min_draws=1000)
    assert small_g["not_lower"].not_rated.startswith("at class size (100 draws")
    assert small_g["not_lower"].interval == share.text(".3f") and small_g["not_lower"].rating is None
    few = sb.run_study(c, n_subsamples=10, n_draws=3, logo_draws=1)
    assert sb.grade_study(few, {})["runs_significant"].not_rated == ("at class size (10 subsamples; the paper's "
                                                                     "tests used 100)")


def test_survives_compares_rated_slopes_only():
    from evalkit.papers.soboroff2007.sensitivity import SWEEP_LABELS

    columns = list(SWEEP_LABELS.values())
    frame = pd.DataFrame([["yes"] * len(columns), ["no"] + ["yes"] * (len(columns) - 1),
                          ["degenerate"] + ["yes"] * (len(columns) - 2) + ["not rated at class size"]],
                         index=pd.Index([0.01, 0.02, 0.04], name="slope"), columns=columns)
    kept = sb.survives(frame, 0.02)
    assert kept[columns[0]] is np.False_ or kept[columns[0]] is False
    assert kept[columns[1:-1]].all()
    assert kept[columns[-1]]  # yes, yes, and a slope where it is not rated: kept
    with pytest.raises(ValueError, match="no row at slope 0.03"):
        sb.survives(frame, 0.03)


def test_exercise_hint_guides_without_the_code():
    from evalkit.classroom.exercises import EXERCISES

    exercise = EXERCISES["02.2"]
    for token in ("depth_uncapped", "capped", ".sum(", "sample.table"):
        assert token not in exercise.hint


# ------------------------------------------------------------------------- the notebook's sentences and its tables


def _markdown_outputs(path) -> str:
    import nbformat

    notebook = nbformat.read(str(path), as_version=4)
    return "\n".join("".join(o["data"]["text/markdown"]) for c in notebook.cells for o in c.get("outputs", [])
                     if "text/markdown" in o.get("data", {}))


def _number(pattern: str, text: str) -> float:
    import re

    found = re.search(pattern, text)
    assert found, f"no sentence matching {pattern!r}"
    return float(found.group(1).rstrip("."))  # a number may end its sentence


@pytest.mark.notebooks
def test_the_notebooks_sentences_state_its_tables(tmp_path):
    """Run notebook 02 in fast mode on the small synthetic collection, recompute the tables its sentences describe
    (same parameters, same seeds) and compare every number."""
    from evalkit.batch.pipeline import NOTEBOOK_DIR, run_notebook
    from evalkit.data.datasets import load_dataset

    target = run_notebook(NOTEBOOK_DIR / "02_soboroff2007_pooled_vs_sampled.ipynb",
                          tmp_path / "02.ipynb", dataset="synthetic", fast=True)
    text = _markdown_outputs(target)
    c = load_dataset("synthetic", fast=True)
    sizes = sb.settings("paper", fast=True)
    plan = sb.plan(c, sizes=sizes)
    s = relevance_sample(c, phase1_depth=plan.phase1_depth, max_depth=plan.max_depth, seed=0)
    t = s.table
    assert _number(r"cap sets the depth of \*\*(\d+) of", text) == int(t.capped.sum())
    assert _number(r"mean depth ([\d.]+) before the cap", text) == round(t.depth_uncapped.mean())
    assert _number(r"rate is 1.0 \(every pooled document judged\) on (\d+) of", text) == int((t.rate >= 1).sum())
    stats = sb.sample_statistics(s)
    assert _number(r"holds ([\d.]+) documents and", text) == round(stats.loc["pool_docs_per_topic", "kit"])
    assert _number(r"the sample judged ([\d.]+) new relevant", text) == round(
        stats.loc["beyond_pool_relevant", "kit"], 1)
    summary = sb.figure1_summary(sb.figure1(c, s))["kit"]
    assert _number(r"infAP is below MAP for \*\*(\d+) of", text) == summary["runs with infAP < MAP"]
    assert _number(r"between the two rankings is \*\*([\d.]+)\*\*", text) == round(
        summary["Kendall's tau (MAP pool vs infAP sample)"], 3)
    draws = sb.figure1_draws(c, s, plan.n_draws, 2)
    per = draws.per_draw
    assert _number(r"Over \*\*(\d+) draws\*\*", text) == plan.n_draws
    assert _number(r"Kendall's τ runs from ([\d.]+) to", text) == round(per.tau.min(), 3)
    assert _number(r"whose infAP is not below MAP from (\d+) to", text) == per.not_lower.min()
    over = sb.logo_draws(c, s, plan.logo_draws, 3)
    assert _number(r"rank moves by ([\d.]+) places on average under MAP", text) == round(
        over.runs["|MAP rank change|"].mean(), 2)
    assert _number(r"and ([\d.]+) under infAP \(sample\)", text) == round(over.runs["|infAP rank change|"].mean(), 2)
    scores = sb.subsample_scores(c, s, plan.n_subsamples, seed=1)
    assert _number(r"This run draws \*\*(\d+) subsamples\*\*", text) == plan.n_subsamples
    per_run = sb.anova_per_run(scores, c.run_names)
    anova = sb.anova_topic_sample(scores, topics=c.topics)
    assert _number(r"Topics with a significant effect: \*\*(\d+) of", text) == anova.topics_significant
    assert _number(r"Runs with a significant sample effect: \*\*(\d+) of", text) == per_run.sample_significant.sum()
    assert _number(r"about ([\d.]+) are expected by chance", text) == round(0.05 * per_run.p_sample.notna().sum(), 1)
    u, m = sb.uniform_comparison(c, s), sb.map_adequacy(c, s)
    assert _number(r"the relevance-based sample judges ([\d.]+) relevant", text) == round(u.relevant.mean(), 1)
    assert _number(r"\(rate [\d.]+\) would judge ([\d.]+)", text) == round(u.uniform_relevant.mean(), 1)
    assert _number(r"judges more on (\d+) of", text) == int((u.relevant > u.uniform_relevant).sum())
    assert _number(r"MAP on the phase-1 pool is off by ([\d.]+)%", text) == round(100 * m.relative_error.mean(), 1)
    assert _number(r"\*\*(\d+) keep their rating\*\*", text) <= _number(r"Of the (\d+) claims rated", text)


@pytest.mark.notebooks
def test_the_notebook_says_nothing_was_sampled_on_shallow_pools(reviewer, tmp_path):
    from evalkit.batch.pipeline import NOTEBOOK_DIR, run_notebook
    from evalkit.claims import read_claims

    folder, _ = reviewer["shallow"]
    target = run_notebook(NOTEBOOK_DIR / "02_soboroff2007_pooled_vs_sampled.ipynb", tmp_path / "02.ipynb",
                          dataset=str(folder), fast=True)
    text = _markdown_outputs(target)
    assert "**Nothing is sampled here** (sampling rate 1.0 on 30 of 30 topics)" in text
    assert "no run can show a sample effect" in text and "expected by chance" not in text
    claims = read_claims(target)
    assert not claims.kit_value.str.contains("expected by chance").any()  # nor in the claims table
    degenerate = claims.verdict.str.startswith("not rated: degenerate (sampling rate 1.0 on 30 of 30 topics)")
    assert degenerate.sum() >= 9
    assert not claims.verdict.isin(["yes", "no", "partly"]).any()


def test_the_notebook_marks_its_core_path_and_shows_progress():
    import json

    from evalkit.batch.pipeline import NOTEBOOK_DIR

    cells = json.loads((NOTEBOOK_DIR / "02_soboroff2007_pooled_vs_sampled.ipynb").read_text())["cells"]
    for i, cell in enumerate(cells[1:], 1):
        tags = cell["metadata"].get("tags", [])
        assert sum(t in ("core", "optional") for t in tags) == 1, f"cell {i}: tags {tags}"
    assert 'preset `"class"`' in "".join(cells[0]["source"]) and "seconds" in "".join(cells[0]["source"])
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    assert "progress=False" not in code and "print(plan)" not in code and "display(plan)" in code
    for call in ("figure1_draws(", "logo_draws(", "subsample_scores(", "sensitivity("):
        line = next(line for line in code.splitlines() if call in line and "=" in line)
        assert "progress=True" in code[code.index(line):code.index(line) + 400], call
