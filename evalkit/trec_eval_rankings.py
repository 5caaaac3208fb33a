"""Runs and qrels read and ranked exactly as trec_eval reads and ranks them, as numpy arrays (no pandas, no pyarrow).

What trec_eval does (``get_trec_results.c``, ``get_qrels.c``, ``form_res_rels.c``) and this module repeats:

* a run line is ``qid iter docno rank sim runid [anything]``; fields after the runid are ignored, ``#`` starts
  a comment line, blank lines are skipped; the runid printed is the one on the last line;
* a qrels line is ``qid iter docno rel``; ``#`` comment lines are skipped; a negative rel means "in the pool but
  not judged" (``RELVALUE_UNJUDGED``, used by infAP), a retrieved document absent from the qrels is
  ``RELVALUE_NONPOOL``;
* each topic's documents are ranked by score descending, ties broken by docno descending (``strcmp``), then cut
  at ``-M`` documents; ``-J`` then drops the documents not judged (keeping the order).

Score ties (``ties=``): trec_eval 10.0 keeps scores as C ``double`` (``ties="float64"``, the kit's default) and
trec_eval 9.0.8 — and pytrec_eval-terrier, which embeds 9.x — as C ``float`` (``ties="float32"``): scores equal
in single precision but not in double precision tie in 9.0.8 and are then ordered by docno.

Where the kit is stricter than trec_eval (clear errors naming file and line instead of a silent reading): a score
that is not a number (trec_eval's ``atof`` reads it as 0), a relevance that is not an integer (``atol`` reads
``1.5`` as 1), a qrels line with more than four fields, a document twice in one topic (trec_eval exits 4 without
the line), a NUL byte. Blank qrels lines are skipped (trec_eval refuses them).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

import numpy as np

from .errors import TrecFormatError

STDIN = "-"
STDIN_NAME = "<stdin>"
RELVALUE_NONPOOL = -1  # retrieved, not in the qrels (trec_eval.h)
RELVALUE_UNJUDGED = -2  # in the qrels with a negative relevance: pooled, not judged
PAD = np.iinfo(np.int64).min  # past the end of a topic's ranking: below every code and every relevance
TIE_MODES = ("float64", "float32")
_WHITESPACE = np.zeros(256, bool)
_WHITESPACE[[9, 10, 11, 12, 13, 32]] = True  # C isspace


def read_input(path: os.PathLike | str) -> tuple[str, bytes]:
    """(name for messages, bytes) of a file, ``-`` being standard input; gzip is decompressed."""
    if str(path) == STDIN:
        return STDIN_NAME, sys.stdin.buffer.read()
    name = str(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise TrecFormatError(name, None, f"cannot read file: {exc.strerror or exc}") from None
    if data[:2] == b"\x1f\x8b":
        import gzip
        import zlib

        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise TrecFormatError(name, None, f"unreadable gzip data: {exc}") from None
    return name, data


def _check_text(name: str, data: bytes) -> None:
    if not data.strip():
        raise TrecFormatError(name, None, "empty file: no lines to read")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise TrecFormatError(name, data.count(b"\n", 0, nul) + 1, "NUL byte (binary data, not a TREC text file)")


def _tokens_per_line(data: bytes) -> np.ndarray:
    """Number of whitespace-separated fields on each line (one entry per line, vectorized over the bytes)."""
    raw = np.frombuffer(data, np.uint8)
    space = _WHITESPACE[raw]
    starts = ~space
    starts[1:] &= space[:-1]
    ends = np.flatnonzero(raw == 10)
    if len(raw) and raw[-1] != 10:
        ends = np.append(ends, len(raw))
    counts = np.cumsum(starts)
    at_end = np.where(ends > 0, counts[np.maximum(ends - 1, 0)], 0) if len(counts) else np.zeros(0, np.int64)
    return np.diff(np.concatenate([[0], at_end]))


def _fields(name: str, data: bytes, width: int, exact: bool, what: str) -> tuple[list, np.ndarray]:
    """(flat token list with ``width`` tokens per kept line, line numbers of kept lines). A run line keeps its first
    ``width`` fields (``exact=False``: more are ignored); a qrels line must have exactly ``width``."""
    _check_text(name, data)
    per_line = _tokens_per_line(data)
    if b"#" not in data and (per_line == width).all():  # the common case: no comments, no blank lines
        return data.split(), np.arange(1, len(per_line) + 1)
    tokens, numbers = [], []
    for number, line in enumerate(data.split(b"\n"), start=1):
        if line.startswith(b"#") or (per_line[number - 1] if number <= len(per_line) else 0) == 0:
            continue
        parts = line.split()
        if len(parts) < width or (exact and len(parts) > width):
            raise TrecFormatError(name, number, f"{len(parts)} fields where {what} needs "
                                                f"{'exactly ' if exact else ''}{width}: {line[:80]!r}")
        tokens.extend(parts[:width])
        numbers.append(number)
    if not numbers:
        raise TrecFormatError(name, None, "no lines to read (only comments or blank lines)")
    return tokens, np.asarray(numbers)


def _bad_number(name: str, texts: list, numbers: np.ndarray, parse, what: str):
    for text, number in zip(texts, numbers):
        try:
            parse(text)
        except ValueError:
            raise TrecFormatError(name, int(number), f"{what} {text.decode(errors='replace')!r} is not a number"
                                  ) from None
    raise TrecFormatError(name, None, f"unreadable {what}")


@dataclass
class Qrels:
    """A qrels file as trec_eval holds it: per topic (in ``strcmp`` order) its judged documents and grades."""

    name: str
    topics: list  # bytes, strcmp order
    lookup: dict  # (topic bytes, docno bytes) -> grade (negative grades already RELVALUE_UNJUDGED)
    levels: np.ndarray  # (n_topics, max_grade + 1) number of documents judged at each grade >= 0
    positive_total: int  # documents with grade > 0 over all topics (the -c num_rel summary)

    def index(self) -> dict:
        return {t: i for i, t in enumerate(self.topics)}


def read_qrels(path: os.PathLike | str) -> Qrels:
    """Read a qrels file (``qid iter docno rel``); see the module notes for what is refused."""
    name, data = read_input(path)
    tokens, numbers = _fields(name, data, 4, True, "a qrels line")
    qids = tokens[0::4]
    docnos = tokens[2::4]
    rel_text = tokens[3::4]
    try:
        grades = np.array([int(t) for t in rel_text], dtype=np.int64)
    except (ValueError, OverflowError):
        _bad_number(name, rel_text, numbers, int, "relevance")
    lookup = dict(zip(zip(qids, docnos), grades.tolist()))
    if len(lookup) != len(qids):
        seen = {}
        for row, key in enumerate(zip(qids, docnos)):
            if key in seen:
                raise TrecFormatError(name, int(numbers[row]), f"document {key[1].decode(errors='replace')} "
                                      f"judged twice for topic {key[0].decode(errors='replace')} (first on line "
                                      f"{int(numbers[seen[key]])})")
            seen[key] = row
    topics = sorted(set(qids))
    topic_of = {t: i for i, t in enumerate(topics)}
    topic_ids = np.array([topic_of[q] for q in qids], dtype=np.int64)
    judged = grades >= 0
    max_grade = int(grades.max()) if judged.any() else 0
    levels = np.zeros((len(topics), max_grade + 1), np.int64)
    np.add.at(levels, (topic_ids[judged], grades[judged]), 1)
    for key, grade in lookup.items():
        if grade < 0:
            lookup[key] = RELVALUE_UNJUDGED
    return Qrels(name, topics, lookup, levels, int((grades > 0).sum()))


@dataclass
class RunFile:
    """A run file's lines as trec_eval keeps them: topic, docno, score text (parsed when ranked) and the runid."""

    name: str
    qids: list
    docnos: list
    scores: np.ndarray  # float64 as atof reads it
    runid: str
    numbers: np.ndarray  # line number of each kept line


def read_run(path: os.PathLike | str) -> RunFile:
    """Read a run file (``qid iter docno rank sim runid [...]``)."""
    name, data = read_input(path)
    tokens, numbers = _fields(name, data, 6, False, "a run line")
    sims = tokens[4::6]
    try:
        scores = np.array(sims).astype(np.float64)
    except ValueError:
        _bad_number(name, sims, numbers, float, "score")
    return RunFile(name, tokens[0::6], tokens[2::6], scores, tokens[-1].decode(errors="replace"), numbers)


@dataclass
class Judged:
    """One run's rankings with the judgments at each rank, for the topics evaluated (``RES_RELS`` for all topics
    at once). ``rel[t, i]`` is the grade of the document at rank ``i+1`` (or a ``RELVALUE_*`` code; ``PAD`` past
    ``num_ret[t]``); there is always one ``PAD`` column at the end."""

    topics: list  # topic ids (str) in trec_eval's order
    qrels_rows: np.ndarray  # row of each topic in Qrels.levels
    rel: np.ndarray  # (T, N + 1) int64
    num_ret: np.ndarray
    num_rel: np.ndarray  # grades >= relevance level in the qrels
    levels: np.ndarray  # (T, max_grade + 1) judged documents per grade (rel_levels)
    num_nonpool: np.ndarray
    num_unjudged: np.ndarray
    bogus: np.ndarray  # (T,) bool: a qrels topic the run lacks, scored on trec_eval 10.0's placeholder ranking
    relevance_level: int


def rank(run: RunFile, qrels: Qrels, ties: str = "float64", max_docs: int | None = None,
         judged_only: bool = False, relevance_level: int = 1, complete: bool = False) -> Judged:
    """Rank ``run`` as trec_eval does and look up each document's judgment.

    The topics kept are those in both the run and the qrels, in ``strcmp`` order. With ``complete`` (``-c``,
    trec_eval 10.0's way), qrels topics the run lacks are added on trec_eval's one-document placeholder ranking
    (``bogus=True``); the caller zeroes what trec_eval zeroes."""
    if ties not in TIE_MODES:
        raise ValueError(f"ties must be one of {TIE_MODES}, not {ties!r}")
    qids = np.array(run.qids)
    docnos = np.array(run.docnos)
    run_topics, topic_ids = np.unique(qids, return_inverse=True)
    scores = run.scores.astype(np.float32) if ties == "float32" else run.scores
    doc_order = np.argsort(docnos, kind="stable")
    doc_rank = np.empty(len(docnos), np.int64)
    doc_rank[doc_order] = np.arange(len(docnos))
    order = np.lexsort((-doc_rank, -scores.astype(np.float64), topic_ids))
    topic_sorted = topic_ids[order]
    starts = np.searchsorted(topic_sorted, np.arange(len(run_topics) + 1))
    counts = np.diff(starts)
    position = np.arange(len(order)) - starts[topic_sorted]
    _check_duplicates(run, qids, docnos, doc_order)

    qrels_index = qrels.index()
    kept = [i for i, t in enumerate(run_topics.tolist()) if t in qrels_index]
    keys = list(zip(qids[order].tolist(), docnos[order].tolist()))
    grades = np.array([qrels.lookup.get(k, RELVALUE_NONPOOL) for k in keys], dtype=np.int64)
    if max_docs is not None:
        take = position < max_docs
        order, topic_sorted, position, grades = order[take], topic_sorted[take], position[take], grades[take]
        counts = np.minimum(counts, max_docs)
    if judged_only:  # drop unjudged documents, keeping the order (form_res_rels.c, comp_rank_judged)
        take = grades >= 0
        topic_sorted, grades = topic_sorted[take], grades[take]
        counts = np.bincount(topic_sorted, minlength=len(run_topics))
        first = np.searchsorted(topic_sorted, np.arange(len(run_topics)))
        position = np.arange(len(topic_sorted)) - first[topic_sorted]

    topics = [run_topics[i] for i in kept]
    rows = [qrels_index[t] for t in topics]
    bogus = [False] * len(topics)
    if complete:
        have = set(topics)
        missing = [t for t in qrels.topics if t not in have]
        if missing:
            merged = sorted([(t, False) for t in topics] + [(t, True) for t in missing])
            topics = [t for t, _ in merged]
            bogus = [b for _, b in merged]
            rows = [qrels_index[t] for t in topics]
    n_topics = len(topics)
    width = int(counts[kept].max()) if kept else 0
    width = max(width, 1 if any(bogus) else 0) + 1
    rel = np.full((n_topics, width), PAD, np.int64)
    num_ret = np.zeros(n_topics, np.int64)
    run_row = np.full(len(run_topics), -1, np.int64)
    where = {t: i for i, t in enumerate(topics)}
    for i in kept:
        run_row[i] = where[run_topics[i]]
    target = run_row[topic_sorted]
    keep = target >= 0
    rel[target[keep], position[keep]] = grades[keep]
    num_ret[run_row[kept]] = counts[kept]
    bogus = np.array(bogus, bool)
    rel[bogus, 0] = RELVALUE_NONPOOL  # "ceci_nest_pas_un_docno", score 1.0
    num_ret[bogus] = 1
    levels = qrels.levels[rows] if rows else np.zeros((0, qrels.levels.shape[1]), np.int64)
    num_rel = levels[:, max(relevance_level, 0):].sum(axis=1) if relevance_level >= 0 else levels.sum(axis=1)
    return Judged(
        topics=[t.decode(errors="replace") for t in topics], qrels_rows=np.array(rows, np.int64), rel=rel,
        num_ret=num_ret, num_rel=num_rel, levels=levels,
        num_nonpool=(rel == RELVALUE_NONPOOL).sum(axis=1), num_unjudged=(rel == RELVALUE_UNJUDGED).sum(axis=1),
        bogus=bogus, relevance_level=relevance_level)


def _check_duplicates(run: RunFile, qids: np.ndarray, docnos: np.ndarray, doc_order: np.ndarray) -> None:
    """A document listed twice for one topic: trec_eval exits ("duplicate docs"); the kit names both lines."""
    d = docnos[doc_order]
    q = qids[doc_order]
    same = (d[1:] == d[:-1])
    if not same.any():
        return
    pair = same & (q[1:] == q[:-1])
    if not pair.any():
        # equal docnos in different topics are fine, but the sort may have separated equal (topic, docno) pairs
        key = np.lexsort((q, d))
        dd, qq = d[key], q[key]
        pair2 = (dd[1:] == dd[:-1]) & (qq[1:] == qq[:-1])
        if not pair2.any():
            return
        k = int(np.flatnonzero(pair2)[0])
        rows = sorted((int(doc_order[key[k]]), int(doc_order[key[k + 1]])))
    else:
        k = int(np.flatnonzero(pair)[0])
        rows = sorted((int(doc_order[k]), int(doc_order[k + 1])))
    first, second = (int(run.numbers[r]) for r in rows)
    raise TrecFormatError(run.name, second, f"document {docnos[rows[1]].decode(errors='replace')} listed twice "
                                            f"for topic {qids[rows[1]].decode(errors='replace')} (first on line "
                                            f"{first}); trec_eval stops with 'duplicate docs'")
