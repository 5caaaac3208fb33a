"""Shallow pools and two-strata samples of an existing (deep) set of judgments, as Lu et al. (2017) simulate them.

* :func:`contributing_runs`: the runs that built the pools ("judged runs").
* :func:`pool_qrels`: the judgments a depth-d' pool would have produced = the full qrels restricted to the documents
  in the top d' of the contributing runs (Sec. 6: "pooling to different depths is simulated using the identified
  contributing systems").
* :func:`two_strata_qrels`: Voorhees' (2014) two-strata design used in Lu et al.'s Fig. 6: every document in the
  top ``depth1`` of the contributing runs is judged (stratum 1); of the remaining documents in their top
  ``depth2`` (stratum 2) a uniform random ``rate`` share (``round(rate * size)`` per topic, without replacement)
  is judged, the rest are marked ``UNSAMPLED`` (grade -1) as in NIST's sampled qrels.

All are array operations over (topic, document) keys; the random choice takes an explicit seed or Generator.
"""

from __future__ import annotations

import numpy as np

from evalkit.data.collection import ABSENT, Collection, JudgedSet

__all__ = ["contributing_runs", "run_mask", "pooled_keys", "pool_qrels", "two_strata_qrels"]


def contributing_runs(collection: Collection, depth: int = 100) -> np.ndarray:
    """(S,) bool: the runs that contributed to the pools.

    ``collection.runs_info['judged']`` when the dataset loader set it; otherwise the rule of the task brief: a run
    is judged if its top ``depth`` documents are judged (or absent) for every topic.
    """
    info = collection.runs_info
    if "judged" in info and info["judged"].notna().all():
        return info["judged"].to_numpy(bool)
    g = collection.default_grades[:, :, :depth]
    return ((g >= 0) | (g == ABSENT)).all(axis=(1, 2))


def run_mask(collection: Collection, runs) -> np.ndarray:
    """(S,) bool mask from None (all runs), a bool mask, integer indices or run names."""
    if runs is None:
        return np.ones(collection.n_runs, bool)
    runs = np.asarray(runs)
    if runs.dtype == bool:
        if runs.shape != (collection.n_runs,):
            raise ValueError(f"run mask has shape {runs.shape}, expected ({collection.n_runs},)")
        return runs.copy()
    mask = np.zeros(collection.n_runs, bool)
    if runs.dtype.kind in "iu":
        mask[runs] = True
    else:
        mask[[collection.run_index(r) for r in runs]] = True
    return mask


def pooled_keys(collection: Collection, depth: int, runs=None) -> np.ndarray:
    """Sorted unique keys ``topic * n_docs + doc`` of the documents in the top ``depth`` of ``runs``."""
    mask = run_mask(collection, runs) if runs is not None else contributing_runs(collection)
    docs = collection.docs[mask][:, :, :depth]
    topic = np.broadcast_to(np.arange(collection.n_topics, dtype=np.int64)[None, :, None], docs.shape)
    valid = docs >= 0
    return np.unique(topic[valid] * len(collection.vocabulary) + docs[valid])


def _subset(qrels: JudgedSet, keep: np.ndarray, stratum=None) -> JudgedSet:
    return JudgedSet(
        topic=qrels.topic[keep], doc=qrels.doc[keep], grade=qrels.grade[keep],
        stratum=stratum, n_topics=qrels.n_topics, n_docs=qrels.n_docs,
    )


def pool_qrels(collection: Collection, depth: int, runs=None, qrels: JudgedSet | None = None) -> JudgedSet:
    """Judgments of a depth-``depth`` pool of ``runs`` (default: the contributing runs): ``qrels`` (default: the
    collection's) restricted to the pooled documents. Pooled documents missing from ``qrels`` stay unjudged."""
    qrels = collection.qrels if qrels is None else qrels
    keys = pooled_keys(collection, depth, runs)
    return _subset(qrels, np.isin(qrels.keys, keys, assume_unique=False))


def two_strata_qrels(
    collection: Collection,
    depth1: int = 10,
    depth2: int = 100,
    rate: float = 0.1,
    seed=None,
    runs=None,
    qrels: JudgedSet | None = None,
) -> JudgedSet:
    """A two-strata sample (Voorhees 2014) of ``qrels``: stratum 1 = top ``depth1`` of ``runs`` (all judged),
    stratum 2 = the rest of their top ``depth2``, of which ``round(rate * size)`` per topic are drawn uniformly
    without replacement; undrawn stratum-2 documents get grade ``UNSAMPLED`` (-1). ``stratum`` is 1 or 2.

    ``seed``: int, SeedSequence or numpy Generator (required: the sample must be reproducible).
    """
    if seed is None:
        raise ValueError("two_strata_qrels needs a seed (int or numpy Generator): samples must be reproducible")
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"rate must be in [0, 1]; got {rate}")
    if not 0 < depth1 < depth2:
        raise ValueError(f"need 0 < depth1 < depth2; got {depth1}, {depth2}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    qrels = collection.qrels if qrels is None else qrels
    n_docs = len(collection.vocabulary)
    first = pooled_keys(collection, depth1, runs if runs is not None else contributing_runs(collection))
    deep = pooled_keys(collection, depth2, runs if runs is not None else contributing_runs(collection))
    second = deep[~np.isin(deep, first, assume_unique=True)]
    topic2 = second // n_docs
    sizes = np.bincount(topic2, minlength=collection.n_topics)
    n_draw = np.rint(rate * sizes).astype(np.int64)
    order = np.lexsort((rng.random(len(second)), topic2))  # random order within each topic
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    position = np.empty(len(second), np.int64)
    position[order] = np.arange(len(second)) - starts[topic2[order]]
    drawn = position < n_draw[topic2]

    judged_keys = np.concatenate([first, second[drawn]])
    found = np.isin(judged_keys, qrels.keys)  # pooled documents missing from the qrels stay unjudged
    judged_keys = judged_keys[found]
    judged_grade = qrels.grade[np.searchsorted(qrels.keys, judged_keys)]
    judged_stratum = np.where(np.isin(judged_keys, first, assume_unique=True), 1, 2)
    unsampled = second[~drawn]
    keys = np.concatenate([judged_keys, unsampled])
    grade = np.concatenate([judged_grade, np.full(len(unsampled), -1, np.int16)])
    stratum = np.concatenate([judged_stratum, np.full(len(unsampled), 2)])
    return JudgedSet.from_arrays(keys // n_docs, keys % n_docs, grade, collection.n_topics, n_docs, stratum)
