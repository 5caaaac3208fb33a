"""The many-runs reader of the trec_eval command line (evalkit.trec_eval.reader: pyarrow parse, docnos as integer
words, a hash table of the qrels) against the one-run reader (evalkit.trec_eval.rankings, checked line for line
against NIST trec_eval in test_trec_eval_cli.py) and against trec_eval 10.0 itself, on files built to be awkward:
docnos of 1 to 30 bytes that are prefixes of one another, many score ties, topics out of strcmp order or
interleaved, unsorted scores, topics missing on either side, CRLF lines, non-ASCII docnos, duplicates."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from test_trec_eval_cli import assert_same_text, ours, theirs
from trec_eval_builds import build

from evalkit.errors import TrecFormatError
from evalkit.trec_eval import cli as trec_eval_cli
from evalkit.trec_eval import reader as trec_eval_arrow
from evalkit.trec_eval.rankings import read_qrels

OPTIONS = [["official"], ["all_trec"]]


def _docnos(rng, n: int) -> list[str]:
    """Docnos of assorted lengths, many sharing prefixes (``D1``, ``D12``, ``D123``...), some over 16 bytes."""
    stems = ["D", "FBIS3-", "LA0101", "X" * 17, "clueweb09-en0000-"]
    return [f"{stems[i % len(stems)]}{int(rng.integers(0, 10 ** int(rng.integers(1, 8))))}" for i in range(n)]


def write_collection(folder, seed: int, n_runs: int = 5, crlf: bool = False):
    """qrels + runs with ties, string topics out of strcmp order, missing topics either side."""
    rng = np.random.default_rng(seed)
    topics = ["9", "10", "101", "2", "b7", "a"]
    pool = sorted(set(_docnos(rng, 300)))
    qrels_lines = []
    for topic in topics[:-1]:  # "a" is judged nowhere
        for docno in rng.choice(pool, 40, replace=False):
            qrels_lines.append(f"{topic} 0 {docno} {int(rng.integers(-1, 3))}")
    qrels_lines.append("zz 0 onlyjudged 1")  # a qrels topic no run has
    end = "\r\n" if crlf else "\n"
    (folder / "qrels").write_text(end.join(qrels_lines) + end)
    paths = []
    for r in range(n_runs):
        lines = []
        order = list(topics)
        rng.shuffle(order)  # topics in no particular order, sometimes split in two blocks
        for topic in order:
            docs = rng.choice(pool, int(rng.integers(5, 60)), replace=False)
            scores = np.round(rng.normal(size=len(docs)), 1)  # one decimal: plenty of ties
            if r % 2 == 0:
                scores = -np.sort(-scores)  # sorted runs take the no-sort path
            for docno, score in zip(docs, scores):
                lines.append(f"{topic} Q0 {docno} 1 {score} run{r}")
        path = folder / f"run{r}"
        path.write_text(end.join(lines) + end)
        paths.append(path)
    return folder / "qrels", paths


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("version", ["10.0", "9.0.8"])
def test_arrow_reader_equals_the_one_run_reader(tmp_path, seed, version):
    qrels, runs = write_collection(tmp_path, seed, crlf=seed == 2)
    judged = read_qrels(qrels)
    assert all(trec_eval_arrow.read_run(p, judged) is not None for p in runs)  # the fast path really ran
    for measures in OPTIONS:
        for extra in ({}, {"complete": True}, {"max_docs": 7}, {"judged_only": True}):
            texts = [trec_eval_cli.evaluate_files(qrels, runs, measures, version=version, per_topic=True,
                                                  full_precision=True, reader=reader, **extra)
                     for reader in ("bytes", "arrow")]
            assert texts[0] == texts[1], (measures, extra)
            assert texts[0].count("runid") == len(runs)


def test_many_runs_through_the_front_door_equal_trec_eval(tmp_path, tmp_path_factory):
    """The console entry with several runs (the arrow reader) against one trec_eval 10.0 process per run."""
    binary = build("10.0", tmp_path_factory.mktemp("te10"))
    qrels, runs = write_collection(tmp_path, 7, n_runs=6)
    # trec_eval 10.0 stops (exit 4) when a topic is on one side only: "a" (runs) and "zz" (qrels) are dropped
    qrels.write_text("".join(line for line in open(qrels) if not line.startswith("zz ")))
    runs_kept = []
    for path in runs:  # ... so drop topic "a" from the runs for this comparison
        kept = path.with_suffix(".kept")
        kept.write_text("".join(line for line in open(path) if not line.startswith("a ")))
        runs_kept.append(kept)
    for argv in (["-q", "-m", "all_trec"], ["-q", "-c"], ["-M", "5", "-m", "ndcg_cut.3", "-m", "P.2"]):
        reference = "".join(theirs(binary, *argv, qrels, p)[1] for p in runs_kept)
        code, text, err = ours(*argv, qrels, *runs_kept)
        assert code == 0, err
        assert_same_text(text, reference, f"{argv} on {len(runs_kept)} runs")


def test_irregular_files_take_the_general_path(tmp_path):
    qrels, runs = write_collection(tmp_path, 3, n_runs=4)
    judged = read_qrels(qrels)
    accented = tmp_path / "accented"
    accented.write_text(runs[0].read_text().replace("D", "Dé", 3))
    duplicate = tmp_path / "duplicate"
    first = runs[1].read_text().splitlines()[0]
    duplicate.write_text(runs[1].read_text() + first + "\n")
    assert trec_eval_arrow.read_run(accented, judged) is None
    assert trec_eval_arrow.read_run(duplicate, judged) is None
    with_accent = trec_eval_cli.evaluate_files(qrels, [accented] + runs[1:], ["all_trec"], reader="arrow")
    assert with_accent == trec_eval_cli.evaluate_files(qrels, [accented] + runs[1:], ["all_trec"], reader="bytes")
    with pytest.raises(TrecFormatError, match="listed twice"):
        trec_eval_cli.evaluate_files(qrels, runs[:2] + [duplicate], reader="arrow")


def test_non_ascii_qrels_turn_the_table_off(tmp_path):
    qrels, runs = write_collection(tmp_path, 4, n_runs=4)
    qrels.write_text(qrels.read_text() + "9 0 Dé1 1\n")
    judged = read_qrels(qrels)
    assert not trec_eval_arrow.qrels_table(judged).usable
    assert trec_eval_arrow.read_run(runs[0], judged) is None
    texts = [trec_eval_cli.evaluate_files(qrels, runs, ["all_trec"], reader=r) for r in ("bytes", "arrow")]
    assert texts[0] == texts[1]


def test_runs_are_parsed_while_the_qrels_are_read_and_errors_keep_their_order(tmp_path, monkeypatch):
    """With several runs the files' fields are parsed in threads while the qrels are read (the qrels reader below
    waits until a run has been parsed: read one after the other, it would wait in vain); the text is the one-run
    reader's, and errors come as trec_eval's order has them: the qrels' first, then the first bad run in order."""
    import threading

    from evalkit.trec_eval import rankings as trec_eval_rankings
    qrels, runs = write_collection(tmp_path, 5, n_runs=6)
    expected = trec_eval_cli.evaluate_files(qrels, runs, ["all_trec"], reader="bytes")
    parsed, waited = threading.Event(), []
    arrow_read, qrels_read = trec_eval_arrow.read_run, trec_eval_rankings.read_qrels

    def read_run(*args, **kwargs):
        run = arrow_read(*args, **kwargs)
        parsed.set()
        return run

    def read_qrels_after_a_run(path):
        waited.append(parsed.wait(10))
        return qrels_read(path)

    monkeypatch.setattr(trec_eval_arrow, "read_run", read_run)
    monkeypatch.setattr(trec_eval_rankings, "read_qrels", read_qrels_after_a_run)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert trec_eval_cli.evaluate_files(qrels, runs, ["all_trec"], reader="arrow") == expected
    assert waited == [True]

    bad_qrels = tmp_path / "bad_qrels"
    bad_qrels.write_text(qrels.read_text() + "9 0 onlyfour\n")
    missing, bad_score = tmp_path / "missing", tmp_path / "bad_score"
    lines = runs[2].read_text().splitlines()
    fields = lines[3].split()
    fields[4] = "0x1p3"
    bad_score.write_text("\n".join(lines[:3] + [" ".join(fields)] + lines[4:]) + "\n")
    with pytest.raises(TrecFormatError, match="bad_qrels:"):
        trec_eval_cli.evaluate_files(bad_qrels, [runs[0], missing, bad_score] + runs[3:], reader="arrow")
    with pytest.raises(TrecFormatError, match="bad_score:4: score '0x1p3'"):
        trec_eval_cli.evaluate_files(qrels, [runs[0], bad_score, missing] + runs[3:], reader="arrow")
    with pytest.raises(TrecFormatError, match="missing: cannot read"):
        trec_eval_cli.evaluate_files(qrels, [runs[0], missing, bad_score] + runs[3:], reader="arrow")


def test_docno_words_order_is_strcmp():
    import pyarrow as pa

    docnos = ["b", "a", "ab", "a\x01", "abcdefgh", "abcdefgh0", "abcdefg", "", "zzzzzzzzzzzzzzzzzz"]
    words = trec_eval_arrow.docno_words(pa.array(docnos))
    assert words.shape == (len(docnos), 3)
    by_words = sorted(range(len(docnos)), key=lambda i: tuple(words[i]))
    assert [docnos[i] for i in by_words] == sorted(docnos, key=str.encode)


def test_a_hash_collision_is_never_a_match(tmp_path, monkeypatch):
    """With a deliberately broken hash (every pair that is not judged hashes like the qrels' first pair), lookups
    still equal a dict's: a match is confirmed on the words. If the qrels' own pairs collide, the table declines
    and the general path reads every run."""
    qrels, runs = write_collection(tmp_path, 5, n_runs=4)
    judged = read_qrels(qrels)
    run = trec_eval_arrow.read_run(runs[1], judged)  # read with the real hash
    index = judged.index()
    codes = np.array([index.get(run.topics[t], -1) for t in run.topic_ids])
    docnos = [line.split()[2].encode() for line in runs[1].read_text().splitlines()]
    expected = [judged.judged[c].get(d) if c >= 0 else None for c, d in zip(codes, docnos)]
    table = trec_eval_arrow.QrelsTable(judged)
    strong = trec_eval_arrow.pair_hash

    def broken(words, topic_codes):
        hashes = strong(words, topic_codes)
        return np.where(np.isin(hashes, table.hashes), hashes, table.hashes[0])

    monkeypatch.setattr(trec_eval_arrow, "pair_hash", broken)
    assert sum(e is None for e in expected) >= 10  # rows that collide with the qrels' first pair
    found = table.find(run.docno_words, codes)
    assert [None if f < 0 else int(table.grades[f]) for f in found] == expected
    monkeypatch.setattr(trec_eval_arrow, "pair_hash", lambda words, codes: np.zeros(len(codes), np.uint64))
    assert not trec_eval_arrow.QrelsTable(judged).usable
    judged = read_qrels(qrels)
    assert trec_eval_arrow.read_run(runs[0], judged) is None
    texts = [trec_eval_cli.evaluate_files(qrels, runs, ["all_trec"], reader=r) for r in ("bytes", "arrow")]
    assert texts[0] == texts[1]


def test_many_runs_import_no_pandas(tmp_path):
    """pyarrow's Array.to_numpy and pa.array(list) import pandas (0.15 s) on first use: the reader avoids both."""
    qrels, runs = write_collection(tmp_path, 6, n_runs=4)
    code = ("import sys; from evalkit.trec_eval import cli as c;"
            f"c.evaluate_files({str(qrels)!r}, {[str(p) for p in runs]!r}, reader='arrow');"
            "print('pyarrow' in sys.modules, sorted(m for m in ('pandas', 'scipy', 'matplotlib') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "True []"
