"""evaluate() on a few plain run files without pandas (evalkit.measures.plain_files): the same table as the
collection's path, value for value, on collections unlike TREC-8; every input that path would read differently or
refuse goes the collection's way; a fresh process gets its ScoreTable without importing pandas or pyarrow."""

from __future__ import annotations

import gzip
import subprocess
import sys

import numpy as np
import pytest

import evalkit
from evalkit.errors import TrecFormatError
from evalkit.measures import evaluation, plain_files

MEASURES = ["AP", "AP@5", "P@10", "P@100", "R@20", "Rprec", "nDCG", "nDCG@10", "Bpref", "NumRel", "NumRet",
            "NumRet@7", "RBP(p=0.95)", "RBP", "RBP(p=0.5,rel=2)", "RBPres(p=0.9)", "RBP(p=0.8)@10"]


def write_collection(folder, seed: int, topics: list, n_runs: int = 3, sep: str = " ", gz: bool = False,
                     extra=("zz9", "qq")):
    """qrels graded -1..3 (a topic judged only with negative grades, a qrels topic no run has), runs with one-decimal
    scores (many ties), docnos of assorted lengths, a run topic without judgments, topics in file order."""
    rng = np.random.default_rng(seed)
    pool = [f"{['D', 'FBIS3-', 'X' * 17][i % 3]}{int(rng.integers(0, 10 ** int(rng.integers(1, 7))))}"
            for i in range(400)]
    pool = sorted(set(pool))
    lines = []
    for topic in topics[:-1]:  # the last topic is judged nowhere
        for docno in rng.choice(pool, 50, replace=False):
            lines.append(sep.join([topic, "0", docno, str(int(rng.integers(-1, 4)))]))
    lines += [sep.join([extra[0], "0", "unjudgedonly", "-1"]), sep.join([extra[1], "0", "onlyinqrels", "2"])]
    (folder / "qrels").write_text("\n".join(lines) + "\n")
    paths = []
    for r in range(n_runs):
        out = []
        order = list(topics) + ([extra[0]] if r == 0 else [])
        rng.shuffle(order)
        for topic in order:
            docs = rng.choice(pool, int(rng.integers(3, 80)), replace=False)
            scores = np.round(rng.normal(size=len(docs)), 1)
            for rank, (docno, score) in enumerate(zip(docs, scores), 1):
                out.append(sep.join([topic, "Q0", docno, str(rank), repr(float(score)), f"run{r}"]))
        text = ("\n".join(out) + "\n").encode()
        path = folder / (f"run{r}.gz" if gz else f"run{r}")
        path.write_bytes(gzip.compress(text) if gz else text)
        paths.append(path)
    return folder / "qrels", paths


def both(qrels, runs, measures=MEASURES, ties="float64", per_topic=True):
    plain = plain_files.score_files(qrels, runs, measures, ties, per_topic)
    return plain, evaluation._collection_table(qrels, runs, measures, per_topic, ties)


@pytest.mark.parametrize("ties", ["float64", "float32"])
@pytest.mark.parametrize("case", ["numeric topics", "string topics", "tabs and gzip", "means only"])
def test_the_plain_path_gives_the_collection_path_s_table(tmp_path, ties, case):
    topics = {"numeric topics": ["9", "10", "101", "2", "40"],
              "string topics": ["b7", "a", "10", "9", "Q-1"]}.get(case, ["401", "402", "403"])
    qrels, runs = write_collection(tmp_path, len(case), topics, sep="\t" if case == "tabs and gzip" else " ",
                                   gz=case == "tabs and gzip",
                                   extra=("999", "1000") if case == "numeric topics" else ("zz9", "qq"))
    plain, collection = both(qrels, runs, ties=ties, per_topic=case != "means only")
    assert plain is not None  # the plain path really ran
    assert plain.runs.tolist() == collection.runs.tolist() == ["run0", "run1", "run2"]
    assert plain.topics.tolist() == collection.topics.tolist()
    assert np.array_equal(plain.scored, collection.scored)
    assert np.array_equal(plain.values, collection.values)  # bit for bit: the same kernels on the same grades
    assert plain.to_frame().equals(collection.to_frame())
    frame = evalkit.evaluate(qrels, runs, MEASURES, ties=ties, per_topic=case != "means only")
    assert frame.equals(collection.to_frame())
    if case == "numeric topics":  # the qrels' topics in natural order ("40" is judged nowhere)
        assert plain.topics.tolist() == ["2", "9", "10", "101", "999", "1000"]


def test_a_hand_computed_table(tmp_path):
    """Two topics; the run ranks d1 (rel), d2 (non-rel), d3 (unjudged), d4 (rel) on topic 1 and d5 (rel) on topic
    2, which has one relevant document: AP = (1/1 + 2/4) / 3 on topic 1 (three relevant, d6 never retrieved) and
    1 on topic 2; P@2 = 1/2 and 1/2; the mean of AP over the two topics is 0.75."""
    (tmp_path / "qrels").write_text("1 0 d1 1\n1 0 d2 0\n1 0 d4 2\n1 0 d6 1\n2 0 d5 1\n")
    (tmp_path / "run").write_text("1 Q0 d1 1 4.0 mine\n1 Q0 d2 2 3.0 mine\n1 Q0 d3 3 2.0 mine\n"
                                  "1 Q0 d4 4 1.0 mine\n2 Q0 d5 1 9.0 mine\n")
    table = evalkit.evaluate(tmp_path / "qrels", tmp_path / "run", ["AP", "P@2"], as_frame=False)
    assert isinstance(table, evalkit.measures.score_table.ScoreTable)
    assert table.per_topic_values("AP") == {"mine": {"1": pytest.approx(0.5), "2": 1.0}}
    assert table.mean("AP") == {"mine": pytest.approx(0.75)}
    assert table.mean("P@2") == {"mine": 0.5}
    with pytest.raises(KeyError, match="no measure 'AP@2' in this table; it has AP, P@2"):
        table.mean("AP@2")


def test_pytrec_eval_agrees_with_the_plain_path(tmp_path):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, runs = write_collection(tmp_path, 11, ["301", "302", "303", "304"], n_runs=2)
    table = plain_files.score_files(qrels, runs, ["AP", "P@10", "nDCG@10", "Bpref"], ties="float32")
    judged = {}
    for line in qrels.read_text().splitlines():
        topic, _, docno, grade = line.split()
        judged.setdefault(topic, {})[docno] = int(grade)
    evaluator = pytrec_eval.RelevanceEvaluator(judged, {"map", "P_10", "ndcg_cut_10", "bpref"})
    for s, path in enumerate(runs):
        run = {}
        for line in path.read_text().splitlines():
            topic, _, docno, _, score, _ = line.split()
            run.setdefault(topic, {})[docno] = float(score)
        theirs = evaluator.evaluate(run)
        for m, name in enumerate(["map", "P_10", "ndcg_cut_10", "bpref"]):
            for t, topic in enumerate(table.topics.tolist()):
                if table.scored[s, t]:
                    assert abs(table.values[m, s, t] - theirs[topic][name]) < 1e-9, (path.name, topic, name)
        assert sum(table.scored[s]) == len([t for t in theirs if t in judged])


def _edit(path, old: bytes, new: bytes, count: int = 1):
    path.write_bytes(path.read_bytes().replace(old, new, count))


@pytest.mark.parametrize("change", ["non-ASCII docno", "byte-order mark", "comment line", "blank line",
                                    "extra field", "NaN score", "infinite score", "tag changes", "same name",
                                    "document twice", "inferred measure", "too many runs", "named .gz, not gzip"])
def test_what_the_plain_path_could_read_differently_goes_the_collection_s_way(tmp_path, change):
    qrels, runs = write_collection(tmp_path, 5, ["1", "2", "3"])
    run = runs[1]
    first = run.read_bytes().split(b"\n")[0]
    fields = first.split(b" ")
    measures = ["AP", "infAP"] if change == "inferred measure" else ["AP", "P@10"]
    if change == "non-ASCII docno":
        _edit(run, fields[2] + b" ", "Dé1 ".encode())
    elif change == "byte-order mark":
        run.write_bytes(b"\xef\xbb\xbf" + run.read_bytes())
    elif change == "comment line":
        run.write_bytes(b"# a comment\n" + run.read_bytes())
    elif change == "blank line":
        run.write_bytes(b"\n" + run.read_bytes())
    elif change == "extra field":
        _edit(run, first, first + b" extra")
    elif change == "NaN score":
        _edit(run, first, b" ".join(fields[:4] + [b"nan", fields[5]]))
    elif change == "infinite score":
        _edit(run, first, b" ".join(fields[:4] + [b"1e400", fields[5]]))
    elif change == "tag changes":
        _edit(run, first, b" ".join(fields[:5] + [b"other"]))
        runs[1] = run = run.rename(tmp_path / "changing.run")
    elif change == "same name":
        _edit(run, b" run1\n", b" run0\n", -1)
    elif change == "document twice":
        run.write_bytes(run.read_bytes() + first + b"\n")
    elif change == "named .gz, not gzip":
        runs[1] = run = run.rename(tmp_path / "run1.gz")
    elif change == "too many runs":
        runs = runs * 3  # nine runs (the same files: the collection's path refuses the repeated names)
    if change == "inferred measure":
        sampled = tmp_path / "sampled"
        sampled.write_text("".join(f"{t} 0 {d} 1 {g}\n" for t, _, d, g in
                                   (line.split() for line in qrels.read_text().splitlines())))
        qrels = sampled
    assert plain_files.score_files(qrels, runs, measures) is None
    try:
        expected = evaluation._collection_table(qrels, runs, measures, True, None).to_frame()
    except (TrecFormatError, ValueError) as exc:
        with pytest.raises(type(exc), match=None) as raised:
            evalkit.evaluate(qrels, runs, measures)
        assert str(raised.value) == str(exc)  # the collection's error, word for word
        assert change in ("NaN score", "infinite score", "same name", "document twice", "too many runs",
                          "named .gz, not gzip")
        return
    assert evalkit.evaluate(qrels, runs, measures).equals(expected)
    if change == "tag changes":  # the kit names such a run after its file
        assert expected["run"].unique().tolist() == ["run0", "changing.run", "run2"]


def test_a_fresh_process_gets_its_table_without_pandas(tmp_path):
    qrels, runs = write_collection(tmp_path, 3, ["1", "2"], n_runs=2)
    code = ("import sys, evalkit; "
            f"t = evalkit.evaluate({str(qrels)!r}, {[str(r) for r in runs]!r}, ['AP', 'nDCG@10'], as_frame=False); "
            "print(sorted(m for m in ('pandas', 'pyarrow', 'scipy', 'matplotlib') if m in sys.modules)); "
            "t.to_frame(); print('pandas' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split("\n")[:2] == ["[]", "True"]
