"""evalkit.evaluate and `evalkit eval`: trec_eval's output shape, measure names, errors."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from conftest import random_collection

import evalkit
from evalkit.cli import main
from evalkit.measures import parse_measure


@pytest.fixture()
def files(tmp_path):
    c = random_collection(7, n_runs=3)
    paths = [evalkit.write_run(c.to_run(n), tmp_path / f"{n}.run") for n in c.run_names]
    qrels = evalkit.write_qrels(c.to_qrels(), tmp_path / "qrels.txt")
    return c, qrels, paths


def test_evaluate_long_frame(files):
    c, qrels, paths = files
    frame = evalkit.evaluate(qrels, paths, ["AP", "P@10"])
    assert list(frame.columns) == ["run", "topic", "measure", "value"]
    assert list(frame.run.unique()) == list(c.run_names)
    all_rows = frame[frame.topic == "all"]
    assert len(all_rows) == 2 * len(paths)
    # the all row is the mean over the topics the run was scored on
    run0 = frame[(frame.run == "run0") & (frame.measure == "AP")]
    assert run0[run0.topic == "all"].value.iloc[0] == pytest.approx(run0[run0.topic != "all"].value.mean())
    # run0 skips the last topic (see conftest): trec_eval does not score it
    assert c.topics[-1] not in set(run0.topic)
    same = evalkit.evaluate(None, c, ["AP", "P@10"])
    np.testing.assert_allclose(same.value.to_numpy(), frame.value.to_numpy(), atol=1e-12)


def test_measure_names():
    assert str(parse_measure("RBP(p=0.95)@100")) == "RBP(p=0.95)@100"
    assert str(parse_measure("ndcg@10")) == "nDCG@10"
    assert parse_measure("RBP").param == {"p": 0.8, "rel": None}  # rel given: binary RBP; not given: graded
    for bad, message in [("P", "needs a cut-off"), ("Rprec@5", "takes no cut-off"), ("XYZ", "unknown measure"),
                         ("RBP(q=1)", "takes no parameter 'q'"), ("AP@@", "cannot parse")]:
        with pytest.raises(ValueError, match=message):
            parse_measure(bad)


def test_cli_prints_trec_eval_columns(files, capsys):
    c, qrels, paths = files
    assert main(["eval", str(qrels), str(paths[0]), "-m", "AP", "-m", "P@5", "-q"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    fields = [line.split("\t") for line in lines]
    assert all(len(f) == 3 for f in fields)
    assert fields[-1][1] == "all" and fields[-1][0].strip() == "P@5"
    expected = evalkit.evaluate(qrels, paths[:1], ["AP"], per_topic=False).value.iloc[0]
    ap_all = [f for f in fields if f[0].strip() == "AP" and f[1] == "all"][0]
    assert float(ap_all[2]) == pytest.approx(expected, abs=5e-5)


def test_cli_errors_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 a 1 x t\n")
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n")
    assert main(["eval", str(qrels), str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.run:1: score 'x' is not a number" in err


def test_console_script_installed():
    out = subprocess.run([sys.executable, "-m", "evalkit.cli", "measures"], capture_output=True, text=True, check=True)
    assert "RBP" in out.stdout and "Bpref" in out.stdout


def test_sampled_qrels_through_eval(files, tmp_path, capsys):
    """With 5-column qrels, `evalkit eval` gives sample_eval.pl's measures, equal to evalkit.measures.inferred's."""
    from evalkit.data.trec_files import Qrels, read_qrels
    from evalkit.measures.inferred import inferred_measures

    c, qrels_path, paths = files
    plain = read_qrels(qrels_path)
    rng = np.random.default_rng(0)
    stratum = rng.integers(1, 3, len(plain))
    grade = np.where(rng.random(len(plain)) < 0.6, np.maximum(plain.grade, 0), -1)  # 40% not sampled
    sampled = Qrels(plain.topic, plain.docno, grade, stratum)
    sampled_path = evalkit.write_qrels(sampled, tmp_path / "sampled.qrels")
    assert read_qrels(sampled_path).sampled
    frame = evalkit.evaluate(sampled_path, paths, ["infAP", "infNDCG@10", "infP@5", "infR"])
    expected = inferred_measures(c, c.align_qrels(read_qrels(sampled_path)), ["infAP", "infNDCG@10", "infP@5"])
    got = frame[(frame.measure == "infAP") & (frame.topic != "all")]
    for row in got.itertuples():
        assert row.value == pytest.approx(expected["infAP"][c.run_index(row.run), c.topic_index(row.topic)], abs=1e-12)
    assert main(["eval", str(sampled_path), str(paths[0]), "-m", "infAP", "-m", "infR"]) == 0
    out = capsys.readouterr().out
    assert "infAP" in out and "infR" in out


@pytest.mark.parametrize("runs_per_block", [1, 2, 100])
def test_evaluate_from_files_in_blocks_equals_one_collection(tmp_path, monkeypatch, runs_per_block):
    """Files are read, built and scored a block of runs at a time: the table equals, row for row, the one computed
    on a single collection of every run (string topic ids, a run with lines for a topic without qrels, a topic a
    run does not retrieve, Run objects mixed with files), whatever the block size."""
    import evalkit.measures.evaluation as evaluation
    from evalkit.data.trec_files import Run

    monkeypatch.setattr(evaluation, "RUNS_PER_BLOCK", runs_per_block)
    rng = np.random.default_rng(runs_per_block)
    topics = ["q-a", "q-b", "q-c"]
    docnos = [f"doc{k}" for k in range(30)]
    qrels_lines = [f"{t} 0 {d} {int(rng.integers(-1, 3))}" for t in topics for d in rng.choice(docnos, 12, replace=False)]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("\n".join(qrels_lines) + "\n")
    runs = []
    for s in range(5):
        lines = [f"{t} Q0 {d} 0 {float(rng.integers(0, 5))} tag{s}"
                 for t in (topics[:2] + ["unjudged-topic"] if s == 1 else topics)
                 for d in rng.choice(docnos, int(rng.integers(3, 20)), replace=False)]
        path = tmp_path / f"run{s}.txt"
        path.write_text("\n".join(lines) + "\n")
        runs.append(path)
    runs[3] = evalkit.read_run(runs[3])
    assert isinstance(runs[3], Run)
    frame = evalkit.evaluate(qrels, runs, ["AP", "P@10", "Bpref", "nDCG"])
    whole = evalkit.Collection.from_runs([evalkit.read_run(r) if not isinstance(r, Run) else r for r in runs],
                                         evalkit.read_qrels(qrels))
    expected = evalkit.evaluate(None, whole, ["AP", "P@10", "Bpref", "nDCG"])
    assert frame.equals(expected)
    assert list(frame["run"].unique()) == [f"tag{s}" for s in range(5)]
    assert "unjudged-topic" not in set(frame["topic"])
    short = evalkit.evaluate(qrels, runs, ["AP"], per_topic=False)
    assert short.equals(expected[(expected.topic == "all") & (expected.measure == "AP")].reset_index(drop=True))


def test_evaluate_from_files_reports_a_bad_file_before_a_name_repeated_from_an_earlier_block(tmp_path, monkeypatch):
    """Each block's files are parsed inside its build; as when they were parsed before it, a file that cannot be
    read is reported before a run name that an earlier block already holds."""
    import evalkit.measures.evaluation as evaluation
    from evalkit.errors import TrecFormatError

    monkeypatch.setattr(evaluation, "RUNS_PER_BLOCK", 2)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n")
    a, b, c, d = (tmp_path / f"{x}.run" for x in "abcd")
    a.write_text("1 Q0 d1 1 1.0 same\n")
    b.write_text("1 Q0 d1 1 1.0 other\n")
    c.write_text("1 Q0 d1 1 1.0 same\n")
    d.write_text("1 Q0 d1 1 high third\n")
    with pytest.raises(TrecFormatError, match=rf"^{d}:1: score 'high' is not a number"):
        evalkit.evaluate(qrels, [a, b, c, d], ["AP"])
    d.write_text("1 Q0 d1 1 1.0 third\n")
    with pytest.raises(ValueError, match=rf"{a}.* and {c}.* both name their run 'same'"):
        evalkit.evaluate(qrels, [a, b, c, d], ["AP"])


def test_evaluate_from_files_names_both_files_of_a_repeated_run_name_across_blocks(tmp_path, monkeypatch):
    import evalkit.measures.evaluation as evaluation

    monkeypatch.setattr(evaluation, "RUNS_PER_BLOCK", 1)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n")
    a, b, c = tmp_path / "a.run", tmp_path / "b.run", tmp_path / "c.run"
    a.write_text("1 Q0 d1 1 1.0 same\n")
    b.write_text("1 Q0 d1 1 1.0 other\n")
    c.write_text("1 Q0 d1 1 1.0 same\n")
    with pytest.raises(ValueError, match=rf"{a}.* and {c}.* both name their run 'same'"):
        evalkit.evaluate(qrels, [a, b, c], ["AP"])
