"""The span reader of the trec_eval command line (evalkit.trec_eval.reader: fields found as byte spans by numpy,
docnos as integer words, scores parsed exactly, a hash table of the qrels) against the general reader
(evalkit.trec_eval.rankings, which splits every line; checked line for line against NIST trec_eval in
test_trec_eval_cli.py) and against trec_eval 10.0 itself, on files built to be awkward: docnos of 1 to 30 bytes that
are prefixes of one another, many score ties, topics out of strcmp order or interleaved, unsorted scores, topics
missing on either side, CRLF lines, non-ASCII docnos, duplicates; and its parts (fields, words, numbers) against
Python's own reading."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from test_trec_eval_cli import assert_same_text, ours, theirs
from trec_eval_builds import build

from evalkit.errors import TrecFormatError
from evalkit.trec_eval import cli as trec_eval_cli
from evalkit.trec_eval import reader as trec_eval_reader
from evalkit.trec_eval import workers as trec_eval_workers
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
def test_span_reader_equals_the_general_reader(tmp_path, seed, version):
    qrels, runs = write_collection(tmp_path, seed, crlf=seed == 2)
    judged = trec_eval_reader.read_qrels(qrels)
    assert judged is not None  # the span path really ran, for the qrels and every run
    assert all(trec_eval_reader.read_run(p, judged) is not None for p in runs)
    general = read_qrels(qrels)
    assert judged.topics == general.topics and judged.judged == general.judged
    assert (judged.levels == general.levels).all() and judged.positive_total == general.positive_total
    for measures in OPTIONS:
        for extra in ({}, {"complete": True}, {"max_docs": 7}, {"judged_only": True}):
            texts = [trec_eval_cli.evaluate_files(qrels, runs, measures, version=version, per_topic=True,
                                                  full_precision=True, reader=reader, **extra)
                     for reader in ("general", "spans")]
            assert texts[0] == texts[1], (measures, extra)
            assert texts[0].count("runid") == len(runs)


def test_many_runs_through_the_front_door_equal_trec_eval(tmp_path, tmp_path_factory):
    """The console entry with several runs (read in threads) against one trec_eval 10.0 process per run."""
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
    assert trec_eval_reader.read_run(duplicate, judged) is None
    spaced = tmp_path / "spaced"  # two blanks between fields: the general path
    spaced.write_text(runs[2].read_text().replace(" Q0 ", "  Q0 "))
    assert trec_eval_reader.read_run(accented, judged) is not None  # non-ASCII bytes are bytes like any other
    assert trec_eval_reader.read_run(spaced, judged) is None
    mixed = [accented, spaced] + runs[1:]
    assert trec_eval_cli.evaluate_files(qrels, mixed, ["all_trec"], reader="spans") == \
        trec_eval_cli.evaluate_files(qrels, mixed, ["all_trec"], reader="general")
    with pytest.raises(TrecFormatError, match="listed twice"):
        trec_eval_cli.evaluate_files(qrels, runs[:2] + [duplicate], reader="spans")


def test_irregular_qrels_are_read_the_general_way_and_runs_still_by_spans(tmp_path):
    """A qrels file the span reader declines (a comment line, non-ASCII docnos): the general reader's per-topic
    dicts give the runs' table on first use."""
    qrels, runs = write_collection(tmp_path, 4, n_runs=4)
    qrels.write_text("# judged by hand\n" + qrels.read_text() + "9 0 Dé1 1\n")
    assert trec_eval_reader.read_qrels(qrels) is None
    judged = read_qrels(qrels)
    assert trec_eval_reader.qrels_table(judged).usable
    assert trec_eval_reader.read_run(runs[0], judged) is not None
    texts = [trec_eval_cli.evaluate_files(qrels, runs, ["all_trec"], reader=r) for r in ("general", "spans")]
    assert texts[0] == texts[1]


def assert_errors_keep_their_order(tmp_path, qrels, runs):
    """A bad qrels file is reported before any run; of a bad score (run 1 or 2) and a missing run (the other), the
    earlier in order is reported, as one run after another would. Returns the missing run's path."""
    bad_qrels = tmp_path / "bad_qrels"
    bad_qrels.write_text(qrels.read_text() + "9 0 onlyfour\n")
    missing, bad_score = tmp_path / "missing", tmp_path / "bad_score"
    lines = runs[2].read_text().splitlines()
    fields = lines[3].split()
    fields[4] = "0x1p3"
    bad_score.write_text("\n".join(lines[:3] + [" ".join(fields)] + lines[4:]) + "\n")
    with pytest.raises(TrecFormatError, match="bad_qrels:"):
        trec_eval_cli.evaluate_files(bad_qrels, [runs[0], missing, bad_score] + runs[3:], reader="spans")
    with pytest.raises(TrecFormatError, match="bad_score:4: score '0x1p3'"):
        trec_eval_cli.evaluate_files(qrels, [runs[0], bad_score, missing] + runs[3:], reader="spans")
    with pytest.raises(TrecFormatError, match="missing: cannot read"):
        trec_eval_cli.evaluate_files(qrels, [runs[0], missing, bad_score] + runs[3:], reader="spans")
    return missing


def test_runs_are_parsed_while_the_qrels_are_read_and_errors_keep_their_order(tmp_path, monkeypatch):
    """With several runs (and CPUs) the runs are parsed in threads while the qrels are read (the qrels reader below
    waits until a run has been parsed: read one after the other, it would wait in vain); the text is the general
    reader's, and errors come as trec_eval's order has them: the qrels' first, then the first bad run in order."""
    import threading

    qrels, runs = write_collection(tmp_path, 5, n_runs=6)
    expected = trec_eval_cli.evaluate_files(qrels, runs, ["all_trec"], reader="general")
    parsed, waited = threading.Event(), []
    run_read, qrels_read = trec_eval_reader.read_run, trec_eval_reader.read_qrels

    def read_run(*args, **kwargs):
        run = run_read(*args, **kwargs)
        parsed.set()
        return run

    def read_qrels_after_a_run(*args, **kwargs):
        waited.append(parsed.wait(10))
        return qrels_read(*args, **kwargs)

    monkeypatch.setattr(trec_eval_reader, "read_run", read_run)
    monkeypatch.setattr(trec_eval_reader, "read_qrels", read_qrels_after_a_run)
    monkeypatch.setattr(trec_eval_workers, "usable_cpus", lambda: 2)
    monkeypatch.setattr(trec_eval_workers, "how_to_share", lambda paths: "threads")  # (not Linux, or a threaded caller)
    assert trec_eval_cli.evaluate_files(qrels, runs, ["all_trec"], reader="spans") == expected
    assert waited == [True]

    assert_errors_keep_their_order(tmp_path, qrels, runs)



@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="runs are scored in forked processes on Linux")
def test_several_runs_are_scored_in_forked_processes_and_errors_keep_their_order(tmp_path, monkeypatch):
    """With two CPUs, runs 0, 2, 4 are scored in this process and 1, 3, 5 in a forked one (their pids show it);
    the text is the general reader's, in the runs' order. Errors come as one after another would raise them: the
    qrels' first, then the first bad run in order, whichever process met it."""
    import os

    qrels, runs = write_collection(tmp_path, 5, n_runs=6)
    expected = trec_eval_cli.evaluate_files(qrels, runs, ["all_trec"], reader="general")
    monkeypatch.setattr(trec_eval_workers, "usable_cpus", lambda: 2)
    import threading

    if threading.active_count() > 1:  # a thread left by an earlier test: the command itself runs none
        assert trec_eval_workers.how_to_share(runs) == "threads"  # (a caller with threads is not forked)
        monkeypatch.setattr(threading, "active_count", lambda: 1)
    assert trec_eval_workers.how_to_share(runs) == "fork"
    assert trec_eval_workers.how_to_share(runs[:1]) is None
    assert trec_eval_workers.how_to_share(["-"] + runs[1:]) == "threads"
    pids = tmp_path / "pids"
    run_read = trec_eval_reader.read_run

    def read_run(path, *args, **kwargs):
        with open(pids, "a") as out:
            out.write(f"{path.name if hasattr(path, 'name') else path} {os.getpid()}\n")
        return run_read(path, *args, **kwargs)

    monkeypatch.setattr(trec_eval_reader, "read_run", read_run)
    assert trec_eval_cli.evaluate_files(qrels, runs, ["all_trec"], reader="spans") == expected
    by_run = dict(line.split() for line in pids.read_text().splitlines())
    assert {by_run[r.name] for r in runs[0::2]} == {str(os.getpid())}
    assert len({by_run[r.name] for r in runs[1::2]}) == 1 and by_run[runs[1].name] != str(os.getpid())

    # with two processes, index 1 is the worker's and index 2 this process's: the earlier one raises either way round
    missing = assert_errors_keep_their_order(tmp_path, qrels, runs)
    with pytest.raises(TrecFormatError, match="missing: cannot read"):
        trec_eval_cli.evaluate_files(qrels, runs[:5] + [missing], reader="spans")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="runs are scored in forked processes on Linux")
def test_a_worker_that_dies_has_its_runs_scored_by_the_command(tmp_path, monkeypatch):
    """A forked worker killed before it sends its results (here: it exits at its first run) costs time, not text:
    its runs are scored in the command's own process, and no worker is left behind."""
    import os

    import threading

    qrels, runs = write_collection(tmp_path, 6, n_runs=5)
    expected = trec_eval_cli.evaluate_files(qrels, runs, ["all_trec"], reader="general")
    monkeypatch.setattr(trec_eval_workers, "usable_cpus", lambda: 2)
    monkeypatch.setattr(threading, "active_count", lambda: 1)  # as the command (a thread left by another test)
    parent, run_read = os.getpid(), trec_eval_reader.read_run

    def read_run(*args, **kwargs):
        if os.getpid() != parent:
            os._exit(9)
        return run_read(*args, **kwargs)

    forked, fork = [], os.fork

    def recorded_fork():
        pid = fork()
        if pid:
            forked.append(pid)
        return pid

    monkeypatch.setattr(trec_eval_reader, "read_run", read_run)
    monkeypatch.setattr(os, "fork", recorded_fork)
    assert trec_eval_cli.evaluate_files(qrels, runs, ["all_trec"], reader="spans") == expected
    assert len(forked) == 1
    with pytest.raises(ChildProcessError):
        os.waitpid(forked[0], os.WNOHANG)  # the worker was waited for: nothing is left of it


def test_one_run_or_one_cpu_keeps_the_errors_order(tmp_path, monkeypatch):
    """Read in this thread, a run is parsed before the qrels (one run's memory peaks lower so), yet a bad qrels file
    is still reported before a run that cannot be read, and the first bad run in order wins."""
    qrels, runs = write_collection(tmp_path, 8, n_runs=3)
    bad_qrels, missing = tmp_path / "bad_qrels", tmp_path / "missing"
    bad_qrels.write_text(qrels.read_text() + "9 0 onlyfour\n")
    monkeypatch.setattr(trec_eval_workers, "usable_cpus", lambda: 1)
    for paths in ([missing], [runs[0], missing]):
        with pytest.raises(TrecFormatError, match="bad_qrels:"):
            trec_eval_cli.evaluate_files(bad_qrels, paths)
    with pytest.raises(TrecFormatError, match="missing: cannot read"):
        trec_eval_cli.evaluate_files(qrels, [runs[0], missing, bad_qrels])
    assert trec_eval_cli.evaluate_files(qrels, runs) == trec_eval_cli.evaluate_files(qrels, runs, reader="general")


def test_one_run_is_read_in_one_thread(tmp_path, monkeypatch):
    """One run: no thread pool (nothing to overlap), and nothing imported that one run does not use."""
    qrels, runs = write_collection(tmp_path, 6, n_runs=1)
    code = ("import sys; from evalkit.trec_eval import cli as c;"
            f"c.main([{str(qrels)!r}, {str(runs[0])!r}]);"
            "print(sorted(m for m in ('concurrent.futures', 'pyarrow', 'pandas', 'dataclasses', 'shutil', 'scipy')"
            " if m in sys.modules), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stderr.strip() == "[]"


def test_padded_words_order_is_strcmp_and_they_read_back():
    docnos = [b"b", b"a", b"ab", b"a\x01", b"abcdefgh", b"abcdefgh0", b"abcdefg", b"zzzzzzzzzzzzzzzzzz", b"\xc3\xa9",
              b"x" * 25, b"y"]  # the last ones end the buffer: their words reach past it
    text = b"".join(docnos)
    ends = np.cumsum([len(d) for d in docnos])
    raw = np.frombuffer(text, np.uint8)
    words = trec_eval_reader.padded_words(raw, ends - [len(d) for d in docnos], ends)
    assert words.shape == (len(docnos), 4)
    by_words = sorted(range(len(docnos)), key=lambda i: tuple(words[i]))
    assert [docnos[i] for i in by_words] == sorted(docnos)
    assert trec_eval_reader.words_bytes(words) == docnos


def test_numbers_are_read_as_python_reads_them():
    """Scores: every plain decimal form (signs, no digits before or after the point, trailing zeros, up to 30
    digits, halfway cases between two doubles), exponents and the forms float() alone accepts, bit for bit;
    what float() refuses is refused."""
    rng = np.random.default_rng(3)
    texts = []
    for _ in range(20000):
        whole = "".join(map(str, rng.integers(0, 10, int(rng.integers(0, 20)))))
        fraction = "".join(map(str, rng.integers(0, 10, int(rng.integers(0, 25)))))
        text = rng.choice(["", "-", "+"]) + whole + ("." + fraction if rng.random() < 0.8 or not whole else "")
        texts.append(text + "0" * int(rng.choice([0, 0, 3, 20])) if any(c.isdigit() for c in text) else "0")
    texts += ["9007199254740993", "9007199254740993.000", "0.1", "-0", "-0.0", "+.5", "5.", "1e5", "-1.5E-3", "inf",
              "-nan", "1_0", "4.9e-324", "1.7976931348623157e308", "123456789012345678901234567890",
              "0.000000000000000000000000001", "2.2250738585072011e-308", str(2**63 - 1), "72057594037927945",
              # extended precision rounds these onto a halfway point between two doubles (read by float())
              "72220.7126563695565", "227.500031283648255", "4933175.2231289302", "-8.4305907040044330",
              "0.0000506316607206705925", "2948686491.59115386"]
    lines = "".join(f"1 Q0 d{i} 1 {t} r\n" for i, t in enumerate(texts)).encode()
    fields = trec_eval_reader.regular_fields(lines, 6)
    got = trec_eval_reader.parse_floats(lines, fields.raw, *fields.span(4))
    expected = np.array([float(t) for t in texts])
    assert np.array_equal(got.view(np.uint64)[~np.isnan(expected)], expected.view(np.uint64)[~np.isnan(expected)])
    assert np.isnan(got[np.isnan(expected)]).all()
    for bad in ("0x1p3", "1.5e", "1..2", "--1", "1e5.0", "."):
        line = f"1 Q0 d 1 {bad} r\n".encode()
        fields = trec_eval_reader.regular_fields(line, 6)
        assert trec_eval_reader.parse_floats(line, fields.raw, *fields.span(4)) is None, bad


@pytest.mark.parametrize("text, regular", [
    (b"1 Q0 a 1 2 r\n2 Q0 b 1 2 r", True),  # no newline at the end
    (b"1\tQ0\ta\t1\t2\tr\r\n2\tQ0\tb\t1\t2\tr\r\n", True),
    (b"1 Q0 a 1 2 r\n\n2 Q0 b 1 2 r\n", False),  # a blank line
    (b"# c\n1 Q0 a 1 2 r\n", False),
    (b"1 Q0 a 1 2 r x\n", False),  # a seventh field
    (b"1 Q0 a 1 2\n", False),
    (b"1 Q0 a 1 2 r\r\n2 Q0 b 1 2 r\n", False),  # one CRLF line only
    (b"1 Q0 a\t1 2 r\n", False),
    (b" 1 Q0 a 1 2 r\n", False),
    (b"1 Q0 a 1 2 r \n", False),
])
def test_regular_files_only_take_the_span_path(text, regular):
    fields = trec_eval_reader.regular_fields(text, 6)
    assert (fields is not None) == regular
    if regular:
        starts, ends = fields.span(2)
        assert [text[a:b] for a, b in zip(starts, ends)] == [b"a", b"b"]
        starts, ends = fields.span(5)
        assert [text[a:b] for a, b in zip(starts, ends)] == [b"r", b"r"]


def test_a_hash_collision_is_never_a_match(tmp_path, monkeypatch):
    """With a deliberately broken hash (every pair that is not judged hashes like the qrels' first pair), lookups
    still equal a dict's: a match is confirmed on the words. If the qrels' own pairs collide, the table declines
    and the general path reads every run."""
    qrels, runs = write_collection(tmp_path, 5, n_runs=4)
    judged = read_qrels(qrels)
    run = trec_eval_reader.read_run(runs[1], judged)  # read with the real hash (the table from the dicts)
    index = judged.index()
    codes = np.array([index.get(run.topics[t], -1) for t in run.topic_ids])
    docnos = [line.split()[2].encode() for line in runs[1].read_text().splitlines()]
    expected = [judged.judged[c].get(d) if c >= 0 else None for c, d in zip(codes, docnos)]
    table = trec_eval_reader.QrelsTable.from_judged(judged)
    strong = trec_eval_reader.pair_hash

    def broken(words, topic_codes):
        hashes = strong(words, topic_codes)
        return np.where(np.isin(hashes, table.hashes), hashes, table.hashes[0])

    monkeypatch.setattr(trec_eval_reader, "pair_hash", broken)
    assert sum(e is None for e in expected) >= 10  # rows that collide with the qrels' first pair
    found = table.find(run.docno_words, codes)
    assert [None if f < 0 else int(table.grades[f]) for f in found] == expected
    monkeypatch.setattr(trec_eval_reader, "pair_hash", lambda words, codes: np.zeros(len(codes), np.uint64))
    assert not trec_eval_reader.QrelsTable.from_judged(judged).usable
    assert trec_eval_reader.read_qrels(qrels) is None  # the span reader declines such qrels too
    judged = read_qrels(qrels)
    assert trec_eval_reader.read_run(runs[0], judged) is None
    texts = [trec_eval_cli.evaluate_files(qrels, runs, ["all_trec"], reader=r) for r in ("general", "spans")]
    assert texts[0] == texts[1]


def test_many_runs_import_no_pandas_nor_pyarrow(tmp_path):
    qrels, runs = write_collection(tmp_path, 6, n_runs=4)
    code = ("import sys; from evalkit.trec_eval import cli as c;"
            f"c.evaluate_files({str(qrels)!r}, {[str(p) for p in runs]!r});"
            "print(sorted(m for m in ('pandas', 'scipy', 'matplotlib', 'pyarrow') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_an_underscore_sends_only_a_number_column_to_the_general_path(tmp_path):
    """'_' in a run tag or a docno is common and keeps the span reader; in a score or a grade (C reads 2_0 as 2,
    Python as 20) the span reader declines and the general reader refuses the line by name."""
    run = tmp_path / "run"
    run.write_text("401 Q0 DOC_1 1 2.5 my_run\n401 Q0 DOC_2 2 1.5 my_run\n")
    assert trec_eval_reader.read_run(run) is not None
    run.write_text("401 Q0 DOC_1 1 2_5 my_run\n")
    assert trec_eval_reader.read_run(run) is None
    qrels = tmp_path / "qrels"
    qrels.write_text("401 0 DOC_1 1\n401 0 DOC_2 0\n")
    assert trec_eval_reader.read_qrels(qrels) is not None
    qrels.write_text("401 0 DOC_1 1_0\n")
    assert trec_eval_reader.read_qrels(qrels) is None
    with pytest.raises(TrecFormatError, match="relevance '1_0' is not a number"):
        read_qrels(qrels)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="runs are scored in forked processes on Linux")
def test_a_worker_dies_with_a_command_that_is_killed(tmp_path):
    """SIGTERM or SIGKILL end the command without its ``finally``: its forked worker must not go on scoring its
    share as an orphan (here each run takes 0.3 s, so the worker's share would take 1.5 s)."""
    import signal
    import time

    qrels, runs = write_collection(tmp_path, 7, n_runs=10)
    code = ("import sys, time; from evalkit.trec_eval import cli, reader, workers;"
            "workers.usable_cpus = lambda: 2; read = reader.read_run;"
            "reader.read_run = lambda *a, **k: (time.sleep(0.3), read(*a, **k))[1];"
            f"cli.evaluate_files({str(qrels)!r}, {[str(p) for p in runs]!r})")
    for sig in (signal.SIGTERM, signal.SIGKILL):
        command = subprocess.Popen([sys.executable, "-c", code])
        worker = None
        for _ in range(100):  # the worker, once forked (after the imports and the qrels)
            time.sleep(0.05)
            children = open(f"/proc/{command.pid}/task/{command.pid}/children").read().split()
            if children:
                worker = int(children[0])
                break
        assert worker is not None
        command.send_signal(sig)
        command.wait()
        time.sleep(0.3)
        try:
            state = open(f"/proc/{worker}/stat").read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            state = "gone"
        assert state in ("gone", "Z"), (sig, state)  # dead (a zombie until init reaps it), not running


def test_the_command_tunes_its_allocator_for_several_runs_only_in_its_own_process(tmp_path, monkeypatch):
    """``keep_freed_memory`` is asked for by the console script (``own_process``) with two or more run files; never
    for one run (its peak memory is a target) nor for a caller's process (``main`` called from Python), and the text
    is the same either way."""
    qrels, runs = write_collection(tmp_path, 9, n_runs=3)
    asked = []
    monkeypatch.setattr(trec_eval_workers, "keep_freed_memory", lambda: asked.append(True) or True)
    texts = {}
    for own, paths in ((False, runs), (True, runs[:1]), (True, runs)):
        asked.clear()
        code = ("import sys; from evalkit.trec_eval import cli; "
                f"sys.exit(cli.main({[str(qrels), *map(str, paths)]!r}, own_process={own}))")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)  # the real setting, in
        # a process of its own
        assert trec_eval_cli.main([str(qrels), *map(str, paths)], own_process=own) == 0  # here: only asked for
        assert asked == ([True] if own and len(paths) > 1 else []), (own, len(paths))
        texts[own, len(paths)] = out.stdout
    assert texts[True, 3] == texts[False, 3]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt and mallinfo2")
def test_keep_freed_memory_serves_large_arrays_from_the_heap():
    """After ``keep_freed_memory`` a 4 MB array is no longer a memory mapping of its own (glibc's count of mapped
    chunks, ``mallinfo2().hblks``, stays put), as it is with glibc's defaults. Each in a fresh process: the setting
    is process-wide, and glibc raises its threshold by itself after the first mapped chunk is freed."""
    code = """
import ctypes, sys
import numpy as np
from evalkit.trec_eval import workers

class Info(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]

libc = ctypes.CDLL(None)
if not hasattr(libc, "mallinfo2"):
    print("no mallinfo2"); sys.exit(0)
libc.mallinfo2.restype = Info
took = workers.keep_freed_memory() if sys.argv[1] == "tuned" else None
before = libc.mallinfo2().hblks
array = np.ones(1 << 19)  # 4 MB
print(took, libc.mallinfo2().hblks - before)
"""
    seen = {}
    for how in ("default", "tuned"):
        out = subprocess.run([sys.executable, "-c", code, how], capture_output=True, text=True, check=True)
        seen[how] = out.stdout.split()
    if seen["default"] == ["no", "mallinfo2"]:
        pytest.skip("a C library without mallinfo2 (not glibc 2.33 or later)")
    assert seen == {"default": ["None", "1"], "tuned": ["True", "0"]}
