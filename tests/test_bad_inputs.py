"""The bad-input corpus (issue 11): awkward and broken run, qrels and dataset files, generated here, driven through
every front door: ``evalkit eval`` (the CLI's printed text and exit code, one process per group of cases plus the
real console script), ``evalkit.evaluate`` / ``read_run`` / ``read_qrels`` on the files, and ``load_dataset`` on a
directory.

Each case is either *accepted* (then every number equals pytrec_eval, fed by a line-by-line reading of the same
files as trec_eval 10.0 reads them; 4 decimals for the printed text) or *refused* (exit code 2, nothing on stdout,
one line on stderr: ``evalkit: error: <file>:<line>: <problem>``, the same message from the API, and no cache
entry left behind). Run ``python tests/test_bad_inputs.py`` for the tally: cases, clear errors, tracebacks, silent
wrong results, half-written states.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import evalkit
from evalkit.data.trec_files import TrecFormatError

TOOLS_TEST = Path(__file__).resolve().parents[2] / "shared" / "tools" / "trec_eval-10.0" / "test"
MEASURES = {"AP": "map", "P@10": "P_10", "nDCG": "ndcg", "Bpref": "bpref", "Rprec": "Rprec"}

QRELS = "401 0 d1 1\n401 0 d2 0\n401 0 d3 2\n401 0 d4 -1\n402 0 d1 0\n402 0 d5 1\n402 0 d8 1\n403 0 d9 1\n"
RUN = [("401", "d1", "3.5"), ("401", "d2", "2.5"), ("401", "d6", "1.75"), ("401", "d3", "1.5"),
       ("402", "d5", "2"), ("402", "d1", "1"), ("402", "d7", "0.5"), ("404", "d1", "1")]


def run_text(rows=RUN, sep=" ", tag="tagA", extra="", q0="Q0") -> str:
    return "".join(f"{t}{sep}{q0}{sep}{d}{sep}{i + 1}{sep}{s}{sep}{tag}{extra}\n" for i, (t, d, s) in enumerate(rows))


def with_score(token: str, row: int = 2) -> str:
    rows = list(RUN)
    rows[row] = (rows[row][0], rows[row][1], token)
    return run_text(rows)


def with_grade(token: str, line: int = 2) -> str:
    lines = QRELS.splitlines(keepends=True)
    lines[line - 1] = " ".join(lines[line - 1].split()[:3]) + f" {token}\n"
    return "".join(lines)


@dataclass
class Case:
    """One corpus entry: the files, and what must happen. ``error`` is the problem text after ``<file>:<line>: ``
    (``line`` None: a file-level problem); ``names`` says which file the message names (run, qrels, table, dir)."""

    id: str
    run: bytes | str | None = None
    qrels: bytes | str = QRELS
    error: str | None = None
    line: int | None = None
    names: str = "run"
    runs: dict[str, bytes | str] = field(default_factory=dict)  # extra run files
    gzip_run: bool = False
    gzip_qrels: bool = False
    table: str | None = None
    dataset_only: bool = False
    expected: dict | None = None  # hand-computed {measure: value} for one-topic cases pytrec_eval cannot take
    run_path: str | None = None  # instead of writing the run (missing file, a directory, ...)

    def __post_init__(self):
        if self.run is None and self.run_path is None:
            self.run = run_text()


def _cases() -> list[Case]:
    base = run_text()
    lines = base.splitlines()
    cases = [
        # ---------------------------------------------------------------- accepted: layouts trec_eval reads
        Case("plain"),
        Case("tabs", run_text(sep="\t")),
        Case("two spaces", run_text(sep="  ")),
        Case("mixed tabs and spaces", "".join(line.replace(" ", " \t", 2).replace(" ", "\t ", 1) + "\n"
                                              for line in lines)),
        Case("results.test layout (tab, padded score)",
             "".join("\t".join(f if i != 4 else f"  {float(f):.6f}" for i, f in enumerate(line.split())) + "\n"
                     for line in lines)),
        Case("leading and trailing blanks", "".join(f"  {line} \t \n" for line in lines)),
        Case("blank lines", "\n" + "\n\n".join(lines) + "\n\n"),
        Case("whitespace-only lines", "  \n" + "\n \t \n".join(lines) + "\n   \n"),
        Case("CRLF line ends", base.replace("\n", "\r\n"), qrels=QRELS.replace("\n", "\r\n")),
        Case("no final newline", base.rstrip("\n"), qrels=QRELS.rstrip("\n")),
        Case("vertical tab and form feed", base.replace(" Q0 ", "\x0bQ0\x0c")),
        Case("UTF-8 BOM in the run", "\ufeff" + base),
        Case("UTF-8 BOM in the qrels", qrels="\ufeff" + QRELS),
        Case("comment lines in the run", "# run by tagA\n" + "\n# middle\n".join(lines) + "\n#end"),
        Case("indented comment lines in the run", "   # indented\n" + base + "\t#x y z 1 2 t\n"),
        Case("comment lines in the qrels", qrels="# NIST\n" + QRELS + "# end\n#two in a row\n"),
        Case("extra columns after the tag", run_text(extra=" extra 7 8.5 x")),
        Case("rank field not a number", base.replace(" 1 3.5", " one 3.5").replace(" 2 2.5", " 1_0 2.5")),
        Case("Q0 field anything", run_text(q0="iter#0")),
        Case("score formats strtod reads alike", run_text([("401", "d1", "+3.5"), ("401", "d2", "2.5e0"),
                                                           ("401", "d6", "1.75000"), ("401", "d3", ".15E1"),
                                                           ("402", "d5", "2."), ("402", "d1", "0001"),
                                                           ("402", "d7", "-0"), ("404", "d1", "1e-400")])),
        Case("grade formats atol reads alike", qrels=QRELS.replace("401 0 d1 1", "401 0 d1 +1")
             .replace("401 0 d3 2", "401 0 d3 0002").replace("401 0 d2 0", "401 0 d2 -0")),
        Case("negative grades -1 and -3 are both unjudged", qrels=with_grade("-3", 2) + "401 0 d6 -7\n"),
        Case("grades 32768 and 65536 are grades", qrels=with_grade("32768", 1).replace("402 0 d5 1", "402 0 d5 65536")),
        Case("gzip run", gzip_run=True),
        Case("gzip qrels", gzip_qrels=True),
        Case("string topic ids and UTF-8 docnos",
             run_text([("q-α", "doc-é", "2"), ("q-α", "文書", "1"), ("T2", "d😀", "1")]),
             qrels="q-α 0 doc-é 0\nq-α 0 文書 1\nT2 0 d😀 2\nT2 0 x 1\n"),
        Case("sampled qrels (5 columns): standard measures on the grades",
             qrels="".join(f"{t} 0 {d} {1 + i % 2} {g}\n" for i, (t, _, d, g) in
                           enumerate(line.split() for line in QRELS.splitlines()))),
        Case("largest grade 2147483647 (hand-computed)", "401 Q0 d2 1 2.0 t\n401 Q0 d1 2 1.0 t\n",
             qrels="401 0 d1 2147483647\n401 0 d2 0\n",
             expected={"AP": 0.5, "P@10": 0.1, "nDCG": 1 / math.log2(3), "Bpref": 0.0, "Rprec": 0.0}),
        # ---------------------------------------------------------------- refused: scores
        Case("score 1_0", with_score("1_0"), error="score '1_0' is not a number (trec_eval's atof would read 1)",
             line=3),
        Case("score 1_000", with_score("1_000", 0),
             error="score '1_000' is not a number (trec_eval's atof would read 1)", line=1),
        Case("score 0x10", with_score("0x10"),
             error="score '0x10' is not a decimal number (trec_eval's atof would read 16)", line=3),
        Case("score nan", with_score("nan"), error="score 'nan' is not finite (trec_eval's atof would read nan)",
             line=3),
        Case("score inf", with_score("-inf", 7),
             error="score '-inf' is not finite (trec_eval's atof would read -inf)", line=8),
        Case("score 1e400", with_score("1e400"), error="score '1e400' is not a finite number", line=3),
        Case("score abc", with_score("abc"), error="score 'abc' is not a number (trec_eval's atof would read 0)",
             line=3),
        Case("score in Arabic-Indic digits", with_score("\u0661\u0662"),
             error="score '\u0661\u0662' is not a number (trec_eval's atof would read 0)", line=3),
        Case("score with a decimal comma", "  " + with_score("1,5").replace("\n", "\n  ", 2),
             error="score '1,5' is not a number (trec_eval's atof would read 1)", line=3),
        # ---------------------------------------------------------------- refused: run lines
        Case("run line with 5 fields", base.replace("d6 3 1.75 tagA", "d6 3 1.75"),
             error="expected 6 columns (topic Q0 docno rank score tag), found 5", line=3),
        Case("run line with 3 fields after a comment", "# c\n" + base + "404 Q0 d2\n",
             error="expected 6 columns (topic Q0 docno rank score tag), found 3", line=10),
        Case("qrels given as the run", QRELS, error="expected 6 columns (topic Q0 docno rank score tag), found 4",
             line=1),
        Case("docno twice in a topic", base + "401 Q0 d2 9 0.1 tagA\n",
             error="duplicate docno 'd2' in topic 401 (first on line 2)", line=9),
        Case("empty run file", "", error="empty file: no lines to read"),
        Case("run of blank lines", "\n  \n\t\n", error="empty file: no lines to read"),
        Case("run of comments only", "# nothing\n# here\n", error="no run lines (only comments and blank lines)"),
        Case("truncated gzip run", gzip.compress(base.encode())[:25], error=None, line=None),  # message set below
        Case("run not UTF-8", base.encode() + b"401 Q0 d\xe9 9 0.1 tagA\n", error="not valid UTF-8 (byte b'\\xe9')",
             line=9),
        Case("NUL byte in the run", base.encode() + b"401 Q0 d\x009 9 0.1 tagA\n",
             error="NUL byte in the line (binary data, not a TREC text file)", line=9),
        Case("old Mac line ends (CR only)", base.replace("\n", "\r"),
             error="carriage return inside a line (old Mac line ends?): lines must end with \\n or \\r\\n", line=1),
        Case("run file missing", run_path="no-such-run", error="cannot read file: No such file or directory"),
        Case("a directory as the run", run_path=".", error="cannot read file: Is a directory"),
        Case("two runs with one tag", runs={"input.other": base.replace("d6", "d66")},
             error="and {other} both name their run 'tagA' (the tag column): run names must be unique; change one "
                   "tag, or give names explicitly (read_run(path, name=...))"),
        # ---------------------------------------------------------------- refused: qrels
        Case("grade 1_0", qrels=with_grade("1_0"), names="qrels", line=2,
             error="relevance grade '1_0' is not an integer (trec_eval's atol would read 1)"),
        Case("grade 1.0", qrels=with_grade("1.0"), names="qrels", line=2,
             error="relevance grade '1.0' is not an integer (trec_eval's atol would read 1)"),
        Case("grade 1e3", qrels=with_grade("1e3"), names="qrels", line=2,
             error="relevance grade '1e3' is not an integer (trec_eval's atol would read 1)"),
        Case("grade +-1", qrels="  " + with_grade("+-1"), names="qrels", line=2,
             error="relevance grade '+-1' is not an integer (trec_eval's atol would read 0)"),
        Case("grade 2147483648", qrels=with_grade("2147483648"), names="qrels", line=2,
             error="relevance grade 2147483648 is outside the supported range -2147483646..2147483647"),
        Case("grade -2147483647 (an internal code)", qrels=with_grade("-2147483647"), names="qrels", line=2,
             error="relevance grade -2147483647 is outside the supported range -2147483646..2147483647"),
        Case("grade beyond 64 bits", qrels=with_grade("99999999999999999999999"), names="qrels", line=2,
             error="relevance grade 99999999999999999999999 is outside the supported range "
                   "-2147483646..2147483647"),
        Case("qrels line with 3 fields", qrels=QRELS + "403 0 d7\n", names="qrels", line=9,
             error="expected 4 columns like the first line, found 3"),
        Case("run given as the qrels", qrels=base, names="qrels", line=1,
             error="expected 4 columns (topic iter docno rel) or 5 (topic iter docno stratum rel), found 6"),
        Case("4 and 5 columns mixed", qrels=QRELS + "403 0 d7 1 1\n", names="qrels", line=9,
             error="expected 4 columns like the first line, found 5"),
        Case("judgment twice", qrels=QRELS + "401 0 d3 0\n", names="qrels", line=9,
             error="duplicate docno 'd3' in topic 401 (first on line 3)"),
        Case("stratum negative", qrels="401 0 d1 1 1\n401 0 d2 -2 0\n", names="qrels", line=2,
             error="stratum -2 is outside the supported range 0..2147483647"),
        Case("stratum not an integer", qrels="401 0 d1 1 1\n401 0 d2 s1 0\n", names="qrels", line=2,
             error="stratum 's1' is not an integer (trec_eval's atol would read 0)"),
        Case("empty qrels", qrels="", names="qrels", error="empty file: no lines to read"),
        Case("qrels not UTF-8", qrels=QRELS.encode() + b"403 0 \xff 1\n", names="qrels", line=9,
             error="not valid UTF-8 (byte b'\\xff')"),
        # ---------------------------------------------------------------- refused: dataset folders
        Case("runs table without a run column", table="name\tgroup\ntagA\tg\n", names="table", line=1,
             dataset_only=True, error="no 'run' column in the header (columns: name, group); the first line must "
                                      "name the tab-separated columns"),
        Case("runs table with a run twice", table="run\tgroup\ntagA\tg\nx\th\ntagA\tg\n", names="table", line=4,
             dataset_only=True, error="run 'tagA' is listed twice (first on line 2)"),
        Case("runs table row with an extra cell", table="run\tgroup\ntagA\tg\tx\n", names="table", line=2,
             dataset_only=True, error="expected 2 tab-separated cells like the header, found 3"),
        Case("runs table priority not a number", table="run\tpool_priority\ntagA\thigh\n", names="table", line=2,
             dataset_only=True, error="pool_priority 'high' is not a number"),
    ]
    truncated = next(c for c in cases if c.id == "truncated gzip run")
    try:
        gzip.decompress(truncated.run)
    except EOFError as exc:
        truncated.error = f"unreadable gzip data: {exc}"
    if TOOLS_TEST.is_dir():
        cases += [
            Case("trec_eval's own results.test and qrels.test", (TOOLS_TEST / "results.test").read_bytes(),
                 qrels=(TOOLS_TEST / "qrels.test").read_bytes()),
            Case("trec_eval's comment.test files ('#' inside docnos)",
                 (TOOLS_TEST / "results.comment.test").read_bytes(),
                 qrels=(TOOLS_TEST / "qrels.comment.test").read_bytes()),
            Case("trec_eval's qrels with comments", (TOOLS_TEST / "results.test").read_bytes(),
                 qrels=(TOOLS_TEST / "qrels.test.with-comments").read_bytes()),
        ]
    return cases


CASES = _cases()
ACCEPTED = [c for c in CASES if c.error is None]
REFUSED = [c for c in CASES if c.error is not None]


def _bytes(text: bytes | str) -> bytes:
    return text if isinstance(text, bytes) else text.encode("utf-8")


@dataclass
class Files:
    folder: Path
    qrels: Path
    runs: list[Path]
    table: Path | None

    def named(self, case: Case) -> str:
        """The message's ``<file>:<line>: `` prefix (or the file alone)."""
        path = {"run": self.runs[0], "qrels": self.qrels, "table": self.table}[case.names]
        return f"{path}:{case.line}: " if case.line is not None else f"{path}: "

    def message(self, case: Case) -> str:
        if case.id == "two runs with one tag":
            return f"{self.runs[0]} " + case.error.format(other=self.runs[1])
        return self.named(case) + case.error


def write_case(root: Path, case: Case) -> Files:
    folder = root / f"case{CASES.index(case):03d}"
    (folder / "runs").mkdir(parents=True)
    qrels = folder / ("qrels.txt.gz" if case.gzip_qrels else "qrels.txt")
    data = _bytes(case.qrels)
    qrels.write_bytes(gzip.compress(data) if case.gzip_qrels else data)
    runs = []
    if case.run_path is not None:
        runs.append(folder / "runs" / case.run_path if case.run_path != "." else folder / "runs")
    else:
        path = folder / "runs" / ("input.tagA.gz" if case.gzip_run else "input.tagA")
        data = _bytes(case.run)
        path.write_bytes(gzip.compress(data) if case.gzip_run else data)
        runs.append(path)
    for name, text in case.runs.items():
        (folder / "runs" / name).write_bytes(_bytes(text))
        runs.append(folder / "runs" / name)
    table = None
    if case.table is not None:
        table = folder / "runs_table.tsv"
        table.write_text(case.table)
    return Files(folder, qrels, runs, table)


# ------------------------------------------------------------------------------------------------ oracle


def _reference_lines(path: Path):
    """Fields of each data line as trec_eval 10.0 splits them (the oracle's own reading, line by line)."""
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8").removeprefix("\ufeff")
    for line in text.split("\n"):
        fields = line.split()  # str.split: the same blanks as C isspace for this ASCII layout
        if fields and not fields[0].startswith("#"):
            yield fields


def reference_run(path: Path) -> dict:
    run: dict = {}
    for fields in _reference_lines(path):
        run.setdefault(fields[0], {})[fields[2]] = float(fields[4])
    return run


def _qrels_dict(path: Path) -> dict:
    qrels: dict = {}
    for fields in _reference_lines(path):
        qrels.setdefault(fields[0], {})[fields[2]] = int(fields[-1])
    return qrels


_ORACLE: dict[str, dict] = {}


def oracle(files: Files, case: Case) -> dict[tuple[str, str], float]:
    """{(kit measure, topic or 'all'): value} from pytrec_eval on the reference reading of the files (computed
    once a case: trec_eval's ndcg takes a second on grades as large as 65536)."""
    if case.id not in _ORACLE:
        _ORACLE[case.id] = _oracle(files, case)
    return _ORACLE[case.id]


def _oracle(files: Files, case: Case) -> dict[tuple[str, str], float]:
    run = reference_run(files.runs[0])
    qrels = _qrels_dict(files.qrels)
    if case.expected is not None:  # pytrec_eval allocates max_rel + 1 counters: hand-computed values instead
        (topic,) = run
        return {**{(m, topic): v for m, v in case.expected.items()}, **{(m, "all"): v for m, v in case.expected.items()}}
    import pytrec_eval

    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES.values()))
    values = {}
    per_topic = evaluator.evaluate(run)
    for measure, name in MEASURES.items():
        for topic, scores in per_topic.items():
            values[(measure, topic)] = scores[name]
        values[(measure, "all")] = sum(s[name] for s in per_topic.values()) / len(per_topic)
    return values


def kit_values(frame) -> dict[tuple[str, str], float]:
    return {(m, t): v for m, t, v in zip(frame["measure"], frame["topic"], frame["value"])}


def _assert_equal_values(got: dict, expected: dict, tolerance: float, case: Case) -> None:
    assert set(got) == set(expected), f"{case.id}: topics differ: {sorted(set(got) ^ set(expected))}"
    for key, value in expected.items():
        assert abs(got[key] - value) <= tolerance, f"{case.id}: {key}: kit {got[key]!r}, oracle {value!r}"


# ------------------------------------------------------------------------------------------------ API


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    return root, {case.id: write_case(root, case) for case in CASES}


@pytest.mark.parametrize("case", [c for c in ACCEPTED], ids=[c.id for c in ACCEPTED])
def test_accepted_input_equals_pytrec_eval(corpus, case):
    files = corpus[1][case.id]
    frame = evalkit.evaluate(files.qrels, files.runs, list(MEASURES))
    _assert_equal_values(kit_values(frame), oracle(files, case), 1e-9, case)


@pytest.mark.parametrize("case", [c for c in REFUSED if not c.dataset_only], ids=[c.id for c in REFUSED
                                                                                    if not c.dataset_only])
def test_refused_input_names_file_line_and_problem(corpus, case):
    files = corpus[1][case.id]
    with pytest.raises((TrecFormatError, ValueError)) as info:
        evalkit.evaluate(files.qrels, files.runs, list(MEASURES))
    assert str(info.value) == files.message(case)
    if case.names == "run" and case.id != "two runs with one tag":
        with pytest.raises(TrecFormatError) as direct:
            evalkit.read_run(files.runs[0])
        assert str(direct.value) == files.message(case)
    if case.names == "qrels":
        with pytest.raises(TrecFormatError) as direct:
            evalkit.read_qrels(files.qrels)
        assert str(direct.value) == files.message(case)


DATASET_CASES = [c for c in CASES if c.dataset_only or c.id in (
    "plain", "mixed tabs and spaces", "UTF-8 BOM in the qrels", "score 1_0", "docno twice in a topic",
    "grade 2147483648", "two runs with one tag", "run of comments only")]


@pytest.mark.parametrize("case", DATASET_CASES, ids=[c.id for c in DATASET_CASES])
def test_dataset_directory(corpus, case, tmp_path, monkeypatch):
    """load_dataset on the case's folder: the same message, and no cache entry (nothing half-written)."""
    monkeypatch.setenv("EVALKIT_CACHE", str(tmp_path / "cache"))
    files = corpus[1][case.id]
    if case.error is None:
        collection = evalkit.load_dataset(str(files.folder))
        frame = evalkit.evaluate(None, collection, list(MEASURES))
        _assert_equal_values(kit_values(frame), oracle(files, case), 1e-9, case)
        assert len(list((tmp_path / "cache").iterdir())) == 1
        return
    with pytest.raises((TrecFormatError, ValueError)) as info:
        evalkit.load_dataset(str(files.folder))
    message = str(info.value)
    if case.id == "two runs with one tag":  # the folder lists run files sorted by name
        other, first = sorted(files.runs, key=lambda p: p.name)
        message = message.replace(str(other), "{A}").replace(str(first), "{B}")
        assert message == "{A} and {B}" + case.error.split("and {other}")[1].format()
    else:
        assert message == files.message(case)
    assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").iterdir())


# ------------------------------------------------------------------------------------------------ CLI

_DRIVER = textwrap.dedent("""
    import contextlib, io, json, sys, traceback
    from evalkit.cli import main
    results = []
    for argv in json.load(sys.stdin):
        out, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(argv)
        except SystemExit as exc:
            code = exc.code
        except BaseException:
            code, err = "traceback", io.StringIO(traceback.format_exc())
        results.append({"code": code, "out": out.getvalue(), "err": err.getvalue()})
    json.dump(results, sys.stdout)
""")


def _cli_argv(files: Files, measure: str | None = None) -> list[str]:
    argv = ["eval", str(files.qrels), *map(str, files.runs), "-q"]
    for m in [measure] if measure else MEASURES:
        argv += ["-m", m]
    return argv


def _printed_values(text: str) -> dict[tuple[str, str], float]:
    values = {}
    for line in text.splitlines():
        fields = line.split()
        values[(fields[0], fields[-2])] = float(fields[-1])
    return values


@pytest.fixture(scope="module")
def cli_results(corpus):
    """Every non-dataset case through ``evalkit.cli.main`` in one separate process (argv in, printed text out)."""
    cases = [c for c in CASES if not c.dataset_only]
    argvs = [_cli_argv(corpus[1][c.id]) for c in cases]
    done = subprocess.run([sys.executable, "-c", _DRIVER], input=json.dumps(argvs), capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return dict(zip((c.id for c in cases), json.loads(done.stdout)))


@pytest.mark.parametrize("case", [c for c in CASES if not c.dataset_only],
                         ids=[c.id for c in CASES if not c.dataset_only])
def test_cli_printed_text_and_exit_code(corpus, cli_results, case):
    files, result = corpus[1][case.id], cli_results[case.id]
    assert result["code"] != "traceback", result["err"]
    if case.error is None:
        assert (result["code"], result["err"]) == (0, "")
        _assert_equal_values(_printed_values(result["out"]), oracle(files, case), 5e-5 + 1e-12, case)
    else:
        assert (result["code"], result["out"]) == (2, "")
        assert result["err"] == f"evalkit: error: {files.message(case)}\n"


def test_console_script_stdin_and_exit_codes(corpus, tmp_path):
    """The installed ``evalkit`` program itself: a run on standard input (``-``), accepted and refused."""
    script = Path(sys.executable).with_name("evalkit")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "evalkit.cli"]
    files = corpus[1]["mixed tabs and spaces"]
    done = subprocess.run(command + ["eval", str(files.qrels), "-", "-q", "-m", "AP", "-m", "nDCG"],
                          input=files.runs[0].read_bytes(), capture_output=True, timeout=300)
    assert (done.returncode, done.stderr) == (0, b"")
    expected = {k: v for k, v in oracle(files, ACCEPTED[0]).items() if k[0] in ("AP", "nDCG")}
    _assert_equal_values(_printed_values(done.stdout.decode()), expected, 5e-5 + 1e-12, ACCEPTED[0])
    bad = corpus[1]["score 1_0"]
    done = subprocess.run(command + ["eval", str(bad.qrels), "-"], input=bad.runs[0].read_bytes(),
                          capture_output=True, timeout=300)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == "evalkit: error: <stdin>:3: score '1_0' is not a number (trec_eval's atof " \
                                   "would read 1)\n"


def test_standard_input_read_once(corpus, monkeypatch, capsys):
    import io as _io

    import evalkit.data.text_fields as io_module
    from evalkit.cli import main

    monkeypatch.setattr(io_module, "_stdin_read", False)
    monkeypatch.setattr(io_module.sys, "stdin", _io.TextIOWrapper(_io.BytesIO(b"401 0 d1 1\n")))
    assert main(["eval", "-", "-"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "evalkit: error: <stdin>: standard input was already read: only one input can be '-'\n"


# ------------------------------------------------------------------------------------------------ tally


def tally() -> dict[str, int]:  # pragma: no cover - run by hand: python tests/test_bad_inputs.py
    """Run the corpus through the API and count outcomes (what the issue asks the closing note to report)."""
    import tempfile

    counts = {"cases": len(CASES), "accepted, equal to the oracle": 0, "clear errors": 0, "tracebacks": 0,
              "silent wrong results": 0, "half-written states": 0}
    with tempfile.TemporaryDirectory() as root:
        os.environ["EVALKIT_CACHE"] = str(Path(root) / "cache")
        for case in CASES:
            files = write_case(Path(root), case)
            try:
                if case.dataset_only:
                    evalkit.load_dataset(str(files.folder))
                    frame = None
                else:
                    frame = evalkit.evaluate(files.qrels, files.runs, list(MEASURES))
            except (TrecFormatError, ValueError) as exc:
                wanted = case.error is not None and (str(exc) == files.message(case) or case.id == "two runs with one tag")
                counts["clear errors" if wanted else "silent wrong results"] += 1
                cache = Path(root) / "cache"
                if case.dataset_only and cache.exists() and list(cache.iterdir()):
                    counts["half-written states"] += 1
                continue
            except Exception:
                counts["tracebacks"] += 1
                continue
            if case.error is not None or frame is None:
                counts["silent wrong results"] += 1
                continue
            try:
                _assert_equal_values(kit_values(frame), oracle(files, case), 1e-9, case)
                counts["accepted, equal to the oracle"] += 1
            except AssertionError:
                counts["silent wrong results"] += 1
    return counts


if __name__ == "__main__":  # pragma: no cover
    print(json.dumps(tally(), indent=2))
