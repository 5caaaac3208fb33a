"""Reading and writing TREC runs and qrels, strictly: read as trec_eval 10.0 reads them, or refused by name.

Formats
-------
run             ``topic Q0 docno rank score tag`` (plain or gzip; ``-`` = standard input). Each topic is put in
                trec_eval's order: score descending, ties broken by docno descending (``strcmp``); the Q0 and rank
                fields are not read at all, as trec_eval skips them. Fields after the tag are ignored (trec_eval
                ignores them too).
qrels           ``topic iter docno rel`` (graded; a negative grade means "in the pool, not judged", whatever its
                value: trec_eval's ``form_res_rels.c`` reads every rel < 0 alike).
sampled qrels   ``topic iter docno stratum rel`` as NIST's ``sample_eval.pl`` reads it: ``rel = -1`` marks a
                document that was in the pool (it has a stratum) but was not drawn into the judged sample.
runs table      ``runs_table.tsv``: see :func:`read_runs_table`.

Lines and fields (both file kinds, and the same in the fast and the general path)
    Fields are separated by any run of C ``isspace`` blanks (space, tab, \\v, \\f); leading and trailing blanks
    and blank lines are ignored; lines end with \\n or \\r\\n. A line whose first field starts with ``#`` is a
    comment (trec_eval 10.0). A UTF-8 byte-order mark at the start of a file is dropped. Text must be UTF-8.

Numbers (trec_eval reads the score with C ``atof`` and the grade with ``atol``: the longest valid prefix, the rest
ignored, garbage read as 0). The kit reads a field only when the *whole* field is a number, so it never reads a
number differently from trec_eval; anything else is refused, the message saying what trec_eval would have read:

score           a finite decimal number (``+1``, ``-0``, ``.5``, ``1.5e3``; exactly as strtod rounds it). Refused:
                ``1_0`` (atof: 1), ``0x10`` (atof: 16), ``nan``, ``inf``, ``1e400`` (not finite), ``abc`` (atof: 0).
rel (grade)     a decimal integer (``+1``, ``-0``, ``0001``) in ``GRADE_MIN..GRADE_MAX`` = -2147483646..2147483647
                (int32; the two values below are the kit's internal codes, see :mod:`evalkit.data.collection`). Refused:
                ``1_0``, ``1.0``, ``1e3`` (atol: 1), anything beyond the range (trec_eval's C long would hold it, but
                it also allocates ``max_rel + 1`` counters, so such grades are impractical there as well).
stratum         a decimal integer in 0..2147483647.

Where trec_eval 9.0.8 and 10.0 differ (the kit follows 10.0): 9.0.8 has no comment lines (a ``#`` line is data, or
"malformed"); 10.0 reads ``-`` as standard input for the results file; 10.0 orders tied scores in double
precision, 9.0.8 in single precision (see :func:`trec_eval_order`: ``ties="float64"``, the default, or
``"float32"``). Where the kit differs from both: blank lines in qrels are skipped
(trec_eval calls them malformed); a qrels comment may be indented and may follow another comment (10.0 takes only
an unindented ``#`` line, and reads the second of two consecutive comment lines as data); NUL bytes, a carriage
return inside a line (trec_eval reads it as a blank) and text that is not UTF-8 are refused.

Errors
------
Every problem with an input file raises :class:`TrecFormatError` naming the file (``<stdin>`` for standard input),
the line (1-based) and what is wrong; nothing is returned half-loaded. Writers write to a temporary file beside the
target and rename it, so an output is written whole or not at all.

The fast path hands the decompressed bytes to pyarrow's CSV reader on one delimiter sniffed from the first line;
any other layout (runs of blanks, mixed tabs, padded fields, blank or comment lines, extra fields) goes through
pyarrow's string kernels (lines trimmed and split on the C blanks), which also find the first malformed line. Both
give the same fields and the same numbers (tested), and neither loops over lines in Python.
"""

from __future__ import annotations

import gzip
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalkit.data.grade_codes import GRADE_MAX, GRADE_MIN  # noqa: F401  (read here; named there)
from evalkit.data.ordering import segment_then_descending
from evalkit.data.text_fields import (
    STDIN_NAME,
    Fields,
    canonical_fields,
    check_bytes,
    duplicate_rows,
    fast_fields,
    parse_integers,
    parse_scores,
    raise_duplicate,
    read_bytes,
    source_name,
)
from evalkit.errors import TrecFormatError, shown

if TYPE_CHECKING:  # pandas is imported where a DataFrame is made: reading files does not need it
    import pandas as pd

__all__ = [
    "TrecFormatError",
    "Run",
    "Qrels",
    "read_run",
    "parse_run",
    "explain_run_error",
    "trec_eval_order",
    "TIE_MODES",
    "read_qrels",
    "read_runs_table",
    "write_run",
    "write_qrels",
    "atomic_write",
]


TIE_MODES = ("float64", "float32")


def check_ties(ties: str) -> str:
    """``ties`` checked: ``"float64"`` (trec_eval 10.0, the default) or ``"float32"`` (trec_eval 9.x and
    pytrec_eval-terrier)."""
    if ties not in TIE_MODES:
        raise ValueError(f"ties must be 'float64' (trec_eval 10.0, the default) or 'float32' (trec_eval 9.x and "
                         f"pytrec_eval), not {ties!r}")
    return ties


def trec_eval_order(group: np.ndarray, scores: np.ndarray, docno_ranks: np.ndarray,
                    ties: str = "float64") -> np.ndarray | None:
    """The permutation putting rows in trec_eval order (group ascending, score descending, docno descending), or
    None when they already are. ``group`` numbers the (run, topic) blocks; ``docno_ranks`` must order like the
    docno strings (e.g. ids into a sorted vocabulary).

    Scores are compared as trec_eval compares them, which depends on its version (``ties``):

    * ``"float64"`` (default): trec_eval 10.0 keeps a run's scores in a C ``double`` (``TEXT_RESULTS.sim``);
    * ``"float32"``: trec_eval 9.x keeps them in a C ``float``, and so does pytrec_eval-terrier (built on 9.x):
      scores that differ only beyond single precision tie and are then ordered by docno. The comparison is on
      ``scores.astype(float32)``. Issue 12's minimal case: scores 1.00000001 and 1.0 order by score in 10.0
      (AP 0.5) and tie in 9.0.8 (docno b before a: AP 1.0).

    Run files are nearly sorted already, so the work is done where it is needed: a stable sort on the block number
    if blocks are interleaved; a full sort of the few blocks with score inversions; and, for the many runs of tied
    scores, a sort of just the tied rows by docno descending.
    """
    n = len(group)
    # a copy either way: safe to reorder in place below
    scores = np.array(scores, dtype=np.float32 if check_ties(ties) == "float32" else np.float64)
    docno_ranks = np.array(docno_ranks, copy=True)
    order = None
    if n > 1 and (group[1:] < group[:-1]).any():
        order = np.argsort(group, kind="stable")
        group, scores, docno_ranks = group[order], scores[order], docno_ranks[order]
    same = group[1:] == group[:-1]
    inverted = same & (scores[1:] > scores[:-1])
    if inverted.any():  # few blocks: sort them whole, moving only their rows
        rows = np.flatnonzero(np.isin(group, np.unique(group[1:][inverted])))
        moved = rows[np.lexsort((-docno_ranks[rows], -scores[rows], group[rows]))]
        order = np.arange(n) if order is None else order
        order[rows], scores[rows], docno_ranks[rows] = order[moved], scores[moved], docno_ranks[moved]
    tied = same & (scores[1:] == scores[:-1])
    if (tied & (docno_ranks[1:] >= docno_ranks[:-1])).any():  # runs of tied scores: docno descending
        in_tie = np.zeros(n, bool)
        in_tie[1:] |= tied
        in_tie[:-1] |= tied
        rows = np.flatnonzero(in_tie)
        segment = np.cumsum(~np.concatenate([[False], tied])[rows])  # consecutive tied rows share a segment
        moved = rows[segment_then_descending(segment, docno_ranks[rows])]
        order = np.arange(n) if order is None else order
        order[rows] = order[moved]
    return order


@dataclass(frozen=True)
class Run:
    """One run: parallel columns topic, docno (string arrays: numpy object or pyarrow) and score (float64).

    ``ordered`` says the rows are in trec_eval order (topic ascending as strings, score descending, docno
    descending); :func:`read_run` returns ordered runs, the bulk loader orders them itself.
    """

    name: str
    topic: object
    docno: object
    score: np.ndarray
    ordered: bool = True
    source: str | None = None  # the file it was read from, for error messages

    def __len__(self) -> int:
        return len(self.score)

    @property
    def topics(self) -> np.ndarray:
        return np.unique(np.asarray(self.topic, dtype=object))

    def in_trec_eval_order(self, ties: str = "float64") -> "Run":
        """The run sorted as trec_eval sorts it (``ties``: see :func:`trec_eval_order`)."""
        if self.ordered and check_ties(ties) == "float64":
            return self
        topic = pa.array(np.asarray(self.topic, dtype=object), pa.string()) if not isinstance(self.topic, pa.Array) else self.topic
        docno = pa.array(np.asarray(self.docno, dtype=object), pa.string()) if not isinstance(self.docno, pa.Array) else self.docno
        t, d = topic.dictionary_encode(), docno.dictionary_encode()
        t_rank = _dictionary_ranks(t.dictionary)[t.indices.to_numpy()]
        d_rank = _dictionary_ranks(d.dictionary)[d.indices.to_numpy()]
        order = trec_eval_order(t_rank, self.score, d_rank, ties=ties)
        if order is None:
            return Run(self.name, topic, docno, self.score, True, self.source)
        taker = pa.array(order)
        return Run(self.name, topic.take(taker), docno.take(taker), self.score[order], True, self.source)

    def to_frame(self) -> pd.DataFrame:
        """The run as a DataFrame (trec_eval order) with trec_eval's 1-based rank within each topic."""
        import pandas as pd

        run = self.in_trec_eval_order()
        frame = pd.DataFrame({"topic": np.asarray(run.topic, dtype=object), "docno": np.asarray(run.docno, dtype=object),
                              "score": run.score})
        frame["rank"] = frame.groupby("topic", sort=False).cumcount() + 1
        return frame


def _dictionary_ranks(dictionary: pa.Array) -> np.ndarray:
    """Rank of each dictionary entry in byte-wise (strcmp) order."""
    order = pc.sort_indices(dictionary).to_numpy()
    ranks = np.empty(len(order), np.int64)
    ranks[order] = np.arange(len(order))
    return ranks


@dataclass(frozen=True)
class Qrels:
    """Relevance judgments, sorted by topic then docno.

    ``grade`` is the relevance grade; negative means in the pool but unjudged (for the sampled form, -1 is
    "pooled, not sampled"). ``stratum`` is None for the 4-column form.
    """

    topic: np.ndarray  # (n,) object array of str
    docno: np.ndarray  # (n,) object array of str
    grade: np.ndarray  # (n,) int64
    stratum: np.ndarray | None = None  # (n,) int64 or None
    name: str = "qrels"

    def __len__(self) -> int:
        return len(self.docno)

    @property
    def sampled(self) -> bool:
        return self.stratum is not None

    @property
    def topics(self) -> np.ndarray:
        return np.unique(self.topic)

    def to_frame(self) -> pd.DataFrame:
        import pandas as pd

        frame = pd.DataFrame({"topic": self.topic, "docno": self.docno, "grade": self.grade})
        if self.stratum is not None:
            frame.insert(2, "stratum", self.stratum)
        return frame

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, name: str = "qrels") -> "Qrels":
        """Build from a DataFrame with columns topic, docno, grade and optionally stratum (sorted here)."""
        frame = frame.sort_values(["topic", "docno"], kind="stable")
        stratum = frame["stratum"].to_numpy(np.int64) if "stratum" in frame else None
        return cls(
            topic=frame["topic"].astype(str).to_numpy(object),
            docno=frame["docno"].astype(str).to_numpy(object),
            grade=frame["grade"].to_numpy(np.int64),
            stratum=stratum,
            name=name,
        )


# ------------------------------------------------------------------------------------------------- runs

_RUN_FIELDS = "6 columns (topic Q0 docno rank score tag)"


def _run_fields(name: str, data: bytes) -> Fields:
    """topic, Q0, docno, rank, score, tag of each run line; fields after the tag are ignored (as trec_eval does)."""
    check_bytes(name, data)
    fields = fast_fields(data, (6,), floats=(4,), skip=(1, 3))  # Q0 and rank are never read
    if fields is None:
        fields = canonical_fields(name, data, (6, -1), 6, _RUN_FIELDS)
    if not len(fields):
        raise TrecFormatError(name, None, "no run lines (only comments and blank lines)")
    return fields


def _one_value(column: pa.Array) -> bool:
    """Whether every entry of a non-empty string column equals the first (compared, not hashed: a run's tag column
    nearly always holds one value)."""
    return bool(pc.all(pc.equal(column, column[0])).as_py())


def parse_run(path: os.PathLike | str, name: str | None = None, check_duplicates: bool = True,
              one_tag: bool = False) -> Run:
    """Parse one run file without ordering it (``Run.ordered`` is False): the bulk loader orders all runs at once.

    Checks everything :func:`read_run` checks; see there. ``check_duplicates=False`` leaves the duplicate-docno
    check to the caller (:meth:`evalkit.data.collection.Collection.from_runs` does it on the dense arrays, cheaper, and
    calls :func:`explain_run_error` to name the line). ``one_tag=True`` (a dataset folder's runs, whose names the
    folder's metadata refers to) refuses a tag column holding more than one value, naming the first line whose tag
    differs from the first line's, where the default names such a run after its file as trec_eval would read it.
    """
    source = source_name(path)
    data = read_bytes(path)
    fields = _run_fields(source, data)
    topic, docno, tag = fields.columns[0], fields.columns[2], fields.columns[5]
    scores = parse_scores(source, fields, fields.columns[4])
    if check_duplicates or source == STDIN_NAME:  # standard input cannot be re-read to name the line later
        found = duplicate_rows(topic, docno)
        if found is not None:
            raise_duplicate(source, fields, topic, docno, found)
    if name is None:
        if _one_value(tag):
            name = tag[0].as_py()
        elif one_tag:
            row = pc.index(pc.not_equal(tag, tag[0]), True).as_py()
            raise TrecFormatError(source, fields.line(row), f"tag {shown(tag[row].as_py())} where line "
                                  f"{fields.line(0)} has {shown(tag[0].as_py())}: a run file of a dataset folder "
                                  "holds one run, named by its tag (the 6th column); give every line the run's tag, "
                                  "or split the file into one file per run")
        else:
            name = STDIN_NAME if source == STDIN_NAME else name_from_file(path)
    return Run(name=name, topic=topic, docno=docno, score=scores, ordered=False, source=source)


def name_from_file(path: os.PathLike | str) -> str:
    """A run's name when its tag column holds several values: its file's name without ``.gz`` and TREC's ``input.``
    prefix (as trec_eval's users name runs)."""
    return Path(path).name.removesuffix(".gz").removeprefix("input.")


def explain_run_error(path: os.PathLike | str) -> None:
    """Re-read ``path`` and raise the :class:`TrecFormatError` for its first bad line (e.g. a repeated docno)."""
    parse_run(path, check_duplicates=True)


def read_run(path: os.PathLike | str, name: str | None = None, ties: str = "float64") -> Run:
    """Read one TREC run file (plain or .gz; ``-`` for standard input) into a :class:`Run` in trec_eval order.

    Lines are read as trec_eval 10.0 reads them: ``topic Q0 docno rank score tag``, separated by any blanks;
    blank lines and comment lines (first field starting with ``#``) skipped; fields after the tag ignored; the
    Q0 and rank fields not read at all. The score must be wholly a finite decimal number (see the module
    docstring). The run's name is ``name`` if given, else its tag column (when it holds a single value), else
    the file name (a dataset folder refuses such a file instead: :func:`parse_run`'s ``one_tag``).

    Raises :class:`TrecFormatError` naming the file, the line and the problem on fewer than 6 fields, a score
    that is not a finite decimal number, a docno repeated in a topic, text that is not UTF-8, NUL bytes, empty
    files and unreadable gzip data. ``ties``: see :func:`trec_eval_order` (trec_eval 10.0's by default).
    """
    return parse_run(path, name).in_trec_eval_order(ties)


def write_run(run: Run, path: os.PathLike | str) -> Path:
    """Write ``run`` in TREC format (gzip if the name ends in .gz), ranks renumbered from 1; atomically."""
    frame = run.to_frame()
    text = "".join(
        f"{t} Q0 {d} {r} {s!r} {run.name}\n"
        for t, d, r, s in zip(frame["topic"], frame["docno"], frame["rank"], frame["score"].tolist())
    )
    return atomic_write(path, text.encode())


# ------------------------------------------------------------------------------------------------ qrels

STRATUM_MAX = 2**31 - 1

_QRELS_FIELDS = "4 columns (topic iter docno rel) or 5 (topic iter docno stratum rel)"


@dataclass
class QrelsColumns:
    """A qrels file's columns as read, in file order (pyarrow string arrays ``topic`` and ``docno``, ``grade`` and
    ``stratum`` as :class:`Qrels` has them), checked as :func:`read_qrels` checks them: what a collection build needs
    of the file, without sorting it or making a Python string of each id."""

    topic: pa.Array
    docno: pa.Array
    grade: np.ndarray
    stratum: np.ndarray | None
    name: str


def read_qrels_columns(path: os.PathLike | str, check_pairs: bool = True, data: bytes | None = None) -> QrelsColumns:
    """:func:`read_qrels`' columns, in file order, every check made: the same errors, raised at the same lines.
    ``check_pairs=False`` leaves out one check, that no (topic, docno) pair is repeated, for a caller that makes it
    on ids it computes anyway (the compiled build: :func:`evalkit.data.native_build.build_arrays`). ``data``: the
    file's bytes as :func:`read_bytes` gives them, when the caller has read them already."""
    source = source_name(path)
    data = read_bytes(path) if data is None else data
    check_bytes(source, data)
    fields = fast_fields(data, (4, 5), skip=(1,))  # the iter column is never read
    if fields is None:
        fields = canonical_fields(source, data, (4, 5), 5, _QRELS_FIELDS, uniform=True)
    if not len(fields):
        raise TrecFormatError(source, None, "no qrels lines (only comments and blank lines)")
    width = len(fields.columns)
    topic, docno = fields.columns[0], fields.columns[2]
    grade = parse_integers(source, fields, fields.columns[-1], "relevance grade", GRADE_MIN, GRADE_MAX)
    stratum = None
    if width == 5:
        stratum = parse_integers(source, fields, fields.columns[3], "stratum", 0, STRATUM_MAX)
    found = duplicate_rows(topic, docno) if check_pairs else None
    if found is not None:
        raise_duplicate(source, fields, topic, docno, found)
    return QrelsColumns(topic=topic, docno=docno, grade=grade, stratum=stratum, name=Path(source).name)


def read_qrels(path: os.PathLike | str) -> Qrels:
    """Read qrels: 4 columns ``topic iter docno rel`` or 5 columns ``topic iter docno stratum rel`` (``-`` reads
    standard input).

    The form is taken from the first data line; every line must then have the same number of columns. Blank
    lines and comment lines (first field starting with ``#``) are skipped. Grades are read as trec_eval's atol
    reads them but must be wholly decimal integers in ``GRADE_MIN..GRADE_MAX`` (-2147483646..2147483647);
    strata integers in ``0..2147483647``. A (topic, docno) pair may appear once. Every problem raises
    :class:`TrecFormatError` naming the file, the line and what is wrong.
    """
    columns = read_qrels_columns(path)
    topic, docno = columns.topic, columns.docno
    order = pc.sort_indices(pa.table({"t": topic, "d": docno}), [("t", "ascending"), ("d", "ascending")])
    order = order.to_numpy()
    return Qrels(
        topic=np.asarray(topic.take(order).to_numpy(zero_copy_only=False), object),
        docno=np.asarray(docno.take(order).to_numpy(zero_copy_only=False), object),
        grade=columns.grade[order],
        stratum=None if columns.stratum is None else columns.stratum[order],
        name=columns.name,
    )


def write_qrels(qrels: Qrels, path: os.PathLike | str) -> Path:
    """Write qrels in the 4-column form, or the 5-column sampled form when ``qrels.stratum`` is set; atomically."""
    if qrels.stratum is None:
        rows = (f"{t} 0 {d} {g}\n" for t, d, g in zip(qrels.topic, qrels.docno, qrels.grade.tolist()))
    else:
        rows = (
            f"{t} 0 {d} {s} {g}\n"
            for t, d, s, g in zip(qrels.topic, qrels.docno, qrels.stratum.tolist(), qrels.grade.tolist())
        )
    return atomic_write(path, "".join(rows).encode())


# ------------------------------------------------------------------------------------------- runs table

_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def read_runs_table(path: os.PathLike | str, with_lines: bool = False):
    """Read a run table (``runs_table.tsv``): tab-separated, a header line naming the columns, one row a run.

    A ``run`` column is required; ``group``, ``track``, ``type`` are read as strings (``NA``, ``null``, ``N/A``,
    ``nan`` and empty cells stay the strings they are, never missing values), ``pool_priority`` as a number (an
    empty cell is missing). Cells are stripped of surrounding blanks; blank lines are skipped. Returns a DataFrame
    indexed by ``run``. Raises :class:`TrecFormatError` naming the file and line for a missing ``run`` column, a
    repeated column or run, a row with more or fewer cells than the header, an empty run name, or a pool
    priority that is not a number. With ``with_lines``: ``(frame, {run: its line number in the file})``, for
    errors about a row found later (e.g. :func:`evalkit.data.folder.parse_judged_column`).
    """
    import pandas as pd

    source = source_name(path)
    data = read_bytes(path)
    check_bytes(source, data)
    rows = [(number, [cell.strip() for cell in line.removesuffix("\r").split("\t")])
            for number, line in enumerate(data.decode("utf-8").split("\n"), start=1) if line.strip()]
    (header_line, header), body = rows[0], rows[1:]
    if "run" not in header:
        raise TrecFormatError(source, header_line, f"no 'run' column in the header (columns: {', '.join(header)}); "
                                                   "the first line must name the tab-separated columns")
    seen_columns: dict[str, int] = {}
    for i, column in enumerate(header):
        if not column:
            raise TrecFormatError(source, header_line, f"column {i + 1} of the header has no name")
        if seen_columns.setdefault(column, i) != i:
            raise TrecFormatError(source, header_line, f"column {column!r} appears twice in the header")
    run_at = header.index("run")
    first_line: dict[str, int] = {}
    for number, cells in body:
        if len(cells) != len(header):
            raise TrecFormatError(source, number, f"expected {len(header)} tab-separated cells like the header, "
                                                  f"found {len(cells)}")
        run = cells[run_at]
        if not run:
            raise TrecFormatError(source, number, "empty run name")
        first = first_line.setdefault(run, number)
        if first != number:
            raise TrecFormatError(source, number, f"run {run!r} is listed twice (first on line {first})")
    columns = {name: [cells[i] for _, cells in body] for i, name in enumerate(header)}
    frame = pd.DataFrame(columns)  # strings as pandas infers them (str in pandas 3), never parsed as missing
    if "pool_priority" in columns:
        for number, cells in body:
            cell = cells[header.index("pool_priority")]
            if cell and not _NUMBER.fullmatch(cell):
                raise TrecFormatError(source, number, f"pool_priority {cell!r} is not a number")
        frame["pool_priority"] = [float(v) if v else np.nan for v in columns["pool_priority"]]
    frame = frame.set_index("run")
    return (frame, first_line) if with_lines else frame


def atomic_write(path: os.PathLike | str, payload: bytes) -> Path:
    """Write ``payload`` to ``path`` whole or not at all (temporary file + rename); gzip when it ends in .gz."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".gz":
        payload = gzip.compress(payload, mtime=0)
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(payload)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
