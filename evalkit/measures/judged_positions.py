"""Where a qrels' documents stand in a collection's rankings: the lookup the inferred measures start from.

Every inferred measure (:mod:`evalkit.measures.inferred`: infAP, xinfAP, infNDCG of Yilmaz, Kanoulas and Aslam,
SIGIR 2008, as NIST's ``sample_eval.pl`` computes them; the variance of infAP,
:mod:`evalkit.measures.infap_variance`) first finds, for every ranked (topic, run, rank), whether its document is
in the qrels and on which line. This module does that search: vectorized gathers from a topic x vocabulary
lookup table (dense mode), or from a numbering of the rankings' distinct (topic, doc) pairs when that table would
be too large, in blocks of ranked documents so the temporaries stay small. The result (:class:`_Entries`) is in
(topic, run, rank) order. :func:`judged_positions` keeps the positions of one pool, so that samples drawn from it
share the search (``within=``).
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

import numpy as np

from evalkit.data.collection import Collection, JudgedSet
from evalkit.data.trec_files import Qrels

__all__ = ["judged_positions", "JudgedPositions"]


def _as_judged(qrels, collection: Collection | None = None) -> JudgedSet:
    if qrels is None:
        if collection is None:
            raise ValueError("qrels are required")
        return collection.qrels
    if hasattr(qrels, "qrels") and isinstance(getattr(qrels, "qrels"), JudgedSet):  # SampleResult
        return qrels.qrels
    if isinstance(qrels, Qrels):
        if collection is None:
            raise ValueError("file qrels need a collection to be aligned with; pass a JudgedSet")
        return collection.align_qrels(qrels)
    if isinstance(qrels, JudgedSet):
        if collection is not None and (qrels.n_topics != collection.n_topics
                                       or qrels.n_docs != len(collection.vocabulary)):
            raise ValueError("qrels are not aligned with this collection (topics or vocabulary differ)")
        return qrels
    raise TypeError(f"expected JudgedSet, Qrels or SampleResult, got {type(qrels).__name__}")



_DENSE_LIMIT = 1 << 25  # topic x vocabulary lookup tables up to 32M entries (128 MB); pair numbering beyond
_INDEX_CACHE: dict[int, "_EntryIndex"] = {}
_TABLES: dict[int, np.ndarray] = {}  # topic x vocabulary size -> lookup table (all -1 between calls)
_TABLE_LOCK = threading.Lock()


class _EntryIndex:
    """For one ``docs`` array: how to find, for every ranked document, its line in a qrels.

    The rankings are visited in (topic, run, rank) order, so that one topic's part of the lookup table stays in
    cache while all runs are looked up. Dense mode (topic x vocabulary space below ``_DENSE_LIMIT``): int32 keys
    ``topic * V + doc`` into a table of qrels lines (4 bytes per topic x document, 70 MB for TREC-8), allocated
    once per size and reset after each lookup. Indexes are cached per ``docs`` array (dropped with it); the
    arrays are assumed not to change in place. Pair mode: every distinct (topic, doc)
    pair of the rankings numbered once, so a lookup needs a table only as long as the number of pairs.
    """

    def __init__(self, docs: np.ndarray, n_topics: int, n_docs: int):
        self.shape = docs.shape
        self.space = n_topics * n_docs
        docs_tsd = np.array(docs.transpose(1, 0, 2), dtype=np.int32, order="C", copy=True)  # (T, S, D): a copy, never a view of the caller's docs
        if self.space < _DENSE_LIMIT:
            self.mode = "dense"
            invalid = docs_tsd < 0
            docs_tsd += (np.arange(n_topics, dtype=np.int32) * np.int32(n_docs))[:, None, None]
            docs_tsd[invalid] = self.space
            self.keys = docs_tsd.reshape(-1)
        else:
            import pandas as pd

            self.mode = "pairs"
            docs_tsd = docs_tsd.reshape(-1)
            valid = docs_tsd >= 0
            topic = np.repeat(np.arange(n_topics, dtype=np.int64), docs.shape[0] * docs.shape[2])
            keys = topic[valid] * n_docs + docs_tsd[valid]
            codes, uniques = pd.factorize(keys)
            order = np.argsort(uniques)
            rank_of = np.empty(len(order), np.int32)
            rank_of[order] = np.arange(len(order), dtype=np.int32)
            self.pairs = np.asarray(uniques, np.int64)[order]
            inv = np.full(len(docs_tsd), len(self.pairs), np.int32)
            inv[valid] = rank_of[codes]
            self.inv = inv

    def positions(self, qrels_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The ranked documents that are in the qrels, in (topic, run, rank) order: their row (topic * S + run) and
        0-based rank (int32) and their qrels line (int64).

        The rankings are looked up in blocks of :data:`_LOOKUP_BLOCK` entries, so the temporaries are a block's
        (1 MB, reused by the allocator from one block to the next) and not one per ranked document (26 MB of fresh
        pages a call on TREC-8); only the matches are kept."""
        idx = np.arange(len(qrels_keys), dtype=np.int32)
        if self.mode == "dense":
            with _TABLE_LOCK:  # tables are kept all -1 between calls and shared by collections of equal size
                table = _TABLES.get(self.space)
                if table is None:
                    table = _TABLES[self.space] = np.full(self.space + 1, -1, np.int32)
                table[qrels_keys] = idx
                try:
                    return _matches(table, self.keys, self.shape[2])
                finally:
                    table[qrels_keys] = -1
        table = np.full(len(self.pairs) + 1, -1, np.int32)
        if len(self.pairs):
            pos = np.searchsorted(self.pairs, qrels_keys)
            pos_c = np.minimum(pos, len(self.pairs) - 1)
            found = (pos < len(self.pairs)) & (self.pairs[pos_c] == qrels_keys)
            table[pos_c[found]] = idx[found]
        return _matches(table, self.inv, self.shape[2])


#: entries of the rankings looked up at a time by :meth:`_EntryIndex.positions`
_LOOKUP_BLOCK = 1 << 18


def _matches(table: np.ndarray, keys: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where ``table[keys[i]] >= 0``, one block of keys at a time: row ``i // depth`` and rank ``i % depth`` (int32)
    and the value (int64)."""
    rows, ranks, values = [], [], []
    for start in range(0, len(keys), _LOOKUP_BLOCK):
        found = table[keys[start:start + _LOOKUP_BLOCK]]
        hit = np.flatnonzero(found >= 0)
        values.append(found[hit])
        hit += start
        row, rank = np.divmod(hit, depth)
        rows.append(row)
        ranks.append(rank)
    row_type = np.int32 if len(keys) // max(depth, 1) < 2**31 else np.int64  # rows < the number of rankings
    if not rows:
        return np.zeros(0, row_type), np.zeros(0, np.int32), np.zeros(0, np.int64)
    return (np.concatenate(rows, dtype=row_type), np.concatenate(ranks, dtype=np.int32),
            np.concatenate(values, dtype=np.int64))


def _entry_index(collection: Collection) -> _EntryIndex:
    docs = collection.docs
    key = id(docs)
    space = collection.n_topics * len(collection.vocabulary)
    hit = _INDEX_CACHE.get(key)
    if hit is not None and hit.shape == docs.shape and hit.space == space:
        return hit
    index = _EntryIndex(docs, collection.n_topics, len(collection.vocabulary))
    _INDEX_CACHE[key] = index
    try:
        weakref.finalize(docs, _INDEX_CACHE.pop, key, None)
    except TypeError:  # an array that cannot be weakly referenced: the entry lives until replaced
        pass
    return index


@dataclass
class _Entries:
    """The ranked documents that are in the qrels, in (topic, run, rank) order; a *row* is one (topic, run)."""

    row: np.ndarray  # int32 topic * S + run (int64 beyond 2**31 rankings)
    rank: np.ndarray  # int32, 0-based
    q: np.ndarray  # int64 qrels line
    row_first: np.ndarray  # positions where a new row starts
    n_runs: int
    n_topics: int

    @property
    def n_rows(self) -> int:
        return self.n_runs * self.n_topics

    def to_st(self, per_row: np.ndarray) -> np.ndarray:
        """(T*S,) or (T*S, ...) per-row values -> (S, T)."""
        return np.ascontiguousarray(per_row.reshape(self.n_topics, self.n_runs).T)

    def first_of_row(self, at: np.ndarray) -> np.ndarray:
        """Position of the first entry of the ranking of each position in ``at``."""
        return self.row_first[np.searchsorted(self.row_first, at, side="right") - 1]


def _entries(collection: Collection, qrels: JudgedSet, within: "JudgedPositions | None" = None) -> _Entries:
    if within is not None:
        derived = within._entries_for(collection, qrels)
        if derived is not None:
            return derived
    S, T, _ = collection.docs.shape
    row, rank, q = _entry_index(collection).positions(qrels.keys)
    return _Entries(row=row, rank=rank, q=q, row_first=_row_starts(row), n_runs=S, n_topics=T)


def _row_starts(row: np.ndarray) -> np.ndarray:
    """Positions where a new row starts in ``row`` (sorted)."""
    if not len(row):
        return np.zeros(0, np.int64)
    return np.flatnonzero(np.concatenate([[True], row[1:] != row[:-1]]))


class JudgedPositions:
    """Where the documents of one qrels stand in a collection's rankings: every ranked (topic, run, rank) whose
    document is in the qrels, with its qrels line. :func:`judged_positions` finds them with one pass over the
    rankings (6.45 M ranked documents on TREC-8); :func:`inferred_measures` (``within=``) reuses them, instead of
    a pass of its own, for the same qrels or for any qrels whose (topic, doc) pairs are among these: a sample drawn
    from this pool, or from a shallower pool of the same runs (Voorhees 2014's strategies in one trial). Which pairs
    are shared is checked on every use (a qrels with a pair outside them is looked up in full), and the
    positions found either way are the same, in the same order: the measures do not change by a bit.

    Holds the positions (three int64 per match: 55 MB for a depth-100 pool of half TREC-8's judged runs) and
    refers to the collection's ``docs`` array, which must not change in place.
    """

    def __init__(self, collection: Collection, qrels: JudgedSet):
        self._docs = collection.docs
        self._n_docs = qrels.n_docs
        self._keys = qrels.keys
        self._increasing = bool(np.all(self._keys[1:] > self._keys[:-1]))
        self._entries = _entries(collection, qrels)

    def __len__(self) -> int:
        return len(self._entries.q)

    def _entries_for(self, collection: Collection, qrels: JudgedSet) -> _Entries | None:
        """The entries of ``qrels`` taken from these (same lines order as a full lookup gives), or None when the
        collection is another or some (topic, doc) pair of ``qrels`` is not among these."""
        if collection.docs is not self._docs or qrels.n_docs != self._n_docs:
            return None
        keys, own = qrels.keys, self._keys
        if len(keys) == len(own) and np.array_equal(keys, own):
            return self._entries
        if not (self._increasing and len(own)):
            return None
        at = np.minimum(np.searchsorted(own, keys), len(own) - 1)
        if not np.array_equal(own[at], keys):
            return None
        line = np.full(len(own), -1, np.int32)  # own line -> line of qrels (the last one, for a repeated pair)
        line[at] = np.arange(len(keys), dtype=np.int32)
        mapped = line[self._entries.q]
        keep = np.flatnonzero(mapped >= 0)
        e = self._entries
        row = e.row[keep]
        return _Entries(row=row, rank=e.rank[keep], q=mapped[keep].astype(np.int64), row_first=_row_starts(row),
                        n_runs=e.n_runs, n_topics=e.n_topics)


def judged_positions(collection: Collection, qrels=None) -> JudgedPositions:
    """The positions of ``qrels``' documents in the collection's rankings (:class:`JudgedPositions`), to pass to
    :func:`inferred_measures` as ``within=`` for this qrels or any sample of it (same measures, one pass over the
    rankings saved a call). ``qrels`` as in :func:`inferred_measures`."""
    return JudgedPositions(collection, _as_judged(qrels, collection))
