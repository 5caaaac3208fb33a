"""Standard measures against trec_eval (pytrec_eval) to 1e-9, and hand-computed tiny cases."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import random_collection
from oracle import trec_eval_scores

from evalkit.measures import kernels
from evalkit.measures.evaluation import score_matrix

PAIRS = {
    "AP": "map",
    "AP@100": "map_cut_100",
    "P@10": "P_10",
    "P@5": "P_5",
    "R@10": "recall_10",
    "Rprec": "Rprec",
    "nDCG": "ndcg",
    "nDCG@10": "ndcg_cut_10",
    "nDCG@100": "ndcg_cut_100",
    "Bpref": "bpref",
}


def _compare(collection, skip_unscored=True):
    oracle = trec_eval_scores(collection, set(PAIRS.values()))
    for ours, theirs in PAIRS.items():
        expected = oracle[theirs]
        got = score_matrix(collection, ours)
        scored = ~np.isnan(expected)
        assert scored.any()
        np.testing.assert_allclose(got[scored], expected[scored], atol=1e-9, rtol=0, err_msg=ours)
    # trec_eval scores exactly the (run, topic) pairs with a ranking and judgments
    has_judgments = np.bincount(collection.qrels.topic, minlength=collection.n_topics) > 0
    np.testing.assert_array_equal(~np.isnan(oracle["map"]), collection.retrieved & has_judgments[None, :])


@pytest.mark.parametrize("seed", range(4))
def test_random_collections_equal_trec_eval(seed):
    _compare(random_collection(seed))


def test_synthetic_equals_trec_eval():
    from evalkit.data.datasets import load_dataset

    _compare(load_dataset("synthetic", n_topics=10, n_runs=12, depth=300, seed=3))


def test_trec8_equals_trec_eval(trec8_float32):
    # pytrec_eval-terrier embeds trec_eval 9.x, which compares scores as C floats: same tie mode
    _compare(trec8_float32)


def _grades(*rows):
    return np.array([rows], dtype=np.int16)  # one run, len(rows) topics


def test_hand_computed_ap_precision_rprec():
    # ranking: R N R N N, R = 3 relevant judged in total
    g = _grades([1, 0, 1, 0, 0])
    n_rel = np.array([3])
    assert kernels.average_precision(g, n_rel)[0, 0] == pytest.approx((1 / 1 + 2 / 3) / 3, abs=1e-15)
    assert kernels.precision_at(g, 2)[0, 0] == 0.5
    assert kernels.precision_at(g, 10)[0, 0] == 0.2  # k fixed past the end
    assert kernels.r_precision(g, n_rel)[0, 0] == pytest.approx(2 / 3)
    assert kernels.recall_at(g, n_rel, 3)[0, 0] == pytest.approx(2 / 3)


def test_hand_computed_ndcg():
    g = _grades([2, 0, 1, -2, -3])
    ideal = np.array([[2.0, 1.0, 1.0]])  # a third relevant document nobody retrieved
    dcg = 2 / np.log2(2) + 1 / np.log2(4)
    idcg = 2 / np.log2(2) + 1 / np.log2(3) + 1 / np.log2(4)
    assert kernels.ndcg(g, ideal)[0, 0] == pytest.approx(dcg / idcg, abs=1e-15)
    assert kernels.ndcg(g, ideal, depth=2)[0, 0] == pytest.approx(2 / (2 + 1 / np.log2(3)), abs=1e-15)


def test_hand_computed_bpref():
    # R=2 relevant, N=3 judged nonrelevant; ranking N U R N R (U unjudged, ignored)
    g = _grades([0, -2, 1, 0, 1])
    got = kernels.bpref(g, np.array([2]), np.array([3]))[0, 0]
    assert got == pytest.approx(((1 - 1 / 2) + (1 - 2 / 2)) / 2)


def test_hand_computed_rbp_and_residual():
    g = _grades([1, -2, 0, 1, -3])  # run of length 4
    p = 0.5
    score, residual = kernels.rbp(g, p)
    assert score[0, 0] == pytest.approx(0.5 * (1 + 0.125))
    assert residual[0, 0] == pytest.approx(0.5 * 0.5 + 0.5**4)
    score, residual = kernels.rbp(g, p, depth=2)
    assert score[0, 0] == pytest.approx(0.5)
    assert residual[0, 0] == pytest.approx(0.25 + 0.25)


def test_empty_topic_scores_zero():
    g = _grades([0, 0, -2])
    assert kernels.average_precision(g, np.array([0]))[0, 0] == 0.0
    assert kernels.ndcg(g, np.zeros((1, 1)))[0, 0] == 0.0
