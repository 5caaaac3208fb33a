"""The compiled run reader (:mod:`evalkit.data.native_build`) against the pure-Python/pyarrow build: for the same
files, :meth:`Collection.from_runs` must give the same collection byte for byte (topics, run names, vocabulary,
docs, scores compared bit by bit so -0.0 and the NaN padding count, qrels, runs_info) or the same exception (type
and message), whichever reader built it.

The native reader takes only "regular" run files (one delimiter, 6 non-empty ASCII fields a line, scores wholly
finite decimal numbers, no blank/comment/CR lines: :mod:`evalkit.data.native_build`) and falls back to the Python
pipeline for anything else, silently. So two things are checked for every case: the two readers agree
(``EVALKIT_NATIVE=0`` forces the Python one), and ``BuiltArrays.reader`` says which one ran, so that a fast path
that never runs (every file falling back) fails here instead of passing unnoticed.

Cases: seeded random collections (``SEEDS``: delimiters, gzip, numeric and string topic ids, shuffled and split
topic blocks, topics outside the qrels, qrels topics and docnos no run retrieved, rankings of any length, ties in
float64 and only in float32, every score spelling trec_eval's atof reads the same as strtod, docnos sharing long
prefixes, depth cuts, one_tag, repeated tags and docnos) and named edge cases (``EDGE_CASES``: the irregular files
that must fall back, and the regular ones at the boundary of the format), a larger collection, caller-made
:class:`Qrels`, and TREC-8's 129 runs when the data is there. The whole module takes about 20 s (TREC-8: 8-12 s of it).
"""

from __future__ import annotations

import gzip
import os
import platform
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import TREC8

from evalkit.data import build, native_build
from evalkit.data.collection import Collection
from evalkit.data.ordering import sort_topics
from evalkit.data.trec_files import Run, parse_run, read_qrels

NATIVE_OPTED_OUT = os.environ.get("EVALKIT_NATIVE") == "0"

# scores beyond float32's range (1e39) tie as inf with ties="float32": numpy warns as it casts them (Python build)
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")


# ----------------------------------------------------------------------------------------------- the two readers

def _use(monkeypatch, native: bool | str) -> None:
    """Select the reader for the next build: ``EVALKIT_NATIVE`` unset (native, falling back), "0" (Python) or the
    given string ("1": the same as unset)."""
    if native is True:
        monkeypatch.delenv("EVALKIT_NATIVE", raising=False)
    else:
        monkeypatch.setenv("EVALKIT_NATIVE", "0" if native is False else native)


def _collection_or_error(monkeypatch, native, runs, qrels, kwargs):
    _use(monkeypatch, native)
    try:
        return Collection.from_runs(list(runs), qrels, **kwargs)
    except Exception as exc:  # noqa: BLE001 - compared with the other reader's
        return exc


def _built_or_error(monkeypatch, native, runs, qrels, kwargs):
    _use(monkeypatch, native)
    try:
        return build.build_arrays(list(runs), qrels, sort_topics, kwargs.get("depth"), kwargs.get("ties", "float64"),
                                  kwargs.get("one_tag", False))
    except Exception as exc:  # noqa: BLE001
        return exc


def _native_available() -> bool:
    from evalkit.data import native_build

    return bool(native_build.available())


def _assert_strings(a: np.ndarray, b: np.ndarray, what: str) -> None:
    assert isinstance(a, np.ndarray) and a.dtype == object, f"{what}: {type(a)} {getattr(a, 'dtype', None)}"
    assert b.dtype == object, what
    assert a.shape == b.shape, f"{what}: shapes {a.shape} and {b.shape}"
    assert all(type(x) is str for x in a.tolist()), f"{what}: not all str"
    assert a.tolist() == b.tolist(), what


def _assert_bitwise(a: np.ndarray, b: np.ndarray, dtype, what: str) -> None:
    assert a.dtype == dtype and b.dtype == dtype, f"{what}: dtypes {a.dtype} and {b.dtype}"
    assert a.shape == b.shape, f"{what}: shapes {a.shape} and {b.shape}"
    view = {8: np.uint64, 4: np.uint32}[np.dtype(dtype).itemsize]
    same = np.ascontiguousarray(a).view(view) == np.ascontiguousarray(b).view(view)
    if not same.all():
        where = tuple(int(i) for i in np.argwhere(~same)[0])
        raise AssertionError(f"{what} differ at {where} ({int((~same).sum())} cells): {a[where]!r} vs {b[where]!r}")


def assert_same_collection(a: Collection, b: Collection) -> None:
    """Every field of two collections equal, arrays with their dtypes, floats bit by bit (-0.0, NaN padding)."""
    assert a.name == b.name and a.metadata == b.metadata
    _assert_strings(a.topics, b.topics, "topics")
    _assert_strings(a.run_names, b.run_names, "run_names")
    _assert_strings(a.vocabulary, b.vocabulary, "vocabulary")
    _assert_bitwise(a.docs, b.docs, np.int32, "docs")
    _assert_bitwise(a.scores, b.scores, np.float64, "scores")
    for column in ("topic", "doc", "grade"):
        _assert_bitwise(getattr(a.qrels, column), getattr(b.qrels, column), np.int32, f"qrels.{column}")
    assert (a.qrels.stratum is None) == (b.qrels.stratum is None)
    if a.qrels.stratum is not None:
        _assert_bitwise(a.qrels.stratum, b.qrels.stratum, np.int32, "qrels.stratum")
    assert (a.qrels.n_topics, a.qrels.n_docs) == (b.qrels.n_topics, b.qrels.n_docs)
    pd.testing.assert_frame_equal(a.runs_info, b.runs_info, check_exact=True)
    assert a.runs_info.index.name == b.runs_info.index.name
    assert a.runs_info["lines_without_qrels"].dtype == np.int64


def assert_same_outcome(native, python, labels=("native", "python")) -> None:
    """Both collections equal, or both errors of one type and one message."""
    if isinstance(python, Exception) or isinstance(native, Exception):
        assert type(native) is type(python), f"{labels[0]}: {native!r}\n{labels[1]}: {python!r}"
        assert str(native) == str(python)
        return
    assert_same_collection(native, python)


def assert_same_built(native, python) -> None:
    """What :func:`build_arrays` hands :meth:`Collection.from_runs` besides the arrays: the runs' names and sources
    (error messages name them), the lines without qrels and the rankings holding a document twice."""
    if isinstance(python, Exception) or isinstance(native, Exception):
        assert type(native) is type(python) and str(native) == str(python), f"{native!r} vs {python!r}"
        return
    assert [r.name for r in native.runs] == [r.name for r in python.runs]
    assert [r.source for r in native.runs] == [r.source for r in python.runs]
    _assert_bitwise(native.lines_without_qrels, python.lines_without_qrels, np.int64, "lines_without_qrels")
    assert native.repeated.dtype == bool and np.array_equal(native.repeated, python.repeated)
    # the arrays too: a case that ends in an error (two runs with one name, a docno twice) still compares them
    _assert_strings(native.topics, python.topics, "topics")
    _assert_strings(native.vocabulary, python.vocabulary, "vocabulary")
    _assert_bitwise(native.docs, python.docs, np.int32, "docs")
    # a ranking holding a docno twice ends the build in an error; the order of the copies, when their scores are
    # equal as compared but not bit for bit (0 and -0; float32 ties), is not defined there
    single = ~python.repeated
    _assert_bitwise(native.scores[single], python.scores[single], np.float64, "scores of rankings without repeats")
    # the qrels' rows, in an order of each build's choosing (the collection sorts them): the same rows
    for column in ("qrels_topic_ids", "qrels_doc_ids", "qrels_grade"):
        assert getattr(native, column).dtype == getattr(python, column).dtype, column
    assert (native.qrels_stratum is None) == (python.qrels_stratum is None)

    def rows(built) -> np.ndarray:
        columns = [built.qrels_topic_ids, built.qrels_doc_ids, built.qrels_grade]
        columns += [] if built.qrels_stratum is None else [built.qrels_stratum]
        table = np.stack([np.asarray(c, np.int64) for c in columns], axis=1)
        return table[np.lexsort(table.T[::-1])]

    assert np.array_equal(rows(native), rows(python)), "the qrels' rows"
    assert python.reader == "python"


def check_case(monkeypatch, runs, qrels, kwargs, reader: str | None) -> None:
    """Build ``runs`` against ``qrels`` with each reader and compare; ``reader``: which one must have run when
    native is allowed ("native" for regular run files, "python" for a fallback, None: not asserted)."""
    python = _collection_or_error(monkeypatch, False, runs, qrels, kwargs)
    native = _collection_or_error(monkeypatch, True, runs, qrels, kwargs)
    assert_same_outcome(native, python)
    built_python = _built_or_error(monkeypatch, False, runs, qrels, kwargs)
    built_native = _built_or_error(monkeypatch, True, runs, qrels, kwargs)
    assert_same_built(built_native, built_python)
    if reader is not None and not isinstance(built_native, Exception):
        expected = reader if _native_available() else "python"
        assert built_native.reader == expected, f"built by the {built_native.reader} reader, expected {expected}"


# --------------------------------------------------------------------------------------------------- generator

DBL_MAX = 1.7976931348623157e308

#: score spellings, all regular (wholly finite decimal numbers as the regex and strtod read them)
SPELLINGS = ["0", "1", "+1", "-0", "-0.0", "+0.", "-.0", "0.5", ".5", "5.", "-5.", "00012", "1.5e3", "1E-5",
             "-2.5e+02", "+.5e-0", "1.e5", ".0e-5", "0.1234567890123456789012345", "123456789012345678901234567890",
             "1e-400", "4.9e-324", "2.4703282292062327e-324", "2.4703282292062328e-324", "1e-320",
             "2.2250738585072014e-308", "2.2250738585072011e-308", "9007199254740993", "9007199254740992",
             "0.30000000000000004", "0.1", "0.2", "1e308", "-1e308", "1.7976931348623157e308", "7.038531e-26",
             "1e39", "-1e39", "3.4028235e38", "3.4028236e38", "1e-46", "-1e-46", "1.00000001", "1.0", "0.99999999",
             "1e0000000000000000000000001", "0e99999999999999999999", "1e-99999999999999999999999999",
             "1" + "0" * 400 + "e-400", "0." + "0" * 350 + "1e350", "1" * 300, "9" * 308 + "." + "9" * 30,
             "-1e-400", "-4e-324", "-2e-324", "-0e-0", "9007199254740992.5", "1234567890123456789e-5",
             "12345678901234567890", "0.0000000000000000000000000000000000000001", "1e22", "1e23", "1e-22",
             "1e-23", "8.98846567431158e307", str(int(DBL_MAX)), str(int(DBL_MAX) + 2**970 - 1)]

#: a score of every length to 17 digits with its point (if any) in every place, each sign: the common score's
#: path in read_decimal takes up to 19 digits with a point, Clinger's fast path up to 2**53, the x87 path the rest
POINT_PLACES = [sign + (digits if at is None else digits[:at] + "." + digits[at:])
                for n in range(1, 18) for digits in ("1234567890123456789"[:n], "9" * n)
                for at in (None, *range(n + 1)) for sign in ("", "-", "+")]

#: docnos always in the pool: prefixes of one another, differing after byte 8 or 16, every case and punctuation
FIXED_DOCNOS = ["FBIS3-10082", "FBIS3-1008", "FBIS3-100", "FBIS3-10083", "LA010189-0001", "LA010189-0010",
                "LA010189-00010", "ABCDEFGHa", "ABCDEFGHb", "ABCDEFGHIJKLMNOPa", "ABCDEFGHIJKLMNOPA", "A", "a", "Z",
                "0", "_", "~", "x" * 40, "x" * 39, "x" * 16, "x" * 17, "x" * 8, "x" * 9, "#hash", "q\"uote",
                "back\\slash", "com,ma", "semi;colon", "it's", "a\x7f"]
#: docnos with ASCII control characters (not blanks): regular (ASCII), read natively
CONTROL_DOCNOS = ["a\x01", "a\x1c", "a\x1f", "a\x7f", "\x1b[0m"]
_ALPHABET = np.array(list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                          "-._/:~!#$%&*+=?@^|()[]{}<>,;'\"\\`"))

TOPIC_SCHEMES = {
    "trec": [str(401 + i) for i in range(12)],
    "digits": ["9", "10", "100", "1", "2", "20", "3", "11", "99", "1000", "0", "19"],
    "strings": ["t-7", "t-10", "q9", "Q9", "a", "B", "t-70", "T7", "t-7a", "z", "_1", "10a"],
    "zeros": ["010", "10", "9", "0", "00", "-1", "+2", "2", "0010", "1", "11", "011"],
    "mixed": ["401", "t-7", "10", "9", "402", "x", "1", "t-10", "99", "A", "b", "403"],
}
#: topics of run lines that have no qrels (counted in lines_without_qrels, not placed)
EXTRA_TOPICS = ["999", "t-extra", "0999", "5000", "zz"]


@dataclass
class Case:
    """Files to write (name -> bytes), the qrels file's name, the build's keyword arguments, and which reader
    must run when native is allowed."""

    runs: dict = field(default_factory=dict)
    qrels_name: str = "qrels.txt"
    qrels: bytes = b""
    kwargs: dict = field(default_factory=dict)
    reader: str | None = "native"

    def write(self, root: Path, as_path: bool = False):
        for name, data in {**self.runs, self.qrels_name: self.qrels}.items():
            if data is None:  # a directory where a file is expected
                (root / name).mkdir()
            else:
                (root / name).write_bytes(data)
        paths = [root / name if as_path else str(root / name) for name in self.runs]
        return paths, str(root / self.qrels_name)


def _docno_pool(rng, n: int) -> list[str]:
    pool = dict.fromkeys(FIXED_DOCNOS + CONTROL_DOCNOS)
    while len(pool) < n + len(FIXED_DOCNOS) + len(CONTROL_DOCNOS):
        kind = int(rng.integers(0, 6))
        if kind == 0:
            d = f"FBIS3-{rng.integers(0, 20000)}"
        elif kind == 1:
            d = f"LA0{rng.integers(10100, 10199)}89-{rng.integers(0, 10000):04d}"
        elif kind in (2, 3):  # differing only after byte 8 or 16
            d = "ABCDEFGHIJKLMNOP"[: 8 * (kind - 1)] + "".join(rng.choice(_ALPHABET, int(rng.integers(1, 9))))
        elif kind == 4:
            d = "".join(rng.choice(_ALPHABET, int(rng.integers(1, 41))))
        else:  # prefixes of one long string
            d = "WSJ870324-0001-abcdefghijklmnopqrstuvwxyz"[: int(rng.integers(1, 41))]
        pool[d] = None
    return list(pool)


def _score_strings(rng, n: int, style: str) -> list[str]:
    if style == "ties":
        values = rng.integers(0, 4, n)
        forms = ["{}", "{}.0", "+{}", "{}.", "{}e0"]
        return [forms[int(rng.integers(0, len(forms)))].format(v) for v in values]
    if style == "float32":  # equal only in float32
        return [str(rng.choice(["1.00000001", "1.0", "1.00000002", "0.99999999", "1", "2.000000001", "2"]))
                for _ in range(n)]
    if style == "spellings":
        return [str(s) for s in rng.choice(SPELLINGS, n)]
    if style == "float32_range":  # beyond float32: tie as inf or 0 there
        return [str(s) for s in rng.choice(["1e39", "2e39", "-1e39", "1e-46", "-1e-46", "2e-46", "3.4028235e38",
                                             "3.4028236e38", "0", "1e300"], n)]
    return [repr(float(v)) for v in rng.normal(size=n) * 10.0 ** rng.integers(-5, 6, n)]


def _run_text(rng, s: int, topics: list[str], pool: list[str], sep: str, max_len: int, tags: list[str],
              duplicate: bool) -> bytes:
    """One run file: per topic a ranking of up to ``max_len`` docnos, in one of several orders, its topics' blocks
    sorted, shuffled, split and interleaved, or every row shuffled."""
    blocks = []
    for topic in topics:
        n = int(rng.integers(0 if rng.random() < 0.1 else 1, max_len + 1))
        chosen = [pool[i] for i in rng.choice(len(pool), size=min(n, len(pool)), replace=False)]
        scores = _score_strings(rng, len(chosen), str(rng.choice(["ties", "float32", "spellings", "float32_range",
                                                                   "random"], p=[.3, .15, .25, .1, .2])))
        rows = list(zip(chosen, scores))
        if duplicate and rows and rng.random() < 0.3:
            rows.append((rows[int(rng.integers(0, len(rows)))][0], str(rng.choice(SPELLINGS))))
        order = rng.choice(["trec", "ascending", "docno_ascending", "file"])
        if order == "trec":
            rows.sort(key=lambda r: (float(r[1]), r[0].encode()), reverse=True)
        elif order == "ascending":  # inversions everywhere
            rows.sort(key=lambda r: (float(r[1]), r[0].encode()))
        elif order == "docno_ascending":  # score descending, tied docnos ascending
            rows.sort(key=lambda r: r[0].encode())
            rows.sort(key=lambda r: float(r[1]), reverse=True)
        blocks.append([(topic, d, sc) for d, sc in rows])
    layout = rng.choice(["sorted", "shuffled", "split", "rows"], p=[.35, .25, .25, .15])
    if layout == "shuffled":
        blocks = [blocks[i] for i in rng.permutation(len(blocks))]
    elif layout == "split":  # a topic in several blocks, interleaved with the others
        pieces = []
        for block in blocks:
            cuts = sorted(rng.choice(len(block) + 1, size=min(2, len(block) + 1), replace=False).tolist())
            pieces += [block[a:b] for a, b in zip([0] + cuts, cuts + [len(block)]) if b > a]
        blocks = [pieces[i] for i in rng.permutation(len(pieces))]
    rows = [row for block in blocks for row in block]
    if layout == "rows":
        rows = [rows[i] for i in rng.permutation(len(rows))]
    q0 = str(rng.choice(["Q0", "0", "q", "iter"]))
    lines = []
    for i, (topic, docno, score) in enumerate(rows):
        rank = str(rng.choice([str(i + 1), "0", "-3", "x", "1.5"])) if rng.random() < 0.1 else str(i + 1)
        tag = tags[0] if len(tags) == 1 or i < len(rows) // 2 else tags[1]
        lines.append(sep.join([topic, q0, docno, rank, score, tag]))
    return ("\n".join(lines) + ("\n" if rng.random() < 0.8 else "")).encode()


def random_case(seed: int) -> Case:
    """A small collection drawn from ``seed``: the options of the module docstring, each case a few of them."""
    rng = np.random.default_rng(seed)
    scheme = TOPIC_SCHEMES[str(rng.choice(list(TOPIC_SCHEMES)))]
    n_topics = int(rng.integers(1, 9))
    topics = [scheme[i] for i in rng.permutation(len(scheme))[:n_topics]]
    pool = _docno_pool(rng, int(rng.integers(5, 80)))
    qrels_topics = [t for t in topics if rng.random() < 0.8] or topics[:1]
    qrels_topics += [t for t in scheme if t not in topics][: int(rng.integers(0, 2))]  # retrieved by no run
    sampled = rng.random() < 0.2
    qsep = str(rng.choice([" ", "\t"]))
    q_lines = []
    for topic in qrels_topics:
        judged = [pool[i] for i in rng.choice(len(pool), size=int(rng.integers(1, len(pool) + 1)), replace=False)]
        judged += [f"QRELS-ONLY-{topic}-{k}" for k in range(int(rng.integers(0, 3)))]  # in no run
        for docno in judged:
            grade = str(rng.choice([-1, 0, 0, 1, 2, 3]))
            fields = [topic, "0", docno] + ([str(rng.integers(0, 4))] if sampled else []) + [grade]
            q_lines.append(qsep.join(fields))
    q_lines = [q_lines[i] for i in rng.permutation(len(q_lines))]
    case = Case(qrels=("\n".join(q_lines) + "\n").encode())

    sep = str(rng.choice([" ", "\t"]))
    n_runs = int(rng.integers(1, 8))
    max_len = int(rng.choice([3, 10, 30, 60]))
    one_tag = bool(rng.random() < 0.3)
    duplicate = bool(rng.random() < 0.1)
    extra = [t for t in EXTRA_TOPICS if t not in qrels_topics]
    for s in range(n_runs):
        if rng.random() < 0.08:  # every line for topics without qrels
            run_topics = extra[: int(rng.integers(1, 3))]
        else:
            run_topics = [t for t in topics if rng.random() < 0.85] + [t for t in extra if rng.random() < 0.15]
            run_topics = run_topics or topics[:1]
        tags = [f"tag{s}"]
        if rng.random() < 0.1:
            tags.append(f"other{s}")  # named after the file (refused with one_tag)
        if s and rng.random() < 0.04:
            tags = ["tag0"]  # two runs, one name
        text = _run_text(rng, s, run_topics, pool, sep, max_len, tags, duplicate)
        name = str(rng.choice([f"input.run{s}", f"run{s}.txt", f"r.{s}"]))
        if rng.random() < 0.35:
            text, name = gzip.compress(text, mtime=0), name + ".gz"
        case.runs[name] = text
    case.kwargs = {"depth": None if rng.random() < 0.5 else int(rng.integers(1, max_len + 2)),
                   "ties": str(rng.choice(["float64", "float32"])), "one_tag": one_tag}
    return case


SEEDS = range(40)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_collections_are_built_alike(tmp_path, monkeypatch, seed):
    """A random collection (see :func:`random_case`) built by each reader: the same collection or the same
    error, and the native reader ran (every file is regular)."""
    case = random_case(seed)
    runs, qrels = case.write(tmp_path, as_path=bool(seed % 2))
    if seed % 3 == 0:  # qrels already read (a Qrels object) rather than a path
        qrels = read_qrels(qrels)
    check_case(monkeypatch, runs, qrels, case.kwargs, case.reader)


def test_random_cases_cover_what_they_should(tmp_path):
    """The seeds together reach the options the module docstring lists (so a change to the generator that stops
    drawing one is noticed): gzip and plain, both delimiters, one_tag, depth cuts, both tie modes, errors and
    successes."""
    seen = {"gz": 0, "plain": 0, "tab": 0, "space": 0, "one_tag": 0, "depth": 0, "float32": 0, "float64": 0,
            "sampled": 0}
    for seed in SEEDS:
        case = random_case(seed)
        for data in case.runs.values():
            text = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
            seen["gz" if data[:2] == b"\x1f\x8b" else "plain"] += 1
            seen["tab" if b"\t" in text else "space"] += 1
        seen["one_tag"] += case.kwargs["one_tag"]
        seen["depth"] += case.kwargs["depth"] is not None
        seen[case.kwargs["ties"]] += 1
        seen["sampled"] += len(case.qrels.split(b"\n")[0].split()) == 5
    assert all(seen.values()), seen


# ------------------------------------------------------------------------------------------------- edge cases

QRELS = (b"401 0 FBIS3-10082 1\n401 0 FBIS3-1008 0\n401 0 LA010189-0001 2\n401 0 judged-only 1\n"
         b"402 0 b 1\n402 0 a -1\n403 0 never-retrieved 1\n")
#: a regular run: ties (in float64, and only in float32), an inversion, a topic without qrels, -0 and 0
RUN = (b"401 Q0 FBIS3-10082 1 3 runA\n401 Q0 FBIS3-1008 2 3 runA\n401 Q0 LA010189-0001 3 1.00000001 runA\n"
       b"401 Q0 LA010189-0010 4 1.0 runA\n401 Q0 x 5 2 runA\n402 Q0 a 1 -0 runA\n402 Q0 b 2 0 runA\n"
       b"402 Q0 c 3 5 runA\n450 Q0 z 1 1 runA\n")
RUN_B = b"401 Q0 a 1 1 runB\n402 Q0 b 1 1 runB\n402 Q0 FBIS3-1008 2 0.5 runB\n"


def _with_line(line: bytes, at: int = 1) -> bytes:
    lines = RUN.split(b"\n")
    return b"\n".join(lines[:at] + [line] + lines[at:])


def _long_tie(score: bytes, first: bytes, second: bytes) -> bytes:
    """24 docnos of one score in a topic, ascending, d007 twice (scores ``first`` then ``second``, equal as
    compared but not bit for bit): cut at depth 18, one copy of d007 is kept, the last row."""
    rows = [(b"d%03d" % i, first if i == 7 else score) for i in range(1, 26) if i != 8]
    rows.insert(22, (b"d007", second))
    return b"".join(b"401 Q0 %s 1 %s t\n" % row for row in rows)


def _gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def _edge(runs: dict, reader: str | None, qrels: bytes = QRELS, **kwargs) -> Case:
    return Case(runs={"input.b": RUN_B, **runs}, qrels=qrels, kwargs=kwargs, reader=reader)


EDGE_CASES = {
    # regular files at the edges of the format: the native reader takes them
    "plain": _edge({"input.a": RUN}, "native"),
    "tabs": _edge({"input.a": RUN.replace(b" ", b"\t")}, "native"),
    "tab file beside a space file": _edge({"input.a": RUN.replace(b" ", b"\t")}, "native", depth=2),
    "no trailing newline": _edge({"input.a": RUN.rstrip(b"\n")}, "native"),
    "one line without newline": _edge({"input.a": b"401 Q0 a 1 1 t"}, "native"),
    "byte-order mark": _edge({"input.a": b"\xef\xbb\xbf" + RUN}, "native"),
    "gzip": _edge({"input.a.gz": _gz(RUN)}, "native"),
    "gzip with a byte-order mark": _edge({"input.a.gz": _gz(b"\xef\xbb\xbf" + RUN)}, "native"),
    "float32 ties": _edge({"input.a": RUN}, "native", ties="float32"),
    "depth 1": _edge({"input.a": RUN}, "native", depth=1),
    "depth 0": _edge({"input.a": RUN}, None, depth=0),
    "depth beyond every ranking": _edge({"input.a": RUN}, "native", depth=50),
    "one_tag": _edge({"input.a": RUN}, "native", one_tag=True),
    "every score spelling": _edge({"input.a": b"".join(b"401 Q0 d%d 1 %s t\n" % (i, s.encode())
                                                       for i, s in enumerate(SPELLINGS))}, "native"),
    "every score spelling, float32": _edge({"input.a": b"".join(b"401 Q0 d%d 1 %s t\n" % (i, s.encode())
                                                                for i, s in enumerate(SPELLINGS))}, "native",
                                           ties="float32"),
    "every point place in scores of 1-17 digits": _edge({"input.a": b"401 Q0 a 1 12.5 t\n" + b"".join(
        b"401 Q0 p%d 1 %s t\n" % (i, s.encode()) for i, s in enumerate(POINT_PLACES))}, "native"),
    "only topics without qrels": _edge({"input.a": b"450 Q0 a 1 1 t\n451 Q0 b 1 1 t\n"}, "native"),
    "every run only topics without qrels": Case(runs={"input.a": b"450 Q0 a 1 1 t\n", "input.c": b"9 Q0 z 1 2 u\n"},
                                                qrels=QRELS, reader="native"),
    "two tags: named after the file": _edge({"input.a.gz": _gz(RUN.replace(b"5 5 runA", b"5 5 other"))}, "native"),
    "two tags with one_tag": _edge({"input.a": RUN.replace(b"c 3 5 runA", b"c 3 5 other")}, "native", one_tag=True),
    "same tag twice": _edge({"input.a": RUN.replace(b"runA", b"runB")}, "native"),
    "same file name tag twice": Case(runs={"input.x": b"401 Q0 a 1 1 t\n401 Q0 b 1 1 u\n", "x": b"401 Q0 a 1 1 x\n"},
                                     qrels=QRELS, reader="native"),
    "docno twice within the depth": _edge({"input.a": _with_line(b"401 Q0 FBIS3-1008 9 0.1 runA", 5)}, "native"),
    "docno twice, same score": _edge({"input.a": _with_line(b"401 Q0 x 9 2 runA", 3)}, "native"),
    "docno twice beyond the depth": _edge({"input.a": _with_line(b"401 Q0 FBIS3-1008 9 -7 runA", 5)}, "native",
                                          depth=4),
    "docno twice in a topic without qrels": _edge({"input.a": RUN + b"450 Q0 z 2 3 runA\n"}, "native"),
    "docno twice in two runs": _edge({"input.a": _with_line(b"401 Q0 x 9 1 runA"),
                                      "input.c": b"402 Q0 q 1 1 runC\n402 Q0 q 2 1 runC\n"}, "native"),
    "topics 10 and 9 and 010": Case(runs={"input.a": b"10 Q0 a 1 1 t\n9 Q0 a 1 1 t\n010 Q0 b 1 2 t\n1_0 Q0 c 1 1 t\n"},
                                    qrels=b"10 0 a 1\n9 0 a 0\n010 0 b 1\n1_0 0 c 1\n", reader="native"),
    "string topics": Case(runs={"input.a": b"t-7 Q0 a 1 1 t\nt-10 Q0 a 1 1 t\n401 Q0 b 1 2 t\n"},
                          qrels=b"t-7 0 a 1\nt-10 0 a 0\n401 0 b 1\n", reader="native"),
    "sampled qrels": _edge({"input.a": RUN}, "native", qrels=b"401 0 FBIS3-10082 1 1\n401 0 x 2 -1\n402 0 b 0 0\n"),
    "tab-separated qrels": _edge({"input.a": RUN}, "native", qrels=QRELS.replace(b" ", b"\t")),
    "long docnos sharing prefixes": _edge({"input.a": b"".join(b"401 Q0 %s 1 %d t\n" % (d.encode(), i % 3)
                                                               for i, d in enumerate(FIXED_DOCNOS))}, "native"),
    "float32 tie of one docno cut at the depth": _edge({"input.a": b"401 Q0 e 1 2 t\n401 Q0 d 2 1.00000001 t\n"
                                                                   b"401 Q0 d 3 1.0 t\n"}, "native", depth=2,
                                                       ties="float32"),
    "float32 tie of one docno cut at the depth, reversed": _edge({"input.a": b"401 Q0 d 2 1.0 t\n401 Q0 e 1 2 t\n"
                                                                             b"401 Q0 d 3 1.00000001 t\n"}, "native",
                                                                 depth=2, ties="float32"),
    # which copy of a docno tied with itself survives the cut: the copy first in the file (a stable order)
    "float32 tie of one docno cut at the depth, in a long tie": _edge(
        {"input.a": _long_tie(b"1", b"1.0", b"0.99999999")}, "native", depth=18, ties="float32"),
    "0 and -0 of one docno cut at the depth, in a long tie": _edge(
        {"input.a": _long_tie(b"0", b"0", b"-0")}, "native", depth=18),
    # no array of lengths: each docno ends where the next begins (or where its block's docnos end), any length
    "docnos past 65,535 bytes, one judged, ending blocks": _edge(
        {"input.a": b"401 Q0 " + b"L" * 70000 + b" 1 2 t\n401 Q0 x 2 1 t\n402 Q0 " + b"L" * 70001 + b" 1 3 t\n"
                    b"402 Q0 " + b"L" * 70000 + b" 2 3 t\n", "input.b": b"401 Q0 " + b"L" * 70000 + b" 1 1 u\n"},
        "native", qrels=QRELS + b"402 0 " + b"L" * 70001 + b" 1\n"),
    "control characters in docnos": _edge({"input.a": b"".join(b"401 Q0 %s 1 1 t\n" % d.encode()
                                                               for d in CONTROL_DOCNOS)}, "native"),
    "non-ASCII qrels docnos among run docnos": _edge(
        {"input.a": b"401 Q0 a 1 1 t\n401 Q0 ABCDEFGHzz 1 1 t\n401 Q0 ~ 1 1 t\n401 Q0 a\x7f 1 1 t\n"}, "native",
        qrels="401 0 a\u00e9 1\n401 0 a\x7f 1\n401 0 ABCDEFGH\u00e9 1\n401 0 ABCDEFGHz 0\n402 0 \u00ff 1\n".encode()),
    # the vocabulary's words are written from their sort keys (16 bytes) and their bytes past 16: non-ASCII before,
    # across and past byte 16, beside ASCII docnos sharing their first 16 bytes
    "non-ASCII qrels docnos past 16 bytes": _edge(
        {"input.a": b"401 Q0 ABCDEFGHIJKLMNOPa 1 1 t\n401 Q0 ABCDEFGHIJKLMNOPb 2 1 t\n401 Q0 ABCDEFGHIJKLMNO 3 1 t\n"},
        "native", qrels="401 0 ABCDEFGHIJKLMNOP\u00e9 1\n401 0 ABCDEFGHIJKLMNO\u00e9 1\n401 0 ABCDEFGHIJKLMN\u00e9z 0\n"
                        "401 0 \u00e9BCDEFGHIJKLMNOPQRS 1\n401 0 ABCDEFGHIJKLMNOPa 1\n402 0 ABCDEFGHIJKLMNOP\u20ac\u20ac 1\n"
                        .encode()),
    "same file twice": Case(runs={"input.a": RUN}, qrels=QRELS, reader="native"),  # see test_same_path_twice
    "multi-member gzip": _edge({"input.a.gz": _gz(RUN[:40]) + _gz(RUN[40:])}, None),
    "gzip without .gz": _edge({"input.a": _gz(RUN)}, None),
    "gzip with trailing zeros": _edge({"input.a.gz": _gz(RUN) + b"\0" * 8}, None),

    # irregular files: the whole build falls back and gives the Python pipeline's collection or error
    "CRLF": _edge({"input.a": RUN.replace(b"\n", b"\r\n")}, "python"),
    "CRLF on one line": _edge({"input.a": RUN.replace(b"\n", b"\r\n", 1)}, "python"),
    "carriage return inside a line": _edge({"input.a": RUN.replace(b"runA", b"ru\rnA", 1)}, "python"),
    "blank line": _edge({"input.a": _with_line(b"", 2)}, "python"),
    "blank last line": _edge({"input.a": RUN + b"\n"}, "python"),
    "comment line": _edge({"input.a": _with_line(b"# a comment", 0)}, "python"),
    "comment topic": _edge({"input.a": _with_line(b"#401 Q0 q 1 1 runA", 3)}, "python"),
    "7 fields": _edge({"input.a": _with_line(b"401 Q0 q 1 1 runA extra", 3)}, "python"),
    "7 fields everywhere": _edge({"input.a": RUN.replace(b"runA", b"runA x")}, "python"),
    "5 fields": _edge({"input.a": _with_line(b"401 Q0 q 1 1", 3)}, "python"),
    "two spaces": _edge({"input.a": RUN.replace(b"Q0 x", b"Q0  x")}, "python"),
    "leading space": _edge({"input.a": _with_line(b" 401 Q0 q 1 1 runA", 3)}, "python"),
    "trailing space": _edge({"input.a": RUN.replace(b"runA\n", b"runA \n", 1)}, "python"),
    "mixed tab and space": _edge({"input.a": RUN.replace(b"Q0 x", b"Q0\tx")}, "python"),
    "vertical tab": _edge({"input.a": RUN.replace(b"Q0 x", b"Q0\x0bx")}, "python"),
    "form feed": _edge({"input.a": RUN.replace(b"Q0 x", b"Q0\x0cx")}, "python"),
    "non-ASCII docno": _edge({"input.a": RUN.replace(b"Q0 x", "Q0 x\u00e9".encode())}, "python"),
    "non-ASCII docno in gzip": _edge({"input.a.gz": _gz(RUN.replace(b"Q0 c", "Q0 \u20acc".encode()))}, "python"),
    "invalid UTF-8": _edge({"input.a": RUN.replace(b"Q0 x", b"Q0 x\xff")}, "python"),
    "NUL byte": _edge({"input.a": RUN.replace(b"Q0 x", b"Q0 x\0")}, "python"),
    "score nan": _edge({"input.a": _with_line(b"401 Q0 q 1 nan runA")}, "python"),
    "score -nan": _edge({"input.a": _with_line(b"401 Q0 q 1 -NaN runA")}, "python"),
    "score inf": _edge({"input.a": _with_line(b"401 Q0 q 1 inf runA")}, "python"),
    "score Infinity": _edge({"input.a": _with_line(b"401 Q0 q 1 -Infinity runA")}, "python"),
    "score 1e400": _edge({"input.a": _with_line(b"401 Q0 q 1 1e400 runA")}, "python"),
    "score -1e309": _edge({"input.a": _with_line(b"401 Q0 q 1 -1e309 runA")}, "python"),
    "score of 400 nines": _edge({"input.a": _with_line(b"401 Q0 q 1 " + b"9" * 400 + b" runA")}, "python"),
    "score 0x10": _edge({"input.a": _with_line(b"401 Q0 q 1 0x10 runA")}, "python"),
    "score 1_0": _edge({"input.a": _with_line(b"401 Q0 q 1 1_0 runA")}, "python"),
    "score abc": _edge({"input.a": _with_line(b"401 Q0 q 1 abc runA")}, "python"),
    "score 1e": _edge({"input.a": _with_line(b"401 Q0 q 1 1e runA")}, "python"),
    "score e5": _edge({"input.a": _with_line(b"401 Q0 q 1 e5 runA")}, "python"),
    "score .": _edge({"input.a": _with_line(b"401 Q0 q 1 . runA")}, "python"),
    "score +": _edge({"input.a": _with_line(b"401 Q0 q 1 + runA")}, "python"),
    "score 1.2.3": _edge({"input.a": _with_line(b"401 Q0 q 1 1.2.3 runA")}, "python"),
    "score 1e+": _edge({"input.a": _with_line(b"401 Q0 q 1 1e+ runA")}, "python"),
    "score +-1": _edge({"input.a": _with_line(b"401 Q0 q 1 +-1 runA")}, "python"),
    "score 1,5": _edge({"input.a": _with_line(b"401 Q0 q 1 1,5 runA")}, "python"),
    "score 1d5": _edge({"input.a": _with_line(b"401 Q0 q 1 1d5 runA")}, "python"),
    "score halfway to 2**1024": _edge({"input.a": _with_line(b"401 Q0 q 1 %d runA" % (int(DBL_MAX) + 2**970))},
                                      "python"),
    "empty file": _edge({"input.a": b""}, "python"),
    "empty gzip": _edge({"input.a.gz": _gz(b"")}, "python"),
    "only newlines": _edge({"input.a": b"\n\n"}, "python"),
    "only a comment": _edge({"input.a": b"# nothing\n"}, "python"),
    "corrupt gzip": _edge({"input.a.gz": _gz(RUN)[:-9]}, "python"),
    ".gz that is not gzip": _edge({"input.a.gz": RUN}, "python"),
    "a directory for a run file": Case(runs={"input.b": RUN_B, "input.a": None}, qrels=QRELS, reader="python"),
    "bad file after a regular one": Case(runs={"input.a": RUN, "input.b": RUN_B + b"401 Q0 z 1\n",
                                               "input.c": b"401 Q0 a 1 abc t\n"}, qrels=QRELS, reader="python"),
    "one_tag error before a bad file": Case(runs={"input.a": RUN.replace(b"c 3 5 runA", b"c 3 5 other"),
                                                  "input.b": b"401 Q0 a 1 abc t\n"},
                                            qrels=QRELS, kwargs={"one_tag": True}, reader=None),

    # qrels the Python reader reads or refuses, with regular runs (who reads the qrels is not asserted)
    "bad qrels grade": _edge({"input.a": RUN}, None, qrels=QRELS + b"402 0 q 1.5\n"),
    "qrels pair twice": _edge({"input.a": RUN}, None, qrels=QRELS + b"402 0 b 2\n"),
    "qrels of mixed widths": _edge({"input.a": RUN}, None, qrels=QRELS + b"402 0 q 1 1\n"),
    "empty qrels": _edge({"input.a": RUN}, None, qrels=b""),
    "bad qrels and a bad run": _edge({"input.a": RUN + b"401 Q0 q 1 nan runA\n"}, "python", qrels=b"401 0 a x\n"),
    "qrels with comments, CRLF, BOM, non-ASCII": _edge({"input.a": RUN}, None,
                                                       qrels=b"\xef\xbb\xbf# c\r\n" + QRELS.replace(b"\n", b"\r\n")
                                                       + "402 0 \u00e9t\u00e9 1\r\n".encode()),
}


@pytest.mark.parametrize("name", list(EDGE_CASES))
def test_edge_cases_are_built_alike(tmp_path, monkeypatch, name):
    """Each named case built by each reader: the same collection or error; regular files read natively, irregular
    ones by the Python pipeline (the whole build falls back)."""
    case = EDGE_CASES[name]
    runs, qrels = case.write(tmp_path)
    check_case(monkeypatch, runs, qrels, case.kwargs, case.reader)


def test_same_path_twice_and_a_missing_file(tmp_path, monkeypatch):
    """One file given twice (two runs of one name: an error naming it twice), and a path that does not exist (the
    build falls back and names it)."""
    runs, qrels = EDGE_CASES["plain"].write(tmp_path)
    check_case(monkeypatch, [runs[1], runs[0], runs[1]], qrels, {}, "native")
    check_case(monkeypatch, [runs[0], str(tmp_path / "missing")], qrels, {}, "python")
    check_case(monkeypatch, runs, str(tmp_path / "missing qrels"), {}, "python")


def test_bad_ties_is_reported_after_a_bad_file_as_before(tmp_path, monkeypatch):
    """``EVALKIT_NATIVE=0`` is the pipeline as it was, errors included: built with the native module bypassed
    altogether, the same outcome. (A bad run file is reported before a bad ``ties`` value, as parsing precedes
    ordering.)"""
    (tmp_path / "bad").write_bytes(b"401 Q0 a 1 abc t\n")
    (tmp_path / "good").write_bytes(RUN)
    (tmp_path / "q").write_bytes(QRELS)
    cases = [(["bad"], {"ties": "float16"}), (["good"], {"ties": "float16"}), (["good"], {"depth": 0}),
             (["good", "bad"], {"one_tag": True})]
    for names, kwargs in cases:
        runs = [str(tmp_path / n) for n in names]
        python = _collection_or_error(monkeypatch, False, runs, str(tmp_path / "q"), kwargs)
        with monkeypatch.context() as bypass:
            bypass.setattr(build.native_build, "build_arrays", lambda *args, **kw: None)
            before = _collection_or_error(bypass, True, runs, str(tmp_path / "q"), kwargs)
        assert_same_outcome(python, before, ("EVALKIT_NATIVE=0", "native module bypassed"))
        assert_same_outcome(_collection_or_error(monkeypatch, True, runs, str(tmp_path / "q"), kwargs), before,
                            ("native", "native module bypassed"))


_NUMBER = re.compile(rb"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def is_regular(data: bytes) -> bool:
    """The native reader's contract, written out in Python: after gzip and a BOM, every line 6 non-empty fields
    between one delimiter (space or tab, the other absent), ASCII without NUL, \\r, \\v, \\f, no blank line, no
    comment, every score wholly a finite decimal number; the last line may lack its newline."""
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    data = data.removeprefix(b"\xef\xbb\xbf")
    if not data or not data.isascii() or any(c in data for c in (b"\0", b"\r", b"\v", b"\f")):
        return False
    if b"\t" in data and b" " in data:
        return False
    delimiter = b"\t" if b"\t" in data else b" "
    for line in data.removesuffix(b"\n").split(b"\n"):
        fields = line.split(delimiter)
        if len(fields) != 6 or not all(fields) or fields[0].startswith(b"#"):
            return False
        if not _NUMBER.fullmatch(fields[4]) or not np.isfinite(float(fields[4])):
            return False
    return True


_WORD_BYTES = np.frombuffer(b"abcdefghijXYZ0123456789-._#\x01\x7f", np.uint8)
_MUTATIONS = [b" ", b"\t", b"\r", b"\n", b"\0", b"\v", b"\f", b"\x80", "\u00e9".encode(), b"#", b"  ", b"\r\n",
              b"\x01", b"\x7f", b"e", b".", b"-", b"\xef\xbb\xbf"]


def _mutated_case(tmp_path, seed: int, gz: bool):
    """A run file of fields of every length from 1 to 40 bytes, most with one or two bytes inserted or replaced at
    a random place (see the test below), written gzipped or not, and a qrels file: (run path, qrels path, build
    keyword arguments, the run's text)."""
    rng = np.random.default_rng(seed)

    def word(low: int, high: int) -> bytes:
        return bytes(rng.choice(_WORD_BYTES, int(rng.integers(low, high + 1))).tolist())

    sep = b" " if rng.random() < 0.5 else b"\t"
    topics = [word(1, 12).lstrip(b"#") or b"1" for _ in range(3)]
    lines = [sep.join([topics[int(rng.integers(0, 3))], word(1, 10), word(1, 40), word(1, 10),
                       str(rng.choice(SPELLINGS)).encode() if rng.random() < 0.5 else b"%d" % rng.integers(0, 5),
                       word(1, 20) if rng.random() < 0.1 else b"tag"])
             for _ in range(int(rng.integers(1, 40)))]
    data = b"\n".join(lines) + (b"\n" if rng.random() < 0.7 else b"")
    if rng.random() < 0.7:
        at = int(rng.integers(0, len(data) + 1))
        data = data[:at] + _MUTATIONS[int(rng.integers(0, len(_MUTATIONS)))] + data[at + int(rng.integers(0, 2)):]
    path = tmp_path / ("run.gz" if gz else "run")
    path.write_bytes(_gz(data) if gz else data)
    (tmp_path / "q").write_bytes(b"".join(b"%s 0 %s 1\n" % (topic, word(1, 40)) for topic in topics[:2]))
    kwargs = {"depth": None if seed % 2 else int(rng.integers(1, 10))}
    return str(path), str(tmp_path / "q"), kwargs, data


def _check_mutated(monkeypatch, path, qrels, kwargs, data) -> None:
    check_case(monkeypatch, [path], qrels, kwargs, None)
    built = _built_or_error(monkeypatch, True, [path], qrels, kwargs)
    if is_regular(data):  # a regular file may still be refused (two tags with one_tag, a bad qrels): not here
        assert not isinstance(built, Exception) and built.reader == ("native" if _native_available() else "python")
    elif not isinstance(built, Exception):
        assert built.reader == "python"


@pytest.mark.parametrize("seed", range(60))
def test_mutated_files_are_read_natively_exactly_when_regular(tmp_path, monkeypatch, seed):
    """A run file of fields of every length from 1 to 40 bytes (so fields and line ends fall anywhere in a machine
    word), one byte or two inserted or replaced at a random place in most of them (a blank, a line end, a NUL, a
    non-ASCII byte, a '#', a BOM in the middle...): the readers agree, and the native reader ran exactly when the
    file is regular by :func:`is_regular`."""
    _check_mutated(monkeypatch, *_mutated_case(tmp_path, seed, gz=seed % 4 == 0))


@pytest.mark.parametrize("seed", range(60))
def test_gzip_pieces_ending_anywhere_are_read_alike(tmp_path, monkeypatch, seed):
    """The compiled reader takes a gzip file in pieces as it is inflated (256 KB at a time, so a test file is one
    piece): with pieces of 1 to 100 bytes, every line, field, byte-order mark and multi-byte mutation is cut
    somewhere, and the readers still agree, the native one running exactly when the file is regular."""
    monkeypatch.setattr(native_build, "_PIECE", [1, 2, 3, 5, 7, 8, 15, 16, 17, 63, 64, 65, 100][seed % 13])
    path, qrels, kwargs, data = _mutated_case(tmp_path, 1000 + seed, gz=True)
    if seed % 3 == 0:  # a byte-order mark first, cut anywhere too
        data = b"\xef\xbb\xbf" + data
        Path(path).write_bytes(_gz(data))
    _check_mutated(monkeypatch, path, qrels, kwargs, data)


def test_gzip_members_and_pieces(tmp_path, monkeypatch):
    """A gzip file of several members (as ``cat a.gz b.gz`` makes), read in small pieces: the same as the
    pure-Python build, natively."""
    monkeypatch.setattr(native_build, "_PIECE", 7)
    text = _with_line(b"401 Q0 zz 9 0.25 runA")
    path = tmp_path / "input.a.gz"
    path.write_bytes(_gz(text[:10]) + _gz(text[10:41]) + _gz(b"") + _gz(text[41:]))
    (tmp_path / "q").write_bytes(QRELS)
    check_case(monkeypatch, [str(path)], str(tmp_path / "q"), {}, "native")


def test_relative_paths_are_named_as_given(tmp_path, monkeypatch):
    """Errors and sources name a run file as the caller gave it (a relative path stays relative)."""
    monkeypatch.chdir(tmp_path)
    Path("sub").mkdir()
    Path("sub/input.a").write_bytes(_with_line(b"401 Q0 x 9 1 runA"))  # a docno twice: the error names the file
    Path("sub/input.b").write_bytes(RUN_B)
    Path("q").write_bytes(QRELS)
    check_case(monkeypatch, ["sub/input.b", "sub/input.a"], "q", {}, "native")
    check_case(monkeypatch, [Path("sub/input.b"), Path("./sub/input.a")], Path("q"), {}, "native")


# ------------------------------------------------------------------------------------------------------ qrels

def _qrels_text(rng, width: int, sep: bytes, n_lines: int) -> bytes:
    """Regular qrels: ``width`` fields (topic iter docno [stratum] grade) between ``sep``, topics and docnos of the
    word bytes (a topic never begins with '#'), grades of 1-9 digits with leading zeros and signs, docnos repeated
    across topics, the last line with or without its \n."""
    def word(low: int, high: int) -> bytes:
        return bytes(rng.choice(_WORD_BYTES, int(rng.integers(low, high + 1))).tolist())

    topics = [word(1, 8).lstrip(b"#") or b"7" for _ in range(int(rng.integers(1, 6)))]
    docnos = [word(1, 30) for _ in range(max(2, n_lines // 2))]
    lines = []
    for i in range(n_lines):
        grade = b"-" * int(rng.random() < 0.2) + b"0" * int(rng.integers(0, 3)) + str(rng.integers(0, 10 ** int(
            rng.integers(1, 8)))).encode()
        fields = [topics[int(rng.integers(len(topics)))] if rng.random() < 0.3 or not lines else lines[-1][0],
                  word(1, 3), docnos[int(rng.integers(len(docnos)))]]
        fields += [str(rng.integers(0, 10**9)).encode()] if width == 5 else []
        lines.append(fields + [grade[:10] if grade[:1] == b"-" else grade[:9]])
    text = b"\n".join(sep.join(fields) for fields in lines)
    return text + (b"\n" if rng.random() < 0.8 else b"")


@pytest.mark.parametrize("seed", range(40))
def test_regular_qrels_are_read_natively_as_the_python_reader_reads_them(tmp_path, seed):
    """Random regular qrels (4 or 5 columns, space or tab, control bytes in ids, signed grades with leading zeros):
    the compiled reader takes them, and each line's topic, docno, grade and stratum equal the pure-Python
    reader's (pairs judged twice are let through: the build checks them on ids)."""
    if not native_build.available():
        pytest.skip("no compiled reader")
    rng = np.random.default_rng(seed)
    width = 4 if seed % 2 else 5
    path = tmp_path / "qrels"
    path.write_bytes(_qrels_text(rng, width, b" " if seed % 3 else b"\t", int(rng.integers(1, 300))))
    assert native_build._native_runs.read_qrels(path.read_bytes()) is not None
    native = native_build._judgments(str(path))
    from evalkit.data.trec_files import read_qrels_columns

    python = read_qrels_columns(path, check_pairs=False)
    assert native.topic_values[native.topic_codes].tolist() == python.topic.to_pylist()
    offsets = native.docno_offsets
    assert [native.docno_data[offsets[i]:offsets[i + 1]].decode() for i in range(len(offsets) - 1)] == \
        python.docno.to_pylist()
    assert native.grade.dtype == python.grade.dtype and native.grade.tolist() == python.grade.tolist()
    assert (native.stratum is None) == (python.stratum is None) == (width == 4)
    if width == 5:
        assert native.stratum.dtype == python.stratum.dtype and native.stratum.tolist() == python.stratum.tolist()


QRELS_LINES = b"401 0 a 1\n401 0 b 0\n402 0 a 2\n"


@pytest.mark.parametrize("text", [
    b"", b"\n", QRELS_LINES + b"\n", b"\n" + QRELS_LINES, QRELS_LINES + b"# note\n", b"#401 0 a 1\n",
    QRELS_LINES.replace(b"\n", b"\r\n"), b"\xef\xbb\xbf" + QRELS_LINES, QRELS_LINES + "402 0 \u00e9 1\n".encode(),
    QRELS_LINES.replace(b"0 b", b"0  b"), QRELS_LINES.replace(b"0 b", b"0\tb"), b"401\t0\ta\t1\n402 0 b 1\n",
    QRELS_LINES + b"402 0 c\n", QRELS_LINES + b"402 0 c 1 2 3\n", QRELS_LINES + b"402 0 c 1 2\n",
    b"401 0 a 1 2\n402 0 b 1\n", QRELS_LINES + b"402 0 c +1\n", QRELS_LINES + b"402 0 c 1.5\n",
    QRELS_LINES + b"402 0 c 1234567890\n", QRELS_LINES + b"402 0 c -\n", QRELS_LINES + b"402 0 c 1e3\n",
    b"401 0 a -1 1\n", b"401 0 a +1 1\n", QRELS_LINES + b"402 0 c\x00 1\n", QRELS_LINES + b"402 0 c\x0b 1\n",
    QRELS_LINES + b"402 0 c\x0c 1\n", QRELS_LINES + b"402 0 c\r 1\n", QRELS_LINES + b" 402 0 c 1\n",
    QRELS_LINES + b"402 0 c 1 \n", b"401", b"401 0 a 1 2 3 4\n"],
    ids=lambda text: repr(text[-24:]))
def test_irregular_qrels_are_left_to_the_python_reader(tmp_path, monkeypatch, text):
    """Qrels the compiled reader does not read alike (comments, blank lines, CR, a BOM, non-ASCII, other blanks,
    other widths, grades or strata that are not -?[0-9]{1,9} / [0-9]{1,9}, ...) are refused by it (None), and the
    build gives what the pure-Python reader gives: the same collection or the same error."""
    if not native_build.available():
        pytest.skip("no compiled reader")
    assert native_build._native_runs.read_qrels(text) is None
    (tmp_path / "input.a").write_bytes(RUN)
    (tmp_path / "q").write_bytes(text)
    check_case(monkeypatch, [str(tmp_path / "input.a")], str(tmp_path / "q"), {}, None)


def test_the_build_reads_regular_qrels_natively_and_refers_pairs_judged_twice(tmp_path, monkeypatch):
    """The build reads a regular qrels file with the compiled reader (a spy sees it return columns), and a pair
    judged twice in such a file sends the build to the pure-Python one, which names the line."""
    if not native_build.available():
        pytest.skip("no compiled reader")
    calls = []
    real = native_build._native_runs.read_qrels
    monkeypatch.setattr(native_build, "_native_runs", _Spy(native_build._native_runs, calls, real))
    (tmp_path / "input.a").write_bytes(RUN)
    (tmp_path / "q").write_bytes(QRELS)
    check_case(monkeypatch, [str(tmp_path / "input.a")], str(tmp_path / "q"), {}, "native")
    assert calls and all(result is not None for result in calls)
    (tmp_path / "q").write_bytes(QRELS + b"401 0 judged-only 0\n")
    with pytest.raises(Exception, match="duplicate docno 'judged-only' in topic 401"):
        Collection.from_runs([str(tmp_path / "input.a")], str(tmp_path / "q"))
    check_case(monkeypatch, [str(tmp_path / "input.a")], str(tmp_path / "q"), {}, None)


class _Spy:
    """The compiled module with ``read_qrels`` recorded (its results appended to ``calls``)."""

    def __init__(self, module, calls: list, real):
        self._module, self._calls, self._real = module, calls, real

    def read_qrels(self, data):
        result = self._real(data)
        self._calls.append(result)
        return result

    def __getattr__(self, name):
        return getattr(self._module, name)


def test_run_objects_fall_back(tmp_path, monkeypatch):
    """Sources that are not all file paths (a parsed :class:`Run` among them) are built by the Python pipeline,
    with the same result as all paths."""
    case = EDGE_CASES["plain"]
    runs, qrels = case.write(tmp_path)
    mixed = [parse_run(runs[0]), runs[1]]
    check_case(monkeypatch, mixed, qrels, {}, "python")
    _use(monkeypatch, True)
    from_paths = Collection.from_runs(runs, qrels)
    assert_same_collection(Collection.from_runs(mixed, qrels), from_paths)
    assert isinstance(mixed[0], Run)


def test_evalkit_native_0_forces_python_and_1_allows_native(tmp_path, monkeypatch):
    """``EVALKIT_NATIVE`` is read at each call: "0" builds with Python even for regular files, "1" as unset."""
    runs, qrels = EDGE_CASES["plain"].write(tmp_path)
    assert _built_or_error(monkeypatch, False, runs, qrels, {}).reader == "python"
    expected = "native" if _native_available() else "python"
    assert _built_or_error(monkeypatch, "1", runs, qrels, {}).reader == expected
    assert _built_or_error(monkeypatch, True, runs, qrels, {}).reader == expected
    assert _built_or_error(monkeypatch, False, runs, qrels, {}).reader == "python"


def test_a_larger_collection_is_built_alike(tmp_path, monkeypatch):
    """Enough runs and rows (16 runs, 40 topics, rankings of up to 300) for several build threads and groups, with
    every layout of :func:`_run_text` at once."""
    rng = np.random.default_rng(12345)
    pool = _docno_pool(rng, 2000)
    topics = [str(301 + t) for t in range(40)]
    q_lines = [f"{t} 0 {pool[i]} {rng.integers(-1, 3)}" for t in topics
               for i in rng.choice(len(pool), 150, replace=False)]
    (tmp_path / "qrels").write_text("\n".join(q_lines) + "\n")
    runs = []
    for s in range(16):
        text = _run_text(rng, s, topics + ["999"], pool, " \t"[s % 2], 300, [f"run{s}"], False)
        path = tmp_path / (f"input.run{s}" + (".gz" if s % 3 == 0 else ""))
        path.write_bytes(_gz(text) if s % 3 == 0 else text)
        runs.append(str(path))
    for kwargs in ({}, {"depth": 100, "ties": "float32"}):
        check_case(monkeypatch, runs, str(tmp_path / "qrels"), kwargs, "native")


def test_many_short_lines_and_slow_scores(tmp_path, monkeypatch):
    """Lines shorter than the reader's first guess of a line's length (its row arrays grow as it reads) and
    thousands of scores that need the correctly rounded conversion (more than 17 significant digits)."""
    rng = np.random.default_rng(7)
    n = 30_000
    topic = rng.integers(1, 4, n)
    lines = [f"{t} 0 {i:x} 0 {'1' if i % 3 else f'0.{rng.integers(10**17, 10**18)}{i}'} t"
             for i, t in enumerate(topic.tolist())]
    (tmp_path / "r").write_text("\n".join(lines) + "\n")
    (tmp_path / "q").write_text("1 0 a 1\n2 0 b 1\n3 0 2 1\n")
    for kwargs in ({}, {"depth": 5000, "ties": "float32"}):
        check_case(monkeypatch, [str(tmp_path / "r")], str(tmp_path / "q"), kwargs, "native")


def _columns(topic, docno, grade, stratum=None) -> dict:
    return {"topic": topic, "docno": docno, "grade": grade, "stratum": stratum}


_TEXT = np.array(["401", "402"], object)
QRELS_OBJECTS = {  # topic, docno, grade (, stratum)
    "numpy str_ columns": _columns(np.array(["401", "402"]), np.array(["a", "c"]), np.array([1, 1])),
    "lists": _columns(["401", "402"], ["a", "zz"], np.array([1, 1])),
    "float grades": _columns(_TEXT, np.array(["a", "c"], object), np.array([1.0, 2.0])),
    "strata": _columns(_TEXT, np.array(["a", "c"], object), np.array([1, -1]), np.array([0, 1])),
    "a pair twice": _columns(np.array(["402", "401", "401"], object), np.array(["c", "a", "a"], object),
                             np.array([1, 1, 0])),
    "int topics": _columns(np.array([401, 402]), np.array(["a", "c"], object), np.array([1, 1])),
    "int docnos": _columns(_TEXT, np.array([1, 2]), np.array([1, 1])),
}


@pytest.mark.parametrize("name", list(QRELS_OBJECTS))
def test_qrels_objects_are_built_alike(tmp_path, monkeypatch, name):
    """Qrels given as a :class:`Qrels` a caller made (columns of any array type, even of the wrong type: the same
    error then) rather than a file."""
    from evalkit.data.trec_files import Qrels

    (tmp_path / "r").write_bytes(b"401 Q0 a 1 1 t\n401 Q0 b 1 2 t\n402 Q0 c 1 1 t\n")
    check_case(monkeypatch, [str(tmp_path / "r")], Qrels(**QRELS_OBJECTS[name]), {}, None)


def test_the_extension_is_built():
    """The compiled reader imported (so the tests above exercised it), unless the environment opts out with
    ``EVALKIT_NATIVE=0``: a CI without the built extension fails here rather than testing Python against
    itself."""
    from evalkit.data import native_build

    assert native_build.available() or NATIVE_OPTED_OUT, "the compiled reader did not import (build the extension)"


def _processor_has(flags: set[str]) -> bool:
    """Whether /proc/cpuinfo lists every flag (False where it cannot be read)."""
    try:
        return flags <= set(Path("/proc/cpuinfo").read_text().split())
    except OSError:
        return False


def test_the_separator_finder_is_the_widest_the_processor_runs():
    """On x86-64 the separators are found with AVX-512 VBMI2 when /proc/cpuinfo lists it with AVX-512BW, with
    AVX-512BW alone without it, else with SSE2 (all read alike: the builds this processor does not choose are tested
    by test_the_portable_splitters_read_alike)."""
    if not native_build.available() or platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("no compiled reader, or not x86-64")
    try:
        flags = Path("/proc/cpuinfo").read_text().split()
    except OSError:
        pytest.skip("no /proc/cpuinfo to ask")
    wide = {"avx512f", "avx512bw", "popcnt"} <= set(flags)
    compress = wide and "avx512_vbmi2" in flags
    assert native_build._native_runs.SEPARATOR_FINDER == ("avx512vbmi2" if compress else "avx512" if wide else "sse2")


# ----------------------------------------------------------------------------------------------------- TREC-8

@pytest.mark.trec8
def test_trec8_is_built_alike(monkeypatch):
    """TREC-8's 129 runs (gzip, one tag each) and qrels built by each reader, as a dataset folder builds them
    (one_tag) and with float32 ties at depth 100: the same collections, and the native reader ran."""
    if not TREC8.is_dir():
        pytest.skip("TREC-8 data not found (set EVALKIT_DATA or place it at ../shared/data/trec8)")
    runs = sorted(str(p) for p in (TREC8 / "runs").glob("input.*"))
    assert len(runs) == 129
    qrels = str(TREC8 / "qrels.trec8.adhoc.txt")
    for kwargs in ({"one_tag": True}, {"depth": 100, "ties": "float32"}):
        check_case(monkeypatch, runs, qrels, kwargs, "native")


def test_scores_of_16_to_19_digits_are_read_exactly(tmp_path, monkeypatch):
    """Mantissas of 16 to 19 significant digits (beyond 2^53, as runs printing 17 digits write them) with exponents
    from -12 to 11: the reader converts them in extended precision and leaves to strtod only a result that lies
    exactly halfway between two doubles at 64 bits. Every score must equal Python's float() of the same text,
    bit for bit, and the Python build's."""
    rng = np.random.default_rng(2026)
    texts = []
    for _ in range(20_000):
        digits = str(rng.integers(1, 10)) + "".join(rng.choice(list("0123456789"), rng.integers(15, 19)))
        point = int(rng.integers(0, len(digits) + 1))
        text = digits[:point] + "." + digits[point:]
        if rng.random() < 0.3:
            text += f"e{rng.integers(-12, 12)}"
        texts.append(("-" if rng.random() < 0.3 else "") + text)
    texts += ["9007199254740993", "9007199254740992.5", "18446744073709551615", "1.8446744073709551615e19",
              "0.30000000000000004441", "123456789012345678e-22"]
    lines = [f"{401 + i // 1000} Q0 D{i} 1 {text} tag" for i, text in enumerate(texts)]
    (tmp_path / "run").write_text("\n".join(lines) + "\n")
    (tmp_path / "qrels").write_text("".join(f"{401 + t} 0 D{t * 1000} 1\n" for t in range(len(texts) // 1000 + 1)))
    check_case(monkeypatch, [str(tmp_path / "run")], str(tmp_path / "qrels"), {}, "native")
    _use(monkeypatch, True)
    collection = Collection.from_runs([str(tmp_path / "run")], str(tmp_path / "qrels"))
    read = np.sort(collection.scores[~np.isnan(collection.scores)])
    expected = np.sort(np.array([float(text) for text in texts]))
    assert np.array_equal(read.view(np.uint64), expected.view(np.uint64))


@pytest.mark.parametrize("flags, finder", [(("-DEVALKIT_NO_VBMI2",), "avx512"), (("-DEVALKIT_NO_AVX512",), "sse2"),
                                           (("-U__SSE2__",), "word"), (("-U__SSE2__", "-U__BYTE_ORDER__"), "byte")],
                         ids=["AVX-512BW without VBMI2", "SSE2 without AVX-512", "word at a time", "byte at a time"])
def test_the_portable_splitters_read_alike(tmp_path, flags, finder):
    """An x86-64 build finds the separators 64 bytes at a time, with AVX-512BW where the processor has it (the
    checkout's build on this machine, tested above), else with SSE2; elsewhere the reader splits a word at a time
    (little-endian GCC/Clang) or a byte at a time. The other paths are compiled here, with the macros that choose
    them defined or undefined, into a copy of the package, and the random and edge cases run against them in a
    subprocess (a byte path that never advanced past a delimiter once sent every file to the fallback, which only
    this test sees)."""
    import shutil
    import subprocess
    import sys
    import sysconfig

    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if NATIVE_OPTED_OUT or shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}) or EVALKIT_NATIVE=0")
    root = Path(__file__).resolve().parents[1]
    copy = tmp_path / "site"
    shutil.copytree(root / "evalkit", copy / "evalkit", ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    target = copy / "evalkit" / "data" / ("_native_runs" + sysconfig.get_config_var("EXT_SUFFIX"))
    if finder in ("sse2", "avx512") and platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("SSE2 and AVX-512 are x86-64 paths")
    if finder == "avx512" and not _processor_has({"avx512f", "avx512bw", "popcnt"}):
        pytest.skip("the processor has no AVX-512BW: that build would choose SSE2")
    subprocess.run([compiler, "-shared", "-fPIC", "-O1", *flags,
                    f"-I{sysconfig.get_paths()['include']}", "-o", str(target),
                    str(root / "evalkit" / "data" / "_native_runs.c")], check=True, capture_output=True, text=True)
    environment = {**os.environ, "PYTHONPATH": str(copy)}
    environment.pop("EVALKIT_NATIVE", None)
    where = subprocess.run([sys.executable, "-c", "from evalkit.data import _native_runs as n; print(n.__file__); "
                            "print(n.SEPARATOR_FINDER)"], env=environment, cwd=copy, capture_output=True, text=True,
                           check=True)
    assert where.stdout.split() == [str(target), finder]  # the copy's build, not the checkout's, on that path
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-c", str(root / "pyproject.toml"), "--rootdir", str(root), __file__,
                           "-k", "random_collections or edge_cases or scores_of_16 or qrels"],
                          env=environment, cwd=copy, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:]
