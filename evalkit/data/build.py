"""A collection's dense arrays built from runs and qrels, in threads (:meth:`evalkit.data.collection.Collection.from_runs`).

Four steps; each works on one run, on one group of consecutive runs, or is an exact merge, so the arrays never depend
on the number of threads or on which thread did what:

1. **parse** each run file (:func:`evalkit.data.trec_files.parse_run`: unordered, the duplicate check left to the dense arrays)
   and the qrels file, when given as paths;
2. **encode** each group of consecutive runs: their docnos dictionary-encoded (no Python string per row) band by
   band (:func:`_prepare_group`: one hash table per band of consecutive topics), each run's topics placed in the
   collection's order. A group is encoded as soon as its runs are parsed, so parsing and encoding overlap, and its
   bands are shared out among the threads, so no thread waits while another hashes the last group;
3. **merge** the groups' dictionaries and the qrels' docnos into one sorted vocabulary (byte order, as strcmp), in
   value ranges, one per thread;
4. **place** each run: its docno ids, trec_eval order (:func:`evalkit.data.trec_files.trec_eval_order`, the one place the tie
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

from evalkit.data import native_build
from evalkit.data import text_fields as io
from evalkit.data.built_arrays import BuiltArrays
from evalkit.data.trec_files import Qrels, Run, parse_run, read_qrels, trec_eval_order

__all__ = ["BuiltArrays", "build_arrays"]

#: groups of consecutive runs whose docnos are encoded together, per build thread. Each group's bands are hashed
#: in tables of their own, so the size of a group hardly changes the cost of hashing; more groups start hashing
#: sooner but give the merge more entries (TREC-8, 2 threads, CPU seconds of a whole build, medians of 11: 1, 2 and
#: 4 groups a thread 1.18, 1.18, 1.23)
GROUPS_PER_THREAD = 2

#: dictionaries holding fewer entries than this are merged in one piece (splitting by value costs a pass)
MERGE_SPLIT_MIN = 100_000


def build_threads(n_runs: int) -> int:
    """Threads for a build: one per core, at most one per run (the kernels release the GIL)."""
    return max(1, min(n_runs, os.cpu_count() or 1))


def build_arrays(sources: list, qrels, topics_of, depth: int | None = None, ties: str = "float64",
                 one_tag: bool = False) -> BuiltArrays:
    """The dense arrays of ``sources`` (:class:`Run` objects or run file paths, in the collection's run order)
    against ``qrels`` (a :class:`Qrels` or a qrels file path): steps 1-4 of the module docstring.

    ``topics_of`` maps the qrels to the collection's sorted topic ids (:func:`evalkit.data.collection.sort_topics`).
    ``depth`` (default: the longest ranking) cuts every ranking. A file that cannot be parsed raises its
    :class:`evalkit.errors.TrecFormatError`: the first such file in ``sources``' order (as parsing them one by one
    would), else the qrels' error; nothing is returned half-built. ``one_tag``: refuse a run file whose tag column
    holds more than one value (:func:`evalkit.data.trec_files.parse_run`).

    Regular run files are read by the compiled reader when it is built (:mod:`evalkit.data.native_build`: the same
    arrays, ``reader="native"``); anything it does not take is built here.
    """
    built = native_build.build_arrays(sources, qrels, topics_of, depth, ties, one_tag)
    if built is not None:
        return built
    n_threads = build_threads(len(sources))
    with ThreadPoolExecutor(n_threads) as pool:
        schedule = _Schedule(sources, qrels, topics_of, n_threads * GROUPS_PER_THREAD, n_threads, one_tag)
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
    return BuiltArrays(runs, topics, vocabulary, docs, scores, schedule.qrels_topic_ids, qrels_doc_ids, qrels.grade,
                       qrels.stratum, lines_without_qrels, repeated)


class _Schedule:
    """Steps 1 and 2 for the build's threads: each thread calls :meth:`work`, which takes tasks in this order of
    priority: the qrels file (the encoding needs the topics), a share of a prepared group's bands to hash, a group
    whose runs are all parsed (to prepare: its bands are then shared out in ``n_shares`` tasks, so the last group
    is hashed by every thread), the next run file in order. The thread that hashes a group's last share assembles
    the group.

    After a file fails to parse, files after it are not parsed (the earliest failing file is the one reported) and
    no group is encoded."""

    def __init__(self, sources: list, qrels, topics_of, n_groups: int, n_shares: int = 1, one_tag: bool = False):
        self.sources = sources
        self._one_tag = one_tag
        self.runs: list = [source if isinstance(source, Run) else None for source in sources]
        self.qrels = qrels if isinstance(qrels, Qrels) else None
        self._qrels_path = None if self.qrels is not None else qrels
        self._topics_of = topics_of
        self.topics = self._topic_position = self.qrels_docnos = self.qrels_topic_ids = None
        self.groups = [g.tolist() for g in np.array_split(np.arange(len(sources)), min(n_groups, len(sources)))]
        self.encoded: list = [None] * len(self.groups)
        self._group_of = {i: g for g, group in enumerate(self.groups) for i in group}
        self._unparsed = [sum(self.runs[i] is None for i in group) for group in self.groups]
        self._ready = [g for g, n in enumerate(self._unparsed) if n == 0]  # groups of Run objects only
        self._n_shares = n_shares
        self._shares: list = []  # (group, share number, bands) to hash
        self._prepared: list = [None] * len(self.groups)  # per group being encoded, its _PreparedGroup
        self._hashed: list = [None] * len(self.groups)  # ... and its shares' hashed bands, by share number
        self._next_file = 0
        self._errors: dict[int, BaseException] = {}
        self._qrels_error: BaseException | None = None
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # notified when a task ends
        self._working = 0  # threads running a task
        if self.qrels is not None:
            self._set_topics(self.qrels)

    def _set_topics(self, qrels: Qrels) -> None:
        """The qrels' topics (in the collection's order), their positions, each qrels line's topic position and the
        docnos encoded: set together, under the lock, ``topics`` last, so a thread that sees the topics sees the
        rest."""
        topics = self._topics_of(qrels.topic)
        position = {topic: i for i, topic in enumerate(topics)}
        topic_ids, _ = _topic_codes(_to_arrow(qrels.topic), position, len(topics))
        docnos = pc.dictionary_encode(_to_arrow(qrels.docno), memory_pool=io.ARROW_POOL)
        with self._lock:
            self.qrels, self._topic_position, self.qrels_docnos = qrels, position, docnos
            self.qrels_topic_ids = topic_ids
            self.topics = topics

    def _next_task(self):
        """The next task by priority, or None if there is none now (called under the lock)."""
        if self._qrels_path is not None:
            path, self._qrels_path = self._qrels_path, None
            return self._read_qrels, (path,)
        failed = min(self._errors, default=len(self.sources))
        if self._shares and not self._errors:
            return self._hash_share, self._shares.pop(0)
        if self._ready and not self._errors and self.topics is not None:
            return self._prepare, (self._ready.pop(0),)
        while self._next_file < min(len(self.sources), failed) and self.runs[self._next_file] is not None:
            self._next_file += 1
        if self._next_file < min(len(self.sources), failed):
            self._next_file += 1
            return self._parse, (self._next_file - 1,)
        return None

    def work(self) -> None:
        """Take tasks until none is left. A thread with nothing to take waits while another thread works (a parse,
        the qrels or a prepared group can make new tasks) and stops when no thread does."""
        while True:
            with self._changed:
                while (task := self._next_task()) is None and self._working:
                    self._changed.wait()
                if task is None:  # and no thread works: no task can come (the others were notified as it ended)
                    return
                self._working += 1
            try:
                function, arguments = task
                function(*arguments)
            finally:
                with self._changed:
                    self._working -= 1
                    self._changed.notify_all()

    def _read_qrels(self, path) -> None:
        try:
            self._set_topics(read_qrels(path))
        except Exception as exc:  # noqa: BLE001 - reported after the runs' errors, as a serial read would
            self._qrels_error = exc

    def _parse(self, i: int) -> None:
        try:
            run = parse_run(self.sources[i], check_duplicates=False, one_tag=self._one_tag)
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

    def _prepare(self, g: int) -> None:
        prepared = _prepare_group([self.runs[i] for i in self.groups[g]], self._topic_position, len(self.topics))
        shares = prepared.shares(self._n_shares)
        with self._lock:
            self._prepared[g], self._hashed[g] = prepared, [None] * len(shares)
            self._shares.extend((g, j, bands) for j, bands in enumerate(shares))

    def _hash_share(self, g: int, j: int, bands: range) -> None:
        hashed = _hash_bands(self._prepared[g], bands)
        with self._lock:
            self._hashed[g][j] = hashed  # a list, even of no bands: None only while the share is not hashed
            last = all(share is not None for share in self._hashed[g])
        if last:  # every share of the group is hashed: this thread puts them together
            self._set_encoded(g, _assemble_group(self._prepared[g], self._hashed[g]))

    def _set_encoded(self, g: int, part: "_EncodedGroup") -> None:
        for k, i in enumerate(self.groups[g]):  # the string columns are encoded: the build lets them go
            part.runs[k] = self.runs[i] = _without_strings(self.runs[i])  # (a caller's own Run is left as it is)
        self.encoded[g] = part
        self._prepared[g] = self._hashed[g] = None

    def finish(self) -> None:
        """After the threads: raise the first error (the earliest run file's, else the qrels file's). Without one,
        every group is encoded: a thread stops only when no task is left and no other thread is working."""
        if self._errors:
            raise self._errors[min(self._errors)]
        if self._qrels_error is not None:
            raise self._qrels_error
        missing = [g for g, part in enumerate(self.encoded) if part is None]
        if missing:  # a bug, not an input: say so rather than return arrays without these runs
            raise RuntimeError(f"evalkit.data.build: groups {missing} were not encoded")


def _to_arrow(column) -> pa.Array:
    """A string column as one ``pa.string()`` array, whatever it came as (numpy, pandas 3's arrow-backed strings
    and pyarrow's large_string or string_view all end up the same type, so they can be concatenated)."""
    if isinstance(column, pa.ChunkedArray):
        column = io.one_array(column)
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


@dataclass
class _PreparedGroup:
    """A group's runs ready to be hashed band by band (:func:`_prepare_group`): per run its topic codes and rows
    per topic, its docnos (sorted by band, with the sorting permutation, when its topics are not in the
    collection's order) and where each band starts."""

    runs: list
    n_bands: int
    topic_codes: list  # per run, int64 topic positions, -1 outside the qrels' topics
    topic_counts: list  # per run, (T + 1,) its rows without qrels, then its rows of each topic
    docnos: list  # per run, pa.string, rows in band order
    orders: list  # per run, None (rows already in band order) or the permutation that sorted them
    bounds: np.ndarray  # (runs, n_bands + 1): where each band's rows start in each run

    def shares(self, n_shares: int) -> list[range]:
        """The bands cut into at most ``n_shares`` consecutive ranges of about equal rows (none empty)."""
        rows = np.cumsum(np.diff(self.bounds, axis=1).sum(axis=0))
        cuts = np.searchsorted(rows, rows[-1] * np.arange(1, n_shares) / n_shares, side="right") if len(rows) else []
        edges = sorted({0, self.n_bands, *(int(c) for c in cuts)})
        return [range(lo, hi) for lo, hi in zip(edges[:-1], edges[1:]) if hi > lo]


def _prepare_group(runs: list[Run], topic_position: dict, n_topics: int) -> _PreparedGroup:
    """Step 2 for a group, before hashing: each run's topics placed in the collection's order, its rows cut into
    bands (:func:`_topic_bands`: consecutive topics of the collection, about ``BAND_ROWS`` rows of the group each,
    then the rows of topics without qrels).

    Each band's docnos are then hashed in a table of their own (:func:`_hash_bands`). A topic's documents are mostly
    its own, so the bands' tables are small, where one table for a group's distinct docnos is not (TREC-8: 190 k to
    240 k in each of 4 groups); and the bands can be shared out among threads. A docno of several bands is an entry
    of each band's dictionary (the group's dictionary is the bands' end to end, :func:`_assemble_group`); the merge
    gives all of them one id. TREC-8, 2 threads, medians of 11 builds in one process: one table per group of 16
    runs, 0.73 s and 1.28 CPU-s; bands shared out, 0.67 s and 1.20."""
    topic_codes, topic_counts = zip(*[_topic_codes(_to_arrow(run.topic), topic_position, n_topics) for run in runs])
    band_of_topic = _topic_bands(n_topics, sum(len(codes) for codes in topic_codes))
    n_bands = int(band_of_topic[-1]) + 1  # the last entry, for topic code -1, is the band of rows without qrels
    docnos, orders, bounds = [], [], []
    for run, codes in zip(runs, topic_codes):
        band = band_of_topic[codes]
        docno = _to_arrow(run.docno)
        order = None
        if len(band) > 1 and (band[1:] < band[:-1]).any():  # topics not in the collection's order: sorted by band
            order = np.argsort(band, kind="stable")
            band, docno = band[order], docno.take(pa.array(order))
        docnos.append(docno)
        orders.append(order)
        bounds.append(np.searchsorted(band, np.arange(n_bands + 1)))
    bounds = np.stack(bounds) if bounds else np.zeros((0, n_bands + 1), np.int64)
    return _PreparedGroup(list(runs), n_bands, list(topic_codes), list(topic_counts), docnos, orders, bounds)


def _hash_bands(prepared: _PreparedGroup, bands: range) -> list:
    """Per band of ``bands`` that has rows: (band, its dictionary (first-seen order), per run with rows in the band
    (run, the rows' int32 codes into that dictionary))."""
    hashed = []
    for b in bands:
        starts, ends = prepared.bounds[:, b], prepared.bounds[:, b + 1]
        present = np.flatnonzero(ends > starts).tolist()
        if not present:
            continue
        chunks = [prepared.docnos[k].slice(starts[k], ends[k] - starts[k]) for k in present]
        encoded = pc.dictionary_encode(pa.chunked_array(chunks, pa.string()), memory_pool=io.ARROW_POOL)
        codes = [(k, io.primitive_values(chunk.indices))  # no chunk is empty, so none is dropped
                 for k, chunk in zip(present, encoded.chunks, strict=True)]
        hashed.append((b, encoded.chunk(encoded.num_chunks - 1).dictionary, codes))
    return hashed


def _assemble_group(prepared: _PreparedGroup, shares: list[list]) -> _EncodedGroup:
    """The group's dictionary (the bands' dictionaries end to end, in band order) and each run's codes into it, in
    the run's own row order, from the hashed ``shares`` (:func:`_hash_bands` of consecutive band ranges, in order)."""
    pieces: list[list] = [[] for _ in prepared.runs]  # per run, (codes, offset of their band's dictionary)
    dictionaries, offset = [], 0
    for _, dictionary, codes in (band for share in shares for band in share):
        for k, ids in codes:
            pieces[k].append((ids, offset))
        dictionaries.append(dictionary)
        offset += len(dictionary)
    doc_codes = []
    for k, run_pieces in enumerate(pieces):
        if not run_pieces:
            doc_codes.append(np.zeros(0, np.int32))
            continue
        ids = np.concatenate([codes for codes, _ in run_pieces])
        ids += np.repeat(np.array([start for _, start in run_pieces], np.int32), [len(c) for c, _ in run_pieces])
        if prepared.orders[k] is not None:  # back to the run's own row order
            in_file_order = np.empty_like(ids)
            in_file_order[prepared.orders[k]] = ids
            ids = in_file_order
        doc_codes.append(ids)
    group_sizes = [counts[1:] for counts in prepared.topic_counts]
    outside = [int(counts[0]) for counts in prepared.topic_counts]
    dictionary = pa.concat_arrays(dictionaries) if dictionaries else pa.array([], pa.string())
    return _EncodedGroup(prepared.runs, dictionary, doc_codes, prepared.topic_codes, group_sizes, outside)


#: rows of a group hashed in one table (a band of consecutive topics), about. TREC-8 (1000 rows a topic, 32 runs a
#: group): bands of 16 k to 262 k rows built in the same time, within noise (CPU seconds of a build 1.18-1.19)
BAND_ROWS = 65_536


def _topic_bands(n_topics: int, n_rows: int) -> np.ndarray:
    """(n_topics + 1,) int64: the band of each topic position, consecutive topics together, about ``BAND_ROWS``
    rows a band if the rows are spread evenly; the last entry (indexed by topic code -1) is one more band, for the
    rows of topics without qrels."""
    n_bands = int(min(max(n_topics, 1), max(1, -(-n_rows // BAND_ROWS))))
    return np.append(np.arange(n_topics, dtype=np.int64) * n_bands // max(n_topics, 1), n_bands)


#: a run whose topic changes more often than once in this many rows is encoded by hashing its topics instead
TOPIC_BLOCK_MIN = 8


def _topic_codes(topic: pa.Array, topic_position: dict, n_topics: int) -> tuple[np.ndarray, np.ndarray]:
    """(n,) int64: each row's topic as its position in the collection, -1 for a topic without qrels; and
    (n_topics + 1,) int64: the rows of each topic position, after the rows without qrels (first).

    A run lists each topic's documents together (in nearly every file), so the rows form blocks of one topic: the
    blocks are found by comparing each row's topic with the next (no hashing), and each block's topic is looked up
    once. A run whose topics change more often than once every ``TOPIC_BLOCK_MIN`` rows is dictionary-encoded."""
    n = len(topic)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(n_topics + 1, np.int64)
    changes = pc.not_equal(topic.slice(1), topic.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    starts = np.concatenate([[0], np.flatnonzero(changes) + 1])
    if len(starts) * TOPIC_BLOCK_MIN > n:
        encoded = topic.dictionary_encode()
        positions = np.array([topic_position.get(t, -1) for t in encoded.dictionary.to_pylist()], np.int64)
        codes = positions[encoded.indices.to_numpy(zero_copy_only=False)]
        return codes, np.bincount(codes + 1, minlength=n_topics + 1)
    positions = np.array([topic_position.get(t, -1) for t in topic.take(pa.array(starts)).to_pylist()], np.int64)
    lengths = np.diff(np.append(starts, n))
    counts = np.zeros(n_topics + 1, np.int64)
    np.add.at(counts, positions + 1, lengths)  # a topic may have several blocks
    return np.repeat(positions, lengths), counts


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
    trec_eval order (:func:`evalkit.data.trec_files.trec_eval_order`), cut at the width, padded with -1 / NaN. Returns (T,) bool:
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
