"""The trec_eval drop-in (evalkit.trec_eval.cli) against NIST trec_eval built from source: printed text, line for
line, on trec_eval's own test files, edge cases and the TREC-8 runs, for 10.0 (double-precision ties) and 9.0.8
(single-precision ties); also full-precision (%.17g) builds, so agreement is bit for bit, not only to 4 digits."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import TREC8
from trec_eval_builds import build, run, source

from evalkit.trec_eval import cli as trec_eval_cli

# issue 12: six TREC-8 runs whose order differs between double- and single-precision score ties
TIE_RUNS = ["uwmt8a0", "Dm8Nbn", "Dm8NbnR", "ibmg99a", "ibmg99c", "UB99T"]


@pytest.fixture(scope="session")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("trec_eval_builds")


def ours(*argv, stdin: bytes | None = None) -> tuple[int, str, str]:
    """Our CLI in this process (the same main() the console script calls): (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = trec_eval_cli.main([str(a) for a in argv])
    finally:
        sys.stdin = old_stdin
    return code, out.getvalue(), err.getvalue()


def theirs(binary, *argv, stdin: bytes | None = None) -> tuple[int, str]:
    done = run(binary, *argv, stdin=stdin)
    return done.returncode, done.stdout.decode()


def assert_same_text(mine: str, reference: str, what: str) -> None:
    a, b = mine.splitlines(), reference.splitlines()
    for i, (x, y) in enumerate(zip(a, b)):
        assert x == y, f"{what}: line {i + 1} differs:\n  ours:      {x!r}\n  trec_eval: {y!r}"
    assert len(a) == len(b), f"{what}: {len(a)} lines, trec_eval printed {len(b)}"
    assert len(b) > 0


OPTION_SETS = [
    [],
    ["-q", "-m", "all_trec"],
    ["-q", "-c", "-m", "all_trec"],
    ["-q", "-J", "-m", "official", "-m", "ndcg", "-m", "infAP"],
    ["-q", "-M", "5", "-l", "2", "-m", "all_trec"],
    ["-n", "-q", "-m", "P.3,7", "-m", "ndcg.1=0.5,2=4", "-m", "utility.2,-1,0,0", "-m", "iprec_at_recall.0.33,.5",
     "-m", "G.1=0.5,2=4", "-m", "Rndcg.1=2", "-m", "relstring.15", "-m", "set_F.0.5", "-m", "11pt_avg.0.2,0.5,0.8"],
]


@pytest.mark.parametrize("version", ["10.0", "9.0.8"])
@pytest.mark.parametrize("full", [False, True], ids=["stock", "full-precision"])
def test_trec_eval_test_files(version, full, scratch):
    """trec_eval's own test files (binary and graded qrels, comments, truncated runs, string topics)."""
    binary = build(version, scratch, full_precision=full)
    test = source(version) / "test"
    pairs = [("qrels.test", "results.test"), ("qrels.rel_level", "results.test"), ("qrels.test", "results.trunc")]
    if version == "10.0":
        pairs += [("qrels.test.with-comments", "results.test"), ("qrels.comment.test", "results.comment.test"),
                  ("qrels-302.test", "results-302.test")]
    compared = 0
    for qrels, results in pairs:
        for options in OPTION_SETS + ([["-m", "all_trec", "-m", "rbp.p=0.5", "-m", "dcg"]]
                                      if version == "10.0" else []):
            code, reference = theirs(binary, *options, test / qrels, test / results)
            if code != 0:  # 10.0 exits 4 when the run lacks a qrels topic: the kit's documented difference
                assert version == "10.0" and "-c" not in options
                continue
            argv = ["--trec-eval-version", version, *options, test / qrels, test / results]
            if full:
                text = trec_eval_cli.evaluate_files(
                    test / qrels, [test / results], [options[i + 1] for i, o in enumerate(options) if o == "-m"],
                    version=version, per_topic="-q" in options, summary="-n" not in options,
                    complete="-c" in options, judged_only="-J" in options,
                    relevance_level=int(options[options.index("-l") + 1]) if "-l" in options else 1,
                    max_docs=int(options[options.index("-M") + 1]) if "-M" in options else None,
                    full_precision=True)
            else:
                rc, text, err = ours(*argv)
                assert rc == 0, err
            assert_same_text(text, reference, f"{version} {' '.join(options)} {qrels} {results}")
            compared += 1
    assert compared >= 10


def test_minimal_tie_case_both_versions(tmp_path, scratch):
    """Issue 12's minimal case: 10.0 orders 1.00000001 above 1.0 (map 0.5); 9.0.8 sees a tie, docno b first (1.0)."""
    qrels = tmp_path / "qrels"
    qrels.write_text("2 0 a 0\n2 0 b 1\n")
    results = tmp_path / "run"
    results.write_text("2 Q0 a 1 1.00000001 t\n2 Q0 b 2 1.0 t\n")
    for version, ties, expected in [("10.0", "float64", "0.5000"), ("9.0.8", "float32", "1.0000")]:
        code, reference = theirs(build(version, scratch), "-m", "map", qrels, results)
        assert reference == f"map                   \tall\t{expected}\n"
        rc, text, _ = ours("--trec-eval-version", version, "-m", "map", qrels, results)
        assert (rc, text) == (0, reference)
        rc, text, _ = ours("--ties", ties, "-m", "map", qrels, results)  # the tie mode alone decides
        assert text == reference
    import evalkit

    frame = evalkit.evaluate(str(qrels), [str(results)], ["AP"])
    assert frame[frame.topic == "all"].value.tolist() == [0.5]  # the API's default is trec_eval 10.0's
    frame = evalkit.evaluate(str(qrels), [str(results)], ["AP"], ties="float32")
    assert frame[frame.topic == "all"].value.tolist() == [1.0]
    from evalkit.data.collection import Collection
    from evalkit.data.trec_files import read_qrels, read_run

    built = Collection.from_runs([read_run(results)], read_qrels(qrels), ties="float32")
    assert evalkit.evaluate(None, built, ["AP"]).value.tolist() == [1.0, 1.0]  # the collection's own order
    with pytest.raises(ValueError, match="built with ties='float32'"):
        evalkit.evaluate(None, built, ["AP"], ties="float64")


def test_string_topics_missing_topics_and_several_runs(tmp_path, scratch):
    """String topic ids in strcmp order, topics missing on either side (-c), two runs in one process."""
    qrels = tmp_path / "qrels"
    qrels.write_text("b10 0 d1 1\nb9 0 d3 2\nb10 0 d2 0\nzz 0 d9 1\nb9 0 d1 0\nA 0 d4 1\n")  # interleaved
    run_a = tmp_path / "a"
    run_a.write_text("b9 Q0 d1 1 3 ra\nb9 Q0 d3 2 2 ra\nb10 Q0 d2 1 5 ra\nb10 Q0 d1 2 5 ra\nA Q0 d7 1 1 ra\n"
                     "x Q0 d1 1 1 ra\nzz Q0 d9 1 1 ra\n")
    run_b = tmp_path / "b"
    run_b.write_text("b10 Q0 d1 1 0.5 rb extra columns here\n\nb9 Q0 d3 1 0.25 rb\n")  # 9.0.8 reads no comments
    b9 = build("9.0.8", scratch)
    b10 = build("10.0", scratch)
    for options in (["-q", "-m", "all_trec"], ["-q", "-c", "-m", "all_trec"], ["-q", "-c", "-m", "official"]):
        for binary, version in ((b10, "10.0"), (b9, "9.0.8")):
            results = [theirs(binary, *options, qrels, r) for r in (run_a, run_b)]
            rc, mine, err = ours("--trec-eval-version", version, *options, qrels, run_a, run_b)
            assert rc == 0, err
            assert [x.split("\t")[2] for x in mine.splitlines() if x.startswith("runid")] == ["ra", "rb"]
            if version == "10.0" and "-c" not in options:
                # the runs lack qrels topic "zz"/"A": 10.0 exits 4 ("result qid ... not found in qrels"); the kit
                # scores the topics the run has, as 9.0.8 does (compared just below)
                assert [code for code, _ in results] == [0, 4]
                continue
            assert [code for code, _ in results] == [0, 0]
            assert_same_text(mine, "".join(text for _, text in results), f"{version} {options}")


def test_count_measures_are_summed_and_stdin(scratch):
    if not TREC8.is_dir():
        pytest.skip("TREC-8 data not found")
    import gzip

    data = gzip.decompress((TREC8 / "runs" / "input.1.gz").read_bytes())
    rc, text, _ = ours("-m", "num_rel", "-m", "num_q", TREC8 / "qrels.trec8.adhoc.txt", "-", stdin=data)
    assert rc == 0
    assert text.splitlines() == ["num_q                 \tall\t50", "num_rel               \tall\t4728"]


@pytest.mark.parametrize("argv, code, message", [
    (["-m", "mapp"], 1, "illegal measure 'mapp'"),
    (["-m", "xinfAP"], 1, "sample_eval.pl"),
    (["-m", "P.0"], 2, "Cannot initialize measure 'P': non-positive"),
    (["-m", "ndcg.1=x"], 2, "Cannot initialize measure 'ndcg': illegal parameters '1=x'"),  # atof would read 0
    (["-m", "P_avgjg"], 1, "illegal measure 'P_avgjg' (not available"),
    (["-R", "prefs"], 1, "prefs"),
    (["-R", "foo"], 2, "Illegal rel_format 'foo'"),
    (["-T", "foo"], 2, "Illegal retrieval results format 'foo'"),
    (["-Z", "zfile"], 1, "z-scores"),
])
def test_refusals(tmp_path, argv, code, message):
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n")
    results = tmp_path / "r"
    results.write_text("1 Q0 a 1 1 t\n")
    rc, out, err = ours(*argv, qrels, results)
    assert (rc, out) == (code, "")
    assert message in err


#: command lines as NIST trec_eval 10.0 reads them (getopt_long): options between and after the files, ``--``,
#: long options by a prefix, -n without -q (nothing printed), and the exit codes of measures it cannot initialize
#: and formats it does not know (2) against names it does not know (1)
COMMAND_LINES = [
    ["-n", "{q}", "{r}"],
    ["-n", "-m", "all_trec", "{q}", "{r}"],
    ["{q}", "-q", "{r}"],
    ["{q}", "-m", "map", "{r}", "-q", "-m", "P.5"],
    ["-q", "--", "{q}", "{r}"],
    ["--query", "--meas", "ndcg_cut.3", "{q}", "{r}"],
    ["--measure=recip_rank", "-qc", "{q}", "{r}"],
    ["-m", "P.0", "{q}", "{r}"],
    ["-m", "P.5,5", "{q}", "{r}"],
    ["-m", "P.abc", "{q}", "{r}"],
    ["-m", "ndcg_cut.0", "{q}", "{r}"],
    ["-m", "ndcg.a", "{q}", "{r}"],
    ["-m", "iprec_at_recall.0.5,0.5", "{q}", "{r}"],
    ["-m", "P.", "{q}", "{r}"],
    ["-m", "no_such_measure", "{q}", "{r}"],
    ["-T", "foo", "{q}", "{r}"],
    ["-R", "foo", "{q}", "{r}"],
    ["-q", "{q}"],
]


@pytest.mark.parametrize("argv", COMMAND_LINES, ids=[" ".join(a).replace("{q}", "Q").replace("{r}", "R")
                                                     for a in COMMAND_LINES])
def test_command_lines_as_trec_eval_reads_them(argv, scratch):
    test = source("10.0") / "test"
    argv = [a.format(q=test / "qrels.test", r=test / "results.test") for a in argv]
    code, reference = theirs(build("10.0", scratch), *argv)
    rc, out, err = ours(*argv)
    assert (rc, out) == (code, reference), err


def test_help_names_every_option_trec_eval_has():
    rc, out, err = ours("-h")
    assert (rc, err) == (0, "")
    assert out.startswith("Usage: trec_eval")
    shorts = re.findall(r"[a-zA-Z]", "hvqm:cl:nD:JN:M:R:T:oZ:")  # trec_eval.c's getopt string
    assert [s for s in shorts if f"-{s}" not in out] == []
    longs = re.findall(r'\{ "(\w+)", [01], 0, \'\w\' \}', (source("10.0") / "trec_eval.c").read_text())
    assert len(longs) == 15
    assert [name for name in longs if name not in ("Debug_level", "Zscore", "Output_old_results_format")
            and f"--{name}" not in out] == []


@pytest.mark.parametrize("text, line, fragment", [
    ("1 Q0 a 1 1 t\n1 Q0 a 2 0.5 t\n", 2, "listed twice"),
    ("1 Q0 a 1 high t\n", 1, "is not a number"),
    ("1 Q0 a 1\n", 1, "4 fields"),
    ("1 Q0 a 1 1 t\n1 Q0 b 2 nan t\n", 2, "score 'nan' is not a number trec_eval can rank by"),  # the span reader
    ("1 Q0 a 1 1 t\n1  Q0 b 2 -NaN t\n", 2, "score '-NaN' is not a number trec_eval can rank by"),  # the general one
])
def test_bad_runs_name_file_and_line(tmp_path, text, line, fragment):
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n")
    results = tmp_path / "r"
    results.write_text(text)
    rc, out, err = ours(qrels, results)
    assert (rc, out) == (2, "")
    assert f"{results}:{line}:" in err and fragment in err


def test_no_common_topics_exits_7(tmp_path):
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n")
    results = tmp_path / "r"
    results.write_text("2 Q0 a 1 1 t\n")
    rc, out, err = ours(qrels, results)
    assert (rc, out) == (7, "")
    assert "No queries with both results and relevance info" in err


def test_names():
    from evalkit.trec_eval.names import UnknownMeasure, select

    s = select(["P_10", "P_5", "map", "iprec_at_recall_0.10"])
    assert s.marked == {"P", "map", "iprec_at_recall"}
    assert s.params == {"P": "10,5", "iprec_at_recall": "0.10"}
    assert select(["P.5,10", "P.20"]).params == {"P": "5,10"}  # trec_eval: the first parameters given win
    official = [m.name for m in select(["official"]).measures()]
    assert official == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                        "recip_rank", "iprec_at_recall", "P"]
    ten = {m.name for m in select(["all_trec"], "10.0").measures()}
    nine = {m.name for m in select(["all_trec"], "9.0.8").measures()}
    assert ten - nine == {"unj", "rbp", "rbp_resid"}
    with pytest.raises(UnknownMeasure):
        select(["rbp"], "9.0.8")


def test_running_sum_in_topic_order():
    """Summaries add per-topic values in topic order like trec_eval's accumulators (a sequential sum), not
    numpy's pairwise sum, which differs in the last bits and so, sometimes, in the printed 4th digit."""
    from evalkit.trec_eval.output import _sequential_sum

    values = np.random.default_rng(1).random(1000) / 7
    total = 0.0
    for v in values.tolist():
        total += v
    assert _sequential_sum(values) == total
    assert np.sum(values) != total  # the pairwise sum differs here: the test would catch a switch to np.sum


def test_cli_imports_no_pandas_scipy_matplotlib_pyarrow():
    code = ("import sys, evalkit, evalkit.trec_eval.cli, evalkit.cli;"
            "print(sorted(m for m in ('pandas', 'scipy', 'matplotlib', 'pyarrow') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_console_scripts_through_the_front_door(tmp_path, scratch):
    """The installed ``trec_eval`` script and ``evalkit eval`` (trec_eval format chosen by the names)."""
    test = source("10.0") / "test"
    code, reference = theirs(build("10.0", scratch), "-q", test / "qrels.test", test / "results.test")
    bindir = Path(sys.executable).parent
    for command in ([bindir / "trec_eval", "-q"], [bindir / "evalkit", "eval", "-q", "-m", "official"]):
        if not Path(command[0]).exists():
            pytest.skip(f"{command[0]} not installed (pip install -e .)")
        done = subprocess.run([*map(str, command), test / "qrels.test", test / "results.test"],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert_same_text(done.stdout, reference, " ".join(map(str, command)))


def _started_reading(tmp_path, command, ignore_sigint=False):
    """``command`` started on a qrels file that is a FIFO, returned once it has opened the qrels (this side's open
    for writing returns then): past its start-up, blocked waiting for input. SIGINT at its default, as a terminal
    starts a command, or ignored, as ``nohup`` or a script's ``cmd &`` starts one."""
    import os
    import signal

    qrels = tmp_path / "qrels.fifo"
    os.mkfifo(qrels)
    run_file = tmp_path / "run.txt"
    run_file.write_text("1 Q0 d1 1 2.5 r\n1 Q0 d2 2 1.5 r\n")
    handler = signal.SIG_IGN if ignore_sigint else signal.SIG_DFL
    process = subprocess.Popen([*map(str, command), str(qrels), str(run_file)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, handler))
    return process, open(qrels, "w")


@pytest.mark.parametrize("script", ["trec_eval", "evalkit"])
def test_ctrl_c_ends_the_command_without_a_traceback(tmp_path, script):
    """Ctrl-C: the ``trec_eval`` script dies of SIGINT with nothing printed, as NIST trec_eval does; ``evalkit eval``
    prints its one line and exits 130. Neither prints Python's traceback."""
    import signal

    command = [Path(sys.executable).parent / script]
    if not command[0].exists():
        pytest.skip(f"{command[0]} not installed (pip install -e .)")
    if script == "evalkit":
        command += ["eval", "--format", "trec_eval"]
    process, writer = _started_reading(tmp_path, command)
    with writer:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    assert out == ""
    if script == "trec_eval":
        assert (process.returncode, err) == (-signal.SIGINT, "")
    else:
        assert (process.returncode, err) == (130, "evalkit: interrupted (SIGINT): stopped\n")


def test_a_sigint_started_ignored_stays_ignored(tmp_path):
    import signal

    command = [Path(sys.executable).parent / "trec_eval", "-m", "num_rel_ret"]
    if not command[0].exists():
        pytest.skip(f"{command[0]} not installed (pip install -e .)")
    process, writer = _started_reading(tmp_path, command, ignore_sigint=True)
    with writer:
        process.send_signal(signal.SIGINT)
        writer.write("1 0 d2 1\n")
    out, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (0, "")
    assert out.split() == ["num_rel_ret", "all", "1"]


def _trec8_runs(names=None):
    if not TREC8.is_dir():
        pytest.skip("TREC-8 data not found (set EVALKIT_DATA or place it at ../shared/data/trec8)")
    paths = sorted((TREC8 / "runs").glob("input.*.gz"))
    if names is not None:
        paths = [p for p in paths if p.name.removeprefix("input.").removesuffix(".gz") in names]
    return paths


@pytest.fixture(scope="session")
def trec8_plain(tmp_path_factory):
    """The TREC-8 runs decompressed once (trec_eval reads plain text only), in a scratch folder."""
    import gzip

    folder = tmp_path_factory.mktemp("trec8_runs")
    out = {}
    for path in _trec8_runs():
        target = folder / path.name.removesuffix(".gz")
        target.write_bytes(gzip.decompress(path.read_bytes()))
        out[path.name.removeprefix("input.").removesuffix(".gz")] = target
    return out


@pytest.mark.trec8
@pytest.mark.parametrize("version", ["10.0", "9.0.8"])
def test_trec8_all_runs_official_one_process(version, trec8_plain, scratch):
    """All 129 TREC-8 runs, -q official, in ONE process of ours against 129 trec_eval processes."""
    binary = build(version, scratch)
    qrels = TREC8 / "qrels.trec8.adhoc.txt"
    paths = list(trec8_plain.values())
    reference = "".join(theirs(binary, "-q", qrels, p)[1] for p in paths)
    rc, text, err = ours("--trec-eval-version", version, "-q", qrels, *paths)
    assert rc == 0, err
    assert_same_text(text, reference, f"TREC-8 {version} -q official")


@pytest.mark.trec8
@pytest.mark.parametrize("version", ["10.0", "9.0.8"])
def test_trec8_tie_runs_all_trec_full_precision(version, trec8_plain, scratch):
    """The six runs whose order depends on the tie mode (and two others), -q -m all_trec, bit for bit."""
    binary = build(version, scratch, full_precision=True)
    qrels = TREC8 / "qrels.trec8.adhoc.txt"
    paths = [trec8_plain[n] for n in TIE_RUNS + ["1", "READWARE"] if n in trec8_plain]
    assert len(paths) >= 6
    reference = "".join(theirs(binary, "-q", "-m", "all_trec", qrels, p)[1] for p in paths)
    for reader in ("general", "spans"):  # both readers (split lines; byte spans)
        text = trec_eval_cli.evaluate_files(qrels, paths, ["all_trec"], version=version, per_topic=True,
                                            full_precision=True, reader=reader)
        assert_same_text(text, reference, f"TREC-8 {version} -q all_trec %.17g, {reader} reader")


COMMENT_RUN = "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 c 1 1 t\n2 Q0 d 2 0.5 t\n"


@pytest.mark.parametrize("qrels_text", [
    "# judged by hand\n1 0 a 1\n1 0 b 0\n2 0 c 1\n",  # a header line
    "1 0 a 1\n# topic 2 next\n2 0 c 1\n1 0 b 0\n",  # a comment after a data line
    "# h\n1 0 a 1\n# x\n1 0 b 0\n# y\n2 0 c 1\n",  # a comment before each data line
    "1 0 a 1\n#3 0 c 1\n2 0 c 1\n",  # '#' as the first byte after a data line: skipped, even with 4 fields
], ids=["header", "after a data line", "between data lines", "topic-like"])
def test_qrels_comment_lines_trec_eval_10_skips_are_skipped(tmp_path, scratch, qrels_text):
    """The '#' lines trec_eval 10.0 skips in a qrels file (its first byte '#', right after a data line or first in
    the file): the kit prints what it prints."""
    qrels, results = tmp_path / "q", tmp_path / "r"
    qrels.write_text(qrels_text)
    results.write_text(COMMENT_RUN)
    for options in (["-q", "-c"], ["-q", "-m", "all_trec"]):
        code, reference = theirs(build("10.0", scratch), *options, qrels, results)
        assert code == 0
        rc, text, err = ours(*options, qrels, results)
        assert rc == 0, err
        assert_same_text(text, reference, f"{options} {qrels_text!r}")


@pytest.mark.parametrize("qrels_text, line, fragment, nist", [
    ("# judged by hand\n# second header\n1 0 a 1\n2 0 c 1\n", 2, "right after another", "Malformed"),
    ("# judged by hand\n# 0 x 1\n1 0 a 1\n2 0 c 1\n", 2, "right after another", "topic #"),
    ("1 0 a 1\n  # 0 x 1\n2 0 c 1\n", 2, "indented '#' line", "topic #"),
    ("1 0 a 1\n2 0 c 1\n# end\n", 3, "no data line after it", None),  # NIST reads past its buffer (a crash)
    ("1 0 a 1\n2 0 c 1\n# end", 3, "no data line after it", None),
    ("1 0 a 1\n2 0 c 1\n# end\n\n", 3, "no data line after it", "Malformed"),  # (its blank line)
    ("# a\n\n# b\n1 0 a 1\n2 0 c 1\n", 3, "right after another", "Malformed"),  # (its blank line)
])
def test_qrels_comment_lines_trec_eval_10_reads_as_data_are_refused(tmp_path, scratch, qrels_text, line, fragment,
                                                                    nist):
    """trec_eval 10.0 (get_qrels.c) skips a qrels line whose first byte is '#' and then reads the next line as data
    whatever it holds: a second '#' line in a row is data ('Malformed line', or a topic '#' if it has 4 fields), an
    indented '#' line is data, and a '#' line with nothing after it makes it read past the end of its buffer. The
    kit skipped them all; now it refuses them naming file and line (exit 2). The span reader declines every file
    with a '#' line, so the general reader decides for both."""
    qrels, results = tmp_path / "q", tmp_path / "r"
    qrels.write_text(qrels_text)
    results.write_text(COMMENT_RUN)
    if nist == "Malformed":
        assert theirs(build("10.0", scratch), qrels, results)[0] == 2
    elif nist == "topic #":
        code, reference = theirs(build("10.0", scratch), "-q", "-c", "-m", "num_rel", qrels, results)
        assert code == 0 and "\t#\t" in reference
    from evalkit.trec_eval import reader as trec_eval_reader

    assert trec_eval_reader.read_qrels(qrels) is None
    rc, out, err = ours("-c", qrels, results)
    assert (rc, out) == (2, "")
    assert f"{qrels}:{line}:" in err and fragment in err


def test_run_comment_lines_are_read_as_trec_eval_10_reads_them(tmp_path, scratch):
    """Runs (get_trec_results.c): any line whose first non-blank byte is '#' is a comment, indented, repeated or
    last; the kit already read them so (a check, not a fix)."""
    qrels, results = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    lines = COMMENT_RUN.splitlines(keepends=True)
    results.write_text("# h1\n# h2\n" + lines[0] + "  # indented\n\t#x Q0 a 1 1 u\n" + "".join(lines[1:]) +
                       "#3 Q0 c 1 9 v\n# last")
    for options in (["-q", "-c"], ["-q", "-m", "all_trec"]):
        code, reference = theirs(build("10.0", scratch), *options, qrels, results)
        rc, text, err = ours(*options, qrels, results)
        assert (rc, code) == (0, 0), err
        assert_same_text(text, reference, f"{options}")


@pytest.mark.parametrize("which, text, line, nist", [
    ("qrels", "# c\n1 0 a 1\n2 0 c 1\n", 1, "Malformed"),
    ("qrels", "1 0 a 1\n# 0 x 1\n2 0 c 1\n", 2, "data"),  # 9.0.8: a topic '#'
    ("run", "# c\n" + COMMENT_RUN, 1, "Malformed"),
    ("run", COMMENT_RUN + "# a b c d e\n", 5, "data"),  # 9.0.8: a topic '#' and runid 'e'
])
def test_comment_lines_are_refused_as_trec_eval_9_0_8(tmp_path, scratch, which, text, line, nist):
    """trec_eval 9.0.8 has no comment lines: '# c' is 'Malformed line' (exit 2) and a '#' line with enough fields is
    data. With --trec-eval-version 9.0.8 the kit skipped them as 10.0 does; now it refuses them (exit 2, file and
    line)."""
    files = {"qrels": tmp_path / "q", "run": tmp_path / "r"}
    files["qrels"].write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    files["run"].write_text(COMMENT_RUN)
    files[which].write_text(text)
    code, reference = theirs(build("9.0.8", scratch), "-m", "num_q", "-m", "runid", files["qrels"], files["run"])
    if nist == "Malformed":
        assert (code, reference) == (2, "")
    else:
        assert code == 0
    rc, out, err = ours("--trec-eval-version", "9.0.8", files["qrels"], files["run"])
    assert (rc, out) == (2, "")
    assert f"{files[which]}:{line}:" in err and "trec_eval 9.0.8 has no comment lines" in err
    rc, _, err = ours(files["qrels"], files["run"])  # 10.0 skips those two
    assert rc == 0, err


def test_extra_run_columns_as_trec_eval_9_0_8(tmp_path, scratch):
    """9.0.8, like 10.0, ignores what follows the runid (a check, not a fix)."""
    qrels, results = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    results.write_text("1 Q0 a 1 2 t extra 7\n1 Q0 b 2 1 t x\n2 Q0 c 1 1 t\n")
    code, reference = theirs(build("9.0.8", scratch), "-q", "-m", "all_trec", qrels, results)
    rc, text, err = ours("--trec-eval-version", "9.0.8", "-q", "-m", "all_trec", qrels, results)
    assert (rc, code) == (0, 0), err
    assert_same_text(text, reference, "9.0.8 extra columns")


@pytest.mark.parametrize("separator", [" ", "  "], ids=["span reader", "general reader"])
def test_a_topic_with_no_grade_at_least_0(tmp_path, scratch, separator):
    """form_res_rels.c sizes a topic's counts per grade by its top grade + 1 (te_chk_and_malloc keeps the largest
    buffer so far): a topic with no grade >= 0 that comes first makes trec_eval (10.0 and 9.0.8) exit 4 "Can't
    calculate measure" with nothing printed, which the kit now does too (it printed numbers); later, a top grade of
    -1 leaves the previous topic's counts in place and -2 crashes (memset of a negative size): the kit exits 4 too,
    naming the topic and the qrels file. Both readers (a regular qrels, one with two blanks)."""
    qrels, results = tmp_path / "q", tmp_path / "r"
    results.write_text(COMMENT_RUN)
    cases = [("1 0 a -1\n1 0 b -2\n2 0 c 1\n", "'1'", True),  # the first topic scored
             ("1 0 a 1\n2 0 c -2\n2 0 d -5\n", "'2'", False),  # later, <= -2: trec_eval crashes
             ("1 0 a 1\n2 0 c -1\n", "'2'", False)]  # later, -1: trec_eval reads the previous topic's counts
    for text, topic, first in cases:
        qrels.write_text(text.replace(" ", separator))
        from evalkit.trec_eval import reader as trec_eval_reader

        assert (trec_eval_reader.read_qrels(qrels) is None) == (separator != " ")
        for version in ("10.0", "9.0.8"):
            if first:
                assert theirs(build(version, scratch), "-q", qrels, results) == (4, "")
            rc, out, err = ours("--trec-eval-version", version, "-q", qrels, results)
            assert (rc, out) == (4, ""), err
            assert f"topic {topic} of {qrels} has no grade >= 0" in err
    qrels.write_text("1 0 a 1\n3 0 c -1\n".replace(" ", separator))  # not in the run: not scored, unless -c
    code, reference = theirs(build("9.0.8", scratch), "-q", qrels, results)
    assert ours("--trec-eval-version", "9.0.8", "-q", qrels, results)[:2] == (code, reference)
    assert ours("-q", "-c", qrels, results)[0] == 4
    from evalkit.trec_eval import rankings

    judged = rankings.rank(rankings.read_run(results), rankings.read_qrels(qrels), complete=True)
    assert judged.topics == ["1", "3"]  # the kit's own callers (evalkit.evaluate) still score such a topic


@pytest.mark.parametrize("text, line, grade, atol", [
    ("1 0 a 1.5\n", 1, "1.5", 1),  # the span reader declines it, the general reader names it
    ("1 0 a 1\n1  0 b 1e2\n", 2, "1e2", 1),
    ("1 0 a -3.5\n", 1, "-3.5", -3),
])
def test_a_grade_that_is_not_an_integer_is_named_so(tmp_path, text, line, grade, atol):
    """A qrels grade like 1.5 or 1e2 is a number, but not an integer (trec_eval's atol reads its leading digits):
    the message said 'is not a number'."""
    qrels, results = tmp_path / "q", tmp_path / "r"
    qrels.write_text(text)
    results.write_text("1 Q0 a 1 1 t\n")
    rc, out, err = ours(qrels, results)
    assert (rc, out) == (2, "")
    assert f"{qrels}:{line}: relevance '{grade}' is not an integer (trec_eval's atol would read {atol})" in err


def _same_as_nist(tmp_path, scratch, qrels_text: str, run_text: str, option_sets, versions=("10.0",)) -> None:
    """Our stdout and exit code equal NIST's, both reading the same files on disk, for each option set."""
    qrels = tmp_path / "qrels"
    qrels.write_text(qrels_text)
    results = tmp_path / "run"
    results.write_text(run_text)
    for version in versions:
        binary = build(version, scratch)
        for options in option_sets:
            code, reference = theirs(binary, *options, qrels, results)
            assert code == 0, f"{version} {options}: trec_eval exit {code}"
            rc, text, err = ours("--trec-eval-version", version, *options, qrels, results)
            assert rc == 0, err
            assert_same_text(text, reference, f"{version} {' '.join(options)}")


# graded qrels with pooled-unjudged (-2) documents, a topic nothing relevant is retrieved for, a topic without
# relevant documents, runs with unpooled documents and score ties
GRADED_QRELS = ("1 0 a 2\n1 0 b 0\n1 0 c 1\n1 0 d -1\n1 0 e 3\n1 0 f 1\n2 0 a 0\n2 0 g 1\n2 0 h 2\n"
                "3 0 x 0\n3 0 y 0\n4 0 k 1\n4 0 m 1\n4 0 n -2\n4 0 p 2\n")
GRADED_RUN = ("1 Q0 zz 1 9 r\n1 Q0 c 2 8 r\n1 Q0 d 3 7 r\n1 Q0 a 4 7 r\n1 Q0 b 5 6 r\n1 Q0 e 6 1 r\n"
              "2 Q0 a 1 3 r\n2 Q0 q 2 2 r\n3 Q0 x 1 1 r\n3 Q0 z 2 0.5 r\n"
              "4 Q0 n 1 5 r\n4 Q0 m 2 4 r\n4 Q0 u 3 3 r\n4 Q0 p 4 2 r\n4 Q0 k 5 1 r\n")


def test_yaap_as_nist(tmp_path, scratch):
    """U3: yaap (m_yaap.c, in 10.0 and 9.0.8) was refused as 'not available'; it needs only ordinary qrels.
    Per-topic and summary lines, with -c, -l, -J, -M, and its place after num_nonrel_judged_ret; all_trec does
    not list it (checked by the all_trec tests, which would print an extra line)."""
    _same_as_nist(tmp_path, scratch, GRADED_QRELS, GRADED_RUN,
                  [["-q", "-m", "yaap"], ["-m", "yaap", "-m", "map"], ["-q", "-c", "-m", "yaap"],
                   ["-q", "-l", "2", "-m", "yaap"], ["-q", "-J", "-m", "yaap"], ["-q", "-M", "2", "-m", "yaap"],
                   ["-q", "-m", "yaap", "-m", "num_nonrel_judged_ret", "-m", "set_F", "-m", "Rndcg"],
                   ["-q", "-m", "all_trec", "-m", "yaap"]],
                  versions=("10.0", "9.0.8"))


def test_gains_for_negative_and_repeated_levels_as_nist(tmp_path, scratch):
    """U4, U5: gain_init.c's get_gain looks up any rel value, so a gain given to level -1 (RELVALUE_NONPOOL: retrieved,
    not in the qrels) or -2 (RELVALUE_UNJUDGED: a negative qrels grade) is the gain of such retrieved documents
    (no judged documents at those levels in the ideal ranking); the kit gave them 0. A level given two gains: the
    retrieved documents take the first entry of the list sorted by gain, the ideal ranking counts the documents at
    the first given; the kit took the last for both. Every gain measure (ndcg, dcg, ideal_dcg, ndcg_rel, Rndcg, G,
    rbp), with -J, -c and -M; also under 9.0.8 (its m_ndcg.c has the same lookup)."""
    sets = []
    for spec in ("-1=2", "-2=2", "-1=2,-2=3", "1=3,1=4", "1=4,1=3", "2=9,-1=1,1=3,1=1", "0=1,-1=0.5"):
        for measure in ("ndcg", "ndcg_rel", "Rndcg", "G"):
            sets.append(["-q", "-m", f"{measure}.{spec}"])
    sets += [["-q", "-J", "-m", "ndcg.-1=2", "-m", "ndcg_rel.1=4,1=3"], ["-q", "-M", "2", "-m", "G.-2=2"],
             ["-q", "-c", "-m", "ndcg.-1=2"]]
    _same_as_nist(tmp_path, scratch, GRADED_QRELS, GRADED_RUN, sets, versions=("10.0", "9.0.8"))
    # one of ndcg, dcg, ideal_dcg at a time: they share one PARAMS in m_ndcg.c, and NIST crashes freeing it twice
    ten = [["-q", "-m", "dcg.-1=2,-2=3"], ["-q", "-m", "ideal_dcg.-1=2,1=4,1=3"], ["-q", "-c", "-m", "dcg.1=4,1=3"],
           ["-q", "-m", "rbp.-1=2"], ["-q", "-m", "rbp.-2=0.5,1=1,1=0.25"]]  # rbp alone: see U6 in the docs
    _same_as_nist(tmp_path, scratch, GRADED_QRELS, GRADED_RUN, ten)
    # the stranger's case: qrels "1 0 c 2", run zz (3), c (2): NIST ndcg_-1=2 1.0418 and rbp_-1=2 0.1900
    _same_as_nist(tmp_path, scratch, "1 0 c 2\n", "1 Q0 zz 1 3 r\n1 Q0 c 2 2 r\n",
                  [["-q", "-m", "ndcg.-1=2"], ["-q", "-m", "rbp.-1=2"], ["-q", "-m", "ndcg.1=3,1=4"]])


def test_complete_scores_the_stand_in_ranking_as_nist(tmp_path, scratch):
    """U9: with -c, trec_eval.c evaluates a qrels topic the run lacks on the ranking 'ceci_nest_pas_un_docno'
    (score 1) through form_res_rels.c, then zeroes the values printed as num_ret, utility, relstring, rbp_resid and
    unj* (by name: utility_2,-1,0,0 and relstring_5 keep theirs). So -M0 leaves it no document (iprec_at_recall and
    11pt_avg -nan, as for a present topic), -J drops it unless judged, and qrels that judge that docno count it.
    The kit scored a fixed unjudged document and zeroed by prefix. Qrels read by the span reader (its hash table)
    and by the general one (a comment line: per-topic dicts)."""
    qrels = ("1 0 a 1\n1 0 b 0\n2 0 a 1\n2 0 b 2\n3 0 ceci_nest_pas_un_docno 1\n3 0 a 1\n"
             "4 0 ceci_nest_pas_un_docno 0\n4 0 b 1\n5 0 ceci_nest_pas_un_docno -1\n5 0 c 1\n")
    run = "1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n1 Q0 z 3 0.5 r\n"
    sets = [["-q", "-c", "-m", "all_trec"], ["-c", "-m", "all_trec"], ["-q", "-c", "-M", "0", "-m", "all_trec"],
            ["-c", "-M0", "-m", "iprec_at_recall.0.1", "-m", "11pt_avg"], ["-q", "-c", "-J", "-m", "all_trec"],
            ["-q", "-c", "-M", "1", "-J", "-m", "official"], ["-q", "-c", "-l", "2", "-m", "official"],
            ["-q", "-c", "-m", "relstring.5", "-m", "utility.2,-1,0,0", "-m", "rbp_resid.p=0.5", "-m", "unj.3",
             "-m", "num_ret", "-m", "yaap", "-m", "num_nonrel_judged_ret"]]
    _same_as_nist(tmp_path, scratch, qrels, run, sets)
    _same_as_nist(tmp_path, scratch, "# a header\n" + qrels, run, sets[:5])
