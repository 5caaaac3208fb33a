"""Collection arrays, views, datasets, the cache, and clear messages for missing data."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

import evalkit
from evalkit.collection import ABSENT, UNJUDGED, UNSAMPLED
from evalkit.datasets import DatasetNotFound, derive_judged_runs, load_directory, load_trec8
from conftest import random_collection


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
    with pytest.raises(DatasetNotFound, match="unknown dataset"):
        evalkit.load_dataset("no-such-thing")


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
