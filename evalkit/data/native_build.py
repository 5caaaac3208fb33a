"""The collection build through the compiled reader (issue 30, part 4b: the build within twice the CPU seconds of
decompressing the files and scanning their newlines).

:mod:`evalkit.data._native_runs` (C, built at install when a compiler is at hand; ``pip install`` works without
one) reads *regular* run files: each file's fields in one pass, then the docnos hashed topic by topic across the
runs, one sorted vocabulary, each ranking ordered and placed (its source says why in that order), where the
pure-Python build (:mod:`evalkit.data.build`) tokenizes with pyarrow and converts, hashes, merges and orders column
by column. Regular means
every line six non-empty fields between one delimiter (the same space or tab throughout), ASCII, no NUL, ``\\r``,
``\\v`` or ``\\f``, no blank or comment line, every score wholly a finite decimal number. :func:`build_arrays`
returns None for anything else (a file that is not regular, a refused tag column, ``Run`` objects, standard input,
an unreadable qrels file) and the caller builds with the pure-Python build, which reads every layout the kit reads
and names each error by file and line: this module never decides what is an error. Both give the same arrays,
byte for byte (tests/test_native_build.py). A regular qrels file (4 or 5 fields a line between one delimiter, ASCII,
integer grades and strata of at most 9 digits) is read by the compiled reader too; any other by the pure-Python
reader, with every check.

``EVALKIT_NATIVE=0`` in the environment turns the compiled reader off (for comparisons and bug hunts)."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalkit.data.built_arrays import BuiltArrays
from evalkit.data.text_fields import GZIP_MAGIC, STDIN, inflate, is_gzip, read_bytes, source_name
from evalkit.data.trec_files import TIE_MODES, Qrels, Run, name_from_file, read_qrels_columns
from evalkit.errors import TrecFormatError

try:
    from evalkit.data import _native_runs
except ImportError:  # built without a compiler: the pure-Python build does everything
    _native_runs = None

try:  # ISA-L's streaming inflater: a file decompressed piece by piece, each piece read while it is in cache
    from isal.igzip_lib import DECOMP_GZIP, IgzipDecompressor, IsalError
except ImportError:  # pragma: no cover - isal is a dependency; without it each file is decompressed whole
    IgzipDecompressor = IsalError = None

_PIECE = 1 << 18
"""Bytes decompressed and read at a time: well inside a core's L2 cache, and few enough calls (about 1,000 for
TREC-8's 266 MB) that the calls cost nothing."""

__all__ = ["available", "enabled", "build_arrays"]


def available() -> bool:
    """Whether the compiled reader was built and imports."""
    return _native_runs is not None


def enabled() -> bool:
    """Whether builds try the compiled reader: it is available and ``EVALKIT_NATIVE`` is not ``0``."""
    return _native_runs is not None and os.environ.get("EVALKIT_NATIVE", "1").strip() != "0"


def build_arrays(sources: list, qrels, topics_of, depth: int | None = None, ties: str = "float64",
                 one_tag: bool = False) -> BuiltArrays | None:
    """The arrays of :func:`evalkit.data.build.build_arrays` for run file paths, or None when the compiled reader
    does not take the input (see the module docstring).

    In one thread per core, at most one per file (the C passes release the GIL): the files read, decompressed
    and parsed, each thread taking every n-th file (its first file read while the qrels are); the docnos hashed
    topic by topic, the topics cut into one range per thread by their lines; one sorted vocabulary; the runs placed,
    one range of runs per thread."""
    if (not enabled() or not sources or (depth is not None and int(depth) < 1) or ties not in TIE_MODES
            or any(isinstance(s, Run) or str(s) == STDIN for s in sources)):
        return None
    n_threads = max(1, min(len(sources), os.cpu_count() or 1))
    with ThreadPoolExecutor(n_threads) as pool:
        first_files = [pool.submit(_raw_bytes, path) for path in sources[:n_threads]]
        try:
            qrels = _judgments(qrels)
        except TrecFormatError:
            return None  # reported by the pure-Python build, after any run file's error, as it orders them
        topics = topics_of(qrels.topic_values)
        builder = _native_runs.Builder([str(t).encode() for t in topics], ties == "float32", len(sources),
                                         n_threads)
        parsed: list = [None] * len(sources)
        stop = threading.Event()

        def parse_share(k: int) -> None:  # files k, k + n_threads, ...: read, decompressed, parsed
            for i in range(k, len(sources), n_threads):
                if stop.is_set():
                    return
                raw = first_files[k].result() if i == k else _raw_bytes(sources[i])
                parsed[i] = _read_run(builder, i, sources[i], raw, k)
                del raw
                if parsed[i] is None:
                    stop.set()
                    return

        for share in [pool.submit(parse_share, k) for k in range(n_threads)]:
            share.result()
        if stop.is_set():
            return None
        runs = []
        for path, (tag, single, _) in zip(sources, parsed):
            if not single and one_tag:
                return None  # refused, by line, by the pure-Python build
            runs.append(Run(name=tag.decode("ascii") if single else name_from_file(path), topic=_EMPTY, docno=_EMPTY,
                            score=_NO_SCORES, ordered=False, source=source_name(path)))
        counts = np.stack([np.frombuffer(run_counts, np.int64) for _, _, run_counts in parsed])
        group_lines = counts.sum(axis=0)  # per group (topic code + 1): its lines in every run
        for done in [pool.submit(builder.encode, lo, hi) for lo, hi in _ranges(group_lines, n_threads)]:
            done.result()
        words, qrels_ids = builder.vocabulary(qrels.docno_data, qrels.docno_offsets)
        vocabulary = np.fromiter(words, dtype=object, count=len(words))  # no shape discovery over the list
        del words
        sizes = counts[:, 1:]
        width = int(sizes.max(initial=1)) if depth is None else int(depth)
        n_runs, n_topics = sizes.shape
        docs, scores = _output_arrays(builder, (n_runs, n_topics, width))
        repeated = np.zeros((n_runs, n_topics), bool)
        run_lines = counts[:, 1:].sum(axis=1)
        for done in [pool.submit(builder.place, lo, hi, width, docs, scores, repeated)
                     for lo, hi in _ranges(run_lines, n_threads)]:
            done.result()
        builder.release()
    position = {topic: i for i, topic in enumerate(topics)}
    topic_ids = np.array([position[t] for t in qrels.topic_values], np.int64)[qrels.topic_codes]
    doc_ids = np.frombuffer(qrels_ids, np.int32).copy()
    if _judged_twice(topic_ids, doc_ids, len(vocabulary)):
        return None  # the qrels repeat a (topic, docno) pair: the pure-Python build names the lines
    return BuiltArrays(runs, topics, vocabulary, docs, scores, topic_ids, doc_ids, qrels.grade, qrels.stratum,
                       counts[:, 0].copy(), repeated, reader="native")


def _output_arrays(builder, shape: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The (S, T, width) int32 docs and float64 scores ``builder.place`` fills, over the memory of
    ``builder.outputs`` (the docnos' pages, where it can: see the C source's ``Outputs``)."""
    cells = shape[0] * shape[1] * shape[2]
    if not cells:
        return np.empty(shape, np.int32), np.empty(shape, np.float64)
    docs_bytes = -(-cells * 4 // 64) * 64  # the scores start on a cache line
    memory = builder.outputs(docs_bytes + cells * 8)
    return (np.frombuffer(memory, np.int32, count=cells).reshape(shape),
            np.frombuffer(memory, np.float64, count=cells, offset=docs_bytes).reshape(shape))


def _judged_twice(topic_ids: np.ndarray, doc_ids: np.ndarray, n_docs: int) -> bool:
    """Whether a (topic, docno) pair of the qrels is judged twice, found on the ids the build computes anyway (the
    qrels reader's own check hashes both string columns again: 7 of its 19 ms for TREC-8)."""
    keys = np.sort(topic_ids * max(n_docs, 1) + doc_ids, kind="stable")  # a qrels file's usual order: linear
    return bool((keys[1:] == keys[:-1]).any())


class _Judgments(NamedTuple):
    """The qrels as the build takes them: each line's topic as a code into ``topic_values`` (each topic once), its
    docno's bytes in ``docno_data`` from ``docno_offsets[i]`` to ``[i + 1]`` (int64), grades and strata (int64)."""
    topic_values: np.ndarray
    topic_codes: np.ndarray
    docno_data: bytes
    docno_offsets: np.ndarray
    grade: np.ndarray
    stratum: np.ndarray | None


def _judgments(qrels) -> _Judgments:
    """The qrels (a :class:`Qrels` or a file) for the build: a regular file read by the compiled reader
    (``_native_runs.read_qrels``: TREC-8's qrels in 2 ms, where the pure-Python reader's checks and conversions take
    12), any other by :func:`read_qrels_columns`, with every check but one: whether a pair is judged twice is
    checked later, on ids (:func:`_judged_twice`)."""
    data = None
    if isinstance(qrels, Qrels):
        topic, docno = (pa.array(np.asarray(c, dtype=object), pa.string()) for c in (qrels.topic, qrels.docno))
        grade, stratum = qrels.grade, qrels.stratum
    else:
        if str(qrels) != STDIN:
            try:
                data = read_bytes(qrels)
            except TrecFormatError:
                pass  # the pure-Python reader says why
        read = _native_runs.read_qrels(data) if data is not None else None
        if read is not None:
            (topics, codes, docnos, offsets, grades), strata = read
            return _Judgments(np.array([t.decode("ascii") for t in topics], dtype=object),
                              np.frombuffer(codes, np.int32), docnos, np.frombuffer(offsets, np.int64),
                              np.frombuffer(grades, np.int64).copy(),
                              None if strata is None else np.frombuffer(strata, np.int64).copy())
        columns = read_qrels_columns(qrels, check_pairs=False, data=data)  # the bytes read once
        topic, docno = (c.combine_chunks() if isinstance(c, pa.ChunkedArray) else c
                        for c in (columns.topic, columns.docno))
        grade, stratum = columns.grade, columns.stratum
    topic = pc.dictionary_encode(topic)
    docno = docno.cast(pa.large_string())
    return _Judgments(topic.dictionary.to_numpy(zero_copy_only=False).astype(object),
                      topic.indices.to_numpy(zero_copy_only=False), docno.buffers()[2] or b"",
                      np.frombuffer(docno.buffers()[1], np.int64, count=len(docno) + 1, offset=docno.offset * 8),
                      grade, stratum)


def _raw_bytes(path) -> bytes | None:
    """The file's bytes as stored (None when it cannot be read: the pure-Python build says why)."""
    try:
        return Path(path).read_bytes()
    except OSError:
        return None


def _read_run(builder, index: int, path, raw: bytes | None, lane: int):
    """Run ``index`` read by ``builder`` from its stored bytes: a gzip file inflated piece by piece (its members one
    after another), each piece read as it comes; any other file whole. The result of ``builder.finish``, or None
    when the file is not one the compiled reader takes (unreadable, not gzip as its name or magic number says, not
    regular). ``lane``: the builder's arenas this thread's files are read into."""
    if raw is None:
        return None
    if not is_gzip(raw, Path(path).suffix):
        return builder.add_run(index, raw, lane)
    if IgzipDecompressor is None:  # pragma: no cover
        try:
            return builder.add_run(index, inflate(source_name(path), raw), lane)
        except TrecFormatError:
            return None
    size_hint = int.from_bytes(raw[-4:], "little") if len(raw) >= 4 else 0  # the last member's size, mod 2**32
    rest = raw
    try:
        while rest:
            if rest[:2] != GZIP_MAGIC:
                return None  # not gzip, or bytes after the last member: the pure-Python build decides
            inflater = IgzipDecompressor(DECOMP_GZIP)
            piece = inflater.decompress(rest, _PIECE)
            while True:
                if piece and not builder.feed(index, piece, size_hint, lane):
                    return None
                if inflater.eof:
                    break
                if inflater.needs_input:
                    return None  # the stream ends before its member does
                piece = inflater.decompress(b"", _PIECE)
            rest = inflater.unused_data
    except (IsalError, OSError, EOFError, ValueError):
        return None
    return builder.finish(index)


def _ranges(weights: np.ndarray, n_parts: int) -> list[tuple[int, int]]:
    """``range(len(weights))`` cut into at most ``n_parts`` consecutive (start, end) ranges of about equal weight,
    none empty unless ``weights`` is."""
    n = len(weights)
    if n == 0:
        return [(0, 0)]
    total = np.cumsum(weights, dtype=np.float64)
    cuts = np.searchsorted(total, total[-1] * np.arange(1, n_parts) / n_parts, side="right")
    edges = sorted({0, n, *(int(c) for c in cuts)})
    return [(lo, hi) for lo, hi in zip(edges[:-1], edges[1:]) if hi > lo]


_EMPTY = pa.array([], pa.string())
_NO_SCORES = np.zeros(0, np.float64)
