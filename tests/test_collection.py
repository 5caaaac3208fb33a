"""Collection arrays, views, datasets, the cache, and clear messages for missing data."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
from conftest import random_collection

import evalkit
from evalkit.data.collection import ABSENT, UNJUDGED, UNSAMPLED, JudgedSet
from evalkit.data.datasets import DatasetNotFound, load_directory, load_trec8
from evalkit.data.pools import derive_judged_runs


def test_docs_in_trec_eval_order_and_padding():
    c = random_collection(1)
    for s in range(c.n_runs):
        for t in range(c.n_topics):
            row, scores = c.docs[s, t], c.scores[s, t]
            n = int((row >= 0).sum())
            assert (row[n:] == -1).all() and np.isnan(scores[n:]).all()
            # score descending, docno (= id, vocabulary sorted) descending among ties
            for i in range(n - 1):
                assert scores[i] >= scores[i + 1]
                if np.float32(scores[i]) == np.float32(scores[i + 1]):
                    assert c.vocabulary[row[i]] > c.vocabulary[row[i + 1]]
    assert list(c.vocabulary) == sorted(c.vocabulary)


def test_grade_codes():
    c = random_collection(2)
    g = c.grades()
    assert set(np.unique(g)) <= {ABSENT, UNJUDGED, UNSAMPLED, 0, 1, 2, 3}
    assert ((g == ABSENT) == (c.docs < 0)).all()
    s, t, r = np.argwhere(g >= 0)[0]
    key = (c.qrels.topic == t) & (c.qrels.doc == c.docs[s, t, r])
    assert c.qrels.grade[key][0] == g[s, t, r]


def test_subset_views_and_round_trip():
    c = random_collection(3)
    sub = c.subset(runs=[1, 2, 3])
    assert np.shares_memory(sub.docs, c.docs)  # contiguous selection: a view
    sub = c.subset(runs=["run4", "run0"], topics=[c.topics[2], c.topics[0]])
    assert list(sub.run_names) == ["run4", "run0"] and list(sub.topics) == [c.topics[2], c.topics[0]]
    np.testing.assert_array_equal(sub.grades()[0, 1], c.grades()[4, 0])
    run = c.to_run("run1")
    assert len(run) == int((c.docs[1] >= 0).sum())


def _write_directory(tmp_path, collection):
    (tmp_path / "runs").mkdir()
    for name in collection.run_names:
        evalkit.write_run(collection.to_run(name), tmp_path / "runs" / f"input.{name}.gz")
    evalkit.write_qrels(collection.to_qrels(), tmp_path / "qrels.test.txt")
    return tmp_path


def test_directory_dataset_and_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALKIT_CACHE", str(tmp_path / "cache"))
    original = random_collection(4)
    (tmp_path / "coll").mkdir()
    folder = _write_directory(tmp_path / "coll", original)
    first = load_directory(folder)
    assert list((tmp_path / "cache").iterdir())  # cached
    second = load_directory(folder)
    np.testing.assert_array_equal(first.docs, second.docs)
    np.testing.assert_array_equal(first.qrels.grade, second.qrels.grade)
    assert list(first.runs_info.judged) == list(second.runs_info.judged)
    a = evalkit.evaluate(None, first, ["AP", "nDCG"])
    b = evalkit.evaluate(None, original, ["AP", "nDCG"])
    np.testing.assert_allclose(a.value.to_numpy(), b.value.to_numpy(), atol=1e-12)
    # an edited file is re-read, not served from the stale cache
    qrels_file = folder / "qrels.test.txt"
    qrels_file.write_text(qrels_file.read_text().replace(" 3\n", " 1\n"))
    third = load_directory(folder)
    assert (third.qrels.grade <= 2).all() and not (first.qrels.grade <= 2).all()


def test_bad_run_in_directory_names_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALKIT_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "coll"
    folder.mkdir()
    _write_directory(folder, random_collection(5))
    bad = folder / "runs" / "input.run2.gz"
    bad.write_bytes(gzip.compress(b"300 Q0 x 1 1.0 run2\n300 Q0 y 2 oops run2\n"))
    with pytest.raises(evalkit.TrecFormatError, match=r"input\.run2\.gz:2: score 'oops' is not a number"):
        load_directory(folder)
    assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").iterdir())


def test_missing_trec8_says_how_to_point_at_it(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALKIT_DATA", str(tmp_path))
    with pytest.raises(DatasetNotFound, match="EVALKIT_DATA"):
        load_trec8()
    with pytest.raises(DatasetNotFound, match="unknown dataset 'no-such-thing'"):
        evalkit.load_dataset("no-such-thing")
    with pytest.raises(DatasetNotFound, match=f"^{tmp_path}/missing: no such directory"):
        evalkit.load_dataset(str(tmp_path / "missing"))
    (tmp_path / "a-file").write_text("")
    with pytest.raises(DatasetNotFound, match=f"^{tmp_path}/a-file: is a file, not a dataset folder"):
        evalkit.load_dataset(str(tmp_path / "a-file"))


def test_trec8_shape_and_judged_runs(trec8):
    assert (trec8.n_runs, trec8.n_topics, trec8.depth) == (129, 50, 1000)
    assert len(trec8.qrels) == 86830 and int((trec8.qrels.grade > 0).sum()) == 4728
    judged = trec8.runs_info["judged"]
    assert judged.sum() == 72
    np.testing.assert_array_equal(derive_judged_runs(trec8), judged.to_numpy())
    assert set(trec8.runs_info.columns) >= {"group", "type", "judged"}
    assert trec8.runs_info["group"].nunique() == 41


def test_duplicate_in_bulk_load_names_the_line(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALKIT_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "coll"
    folder.mkdir()
    _write_directory(folder, random_collection(6))
    bad = folder / "runs" / "input.run1.gz"
    bad.write_bytes(gzip.compress(b"300 Q0 x 1 1.0 run1\n300 Q0 y 2 0.5 run1\n300 Q0 x 3 0.2 run1\n"))
    with pytest.raises(evalkit.TrecFormatError, match=r"input\.run1\.gz:3: duplicate docno 'x' in topic 300"):
        load_directory(folder)


# ------------------------------------------------------------------------------------ grades and codes


def test_codes_lie_below_every_grade_a_file_can_hold():
    from evalkit.data.collection import GRADE_DTYPE, GRADE_MAX, GRADE_MIN

    assert ABSENT == np.iinfo(GRADE_DTYPE).min and UNJUDGED == ABSENT + 1 == GRADE_MIN - 1
    assert GRADE_MAX == np.iinfo(GRADE_DTYPE).max and UNSAMPLED == -1


def test_large_and_negative_grades_through_files(tmp_path):
    """Grades beyond int16 stay themselves; every negative grade reads as UNSAMPLED (trec_eval reads every rel < 0
    alike) and never as an internal code; the file's own values survive a round trip."""
    from evalkit.data.collection import GRADE_DTYPE

    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 65536\n1 0 b 2147483647\n1 0 c -3\n1 0 d -1\n1 0 e 0\n1 0 f 32768\n")
    run = tmp_path / "run"
    run.write_text("".join(f"1 Q0 {d} {i} {9 - i} t\n" for i, d in enumerate("abcdefg")))
    c = evalkit.Collection.from_runs([evalkit.read_run(run)], evalkit.read_qrels(qrels))
    grades = c.grades()
    assert grades.dtype == GRADE_DTYPE
    assert grades[0, 0, :7].tolist() == [65536, 2**31 - 1, UNSAMPLED, UNSAMPLED, 0, 32768, UNJUDGED]
    assert (grades[0, 0, 7:] == ABSENT).all() or grades.shape[2] == 7
    assert c.qrels.counts(1).tolist() == [3] and c.qrels.judged_nonrelevant(1).tolist() == [1]
    assert sorted(c.to_qrels().grade.tolist()) == [-3, -1, 0, 32768, 65536, 2**31 - 1]
    assert derive_judged_runs(c, depth=6).tolist() == [True]  # -3 is in the pool like -1


def test_judged_set_refuses_grades_that_would_wrap_or_collide():
    from evalkit.data.collection import GRADE_DTYPE, JudgedSet

    for bad in (2**31, UNJUDGED, ABSENT, -(2**40)):
        with pytest.raises(ValueError, match="outside the supported range"):
            JudgedSet.from_arrays([0], [0], np.array([bad], np.int64), 1, 1)
    with pytest.raises(ValueError, match="outside the supported range"):
        JudgedSet(np.zeros(1, np.int32), np.zeros(1, np.int32), np.array([ABSENT], np.int32), None, 1, 1)
    small = JudgedSet(np.zeros(1, np.int32), np.zeros(1, np.int32), np.array([3], np.int16), None, 1, 1)
    assert small.grade.dtype == GRADE_DTYPE and small.lookup(np.zeros(1, np.int32), np.zeros(1, np.int32))[0] == 3


@pytest.mark.parametrize("in_range", [True, False])  # one int64 key, or lexsort when an id lies outside
def test_judged_set_orders_its_rows_by_topic_then_document(in_range):
    """``JudgedSet.from_arrays`` sorts by (topic, doc) with one stable int64 key when every id is in range: the rows
    and their grades and strata as ``np.lexsort`` puts them; a pair judged twice is refused on either path."""
    from evalkit.data.collection import JudgedSet

    rng = np.random.default_rng(7)
    n_topics, n_docs = 13, 997
    pairs = rng.choice(n_topics * n_docs, 5000, replace=False)
    topic, doc = (pairs // n_docs).astype(np.int32), (pairs % n_docs).astype(np.int32)
    if not in_range:
        doc[3] = n_docs + 5  # an id the key could not hold: lexsort orders it
    grade, stratum = rng.integers(-1, 4, 5000), rng.integers(0, 9, 5000)
    judged = JudgedSet.from_arrays(topic, doc, grade, n_topics, n_docs, stratum)
    order = np.lexsort((doc, topic))
    assert judged.topic.tolist() == topic[order].tolist() and judged.doc.tolist() == doc[order].tolist()
    assert judged.grade.tolist() == grade[order].tolist() and judged.stratum.tolist() == stratum[order].tolist()
    with pytest.raises(ValueError, match="judged twice"):
        JudgedSet.from_arrays(np.r_[topic, topic[9]], np.r_[doc, doc[9]], np.r_[grade, 1], n_topics, n_docs)


def test_two_runs_with_one_tag_name_both_files(tmp_path):
    a, b = tmp_path / "input.a", tmp_path / "input.b"
    a.write_text("1 Q0 x 1 1 same\n")
    b.write_text("1 Q0 y 1 1 same\n")
    qrels = evalkit.read_qrels(_write_qrels(tmp_path))
    with pytest.raises(ValueError) as info:
        evalkit.Collection.from_runs([evalkit.read_run(a), evalkit.read_run(b)], qrels)
    assert str(info.value).startswith(f"{a} and {b} both name their run 'same' (the tag column)")
    from evalkit.data.trec_files import Run

    unnamed = Run("r", np.array(["1"], object), np.array(["x"], object), np.array([1.0]))
    with pytest.raises(ValueError, match=r"run #1 \(not read from a file\) and run #2 \(not read from a file\)"):
        evalkit.Collection.from_runs([unnamed, unnamed], qrels)


def _write_qrels(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("1 0 x 1\n")
    return path


def test_runs_table_problems_name_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALKIT_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "coll"
    folder.mkdir()
    _write_directory(folder, random_collection(8))
    table = folder / "runs_table.tsv"
    table.write_text("name\tgroup\nrun0\tg\n")
    with pytest.raises(evalkit.TrecFormatError, match=rf"^{table}:1: no 'run' column"):
        load_directory(folder)
    table.write_text("run\tgroup\nrun0\tg\nrun0\th\n")
    with pytest.raises(evalkit.TrecFormatError, match=rf"^{table}:3: run 'run0' is listed twice \(first on line 2\)"):
        load_directory(folder)
    table.write_text("run\tgroup\ttype\nrun0\tNA\tnull\n")
    info = load_directory(folder).runs_info
    assert (info.loc["run0", "group"], info.loc["run0", "type"]) == ("NA", "null")
    assert info.loc["run1", "group"] == "run1"  # a run the table does not list: its own group


def _reference_rows(runs, qrels, depth=None, ties="float64"):
    """The dense arrays by the definition, one run and topic at a time in Python: rows of the qrels' topics, sorted
    by score descending (compared as C doubles, trec_eval 10.0, or as C floats, trec_eval 9.x: ``ties``) then docno
    descending (strcmp), cut at ``depth``."""
    precision = np.float64 if ties == "float64" else np.float32
    from evalkit.data.collection import sort_topics

    topics = list(sort_topics(qrels.topic))
    vocabulary = sorted(set(str(d) for r in runs for d in r.docno) | set(map(str, qrels.docno)),
                        key=lambda d: d.encode())
    ids = {d: i for i, d in enumerate(vocabulary)}
    rankings = {}
    for s, run in enumerate(runs):
        for t, d, score in zip(map(str, run.topic), map(str, run.docno), run.score):
            if t in topics:
                rankings.setdefault((s, topics.index(t)), []).append((precision(score), d.encode(), ids[d], score))
    width = depth or max(len(v) for v in rankings.values())
    docs = np.full((len(runs), len(topics), width), -1, np.int32)
    scores = np.full(docs.shape, np.nan)
    for (s, t), rows in rankings.items():
        rows = sorted(rows, key=lambda row: (row[0], row[1]), reverse=True)[:width]
        docs[s, t, : len(rows)] = [row[2] for row in rows]
        scores[s, t, : len(rows)] = [row[3] for row in rows]
    return vocabulary, docs, scores


@pytest.mark.parametrize("threads", [1, 2, 3, 7])
@pytest.mark.parametrize("depth", [None, 5])
@pytest.mark.parametrize("ties", ["float64", "float32"])
@pytest.mark.parametrize("band_rows", [1, 65_536])
def test_build_in_threads_equals_the_definition(monkeypatch, threads, depth, ties, band_rows):
    """from_runs (docnos encoded per group of runs in threads, dictionaries merged, each run ordered and placed on
    its own) equals a one-run-at-a-time Python build, whatever the number of threads: equal scores (in double or
    single precision, ``ties``) broken by docno, topics without qrels left out and counted, rankings cut at ``depth``."""
    import evalkit.data.build as build_module
    import evalkit.data.collection as collection_module
    from evalkit.data.trec_files import Qrels, Run

    monkeypatch.setattr(build_module, "build_threads", lambda n_runs: threads)
    monkeypatch.setattr(build_module, "GROUPS_PER_THREAD", 1 if threads < 3 else 2)  # 1, 2, 6, 6 (per run) groups
    monkeypatch.setattr(build_module, "BAND_ROWS", band_rows)  # a band per topic (runs listing "12" first are sorted
    # by band before hashing), or one band
    rng = np.random.default_rng(threads)
    docnos = np.array([f"D{k:03d}" for k in rng.permutation(60)] + ["a", "B", "ä"], dtype=object)
    runs = []
    for s in range(6):
        rows = [(str(t), d, float(rng.integers(0, 4)) + (1e-9 if rng.random() < 0.2 else 0.0))
                for t in (["12", "3", "99"] if s % 2 else ["3", "12"])
                for d in rng.choice(docnos, int(rng.integers(1, 15)), replace=False)]
        if s >= 4:  # rows of different topics interleaved: their topics are hashed, not read as blocks
            rows = [rows[i] for i in rng.permutation(len(rows))]
        topic, docno, score = zip(*rows)
        runs.append(Run(f"r{s}", np.array(topic, object), np.array(docno, object), np.array(score), ordered=False))
    qrels = Qrels(topic=np.array(["12", "3", "3"], object), docno=np.array(["D001", "D002", "zz"], object),
                  grade=np.array([1, 0, 2]))
    built = collection_module.Collection.from_runs(runs, qrels, depth=depth, ties=ties)
    vocabulary, docs, scores = _reference_rows(runs, qrels, depth, ties)
    assert list(built.topics) == ["3", "12"]
    assert list(built.vocabulary) == vocabulary
    np.testing.assert_array_equal(built.docs, docs)
    np.testing.assert_array_equal(built.scores, scores)
    expected_outside = [sum(t == "99" for t in r.topic) for r in runs]
    assert list(built.runs_info["lines_without_qrels"]) == expected_outside
    assert list(built.vocabulary[built.qrels.doc]) == ["D002", "zz", "D001"]


def test_a_folder_inside_runs_is_refused_by_name_not_skipped(tmp_path):
    """A run in runs/old/ would otherwise be missing from every result without a word."""
    from evalkit.data.simulator import write_collection

    folder = write_collection(tmp_path / "coll", preset="tiny")
    (folder / "runs" / "old").mkdir()
    with pytest.raises(DatasetNotFound) as info:
        load_directory(folder, cache=False)
    assert str(info.value) == (f"{folder / 'runs'}: holds folder(s) old; run files must sit directly in runs/ "
                               "(move their runs up, or the folders out, so no run is silently left out)")
    (folder / "runs" / "old").rmdir()
    (folder / "runs" / ".DS_Store").write_bytes(b"\0\1")  # hidden files are not runs
    assert len(load_directory(folder, cache=False).run_names) == 3


def _three_runs(folder):
    """runs r1, r2, r3 of 3 documents on topics a and b (tag = file name), qrels judging ranks 1-2 of each."""
    (folder / "runs").mkdir(parents=True)
    for run in ("r1", "r2", "r3"):
        (folder / "runs" / f"{run}.txt").write_text("".join(f"{t} Q0 {t}-{run}-{r} {r} {10 - r} {run}\n"
                                                            for t in "ab" for r in (1, 2, 3)))
    (folder / "qrels.txt").write_text("".join(f"{t} 0 {t}-{run}-1 1\n{t} 0 {t}-{run}-2 0\n"
                                              for t in "ab" for run in ("r1", "r2", "r3")))
    return folder


@pytest.mark.parametrize("header", ["", "# a comment line\n"])  # the fast reader, and the general one
def test_a_second_tag_in_a_dataset_run_is_refused_naming_file_and_line(tmp_path, monkeypatch, header):
    """One stray tag (line 4 of r1.txt, 'r1x') used to rename the run 'r1.txt' silently; a dataset folder now
    refuses it naming the file, the line and both tags. Reading the file as trec_eval does (read_run, evalkit eval)
    still names such a run after its file."""
    from evalkit.data.trec_files import TrecFormatError, read_run

    monkeypatch.setenv("EVALKIT_CACHE", str(tmp_path / "cache"))
    folder = _three_runs(tmp_path / "coll")
    path = folder / "runs" / "r1.txt"
    lines = path.read_text().splitlines(keepends=True)
    lines[3] = lines[3].replace(" r1\n", " r1x\n")
    path.write_text(header + "".join(lines))
    shift = header.count("\n")
    with pytest.raises(TrecFormatError) as info:
        evalkit.load_dataset(str(folder))
    assert str(info.value) == (f"{path}:{4 + shift}: tag 'r1x' where line {1 + shift} has 'r1': a run file of a "
                               "dataset folder holds one run, named by its tag (the 6th column); give every line the "
                               "run's tag, or split the file into one file per run")
    assert not list((tmp_path / "cache").rglob("*.npy"))  # nothing cached for a refused folder
    assert read_run(path).name == "r1.txt"


def test_hidden_entries_of_runs_are_named_at_load(tmp_path, monkeypatch, capsys):
    """A hidden file in runs/ ('.r3.txt', an editor's '.r1.txt.swp') is not read as a run, as before, but the load
    line now names each one, on a cached load too, and says how to load it; without them the line says nothing."""
    monkeypatch.setenv("EVALKIT_CACHE", str(tmp_path / "cache"))
    folder = _three_runs(tmp_path / "coll")
    (folder / "runs" / "r3.txt").rename(folder / "runs" / ".r3.txt")
    (folder / "runs" / ".r1.txt.swp").write_bytes(b"b0VIM 8.2\0")
    note = (" runs/ holds 2 hidden entries, not read as runs: '.r1.txt.swp', '.r3.txt' (a name starting with '.' is "
            "never a run, as editors' swap files and .DS_Store are; rename it without the '.' to load it).")
    for _ in range(2):  # built, then from the cache
        collection = evalkit.load_dataset(str(folder))
        assert list(collection.run_names) == ["r1", "r2"]
        assert collection.metadata["hidden_in_runs"] == [".r1.txt.swp", ".r3.txt"]
        assert capsys.readouterr().err.rstrip("\n").endswith(note)
    (folder / "runs" / ".r1.txt.swp").unlink()
    evalkit.load_dataset(str(folder))
    assert capsys.readouterr().err.rstrip("\n").endswith(" runs/ holds 1 hidden entry, not read as a run: '.r3.txt' "
                                                          "(a name starting with '.' is never a run, as editors' swap "
                                                          "files and .DS_Store are; rename it without the '.' to load "
                                                          "it).")
    (folder / "runs" / ".r3.txt").rename(folder / "runs" / "r3.txt")
    collection = evalkit.load_dataset(str(folder))
    assert list(collection.run_names) == ["r1", "r2", "r3"] and "hidden_in_runs" not in collection.metadata
    assert "hidden" not in capsys.readouterr().err


@pytest.mark.parametrize("n_topics", [7, 5000])  # the per-topic loop and the reduceat path
def test_per_topic_counts_and_ideal_gains_equal_their_definitions(n_topics):
    rng = np.random.default_rng(n_topics)
    n = 20000
    topic = rng.integers(0, n_topics - 2, n)  # the last two topics (and others by chance) have no judgments
    doc = rng.permutation(n)
    grade = rng.choice([-1, 0, 0, 1, 2, 5], n)
    judged = JudgedSet.from_arrays(topic, doc, grade, n_topics, n)
    assert np.array_equal(judged.counts(1), np.bincount(topic[grade >= 1], minlength=n_topics))
    assert np.array_equal(judged.counts(2), np.bincount(topic[grade >= 2], minlength=n_topics))
    assert np.array_equal(judged.judged_nonrelevant(2), np.bincount(topic[(grade >= 0) & (grade < 2)],
                                                                    minlength=n_topics))
    ideal = judged.ideal_gains()
    for t in rng.integers(0, n_topics, 50).tolist() + [n_topics - 1]:
        expected = sorted(grade[(topic == t) & (grade > 0)].tolist(), reverse=True)
        assert ideal[t, :len(expected)].tolist() == expected and not ideal[t, len(expected):].any()


@pytest.mark.parametrize("n_parts", [2, 3, 5])
def test_merge_split_by_value_equals_one_merge(monkeypatch, n_parts):
    """The build's parallel merge of docno dictionaries (ranges of values in threads) gives the one-piece merge's
    vocabulary and ids, with skewed, tiny, empty and non-ASCII dictionaries."""
    from concurrent.futures import ThreadPoolExecutor

    import pyarrow as pa

    from evalkit.data import build as module

    monkeypatch.setattr(module, "MERGE_SPLIT_MIN", 0)
    rng = np.random.default_rng(n_parts)
    words = [f"D{rng.integers(0, 3000)}" for _ in range(4000)] + ["é1", "é2", "A", "zz", "D1", "D10"]
    dictionaries = [pa.array(sorted(set(words[i::3]), key=lambda _: rng.random())) for i in range(3)]
    dictionaries += [pa.array([], pa.string()), pa.array(["D1"]), pa.array(["A"] * 1)]
    one = module._merge_dictionaries(dictionaries)
    with ThreadPoolExecutor(2) as pool:
        split = module._merge_dictionaries(dictionaries, pool, n_parts)
    assert one[0].tolist() == sorted(set(words), key=str.encode) == split[0].tolist()
    assert all(np.array_equal(a, b) for a, b in zip(one[1], split[1]))
    assert all(np.array_equal(one[0][ids], np.array(d.to_pylist(), object)) for d, ids in zip(dictionaries, split[1]))


def test_a_name_found_under_evalkit_data_says_to_pass_its_path(tmp_path, monkeypatch):
    """Only trec8 is looked up by name under $EVALKIT_DATA (data/README.md says so, where it promised any name): a
    folder mycoll there is not loaded by the bare name 'mycoll', and the error gives the path to pass instead."""
    data = tmp_path / "data"
    (data / "mycoll" / "runs").mkdir(parents=True)
    (data / "mycoll" / "runs" / "r1.txt").write_text("t1 Q0 d1 1 2.0 r1\nt1 Q0 d2 2 1.0 r1\n")
    (data / "mycoll" / "qrels.txt").write_text("t1 0 d1 1\nt1 0 d2 0\n")
    monkeypatch.setenv("EVALKIT_DATA", str(data))
    monkeypatch.setenv("EVALKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DatasetNotFound) as info:
        evalkit.load_dataset("mycoll")
    assert str(info.value) == ("unknown dataset 'mycoll': use 'auto', 'synthetic', 'trec8', or a directory holding "
                               f"runs/ and a qrels file; {data} holds a folder of that name, but only trec8 is looked "
                               f"up there by name: pass its path, {data / 'mycoll'}")
    assert list(evalkit.load_dataset(str(data / "mycoll")).run_names) == ["r1"]
    readme = (Path(__file__).resolve().parents[1] / "data" / "README.md").read_text()
    assert "$EVALKIT_DATA/<name>" not in readme and "`$EVALKIT_DATA/trec8`" in readme
