"""``evalkit notebooks run`` through the front door: a subprocess on tiny notebooks and collections on disk.

One batch (module fixture) runs four throwaway notebooks (ok with a parameter, failing, skipped by a needs-check,
one showing a hostile collection's topic ids and run names every way a notebook can) on a collection given as a
relative ``some/dir/..`` path from another folder; the tests read what it printed and wrote. The other tests stop
batches by signal, feed bad input, and go through ``make reproduce``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from batch_helpers import (
    EVALKIT,
    HOSTILE_RUN,
    HOSTILE_TOPIC,
    run_cli,
    visible_lines,
    write_collection,
    write_notebook,
)

from evalkit.batch.outputs import MARKER

REPO = Path(__file__).resolve().parents[1]

HOSTILE_CELLS = [
    "import evalkit, pandas as pd\n"
    "from IPython.display import HTML, Markdown, display\n"
    "collection = evalkit.load_dataset(dataset)\n"
    "table = pd.DataFrame(collection.docs[:, :, 0] >= 0, index=collection.run_names, columns=collection.topics)\n"
    "display(table.style)\n"
    "display(table)\n"
    "display(Markdown('Runs: ' + ', '.join(collection.run_names)))\n"
    "display(HTML('<p>topic ' + collection.topics[-1] + '</p>'))\n"
    "print(list(collection.run_names))",
    "from tqdm.auto import tqdm\n"
    "for _ in tqdm(range(3), desc=collection.run_names[0]):\n"
    "    pass",
    "import matplotlib.pyplot as plt\n"
    "plt.plot([1, 2, 3]); plt.title(collection.run_names[0]); plt.show()",
    "from evalkit.claims import Claim, record_claims\n"
    "record_claims([Claim('Paper 2008', 'run ' + collection.run_names[0] + ' on ' + collection.topics[-1], '0.8',"
    " '0.7', dataset, 'yes', note=collection.topics[-1])])",
]


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    root = tmp_path_factory.mktemp("batch")
    notebooks = root / "checkout" / "notebooks"
    write_notebook(notebooks / "01_ok.ipynb",
                   ("md", "# The first notebook\nA formula: $\\hat{R} = \\sum_{i} x_i$ and $$\\frac{1}{R}$$"),
                   "print('dataset:', repr(dataset), 'k:', k)",
                   "import matplotlib.pyplot as plt\nplt.plot([3, 1, 2]); plt.show()",
                   parameters="dataset = 'synthetic'\nfast = False\nk = 1  # int in [1, 10]")
    write_notebook(notebooks / "02_fail.ipynb", "1 / 0")
    write_notebook(notebooks / "03_skip.ipynb",
                   "from evalkit.papers.needs import require\n"
                   "require(False, 'at least 2 judged runs', '0 judged runs', 'Mark them in runs_table.tsv.')")
    write_notebook(notebooks / "04_hostile.ipynb", *HOSTILE_CELLS)
    (root / "checkout" / "KEEP.txt").write_text("the user's file")
    write_collection(root / "data" / "coll", topics=("401", HOSTILE_TOPIC), runs=(HOSTILE_RUN, "runB", "runC"))
    (root / "work").mkdir()
    started = time.perf_counter()
    result = run_cli("notebooks", "run", "--notebooks", "../checkout/notebooks", "--dataset", "../data/coll/runs/..",
                     "-p", "k", "3", cwd=root / "work")
    return root, result, time.perf_counter() - started


def test_every_notebook_runs_and_the_exit_code_says_one_failed(batch):
    root, result, _ = batch
    lines = visible_lines(result.stdout) + visible_lines(result.stderr)
    assert result.returncode == 1, result.stderr
    assert "01_ok: ok" in "\n".join(lines)
    assert any(line.startswith("02_fail: failed") and "ZeroDivisionError: division by zero" in line for line in lines)
    assert any(line.startswith("03_skip: skipped") and "needs at least 2 judged runs" in line for line in lines)
    assert "4 notebooks on coll: 2 ok, 1 skipped, 1 failed (skipped is not a failure" in result.stdout
    assert "Traceback" not in result.stderr
    assert "without encryption" not in result.stderr + result.stdout  # IPC transport: no TCP warning per kernel


def test_outputs_land_beside_the_notebooks_and_the_checkout_is_intact(batch):
    root, _, _ = batch
    out = root / "checkout" / "outputs" / "coll"
    assert (out / MARKER).is_file() and (out / "index.html").is_file()
    assert (root / "checkout" / "KEEP.txt").read_text() == "the user's file"
    assert sorted(p.name for p in (root / "checkout" / "notebooks").iterdir()) == [
        "01_ok.ipynb", "02_fail.ipynb", "03_skip.ipynb", "04_hostile.ipynb"]
    assert sorted(p.name for p in (root / "checkout" / "outputs").iterdir()) == ["coll"]  # no staging left


def test_statuses_parameters_and_the_absolute_dataset_are_recorded(batch):
    root, _, _ = batch
    out = root / "checkout" / "outputs" / "coll"
    record = json.loads((out / "batch.json").read_text())
    by_name = {n["name"]: n for n in record["notebooks"]}
    assert {k: v["status"] for k, v in by_name.items()} == {
        "01_ok": "ok", "02_fail": "failed", "03_skip": "skipped", "04_hostile": "ok"}
    assert by_name["03_skip"]["reason"] == ("This notebook needs at least 2 judged runs; the collection has 0 judged "
                                            "runs. Mark them in runs_table.tsv.")
    assert by_name["01_ok"]["applied"] == {"k": 3} and by_name["02_fail"]["not_applicable"] == ["k"]
    assert record["dataset"]["resolved"] == str((root / "data" / "coll").resolve())
    assert record["dataset"]["facts"]["runs"] == 3 and record["parameters"] == {"k": 3}
    first = nbformat.read(str(out / "01_ok.ipynb"), as_version=4)
    printed = "".join(o.get("text", "") for c in first.cells for o in c.get("outputs", []))
    assert f"dataset: {str((root / 'data' / 'coll').resolve())!r} k: 3" in printed
    failed = nbformat.read(str(out / "02_fail.ipynb"), as_version=4)
    errors = [o for c in failed.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert [e["ename"] for e in errors] == ["ZeroDivisionError"]


def test_the_index_shows_each_status_reason_figure_and_the_run(batch):
    root, _, _ = batch
    out = root / "checkout" / "outputs" / "coll"
    page = (out / "index.html").read_text()
    for name, status in [("01_ok", "ok"), ("02_fail", "failed"), ("03_skip", "skipped"), ("04_hostile", "ok")]:
        assert re.search(rf'<div class="card {status}" id="{name}">', page), name
    assert "why it was skipped:</b> This notebook needs at least 2 judged runs" in page
    assert "what failed:</b> ZeroDivisionError: division by zero (cell 3)" in page
    assert '<span class="count ok">2 ok</span>' in page and '<span class="count failed">1 failed</span>' in page
    assert "<code>k = 3</code>" in page and "not applicable here: <code>k</code>" in page
    assert "load average (1/5/15 min)" in page
    figures = re.findall(r'<a href="01_ok\.html#cell-id=[^"]+"><img src="(figures/01_ok-1\.png)"', page)
    assert figures and (out / figures[0]).read_bytes().startswith(b"\x89PNG")
    assert (out / "claims.csv").read_text().count("\n") == 2
    skipped = (out / "03_skip.html").read_text()
    assert "Skipped on this collection:</b> This notebook needs at least 2 judged runs" in skipped
    assert "An Exception was encountered" not in skipped and "An Exception was encountered" in (
        out / "02_fail.html").read_text()


class _LiveTags(HTMLParser):
    """Collects tags that would run something: scripts holding ``alert(``, svg, iframes, ``on*`` attributes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.live, self._in_script = [], False

    def handle_starttag(self, tag, attrs):
        if tag in ("svg", "iframe", "object", "embed"):
            self.live.append(tag)
        self.live.extend(f"{tag} {name}" for name, _ in attrs if name.startswith("on"))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script and "alert(" in data:
            self.live.append("script: " + data.strip()[:60])


def test_no_html_page_holds_a_live_tag_from_input(batch):
    root, _, _ = batch
    out = root / "checkout" / "outputs" / "coll"
    pages = sorted(out.glob("*.html"))
    assert len(pages) == 5
    for page in pages:
        parser = _LiveTags()
        parser.feed(page.read_text())
        assert parser.live == [], page.name
    hostile = (out / "04_hostile.html").read_text()
    assert hostile.count("&lt;svg/onload=alert(13)&gt;") >= 4  # Styler, DataFrame, Markdown, HTML, claims
    assert hostile.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 4
    index = (out / "index.html").read_text()
    assert "run &lt;script&gt;alert(1)&lt;/script&gt; on &lt;svg/onload=alert(13)&gt;" in index


def test_pages_load_nothing_from_the_web(batch):
    root, _, _ = batch
    out = root / "checkout" / "outputs" / "coll"
    assert (out / "_static" / "mathjax" / "MathJax.js").is_file()
    for page in out.glob("*.html"):
        text = page.read_text()
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text), page.name
        assert "cdnjs" not in text and "unpkg.com/@jupyter" not in text, page.name


@pytest.mark.skipif(not shutil.which("chromium"), reason="Debian's chromium is not installed (apt-get install chromium)")
def test_formulas_render_offline_in_headless_chromium(batch):
    root, _, _ = batch
    page = root / "checkout" / "outputs" / "coll" / "01_ok.html"
    dom = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--host-resolver-rules=MAP * ~NOTFOUND", "--virtual-time-budget=15000",
         "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120).stdout
    assert dom.count('class="MathJax"') + dom.count('class="MathJax_Display"') >= 2, dom[-2000:]
    assert "\\hat{R}" not in re.sub(r"<script[^>]*math/tex[^>]*>.*?</script>", "", dom, flags=re.S)


# -- stopping a batch -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_the_batch_cleans_up_and_keeps_the_previous_outputs(tmp_path, signum, code):
    pid_file = tmp_path / "kernel.pid"
    write_notebook(tmp_path / "nbs" / "01_sleep.ipynb",
                   "import os, time\nopen(pid_file, 'w').write(str(os.getpid()))\ntime.sleep(120)",
                   parameters="dataset = 'synthetic'\nfast = False\npid_file = ''  # text")
    write_collection(tmp_path / "coll")
    previous = tmp_path / "outputs" / "coll"
    previous.mkdir(parents=True)
    (previous / MARKER).write_text("{}")
    (previous / "index.html").write_text("previous report")
    # the batch as a terminal starts it: SIGINT at its default. A test run started in the background by a
    # non-interactive shell (`cmd &`) inherits SIGINT ignored, and Python then installs no KeyboardInterrupt
    # handler: Ctrl-C cannot reach such a process, and the test would wait for nothing
    process = subprocess.Popen([*EVALKIT, "notebooks", "run", "--notebooks", str(tmp_path / "nbs"), "--dataset",
                                str(tmp_path / "coll"), "-p", "pid_file", str(pid_file)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while not pid_file.exists() or not pid_file.read_text():
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.2)
    process.send_signal(signum)
    stopped = time.monotonic()
    out, err = process.communicate(timeout=60)
    assert process.returncode == code
    assert time.monotonic() - stopped < 20
    # the dataset's pool line (evalkit.data.pool_metadata: judged runs, judged depth, the rule), then the interruption
    assert visible_lines(err) == [
        "evalkit: coll: 3 of 3 runs judged (derived: every document of the run's top 100 is in the qrels, on every "
        "topic); judged depth 5 (derived: every document the judged runs rank is in the qrels, and they rank at most 5 "
        "documents a topic).",
        f"evalkit: interrupted ({signal.Signals(signum).name}): the batch stopped after 0 of 1 notebooks; nothing "
        f"was published and {previous} is as it was"]
    assert sorted(p.name for p in (tmp_path / "outputs").iterdir()) == ["coll"]  # staging folder removed
    assert (previous / "index.html").read_text() == "previous report"
    kernel = int(pid_file.read_text())
    for _ in range(50):
        if not Path(f"/proc/{kernel}").exists():
            break
        time.sleep(0.1)
    assert not Path(f"/proc/{kernel}").exists(), "the kernel outlived the batch"


def test_a_hung_cell_fails_its_notebook_at_the_time_limit_and_the_batch_goes_on(tmp_path):
    write_notebook(tmp_path / "nbs" / "01_hangs.ipynb", "import time\ntime.sleep(600)")
    write_notebook(tmp_path / "nbs" / "02_after.ipynb", "print('still here')")
    write_collection(tmp_path / "coll")
    started = time.monotonic()
    result = run_cli("notebooks", "run", "--notebooks", tmp_path / "nbs", "--dataset", tmp_path / "coll",
                     "--cell-timeout", "3", cwd=tmp_path)
    assert result.returncode == 1 and time.monotonic() - started < 240
    record = json.loads((tmp_path / "outputs" / "coll" / "batch.json").read_text())
    statuses = {n["name"]: (n["status"], n["reason"]) for n in record["notebooks"]}
    assert statuses["02_after"] == ("ok", "")
    assert statuses["01_hangs"] == ("failed", "CellTimeoutError: a cell ran longer than the 3 s limit and was "
                                              "stopped (--cell-timeout changes the limit)")
    assert (tmp_path / "outputs" / "coll" / "01_hangs.ipynb").is_file()
    assert "Traceback" not in result.stderr  # the kernel's complaints at shutdown go to its log, if any


# -- bad input, before any notebook runs ----------------------------------------------------------------------------

def test_a_bad_dataset_is_one_line_and_nothing_is_written(tmp_path):
    write_notebook(tmp_path / "nbs" / "01_ok.ipynb", "pass")
    write_collection(tmp_path / "bad")
    with open(tmp_path / "bad" / "runs" / "input.run1", "a") as run:
        run.write("401 Q0 DOC-9 6 1.0\n")
    result = run_cli("notebooks", "run", "--notebooks", tmp_path / "nbs", "--dataset", "bad", cwd=tmp_path)
    assert result.returncode == 2
    assert visible_lines(result.stderr) == [
        f"evalkit: error: {tmp_path / 'bad' / 'runs' / 'input.run1'}:11: expected 6 columns (topic Q0 docno rank "
        "score tag), found 5"]
    assert not (tmp_path / "outputs").exists()


def test_refusals_are_one_line_and_touch_nothing(tmp_path):
    write_notebook(tmp_path / "nbs" / "01_ok.ipynb", "pass", parameters="dataset = 'x'\nfast = False\nk = 1")
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "thesis.tex").write_text("years of work")
    refused = run_cli("notebooks", "run", "--notebooks", tmp_path / "nbs", "--out", "r", cwd=tmp_path)
    assert refused.returncode == 2 and (tmp_path / "r" / "thesis.tex").read_text() == "years of work"
    assert visible_lines(refused.stderr) == [
        "evalkit: error: output folder 'r' exists and was not made by evalkit (no .evalkit-output file in it), so "
        "the kit will not replace it: choose another --out, or move that folder away yourself"]
    unknown = run_cli("notebooks", "run", "--notebooks", tmp_path / "nbs", "-p", "phase1_depth", "5", cwd=tmp_path)
    assert unknown.returncode == 2 and visible_lines(unknown.stderr) == [
        "evalkit: error: unknown notebook parameter phase1_depth: no notebook in this batch has it in its "
        "parameters cell; known: k"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nbs", "r"]


# -- make reproduce -----------------------------------------------------------------------------------------------

def _make_is_ready() -> bool:
    if not shutil.which("make") or Path(sys.prefix).resolve() != (REPO / ".venv").resolve():
        return False
    return subprocess.run(["make", "-q", "-C", str(REPO), "install"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _make_is_ready(), reason="needs make and this checkout's installed .venv")
def test_make_reproduce_passes_dataset_and_params_through(tmp_path):
    write_notebook(tmp_path / "nbs" / "01_echo.ipynb", "print(repr(dataset), repr(label), repr(k), repr(depths))",
                   parameters="dataset = 'x'\nfast = False\nlabel = ''  # text\nk = 1  # int in [1, 10]\n"
                              "depths = [1]  # list of int in [1, 100], distinct")
    write_collection(tmp_path / "my data" / "coll")
    result = subprocess.run(
        ["make", "-s", "-C", str(REPO), "reproduce", f"DATASET={tmp_path / 'my data' / 'coll'}",
         "PARAMS=k=3 label='two words' depths=[5,10]", "FAST=1"],
        env={**os.environ, "EVALKIT_NOTEBOOKS": str(tmp_path / "nbs")}, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    executed = nbformat.read(str(tmp_path / "outputs" / "coll-fast" / "01_echo.ipynb"), as_version=4)
    printed = "".join(o.get("text", "") for c in executed.cells for o in c.get("outputs", []))
    assert printed.strip() == f"{str(tmp_path / 'my data' / 'coll')!r} 'two words' 3 [5, 10]"


def test_a_batch_in_which_nothing_ran_exits_3_and_says_why_first(tmp_path):
    """Skipped is not success: every notebook skipped -> exit 3, and the report's first line says why."""
    notebooks = tmp_path / "nbs"
    for name in ("01_a", "02_b"):
        write_notebook(notebooks / f"{name}.ipynb",
                       "from evalkit.papers.needs import require\n"
                       "require(False, 'at least 2 judged runs', '0 judged runs', 'Mark them in runs_table.tsv.')")
    write_collection(tmp_path / "coll")
    result = run_cli("notebooks", "run", "--notebooks", notebooks, "--dataset", tmp_path / "coll",
                     "--out", tmp_path / "out")
    assert result.returncode == 3, result.stderr
    assert "0 ok, 2 skipped, 0 failed" in result.stdout and "nothing ran: every notebook was skipped" in result.stdout
    page = (tmp_path / "out" / "index.html").read_text()
    first = page.index('<p class="alert">')
    assert first < page.index("Written ") and "Nothing ran: all 2 notebooks were skipped" in page[first:]
    assert "exited with code 3" in page and "needs at least 2 judged runs" in page[first:]


def test_the_plan_a_notebook_displays_reaches_the_report_and_batch_json(tmp_path):
    notebooks = tmp_path / "nbs"
    write_notebook(notebooks / "01_plan.ipynb",
                   "from evalkit.papers.needs import Plan\n"
                   "plan = Plan('01_plan', 'coll', {'depth': 4}, ['depth 4 (the paper 50 of 100, scaled)'])\n"
                   "plan.mark_degenerate('sampling', 'sampling rate 1.0 on 2 of 2 topics', 'budget=400 restores it')\n"
                   "display(plan)")
    write_collection(tmp_path / "coll")
    result = run_cli("notebooks", "run", "--notebooks", notebooks, "--dataset", tmp_path / "coll",
                     "--out", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    line = ("01_plan on coll: depth 4 (the paper 50 of 100, scaled); degenerate here, so not rated: sampling "
            "(sampling rate 1.0 on 2 of 2 topics; budget=400 restores it).")
    record = json.loads((tmp_path / "out" / "batch.json").read_text())
    (entry,) = record["notebooks"]
    assert [p["line"] for p in entry["plans"]] == [line]
    assert entry["plans"][0]["degenerate"] == {"sampling": "sampling rate 1.0 on 2 of 2 topics"}
    assert f'<p class="plan"><b>plan:</b> {line}</p>' in (tmp_path / "out" / "index.html").read_text()


def test_findings_are_generated_from_the_run_with_its_seeds_and_code_version(tmp_path):
    notebooks = tmp_path / "nbs"
    write_notebook(notebooks / "01_found.ipynb", ("md", "# A study"),
                   "from evalkit.claims import Claim, record_claims\n"
                   "record_claims([Claim('Voorhees 2014', 'x | y', '0.9', f'{0.25 * k:.2f}', 'coll', 'yes', "
                   "interval='0.50 [0.40, 0.60] (95% test)')])",
                   parameters="dataset = 'synthetic'\nfast = False\nk = 1  # int in [1, 10]\n"
                              "seed = 2014  # int in [0, 4294967295]")
    write_collection(tmp_path / "coll")
    result = run_cli("notebooks", "run", "--notebooks", notebooks, "--dataset", tmp_path / "coll", "-p", "k", "2",
                     "-p", "seed", "7", "--out", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "out" / "findings.md").read_text()
    record = json.loads((tmp_path / "out" / "batch.json").read_text())
    assert record["code_version"] and record["code_version"] in text
    assert text.startswith("# What the notebooks find on coll")
    assert "## A study (`01_found`)" in text and "Status: ok; seeds: seed = 7." in text
    assert "| x \\| y | 0.9 (TREC-8) | 0.50 | 0.50 [0.40, 0.60] (95% test) | not comparable |" in text
