"""The second bad-input corpus (issue 25): the surfaces added after the first one. ``trec_eval``'s options, measure
parameters and qrels grades; a dataset folder's ``collection.json``/``.toml``, ``runs_table.tsv`` and ``runs/``;
``exercises.check``; notebook parameters through ``-p`` and ``make reproduce PARAMS=...``; output folders, a full
disk and signals. Every input is generated here, small; the command lines and make run as subprocesses.

Each case ends one of two ways: *accepted* (then the output equals NIST trec_eval 10.0's where it has one, or the
metadata it implies) or *refused* (the documented exit code, nothing on stdout, one error line of at most a few
hundred characters naming the option, file, key or parameter, and nothing left behind or run).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from batch_helpers import run_cli, visible_lines, write_collection, write_notebook
from conftest import stalled_cache_save
from trec_eval_builds import build

from evalkit.errors import listed, one_line, shown

REPO = Path(__file__).resolve().parents[1]
TREC_EVAL = [sys.executable, "-m", "evalkit.trec_eval.cli"]
LINE = 400  # the longest error line the kit prints (evalkit.errors.LINE_LIMIT)
QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 d1 0\n2 0 d4 1\n"
RUN = "1 Q0 d1 1 3.0 run\n1 Q0 d5 2 2.0 run\n1 Q0 d3 3 1.0 run\n2 Q0 d4 1 3.0 run\n2 Q0 d2 2 2.0 run\n"


def _refused(result: subprocess.CompletedProcess, code: int, message: str) -> None:
    """Exit ``code``, nothing on stdout, the first stderr line exactly ``message`` (at most LINE characters)."""
    lines = visible_lines(result.stderr)
    assert result.returncode == code, result.stderr[-2000:]
    assert result.stdout == "" and lines and lines[0] == message, lines[:2]
    assert len(lines[0]) <= LINE
    assert "Traceback" not in result.stderr


# -- the one helper for messages ------------------------------------------------------------------------------------

def test_listed_cuts_long_lists_with_a_count_and_shown_cuts_long_values():
    assert listed(["a", "b"]) == "a, b"
    assert listed([f"r{i}" for i in range(4_000_000)]) == "r0, r1, r2, r3, r4, r5, r6, r7, r8, r9 and 3999990 more"
    assert listed(["x" * 500]).endswith("…") and len(listed(["x" * 500])) == 60
    assert shown(10**400) == "an integer of about 401 digits"
    assert shown(list(range(10**6))) == "[0, 1, 2, 3, 4, …] (1000000 items)"
    assert shown("y" * 1000).endswith("… (1000 characters)") and len(shown("y" * 1000)) < 90
    assert one_line("a\n  b\tc") == "a b c" and len(one_line("z" * 100_000)) == LINE


# -- trec_eval: options, measure parameters, grades ----------------------------------------------------------------

@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("trec_eval_inputs")
    (folder / "qrels").write_text(QRELS)
    (folder / "run").write_text(RUN)
    return folder


@pytest.fixture(scope="module")
def nist(tmp_path_factory):
    return build("10.0", tmp_path_factory.mktemp("nist"))


def _kit(*args, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([*TREC_EVAL, *args], capture_output=True, text=True, cwd=cwd, timeout=120)


SANE = {  # trec_eval 10.0 gives a sane answer: the kit prints the same text
    "-M beyond a C long is no limit (atol saturates)": ["-M", "99999999999999999999", "-m", "all_trec"],
    "-M 0": ["-M", "0", "-m", "all_trec"],
    "-l 0": ["-l", "0", "-m", "all_trec"],
    "-l above every grade": ["-l", "3", "-m", "official"],
    "a gain for a grade beyond C long": ["-m", "ndcg.99999999999999999999=2"],
    "the largest cutoff": ["-m", "P.9223372036854775807"],
    "-N the largest C long": ["-N", "9223372036854775807", "-m", "utility.1,-1,0,1"],
}


@pytest.mark.parametrize("args", SANE.values(), ids=SANE.keys())
def test_options_trec_eval_reads_sanely_print_what_it_prints(files, nist, args):
    ours = _kit(*args, "qrels", "run", cwd=files)
    theirs = subprocess.run([str(nist), *args, "qrels", "run"], capture_output=True, text=True, cwd=files)
    assert theirs.returncode == 0 and ours.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout


LONG_MAX = 2**63 - 1
REFUSED_OPTIONS = {  # trec_eval 10.0 crashes (-M -1, -l huge), counts internal codes as relevant (-l -1), or reads
    # silently something else (atol of 1_000 is 1): refused by name, exit 1 (usage) for an option, exit 2 for a
    # measure's parameters (trec_eval's "Cannot initialize measure")
    "-M -1": (["-M", "-1"], "-M -1: the number of documents evaluated per topic cannot be negative"),
    "-l -1": (["-l", "-1"], "-l -1: the relevance level must be 0 or more (below 0 the codes of unjudged and "
                            "unpooled documents would count as relevant)"),
    "-l huge": (["-l", "99999999999999999999"],
                f"-l 99999999999999999999: beyond trec_eval's largest relevance level ({LONG_MAX})"),
    "-N -5": (["-N", "-5"], f"-N -5: the number of documents in the collection must be in 0..{LONG_MAX}"),
    "-N huge": (["-N", "99999999999999999999"],
                f"-N 99999999999999999999: the number of documents in the collection must be in 0..{LONG_MAX}"),
    "-M 1_000": (["-M", "1_000"], "argument -M/--Max_retrieved_per_topic: invalid integer value: '1_000'"),
    "-l 1e3": (["-l", "1e3"], "argument -l/--level_for_rel: invalid integer value: '1e3'"),
    "P beyond C long": (["-m", "P.99999999999999999999"],
                        "illegal parameters '99999999999999999999' for measure 'P': cutoff 99999999999999999999 is "
                        f"beyond trec_eval's largest ({LONG_MAX})"),
    "ndcg_cut beyond C long": (["-m", "ndcg_cut.5,99999999999999999999"],
                               "illegal parameters '5,99999999999999999999' for measure 'ndcg_cut': cutoff "
                               f"99999999999999999999 is beyond trec_eval's largest ({LONG_MAX})"),
    "P.1_0": (["-m", "P.1_0"], "illegal parameters '1_0' for measure 'P'"),
    "gain 1e400": (["-m", "ndcg.1=1e400"],
                   "illegal parameters '1=1e400' for measure 'ndcg': the value of '1' is not a finite number"),
    "gain nan": (["-m", "ndcg.2=nan"],
                 "illegal parameters '2=nan' for measure 'ndcg': the value of '2' is not a finite number"),
    "gain -inf": (["-m", "ndcg_rel.1=-inf"],
                  "illegal parameters '1=-inf' for measure 'ndcg_rel': the value of '1' is not a finite number"),
    "gain beyond C int": (["-m", "ndcg.1=3e9"],
                          "illegal parameters '1=3e9' for measure 'ndcg': the gain of grade '1' is beyond "
                          "+-1073741824 (trec_eval compares gains as C ints)"),
    "cutoff nan": (["-m", "iprec_at_recall.nan"],
                   "illegal parameters 'nan' for measure 'iprec_at_recall': a cutoff is not a finite number"),
    "parameter of 100000 characters": (["-m", "P." + "1," * 50_000 + "x"],
                                       f"illegal parameters {shown('1,' * 50_000 + 'x')} for measure 'P'"),
}


@pytest.mark.parametrize("args, message", REFUSED_OPTIONS.values(), ids=REFUSED_OPTIONS.keys())
def test_options_and_parameters_out_of_range_are_refused_by_name(files, args, message):
    if args[0] == "-m":  # a measure's parameters: as a measure trec_eval cannot initialize, exit 2
        measure = args[1].partition(".")[0]
        _refused(_kit(*args, "qrels", "run", cwd=files), 2,
                 f"trec_eval: Cannot initialize measure '{measure}': {message}")
    else:  # an option: the usage, exit 1
        _refused(_kit(*args, "qrels", "run", cwd=files), 1, f"trec_eval: {message}")


def _with_grade(token: str) -> str:
    return QRELS.replace("1 0 d3 2", f"1 0 d3 {token}")


REFUSED_FILES = {  # exit 2, the file and line named
    "grade 10^12 (numpy would allocate 7 TiB)": (
        _with_grade("1000000000000"), RUN,
        "qrels:3: relevance 1000000000000 is too high: trec_eval counts the documents of every grade "
        "0..1000000000000 on each of the 2 topics, and the kit takes grades up to 524287 on this many topics"),
    "grade beyond C long": (_with_grade("99999999999999999999"), RUN,
                            "qrels:3: relevance '99999999999999999999' is out of range"),
    "grade -2^63": (_with_grade("-9223372036854775808"), RUN,
                    "qrels:3: relevance -9223372036854775808 is below -2147483646"),
    "grade 1_0 (atol reads 1, numpy 10)": (
        _with_grade("1_0"), RUN,
        "qrels:3: relevance '1_0' is not a number (digits grouped by '_': trec_eval would read the part before the "
        "first '_')"),
    "score 2_0 (atof reads 2, Python 20)": (
        QRELS, RUN.replace(" 2.0 ", " 2_0 "),
        "run:2: score '2_0' is not a number (digits grouped by '_': trec_eval would read the part before the "
        "first '_')"),
}


@pytest.mark.parametrize("qrels, run, message", REFUSED_FILES.values(), ids=REFUSED_FILES.keys())
def test_grades_and_scores_trec_eval_cannot_hold_are_refused_by_line(tmp_path, qrels, run, message):
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    _refused(_kit("-m", "all_trec", "qrels", "run", cwd=tmp_path), 2, f"trec_eval: error: {message}")


def test_a_high_grade_the_counts_can_hold_equals_trec_eval(tmp_path, nist):
    (tmp_path / "qrels").write_text(_with_grade("40000"))
    (tmp_path / "run").write_text(RUN)
    ours = _kit("-m", "all_trec", "-m", "ndcg.40000=2,1=5", "qrels", "run", cwd=tmp_path)
    theirs = subprocess.run([str(nist), "-m", "all_trec", "-m", "ndcg.40000=2,1=5", "qrels", "run"],
                            capture_output=True, text=True, cwd=tmp_path)
    assert ours.returncode == 0 and ours.stdout == theirs.stdout


def test_the_api_refuses_what_the_command_line_refuses(files):
    from evalkit.trec_eval.cli import evaluate_files

    for kwargs, message in [({"max_docs": -1}, "-M -1"), ({"relevance_level": -1}, "-l -1"),
                            ({"num_docs_in_coll": -5}, "-N -5"), ({"max_docs": 2.5}, "max_docs must be an integer")]:
        with pytest.raises(ValueError, match=f"^{message}"):
            evaluate_files(files / "qrels", [files / "run"], **kwargs)
    unlimited = evaluate_files(files / "qrels", [files / "run"], ["num_ret"], max_docs=10**20)
    assert unlimited == evaluate_files(files / "qrels", [files / "run"], ["num_ret"])


# -- a dataset folder: collection.json / .toml, runs_table.tsv, runs/ ----------------------------------------------

def _tab(folder: Path, header: str, bom: bool = False) -> None:
    runs = sorted(p.read_text().split()[5] for p in (folder / "runs").iterdir())
    text = header + "\n" + "".join(f"{r}\t{'yes' if i < 2 else 'no'}\n" for i, r in enumerate(runs))
    (folder / "runs_table.tsv").write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode())


def _json(folder: Path, text: str | bytes, name: str = "collection.json") -> None:
    (folder / name).write_bytes(text if isinstance(text, bytes) else text.encode())


CJ = "collection.json"
DATASETS = {  # setup, the message after "<folder>/"
    "Latin-1 collection.json": (lambda d: _json(d, '{"name": "Coll\xe9ction"}'.encode("latin-1")),
                                f"{CJ}, line 1: not UTF-8 (byte b'\\xe9'); save the file as UTF-8"),
    "JSON nested 100000 deep": (lambda d: _json(d, '{"description": ' + "[" * 100_000 + "]" * 100_000 + "}"),
                                f"{CJ}: nested more than 20 levels deep; the collection file is an object of a few "
                                "keys"),
    "TOML nested 100000 deep": (lambda d: _json(d, "description = " + "[" * 100_000 + "]" * 100_000 + "\n",
                                                "collection.toml"),
                                "collection.toml: nested more than 20 levels deep; the collection file is an object "
                                "of a few keys"),
    "duplicate JSON key": (lambda d: _json(d, '{"judged_depth": 3, "judged_depth": 4}'),
                           f"{CJ}: key 'judged_depth' is given twice in one object; keep one"),
    "duplicate TOML key": (lambda d: _json(d, "judged_depth = 3\njudged_depth = 4\n", "collection.toml"),
                           "collection.toml: not valid TOML (Cannot overwrite a value (at line 2, column 17))"),
    "collection.json a directory": (lambda d: (d / CJ).mkdir(),
                                    f"{CJ}: is a folder; the collection file must be a text file"),
    "collection.json a symlink to /dev/urandom": (
        lambda d: (d / CJ).symlink_to("/dev/urandom"),
        f"{CJ}: is not a regular file (a device, a pipe or a socket) (a symbolic link to '/dev/urandom'); the "
        "collection file must be a text file"),
    "collection.json a named pipe": (lambda d: os.mkfifo(d / CJ),
                                     f"{CJ}: is not a regular file (a device, a pipe or a socket); the collection "
                                     "file must be a text file"),
    "judged_depth 10^30": (lambda d: _json(d, '{"judged_depth": 1000000000000000000000000000000}'),
                           f"{CJ}: 'judged_depth' must be a whole number in 1..2147483647, got "
                           "1000000000000000000000000000000"),
    "judged_depth beyond the runs": (lambda d: _json(d, '{"judged_depth": 1000}'),
                                     f"{CJ}: 'judged_depth' 1000 is deeper than the runs go (they rank at most 5 "
                                     "documents a topic): no pool of these runs reaches it; give the depth the "
                                     "judges went to, at most 5"),
    "judged_depth NaN": (lambda d: _json(d, '{"judged_depth": NaN}'),
                         f"{CJ}: 'judged_depth' must be a whole number in 1..2147483647, got nan"),
    "judged_depth true": (lambda d: _json(d, '{"judged_depth": true}'),
                          f"{CJ}: 'judged_depth' must be a whole number in 1..2147483647, got True"),
    "judged_pool_priority 1e30": (lambda d: _json(d, '{"judged_pool_priority": 1e30}'),
                                  f"{CJ}: 'judged_pool_priority' must be a whole number in 1..2147483647, got 1e+30"),
    "40000 unknown judged runs": (lambda d: _json(d, json.dumps({"judged_runs": [f"r{i}" for i in range(40_000)]})),
                                  f"{CJ}: 'judged_runs' names run(s) not in runs/: r0, r1, r2, r3, r4, r5, r6, r7, "
                                  "r8, r9 and 39990 more"),
    "20000 judged runs each listed twice": (
        lambda d: _json(d, json.dumps({"judged_runs": [f"r{i % 20_000}" for i in range(40_000)]})),
        f"{CJ}: 'judged_runs' repeats 'r0', 'r1', 'r10', 'r100', 'r1000', 'r10000', 'r10001', 'r10002', 'r10003', "
        "'r10004' and 19990 more; list each run once"),
    "a 4 MB collection file (400000 names)": (
        lambda d: _json(d, json.dumps({"judged_runs": [f"r{i}" for i in range(400_000)]})),
        f"{CJ}: 4288907 bytes; a collection file holds at most 1048576 bytes"),
    "judged_runs of numbers": (lambda d: _json(d, json.dumps({"judged_runs": list(range(100_000))})),
                               f"{CJ}: 'judged_runs' must be a list of run names, got [0, 1, 2, 3, 4, …] (100000 "
                               "items)"),
    "10000 unknown keys": (lambda d: _json(d, json.dumps({f"k{i}": 1 for i in range(10_000)})),
                           f"{CJ}: unknown key(s) 'k0', 'k1', 'k10', 'k100', 'k1000', 'k1001', 'k1002', 'k1003', "
                           "'k1004', 'k1005' and 9990 more; known: description, judged_depth, judged_pool_priority, "
                           "judged_runs, name"),
    "a name of two lines": (lambda d: _json(d, '{"name": "a\\nb"}'),
                            f"{CJ}: 'name' must be one line of text of at most 200 characters, got 'a\\nb'"),
    "a name of 100000 characters": (lambda d: _json(d, json.dumps({"name": "x" * 100_000})),
                                    f"{CJ}: 'name' must be one line of text of at most 200 characters, got "
                                    f"{shown('x' * 100_000)}"),
    "runs_table.tsv a directory": (lambda d: (d / "runs_table.tsv").mkdir(),
                                   "runs_table.tsv: is a folder; runs_table.tsv must be a tab-separated text file"),
    "a named pipe in runs/": (lambda d: os.mkfifo(d / "runs" / "input.fifo"),
                              "runs/input.fifo: is not a regular file; a run file must be a text file"),
    "a judged column naming 30000 unknown runs": (
        lambda d: (d / "runs_table.tsv").write_text("run\tjudged\n" + "".join(f"x{i}\tyes\n" for i in range(30_000))),
        "runs_table.tsv: column 'judged' names run(s) not in runs/: x0, x1, x2, x3, x4, x5, x6, x7, x8, x9 and "
        "29990 more"),
}


@pytest.fixture(scope="module")
def notebook_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("nbs")
    write_notebook(folder / "01_ok.ipynb", "pass")
    return folder


@pytest.mark.parametrize("setup, message", DATASETS.values(), ids=DATASETS.keys())
def test_a_bad_dataset_folder_is_one_line_before_any_notebook(tmp_path, notebook_dir, setup, message):
    folder = write_collection(tmp_path / "coll")
    setup(folder)
    result = run_cli("notebooks", "run", "--notebooks", notebook_dir, "--dataset", folder, "--out", tmp_path / "out",
                     env={"EVALKIT_CACHE": str(tmp_path / "cache")}, timeout=120)
    _refused(result, 2, f"evalkit: error: {folder}/{message}")
    assert not (tmp_path / "out").exists() and not (tmp_path / "cache").exists()


@pytest.mark.parametrize("header, bom", [("run\tjudged", True), ("run\tjudged ", False), (" run \t judged  ", True)],
                         ids=["UTF-8 BOM", "trailing blank", "BOM and blanks around both"])
def test_a_judged_column_behind_a_bom_or_blanks_is_read(tmp_path, header, bom):
    from evalkit.data.datasets import load_directory

    folder = write_collection(tmp_path / "coll")
    _tab(folder, header, bom)
    collection = load_directory(folder, cache=False)
    assert collection.metadata["judged_runs_source"] == "runs_table.tsv"
    assert collection.metadata["n_judged"] == 2 == int(collection.judged_runs.sum())


def test_a_symlink_to_a_regular_collection_file_is_read(tmp_path):
    from evalkit.data.datasets import load_directory

    folder = write_collection(tmp_path / "coll")
    (tmp_path / "elsewhere.json").write_text('{"name": "linked", "judged_depth": 4}')
    (folder / CJ).symlink_to(tmp_path / "elsewhere.json")
    collection = load_directory(folder, cache=False)
    assert collection.metadata["name"] == "linked" and collection.metadata["judged_depth"] == 4


# -- exercises.check -------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sample():
    return type("Sample", (), {"table": pd.DataFrame({"capped": [True, False, True]})})()


ANSWERS = {  # a wrong kind of answer is a wrong answer saying so (the cell does not fail)
    "nan": (float("nan"), "expected a finite number, got nan"),
    "inf": (float("inf"), "expected a finite number, got inf"),
    "True": (True, "expected a number, got True (True and False are not numbers here)"),
    "numpy True": (np.bool_(True), "expected a number, got True (True and False are not numbers here)"),
    "10**400": (10**400, "expected a number of a sensible size, got an integer of about 401 digits"),
    "a list": ([1, 2], "expected a number, got [1, 2] (type list)"),
    "an object": (object, "expected a number, got <class 'object'> (type type)"),
    "text": ("two", "expected a number, got 'two' (type str)"),
}


@pytest.mark.parametrize("answer, detail", ANSWERS.values(), ids=ANSWERS.keys())
def test_an_answer_of_the_wrong_kind_is_a_wrong_answer_that_says_so(sample, answer, detail):
    from evalkit.classroom import exercises

    verdict = exercises.check("02.2", answer, sample=sample)
    assert verdict.right is False and verdict.message.startswith(f"Exercise 02.2: not yet ({detail}). Hint:")
    assert exercises.check("02.2", 2, sample=sample).right and exercises.check("02.2", "2", sample=sample).right


CELLS = {  # a cell that cannot be checked as written: ExerciseError, one line, no traceback in a notebook
    "an unhashable id": ((["00.1"], 0.5), {}, "the exercise id must be text such as '00.1', got ['00.1'] (type list)"),
    "a number as id": ((1.5, 0.5), {}, "the exercise id must be text such as '00.1', got 1.5 (type float)"),
    "no context": (("00.1", 0.5), {}, "exercise 00.1 needs collection=..., depth=...; missing collection, depth "
                                      "(pass the notebook's objects, as its exercise cell does)"),
    "collection='trec8'": (("00.1", 0.5), {"collection": "trec8", "depth": 5},
                           "exercise 00.1: collection must be the loaded collection (evalkit.load_dataset(...)), got "
                           "'trec8' (type str)"),
    "an object it does not take": (("02.2", 1), {"sample": None, "x": 1}, "exercise 02.2 needs sample=...; does not take x (pass the "
                                                         "notebook's objects, as its exercise cell does)"),
    "k=nan": (("01.5", 0.1), {"fig2": pd.DataFrame(), "k": float("nan")},
              "exercise 01.5: k must be a whole number of ranks, 1 or more, got nan (type float)"),
    "k=True": (("01.5", 0.1), {"fig2": pd.DataFrame(), "k": True},
               "exercise 01.5: k must be a whole number of ranks, 1 or more, got True (type bool)"),
    "fig2 not a table": (("01.5", 0.1), {"fig2": "fig2", "k": 5},
                         "exercise 01.5: fig2 must be Figure 2's DataFrame, got 'fig2' (type str)"),
    "objects that break the computation": (
        ("01.5", 0.1), {"fig2": pd.DataFrame({"k": [5]}), "k": 5},
        "exercise 01.5: the expected answer could not be computed from the objects given (AttributeError: 'DataFrame' "
        "object has no attribute 'judged')"),
}


@pytest.mark.parametrize("args, context, message", CELLS.values(), ids=CELLS.keys())
def test_a_cell_that_cannot_be_checked_raises_one_line(args, context, message):
    from evalkit.classroom.exercises import ExerciseError, check

    with pytest.raises(ExerciseError) as caught:
        check(*args, **context)
    assert str(caught.value) == message and len(message) <= LINE
    assert caught.value._render_traceback_() == [f"ExerciseError: {message}"]  # what IPython shows instead


@pytest.mark.parametrize("depth, shown_as", [(float("nan"), "nan (type float)"), (0, "0 (type int)"),
                                             (2.0, "2.0 (type float)"), (10**400, "an integer of about 401 digits "
                                                                                  "(type int)")])
def test_a_depth_that_is_not_a_number_of_ranks_is_named(depth, shown_as):
    from conftest import random_collection

    from evalkit.classroom.exercises import ExerciseError, check

    with pytest.raises(ExerciseError) as caught:
        check("00.1", 0.5, collection=random_collection(3), depth=depth)
    assert str(caught.value) == f"exercise 00.1: depth must be a whole number of ranks, 1 or more, got {shown_as}"


def test_an_unknown_exercise_is_still_a_key_error():
    from evalkit.classroom.exercises import check

    with pytest.raises(KeyError, match="no exercise '9.9'; known: 00.1"):
        check("9.9", 1)


# -- notebook parameters: declared types, checked before any kernel starts ------------------------------------------

def _cells() -> dict[str, str]:
    from evalkit.batch.parameters import parameters_source

    return {p.stem: parameters_source(p) for p in sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))}


def test_every_parameter_of_every_notebook_declares_a_type_its_default_fits():
    from evalkit.batch.parameter_types import DeclarationError, cell_declarations, check_value

    cells = _cells()
    assert len(cells) == 7  # 00-05 and the budget planner, 06
    for notebook, source in cells.items():
        declarations = cell_declarations(source)
        defaults: dict = {}
        exec(source, {"__builtins__": {"range": range, "list": list, "round": round}}, defaults)
        assert set(declarations) == set(defaults), notebook
        for name, declaration in declarations.items():
            assert not isinstance(declaration, DeclarationError), f"{notebook}: {name}: {declaration}"
            check_value(notebook, name, defaults[name], declaration)


@pytest.mark.parametrize("text, problem", [
    ("int in [1, 10", "expected a bracket or a comma at the end"),
    ("list of int, 5 items", "expected 'to', found 'items'"), ("float in [2, 1]", "the range [2, 1] is empty"),
    ("number", "unknown type 'number' (int, float, text, one of, measure, strategy, bool, None, list of)"),
    ("int or", "expected a type at the end"), ("one of AP", "expected a quoted choice, found 'AP'")])
def test_a_declaration_off_the_grammar_is_an_error(text, problem):
    from evalkit.batch.parameter_types import DeclarationError, parse_declaration

    with pytest.raises(DeclarationError) as caught:
        parse_declaration(text)
    assert str(caught.value) == problem


def _one(notebook, name, raw):
    from evalkit.batch.parameter_types import cell_declarations, check_value
    from evalkit.batch.parameters import parse_value

    check_value(notebook, name, parse_value(raw), cell_declarations(_cells()[notebook])[name])


PARAMETERS = {  # -p NAME VALUE to one notebook: the sentence the batch prints
    "repeated pool depths": ("00_tour", "pool_depths", "[5, 5]",
                             "00_tour: parameter pool_depths = [5, 5] repeats 5 (the items must be distinct) "
                             "(declared: list of int in [1, 100000], distinct, 1 to 50 items)"),
    "1499 pool depths": ("00_tour", "pool_depths", str(list(range(1, 1500))),
                         "00_tour: parameter pool_depths = [1, 2, 3, 4, 5, …] (1499 items) has 1499 items (from 1 to "
                         "50) (declared: list of int in [1, 100000], distinct, 1 to 50 items)"),
    "an empty list": ("00_tour", "pool_depths", "[]", "00_tour: parameter pool_depths = [] has 0 items (from 1 to 50) "
                                                      "(declared: list of int in [1, 100000], distinct, 1 to 50 "
                                                      "items)"),
    "a depth of 0": ("00_tour", "pool_depths", "[0, 5]",
                     "00_tour: parameter pool_depths = [0, 5] item 1 (0) is outside [1, 100000] (declared: list of "
                     "int in [1, 100000], distinct, 1 to 50 items)"),
    "measure nan": ("00_tour", "measure", "nan",
                    "00_tour: parameter measure = nan is not a measure name (declared: measure)"),
    "measure unknown": ("00_tour", "measure", "MAPP",
                        "00_tour: parameter measure = 'MAPP' is not a measure evalkit knows (unknown measure 'MAPP' "
                        "in 'MAPP'; known: AP, Bpref, NumRel, NumRet, P, R, RBP, RBPres, Rprec, infAP, infNDCG, infP, "
                        "infR, nDCG, trec_infAP) (declared: measure)"),
    "trials 0": ("03_voorhees2014_sampling_strategies", "trials", "0",
                 "03_voorhees2014_sampling_strategies: parameter trials = 0 is outside [2, 100000] (declared: int in "
                 "[2, 100000] or None)"),
    "trials True": ("03_voorhees2014_sampling_strategies", "trials", "True",
                    "03_voorhees2014_sampling_strategies: parameter trials = True is not a whole number or None "
                    "(declared: int in [2, 100000] or None)"),
    "trials 2.5": ("05_carterette2007_robust_collections", "trials", "2.5",
                   "05_carterette2007_robust_collections: parameter trials = 2.5 is not a whole number (declared: "
                   "int in [1, 100000] or None)"),
    "alpha inf": ("03_voorhees2014_sampling_strategies", "alpha", "inf",
                  "03_voorhees2014_sampling_strategies: parameter alpha = inf is not a finite number (declared: float "
                  "in (0, 1))"),
    "alpha 1": ("03_voorhees2014_sampling_strategies", "alpha", "1",
                "03_voorhees2014_sampling_strategies: parameter alpha = 1 is outside (0, 1) (declared: float in "
                "(0, 1))"),
    "seed -1": ("01_yilmaz2008_inferred_ap_ndcg", "seed", "-1",
                "01_yilmaz2008_inferred_ap_ndcg: parameter seed = -1 is outside [0, 4294967295] (declared: int in "
                "[0, 4294967295])"),
    "a strategy that is none": ("03_voorhees2014_sampling_strategies", "strategies", "['pool15', 'bogus']",
                                "03_voorhees2014_sampling_strategies: parameter strategies = ['pool15', 'bogus'] item "
                                "2 ('bogus') is not a sampling strategy (unknown strategy 'bogus'; presets: pool15, "
                                "pool25, 1stratum, 2strata, 3strata, medical2012) (declared: list of strategy, "
                                "distinct, 1 to 20 items)"),
    "a prior of one number": ("05_carterette2007_robust_collections", "prior", "[1.0]",
                              "05_carterette2007_robust_collections: parameter prior = [1.0] has 1 item (exactly 2) "
                              "(declared: list of float in (0, 1000000], 2 to 2 items or None)"),
    "a preset that is none": ("02_soboroff2007_pooled_vs_sampled", "preset", "classic",
                              "02_soboroff2007_pooled_vs_sampled: parameter preset = 'classic' is not one of 'class', "
                              "'paper' (declared: one of \"class\", \"paper\")"),
    "a variance form with a line break": ("01_yilmaz2008_inferred_ap_ndcg", "variance_form", "a\nb",
                                          "01_yilmaz2008_inferred_ap_ndcg: parameter variance_form = 'a\\nb' is not "
                                          "one of 'paper plug-in, independent', 'paper plug-in, covariance', "
                                          "'unbiased, independent', 'unbiased, covariance' (declared: one of \"paper "
                                          "plug-in, independent\", \"paper plug-in, covariance\", \"unbiased, "
                                          "independent\", \"unbiased, covariance\")"),
}


@pytest.mark.parametrize("notebook, name, raw, message", PARAMETERS.values(), ids=PARAMETERS.keys())
def test_a_value_off_its_declared_type_is_one_sentence(notebook, name, raw, message):
    with pytest.raises(ValueError) as caught:
        _one(notebook, name, raw)
    assert str(caught.value) == message and len(message) <= LINE


@pytest.mark.parametrize("raw, message", [
    ("[" * 5001 + "]" * 5000, "parameter value '" + "[" * 58 + "… (10001 characters) is longer than 10000 "
                              "characters"),
    ("[" * 2000 + "]" * 2000, "parameter value '" + "[" * 58 + "… (4000 characters) looks like a list but is not a "
                              "Python literal; write it as [1, 2, 3] or ['a', 'b']"),
], ids=["a value of 10001 characters", "a list nested 2000 deep"])
def test_huge_or_deep_values_are_refused_before_they_are_read(raw, message):
    from evalkit.batch.parameters import parse_value

    with pytest.raises(ValueError) as caught:
        parse_value(raw)
    assert str(caught.value) == message and len(message) <= LINE


@pytest.mark.parametrize("args, message", [
    (["-p", "pool_depths", "[5, 5]"], "evalkit: error: 00_tour: parameter pool_depths = [5, 5] repeats 5 (the items "
                                      "must be distinct) (declared: list of int in [1, 100000], distinct, 1 to 50 "
                                      "items)"),
    (["-p", "pool_depths", str(list(range(20_000)))[:9_990] + "]"],
     "evalkit: error: 00_tour: parameter pool_depths = [0, 1, 2, 3, 4, …] (1850 items) has 1850 items (from 1 to 50) "
     "(declared: list of int in [1, 100000], distinct, 1 to 50 items)"),
    (["-p", "measure", "nan"],
     "evalkit: error: 00_tour: parameter measure = nan is not a measure name (declared: measure)"),
    (["--params", "measure=AP pool_depths=[1,2] preset=fast"],
     "evalkit: error: 00_tour: parameter preset = 'fast' is not one of 'class', 'paper' (declared: one of \"class\", "
     "\"paper\")"),
], ids=["-p pool_depths [5, 5]", "-p pool_depths of 1850 items", "-p measure nan", "--params preset=fast"])
def test_the_batch_refuses_a_bad_parameter_before_any_kernel_starts(tmp_path, args, message):
    result = run_cli("notebooks", "run", "00_tour", "--dataset", "synthetic", "--fast", "--out", tmp_path / "out",
                     *args, cwd=tmp_path, timeout=120)
    _refused(result, 2, message)
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no output, no staging folder, no kernel log


def test_an_undeclared_parameter_cannot_be_given(tmp_path):
    write_notebook(tmp_path / "nbs" / "01_k.ipynb", "print(k)", parameters="dataset = 'x'\nfast = False\nk = 1")
    result = run_cli("notebooks", "run", "--notebooks", tmp_path / "nbs", "-p", "k", "3", "--out", tmp_path / "out",
                     cwd=tmp_path, timeout=120)
    _refused(result, 2, "evalkit: error: 01_k: parameter k = 3 cannot be checked: no declaration (a trailing comment "
                        "such as '# int in [1, 100]'); every parameter given to a batch needs a declared type")


# -- make reproduce: nothing in DATASET, PARAMS, NOTEBOOKS or FAST is run ------------------------------------------

@pytest.fixture()
def make_folder(tmp_path):
    """The Makefile in a scratch folder whose install stamp is newer than what it depends on (pyproject.toml,
    setup.py, the compiled reader's source), evalkit from this Python's environment: make reproduce runs without
    installing anything."""
    if not shutil.which("make"):
        pytest.skip("make not found")
    folder = tmp_path / "checkout"
    folder.mkdir()
    shutil.copy(REPO / "Makefile", folder / "Makefile")
    sources = [folder / "pyproject.toml", folder / "setup.py", folder / "evalkit" / "data" / "_native_runs.c"]
    for source in sources:  # what the install stamp depends on, all older than it
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text("")
    (folder / ".venv").mkdir()
    (folder / ".venv" / ".installed").write_text("")
    for source in sources:
        os.utime(source, (1, 1))
    write_notebook(tmp_path / "nbs" / "01_ok.ipynb", "pass")
    return folder


@pytest.mark.parametrize("assignment", [
    "PARAMS=measure=$(shell touch {F})x", "DATASET=$(shell touch {F})", "NOTEBOOKS=$(shell touch {F}) x;touch {F}",
    "FAST=$(shell touch {F})", "PARAMS=measure=`touch {F}`", "PARAMS=measure=$$(touch {F})", "PARAMS=a=1;touch {F}",
    "DATASET=$$(touch {F})", "NOTEBOOKS=`touch {F}`"])
def test_make_reproduce_runs_nothing_given_in_its_variables(make_folder, tmp_path, assignment):
    flag = tmp_path / "RAN"
    result = subprocess.run(
        ["make", "-s", "reproduce", f"BIN={Path(sys.executable).parent}", assignment.replace("{F}", str(flag)),
         "PARAMS=x=1" if not assignment.startswith("PARAMS") else "FAST=1"],
        cwd=make_folder, capture_output=True, text=True, timeout=300,
        env={**os.environ, "EVALKIT_NOTEBOOKS": str(tmp_path / "nbs")})
    assert not flag.exists(), result.stderr
    assert result.returncode != 0 and "evalkit: error:" in result.stderr  # refused before any notebook ran
    assert not (tmp_path / "outputs").exists()


def test_make_reproduce_runs_nothing_from_the_environment_either(make_folder, tmp_path):
    flag = tmp_path / "RAN"
    result = subprocess.run(["make", "-s", "reproduce", f"BIN={Path(sys.executable).parent}"], cwd=make_folder,
                            capture_output=True, text=True, timeout=300,
                            env={**os.environ, "EVALKIT_NOTEBOOKS": str(tmp_path / "nbs"),
                                 "PARAMS": f"x=$(shell touch {flag})", "DATASET": f"$(shell touch {flag})"})
    assert not flag.exists() and result.returncode != 0 and "evalkit: error:" in result.stderr


# -- output folders, a full disk, signals --------------------------------------------------------------------------

def test_a_full_disk_at_the_staging_step_leaves_nothing(tmp_path, monkeypatch):
    from evalkit.batch.outputs import Staging

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(self))

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(OSError, match="No space left"):
        with Staging(tmp_path / "out"):
            pass
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_while_copying_the_report_assets_is_one_short_line(tmp_path, monkeypatch):
    from evalkit.batch import html_export

    failures = [(f"/src/{i}.js", f"/dst/{i}.js", "[Errno 28] No space left on device") for i in range(900)]

    def copytree(*args, **kwargs):
        raise shutil.Error(failures)

    monkeypatch.setattr(html_export.shutil, "copytree", copytree)
    with pytest.raises(OSError) as caught:
        html_export.copy_offline_assets(tmp_path)
    assert len(str(shutil.Error(failures))) > 50_000  # what the batch printed before
    assert str(caught.value) == (f"could not copy MathJax into {tmp_path}/_static/mathjax: 900 file(s) failed, the "
                                 "first with: [Errno 28] No space left on device")


def test_sigterm_during_the_cache_save_leaves_no_temporary_folder(tmp_path):
    process = stalled_cache_save(write_collection(tmp_path / "coll"), tmp_path / "cache")
    assert process.stdout.readline().strip() == "writing"
    assert [p.name[:5] for p in (tmp_path / "cache").iterdir()] == [".tmp-"]
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == -signal.SIGTERM, err  # ended by the signal, as it would have
    assert list((tmp_path / "cache").iterdir()) == []


def test_the_cli_error_line_is_cut_whatever_the_exception_holds(tmp_path):
    """Whatever an OSError or ValueError holds, the evalkit command prints one line of at most LINE characters."""
    code = textwrap.dedent("""
        import sys
        import evalkit.cli as cli
        def boom(args):
            raise OSError("x" * 90_000 + "\\n" + "y")
        cli._report = boom
        sys.exit(cli.main(["report", "--out", "."]))
        """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    lines = result.stderr.splitlines()
    assert result.returncode == 2 and len(lines) == 1 and lines[0].endswith("…")
    assert len(lines[0]) == len("evalkit: error: ") + LINE
