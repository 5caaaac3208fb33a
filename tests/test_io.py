"""TREC I/O: trec_eval ordering, both qrels forms, round trips, and one clear error per kind of bad input."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from evalkit.io import Qrels, TrecFormatError, read_qrels, read_run, write_qrels, write_run


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


def test_float32_ties_as_trec_eval(tmp_path):
    # trec_eval stores scores as C floats: these two differ only beyond single precision, so they tie and the
    # larger docno comes first
    text = "1 Q0 a 1 1.00000001 t\n1 Q0 b 2 1.00000002 t\n"
    assert list(read_run(_write(tmp_path, "r", text)).to_frame().docno) == ["b", "a"]
    text = "1 Q0 b 1 1.00000001 t\n1 Q0 a 2 1.00000002 t\n"
    assert list(read_run(_write(tmp_path, "r2", text)).to_frame().docno) == ["b", "a"]


@pytest.mark.parametrize(
    "text, line, fragment",
    [
        ("401 Q0 d1 1 2.0 t\n401 Q0 d2 2 1.0\n", 2, "expected 6 columns"),
        ("401 Q0 d1 1 2.0 t\n401 Q0 d2 2 1.0 t extra\n", 2, "expected 6 columns"),
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

    import evalkit.io as io_module

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


def test_fast_parser_scores_equal_strtod_on_trec8():
    """The pyarrow fast path must parse scores exactly as strtod (Python's float) does: TREC-8 runs carry scores
    with 30+ digits (e.g. Dm8Nbn), where an inexact parser would reorder near-ties."""
    from pathlib import Path

    from conftest import TREC8
    from evalkit.io import _parse_run_exact, _read_bytes, parse_run

    if not TREC8.is_dir():
        pytest.skip("TREC-8 data not found")
    for name in ("input.Dm8Nbn.gz", "input.uwmt8a0.gz", "input.1.gz", "input.CL99SD.gz"):
        path = Path(TREC8) / "runs" / name
        fast = parse_run(path)
        exact = _parse_run_exact(path, _read_bytes(path))
        np.testing.assert_array_equal(fast.score, exact["score"].to_numpy())
        assert list(fast.docno.to_pylist()) == list(exact["docno"])


def test_trec_eval_order_equals_a_full_sort():
    """The incremental ordering (stable block sort, whole-block re-sort, tie runs) equals one lexsort on
    (block, -float32 score, -docno) for interleaved blocks, inversions and ties."""
    from evalkit.io import trec_eval_order

    rng = np.random.default_rng(0)
    for trial in range(300):
        n = int(rng.integers(1, 80))
        group = np.sort(rng.integers(0, 5, n)) if trial % 2 else rng.integers(0, 5, n)
        scores = rng.integers(0, 6, n).astype(float) + (rng.random(n) * 1e-9 if trial % 3 == 0 else 0)
        docno = rng.permutation(n)
        expected = np.lexsort((-docno, -scores.astype(np.float32), group))
        got = trec_eval_order(group, scores, docno)
        np.testing.assert_array_equal(np.arange(n) if got is None else got, expected)
