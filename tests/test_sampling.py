"""Tests for evalkit.judging.stratified_sampling: pools and pool ranks, strategies, Voorhees' sampling rule, Yilmaz et al.'s designs."""


import numpy as np
import pandas as pd
import pytest

from evalkit.data.collection import Collection
from evalkit.data.trec_files import Qrels, Run, read_qrels, write_qrels
from evalkit.judging.stratified_sampling import (
    STRATEGIES,
    Strategy,
    Stratum,
    depth_plus_random,
    depth_plus_strata,
    get_strategy,
    pool,
    sample,
    uniform_sample,
    yilmaz_strata,
)


def make_collection(seed=0, n_runs=6, n_topics=4, n_docs=400, depth=60, p_rel=0.15, judged_fraction=1.0,
                    judged_depth=None):
    """Random runs over a small vocabulary; qrels judge the depth-``judged_depth`` pool of all runs (default:
    everything retrieved), a ``judged_fraction`` of it (the rest is missing from the qrels)."""
    rng = np.random.default_rng(seed)
    docnos = np.array([f"D{i:05d}" for i in range(n_docs)], object)
    runs = []
    for s in range(n_runs):
        topics, docs, scores = [], [], []
        for t in range(n_topics):
            length = depth if s % 3 else int(rng.integers(depth // 2, depth + 1))
            chosen = rng.choice(n_docs, length, replace=False)
            score = np.sort(rng.random(length))[::-1] * 10
            topics += [str(101 + t)] * length
            docs += list(docnos[chosen])
            scores += list(score)
        frame = pd.DataFrame({"topic": topics, "docno": docs, "score": scores})
        frame = frame.sort_values(["topic", "score", "docno"], ascending=[True, False, False])
        runs.append(Run(f"run{s}", frame.topic.to_numpy(object), frame.docno.to_numpy(object), frame.score.to_numpy()))
    judged_depth = depth if judged_depth is None else judged_depth
    pairs = set()
    for run in runs:
        frame = run.to_frame()
        top = frame[frame["rank"] <= judged_depth]
        pairs.update(zip(top.topic, top.docno))
    pairs = sorted(pairs)
    keep = rng.random(len(pairs)) < judged_fraction
    keep[: n_topics] = True
    rows = [(t, d, int(rng.random() < p_rel) * int(rng.integers(1, 3))) for (t, d), k in zip(pairs, keep) if k]
    qrels = Qrels.from_frame(pd.DataFrame(rows, columns=["topic", "docno", "grade"]))
    collection = Collection.from_runs(runs, qrels, "synthetic-test")
    collection.runs_info["judged"] = True
    return collection


@pytest.fixture(scope="module")
def small():
    return make_collection()


# --------------------------------------------------------------------------------------------- pools


def brute_force_pool(collection, depth, runs):
    best = {}
    for s in runs:
        for t in range(collection.n_topics):
            for r in range(min(depth, collection.depth)):
                d = collection.docs[s, t, r]
                if d >= 0:
                    key = (t, int(d))
                    best[key] = min(best.get(key, 10**9), r + 1)
    return best


@pytest.mark.parametrize("depth,runs", [(1, None), (10, None), (25, [0, 2, 3]), (100, [5])])
def test_pool_ranks_match_brute_force(small, depth, runs):
    p = pool(small, depth, runs)
    expected = brute_force_pool(small, depth, range(small.n_runs) if runs is None else runs)
    got = {(int(t), int(d)): int(r) for t, d, r in zip(p.topic, p.doc, p.rank)}
    assert got == expected
    keys = p.keys
    assert np.all(np.diff(keys) > 0)  # sorted by (topic, doc), no duplicates
    assert p.sizes().sum() == len(p)
    assert p.sizes_by_rank().sum() == len(p)


def test_pool_hand_built():
    runs = [
        Run("a", np.array(["1"] * 3, object), np.array(["x", "y", "z"], object), np.array([3.0, 2.0, 1.0])),
        Run("b", np.array(["1"] * 3, object), np.array(["z", "w", "x"], object), np.array([3.0, 2.0, 1.0])),
    ]
    qrels = Qrels.from_frame(pd.DataFrame({"topic": ["1"], "docno": ["x"], "grade": [1]}))
    c = Collection.from_runs(runs, qrels)
    p = pool(c, 2, runs=[0, 1])
    got = {c.vocabulary[d]: r for d, r in zip(p.doc, p.rank)}
    assert got == {"x": 1, "z": 1, "y": 2, "w": 2}
    assert pool(c, 3, runs=[0]).rank.tolist() == [1, 2, 3]  # x, y, z in doc-id order
    assert p.contains(np.array([0, 0]), np.array([c.vocabulary.tolist().index("y"), -1])).tolist() == [True, False]
    assert p.restrict(1).sizes().tolist() == [2]
    judged = p.judged_set(c.qrels)
    assert sorted(judged.grade.tolist()) == [-1, -1, -1, 1]


def test_pool_default_is_the_judged_runs(small):
    assert len(pool(small, 5)) == len(pool(small, 5, runs=np.ones(small.n_runs, bool)))


# ---------------------------------------------------------------------------------------- strategies


def test_presets_are_the_papers():
    text = {name: str(s) for name, s in STRATEGIES.items()}
    assert text == {
        "pool15": "pool15: [1-15]@1",
        "pool25": "pool25: [1-25]@1",
        "1stratum": "1stratum: [1-100]@0.3",
        "2strata": "2strata: [1-10]@1 + [11-100]@0.15",
        "3strata": "3strata: [1-10]@1 + [11-30]@0.25 + [31-100]@0.05",
        "medical2012": "medical2012: [1-15]@1 + [16-100]@0.25",
    }
    for name, s in STRATEGIES.items():
        assert Strategy.parse(str(s)) == s
        assert get_strategy(name) is s
    assert get_strategy("[1-5]@1+[6-20]@0.5").depth == 20


def test_strategy_validation_and_stratum_of():
    with pytest.raises(ValueError):
        Stratum(5, 4, 0.5)
    with pytest.raises(ValueError):
        Stratum(1, 4, 1.5)
    with pytest.raises(ValueError):
        Strategy("bad", (Stratum(1, 10, 1.0), Stratum(10, 20, 0.5)))
    with pytest.raises(KeyError):
        get_strategy("nope")
    s = Strategy("gap", (Stratum(1, 10, 1.0), Stratum(21, 30, 0.5)))
    assert s.stratum_of(np.array([1, 10, 11, 20, 21, 30, 31])).tolist() == [0, 0, -1, -1, 1, 1, -1]


# ---------------------------------------------------------------------------------------------- sample


def test_sample_complete_base(small):
    result = sample(small, "2strata", seed=1)
    q = result.qrels
    p = pool(small, 100)
    # every pooled document is in the sampled qrels, with the stratum of its pool rank
    assert np.array_equal(q.topic, p.topic) and np.array_equal(q.doc, p.doc)
    assert np.array_equal(q.stratum, np.where(p.rank <= 10, 1, 2))
    base = small.qrels.lookup(q.topic, q.doc)
    sampled = q.grade >= 0
    assert np.array_equal(q.grade[sampled], base[sampled])  # base grades kept
    assert np.all(q.grade[~sampled] == -1)
    assert np.all(sampled[q.stratum == 1])  # rate 1 stratum fully judged
    table = result.table
    assert list(table.index.names) == ["topic", "stratum"]
    assert table["pooled"].sum() == len(q)
    assert table["sampled"].sum() == result.n_judged
    s2 = table.xs(2, level="stratum")
    np.testing.assert_allclose(s2["rate_used"], 0.15)  # complete base: no raising
    per_topic = result.per_topic()
    assert (per_topic["pooled"] == table["pooled"].groupby(level="topic").sum()).all()


def test_sample_is_seeded(small):
    a = sample(small, "3strata", seed=42)
    b = sample(small, "3strata", seed=42)
    c = sample(small, "3strata", seed=np.random.default_rng(42))
    d = sample(small, "3strata", seed=43)
    for other in (b, c):
        assert np.array_equal(a.qrels.grade, other.qrels.grade)
        assert np.array_equal(a.qrels.doc, other.qrels.doc)
    assert not np.array_equal(a.qrels.grade, d.qrels.grade)
    # fixed-size draws are seeded too
    assert np.array_equal(uniform_sample(small, 0.3, seed=5).qrels.grade, uniform_sample(small, 0.3, seed=5).qrels.grade)


def test_rate_raising_rule():
    """Voorhees (2014): drawn documents without a base judgment are dropped; the rate used is raised to
    min(1, r N / J) so that the expected number of judged documents drawn is r N."""
    c = make_collection(seed=3, n_runs=5, n_topics=3, depth=80, judged_fraction=0.5)
    strat = Strategy("s", (Stratum(1, 5, 1.0), Stratum(6, 80, 0.2)))
    result = sample(c, strat, seed=0)
    table = result.table
    N, J = table["pooled"].to_numpy(float), table["judged_in_base"].to_numpy(float)
    rate = np.tile([1.0, 0.2], c.n_topics)
    expected = np.minimum(1.0, np.divide(rate * N, J, out=np.zeros_like(N), where=J > 0))
    np.testing.assert_allclose(table["rate_used"].to_numpy(), expected)
    assert (J < N).any() and (table.xs(2, level="stratum")["rate_used"] > 0.2).all()
    # documents the base does not judge are never in the sample
    base = c.qrels.lookup(result.qrels.topic, result.qrels.doc)
    assert np.all(result.qrels.grade[base < 0] == -1)
    # a stratum with too few judgments (J < r N) is judged as far as the base allows
    assert np.all(table.xs(1, level="stratum")["sampled"] == table.xs(1, level="stratum")["judged_in_base"])
    # over many seeds, the number of judged documents drawn averages r N (the effective rate averages r)
    counts = np.array([sample(c, strat, seed=s).table.xs(2, level="stratum")["sampled"].to_numpy() for s in range(400)])
    target = 0.2 * table.xs(2, level="stratum")["pooled"].to_numpy()
    sd = np.sqrt(target * (1 - expected[1::2]) / 400)
    assert np.all(np.abs(counts.mean(axis=0) - target) < 4 * sd + 1e-9)


def test_fixed_method_counts():
    c = make_collection(seed=4, judged_fraction=0.7)
    result = sample(c, "[1-3]@1+[4-60]@0.25", seed=9, method="fixed")
    t = result.table
    want = np.minimum(np.floor(t["target"] + 0.5), t["judged_in_base"])
    assert np.array_equal(t["sampled"].to_numpy(), want.to_numpy())
    with pytest.raises(ValueError):
        sample(c, "2strata", seed=1, method="nope")


def test_sample_roundtrip_through_file(small, tmp_path):
    result = sample(small, "2strata", seed=7)
    path = write_qrels(result.to_qrels(small), tmp_path / "sampled.qrels")
    first = path.read_text().splitlines()[0].split()
    assert len(first) == 5  # topic iter docno stratum rel
    back = small.align_qrels(read_qrels(path))
    for field in ("topic", "doc", "grade", "stratum"):
        assert np.array_equal(getattr(back, field), getattr(result.qrels, field))


# ------------------------------------------------------------------------------------ Yilmaz et al. 2008


def test_yilmaz_strata_boundaries():
    assert yilmaz_strata(10) == ((11, 40), (41, 70), (71, 100))
    assert yilmaz_strata(1) == ((2, 34), (35, 67), (68, 100))
    for k in (1, 2, 5, 10, 20, 50):
        strata = yilmaz_strata(k)
        assert strata[0][0] == k + 1 and strata[-1][1] == 100
        assert all(a[1] + 1 == b[0] for a, b in zip(strata, strata[1:]))


def test_uniform_sample(small):
    r = uniform_sample(small, 0.3, seed=2)
    t = r.table
    assert np.array_equal(t["sampled"].to_numpy(), np.floor(0.3 * t["pooled"].to_numpy() + 0.5).astype(int))


def test_depth_plus_random(small):
    r = depth_plus_random(small, 5, seed=3)
    t = r.table
    s1, s2 = t.xs(1, level="stratum"), t.xs(2, level="stratum")
    assert (s1["sampled"] == s1["pooled"]).all()
    assert np.array_equal(s2["sampled"].to_numpy(), np.minimum(s1["pooled"], s2["judged_in_base"]).to_numpy())
    assert (s1["to_rank"] == 5).all() and (s2["from_rank"] == 6).all()


def test_depth_plus_strata(small):
    r = depth_plus_strata(small, 4, seed=3, depth=60)
    t = r.table
    rates = t["target_rate"].to_numpy().reshape(small.n_topics, 4)
    assert np.all(rates[:, 0] == 1.0)
    uncapped = (rates[:, 1:] < 1).all(axis=1)
    assert uncapped.any()
    np.testing.assert_allclose(rates[uncapped, 1] / rates[uncapped, 3], 3.0)
    np.testing.assert_allclose(rates[uncapped, 2] / rates[uncapped, 3], 1.5)
    pooled = t["pooled"].to_numpy().reshape(small.n_topics, 4)
    budget = (rates[:, 1:] * pooled[:, 1:]).sum(axis=1)
    np.testing.assert_allclose(budget[uncapped], pooled[uncapped, 0])  # the depth-k pool size
    sampled = t["sampled"].to_numpy().reshape(small.n_topics, 4)
    assert np.all(np.abs(sampled[uncapped, 1:].sum(axis=1) - pooled[uncapped, 0]) <= 2)  # rounding per stratum


# --------------------------------------------------------------------------------------------- TREC-8


def test_trec8_pool_is_the_qrels(trec8):
    assert trec8.judged_runs.sum() == 72
    p = pool(trec8, 100)
    assert len(p) == len(trec8.qrels)
    assert np.array_equal(p.keys, trec8.qrels.keys)


def test_trec8_strategy_sizes(trec8):
    half = np.flatnonzero(trec8.judged_runs)[::2]
    sizes = {name: sample(trec8, name, runs=half, seed=11).n_judged for name in STRATEGIES}
    assert sizes["pool15"] < sizes["pool25"]
    assert sizes["3strata"] < sizes["2strata"] < sizes["1stratum"]
    r = sample(trec8, "2strata", runs=half, seed=11)
    eff = r.table.xs(2, level="stratum")
    assert abs(eff["sampled"].sum() / eff["pooled"].sum() - 0.15) < 0.01
