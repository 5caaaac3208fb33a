"""The documents a set of rankings retrieves, per topic, as one flat index.

A :class:`Universe` is built from ``docs[run, topic, rank]`` (the :class:`evalkit.data.collection.Collection` layout,
-1 past the end). Every distinct (topic, document) pair gets a *position* ``0..n-1``, sorted by (topic, doc);
position ``n`` is a sentinel standing for "no document" (probability 0, never judged). Relevance probabilities,
judgments and labels are then plain ``(n + 1,)`` arrays, and

* ``index[run, topic, rank]`` is the position of each ranked document (``n`` past the end): ``p[index]`` gives
  probabilities by rank, ready for :func:`evalkit.confidence.ap_variance.ap_moments`;
* ``padded[topic, j]`` lists each topic's positions (``n`` as padding) and ``local[run, topic, rank]`` is the
  column ``j`` of a ranked document in that list (``width`` past the end), for per-topic scatter/gather;
* ``rank[run, position]`` is the 1-based rank of the document in each run (0 = not retrieved).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

__all__ = ["Universe"]

_SHIFT = np.int64(32)


@dataclass(frozen=True, eq=False)
class Universe:
    docs: np.ndarray  # (K, T, D) int32, -1 past the end
    topic: np.ndarray  # (n,) int32, sorted with doc
    doc: np.ndarray  # (n,) int32
    index: np.ndarray  # (K, T, D) int64 position, n past the end
    starts: np.ndarray  # (T + 1,) int64: positions of topic t are starts[t]:starts[t+1]

    @classmethod
    def from_docs(cls, docs: np.ndarray) -> "Universe":
        docs = np.asarray(docs)
        if docs.ndim != 3:
            raise ValueError(f"docs must be (runs, topics, depth); got shape {docs.shape}")
        n_runs, n_topics, depth = docs.shape
        valid = docs >= 0
        topic_grid = np.broadcast_to(np.arange(n_topics, dtype=np.int64)[None, :, None], docs.shape)
        keys = (topic_grid << _SHIFT) | np.where(valid, docs, 0).astype(np.int64)
        unique, inverse = np.unique(keys[valid], return_inverse=True)
        n = len(unique)
        index = np.full(docs.shape, n, np.int64)
        index[valid] = inverse.ravel()
        topic = (unique >> _SHIFT).astype(np.int32)
        doc = (unique & np.int64(0xFFFFFFFF)).astype(np.int32)
        starts = np.searchsorted(topic, np.arange(n_topics + 1)).astype(np.int64)
        return cls(docs=docs, topic=topic, doc=doc, index=index, starts=starts)

    # ---------------------------------------------------------------- sizes
    @property
    def n(self) -> int:
        return len(self.topic)

    @property
    def n_runs(self) -> int:
        return self.docs.shape[0]

    @property
    def n_topics(self) -> int:
        return self.docs.shape[1]

    @property
    def depth(self) -> int:
        return self.docs.shape[2]

    @cached_property
    def sizes(self) -> np.ndarray:
        """(T,) number of distinct documents per topic."""
        return np.diff(self.starts)

    @property
    def width(self) -> int:
        return int(self.sizes.max(initial=0))

    @cached_property
    def keys(self) -> np.ndarray:
        return (self.topic.astype(np.int64) << _SHIFT) | self.doc.astype(np.int64)

    # ---------------------------------------------------------------- per-topic layout
    @cached_property
    def padded(self) -> np.ndarray:
        """(T, width) positions of each topic's documents, ``n`` as padding."""
        width = max(self.width, 1)
        out = np.full((self.n_topics, width), self.n, np.int64)
        column = np.arange(self.n) - self.starts[self.topic]
        out[self.topic, column] = np.arange(self.n)
        return out

    @cached_property
    def local(self) -> np.ndarray:
        """(K, T, D) column of each ranked document in :attr:`padded` (``width`` past the end)."""
        topic_starts = np.broadcast_to(self.starts[:-1][None, :, None], self.index.shape)
        return np.where(self.index < self.n, self.index - topic_starts, max(self.width, 1))

    @cached_property
    def rank(self) -> np.ndarray:
        """(K, n + 1) 1-based rank of each position in each run, 0 where the run does not retrieve it."""
        out = np.zeros((self.n_runs, self.n + 1), np.int32)
        ranks = np.broadcast_to(np.arange(1, self.depth + 1, dtype=np.int32), self.index.shape)
        run = np.broadcast_to(np.arange(self.n_runs)[:, None, None], self.index.shape)
        out[run, self.index] = ranks
        out[:, self.n] = 0
        return out

    # ---------------------------------------------------------------- lookups
    def positions(self, topic, doc) -> np.ndarray:
        """Position of each (topic index, doc id) pair; -1 where the universe does not contain it."""
        keys = (np.asarray(topic, np.int64) << _SHIFT) | np.asarray(doc, np.int64)
        pos = np.searchsorted(self.keys, keys)
        clipped = np.minimum(pos, max(self.n - 1, 0))
        found = (pos < self.n) & (self.keys[clipped] == keys) if self.n else np.zeros(keys.shape, bool)
        return np.where(found, clipped, -1)

    def relevance(self, qrels, relevance_level: int = 1) -> np.ndarray:
        """(n,) bool oracle labels from aligned qrels (:class:`evalkit.data.collection.JudgedSet`): grade >= level;
        a document absent from the qrels is nonrelevant."""
        return qrels.lookup(self.topic, self.doc) >= relevance_level

    def topic_sums(self, values: np.ndarray) -> np.ndarray:
        """(T,) per-topic sums of a (n,) or (n + 1,) array (the sentinel is ignored)."""
        return np.bincount(self.topic, weights=np.asarray(values, np.float64)[: self.n], minlength=self.n_topics)

    def retrieved_by(self, runs) -> np.ndarray:
        """(n,) bool: positions retrieved by at least one of ``runs`` (indices into the run axis)."""
        return (self.rank[np.asarray(runs)][:, : self.n] > 0).any(axis=0)
