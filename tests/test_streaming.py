"""evaluate_files: run files scored in blocks give evalkit.evaluate's table exactly, on every scheduler."""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pytest
from conftest import TREC8, random_collection

import evalkit
from evalkit.measures.streaming import evaluate_files

HAS_DISTRIBUTED = importlib.util.find_spec("distributed") is not None
MEASURES = ["AP", "P@10", "nDCG@100", "Rprec", "Bpref", "RBP(p=0.95)"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("streaming")
    c = random_collection(9, n_runs=7)
    (folder / "runs").mkdir()
    paths = [evalkit.write_run(c.to_run(n), folder / "runs" / f"{n}.run") for n in c.run_names]
    qrels = evalkit.write_qrels(c.to_qrels(), folder / "qrels.txt")
    return qrels, paths


@pytest.mark.parametrize("per_topic", [True, False])
def test_blocks_equal_one_collection(files, per_topic):
    qrels, paths = files
    expected = evalkit.evaluate(qrels, paths, MEASURES, per_topic=per_topic)
    for runs_per_block in (1, 3, 7, 100):
        got = evaluate_files(qrels, paths, MEASURES, per_topic, runs_per_block=runs_per_block, scheduler="serial",
                             progress=False)
        pd.testing.assert_frame_equal(got, expected)
    assert (expected["value"] > 0).any()


def test_local_processes_and_a_directory(files):
    qrels, paths = files
    expected = evalkit.evaluate(qrels, paths, MEASURES)
    got = evaluate_files(evalkit.read_qrels(qrels), paths[0].parent, MEASURES, runs_per_block=2, scheduler="local",
                         n_jobs=2, progress=False)
    pd.testing.assert_frame_equal(got, expected)  # the directory's files sorted: run0..run6, as given above


@pytest.mark.skipif(not HAS_DISTRIBUTED, reason="dask.distributed is not installed")
def test_dask_tasks(files):
    qrels, paths = files
    got = evaluate_files(qrels, paths, ["AP", "nDCG@100"], runs_per_block=3, scheduler="dask", n_jobs=2,
                         progress=False)
    pd.testing.assert_frame_equal(got, evalkit.evaluate(qrels, paths, ["AP", "nDCG@100"]))


def test_clear_errors(files, tmp_path):
    qrels, paths = files
    with pytest.raises(ValueError, match="runs_per_block must be a positive int"):
        evaluate_files(qrels, paths, runs_per_block=0, scheduler="serial")
    with pytest.raises(FileNotFoundError, match="nope.run"):
        evaluate_files(qrels, paths + [tmp_path / "nope.run"], scheduler="serial")
    twin = evalkit.write_run(evalkit.read_run(paths[0]), tmp_path / "twin.run")  # same run name, another file
    with pytest.raises(ValueError, match="run names must be unique; repeated: \\['run0'\\]"):
        evaluate_files(qrels, paths + [twin], runs_per_block=4, scheduler="serial", progress=False)
    bad = tmp_path / "bad.run"
    bad.write_text("301 Q0 D1 1 1.0 bad\n301 Q0 D2 2 x bad\n")
    with pytest.raises(evalkit.TrecFormatError, match="bad.run") as info:
        evaluate_files(qrels, [paths[0], bad], runs_per_block=1, scheduler="serial", progress=False)
    assert any("block of run files 1" in note for note in getattr(info.value, "__notes__", []))


@pytest.mark.trec8
def test_trec8_in_blocks_equals_in_memory():
    if not TREC8.is_dir():
        pytest.skip("TREC-8 data not found")
    qrels = TREC8 / "qrels.trec8.adhoc.txt"
    paths = sorted((TREC8 / "runs").glob("input.*"))
    expected = evalkit.evaluate(qrels, paths, ["AP", "P@10", "nDCG@100", "Rprec", "Bpref"])
    got = evaluate_files(qrels, paths, ["AP", "P@10", "nDCG@100", "Rprec", "Bpref"], runs_per_block=50,
                         scheduler="local", n_jobs=2, progress=False)
    pd.testing.assert_frame_equal(got, expected)
    assert got["run"].nunique() == 129 and np.isfinite(got["value"]).all()
