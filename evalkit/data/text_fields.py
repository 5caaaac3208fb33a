"""Reading a TREC text file's fields strictly, as C reads them or refused by name: the bytes (standard input, gzip,
a byte-order mark, NUL bytes, UTF-8), the whitespace-delimited fields (pyarrow's CSV reader on one sniffed delimiter,
or its string kernels for any other layout; never a Python loop over lines), and the field values (a score read as
``strtod`` reads it, an integer as ``atol``, only when the whole field is that number). The file formats built on
these, and the rules they follow, are :mod:`evalkit.data.trec_files`'s.
"""

from __future__ import annotations

import gzip
import os
import re
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from evalkit.errors import TrecFormatError

# ----------------------------------------------------------------------------------------------- bytes


try:  # Intel's ISA-L inflates about twice as fast as zlib; same format, same errors reported
    from isal import igzip as _gzip
    from isal.isal_zlib import error as _inflate_error
except ImportError:  # pragma: no cover - isal is a dependency, but the kit still works without it
    _gzip, _inflate_error = gzip, zlib.error

STDIN = "-"
"""The path that means standard input (as trec_eval's ``-`` for the results file); errors then name ``<stdin>``."""
STDIN_NAME = "<stdin>"
_BOM = b"\xef\xbb\xbf"
GZIP_MAGIC = b"\x1f\x8b"
_stdin_read = False


def source_name(path: os.PathLike | str) -> str:
    return STDIN_NAME if str(path) == STDIN else str(path)


def read_bytes(path: os.PathLike | str) -> bytes:
    """The file's bytes: decompressed when gzip (by magic number or ``.gz``), a UTF-8 byte-order mark at the
    start dropped; ``-`` reads standard input (once)."""
    global _stdin_read
    name = source_name(path)
    if str(path) == STDIN:
        if _stdin_read:
            raise TrecFormatError(name, None, "standard input was already read: only one input can be '-'")
        _stdin_read = True
        raw = sys.stdin.buffer.read()
        suffix = ""
    else:
        try:
            raw = Path(path).read_bytes()
        except OSError as exc:
            raise TrecFormatError(name, None, f"cannot read file: {exc.strerror or exc}") from None
        suffix = Path(path).suffix
    if is_gzip(raw, suffix):
        raw = inflate(name, raw)
    if raw.startswith(_BOM):
        raw = raw[len(_BOM):]
    if not raw or raw.isspace():
        raise TrecFormatError(name, None, "empty file: no lines to read")
    return raw


def is_gzip(raw: bytes, suffix: str) -> bool:
    """Whether a file's stored bytes are read as gzip: by their magic number, or by the name's ``.gz``."""
    return raw[:2] == GZIP_MAGIC or suffix == ".gz"


def inflate(name: str, raw: bytes) -> bytes:
    """gzip data (every member) decompressed; :class:`TrecFormatError` naming ``name`` when it cannot be."""
    try:
        return _gzip.decompress(raw)
    except (OSError, EOFError, zlib.error, _inflate_error) as exc:
        raise TrecFormatError(name, None, f"unreadable gzip data: {exc}") from None


def _line_at(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def check_bytes(name: str, data: bytes) -> None:
    """Refuse what trec_eval cannot read or reads differently from any reasonable intent: NUL bytes (trec_eval
    stops at them), a carriage return that ends no line (old Mac line ends: trec_eval would read the whole file
    as one line), and text that is not UTF-8."""
    nul = data.find(b"\x00")
    if nul >= 0:
        raise TrecFormatError(name, _line_at(data, nul), "NUL byte in the line (binary data, not a TREC text file)")
    cr = data.find(b"\r")
    while cr >= 0:
        if data[cr + 1: cr + 2] != b"\n":
            raise TrecFormatError(name, _line_at(data, cr), "carriage return inside a line (old Mac line ends?): "
                                                            "lines must end with \\n or \\r\\n")
        cr = data.find(b"\r", cr + 1)
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise TrecFormatError(name, _line_at(data, exc.start),
                                  f"not valid UTF-8 (byte {data[exc.start:exc.start + 1]!r})") from None


# --------------------------------------------------------------------------------------------- fields
#
# Lines are split into fields as trec_eval splits them: on C ``isspace`` (space, tab, \v, \f; \r before \n),
# any number of them, leading and trailing ones ignored. A line whose first field starts with ``#`` is a comment
# (trec_eval 10.0; 9.x has no comments). Two paths give the same fields: a fast one (pyarrow's CSV reader on a
# single delimiter sniffed from the first line) for regular files, and pyarrow's string kernels (trim, split on
# ASCII blanks) for any other layout (runs of blanks, mixed tabs, padded fields, blank lines, comments, extra
# columns).

@dataclass
class Fields:
    """String columns (pa.string) of the data lines and the 1-based line number of each row (None: row + 1)."""

    columns: list
    lines: np.ndarray | None

    def line(self, row: int) -> int:
        return int(row) + 1 if self.lines is None else int(self.lines[row])

    def __len__(self) -> int:
        return len(self.columns[0]) if self.columns else 0  # the topic column is always read


#: The Arrow memory pool the kit parses and builds with: glibc's allocator (Arrow's system pool) rather than Arrow's
#: default (mimalloc), which hands freed memory back to the kernel in transparent huge pages and faults in fresh
#: ones for the next file, each zeroed whole. Reading TREC-8's 129 files: 0.06-0.78 s of kernel time a pass with
#: mimalloc (the most in a process's first passes), 0.005-0.12 s with glibc, which keeps freed memory for the next
#: file. Passed per call: the process's default pool is left as it is.
ARROW_POOL = pa.system_memory_pool()


def _read_delimited(data: bytes, delimiter: str, n_columns: int, floats: tuple[int, ...] = (),
                    skip: tuple[int, ...] = ()) -> list | None:
    """pyarrow's CSV reader: column i a ``pa.string`` array (``pa.float64`` for i in ``floats``, parsed as
    :func:`pyarrow.compute.cast` parses strings; None for i in ``skip``: tokenized, so counted, but not converted);
    None if a line has another number of fields, a float column does not parse, or a line is blank (empty lines
    are rows here, so a row is a line). UTF-8 is not checked again here: the caller checked the whole text
    (:func:`check_bytes`), and the reader's own check costs about as much as the rest of the conversion."""
    names = [f"f{i}" for i in range(n_columns)]
    try:
        table = pacsv.read_csv(
            pa.py_buffer(data),
            read_options=pacsv.ReadOptions(column_names=names, use_threads=False, block_size=1 << 28),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False, double_quote=False,
                                             escape_char=False, ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(
                column_types={n: pa.float64() if i in floats else pa.string() for i, n in enumerate(names)},
                include_columns=[n for i, n in enumerate(names) if i not in skip],
                check_utf8=False, strings_can_be_null=False, quoted_strings_can_be_null=False,
            ),
            memory_pool=ARROW_POOL,
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    columns = [None if i in skip else one_array(table[n]) for i, n in enumerate(names)]
    return [c if c is None or i in floats else c.cast(pa.string()) for i, c in enumerate(columns)]


def one_array(column: pa.ChunkedArray) -> pa.Array:
    """``column`` as one array: its only chunk as it is (``combine_chunks`` copies even one chunk: 17 ms of the
    TREC-8 build), else the chunks concatenated."""
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


_NUMPY_TYPE = {pa.float64(): np.float64, pa.float32(): np.float32, pa.int64(): np.int64, pa.int32(): np.int32,
               pa.int16(): np.int16, pa.int8(): np.int8, pa.uint32(): np.uint32, pa.uint64(): np.uint64}


def primitive_values(array: pa.Array) -> np.ndarray:
    """A null-free numeric arrow array's values as a read-only numpy view of its buffer. (``Array.to_numpy``
    imports pandas on first use, 0.15 s that the trec_eval command line does not otherwise pay.)"""
    dtype = np.dtype(_NUMPY_TYPE[array.type])
    return np.frombuffer(array.buffers()[1], dtype, count=len(array), offset=array.offset * dtype.itemsize)


def _has_doubled_delimiter(data: bytes, delimiter: bytes) -> bool:
    """Whether ``delimiter`` occurs twice in a row in ``data``: an empty field inside a line. (Empty fields at a
    line's start or end, and blank lines, show in the converted columns or the field counts instead: see
    :func:`fast_fields`.)"""
    separator = np.frombuffer(data, np.uint8) == ord(delimiter)
    return bool((separator[1:] & separator[:-1]).any())


def _has_empty_field(data: bytes, delimiter: bytes) -> bool:
    """Whether a line of ``data`` (one ``delimiter`` between fields, lines ending in \\n or \\r\\n) has an empty
    field: two separators in a row (a doubled delimiter, one at a line's start or end, a blank line), or a
    delimiter at the start or end of the text. Found in the bytes, so columns that are not converted are checked
    too."""
    text = np.frombuffer(data, np.uint8)
    code = ord(delimiter)
    separator = (text == code) | (text == 10)
    carriage = b"\r" in data
    if carriage:
        separator |= text == 13
    adjacent = separator[1:] & separator[:-1]
    if carriage:  # \r\n is one line end
        adjacent &= ~((text[:-1] == 13) & (text[1:] == 10))
    return bool(adjacent.any() or text[0] == code or text[-1] == code)


def fast_fields(data: bytes, widths: tuple[int, ...], floats: tuple[int, ...] = (),
                 skip: tuple[int, ...] = ()) -> Fields | None:
    """Fields of a regular file: one delimiter (tab or space, sniffed from the first line), the same number of
    non-empty fields (one of ``widths``) on every line, no blank or comment line; float columns finite. None
    otherwise (the general path then reads the file and names what is wrong). Columns in ``skip`` are checked but
    not converted (None; see :func:`_read_delimited`)."""
    first = data[: data.find(b"\n")] if b"\n" in data else data
    first = first.removesuffix(b"\r")
    has_tab, has_space = b"\t" in first, b" " in first
    n_columns = len(first.split())
    if has_tab == has_space or n_columns not in widths:
        return None
    delimiter = b"\t" if has_tab else b" "
    other_blank = b" " if has_tab else b"\t"
    if other_blank in data or b"\x0b" in data or b"\x0c" in data:
        return None  # blanks of another kind inside fields
    ends_skipped = 0 in skip or n_columns - 1 in skip
    if _has_empty_field(data, delimiter) if ends_skipped else _has_doubled_delimiter(data, delimiter):
        return None  # a doubled delimiter (or, when the first or last column is not converted, one at a line's
        # start or end, or a blank line)
    columns = _read_delimited(data, delimiter.decode(), n_columns, floats, skip)
    if columns is None:  # another number of fields on some line (a blank line is a line of one field)
        return None
    if any(len(column) and pc.min(pc.binary_length(column)).as_py() == 0
           for i, column in enumerate(columns) if column is not None and i not in floats):
        return None  # an empty field at a line's start or end (an empty number is a null, refused below)
    if b"#" in data and pc.any(pc.starts_with(columns[0], "#")).as_py():
        return None  # comment lines
    for i in floats:
        if columns[i].null_count or not np.isfinite(primitive_values(columns[i])).all():
            return None
    return Fields(columns, None)


def canonical_fields(name: str, data: bytes, widths: tuple[int, ...], keep: int, what: str,
                      uniform: bool = False) -> Fields:
    """Fields of any layout, by pyarrow's string kernels: lines cut at \\n, trimmed and split on ASCII blanks (the
    same six bytes as C ``isspace``); blank lines and comment lines dropped, fields past ``keep`` dropped. Every
    data line must have a field count in ``widths`` (or, when ``widths`` ends with -1, at least ``widths[0]``), and
    with ``uniform`` the count of the first data line; the first line that does not is named."""
    ends = np.flatnonzero(np.frombuffer(data, np.uint8) == 10) + 1
    small = len(data) < 2**31 - 1  # string offsets are int32 up to 2 GB
    offsets = np.concatenate([[0], ends, [len(data)] if not data.endswith(b"\n") else []])
    offsets = offsets.astype(np.int32 if small else np.int64)
    kind = pa.StringArray if small else pa.LargeStringArray
    lines = kind.from_buffers(len(offsets) - 1, pa.py_buffer(offsets), pa.py_buffer(data))
    trimmed = pc.ascii_trim_whitespace(lines)
    data_line = pc.and_(pc.greater(pc.binary_length(trimmed), 0), pc.invert(pc.starts_with(trimmed, "#")))
    line_numbers = np.flatnonzero(data_line.to_numpy(zero_copy_only=False)) + 1
    if not len(line_numbers):
        return Fields([], np.zeros(0, np.int64))
    fields = pc.ascii_split_whitespace(pc.filter(trimmed, data_line))
    counts = pc.list_value_length(fields).to_numpy(zero_copy_only=False)
    wrong = counts < widths[0] if widths[-1] == -1 else ~np.isin(counts, widths)
    if uniform and not wrong[0] and (counts != counts[0]).any():
        row = int(np.argmax(counts != counts[0]))
        raise TrecFormatError(name, int(line_numbers[row]), f"expected {int(counts[0])} columns like the first line, "
                                                            f"found {int(counts[row])}")
    if wrong.any():
        row = int(np.argmax(wrong))
        raise TrecFormatError(name, int(line_numbers[row]), f"expected {what}, found {int(counts[row])}")
    n_columns = int(min(counts.max(), keep))
    columns = [pc.list_element(fields, j) for j in range(n_columns)]
    if not small:
        columns = [column.cast(pa.string()) for column in columns]
    return Fields(columns, line_numbers)


# -------------------------------------------------------------------------------------- field values
#
# trec_eval converts with C's atof (score) and atol (rel): both read the longest valid prefix and ignore the rest,
# so "1_0" is 1, "1.5" is a grade of 1, "abc" is 0 and "0x10" is a score of 16. The kit accepts a field only when
# the whole of it is a number (so it cannot read anything differently from trec_eval) and refuses the rest by
# name, saying what trec_eval would have read.

_DECIMAL = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"
_INTEGER = r"^[+-]?[0-9]+$"
_C_FLOAT_PREFIX = re.compile(r"[+-]?(0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][+-]?[0-9]+)?"
                             r"|inf(inity)?|nan|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)", re.IGNORECASE)
_C_INT_PREFIX = re.compile(r"[+-]?[0-9]+")


def _c_reading(token: str, integer: bool) -> str:
    """What C's atol/atof make of ``token`` (for messages)."""
    match = (_C_INT_PREFIX if integer else _C_FLOAT_PREFIX).match(token)
    if not match:
        return "0"
    text = match.group(0)
    if integer:
        return str(int(text))
    try:
        value = float.fromhex(text) if "x" in text.lower() else float(text)
    except ValueError:
        return text
    return repr(value) if not value.is_integer() or abs(value) >= 1e16 else str(int(value))


def _first_false(mask) -> int:
    return int(np.argmax(~np.asarray(mask, bool)))


def parse_scores(name: str, fields: Fields, column) -> np.ndarray:
    """Scores as trec_eval's atof reads them, refusing anything that is not wholly a finite decimal number."""
    if pa.types.is_floating(column.type):  # parsed (and checked finite) by the fast path
        return column.to_numpy(zero_copy_only=False)
    try:
        scores = pc.cast(column, pa.float64()).to_numpy(zero_copy_only=False)
        finite = np.isfinite(scores)
        if finite.all():
            return scores
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        finite = None
    valid = pc.match_substring_regex(column, _DECIMAL).to_numpy(zero_copy_only=False)
    row = _first_false(valid)
    if valid.all():
        if finite is None:  # every field looks decimal, yet the conversion failed: never guess
            raise TrecFormatError(name, None, "scores could not be read as numbers")
        row = _first_false(finite)
        token = column[row].as_py()
        raise TrecFormatError(name, fields.line(row), f"score {token!r} is not a finite number")
    token = column[row].as_py()
    reading = _c_reading(token, integer=False)
    special = reading.lower().lstrip("+-")
    problem = ("is not finite" if special in ("inf", "nan") else
               "is not a decimal number" if re.match(r"[+-]?0[xX]", token) else "is not a number")
    raise TrecFormatError(name, fields.line(row), f"score {token!r} {problem} (trec_eval's atof would read {reading})")


def parse_integers(name: str, fields: Fields, column, what: str, low: int, high: int) -> np.ndarray:
    """Integers as trec_eval's atol reads them, refusing anything that is not wholly a decimal integer in
    ``low..high``."""
    valid = pc.match_substring_regex(column, _INTEGER)
    if not pc.all(valid).as_py():
        row = _first_false(valid.to_numpy(zero_copy_only=False))
        token = column[row].as_py()
        raise TrecFormatError(name, fields.line(row), f"{what} {token!r} is not an integer "
                                                      f"(trec_eval's atol would read {_c_reading(token, True)})")
    digits = pc.utf8_ltrim(pc.utf8_ltrim(column, "+-"), "0")
    huge = pc.greater(pc.binary_length(digits), 12).to_numpy(zero_copy_only=False)
    values = np.zeros(len(column), np.int64)
    small = ~huge
    if small.any():
        unsigned = pc.cast(pc.utf8_ltrim(pc.filter(column, pa.array(small)), "+"), pa.int64())
        values[small] = unsigned.to_numpy(zero_copy_only=False)
    outside = huge | (values < low) | (values > high)
    if outside.any():
        row = int(np.argmax(outside))
        token = column[row].as_py()
        raise TrecFormatError(name, fields.line(row), f"{what} {token} is outside the supported range {low}..{high}")
    return values


def duplicate_rows(topic, docno) -> tuple[int, int] | None:
    """The first row repeating an earlier (topic, docno) pair, and that earlier row; None if none."""
    t = pc.dictionary_encode(topic).indices.to_numpy(zero_copy_only=False).astype(np.int64)
    d = pc.dictionary_encode(docno).indices.to_numpy(zero_copy_only=False).astype(np.int64)
    keys = t * (int(d.max(initial=0)) + 1) + d
    order = np.argsort(keys, kind="stable")
    repeated = keys[order][1:] == keys[order][:-1]
    if not repeated.any():
        return None
    row = int(order[1:][repeated].min())
    first = int(order[np.searchsorted(keys[order], keys[row])])
    return row, first


def raise_duplicate(name: str, fields: Fields, topic, docno, found: tuple[int, int]) -> None:
    row, first = found
    raise TrecFormatError(name, fields.line(row), f"duplicate docno {docno[row].as_py()!r} in topic "
                                                  f"{topic[row].as_py()} (first on line {fields.line(first)})")
