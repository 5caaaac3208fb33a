"""Tests for evalkit.papers.voorhees2014: hand-computed tiny cases, the fast significance signs against
evalkit.stats, table invariants, determinism over seeds and executors, the paper's constants."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evalkit
from evalkit.claims import Claim
from evalkit.data.collection import Collection
from evalkit.data.trec_files import Qrels, Run
from evalkit.judging.stratified_sampling import STRATEGIES, Strategy, Stratum, sample
from evalkit.measures.inferred import estimated_relevant
from evalkit.papers import voorhees2014 as v
from evalkit.papers.voorhees2014.experiment import _strategies
from evalkit.stats import CATEGORY_NAMES

# ------------------------------------------------------------------------------------------------ fixtures


def _collection(rankings: dict, qrels_rows: list, judged=None, name="tiny") -> Collection:
    runs = []
    for run_name, per_topic in rankings.items():
        t_col, d_col, s_col = [], [], []
        for topic, docs in per_topic.items():
            t_col += [topic] * len(docs)
            d_col += list(docs)
            s_col += list(np.arange(len(docs), 0, -1, dtype=float))  # strictly decreasing: order as given
        runs.append(Run(run_name, np.array(t_col, object), np.array(d_col, object), np.array(s_col)))
    qrels = Qrels.from_frame(pd.DataFrame(qrels_rows, columns=["topic", "docno", "grade"]))
    collection = Collection.from_runs(runs, qrels, name=name)
    collection.runs_info["judged"] = True if judged is None else judged
    return collection


@pytest.fixture(scope="module")
def tiny():
    """Four judged runs ranking the same six documents per topic; A and C relevant on topic 1, B on topic 2."""
    rankings = {
        "r0": {"1": "ABCDEF", "2": "ABCDEF"},
        "r1": {"1": "BADCFE", "2": "FEDCBA"},
        "r2": {"1": "CDABEF", "2": "BCAFED"},
        "r3": {"1": "FEDCBA", "2": "EFABCD"},
    }
    rankings = {r: {t: list(d) for t, d in p.items()} for r, p in rankings.items()}
    rows = [(t, d, int((t, d) in {("1", "A"), ("1", "C"), ("2", "B")})) for t in "12" for d in "ABCDEF"]
    return _collection(rankings, rows)


def permuted_collection(seed=0, n_runs=8, n_topics=12, n_docs=30, p_rel=0.3) -> Collection:
    """Every run ranks the same ``n_docs`` documents per topic (so any half of the runs pools them all) and every
    document is judged: a complete sample of this pool is the full qrels."""
    rng = np.random.default_rng(seed)
    docnos = [f"D{i:03d}" for i in range(n_docs)]
    quality = rng.random(n_runs)
    rankings, rows = {}, []
    rel = {}
    for t in range(n_topics):
        r = rng.random(n_docs) < p_rel
        r[0] = True
        rel[t] = r
        rows += [(str(t + 1), docnos[d], int(r[d])) for d in range(n_docs)]
    for s in range(n_runs):
        per = {}
        for t in range(n_topics):
            key = rng.random(n_docs) + quality[s] * rel[t]  # better runs put relevant documents higher
            per[str(t + 1)] = [docnos[d] for d in np.argsort(-key)]
        rankings[f"run{s}"] = per
    return _collection(rankings, rows, name=f"permuted{seed}")


@pytest.fixture(scope="module")
def synthetic():
    return evalkit.load_dataset("synthetic", fast=True)


@pytest.fixture(scope="module")
def synthetic_result(synthetic):
    return v.run_experiment(synthetic, trials=3, seed=7, scheduler="serial")


# ------------------------------------------------------------------------------------------- hand-checked


def test_split_is_a_sorted_half_and_deterministic():
    judged = np.array([0, 2, 3, 5, 8, 9, 11])
    half = v.split_judged_runs(judged, 123)
    assert len(half) == 3 and np.all(np.diff(half) > 0) and set(half) <= set(judged)
    assert np.array_equal(half, v.split_judged_runs(judged, 123))
    halves = {tuple(v.split_judged_runs(judged, s)) for s in range(20)}
    assert len(halves) > 5


def test_hand_computed_pool_sizes_and_r_hat(tiny):
    gold = v.prepare(tiny)
    assert gold.R.tolist() == [2, 1]
    half = np.array([0, 1])  # r0, r1
    # pool ranks on topic 1 from r0 = ABCDEF and r1 = BADCFE: A 1, B 1, C 3, D 3, E 5, F 5
    # on topic 2 from r0 = ABCDEF and r1 = FEDCBA: A 1, F 1, B 2, E 2, C 3, D 3
    pool2 = Strategy("pool2", (Stratum(1, 2, 1.0),))
    out = v.evaluate_strategy(gold, pool2, half, trial_seed=1)
    assert out["judged"].tolist() == [2, 4]  # {A, B} and {A, F, B, E}
    assert out["r_hat"].tolist() == [1.0, 1.0]  # A relevant on topic 1; B on topic 2
    pool4 = Strategy("pool4", (Stratum(1, 4, 1.0),))
    out = v.evaluate_strategy(gold, pool4, half, trial_seed=1)
    assert out["judged"].tolist() == [4, 6]
    assert out["r_hat"].tolist() == [2.0, 1.0]
    # two strata at rate 1: the same documents, split in strata; R̂ unchanged
    two = Strategy("two", (Stratum(1, 1, 1.0), Stratum(2, 4, 1.0)))
    out2 = v.evaluate_strategy(gold, two, half, trial_seed=1)
    assert out2["judged"].tolist() == [4, 6] and out2["r_hat"].tolist() == [2.0, 1.0]
    # the pair counts cover every unordered pair of the four runs
    assert (out["counts"].sum(axis=1) == 6).all()


def test_complete_sample_reproduces_the_gold():
    collection = permuted_collection(seed=3)
    gold = v.prepare(collection)
    everything = Strategy("all", (Stratum(1, collection.depth, 1.0),))
    half = v.split_judged_runs(gold.judged, 5)
    out = v.evaluate_strategy(gold, everything, half, trial_seed=5)
    assert out["judged"].sum() == len(collection.qrels)
    np.testing.assert_array_equal(out["r_hat"], gold.R)
    assert out["r_corr"] == pytest.approx(1.0)
    # xinfAP, infNDCG@100, infP@10 of a complete sample differ from AP, nDCG, P@10 only by the 1e-5 smoothing:
    # the significant pairs are the same
    np.testing.assert_array_equal(out["accuracy"], 1.0)
    np.testing.assert_array_equal(out["counts"][:, [2, 3, 4]], 0)


# ---------------------------------------------------------------------------------------------- tables


def test_table_shapes_and_invariants(synthetic, synthetic_result):
    res = synthetic_result
    S, T = synthetic.n_runs, synthetic.n_topics
    K, M = len(v.DEFAULT_STRATEGIES), len(v.MEASURES)
    assert res.strategy_names == list(v.DEFAULT_STRATEGIES)
    assert len(res.sizes) == 3 * K * T and len(res.r_hat) == 3 * K * T
    assert len(res.pairs) == 3 * K * M and len(res.correlation) == 3 * K

    t1 = v.table1(res)
    assert list(t1.index) == list(v.DEFAULT_STRATEGIES)
    np.testing.assert_allclose(t1["per topic"] * T, t1["total"])
    assert (t1["min total"] <= t1["total"]).all() and (t1["total"] <= t1["max total"]).all()
    # a pool of depth 25 judges at least the depth-15 pool of the same runs, trial by trial
    per_trial = res.sizes.groupby(["strategy", "trial"], observed=True)["judged"].sum().unstack("strategy")
    assert (per_trial["pool25"] >= per_trial["pool15"]).all()

    pairs = res.pairs
    assert (pairs["n_pairs"] == S * (S - 1) // 2).all()
    assert (pairs[list(CATEGORY_NAMES)].sum(axis=1) == pairs["n_pairs"]).all()
    correct = pairs.true_positive + pairs.true_negative
    expected = correct / (correct + pairs.miss + pairs.false_alarm + 2 * pairs.inversion)
    np.testing.assert_allclose(pairs["accuracy"], expected)

    t2 = v.table2(res)
    assert t2.shape[0] == K * M
    assert ((t2["min"] <= t2["mean"] + 1e-12) & (t2["mean"] <= t2["max"] + 1e-12)).all()
    wide = v.table2_wide(res)
    assert wide.shape == (K, 3 * M) and list(wide.index) == list(v.DEFAULT_STRATEGIES)
    assert wide.loc["2strata", ("MAP", "mean")] == pytest.approx(t2.loc[("2strata", "MAP"), "mean"])

    t3 = v.table3(res)
    assert list(t3.index) == list(v.DEFAULT_STRATEGIES)
    assert ((t3["mean"] <= 1) & (t3["mean"] > -1)).all()

    fig = v.figure1_data(res)
    assert len(fig) == 2 * T and list(fig["strategy"].unique()) == ["pool25", "2strata"]
    assert ((fig["min"] <= fig["mean"] + 1e-9) & (fig["mean"] <= fig["max"] + 1e-9)).all()
    np.testing.assert_array_equal(fig[fig.strategy == "pool25"]["gold"], synthetic.qrels.counts(1))
    # a pool only finds relevant documents: its R̂ never exceeds the gold R
    assert (fig[fig.strategy == "pool25"]["max"] <= fig[fig.strategy == "pool25"]["gold"]).all()

    low, r = v.low_estimate_topics(res, threshold=30)
    assert (low["mean_R_hat"] < 30).all()
    assert list(low.columns) == ["topic", "gold_R", "mean_R_hat"]


def test_determinism_and_executors(synthetic, synthetic_result):
    again = v.run_experiment(synthetic, trials=3, seed=7, scheduler="serial")
    local = v.run_experiment(synthetic, trials=3, seed=7, scheduler="local", n_jobs=2)
    for other in (again, local):
        for name in ("sizes", "pairs", "r_hat", "correlation", "splits"):
            pd.testing.assert_frame_equal(getattr(synthetic_result, name), getattr(other, name))
        pd.testing.assert_frame_equal(v.table2(synthetic_result), v.table2(other))
    different = v.run_experiment(synthetic, trials=3, seed=8, scheduler="serial")
    assert not different.splits["runs"].equals(synthetic_result.splits["runs"])


def test_every_strategy_of_a_trial_uses_the_same_half(synthetic):
    gold = v.prepare(synthetic)
    strategies = _strategies(["pool15", "pool25"])
    out = v.run_trial(0, 99, gold, strategies)
    half = v.split_judged_runs(gold.judged, 99)
    assert np.array_equal(out["half"], half)
    from evalkit.data.pools import pool

    # pool strategies judge exactly the pool of that half
    assert out["judged"][0].sum() == len(pool(synthetic, 15, half))
    assert out["judged"][1].sum() == len(pool(synthetic, 25, half))


def test_a_strategy_sample_does_not_depend_on_the_others(synthetic, synthetic_result):
    alone = v.run_experiment(synthetic, ["2strata"], trials=3, seed=7, scheduler="serial")
    mine = synthetic_result.pairs[synthetic_result.pairs.strategy == "2strata"].reset_index(drop=True)
    theirs = alone.pairs.reset_index(drop=True)
    np.testing.assert_array_equal(mine["accuracy"], theirs["accuracy"])
    # the widget's one-trial function with the same strata reproduces the experiment's trial
    custom = v.custom_trial(synthetic, v.custom_strategy([10, 100], [1.0, 0.15]), trial=1, seed=7, trials=3)
    np.testing.assert_allclose(custom["accuracy"], mine[mine.trial == 1]["accuracy"])
    assert custom["judged total"].iloc[0] == synthetic_result.sizes.query(
        "trial == 1 and strategy == '2strata'")["judged"].sum()


def test_custom_strategy():
    assert v.custom_strategy([10, 100], [1, 0.15]).strata == STRATEGIES["2strata"].strata
    three = v.custom_strategy([10, 30, 100], [1, 0.25, 0.05])
    assert three.strata == STRATEGIES["3strata"].strata
    gap = v.custom_strategy([10, 50, 100], [1, 0, 0.1])
    assert gap.strata == (Stratum(1, 10, 1.0), Stratum(51, 100, 0.1))
    assert v.custom_strategy([10, 5, 100], [1, 0.5, 0.2]).strata == (Stratum(1, 10, 1.0), Stratum(11, 100, 0.2))
    with pytest.raises(ValueError):
        v.custom_strategy([10, 20], [0, 0])
    with pytest.raises(ValueError):
        v.custom_strategy([10], [1, 0.5])


def test_custom_trial_frame(synthetic):
    frame = v.custom_trial(synthetic, "[1-5]@1 + [6-50]@0.2", trial=0, seed=1)
    assert list(frame["measure"]) == list(v.MEASURES)
    assert (frame[list(CATEGORY_NAMES)].sum(axis=1) == synthetic.n_runs * (synthetic.n_runs - 1) // 2).all()
    assert frame["judged per topic"].iloc[0] == pytest.approx(frame["judged total"].iloc[0] / synthetic.n_topics)


def test_inferred_gold_for_a_sampled_base(synthetic):
    base = sample(synthetic, "medical2012", seed=4)  # a two-strata base, like TREC 2012 Medical Records
    collection = synthetic.with_qrels(base.qrels)
    gold = v.prepare(collection)  # auto: the qrels have strata
    np.testing.assert_allclose(gold.R, estimated_relevant(base.qrels))
    traditional = v.prepare(synthetic)
    assert not np.array_equal(gold.scores["MAP"], traditional.scores["MAP"])
    with pytest.raises(ValueError):
        v.prepare(synthetic, gold="inferred")
    res = v.run_experiment(gold, ["pool15", "2strata"], trials=2, seed=1, scheduler="serial")
    assert len(v.table2(res)) == 6


def test_errors(synthetic):
    with pytest.raises(KeyError):
        v.prepare(synthetic, measures=["bpref"])
    with pytest.raises(ValueError):
        v.run_experiment(synthetic, ["2strata", "2strata"], trials=1, scheduler="serial")
    with pytest.raises(TypeError):
        v.run_experiment("synthetic", trials=1)


# ------------------------------------------------------------------------------------------------ paper


def test_paper_constants():
    assert len(v.PAPER_LOW_R) == 9
    r = np.corrcoef(v.PAPER_LOW_R["gold_R"], v.PAPER_LOW_R["mean_R_hat"])[0, 1]
    assert round(r, 2) == v.PAPER_LOW_R_CORRELATION
    for table in (v.PAPER_TABLE1, v.PAPER_TABLE2, v.PAPER_TABLE3):
        assert table["values"] is None and table["statements"]


def test_check_judgment_sizes():
    table = pd.DataFrame({"per topic": [200, 310, 350, 290, 240]},
                         index=["pool15", "pool25", "1stratum", "2strata", "3strata"])
    check = v.check_judgment_sizes(table)
    assert check["holds"].all()
    table.loc["2strata", "per topic"] = 400
    check = v.check_judgment_sizes(table)
    assert not check["holds"].iloc[0]  # 1stratum no longer the largest


def test_claims_and_low_r_comparison(synthetic_result):
    claims = v.claims(synthetic_result)
    assert len(claims) >= 6 and all(isinstance(c, Claim) and c.kit_value for c in claims)
    assert {c.agrees for c in claims} <= {"yes", "no", "partly", "inconclusive"}
    # every claim is rated by a written rule on an interval over the trials, never typed by hand
    assert all(c.rule and c.interval and "bootstrap over 3 trials" in c.interval for c in claims)
    comparison = v.compare_low_r(synthetic_result)
    assert len(comparison) == 9 and "kit mean R̂" in comparison


def test_strategy_explorer_builds(synthetic):
    import matplotlib

    matplotlib.use("Agg")
    pytest.importorskip("ipywidgets")
    widget = v.strategy_explorer(synthetic, reference=("2strata",))
    assert len(widget.children) == 4  # three rows of sliders and the output


@pytest.mark.trec8
def test_trec8_low_r_topics_match_the_paper(trec8):
    """The paper's Figure 1 numbers for pool25 on TREC-8 (three trials suffice for the stable topics)."""
    res = v.run_experiment(trec8, ["pool25", "1stratum", "2strata"], trials=3, seed=1, scheduler="serial")
    fig = v.figure1_data(res, ["pool25"]).set_index("topic")
    assert fig.loc["430", "mean"] == 6.0 and fig.loc["430", "gold"] == 6  # paper: 6 -> 6.0
    assert fig.loc["444", "gold"] == 17 and fig.loc["444", "mean"] == 17.0  # paper: 17 -> 17.0
    sizes = v.table1(res)["per topic"]
    assert sizes.idxmax() == "1stratum"
    assert len(res.splits["runs"].iloc[0].split()) == 36  # half of the 72 judged runs
