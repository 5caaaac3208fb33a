"""JudgedSet.lookup / lookup_stratum (a dense per-topic scratch row) against a dictionary oracle, on every layout
of the (topic, doc) arrays: broadcast over runs and ranks, flat sorted, flat unsorted, one scalar topic."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import random_collection

from evalkit.data.collection import ABSENT, UNJUDGED, JudgedSet


def _oracle(judged: JudgedSet, values, missing, absent, topic_index, doc):
    table = {(int(t), int(d)): v for t, d, v in zip(judged.topic, judged.doc, values)}
    topic_index, doc = np.broadcast_arrays(np.asarray(topic_index), np.asarray(doc))
    out = np.empty(doc.shape, np.int64)
    for index in np.ndindex(doc.shape):
        d = int(doc[index])
        out[index] = absent if d < 0 else table.get((int(topic_index[index]), d), missing)
    return out


def _judged(seed=0, sampled=True):
    rng = np.random.default_rng(seed)
    n_topics, n_docs = 6, 300
    pairs = rng.choice(n_topics * n_docs, size=500, replace=False)
    grade = rng.choice([-1, 0, 0, 1, 2, 3], size=len(pairs))
    stratum = rng.integers(1, 4, size=len(pairs)) if sampled else None
    return JudgedSet.from_arrays(pairs // n_docs, pairs % n_docs, grade, n_topics, n_docs, stratum)


def _check(judged, topic_index, doc):
    got = judged.lookup(topic_index, doc)
    assert got.dtype == judged.grade.dtype
    np.testing.assert_array_equal(got, _oracle(judged, judged.grade, UNJUDGED, ABSENT, topic_index, doc))
    strata = judged.lookup_stratum(topic_index, doc)
    assert strata.dtype == np.int32
    np.testing.assert_array_equal(strata, _oracle(judged, judged.stratum, -1, -1, topic_index, doc))


def test_broadcast_runs_topics_ranks():
    judged = _judged()
    rng = np.random.default_rng(1)
    docs = rng.integers(-1, judged.n_docs, size=(7, judged.n_topics, 60)).astype(np.int32)
    docs[:, :, 50:] = -1  # padding past the end of the rankings
    judged_docs = judged.doc[judged.topic == 2]
    docs[0, 2, : len(judged_docs[:40])] = judged_docs[:40]  # plenty of hits
    topic = np.broadcast_to(np.arange(judged.n_topics, dtype=np.int32)[None, :, None], docs.shape)
    _check(judged, topic, docs)


@pytest.mark.parametrize("layout", ["unsorted", "sorted", "scalar"])
def test_flat_layouts(layout):
    judged = _judged(2)
    rng = np.random.default_rng(3)
    topic = rng.integers(0, judged.n_topics, size=2000).astype(np.int32)
    doc = rng.integers(-1, judged.n_docs, size=2000).astype(np.int32)
    topic[:400], doc[:400] = judged.topic[:400], judged.doc[:400]
    if layout == "sorted":
        order = np.argsort(topic, kind="stable")
        topic, doc = topic[order], doc[order]
    if layout == "scalar":
        topic = np.int32(4)
        of_topic = judged.doc[judged.topic == 4]
        doc[: len(of_topic)] = of_topic
    _check(judged, topic, doc)


def test_odd_inputs_keep_the_old_answers():
    """Ids past the vocabulary are unjudged, any negative id is absent, a topic outside the qrels judges
    nothing, an empty qrels judges nothing, empty input gives empty output."""
    judged = _judged(4)
    doc = np.array([-5, -1, 0, judged.n_docs + 3, int(judged.doc[0])], np.int32)
    _check(judged, np.full(len(doc), int(judged.topic[0]), np.int32), doc)
    _check(judged, np.array([0, 1, judged.n_topics, judged.n_topics + 7, 0], np.int32), doc)
    empty = JudgedSet.from_arrays([], [], [], 3, 10)
    np.testing.assert_array_equal(empty.lookup(np.array([0, 1, 2]), np.array([1, -1, 9])), [UNJUDGED, ABSENT, UNJUDGED])
    np.testing.assert_array_equal(empty.lookup_stratum(np.array([0, 1]), np.array([1, -1])), [-1, -1])
    assert judged.lookup(np.zeros(0, np.int32), np.zeros(0, np.int32)).shape == (0,)


def test_collection_grades_equal_a_key_search():
    """Collection.grades (the broadcast layout, one gather per topic) equals a search of every (topic, doc) key
    in the sorted qrels keys (the former implementation)."""
    collection = random_collection(5)
    q = collection.qrels
    keys = np.arange(collection.n_topics)[None, :, None].astype(np.int64) * q.n_docs + collection.docs
    pos = np.minimum(np.searchsorted(q.keys, keys), len(q.keys) - 1)
    expected = np.where(q.keys[pos] == keys, q.grade[pos], UNJUDGED)
    expected[collection.docs < 0] = ABSENT
    np.testing.assert_array_equal(collection.grades(), expected)
    assert (collection.grades() >= 1).any() and (collection.grades() == UNJUDGED).any()
