"""Blocked evaluation and the sparse kernels: every block size gives the same bits as one block, the kernels add
trec_eval's terms in trec_eval's order (compared with its loops written out in Python), temporaries stay bounded
by the block and not by the collection, and no grade cache is left on the collection."""

from __future__ import annotations

import math
import tracemalloc
from dataclasses import replace

import numpy as np
import pytest
from conftest import random_collection

from evalkit.data.collection import ABSENT, GRADE_DTYPE, UNJUDGED
from evalkit.measures import kernels
from evalkit.measures.evaluation import EvaluationContext, _scores

MEASURES = ["AP", "AP@5", "P@10", "R@7", "Rprec", "nDCG", "nDCG@10", "Bpref", "RBP(p=0.8)", "RBPres(p=0.8)@15",
            "NumRel", "NumRet", "NumRet@3"]


def _collection(seed):
    if seed == "synthetic":
        from evalkit.data.datasets import load_dataset

        return load_dataset("synthetic", n_topics=9, n_runs=11, depth=120, seed=5)
    return random_collection(seed)


@pytest.mark.parametrize("seed", [0, 1, "synthetic"])
def test_every_block_size_gives_the_same_bits(seed):
    collection = _collection(seed)
    whole = _scores(EvaluationContext(collection, collection.qrels), MEASURES, block_cells=1 << 40)
    S, T, D = collection.docs.shape
    # one (run, topic) a block; a few runs of one topic; a few topics of all runs; odd sizes
    for cells in (1, 2 * D, 3 * D + 1, S * D, 2 * S * D + 5, S * T * D - 1):
        blocked = _scores(EvaluationContext(collection, collection.qrels), MEASURES, block_cells=cells)
        for name, a, b in zip(MEASURES, whole, blocked):
            assert np.array_equal(a, b), (name, cells)


def test_blocks_cover_each_cell_once():
    collection = random_collection(2, n_runs=7, n_topics=5, depth=10)
    context = EvaluationContext(collection, collection.qrels)
    for cells in (1, 15, 70, 71, 140, 10**6):
        seen = np.zeros((collection.n_runs, collection.n_topics), int)
        for block in context.blocks(cells):
            runs, topics = block.index()
            seen[runs, topics] += 1
            assert block.grades.size <= max(cells, collection.depth)
            np.testing.assert_array_equal(block.grades, collection.grades()[runs, topics])
            np.testing.assert_array_equal(block.n_relevant, collection.qrels.counts(1)[topics])
        assert (seen == 1).all(), cells


def test_ranks_past_the_largest_cutoff_are_not_looked_up(monkeypatch):
    collection = random_collection(3)
    widths = []
    lookup = type(collection.qrels).lookup

    def spy(self, topic_index, doc, **options):
        widths.append(doc.shape[-1])
        return lookup(self, topic_index, doc, **options)

    monkeypatch.setattr(type(collection.qrels), "lookup", spy)
    _scores(EvaluationContext(collection, collection.qrels), ["P@5", "nDCG@7"])
    assert set(widths) == {7}
    widths.clear()
    _scores(EvaluationContext(collection, collection.qrels), ["P@5", "Rprec"])
    assert set(widths) == {collection.depth}


def test_evaluation_leaves_no_grade_cache_on_the_collection():
    import evalkit

    collection = random_collection(4)
    evalkit.evaluate(None, collection, ["AP", "nDCG@10"])
    evalkit.score_matrix(collection, "Bpref")
    assert "default_grades" not in collection.__dict__


# ---- trec_eval's loops written out (m_map.c, m_ndcg_cut.c, m_ndcg.c, m_bpref.c, m_Rprec.c), one ranking at a time


def _trec_ap(row, R):
    rel_so_far, total = 0, 0.0
    for i, g in enumerate(row):
        if g >= 1:
            rel_so_far += 1
            total += rel_so_far / (i + 1)
    return total / R if rel_so_far else 0.0


def _trec_dcg(row, cut):
    total = 0.0
    for i, g in enumerate(row[:cut]):
        if g > 0:
            total += float(g) / math.log2(i + 2)
    return total


def _trec_ideal(gains, cut):
    total = 0.0
    for i, g in enumerate(gains[:cut]):
        if g > 0:
            total += float(g) / math.log2(i + 2)
    return total


def _trec_bpref(row, R, N):
    nonrel_so_far, total = 0, 0.0
    for g in row:
        if g < 0:
            continue
        if g < 1:
            nonrel_so_far += 1
        elif nonrel_so_far > 0:
            total += 1.0 - min(nonrel_so_far, R) / min(N, R)
        else:
            total += 1.0
    return total / R if R else total


def _trec_rprec(row, R):
    n_ret = int((row != ABSENT).sum())
    look = min(n_ret, R)
    return sum(1 for g in row[:look] if g >= 1) / R if look else 0.0


@pytest.mark.parametrize("seed", [0, 5])
def test_kernels_equal_trec_eval_loops_bit_for_bit(seed):
    collection = random_collection(seed)
    grades = collection.grades()
    q = collection.qrels
    R, N, ideal = q.counts(1), q.judged_nonrelevant(1), q.ideal_gains()
    ap = kernels.average_precision(grades, R)
    ndcg10, ndcg = kernels.ndcg(grades, ideal, 10), kernels.ndcg(grades, ideal)
    bpref, rprec = kernels.bpref(grades, R, N), kernels.r_precision(grades, R)
    for s, t in np.ndindex(grades.shape[:2]):
        row = grades[s, t]
        assert ap[s, t] == _trec_ap(row, R[t])
        ideal10, ideal_all = _trec_ideal(ideal[t], 10), _trec_ideal(ideal[t], None)
        assert ndcg10[s, t] == (_trec_dcg(row, 10) / ideal10 if ideal10 > 0 else 0.0)
        assert ndcg[s, t] == (_trec_dcg(row, None) / ideal_all if ideal_all > 0 else 0.0)
        assert bpref[s, t] == _trec_bpref(row, R[t], N[t])
        assert rprec[s, t] == _trec_rprec(row, R[t])
    assert (ap > 0).any() and (bpref > 0).any() and (bpref < 1).any()


def test_kernels_take_any_leading_shape():
    grades = np.array([1, 0, UNJUDGED, 1, ABSENT], GRADE_DTYPE)
    assert kernels.average_precision(grades, 3) == pytest.approx((1 + 2 / 4) / 3)
    assert kernels.bpref(grades[None, None], np.array([2]), np.array([1]))[0, 0] == pytest.approx((1 + 0) / 2)
    score, residual = kernels.rbp(grades[None], 0.5)
    assert score[0] == pytest.approx(0.5 * (1 + 0.125)) and residual[0] == pytest.approx(0.5 * 0.25 + 0.5**4)


def test_temporaries_are_bounded_by_the_block_not_the_collection():
    """tracemalloc's peak while scoring 32x more runs stays within a fixed margin at a fixed block size (the score
    matrices grow, 8 bytes a (run, topic) a measure; the grades and kernel temporaries do not)."""
    small = _collection("synthetic")
    big = replace(small, docs=np.concatenate([small.docs] * 32), run_names=np.concatenate([small.run_names] * 32),
                  scores=np.concatenate([small.scores] * 32))
    measures = ["AP", "P@10", "nDCG@100", "Rprec", "Bpref"]
    block = 2 * small.depth * small.n_runs

    def peak(collection):
        _scores(EvaluationContext(collection, collection.qrels), measures, block_cells=block)  # imports, caches
        tracemalloc.start()
        try:
            _scores(EvaluationContext(collection, collection.qrels), measures, block_cells=block)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small_peak, big_peak = peak(small), peak(big)
    outputs = 8 * len(measures) * (big.n_runs - small.n_runs) * small.n_topics
    assert big_peak <= small_peak + outputs + 64 * 1024
    assert big.docs.size * 2 > 2 * (outputs + 64 * 1024)  # whole-collection grades (2 bytes a cell) would show
