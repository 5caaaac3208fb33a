"""Run and qrels files read as numpy arrays over their bytes (numpy only: no pyarrow, no pandas), for the
``trec_eval`` command line, one run or many.

A regular file (one delimiter, a space or a tab, between the fields of every line; ``\\n`` or ``\\r\\n`` line ends;
no blank, comment or short line; for a qrels exactly four fields, for a run exactly six) is read without one Python
object per field: the delimiters' positions give each field's byte span (:func:`regular_fields`), and the columns
are read from the spans:

* a docno (or topic) becomes its bytes padded with NULs to a multiple of 8 and read as big-endian 64-bit words
  (:func:`padded_words`): exact (a docno holds no NUL, refused by the readers), and the rows' lexicographic order
  is ``strcmp``'s, which trec_eval uses to break score ties;
* a score is read by :func:`parse_floats`: exactly Python's ``float()`` (correctly rounded, as C's ``strtod``),
  vectorized where the decimal fits the exact fast paths, ``float()`` itself for the rest;
* a (topic, docno) pair is mixed into one 64-bit number (:func:`pair_hash`); the qrels' numbers go once into an
  open-addressing table (:class:`QrelsTable`), and each run row probes it in a few vectorized rounds. A match is
  then confirmed on the words and the topic themselves, so a hash collision can never judge a document wrongly
  (the qrels' own numbers are checked to be distinct when the table is built; if two collide the table refuses
  and every run takes the general path).

Any other file (blank or comment lines, several blanks between fields, extra fields, a bad number, a document twice
in a topic) is read by :mod:`evalkit.trec_eval.rankings`' general reader, which also names the line of any error:
:func:`read_run` and :func:`read_qrels` return None and the caller reads it that way. Results are the same on both
paths (tests compare both readers' text and trec_eval's on the TREC-8 runs and on constructed files: ties, long
and short docnos, topics missing either side, CRLF lines, non-ASCII docnos).
"""

from __future__ import annotations

import os
import threading

import numpy as np

from evalkit.data.ordering import word_ranks
from evalkit.trec_eval.rankings import GRADE_MIN, LEVEL_CELLS, RELVALUE_NONPOOL, RELVALUE_UNJUDGED, Qrels, read_input

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_TOPIC_MULTIPLIER = np.uint64(0xD6E8FEB86659FD93)
_FINAL_MULTIPLIER = np.uint64(0xBF58476D1CE4E5B9)
_TABLE_LOCK = threading.Lock()
_OTHER_BLANKS = (b"\x0b", b"\x0c")  # C isspace bytes that are never a regular file's delimiter


class Fields:
    """The byte spans of a regular file's fields: ``span(k)`` = (starts, ends) of field k on every line."""

    def __init__(self, raw: np.ndarray, line_start: np.ndarray, line_end: np.ndarray, separators: np.ndarray):
        self.raw, self.line_start, self.line_end, self.separators = raw, line_start, line_end, separators

    def __len__(self) -> int:
        return len(self.line_start)

    def span(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        last = self.separators.shape[1]
        starts = self.line_start if k == 0 else self.separators[:, k - 1] + 1
        ends = self.line_end if k == last else self.separators[:, k]
        return starts, ends


_CHUNK = 1 << 20  # bytes of temporaries per step: memory stays a small multiple of the file's size


def _positions(raw: np.ndarray, delimiter: int, dtype) -> np.ndarray:
    """The offsets of the delimiter and of the newlines in ``raw`` (as ``dtype``), found a megabyte at a time."""
    parts, step = [], _CHUNK // 4  # 8-byte offsets of a quarter megabyte's marks at most
    for i in range(0, len(raw), step):
        chunk = raw[i:i + step]
        found = chunk == delimiter
        found |= chunk == 10
        parts.append(np.flatnonzero(found).astype(dtype) + dtype(i))
    return np.concatenate(parts) if len(parts) != 1 else parts[0]


def _by_rows(function, starts: np.ndarray, ends: np.ndarray, row_bytes: int, *args):
    """``function(starts, ends, *args)`` on blocks of rows whose temporaries stay near ``_CHUNK`` bytes, the results
    concatenated (None if a block gives None)."""
    step = max(4096, _CHUNK // max(row_bytes, 1))
    if len(starts) <= step:
        return function(starts, ends, *args)
    parts = [function(starts[i:i + step], ends[i:i + step], *args) for i in range(0, len(starts), step)]
    return None if any(p is None for p in parts) else np.concatenate(parts)


def _underscore_in(data: bytes, fields: "Fields", column: int) -> bool:
    """Whether any field of ``column`` holds a '_' (one scan of the file for '_', then a search over the column's
    spans; docnos and run tags with '_' are common and cost nothing more)."""
    if b"_" not in data:
        return False
    where = np.flatnonzero(fields.raw == ord("_"))
    starts, ends = fields.span(column)
    after = np.searchsorted(starts, where, side="right") - 1  # the span starting at or before each '_'
    inside = after >= 0
    return bool((where[inside] < ends[after[inside]]).any())


def _regular_numbers(data: bytes, width: int, number_column: int) -> Fields | None:
    """:func:`regular_fields` of a file that is neither empty, blank nor holding a NUL, and whose
    ``number_column`` (the qrels' grade, the run's score) holds no '_': C's atol/atof stop at it (2_0 reads 2)
    where numpy and Python read on (20), so such a file goes to the general reader, which refuses the field
    naming its line. None for any file the span reader does not take."""
    if not data or data.isspace() or b"\x00" in data:
        return None
    fields = regular_fields(data, width)
    if fields is None or _underscore_in(data, fields, number_column):
        return None
    return fields


def regular_fields(data: bytes, width: int) -> Fields | None:
    """The spans of a regular file's ``width`` fields (module notes), or None for any other file (the general
    reader then reads it). Vectorized over the lines: one scan of the bytes for the delimiters and line ends, which
    must then come as ``width - 1`` delimiters and a line end, line after line."""
    first = data[: data.find(b"\n")] if b"\n" in data else data
    if b"\t" in first:
        delimiter, other = 9, b" "
    else:
        delimiter, other = 32, b"\t"
    if other in data or any(blank in data for blank in _OTHER_BLANKS):
        return None
    raw = np.frombuffer(data, np.uint8)
    small = np.int32 if len(raw) < 2**31 - 8 else np.int64  # offsets in half the memory
    marks = _positions(raw, delimiter, small)
    if not data.endswith(b"\n"):
        marks = np.append(marks, small(len(raw)))  # a last line without its newline ends at the end
    if len(marks) % width:
        return None
    marks = marks.reshape(-1, width)
    ends = marks[:, -1]
    separators = marks[:, :-1]
    if not (raw[ends[:-1]] == 10).all() or not (raw[separators] == delimiter).all():
        return None
    ends = ends.copy()
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    returns = data.count(b"\r") if b"\r" in data else 0
    if returns:  # \r only as the \r of \r\n line ends, on every line
        newlines = len(ends) - (not data.endswith(b"\n"))
        if returns != data.count(b"\r\n") or returns != newlines:
            return None
        ends[:newlines] -= 1
    # each line's first delimiter after its first byte and its last before its last byte: no field is empty
    if not ((separators[:, 0] > starts).all() and (separators[:, -1] < ends - 1).all()):
        return None
    if width > 2 and (np.diff(separators, axis=1) == 1).any():  # an empty field inside a line
        return None
    if b"#" in data and (raw[starts] == 35).any():  # comment lines
        return None
    return Fields(raw, starts, ends, separators)


_KEEP = np.array([0] + [(1 << 64) - (1 << (64 - 8 * i)) for i in range(1, 9)], np.uint64)  # top i bytes


def _unaligned_words(raw: np.ndarray) -> np.ndarray:
    """A view of the bytes as big-endian 64-bit words at every byte offset (word i = bytes i .. i+7)."""
    return np.ndarray((max(len(raw) - 7, 0),), ">u8", raw.data, 0, (1,))


def padded_words(raw: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """(n, W) uint64: the bytes ``raw[starts[i]:ends[i]]`` NUL-padded to ``8 W`` bytes and read as big-endian words,
    W = the longest span in 8-byte words (at least 1). Row order (lexicographic over the words) is ``strcmp``
    order of the byte strings. Each word is one unaligned 8-byte load at its offset, its bytes past the span's
    end masked off; rows a block at a time (the temporaries stay small)."""
    width = max(1, -(-int((ends - starts).max(initial=0)) // 8))
    out = np.empty((len(starts), width), np.uint64)
    step = max(4096, _CHUNK // 64)
    for i in range(0, len(starts), step):
        _padded_block(raw, starts[i:i + step], ends[i:i + step], out[i:i + step])
    return out


def _padded_block(raw: np.ndarray, starts: np.ndarray, ends: np.ndarray, out: np.ndarray) -> None:
    n = len(starts)
    lengths = ends - starts
    words = _unaligned_words(raw)
    for j in range(out.shape[1]):
        offset = starts + 8 * j
        inside = offset < len(words)
        if inside.all():
            column = words[offset].astype(np.uint64)
        else:  # the file's last bytes: words over a zero-padded copy of its tail
            base = max(0, len(raw) - 8)
            tail = _unaligned_words(np.concatenate([raw[base:], np.zeros(16, np.uint8)]))
            column = np.empty(n, np.uint64)
            column[inside] = words[offset[inside]]
            column[~inside] = tail[np.minimum(offset[~inside] - base, len(tail) - 1)]
        column &= _KEEP[np.minimum(np.maximum(lengths, 0), 8)]
        out[:, j] = column
        lengths -= 8  # bytes left for the next word


def words_bytes(words: np.ndarray) -> list[bytes]:
    """The byte strings back from :func:`padded_words`' rows."""
    packed = words.astype(">u8").tobytes()
    span = 8 * words.shape[1]
    return [packed[i:i + span].rstrip(b"\x00") for i in range(0, len(packed), span)]


def _characters(raw: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """(n, 8 W) uint8: each span's bytes, zero past its end (the bytes of :func:`padded_words`)."""
    words = padded_words(raw, starts, ends)
    return words.astype(">u8").view(np.uint8).reshape(len(starts), -1)


_POW10 = np.array([10.0 ** k for k in range(23)])  # exact doubles
_EXTENDED = np.finfo(np.longdouble).nmant >= 63  # x87 80-bit long double: 64-bit significands
_POW10_EXTENDED = None


def _pow10_extended(k: np.ndarray) -> np.ndarray:
    global _POW10_EXTENDED
    if _POW10_EXTENDED is None:
        table = np.ones(28, np.longdouble)
        for i in range(1, 28):
            table[i] = table[i - 1] * np.longdouble(10)  # exact: 10^27 = 2^27 * 5^27 and 5^27 < 2^64
        _POW10_EXTENDED = table
    return _POW10_EXTENDED[k]


def _classes() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tables over a pair of bytes read as one big-endian 16-bit number: what the pair holds (1 per digit, 64 per
    point, 4096 per other byte; the padding NUL counts nothing), and the factor and addend of its two Horner steps
    (10 per digit and the digits' value; the point and the padding add nothing). 16-bit entries: 384 KB in all."""
    byte = np.arange(256, dtype=np.int16)
    digit = np.where((byte >= 48) & (byte < 58), byte - 48, -1).astype(np.int16)
    code = np.where(digit >= 0, 1, np.where(byte == 46, 64, np.where(byte == 0, 0, 4096))).astype(np.int16)
    pair = np.arange(65536, dtype=np.int32)
    first, second = digit[pair >> 8], digit[pair & 255]
    factor = np.where(first >= 0, 10, 1).astype(np.int16) * np.where(second >= 0, 10, 1).astype(np.int16)
    addend = np.maximum(first, 0) * np.where(second >= 0, 10, 1).astype(np.int16) + np.maximum(second, 0)
    return code[pair >> 8] + code[pair & 255], factor, addend.astype(np.int16)


_CODE = _FACTOR = _ADDEND = None


def _trailing_zeros(raw: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """How many '0' bytes end each span (all but its first byte at most), eight at a time: the span's last
    eight bytes as one big-endian word, XOR '00000000', and its trailing zero bytes counted from its lowest set
    bit."""
    ends = ends.copy()
    words = _unaligned_words(raw)
    active = np.flatnonzero(ends - starts > 1)
    while len(active):
        last = words[np.maximum(ends[active] - 8, 0)].astype(np.uint64) ^ np.uint64(0x3030303030303030)
        short = ends[active] < 8  # a span in the file's first bytes: its word starts at offset 0
        lowest = last & (~last + np.uint64(1))
        bit = np.frexp(lowest.astype(np.float64))[1] - 1  # exact: a power of two
        zeros = np.where(last == 0, 8, bit // 8)
        zeros = np.where(short, np.minimum(zeros, ends[active] - ends[active] // 8 * 8), zeros)
        zeros = np.minimum(zeros, ends[active] - starts[active] - 1)
        ends[active] -= zeros.astype(ends.dtype)
        active = active[(zeros == 8) & (ends[active] - starts[active] > 1)]
    return ends


def parse_floats(data: bytes, raw: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """The numbers in the spans, exactly as Python's ``float()`` reads them (None if one is not a number: the
    general reader then names its line).

    Vectorized for the plain decimal form ``[+-]digits[.digits]``: its trailing zeros dropped (after the point
    they change nothing; without one they are a power of ten), its digits make an integer m (at most 18 digits)
    and the value is m * 10^k. Where m < 2^53 and |k| <= 22 both are exact doubles and one IEEE multiplication or
    division rounds correctly (Clinger's fast path, which ``strtod`` and ``float()`` take too). Where m is larger
    or |k| <= 27, the same in x87 extended precision (64-bit significands, where m and 10^k are still exact)
    rounds correctly to 64 bits; rounding that to a double is then correct unless the extended value lies exactly
    halfway between two doubles, and such rows are read by ``float()``. Anything else (exponents, more digits,
    ``inf``, ``nan``, ``1_000``) is read by ``float()`` itself."""
    if len(starts) == 0:
        return np.zeros(0, np.float64)
    longest = int((ends - starts).max())
    return _by_rows(_floats_block, starts, ends, 12 * longest, data, raw)


def _floats_block(starts: np.ndarray, ends: np.ndarray, data: bytes, raw: np.ndarray) -> np.ndarray | None:
    global _CODE, _FACTOR, _ADDEND
    if _CODE is None:
        _CODE, _FACTOR, _ADDEND = _classes()
    n = len(starts)
    cut = _trailing_zeros(raw, starts, ends) if int((ends - starts).max()) > 18 else ends
    chars = _characters(raw, starts, cut)  # (n, 8 W) bytes, NUL past each end
    negative = chars[:, 0] == 45
    signed = negative | (chars[:, 0] == 43)
    chars[signed, 0] = 48  # a sign becomes a leading zero
    pairs = np.ascontiguousarray(chars.view(">u2").T)[: -(-int((cut - starts).max()) // 2)]  # two bytes a row
    counts = np.zeros(n, np.int32)  # (16-bit table entries, added to 32 and 64 bits)
    m = np.zeros(n, np.int64)
    for column in pairs:  # what the bytes are, and Horner two digits a step
        counts += _CODE[column]
        m *= _FACTOR[column]
        m += _ADDEND[column]
    n_digits, n_points = counts & 63, (counts >> 6) & 63
    plain = (counts < 4096) & (n_points <= 1) & (n_digits > signed) & (n_digits <= 18)
    point = np.argmax(chars == 46, axis=1) if n_points.any() else 0
    k = np.where(n_points > 0, point - n_digits, ends - cut)  # digits after the point; or the zeros cut off
    exact = plain & (m < 2**53) & (np.abs(k) <= 22)
    power = _POW10[np.minimum(np.abs(k), 22)]
    out = np.where(k >= 0, m * power, m / power)
    slow = ~exact
    if _EXTENDED:
        wide = plain & slow & (np.abs(k) <= 27)
        if wide.any():
            rows = np.flatnonzero(wide)
            power = _pow10_extended(np.abs(k[rows]))
            extended = np.where(k[rows] >= 0, m[rows] * power, m[rows] / power)  # m exact: below 10^18 < 2^64
            rounded = extended.astype(np.float64)
            gap = np.abs(extended - rounded.astype(np.longdouble))
            ulp = np.spacing(rounded).astype(np.longdouble)
            halfway = (gap * 2 == ulp) | (gap * 4 == ulp)  # (below a power of two the lower gap is half)
            out[rows] = rounded
            slow[rows[~halfway]] = False
    np.negative(out, out=out, where=negative)
    for row in np.flatnonzero(slow).tolist():
        try:
            out[row] = float(data[starts[row]:ends[row]])
        except ValueError:
            return None
    return out


def parse_integers(raw: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """The integers in the spans as numpy reads a byte string array (``np.array(texts).astype(np.int64)``, the
    general reader's reading); None where one is not an integer or out of range. One digit each: no parse."""
    lengths = ends - starts
    if len(starts) and (lengths == 1).all():
        digits = raw[starts].astype(np.int64) - 48
        if ((digits >= 0) & (digits <= 9)).all():
            return digits
    chars = _characters(raw, starts, ends)
    try:
        return np.ascontiguousarray(chars).view(f"S{chars.shape[1]}").reshape(-1).astype(np.int64)
    except (ValueError, OverflowError):
        return None


def pair_hash(words: np.ndarray, topic_codes: np.ndarray) -> np.ndarray:
    """One 64-bit number per (topic, docno) row: an odd multiplier per word, summed (wrapping), then a final mix
    so that the high bits (the table's slot) depend on every byte. Trailing zero words add nothing, so a docno
    hashes alike at any padded width."""
    multipliers = (np.arange(1, words.shape[1] + 1, dtype=np.uint64) * _GOLDEN) | np.uint64(1)
    value = topic_codes.astype(np.uint64)
    value *= _TOPIC_MULTIPLIER
    term = np.empty_like(value)
    for j in range(words.shape[1]):
        np.multiply(words[:, j], multipliers[j], out=term)
        value += term
    np.right_shift(value, np.uint64(31), out=term)
    value ^= term
    value *= _FINAL_MULTIPLIER
    np.right_shift(value, np.uint64(29), out=term)
    value ^= term
    return value


def _repeated(values: np.ndarray) -> bool:
    """Whether two of the 64-bit numbers are equal: counted into buckets by their top bits first (one pass; 8 bytes
    of counts for every 4 values at most), then only the values sharing a bucket sorted and compared."""
    bits = max(10, (4 * len(values)).bit_length() - 1)
    bucket = (values >> np.uint64(64 - bits)).astype(np.intp)
    crowded = np.bincount(bucket, minlength=1 << bits)[bucket] > 1
    if not crowded.any():
        return False
    ordered = np.sort(values[crowded])
    return bool((ordered[1:] == ordered[:-1]).any())


class QrelsTable:
    """The qrels' (topic, docno) pairs in an open-addressing table of 64-bit hashes, built once per qrels.
    ``usable`` is False when two distinct pairs share a hash (never seen; then the general path reads the runs)."""

    def __init__(self, words: np.ndarray, topics: np.ndarray, grades: np.ndarray, spread: int = 2):
        self.words, self.topics, self.grades = words, topics, grades
        self.hashes = pair_hash(words, topics)
        self.usable = True
        # load factor 1/(2 spread) to 1/spread: 2 keeps one run's memory small, 8 shortens the probe chains of many
        bits = max(10, (spread * len(self.hashes)).bit_length())
        self.shift = np.uint64(64 - bits)
        self.mask = (1 << bits) - 1
        self.slots = np.zeros(1 << bits, np.int32 if len(self.hashes) < 2**31 - 1 else np.int64)  # index + 1
        index = np.int32 if len(self.hashes) < 2**31 - 1 else np.int64
        position = (self.hashes >> self.shift).astype(index)
        pending = np.arange(len(self.hashes), dtype=index)
        while len(pending):  # vectorized linear-probing insertion: of the entries aiming at a free slot, one wins
            free = self.slots[position[pending]] == 0
            trying = pending[free]
            self.slots[position[trying]] = trying + 1
            occupant = self.slots[position[pending]] - 1
            lost = occupant != pending
            if (self.hashes[occupant[lost]] == self.hashes[pending[lost]]).any():
                self.usable = False  # two pairs share a hash (met on the same probe path): a pair judged twice or a
                return  # collision; the general path reads the qrels (and names a repeated pair's lines)
            pending = pending[lost]
            position[pending] = (position[pending] + 1) & self.mask

    @classmethod
    def from_judged(cls, qrels: Qrels) -> QrelsTable:
        """The table of qrels read by the general reader (their per-topic dicts)."""
        docnos, grades = [], []
        for table in qrels.judged:
            docnos.extend(table)
            grades.extend(table.values())
        topics = np.repeat(np.arange(len(qrels.judged)), [len(table) for table in qrels.judged])
        lengths = np.fromiter(map(len, docnos), np.int64, len(docnos))
        ends = np.cumsum(lengths)
        words = padded_words(np.frombuffer(b"".join(docnos), np.uint8), ends - lengths, ends)
        return cls(words, topics, np.array(grades, np.int64))

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


def qrels_table(qrels: Qrels) -> QrelsTable:
    """The qrels' table: made by :func:`read_qrels`, or built on first use from the general reader's dicts (under
    a lock: runs are read in threads)."""
    table = qrels.table
    if table is None:
        with _TABLE_LOCK:
            table = qrels.table
            if table is None:
                table = qrels.table = QrelsTable.from_judged(qrels)
    return table


def _topics(words: np.ndarray) -> tuple[list, np.ndarray]:
    """(distinct topics in strcmp order, each row's index among them), from the blocks of equal topics (files
    list a topic's lines together, so the distinct values are few and cheap to sort)."""
    change = np.ones(len(words), bool)
    change[1:] = (words[1:] != words[:-1]).any(axis=1)
    firsts = np.flatnonzero(change)
    if words.shape[1] == 1:
        distinct, inverse = np.unique(words[firsts, 0], return_inverse=True)
        distinct = distinct[:, None]
    else:
        ranks = word_ranks(words[firsts])
        order, inverse = np.unique(ranks, return_index=True, return_inverse=True)[1:]
        distinct = words[firsts][order]
    ids = np.repeat(inverse.reshape(-1).astype(np.int32), np.diff(np.append(firsts, len(words))))
    return words_bytes(distinct), ids


def read_qrels(path: os.PathLike | str, *, source: list | None = None, spread: int = 2) -> Qrels | None:
    """A regular qrels file (module notes) read by spans; None for any other (read it the general way, which
    names what is wrong). ``source``: the file's ``[name, bytes]`` (:func:`evalkit.trec_eval.rankings.read_input`),
    if read already; once its columns are taken, the bytes are dropped from it (freed before the table is
    built). ``spread``: the table's slots per pair (see :class:`QrelsTable`)."""
    source = source if source is not None else list(read_input(path))
    name, data = source
    fields = _regular_numbers(data, 4, 3)
    if fields is None:
        return None
    grades = parse_integers(fields.raw, *fields.span(3))
    if grades is None:
        return None
    topics, topic_ids = _topics(padded_words(fields.raw, *fields.span(0)))
    words = padded_words(fields.raw, *fields.span(2))
    del fields, data
    source[1] = None  # the file's bytes: only the columns are kept
    stored = np.where(grades >= 0, grades, RELVALUE_UNJUDGED)
    table = QrelsTable(words, topic_ids, stored, spread)
    if not table.usable:
        return None  # a document judged twice (the general reader names both lines), or two pairs' hashes collide
    ok = grades >= 0
    max_grade = int(grades.max()) if ok.any() else 0
    if (max_grade + 1) * len(topics) > LEVEL_CELLS or (len(grades) and grades.min() < GRADE_MIN):
        return None  # a grade beyond what the kit holds: the general reader refuses it naming its line
    levels = np.bincount(topic_ids[ok] * (max_grade + 1) + grades[ok], minlength=len(topics) * (max_grade + 1))
    return Qrels(name, topics, levels.reshape(len(topics), max_grade + 1), int((grades > 0).sum()), table=table)


class WordRun:
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


def read_run(path: os.PathLike | str, qrels: Qrels | None = None, source: list | None = None,
             uniform_tag: bool = False) -> WordRun | None:
    """A regular run file (module notes) without a repeated (topic, docno), read by spans; None for any other
    (read it the general way). With ``qrels`` whose table is unusable, None as well. ``source`` as for
    :func:`read_qrels` (the bytes are dropped from it when the run is read). ``uniform_tag``: None as well for a
    run whose tag is not the same on every line (trec_eval prints the last line's; the kit's collections then name
    the run after its file)."""
    if qrels is not None and not qrels_table(qrels).usable:
        return None
    source = source if source is not None else list(read_input(path))
    name, data = source
    fields = _regular_numbers(data, 6, 4)
    if fields is None:
        return None
    scores = parse_floats(data, fields.raw, *fields.span(4))
    if scores is None or np.isnan(scores).any():  # (a NaN score: the general reader refuses it naming its line)
        return None
    topics, topic_ids = _topics(padded_words(fields.raw, *fields.span(0)))
    words = padded_words(fields.raw, *fields.span(2))
    if _repeated(pair_hash(words, topic_ids)):  # a document twice in a topic (or a hash collision): the general
        return None  # path names both lines, or reads the run exactly if the pairs only collided
    starts, ends = fields.span(5)
    runid = data[starts[-1]:ends[-1]].decode(errors="replace")  # the printed runid is the last line's
    if uniform_tag:
        tags = padded_words(fields.raw, starts, ends)
        if not (tags == tags[-1]).all():
            return None
    source[1] = None
    return WordRun(name, topics, topic_ids, scores, words, runid)
