"""A collection's dense arrays built from runs and qrels, in threads (:meth:`evalkit.collection.Collection.from_runs`).

Four steps; each works on one run, on one group of consecutive runs, or is an exact merge, so the arrays never depend
on the number of threads or on which thread did what:

1. **parse** each run file (:func:`evalkit.io.parse_run`: unordered, the duplicate check left to the dense arrays)
   and the qrels file, when given as paths;
2. **encode** each group of consecutive runs: their docnos dictionary-encoded together (one hash table, no Python
   string per row), each run's topics placed in the collection's order. A group is encoded as soon as its runs are
   parsed, by whichever thread parsed its last file, so parsing and encoding overlap: no thread waits for the
   slowest file of all before hashing starts;
3. **merge** the groups' dictionaries and the qrels' docnos into one sorted vocabulary (byte order, as strcmp), in
   value ranges, one per thread;
4. **place** each run: its docno ids, trec_eval order (:func:`evalkit.io.trec_eval_order`, the one place the tie
   rule lives), its rows of the dense arrays.

The kernels (gzip, pyarrow's CSV reader and hash tables, numpy sorts) release the GIL, so two threads use two cores.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import io
from .io import Qrels, Run, parse_run, read_qrels, trec_eval_order

__all__ = ["BuiltArrays", "build_arrays"]

#: groups of consecutive runs whose docnos are encoded together, per build thread. Smaller groups hash faster (their
#: tables stay in a core's cache), overlap better with parsing and balance the threads, while the merge costs more
#: with each group (TREC-8, 2 threads, CPU seconds encode + merge: 2 groups a thread 0.64 + 0.18, 4: 0.48 + 0.20,
#: 8: 0.43 + 0.23)
GROUPS_PER_THREAD = 4

#: dictionaries holding fewer entries than this are merged in one piece (splitting by value costs a pass)
MERGE_SPLIT_MIN = 100_000


@dataclass
class BuiltArrays:
    """What :func:`build_arrays` gives :meth:`Collection.from_runs`: the parsed runs and qrels (for names and error
    messages), the topics (the qrels', sorted), the sorted vocabulary, the dense ``docs`` and ``scores``, the qrels'
    doc ids, per run the lines whose topic has no qrels, and (S, T) the rankings that hold a document twice."""

    runs: list
    qrels: Qrels
    topics: np.ndarray
    vocabulary: np.ndarray
    docs: np.ndarray
    scores: np.ndarray
    qrels_doc_ids: np.ndarray
    lines_without_qrels: np.ndarray
    repeated: np.ndarray


def build_threads(n_runs: int) -> int:
    """Threads for a build: one per core, at most one per run (the kernels release the GIL)."""
    return max(1, min(n_runs, os.cpu_count() or 1))


def build_arrays(sources: list, qrels, topics_of, depth: int | None = None, ties: str = "float64") -> BuiltArrays:
    """The dense arrays of ``sources`` (:class:`Run` objects or run file paths, in the collection's run order)
    against ``qrels`` (a :class:`Qrels` or a qrels file path): steps 1-4 of the module docstring.

    ``topics_of`` maps the qrels to the collection's sorted topic ids (:func:`evalkit.collection.sort_topics`).
    ``depth`` (default: the longest ranking) cuts every ranking. A file that cannot be parsed raises its
    :class:`evalkit.errors.TrecFormatError`: the first such file in ``sources``' order (as parsing them one by one
    would), else the qrels' error; nothing is returned half-built.
    """
    n_threads = build_threads(len(sources))
    with ThreadPoolExecutor(n_threads) as pool:
        schedule = _Schedule(sources, qrels, topics_of, n_threads * GROUPS_PER_THREAD)
        workers = [pool.submit(schedule.work) for _ in range(n_threads)]
        for worker in workers:
            worker.result()
        schedule.finish()
        runs, qrels, topics, encoded = schedule.runs, schedule.qrels, schedule.topics, schedule.encoded
        qrels_encoded = schedule.qrels_docnos
        vocabulary, remaps = _merge_dictionaries([part.dictionary for part in encoded] + [qrels_encoded.dictionary],
                                                pool, n_threads)
        qrels_doc_ids = remaps[-1][qrels_encoded.indices.to_numpy(zero_copy_only=False)]
        per_run = [(part, remaps[g], k) for g, part in enumerate(encoded) for k in range(len(part.runs))]
        sizes = np.stack([part.group_sizes[k] for part, _, k in per_run])  # (S, T) rows with a qrels topic
        width = int(sizes.max(initial=1)) if depth is None else int(depth)
        docs = np.empty((len(runs), len(topics), width), np.int32)
        scores = np.empty((len(runs), len(topics), width), np.float64)

        def place(s: int) -> np.ndarray:
            part, remap, k = per_run[s]
            return _place_run(part, k, remap, docs[s], scores[s], ties)

        repeated = np.stack(list(pool.map(place, range(len(runs)))))
    lines_without_qrels = np.array([part.outside[k] for part, _, k in per_run], np.int64)
    return BuiltArrays(runs, qrels, topics, vocabulary, docs, scores, qrels_doc_ids, lines_without_qrels, repeated)


class _Schedule:
    """Steps 1 and 2 for the build's threads: each thread calls :meth:`work`, which takes tasks until none is left,
    in this order of priority: the qrels file (the encoding needs the topics), a group whose runs are all parsed
    (the merge waits for every group), the next run file in order.

    After a file fails to parse, files after it are not parsed (the earliest failing file is the one reported) and
    no group is encoded."""

    def __init__(self, sources: list, qrels, topics_of, n_groups: int):
        self.sources = sources
        self.runs: list = [source if isinstance(source, Run) else None for source in sources]
        self.qrels = qrels if isinstance(qrels, Qrels) else None
        self._qrels_path = None if self.qrels is not None else qrels
        self._topics_of = topics_of
        self.topics = self._topic_position = self.qrels_docnos = None
        self.groups = [g.tolist() for g in np.array_split(np.arange(len(sources)), min(n_groups, len(sources)))]
        self.encoded: list = [None] * len(self.groups)
        self._group_of = {i: g for g, group in enumerate(self.groups) for i in group}
        self._unparsed = [sum(self.runs[i] is None for i in group) for group in self.groups]
        self._ready = [g for g, n in enumerate(self._unparsed) if n == 0]  # groups of Run objects only
        self._next_file = 0
        self._errors: dict[int, BaseException] = {}
        self._qrels_error: BaseException | None = None
        self._lock = threading.Lock()
        if self.qrels is not None:
            self._set_topics(self.qrels)

    def _set_topics(self, qrels: Qrels) -> None:
        """The qrels' topics (in the collection's order), their positions and docnos: set together, under the lock,
        ``topics`` last, so a thread that sees the topics sees the rest."""
        topics = self._topics_of(qrels.topic)
        position = {topic: i for i, topic in enumerate(topics)}
        docnos = pc.dictionary_encode(_to_arrow(qrels.docno), memory_pool=io.ARROW_POOL)
        with self._lock:
            self.qrels, self._topic_position, self.qrels_docnos = qrels, position, docnos
            self.topics = topics

    def _take(self):
        with self._lock:
            if self._qrels_path is not None:
                path, self._qrels_path = self._qrels_path, None
                return self._read_qrels, (path,)
            failed = min(self._errors, default=len(self.sources))
            if self._ready and not self._errors and self.topics is not None:
                return self._encode, (self._ready.pop(0),)
            while self._next_file < min(len(self.sources), failed) and self.runs[self._next_file] is not None:
                self._next_file += 1
            if self._next_file < min(len(self.sources), failed):
                self._next_file += 1
                return self._parse, (self._next_file - 1,)
            return None  # (ready groups waiting for the qrels are encoded by the thread reading them)

    def work(self) -> None:
        while (task := self._take()) is not None:
            function, arguments = task
            function(*arguments)

    def _read_qrels(self, path) -> None:
        try:
            self._set_topics(read_qrels(path))
        except Exception as exc:  # noqa: BLE001 - reported after the runs' errors, as a serial read would
            self._qrels_error = exc

    def _parse(self, i: int) -> None:
        try:
            run = parse_run(self.sources[i], check_duplicates=False)
        except Exception as exc:  # noqa: BLE001 - re-raised by finish() in the caller's thread
            with self._lock:
                self._errors[i] = exc
            return
        with self._lock:
            self.runs[i] = run
            g = self._group_of[i]
            self._unparsed[g] -= 1
            if self._unparsed[g] == 0:
                self._ready.append(g)

    def _encode(self, g: int) -> None:
        part = _encode_group([self.runs[i] for i in self.groups[g]], self._topic_position, len(self.topics))
        for k, i in enumerate(self.groups[g]):  # the string columns are encoded: the build lets them go
            part.runs[k] = self.runs[i] = _without_strings(self.runs[i])  # (a caller's own Run is left as it is)
        self.encoded[g] = part

    def finish(self) -> None:
        """After the threads: raise the first error (the earliest run file's, else the qrels file's), else encode
        any group left (one made ready while the qrels were being read, after the other thread had stopped)."""
        if self._errors:
            raise self._errors[min(self._errors)]
        if self._qrels_error is not None:
            raise self._qrels_error
        for g in range(len(self.groups)):  # groups made ready while the qrels were being read
            if self.encoded[g] is None:
                self._encode(g)


def _to_arrow(column) -> pa.Array:
    """A string column as one ``pa.string()`` array, whatever it came as (numpy, pandas 3's arrow-backed strings
    and pyarrow's large_string or string_view all end up the same type, so they can be concatenated)."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if not isinstance(column, pa.Array):
        column = pa.array(np.asarray(column, dtype=object), pa.string())
    return column if column.type == pa.string() else column.cast(pa.string())


@dataclass
class _EncodedGroup:
    """Consecutive runs encoded together: their docnos as ids into ``dictionary`` (in first-seen order, not
    sorted), each run's topic positions in the collection (-1: a topic without qrels), its rows per topic."""

    runs: list
    dictionary: pa.Array
    doc_codes: list  # per run, int32 ids into ``dictionary``
    topic_codes: list  # per run, int64 topic positions, -1 outside the qrels' topics
    group_sizes: list  # per run, (T,) rows of each topic
    outside: list  # per run, rows whose topic has no qrels


def _without_strings(run: Run) -> Run:
    """``run`` without its topic and docno columns (empty), once they are encoded: freed during the build, their
    memory is reused for the files still to parse instead of fresh pages (TREC-8: about 150 MB of strings)."""
    empty = pa.array([], pa.string())
    return Run(name=run.name, topic=empty, docno=empty, score=run.score, ordered=run.ordered, source=run.source)


def _encode_group(runs: list[Run], topic_position: dict, n_topics: int) -> _EncodedGroup:
    """Dictionary-encode the docnos of ``runs`` together (one hash table, no Python strings) and place each run's
    topics in the collection's order: the part of a build that needs no other group."""
    encoded = pc.dictionary_encode(pa.chunked_array([_to_arrow(r.docno) for r in runs], pa.string()),
                                 memory_pool=io.ARROW_POOL)
    dictionary = encoded.chunk(encoded.num_chunks - 1).dictionary if encoded.num_chunks else pa.array([], pa.string())
    indices = (np.concatenate([chunk.indices.to_numpy(zero_copy_only=False) for chunk in encoded.chunks])
               if encoded.num_chunks else np.zeros(0, np.int32))
    offsets = np.cumsum([0] + [len(r) for r in runs])
    doc_codes, topic_codes, group_sizes, outside = [], [], [], []
    for k, run in enumerate(runs):
        doc_codes.append(indices[offsets[k]: offsets[k + 1]])
        codes = _topic_codes(_to_arrow(run.topic), topic_position)
        topic_codes.append(codes)
        counts = np.bincount(codes + 1, minlength=n_topics + 1)
        group_sizes.append(counts[1:])
        outside.append(int(counts[0]))
    return _EncodedGroup(runs, dictionary, doc_codes, topic_codes, group_sizes, outside)


#: a run whose topic changes more often than once in this many rows is encoded by hashing its topics instead
TOPIC_BLOCK_MIN = 8


def _topic_codes(topic: pa.Array, topic_position: dict) -> np.ndarray:
    """(n,) int64: each row's topic as its position in the collection, -1 for a topic without qrels.

    A run lists each topic's documents together (in nearly every file), so the rows form blocks of one topic: the
    blocks are found by comparing each row's topic with the next (no hashing), and each block's topic is looked up
    once. A run whose topics change more often than once every ``TOPIC_BLOCK_MIN`` rows is dictionary-encoded."""
    n = len(topic)
    if n == 0:
        return np.zeros(0, np.int64)
    changes = pc.not_equal(topic.slice(1), topic.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    starts = np.concatenate([[0], np.flatnonzero(changes) + 1])
    if len(starts) * TOPIC_BLOCK_MIN > n:
        encoded = topic.dictionary_encode()
        positions = np.array([topic_position.get(t, -1) for t in encoded.dictionary.to_pylist()], np.int64)
        return positions[encoded.indices.to_numpy(zero_copy_only=False)]
    positions = np.array([topic_position.get(t, -1) for t in topic.take(pa.array(starts)).to_pylist()], np.int64)
    return np.repeat(positions, np.diff(np.append(starts, n)))


def _merge_dictionaries(dictionaries: list[pa.Array], pool: ThreadPoolExecutor | None = None,
                        n_parts: int = 1) -> tuple[np.ndarray, list[np.ndarray]]:
    """The sorted vocabulary of the strings in ``dictionaries`` and, per dictionary, the int32 id (position in the
    vocabulary, so id order is docno order: byte-wise, as strcmp) of each of its entries.

    With a ``pool`` and ``n_parts`` > 1 the strings are split by value into ranges at pivots taken from the
    entries themselves (every part's strings sort before the next part's), each range merged in its own thread, and
    the parts' vocabularies concatenated: the same vocabulary and ids as one merge, whatever the pivots."""
    total = sum(len(d) for d in dictionaries)
    if pool is None or n_parts <= 1 or total < max(MERGE_SPLIT_MIN, 1):
        return _merge_in_one(dictionaries)
    pivots = _pivots(dictionaries, n_parts)
    parts_of = [_part_numbers(d, pivots) for d in dictionaries]
    merged = list(pool.map(lambda part: _merge_in_one([d.filter(pa.array(parts == part))
                                                       for d, parts in zip(dictionaries, parts_of)]),
                           range(len(pivots) + 1)))
    offsets = np.cumsum([0] + [len(vocabulary) for vocabulary, _ in merged])
    remaps = []
    for i, parts in enumerate(parts_of):
        ids = np.empty(len(parts), np.int32)
        for part, (_, part_remaps) in enumerate(merged):
            ids[parts == part] = part_remaps[i] + offsets[part]
        remaps.append(ids)
    return np.concatenate([vocabulary for vocabulary, _ in merged]), remaps


def _merge_in_one(dictionaries: list[pa.Array]) -> tuple[np.ndarray, list[np.ndarray]]:
    """(sorted union as a numpy object array, per dictionary the id of each entry in it)."""
    encoded = pc.dictionary_encode(pa.chunked_array(dictionaries, pa.string()), memory_pool=io.ARROW_POOL)
    union = encoded.chunk(encoded.num_chunks - 1).dictionary if encoded.num_chunks else pa.array([], pa.string())
    order = pc.sort_indices(union, memory_pool=io.ARROW_POOL).to_numpy()
    rank = np.empty(len(order), np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    indices = [chunk.indices.to_numpy(zero_copy_only=False) for chunk in encoded.chunks]  # empty chunks may be gone
    ids = rank[np.concatenate(indices)] if indices else np.zeros(0, np.int32)
    remaps = np.split(ids, np.cumsum([len(d) for d in dictionaries])[:-1])
    return np.asarray(union.take(pa.array(order)).to_numpy(zero_copy_only=False), dtype=object), remaps


def _pivots(dictionaries: list[pa.Array], n_parts: int, sample: int = 4096) -> list[str]:
    """``n_parts - 1`` distinct strings cutting a sample of the entries (every k-th of each dictionary, so the
    choice is deterministic) into ranges of about equal size."""
    total = sum(len(d) for d in dictionaries)
    step = max(1, total // sample)
    picked = pa.concat_arrays([d.take(pa.array(np.arange(0, len(d), step))) for d in dictionaries if len(d)])
    ordered = picked.take(pc.sort_indices(picked)).to_pylist()
    cuts = sorted({ordered[len(ordered) * k // n_parts] for k in range(1, n_parts)})
    return [c for c in cuts if c > ordered[0]] or [ordered[len(ordered) // 2]]


def _part_numbers(dictionary: pa.Array, pivots: list[str]) -> np.ndarray:
    """(len,) int8: the range each entry falls in (the number of pivots at or below it)."""
    parts = np.zeros(len(dictionary), np.int8)
    for pivot in pivots:
        parts += pc.greater_equal(dictionary, pivot).to_numpy(zero_copy_only=False)
    return parts


def _place_run(part: _EncodedGroup, k: int, remap: np.ndarray, docs: np.ndarray, scores: np.ndarray,
               ties: str = "float64") -> np.ndarray:
    """Write run ``k`` of ``part`` into its (T, width) rows ``docs`` and ``scores``: each topic's ranking in
    trec_eval order (:func:`evalkit.io.trec_eval_order`), cut at the width, padded with -1 / NaN. Returns (T,) bool:
    the topics whose ranking holds a document twice."""
    run = part.runs[k]
    codes, doc_ids = part.topic_codes[k], remap[part.doc_codes[k]]
    row_scores = np.asarray(run.score, np.float64)
    if part.outside[k]:  # lines of topics without qrels: counted (runs_info), not placed
        keep = codes >= 0
        codes, doc_ids, row_scores = codes[keep], doc_ids[keep], row_scores[keep]
    order = trec_eval_order(codes, row_scores, doc_ids, ties=ties)
    if order is not None:
        codes, doc_ids, row_scores = codes[order], doc_ids[order], row_scores[order]
    sizes = part.group_sizes[k]
    width = docs.shape[1]
    if (sizes == width).all():  # every topic's ranking exactly fills its row (most TREC runs): rows in order
        docs.reshape(-1)[:] = doc_ids
        scores.reshape(-1)[:] = row_scores
    else:
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        rank = np.arange(len(codes)) - starts[codes]
        short = sizes < width
        docs[short] = -1  # rows the ranking does not fill: padded first, then written
        scores[short] = np.nan
        if (rank >= width).any():
            kept = rank < width
            codes, rank, doc_ids, row_scores = codes[kept], rank[kept], doc_ids[kept], row_scores[kept]
        cells = codes * width + rank  # flat positions: one 1-d scatter per array instead of a 2-d fancy index
        docs.reshape(-1)[cells] = doc_ids
        scores.reshape(-1)[cells] = row_scores
    ordered = np.sort(docs, axis=1)
    return ((ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0)).any(axis=1)
