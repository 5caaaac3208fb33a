"""TREC I/O: trec_eval ordering, both qrels forms, round trips, and one clear error per kind of bad input."""

from __future__ import annotations

import gzip
import re

import numpy as np
import pytest

import evalkit
from evalkit.data.trec_files import (
    Qrels,
    TrecFormatError,
    read_qrels,
    read_run,
    write_qrels,
    write_run,
)


def _write(tmp_path, name, text, compress=False):
    path = tmp_path / name
    data = text.encode()
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


RUN = """401 Q0 docB 1 2.0 tagA
401 Q0 docA 2 2.0 tagA
401 Q0 docC 3 3.5 tagA
402 Q0 docA 0 1.0 tagA
"""


@pytest.mark.parametrize("compress", [False, True])
def test_run_in_trec_eval_order(tmp_path, compress):
    run = read_run(_write(tmp_path, "input.tagA" + (".gz" if compress else ""), RUN, compress))
    assert run.name == "tagA"
    frame = run.to_frame()
    # score descending, ties by docno descending; the rank column is ignored
    assert list(frame.docno) == ["docC", "docB", "docA", "docA"]
    assert list(frame["rank"]) == [1, 2, 3, 1]


def test_run_any_whitespace_and_blank_lines(tmp_path):
    text = "401\tQ0  docB 1 2.0   tagA\n\n401 Q0 docA 2 1.0 tagA\n   \n"
    run = read_run(_write(tmp_path, "r", text))
    assert list(run.to_frame().docno) == ["docB", "docA"]


def test_float32_ties_as_trec_eval_9(tmp_path):
    # trec_eval 9.x (and pytrec_eval) store scores as C floats: these two differ only beyond single precision, so
    # they tie and the larger docno comes first
    text = "1 Q0 a 1 1.00000001 t\n1 Q0 b 2 1.00000002 t\n"
    assert list(read_run(_write(tmp_path, "r", text), ties="float32").to_frame().docno) == ["b", "a"]
    text = "1 Q0 b 1 1.00000001 t\n1 Q0 a 2 1.00000002 t\n"
    assert list(read_run(_write(tmp_path, "r2", text), ties="float32").to_frame().docno) == ["b", "a"]


def test_float64_ties_as_trec_eval_10_by_default(tmp_path):
    # trec_eval 10.0 stores them as C doubles: the higher score comes first whatever the docnos
    text = "1 Q0 a 1 1.00000001 t\n1 Q0 b 2 1.00000002 t\n"
    assert list(read_run(_write(tmp_path, "r", text)).to_frame().docno) == ["b", "a"]
    text = "1 Q0 b 1 1.00000001 t\n1 Q0 a 2 1.00000002 t\n"
    assert list(read_run(_write(tmp_path, "r2", text)).to_frame().docno) == ["a", "b"]
    with pytest.raises(ValueError, match="ties must be"):
        read_run(_write(tmp_path, "r3", text), ties="double")


@pytest.mark.parametrize(
    "text, line, fragment",
    [
        ("401 Q0 d1 1 2.0 t\n401 Q0 d2 2 1.0\n", 2, "expected 6 columns"),
        ("401 Q0 d1 1 2.0 t\n401 Q0 d2 2 1.0 t extra\n401 Q0 d3\n", 3, "expected 6 columns"),
        ("401 Q0 d1 1 2.0 t\n401 Q0 d2 2 abc t\n", 2, "is not a number"),
        ("401 Q0 d1 1 2.0 t\n402 Q0 d1 1 2.0 t\n401 Q0 d1 3 1.0 t\n", 3, "duplicate docno 'd1' in topic 401"),
        ("401 Q0 d1 1 nan t\n", 1, "not finite"),
    ],
)
def test_bad_run_names_file_line_and_problem(tmp_path, text, line, fragment):
    path = _write(tmp_path, "bad.run", text)
    with pytest.raises(TrecFormatError) as info:
        read_run(path)
    assert info.value.line == line
    assert fragment in str(info.value)
    assert str(path) in str(info.value) and f":{line}:" in str(info.value)


def test_empty_file(tmp_path):
    with pytest.raises(TrecFormatError, match="empty file"):
        read_run(_write(tmp_path, "empty", "  \n\n"))
    with pytest.raises(TrecFormatError, match="empty file"):
        read_qrels(_write(tmp_path, "empty.qrels", ""))


def test_unreadable_gzip(tmp_path):
    path = tmp_path / "broken.gz"
    path.write_bytes(gzip.compress(RUN.encode())[:30])
    with pytest.raises(TrecFormatError, match="unreadable gzip"):
        read_run(path)


def test_qrels_forms_and_round_trip(tmp_path):
    plain = read_qrels(_write(tmp_path, "q", "2 0 b 1\n1 0 a 2\n1 0 c -1\n"))
    assert not plain.sampled
    assert list(plain.topic) == ["1", "1", "2"] and list(plain.grade) == [2, -1, 1]
    sampled = read_qrels(_write(tmp_path, "qs", "1 0 a 1 1\n1 0 b 2 -1\n"))
    assert sampled.sampled and list(sampled.stratum) == [1, 2] and list(sampled.grade) == [1, -1]
    for qrels, name in ((plain, "out.qrels"), (sampled, "out.sampled.gz")):
        back = read_qrels(write_qrels(qrels, tmp_path / name))
        assert list(back.docno) == list(qrels.docno) and np.array_equal(back.grade, qrels.grade)
        assert (back.stratum is None) == (qrels.stratum is None)


@pytest.mark.parametrize(
    "text, line, fragment",
    [
        ("1 0 a 1\n1 0 b\n", 2, "expected 4 columns like the first line"),
        ("1 0 a\n", 1, "expected 4 columns"),
        ("1 0 a 1\n1 0 b x\n", 2, "relevance grade 'x' is not an integer"),
        ("1 0 a 1 1\n1 0 b z 1\n", 2, "stratum 'z' is not an integer"),
        ("1 0 a 1\n1 0 a 0\n", 2, "duplicate docno 'a' in topic 1"),
    ],
)
def test_bad_qrels(tmp_path, text, line, fragment):
    path = _write(tmp_path, "bad.qrels", text)
    with pytest.raises(TrecFormatError) as info:
        read_qrels(path)
    assert info.value.line == line and fragment in str(info.value)


def test_run_round_trip(tmp_path):
    run = read_run(_write(tmp_path, "r", RUN))
    back = read_run(write_run(run, tmp_path / "copy.gz"))
    assert list(back.to_frame().docno) == list(run.to_frame().docno)
    np.testing.assert_array_equal(back.score, run.score)


def test_write_is_atomic(tmp_path, monkeypatch):
    target = tmp_path / "q.txt"
    target.write_text("old\n")
    qrels = Qrels(np.array(["1"], object), np.array(["a"], object), np.array([1]))

    import evalkit.data.trec_files as io_module

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(io_module.os, "replace", boom)
    with pytest.raises(OSError):
        write_qrels(qrels, target)
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["q.txt"]  # no temporary left behind


def test_tabs_doubled_and_crlf_fall_back_to_whitespace_parsing(tmp_path):
    text = "401\tQ0\t\tdocB\t1\t2.0\ttagA\r\n401\tQ0\tdocA\t2\t3.0\ttagA\t\r\n"
    run = read_run(_write(tmp_path, "r", text))
    assert run.name == "tagA"
    assert list(run.to_frame().docno) == ["docA", "docB"]


def _reference_run(path):
    """A line-by-line reading of a run as trec_eval 10.0 does it (the oracle for the vectorized parser): blank and
    comment lines skipped, fields after the sixth ignored, the score read by strtod (= Python's float for the plain
    decimal numbers this is used on)."""
    import gzip as _gzip

    raw = open(path, "rb").read()
    text = (_gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode("utf-8").removeprefix("\ufeff")
    rows = []
    for line in text.split("\n"):
        fields = line.split()
        if fields and not fields[0].startswith("#"):
            rows.append((fields[0], fields[2], float(fields[4]), fields[5]))
    return rows


def test_fast_parser_scores_equal_strtod_on_trec8():
    """The fast path (pyarrow) and the general path (vectorized canonicalization) read every TREC-8 line exactly as
    the line-by-line reference does, scores included (strtod-exact: some runs carry 30+ digits, e.g. Dm8Nbn)."""
    from conftest import TREC8

    from evalkit.data.text_fields import canonical_fields, parse_scores, read_bytes
    from evalkit.data.trec_files import parse_run

    if not TREC8.is_dir():
        pytest.skip("TREC-8 data not found")
    for name in ("input.Dm8Nbn.gz", "input.uwmt8a0.gz", "input.1.gz", "input.CL99SD.gz"):
        path = TREC8 / "runs" / name
        expected = _reference_run(path)
        fast = parse_run(path)
        general = canonical_fields(str(path), read_bytes(path), (6, -1), 6, "6 columns")
        for topic, docno, score in ((fast.topic, fast.docno, fast.score),
                                    (general.columns[0], general.columns[2],
                                     parse_scores(str(path), general, general.columns[4]))):
            assert topic.to_pylist() == [r[0] for r in expected]
            assert docno.to_pylist() == [r[1] for r in expected]
            np.testing.assert_array_equal(score, np.array([r[2] for r in expected]))


@pytest.mark.parametrize("ties", ["float64", "float32"])
def test_trec_eval_order_equals_a_full_sort(ties):
    """The incremental ordering (stable block sort, whole-block re-sort, tie runs) equals one lexsort on
    (block, -score in the tie mode's precision, -docno) for interleaved blocks, inversions and ties."""
    from evalkit.data.trec_files import trec_eval_order

    rng = np.random.default_rng(0)
    for trial in range(300):
        n = int(rng.integers(1, 80))
        group = np.sort(rng.integers(0, 5, n)) if trial % 2 else rng.integers(0, 5, n)
        scores = rng.integers(0, 6, n).astype(float) + (rng.random(n) * 1e-9 if trial % 3 == 0 else 0)
        docno = rng.permutation(n)
        expected = np.lexsort((-docno, -scores.astype(ties), group))
        got = trec_eval_order(group, scores, docno, ties=ties)
        np.testing.assert_array_equal(np.arange(n) if got is None else got, expected)


# --------------------------------------------------------------------------------- trec_eval 10.0 reading


def _scores_of(path):
    run = read_run(path)
    return dict(zip(zip(run.topic.to_pylist(), run.docno.to_pylist()), run.score.tolist())), run.name


def _layouts(lines: list[str], extra: str) -> dict[str, str]:
    return {
        "plain": "\n".join(lines) + "\n",
        "tabs": "\n".join(line.replace(" ", "\t") for line in lines) + "\n",
        "results.test": "\n".join("\t".join(f.rjust(9) if i == 3 else f for i, f in enumerate(line.split()))
                                  for line in lines) + "\n",
        "doubled": "\n".join(line.replace(" ", "  ") for line in lines) + "\n",
        "mixed": "\n".join(line.replace(" ", " \t ", 2) for line in lines) + "\n",
        "padded": "\n".join("  " + line + "   " for line in lines) + "\n",
        "blank lines": "\n\n" + "\n  \n".join(lines) + "\n\t\n",
        "comments": "# a comment\n" + lines[0] + "\n  # indented\n#another\n" + "\n".join(lines[1:]) + "\n# end",
        "extra fields": "\n".join(line + extra for line in lines) + "\n",
        "crlf": "\r\n".join(lines) + "\r\n",
        "vt ff": "\n".join(line.replace(" ", "\x0b", 1).replace(" ", "\x0c", 1) for line in lines) + "\n",
        "bom": "\ufeff" + "\n".join(lines) + "\n",
        "no final newline": "\n".join(lines),
    }


def test_layouts_read_like_trec_eval(tmp_path):
    """Comments (any indentation), extra fields, padded and doubled blanks, mixed tabs, \\v, \\f, CRLF, blank
    lines, a byte-order mark, no final newline: every layout reads as the same run and the same qrels."""
    run_lines = ["401 Q0 d1 1 2.5 tagA", "401 Q0 d2 2 1.5 tagA", "402 Q0 d1 1 0.5 tagA"]
    expected = {("401", "d1"): 2.5, ("401", "d2"): 1.5, ("402", "d1"): 0.5}
    for label, text in _layouts(run_lines, " extra 7 8").items():
        path = _write(tmp_path, label.replace(" ", "_"), text)
        assert _scores_of(path) == (expected, "tagA"), label
        assert [(t, d, x) for t, d, x, _ in _reference_run(path)] == [(t, d, x) for (t, d), x in expected.items()]
    qrels_lines = ["401 0 d1 2", "401 0 d2 -1", "402 0 d1 0"]
    for label, text in _layouts(qrels_lines, "").items():
        q = read_qrels(_write(tmp_path, label.replace(" ", "_") + ".qrels", text))
        assert list(zip(q.topic, q.docno, q.grade.tolist())) == [("401", "d1", 2), ("401", "d2", -1),
                                                                 ("402", "d1", 0)], label


@pytest.mark.parametrize("token, expected", [
    ("+1", 1.0), ("-0", 0.0), (".5", 0.5), ("5.", 5.0), ("1.5e3", 1500.0), ("1E-5", 1e-5), ("0001.5", 1.5),
    ("1e-400", 0.0), ("0.1000000000000000055511151231257827021181583404541015625", 0.1),
])
@pytest.mark.parametrize("layout", ["fast", "general"])
def test_scores_read_as_strtod(tmp_path, token, expected, layout):
    other = "401 Q0 b 2 0 t\n" if layout == "fast" else "401  Q0 b 2 0 t\n"  # a doubled blank: the general path
    scores, _ = _scores_of(_write(tmp_path, "r", f"401 Q0 a 1 {token} t\n" + other))
    assert scores[("401", "a")] == expected


@pytest.mark.parametrize("token, problem", [
    ("1_0", "score '1_0' is not a number (trec_eval's atof would read 1)"),
    ("1_000", "score '1_000' is not a number (trec_eval's atof would read 1)"),
    ("0x10", "score '0x10' is not a decimal number (trec_eval's atof would read 16)"),
    ("nan", "score 'nan' is not finite"),
    ("-inf", "score '-inf' is not finite"),
    ("Infinity", "score 'Infinity' is not finite"),
    ("1e400", "score '1e400' is not a finite number"),
    ("abc", "score 'abc' is not a number (trec_eval's atof would read 0)"),
    ("1.5abc", "score '1.5abc' is not a number (trec_eval's atof would read 1.5)"),
    ("\u0661\u0662", "is not a number"),  # Arabic-Indic digits: Python's float reads 12, strtod 0
    ("1,5", "score '1,5' is not a number (trec_eval's atof would read 1)"),
])
@pytest.mark.parametrize("layout", ["fast", "general"])
def test_scores_trec_eval_would_misread_are_refused(tmp_path, token, problem, layout):
    first = "401 Q0 b 2 0 t\n" if layout == "fast" else "401\tQ0 b 2 0 t\n"
    path = _write(tmp_path, "bad.run", first + f"401 Q0 a 1 {token} t\n")
    with pytest.raises(TrecFormatError) as info:
        read_run(path)
    assert f"{path}:2: " in str(info.value) and problem in str(info.value)


@pytest.mark.parametrize("token, expected", [("+1", 1), ("-0", 0), ("0002", 2), ("-1", -1), ("-3", -3),
                                             ("32768", 32768), ("65536", 65536), ("2147483647", 2**31 - 1),
                                             ("-2147483646", -(2**31) + 2)])
@pytest.mark.parametrize("layout", ["fast", "general"])
def test_grades_read_as_atol(tmp_path, token, expected, layout):
    first = "1 0 b 0\n" if layout == "fast" else "1  0 b 0\n"
    q = read_qrels(_write(tmp_path, "q", first + f"1 0 a {token}\n"))
    assert q.grade.tolist() == [expected, 0]
    s = read_qrels(_write(tmp_path, "qs", first.replace(" 0\n", " 1 0\n") + f"1 0 a {token.lstrip('-')} {token}\n"))
    assert s.grade.tolist() == [expected, 0] and s.stratum.tolist() == [abs(expected), 1]


@pytest.mark.parametrize("token, problem", [
    ("1_0", "relevance grade '1_0' is not an integer (trec_eval's atol would read 1)"),
    ("1.0", "relevance grade '1.0' is not an integer (trec_eval's atol would read 1)"),
    ("1e3", "relevance grade '1e3' is not an integer (trec_eval's atol would read 1)"),
    ("0x1", "relevance grade '0x1' is not an integer (trec_eval's atol would read 0)"),
    ("+-1", "relevance grade '+-1' is not an integer (trec_eval's atol would read 0)"),
    ("nan", "relevance grade 'nan' is not an integer"),
    ("2147483648", "relevance grade 2147483648 is outside the supported range -2147483646..2147483647"),
    ("-2147483647", "relevance grade -2147483647 is outside the supported range"),
    ("99999999999999999999999", "relevance grade 99999999999999999999999 is outside the supported range"),
])
@pytest.mark.parametrize("layout", ["fast", "general"])
def test_grades_trec_eval_would_misread_are_refused(tmp_path, token, problem, layout):
    first = "1 0 b 0\n" if layout == "fast" else "1\t0 b 0\n"
    path = _write(tmp_path, "bad.qrels", first + f"1 0 a {token}\n")
    with pytest.raises(TrecFormatError) as info:
        read_qrels(path)
    assert f"{path}:2: " in str(info.value) and problem in str(info.value)


def test_strata_are_labels_from_zero(tmp_path):
    for token, problem in (("-2", "stratum -2 is outside the supported range 0..2147483647"),
                           ("1_0", "stratum '1_0' is not an integer")):
        with pytest.raises(TrecFormatError, match=re.escape(problem)):
            read_qrels(_write(tmp_path, "s", f"1 0 b 1 0\n1 0 a {token} 1\n"))


def test_bom_is_dropped_by_both_readers(tmp_path):
    q = read_qrels(_write(tmp_path, "q", "\ufeff401 0 a 1\n", compress=True))
    assert list(q.topic) == ["401"]
    run = read_run(_write(tmp_path, "r", "\ufeff401 Q0 a 1 1 t\n"))
    assert run.topic.to_pylist() == ["401"]


def test_standard_input(tmp_path, monkeypatch):
    import io as _io

    import evalkit.data.text_fields as io_module

    def stdin(data: bytes):
        monkeypatch.setattr(io_module, "_stdin_read", False)
        monkeypatch.setattr(io_module.sys, "stdin", _io.TextIOWrapper(_io.BytesIO(data)))

    stdin(b"401 Q0 a 1 2 t\n401 Q0 b 2 1 t\n")
    assert read_run("-").docno.to_pylist() == ["a", "b"]
    with pytest.raises(TrecFormatError, match="standard input was already read"):
        read_run("-")
    stdin(gzip.compress(b"401 0 a 1\n"))
    assert list(read_qrels("-").docno) == ["a"]
    stdin(b"401 Q0 a 1 2 t\n401 Q0 b 2 x t\n")
    with pytest.raises(TrecFormatError, match=re.escape("<stdin>:2: score 'x' is not a number")):
        read_run("-")
    stdin(b"401 Q0 a 1 2 t\n401 Q0 a 2 1 t\n")  # the bulk reader leaves duplicates to later, but not for stdin
    with pytest.raises(TrecFormatError, match=re.escape("<stdin>:2: duplicate docno 'a' in topic 401 (first on line 1)")):
        evalkit.evaluate(_write(tmp_path, "q", "401 0 a 1\n"), ["-"], ["AP"])


@pytest.mark.parametrize("data, line, problem", [
    (b"401 Q0 a 1 1 t\n401 Q0 \x00b 2 1 t\n", 2, "NUL byte"),
    (b"401 Q0 a 1 1 t\r401 Q0 b 2 1 t\n", 1, "carriage return inside a line"),
    (b"401 Q0 a 1 1 t\n401 Q0 \xe9 2 1 t\n", 2, "not valid UTF-8"),
    (b"# only\n   \n# comments\n", None, "no run lines (only comments and blank lines)"),
])
def test_bytes_trec_eval_cannot_read_are_refused(tmp_path, data, line, problem):
    path = tmp_path / "bad.run"
    path.write_bytes(data)
    with pytest.raises(TrecFormatError) as info:
        read_run(path)
    assert info.value.line == line and problem in str(info.value)


def test_qrels_layouts_and_comments(tmp_path):
    text = "\ufeff# judged by NIST\n  1\t0  a   2  \r\n\n#x\n1 0 b -3\n 2 0 a 0\n"
    q = read_qrels(_write(tmp_path, "q", text))
    assert list(zip(q.topic, q.docno, q.grade.tolist())) == [("1", "a", 2), ("1", "b", -3), ("2", "a", 0)]
    with pytest.raises(TrecFormatError, match=r":3: expected 4 columns like the first line, found 5"):
        read_qrels(_write(tmp_path, "q2", "# c\n1 0 a 1\n1 0 b 1 1\n"))
    with pytest.raises(TrecFormatError, match=r":1: expected 4 columns \(topic iter docno rel\) or 5 .* found 6"):
        read_qrels(_write(tmp_path, "q3", "1 Q0 a 1 1.0 t\n"))


def test_runs_table(tmp_path):
    from evalkit.data.trec_files import read_runs_table

    table = read_runs_table(_write(tmp_path, "runs_table.tsv",
                                   "run\tgroup\ttype\tpool_priority\nA\tNA\tnull\t1\nB\tN/A\t\t\nC\tnan\tx\t2.5\n\n"))
    assert list(table.index) == ["A", "B", "C"] and list(table["group"]) == ["NA", "N/A", "nan"]
    assert list(table["type"]) == ["null", "", "x"]
    assert table["pool_priority"].tolist()[::2] == [1.0, 2.5] and np.isnan(table["pool_priority"].iloc[1])
    for text, line, problem in [
        ("group\ttype\nA\tx\n", 1, "no 'run' column in the header (columns: group, type)"),
        ("run\tgroup\nA\tg\nB\th\nA\tg\n", 4, "run 'A' is listed twice (first on line 2)"),
        ("run\tgroup\nA\tg\textra\n", 2, "expected 2 tab-separated cells like the header, found 3"),
        ("run\tpool_priority\nA\tfirst\n", 2, "pool_priority 'first' is not a number"),
        ("run\trun\nA\tB\n", 1, "column 'run' appears twice"),
        ("run\tgroup\n\tg\n", 2, "empty run name"),
    ]:
        path = _write(tmp_path, "runs_table.tsv", text)
        with pytest.raises(TrecFormatError) as info:
            read_runs_table(path)
        assert str(info.value).startswith(f"{path}:{line}: {problem}")


@pytest.mark.parametrize("text, expected", [
    ("401 Q0 d1 1 2.0 run\n401 Q0 d2 2 1.0 run\n", "run"),
    ("401 Q0 d1 1 2.0 run\n401 Q0 d2 2 1.0 run", "run"),  # no line end at the end
    ("401\tQ0\td1\t1\t2.0\trun\r\n401\tQ0\td2\t2\t1.0\trun\r\n", "run"),
    ("401 Q0 d1 1 2.0 run\n401 Q0 d2 2 1.0 xrun\n", None),  # 'run' ends 'xrun' but is another tag
    ("401 Q0 d1 1 2.0 run\n401 Q0 d2 2 1.0 runx\n", None),
    ("401 Q0 d1 1 2.0 run\n401 Q0 d2 2 1.0 run\n402 Q0 d1 1 2.0 other", None),
    ("401 Q0 d1 1 2.0 run\n401 Q0 d2 2 1.0 run\n402 Q0 run 1 2.0 other\n", None),  # the tag as another field
])
def test_run_name_is_the_tag_only_when_every_line_has_it(tmp_path, text, expected):
    """The fast path names a run by its tag without converting the tag column (a count in the bytes): the same
    name as the general path, which reads the column, gives on the same lines (with a blank line appended)."""
    fast = read_run(_write(tmp_path, "input.file", text))
    general = read_run(_write(tmp_path, "input.file2", text.rstrip("\n") + "\n\n"))
    assert fast.name == (expected or "file")
    assert general.name == (expected or "file2")


@pytest.mark.parametrize("text, rows", [
    (b"401 0 d1 1\n401 0 d2 0\n", 2), (b"401 0 d1 1\n401 0 d2 0", 2), (b"401\t0\td1\t1\r\n401\t0\td2\t0\r\n", 2),
    (b"401 0 d1 1\n\n401 0 d2 0\n", None), (b"401 0 d1 1\n401 0 d2 0\n\n", None), (b"401 0 d1 1\r\n\r\n", None),
    (b"401 0 d1 1\n \n", None), (b"401 0 d1 1\n401 0  d2 0\n", None), (b"401 0 d1 1\n401 0 d2 0 \n", None),
])
def test_fast_path_rows_are_lines(text, rows):
    """The fast path takes a file only when each line is one row of non-empty fields (a blank line, a doubled or
    trailing delimiter send it to the general path, which numbers lines itself)."""
    from evalkit.data.text_fields import fast_fields

    fields = fast_fields(text, (4, 5))
    assert (None if fields is None else len(fields)) == rows


@pytest.mark.parametrize("skip", [(1, 3), (1, 3, 5)])  # the run reader's columns, and the trec_eval reader's
@pytest.mark.parametrize("line, rows", [
    ("401\tQ0\td1\t1\t2.0\ttag", 1), ("401\t\td1\t1\t2.0\ttag", None), ("401\tQ0\td1\t\t2.0\ttag", None),
    ("\t401\td1\t1\t2.0\ttag", None), ("401\tQ0\td1\t1\t2.0\t", None), ("401\tQ0\t\t1\t2.0\ttag", None),
    ("401\tQ0\td1\t1\t\ttag", None),
])
def test_a_run_line_with_an_empty_field_leaves_the_fast_path(line, rows, skip):
    """Six slots but five fields: an empty field wherever it is, converted column or not, sends the file to the
    general path (which refuses the line by number), never shifts the fields."""
    from evalkit.data.text_fields import fast_fields

    text = ("401\tQ0\td0\t1\t3.0\ttag\n" + line + "\n").encode()
    for ending in (text, text.replace(b"\n", b"\r\n")):
        fields = fast_fields(ending, (6,), floats=(4,), skip=skip)
        assert (None if fields is None else len(fields) - 1) == rows


@pytest.mark.parametrize("text, empty", [
    (b"a b\nc d\n", False), (b"a b\nc d", False), (b"a b\r\nc d\r\n", False),
    (b"a  b\n", True), (b" a b\n", True), (b"a b \n", True), (b"a b\r\n c d\r\n", True), (b"a b \r\n", True),
    (b"a b\n\nc d\n", True), (b"a b\r\n\r\n", True), (b"a b ", True), (b" a b", True),
])
def test_empty_fields_are_found_in_the_bytes(text, empty):
    """The fast path does not convert the Q0 and rank columns, so an empty field (which would shift the fields
    trec_eval reads) is looked for in the bytes: two separators in a row, or a delimiter at either end."""
    from evalkit.data.text_fields import _has_empty_field

    assert _has_empty_field(text, b" ") is empty
    assert _has_empty_field(text.replace(b" ", b"\t"), b"\t") is empty


def test_run_with_an_empty_q0_field_is_refused_by_line(tmp_path):
    """'401  d1 1 2.0 tag' has 6 tab/space-separated slots but 5 fields: trec_eval calls it malformed, and so does
    the kit (not read as docno 'd1', score 2.0), naming the line."""
    path = _write(tmp_path, "input.x", "401 Q0 d0 1 3.0 tag\n401  d1 1 2.0 tag\n")
    with pytest.raises(TrecFormatError, match=r":2: expected 6 columns"):
        read_run(path)
