"""Pools: the documents a set of runs retrieved in their top ranks, and how deep a collection's judgments reach.

A *pool* is the set of documents the pooling runs retrieved in their top ``depth`` ranks, per topic (TREC's way of
choosing what to judge; Voorhees 2014 Sec. 1, Yilmaz, Kanoulas and Aslam 2008 Sec. 3). Each pooled document has a
*pool rank*: the smallest rank (1-based) at which any pooling run retrieved it.

The pool is part of the data layer because a collection's own judgments were built from one: at load
(:mod:`evalkit.data.pool_metadata`) the kit decides which runs contributed (:func:`derive_judged_runs`) and how deep
their pool is judged (:func:`judged_depth`), and the sampling designs of :mod:`evalkit.judging` draw from pools.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalkit.data.collection import (
    ABSENT,
    GRADE_DTYPE,
    UNJUDGED,
    UNSAMPLED,
    Collection,
    JudgedSet,
)

__all__ = ["Pool", "pool", "run_indices", "deepest_rank", "judged_depth", "derive_judged_runs", "complete_depths",
           "JUDGED_DEPTH"]

#: the depth of the derived judged-run rule when nothing says how deep the pools were (TREC-8's pool depth)
JUDGED_DEPTH = 100



@dataclass(frozen=True)
class Pool:
    """The depth-``depth`` pool of some runs: parallel arrays sorted by (topic, doc).

    ``rank`` is each document's pool rank (1-based): the smallest rank at which any pooling run retrieved it.
    """

    topic: np.ndarray  # int32
    doc: np.ndarray  # int32
    rank: np.ndarray  # int32, 1-based
    depth: int
    n_topics: int
    n_docs: int

    def __len__(self) -> int:
        return len(self.doc)

    def sizes(self) -> np.ndarray:
        """(T,) number of pooled documents per topic."""
        return np.bincount(self.topic, minlength=self.n_topics)

    def sizes_by_rank(self) -> np.ndarray:
        """(T, depth) number of documents whose pool rank is r+1 (new documents entering the pool at each rank)."""
        out = np.zeros((self.n_topics, self.depth), np.int64)
        np.add.at(out, (self.topic, self.rank - 1), 1)
        return out

    @property
    def keys(self) -> np.ndarray:
        return self.topic.astype(np.int64) * self.n_docs + self.doc

    def contains(self, topic_index: np.ndarray, doc: np.ndarray) -> np.ndarray:
        """Whether each (topic, doc) pair is in the pool (doc < 0 is never pooled)."""
        keys = np.asarray(topic_index, np.int64) * self.n_docs + np.asarray(doc)
        own = self.keys
        pos = np.minimum(np.searchsorted(own, keys), max(len(own) - 1, 0))
        return (len(own) > 0) & (own[pos] == keys) & (np.asarray(doc) >= 0)

    def membership(self) -> np.ndarray:
        """(T, V) boolean matrix: document d is in topic t's pool (dense; fine for small collections)."""
        out = np.zeros((self.n_topics, self.n_docs), bool)
        out[self.topic, self.doc] = True
        return out

    def restrict(self, depth: int) -> "Pool":
        """The shallower depth-``depth`` pool of the same runs (documents with pool rank <= depth)."""
        if depth > self.depth:
            raise ValueError(f"cannot deepen a depth-{self.depth} pool to {depth}; build it again with pool()")
        keep = self.rank <= depth
        return Pool(self.topic[keep], self.doc[keep], self.rank[keep], depth, self.n_topics, self.n_docs)

    def judged_set(self, base_qrels: JudgedSet, stratum: np.ndarray | None = None) -> JudgedSet:
        """The pool as qrels: base grade where the base qrels judge the document, -1 (pooled, not judged) else."""
        grade = base_qrels.lookup(self.topic, self.doc)
        grade = np.where(grade >= 0, grade, UNSAMPLED).astype(GRADE_DTYPE)
        return JudgedSet(self.topic.copy(), self.doc.copy(), grade,
                         None if stratum is None else np.asarray(stratum, np.int32), self.n_topics, self.n_docs)


def run_indices(collection: Collection, runs) -> np.ndarray:
    """Indices of ``runs`` (names, indices or a boolean mask; None: the judged runs, which the collection must name)."""
    if runs is None:
        if "judged" not in collection.runs_info:
            raise ValueError(
                f"collection {collection.name!r} does not say which runs were judged (runs_info['judged']); "
                "pass runs= explicitly"
            )
        runs = collection.judged_runs
    return collection._indices(runs, collection.run_names, "runs")


def pool(collection: Collection, depth: int, runs=None) -> Pool:
    """The depth-``depth`` pool of ``runs`` (names, indices or a boolean mask; default: the judged runs).

    Vectorized: one sort of the (topic, doc, rank) triples of the pooling runs' top ``depth``; the pool rank of a
    document is the first rank in its sorted group.
    """
    if depth < 1:
        raise ValueError(f"pool depth must be >= 1, got {depth}")
    run_idx = run_indices(collection, runs)
    n_topics, n_docs = collection.n_topics, len(collection.vocabulary)
    depth_used = min(int(depth), collection.depth)
    docs = collection.docs[run_idx, :, :depth_used]
    valid = docs >= 0
    _, topic, rank = np.nonzero(valid)
    doc = docs[valid].astype(np.int64)
    key = (topic.astype(np.int64) * n_docs + doc) * (depth_used + 1) + rank  # rank 0-based < depth+1
    key = np.sort(key)
    pair = key // (depth_used + 1)
    first = np.ones(len(key), bool)
    first[1:] = pair[1:] != pair[:-1]
    pair, rank0 = pair[first], key[first] % (depth_used + 1)
    return Pool(
        topic=(pair // n_docs).astype(np.int32),
        doc=(pair % n_docs).astype(np.int32),
        rank=(rank0 + 1).astype(np.int32),
        depth=int(depth),
        n_topics=n_topics,
        n_docs=n_docs,
    )


def deepest_rank(collection: Collection, runs=None) -> int:
    """The deepest rank (1-based) at which any of ``runs`` (default: the judged runs) has a document, on any topic
    (0 when they retrieved nothing): no pool of these runs reaches below it."""
    docs = collection.docs[run_indices(collection, runs)]
    ranks = np.flatnonzero((docs >= 0).any(axis=(0, 1)))
    return int(ranks[-1]) + 1 if len(ranks) else 0


def judged_depth(collection: Collection, runs=None, base_qrels: JudgedSet | None = None) -> int:
    """How deep a sample can reach: the deepest rank d such that every document in the depth-d pool of ``runs``
    (default: the judged runs) has a judgment (grade >= 0) in ``base_qrels`` (default: the collection's), and at
    which one of ``runs`` has a document (d <= :func:`deepest_rank`).

    With the defaults, the collection's own judged depth is returned when its metadata has one (given by the
    reviewer in ``collection.json`` or derived at load, see :mod:`evalkit.data.pool_metadata`). TREC-8's 72 judged runs
    give 100; when the runs' whole pool is judged, the deepest rank at which they have a document (runs of 2
    documents judged completely give 2, however long the collection's other runs are). **0 when no run is judged**
    (or the pool's first rank already misses a judgment): an empty pool says nothing about how deep judgments go,
    so no depth is claimed for it.
    """
    if runs is None and base_qrels is None and collection.metadata.get("judged_depth"):
        return int(collection.metadata["judged_depth"])
    base = collection.qrels if base_qrels is None else base_qrels
    p = pool(collection, collection.depth, runs)
    if not len(p):
        return 0
    grade = base.lookup(p.topic, p.doc)
    unjudged = grade < 0
    if not unjudged.any():
        return deepest_rank(collection, runs)
    return int(p.rank[unjudged].min()) - 1


def derive_judged_runs(collection: Collection, depth: int = JUDGED_DEPTH) -> np.ndarray:
    """(S,) bool: runs whose top ``depth`` documents are all in the qrels for every topic: the derived rule of
    :mod:`evalkit.data.pool_metadata` for which runs contributed to the pools (72 of TREC-8's 129 runs at depth 100)."""
    grades = collection.default_grades[:, :, :depth]
    judged_or_absent = (grades >= 0) | (grades == ABSENT) | (grades == UNSAMPLED)
    return judged_or_absent.all(axis=(1, 2))


def complete_depths(collection: Collection) -> np.ndarray:
    """(S,) for each run, the deepest rank d such that every document of its top d is in the qrels, on every topic
    (a run shorter than d on a topic counts as complete there)."""
    unjudged = collection.default_grades == UNJUDGED
    first = np.where(unjudged.any(axis=2), unjudged.argmax(axis=2), collection.depth)  # (S, T)
    return first.min(axis=1) if collection.n_topics else np.full(collection.n_runs, collection.depth)
