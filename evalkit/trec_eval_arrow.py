"""A run file read by pyarrow's C++ CSV reader and judged by a hash join, for many runs in one process.

Used by the ``trec_eval`` command line when it evaluates several runs (pyarrow's import, about 0.1 s, is paid
once); a single run goes through :mod:`evalkit.trec_eval_rankings`'s numpy/bytes reader. Only regular files take
this path (:func:`evalkit.io._fast_fields`: one delimiter, six fields on every line, no blank or comment line,
finite scores, UTF-8); :func:`read_run` returns None for any other file and the caller reads it the general way,
which also names the line of any error. A document listed twice in a topic also sends the run down that way.
Results are the same as the general path's (the same ranking and judgments; checked by the TREC-8 tests).
"""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .io import _fast_fields
from .trec_eval_rankings import RELVALUE_NONPOOL, Qrels, read_input


class ArrowRun:
    """A run's columns as arrow arrays; ``lookup`` and ``docnos_at`` are what ``trec_eval_rankings.rank`` asks."""

    def __init__(self, name: str, qid: pa.Array, docno: pa.Array, scores: np.ndarray, runid: str):
        self.name, self.qid, self.docno, self.scores, self.runid = name, qid, docno, scores, runid

    def lookup(self, qrels: Qrels) -> tuple[list, np.ndarray, np.ndarray, list]:
        encoded = pc.dictionary_encode(self.qid)
        names = [t.encode() for t in encoded.dictionary.to_pylist()]
        order = sorted(range(len(names)), key=names.__getitem__)  # strcmp order of the UTF-8 bytes
        remap = np.empty(len(names), np.int64)
        remap[order] = np.arange(len(names))
        topic_ids = remap[encoded.indices.to_numpy()]
        run_topics = [names[i] for i in order]
        keys_run = pc.binary_join_element_wise(self.qid, self.docno, " ")
        keys, grades = _qrels_keys(qrels)
        where = pc.index_in(keys_run, value_set=keys)
        found = where.is_valid().to_numpy(zero_copy_only=False)
        index = where.fill_null(0).to_numpy()
        row_grades = np.where(found, grades[index], RELVALUE_NONPOOL)
        qrels_index = qrels.index()
        kept = [i for i, t in enumerate(run_topics) if t in qrels_index]
        return run_topics, topic_ids, row_grades, kept

    def docnos_at(self, rows: np.ndarray) -> list:
        return self.docno.take(pa.array(rows)).to_pylist()  # str: code point order is UTF-8 byte order


def prepare(qrels: Qrels) -> None:
    """Build the qrels' join keys once, before runs are read in parallel threads."""
    _qrels_keys(qrels)


def _qrels_keys(qrels: Qrels) -> tuple[pa.Array, np.ndarray]:
    cached = getattr(qrels, "_arrow_keys", None)
    if cached is None:
        keys, grades = [], []
        for topic, table in zip(qrels.topics, qrels.judged):
            keys.extend(topic + b" " + d for d in table)
            grades.extend(table.values())
        cached = (pa.array([k.decode() for k in keys], pa.string()), np.array(grades, np.int64))
        qrels._arrow_keys = cached
    return cached


def read_run(path: os.PathLike | str) -> ArrowRun | None:
    """The run if it is regular, UTF-8 and without a repeated (topic, docno); else None."""
    name, data = read_input(path)
    if not data.strip() or b"\x00" in data:
        return None
    fields = _fast_fields(data, (6,), (4,))
    if fields is None:
        return None
    qid, docno, score, runid = fields.columns[0], fields.columns[2], fields.columns[4], fields.columns[5]
    keys = pc.binary_join_element_wise(qid, docno, " ")
    if pc.count_distinct(keys).as_py() != len(keys):
        return None
    return ArrowRun(name, qid, docno, score.to_numpy(zero_copy_only=False).astype(np.float64),
                    runid[len(runid) - 1].as_py())
