"""A run file read by pyarrow's C++ CSV reader and judged through integer keys, for many runs in one process.

Used by the ``trec_eval`` command line when it evaluates several runs (pyarrow's import, about 0.1 s, is paid
once); a single run goes through :mod:`evalkit.trec_eval.rankings`'s numpy/bytes reader. Only regular ASCII files
take this path (:func:`evalkit.data.trec_files._fast_fields`: one delimiter, six fields on every line, no blank or comment line,
finite scores); :func:`read_run` returns None for any other file and the caller reads it the general way, which
also names the line of any error. A document listed twice in a topic also sends the run down that way.

How a document is found in the qrels without hashing strings again for every run:

* each docno becomes its bytes padded with NULs to a multiple of 8 and read as big-endian 64-bit words
  (:func:`docno_words`): exact (a docno holds no NUL), and the rows' lexicographic order is ``strcmp``'s, which
  trec_eval uses to break score ties;
* a (topic, docno) pair is mixed into one 64-bit number (:func:`pair_hash`); the qrels' numbers go once into an
  open-addressing table (:class:`QrelsTable`), and each run row probes it in a few vectorized rounds. A match is
  then confirmed on the words and the topic themselves, so a hash collision can never judge a document wrongly
  (the qrels' own numbers are checked to be distinct when the table is built; if two collide the table refuses
  and every run takes the general path).

Results are the same as the general path's (the same ranking and judgments; tests compare both readers' text and
trec_eval's on the TREC-8 runs and on constructed files: ties, long and short docnos, topics missing either side).
"""

from __future__ import annotations

import os
import threading

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalkit.data.trec_files import _fast_fields, primitive_values
from evalkit.trec_eval.rankings import RELVALUE_NONPOOL, Qrels, read_input

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_TOPIC_MULTIPLIER = np.uint64(0xD6E8FEB86659FD93)
_FINAL_MULTIPLIER = np.uint64(0xBF58476D1CE4E5B9)
_TABLE_LOCK = threading.Lock()


def docno_words(docnos: pa.Array) -> np.ndarray:
    """(n, W) uint64: each ASCII docno NUL-padded to ``8 W`` bytes and read as big-endian words, W = the longest
    docno's length in 8-byte words (at least 1). Row order (lexicographic over the words) is ``strcmp`` order."""
    docnos = docnos.cast(pa.string()) if docnos.type != pa.string() else docnos  # int32 offsets below
    n = len(docnos)
    longest = pc.max(pc.binary_length(docnos)).as_py() if n else 0
    width = max(1, -(-(longest or 0) // 8))
    padded = pc.ascii_rpad(docnos, width=8 * width, padding="\x00")
    offsets_buffer, data_buffer = padded.buffers()[1:3]
    offsets = np.frombuffer(offsets_buffer, np.int32, count=n + 1, offset=4 * padded.offset)
    if n and int(offsets[-1] - offsets[0]) != n * 8 * width:
        raise ValueError("padded docnos are not of one width")  # not ASCII: the caller checked it is
    words = np.frombuffer(data_buffer, ">u8", count=n * width, offset=int(offsets[0]) if n else 0)
    return words.reshape(n, width).astype(np.uint64)


def pair_hash(words: np.ndarray, topic_codes: np.ndarray) -> np.ndarray:
    """One 64-bit number per (topic, docno) row: an odd multiplier per word, summed (wrapping), then a final mix
    so that the high bits (the table's slot) depend on every byte. Trailing zero words add nothing, so a docno
    hashes alike at any padded width."""
    multipliers = (np.arange(1, words.shape[1] + 1, dtype=np.uint64) * _GOLDEN) | np.uint64(1)
    value = topic_codes.astype(np.uint64) * _TOPIC_MULTIPLIER
    for j in range(words.shape[1]):
        value += words[:, j] * multipliers[j]
    value ^= value >> np.uint64(31)
    value *= _FINAL_MULTIPLIER
    value ^= value >> np.uint64(29)
    return value


class QrelsTable:
    """The qrels' (topic, docno) pairs in an open-addressing table of 64-bit hashes, built once per qrels."""

    def __init__(self, qrels: Qrels):
        docnos, grades = [], []
        for table in qrels.judged:
            docnos.extend(table)
            grades.extend(table.values())
        self.grades = np.array(grades, np.int64)
        self.topics = np.repeat(np.arange(len(qrels.judged)), [len(table) for table in qrels.judged])
        text = b"".join(docnos)
        self.usable = text.isascii()
        if not self.usable:
            return
        self.words = docno_words(_string_array(docnos, text))
        self.hashes = pair_hash(self.words, self.topics)
        ordered = np.sort(self.hashes)
        if (ordered[1:] == ordered[:-1]).any():  # two qrels pairs share a hash: never seen, but then no table
            self.usable = False
            return
        spread = 8 if len(self.hashes) <= 1 << 20 else 2  # load at most 1/8 (short probe chains), 1/2 for big qrels
        bits = max(10, (spread * len(self.hashes)).bit_length())
        self.shift = np.uint64(64 - bits)
        self.mask = (1 << bits) - 1
        self.slots = np.zeros(1 << bits, np.int32 if len(self.hashes) < 2**31 - 1 else np.int64)  # index + 1
        position = (self.hashes >> self.shift).astype(np.int64)
        pending = np.arange(len(self.hashes))
        while len(pending):  # vectorized linear-probing insertion: of the entries aiming at a free slot, one wins
            free = self.slots[position[pending]] == 0
            trying = pending[free]
            self.slots[position[trying]] = trying + 1
            won = self.slots[position[pending]] == pending + 1
            pending = pending[~won]
            position[pending] = (position[pending] + 1) & self.mask

    def find(self, words: np.ndarray, topic_codes: np.ndarray) -> np.ndarray:
        """Index of each row's (topic, docno) among the qrels pairs, -1 where it is not judged (topic code -1: a
        topic the qrels lack)."""
        hashes = pair_hash(words, topic_codes)
        found = np.full(len(hashes), -1, np.int64)
        position = (hashes >> self.shift).astype(np.int64)
        pending = np.flatnonzero(topic_codes >= 0)
        while len(pending):
            entry = self.slots[position[pending]] - 1
            occupied = entry >= 0
            hit = occupied & (self.hashes[entry] == hashes[pending])
            found[pending[hit]] = entry[hit]
            pending = pending[occupied & ~hit]
            position[pending] = (position[pending] + 1) & self.mask
        rows = np.flatnonzero(found >= 0)
        if len(rows):  # confirm on the pairs themselves: a hash equal by chance is not a match
            entry = found[rows]
            same = self.topics[entry] == topic_codes[rows]
            for j in range(max(words.shape[1], self.words.shape[1])):  # a missing word is a zero word
                ours = words[rows, j] if j < words.shape[1] else 0
                theirs = self.words[entry, j] if j < self.words.shape[1] else 0
                same &= ours == theirs
            found[rows[~same]] = -1
        return found


class ArrowRun:
    """A run's rows: topics (strcmp order), each row's topic index, score, docno words; ``lookup`` and
    ``docno_words`` are what :func:`evalkit.trec_eval.rankings.rank` asks."""

    def __init__(self, name: str, topics: list, topic_ids: np.ndarray, scores: np.ndarray, words: np.ndarray,
                 runid: str):
        self.name, self.topics, self.topic_ids, self.scores = name, topics, topic_ids, scores
        self.docno_words, self.runid = words, runid

    def lookup(self, qrels: Qrels) -> tuple[list, np.ndarray, np.ndarray, list]:
        table = qrels_table(qrels)
        qrels_index = qrels.index()
        qrels_row = np.array([qrels_index.get(t, -1) for t in self.topics], np.int64)
        found = table.find(self.docno_words, qrels_row[self.topic_ids])
        grades = np.where(found >= 0, table.grades[found], RELVALUE_NONPOOL)
        kept = np.flatnonzero(qrels_row >= 0).tolist()
        return self.topics, self.topic_ids, grades, kept


def _string_array(values: list, text: bytes) -> pa.Array:
    """A pa.string array of byte strings (their concatenation given), built from buffers: ``pa.array`` on a
    Python list would import pandas (0.15 s) on its first call."""
    offsets = np.zeros(len(values) + 1, np.int64)
    np.cumsum(np.fromiter(map(len, values), np.int64, len(values)), out=offsets[1:])
    kind, dtype = (pa.StringArray, np.int32) if len(text) < 2**31 else (pa.LargeStringArray, np.int64)
    return kind.from_buffers(len(values), pa.py_buffer(offsets.astype(dtype)), pa.py_buffer(text))


def qrels_table(qrels: Qrels) -> QrelsTable:
    """The qrels' table, built on first use (under a lock: runs are read in threads)."""
    table = getattr(qrels, "_arrow_table", None)
    if table is None:
        with _TABLE_LOCK:
            table = getattr(qrels, "_arrow_table", None)
            if table is None:
                table = qrels._arrow_table = QrelsTable(qrels)
    return table


def prepare(qrels: Qrels) -> None:
    """Build the qrels' table once, before runs are read in parallel threads."""
    qrels_table(qrels)


def _last_field(data: bytes) -> str:
    """The last field of the last line (a run's runid): the printed runid is the last line's."""
    return data.rstrip().rsplit(None, 1)[-1].decode(errors="replace")


def read_run(path: os.PathLike | str, qrels: Qrels | None = None) -> ArrowRun | None:
    """The run if it is regular, ASCII and without a repeated (topic, docno); else None (read it the general way).
    With ``qrels`` whose table is unusable (non-ASCII docnos, a hash collision), None as well."""
    if qrels is not None and not qrels_table(qrels).usable:
        return None
    name, data = read_input(path)
    if not data.strip() or not data.isascii() or b"\x00" in data:
        return None
    fields = _fast_fields(data, (6,), (4,), skip=(1, 3, 5))
    if fields is None:
        return None
    qid, docno, score = fields.columns[0], fields.columns[2], fields.columns[4]
    encoded = pc.dictionary_encode(qid)
    names = [t.encode() for t in encoded.dictionary.to_pylist()]
    order = sorted(range(len(names)), key=names.__getitem__)  # strcmp order of the bytes
    remap = np.empty(len(names), np.int64)
    remap[order] = np.arange(len(names))
    topic_ids = remap[primitive_values(encoded.indices)]
    words = docno_words(docno)
    pairs = np.sort(pair_hash(words, topic_ids))
    if (pairs[1:] == pairs[:-1]).any():  # a document twice in a topic (or a hash collision): the general path
        return None  # names both lines, or reads the run exactly if the pairs only collided
    return ArrowRun(name, [names[i] for i in order], topic_ids,
                    primitive_values(score).astype(np.float64), words, _last_field(data))
