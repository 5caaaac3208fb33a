"""Orderings shared by the kit's two readers (:mod:`evalkit.data.trec_files` for collections, :mod:`evalkit.trec_eval.rankings`
for the trec_eval command line): trec_eval breaks score ties by docno descending (``strcmp``). numpy only, so the
command line's start-up stays free of pyarrow and pandas."""

from __future__ import annotations

import numpy as np


def segment_then_descending(segment: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """The permutation ordering rows by ``segment`` (non-decreasing integers, as a running count of tie groups is)
    ascending, then ``ranks`` descending, stably (rows with equal keys keep their order): one unstable sort of a
    combined int64 key instead of a two-key lexsort, about 5x faster, and a stable sort only when two rows have the
    same key (a docno twice in a tie, whose copies can carry different scores when ties are compared in single
    precision: which copy falls within a depth cut then does not depend on the sort's pivots, and the compiled
    reader, :mod:`evalkit.data.native_build`, agrees); the lexsort where the key could overflow."""
    if not len(ranks):
        return np.zeros(0, np.int64)
    low, high = int(ranks.min()), int(ranks.max())
    span = high - low + 1
    if span * (int(segment[-1]) + 1) >= 2**62:
        return np.lexsort((-ranks, segment))
    key = segment.astype(np.int64) * span + (high - ranks.astype(np.int64))
    order = np.argsort(key)
    ordered = key[order]
    if (ordered[1:] == ordered[:-1]).any():
        return np.argsort(key, kind="stable")
    return order


def word_ranks(words: np.ndarray) -> np.ndarray:
    """(n,) int64 ranks ordering like the rows of ``words`` (n, W) compared lexicographically (equal rows, equal
    ranks): the first word's dense rank, then each further word folded in and the result made dense again, so
    the numbers stay below n and never overflow."""
    ranks = np.zeros(len(words), np.int64)
    for j in range(words.shape[1]):
        values, inverse = np.unique(words[:, j], return_inverse=True)
        ranks = ranks * len(values) + inverse.reshape(-1)
        if j + 1 < words.shape[1]:
            ranks = np.unique(ranks, return_inverse=True)[1].reshape(-1)
    return ranks


def sort_topics(topics) -> np.ndarray:
    """Topic ids in natural order: numerically when every id is an integer, else as strings."""
    topics = np.asarray(sorted(set(map(str, topics))), dtype=object)
    try:
        return topics[np.argsort([int(t) for t in topics], kind="stable")]
    except ValueError:
        return topics
