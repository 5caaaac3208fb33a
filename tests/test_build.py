"""The threaded build (evalkit.data.build): run files and the qrels file parsed inside the build, each group of runs
encoded as soon as it is parsed, equals building from runs parsed beforehand, whatever the threads, the groups and
the order in which the threads happen to finish; a bad file is reported as a serial read would report it.

These are the pure-Python build's tests, so the compiled reader is turned off here (``EVALKIT_NATIVE=0``): regular
files would otherwise never reach the steps they time and count. tests/test_native_build.py holds the compiled
reader to this build's arrays."""

from __future__ import annotations

import gzip
import threading
import time

import numpy as np
import pytest
from test_trec_eval_reader import write_collection

from evalkit.data import build
from evalkit.data.collection import Collection
from evalkit.data.trec_files import parse_run, read_qrels
from evalkit.errors import TrecFormatError


@pytest.fixture(autouse=True)
def _pure_python_build(monkeypatch):
    monkeypatch.setenv("EVALKIT_NATIVE", "0")


def _assert_same(a: Collection, b: Collection) -> None:
    assert list(a.run_names) == list(b.run_names) and list(a.topics) == list(b.topics)
    assert list(a.vocabulary) == list(b.vocabulary)
    np.testing.assert_array_equal(a.docs, b.docs)
    np.testing.assert_array_equal(a.scores, b.scores)
    for column in ("topic", "doc", "grade"):
        np.testing.assert_array_equal(getattr(a.qrels, column), getattr(b.qrels, column))
    assert a.runs_info.equals(b.runs_info)


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("groups_per_thread", [1, 8])
@pytest.mark.parametrize("band_rows", [1, 200, build.BAND_ROWS])  # a band per topic, a few topics a band, one band
def test_files_parsed_in_the_build_equal_runs_parsed_first(tmp_path, monkeypatch, threads, groups_per_thread,
                                                           band_rows):
    """Runs list their topics in no particular order (sometimes in two blocks), so with several bands most runs
    are sorted by band before hashing and put back in their own order after."""
    monkeypatch.setattr(build, "BAND_ROWS", band_rows)
    qrels_file, paths = write_collection(tmp_path, seed=threads, n_runs=9)
    gz = paths[4].with_name("run4.gz")
    gz.write_bytes(gzip.compress(paths[4].read_bytes()))
    paths[4] = gz
    parsed = [parse_run(p, check_duplicates=False) for p in paths]
    reference = Collection.from_runs(parsed, read_qrels(qrels_file), ties="float32")
    monkeypatch.setattr(build, "build_threads", lambda n_runs: threads)
    monkeypatch.setattr(build, "GROUPS_PER_THREAD", groups_per_thread)
    _assert_same(Collection.from_runs(paths, qrels_file, ties="float32"), reference)
    mixed = [p if i % 2 else parsed[i] for i, p in enumerate(paths)]  # Run objects and paths in one list
    _assert_same(Collection.from_runs(mixed, read_qrels(qrels_file), ties="float32"), reference)
    assert list(reference.runs_info["lines_without_qrels"]) == [sum(t == "a" for t in r.topic.to_pylist())
                                                                for r in parsed]


def test_a_group_s_bands_are_shared_out_so_no_thread_waits_for_the_last_group(tmp_path, monkeypatch):
    """The last group becomes ready when its last file is parsed, after the other thread has run out of files: that
    thread waits for the group instead of stopping, and the two threads hash its bands between them."""
    qrels_file, paths = write_collection(tmp_path, seed=11, n_runs=4)
    reference = Collection.from_runs([parse_run(p, check_duplicates=False) for p in paths], read_qrels(qrels_file))
    parse, hash_bands = build.parse_run, build._hash_bands
    hashed_by: dict[tuple, set] = {}  # the threads that hashed each group's bands, by the group's run names

    def parse_the_last_file_slowly(path, **options):
        if path == paths[-1]:
            time.sleep(1.0)  # longer than the first group's shares take (2 x 0.2 s): the other thread runs out of work
        return parse(path, **options)

    def hash_and_record(prepared, bands):
        hashed_by.setdefault(tuple(run.name for run in prepared.runs), set()).add(threading.get_ident())
        time.sleep(0.2)  # long enough for the other thread, woken when the shares were queued, to take one
        return hash_bands(prepared, bands)

    monkeypatch.setattr(build, "build_threads", lambda n_runs: 2)
    monkeypatch.setattr(build, "GROUPS_PER_THREAD", 1)  # groups: runs 0-1, runs 2-3
    monkeypatch.setattr(build, "BAND_ROWS", 1)  # a band per topic
    monkeypatch.setattr(build, "parse_run", parse_the_last_file_slowly)
    monkeypatch.setattr(build, "_hash_bands", hash_and_record)
    _assert_same(Collection.from_runs(paths, qrels_file), reference)
    assert set(hashed_by) == {("run0", "run1"), ("run2", "run3")} and len(hashed_by["run2", "run3"]) == 2


def test_each_band_hashes_only_its_own_topics_rows_whatever_the_order_of_the_file(monkeypatch):
    """What makes the bands' tables small: a run listing its topics out of the collection's order is sorted by band
    before hashing, so each band's dictionary holds its topics' docnos only; the codes come back in file order."""
    from evalkit.data.trec_files import Run

    monkeypatch.setattr(build, "BAND_ROWS", 1)  # a band per topic
    run = Run("r", np.array(["2", "1", "1", "2", "x"], object), np.array(["b1", "a1", "a2", "b2", "c"], object),
              np.arange(5.0), ordered=False)
    prepared = build._prepare_group([run], {"1": 0, "2": 1}, 2)  # "x" has no qrels: the last band
    hashed = build._hash_bands(prepared, range(prepared.n_bands))
    assert [(band, dictionary.to_pylist()) for band, dictionary, _ in hashed] == [
        (0, ["a1", "a2"]), (1, ["b1", "b2"]), (2, ["c"])]
    encoded = build._assemble_group(prepared, [hashed])
    assert encoded.dictionary.to_pylist() == ["a1", "a2", "b1", "b2", "c"]
    assert encoded.doc_codes[0].tolist() == [2, 0, 1, 3, 4]  # each row's docno, in the file's order
    assert encoded.topic_codes[0].tolist() == [1, 0, 0, 1, -1] and encoded.outside == [1]


def test_shares_cut_the_bands_into_consecutive_ranges_of_about_equal_rows():
    rows_per_band = np.array([[5, 0, 5, 10, 0], [5, 10, 5, 0, 0]])  # two runs, 4 bands + the band without qrels
    bounds = np.concatenate([np.zeros((2, 1), np.int64), np.cumsum(rows_per_band, axis=1)], axis=1)
    prepared = build._PreparedGroup([None, None], 5, [], [], [], [None, None], bounds)  # rows a band: 10 10 10 10 0
    assert prepared.shares(1) == [range(0, 5)]
    assert prepared.shares(2) == [range(0, 2), range(2, 5)]
    assert prepared.shares(4) == [range(0, 1), range(1, 2), range(2, 3), range(3, 5)]
    assert prepared.shares(9) == prepared.shares(4)  # never more shares than bands with rows


def test_a_group_left_unencoded_is_an_error_not_missing_runs(tmp_path, monkeypatch):
    qrels_file, paths = write_collection(tmp_path, seed=12, n_runs=4)
    monkeypatch.setattr(build, "build_threads", lambda n_runs: 2)
    monkeypatch.setattr(build, "GROUPS_PER_THREAD", 1)
    monkeypatch.setattr(build._Schedule, "_hash_share", lambda self, g, j, bands: None)  # a lost task (a bug)
    with pytest.raises(RuntimeError, match=r"groups \[0, 1\] were not encoded"):
        Collection.from_runs(paths, qrels_file)


def test_groups_parsed_before_the_qrels_are_read_are_encoded_after(tmp_path, monkeypatch):
    """Every run already parsed, the qrels file slow to read: no group can be encoded until its topics are known."""
    qrels_file, paths = write_collection(tmp_path, seed=5, n_runs=6)
    parsed = [parse_run(p) for p in paths]
    read_at_once = build.read_qrels

    def read_slowly(path):
        time.sleep(0.3)
        return read_at_once(path)

    reference = Collection.from_runs(parsed, read_qrels(qrels_file))
    monkeypatch.setattr(build, "build_threads", lambda n_runs: 2)
    monkeypatch.setattr(build, "read_qrels", read_slowly)
    _assert_same(Collection.from_runs(parsed, qrels_file), reference)


def test_the_first_bad_file_in_order_is_reported_whichever_fails_first(tmp_path, monkeypatch):
    qrels_file, paths = write_collection(tmp_path, seed=7, n_runs=6)
    for i in (1, 4):
        lines = paths[i].read_text().splitlines()
        lines[2] = lines[2].rsplit(" ", 2)[0] + " abc " + lines[2].rsplit(" ", 1)[1]
        paths[i].write_text("\n".join(lines) + "\n")
    parse = build.parse_run

    def parse_run_1_slowly(path, **options):
        if path == paths[1]:
            time.sleep(0.3)  # run4 fails first in time; run1 comes first in order
        return parse(path, **options)

    monkeypatch.setattr(build, "build_threads", lambda n_runs: 2)
    monkeypatch.setattr(build, "parse_run", parse_run_1_slowly)
    with pytest.raises(TrecFormatError) as info:
        Collection.from_runs(paths, qrels_file)
    assert str(info.value).startswith(f"{paths[1]}:3: score 'abc' is not a number")


def test_a_bad_qrels_file_is_reported_unless_a_run_file_is_bad(tmp_path):
    qrels_file, paths = write_collection(tmp_path, seed=8, n_runs=4)
    qrels_file.write_text(qrels_file.read_text() + "7 0 D1\n")
    with pytest.raises(TrecFormatError) as info:
        Collection.from_runs(paths, qrels_file)
    line = len(qrels_file.read_text().splitlines())
    assert str(info.value).startswith(f"{qrels_file}:{line}: expected 4 columns")
    paths[2].write_text("1 Q0 D1 1 0.5\n")
    with pytest.raises(TrecFormatError) as info:
        Collection.from_runs(paths, qrels_file)
    assert str(info.value).startswith(f"{paths[2]}:1: expected 6 columns")


@pytest.mark.parametrize("shape", ["every row full", "one row short", "one row long"])
def test_rankings_that_fill_their_rows_exactly_are_copied_in_order(shape):
    """Runs whose every topic has exactly as many documents as the widest ranking (most TREC runs) are copied
    row by row without padding or scatter; a short or a long ranking anywhere takes the padded path. Both equal
    the one-run-at-a-time definition."""
    from test_collection import _reference_rows

    from evalkit.data.trec_files import Qrels, Run

    rng = np.random.default_rng(len(shape))
    docnos = np.array([f"D{k:02d}" for k in range(40)], object)
    runs = []
    for s in range(3):
        rows = [(t, d, float(rng.integers(0, 3)))
                for t in ("1", "2", "10") for d in rng.choice(docnos, 6, replace=False)]
        if s == 1 and shape == "one row short":
            rows = rows[:-1]
        if s == 2 and shape == "one row long":
            rows.append(("2", "X", 0.5))
        topic, docno, score = zip(*rows)
        runs.append(Run(f"r{s}", np.array(topic, object), np.array(docno, object), np.array(score), ordered=False))
    qrels = Qrels(topic=np.array(["1", "2", "10"], object), docno=np.array(["D01", "D02", "D03"], object),
                  grade=np.array([1, 0, 2]))
    built = Collection.from_runs(runs, qrels)
    vocabulary, docs, scores = _reference_rows(runs, qrels)
    assert list(built.vocabulary) == vocabulary
    np.testing.assert_array_equal(built.docs, docs)
    np.testing.assert_array_equal(built.scores, scores)
