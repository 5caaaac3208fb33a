"""Runs and qrels read and ranked exactly as trec_eval reads and ranks them, as numpy arrays (no pandas, no pyarrow).

What trec_eval does (``get_trec_results.c``, ``get_qrels.c``, ``form_res_rels.c``) and this module repeats:

* a run line is ``qid iter docno rank sim runid [anything]``; fields after the runid are ignored, ``#`` starts
  a comment line (10.0; 9.0.8 has none), blank lines are skipped; the runid printed is the one on the last line;
* a qrels line is ``qid iter docno rel``; a ``#`` comment line is skipped when 10.0 skips it (``#`` its first byte,
  the line before it not a comment too, a data line after it; any other ``#`` line is refused by name, as 10.0
  reads it as data or crashes; 9.0.8 has no comment lines); a negative rel means "in the pool but
  not judged" (``RELVALUE_UNJUDGED``, used by infAP), a retrieved document absent from the qrels is
  ``RELVALUE_NONPOOL``; the ``trec_eval`` command refuses a topic it scores with no rel >= 0
  (:func:`_refuse_ungraded`);
* each topic's documents are ranked by score descending, ties broken by docno descending (``strcmp``), then cut
  at ``-M`` documents; ``-J`` then drops the documents not judged (keeping the order).

Score ties (``ties=``): trec_eval 10.0 keeps scores as C ``double`` (``ties="float64"``, the kit's default) and
trec_eval 9.0.8 — and pytrec_eval-terrier, which embeds 9.x — as C ``float`` (``ties="float32"``): scores equal
in single precision but not in double precision tie in 9.0.8 and are then ordered by docno.

Where the kit is stricter than trec_eval (clear errors naming file and line instead of a silent reading): a score
that is not a number (trec_eval's ``atof`` reads it as 0), a relevance that is not an integer (``atol`` reads
``1.5`` as 1), a qrels line with more than four fields, a document twice in one topic (trec_eval exits 4 without
the line), a NUL byte, a run with no data line. Blank qrels lines are skipped (trec_eval refuses them).
"""

from __future__ import annotations

import os
import re
import sys
import numpy as np

from evalkit.data.grade_codes import GRADE_MIN  # any lower grade is refused by name
from evalkit.data.ordering import segment_then_descending
from evalkit.errors import TrecFormatError, shown

STDIN = "-"
STDIN_NAME = "<stdin>"
RELVALUE_NONPOOL = -1  # retrieved, not in the qrels (trec_eval.h)
RELVALUE_UNJUDGED = -2  # in the qrels with a negative relevance: pooled, not judged
PAD = np.iinfo(np.int64).min  # past the end of a topic's ranking: below every code and every relevance
TIE_MODES = ("float64", "float32")
LEVEL_CELLS = 1 << 20  # topics x (highest grade + 1): trec_eval's per-grade counts (rel_levels), kept dense
_DECIMAL = re.compile(rb"[+-]?[0-9]+")
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
    if not data or data.isspace():
        raise TrecFormatError(name, None, "empty file: no lines to read")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise TrecFormatError(name, data.count(b"\n", 0, nul) + 1, "NUL byte (binary data, not a TREC text file)")


_CONTROL = bytes(range(0, 9)) + bytes(range(14, 32))  # bytes C isspace does not count as blanks


def _regular(data: bytes, width: int) -> bool:
    """Whether every line has exactly ``width`` fields or none (blank), with no comment line and no control
    byte: then ``data.split()`` lines up with the lines, and the fast path is exact. Vectorized over the bytes."""
    if len(data.translate(None, _CONTROL)) != len(data):
        return False
    raw = np.frombuffer(data, np.uint8)
    blank = raw <= 32  # after the check above: exactly C's isspace
    start = np.empty(len(raw), np.uint8)
    start[0] = not blank[0]
    np.logical_and(blank[:-1], ~blank[1:], out=start[1:].view(bool))
    line_begin = np.concatenate(([0], np.flatnonzero(raw == 10) + 1))
    line_begin = line_begin[line_begin < len(raw)]
    per_line = np.add.reduceat(start, line_begin, dtype=np.int64)
    if not ((per_line == width) | (per_line == 0)).all():
        return False
    if b"#" in data:  # a comment line starts with '#' after optional blanks: look at each line's first byte
        first = np.flatnonzero(start)
        if (raw[first] == ord("#")).any():
            return False
    return True


VERSIONS = ("10.0", "9.0.8")  # as evalkit.trec_eval.names.VERSIONS, not imported: the plain-files path of
# evaluate() reads files through this module and never needs the measure lists (4 ms of its first result)


def _comment_refusal(name: str, number: int, line: bytes, what: str, version: str, qrels: bool,
                     after_comment: bool) -> None:
    """Raise the error for a line whose first field starts with ``#`` that trec_eval does not skip as a comment
    (it reads such a line as data: topic ``#...``, or "Malformed line"); return if it skips it.

    trec_eval 9.0.8 has no comment lines. trec_eval 10.0 skips a run line whose first non-blank byte is ``#``;
    in a qrels (``get_qrels.c``) it skips a line whose first byte is ``#``, then reads the next line as data
    whatever it holds: a second ``#`` line in a row is read as data, and so is an indented ``#`` line (the
    caller refuses a ``#`` line with no data line after it: there trec_eval reads past the end of its buffer)."""
    shown_line = shown(line[:80].decode(errors="replace"))
    if version == "9.0.8":
        fields = len(line.split())
        reading = (f"reads it as data (a topic '{line.split()[0].decode(errors='replace')}')"
                   if fields == 4 or (not qrels and fields >= 6) else "stops with 'Malformed line'")
        raise TrecFormatError(name, number, f"'#' line {shown_line}: trec_eval 9.0.8 has no comment lines, it "
                                            f"{reading}; comments are trec_eval 10.0's")
    if not qrels:
        return
    if line[:1] != b"#":
        raise TrecFormatError(name, number, f"indented '#' line {shown_line}: trec_eval 10.0 skips a qrels line "
                                            f"as a comment only when '#' is its first byte, and reads this one as "
                                            f"{what} (a topic '#')")
    if after_comment:
        raise TrecFormatError(name, number, f"'#' line {shown_line} right after another: trec_eval 10.0 skips a "
                                            f"qrels comment line and reads the next line as data whatever it holds, "
                                            f"so it reads this one as {what} (a topic '#' or 'Malformed line')")


def _fields(name: str, data: bytes, width: int, exact: bool, what: str,
            wanted: tuple[int, ...], version: str = "10.0") -> tuple[list, np.ndarray]:
    """([list of bytes per wanted column 0..width-1, else None], line numbers of kept lines). A run line keeps its first
    ``width`` fields (``exact=False``: more are ignored); a qrels line must have exactly ``width``. Blank lines
    are skipped; ``#`` lines as ``version`` skips them (:func:`_comment_refusal`: the others are refused)."""
    if version not in VERSIONS:
        raise ValueError(f"version must be one of {VERSIONS}, not {version!r}")
    _check_text(name, data)
    if _regular(data, width):  # the common case: one data.split(), no Python loop over lines
        tokens = data.split()
        numbers = None
        columns = [tokens[c::width] if c in wanted else None for c in range(width)]
        if width - 1 not in wanted:
            columns[-1] = tokens[-1:]  # the last field of the last line (the runid of a run)
        if b"\n\n" in data or data.startswith(b"\n") or len(tokens) // width != data.count(b"\n") + (
                not data.endswith(b"\n")):
            numbers = np.flatnonzero([bool(line.strip()) for line in data.split(b"\n")]) + 1
        else:
            numbers = np.arange(1, len(columns[0]) + 1)
        return columns, numbers
    rows, numbers = [], []
    after_comment = 0  # the number of the comment line just skipped (blank lines skipped in between)
    for number, line in enumerate(data.split(b"\n"), start=1):
        parts = line.split()
        if not parts:
            continue
        if parts[0].startswith(b"#"):
            _comment_refusal(name, number, line, what, version, exact, bool(after_comment))
            after_comment = number
            continue
        after_comment = 0
        if len(parts) < width or (exact and len(parts) > width):
            raise TrecFormatError(name, number, f"{len(parts)} fields where {what} needs "
                                                f"{'exactly ' if exact else ''}{width}: {line[:80]!r}")
        rows.append(parts[:width])
        numbers.append(number)
    if exact and after_comment:  # a qrels comment: trec_eval 10.0 reads the next line as data, and there is none
        raise TrecFormatError(name, after_comment, "'#' line with no data line after it: trec_eval 10.0 reads the "
                                                   "line after a qrels comment as data, and past the end of the "
                                                   "file it reads beyond its buffer (it crashes)")
    if not numbers:
        raise TrecFormatError(name, None, "no lines to read (only comments or blank lines)")
    columns = [[r[c] for r in rows] if c in wanted else None for c in range(width)]
    if width - 1 not in wanted:
        columns[-1] = [rows[-1][-1]]
    return columns, np.asarray(numbers)


def _bad_number(name: str, texts: list, numbers: np.ndarray, parse, what: str):
    """Raise the error naming the first field numpy could not convert: not a number (a score), not an integer (a
    grade: ``1.5``, ``1e2``, where trec_eval's atol reads 1), or an integer beyond C long."""
    for text, number in zip(texts, numbers.tolist()):
        try:
            value = parse(text)
            if parse is int and not (_DECIMAL.fullmatch(text) and -(2**63) <= value < 2**63):
                raise ValueError
        except (ValueError, OverflowError):
            token = shown(text.decode(errors="replace"))
            if parse is int:
                lead = re.match(rb"[+-]?[0-9]+", text)  # what C's atol reads: a sign and the digits after it
                problem = "is out of range" if _DECIMAL.fullmatch(text) else (
                    f"is not an integer (trec_eval's atol would read {int(lead.group()) if lead else 0})")
            else:
                problem = "is not a number"
            raise TrecFormatError(name, int(number), f"{what} {token} {problem}") from None
    raise TrecFormatError(name, None, f"unreadable {what}")


def _refuse_underscores(name: str, texts: list, numbers: np.ndarray, what: str) -> None:
    """Python and numpy read ``1_0`` as 10; trec_eval's atof/atol read 1: such a field is refused by line."""
    if b"_" not in b"".join(texts):
        return
    for text, number in zip(texts, numbers.tolist()):
        if b"_" in text:
            raise TrecFormatError(name, int(number), f"{what} {shown(text.decode(errors='replace'))} is not a "
                                                     "number (digits grouped by '_': trec_eval would read the part "
                                                     "before the first '_')")


class Qrels:
    """A qrels file as trec_eval holds it: its topics (in ``strcmp`` order), the number of documents judged at
    each grade per topic, and the judgments themselves, as per-topic dicts (``judged``: the general reader's) or
    as a hash table of docno words (``table``: :mod:`evalkit.trec_eval.reader`'s); either is derived from the
    other on first use."""

    def __init__(self, name: str, topics: list, levels: np.ndarray, positive_total: int,
                 judged: list | None = None, table=None):
        self.name = name
        self.topics = topics  # bytes, strcmp order
        self.levels = levels  # (n_topics, max_grade + 1) number of documents judged at each grade >= 0
        self.positive_total = positive_total  # documents with grade > 0 over all topics (the -c num_rel summary)
        self._judged = judged  # per topic: {docno bytes: grade} (negative grades as RELVALUE_UNJUDGED)
        self.table = table  # evalkit.trec_eval.reader.QrelsTable
        self._index = None

    @property
    def judged(self) -> list:
        if self._judged is None:  # from the table: its docno words back to bytes, grouped by topic
            words, span = self.table.words, 8 * self.table.words.shape[1]
            packed = words.astype(">u8").tobytes()
            docnos = [packed[i:i + span].rstrip(b"\x00") for i in range(0, len(packed), span)]
            judged = [{} for _ in self.topics]
            for topic, docno, grade in zip(self.table.topics.tolist(), docnos, self.table.grades.tolist()):
                judged[topic][docno] = grade
            self._judged = judged
        return self._judged

    def index(self) -> dict:
        if self._index is None:
            self._index = {t: i for i, t in enumerate(self.topics)}
        return self._index


def _topic_ids(qids: list) -> tuple[list, np.ndarray]:
    """(distinct topics in strcmp order, index of each row's topic), found from the runs of equal topics (files
    list a topic's lines together, so the distinct values are few and cheap to sort)."""
    values = np.array(qids)
    if len(values) == 0:
        return [], np.zeros(0, np.int64)
    change = np.ones(len(values), bool)
    change[1:] = values[1:] != values[:-1]
    firsts = np.flatnonzero(change)
    distinct, inverse = np.unique(values[firsts], return_inverse=True)
    return distinct.tolist(), np.repeat(inverse, np.diff(np.append(firsts, len(values))))


def read_qrels(path: os.PathLike | str, data: tuple[str, bytes] | None = None, version: str = "10.0") -> Qrels:
    """Read a qrels file (``qid iter docno rel``); see the module notes for what is refused. ``data``: the file's
    (name, bytes) from :func:`read_input`, if already read; ``version``: the trec_eval whose comment lines are
    skipped (``"10.0"``, or ``"9.0.8"``, which has none)."""
    name, data = data or read_input(path)
    (qids, _, docnos, rel_text), numbers = _fields(name, data, 4, True, "a qrels line", (0, 2, 3), version)
    try:
        grades = np.array(rel_text).astype(np.int64)
    except (ValueError, OverflowError):
        _bad_number(name, rel_text, numbers, int, "relevance")
    _refuse_underscores(name, rel_text, numbers, "relevance")
    if len(grades) and grades.min() < GRADE_MIN:  # -2**63 and the like: beyond C long, or the internal codes
        row = int(np.argmin(grades))
        raise TrecFormatError(name, int(numbers[row]), f"relevance {int(grades[row])} is below {GRADE_MIN}")
    topics, topic_ids = _topic_ids(qids)
    stored = np.where(grades >= 0, grades, RELVALUE_UNJUDGED).tolist()
    by_topic = np.argsort(topic_ids, kind="stable")
    if not (by_topic == np.arange(len(by_topic))).all():  # topics interleaved: group the rows first
        rows = by_topic.tolist()
        docnos, stored = [docnos[i] for i in rows], [stored[i] for i in rows]
        topic_ids, numbers, grades = topic_ids[by_topic], numbers[by_topic], grades[by_topic]
    bounds = np.searchsorted(topic_ids, np.arange(len(topics) + 1)).tolist()
    judged = [dict(zip(docnos[a:b], stored[a:b])) for a, b in zip(bounds[:-1], bounds[1:])]
    if sum(len(j) for j in judged) != len(docnos):
        seen: dict = {}
        for row, (t, d) in enumerate(zip(topic_ids.tolist(), docnos)):
            if (t, d) in seen:
                raise TrecFormatError(name, int(numbers[row]), f"document {d.decode(errors='replace')} judged "
                                      f"twice for topic {topics[t].decode(errors='replace')} (first on line "
                                      f"{int(numbers[seen[t, d]])})")
            seen[t, d] = row
    ok = grades >= 0
    max_grade = int(grades.max()) if ok.any() else 0
    if (max_grade + 1) * len(topics) > LEVEL_CELLS:
        row = int(np.argmax(grades))
        most = LEVEL_CELLS // len(topics) - 1
        raise TrecFormatError(name, int(numbers[row]), f"relevance {max_grade} is too high: trec_eval counts the "
                              f"documents of every grade 0..{max_grade} on each of the {len(topics)} topics, and "
                              f"the kit takes grades up to {most} on this many topics")
    levels = np.zeros((len(topics), max_grade + 1), np.int64)
    np.add.at(levels, (topic_ids[ok], grades[ok]), 1)
    return Qrels(name, topics, levels, int((grades > 0).sum()), judged=judged)


class RunFile:
    """A run file's lines as trec_eval keeps them: topic, docno, score and the runid of the last line."""

    def __init__(self, name: str, qids: list, docnos: list, scores: np.ndarray, runid: str, numbers: np.ndarray):
        self.name = name
        self.qids = qids  # bytes
        self.docnos = docnos  # bytes
        self.scores = scores  # float64 as atof reads it
        self.runid = runid
        self.numbers = numbers  # line number of each kept line


def read_run(path: os.PathLike | str, data: tuple[str, bytes] | None = None, version: str = "10.0") -> RunFile:
    """Read a run file (``qid iter docno rank sim runid [...]``); ``data`` and ``version`` as for
    :func:`read_qrels`."""
    name, data = data or read_input(path)
    (qids, _, docnos, _, sims, runids), numbers = _fields(name, data, 6, False, "a run line", (0, 2, 4), version)
    try:
        scores = np.array([float(x) for x in sims], np.float64)
    except ValueError:
        _bad_number(name, sims, numbers, float, "score")
    _refuse_underscores(name, sims, numbers, "score")
    nan = np.isnan(scores)
    if nan.any():  # trec_eval reads it; its order then is its C library's qsort's, which no fixed text can follow
        row = int(np.argmax(nan))
        raise TrecFormatError(name, int(numbers[row]), f"score {shown(sims[row].decode(errors='replace'))} is not a "
                                                       "number trec_eval can rank by (NaN compares as equal to every "
                                                       "score, so trec_eval's order depends on its C library's sort)")
    return RunFile(name, qids, docnos, scores, runids[-1].decode(errors="replace"), numbers)


def _raise_duplicate(run: RunFile, rows: np.ndarray, block: list, topic: bytes) -> None:
    """A document listed twice for one topic: trec_eval exits ("duplicate docs"); the kit names both lines."""
    seen: dict = {}
    for row, docno in zip(rows.tolist(), block):
        if docno in seen:
            first, second = sorted((int(run.numbers[seen[docno]]), int(run.numbers[row])))
            raise TrecFormatError(run.name, second, f"document {docno.decode(errors='replace')} listed twice for "
                                                    f"topic {topic.decode(errors='replace')} (first on line "
                                                    f"{first}); trec_eval stops with 'duplicate docs'")
        seen[docno] = row


class Judged:
    """One run's rankings with the judgments at each rank, for the topics evaluated (``RES_RELS`` for all topics
    at once). ``rel[t, i]`` is the grade of the document at rank ``i+1`` (or a ``RELVALUE_*`` code; ``PAD`` past
    ``num_ret[t]``); there is always one ``PAD`` column at the end."""

    def __init__(self, topics: list, qrels_rows: np.ndarray, rel: np.ndarray, num_ret: np.ndarray,
                 num_rel: np.ndarray, levels: np.ndarray, num_nonpool: np.ndarray, num_unjudged: np.ndarray,
                 bogus: np.ndarray, relevance_level: int):
        self.topics = topics  # topic ids (str) in trec_eval's order
        self.qrels_rows = qrels_rows  # row of each topic in Qrels.levels
        self.rel = rel  # (T, N + 1) int64
        self.num_ret = num_ret
        self.num_rel = num_rel  # grades >= relevance level in the qrels
        self.levels = levels  # (T, max_grade + 1) judged documents per grade (rel_levels)
        self.num_nonpool = num_nonpool
        self.num_unjudged = num_unjudged
        self.bogus = bogus  # (T,) bool: a qrels topic the run lacks, scored on trec_eval 10.0's placeholder ranking
        self.relevance_level = relevance_level


def _lookup(run: RunFile, qrels: Qrels) -> tuple[list, np.ndarray, np.ndarray, list]:
    """(run topics in strcmp order, each row's topic index, each row's grade or code, indices of the run topics
    that have judgments); a document twice in one topic is an error naming both lines."""
    run_topics, topic_ids = _topic_ids(run.qids)
    n = len(topic_ids)
    by_topic = np.argsort(topic_ids, kind="stable")  # the rows of each topic together, file order inside
    contiguous = bool((by_topic == np.arange(n)).all())
    docs = run.docnos if contiguous else [run.docnos[i] for i in by_topic.tolist()]
    bounds = np.searchsorted(topic_ids[by_topic], np.arange(len(run_topics) + 1)).tolist()
    qrels_index = qrels.index()
    grade_by_topic = np.full(n, RELVALUE_NONPOOL, np.int64)
    kept = []
    for i, topic in enumerate(run_topics):  # a loop over topics; the lookups are C dict gets
        a, b = bounds[i], bounds[i + 1]
        block = docs[a:b]
        if len(set(block)) != len(block):
            _raise_duplicate(run, by_topic[a:b], block, topic)
        row = qrels_index.get(topic)
        if row is None:
            continue
        kept.append(i)
        table = qrels.judged[row]
        grade_by_topic[a:b] = [table.get(d, RELVALUE_NONPOOL) for d in block]
    grades = np.empty(n, np.int64)
    grades[by_topic] = grade_by_topic
    return run_topics, topic_ids, grades, kept


def _score_order(topic_ids: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Rows by topic, then ``key`` ascending (rows of equal topic and key in any order: the caller orders them
    by docno). Files usually list each topic's lines together by decreasing score: then no sort is needed."""
    if len(key) > 1 and (topic_ids[1:] >= topic_ids[:-1]).all():
        same_topic = topic_ids[1:] == topic_ids[:-1]
        if (~same_topic | (key[1:] >= key[:-1])).all():  # NaN compares False: it takes the sort
            return np.arange(len(key))
    return np.lexsort((key, topic_ids))


class UngradedTopic(ValueError):
    """A topic to be scored whose qrels hold no grade >= 0 (every judgment negative): trec_eval cannot score it."""


def _refuse_ungraded(qrels: Qrels, topics: list, levels: np.ndarray) -> None:
    """trec_eval (10.0 and 9.0.8, ``form_res_rels.c``) sizes a topic's counts per grade by its highest grade + 1,
    through ``te_chk_and_malloc``, which keeps the largest buffer asked so far. With no grade >= 0 that size is 0
    or less: for the first topic scored no buffer exists yet, so it returns NULL and trec_eval exits 4 ("Can't
    calculate measure"); for a later topic a top grade of -1 leaves the previous topic's counts in place (read by
    bpref and the gain measures), and -2 or below asks ``memset`` for a negative size (a crash). ``levels``: the
    topics' rows of ``qrels.levels``."""
    empty = np.flatnonzero(levels.sum(axis=1) == 0)
    if len(empty):
        t = int(empty[0])
        where = ("the first topic scored: trec_eval exits 4 'Can't calculate measure'" if t == 0 else
                 "trec_eval crashes on it or reuses the previous topic's counts, as it is not the first topic scored")
        raise UngradedTopic(f"topic {shown(topics[t].decode(errors='replace'))} of {qrels.name} has no grade >= 0 "
                            f"(every judgment negative), which trec_eval cannot score ({where})")


STAND_IN = b"ceci_nest_pas_un_docno"  # trec_eval.c's bogus_result (score 1.0), -c's ranking of a missing topic


def _stand_in_grades(qrels: Qrels) -> dict:
    """{topic: grade or RELVALUE_UNJUDGED} for the qrels topics that judge the docno ``STAND_IN`` (almost always
    none): trec_eval looks the stand-in document up in the qrels like any other."""
    if qrels._judged is not None:
        return {t: d[STAND_IN] for t, d in zip(qrels.topics, qrels._judged) if STAND_IN in d}
    table = qrels.table
    n = len(qrels.topics)
    words = np.frombuffer(STAND_IN.ljust(-(-len(STAND_IN) // 8) * 8, b"\0"), ">u8").astype(np.uint64)
    found = table.find(np.tile(words, (n, 1)), np.arange(n, dtype=np.int64))
    return {qrels.topics[i]: int(table.grades[found[i]]) for i in np.flatnonzero(found >= 0).tolist()}


def rank(run: RunFile, qrels: Qrels, ties: str = "float64", max_docs: int | None = None,
         judged_only: bool = False, relevance_level: int = 1, complete: bool = False,
         last_lookup: bool = False, refuse_ungraded: bool = False) -> Judged:
    """Rank ``run`` as trec_eval does and look up each document's judgment.

    The topics kept are those in both the run and the qrels, in ``strcmp`` order. With ``complete`` (``-c``,
    trec_eval 10.0's way), qrels topics the run lacks are added on trec_eval's one-document placeholder ranking
    (``bogus=True``): the docno ``STAND_IN``, looked up in the qrels, cut by ``max_docs`` (-M0: no document) and
    dropped by ``judged_only`` unless judged, as form_res_rels.c treats it; the caller zeroes what trec_eval
    zeroes. ``last_lookup``: no run will be looked up in these
    qrels again, so their judgments (table or dicts) are let go once this run's grades are known: the ranking and
    the measures' arrays then take their place in memory (what one run through the command line peaks at).
    ``refuse_ungraded`` (the ``trec_eval`` command): a topic scored whose qrels hold no grade >= 0 raises
    :class:`UngradedTopic` (:func:`_refuse_ungraded`: trec_eval exits 4 on it, crashes or reads stale counts);
    otherwise it is scored as a topic with nothing relevant."""
    if ties not in TIE_MODES:
        raise ValueError(f"ties must be one of {TIE_MODES}, not {ties!r}")
    run_topics, topic_ids, grades, kept = run.lookup(qrels) if hasattr(run, "lookup") else _lookup(run, qrels)
    stand_in = _stand_in_grades(qrels) if complete else {}  # before the judgments may be let go
    if last_lookup:
        qrels.table = qrels._judged = None
    n = len(topic_ids)
    qrels_index = qrels.index()
    scores = run.scores.astype(np.float32) if ties == "float32" else run.scores
    key = -scores.astype(np.float64)
    order = _score_order(topic_ids, key)
    t_o, k_o = topic_ids[order], key[order]
    tied = (t_o[1:] == t_o[:-1]) & (k_o[1:] == k_o[:-1])
    if tied.any():  # equal scores: docno descending (strcmp), sorting only the tied rows
        in_tie = np.zeros(n, bool)
        in_tie[1:] |= tied
        in_tie[:-1] |= tied
        rows = np.flatnonzero(in_tie)
        segment = np.cumsum(~np.concatenate([[False], tied])[rows])
        if hasattr(run, "docno_words"):  # docnos as big-endian words: their row order is strcmp order
            words = run.docno_words[order[rows]]  # docno descending: the words' complements ascending
            keys = [~words[:, j] for j in range(words.shape[1] - 1, -1, -1)]
            order[rows] = order[rows][np.lexsort(keys + [segment])]
        else:
            names = np.array([run.docnos[i] for i in order[rows].tolist()])
            name_rank = np.empty(len(rows), np.int64)
            name_rank[np.argsort(names, kind="stable")] = np.arange(len(rows))
            order[rows] = order[rows][segment_then_descending(segment, name_rank)]
    topic_sorted = topic_ids[order]
    grades = grades[order]
    starts = np.searchsorted(topic_sorted, np.arange(len(run_topics) + 1))
    counts = np.diff(starts)
    position = np.arange(len(order)) - starts[topic_sorted]
    if max_docs is not None:
        take = position < max_docs
        topic_sorted, position, grades = topic_sorted[take], position[take], grades[take]
        counts = np.minimum(counts, max_docs)
    if judged_only:  # drop unjudged documents, keeping the order (form_res_rels.c, comp_rank_judged)
        take = grades >= 0
        topic_sorted, grades = topic_sorted[take], grades[take]
        counts = np.bincount(topic_sorted, minlength=len(run_topics))
        first = np.searchsorted(topic_sorted, np.arange(len(run_topics)))
        position = np.arange(len(topic_sorted)) - first[topic_sorted]

    topics = [run_topics[i] for i in kept]
    bogus = [False] * len(topics)
    if complete:
        have = set(topics)
        missing = [t for t in qrels.topics if t not in have]
        if missing:
            merged = sorted([(t, False) for t in topics] + [(t, True) for t in missing])
            topics = [t for t, _ in merged]
            bogus = [b for _, b in merged]
    rows = [qrels_index[t] for t in topics]
    levels = qrels.levels[rows] if rows else np.zeros((0, qrels.levels.shape[1]), np.int64)
    if refuse_ungraded:
        _refuse_ungraded(qrels, topics, levels)
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
    for t in np.flatnonzero(bogus).tolist():  # trec_eval.c's one-document ranking, through form_res_rels.c
        grade = stand_in.get(topics[t], RELVALUE_NONPOOL)
        kept_docs = (1 if max_docs is None else min(1, max_docs)) if grade >= 0 or not judged_only else 0
        if kept_docs:
            rel[t, 0] = grade
        num_ret[t] = kept_docs
    num_rel = levels[:, max(relevance_level, 0):].sum(axis=1)
    return Judged(
        topics=[t.decode(errors="replace") for t in topics], qrels_rows=np.array(rows, np.int64), rel=rel,
        num_ret=num_ret, num_rel=num_rel, levels=levels,
        num_nonpool=(rel == RELVALUE_NONPOOL).sum(axis=1), num_unjudged=(rel == RELVALUE_UNJUDGED).sum(axis=1),
        bogus=bogus, relevance_level=relevance_level)
