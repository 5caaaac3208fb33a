"""Reading and writing TREC runs and qrels, strictly.

Formats
-------
run             ``topic Q0 docno rank score tag`` (any whitespace, plain or gzip). Each topic is put in
                trec_eval's order: score descending, ties broken by docno descending (``strcmp``); the rank
                column is read but ignored, as trec_eval ignores it.
qrels           ``topic iter docno rel`` (graded; a negative grade means "in the pool, not judged").
sampled qrels   ``topic iter docno stratum rel`` as NIST's ``sample_eval.pl`` reads it: ``rel = -1`` marks a
                document that was in the pool (it has a stratum) but was not drawn into the judged sample.

Errors
------
Every problem with an input file raises :class:`TrecFormatError` naming the file, the line (1-based) and what is
wrong; nothing is returned half-loaded. Writers write to a temporary file beside the target and rename it, so an
output is written whole or not at all.

The fast path hands the decompressed bytes to pandas' C tokenizer; whenever that path sees anything unusual
(a count mismatch, an empty field, a conversion error) the file is re-read by a line-by-line parser that finds
the first offending line and reports it.
"""

from __future__ import annotations

import csv
import gzip
import io as _io
import os
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

__all__ = [
    "TrecFormatError",
    "Run",
    "Qrels",
    "read_run",
    "parse_run",
    "explain_run_error",
    "trec_eval_order",
    "read_qrels",
    "write_run",
    "write_qrels",
    "atomic_write",
]


class TrecFormatError(ValueError):
    """A TREC run or qrels file that cannot be read: ``file:line: problem``."""

    def __init__(self, path: os.PathLike | str, line: int | None, problem: str):
        self.path = str(path)
        self.line = line
        self.problem = problem
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {problem}")


def trec_eval_order(group: np.ndarray, scores: np.ndarray, docno_ranks: np.ndarray) -> np.ndarray | None:
    """The permutation putting rows in trec_eval order (group ascending, score descending, docno descending), or
    None when they already are. ``group`` numbers the (run, topic) blocks; ``docno_ranks`` must order like the
    docno strings (e.g. ids into a sorted vocabulary).

    Scores are compared as trec_eval compares them: trec_eval keeps a run's scores in a C ``float`` (single
    precision, ``TEXT_RESULTS.sim``), so scores that differ only beyond float32 precision tie and are then ordered
    by docno. The comparison here is on ``scores.astype(float32)`` for that reason.

    Run files are nearly sorted already, so the work is done where it is needed: a stable sort on the block number
    if blocks are interleaved; a full sort of the few blocks with score inversions; and, for the many runs of tied
    scores, a sort of just the tied rows by docno descending.
    """
    n = len(group)
    scores = np.asarray(scores).astype(np.float32)  # a copy: safe to reorder in place below
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
        moved = rows[np.lexsort((-docno_ranks[rows], segment))]
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

    def in_trec_eval_order(self) -> "Run":
        if self.ordered:
            return self
        topic = pa.array(np.asarray(self.topic, dtype=object), pa.string()) if not isinstance(self.topic, pa.Array) else self.topic
        docno = pa.array(np.asarray(self.docno, dtype=object), pa.string()) if not isinstance(self.docno, pa.Array) else self.docno
        t, d = topic.dictionary_encode(), docno.dictionary_encode()
        t_rank = _dictionary_ranks(t.dictionary)[t.indices.to_numpy()]
        d_rank = _dictionary_ranks(d.dictionary)[d.indices.to_numpy()]
        order = trec_eval_order(t_rank, self.score, d_rank)
        if order is None:
            return Run(self.name, topic, docno, self.score, True)
        taker = pa.array(order)
        return Run(self.name, topic.take(taker), docno.take(taker), self.score[order], True)

    def to_frame(self) -> pd.DataFrame:
        """The run as a DataFrame (trec_eval order) with trec_eval's 1-based rank within each topic."""
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


# ----------------------------------------------------------------------------------------------- bytes


try:  # Intel's ISA-L inflates about twice as fast as zlib; same format, same errors reported
    from isal import igzip as _gzip
    from isal.isal_zlib import error as _inflate_error
except ImportError:  # pragma: no cover - isal is a dependency, but the kit still works without it
    _gzip, _inflate_error = gzip, zlib.error


def _read_bytes(path: Path) -> bytes:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise TrecFormatError(path, None, f"cannot read file: {exc.strerror or exc}") from None
    if raw[:2] == b"\x1f\x8b" or path.suffix == ".gz":
        try:
            raw = _gzip.decompress(raw)
        except (OSError, EOFError, zlib.error, _inflate_error) as exc:
            raise TrecFormatError(path, None, f"unreadable gzip data: {exc}") from None
    if not raw.strip():
        raise TrecFormatError(path, None, "empty file: no lines to read")
    return raw


def _count_lines(data: bytes) -> int:
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def _fields(data: bytes):
    """Yield (line number, fields) for each non-blank line; the slow, exact path."""
    for number, line in enumerate(data.split(b"\n"), start=1):
        fields = line.split()
        if fields:
            yield number, fields


def _decode(path: Path, number: int, token: bytes) -> str:
    try:
        return token.decode("utf-8")
    except UnicodeDecodeError:
        raise TrecFormatError(path, number, f"field {token!r} is not valid UTF-8") from None


# ------------------------------------------------------------------------------------------------- runs


_RUN_COLUMNS = ["topic", "q0", "docno", "rank", "score", "tag"]


def _parse_run_exact(path: Path, data: bytes) -> pd.DataFrame:
    """Line-by-line run parser: the first bad line raises, naming it."""
    topics, docnos, scores, tags = [], [], [], []
    seen: dict[str, dict[str, int]] = {}
    for number, fields in _fields(data):
        if len(fields) != 6:
            raise TrecFormatError(
                path, number, f"expected 6 columns (topic Q0 docno rank score tag), found {len(fields)}"
            )
        topic, docno = _decode(path, number, fields[0]), _decode(path, number, fields[2])
        try:
            score = float(fields[4])
        except ValueError:
            raise TrecFormatError(path, number, f"score {fields[4].decode(errors='replace')!r} is not a number") from None
        if not np.isfinite(score):
            raise TrecFormatError(path, number, f"score {fields[4].decode(errors='replace')!r} is not finite")
        first = seen.setdefault(topic, {}).setdefault(docno, number)
        if first != number:
            raise TrecFormatError(path, number, f"duplicate docno {docno!r} in topic {topic} (first on line {first})")
        topics.append(topic)
        docnos.append(docno)
        scores.append(score)
        tags.append(_decode(path, number, fields[5]))
    return pd.DataFrame({"topic": topics, "docno": docnos, "score": np.asarray(scores, np.float64), "tag": tags})


def _parse_run_arrow(data: bytes):
    """pyarrow's multithreaded CSV reader on a single-character delimiter sniffed from the first line.

    Returns a pyarrow Table (topic, docno, score, tag) or None when the file does not fit that shape (mixed
    whitespace, a bad line...): the slower parsers then take over and name the problem.
    """
    first = data[: data.find(b"\n")] if b"\n" in data else data
    has_tab, has_space = b"\t" in first, b" " in first
    if has_tab == has_space:
        return None
    try:
        table = pacsv.read_csv(
            pa.py_buffer(data),
            read_options=pacsv.ReadOptions(column_names=_RUN_COLUMNS, use_threads=False, block_size=1 << 28),
            parse_options=pacsv.ParseOptions(delimiter="\t" if has_tab else " ", quote_char=False,
                                             double_quote=False, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(
                column_types={"topic": pa.string(), "q0": pa.string(), "docno": pa.string(), "rank": pa.string(),
                              "score": pa.float64(), "tag": pa.string()},
                include_columns=["topic", "docno", "score", "tag"],
                strings_can_be_null=False, quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    table = table.combine_chunks()
    if table.num_rows != _count_lines(data):
        return None
    for column in ("topic", "docno", "tag"):  # an empty field: two delimiters in a row, or one at a line's end
        if pc.min(pc.binary_length(table[column])).as_py() == 0:
            return None
    if table["score"].null_count or not np.isfinite(table["score"].to_numpy()).all():
        return None
    return table


def _parse_run_pandas(data: bytes):
    """pandas' C tokenizer on any whitespace; None when anything looks off."""
    try:
        frame = pd.read_csv(
            _io.BytesIO(data), sep=r"\s+", header=None, dtype=str, engine="c", na_filter=False,
            quoting=csv.QUOTE_NONE, skip_blank_lines=True,
        )
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError):
        return None
    if frame.shape[1] != 6 or len(frame) != _count_lines(data):
        return None
    frame.columns = _RUN_COLUMNS
    try:
        frame["score"] = frame["score"].astype(np.float64)
    except ValueError:
        return None
    if (frame[["topic", "docno", "tag"]] == "").any().any() or not np.isfinite(frame["score"].to_numpy()).all():
        return None
    return pa.Table.from_pandas(frame[["topic", "docno", "score", "tag"]], preserve_index=False)


def _has_duplicates(topic: pa.Array, docno: pa.Array) -> bool:
    t = topic.dictionary_encode().indices.to_numpy().astype(np.int64)
    d = docno.dictionary_encode().indices.to_numpy().astype(np.int64)
    keys = np.sort(t * (int(d.max(initial=0)) + 1) + d)
    return bool((keys[1:] == keys[:-1]).any())


def parse_run(path: os.PathLike | str, name: str | None = None, check_duplicates: bool = True) -> Run:
    """Parse one run file without ordering it (``Run.ordered`` is False): the bulk loader orders all runs at once.

    Checks everything :func:`read_run` checks; see there. ``check_duplicates=False`` leaves the duplicate-docno
    check to the caller (:meth:`evalkit.collection.Collection.from_runs` does it on the dense arrays, cheaper, and
    calls :func:`explain_run_error` to name the line).
    """
    path = Path(path)
    data = _read_bytes(path)
    table = _parse_run_arrow(data)
    if table is None:
        table = _parse_run_pandas(data)
    if table is None or (check_duplicates and _has_duplicates(table["topic"].combine_chunks(),
                                                              table["docno"].combine_chunks())):
        table = pa.Table.from_pandas(_parse_run_exact(path, data), preserve_index=False)  # raises on a bad line
    if name is None:
        tags = pc.unique(table["tag"])
        name = tags[0].as_py() if len(tags) == 1 else path.name.removesuffix(".gz").removeprefix("input.")
    return Run(
        name=name,
        topic=table["topic"].combine_chunks(),
        docno=table["docno"].combine_chunks(),
        score=table["score"].to_numpy(),
        ordered=False,
        source=str(path),
    )


def explain_run_error(path: os.PathLike | str) -> None:
    """Re-read ``path`` line by line and raise the :class:`TrecFormatError` for its first bad line."""
    path = Path(path)
    _parse_run_exact(path, _read_bytes(path))


def read_run(path: os.PathLike | str, name: str | None = None) -> Run:
    """Read one TREC run file (plain or .gz) into a :class:`Run` in trec_eval order.

    The run's name is ``name`` if given, else its tag column (which must be a single value), else the file name.
    Raises :class:`TrecFormatError` on wrong column counts, non-numeric scores, duplicate docnos in a topic,
    empty files and unreadable gzip data.
    """
    return parse_run(path, name).in_trec_eval_order()


def write_run(run: Run, path: os.PathLike | str) -> Path:
    """Write ``run`` in TREC format (gzip if the name ends in .gz), ranks renumbered from 1; atomically."""
    frame = run.to_frame()
    text = "".join(
        f"{t} Q0 {d} {r} {s!r} {run.name}\n"
        for t, d, r, s in zip(frame["topic"], frame["docno"], frame["rank"], frame["score"].tolist())
    )
    return atomic_write(path, text.encode())


# ------------------------------------------------------------------------------------------------ qrels


def _parse_int(path: Path, number: int, token: bytes, what: str) -> int:
    try:
        return int(token)
    except ValueError:
        raise TrecFormatError(path, number, f"{what} {token.decode(errors='replace')!r} is not an integer") from None


def read_qrels(path: os.PathLike | str) -> Qrels:
    """Read qrels: 4 columns ``topic iter docno rel`` or 5 columns ``topic iter docno stratum rel``.

    The form is taken from the first line; every line must then have the same number of columns. Grades (and
    strata) must be integers; a (topic, docno) pair may appear once.
    """
    path = Path(path)
    data = _read_bytes(path)
    width = None
    topics, docnos, grades, strata = [], [], [], []
    seen: dict[tuple[str, str], int] = {}
    for number, fields in _fields(data):
        if width is None:
            if len(fields) not in (4, 5):
                raise TrecFormatError(
                    path,
                    number,
                    f"expected 4 columns (topic iter docno rel) or 5 (topic iter docno stratum rel), found {len(fields)}",
                )
            width = len(fields)
        elif len(fields) != width:
            raise TrecFormatError(path, number, f"expected {width} columns like the first line, found {len(fields)}")
        topic, docno = _decode(path, number, fields[0]), _decode(path, number, fields[2])
        key = (topic, docno)
        first = seen.setdefault(key, number)
        if first != number:
            raise TrecFormatError(path, number, f"duplicate docno {docno!r} in topic {topic} (first on line {first})")
        topics.append(topic)
        docnos.append(docno)
        grades.append(_parse_int(path, number, fields[-1], "relevance grade"))
        if width == 5:
            strata.append(_parse_int(path, number, fields[3], "stratum"))
    frame = pd.DataFrame({"topic": topics, "docno": docnos, "grade": np.asarray(grades, np.int64)})
    if width == 5:
        frame["stratum"] = np.asarray(strata, np.int64)
    return Qrels.from_frame(frame, name=path.name)


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
